/* SPDX-License-Identifier: MIT */
/*
 * lib/perf/ring.c against a fake mmap page written the way the kernel writes:
 * records that wrap the end of the area, LOST and THROTTLE records,
 * sizes that cannot be parsed, a reader that takes a few at a time, and a
 * seeded fuzz of all of these.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/engine/internal.h"
#include "harness.h"

#define AREA 256 /* data bytes: a power of two */

static struct {
	struct perf_event_mmap_page page;
	unsigned char data[AREA];
} fake;

static struct hwp_ring ring;

static void reset(void)
{
	free(ring.copy); /* a straddling record's copy, from the last test */
	memset(&fake, 0, sizeof(fake));
	memset(&ring, 0, sizeof(ring));
	ring.page = &fake.page;
	ring.data = fake.data;
	ring.mask = AREA - 1;
}

static uint64_t head(void)
{
	return fake.page.data_head;
}

/* Writes one record of n u64 words (header included) at head, wrapping. */
static int put(uint32_t type, const uint64_t *w, unsigned int nw)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)(8 * (nw + 1)) };
	uint64_t pos = head(), slot;

	if (pos + h.size - fake.page.data_tail > AREA)
		return 0; /* full: the kernel would drop it */
	memcpy(&slot, &h, sizeof(slot));
	memcpy(fake.data + (pos & (AREA - 1)), &slot, 8);
	for (unsigned int i = 0; i < nw; i++)
		memcpy(fake.data + ((pos + 8 + 8 * i) & (AREA - 1)), &w[i], 8);
	__atomic_store_n(&fake.page.data_head, pos + h.size, __ATOMIC_RELEASE);
	return 1;
}

static int sample(uint64_t ip)
{
	return put(PERF_RECORD_SAMPLE, &ip, 1);
}

static void test_basic_and_wrap(void)
{
	uint64_t ips[64], want = 0x1000;
	size_t n, got = 0;

	reset();
	/* 3 passes over a 256-byte area (16 records each): wraps twice */
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < 15; i++)
			T_CHECK(sample(0x1000 + (uint64_t)(pass * 15 + i)), "put %d", i);
		n = hwp_ring_read_ips(&ring, ips, 64);
		T_EQ(n, 15);
		for (size_t i = 0; i < n; i++, got++)
			T_EQ(ips[i], want + got);
		T_EQ(fake.page.data_tail, fake.page.data_head);
		T_CHECK(hwp_ring_empty(&ring), "not empty");
	}
	T_EQ(ring.stats.corrupt, 0);
}

static void test_lost_throttle(void)
{
	uint64_t ips[8], lost[2] = { 7, 1234 }, thr[3] = { 1, 2, 3 };

	reset();
	sample(0xa);
	put(PERF_RECORD_LOST, lost, 2);
	put(PERF_RECORD_THROTTLE, thr, 3);
	put(PERF_RECORD_UNTHROTTLE, thr, 3);
	sample(0xb);
	T_EQ(hwp_ring_read_ips(&ring, ips, 8), 2);
	T_EQ(ips[0], 0xa);
	T_EQ(ips[1], 0xb);
	T_EQ(ring.stats.lost, 1234);
	T_EQ(ring.stats.throttled, 1);
}

static void test_cap(void)
{
	uint64_t ips[3];

	reset();
	for (int i = 0; i < 10; i++)
		sample((uint64_t)i);
	for (int k = 0; k < 3; k++) {
		T_EQ(hwp_ring_read_ips(&ring, ips, 3), 3);
		T_EQ(ips[0], (uint64_t)(3 * k));
	}
	T_EQ(hwp_ring_read_ips(&ring, ips, 3), 1);
	T_EQ(ips[0], 9);
	T_EQ(hwp_ring_read_ips(&ring, ips, 3), 0);
}

/* A header that cannot be right: skip to head, count it, lose nothing else. */
static void test_bad_sizes(void)
{
	static const uint16_t bad[] = { 0, 4, 12, 1024 };
	uint64_t ips[8];

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = bad[k] };
		uint64_t slot;

		reset();
		sample(0x1);
		memcpy(&slot, &h, sizeof(slot));
		memcpy(fake.data + head(), &slot, 8);
		fake.page.data_head += 16;
		T_EQ(hwp_ring_read_ips(&ring, ips, 8), 1);
		T_EQ(ips[0], 0x1);
		T_EQ(ring.stats.corrupt, 1);
		T_EQ(fake.page.data_tail, fake.page.data_head);
		sample(0x2); /* and goes on after the resync */
		T_EQ(hwp_ring_read_ips(&ring, ips, 8), 1);
		T_EQ(ips[0], 0x2);
	}
}

/* Random mixes of samples, LOST, other records and reader caps: every IP
 * comes out once, in order; every LOST is counted. */
static void test_fuzz(void)
{
	static uint64_t want[200000];
	uint64_t x = 20261121, lost = 0;
	size_t nw = 0, nr = 0;

	reset();
	for (int step = 0; step < 200000 && nw < 190000; step++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		switch ((x >> 33) % 5) {
		case 0:
		case 1:
		case 2:
			if (sample(x))
				want[nw++] = x;
			break;
		case 3: {
			uint64_t l[2] = { 0, (x >> 40) & 0xff };

			if (put(PERF_RECORD_LOST, l, 2))
				lost += l[1];
			break;
		}
		default: {
			uint64_t w[5] = { 1, 2, 3, 4, 5 };

			put(PERF_RECORD_COMM, w, (unsigned int)(1 + (x >> 50) % 5));
			break;
		}
		}
		if ((x >> 20) % 3 == 0) {
			uint64_t ips[7];
			size_t cap = 1 + (size_t)((x >> 24) % 7);
			size_t n = hwp_ring_read_ips(&ring, ips, cap);

			for (size_t i = 0; i < n; i++, nr++)
				if (ips[i] != want[nr]) {
					T_CHECK(0, "fuzz: ip %zu differs", nr);
					return;
				}
		}
	}
	for (;;) {
		uint64_t ips[64];
		size_t n = hwp_ring_read_ips(&ring, ips, 64);

		if (!n)
			break;
		for (size_t i = 0; i < n; i++, nr++)
			T_EQ(ips[i], want[nr]);
	}
	T_EQ(nr, nw);
	T_EQ(ring.stats.lost, lost);
	T_EQ(ring.stats.corrupt, 0);
	printf("fuzz: %zu samples through a %d-byte ring\n", nw, AREA);
}

/*
 * hwprof record's records (lib/perf/ring.c's reader for every path): a sample
 * of IDENTIFIER|IP|TID|TIME that straddles the end of the area comes out
 * whole, and a LOST record of an inherited event, whose body carries the
 * child event's own id, is attributed through its sample_id trailer.
 */
#define REC_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void test_straddle_and_trailer(void)
{
	/* IDENTIFIER, IP, pid|tid, TIME */
	uint64_t smp[4] = { 0xabc, 0x401000, 7 | (uint64_t)8 << 32, 1000 };
	/* body {id, lost} of a child event, then the trailer: pid|tid, time,
	 * identifier (the parent's id, as samples give it) */
	uint64_t lost[5] = { 0x999, 42, 7 | (uint64_t)9 << 32, 1001, 0xabc };
	const struct perf_event_header *h;
	struct hwp_sample_id id;
	int seen = 0;

	reset();
	/* 216 bytes in, so the 40-byte sample runs 16 bytes past the end */
	fake.page.data_head = fake.page.data_tail = 216;
	T_CHECK(put(PERF_RECORD_SAMPLE, smp, 4), "put sample");
	T_CHECK(put(PERF_RECORD_LOST, lost, 5), "put lost");
	T_CHECK(hwp_ring_begin(&ring), "begin: records");
	while ((h = hwp_ring_next(&ring))) {
		T_CHECK(!hwp_sample_id(h, REC_TYPE, 1, &id), "id of type %u", h->type);
		if (h->type == PERF_RECORD_SAMPLE) {
			T_EQ(h->size, 40);
			T_EQ(id.id, 0xabc);
			T_EQ(id.ip, 0x401000);
			T_EQ(id.pid, 7);
			T_EQ(id.tid, 8);
			T_EQ(id.time, 1000);
			seen |= 1;
		} else if (h->type == PERF_RECORD_LOST) {
			T_EQ(h->size, 48);
			T_EQ(id.id, 0xabc); /* the trailer's, not 0x999 */
			T_EQ(id.tid, 9);
			T_EQ(id.time, 1001);
			T_EQ(hwp_ring_lost(h), 42);
			seen |= 2;
		}
	}
	hwp_ring_end(&ring);
	T_EQ(seen, 3);
	T_EQ(fake.page.data_tail, fake.page.data_head);
	T_EQ(hwp_sample_trailer(REC_TYPE, 1), 24);
	T_EQ(hwp_sample_trailer(REC_TYPE, 0), 0);
	/* without sample_id_all a side-band record names no event */
	{
		struct perf_event_header lh = { .type = PERF_RECORD_LOST, .size = 24 };

		T_CHECK(!hwp_sample_id(&lh, REC_TYPE, 0, &id), "no trailer");
		T_EQ(id.has_id, 0);
	}
	T_EQ(ring.stats.corrupt, 0);
}

/*
 * A reader that handles records where they lie (hwp_ring_give_back):
 * mid-batch it hands back what it read before the record it holds, never
 * that one, so the kernel's next record lands after it; NULL hands back
 * everything read.
 */
static void test_give_back(void)
{
	const struct perf_event_header *h;
	uint64_t ip;

	reset();
	for (int i = 0; i < 6; i++) /* 16 bytes each: 96 of 256 */
		T_CHECK(sample(0x2000 + (uint64_t)i), "put %d", i);
	T_CHECK(hwp_ring_begin(&ring), "begin: records");
	for (int i = 0; i < 3; i++)
		T_CHECK((h = hwp_ring_next(&ring)) != NULL, "record %d", i);
	hwp_ring_give_back(&ring, h); /* holds the third: two handed back */
	T_EQ(fake.page.data_tail, 32);
	memcpy(&ip, (const unsigned char *)h + 8, 8);
	T_EQ(ip, 0x2002);
	/* room for exactly what was handed back, and no more */
	for (int i = 0; i < 12; i++)
		T_CHECK(sample(0x3000 + (uint64_t)i), "refill %d", i);
	T_CHECK(!sample(0x4000), "a record over the held one was written");
	memcpy(&ip, (const unsigned char *)h + 8, 8);
	T_EQ(ip, 0x2002); /* still whole */
	hwp_ring_give_back(&ring, NULL);
	T_EQ(fake.page.data_tail, 48);
	while (hwp_ring_next(&ring))
		;
	hwp_ring_end(&ring);
	T_EQ(fake.page.data_tail, 96); /* the batch's end, not the refill's */
	T_EQ(ring.stats.corrupt, 0);
}

/*
 * The engine's reader with threads (hwp_ring_read_tids, sample_type
 * IP | TID [| CALLCHAIN]): each sample's tid beside its IP, 0 for a record
 * too short to hold it; a chain that does not fit goes as NULL, 0 with
 * the sample's IP and tid still given.
 */
static uint64_t tid_chain_sum;
static size_t tid_chain_calls;

static void tid_chain(void *arg, const uint64_t *chain, uint64_t n, uint64_t ip)
{
	(void)arg;
	tid_chain_calls++;
	tid_chain_sum += ip + n + (n ? chain[n - 1] : 0);
}

static void test_tids(void)
{
	const uint64_t a[2] = { 0x401000, 7 | (uint64_t)8 << 32 };
	const uint64_t b[1] = { 0x402000 }; /* too short for its thread */
	const uint64_t c[5] = { 0x403000, 7 | (uint64_t)9 << 32, 2, 0x1, 0x2 };
	const uint64_t d[4] = { 0x404000, 7 | (uint64_t)10 << 32, 5, 0x1 }; /* nr lies */
	uint64_t ips[8];
	uint32_t tids[8];

	reset();
	T_CHECK(put(PERF_RECORD_SAMPLE, a, 2) && put(PERF_RECORD_SAMPLE, b, 1), "put");
	T_EQ(hwp_ring_read_tids(&ring, ips, tids, 8, NULL, NULL), 2);
	T_EQ(ips[0], 0x401000);
	T_EQ(tids[0], 8);
	T_EQ(ips[1], 0x402000);
	T_EQ(tids[1], 0);

	reset();
	T_CHECK(put(PERF_RECORD_SAMPLE, c, 5) && put(PERF_RECORD_SAMPLE, d, 4), "put");
	tid_chain_sum = tid_chain_calls = 0;
	T_EQ(hwp_ring_read_tids(&ring, ips, tids, 8, tid_chain, NULL), 2);
	T_EQ(tid_chain_calls, 2);
	T_EQ(tids[0], 9);
	T_EQ(tids[1], 10);
	/* c's chain (2 entries, the last 0x2), d's as none */
	T_EQ(tid_chain_sum, 0x403000 + 2 + 0x2 + 0x404000);
}

int main(void)
{
	test_basic_and_wrap();
	test_lost_throttle();
	test_cap();
	test_bad_sizes();
	test_fuzz();
	test_straddle_and_trailer();
	test_tids();
	test_give_back();
	reset(); /* frees the last copy */
	return t_done("test-ring");
}
