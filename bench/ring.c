/* SPDX-License-Identifier: MIT */
/*
 * The engine's ring reader (lib/perf/ring.c, hwp_ring_read_ips and
 * hwp_ring_read_chains) on a fake perf_event_mmap_page: a 1 MiB area
 * filled with samples the way the kernel writes them, sample_type IP
 * (DEPTH 0) or IP | CALLCHAIN with DEPTH entries each, read in the
 * engine's batches (512 ips) until empty, ROUNDS times. Prints samples per
 * second; run it under
 *   valgrind --tool=callgrind --toggle-collect=hwp_ring_read_chains
 * for instructions per sample (bench/run-ring.sh does both).
 *
 * usage: ring DEPTH [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf.h"

#define AREA  (1u << 20)
#define BATCH 512

static uint64_t sink;

/* What the engine's add_path does first: look at every entry. */
static void on_chain(void *arg, const uint64_t *chain, uint64_t n, uint64_t ip)
{
	(void)arg;
	sink += ip + n + (n ? chain[n - 1] : 0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Fills the area with whole samples from tail 0: their number. */
static size_t fill(struct hwp_ring *r, unsigned int depth)
{
	size_t rec = 8 + 8 + (depth ? 8 + 8 * (size_t)depth : 0), n = 0, at = 0;

	while (at + rec <= AREA) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)rec };
		uint64_t ip = 0x401000 + 4 * (n & 1023), nr = depth;

		memcpy(r->data + at, &h, sizeof(h));
		memcpy(r->data + at + 8, &ip, 8);
		if (depth) {
			memcpy(r->data + at + 16, &nr, 8);
			for (unsigned int i = 0; i < depth; i++) {
				uint64_t pc = 0x402000 + 16 * i;

				memcpy(r->data + at + 24 + 8 * i, &pc, 8);
			}
		}
		at += rec;
		n++;
	}
	r->page->data_tail = 0;
	r->page->data_head = at;
	return n;
}

int main(int argc, char **argv)
{
	static uint64_t ips[BATCH];
	struct perf_event_mmap_page page;
	struct hwp_ring r;
	unsigned int depth;
	size_t rounds, total = 0;
	double t = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ring DEPTH [ROUNDS]\n");
		return 2;
	}
	depth = (unsigned int)strtoul(argv[1], NULL, 0);
	rounds = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	if (depth > 127 || !rounds) {
		fprintf(stderr, "ring: bad arguments\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	memset(&page, 0, sizeof(page));
	r.page = &page;
	r.data = aligned_alloc(4096, AREA);
	r.mask = AREA - 1;
	if (!r.data)
		return 1;
	for (size_t k = 0; k < rounds; k++) {
		size_t n = fill(&r, depth), got = 0, m;
		double t0 = now();

		while ((m = depth ? hwp_ring_read_chains(&r, ips, BATCH, on_chain, NULL) :
				    hwp_ring_read_ips(&r, ips, BATCH)))
			for (size_t i = 0; i < m; i++, got++)
				sink += ips[i];
		t += now() - t0;
		if (got != n) {
			fprintf(stderr, "ring: read %zu of %zu samples\n", got, n);
			return 1;
		}
		total += got;
	}
	printf("depth %u: %zu samples, %.1f Msamples/s (%llx)\n", depth, total,
	       (double)total / t * 1e-6, (unsigned long long)sink);
	free(r.data);
	return 0;
}
