/* SPDX-License-Identifier: MIT */
/*
 * Hardware events as real CPUs answer them, on a machine with no PMU:
 * the seam under perf_event_open (HWPROF_TEST_PMU, lib/perf/sys.c) answers each
 * open of a PMU event as the CPU the test names would, and opens a
 * software stand-in where that CPU would open. Run with HWPROF_TEST_PMU
 * set (tests/meson.build):
 *
 *   test-pmu lib LEVEL	hwprof_session_add("cycles") in both session
 *			modes, PAPI_add_event(PAPI_TOT_CYC) with counting,
 *			and PAPI_profil on PAPI_TOT_CYC: each opens at
 *			precise_ip LEVEL, which the statistics report
 *   test-pmu none	no PMU: each refuses the event with its documented
 *			error, after trying every level
 *   test-pmu scale	a counter the kernel multiplexed (run=50): PAPI_read
 *			scales it by time_enabled / time_running
 *   test-pmu hybrid	a hybrid CPU (a fake sysfs, HWPROF_TEST_SYSFS): the
 *			session says in one line where its events sample
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <papi.h>
#include "hwprof.h"
#include "../lib/engine/internal.h"
#include "harness.h"
#include "tlib.h"

static int seam_on(void)
{
	const char *v = getenv("HWPROF_TEST_PMU");

	if (!v || !*v) {
		printf("ERROR: run with HWPROF_TEST_PMU set (tests/meson.build)\n");
		return 0;
	}
	return 1;
}

/* Threads that wait while a process session starts: more than the
 * engine opens one by one, so its parallel openers run too (threads.c). */
#define WAITERS 80

static int gate[2];

static void *waiter(void *arg)
{
	char c;

	(void)arg;
	while (read(gate[0], &c, 1) < 0)
		;
	return NULL;
}

/* A session on cycles in mode, run over a spin: its precise level. */
static int session(unsigned int mode, int want)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = mode };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s = NULL;
	int ev;

	pthread_t th[WAITERS];
	size_t nth = 0;

	if (mode == HWPROF_SESSION_PROCESS) {
		if (pipe(gate))
			return T_ERROR;
		while (nth < WAITERS && !pthread_create(&th[nth], NULL, waiter, NULL))
			nth++;
		T_EQ(nth, WAITERS);
	}
	T_EQ(hwprof_session_new(&o, &s), 0);
	if (!s)
		return T_FAIL;
	ev = hwprof_session_add(s, "cycles", 100000, NULL);
	T_CHECK(ev >= 0, "mode %u: hwprof_session_add(cycles): %d", mode, ev);
	if (ev >= 0) {
		T_EQ(hwprof_session_start(s), 0);
		spin_hot(40000000);
		T_EQ(hwprof_session_stop(s), 0);
		T_EQ(hwprof_session_stats(s, ev, &st), 0);
		T_CHECK(st.precise == (uint32_t)want, "mode %u: precise %u, want %d", mode,
			st.precise, want);
		T_CHECK(st.threads >= 1 + nth && !st.missed && st.samples > 0,
			"mode %u: %u threads (%u missed), %llu samples", mode, st.threads,
			st.missed, (unsigned long long)st.samples);
		printf("mode %u: precise_ip %u, %llu samples\n", mode, st.precise,
		       (unsigned long long)st.samples);
	}
	hwprof_session_free(s);
	if (nth) {
		close(gate[1]);
		for (size_t i = 0; i < nth; i++)
			pthread_join(th[i], NULL);
		close(gate[0]);
	}
	return 0;
}

static int papi_count(int want_ok)
{
	long long v = 0;
	int es = PAPI_NULL, r, last = -2;

	T_EQ(PAPI_create_eventset(&es), PAPI_OK);
	r = PAPI_add_event(es, PAPI_TOT_CYC);
	if (!want_ok) {
		T_CHECK(r == PAPI_ENOEVNT,
			"PAPI_add_event(PAPI_TOT_CYC): %d, want PAPI_ENOEVNT", r);
		PAPI_destroy_eventset(&es);
		return 0;
	}
	T_CHECK(r == PAPI_OK, "PAPI_add_event(PAPI_TOT_CYC): %d", r);
	T_EQ(PAPI_start(es), PAPI_OK);
	spin_hot(10000000);
	T_EQ(PAPI_stop(es, &v), PAPI_OK);
	hwp_sys_test_pmu_opens(&last);
	/* counting takes no skid level (PAPI_add_event(3)) */
	T_CHECK(last == 0, "counting opened at precise_ip %d, want 0", last);
	T_CHECK(v > 0, "counted %lld", v);
	T_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	return 0;
}

static int papi_profil(int want)
{
	static unsigned short buf[8192];
	unsigned long long sum = 0;
	int es = PAPI_NULL, last = -2;

	T_EQ(PAPI_create_eventset(&es), PAPI_OK);
	T_EQ(PAPI_add_event(es, PAPI_TOT_CYC), PAPI_OK);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)(uintptr_t)spin_hot, 65536, es,
			 PAPI_TOT_CYC, 100000, PAPI_PROFIL_POSIX),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	spin_hot(40000000);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	/* the sampling fd opens after the counting one (PAPI_start) */
	hwp_sys_test_pmu_opens(&last);
	T_CHECK(last == want, "PAPI_profil sampled at precise_ip %d, want %d", last, want);
	for (size_t i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
		sum += buf[i];
	T_CHECK(sum > 0, "PAPI_profil: no sample in spin_hot");
	printf("PAPI_profil: precise_ip %d, %llu samples in spin_hot\n", last, sum);
	PAPI_profil(buf, sizeof(buf), (vptr_t)(uintptr_t)spin_hot, 65536, es, PAPI_TOT_CYC, 0,
		    PAPI_PROFIL_POSIX);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	return 0;
}

static int lib(int want)
{
	int r;

	if (!seam_on())
		return T_ERROR;
	if ((r = session(HWPROF_SESSION_THREAD, want)) ||
	    (r = session(HWPROF_SESSION_PROCESS, want)))
		return r;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return T_ERROR;
	if ((r = papi_count(1)) || (r = papi_profil(want)))
		return r;
	return t_done("pmu-lib");
}

/* No PMU: every level refused; the documented errors. */
static int none(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o) };
	struct hwprof_session *s = NULL;
	unsigned long before, after;
	char why[256];
	int r;

	if (!seam_on())
		return T_ERROR;
	before = hwp_sys_test_pmu_opens(NULL);
	r = hwprof_event_probe("cycles", why, sizeof(why));
	after = hwp_sys_test_pmu_opens(NULL);
	T_CHECK(r == -EOPNOTSUPP, "probe: %d (%s)", r, why);
	T_CHECK(after - before == 4, "%lu opens, want 4 (levels 3 to 0)", after - before);
	T_CHECK(strstr(why, "not supported by this machine's PMU") != NULL, "%s", why);
	T_EQ(hwprof_session_new(&o, &s), 0);
	/* the open is at start (hwprof_session_start(3)) */
	r = hwprof_session_add(s, "cycles", 0, NULL);
	T_EQ(r, 0);
	r = hwprof_session_start(s);
	T_CHECK(r == -EOPNOTSUPP, "hwprof_session_start: %d, want -EOPNOTSUPP", r);
	hwprof_session_free(s);
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return T_ERROR;
	if ((r = papi_count(0)))
		return r;
	return t_done("pmu-none");
}

/* A multiplexed count (the stand-in counts page faults, and reads as if
 * it ran half the time it was enabled): PAPI_read scales it back. */
static int scale(void)
{
	struct t_pages tp;
	long long v = 0;
	int es = PAPI_NULL;

	if (!seam_on())
		return T_ERROR;
	if (t_pages_new(&tp, 512))
		return T_ERROR;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return T_ERROR;
	T_EQ(PAPI_create_eventset(&es), PAPI_OK);
	/* multiplexed: a set that is not is a pinned group, never scaled */
	T_EQ(PAPI_multiplex_init(), PAPI_OK);
	T_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	T_EQ(PAPI_set_multiplex(es), PAPI_OK);
	T_EQ(PAPI_add_event(es, PAPI_TOT_CYC), PAPI_OK);
	t_prefault_stack();
	T_EQ(PAPI_start(es), PAPI_OK);
	t_touch_n(touch_a, &tp, 400);
	T_EQ(PAPI_stop(es, &v), PAPI_OK);
	/* unscaled it reads about 200 */
	T_CHECK(v >= 396 && (T_SANITIZED || v <= 410), "scaled count %lld, want 400", v);
	printf("multiplexed at 50%%: PAPI_stop read %lld for 400 faults\n", v);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	t_pages_free(&tp);
	return t_done("pmu-scale");
}

static char logged[1024];
static int nlogged;

static void on_log(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	if (strstr(msg, "hybrid")) {
		snprintf(logged, sizeof(logged), "%s", msg);
		nlogged++;
	}
}

static int put(const char *root, const char *pmu, const char *type)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/sys/bus/event_source/devices/%s' && echo %s > '%s/sys/bus/event_source/devices/%s/type'",
		 root, pmu, type, root, pmu);
	return system(cmd);
}

/* One start of a session on cycles and page-faults: the lines it logged. */
static int start_once(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o) };
	struct hwprof_session *s = NULL;

	nlogged = 0;
	*logged = 0;
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "cycles", 100000, NULL), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, NULL), 1);
	T_EQ(hwprof_session_start(s), 0);
	T_EQ(hwprof_session_stop(s), 0);
	hwprof_session_free(s);
	return nlogged;
}

static int hybrid(void)
{
	char root[] = "/tmp/hwprof-sysfs-XXXXXX", cmd[256], line[384];
	struct perf_event_attr atom = { .type = 10, .size = sizeof(atom) };
	struct perf_event_attr sw = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(sw) };
	const struct perf_event_attr *a[2] = { &atom, &sw };
	const char *names[2] = { "adl_grt::INST_RETIRED", "task-clock" };

	if (!seam_on() || !mkdtemp(root))
		return T_ERROR;
	setenv("HWPROF_TEST_SYSFS", root, 1);
	hwprof_set_log(on_log, NULL, HWPROF_LOG_WARN);
	/* one core PMU: nothing said */
	if (put(root, "cpu", "4"))
		return T_ERROR;
	T_EQ(start_once(), 0);
	/* cpu_core and cpu_atom: one line, naming the PMU event only */
	if (put(root, "cpu_core", "4") || put(root, "cpu_atom", "10"))
		return T_ERROR;
	T_EQ(start_once(), 1);
	T_CHECK(!strcmp(logged,
			"hwprof: hybrid CPU: each event samples on one kind of core (cycles on cpu_core): a thread's time on the other kind is not sampled"),
		"said: %s", logged);
	printf("said: %s\n", logged);
	/* an event of cpu_atom's own type samples there */
	T_EQ(hwp_attr_hybrid_note(a, names, 2, line, sizeof(line)), 1);
	T_CHECK(strstr(line, "(adl_grt::INST_RETIRED on cpu_atom)") != NULL, "%s", line);
	T_EQ(hwp_attr_hybrid_note(a + 1, names + 1, 1, line, sizeof(line)), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	T_EQ(system(cmd), 0);
	return t_done("pmu-hybrid");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 2 && !strcmp(argv[1], "lib"))
		return lib(atoi(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "none"))
		return none();
	if (argc > 1 && !strcmp(argv[1], "scale"))
		return scale();
	if (argc > 1 && !strcmp(argv[1], "hybrid"))
		return hybrid();
	printf("usage: test-pmu lib LEVEL | none | scale | hybrid\n");
	return T_ERROR;
}
