/* SPDX-License-Identifier: MIT */
/*
 * Event names to perf_event_attr: the software aliases, the kernel's
 * generic hardware events (cycles, instructions, ...: no libpfm4 needed),
 * execute breakpoints (mem:0xADDR:x, mem:SYMBOL:x), PAPI presets through
 * the table in events/, and any libpfm4 string. Failures are translated
 * here, once, into three cases, with the reason in words (unknown name
 * -ENOENT, cannot be sampled here -EOPNOTSUPP, forbidden -EACCES:
 * hwprof_event_probe(3)); a name is
 * resolved once per use and the resolved event passed down.
 */
#define _GNU_SOURCE
#define HWP_PFM_HEADERS
#include <perfmon/pfmlib_perf_event.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <linux/hw_breakpoint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "perf.h"
#include "../../events/presets.h"

#ifndef PERF_FORMAT_LOST		/* libpfm4's copy of perf_event.h is older */
#define PERF_FORMAT_LOST	(1u << 4)
#endif

#define DEFAULT_CLOCK_NS	1000000ull	/* 1 ms */
#define DEFAULT_HW_PERIOD	1000000ull

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init(void)
{
	pfm_status = pfm_initialize();
}

static int pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_status == PFM_SUCCESS;
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static void soft(struct hwp_event *ev, uint64_t config, int clock)
{
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = config;
	ev->kind = clock ? HWP_EV_CLOCK : HWP_EV_SOFT;
	ev->default_period = clock ? DEFAULT_CLOCK_NS : 1;
}

#define HW_CACHE(c, op, res) \
	((c) | (PERF_COUNT_HW_CACHE_OP_##op << 8) | (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

/*
 * Names the kernel maps itself (linux/perf_event.h), under perf's short
 * names and libpfm4's perf:: names: they encode the same on every CPU and
 * need no libpfm4, so they work where libpfm4 does not know the CPU.
 */
static const struct generic {
	const char *name, *pfm;
	uint32_t type;
	uint64_t config;
} generic[] = {
	{ "task-clock", "perf::TASK-CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", "perf::CPU-CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", "perf::PAGE-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "perf::CONTEXT-SWITCHES", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cycles", "perf::CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", "perf::INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", "perf::CACHE-REFERENCES", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", "perf::CACHE-MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", "perf::BRANCH-INSTRUCTIONS", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", "perf::BRANCH-MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", "perf::BUS-CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", "perf::REF-CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-backend", "perf::STALLED-CYCLES-BACKEND", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "L1-dcache-loads", "perf::L1-DCACHE-LOADS", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_L1D, READ, ACCESS) },
	{ "L1-dcache-load-misses", "perf::L1-DCACHE-LOAD-MISSES", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_L1D, READ, MISS) },
	{ "L1-icache-load-misses", "perf::L1-ICACHE-LOAD-MISSES", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_L1I, READ, MISS) },
	{ "LLC-load-misses", "perf::LLC-LOAD-MISSES", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, READ, MISS) },
	{ "dTLB-load-misses", "perf::DTLB-LOAD-MISSES", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, READ, MISS) },
};

static int hw_kind(struct hwp_event *ev);

/* 1 and ev filled when name is one of the generic names, else 0. */
static int parse_generic(const char *name, struct hwp_event *ev)
{
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		if (strcmp(name, generic[i].name) && strcmp(name, generic[i].pfm))
			continue;
		ev->attr.type = generic[i].type;
		ev->attr.config = generic[i].config;
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		hw_kind(ev);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* mem:SYMBOL:x: the symbol in the running program or a loaded object  */

struct symq {
	const char *name;
	uint64_t addr;
	int found;
};

static int sym_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct symq *q = arg;
	const char *path = info->dlpi_name;
	uint64_t value;

	(void)size;
	if (!path || !*path)
		path = "/proc/self/exe";	/* the main program */
	else if (access(path, R_OK))
		return 0;			/* the vDSO has no file */
	if (!hwp_elf_func(path, q->name, &value, NULL)) {
		q->addr = info->dlpi_addr + value;
		q->found = 1;
	}
	return q->found;
}

static int gen_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *g = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		g[0] = info->dlpi_adds;
		g[1] = info->dlpi_subs;
	}
	return 1;	/* the first entry carries the counters */
}

/* Symbols found, until the loader's generation moves: a name used again
 * (HWPROF_PERIOD's checks, a PAPI event set restarted) is not searched for
 * again through every object's symbol table. */
static struct {
	pthread_mutex_t lock;
	unsigned long long gen[2];
	struct { char name[128]; uint64_t addr; } e[16];
	unsigned int n, next;
} symcache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int (*loader_usable)(unsigned int wait_ms);

void hwp_event_loader_check(int (*usable)(unsigned int wait_ms))
{
	__atomic_store_n(&loader_usable, usable, __ATOMIC_RELEASE);
}

uint64_t hwp_applied_period(int clock, uint64_t period)
{
	return clock && period < HWP_MIN_CLOCK_NS ? HWP_MIN_CLOCK_NS : period;
}

/* The run-time address of a function, searched in load order. */
static int symbol_addr(const char *sym, uint64_t *addr)
{
	unsigned long long g[2] = { 0, 0 };
	struct symq q = { .name = sym };
	int cacheable = strlen(sym) < sizeof(symcache.e[0].name);

	int (*usable)(unsigned int) = __atomic_load_n(&loader_usable, __ATOMIC_ACQUIRE);

	if (usable && !usable(200))	/* a fork child's loader may be stuck */
		return -EAGAIN;
	dl_iterate_phdr(gen_cb, g);
	pthread_mutex_lock(&symcache.lock);
	if (memcmp(g, symcache.gen, sizeof(g))) {
		symcache.n = symcache.next = 0;
		memcpy(symcache.gen, g, sizeof(g));
	}
	for (unsigned int i = 0; cacheable && i < symcache.n; i++) {
		if (!strcmp(symcache.e[i].name, sym)) {
			*addr = symcache.e[i].addr;
			pthread_mutex_unlock(&symcache.lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&symcache.lock);

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	dl_iterate_phdr(sym_cb, &q);
	if (!q.found)
		return -ENOENT;
	*addr = q.addr;
	if (cacheable) {
		pthread_mutex_lock(&symcache.lock);
		if (!memcmp(g, symcache.gen, sizeof(g))) {
			unsigned int i = symcache.next++ % 16;

			snprintf(symcache.e[i].name, sizeof(symcache.e[i].name), "%s", sym);
			symcache.e[i].addr = q.addr;
			if (symcache.n < 16)
				symcache.n++;
		}
		pthread_mutex_unlock(&symcache.lock);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Do execute breakpoints fire here?                                    */

/*
 * On some hypervisors a breakpoint event opens and never counts: debug
 * exceptions are not delivered. Once per process, a counting breakpoint
 * on this function, called once, tells: 1 fires, 0 does not, -1 could not
 * be asked (the open failed: the open of the real event will say why).
 * HWPROF_TEST_BP_BROKEN=1 forces 0, so a test suite can run the fallback
 * path on machines where breakpoints work (hwprof_event_probe(3)).
 */
static __attribute__((noinline, used)) void hwp_bp_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static pthread_once_t bp_once = PTHREAD_ONCE_INIT;
static int bp_state;

static void bp_check(void)
{
	struct perf_event_attr a;
	const char *force = secure_getenv("HWPROF_TEST_BP_BROKEN");
	uint64_t count = 0;
	int fd;

	if (force && *force && strcmp(force, "0")) {
		bp_state = 0;
		return;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uint64_t)(uintptr_t)hwp_bp_target;
	a.bp_len = sizeof(long);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = hwp_perf_open(&a, 0, -1, -1);
	if (fd < 0) {
		bp_state = -1;
		return;
	}
	hwp_perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	hwp_bp_target();
	hwp_perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	bp_state = !hwp_perf_read(fd, &count, 1) && count >= 1;
	close(fd);
}

int hwp_bp_fires(void)
{
	pthread_once(&bp_once, bp_check);
	return bp_state;
}

static int parse_mem(const char *name, struct hwp_event *ev, char *why,
		     size_t len)
{
	const char *spec = name + 4, *colon = strrchr(spec, ':');
	char target[256];
	uint64_t addr;
	size_t n;

	if (!colon || strcmp(colon, ":x")) {
		say(why, len, "%s: only execute breakpoints (mem:ADDR:x) are supported", name);
		return -EINVAL;
	}
	n = (size_t)(colon - spec);
	if (!n || n >= sizeof(target)) {
		say(why, len, "%s: no address or symbol", name);
		return -EINVAL;
	}
	memcpy(target, spec, n);
	target[n] = 0;
	if (!strncmp(target, "0x", 2) || !strncmp(target, "0X", 2)) {
		char *end;

		errno = 0;
		addr = strtoull(target + 2, &end, 16);
		if (errno || *end || end == target + 2) {
			say(why, len, "%s: bad hex address", name);
			return -EINVAL;
		}
	} else if (symbol_addr(target, &addr)) {
		say(why, len, "%s: no such event (no function '%s' in this program or its loaded objects)",
		    name, target);
		return -ENOENT;
	}
	ev->attr.type = PERF_TYPE_BREAKPOINT;
	ev->attr.bp_type = HW_BREAKPOINT_X;
	ev->attr.bp_addr = addr;
	ev->attr.bp_len = sizeof(long);
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	ev->kind = HWP_EV_BREAKPOINT;
	ev->default_period = 1;
	if (!hwp_bp_fires()) {
		say(why, len, "%s: execute breakpoints do not fire on this machine", name);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* libpfm4 strings and PAPI presets                                     */

static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &a;
	if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
				      &arg) != PFM_SUCCESS)
		return -ENOENT;
	*attr = a;
	return 0;
}

/*
 * The core PMU, as PAPI 7.0 chooses it: libpfm4 activates, beside the
 * model's PMU, PMUs that stand for a whole family (is_dfl: ix86arch on
 * every Intel CPU with architectural perfmon, which comes first in its
 * order; and amd64_fam17h, the deprecated name of Zen 1 active beside
 * amd64_fam17h_zen1): they are taken only when no other core PMU is
 * present. On a hybrid CPU the first model PMU (adl_glc, the P-cores)
 * is taken (PAPI 7.0 refuses to start there).
 */
static const char *const family_pmus[] = { "amd64_fam17h" };

const char *hwp_core_pick(const struct hwp_pmu_seen *pmu, size_t n)
{
	const char *fallback = NULL;

	for (size_t i = 0; i < n; i++) {
		int family = pmu[i].dfl;

		for (size_t k = 0; k < sizeof(family_pmus) / sizeof(family_pmus[0]); k++)
			family |= !strcmp(pmu[i].name, family_pmus[k]);
		if (!family)
			return pmu[i].name;
		if (!fallback)
			fallback = pmu[i].name;
	}
	return fallback;
}

/* The core PMU libpfm4 detected on this CPU (or was forced to with
 * LIBPFM_FORCE_PMU), or NULL when it knows none. */
static const char *core_pmu(void)
{
	struct hwp_pmu_seen seen[16];
	pfm_pmu_info_t info;
	size_t n = 0;

	if (!pfm_ready())
		return NULL;
	for (int p = 0; p < PFM_PMU_MAX && n < sizeof(seen) / sizeof(seen[0]); p++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &info) == PFM_SUCCESS &&
		    info.is_present && info.type == PFM_PMU_TYPE_CORE && info.name) {
			seen[n].name = info.name;
			seen[n++].dfl = info.is_dfl;
		}
	}
	return hwp_core_pick(seen, n);
}

/* The table of events/presets.h the core PMU takes: its own rows, an
 * alias's (skx, clx -> skl; icx -> icl), or NULL when it has none. */
static const char *preset_table(const char *core)
{
	if (!core)
		return NULL;
	for (size_t i = 0; i < sizeof(hwp_preset_aliases) / sizeof(hwp_preset_aliases[0]); i++)
		if (!strcmp(hwp_preset_aliases[i].pmu, core))
			return hwp_preset_aliases[i].table;
	for (size_t i = 0; i < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]); i++)
		if (!strcmp(hwp_preset_rows[i].pmu, core))
			return core;
	return NULL;
}

/*
 * The row of events/presets.h a preset takes given the core PMU (NULL:
 * libpfm4 knows none): the row of the core PMU's table when it has one
 * (as PAPI, which has only its CSV's presets for a CPU it knows), else the
 * kernel's generic event. Says which in src. NULL when no row applies.
 */
const struct hwp_preset_row *hwp_preset_row(const char *preset, const char *core,
					    char *src, size_t len)
{
	const char *table = preset_table(core);
	const struct hwp_preset_row *gen = NULL;

	for (size_t i = 0; i < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]); i++) {
		const struct hwp_preset_row *r = &hwp_preset_rows[i];

		if (strcmp(r->preset, preset))
			continue;
		if (table && !strcmp(r->pmu, table)) {
			if (strcmp(table, core))
				say(src, len, "libpfm4 table %s (the rows of %s)", core, table);
			else
				say(src, len, "libpfm4 table %s", core);
			return r;
		}
		if (!strcmp(r->pmu, "perf") && !gen)
			gen = r;
	}
	if (table) {
		say(src, len, "no %s row for libpfm4 PMU %s", preset, core);
		return NULL;
	}
	if (gen && core)
		say(src, len, "kernel generic events: no %s row for libpfm4 PMU %s",
		    preset, core);
	else if (gen)
		say(src, len, "kernel generic events: libpfm4 does not know this CPU");
	return gen;
}

/*
 * The i-th event of row r (0 for a row of one event) as libpfm4 takes it
 * on core PMU core: an alias's rows name the table's PMU, which libpfm4
 * has not activated there, so the prefix becomes core's. 0, or -ENOENT
 * past the last event (or when it does not fit in buf).
 */
int hwp_preset_term(const struct hwp_preset_row *r, const char *core, int i,
		    char *buf, size_t len)
{
	const char *p = r->event, *end;
	size_t n, pl = strlen(r->pmu);
	int w;

	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p)
		return -ENOENT;
	end = strchr(p, ',');
	n = end ? (size_t)(end - p) : strlen(p);
	if (core && strcmp(r->pmu, "perf") && strcmp(r->pmu, core) &&
	    !strncmp(p, r->pmu, pl) && !strncmp(p + pl, "::", 2))
		w = snprintf(buf, len, "%s%.*s", core, (int)(n - pl), p + pl);
	else
		w = snprintf(buf, len, "%.*s", (int)n, p);
	return w < 0 || (size_t)w >= len ? -ENOENT : 0;
}

/* The preset's terms on this machine: see internal.h. */
int hwp_preset_terms(const char *preset, struct hwp_preset_terms *t, char *why,
		     size_t len)
{
	const char *core = core_pmu();
	const struct hwp_preset_row *r;

	memset(t, 0, sizeof(*t));
	r = hwp_preset_row(preset, core, t->src, sizeof(t->src));
	if (!r) {
		say(why, len, "%s: event not supported by this machine's PMU (%s)", preset,
		    *t->src ? t->src : "no row of events/presets.h applies here");
		return -EOPNOTSUPP;
	}
	t->derived = r->derived;
	t->postfix = r->postfix;
	while (t->n < HWP_PRESET_MAX_TERMS &&
	       !hwp_preset_term(r, core, t->n, t->ev[t->n], sizeof(t->ev[0])))
		t->n++;
	return 0;
}

static int hw_kind(struct hwp_event *ev)
{
	switch (ev->attr.type) {
	case PERF_TYPE_SOFTWARE:
		soft(ev, ev->attr.config,
		     ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		     ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
		return 0;
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		ev->kind = HWP_EV_SOFT;
		ev->default_period = 1;
		return 0;
	default:
		ev->kind = HWP_EV_HARDWARE;
		ev->default_period = DEFAULT_HW_PERIOD;
		return 0;
	}
}

static const struct hwp_preset *preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof(hwp_presets) / sizeof(hwp_presets[0]); i++)
		if (!strcmp(hwp_presets[i].name, name))
			return &hwp_presets[i];
	return NULL;
}

static int parse_preset(const char *name, struct hwp_event *ev, char *why,
			size_t len)
{
	struct hwp_preset_terms t;
	int ret = hwp_preset_terms(name, &t, why, len);

	snprintf(ev->src, sizeof(ev->src), "%s", t.src);
	if (ret)
		return ret;
	if (t.derived) {	/* as PAPI_profil(), which refuses it */
		say(why, len, "%s: derived on this CPU (%s of %d events): no one counter samples it; PAPI_add_event() counts it",
		    name, t.derived, t.n);
		return -EOPNOTSUPP;
	}
	if (parse_generic(t.ev[0], ev))
		return 0;
	if (!pfm_ready() || pfm_encode(t.ev[0], &ev->attr)) {
		say(why, len, "%s: %s does not encode (%s)", name, t.ev[0], ev->src);
		return -EOPNOTSUPP;
	}
	ev->attr.size = sizeof(ev->attr);
	return hw_kind(ev);
}

/* ------------------------------------------------------------------ */

int hwp_event_resolve(const char *name, struct hwp_event *ev, char *why,
		      size_t len)
{
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	if (!name || !*name)
		name = "task-clock";
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	if (parse_generic(name, ev))
		return 0;
	if (!strncmp(name, "mem:", 4))
		return parse_mem(name, ev, why, len);
	if (!strncmp(name, "PAPI_", 5)) {
		if (!preset_find(name)) {
			say(why, len, "%s: no such event (not a PAPI preset hwprof knows)", name);
			return -ENOENT;
		}
		return parse_preset(name, ev, why, len);
	}
	if (!pfm_ready()) {
		say(why, len, "%s: no such event (libpfm4 failed to initialise)", name);
		return -ENOENT;
	}
	if (pfm_encode(name, &ev->attr)) {
		say(why, len, "%s: no such event", name);
		return -ENOENT;
	}
	ev->attr.size = sizeof(ev->attr);
	return hw_kind(ev);
}

/*
 * Fills the sampling attr of a resolved event, the one place it is built:
 * every threshold events a sample of the user-space pc (sample_type adds
 * to PERF_SAMPLE_IP; a CALLCHAIN's user-space frames only), disabled until enabled, the kernel's lost count
 * readable (PERF_FORMAT_LOST, kernel 6.0+; the engine drops it on older
 * ones), the ring waking its reader at half full unless no_wakeup.
 */
void hwp_event_sampling(struct hwp_event *ev, uint64_t period,
			uint64_t sample_type, int no_wakeup)
{
	struct perf_event_attr *a = &ev->attr;

	a->sample_period = period;
	a->freq = 0;
	a->sample_type = PERF_SAMPLE_IP | sample_type;
	/* call chains of user space only: the frames the profile names */
	a->exclude_callchain_kernel = !!(sample_type & PERF_SAMPLE_CALLCHAIN);
	/* exclude_kernel and exclude_hv stay as resolved: set, unless a
	 * libpfm4 string asked for kernel samples (:k) */
	a->disabled = 1;
	a->inherit = 0;
	a->read_format = PERF_FORMAT_LOST;
	/* half the ring (the kernel's default) wakes the drain; NO_WAKEUP:
	 * a watermark past any ring, so only the interval, read and stop
	 * drain */
	a->watermark = no_wakeup ? 1 : 0;
	a->wakeup_watermark = no_wakeup ? UINT32_MAX : 0;
	a->wakeup_events = 0;
}

/* The highest perf_event_paranoid that lets an unprivileged user open
 * this (perf_event_open(2)): 2 for user-space events on its own threads,
 * 1 with kernel samples or on other CPUs' processes, 0 for CPU-wide. */
static int paranoid_needed(const struct hwp_event *ev, pid_t pid)
{
	if (pid == -1)
		return 0;
	return ev->attr.exclude_kernel ? 2 : 1;
}

/*
 * The precise_ip rule, for every open of the library and the command
 * (hwprof_session_add(3), "Skid"): an event of a PMU (PERF_TYPE_HARDWARE,
 * HW_CACHE, RAW or a PMU's own type) is tried at precise_ip 3 and one
 * level lower after each answer a kernel gives for a level it cannot do:
 * EINVAL (Intel: a level above what the event's PEBS supports),
 * EOPNOTSUPP (x86: above the CPU's maximum; AMD: above 2) and ENOENT
 * (AMD with IBS: 1 and 2 go to IBS, which has no such event); at 0 the
 * answer is the event's. Other events are opened at 0.
 */
int hwp_precise_max(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX ? 3 : 0;
}

/*
 * Opens a (perf_event_open(2) flags besides CLOEXEC in flags) at the most
 * precise level from `from` down (-1: hwp_precise_max(a)), the one place
 * precise_ip is set. The fd, with the level in *level and in a, or the
 * -errno of the open at level 0.
 */
int hwp_attr_open(struct perf_event_attr *a, int from, pid_t pid, int cpu, int group,
		  unsigned long flags, int *level)
{
	int l = from < 0 ? hwp_precise_max(a) : from > 3 ? 3 : from;
	int fd;

	for (;; l--) {
		a->precise_ip = (unsigned int)l;
		fd = hwp_perf_open_flags(a, pid, cpu, group, flags);
		if (fd >= 0) {
			if (level)
				*level = l;
			return fd;
		}
		if (!l || (fd != -EINVAL && fd != -EOPNOTSUPP && fd != -ENOENT))
			return fd;
	}
}

/*
 * Opens a sampling fd for a resolved event, at the most precise level the
 * PMU accepts (hwp_attr_open()). Returns the fd or -EOPNOTSUPP (cannot
 * sample here), -EACCES (forbidden) or another -errno, with the reason in
 * why.
 */
int hwp_event_open(struct hwp_event *ev, pid_t pid, int cpu, int out_fd, int *precise,
		   char *why, size_t len)
{
	const char *name = ev->name;
	int fd, par;

	/* the kernel attaches the ring before it installs the event, so one
	 * born enabled loses no sample to a missing ring */
	ev->attr.disabled = out_fd < 0;
	fd = hwp_attr_open(&ev->attr, -1, pid, cpu, out_fd,
			   out_fd < 0 ? 0 : PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP,
			   precise);
	ev->attr.disabled = 1;
	if (fd >= 0)
		return fd;
	switch (fd) {
	case -ENOENT:
	case -ENODEV:
	case -EOPNOTSUPP:
		if (*ev->src)
			say(why, len, "%s: event not supported by this machine's PMU (%s)",
			    name, ev->src);
		else
			say(why, len, "%s: event not supported by this machine's PMU", name);
		return -EOPNOTSUPP;
	case -EACCES:
	case -EPERM:
		par = hwp_paranoid();
		if (par <= paranoid_needed(ev, pid) && hwp_seccomp())
			say(why, len, "%s: perf_event_open is denied by a seccomp filter (perf_event_paranoid %d would allow it): run outside the container's profile or allow perf_event_open",
			    name, par);
		else if (par <= paranoid_needed(ev, pid))
			say(why, len, "%s: perf_event_open is denied (%s) though perf_event_paranoid %d allows it: a security module or a missing capability",
			    name, strerror(-fd), par);
		else
			say(why, len, "%s: perf_event_paranoid forbids it (value %d; sysctl kernel.perf_event_paranoid=%d allows it, or run with CAP_PERFMON)",
			    name, par, paranoid_needed(ev, pid));
		return -EACCES;
	case -ENOSPC:
		say(why, len, "%s: no free debug register (at most 4 breakpoints a thread)", name);
		return fd;
	default:
		say(why, len, "%s: perf_event_open: %s", name, strerror(-fd));
		return fd;
	}
}

/*
 * Hybrid CPUs (cpu_core and cpu_atom PMUs in sysfs): an event is opened on
 * one core PMU, not one per PMU as perf does. The kernel puts a generic
 * event (HARDWARE, HW_CACHE: no PMU type in config's high bits) and a RAW
 * one on the PMU of type PERF_TYPE_RAW, cpu_core; a PMU's own type goes to
 * that PMU. HWPROF_TEST_SYSFS (secure_getenv) puts a directory before the
 * sysfs path, for tests.
 */
static long pmu_type_of(const char *pmu)
{
	const char *root = secure_getenv("HWPROF_TEST_SYSFS");
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/type",
		 root ? root : "", pmu);
	return hwp_read_long(path, -1);
}

/* The one line a session on a hybrid CPU says of its PMU events (n
 * events, names[i] each, attrs[i]), or 0 when there is nothing to say. */
int hwp_hybrid_note(const struct perf_event_attr *const *attrs, const char *const *names,
		    size_t n, char *line, size_t len)
{
	long core = pmu_type_of("cpu_core"), atom = pmu_type_of("cpu_atom");
	size_t at;
	int any = 0;

	if (core < 0 || atom < 0)
		return 0;
	at = (size_t)snprintf(line, len, "hwprof: hybrid CPU: each event samples on one kind of core (");
	for (size_t i = 0; i < n && at < len; i++) {
		const struct perf_event_attr *a = attrs[i];
		const char *on;

		if (!hwp_precise_max(a))
			continue;	/* not a PMU's */
		on = a->type == (uint32_t)atom ? "cpu_atom" :
		     a->type < PERF_TYPE_MAX || a->type == (uint32_t)core ? "cpu_core" : NULL;
		if (!on)
			continue;	/* another PMU's: not the cores' */
		at += (size_t)snprintf(line + at, len - at, "%s%s on %s", any ? ", " : "",
				       names[i], on);
		any = 1;
	}
	if (any && at < len)
		snprintf(line + at, len - at, "): a thread's time on the other kind is not sampled");
	return any;
}

/* Whether this thread can sample a resolved event: opens and closes it.
 * 0 or -errno as hwp_event_open(), with the reason in why. */
int hwp_event_check(const struct hwp_event *ev, char *why, size_t len)
{
	struct hwp_event e = *ev;
	int fd;

	hwp_event_sampling(&e, e.default_period, 0, 0);
	e.attr.read_format = 0;
	fd = hwp_event_open(&e, 0, -1, -1, NULL, why, len);
	if (fd < 0)
		return fd;
	close(fd);
	if (*e.src)
		say(why, len, "ok (%s)", e.src);
	else
		say(why, len, "ok");
	return 0;
}

int hwp_event_probe(const char *name, char *why, size_t len)
{
	struct hwp_event ev;
	int ret;

	say(why, len, "ok");
	ret = hwp_event_resolve(name, &ev, why, len);
	return ret ? ret : hwp_event_check(&ev, why, len);
}

int hwp_preset_info(unsigned int i, const char **name, unsigned int *code,
		    const char **desc)
{
	if (i >= sizeof(hwp_presets) / sizeof(hwp_presets[0]))
		return -ENOENT;
	if (name)
		*name = hwp_presets[i].name;
	if (code)
		*code = hwp_presets[i].code;
	if (desc)
		*desc = hwp_presets[i].desc;
	return 0;
}
