/* SPDX-License-Identifier: MIT */
/*
 * PAPI_profil, PAPI_sprofil and PAPI_overflow. Profiled and overflowing
 * events sample through one thread-mode session while their EventSet
 * runs: its drain folds pcs into the caller's buffers and hands them to
 * overflow handlers. With PAPI_PROFIL_FORCE_SW / PAPI_OVERFLOW_FORCE_SW
 * the counting fd itself overflows every threshold events and signals
 * its thread (SW_SIGNAL, F_SETOWN_EX): the handler reads the count, folds
 * the interrupted pc (1, or the excess past the threshold with
 * PAPI_PROFIL_WEIGHTED) and calls the user's handler, so the sampler
 * runs at the threshold's rate for every event, time or not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "papi_priv.h"

#define SW_SIGNAL	(SIGRTMIN + 6)
#define MAX_PROF	8	/* profiled events per EventSet */
#define MAX_DEFER	64

static __thread struct hwp_pset *sw_set;	/* FORCE_SW signals here */

/* The program's own disposition of SW_SIGNAL, kept while any thread
 * has a FORCE_SW EventSet armed and given back when the last disarms. */
static pthread_mutex_t sw_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction sw_saved;
static int sw_users;

/* Handler calls a FORCE_SW signal could not make because it interrupted
 * this thread inside a PAPI call (holding the lock): made at unlock. */
struct deferred {
	int set;
	void *pc;
	long long vec;
	PAPI_overflow_handler_t fn;
};
static __thread struct deferred dq[MAX_DEFER];
static __thread volatile sig_atomic_t dq_n;

static int sw_profiled(const struct hwp_pevent *e)
{
	return e->threshold && (e->flags & PAPI_PROFIL_FORCE_SW);
}

static int sw_overflow(const struct hwp_pevent *e)
{
	return e->handler && (e->ov_flags & PAPI_OVERFLOW_FORCE_SW);
}

static int sw_threshold(const struct hwp_pevent *e)
{
	return sw_profiled(e) ? e->threshold : sw_overflow(e) ? e->ov_threshold : 0;
}

int hwp_papi_sampled(const struct hwp_pevent *e)
{
	return (e->threshold && e->hist && !(e->flags & PAPI_PROFIL_FORCE_SW)) ||
	       (e->handler && !(e->ov_flags & PAPI_OVERFLOW_FORCE_SW));
}

void hwp_papi_unprofile(struct hwp_pevent *e)
{
	hwprof_hist_free(e->hist);
	e->hist = NULL;
	e->threshold = 0;
	e->flags = 0;
}

/* ------------------------------------------------------------------ */
/* FORCE_SW                                                             */

void hwp_papi_deferred(void)
{
	while (dq_n > 0) {
		struct deferred d = dq[dq_n - 1];

		dq_n = dq_n - 1;
		d.fn(d.set, d.pc, d.vec, NULL);
	}
}

static void sw_tick(int sig, siginfo_t *si, void *ctx)
{
	struct hwp_pset *s = sw_set;
	int saved = errno;

	(void)sig;
	if (!s || !s->sw)
		goto out;
	for (int i = 0; i < s->nev; i++) {
		struct hwp_pevent *e = &s->ev[i];
		int thr = sw_threshold(e);
		uint64_t v[3], excess, pc;

		if (!thr || e->fd != si->si_fd || hwp_perf_read(e->fd, v, 3) ||
		    (long long)v[0] < e->deadline)
			continue;
#if defined(__x86_64__)
		pc = (uint64_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
		pc = (uint64_t)((ucontext_t *)ctx)->uc_mcontext.pc;
#else
		pc = 0;		/* no pc: FORCE_SW samples land outside */
#endif
		/* one sample per signal; the next deadline stays on the
		 * threshold's grid, as the kernel's overflows do */
		excess = v[0] - (uint64_t)e->deadline;
		e->deadline += (long long)(excess / (uint64_t)thr + 1) * thr;
		if (sw_profiled(e) && e->hist)
			hwprof_hist_fold(e->hist, &pc, (e->flags & PAPI_PROFIL_WEIGHTED) ?
					 &excess : NULL, 1, NULL);
		if (!sw_overflow(e))
			continue;
		if (!hwp_papi_in_call()) {
			e->handler(s->id, (void *)(uintptr_t)pc, 1LL << i, ctx);
		} else if (dq_n < MAX_DEFER) {
			dq[dq_n] = (struct deferred){ s->id, (void *)(uintptr_t)pc, 1LL << i,
						      e->handler };
			dq_n = dq_n + 1;
		}
	}
out:
	errno = saved;
}

int hwp_papi_sw_attr(struct hwp_pset *s, const struct hwp_pevent *e,
		     struct perf_event_attr *a)
{
	int thr = sw_threshold(e);

	if (!thr)
		return PAPI_OK;
	if (s->attach || s->cpu >= 0)
		return PAPI_ENOSUPP;	/* the signal goes to this thread only */
	a->sample_period = (uint64_t)thr;
	a->wakeup_events = 1;
	return PAPI_OK;
}

int hwp_papi_sw_arm(struct hwp_pset *s)
{
	struct sigaction sa = { .sa_sigaction = sw_tick, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = hwp_gettid() };
	int any = 0;

	for (int i = 0; i < s->nev; i++)
		any |= sw_threshold(&s->ev[i]) != 0;
	if (!any)
		return PAPI_OK;
	if (sw_set && sw_set != s)
		return PAPI_ECNFLCT;	/* one FORCE_SW EventSet per thread */
	sigemptyset(&sa.sa_mask);
	pthread_mutex_lock(&sw_lock);
	if (!sw_users && sigaction(SW_SIGNAL, &sa, &sw_saved)) {
		pthread_mutex_unlock(&sw_lock);
		return PAPI_ESYS;
	}
	sw_users++;
	pthread_mutex_unlock(&sw_lock);
	s->sw_counted = 1;
	for (int i = 0; i < s->nev; i++) {
		struct hwp_pevent *e = &s->ev[i];
		int fl;

		if (!sw_threshold(e))
			continue;
		e->deadline = sw_threshold(e);
		fl = fcntl(e->fd, F_GETFL);
		if (fl < 0 || fcntl(e->fd, F_SETOWN_EX, &own) ||
		    fcntl(e->fd, F_SETSIG, SW_SIGNAL) ||
		    fcntl(e->fd, F_SETFL, fl | O_ASYNC))
			return PAPI_ESYS;
	}
	sw_set = s;
	s->sw = 1;
	return PAPI_OK;
}

void hwp_papi_sw_disarm(struct hwp_pset *s)
{
	if (s->sw) {
		s->sw = 0;	/* a signal still queued finds nothing to do */
		if (sw_set == s)
			sw_set = NULL;
	}
	if (!s->sw_counted)
		return;
	s->sw_counted = 0;
	/* no more signals from these fds, then the program's handler back:
	 * on the thread that armed them, none is left pending unblocked */
	for (int i = 0; i < s->nev; i++) {
		int fl = s->ev[i].fd >= 0 ? fcntl(s->ev[i].fd, F_GETFL) : -1;

		if (fl >= 0 && (fl & O_ASYNC))
			fcntl(s->ev[i].fd, F_SETFL, fl & ~O_ASYNC);
	}
	pthread_mutex_lock(&sw_lock);
	if (sw_users && !--sw_users)
		sigaction(SW_SIGNAL, &sw_saved, NULL);
	pthread_mutex_unlock(&sw_lock);
}

/* ------------------------------------------------------------------ */
/* Kernel sampling                                                      */

static size_t ov_sink(void *arg, const uint64_t *ips, size_t n)
{
	const struct hwp_ov_arg *a = arg;

	for (size_t i = 0; i < n; i++)
		a->fn(a->set, (void *)(uintptr_t)ips[i], 1LL << a->index, NULL);
	return n;
}

/* Builds the set's session; called without the lock, the set busy. */
int hwp_papi_session(struct hwp_pset *s)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_THREAD };
	int need = 0, r0;

	for (int i = 0; i < s->nev; i++)
		need |= hwp_papi_sampled(&s->ev[i]);
	if (!need)
		return PAPI_OK;
	if (s->attach || s->cpu >= 0)
		return PAPI_ENOSUPP;	/* sessions sample the calling thread */
	r0 = hwprof_session_new(&o, &s->s);
	if (r0)
		return hwp_papi_errno(r0, HWP_PAPI_AT_USE);
	for (int i = 0; i < s->nev; i++) {
		struct hwp_pevent *e = &s->ev[i];
		int r = 0;

		if (e->threshold && e->hist && !(e->flags & PAPI_PROFIL_FORCE_SW))
			r = hwprof_session_add(s->s, e->name, (uint64_t)e->threshold, e->hist);
		if (r >= 0 && e->handler && !(e->ov_flags & PAPI_OVERFLOW_FORCE_SW)) {
			e->ov = (struct hwp_ov_arg){ s->id, i, e->handler };
			r = hwp_session_add(s->s, e->name, (uint64_t)e->ov_threshold, NULL,
					    ov_sink, &e->ov);
		}
		if (r < 0)
			return hwp_papi_errno(r, HWP_PAPI_AT_USE);
	}
	return PAPI_OK;		/* started by PAPI_start() after the counters */
}

/* ------------------------------------------------------------------ */
/* Profiling                                                            */

/* PAPI_sprofil's checks in PAPI 7's order; @empty: PAPI_profil with
 * bufsiz 0, profiled with nowhere to write. */
static int sprofil_locked(PAPI_sprofil_t *prof, int profcnt, int id, int code,
			  int threshold, int flags, int empty)
{
	const int known = PAPI_PROFIL_POSIX | PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED |
			  PAPI_PROFIL_COMPRESS | PAPI_PROFIL_BUCKETS | PAPI_PROFIL_FORCE_SW |
			  PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR;
	struct hwprof_region reg[64], *r = reg;
	struct hwprof_hist_opts o = { .sz = sizeof(o), .index = HWPROF_INDEX_PAPI,
		.flags = HWPROF_HIST_SORT | HWPROF_HIST_OVERLAP | HWPROF_HIST_PARTIAL };
	struct hwprof_hist *h = NULL;
	struct hwp_pevent *e;
	struct hwp_pset *s;
	int ret, i, nprof = 0, buckets, width;

	ret = hwp_papi_stopped(id, &s);			/* 1, 2 */
	if (ret)
		return ret;
	i = hwp_papi_index(s, code);
	if (i < 0)					/* 5 */
		return PAPI_ENOEVNT;
	e = &s->ev[i];
	if (!prof)					/* 7 */
		profcnt = 0;
	for (int k = 0; k < profcnt; k++) {		/* 8 */
		unsigned sc = prof[k].pr_scale;

		if (sc != 0x20000 && (sc < 2 || sc > 0x10000))
			return PAPI_EINVAL;
	}
	if (threshold < 0)				/* 9 */
		return PAPI_EINVAL;
	if (!threshold) {				/* 10, 12: turn off */
		if (!e->threshold)
			return PAPI_EINVAL;
		hwp_papi_unprofile(e);
		return PAPI_OK;
	}
	for (int k = 0; k < s->nev; k++)
		nprof += s->ev[k].threshold && k != i;
	if (nprof >= MAX_PROF || i >= HWP_PAPI_MAX_OV)	/* 11 */
		return PAPI_ECNFLCT;
	for (int k = 0; k < s->nev; k++)		/* 13 */
		if (k != i && s->ev[k].threshold &&
		    (s->ev[k].flags & PAPI_PROFIL_FORCE_SW) != (flags & PAPI_PROFIL_FORCE_SW))
			return PAPI_ECNFLCT;
	if (flags & ~known)				/* 15 */
		return PAPI_EINVAL;
	buckets = flags & PAPI_PROFIL_BUCKETS;		/* 16 */
	if (!buckets)
		flags |= buckets = PAPI_PROFIL_BUCKET_16;
	if (buckets & (buckets - 1))
		return PAPI_EINVAL;
	if (flags & (PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR))	/* 18 */
		return PAPI_ENOSUPP;
	if (empty)
		goto set;
	if (!profcnt)
		return PAPI_EINVAL;	/* PAPI would dereference NULL at the first sample */
	width = buckets == PAPI_PROFIL_BUCKET_64 ? 64 : buckets == PAPI_PROFIL_BUCKET_32 ? 32 : 16;
	if (profcnt > 64 && !(r = calloc((size_t)profcnt, sizeof(*r))))
		return PAPI_ENOMEM;
	for (int k = 0; k < profcnt; k++)
		r[k] = (struct hwprof_region){
			.base = prof[k].pr_base, .size = prof[k].pr_size,
			.offset = (uint64_t)(uintptr_t)prof[k].pr_off,
			.scale = prof[k].pr_scale, .width = (uint32_t)width,
		};
	o.regions = r;
	o.nregions = (size_t)profcnt;
	o.fold = (unsigned int)(flags & (PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED |
					 PAPI_PROFIL_COMPRESS));
	o.threshold = (uint64_t)threshold;
	ret = hwp_papi_errno(hwprof_hist_new(&o, &h), HWP_PAPI_AT_USE);
	if (r != reg)
		free(r);
	if (ret)
		return ret;
set:	/* all checked: only now does the EventSet change */
	hwprof_hist_free(e->hist);
	e->hist = h;
	e->threshold = threshold;
	e->flags = flags;
	return PAPI_OK;
}

HWPROF_API int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int id, int code,
			    int threshold, int flags)
{
	int ret;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	hwp_papi_lock();
	ret = sprofil_locked(prof, profcnt, id, code, threshold, flags, 0);
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset, unsigned scale,
			   int id, int code, int threshold, int flags)
{
	PAPI_sprofil_t one = { buf, bufsiz, offset, scale };
	struct hwp_pset *s;
	int ret;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (threshold <= 0)	/* PAPI: a negative threshold turns off too */
		return PAPI_sprofil(NULL, 0, id, code, 0, flags);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s)
		ret = PAPI_ENOEVST;
	else if (hwp_papi_index(s, code) < 0)
		ret = PAPI_ENOEVNT;
	else	/* bufsiz 0: PAPI 7 accepts it and never writes */
		ret = sprofil_locked(&one, 1, id, code, threshold, flags, bufsiz == 0);
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_overflow(int id, int code, int threshold, int flags,
			     PAPI_overflow_handler_t handler)
{
	struct hwp_pevent *e;
	struct hwp_pset *s;
	int ret, i;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	hwp_papi_lock();
	ret = hwp_papi_stopped(id, &s);
	if (ret)
		goto out;
	i = hwp_papi_index(s, code);
	if (i < 0) {
		ret = PAPI_ENOEVNT;
		goto out;
	}
	e = &s->ev[i];
	if (threshold < 0 || (threshold && !handler) ||
	    (flags & ~(PAPI_OVERFLOW_FORCE_SW | PAPI_OVERFLOW_HARDWARE))) {
		ret = PAPI_EINVAL;
	} else if (!threshold) {	/* off: only what is on */
		ret = e->handler ? PAPI_OK : PAPI_EINVAL;
		e->handler = NULL;
		e->ov_threshold = 0;
	} else if (i >= HWP_PAPI_MAX_OV) {
		ret = PAPI_ECNFLCT;
	} else {
		e->handler = handler;
		e->ov_threshold = threshold;
		e->ov_flags = flags;
	}
out:
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_get_overflow_event_index(int id, long long vec, int *array, int *number)
{
	struct hwp_pset *s;
	int ret = PAPI_OK, n = 0;

	if (!array || !number || *number <= 0 || !vec)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s) {
		ret = PAPI_ENOEVST;
	} else {
		for (int i = 0; i < s->nev && i < HWP_PAPI_MAX_OV && n < *number; i++)
			if ((vec & (1LL << i)) && (s->ev[i].handler || s->ev[i].threshold))
				array[n++] = i;
		*number = n;
		if (!n)
			ret = PAPI_EINVAL;
	}
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}
