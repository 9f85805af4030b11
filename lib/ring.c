/* SPDX-License-Identifier: MIT */
/*
 * One perf ring buffer: map it, copy sample IPs out from tail to head,
 * count what the kernel says it dropped or throttled. Knows nothing of
 * histograms; tests drive it with a fake page.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

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
	if (r->page)
		munmap(r->page, r->map_len);
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

static inline uint64_t ring_u64(const struct hwp_ring *r, uint64_t pos)
{
	uint64_t v;

	memcpy(&v, r->data + (pos & r->mask), sizeof(v));
	return v;
}

/*
 * Copies up to cap sample IPs out of the ring and returns how many; the
 * records are {header, ip} (PERF_SAMPLE_IP only). Records are 8-byte
 * aligned in a power-of-two area, so a u64 slot never straddles the end.
 */
size_t hwp_ring_read_ips(struct hwp_ring *r, uint64_t *ips, size_t cap)
{
	uint64_t head = ring_head(r->page);
	uint64_t tail = r->page->data_tail;	/* only we write it */
	size_t n = 0;

	while (tail != head && n < cap) {
		uint64_t slot = ring_u64(r, tail);
		struct perf_event_header hdr;

		memcpy(&hdr, &slot, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || (hdr.size & 7) ||
		    hdr.size > head - tail) {
			r->stats.corrupt++;	/* cannot parse: resync */
			tail = head;
			break;
		}
		switch (hdr.type) {
		case PERF_RECORD_SAMPLE:
			if (hdr.size >= 16)
				ips[n++] = ring_u64(r, tail + 8);
			break;
		case PERF_RECORD_LOST:	/* {id, lost} */
			if (hdr.size >= 24)
				r->stats.lost += ring_u64(r, tail + 16);
			break;
		case PERF_RECORD_THROTTLE:
			r->stats.throttled++;
			break;
		default:
			break;
		}
		tail += hdr.size;
	}
	ring_set_tail(r->page, tail);
	return n;
}

int hwp_ring_empty(const struct hwp_ring *r)
{
	return ring_head(r->page) == r->page->data_tail;
}
