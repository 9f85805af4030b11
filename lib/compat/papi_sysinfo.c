/* SPDX-License-Identifier: MIT */
/*
 * What PAPI tells about the machine and the process: the hardware (cpuid,
 * /proc/cpuinfo, sysfs topology and caches, cpufreq), the executable's
 * and the shared objects' ranges, and memory use from /proc, filled once
 * by PAPI_library_init() and read-only afterwards; the one component
 * ("perf_event"); the timers.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "papi_priv.h"

static PAPI_exe_info_t exe;
static PAPI_hw_info_t hw;
static PAPI_shlib_info_t shlib;

PAPI_hw_info_t *hwp_papi_hw(void)
{
	return &hw;
}

PAPI_exe_info_t *hwp_papi_exe(void)
{
	return &exe;
}

PAPI_shlib_info_t *hwp_papi_shlib(void)
{
	return &shlib;
}

/* ------------------------------------------------------------------ */
/* The process and the machine                                          */

static void exe_init(void)
{
	char line[4096 + 128];
	FILE *f;
	ssize_t n = readlink("/proc/self/exe", exe.fullname, sizeof(exe.fullname) - 1);
	const char *base;
	int after_exe = 0;

	if (n <= 0)
		return;
	exe.fullname[n] = 0;
	base = strrchr(exe.fullname, '/');
	snprintf(exe.address_info.name, sizeof(exe.address_info.name), "%s",
		 base ? base + 1 : exe.fullname);
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char perm[5], path[4096] = "";

		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %4095s", &a, &b, perm, path) < 3)
			continue;
		if (!strcmp(path, exe.fullname)) {
			if (perm[0] == 'r' && perm[2] == 'x') {
				exe.address_info.text_start = (vptr_t)a;
				exe.address_info.text_end = (vptr_t)b;
			}
			if (perm[1] == 'w') {
				exe.address_info.data_start = (vptr_t)a;
				exe.address_info.data_end = (vptr_t)b;
			}
			after_exe = 1;
		} else if (after_exe && !*path && perm[1] == 'w' &&
			   !exe.address_info.bss_start) {
			exe.address_info.bss_start = (vptr_t)a;
			exe.address_info.bss_end = (vptr_t)b;
			after_exe = 0;
		} else {
			after_exe = 0;
		}
	}
	if (f)
		fclose(f);
}

static long read_num(const char *path, long dflt)
{
	return hwp_sys_read_long(path, dflt);
}

static int read_str(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* "32K" -> 32768 */
static int size_bytes(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end == 'K')
		v *= 1024;
	else if (*end == 'M')
		v *= 1024 * 1024;
	return v > INT_MAX ? INT_MAX : (int)v;
}

static void add_cache(int level, int type, int size, int line, int ways)
{
	PAPI_mh_level_t *l;

	if (level < 1 || level > PAPI_MAX_MEM_HIERARCHY_LEVELS)
		return;
	l = &hw.mem_hierarchy.level[level - 1];
	for (int i = 0; i < PAPI_MH_MAX_LEVELS; i++) {
		PAPI_mh_cache_info_t *c = &l->cache[i];

		if (c->type != PAPI_MH_TYPE_EMPTY)
			continue;
		c->type = type;
		c->size = size;
		c->line_size = line;
		c->num_lines = line ? size / line : 0;
		c->associativity = ways;
		break;
	}
	if (level > hw.mem_hierarchy.levels)
		hw.mem_hierarchy.levels = level;
}

#if defined(__x86_64__) || defined(__i386__)
static void add_tlb(int type, int entries, int assoc)
{
	PAPI_mh_tlb_info_t *tl = hw.mem_hierarchy.level[0].tlb;

	for (int i = 0; i < PAPI_MH_MAX_LEVELS; i++) {
		if (tl[i].type != PAPI_MH_TYPE_EMPTY)
			continue;
		tl[i] = (PAPI_mh_tlb_info_t){ type, entries, 4096, assoc };
		break;
	}
}

/* AMD's older leaves, where the topology extensions are hidden (guests):
 * 0x80000005 (L1 and its TLBs), 0x80000006 (L2, L3). */
static void amd_legacy_caches(void)
{
	static const int ways[16] = { 0,  1, 2,	 3,  4,	 6,  8,	  0,
				      16, 0, 32, 48, 64, 96, 128, SHRT_MAX };
	unsigned int a, b, c, d;
	int w;

	if (__get_cpuid(0x80000005, &a, &b, &c, &d)) {
		w = (int)(c >> 16 & 0xff);
		add_cache(1, PAPI_MH_TYPE_DATA | PAPI_MH_TYPE_WB | PAPI_MH_TYPE_LRU,
			  (int)(c >> 24) * 1024, (int)(c & 0xff), w == 0xff ? SHRT_MAX : w);
		w = (int)(d >> 16 & 0xff);
		add_cache(1, PAPI_MH_TYPE_INST | PAPI_MH_TYPE_LRU, (int)(d >> 24) * 1024,
			  (int)(d & 0xff), w == 0xff ? SHRT_MAX : w);
		w = (int)(b >> 24);
		add_tlb(PAPI_MH_TYPE_DATA, (int)(b >> 16 & 0xff), w == 0xff ? SHRT_MAX : w);
		w = (int)(b >> 8 & 0xff);
		add_tlb(PAPI_MH_TYPE_INST, (int)(b & 0xff), w == 0xff ? SHRT_MAX : w);
	}
	if (__get_cpuid(0x80000006, &a, &b, &c, &d)) {
		if (c >> 16)
			add_cache(2, PAPI_MH_TYPE_UNIFIED | PAPI_MH_TYPE_WB | PAPI_MH_TYPE_LRU,
				  (int)(c >> 16) * 1024, (int)(c & 0xff), ways[c >> 12 & 0xf]);
		if (d >> 18)
			add_cache(3, PAPI_MH_TYPE_UNIFIED | PAPI_MH_TYPE_WB | PAPI_MH_TYPE_LRU,
				  (int)(d >> 18) * 512 * 1024, (int)(d & 0xff),
				  ways[d >> 12 & 0xf]);
	}
}
#endif

/* The caches of CPU 0 from sysfs; where the kernel exposes none (some
 * guests), from cpuid's deterministic cache leaves. */
static void caches_init(void)
{
	char p[128], s[64];
	int found = 0;

	for (int i = 0; i < 16; i++) {
		int level, type, size, line, ways;

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (read_str(p, s, sizeof(s)))
			break;
		type = !strcmp(s, "Data")	 ? PAPI_MH_TYPE_DATA :
		       !strcmp(s, "Instruction") ? PAPI_MH_TYPE_INST :
						   PAPI_MH_TYPE_UNIFIED;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		level = (int)read_num(p, 0);
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		size = read_str(p, s, sizeof(s)) ? 0 : size_bytes(s);
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
		line = (int)read_num(p, 0);
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/ways_of_associativity",
			 i);
		ways = (int)read_num(p, 0);
		add_cache(level, type | PAPI_MH_TYPE_WB | PAPI_MH_TYPE_LRU, size, line, ways);
		found = 1;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (!found) {
		unsigned int a, b, c, d, leaf = hw.vendor == PAPI_VENDOR_AMD ? 0x8000001d : 4;

		for (unsigned int i = 0; i < 16; i++) {
			int type, ways, line, parts, sets;

			if (!__get_cpuid_count(leaf, i, &a, &b, &c, &d) || !(a & 0x1f))
				break;
			type = (a & 0x1f) == 1 ? PAPI_MH_TYPE_DATA :
			       (a & 0x1f) == 2 ? PAPI_MH_TYPE_INST :
						 PAPI_MH_TYPE_UNIFIED;
			ways = (int)(b >> 22) + 1;
			parts = (int)((b >> 12) & 0x3ff) + 1;
			line = (int)(b & 0xfff) + 1;
			sets = (int)c + 1;
			if (a & (1u << 9)) /* fully associative */
				ways = SHRT_MAX;
			add_cache((int)((a >> 5) & 7),
				  type | PAPI_MH_TYPE_WB | PAPI_MH_TYPE_LRU,
				  (ways == SHRT_MAX ? 1 : ways) * parts * line * sets, line,
				  ways);
			found = 1;
		}
	}
	if (!found && hw.vendor == PAPI_VENDOR_AMD)
		amd_legacy_caches();
#endif
}

static void cpuinfo_init(void)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");
	float mhz = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9) && !hw.vendor_string[0])
			snprintf(hw.vendor_string, sizeof(hw.vendor_string), "%s", v);
		else if (!strncmp(line, "model name", 10) && !hw.model_string[0])
			snprintf(hw.model_string, sizeof(hw.model_string), "%s", v);
		else if (!strncmp(line, "cpu MHz", 7) && !mhz)
			mhz = strtof(v, NULL);
	}
	if (f)
		fclose(f);
	if (!strcmp(hw.vendor_string, "GenuineIntel"))
		hw.vendor = PAPI_VENDOR_INTEL;
	else if (!strcmp(hw.vendor_string, "AuthenticAMD") ||
		 !strcmp(hw.vendor_string, "HygonGenuine"))
		hw.vendor = PAPI_VENDOR_AMD;
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int a, b, c, d;

		if (__get_cpuid(1, &a, &b, &c, &d)) {
			int fam = (int)((a >> 8) & 0xf), mod = (int)((a >> 4) & 0xf);

			if (fam == 0xf)
				fam += (int)((a >> 20) & 0xff);
			if (fam >= 6)
				mod |= (int)((a >> 16) & 0xf) << 4;
			hw.cpuid_family = fam;
			hw.cpuid_model = mod;
			hw.cpuid_stepping = (int)(a & 0xf);
			hw.model = mod;
			hw.revision = (float)hw.cpuid_stepping;
			hw.virtualized = !!(c & (1u << 31));
		}
		if (hw.virtualized && __get_cpuid(0x40000000, &a, &b, &c, &d)) {
			memcpy(hw.virtual_vendor_string, &b, 4);
			memcpy(hw.virtual_vendor_string + 4, &c, 4);
			memcpy(hw.virtual_vendor_string + 8, &d, 4);
			hw.virtual_vendor_string[12] = 0;
		}
	}
#endif
	hw.cpu_max_mhz = (int)(read_num("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
					(long)(mhz * 1000)) /
			       1000);
	hw.cpu_min_mhz = (int)(read_num("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq",
					(long)(mhz * 1000)) /
			       1000);
	hw.mhz = (float)hw.cpu_max_mhz;
	hw.clock_mhz = hw.cpu_max_mhz;
}

/* Sockets, cores and threads from the online CPUs' topology. */
static void topology_init(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int pkgs[256], npkg = 0, sib = 1, nodes = 0;
	DIR *d;
	struct dirent *de;
	char p[128], s[256];

	hw.totalcpus = n > 0 ? (int)n : 1;
	for (int c = 0; c < hw.totalcpus; c++) {
		int pk, seen = 0;

		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
		pk = (int)read_num(p, 0);
		for (int i = 0; i < npkg; i++)
			seen |= pkgs[i] == pk;
		if (!seen && npkg < 256)
			pkgs[npkg++] = pk;
	}
	if (!read_str("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", s,
		      sizeof(s))) {
		/* "0-1" or "0,4" or "0" */
		char *q = s;

		sib = 0;
		while (*q) {
			long a = strtol(q, &q, 10), b = a;

			if (*q == '-')
				b = strtol(q + 1, &q, 10);
			sib += (int)(b - a + 1);
			if (*q == ',')
				q++;
			else if (*q)
				break;
		}
		if (sib < 1)
			sib = 1;
	}
	d = opendir("/sys/devices/system/node");
	while (d && (de = readdir(d)))
		nodes += !strncmp(de->d_name, "node", 4) &&
			 isdigit((unsigned char)de->d_name[4]);
	if (d)
		closedir(d);
	hw.sockets = npkg ? npkg : 1;
	hw.threads = sib;
	hw.cores = hw.totalcpus / hw.sockets / hw.threads;
	if (hw.cores < 1)
		hw.cores = 1;
	hw.nnodes = nodes ? nodes : 1;
	hw.ncpu = hw.totalcpus / hw.nnodes;
}

static int shlib_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	PAPI_address_map_t *m;
	uint64_t lo = UINT64_MAX, hi = 0, dlo = UINT64_MAX, dhi = 0;

	(void)size;
	(void)arg;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0; /* the program itself: PAPI_get_executable_info() */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_flags & PF_X) {
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		} else if (ph->p_flags & PF_W) {
			dlo = a < dlo ? a : dlo;
			dhi = a + ph->p_memsz > dhi ? a + ph->p_memsz : dhi;
		}
	}
	if (!hi)
		return 0;
	m = realloc(shlib.map, (size_t)(shlib.count + 1) * sizeof(*m));
	if (!m)
		return 1;
	shlib.map = m;
	m += shlib.count++;
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", info->dlpi_name);
	m->text_start = (vptr_t)(uintptr_t)lo;
	m->text_end = (vptr_t)(uintptr_t)hi;
	if (dhi) {
		m->data_start = (vptr_t)(uintptr_t)dlo;
		m->data_end = (vptr_t)(uintptr_t)dhi;
	}
	return 0;
}

/* Called by PAPI_library_init() under the PAPI lock. */
void hwp_papi_sysinfo_init(void)
{
	memset(&exe, 0, sizeof(exe));
	memset(&hw, 0, sizeof(hw));
	exe_init();
	cpuinfo_init();
	topology_init();
	caches_init();
	dl_iterate_phdr(shlib_cb, NULL);
}

void hwp_papi_sysinfo_free(void)
{
	free(shlib.map);
	shlib.map = NULL;
	shlib.count = 0;
}

HWPROF_API const PAPI_exe_info_t *PAPI_get_executable_info(void)
{
	return hwp_papi_inited() && exe.fullname[0] ? &exe : NULL;
}

HWPROF_API const PAPI_hw_info_t *PAPI_get_hardware_info(void)
{
	return hwp_papi_inited() ? &hw : NULL;
}

HWPROF_API const PAPI_shlib_info_t *PAPI_get_shared_lib_info(void)
{
	return hwp_papi_inited() ? &shlib : NULL;
}

/* /proc/self/status in kB; pagesize in bytes; pte as VmPTE. */
HWPROF_API int PAPI_get_dmem_info(PAPI_dmem_info_t *d)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "VmPeak:", offsetof(PAPI_dmem_info_t, peak) },
		{ "VmSize:", offsetof(PAPI_dmem_info_t, size) },
		{ "VmRSS:", offsetof(PAPI_dmem_info_t, resident) },
		{ "VmHWM:", offsetof(PAPI_dmem_info_t, high_water_mark) },
		{ "RssFile:", offsetof(PAPI_dmem_info_t, shared) },
		{ "VmExe:", offsetof(PAPI_dmem_info_t, text) },
		{ "VmLib:", offsetof(PAPI_dmem_info_t, library) },
		{ "VmData:", offsetof(PAPI_dmem_info_t, heap) },
		{ "VmLck:", offsetof(PAPI_dmem_info_t, locked) },
		{ "VmStk:", offsetof(PAPI_dmem_info_t, stack) },
		{ "VmPTE:", offsetof(PAPI_dmem_info_t, pte) },
	};
	char line[256];
	FILE *f;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!d)
		return hwp_papi_err(PAPI_EINVAL);
	f = fopen("/proc/self/status", "re");
	if (!f)
		return hwp_papi_err(PAPI_ESYS);
	for (size_t i = 0; i < sizeof(*d) / sizeof(long long); i++)
		((long long *)d)[i] = PAPI_EINVAL; /* PAPI: not available */
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i].key);

			if (!strncmp(line, keys[i].key, n)) {
				long long v = strtoll(line + n, NULL, 10);

				memcpy((char *)d + keys[i].off, &v, sizeof(v));
			}
		}
	}
	fclose(f);
	d->pagesize = sysconf(_SC_PAGESIZE);
	return PAPI_OK;
}

/* Filled once, read-only afterwards. */
static PAPI_component_info_t cmp;
static int cmp_disabled;
static int cmp_filled; /* under the lock */

static void cmp_init(void)
{
	struct utsname u;

	if (cmp_filled)
		return;
	cmp_filled = 1;

	snprintf(cmp.name, sizeof(cmp.name), "perf_event");
	snprintf(cmp.short_name, sizeof(cmp.short_name), "perf");
	snprintf(cmp.description, sizeof(cmp.description),
		 "Linux perf_event CPU counters (hwprof)");
	snprintf(cmp.version, sizeof(cmp.version), "5.0");
	snprintf(cmp.support_version, sizeof(cmp.support_version), "hwprof");
	if (!uname(&u))
		snprintf(cmp.kernel_version, sizeof(cmp.kernel_version), "%.63s", u.release);
	cmp.initialized = 1;
	cmp.CmpIdx = 0;
	cmp.num_cntrs = hwp_papi_num_cntrs();
	cmp.num_mpx_cntrs = HWP_PAPI_MAX_EVENTS;
	cmp.num_preset_events = hwp_papi_npresets();
	cmp.default_domain = PAPI_DOM_USER;
	cmp.available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR;
	cmp.default_granularity = PAPI_GRN_THR;
	cmp.available_granularities = PAPI_GRN_THR | PAPI_GRN_SYS;
	cmp.hardware_intr_sig = SIGRTMIN + 6;
	cmp.hardware_intr = 1;
	cmp.precise_intr = 1;
	cmp.posix1b_timers = 1;
	cmp.kernel_profile = 1;
	cmp.kernel_multiplex = 1;
	cmp.fast_real_timer = 1;
	cmp.fast_virtual_timer = 1;
	cmp.attach = 1;
	/* as PAPI's perf_event says: its tests ptrace the children they
	 * attach to on this flag (hwprof itself needs no ptrace) */
	cmp.attach_must_ptrace = 1;
	cmp.cntr_umasks = 1;
	cmp.cpu = 1;
	cmp.inherit = 1;
	cmp.pmu_names[0] = "perf";
}

/* ------------------------------------------------------------------ */
/* The component ("perf_event")                                                         */

HWPROF_API int PAPI_num_components(void)
{
	return 1;
}

/* As in PAPI, the component is described before PAPI_library_init() too,
 * so that it can be disabled first. */
HWPROF_API const PAPI_component_info_t *PAPI_get_component_info(int cidx)
{
	if (cidx != 0)
		return NULL;
	hwp_papi_lock();
	cmp_init();
	hwp_papi_unlock();
	return &cmp;
}

/* PAPI_library_init(), the lock held: the component as it starts. */
void hwp_papi_cmp_init(void)
{
	cmp_init();
	cmp.disabled = cmp_disabled ? PAPI_ECMP_DISABLED : 0;
	snprintf(cmp.disabled_reason, sizeof(cmp.disabled_reason), "%s",
		 cmp_disabled ? "Disabled by PAPI_disable_component()" : "");
}

/* PAPI_shutdown(), the lock held. */
void hwp_papi_cmp_reset(void)
{
	cmp_disabled = 0;
	cmp.disabled = 0;
	cmp.disabled_reason[0] = 0;
}

int hwp_papi_cmp_disabled(void)
{
	return hwp_papi_inited() && cmp.disabled;
}

HWPROF_API int PAPI_get_component_index(const char *name)
{
	if (name && (!strcmp(name, "perf_event") || !strcmp(name, "perf")))
		return 0;
	return hwp_papi_err(PAPI_ENOCMP);
}

/* PAPI allows this only before PAPI_library_init(). */
HWPROF_API int PAPI_disable_component(int cidx)
{
	if (cidx != 0)
		return hwp_papi_err(PAPI_ENOCMP);
	if (hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	hwp_papi_lock();
	cmp_disabled = 1;
	hwp_papi_unlock();
	return PAPI_OK;
}

HWPROF_API int PAPI_disable_component_by_name(const char *name)
{
	if (!name || (strcmp(name, "perf_event") && strcmp(name, "perf")))
		return hwp_papi_err(PAPI_EINVAL);
	return PAPI_disable_component(0);
}

HWPROF_API int PAPI_num_cmp_hwctrs(int cidx)
{
	if (!hwp_papi_inited())
		return 0;
	return cidx == 0 ? cmp.num_cntrs : hwp_papi_err(PAPI_ENOCMP);
}

HWPROF_API int PAPI_num_hwctrs(void)
{
	return PAPI_num_cmp_hwctrs(0);
}

HWPROF_API int PAPI_get_cmp_opt(int option, PAPI_option_t *ptr, int cidx)
{
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (cidx != 0)
		return hwp_papi_err(PAPI_ENOCMP);
	switch (option) {
	case PAPI_MAX_HWCTRS:
		return cmp.num_cntrs;
	case PAPI_MAX_MPX_CTRS:
		return cmp.num_mpx_cntrs;
	case PAPI_DEFDOM:
		return cmp.default_domain;
	case PAPI_DEFGRN:
		return cmp.default_granularity;
	case PAPI_SHLIBINFO:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		ptr->shlib_info = hwp_papi_shlib();
		return PAPI_OK;
	case PAPI_COMPONENTINFO:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		ptr->cmp_info = &cmp;
		return PAPI_OK;
	default:
		return hwp_papi_err(PAPI_EINVAL);
	}
}

/* ------------------------------------------------------------------ */
/* Timers                                                               */

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

HWPROF_API long long PAPI_get_real_nsec(void)
{
	return clock_ns(CLOCK_REALTIME);
}

HWPROF_API long long PAPI_get_real_usec(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000;
}

HWPROF_API long long PAPI_get_real_cyc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (long long)(((uint64_t)hi << 32) | lo);
#else
	return clock_ns(CLOCK_MONOTONIC);
#endif
}

HWPROF_API long long PAPI_get_virt_nsec(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

HWPROF_API long long PAPI_get_virt_usec(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1000;
}

/* The thread's CPU time in cycles of the nominal clock, as PAPI computes
 * it where no virtual cycle counter exists: usec * MHz. */
HWPROF_API long long PAPI_get_virt_cyc(void)
{
	long long mhz = hwp_papi_hw()->cpu_max_mhz > 0 ? hwp_papi_hw()->cpu_max_mhz : 1000;

	return clock_ns(CLOCK_THREAD_CPUTIME_ID) * mhz / 1000;
}
