/* SPDX-License-Identifier: MIT */
/*
 * PAPI 7's rate calls (PAPI_flops_rate(3hwprof)).
 *
 *   nopmu  a machine with no PMU: every call returns PAPI_ENOEVNT (a
 *          misnamed event and NULL outputs their own codes), leaves
 *          nothing running, and PAPI_rate_stop() has nothing to stop.
 *   seam   HWPROF_TEST_PMU answers the PMU's opens with page-fault
 *          stand-ins (tests/meson.build), so the counts are exact: the
 *          first call's zeros, each later call's counts (exact; lower
 *          bounds under a sanitizer, tlib.h), times and rate
 *          since the call before, the switch between calls,
 *          PAPI_rate_stop(), threads apart, and the high-level API
 *          stopping and being stopped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "papi.h"
#include "tlib.h"

static struct t_pages tp;
static char hl_dir[] = "/tmp/hwprof-rate-XXXXXX";

/* The high-level API's output, written at exit. */
static void hl_clean(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", hl_dir);
	if (system(cmd))
		printf("note: %s not removed\n", hl_dir);
}

/* Processor time: spin until PAPI_get_virt_usec() moved by us. */
static void burn_usec(long long us)
{
	long long t0 = PAPI_get_virt_usec();

	while (PAPI_get_virt_usec() - t0 < us)
		spin_hot(1000);
}

static int nopmu(void)
{
	float rt = -1, pt = -1, r = -1;
	long long n = -1, ref = -1, core = -1;

	if (getenv("HWPROF_TEST_PMU")) {
		printf("ERROR: run without HWPROF_TEST_PMU\n");
		return T_ERROR;
	}
	/* checked before anything, initialised or not */
	T_EQ(PAPI_flops_rate(PAPI_TOT_INS, &rt, &pt, &n, &r), PAPI_ENOEVNT);
	T_EQ(PAPI_flips_rate(PAPI_FP_OPS, &rt, &pt, &n, &r), PAPI_ENOEVNT);
	T_EQ(PAPI_flops_rate(PAPI_FP_OPS, NULL, &pt, &n, &r), PAPI_EINVAL);
	T_EQ(PAPI_flips_rate(PAPI_FP_INS, &rt, &pt, &n, NULL), PAPI_EINVAL);
	T_EQ(PAPI_ipc(&rt, &pt, NULL, &r), PAPI_EINVAL);
	T_EQ(PAPI_epc(0, &rt, &pt, &ref, NULL, &n, &r), PAPI_EINVAL);
	T_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);

	/* the first real call initialises PAPI with threads */
	if (PAPI_ipc(&rt, &pt, &n, &r) == PAPI_OK) {
		printf("SKIP: PAPI_TOT_INS and PAPI_TOT_CYC count here: this machine has a PMU\n");
		PAPI_rate_stop();
		return T_SKIP;
	}
	T_EQ(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED | PAPI_THREAD_LEVEL_INITED);
	for (int i = 0; i < 3; i++) { /* again and again: the same answer */
		T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_ENOEVNT);
		T_EQ(PAPI_flops_rate(PAPI_FP_OPS, &rt, &pt, &n, &r), PAPI_ENOEVNT);
		T_EQ(PAPI_flops_rate(PAPI_DP_OPS, &rt, &pt, &n, &r), PAPI_ENOEVNT);
		T_EQ(PAPI_flips_rate(PAPI_FP_INS, &rt, &pt, &n, &r), PAPI_ENOEVNT);
		T_EQ(PAPI_flips_rate(PAPI_VEC_DP, &rt, &pt, &n, &r), PAPI_ENOEVNT);
		T_EQ(PAPI_epc(0, &rt, &pt, &ref, &core, &n, &r), PAPI_ENOEVNT);
		T_EQ(PAPI_epc(PAPI_TOT_CYC, &rt, &pt, &ref, &core, &n, &r), PAPI_ENOEVNT);
		T_EQ(PAPI_rate_stop(), PAPI_ENOEVNT);
	}
	/* on failure PAPI_epc() sets ref and core (0), as PAPI 7.0 does */
	T_EQ(ref, 0);
	T_EQ(core, 0);
	T_EQ(t_count_perf_fds(), 0);
	/* the last error is the rate calls' */
	T_EQ(PAPI_rate_stop(), PAPI_ENOEVNT);
	PAPI_shutdown();
	return t_done("papi-rate-nopmu");
}

struct th_arg {
	int pages;
	long long ins;
	int r1, r2;
	float ipc;
};

static void *th_main(void *p)
{
	struct th_arg *a = p;
	struct t_pages mine;
	float rt, pt;

	if (t_pages_new(&mine, (size_t)a->pages)) {
		a->r1 = -1;
		return NULL;
	}
	t_prefault_stack();
	a->r1 = PAPI_ipc(&rt, &pt, &a->ins, &a->ipc);
	t_touch_n(touch_a, &mine, (size_t)a->pages);
	a->r2 = PAPI_ipc(&rt, &pt, &a->ins, &a->ipc);
	PAPI_rate_stop();
	t_pages_free(&mine);
	return NULL;
}

static int seam(void)
{
	float rt = -1, pt = -1, r = -1;
	long long n = -1, ref = -1, core = -1;
	struct th_arg ta = { .pages = 10 }, tb = { .pages = 25 };
	pthread_t a, b;
	int fp, pf = 0, raw;

	if (!getenv("HWPROF_TEST_PMU")) {
		printf("ERROR: run with HWPROF_TEST_PMU (tests/meson.build)\n");
		return T_ERROR;
	}
	if (t_require_pf())
		return T_SKIP;
	if (t_pages_new(&tp, 256))
		return T_ERROR;
	t_prefault_stack();

	/* the first call: started, every output 0 */
	T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK);
	T_CHECK(rt == 0 && pt == 0 && n == 0 && r == 0, "first call: %g %g %lld %g", rt, pt, n,
		r);
	T_EQ(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED | PAPI_THREAD_LEVEL_INITED);
	T_EQ(t_count_perf_fds(), 2);
	T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK); /* warm: the library's own pages */
	/* each later call: what was counted since the call before */
	for (int k = 1; k <= 3; k++) {
		long long r0 = PAPI_get_real_usec(), p0 = PAPI_get_virt_usec();

		T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK);
		t_touch_n(touch_a, &tp, (size_t)(20 * k));
		burn_usec(20000);
		usleep(30000);
		T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK);
		T_FAULTS(n, 20 * k); /* PAPI_TOT_INS's stand-in: the faults */
		T_CHECK(r == 1.0f, "ipc %g: both stand-ins count the same faults", r);
		T_CHECK(rt >= 0.049f && rt * 1e6f <= (float)(PAPI_get_real_usec() - r0) + 1,
			"real time %g s: 20 ms of CPU and 30 ms asleep", rt);
		T_CHECK(pt >= 0.019f && pt < rt &&
				pt * 1e6f <= (float)(PAPI_get_virt_usec() - p0) + 1,
			"processor time %g s of real %g s", pt, rt);
	}

	/* another call starts anew: zeros, then its own counts */
	T_EQ(PAPI_epc(0, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	T_CHECK(rt == 0 && pt == 0 && n == 0 && r == 0 && ref == 0 && core == 0,
		"epc's first call: %g %g %lld %g %lld %lld", rt, pt, n, r, ref, core);
	T_EQ(t_count_perf_fds(), PAPI_query_event(PAPI_REF_CYC) == PAPI_OK ? 3 : 2);
	T_EQ(PAPI_epc(0, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	T_EQ(PAPI_epc(0, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	t_touch_n(touch_a, &tp, 17);
	T_EQ(PAPI_epc(0, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	T_FAULTS(n, 17);
	T_FAULTS(core, 17);
	if (PAPI_query_event(PAPI_REF_CYC) == PAPI_OK)
		T_FAULTS(ref, 17);
	else
		T_EQ(ref, 0);
	T_CHECK(r == 1.0f, "epc %g", r);
	/* another event: anew */
	T_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &pf), PAPI_OK);
	T_EQ(PAPI_epc(pf, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	T_CHECK(n == 0 && r == 0, "epc's first call on another event: %lld %g", n, r);
	T_EQ(PAPI_epc(pf, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	t_touch_n(touch_a, &tp, 6);
	T_EQ(PAPI_epc(pf, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	T_FAULTS(n, 6);
	T_FAULTS(core, 6);
	/* a start that fails (PAPI_TOT_CYC twice in one EventSet) leaves
	 * nothing running: the next call is a first call */
	T_EQ(PAPI_epc(PAPI_TOT_CYC, &rt, &pt, &ref, &core, &n, &r), PAPI_ECNFLCT);
	T_EQ(t_count_perf_fds(), 0);
	T_EQ(PAPI_rate_stop(), PAPI_ENOEVNT);
	T_EQ(PAPI_epc(0, &rt, &pt, &ref, &core, &n, &r), PAPI_OK);
	T_CHECK(n == 0 && r == 0, "epc's first call after a failed one: %lld %g", n, r);

	/* the floating-point calls, where a preset maps here (this CPU's
	 * libpfm4 rows, events/presets.h): their events' stand-ins */
	fp = PAPI_query_event(PAPI_FP_OPS);
	if (fp == PAPI_OK) {
		T_EQ(PAPI_flops_rate(PAPI_FP_OPS, &rt, &pt, &n, &r), PAPI_OK);
		T_CHECK(n == 0 && r == 0, "flops' first call: %lld %g", n, r);
		T_EQ(PAPI_flops_rate(PAPI_FP_OPS, &rt, &pt, &n, &r), PAPI_OK);
		t_touch_n(touch_a, &tp, 40);
		burn_usec(10000);
		T_EQ(PAPI_flops_rate(PAPI_FP_OPS, &rt, &pt, &n, &r), PAPI_OK);
		T_FAULTS(n, 40);
		T_CHECK(pt > 0 && r > 0 && r * pt * 1e6f > (float)n * 0.999f &&
				r * pt * 1e6f < (float)n * 1.001f,
			"mflops %g: %lld per %g s of processor time", r, n, pt);
	} else {
		printf("note: PAPI_FP_OPS does not map to an event here (%s): PAPI_ENOEVNT\n",
		       PAPI_strerror(fp));
		T_EQ(PAPI_flops_rate(PAPI_FP_OPS, &rt, &pt, &n, &r), fp);
	}
	fp = PAPI_query_event(PAPI_FP_INS);
	if (fp == PAPI_OK) {
		PAPI_event_info_t info;
		unsigned int terms = 1;

		/* a preset that adds several native events counts the faults
		 * once in each stand-in */
		T_EQ(PAPI_get_event_info(PAPI_FP_INS, &info), PAPI_OK);
		if (!strcmp(info.derived, "DERIVED_ADD"))
			terms = info.count;
		T_CHECK(terms >= 1 && (terms == 1 || !strcmp(info.derived, "DERIVED_ADD")),
			"PAPI_FP_INS: %u events, %s", info.count, info.derived);
		T_EQ(PAPI_flips_rate(PAPI_FP_INS, &rt, &pt, &n, &r), PAPI_OK);
		T_CHECK(n == 0 && r == 0, "flips' first call: %lld %g", n, r);
		T_EQ(PAPI_flips_rate(PAPI_FP_INS, &rt, &pt, &n, &r), PAPI_OK);
		t_touch_n(touch_a, &tp, 8);
		burn_usec(10000);
		T_EQ(PAPI_flips_rate(PAPI_FP_INS, &rt, &pt, &n, &r), PAPI_OK);
		T_FAULTS(n, 8 * terms);
		T_CHECK(pt > 0 && r > 0 && r * pt * 1e6f > (float)n * 0.999f &&
				r * pt * 1e6f < (float)n * 1.001f,
			"mflips %g: %lld per %g s of processor time", r, n, pt);
	} else {
		printf("note: PAPI_FP_INS does not map to an event here (%s): PAPI_ENOEVNT\n",
		       PAPI_strerror(fp));
		T_EQ(PAPI_flips_rate(PAPI_FP_INS, &rt, &pt, &n, &r), fp);
	}

	/* PAPI_rate_stop(): stopped and freed; the next call is a first */
	T_EQ(PAPI_rate_stop(), PAPI_OK);
	T_EQ(t_count_perf_fds(), 0);
	T_EQ(PAPI_rate_stop(), PAPI_ENOEVNT);
	T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK);
	T_CHECK(n == 0 && r == 0, "after PAPI_rate_stop(): a first call (%lld %g)", n, r);
	raw = t_faults_open();
	T_CHECK(raw >= 0, "a raw page-fault counter");
	t_faults_start(raw);

	/* threads apart: each its own EventSet and last call */
	T_EQ(pthread_create(&a, NULL, th_main, &ta), 0);
	T_EQ(pthread_create(&b, NULL, th_main, &tb), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	T_CHECK(ta.r1 == PAPI_OK && ta.r2 == PAPI_OK &&
			(ta.ins == 10 || (T_SANITIZED && ta.ins > 10)),
		"thread a: %d %d %lld", ta.r1, ta.r2, ta.ins);
	T_CHECK(tb.r1 == PAPI_OK && tb.r2 == PAPI_OK &&
			(tb.ins == 25 || (T_SANITIZED && tb.ins > 25)),
		"thread b: %d %d %lld", tb.r1, tb.r2, tb.ins);
	/* this thread's set ran on: its own faults (creating the threads
	 * faults here too), the raw counter's, none of the threads' */
	t_touch_n(touch_a, &tp, 5);
	fp = (int)t_faults_stop(raw);
	T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK);
	T_CHECK(n == fp && fp >= 5 && (T_SANITIZED || fp < 35),
		"this thread's %lld faults, raw %d", n, fp);
	close(raw);

	/* PAPI_shutdown() frees the running set: the next call is a first
	 * one, and never touches a set of the user's that took its number */
	PAPI_shutdown();
	T_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	{
		int es = PAPI_NULL, st = 0;
		long long v = -1;

		T_EQ(PAPI_create_eventset(&es), PAPI_OK);
		T_EQ(PAPI_add_named_event(es, "perf::PAGE-FAULTS"), PAPI_OK);
		T_EQ(PAPI_start(es), PAPI_OK);
		T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK);
		T_CHECK(n == 0 && r == 0, "a first call after PAPI_shutdown(): %lld %g", n, r);
		T_EQ(PAPI_state(es, &st), PAPI_OK);
		T_CHECK(st & PAPI_RUNNING, "the user's EventSet %d runs on (state %#x)", es,
			st);
		T_EQ(PAPI_rate_stop(), PAPI_OK);
		T_EQ(PAPI_stop(es, &v), PAPI_OK);
		T_CHECK(v >= 0, "the user's count %lld", v);
		T_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
		T_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	}
	T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK);

	/* the high-level API stops a running rate set, and a rate call a
	 * running high-level set (its output goes to a directory of ours) */
	if (!mkdtemp(hl_dir))
		return T_ERROR;
	atexit(hl_clean); /* before the HL's own: runs after it */
	setenv("PAPI_OUTPUT_DIRECTORY", hl_dir, 1);
	setenv("PAPI_EVENTS", "PAPI_TOT_INS", 1);
	T_EQ(PAPI_hl_region_begin("r"), PAPI_OK);
	T_EQ(PAPI_rate_stop(), PAPI_ENOEVNT);
	T_EQ(PAPI_hl_region_end("r"), PAPI_OK);
	T_EQ(PAPI_ipc(&rt, &pt, &n, &r), PAPI_OK); /* stops the HL set */
	T_CHECK(n == 0, "a first call after the high-level API's: %lld", n);
	T_EQ(PAPI_hl_read("r"), PAPI_ENOTRUN);
	T_EQ(PAPI_hl_stop(), PAPI_ENOTRUN);
	T_EQ(PAPI_rate_stop(), PAPI_OK);
	t_pages_free(&tp);
	return t_done("papi-rate-seam");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "nopmu"))
		return nopmu();
	if (argc > 1 && !strcmp(argv[1], "seam"))
		return seam();
	printf("ERROR: usage: test-papi-rate nopmu|seam\n");
	return T_ERROR;
}
