/* SPDX-License-Identifier: MIT */
/*
 * Event names: aliases, mem: breakpoints, libpfm4 strings, and the PAPI
 * preset table of events/ encoded for real CPUs of each family under
 * LIBPFM_FORCE_PMU (libpfm4 encodes for a PMU the kernel does not have;
 * a successful encode does not prove sampling works).
 * usage: test-event basic | test-event FAMILY (intel, amd, arm)
 */
#define _GNU_SOURCE
#define HWP_PFM_HEADERS
#include <perfmon/pfmlib_perf_event.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/engine/internal.h"
#include "../events/presets.h"
#include "harness.h"

void ev_target(void);
__attribute__((noinline, used)) void ev_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static int basic(void)
{
	struct hwp_event ev, ev2;
	char why[256], name[64];
	int bp;

	T_EQ(hwp_event_resolve("task-clock", &ev, why, sizeof(why)), 0);
	T_CHECK(ev.attr.type == PERF_TYPE_SOFTWARE &&
			ev.attr.config == PERF_COUNT_SW_TASK_CLOCK && ev.kind == HWP_EV_CLOCK,
		"task-clock");
	T_EQ(ev.default_period, 1000000);
	T_EQ(hwp_event_resolve(NULL, &ev, why, sizeof(why)), 0); /* default */
	T_EQ(ev.attr.config, PERF_COUNT_SW_TASK_CLOCK);
	T_EQ(hwp_event_resolve("cpu-clock", &ev, why, sizeof(why)), 0);
	T_EQ(ev.attr.config, PERF_COUNT_SW_CPU_CLOCK);
	T_EQ(hwp_event_resolve("page-faults", &ev, why, sizeof(why)), 0);
	T_CHECK(ev.attr.config == PERF_COUNT_SW_PAGE_FAULTS && ev.default_period == 1,
		"page-faults");
	T_EQ(hwp_event_resolve("perf::TASK-CLOCK", &ev, why, sizeof(why)), 0);
	T_CHECK(ev.attr.type == PERF_TYPE_SOFTWARE && ev.kind == HWP_EV_CLOCK,
		"perf::TASK-CLOCK");
	T_EQ(hwp_event_resolve("cycles", &ev, why, sizeof(why)), 0);
	T_CHECK(ev.attr.type == PERF_TYPE_HARDWARE && ev.kind == HWP_EV_HARDWARE,
		"cycles encodes (it may not open)");

	/* breakpoints are encoded either way; where they do not fire (or the
	 * test-only switch says so) the name is refused with the reason */
	bp = hwp_event_bp_fires() ? 0 : -EOPNOTSUPP;
	printf("breakpoints %s here\n", bp ? "do not fire" : "fire");
	snprintf(name, sizeof(name), "mem:%p:x", (void *)ev_target);
	T_EQ(hwp_event_resolve(name, &ev, why, sizeof(why)), bp);
	T_CHECK(ev.attr.type == PERF_TYPE_BREAKPOINT && ev.attr.bp_type == HW_BREAKPOINT_X &&
			ev.attr.bp_addr == (uint64_t)(uintptr_t)ev_target &&
			ev.attr.bp_len == sizeof(long) && ev.attr.exclude_kernel,
		"%s", name);
	if (bp)
		T_CHECK(strstr(why, "execute breakpoints do not fire on this machine"), "%s",
			why);
	T_EQ(hwp_event_resolve("mem:ev_target:x", &ev, why, sizeof(why)), bp);
	T_EQ(ev.attr.bp_addr, (uint64_t)(uintptr_t)ev_target);
	/* a function of a shared object: libc's; again from the cache */
	T_EQ(hwp_event_resolve("mem:getpid:x", &ev, why, sizeof(why)), bp);
	T_CHECK(ev.attr.bp_addr != 0, "getpid");
	T_EQ(hwp_event_resolve("mem:getpid:x", &ev2, why, sizeof(why)), bp);
	T_EQ(ev2.attr.bp_addr, ev.attr.bp_addr);

	/* the kernel's generic hardware events need no libpfm4 */
	T_EQ(hwp_event_resolve("instructions", &ev, why, sizeof(why)), 0);
	T_CHECK(ev.attr.type == PERF_TYPE_HARDWARE &&
			ev.attr.config == PERF_COUNT_HW_INSTRUCTIONS && ev.attr.exclude_kernel,
		"instructions");
	T_EQ(hwp_event_resolve("branch-misses", &ev, why, sizeof(why)), 0);
	T_EQ(ev.attr.config, PERF_COUNT_HW_BRANCH_MISSES);
	T_EQ(hwp_event_resolve("cache-misses", &ev, why, sizeof(why)), 0);
	T_EQ(ev.attr.config, PERF_COUNT_HW_CACHE_MISSES);
	/* kernel samples only when a libpfm4 string asks (:k) */
	T_EQ(hwp_event_resolve("perf::TASK-CLOCK:k", &ev, why, sizeof(why)), 0);
	T_CHECK(!ev.attr.exclude_kernel && ev.kind == HWP_EV_CLOCK, ":k");

	T_EQ(hwp_event_resolve("no::SUCH_EVENT", &ev, why, sizeof(why)), -ENOENT);
	T_CHECK(strstr(why, "no such event"), "%s", why);
	T_EQ(hwp_event_resolve("mem:nope_nope:x", &ev, why, sizeof(why)), -ENOENT);
	T_EQ(hwp_event_resolve("mem:0x:x", &ev, why, sizeof(why)), -EINVAL);
	T_EQ(hwp_event_resolve("mem::x", &ev, why, sizeof(why)), -EINVAL);
	T_EQ(hwp_event_resolve("mem:ev_target", &ev, why, sizeof(why)), -EINVAL);
	T_EQ(hwp_event_resolve("PAPI_FOO", &ev, why, sizeof(why)), -ENOENT);

	for (unsigned int i = 0;; i++) {
		const char *n;
		unsigned int code;

		if (hwprof_preset_info(i, &n, &code, NULL))
			break;
		T_CHECK(code & 0x80000000u, "%s code %#x", n, code);
	}
	T_EQ(hwprof_preset_info(1000, NULL, NULL, NULL), -ENOENT);
	return t_done("event-basic");
}

static const char *const families[][7] = {
	{ "intel", "skl", "skx", "clx", "icl", "icx", "spr" },
	{ "amd", "amd64_fam17h_zen2", "amd64_fam19h_zen3", "amd64_fam19h_zen4", NULL },
	{ "arm", "arm_n1", NULL },
};

/* The table pmu takes (its own, or an alias's). */
static const char *table_of(const char *pmu)
{
	for (size_t i = 0; i < sizeof(hwp_preset_aliases) / sizeof(hwp_preset_aliases[0]); i++)
		if (!strcmp(hwp_preset_aliases[i].pmu, pmu))
			return hwp_preset_aliases[i].table;
	return pmu;
}

static int pmu_known(const char *pmu)
{
	pfm_pmu_info_t info;

	for (int p = 0; p < PFM_PMU_MAX; p++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &info) == PFM_SUCCESS && info.name &&
		    !strcmp(info.name, pmu))
			return 1;
	}
	return 0;
}

/* In a child with LIBPFM_FORCE_PMU set (libpfm reads it once, at init):
 * every event of that PMU's rows encodes (an alias's with its own prefix),
 * each single-event preset resolves to its row's encoding and a derived
 * one is refused with the reason (one counter cannot sample it). */
static int one_pmu(const char *pmu)
{
	const char *table = table_of(pmu);
	int rows = 0;

	pfm_initialize();
	for (size_t i = 0; i < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]); i++) {
		const struct hwp_preset_row *r = &hwp_preset_rows[i];
		pfm_perf_encode_arg_t arg;
		struct perf_event_attr a, want;
		struct hwp_event ev;
		char why[256], term[256];
		int first = 1;

		if (strcmp(r->pmu, table))
			continue;
		rows++;
		memset(&want, 0, sizeof(want));
		for (int k = 0; !hwp_preset_term(r, pmu, k, term, sizeof(term)); k++) {
			memset(&a, 0, sizeof(a));
			memset(&arg, 0, sizeof(arg));
			arg.size = sizeof(arg);
			arg.attr = &a;
			if (!strncmp(term, "perf::", 6)) { /* the kernel's: no libpfm4 */
				T_EQ(hwp_event_resolve(term, &ev, why, sizeof(why)), 0);
				a = ev.attr;
			} else {
				T_CHECK(!strncmp(term, pmu, strlen(pmu)), "%s: %s", pmu, term);
				T_CHECK(pfm_get_os_event_encoding(term, PFM_PLM3,
								  PFM_OS_PERF_EVENT_EXT,
								  &arg) == PFM_SUCCESS,
					"events/presets.h: %s: %s does not encode", r->preset,
					term);
			}
			if (!k)
				want = a;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(hwp_preset_rows[j].preset, r->preset) &&
			    !strcmp(hwp_preset_rows[j].pmu, table))
				first = 0;
		if (!first)
			continue;
		if (r->derived) {
			T_EQ(hwp_event_resolve(r->preset, &ev, why, sizeof(why)), -EOPNOTSUPP);
			T_CHECK(strstr(why, "derived on this CPU"), "%s", why);
			continue;
		}
		T_EQ(hwp_event_resolve(r->preset, &ev, why, sizeof(why)), 0);
		T_CHECK(ev.attr.type == want.type && ev.attr.config == want.config &&
				ev.attr.config1 == want.config1 &&
				(ev.kind == HWP_EV_HARDWARE ||
				 !strncmp(r->event, "perf::", 6)),
			"%s under %s: type %u config %#llx, want %#llx", r->preset, pmu,
			ev.attr.type, (unsigned long long)ev.attr.config,
			(unsigned long long)want.config);
	}
	T_CHECK(rows >= 6, "%s: only %d rows", pmu, rows);
	printf("%s: %d rows encode\n", pmu, rows);
	return t_failed ? T_FAIL : T_PASS;
}

static int family(const char *self, const char *fam)
{
	for (size_t f = 0; f < 3; f++) {
		if (strcmp(families[f][0], fam))
			continue;
		pfm_initialize();
		for (int k = 1; k < 7 && families[f][k]; k++) {
			const char *pmu = families[f][k];
			char cmd[512];
			int st;

			if (!pmu_known(pmu)) {
				printf("SKIP: the libpfm4 on this host has no %s tables (built for another architecture)\n",
				       pmu);
				return T_SKIP;
			}
			snprintf(cmd, sizeof(cmd), "LIBPFM_FORCE_PMU=%s '%s' pmu %s", pmu,
				 self, pmu);
			st = system(cmd);
			T_CHECK(st == 0, "%s: rows failed", pmu);
		}
		return t_done(fam);
	}
	return T_ERROR;
}

/* Which row of events/presets.h a preset takes: the core PMU's own row
 * when libpfm4 knows the CPU, the kernel's generic event when it knows a
 * PMU the table has no row for, or when it knows none (a CPU newer than
 * this libpfm4, like Zen 5 with libpfm4 4.13). */
static int rows(void)
{
	const struct hwp_preset_row *r;
	struct hwp_event ev;
	char src[128];

	r = hwp_preset_row("PAPI_TOT_CYC", "amd64_fam19h_zen4", src, sizeof(src));
	T_CHECK(r && !strcmp(r->event, "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT"), "known");
	T_CHECK(!strcmp(src, "libpfm4 table amd64_fam19h_zen4"), "%s", src);
	r = hwp_preset_row("PAPI_TOT_INS", "skl", src, sizeof(src));
	T_CHECK(r && !strcmp(r->event, "skl::INST_RETIRED:ANY_P"), "skl");

	r = hwp_preset_row("PAPI_TOT_CYC", "amd64_fam15h", src, sizeof(src));
	T_CHECK(r && !strcmp(r->pmu, "perf") && !strcmp(r->event, "perf::CYCLES"), "unknown");
	T_CHECK(!strcmp(src,
			"kernel generic events: no PAPI_TOT_CYC row for libpfm4 PMU amd64_fam15h"),
		"%s", src);
	/* a preset PAPI has no Zen 4 row for: none, as PAPI (no generic one) */
	r = hwp_preset_row("PAPI_L3_TCM", "amd64_fam19h_zen4", src, sizeof(src));
	T_CHECK(!r, "zen4 L3");
	T_CHECK(!strcmp(src, "no PAPI_L3_TCM row for libpfm4 PMU amd64_fam19h_zen4"), "%s",
		src);

	r = hwp_preset_row("PAPI_TOT_CYC", NULL, src, sizeof(src));
	T_CHECK(r && !strcmp(r->event, "perf::CYCLES"), "none");
	T_CHECK(!strcmp(src, "kernel generic events: libpfm4 does not know this CPU"), "%s",
		src);
	/* no generic event for it: no row */
	T_CHECK(!hwp_preset_row("PAPI_L2_DCM", NULL, src, sizeof(src)), "L2 none");
	T_CHECK(!hwp_preset_row("PAPI_NOPE", "skl", src, sizeof(src)), "nope");

	/* the generic rows resolve without libpfm4, to the kernel's events */
	r = hwp_preset_row("PAPI_L1_DCM", NULL, src, sizeof(src));
	T_CHECK(r != NULL, "L1");
	if (r) {
		T_EQ(hwp_event_resolve(r->event, &ev, src, sizeof(src)), 0);
		T_CHECK(ev.attr.type == PERF_TYPE_HW_CACHE &&
				ev.attr.config == (PERF_COUNT_HW_CACHE_L1D |
						   PERF_COUNT_HW_CACHE_OP_READ << 8 |
						   PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
			"L1 encoding");
	}
	return t_done("event-rows");
}

/*
 * The core PMU as PAPI chooses it, fed the lists of present core PMUs that
 * libpfm4 reports on real machines, in its order (pfm_pmu_t ids:
 * ix86arch's comes before every Intel model's).
 */
static int chooser(const char *self)
{
	static const struct {
		const char *machine, *want;
		struct hwp_pmu_seen pmu[3];
		size_t n;
	} m[] = {
		{ "Skylake", "skl", { { "ix86arch", 1 }, { "skl", 0 } }, 2 },
		{ "Skylake-SP", "skx", { { "ix86arch", 1 }, { "skx", 0 } }, 2 },
		{ "Cascade Lake", "clx", { { "ix86arch", 1 }, { "clx", 0 } }, 2 },
		{ "Ice Lake-SP", "icx", { { "ix86arch", 1 }, { "icx", 0 } }, 2 },
		{ "Sapphire Rapids", "spr", { { "ix86arch", 1 }, { "spr", 0 } }, 2 },
		{ "Alder Lake",
		  "adl_glc",
		  { { "ix86arch", 1 }, { "adl_glc", 0 }, { "adl_grt", 0 } },
		  3 },
		{ "Zen 1",
		  "amd64_fam17h_zen1",
		  { { "amd64_fam17h", 0 }, { "amd64_fam17h_zen1", 0 } },
		  2 },
		{ "Zen 2", "amd64_fam17h_zen2", { { "amd64_fam17h_zen2", 0 } }, 1 },
		{ "Zen 3", "amd64_fam19h_zen3", { { "amd64_fam19h_zen3", 0 } }, 1 },
		{ "Neoverse N1", "arm_n1", { { "arm_n1", 0 } }, 1 },
		{ "a VM with architectural perfmon only",
		  "ix86arch",
		  { { "ix86arch", 1 } },
		  1 },
	};
	const struct hwp_preset_row *r;
	char src[128], ev[256];
	const char *got;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		const char *table = table_of(m[i].want);
		int own = 0;

		got = hwp_preset_core_pick(m[i].pmu, m[i].n);
		T_CHECK(got && !strcmp(got, m[i].want), "%s: chose %s, want %s", m[i].machine,
			got ? got : "none", m[i].want);
		if (!got)
			continue;
		/* and PAPI_TOT_CYC takes the chosen PMU's table (its own or an
		 * alias's, under its own prefix) where hwprof has one, else the
		 * kernel's generic cycles */
		for (size_t j = 0; j < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]);
		     j++)
			own |= !strcmp(hwp_preset_rows[j].pmu, table);
		r = hwp_preset_row("PAPI_TOT_CYC", got, src, sizeof(src));
		T_CHECK(r && !strcmp(r->pmu, own ? table : "perf"), "%s: PAPI_TOT_CYC: %s",
			m[i].machine, src);
		*ev = 0;
		if (r)
			T_EQ(hwp_preset_term(r, got, 0, ev, sizeof(ev)), 0);
		if (r && own)
			T_CHECK(!strncmp(ev, got, strlen(got)) &&
					!strncmp(ev + strlen(got), "::", 2),
				"%s: PAPI_TOT_CYC is %s", m[i].machine, ev);
		printf("%s: %s, PAPI_TOT_CYC %s (%s)\n", m[i].machine, got, ev, src);
	}
	T_CHECK(!hwp_preset_core_pick(NULL, 0), "no PMU: none");

	/* the chosen PMU reaches its model's rows, not the generic ones */
	r = hwp_preset_row("PAPI_TOT_CYC", "skl", src, sizeof(src));
	T_CHECK(r && !strcmp(r->pmu, "skl"), "skl: %s", src);
	/* Skylake-SP and Cascade Lake: their own rows, else Skylake's under
	 * their own PMU prefix (one table in PAPI 7.0 and libpfm4) */
	for (int k = 0; k < 2; k++) {
		const char *pmu = k ? "clx" : "skx";
		char want[32];

		r = hwp_preset_row("PAPI_TOT_CYC", pmu, src, sizeof(src));
		T_CHECK(r && (!strcmp(r->pmu, pmu) || !strcmp(r->pmu, "skl")), "%s: %s", pmu,
			src);
		if (!r)
			continue;
		hwp_preset_term(r, pmu, 0, ev, sizeof(ev));
		snprintf(want, sizeof(want), "%s::", pmu);
		T_CHECK(!strncmp(ev, want, strlen(want)), "%s: encodes %s", pmu, ev);
	}
	/* a generic row keeps its perf:: name on any PMU */
	r = hwp_preset_row("PAPI_TOT_CYC", "ix86arch", src, sizeof(src));
	T_CHECK(r && !strcmp(r->pmu, "perf"), "ix86arch: %s", src);
	if (r) {
		hwp_preset_term(r, "ix86arch", 0, ev, sizeof(ev));
		T_CHECK(!strcmp(ev, r->event), "generic: %s", ev);
	}

	/* and the encoding libpfm4 gives for them, where it has the tables */
	for (int k = 0; k < 2; k++) {
		const char *pmu = k ? "clx" : "skx";
		char cmd[512];

		pfm_initialize();
		if (!pmu_known(pmu)) {
			printf("the libpfm4 on this host has no %s tables: encodings not checked\n",
			       pmu);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "LIBPFM_FORCE_PMU=%s '%s' alias %s", pmu, self,
			 pmu);
		T_CHECK(system(cmd) == 0, "%s: presets do not resolve", pmu);
	}
	return t_done("event-chooser");
}

/* Under LIBPFM_FORCE_PMU=pmu (skx, clx): the presets Skylake has resolve
 * to the same encodings under pmu's prefix. */
static int alias(const char *pmu)
{
	int n = 0;

	pfm_initialize();
	for (size_t i = 0; i < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]); i++) {
		const struct hwp_preset_row *r = &hwp_preset_rows[i];
		struct hwp_event ev;
		char why[256];

		if (strcmp(r->pmu, "skl"))
			continue;
		if (r->derived) { /* PAPI's sums: not one event to sample */
			T_EQ(hwp_event_resolve(r->preset, &ev, why, sizeof(why)), -EOPNOTSUPP);
			continue;
		}
		T_EQ(hwp_event_resolve(r->preset, &ev, why, sizeof(why)), 0);
		T_CHECK(ev.kind == HWP_EV_HARDWARE && strstr(ev.src, pmu), "%s under %s: %s",
			r->preset, pmu, ev.src);
		n++;
	}
	T_CHECK(n >= 6, "only %d skl rows", n);
	printf("%s: %d presets resolve\n", pmu, n);
	return t_failed ? T_FAIL : T_PASS;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "rows"))
		return rows();
	if (argc > 1 && !strcmp(argv[1], "chooser"))
		return chooser(argv[0]);
	if (argc > 2 && !strcmp(argv[1], "alias"))
		return alias(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "pmu"))
		return one_pmu(argv[2]);
	if (argc > 1 && strcmp(argv[1], "basic"))
		return family(argv[0], argv[1]);
	return basic();
}
