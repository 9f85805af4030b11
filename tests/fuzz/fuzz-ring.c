/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: hwp_ring_read_ips() (lib/ring.c) on a fake
 * perf_event_mmap_page whose data area, head and tail come from the input,
 * as tests/test-ring.c builds it. The area and the ips array are allocated
 * exactly, so AddressSanitizer reports any read or write outside them.
 * Head and tail stay 8-byte aligned, as the kernel keeps them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	area = (size_t)64 << (hdr[0] % 7);		/* 64 .. 4096 bytes */
	cap = hdr[1] % 33;				/* 0 .. 32 ips per read */
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
			abort();	/* too many ips, or tail past head */
		total += n;
		if (page->data_tail == before && !cap)
			break;		/* no room: nothing can move */
		if (page->data_tail == before && n == 0)
			abort();	/* no progress with room to spare */
	}
	if (cap && !hwp_ring_empty(&r))
		abort();
	if (total > (head - tail) / 16)
		abort();	/* more samples than 16-byte records fit */
	free(ips);
	free(r.data);
	free(page);
	return 0;
}
