/* SPDX-License-Identifier: MIT */
/*
 * PAPI preset -> libpfm4 event per PMU family. Data only.
 *
 * A row applies when its pmu is active on this machine ("perf" rows, the
 * kernel's generic events, apply anywhere the kernel maps them); rows of one
 * preset are tried in order and the first that encodes and opens wins.
 * Names and umasks are libpfm4 4.13's, checked by tests/test-event.c under
 * LIBPFM_FORCE_PMU for each family. Sources:
 *   skl  lib/events/intel_skl_events.h (Intel SDM vol. 3B, 19.4 Skylake)
 *   icl  lib/events/intel_icl_events.h (Intel SDM vol. 3B, Ice Lake)
 *   spr  lib/events/intel_spr_events.h (Intel perfmon JSON, Sapphire Rapids)
 *   amd64_fam17h_zen2, amd64_fam19h_zen3/zen4
 *        lib/events/amd64_events_fam17h_zen2.h, ..._fam19h_zen3.h, ..._zen4.h
 *        (AMD PPR for family 17h model 31h, 19h model 01h, 19h model 11h)
 *   arm_n1 lib/events/arm_neoverse_n1_events.h (Arm Neoverse N1 TRM C2.3)
 *   perf  lib/events/perf_events.h (linux/perf_event.h generic events)
 * Derived PAPI presets (sums or differences of events) are left out: a
 * sampling event must be one counter.
 */
#ifndef HWPROF_EVENTS_PRESETS_H
#define HWPROF_EVENTS_PRESETS_H

struct hwp_preset_row {
	const char *preset;	/* PAPI name */
	const char *pmu;	/* libpfm4 PMU that must be active, or "perf" */
	const char *event;	/* libpfm4 event string */
};

struct hwp_preset {
	const char *name;
	unsigned int code;	/* PAPI's code: index | 0x80000000 */
	const char *desc;
};

/* The presets hwprof knows, with PAPI 7.0's codes. */
static const struct hwp_preset hwp_presets[] = {
	{ .name = "PAPI_L1_DCM", .code = 0x80000000, .desc = "Level 1 data cache misses" },
	{ .name = "PAPI_L1_ICM", .code = 0x80000001, .desc = "Level 1 instruction cache misses" },
	{ .name = "PAPI_L2_DCM", .code = 0x80000002, .desc = "Level 2 data cache misses" },
	{ .name = "PAPI_L2_TCM", .code = 0x80000007, .desc = "Level 2 cache misses" },
	{ .name = "PAPI_L3_TCM", .code = 0x80000008, .desc = "Level 3 cache misses" },
	{ .name = "PAPI_TLB_DM", .code = 0x80000014, .desc = "Data translation lookaside buffer misses" },
	{ .name = "PAPI_BR_CN", .code = 0x8000002B, .desc = "Conditional branch instructions" },
	{ .name = "PAPI_BR_MSP", .code = 0x8000002E, .desc = "Conditional branch instructions mispredicted" },
	{ .name = "PAPI_TOT_INS", .code = 0x80000032, .desc = "Instructions completed" },
	{ .name = "PAPI_LD_INS", .code = 0x80000035, .desc = "Load instructions" },
	{ .name = "PAPI_SR_INS", .code = 0x80000036, .desc = "Store instructions" },
	{ .name = "PAPI_BR_INS", .code = 0x80000037, .desc = "Branch instructions" },
	{ .name = "PAPI_RES_STL", .code = 0x80000039, .desc = "Cycles stalled on any resource" },
	{ .name = "PAPI_TOT_CYC", .code = 0x8000003B, .desc = "Total cycles" },
	{ .name = "PAPI_REF_CYC", .code = 0x8000006B, .desc = "Reference clock cycles" },
};

static const struct hwp_preset_row hwp_preset_rows[] = {
	/* Intel Skylake, Ice Lake, Sapphire Rapids */
	{ .preset = "PAPI_TOT_CYC", .pmu = "skl", .event = "skl::UNHALTED_CORE_CYCLES" },
	{ .preset = "PAPI_TOT_CYC", .pmu = "icl", .event = "icl::UNHALTED_CORE_CYCLES" },
	{ .preset = "PAPI_TOT_CYC", .pmu = "spr", .event = "spr::UNHALTED_CORE_CYCLES" },
	{ .preset = "PAPI_TOT_INS", .pmu = "skl", .event = "skl::INSTRUCTION_RETIRED" },
	{ .preset = "PAPI_TOT_INS", .pmu = "icl", .event = "icl::INSTRUCTION_RETIRED" },
	{ .preset = "PAPI_TOT_INS", .pmu = "spr", .event = "spr::INSTRUCTION_RETIRED" },
	{ .preset = "PAPI_REF_CYC", .pmu = "skl", .event = "skl::UNHALTED_REFERENCE_CYCLES" },
	{ .preset = "PAPI_REF_CYC", .pmu = "icl", .event = "icl::UNHALTED_REFERENCE_CYCLES" },
	{ .preset = "PAPI_REF_CYC", .pmu = "spr", .event = "spr::UNHALTED_REFERENCE_CYCLES" },
	{ .preset = "PAPI_BR_INS", .pmu = "skl", .event = "skl::BR_INST_RETIRED:ALL_BRANCHES" },
	{ .preset = "PAPI_BR_INS", .pmu = "icl", .event = "icl::BR_INST_RETIRED:ALL_BRANCHES" },
	{ .preset = "PAPI_BR_INS", .pmu = "spr", .event = "spr::BR_INST_RETIRED:ALL_BRANCHES" },
	{ .preset = "PAPI_BR_CN", .pmu = "skl", .event = "skl::BR_INST_RETIRED:CONDITIONAL" },
	{ .preset = "PAPI_BR_CN", .pmu = "icl", .event = "icl::BR_INST_RETIRED:COND" },
	{ .preset = "PAPI_BR_CN", .pmu = "spr", .event = "spr::BR_INST_RETIRED:COND" },
	{ .preset = "PAPI_BR_MSP", .pmu = "skl", .event = "skl::BR_MISP_RETIRED:CONDITIONAL" },
	{ .preset = "PAPI_BR_MSP", .pmu = "icl", .event = "icl::BR_MISP_RETIRED:COND" },
	{ .preset = "PAPI_BR_MSP", .pmu = "spr", .event = "spr::BR_MISP_RETIRED:COND" },
	{ .preset = "PAPI_L1_DCM", .pmu = "skl", .event = "skl::L1D:REPLACEMENT" },
	{ .preset = "PAPI_L1_DCM", .pmu = "icl", .event = "icl::L1D:REPLACEMENT" },
	{ .preset = "PAPI_L1_DCM", .pmu = "spr", .event = "spr::L1D:REPLACEMENT" },
	{ .preset = "PAPI_L1_ICM", .pmu = "skl", .event = "skl::ICACHE_64B:IFTAG_MISS" },
	{ .preset = "PAPI_L1_ICM", .pmu = "icl", .event = "icl::ICACHE_64B:IFTAG_MISS" },
	{ .preset = "PAPI_L1_ICM", .pmu = "spr", .event = "spr::ICACHE_DATA:STALLS" },
	{ .preset = "PAPI_L2_DCM", .pmu = "skl", .event = "skl::L2_RQSTS:DEMAND_DATA_RD_MISS" },
	{ .preset = "PAPI_L2_DCM", .pmu = "icl", .event = "icl::L2_RQSTS:DEMAND_DATA_RD_MISS" },
	{ .preset = "PAPI_L2_DCM", .pmu = "spr", .event = "spr::L2_RQSTS:DEMAND_DATA_RD_MISS" },
	{ .preset = "PAPI_L2_TCM", .pmu = "skl", .event = "skl::L2_RQSTS:MISS" },
	{ .preset = "PAPI_L2_TCM", .pmu = "icl", .event = "icl::L2_RQSTS:ALL_DEMAND_MISS" },
	{ .preset = "PAPI_L2_TCM", .pmu = "spr", .event = "spr::L2_RQSTS:ALL_DEMAND_MISS" },
	{ .preset = "PAPI_L3_TCM", .pmu = "skl", .event = "skl::LONGEST_LAT_CACHE:MISS" },
	{ .preset = "PAPI_L3_TCM", .pmu = "icl", .event = "icl::LONGEST_LAT_CACHE:MISS" },
	{ .preset = "PAPI_L3_TCM", .pmu = "spr", .event = "spr::LONGEST_LAT_CACHE:MISS" },
	{ .preset = "PAPI_TLB_DM", .pmu = "skl", .event = "skl::DTLB_LOAD_MISSES:WALK_COMPLETED" },
	{ .preset = "PAPI_TLB_DM", .pmu = "icl", .event = "icl::DTLB_LOAD_MISSES:WALK_COMPLETED" },
	{ .preset = "PAPI_TLB_DM", .pmu = "spr", .event = "spr::DTLB_LOAD_MISSES:WALK_COMPLETED" },
	{ .preset = "PAPI_LD_INS", .pmu = "skl", .event = "skl::MEM_INST_RETIRED:ALL_LOADS" },
	{ .preset = "PAPI_LD_INS", .pmu = "icl", .event = "icl::MEM_INST_RETIRED:ALL_LOADS" },
	{ .preset = "PAPI_LD_INS", .pmu = "spr", .event = "spr::MEM_INST_RETIRED:ALL_LOADS" },
	{ .preset = "PAPI_SR_INS", .pmu = "skl", .event = "skl::MEM_INST_RETIRED:ALL_STORES" },
	{ .preset = "PAPI_SR_INS", .pmu = "icl", .event = "icl::MEM_INST_RETIRED:ALL_STORES" },
	{ .preset = "PAPI_SR_INS", .pmu = "spr", .event = "spr::MEM_INST_RETIRED:ALL_STORES" },
	{ .preset = "PAPI_RES_STL", .pmu = "skl", .event = "skl::RESOURCE_STALLS:ANY" },
	{ .preset = "PAPI_RES_STL", .pmu = "icl", .event = "icl::RESOURCE_STALLS:SB" },

	/* AMD Zen 2, Zen 3, Zen 4 */
	{ .preset = "PAPI_TOT_CYC", .pmu = "amd64_fam17h_zen2", .event = "amd64_fam17h_zen2::CYCLES_NOT_IN_HALT" },
	{ .preset = "PAPI_TOT_CYC", .pmu = "amd64_fam19h_zen3", .event = "amd64_fam19h_zen3::CYCLES_NOT_IN_HALT" },
	{ .preset = "PAPI_TOT_CYC", .pmu = "amd64_fam19h_zen4", .event = "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT" },
	{ .preset = "PAPI_TOT_INS", .pmu = "amd64_fam17h_zen2", .event = "amd64_fam17h_zen2::RETIRED_INSTRUCTIONS" },
	{ .preset = "PAPI_TOT_INS", .pmu = "amd64_fam19h_zen3", .event = "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS" },
	{ .preset = "PAPI_TOT_INS", .pmu = "amd64_fam19h_zen4", .event = "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS" },
	{ .preset = "PAPI_BR_INS", .pmu = "amd64_fam17h_zen2", .event = "amd64_fam17h_zen2::RETIRED_BRANCH_INSTRUCTIONS" },
	{ .preset = "PAPI_BR_INS", .pmu = "amd64_fam19h_zen3", .event = "amd64_fam19h_zen3::RETIRED_BRANCH_INSTRUCTIONS" },
	{ .preset = "PAPI_BR_INS", .pmu = "amd64_fam19h_zen4", .event = "amd64_fam19h_zen4::RETIRED_BRANCH_INSTRUCTIONS" },
	{ .preset = "PAPI_BR_CN", .pmu = "amd64_fam17h_zen2", .event = "amd64_fam17h_zen2::RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS" },
	{ .preset = "PAPI_BR_CN", .pmu = "amd64_fam19h_zen3", .event = "amd64_fam19h_zen3::RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS" },
	{ .preset = "PAPI_BR_CN", .pmu = "amd64_fam19h_zen4", .event = "amd64_fam19h_zen4::RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS" },
	{ .preset = "PAPI_BR_MSP", .pmu = "amd64_fam17h_zen2", .event = "amd64_fam17h_zen2::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	{ .preset = "PAPI_BR_MSP", .pmu = "amd64_fam19h_zen3", .event = "amd64_fam19h_zen3::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	{ .preset = "PAPI_BR_MSP", .pmu = "amd64_fam19h_zen4", .event = "amd64_fam19h_zen4::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	{ .preset = "PAPI_TLB_DM", .pmu = "amd64_fam17h_zen2", .event = "amd64_fam17h_zen2::L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS" },
	{ .preset = "PAPI_TLB_DM", .pmu = "amd64_fam19h_zen3", .event = "amd64_fam19h_zen3::L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS" },
	{ .preset = "PAPI_TLB_DM", .pmu = "amd64_fam19h_zen4", .event = "amd64_fam19h_zen4::L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS" },
	{ .preset = "PAPI_L1_ICM", .pmu = "amd64_fam19h_zen3", .event = "amd64_fam19h_zen3::IC_TAG_HIT_MISS:IC_MISS" },
	{ .preset = "PAPI_L1_ICM", .pmu = "amd64_fam19h_zen4", .event = "amd64_fam19h_zen4::IC_TAG_HIT_MISS:IC_MISS" },

	/* Arm Neoverse N1 (PMUv3 common events) */
	{ .preset = "PAPI_TOT_CYC", .pmu = "arm_n1", .event = "arm_n1::CPU_CYCLES" },
	{ .preset = "PAPI_TOT_INS", .pmu = "arm_n1", .event = "arm_n1::INST_RETIRED" },
	{ .preset = "PAPI_L1_DCM", .pmu = "arm_n1", .event = "arm_n1::L1D_CACHE_REFILL" },
	{ .preset = "PAPI_L1_ICM", .pmu = "arm_n1", .event = "arm_n1::L1I_CACHE_REFILL" },
	{ .preset = "PAPI_L2_DCM", .pmu = "arm_n1", .event = "arm_n1::L2D_CACHE_REFILL" },
	{ .preset = "PAPI_L2_TCM", .pmu = "arm_n1", .event = "arm_n1::L2D_CACHE_REFILL" },
	{ .preset = "PAPI_L3_TCM", .pmu = "arm_n1", .event = "arm_n1::L3D_CACHE_REFILL" },
	{ .preset = "PAPI_TLB_DM", .pmu = "arm_n1", .event = "arm_n1::L1D_TLB_REFILL" },
	{ .preset = "PAPI_BR_INS", .pmu = "arm_n1", .event = "arm_n1::BR_RETIRED" },
	{ .preset = "PAPI_BR_MSP", .pmu = "arm_n1", .event = "arm_n1::BR_MIS_PRED_RETIRED" },
	{ .preset = "PAPI_LD_INS", .pmu = "arm_n1", .event = "arm_n1::LD_SPEC" },
	{ .preset = "PAPI_SR_INS", .pmu = "arm_n1", .event = "arm_n1::ST_SPEC" },
	{ .preset = "PAPI_RES_STL", .pmu = "arm_n1", .event = "arm_n1::STALL_BACKEND" },

	/* Generic kernel events, last: any PMU the kernel maps them on */
	{ .preset = "PAPI_TOT_CYC", .pmu = "perf", .event = "perf::CYCLES" },
	{ .preset = "PAPI_TOT_INS", .pmu = "perf", .event = "perf::INSTRUCTIONS" },
	{ .preset = "PAPI_REF_CYC", .pmu = "perf", .event = "perf::REF-CYCLES" },
	{ .preset = "PAPI_BR_INS", .pmu = "perf", .event = "perf::BRANCH-INSTRUCTIONS" },
	{ .preset = "PAPI_BR_MSP", .pmu = "perf", .event = "perf::BRANCH-MISSES" },
	{ .preset = "PAPI_L1_DCM", .pmu = "perf", .event = "perf::L1-DCACHE-LOAD-MISSES" },
	{ .preset = "PAPI_L1_ICM", .pmu = "perf", .event = "perf::L1-ICACHE-LOAD-MISSES" },
	{ .preset = "PAPI_L3_TCM", .pmu = "perf", .event = "perf::LLC-LOAD-MISSES" },
	{ .preset = "PAPI_TLB_DM", .pmu = "perf", .event = "perf::DTLB-LOAD-MISSES" },
	{ .preset = "PAPI_RES_STL", .pmu = "perf", .event = "perf::STALLED-CYCLES-BACKEND" },
};

#endif /* HWPROF_EVENTS_PRESETS_H */
