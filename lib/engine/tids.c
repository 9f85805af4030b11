/* SPDX-License-Identifier: MIT */
/*
 * Per-thread sample counts of a session's events (hwp_tids_enable(),
 * internal.h): each sample record carries its thread id (PERF_SAMPLE_TID),
 * and the drain adds it to a table of thread id -> samples, so a
 * process-wide session's samples can be told apart by thread even where
 * its threads write into rings shared per CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Open addressing on the tid (never 0: a record too short to hold one is
 * counted under 0 in z), grown at half full. */
struct hwp_tids {
	struct hwp_tid_count *e; /* nslot entries, tid 0: empty */
	size_t n, nslot;
	uint64_t z;	  /* samples without a thread id */
	uint64_t dropped; /* samples a full table could not take */
};

static size_t slot_of(uint32_t tid, size_t nslot)
{
	return (size_t)((tid * 0x9e3779b1u) & (uint32_t)(nslot - 1));
}

static int grow(struct hwp_tids *t)
{
	size_t ns = t->nslot ? 2 * t->nslot : 64;
	struct hwp_tid_count *ne = calloc(ns, sizeof(*ne));

	if (!ne)
		return -1;
	for (size_t i = 0; i < t->nslot; i++) {
		size_t k;

		if (!t->e[i].tid)
			continue;
		for (k = slot_of((uint32_t)t->e[i].tid, ns); ne[k].tid; k = (k + 1) & (ns - 1))
			;
		ne[k] = t->e[i];
	}
	free(t->e);
	t->e = ne;
	t->nslot = ns;
	return 0;
}

void hwp_tids_add(struct hwp_tids *t, const uint32_t *tids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!tids[i]) {
			t->z++;
			continue;
		}
		if (2 * (t->n + 1) > t->nslot && grow(t)) {
			t->dropped++;
			continue;
		}
		for (k = slot_of(tids[i], t->nslot);
		     t->e[k].tid && t->e[k].tid != (pid_t)tids[i];
		     k = (k + 1) & (t->nslot - 1))
			;
		if (!t->e[k].tid) {
			t->e[k].tid = (pid_t)tids[i];
			t->n++;
		}
		t->e[k].samples++;
	}
}

struct hwp_tids *hwp_tids_new(void)
{
	return calloc(1, sizeof(struct hwp_tids));
}

void hwp_tids_zero(struct hwp_tids *t)
{
	if (!t)
		return;
	free(t->e);
	memset(t, 0, sizeof(*t));
}

void hwp_tids_free(struct hwp_tids *t)
{
	hwp_tids_zero(t);
	free(t);
}

int hwp_tids_enable(struct hwprof_session *s)
{
	if (!s || s->nev || s->running)
		return -EINVAL;
	s->count_tids = 1;
	return 0;
}

int hwp_tids_of(struct hwprof_session *s, int event, struct hwp_tid_count **out, size_t *n,
		uint64_t *untold)
{
	struct hwp_tids *t;
	struct hwp_tid_count *v;
	size_t k = 0;
	int ret = 0;

	if (!s || !out || !n || event < 0 || (size_t)event >= s->nev)
		return -EINVAL;
	hwp_lock_engine();
	t = s->ev[event].tids;
	if (!t) {
		ret = -ENOENT;
		goto out;
	}
	v = malloc((t->n + 1) * sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->nslot; i++)
		if (t->e[i].tid)
			v[k++] = t->e[i];
	*out = v;
	*n = k;
	if (untold)
		*untold = t->z + t->dropped;
out:
	hwp_unlock_engine();
	return ret;
}
