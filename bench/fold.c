/* SPDX-License-Identifier: MIT */
/*
 * Fold throughput of the histogram core: N regions of 128 bytes of text
 * each, one bucket width, a stream of pcs folded in batches of 1024 (the
 * engine's batch). Prints samples per second; run it under
 *   valgrind --tool=callgrind --toggle-collect=hwprof_hist_fold
 * for instructions per sample (bench/run-fold.sh does both).
 *
 * usage: fold REGIONS WIDTH PATTERN SAMPLES [REPEAT]
 *   PATTERN  runs:    runs of 1..64 pcs in one region, hot regions favoured
 *                     (what a drained ring looks like: a loop gives runs)
 *            uniform: every pc in a random region (worst case for lookup)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwprof.h>

#define TEXT  128ull /* bytes of text per region */
#define BATCH 1024

static uint64_t state = 42;

static uint64_t rnd(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct hwprof_hist_opts o = { .sz = sizeof(o) };
	struct hwprof_region *reg;
	struct hwprof_hist *h;
	size_t nreg, n, rep, bytes;
	const uint64_t base = 0x555555554000ull;
	unsigned int width;
	unsigned char *buf;
	uint64_t *ips;
	int runs;
	double t0, t;

	if (argc < 5) {
		fprintf(stderr, "usage: fold REGIONS WIDTH runs|uniform SAMPLES [REPEAT]\n");
		return 2;
	}
	nreg = strtoull(argv[1], NULL, 0);
	width = (unsigned int)strtoul(argv[2], NULL, 0);
	runs = !strcmp(argv[3], "runs");
	n = strtoull(argv[4], NULL, 0);
	rep = argc > 5 ? strtoull(argv[5], NULL, 0) : 1;
	if (!nreg || (width != 16 && width != 32 && width != 64) || !n || !rep ||
	    (!runs && strcmp(argv[3], "uniform"))) {
		fprintf(stderr, "fold: bad arguments\n");
		return 2;
	}

	/* scale 0x10000: 2 bytes of text a bucket */
	bytes = TEXT / 2 * width / 8;
	reg = calloc(nreg, sizeof(*reg));
	buf = calloc(nreg, bytes);
	ips = malloc(n * sizeof(*ips));
	if (!reg || !buf || !ips)
		return 1;
	for (size_t i = 0; i < nreg; i++) {
		/* a gap of 64 bytes between regions, as between functions */
		reg[i] = (struct hwprof_region){
			.base = buf + i * bytes,
			.size = bytes,
			.offset = base + i * (TEXT + 64),
			.scale = 0x10000,
			.width = width,
		};
	}
	for (size_t i = 0; i < n;) {
		/* hot regions: the square of a uniform draw favours low ones */
		uint64_t u = rnd() % nreg;
		uint64_t r = runs ? u * u / nreg : u;
		size_t len = runs ? 1 + rnd() % 64 : 1;

		for (size_t k = 0; k < len && i < n; k++)
			ips[i++] = reg[r].offset + rnd() % TEXT;
	}

	o.regions = reg;
	o.nregions = nreg;
	o.index = HWPROF_INDEX_PAPI;
	if (hwprof_hist_new(&o, &h)) {
		fprintf(stderr, "fold: hwprof_hist_new failed\n");
		return 1;
	}
	t0 = now();
	for (size_t k = 0; k < rep; k++)
		for (size_t i = 0; i < n; i += BATCH)
			hwprof_hist_fold(h, ips + i, NULL, n - i < BATCH ? n - i : BATCH,
					 NULL);
	t = now() - t0;
	printf("regions %zu width %u pattern %s samples %zu: %.1f Msamples/s\n", nreg, width,
	       argv[3], n * rep, (double)(n * rep) / t / 1e6);
	hwprof_hist_free(h);
	free(reg);
	free(buf);
	free(ips);
	return 0;
}
