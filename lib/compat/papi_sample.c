/* SPDX-License-Identifier: MIT */
/*
 * How PAPI_profil()'s and PAPI_overflow()'s events sample (their calls
 * are papi_profil.c's). Profiled and overflowing
 * events sample through one thread-mode session while their EventSet
 * runs: its drain folds pcs into the caller's buffers and hands them to
 * overflow handlers. With PAPI_PROFIL_FORCE_SW / PAPI_OVERFLOW_FORCE_SW
 * the counting fd itself overflows every threshold events and signals
 * its thread (SW_SIGNAL, F_SETOWN_EX): the handler reads the count, folds
 * the interrupted pc (1, or the excess past the threshold with
 * PAPI_PROFIL_WEIGHTED) and calls the user's handler, so the sampler
 * runs at the threshold's rate for every event, time or not.
 *
 * With PAPI_INHERIT_ALL the session inherits as the counters do
 * (hwp_session_inherit(), lib/engine/session.c): the threads and processes the
 * starting thread creates while the set runs are sampled into the same
 * buffers and handed to the same handlers, on the drain thread, so that
 * what the buffers kept and lost adds up to the counter. FORCE_SW cannot
 * follow them (its signal and pc are the starting thread's): refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "lost.h"
#include "papi_priv.h"

#define SW_SIGNAL (SIGRTMIN + 6)

static __thread struct hwp_pset *sw_set; /* FORCE_SW signals here */

/* The program's own disposition of SW_SIGNAL, kept while any thread
 * has a FORCE_SW EventSet armed and given back when the last disarms. */
static pthread_mutex_t sw_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction sw_saved;
static int sw_users;

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

static int hwp_papi_sampled(const struct hwp_pevent *e)
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

struct sw_fold {
	struct hwprof_hist *h;
	uint64_t *pc, *weight;
};

static void sw_fold_cb(void *arg)
{
	struct sw_fold *f = arg;

	hwprof_hist_fold(f->h, f->pc, f->weight, 1, NULL);
}

/* One sample into the caller's buffer under the fault guard (lib/hist/guard.c,
 * armed when FORCE_SW is): a buffer the program unmapped or made
 * read-only turns this histogram off with one line, as the engine's drain
 * does (lib/engine/drain.c); the handler goes on. Async-signal-safe. */
static void sw_fold(struct hwprof_hist *h, uint64_t *pc, uint64_t *weight)
{
	struct sw_fold f = { .h = h, .pc = pc, .weight = weight };
	uintptr_t at = 0;
	char what[160];

	if (hwp_hist_is_off(h) || !hwp_guard_run(sw_fold_cb, &f, hwp_hist_owns, h, &at))
		return;
	hwp_hist_turn_off(h);
	hwp_hist_describe(h, at, what, sizeof(what));
	hwp_guard_say(hwp_hist_api(h), what, at, 1);
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
		pc = 0; /* no pc: FORCE_SW samples land outside */
#endif
		/* one sample per signal; the next deadline stays on the
		 * threshold's grid, as the kernel's overflows do */
		excess = v[0] - (uint64_t)e->deadline;
		e->deadline += (long long)(excess / (uint64_t)thr + 1) * thr;
		if (sw_profiled(e) && e->hist)
			sw_fold(e->hist, &pc,
				(e->flags & PAPI_PROFIL_WEIGHTED) ? &excess : NULL);
		if (!sw_overflow(e))
			continue;
		if (!hwp_papi_in_call())
			e->handler(s->id, (void *)(uintptr_t)pc, 1LL << i, ctx);
		else
			hwp_papi_defer(s->id, (void *)(uintptr_t)pc, 1LL << i, e->handler);
	}
out:
	errno = saved;
}

int hwp_papi_sw_attr(struct hwp_pset *s, const struct hwp_pevent *e, struct perf_event_attr *a)
{
	int thr = sw_threshold(e);

	if (!thr)
		return PAPI_OK;
	/* the signal goes to this thread only, with its pc: an inherited
	 * counter's overflows in other threads would be folded at it */
	if (s->attach || s->cpu >= 0 || s->inherit == PAPI_INHERIT_ALL)
		return PAPI_ENOSUPP;
	a->sample_period = (uint64_t)thr;
	a->wakeup_events = 1;
	return PAPI_OK;
}

int hwp_papi_sw_arm(struct hwp_pset *s)
{
	struct sigaction sa = { .sa_sigaction = sw_tick, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = hwp_sys_gettid() };
	int any = 0;

	for (int i = 0; i < s->nev; i++)
		any |= sw_threshold(&s->ev[i]) != 0;
	if (!any)
		return PAPI_OK;
	if (sw_set && sw_set != s)
		return PAPI_ECNFLCT; /* one FORCE_SW EventSet per thread */
	/* sw_fold()'s guard: in front of SIGSEGV and SIGBUS now, not in the
	 * handler (sigaction there is safe, its lock is not); where it cannot
	 * stay (a sanitizer's handler), faults are not caught */
	(void)hwp_guard_arm();
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
		    fcntl(e->fd, F_SETSIG, SW_SIGNAL) || fcntl(e->fd, F_SETFL, fl | O_ASYNC))
			return PAPI_ESYS;
	}
	sw_set = s;
	s->sw = 1;
	return PAPI_OK;
}

void hwp_papi_sw_disarm(struct hwp_pset *s)
{
	if (s->sw) {
		s->sw = 0; /* a signal still queued finds nothing to do */
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

static __thread int in_handler;	 /* this thread is in ov_sink's call */
static struct hwp_psess *halted; /* under the PAPI lock */

int hwp_papi_in_handler(void)
{
	return in_handler;
}

/* On the drain thread, no lock held. After a handler stopped the set
 * (PAPI_stop() in it), the rest of the batch is not handed over. */
static size_t ov_sink(void *arg, const uint64_t *ips, size_t n)
{
	const struct hwp_ov_arg *a = arg;
	size_t i;

	for (i = 0; i < n && !__atomic_load_n(a->halted, __ATOMIC_ACQUIRE); i++) {
		in_handler++;
		a->fn(a->set, (void *)(uintptr_t)ips[i], 1LL << a->index, NULL);
		in_handler--;
	}
	return i;
}

void hwp_papi_psess_free(struct hwp_psess *ps)
{
	if (!ps)
		return;
	hwprof_session_free(ps->s); /* stopped and drained: runs no handler */
	free(ps);
}

/* PAPI_stop() from an overflow handler, the lock held: the set's session
 * cannot be stopped on the thread that runs its handlers, so it is
 * halted (no more samples reach the buffers, no more handler calls once
 * this one returns) and freed by the next hwp_papi_reap(). */
void hwp_papi_halt(struct hwp_pset *s)
{
	struct hwp_psess *ps = s->ps;

	hwp_session_halt(ps->s);
	__atomic_store_n(&ps->halted, 1, __ATOMIC_RELEASE);
	hwp_lost_unwatch(ps->s); /* its fds are off: the count is final */
	ps->next = halted;
	halted = ps;
	s->ps = NULL;
}

/* Frees the sessions handlers stopped; not from a handler (it waits for
 * the handler's return), the lock not held. */
void hwp_papi_reap(void)
{
	struct hwp_psess *ps;

	if (in_handler)
		return;
	hwp_papi_lock();
	ps = halted;
	halted = NULL;
	hwp_papi_unlock();
	while (ps) {
		struct hwp_psess *next = ps->next;

		hwp_papi_psess_free(ps);
		ps = next;
	}
}

/* Builds the set's session; called without the lock, the set busy. */
int hwp_papi_session(struct hwp_pset *s)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_THREAD };
	struct hwp_psess *ps;
	int need = 0, r0;

	for (int i = 0; i < s->nev; i++)
		need |= hwp_papi_sampled(&s->ev[i]);
	if (!need)
		return PAPI_OK;
	if (s->attach || s->cpu >= 0)
		return PAPI_ENOSUPP; /* sessions sample the calling thread */
	ps = calloc(1, sizeof(*ps) + (size_t)s->nev * sizeof(ps->ov[0]));
	if (!ps)
		return PAPI_ENOMEM;
	s->ps = ps;
	r0 = hwprof_session_new(&o, &ps->s);
	/* PAPI_INHERIT_ALL: it samples the threads its counters count */
	if (!r0 && s->inherit == PAPI_INHERIT_ALL)
		r0 = hwp_session_inherit(ps->s);
	if (r0)
		return hwp_papi_errno(r0, HWP_PAPI_AT_USE);
	for (int i = 0; i < s->nev; i++) {
		struct hwp_pevent *e = &s->ev[i];
		int r = 0;

		if (e->threshold && e->hist && !(e->flags & PAPI_PROFIL_FORCE_SW))
			r = hwprof_session_add(ps->s, e->name, (uint64_t)e->threshold,
					       e->hist);
		if (r >= 0 && e->handler && !(e->ov_flags & PAPI_OVERFLOW_FORCE_SW)) {
			ps->ov[i] = (struct hwp_ov_arg){ s->id, i, e->handler, &ps->halted };
			r = hwp_session_add(ps->s, e->name, (uint64_t)e->ov_threshold, NULL,
					    ov_sink, &ps->ov[i]);
		}
		if (r < 0)
			return hwp_papi_errno(r, HWP_PAPI_AT_USE);
	}
	return PAPI_OK; /* started by PAPI_start() after the counters */
}
