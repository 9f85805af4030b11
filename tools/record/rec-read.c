/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's records: each CPU's rings read through the library's one
 * reader (lib/perf/ring.c), every record handled in time order (samples,
 * mmaps, comms, forks, exits; drops attributed through the
 * sample_id trailer), and at the end the books: samples kept + samples
 * reported lost against the kernel's count of overflows. With
 * --call-graph dwarf the rings are read by a thread of their own that
 * only copies the records out; the main thread orders and unwinds them
 * ("The reader thread" below). The events and rings themselves are
 * opened in rec-perf.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"
#include "rec.h"
#include "sample.h"

static inline uint64_t u64_at(const unsigned char *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint32_t u32_at(const unsigned char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* The event a record belongs to, by the id its sample fields or its
 * sample_id trailer carry: UINT32_MAX for the side-band event's own. */
static uint32_t rec_event(const struct rec *r, const struct perf_event_header *h)
{
	struct hwp_sample_id id;

	if (hwp_sample_id(h, REC_SAMPLE_TYPE, 1, &id) || !id.has_id)
		return UINT32_MAX;
	return rec_ev_of(r, id.id);
}

/*
 * Samples the kernel dropped (PERF_RECORD_LOST, LOST_SAMPLES). The kernel
 * counts drops per ring and reports them in the next record it manages to
 * write, for whichever event writes it: the trailer names that event (the
 * body's id is a child event's own for an inherited event, and never
 * known here). The side-band records (MMAP2, COMM, FORK, EXIT) have rings
 * of their own, so a sampling event's ring drops nothing but samples, and
 * the side band's drops are not counted as samples (side_lost).
 */
static void rec_lost(struct rec *r, const struct perf_event_header *h)
{
	uint32_t ev = rec_event(r, h);
	struct hd_event *he;

	if (ev == UINT32_MAX) {
		r->side_lost = hwp_add_sat(r->side_lost, hwp_ring_lost(h));
		r->d.side_lost = r->side_lost; /* hwprof-data(5): sideband-lost */
		return;
	}
	he = &r->d.events[r->ev[ev].hd];
	he->lost = hwp_add_sat(he->lost, hwp_ring_lost(h));
}

static int rec_mmap2(struct rec *r, const unsigned char *p, size_t n, size_t trailer)
{
	/* pid tid addr len pgoff {maj min ino ino_gen | bid} prot flags name */
	const unsigned char *bid = NULL;
	size_t bidlen = 0, name = 8 + 56 + 8;
	struct perf_event_header h;
	char path[4096];
	size_t plen;

	memcpy(&h, p, sizeof(h));
	if (n < name + trailer)
		return 0;
	if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		bidlen = p[40];
		bid = p + 44;
		if (bidlen > 20)
			bidlen = 20;
	}
	plen = n - trailer - name;
	if (plen >= sizeof(path))
		plen = sizeof(path) - 1;
	memcpy(path, p + name, plen);
	path[plen] = 0;
	return rec_on_mmap(r, (int)u32_at(p, 8), u64_at(p, n - 16), u64_at(p, 16),
			   u64_at(p, 24), u64_at(p, 32), bid ? 0 : u32_at(p, 40),
			   bid ? 0 : u32_at(p, 44), bid ? 0 : u64_at(p, 48),
			   bid ? 0 : u64_at(p, 56), bid, bidlen, path);
}

static int rec_comm(struct rec *r, const unsigned char *p, size_t n, size_t trailer)
{
	struct perf_event_header h;
	char comm[64];
	size_t clen;

	memcpy(&h, p, sizeof(h));
	if (n < 16 + trailer)
		return 0;
	clen = n - trailer - 16;
	if (clen >= sizeof(comm))
		clen = sizeof(comm) - 1;
	memcpy(comm, p + 16, clen);
	comm[clen] = 0;
	return rec_on_comm(r, (int)u32_at(p, 8), (int)u32_at(p, 12), u64_at(p, n - 16),
			   !!(h.misc & PERF_RECORD_MISC_COMM_EXEC), comm);
}

/*
 * A sample of record's is read by the one parser (lib/perf/sample.h)
 * inline, for the sample_type of the call graph mode (rec.h): each mode's
 * fields cost what reading them by hand would. REC_SAMPLE_TYPE's (id, ip,
 * pid and tid, time), then with -g its call path (nr, then nr addresses:
 * at most r->max_stack of them user space, which rec-perf.c keeps within
 * PERF_MAX_STACK_DEPTH, and a few context markers) and for the leaf patch
 * (rec-leaf.c) the user registers of REC_LEAF_MASK and the top of the
 * stack, as dwarf's; with --call-graph
 * dwarf its user registers (abi, then REC_UW_REGS values when abi is not
 * 0) and its stack copy (size, size bytes, then the bytes the kernel
 * filled). Records are queued at 8-byte offsets of a malloc()ed block,
 * aligned as the kernel aligns them in the ring.
 */
static const struct hwp_sample_desc rec_plain;
static const struct hwp_sample_desc rec_dwarf = {
	.sample_type = REC_SAMPLE_DWARF,
	.nregs_user = REC_UW_REGS,
};
static const struct hwp_sample_desc rec_leaf = {
	.sample_type = REC_SAMPLE_LEAF,
	.nregs_user = REC_LEAF_REGS,
};
_Static_assert(__builtin_popcountll(REC_UW_MASK) == REC_UW_REGS,
	       "REC_UW_REGS counts the registers of REC_UW_MASK");
_Static_assert(__builtin_popcountll(REC_LEAF_MASK) == REC_LEAF_REGS,
	       "REC_LEAF_REGS counts the registers of REC_LEAF_MASK");

/* A sample's leading fields (REC_SAMPLE_TYPE's, which a REC_DROPPED
 * marker keeps too): -EINVAL when the record is too short for them. */
static inline __attribute__((always_inline)) int
rec_parse_head(const struct perf_event_header *h, struct hwp_sample *s)
{
	return hwp_sample_parse_as(h, REC_SAMPLE_TYPE, &rec_plain, s);
}

#define REC_SAMPLE_HEAD \
	(sizeof(struct perf_event_header) + 8 * (size_t)__builtin_popcountll(REC_SAMPLE_TYPE))
_Static_assert(REC_SAMPLE_TYPE == (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME),
	       "REC_SAMPLE_HEAD: 8 bytes for each field of REC_SAMPLE_TYPE");

/* The -e index of a sample's id (rec_ev_of()), the last one remembered:
 * an id never changes its event. */
static uint32_t sample_ev(struct rec *r, uint64_t id)
{
	if (!r->id_known || r->last_id != id) {
		uint32_t ev = rec_ev_of(r, id);

		if (ev == UINT32_MAX)
			return ev;
		r->last_id = id;
		r->last_ev = ev;
		r->id_known = 1;
	}
	return r->last_ev;
}

/*
 * A sample of sample_type type, counted for its event. One whose call
 * path does not fit in it (a record shorter than its chain's nr,
 * registers or stack copy say; the kernel writes none) is counted without
 * its path. Inline for each mode's type (sample()).
 */
static inline __attribute__((always_inline)) int sample_as(struct rec *r,
							   const struct perf_event_header *h,
							   uint64_t type,
							   const struct hwp_sample_desc *d)
{
	struct rec_sample rs = { 0 };
	struct hwp_sample s;
	uint32_t ev;

	h = __builtin_assume_aligned(h, 8);
	if (!hwp_sample_parse_as(h, type, d, &s)) {
		if (type & PERF_SAMPLE_CALLCHAIN) {
			rs.chain = s.chain;
			rs.nchain = (size_t)s.nchain;
		}
		if ((type & PERF_SAMPLE_CALLCHAIN) && (type & PERF_SAMPLE_REGS_USER)) {
			/* -g's leaf patch: 64-bit registers and a stack copy,
			 * else the chain as the kernel gave it */
			if (s.regs_user_abi == PERF_SAMPLE_REGS_ABI_64 && s.regs_user &&
			    s.stack) {
				rs.leaf_regs = s.regs_user;
				rs.stack = s.stack;
				rs.stack_size = s.stack_dyn_size;
			}
		} else if ((type & PERF_SAMPLE_REGS_USER) && s.regs_user) {
			/* without user registers (a sample in a kernel
			 * thread) a dwarf sample is counted as a path cut
			 * short */
			rs.regs = s.regs_user;
			rs.stack = s.stack;
			rs.stack_size = s.stack_dyn_size;
		}
	} else if ((type & PERF_SAMPLE_CALLCHAIN) && (type & PERF_SAMPLE_REGS_USER) &&
		   !hwp_sample_parse_as(h, REC_SAMPLE_FP, &rec_plain, &s)) {
		/* a leaf patch's fields that do not fit: the chain alone */
		rs.chain = s.chain;
		rs.nchain = (size_t)s.nchain;
	} else if (rec_parse_head(h, &s)) {
		return 0;
	}
	ev = sample_ev(r, s.id);
	if (ev == UINT32_MAX)
		return 0;
	r->d.events[r->ev[ev].hd].samples++;
	rs.pc = s.ip;
	rs.time = s.time;
	return rec_on_sample(r, ev, (int)s.pid, (int)s.tid, &rs);
}

static int sample(struct rec *r, const struct perf_event_header *h)
{
	switch (r->callgraph) {
	case HD_CG_FP:
		if (r->leaf)
			return sample_as(r, h, REC_SAMPLE_LEAF, &rec_leaf);
		return sample_as(r, h, REC_SAMPLE_FP, &rec_plain);
	case HD_CG_DWARF:
		return sample_as(r, h, REC_SAMPLE_DWARF, &rec_dwarf);
	default:
		return sample_as(r, h, REC_SAMPLE_TYPE, &rec_plain);
	}
}

/* One whole record (copied out of its ring), in time order. */
static int record(struct rec *r, const unsigned char *p, size_t n)
{
	const struct perf_event_header *h = (const void *)p;
	struct hwp_sample s;
	uint32_t ev;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return sample(r, h);
	case PERF_RECORD_MMAP2:
		return rec_mmap2(r, p, n, hwp_sample_trailer(REC_SAMPLE_TYPE, 1));
	case PERF_RECORD_COMM:
		return rec_comm(r, p, n, hwp_sample_trailer(REC_SAMPLE_TYPE, 1));
	case PERF_RECORD_FORK:
		if (n < 32)
			return 0;
		return rec_on_fork(r, (int)u32_at(p, 8), (int)u32_at(p, 12),
				   (int)u32_at(p, 16), (int)u32_at(p, 20), u64_at(p, 24));
	case PERF_RECORD_EXIT:
		if (n < 32)
			return 0;
		return rec_on_exit(r, (int)u32_at(p, 8), (int)u32_at(p, 16), u64_at(p, 24));
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		rec_lost(r, h);
		return 0;
	case REC_DROPPED: /* a sample the reader could not keep */
		if (rec_parse_head(h, &s) || (ev = sample_ev(r, s.id)) == UINT32_MAX)
			return 0;
		r->d.events[r->ev[ev].hd].lost = hwp_add_sat(r->d.events[r->ev[ev].hd].lost,
							     1);
		r->dropped = hwp_add_sat(r->dropped, 1);
		return 0;
	case PERF_RECORD_THROTTLE:
		ev = rec_event(r, h);
		if (ev != UINT32_MAX)
			r->d.events[r->ev[ev].hd].throttled++;
		return 0;
	}
	return 0;
}

/* The time of a record: every one carries it (sample_id_all). */
static uint64_t rec_time(const struct perf_event_header *h)
{
	struct hwp_sample_id id;

	struct hwp_sample s;

	if (h->type == PERF_RECORD_SAMPLE || h->type == REC_DROPPED)
		return rec_parse_head(h, &s) ? 0 : s.time;
	return hwp_sample_id(h, REC_SAMPLE_TYPE, 1, &id) || !id.has_time ? 0 : id.time;
}

/*
 * Bytes of a --call-graph dwarf sample worth keeping: the kernel copies
 * SIZE bytes of stack but fills only dyn_size of them (the stack is often
 * shallower), so the rest is left out of the queue: the record keeps its
 * layout with dyn_size as its size (sample() reads it so), and a burst
 * costs a fraction of the copying. 0: keep it whole.
 */
static size_t dwarf_keep(const struct rec *r, const struct perf_event_header *h,
			 size_t *stack_at, uint64_t *dyn)
{
	struct hwp_sample s;

	if (r->callgraph != HD_CG_DWARF || h->type != PERF_RECORD_SAMPLE ||
	    hwp_sample_parse_as(__builtin_assume_aligned(h, 8), REC_SAMPLE_DWARF, &rec_dwarf,
				&s) ||
	    !s.regs_user || !s.stack || s.stack_dyn_size >= s.stack_size)
		return 0;
	/* the copy is the last field of REC_SAMPLE_DWARF's */
	*dyn = s.stack_dyn_size;
	*stack_at = (size_t)(s.stack - (const unsigned char *)h) - 8;
	return *stack_at + 8 + (size_t)*dyn + 8;
}

/* A record as it is kept: its bytes (a dwarf sample without the part of
 * its stack copy the kernel did not fill). */
struct kept {
	size_t n, stack_at;
	uint64_t dyn;
	int trim;
};

static inline struct kept kept_size(const struct rec *r, const struct perf_event_header *h)
{
	struct kept k = { h->size, 0, 0, 0 };
	size_t keep;

	if (r->callgraph != HD_CG_DWARF)
		return k;
	keep = dwarf_keep(r, h, &k.stack_at, &k.dyn);
	if (keep) {
		k.n = keep;
		k.trim = 1;
	}
	return k;
}

static inline void kept_copy(unsigned char *q, const struct perf_event_header *h,
			     const struct kept *k)
{
	const unsigned char *p = (const void *)h;

	if (k->trim) { /* header and registers, dyn_size, the stack, dyn_size */
		struct perf_event_header nh = *h;

		nh.size = (uint16_t)k->n;
		memcpy(q, &nh, sizeof(nh));
		memcpy(q + sizeof(nh), p + sizeof(nh), k->stack_at - sizeof(nh));
		memcpy(q + k->stack_at, &k->dyn, 8);
		memcpy(q + k->stack_at + 8, p + k->stack_at + 8, (size_t)k->dyn);
		memcpy(q + k->stack_at + 8 + k->dyn, &k->dyn, 8);
	} else {
		memcpy(q, p, k->n);
	}
}

static int queue(struct rec *r, const struct perf_event_header *h)
{
	struct kept k = kept_size(r, h);
	size_t n = k.n, need = (n + 7) & ~(size_t)7;
	uint64_t t = rec_time(h);

	if (r->qlen + need > r->qcap) {
		size_t c = r->qcap ? 2 * r->qcap : 1 << 20;
		void *np;

		while (c < r->qlen + need)
			c *= 2;
		np = realloc(r->q, c);
		if (!np)
			return -1;
		r->q = np;
		r->qcap = c;
	}
	if (r->nqe == r->capqe) {
		size_t c = r->capqe ? 2 * r->capqe : 4096;
		void *np = realloc(r->qe, c * sizeof(*r->qe));

		if (!np)
			return -1;
		r->qe = np;
		r->capqe = c;
	}
	kept_copy(r->q + r->qlen, h, &k);
	r->qe[r->nqe++] = (struct rec_qent){ t, r->qlen };
	r->qlen += need;
	if (t > r->round_max)
		r->round_max = t;
	return 0;
}

static int cmp_qent(const void *a, const void *b)
{
	const struct rec_qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* ring order */
}

/* Merges the ascending runs x[0, m) and x[m, n) through tmp (room for m). */
static void merge_runs(struct rec_qent *x, size_t m, size_t n, struct rec_qent *tmp)
{
	size_t i = 0, j = m, o = 0;

	memcpy(tmp, x, m * sizeof(*x));
	while (i < m && j < n)
		x[o++] = cmp_qent(&tmp[i], &x[j]) <= 0 ? tmp[i++] : x[j++];
	memcpy(x + o, tmp + i, (m - i) * sizeof(*x)); /* the rest of x is in place */
}

/*
 * The queue in time order. What a round added is a few ascending runs
 * (each ring's records come in time order): they are found and merged
 * pairwise, never sorted whole again; then merged into the sorted rest
 * from the first record of it that is later than the new ones' first
 * (usually none: nothing moves). A long burst keeps many records queued:
 * sorting them all again each round cost milliseconds, during which the
 * rings filled. 0 or -1.
 */
static int sort_queue(struct rec *r)
{
	size_t a = r->nsorted, n = r->nqe, nruns = 1, lo, hi;
	struct rec_qent *x = r->qe, *tmp = NULL;
	size_t *run = NULL;

	if (a >= n)
		return 0;
	for (size_t i = a + 1; i < n; i++)
		nruns += cmp_qent(&x[i - 1], &x[i]) > 0;
	if (nruns > 1) {
		size_t k = 0;

		run = malloc((nruns + 1) * sizeof(*run));
		tmp = malloc((n - a) * sizeof(*tmp));
		if (!run || !tmp)
			goto nomem;
		run[k++] = a;
		for (size_t i = a + 1; i < n; i++)
			if (cmp_qent(&x[i - 1], &x[i]) > 0)
				run[k++] = i;
		run[k] = n;
		/* each pass merges runs 2i and 2i+1: log2(runs) passes */
		while (nruns > 1) {
			size_t m = 0;

			for (k = 0; k + 1 < nruns; k += 2) {
				merge_runs(x + run[k], run[k + 1] - run[k],
					   run[k + 2] - run[k], tmp);
				run[m++] = run[k];
			}
			if (k < nruns)
				run[m++] = run[k];
			run[m] = n;
			nruns = m;
		}
	}
	if (a && cmp_qent(&x[a - 1], &x[a]) > 0) {
		/* the sorted records later than the new first one */
		for (lo = 0, hi = a; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_qent(&x[mid], &x[a]) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		free(tmp);
		tmp = malloc((a - lo) * sizeof(*tmp));
		if (!tmp)
			goto nomem;
		merge_runs(x + lo, a - lo, n - lo, tmp);
	}
	free(tmp);
	free(run);
	r->nsorted = n;
	return 0;
nomem:
	free(tmp);
	free(run);
	return -1;
}

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

/* --call-graph dwarf (the reader thread empties the rings): the time one
 * call may unwind before record looks at its signals and its command
 * again */
#define REC_UNWIND_US 20000

static int rd_yield(const struct rec *r);
static int rd_behind(const struct rec *r);

/*
 * Handles the queued records up to limit in time order, and keeps the
 * rest. A record is written before the event it tells of has effects (an
 * mmap before code runs there), so after one more full pass over the
 * rings, every record older than what the previous pass saw is in.
 * timed: dwarf unwinding stops after REC_UNWIND_US, or once the reader
 * thread reads a burst.
 */
static int flush(struct rec *r, uint64_t limit, int timed)
{
	size_t k, keep = 0, qlen = 0, n0 = r->nqe;
	unsigned char *nq = NULL;
	uint64_t until = timed && r->callgraph == HD_CG_DWARF ? now_us() + REC_UNWIND_US : 0;

	if (sort_queue(r))
		return -1;
	for (k = 0; k < n0 && r->qe[k].time <= limit; k++) {
		const unsigned char *p = r->q + r->qe[k].off;
		struct perf_event_header h;

		/* the rest, older ones first, in the next round */
		if (until && k &&
		    ((r->rd && (k & 3) == 0 && rd_yield(r)) ||
		     ((k & 7) == 0 && now_us() > until)))
			break;
		memcpy(&h, p, sizeof(h));
		if (record(r, p, h.size))
			return -1;
		r->qdead += (h.size + 7u) & ~7u;
	}
	if (k == r->nqe) {
		r->nqe = 0;
		r->nsorted = 0;
		r->qlen = 0;
		r->qdead = 0;
		return 0;
	}
	memmove(r->qe, r->qe + k, (r->nqe - k) * sizeof(*r->qe));
	r->nqe -= k;
	r->nsorted = n0 - k; /* what a drain added meanwhile is not */
	/* the handled records' bytes are given back once they are half the
	 * queue: each byte is copied a bounded number of times, however long
	 * a burst keeps records queued */
	if (r->qdead < r->qlen / 2)
		return 0;
	for (size_t i = 0; i < r->nqe; i++) {
		struct perf_event_header h;

		memcpy(&h, r->q + r->qe[i].off, sizeof(h));
		qlen += (h.size + 7u) & ~7u;
	}
	nq = malloc(qlen ? qlen : 8);
	if (!nq)
		return -1;
	qlen = 0;
	for (size_t i = 0; i < r->nqe; i++) {
		struct perf_event_header h;

		memcpy(&h, r->q + r->qe[i].off, sizeof(h));
		memcpy(nq + qlen, r->q + r->qe[i].off, h.size);
		r->qe[keep++] = (struct rec_qent){ r->qe[i].time, qlen };
		qlen += (h.size + 7u) & ~7u;
	}
	free(r->q);
	r->q = nq;
	r->qcap = qlen ? qlen : 8;
	r->qlen = qlen;
	r->qdead = 0;
	r->nqe = keep;
	return 0;
}

/* --call-graph dwarf, at the end: moves every record of a ring into the
 * time-ordered queue. */
static long ring_drain(struct rec *r, struct rec_ring *rg)
{
	const struct perf_event_header *h;
	long n = 0;

	if (!hwp_ring_begin(&rg->ring))
		return 0;
	while ((h = hwp_ring_next(&rg->ring))) {
		if (queue(r, h)) {
			hwp_ring_end(&rg->ring);
			return -1;
		}
		n++;
	}
	hwp_ring_end(&rg->ring);
	return n;
}

/* Every ring into the queue; the records read, or -1. */
static long drain_all(struct rec *r)
{
	long n = 0;

	for (int c = 0; c < r->nrings; c++) {
		long k;

		if (r->rings[c].fd < 0)
			continue;
		k = ring_drain(r, &r->rings[c]);
		if (k < 0)
			return -1;
		n += k;
	}
	return n;
}

/*
 * Flat and -g: every ring's records handled where they lie, in time order
 * across the rings (each ring's own come in time order: a merge of the
 * rings' first records, a heap ordered by time, then ring). Nothing is
 * copied out, and no record waits for the next pass. What a sample's
 * naming needs is a side-band record the kernel wrote before the sample:
 * its process's fork, exec and comm, the mmap of the code it ran (the
 * kernel writes each before the task goes on). So the pass takes the
 * sample rings' heads first, then the side-band rings' (each CPU's ring
 * 2c + 1, rec-perf.c): whatever was written before a sample that is read
 * is read too, whichever CPU wrote it, with no bound assumed on how late
 * a record lands. A record that comes later with an earlier time than
 * one handled (a sample written a moment late, a side-band record after
 * the heads were read) is handled when it comes: the history keeps every
 * mapping with its time (rec-maps.c), and the chain cache is dropped
 * then (history_changed()). Each ring's space is handed back every
 * REC_GIVE records. The records handled, or -1.
 */
#define REC_GIVE 64

struct rec_front {
	const struct perf_event_header *h; /* the ring's next record, held */
	uint64_t time;
	int c;
	unsigned int since; /* records handled since its space was given back */
};

static inline int front_before(const struct rec_front *a, const struct rec_front *b)
{
	return a->time != b->time ? a->time < b->time : a->c < b->c;
}

static void front_down(struct rec_front *f, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct rec_front t;

		if (l < n && front_before(&f[l], &f[m]))
			m = l;
		if (l + 1 < n && front_before(&f[l + 1], &f[m]))
			m = l + 1;
		if (m == i)
			return;
		t = f[i];
		f[i] = f[m];
		f[m] = t;
		i = m;
	}
}

static long merge_rings(struct rec *r)
{
	struct rec_front *f;
	size_t n = 0;
	long done = 0;
	int ret = 0;

	if (r->nfront < (size_t)r->nrings) {
		f = realloc(r->front, (size_t)r->nrings * sizeof(*f));
		if (!f)
			return -1;
		r->front = f;
		r->nfront = (size_t)r->nrings;
	}
	f = r->front;
	/* the sample rings' heads, then the side-band rings' */
	for (int c = 0; c < r->nrings; c += 2)
		if (r->rings[c].fd >= 0)
			hwp_ring_begin(&r->rings[c].ring);
	for (int c = 1; c < r->nrings; c += 2)
		if (r->rings[c].fd >= 0)
			hwp_ring_begin(&r->rings[c].ring);
	for (int c = 0; c < r->nrings; c++) {
		if (r->rings[c].fd < 0 || r->rings[c].ring.pos == r->rings[c].ring.head)
			continue;
		f[n].h = hwp_ring_next(&r->rings[c].ring);
		if (!f[n].h) {
			hwp_ring_end(&r->rings[c].ring);
			continue;
		}
		f[n].time = rec_time(f[n].h);
		f[n].c = c;
		f[n].since = 0;
		n++;
	}
	for (size_t i = n / 2; i-- > 0;)
		front_down(f, n, i);
	while (n) {
		struct hwp_ring *rg = &r->rings[f[0].c].ring;

		if (!ret && record(r, (const void *)f[0].h, f[0].h->size))
			ret = -1; /* out of memory: the rest is let go */
		done++;
		f[0].h = hwp_ring_next(rg);
		if (!f[0].h) {
			hwp_ring_end(rg);
			f[0] = f[--n];
		} else {
			if (++f[0].since == REC_GIVE) {
				hwp_ring_give_back(rg, f[0].h);
				f[0].since = 0;
			}
			if (n == 1)
				continue; /* alone: no order to keep */
			f[0].time = rec_time(f[0].h);
		}
		front_down(f, n, 0);
	}
	return ret ? -1 : done;
}

/* Records a millisecond the reader thread reads in a burst, at least */
#define REC_BURST 64
/* ... and to read again at once, more than */
#define REC_AGAIN 16

/* ------------------------------------------------------------------ */
/* The reader thread (--call-graph dwarf)                               */

/*
 * A thread that only copies the rings' records out (each dwarf sample
 * without the unfilled part of its stack copy) into a spool file the main
 * thread reads back, orders, keeps the map history from and unwinds with
 * its Dwfl objects, alone: the rings are emptied at the pace the kernel
 * fills them however long unwinding takes. A pass over the rings is one
 * pwritev() of the records where they lie in the rings (the few bytes a
 * trimmed sample changes, and a record that straddles a ring's end, from
 * a small stage of the thread's own), then each ring's space is given
 * back. The spool is an unnamed file (O_TMPFILE) in TMPDIR or /tmp, as
 * perf record writes its file: the pages a burst fills come from the page
 * cache, written whole, where fresh memory of the thread's own would
 * fault each page in and clear it first (that took the thread about as
 * long as the burst itself: bench/README.md, "--call-graph dwarf in a
 * burst"). Where no such file can be made (no O_TMPFILE, no room for
 * twice the spool) it is a memfd. The spool is REC_SPOOL bytes written
 * round (less under a lower RLIMIT_FSIZE): a position p is at p % cap;
 * what the main thread has read back is given back to the file system (a
 * hole punched) as it goes, and the thread leaves in the rings what the
 * spool cannot take without reaching what is not read back yet. The bytes
 * waiting (written and not read back, or queued and not yet handled) are
 * bounded by REC_BURST_BYTES: a sample that would go over is kept as a
 * marker of its leading fields only (REC_DROPPED), counted lost for its
 * event when its turn comes; past REC_HARD_BYTES the thread stops reading
 * and the kernel drops (and counts) what does not fit in the rings. After
 * each full pass over the rings the thread puts a pass marker (REC_PASS):
 * the main thread handles the records older than the latest time the pass
 * before saw, as rec_read_drain() does with the passes it makes itself.
 */
#define REC_HARD_BYTES (REC_BURST_BYTES + (32u << 20))
/* a burst is over when no pass has read one for this long */
#define REC_QUIET_US 20000
#define REC_STAGE    (256u << 10) /* at least a record: 64 KiB */
#define REC_READBACK (1u << 20)
#define REC_PUNCH    (4u << 20)
/* the spool's size: what may wait, and room to write while the main
 * thread reads back and punches (a multiple of REC_PUNCH) */
#define REC_SPOOL ((uint64_t)REC_HARD_BYTES + 2 * REC_PUNCH)
_Static_assert(REC_SPOOL % REC_PUNCH == 0 && REC_SPOOL_MIN >= 3 * REC_PUNCH,
	       "the spool: whole REC_PUNCH, room for a record past two of them");

#define REC_IOV 1024 /* IOV_MAX */

struct rec_reader {
	pthread_t th;
	int fd;		      /* the spool */
	unsigned char *stage; /* the thread's: bytes of records not in a ring */
	size_t staged;
	struct iovec iov[REC_IOV]; /* the thread's: what goes out next, in
				    * the rings and the stage */
	int niov;
	uint64_t cap;		/* the spool's size: position p is at p % cap */
	uint64_t wend;		/* the thread's: the end of what it put out */
	uint64_t freed;		/* atomic: the spool before it is free (read back
				 * and punched by the main thread) */
	int blocked;		/* atomic: the thread left records in a ring
				 * for want of room in the spool */
	uint64_t wpos;		/* the thread's: bytes written to the spool */
	uint64_t published;	/* atomic: bytes the main thread may read */
	uint64_t rpos, punched; /* main: bytes read back, given back */
	unsigned char *back;	/* main: what it reads back into */
	size_t pending;		/* bytes written or staged, not read back (atomic) */
	size_t held;		/* bytes the main queue holds (atomic) */
	int stop;		/* atomic: main asks the thread to end */
	int signalled;		/* atomic: wake[] holds a byte */
	int failed;		/* atomic: the thread's errno (ENOMEM, ENOSPC...) */
	int busy;		/* atomic: its last pass read a burst */
	int cpu;		/* atomic: the CPU it ran its last pass on */
	int started;		/* atomic: it has made its first pass */
	int made_on;		/* the main thread's CPU when it made it */
	int wake[2];		/* thread -> main: records written */
	int quit[2];		/* main -> thread: stop */
	uint64_t safe;		/* main: records up to this time may be handled */
};

/* What goes out next into the spool (one pwritev()), the stage emptied:
 * 0 or -1 (no room left: the thread stops). */
static int rd_write(struct rec_reader *rd)
{
	struct iovec *v = rd->iov;
	int nv = rd->niov;

	while (nv) {
		uint64_t at = rd->wpos % rd->cap, room = rd->cap - at;
		struct iovec whole = { 0 };
		size_t sum = 0;
		ssize_t w;
		int k = 0;

		/* what fits before the spool's end, the piece that crosses
		 * it cut there (put back whole after) */
		while (k < nv && sum + v[k].iov_len <= room)
			sum += v[k++].iov_len;
		if (k < nv && sum < room) {
			whole = v[k];
			v[k++].iov_len = (size_t)(room - sum);
		}
		w = pwritev(rd->fd, v, k, (off_t)at);
		if (whole.iov_base)
			v[k - 1] = whole;
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) { /* the pieces point into rings given back next */
			__atomic_store_n(&rd->failed, w < 0 ? errno : ENOSPC,
					 __ATOMIC_RELEASE);
			rd->niov = 0;
			rd->staged = 0;
			return -1;
		}
		rd->wpos += (uint64_t)w;
		for (; nv && (size_t)w >= v->iov_len; v++, nv--)
			w -= (ssize_t)v->iov_len;
		if (nv) {
			v->iov_base = (unsigned char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	rd->niov = 0;
	rd->staged = 0;
	return 0;
}

/* What the spool holds made the main thread's to read: 0 or -1 */
static int rd_publish(struct rec_reader *rd)
{
	if (rd_write(rd))
		return -1;
	__atomic_store_n(&rd->published, rd->wpos, __ATOMIC_RELEASE);
	return 0;
}

/* Room for nv more pieces, nstage bytes of them staged: 0 or -1 */
static int rd_room(struct rec_reader *rd, int nv, size_t nstage)
{
	if (rd->niov + nv > REC_IOV || rd->staged + nstage > REC_STAGE)
		return rd_write(rd);
	return 0;
}

/* n bytes at p out next, in place (p stays valid until rd_write()) */
static void rd_add(struct rec_reader *rd, const void *p, size_t n)
{
	struct iovec *l = rd->niov ? &rd->iov[rd->niov - 1] : NULL;

	if (l && (const unsigned char *)l->iov_base + l->iov_len == (const unsigned char *)p)
		l->iov_len += n; /* the next bytes of the ring or the stage */
	else
		rd->iov[rd->niov++] = (struct iovec){ (void *)p, n };
	rd->wend += n;
	__atomic_add_fetch(&rd->pending, n, __ATOMIC_RELAXED);
}

/* n bytes of the stage out next */
static unsigned char *rd_stage(struct rec_reader *rd, size_t n)
{
	unsigned char *q = rd->stage + rd->staged;

	rd->staged += n;
	rd_add(rd, q, n);
	return q;
}

static size_t rd_waiting(const struct rec_reader *rd)
{
	return __atomic_load_n(&rd->pending, __ATOMIC_RELAXED) +
	       __atomic_load_n(&rd->held, __ATOMIC_RELAXED);
}

/* What may wait before the main thread stops waiting for a burst to end:
 * REC_BURST_BYTES, or what a smaller spool holds */
static size_t rd_bound(const struct rec_reader *rd)
{
	uint64_t room = rd->cap - 2 * REC_PUNCH;

	return room < REC_BURST_BYTES ? (size_t)room : REC_BURST_BYTES;
}

/*
 * Record h out as it is kept (kept_copy()'s bytes, padded to 8): from
 * the ring in place, with the few bytes a trimmed dwarf sample changes
 * (its size, the stack copy's size, dyn_size after the filled part)
 * staged; one that straddled the end of the ring (hwp_ring_next()'s copy,
 * gone at its next call) through the stage whole. 0 or -1.
 */
static int rd_record(struct rec_reader *rd, const struct perf_event_header *h,
		     const struct kept *k, int in_place)
{
	size_t need = (k->n + 7) & ~(size_t)7;
	const unsigned char *p = (const void *)h;
	struct perf_event_header nh = *h;
	unsigned char *q;

	if (!in_place) {
		if (rd_room(rd, 1, need))
			return -1;
		q = rd_stage(rd, need);
		memset(q + k->n, 0, need - k->n);
		kept_copy(q, h, k);
		return 0;
	}
	if (!k->trim) {
		if (rd_room(rd, 1, 0))
			return -1;
		rd_add(rd, h, h->size);
		return 0;
	}
	if (rd_room(rd, 5, 32))
		return -1;
	nh.size = (uint16_t)k->n;
	memcpy(rd_stage(rd, sizeof(nh)), &nh, sizeof(nh));
	rd_add(rd, p + sizeof(nh), k->stack_at - sizeof(nh));
	memcpy(rd_stage(rd, 8), &k->dyn, 8);
	rd_add(rd, p + k->stack_at + 8, (size_t)k->dyn);
	q = rd_stage(rd, 8 + (need - k->n));
	memset(q, 0, 8 + (need - k->n));
	memcpy(q, &k->dyn, 8);
	return 0;
}

/* Room in the spool for a record and a pass marker after it: what is
 * put out never reaches what the main thread has not read back and
 * punched yet */
static int rd_fits(struct rec_reader *rd)
{
	return rd->wend + 2 * 65536 <= __atomic_load_n(&rd->freed, __ATOMIC_ACQUIRE) + rd->cap;
}

/* One ring's records out: their number, or -1; *began: the ring's space
 * is to be given back (hwp_ring_end()) once what goes out in place is
 * written; *whole: 0 when records were left in it (past the hard bound,
 * or no room in the spool). */
static long rd_ring(struct rec *r, struct rec_reader *rd, struct rec_ring *rg, int *began,
		    int *whole, uint64_t span[2])
{
	const struct perf_event_header *h;
	long n = 0;

	*whole = 1;
	if (!(*began = hwp_ring_begin(&rg->ring)))
		return 0;
	for (;;) {
		struct kept k;

		if (rd_waiting(rd) >= REC_HARD_BYTES || !rd_fits(rd)) {
			*whole = rg->ring.pos == rg->ring.head;
			break;
		}
		if (!(h = hwp_ring_next(&rg->ring)))
			break;
		if (h->type == PERF_RECORD_SAMPLE) { /* the samples' times */
			uint64_t st = rec_time(h);

			if (st && (!span[0] || st < span[0]))
				span[0] = st;
			if (st > span[1])
				span[1] = st;
		}
		k = kept_size(r, h);
		if (h->type == PERF_RECORD_SAMPLE && h->size >= REC_SAMPLE_HEAD &&
		    rd_waiting(rd) + k.n > REC_BURST_BYTES) {
			struct perf_event_header m = { REC_DROPPED, 0, REC_SAMPLE_HEAD };
			unsigned char *q;

			if (rd_room(rd, 1, REC_SAMPLE_HEAD))
				return -1;
			q = rd_stage(rd, REC_SAMPLE_HEAD);
			memcpy(q, &m, sizeof(m));
			memcpy(q + sizeof(m), (const unsigned char *)h + sizeof(m),
			       REC_SAMPLE_HEAD - sizeof(m));
		} else if (rd_record(rd, h, &k,
				     (const void *)h != (const void *)rg->ring.copy)) {
			return -1;
		}
		n++;
	}
	return n;
}

/*
 * Where the reader runs in a burst. A reader that shares its CPU with the
 * command it samples takes turns with it, and a ring fills while the
 * command runs: the scheduler wakes a sleeping thread where it last ran
 * or where its waker runs, does not always look for an idle CPU, and a
 * woken thread may wait there for the end of the command's slice, up to
 * a tick (bench/README.md, "--call-graph dwarf in a burst"). So while a
 * burst lasts, a reader on the CPU whose sample ring filled most (the
 * command's) takes that CPU out of its mask, when it is allowed another;
 * the mask it started with comes back when the burst is over.
 * It starts off the CPU the main thread made it on, where the command
 * is likely to run once the main thread lets it go (that CPU is
 * back in the mask at the first pass out of a burst: a thread stays
 * where it ran until the scheduler moves it).
 */
struct rd_place {
	cpu_set_t allowed; /* the thread's mask at its start */
	int ok;		   /* allowed was read and has more than one CPU */
	int off;	   /* the CPU taken out, or -1 */
};

static void rd_place_init(struct rd_place *pl, int cpu)
{
	cpu_set_t m;

	pl->off = -1;
	pl->ok = !pthread_getaffinity_np(pthread_self(), sizeof(pl->allowed), &pl->allowed) &&
		 CPU_COUNT(&pl->allowed) > 1;
	if (!pl->ok || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &pl->allowed))
		return;
	m = pl->allowed;
	CPU_CLR(cpu, &m);
	if (!pthread_setaffinity_np(pthread_self(), sizeof(m), &m))
		pl->off = cpu;
}

static void rd_place(struct rd_place *pl, int busy, int cpu)
{
	cpu_set_t m;

	if (!pl->ok)
		return;
	if (!busy) {
		if (pl->off >= 0 &&
		    !pthread_setaffinity_np(pthread_self(), sizeof(pl->allowed), &pl->allowed))
			pl->off = -1;
		return;
	}
	if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == pl->off || !CPU_ISSET(cpu, &pl->allowed) ||
	    sched_getcpu() != cpu)
		return;
	m = pl->allowed;
	CPU_CLR(cpu, &m);
	if (!pthread_setaffinity_np(pthread_self(), sizeof(m), &m))
		pl->off = cpu;
}

static void *rd_main(void *arg)
{
	struct rec *r = arg;
	struct rec_reader *rd = r->rd;
	struct pollfd *pf = calloc((size_t)r->nrings + 1, sizeof(*pf));
	int *began = calloc((size_t)r->nrings + 1, sizeof(*began));
	uint64_t t, burst_at = 0, span_at = 0;
	long span_n = 0;
	int busy = 0, was_busy = 0;
	long last = 0;
	nfds_t npf = 0;
	struct rd_place pl;

	if (!pf || !began) {
		__atomic_store_n(&rd->started, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&rd->failed, ENOMEM, __ATOMIC_RELEASE);
		free(pf);
		free(began);
		return NULL;
	}
	rd_place_init(&pl, rd->made_on);
	/* the command's start is taken as a burst: a program's loading and
	 * first pages often are one, and a thread asleep since record began
	 * is the one woken late */
	burst_at = now_us();
	pf[npf++] = (struct pollfd){ .fd = rd->quit[0], .events = POLLIN };
	for (int c = 0; c < r->nrings; c++)
		if (r->rings[c].fd >= 0)
			pf[npf++] = (struct pollfd){ .fd = r->rings[c].fd, .events = POLLIN };
	while (!__atomic_load_n(&rd->stop, __ATOMIC_ACQUIRE)) {
		int whole = 1, w = 1, hot = -1;
		long n = 0, most = 0;
		uint64_t span[2] = { 0, 0 }; /* the pass's samples: first, last time */

		for (int c = 0; c < r->nrings; c++) {
			long k = r->rings[c].fd < 0 ?
					 (began[c] = 0) :
					 rd_ring(r, rd, &r->rings[c], &began[c], &w, span);

			if (k < 0) {
				n = -1;
				break;
			}
			n += k;
			whole = whole && (r->rings[c].fd < 0 || w);
			if (!(c & 1) && k > most) { /* a sample ring: CPU c / 2's */
				most = k;
				hot = c / 2;
			}
		}
		__atomic_store_n(&rd->blocked, !whole, __ATOMIC_RELAXED);
		/* one write for the pass (the marker after it: only when it
		 * read every ring to its head), then the rings' space given
		 * back */
		if (n >= 0 && whole && (n || last)) {
			struct perf_event_header m = { REC_PASS, 0, sizeof(m) };

			if (rd_room(rd, 1, sizeof(m)))
				n = -1;
			else
				memcpy(rd_stage(rd, sizeof(m)), &m, sizeof(m));
		}
		if (n >= 0 && rd_publish(rd))
			n = -1;
		for (int c = 0; c < r->nrings; c++)
			if (began[c])
				hwp_ring_end(&r->rings[c].ring);
		if (n < 0)
			break;
		t = now_us();
		/* a burst: samples come at more than REC_BURST a millisecond,
		 * by their own times (a pass woken at a ring's watermark reads
		 * half a ring however slowly it filled), or the passes of a
		 * millisecond read more (a reader that keeps up reads a burst
		 * in small passes) */
		span_n += n > 0 ? n : 0;
		if ((n > REC_BURST &&
		     (uint64_t)n * 1000000 > REC_BURST * (span[1] - span[0])) ||
		    (t - span_at >= 1000 &&
		     (uint64_t)span_n * 1000 > REC_BURST * (t - span_at)))
			burst_at = t;
		if (t - span_at >= 1000) {
			span_at = t;
			span_n = 0;
		}
		busy = burst_at && t - burst_at < REC_QUIET_US;
		__atomic_store_n(&rd->busy, busy, __ATOMIC_RELAXED);
		rd_place(&pl, busy, hot < 0 ? -1 : r->cpus[hot]);
		__atomic_store_n(&rd->cpu, sched_getcpu(), __ATOMIC_RELAXED);
		__atomic_store_n(&rd->started, 1, __ATOMIC_RELEASE);
		/* the main thread is woken once a burst is over (or the
		 * records wait near their bound): while it lasts the CPUs
		 * are the reader's and the command's */
		if ((n || last || was_busy || !whole) &&
		    (!busy || !whole || rd_waiting(rd) >= rd_bound(rd) / 2) &&
		    !__atomic_exchange_n(&rd->signalled, 1, __ATOMIC_ACQ_REL) &&
		    write(rd->wake[1], "", 1) < 0)
			__atomic_store_n(&rd->signalled, 0, __ATOMIC_RELEASE);
		last = n;
		was_busy = busy;
		/* a pass that read more than a few records is followed by
		 * another at once (the rings are filling: perf record reads
		 * again while a pass finds anything); else the rings are read
		 * when one is half full (the watermark wakes poll). Each pass
		 * is one write. */
		if (n > REC_AGAIN)
			continue;
		/* in a burst the thread does not sleep: it waits for a ring
		 * an eighth full (at most a millisecond), giving its CPU to
		 * whichever other thread wants it (sched_yield()). Asleep, it
		 * would be woken on the CPU it last ran on or on its waker's
		 * (the command's), and an idle CPU of a VM may not run again
		 * for milliseconds: either way the rings fill meanwhile
		 * (bench/README.md, "--call-graph dwarf in a burst"). A burst
		 * costs its CPU until REC_QUIET_US after it. Not where the
		 * thread may run on one CPU only: there it would take turns
		 * with the command and the unwinding, where asleep it is
		 * woken ahead of them. */
		if (busy && whole && pl.ok) {
			uint64_t until = now_us() + 1000;

			while (!rd_behind(r) && now_us() < until &&
			       !__atomic_load_n(&rd->stop, __ATOMIC_ACQUIRE))
				sched_yield();
			continue;
		}
		/* records left for want of room: the main thread says when
		 * it has made some (a byte on quit) */
		if (poll(pf, npf, busy || !whole ? 1 : 100) > 0 && (pf[0].revents & POLLIN)) {
			char b[64];

			while (read(rd->quit[0], b, sizeof(b)) > 0)
				;
		}
	}
	__atomic_store_n(&rd->started, 1, __ATOMIC_RELEASE); /* a first pass that failed */
	if (!__atomic_load_n(&rd->failed, __ATOMIC_ACQUIRE))
		(void)rd_publish(rd);
	/* the main thread may be waiting for what was handed over last */
	if (!__atomic_exchange_n(&rd->signalled, 1, __ATOMIC_ACQ_REL) &&
	    write(rd->wake[1], "", 1) < 0)
		__atomic_store_n(&rd->signalled, 0, __ATOMIC_RELEASE);
	free(pf);
	free(began);
	return NULL;
}

/* The spool: an unnamed file in TMPDIR or /tmp with room for what may
 * wait, else a memfd: its fd and its size in *cap (REC_SPOOL, or less
 * under a lower RLIMIT_FSIZE), or -errno (-EFBIG: a limit under
 * REC_SPOOL_MIN) */
static int rd_spool(uint64_t *cap)
{
	const char *dir = secure_getenv("TMPDIR");
	struct statvfs sv;
	struct rlimit rl;
	int fd;

	*cap = REC_SPOOL;
	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < *cap) {
		*cap = rl.rlim_cur & ~(uint64_t)(REC_PUNCH - 1);
		if (*cap < REC_SPOOL_MIN)
			return -EFBIG;
	}
	if (!dir || dir[0] != '/')
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0 && (fstatvfs(fd, &sv) || (uint64_t)sv.f_bavail * sv.f_frsize < 2 * *cap)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		fd = memfd_create("hwprof-spool", MFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void rd_free(struct rec_reader *rd)
{
	for (int i = 0; i < 2; i++) {
		if (rd->wake[i] >= 0)
			close(rd->wake[i]);
		if (rd->quit[i] >= 0)
			close(rd->quit[i]);
	}
	if (rd->fd >= 0)
		close(rd->fd);
	free(rd->stage);
	free(rd->back);
	free(rd);
}

int rec_reader_start(struct rec *r)
{
	struct rec_reader *rd;
	sigset_t all, old;
	int ret;

	if (r->callgraph != HD_CG_DWARF || r->rd)
		return 0;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->fd = rd->wake[0] = rd->wake[1] = rd->quit[0] = rd->quit[1] = rd->cpu = -1;
	if ((rd->fd = rd_spool(&rd->cap)) < 0) {
		ret = rd->fd;
		rd->fd = -1;
		rd_free(rd);
		return ret;
	}
	/* the stage is written now, not page by page in a burst */
	rd->stage = malloc(REC_STAGE);
	rd->back = malloc(REC_READBACK);
	if (!rd->stage || !rd->back) {
		rd_free(rd);
		return -ENOMEM;
	}
	memset(rd->stage, 0, REC_STAGE);
	if (pipe2(rd->wake, O_CLOEXEC | O_NONBLOCK) ||
	    pipe2(rd->quit, O_CLOEXEC | O_NONBLOCK)) {
		ret = -errno;
		rd_free(rd);
		return ret;
	}
	r->rd = rd;
	/* signals go to the main thread (rec-launch.c's handlers) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rd->made_on = sched_getcpu();
	ret = -pthread_create(&rd->th, NULL, rd_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		r->rd = NULL;
		rd_free(rd);
		return ret;
	}
	/* the command runs once the thread reads, on its own CPU (a thread
	 * not yet run, or moved to an idle CPU, may not run for a few
	 * milliseconds: a burst at the command's start would find no
	 * reader); a second at most */
	for (int i = 0; i < 10000 && !__atomic_load_n(&rd->started, __ATOMIC_ACQUIRE); i++) {
		struct timespec ts = { 0, 100000 };

		nanosleep(&ts, NULL);
	}
	return 0;
}

int rec_reader_fd(const struct rec *r)
{
	return r->rd ? r->rd->wake[0] : -1;
}

/* What the thread wrote, read back into the time-ordered queue: the
 * records taken, or -1. Each pass marker makes what the pass before saw
 * safe. */
/* What was read back, in whole REC_PUNCH, given back to the file system
 * (a hole punched, once: a file system without holes keeps it, and the
 * thread writes over it in its next round of the spool), then the
 * thread's to write again: never a hole over what it wrote since. */
static void rd_give_back(struct rec_reader *rd)
{
	uint64_t to = rd->rpos & ~(uint64_t)(REC_PUNCH - 1);

	if (rd->punched >= to)
		return;
	for (; rd->punched < to; rd->punched += REC_PUNCH)
		(void)fallocate(rd->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)(rd->punched % rd->cap), REC_PUNCH);
	__atomic_store_n(&rd->freed, rd->punched, __ATOMIC_RELEASE);
}

static long rd_pull(struct rec *r)
{
	struct rec_reader *rd = r->rd;
	uint64_t end;
	char buf[64];
	long n = 0;

	while (read(rd->wake[0], buf, sizeof(buf)) > 0)
		;
	__atomic_store_n(&rd->signalled, 0, __ATOMIC_RELEASE);
	end = __atomic_load_n(&rd->published, __ATOMIC_ACQUIRE);
	while (rd->rpos < end) {
		size_t len = end - rd->rpos > REC_READBACK ? REC_READBACK : end - rd->rpos;
		uint64_t from = rd->rpos % rd->cap;
		size_t first = rd->cap - from < len ? (size_t)(rd->cap - from) : len;
		ssize_t got = pread(rd->fd, rd->back, first, (off_t)from), more;
		size_t at = 0;

		if (got == (ssize_t)first && first < len) { /* the rest from the start */
			more = pread(rd->fd, rd->back + first, len - first, 0);
			got = more < 0 ? more : got + more;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r->read_errno = got < 0 ? errno : EIO;
			return -1;
		}
		/* whole records: one cut by the end of what was read comes
		 * again with the next read */
		while ((size_t)got - at >= sizeof(struct perf_event_header)) {
			struct perf_event_header h;
			size_t sz;

			memcpy(&h, rd->back + at, sizeof(h));
			sz = (h.size + 7u) & ~7u;
			if (sz < sizeof(h)) { /* the thread writes none such */
				r->read_errno = EIO;
				return -1;
			}
			if (sz > (size_t)got - at)
				break;
			if (h.type == REC_PASS) {
				rd->safe = r->prev_max;
				r->prev_max = r->round_max;
			} else if (queue(r, (const void *)(rd->back + at))) {
				return -1;
			} else {
				n++;
			}
			at += sz;
		}
		if (!at) { /* not one whole record: the spool is not as written */
			r->read_errno = EIO;
			return -1;
		}
		rd->rpos += at;
		__atomic_sub_fetch(&rd->pending, at, __ATOMIC_RELEASE);
		__atomic_store_n(&rd->held, r->qlen - r->qdead, __ATOMIC_RELAXED);
		rd_give_back(rd);
	}
	/* a thread waiting for room hears of it now, not at its next poll */
	if (__atomic_load_n(&rd->blocked, __ATOMIC_RELAXED))
		(void)!write(rd->quit[1], "", 1);
	if ((r->read_errno = __atomic_load_n(&rd->failed, __ATOMIC_ACQUIRE)))
		return -1;
	return n;
}

const char *rec_read_why(const struct rec *r)
{
	static char why[128];

	if (!r->read_errno || r->read_errno == ENOMEM)
		return "out of memory";
	snprintf(why, sizeof(why), "--call-graph dwarf: cannot keep the samples read: %s",
		 strerror(r->read_errno));
	return why;
}

/* Ends the thread; what it wrote is queued: the records, or -1. */
long rec_reader_stop(struct rec *r)
{
	struct rec_reader *rd = r->rd;
	long n;

	if (!rd)
		return 0;
	__atomic_store_n(&rd->stop, 1, __ATOMIC_RELEASE);
	/* a full pipe: the thread sees stop within its poll's 100 ms */
	(void)!write(rd->quit[1], "", 1);
	pthread_join(rd->th, NULL);
	n = rd_pull(r);
	r->prev_max = r->round_max;
	rd_free(rd);
	r->rd = NULL;
	return n;
}

/* A ring an eighth full: the reader thread is behind (the kernel's
 * head and the reader's tail, read from the ring's page). */
static int rd_behind(const struct rec *r)
{
	for (int c = 0; c < r->nrings; c++) {
		const struct hwp_ring *g = &r->rings[c].ring;

		if (r->rings[c].fd >= 0 &&
		    __atomic_load_n(&g->page->data_head, __ATOMIC_RELAXED) -
				    __atomic_load_n(&g->page->data_tail, __ATOMIC_RELAXED) >
			    (g->mask + 1) / 8)
			return 1;
	}
	return 0;
}

/* The reader thread reads a burst, or is behind: unwinding waits (on a
 * machine with fewer free CPUs than threads it would take the reader's),
 * unless the records waiting near their bound and this thread is not on
 * the reader's CPU (unwinding there would only slow the reader down). */
static int rd_yield(const struct rec *r)
{
	int cpu = __atomic_load_n(&r->rd->cpu, __ATOMIC_RELAXED);

	return !__atomic_load_n(&r->rd->blocked, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&r->rd->failed, __ATOMIC_ACQUIRE) &&
	       (__atomic_load_n(&r->rd->busy, __ATOMIC_RELAXED) || rd_behind(r)) &&
	       (rd_waiting(r->rd) < rd_bound(r->rd) / 2 ||
		(cpu >= 0 && sched_getcpu() == cpu));
}

int rec_read_busy(const struct rec *r)
{
	return r->rd && r->nqe && r->qe[0].time <= r->rd->safe && !rd_yield(r);
}

long rec_read_drain(struct rec *r, int all)
{
	long n, m = 0;

	if (r->rd && !all) {
		/* in a burst even taking the records over waits (what woke
		 * this thread is taken: the reader wakes it again) */
		if (rd_yield(r)) {
			char b[64];

			while (read(r->rd->wake[0], b, sizeof(b)) > 0)
				;
			__atomic_store_n(&r->rd->signalled, 0, __ATOMIC_RELEASE);
			return 0;
		}
		n = rd_pull(r);
		if (n < 0 || (!rd_yield(r) && flush(r, r->rd->safe, 1)))
			return -1;
		__atomic_store_n(&r->rd->held, r->qlen - r->qdead, __ATOMIC_RELAXED);
		return n;
	}
	if (r->rd && (m = rec_reader_stop(r)) < 0)
		return -1;
	n = r->callgraph == HD_CG_DWARF ? drain_all(r) : merge_rings(r);
	if (n < 0)
		return -1;
	n += m;
	r->corrupt = 0;
	for (int c = 0; c < r->nrings; c++)
		r->corrupt += r->rings[c].ring.stats.corrupt;
	if (flush(r, all ? UINT64_MAX : r->prev_max, !all))
		return -1;
	r->prev_max = r->round_max;
	return n;
}

/*
 * The overflows the kernel generated for event e: its count over every
 * CPU (an inherited event's count includes its children's, exited ones
 * too) divided by the period (exact at period 1, a bound above it); -1
 * when the period is a frequency or a count cannot be read.
 */
static int64_t rec_read_overflows(const struct rec *r, int e)
{
	const struct perf_event_attr *a = &r->ev[e].attr;
	uint64_t sum = 0;

	if (a->freq || !a->sample_period)
		return -1;
	for (size_t i = 0; i < r->nfds; i++) {
		uint64_t v[4];

		if (r->fd_ev[i] != (uint32_t)e)
			continue;
		if (read(r->fds[i], v, sizeof(v)) < (ssize_t)sizeof(v[0]))
			return -1;
		sum += v[0];
	}
	return (int64_t)(sum / a->sample_period);
}

/*
 * The count of event e at the end, kept beside its samples (hwprof-data(5)
 * "count"): the sum over every fd of the event (each CPU; each thread of
 * an attached process), an inherited fd's count including its exited
 * children's. A clock (task-clock, cpu-clock) counts the time its tasks
 * ran, in the kernel too, although exclude_kernel drops the samples that
 * land there: its count is of scope "all", and what its samples do not
 * hold is the kernel's time. Any other event obeys exclude_kernel in its
 * count as in its samples: scope "user". Nothing is kept when a count
 * cannot be read.
 */
static void rec_read_count(const struct rec *r, int e, struct hd_event *he)
{
	const struct perf_event_attr *a = &r->ev[e].attr;
	uint64_t sum[3] = { 0, 0, 0 };
	int n = 0;

	for (size_t i = 0; i < r->nfds; i++) {
		uint64_t v[3];

		if (r->fd_ev[i] != (uint32_t)e)
			continue;
		if (read(r->fds[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			return;
		for (int k = 0; k < 3; k++)
			sum[k] = hwp_add_sat(sum[k], v[k]);
		n++;
	}
	if (!n)
		return;
	he->count_scope = a->type == PERF_TYPE_SOFTWARE &&
					  (a->config == PERF_COUNT_SW_TASK_CLOCK ||
					   a->config == PERF_COUNT_SW_CPU_CLOCK) ?
				  HD_COUNT_ALL :
				  HD_COUNT_USER;
	he->count = sum[0];
	/* each task has an fd on every CPU, each enabled all the time the
	 * task ran and running while it ran on its CPU: enabled / CPUs is
	 * the tasks' time, running the time the event counted on them; they
	 * differ when the PMU multiplexed it */
	he->enabled = sum[1] / (uint64_t)(r->ncpu > 0 ? r->ncpu : 1);
	he->running = sum[2];
	if (he->enabled < he->running)
		he->enabled = he->running;
}

/* Stops every event: what the rings hold then is all there will be. */
void rec_read_stop_events(struct rec *r)
{
	for (size_t i = 0; i < r->nfds; i++)
		hwp_perf_ioctl(r->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * After the last drain of stopped events: for each event sampled at every
 * event (period 1), samples kept + samples reported lost = the overflows
 * the kernel counted. The kernel reports a ring's drops in a LOST record
 * only once it writes again into that ring after the reader made room, so
 * drops at the very end may never be reported: for period 1 the event's
 * own count is exact, and lost is made up to it (count - kept). For a
 * longer period the count bounds the overflows (each inherited child
 * counts its own period), and kept + lost above it is a warning; so is
 * kept above the count at period 1. Returns the events whose books do
 * not balance.
 */
int rec_read_account(struct rec *r)
{
	int bad = 0;

	for (int e = 0; e < r->nev; e++) {
		struct hd_event *he = &r->d.events[r->ev[e].hd];
		int64_t over = rec_read_overflows(r, e);
		uint64_t have = hwp_add_sat(he->samples, he->lost);

		rec_read_count(r, e, he);

		if (over < 0 || have == (uint64_t)over)
			continue;
		if (r->ev[e].attr.sample_period == 1 && he->samples <= (uint64_t)over) {
			he->lost = (uint64_t)over - he->samples; /* unreported drops */
			continue;
		}
		if (have < (uint64_t)over)
			continue; /* a bound, not a count, above period 1 */
		bad++;
		fprintf(stderr,
			"hwprof: warning: %s: the kernel counted %lld overflows, but %llu samples were kept and %llu reported lost\n",
			r->ev[e].name, (long long)over, (unsigned long long)he->samples,
			(unsigned long long)he->lost);
	}
	if (r->side_lost)
		fprintf(stderr,
			"hwprof: warning: the kernel dropped %llu mmap/comm/fork/exit records (rings full): some samples may be in no object (reported in [anon]); use -m PAGES for bigger rings\n",
			(unsigned long long)r->side_lost);
	return bad;
}
