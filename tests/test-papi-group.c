/* SPDX-License-Identifier: MIT */
/*
 * PAPI 7.0's rules for EventSets and derived presets, with hwprof's PAPI:
 *   group      a set that is not multiplexed opens as one group (first fd
 *              the pinned leader, the others its members; seen in the
 *              perf_event_open calls), counts exactly, and a multiplexed
 *              one opens one unpinned group per event
 *   ecnflct    a group that cannot be scheduled (the kernel's answer: the
 *              pinned leader reads 0 bytes, injected here) gives
 *              PAPI_ECNFLCT from PAPI_start() and leaves no fd open
 *   derived    under LIBPFM_FORCE_PMU=skl (or skx: the alias rows), with
 *              every hardware open answered by a page-fault counter: a
 *              derived preset counts as PAPI computes it (DERIVED_ADD 2N,
 *              DERIVED_SUB 0, DERIVED_POSTFIX 15N for N faults),
 *              PAPI_get_event_info() names its native events, and
 *              PAPI_profil()/PAPI_overflow() refuse it with PAPI_EINVAL
 * The shim: this program's own syscall() and read() come first in the
 * lookup order (-rdynamic), so libhwprof's calls reach them; they pass
 * everything through but what a test asks to change.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <hwprof.h>
#include <papi.h>

#include "harness.h"
#include "tlib.h"

/* ------------------------------------------------------------------ */
/* The shim                                                             */

static struct {
	int fd, group;
	unsigned pinned;
	uint32_t type;
} opens[64];
static int nopens;
static int hw_as_faults;       /* hardware opens count page faults instead */
static int empty_read_fd = -1; /* reads of this fd return 0 bytes */
static int half_run_fd = -1;   /* reads of this fd halve time_running */

long syscall(long n, ...)
{
	static long (*real)(long, ...);
	long a[5], r;
	va_list ap;

	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	va_start(ap, n);
	for (int i = 0; i < 5; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n != SYS_perf_event_open)
		return real(n, a[0], a[1], a[2], a[3], a[4]);
	{
		struct perf_event_attr at = *(struct perf_event_attr *)a[0];
		uint32_t type = at.type;

		if (hw_as_faults && type != PERF_TYPE_SOFTWARE &&
		    type != PERF_TYPE_TRACEPOINT && type != PERF_TYPE_BREAKPOINT) {
			at.type = PERF_TYPE_SOFTWARE;
			at.config = PERF_COUNT_SW_PAGE_FAULTS;
			at.config1 = at.config2 = 0;
			at.precise_ip = 0;
		}
		r = real(n, (long)&at, a[1], a[2], a[3], a[4]);
		if (r >= 0 && nopens < 64) {
			opens[nopens].fd = (int)r;
			opens[nopens].group = (int)a[3];
			opens[nopens].pinned = at.pinned;
			opens[nopens].type = type;
			nopens++;
		}
	}
	return r;
}

ssize_t read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);

	if (!real)
		real = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	ssize_t r;

	if (fd >= 0 && fd == empty_read_fd)
		return 0;
	r = real(fd, buf, len);
	if (fd >= 0 && fd == half_run_fd && r == 3 * sizeof(uint64_t))
		((uint64_t *)buf)[2] /= 2;
	return r;
}

/* ------------------------------------------------------------------ */

static int init(void)
{
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return T_ERROR;
	return T_PASS;
}

static int set_of(const char *a, const char *b, int *set)
{
	*set = PAPI_NULL;
	if (PAPI_create_eventset(set) || PAPI_add_named_event(*set, a) ||
	    (b && PAPI_add_named_event(*set, b)))
		return T_ERROR;
	return T_PASS;
}

#define N 200

static int group(void)
{
	struct t_pages pool;
	long long v[2];
	int set, r;

	if ((r = t_require_pf()) || (r = init()) || (r = t_pages_new(&pool, N)) ||
	    (r = set_of("perf::PAGE-FAULTS", "perf::TASK-CLOCK", &set)))
		return r;
	t_prefault_stack();
	nopens = 0;
	T_EQ(PAPI_start(set), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(set, v), PAPI_OK);
	T_FAULTS(v[0], N);
	/* the member counts from the start, not from the next context switch */
	T_CHECK(v[1] > 0, "task-clock %lld ns", v[1]);
	T_EQ(nopens, 2);
	T_CHECK(opens[0].group == -1 && opens[0].pinned, "leader: group %d pinned %u",
		opens[0].group, opens[0].pinned);
	T_CHECK(opens[1].group == opens[0].fd && !opens[1].pinned,
		"member: group %d pinned %u", opens[1].group, opens[1].pinned);
	/* twice, from a reset: the counts start again at the start */
	T_EQ(PAPI_start(set), PAPI_OK);
	t_touch_n(touch_a, &pool, N / 2);
	T_EQ(PAPI_read(set, v), PAPI_OK);
	T_FAULTS(v[0], N / 2);
	T_EQ(PAPI_stop(set, v), PAPI_OK);

	/* page faults as the member: exact too */
	T_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
	T_EQ(PAPI_add_named_event(set, "perf::TASK-CLOCK"), PAPI_OK);
	T_EQ(PAPI_add_named_event(set, "perf::PAGE-FAULTS"), PAPI_OK);
	T_EQ(PAPI_start(set), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(set, v), PAPI_OK);
	T_FAULTS(v[1], N);
	T_CHECK(v[0] > 0, "task-clock %lld ns", v[0]);

	/* multiplexed: each event its own group, unpinned (the kernel rotates) */
	T_EQ(PAPI_multiplex_init(), PAPI_OK);
	T_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
	T_EQ(PAPI_assign_eventset_component(set, 0), PAPI_OK);
	T_EQ(PAPI_set_multiplex(set), PAPI_OK);
	T_EQ(PAPI_add_named_event(set, "perf::PAGE-FAULTS"), PAPI_OK);
	T_EQ(PAPI_add_named_event(set, "perf::TASK-CLOCK"), PAPI_OK);
	nopens = 0;
	T_EQ(PAPI_start(set), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(set, v), PAPI_OK);
	T_FAULTS(v[0], N);
	T_EQ(nopens, 2);
	T_CHECK(opens[0].group == -1 && !opens[0].pinned && opens[1].group == -1 &&
			!opens[1].pinned,
		"multiplexed: groups %d %d pinned %u %u", opens[0].group, opens[1].group,
		opens[0].pinned, opens[1].pinned);

	/* the scaling branch: a count that ran half the time it was enabled
	 * (the kernel's answer when it rotated the event out; injected) is
	 * doubled in a multiplexed set, and never in a pinned group */
	half_run_fd = dup(0); /* the first fd the set opens */
	close(half_run_fd);
	nopens = 0;
	T_EQ(PAPI_start(set), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(set, v), PAPI_OK);
	T_EQ(opens[0].fd, half_run_fd);
	T_CHECK(v[0] >= 2 * N - 1 && (T_SANITIZED || v[0] <= 2 * N + 1),
		"multiplexed, half the time: %lld", v[0]);
	T_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
	T_EQ(PAPI_add_named_event(set, "perf::PAGE-FAULTS"), PAPI_OK); /* not multiplexed */
	nopens = 0;
	T_EQ(PAPI_start(set), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(set, v), PAPI_OK);
	T_EQ(opens[0].fd, half_run_fd);
	T_FAULTS(v[0], N);
	half_run_fd = -1;
	t_pages_free(&pool);
	return t_done("papi-group");
}

static int ecnflct(void)
{
	long long v[2];
	int set, r, before;

	if ((r = t_require_pf()) || (r = init()) ||
	    (r = set_of("perf::PAGE-FAULTS", "perf::TASK-CLOCK", &set)))
		return r;
	before = t_count_perf_fds();
	/* the leader is the first fd opened: the lowest free one */
	empty_read_fd = dup(0);
	close(empty_read_fd);
	nopens = 0;
	T_EQ(PAPI_start(set), PAPI_ECNFLCT);
	T_EQ(nopens, 2);
	T_EQ(opens[0].fd, empty_read_fd);
	T_EQ(t_count_perf_fds(), before);
	{
		int st = 0;

		T_EQ(PAPI_state(set, &st), PAPI_OK);
		T_CHECK(st & PAPI_STOPPED, "state %#x", st);
	}
	empty_read_fd = -1;
	T_EQ(PAPI_start(set), PAPI_OK);
	T_EQ(PAPI_stop(set, v), PAPI_OK);

	/* at PAPI_add_event(), as PAPI 7: the set with it does not fit */
	T_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
	T_EQ(PAPI_add_named_event(set, "perf::PAGE-FAULTS"), PAPI_OK);
	empty_read_fd = dup(0);
	close(empty_read_fd);
	T_EQ(PAPI_add_named_event(set, "perf::TASK-CLOCK"), PAPI_ECNFLCT);
	T_EQ(PAPI_num_events(set), 1);
	T_EQ(t_count_perf_fds(), before);
	empty_read_fd = -1;
	T_EQ(PAPI_add_named_event(set, "perf::TASK-CLOCK"), PAPI_OK);
	T_EQ(PAPI_num_events(set), 2);
	return t_done("papi-ecnflct");
}

static void handler(int set, void *pc, long long vec, void *ctx)
{
	(void)set;
	(void)pc;
	(void)vec;
	(void)ctx;
}

static int derived(const char *pmu)
{
	const char *env = getenv("LIBPFM_FORCE_PMU");
	struct t_pages pool;
	PAPI_event_info_t info;
	unsigned short buf[64];
	long long v[4];
	char want[128], why[256];
	int set = PAPI_NULL, code, r;

	if (!env || strcmp(env, pmu)) {
		printf("SKIP: run with LIBPFM_FORCE_PMU=%s\n", pmu);
		return T_SKIP;
	}
	if ((r = t_require_pf()) || (r = init()) || (r = t_pages_new(&pool, N)))
		return r;
	hw_as_faults = 1;
	t_prefault_stack();

	/* one counter cannot sample it: the name is refused for sampling */
	T_EQ(hwprof_event_probe("PAPI_TLB_DM", why, sizeof(why)), -EOPNOTSUPP);
	T_CHECK(strstr(why, "derived on this CPU (DERIVED_ADD of 2 events)"), "%s", why);

	T_EQ(PAPI_event_name_to_code("PAPI_TLB_DM", &code), PAPI_OK);
	T_EQ(PAPI_query_event(code), PAPI_OK);
	T_EQ(PAPI_get_event_info(code, &info), PAPI_OK);
	T_EQ(info.count, 2);
	T_CHECK(!strcmp(info.derived, "DERIVED_ADD"), "%s", info.derived);
	snprintf(want, sizeof(want), "%s::DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK", pmu);
	T_CHECK(!strcmp(info.name[0], want), "%s", info.name[0]);
	snprintf(want, sizeof(want), "%s::DTLB_STORE_MISSES:MISS_CAUSES_A_WALK", pmu);
	T_CHECK(!strcmp(info.name[1], want), "%s", info.name[1]);
	T_CHECK(info.code[0] & PAPI_NATIVE_MASK, "%#x", info.code[0]);
	T_EQ(PAPI_event_name_to_code("PAPI_DP_OPS", &code), PAPI_OK);
	T_EQ(PAPI_get_event_info(code, &info), PAPI_OK);
	T_EQ(info.count, 4);
	T_CHECK(!strcmp(info.derived, "DERIVED_POSTFIX") &&
			!strcmp(info.postfix, "N0|N1|2|*|+|N2|4|*|+|N3|8|*|+|"),
		"%s %s", info.derived, info.postfix);
	/* a single-event preset: one native, NOT_DERIVED */
	T_EQ(PAPI_get_event_info(PAPI_TOT_CYC, &info), PAPI_OK);
	T_EQ(info.count, 1);
	snprintf(want, sizeof(want), "%s::CPU_CLK_THREAD_UNHALTED:THREAD_P", pmu);
	T_CHECK(!strcmp(info.name[0], want) && !strcmp(info.derived, "NOT_DERIVED"), "%s %s",
		info.name[0], info.derived);

	/* counted as PAPI does: every term here counts the same N faults */
	T_EQ(PAPI_create_eventset(&set), PAPI_OK);
	T_EQ(PAPI_add_named_event(set, "PAPI_TLB_DM"), PAPI_OK); /* ADD */
	T_EQ(PAPI_add_named_event(set, "PAPI_L2_DCM"), PAPI_OK); /* SUB */
	T_EQ(PAPI_add_named_event(set, "PAPI_DP_OPS"), PAPI_OK); /* POSTFIX */
	T_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);	 /* one event */
	nopens = 0;
	T_EQ(PAPI_start(set), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(set, v), PAPI_OK);
	T_FAULTS(v[0], 2 * N);
	T_EQ(v[1], 0);
	T_FAULTS(v[2], 15 * N);
	T_FAULTS(v[3], N);
	T_EQ(nopens, 2 + 2 + 4 + 1); /* one group of nine */
	for (int i = 1; i < nopens; i++)
		T_CHECK(opens[i].group == opens[0].fd && opens[i].type != PERF_TYPE_SOFTWARE,
			"open %d: group %d type %u", i, opens[i].group, opens[i].type);

	/* sampling a derived preset: PAPI_EINVAL, as PAPI 7.0 (not FORCE_SW) */
	T_EQ(PAPI_event_name_to_code("PAPI_TLB_DM", &code), PAPI_OK);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)0, 65536, set, code, 1000,
			 PAPI_PROFIL_POSIX),
	     PAPI_EINVAL);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)0, 65536, set, code, 1000,
			 PAPI_PROFIL_FORCE_SW),
	     PAPI_EINVAL);
	T_EQ(PAPI_overflow(set, code, 1000, 0, handler), PAPI_EINVAL);
	/* where PAPI 7 would emulate it with a timer (PAPI_overflow(3hwprof)) */
	T_EQ(PAPI_overflow(set, code, 1000, PAPI_OVERFLOW_FORCE_SW, handler), PAPI_EINVAL);
	/* the one-event preset in the same set may be profiled */
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)0, 65536, set, PAPI_TOT_CYC, 1000,
			 PAPI_PROFIL_POSIX),
	     PAPI_OK);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)0, 65536, set, PAPI_TOT_CYC, 0,
			 PAPI_PROFIL_POSIX),
	     PAPI_OK);
	hw_as_faults = 0;
	t_pages_free(&pool);
	return t_done(pmu);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && !strcmp(argv[1], "group"))
		return group();
	if (argc == 2 && !strcmp(argv[1], "ecnflct"))
		return ecnflct();
	if (argc == 3 && !strcmp(argv[1], "derived"))
		return derived(argv[2]);
	return T_ERROR;
}
