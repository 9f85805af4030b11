/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the ring reader of lib/perf/ring.c on a fake
 * perf_event_mmap_page whose data area, head and tail come from the input,
 * as tests/test-ring.c builds it: the engine's hwp_ring_read_ips() and
 * hwp_ring_read_chains() (every chain it hands over lies inside its
 * record, in the area or in the straddle copy), then the records reader of every path (begin /
 * next / end) with records that straddle the end, and hwp_sample_id() / hwp_ring_lost() on
 * each record with a sample_type and sample_id_all from the input (LOST records of inherited
 * events are attributed through that trailer). The area, the ips array and a copy of each
 * record are allocated exactly, so AddressSanitizer reports any read or write outside them.
 * Head and tail stay 8-byte aligned, as the kernel keeps them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/engine/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same area read again as records: each whole, within the batch, and
 * parsed for its event from an exact copy. */
static void records(struct hwp_ring *r, uint64_t tail, uint64_t head, uint8_t how,
		    const uint8_t *data, size_t size)
{
	uint64_t type = 0, seen = 0;
	const struct perf_event_header *h;
	struct hwp_sample_id id;

	for (size_t i = 0; i < 8 && i < size; i++)
		type |= (uint64_t)data[i] << (8 * i);
	r->page->data_tail = tail;
	r->page->data_head = head;
	if (!hwp_ring_begin(r))
		return;
	while ((h = hwp_ring_next(r))) {
		void *copy = malloc(h->size);

		if (h->size < sizeof(*h) || h->size & 7)
			abort(); /* a record no header can have */
		seen += h->size;
		if (seen > head - tail)
			abort(); /* past what the kernel wrote */
		memcpy(copy, h, h->size);
		/* reads only inside the exact copy (ASan says otherwise) */
		(void)hwp_sample_id(copy, type, how & 1, &id);
		(void)hwp_ring_lost(copy);
		free(copy);
	}
	hwp_ring_end(r);
	if (r->page->data_tail != head)
		abort(); /* a batch ends at the head, parsed or not */
}

struct chain_arg {
	const struct hwp_ring *r;
	size_t area;
	uint64_t sum;
};

static void chain_cb(void *arg, const uint64_t *chain, uint64_t n, uint64_t ip)
{
	struct chain_arg *a = arg;
	const unsigned char *p = (const unsigned char *)chain;
	int in_area = p >= a->r->data && p <= a->r->data + a->area &&
		      n <= (size_t)(a->r->data + a->area - p) / 8;
	int in_copy = a->r->copy && p >= a->r->copy && p <= a->r->copy + a->r->copy_cap &&
		      n <= (size_t)(a->r->copy + a->r->copy_cap - p) / 8;

	if (!chain ? n != 0 : !(in_area || in_copy))
		abort(); /* entries outside the record */
	for (uint64_t i = 0; i < n; i++)
		a->sum += chain[i];
	a->sum += ip;
}

/* The area read again with call chains (sample_type IP | CALLCHAIN). */
static void chains(struct hwp_ring *r, uint64_t tail, uint64_t head, size_t area)
{
	struct chain_arg a = { .r = r, .area = area };
	uint64_t ips[8];

	r->page->data_tail = tail;
	r->page->data_head = head;
	for (int pass = 0; pass < 1000 && !hwp_ring_empty(r); pass++)
		if (!hwp_ring_read_chains(r, ips, 8, chain_cb, &a) &&
		    r->page->data_tail == tail)
			break;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *page;
	struct hwp_ring r;
	uint64_t tail, head, *ips;
	size_t area, cap, n, total = 0;
	uint8_t hdr[12] = { 0 };

	if (size < sizeof(hdr))
		return 0;
	memcpy(hdr, data, sizeof(hdr));
	data += sizeof(hdr);
	size -= sizeof(hdr);
	area = (size_t)64 << (hdr[0] % 7); /* 64 .. 4096 bytes */
	cap = hdr[1] % 33;		   /* 0 .. 32 ips per read */
	memcpy(&tail, hdr + 2, 8);
	tail &= ~(uint64_t)7;
	/* what the kernel wrote: at most the area (or a corrupt page: 2x) */
	head = tail + ((uint64_t)(hdr[10] | hdr[11] << 8) % (2 * area + 8) & ~(uint64_t)7);

	page = calloc(1, sizeof(*page));
	memset(&r, 0, sizeof(r));
	r.page = page;
	r.data = malloc(area);
	r.mask = area - 1;
	ips = cap ? malloc(cap * sizeof(*ips)) : NULL;
	for (size_t i = 0; i < area; i++)
		r.data[i] = size ? data[i % size] : 0;
	page->data_tail = tail;
	page->data_head = head;
	/* the walker stops when the ips array is full: read until empty */
	for (int pass = 0; pass < 1000 && !hwp_ring_empty(&r); pass++) {
		uint64_t before = page->data_tail;

		n = hwp_ring_read_ips(&r, ips, cap);
		if (n > cap || page->data_tail - tail > head - tail)
			abort(); /* too many ips, or tail past head */
		total += n;
		if (page->data_tail == before && !cap)
			break; /* no room: nothing can move */
		if (page->data_tail == before && n == 0)
			abort(); /* no progress with room to spare */
	}
	if (cap && !hwp_ring_empty(&r))
		abort();
	if (total > (head - tail) / 16)
		abort(); /* more samples than 16-byte records fit */
	chains(&r, tail, head, area);
	records(&r, tail, head, hdr[1], data, size);
	free(ips);
	free(r.data);
	hwp_ring_unmap(&r); /* the straddle copy; map_len 0: no munmap */
	free(page);
	return 0;
}
