/* SPDX-License-Identifier: MIT */
/*
 * Event names to perf_event_attr: the software aliases, the kernel's
 * generic hardware events (cycles, instructions, ...: no libpfm4 needed),
 * execute breakpoints (mem:0xADDR:x, mem:SYMBOL:x), PAPI presets through
 * presets.c's rows, and any libpfm4 string. A name that does not resolve
 * is one of three cases, with the reason in words (unknown name -ENOENT,
 * cannot be sampled here -EOPNOTSUPP, malformed -EINVAL:
 * hwprof_event_probe(3)); a name is resolved once per use and the
 * resolved event passed down. What is done with the attr (sampling, the
 * open and its fallbacks, why it failed) is attr.c's.
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
#include "event.h"
#include "perf.h"

#define DEFAULT_CLOCK_NS  1000000ull /* 1 ms */
#define DEFAULT_HW_PERIOD 1000000ull

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
	{ "instructions", "perf::INSTRUCTIONS", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", "perf::CACHE-REFERENCES", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", "perf::CACHE-MISSES", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", "perf::BRANCH-INSTRUCTIONS", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", "perf::BRANCH-MISSES", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES },
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
		path = "/proc/self/exe"; /* the main program */
	else if (access(path, R_OK))
		return 0; /* the vDSO has no file */
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
	return 1; /* the first entry carries the counters */
}

/* Symbols found, until the loader's generation moves: a name used again
 * (HWPROF_PERIOD's checks, a PAPI event set restarted) is not searched for
 * again through every object's symbol table. */
static struct {
	pthread_mutex_t lock;
	unsigned long long gen[2];
	struct {
		char name[128];
		uint64_t addr;
	} e[16];
	unsigned int n, next;
} symcache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int (*loader_usable)(unsigned int wait_ms);

void hwp_event_loader_check(int (*usable)(unsigned int wait_ms))
{
	__atomic_store_n(&loader_usable, usable, __ATOMIC_RELEASE);
}

/* The run-time address of a function, searched in load order. */
static int symbol_addr(const char *sym, uint64_t *addr)
{
	unsigned long long g[2] = { 0, 0 };
	struct symq q = { .name = sym };
	int cacheable = strlen(sym) < sizeof(symcache.e[0].name);

	int (*usable)(unsigned int) = __atomic_load_n(&loader_usable, __ATOMIC_ACQUIRE);

	if (usable && !usable(200)) /* a fork child's loader may be stuck */
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
static __attribute__((noinline, used)) void hwp_event_bp_target(void)
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
	a.bp_addr = (uint64_t)(uintptr_t)hwp_event_bp_target;
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
	hwp_event_bp_target();
	hwp_perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	bp_state = !hwp_perf_read(fd, &count, 1) && count >= 1;
	close(fd);
}

int hwp_event_bp_fires(void)
{
	pthread_once(&bp_once, bp_check);
	return bp_state;
}

static int parse_mem(const char *name, struct hwp_event *ev, char *why, size_t len)
{
	const char *spec = name + 4, *colon = strrchr(spec, ':');
	char target[256];
	uint64_t addr;
	size_t n;

	if (!colon || strcmp(colon, ":x")) {
		hwp_say(why, len, "%s: only execute breakpoints (mem:ADDR:x) are supported",
			name);
		return -EINVAL;
	}
	n = (size_t)(colon - spec);
	if (!n || n >= sizeof(target)) {
		hwp_say(why, len, "%s: no address or symbol", name);
		return -EINVAL;
	}
	memcpy(target, spec, n);
	target[n] = 0;
	if (!strncmp(target, "0x", 2) || !strncmp(target, "0X", 2)) {
		char *end;

		errno = 0;
		addr = strtoull(target + 2, &end, 16);
		if (errno || *end || end == target + 2) {
			hwp_say(why, len, "%s: bad hex address", name);
			return -EINVAL;
		}
	} else if (symbol_addr(target, &addr)) {
		hwp_say(why, len,
			"%s: no such event (no function '%s' in this program or its loaded objects)",
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
	if (!hwp_event_bp_fires()) {
		hwp_say(why, len, "%s: execute breakpoints do not fire on this machine", name);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &a;
	if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) !=
	    PFM_SUCCESS)
		return -ENOENT;
	*attr = a;
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

static int parse_preset(const char *name, struct hwp_event *ev, char *why, size_t len)
{
	struct hwp_preset_terms t;
	int ret = hwp_preset_terms(name, &t, why, len);

	snprintf(ev->src, sizeof(ev->src), "%s", t.src);
	if (ret)
		return ret;
	if (t.derived) { /* as PAPI_profil(), which refuses it */
		hwp_say(why, len,
			"%s: derived on this CPU (%s of %d events): no one counter samples it; PAPI_add_event() counts it",
			name, t.derived, t.n);
		return -EOPNOTSUPP;
	}
	if (parse_generic(t.ev[0], ev))
		return 0;
	if (!hwp_pfm_ready() || pfm_encode(t.ev[0], &ev->attr)) {
		hwp_say(why, len, "%s: %s does not encode (%s)", name, t.ev[0], ev->src);
		return -EOPNOTSUPP;
	}
	ev->attr.size = sizeof(ev->attr);
	return hw_kind(ev);
}

/* ------------------------------------------------------------------ */

int hwp_event_resolve(const char *name, struct hwp_event *ev, char *why, size_t len)
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
		if (!hwp_preset_known(name)) {
			hwp_say(why, len, "%s: no such event (not a PAPI preset hwprof knows)",
				name);
			return -ENOENT;
		}
		return parse_preset(name, ev, why, len);
	}
	if (!hwp_pfm_ready()) {
		hwp_say(why, len, "%s: no such event (libpfm4 failed to initialise)", name);
		return -ENOENT;
	}
	if (pfm_encode(name, &ev->attr)) {
		hwp_say(why, len, "%s: no such event", name);
		return -ENOENT;
	}
	ev->attr.size = sizeof(ev->attr);
	return hw_kind(ev);
}
