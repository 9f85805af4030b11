/* SPDX-License-Identifier: MIT */
/*
 * lib/ring.c against a fake mmap page written the way the kernel writes:
 * records that wrap the end of the area, LOST and THROTTLE records,
 * sizes that cannot be parsed, a reader that takes a few at a time, and a
 * seeded fuzz of all of these.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/internal.h"
#include "harness.h"

#define AREA	256		/* data bytes: a power of two */

static struct {
	struct perf_event_mmap_page page;
	unsigned char data[AREA];
} fake;

static struct hwp_ring ring;

static void reset(void)
{
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
		return 0;	/* full: the kernel would drop it */
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
		sample(0x2);		/* and goes on after the resync */
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
		case 0: case 1: case 2:
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

int main(void)
{
	test_basic_and_wrap();
	test_lost_throttle();
	test_cap();
	test_bad_sizes();
	test_fuzz();
	return t_done("test-ring");
}
