/* SPDX-License-Identifier: MIT */
/*
 * One perf ring buffer and the one reader of its records, for every path
 * that samples: the in-process engine (lib/engine/drain.c), hwprof record
 * (tools/record/rec-perf.c) and libhwprof-mpi through the engine.
 *
 * A batch is read as begin / next / end: hwp_ring_begin() takes the head
 * the kernel published, hwp_ring_next() gives each whole record in turn
 * (one that straddles the end of the area is copied out whole first) and
 * hwp_ring_end() hands the space read back to the kernel. A record that
 * cannot be parsed ends the batch at the head: nothing past it can be
 * trusted (counted in stats.corrupt).
 *
 * A record's fields are sample.c's (a sample's, a sample_id trailer's).
 * Knows nothing of histograms; tests drive it with a fake page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf.h"
#include "sample.h"

int hwp_ring_map(struct hwp_ring *r, int fd, unsigned int pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages + 1) * (size_t)psz;
	void *p;

	memset(r, 0, sizeof(*r));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->page = p;
	r->data = (unsigned char *)p + psz;
	r->mask = (uint64_t)pages * (uint64_t)psz - 1;
	r->map_len = len;
	return 0;
}

void hwp_ring_unmap(struct hwp_ring *r)
{
	if (r->page && r->map_len)
		munmap(r->page, r->map_len);
	free(r->copy);
	r->copy = NULL;
	r->copy_cap = 0;
	r->page = NULL;
	r->data = NULL;
}

/* Pairs with the kernel's barrier between writing records and moving
 * data_head: after this load every byte before head is readable. */
static inline uint64_t ring_head(const struct perf_event_mmap_page *pg)
{
	return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
}

/* Pairs with the kernel reading data_tail before it reuses space: our
 * reads of the consumed records finish before the space is handed back. */
static inline void ring_set_tail(struct perf_event_mmap_page *pg, uint64_t t)
{
	__atomic_store_n(&pg->data_tail, t, __ATOMIC_RELEASE);
}

int hwp_ring_begin(struct hwp_ring *r)
{
	r->head = ring_head(r->page);
	r->pos = r->page->data_tail; /* only we write it */
	return r->pos != r->head;
}

/* Copies n bytes at ring position pos into dst, across the end. */
static void ring_copy(const struct hwp_ring *r, void *dst, uint64_t pos, size_t n)
{
	size_t at = (size_t)(pos & r->mask), first = (size_t)(r->mask + 1 - at);

	if (first >= n) {
		memcpy(dst, r->data + at, n);
	} else {
		memcpy(dst, r->data + at, first);
		memcpy((unsigned char *)dst + first, r->data, n - first);
	}
}

/* The batch cannot be parsed past pos: give up to the head. */
static const struct perf_event_header *ring_corrupt(struct hwp_ring *r)
{
	r->stats.corrupt++;
	r->pos = r->head;
	return NULL;
}

const struct perf_event_header *hwp_ring_next(struct hwp_ring *r)
{
	struct perf_event_header h;
	size_t at, first;
	void *rec;

again:
	if (r->pos == r->head)
		return NULL;
	/* the kernel keeps records 8-byte aligned, so a header never
	 * straddles the end (the area is whole pages): it is read in place;
	 * a misaligned tail is a corrupt page */
	if (r->head - r->pos < sizeof(h) || (r->pos & 7))
		return ring_corrupt(r);
	memcpy(&h, r->data + (r->pos & r->mask), sizeof(h));
	/* a record larger than the area is no record the kernel wrote (and
	 * would be copied from past its end) */
	if (h.size < sizeof(h) || (h.size & 7) || h.size > r->head - r->pos ||
	    h.size > r->mask + 1)
		return ring_corrupt(r);
	at = (size_t)(r->pos & r->mask);
	first = (size_t)(r->mask + 1 - at);
	if (first >= h.size) {
		rec = r->data + at;
	} else {
		if (r->copy_cap < h.size) {
			void *np = realloc(r->copy, 65536); /* any u16 size */

			if (!np) { /* skipped, and said so */
				r->stats.nomem++;
				r->pos += h.size;
				goto again;
			}
			r->copy = np;
			r->copy_cap = 65536;
		}
		ring_copy(r, r->copy, r->pos, h.size);
		rec = r->copy;
	}
	r->pos += h.size;
	return rec;
}

void hwp_ring_end(struct hwp_ring *r)
{
	ring_set_tail(r->page, r->pos);
}

void hwp_ring_give_back(struct hwp_ring *r, const struct perf_event_header *last)
{
	ring_set_tail(r->page, r->pos - (last ? last->size : 0));
}

static inline uint64_t rec_u64(const void *rec, size_t off)
{
	uint64_t v;

	memcpy(&v, (const unsigned char *)rec + off, sizeof(v));
	return v;
}

uint64_t hwp_ring_lost(const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16)
		return rec_u64(h, sizeof(*h) + 8); /* {id, lost} */
	if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= sizeof(*h) + 8)
		return rec_u64(h, sizeof(*h)); /* {lost} */
	return 0;
}

/* The engine's rings: what their samples hold besides sample_type (IP,
 * TID, CALLCHAIN): nothing. */
static const struct hwp_sample_desc engine_desc;

/*
 * The engine's rings: one event per ring, sample_type IP (TID with tids,
 * CALLCHAIN with chains), no trailer, each sample parsed by the one
 * parser (sample.h) specialised for that type. Copies up to cap sample
 * IPs out (and each sample's thread id into tids, 0 for a record too
 * short to hold it) and returns how many, handing each sample's call
 * chain to fn first (n entries, or NULL and 0 for a record too short to
 * hold them); LOST and LOST_SAMPLES add to stats.lost, THROTTLE to
 * stats.throttled.
 */
static inline __attribute__((always_inline)) size_t ring_read(struct hwp_ring *r,
							      uint64_t *ips, uint32_t *tids,
							      size_t cap, int chains,
							      hwp_chain_fn fn, void *arg)
{
	/* tids and chains are constants in each caller's copy */
	const uint64_t tid = tids ? PERF_SAMPLE_TID : 0;
	const struct perf_event_header *h;
	struct hwp_sample s;
	size_t n = 0;

	if (!cap || !hwp_ring_begin(r))
		return 0;
	while (n < cap && (h = hwp_ring_next(r))) {
		/* hwp_ring_next() gives records 8-byte aligned */
		h = __builtin_assume_aligned(h, 8);
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			if (chains &&
			    !hwp_sample_parse_as(h,
						 PERF_SAMPLE_IP | tid | PERF_SAMPLE_CALLCHAIN,
						 &engine_desc, &s)) {
				ips[n] = s.ip;
				if (tids)
					tids[n] = s.tid;
				fn(arg, s.chain, s.nchain, s.ip);
				n++;
				break;
			}
			/* a sample whose chain (or thread) does not fit: its
			 * IP, and its thread where that fits */
			if (tids && !hwp_sample_parse_as(h, PERF_SAMPLE_IP | PERF_SAMPLE_TID,
							 &engine_desc, &s)) {
				tids[n] = s.tid;
			} else if (!hwp_sample_parse_as(h, PERF_SAMPLE_IP, &engine_desc, &s)) {
				if (tids)
					tids[n] = 0;
			} else {
				break;
			}
			ips[n] = s.ip;
			if (chains)
				fn(arg, NULL, 0, s.ip);
			n++;
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
			r->stats.lost += hwp_ring_lost(h);
			break;
		case PERF_RECORD_THROTTLE:
			r->stats.throttled++;
			break;
		default:
			break;
		}
	}
	hwp_ring_end(r);
	return n;
}

size_t hwp_ring_read_tids(struct hwp_ring *r, uint64_t *ips, uint32_t *tids, size_t cap,
			  hwp_chain_fn fn, void *arg)
{
	if (!tids)
		return hwp_ring_read_chains(r, ips, cap, fn, arg);
	/* tids is not NULL from here: the copies below read TID */
	if (!fn)
		return ring_read(r, ips, tids, cap, 0, NULL, NULL);
	return ring_read(r, ips, tids, cap, 1, fn, arg);
}

size_t hwp_ring_read_chains(struct hwp_ring *r, uint64_t *ips, size_t cap, hwp_chain_fn fn,
			    void *arg)
{
	if (!fn)
		return ring_read(r, ips, NULL, cap, 0, NULL, NULL);
	return ring_read(r, ips, NULL, cap, 1, fn, arg);
}

size_t hwp_ring_read_ips(struct hwp_ring *r, uint64_t *ips, size_t cap)
{
	return ring_read(r, ips, NULL, cap, 0, NULL, NULL);
}

int hwp_ring_empty(const struct hwp_ring *r)
{
	return ring_head(r->page) == r->page->data_tail;
}
