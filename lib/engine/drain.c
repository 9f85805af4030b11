/* SPDX-License-Identifier: MIT */
/*
 * Draining: the rings folded into histograms in batches, by the drain
 * thread (lib/engine/drainer.c) or by a caller's read or stop; pcs meant for a
 * sink queued and handed over with no lock held. The engine's lock is
 * lib/engine/lock.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* ------------------------------------------------------------------ */
/* Folding                                                              */

/* Queues pcs for the sink; the queue is bounded, and what does not fit
 * is counted as lost. */
static void queue(struct hwp_sev *e, const uint64_t *ips, size_t n)
{
	if (e->npend + n > e->cappend) {
		size_t cap = e->cappend ? e->cappend : HWP_BATCH;
		uint64_t *np;

		while (cap < e->npend + n && cap < HWP_MAX_PENDING)
			cap *= 2;
		np = cap > e->cappend ? realloc(e->pend, cap * sizeof(*np)) : NULL;
		if (np) {
			e->pend = np;
			e->cappend = cap;
		}
	}
	if (e->npend + n > e->cappend) {
		size_t fit = e->cappend - e->npend;

		e->st.lost += n - fit;
		n = fit;
	}
	if (n)
		memcpy(e->pend + e->npend, ips, n * sizeof(*ips));
	e->npend += n;
}

/*
 * A caller's buffers may be unmapped or made read-only by the program at
 * any time: the batch is folded under a guard, and a fault on them turns
 * the histogram off with one line on stderr (hwp_guard_run()). Whether
 * hwprof's fault handler is still in place is checked once per drain pass
 * (guard_state, under hwp_eng), not per batch: one sigaction() query per
 * signal. Where it cannot be (a sanitizer's handler), the maps are read
 * before each batch instead, which a munmap() racing the batch can beat.
 */
static int guard_state; /* 0: check, 1: armed, -1: probe the maps */
static int in_pass;	/* hwp_drain() is running */

struct fold_args {
	struct hwprof_hist *h;
	const uint64_t *ips;
	size_t n;
	uint32_t *lcg;
};

static void fold_cb(void *arg)
{
	struct fold_args *a = arg;

	hwprof_hist_fold(a->h, a->ips, NULL, a->n, a->lcg);
}

static void fold_guarded(struct hwprof_hist *h, const uint64_t *ips, size_t n, uint32_t *lcg)
{
	struct fold_args a = { .h = h, .ips = ips, .n = n, .lcg = lcg };
	uintptr_t at = 0;
	char what[160];

	if (!guard_state)
		guard_state = hwp_guard_arm() ? -1 : 1;
	if (guard_state > 0 || hwp_hist_writable(h) != -EFAULT) {
		if (!hwp_guard_run(fold_cb, &a, hwp_hist_owns, h, &at))
			return;
	}
	hwp_hist_turn_off(h);
	hwp_hist_describe(h, at, what, sizeof(what));
	hwp_guard_say(hwp_hist_api(h), what, at, 0);
}

static void fold_into(struct hwp_sev *e, uint32_t *lcg, const uint64_t *ips, size_t n)
{
	struct hwprof_hist_stats a = { .sz = sizeof(a) }, b = { .sz = sizeof(b) };

	if (e->sink) {
		queue(e, ips, n);
		return;
	}
	if (!e->hist || hwp_hist_is_off(e->hist)) {
		e->st.outside += n; /* no buckets (any more) */
		return;
	}
	hwprof_hist_stats(e->hist, &a);
	if (e->objs) /* the buckets are ours */
		hwprof_hist_fold(e->hist, ips, NULL, n, lcg);
	else
		fold_guarded(e->hist, ips, n, lcg);
	hwprof_hist_stats(e->hist, &b);
	e->st.folded += b.folded - a.folded;
	e->st.outside += b.outside - a.outside;
	e->st.saturated += b.saturated - a.saturated;
}

static void add_path(void *arg, const uint64_t *chain, uint64_t n, uint64_t ip)
{
	hwp_paths_add(arg, chain, n, ip);
}

/* Folds what ring r of event ev holds, its call paths into e->paths. */
void hwp_drain_ring(struct hwprof_session *s, int ev, struct hwp_ring *r, uint32_t *lcg)
{
	struct hwp_sev *e = &s->ev[ev];
	uint64_t ips[HWP_BATCH];
	uint32_t tids[HWP_BATCH];
	size_t n;

	if (!r->page)
		return;
	if (!in_pass)
		guard_state = 0;
	do {
		n = hwp_ring_read_tids(r, ips, e->tids ? tids : NULL, HWP_BATCH,
				       e->paths ? add_path : NULL, e->paths);
		e->st.samples += n;
		if (!n)
			break;
		if (e->tids)
			hwp_tids_add(e->tids, tids, n);
		/* the object table after the samples were read: an object
		 * dlopen'ed just before its code was sampled is in it */
		if (e->objs && !hwp_objects_refresh(e->objs))
			e->hist = e->objs->hist;
		fold_into(e, lcg, ips, n);
	} while (n == HWP_BATCH);
}

/* Folds what a thread's own ring holds (a slot that writes into a shared
 * ring has none: those are drained per CPU). */
void hwp_drain_slot(struct hwprof_session *s, struct hwp_slot *sl)
{
	hwp_drain_ring(s, sl->ev, &sl->ring, &sl->lcg);
}

/* Folds everything the rings hold (hwp_drain_slot() brings an object
 * table up to date before each batch it folds), then the object tables
 * once more, so a dlclose with no sample since is seen too. */
void hwp_drain(struct hwprof_session *s)
{
	guard_state = 0;
	in_pass = 1;
	for (size_t i = 0; i < s->nslot; i++)
		hwp_drain_slot(s, &s->slot[i]);
	for (size_t i = 0; s->cring && i < s->nev * s->ncpu; i++)
		hwp_drain_ring(s, (int)(i / s->ncpu), &s->cring[i].ring, &s->cring[i].lcg);
	in_pass = 0;
	for (size_t i = 0; i < s->nev; i++) {
		struct hwp_sev *e = &s->ev[i];

		if (e->objs && !hwp_objects_refresh(e->objs))
			e->hist = e->objs->hist;
	}
}

/* ------------------------------------------------------------------ */
/* Sinks: user code, run with no lock held                              */

static int pending(const struct hwprof_session *s)
{
	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].npend)
			return 1;
	return 0;
}

/* With hwp_eng held and s->delivering set by the caller: hands every
 * queued pc to its sink, dropping the lock around each call; returns
 * with the lock held and delivering cleared. */
static void deliver_claimed(struct hwprof_session *s)
{
	for (;;) {
		struct hwp_sev *e = NULL;
		uint64_t *ips;
		size_t n, took;

		for (size_t i = 0; i < s->nev && !e; i++)
			if (s->ev[i].npend)
				e = &s->ev[i];
		if (!e)
			break;
		ips = e->pend;
		n = e->npend;
		e->pend = NULL;
		e->npend = 0;
		e->cappend = 0;
		hwp_unlock_engine();
		took = e->sink(e->sink_arg, ips, n);
		free(ips);
		hwp_lock_engine();
		if (took > n)
			took = n;
		e->st.folded += took;
		e->st.outside += n - took;
	}
	s->delivering = 0;
	pthread_cond_broadcast(&hwp_eng_cond);
}

/* With hwp_eng held: waits until no thread runs s's sinks. */
void hwp_drain_wait_delivered(struct hwprof_session *s)
{
	while (s->delivering)
		pthread_cond_wait(&hwp_eng_cond, &hwp_eng);
}

/* With hwp_eng held: runs s's sinks on what is queued (after any other
 * thread running them finishes); returns with the lock held. */
void hwp_drain_deliver(struct hwprof_session *s)
{
	hwp_drain_wait_delivered(s);
	if (!pending(s))
		return;
	s->delivering = 1;
	deliver_claimed(s);
}

/* With hwp_eng held: runs the sinks of every running session that has
 * pcs queued. Claimed sessions cannot be freed meanwhile (free waits). */
void hwp_drain_deliver_all(void)
{
	struct hwprof_session *claimed[16];
	size_t n;

	do {
		n = 0;
		for (struct hwprof_session *s = hwp_running; s && n < 16; s = s->next) {
			if (s->delivering || !pending(s))
				continue;
			s->delivering = 1;
			claimed[n++] = s;
		}
		for (size_t i = 0; i < n; i++)
			deliver_claimed(claimed[i]);
	} while (n == 16);
}
