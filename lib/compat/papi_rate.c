/* SPDX-License-Identifier: MIT */
/*
 * PAPI 7's rate calls: PAPI_flips_rate(), PAPI_flops_rate(), PAPI_ipc(),
 * PAPI_epc() and PAPI_rate_stop() (PAPI_flops_rate(3hwprof)). Each thread
 * has one EventSet of its own for them. The first call (or a call with
 * another mode or event than the last) sets it up, starts it and returns
 * zeros; each later call stops it, returns what it counted and the time
 * since the call before, and starts it again, so every call measures the
 * interval since the one before. A running high-level EventSet of the
 * thread is stopped first (PAPI_hl_stop()), and PAPI_hl_region_begin()
 * stops a running rate EventSet, as in PAPI 7.0.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "papi_priv.h"

enum rate_mode {
	RATE_STOP,
	RATE_FLIP,
	RATE_FLOP,
	RATE_IPC,
	RATE_EPC
};

struct rate_state {
	int es;			/* the thread's EventSet, PAPI_NULL: none */
	int event0;		/* the first event: a change starts anew */
	enum rate_mode mode;	/* RATE_STOP: not running */
	unsigned int gen;	/* the library's life it was made in */
	long long real0, proc0; /* usec at the last call */
};

static __thread struct rate_state rs = { .es = PAPI_NULL };

/* A PAPI_shutdown() since the set was made freed it (and its number may
 * be another set's now): forgotten, never stopped or destroyed. */
static void rate_check_gen(void)
{
	if (rs.mode != RATE_STOP && rs.gen != hwp_papi_generation()) {
		rs.es = PAPI_NULL;
		rs.mode = RATE_STOP;
	}
}

int hwp_papi_rate_running(void)
{
	rate_check_gen();
	return rs.mode != RATE_STOP;
}

static unsigned long rate_tid(void)
{
	return (unsigned long)hwp_sys_gettid();
}

/* PAPI initialised with threads, as PAPI 7.0 does it on a first rate
 * call; PAPI_EINVAL when it cannot be. */
static int rate_init(void)
{
	const int want = PAPI_LOW_LEVEL_INITED | PAPI_THREAD_LEVEL_INITED;
	int r;

	if ((hwp_papi_inited() & want) == want)
		return PAPI_OK;
	r = PAPI_library_init(PAPI_VER_CURRENT);
	if (r != PAPI_VER_CURRENT) {
		fprintf(stderr, "PAPI: rate call: PAPI_library_init failed: %s\n",
			PAPI_strerror(r));
		return PAPI_EINVAL;
	}
	if (!(hwp_papi_inited() & PAPI_THREAD_LEVEL_INITED)) {
		r = PAPI_thread_init(rate_tid);
		if (r != PAPI_OK) {
			fprintf(stderr, "PAPI: rate call: PAPI_thread_init failed: %s\n",
				PAPI_strerror(r));
			return PAPI_EINVAL;
		}
	}
	return PAPI_OK;
}

/* The thread's EventSet stopped and gone (PAPI 7.0 only cleans it up
 * and makes a new one at each start). */
static void rate_drop(void)
{
	if (rs.es != PAPI_NULL) {
		if (rs.mode != RATE_STOP)
			PAPI_stop(rs.es, NULL);
		PAPI_cleanup_eventset(rs.es);
		PAPI_destroy_eventset(&rs.es);
	}
	rs.es = PAPI_NULL;
	rs.mode = RATE_STOP;
}

/* A first call: the EventSet made with the n events and started; the
 * outputs zero. On failure nothing is left running and the error of the
 * event that could not be added is returned (PAPI 7.0's
 * PAPI_add_events() there returns a count where the second fails). */
static int rate_start(enum rate_mode mode, const int *events, int n, float *rtime,
		      float *ptime, long long *count, float *rate)
{
	int r;

	rate_drop();
	r = PAPI_create_eventset(&rs.es);
	for (int i = 0; r == PAPI_OK && i < n; i++)
		r = PAPI_add_event(rs.es, events[i]);
	if (r != PAPI_OK) {
		rate_drop();
		return r;
	}
	*rtime = 0;
	*ptime = 0;
	*count = 0;
	*rate = 0;
	rs.event0 = events[0];
	rs.gen = hwp_papi_generation();
	rs.real0 = PAPI_get_real_usec();
	rs.proc0 = PAPI_get_virt_usec();
	r = PAPI_start(rs.es);
	if (r != PAPI_OK) {
		rate_drop();
		return r;
	}
	rs.mode = mode;
	return PAPI_OK;
}

/*
 * The work of every rate call. values[] gets what the events counted
 * (values[0] also into *count); *rate is the instructions or operations
 * per microsecond of processor time (Mflips/s, Mflops/s: 0 where none
 * passed) or values[0] per values[1] (IPC, EPC: 0 where no cycle was
 * counted).
 */
static int rate_call(enum rate_mode mode, int *events, long long *values, float *rtime,
		     float *ptime, long long *count, float *rate)
{
	long long rt, pt, dp;
	int n = 2, r;

	if (hwp_papi_hl_running()) {
		r = PAPI_hl_stop();
		if (r != PAPI_OK)
			return r;
	}
	rate_check_gen();
	r = rate_init();
	if (r != PAPI_OK)
		return r;
	switch (mode) {
	case RATE_FLIP:
	case RATE_FLOP:
		r = PAPI_query_event(events[0]);
		if (r != PAPI_OK)
			return r;
		n = 1;
		break;
	case RATE_IPC:
		break;
	case RATE_EPC:
		r = PAPI_query_event(events[0]);
		if (r != PAPI_OK)
			return r;
		if (PAPI_query_event(events[2]) == PAPI_OK)
			n = 3; /* reference cycles where this machine has them */
		break;
	default:
		return PAPI_EINVAL;
	}
	if (rs.mode != mode || events[0] != rs.event0)
		return rate_start(mode, events, n, rtime, ptime, count, rate);

	r = PAPI_stop(rs.es, values);
	if (r != PAPI_OK) {
		rs.mode = RATE_STOP;
		rate_drop();
		return r;
	}
	rt = PAPI_get_real_usec();
	pt = PAPI_get_virt_usec();
	*rtime = (float)(rt - rs.real0) * 1e-6f;
	*ptime = (float)(pt - rs.proc0) * 1e-6f;
	*count = values[0];
	dp = pt - rs.proc0;
	if (mode == RATE_FLIP || mode == RATE_FLOP)
		*rate = dp > 0 ? (float)values[0] / (float)dp : 0;
	else
		*rate = values[1] ? (float)values[0] / (float)values[1] : 0;
	rs.real0 = rt;
	rs.proc0 = pt;
	r = PAPI_start(rs.es);
	if (r != PAPI_OK)
		rate_drop();
	return r;
}

HWPROF_API int PAPI_flips_rate(int event, float *rtime, float *ptime, long long *flpins,
			       float *mflips)
{
	int events[1] = { event };
	long long v[1] = { 0 };

	if (event != PAPI_FP_INS && event != PAPI_VEC_DP && event != PAPI_VEC_SP)
		return hwp_papi_err(PAPI_ENOEVNT);
	if (!rtime || !ptime || !flpins || !mflips)
		return hwp_papi_err(PAPI_EINVAL);
	return hwp_papi_err(rate_call(RATE_FLIP, events, v, rtime, ptime, flpins, mflips));
}

HWPROF_API int PAPI_flops_rate(int event, float *rtime, float *ptime, long long *flpops,
			       float *mflops)
{
	int events[1] = { event };
	long long v[1] = { 0 };

	if (event != PAPI_FP_OPS && event != PAPI_SP_OPS && event != PAPI_DP_OPS)
		return hwp_papi_err(PAPI_ENOEVNT);
	if (!rtime || !ptime || !flpops || !mflops)
		return hwp_papi_err(PAPI_EINVAL);
	return hwp_papi_err(rate_call(RATE_FLOP, events, v, rtime, ptime, flpops, mflops));
}

HWPROF_API int PAPI_ipc(float *rtime, float *ptime, long long *ins, float *ipc)
{
	int events[2] = { PAPI_TOT_INS, PAPI_TOT_CYC };
	long long v[2] = { 0, 0 };

	if (!rtime || !ptime || !ins || !ipc)
		return hwp_papi_err(PAPI_EINVAL);
	return hwp_papi_err(rate_call(RATE_IPC, events, v, rtime, ptime, ins, ipc));
}

HWPROF_API int PAPI_epc(int event, float *rtime, float *ptime, long long *ref, long long *core,
			long long *evt, float *epc)
{
	int events[3] = { event ? event : PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_REF_CYC };
	long long v[3] = { 0, 0, 0 };
	int r;

	if (!rtime || !ptime || !ref || !core || !evt || !epc)
		return hwp_papi_err(PAPI_EINVAL);
	r = rate_call(RATE_EPC, events, v, rtime, ptime, evt, epc);
	*ref = v[2]; /* 0 without PAPI_REF_CYC, as on a first call */
	*core = v[1];
	return hwp_papi_err(r);
}

HWPROF_API int PAPI_rate_stop(void)
{
	long long v[3];
	int r;

	if (!hwp_papi_rate_running())
		return hwp_papi_err(PAPI_ENOEVNT);
	r = PAPI_stop(rs.es, v);
	rs.mode = RATE_STOP; /* stopped, or the stop failed: not running */
	rate_drop();
	return hwp_papi_err(r);
}
