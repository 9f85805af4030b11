/* SPDX-License-Identifier: MIT */
/*
 * Property test: random region tables (unsorted, overlapping, skipped,
 * partial, with and without an overflow bin) and random pcs, folded by the
 * core and by a slow, obviously correct reference written here from the
 * formulas; buffers and statistics must agree exactly, for every formula,
 * width and fold mode. Seeded, so a failure can be replayed: argv[1].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof.h"
#include "harness.h"

#define MAXR 24
#define NIPS 3000

typedef unsigned __int128 u128;

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* The reference: the rules as the man page states them, one pc at a time. */
static long ref_bucket(const struct hwprof_region *r, unsigned int index, uint64_t pc,
		       unsigned int flags)
{
	unsigned int e = r->width / 8;
	uint64_t n = r->size / e, d;
	u128 idx;

	if (r->scale < 2 || (r->offset == 0 && r->scale == 2) || !n || pc < r->offset)
		return -1;
	d = pc - r->offset;
	if (index == HWPROF_INDEX_PAPI)
		idx = ((u128)d * r->scale) >> 17;
	else if (index == HWPROF_INDEX_PROFIL)
		idx = ((u128)(d / 2) * r->scale) >> 16;
	else
		idx = ((u128)(d / e) * r->scale) >> 16;
	(void)flags;
	return idx < n ? (long)idx : -1;
}

static uint64_t get(const struct hwprof_region *r, uint64_t i)
{
	const unsigned char *p = (const unsigned char *)r->base + i * (r->width / 8);
	uint64_t v = 0;

	memcpy(&v, p, r->width / 8); /* little-endian host */
	return v;
}

static void put(const struct hwprof_region *r, uint64_t i, uint64_t v)
{
	memcpy((unsigned char *)r->base + i * (r->width / 8), &v, r->width / 8);
}

struct ref_stats {
	uint64_t folded, outside, saturated, dropped, refused;
};

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x & 0xffff;
}

static void ref_fold(const struct hwprof_region *t, size_t nt, unsigned int index,
		     unsigned int fold, uint64_t thr, const uint64_t *ips, const uint64_t *w,
		     size_t n, uint32_t *x, struct ref_stats *rs)
{
	for (size_t k = 0; k < n; k++) {
		long best = -1, bi = -1, bin = -1;
		uint64_t max, v, inc;
		const struct hwprof_region *r;

		for (size_t i = 0; i < nt; i++) {
			long b = ref_bucket(&t[i], index, ips[k], 0);

			if (t[i].offset == 0 && t[i].scale == 2 && bin < 0 &&
			    t[i].size >= t[i].width / 8)
				bin = (long)i;
			if (b < 0)
				continue;
			if (best < 0 || t[i].offset > t[best].offset) {
				best = (long)i;
				bi = b;
			}
		}
		if (best < 0 && bin >= 0) {
			best = bin;
			bi = 0;
		}
		if (best < 0) {
			rs->outside++;
			continue;
		}
		r = &t[best];
		v = get(r, (uint64_t)bi);
		if ((fold & HWPROF_FOLD_RANDOM) && lcg(x) < 0x4000) {
			rs->dropped++;
			continue;
		}
		if ((fold & HWPROF_FOLD_COMPRESS) && lcg(x) < v) {
			rs->refused++;
			continue;
		}
		if (fold & HWPROF_FOLD_WEIGHTED) {
			uint64_t ex = w ? w[k] : 0, div = thr / 255 ? thr / 255 : 1;

			inc = ex <= 1 ? 1 : ex > thr ? 255 : ex / div;
			inc = inc < 1 ? 1 : inc > 255 ? 255 : inc;
		} else {
			inc = w ? w[k] : 1;
		}
		max = r->width == 64 ? UINT64_MAX : (1ull << r->width) - 1;
		rs->folded++;
		if (max - v < inc) {
			put(r, (uint64_t)bi, max);
			rs->saturated++;
		} else {
			put(r, (uint64_t)bi, v + inc);
		}
	}
}

static const uint32_t scales[] = {
	2, 3, 0x100, 0x4000, 0x8000, 0xfffe, 0xffff, 0x10000, 0x20000, 0x1234,
};

static int one_case(unsigned int index, unsigned int fold, int iter)
{
	static unsigned char mine[MAXR][512], theirs[MAXR][512];
	struct hwprof_region a[MAXR], b[MAXR];
	static uint64_t ips[NIPS], w[NIPS];
	uint64_t base = below(4) == 0 ? UINT64_MAX - 0x10000 : 0x7f0000000000ull;
	size_t nt = 1 + below(MAXR), nbin = 0;
	unsigned int flags = HWPROF_HIST_SORT | HWPROF_HIST_OVERLAP | HWPROF_HIST_PARTIAL |
			     HWPROF_HIST_SKIP_OFF;
	uint32_t x1 = (uint32_t)rnd(), x2 = x1;
	uint64_t thr = 1 + below(3000);
	struct hwprof_hist_stats st = { .sz = sizeof(st) };
	struct ref_stats rs = { 0 };
	struct hwprof_hist_opts o;
	struct hwprof_hist *h;
	int use_w = (int)below(3) == 0, ret;

	for (size_t i = 0; i < nt; i++) {
		uint32_t wd = 16u << below(3);
		struct hwprof_region *r = &a[i];

		r->base = mine[i];
		r->size = 1 + below(512);
		r->width = wd;
		r->scale = scales[below(sizeof(scales) / sizeof(scales[0]))];
		if (index == HWPROF_INDEX_PAPI && r->scale == 0x1234)
			r->scale = 0x4321;
		r->offset = base + below(0x8000);
		if (below(10) == 0)
			r->scale = (uint32_t)below(2); /* skipped */
		if (below(8) == 0 && !nbin) {
			r->offset = 0; /* the overflow bin */
			r->scale = 2;
			nbin++;
		}
		for (size_t j = 0; j < sizeof(mine[i]); j++)
			mine[i][j] = (unsigned char)rnd();
		/* buckets near their maximum, to exercise saturation */
		if (below(4) == 0)
			memset(mine[i], 0xff, sizeof(mine[i]));
	}
	memcpy(theirs, mine, sizeof(mine));
	for (size_t i = 0; i < nt; i++) {
		b[i] = a[i];
		b[i].base = theirs[i];
	}
	for (size_t k = 0; k < NIPS; k++) {
		const struct hwprof_region *r = &a[below(nt)];

		switch (below(4)) {
		case 0: /* anywhere */
			ips[k] = rnd();
			break;
		case 1: /* runs: same as the previous pc */
			ips[k] = k ? ips[k - 1] : r->offset;
			break;
		default: /* near a region, edges included */
			ips[k] = r->offset + below(r->size * 4 + 2) - 1;
			break;
		}
		w[k] = below(8) == 0 ? rnd() : below(2000);
	}

	o = (struct hwprof_hist_opts){
		.sz = sizeof(o),
		.regions = a,
		.nregions = nt,
		.index = index,
		.fold = fold,
		.flags = flags,
		.threshold = thr,
	};
	ret = hwprof_hist_new(&o, &h);
	if (ret) {
		printf("FAIL iter %d: new %d\n", iter, ret);
		return 1;
	}
	/* in two batches, to cross a batch boundary mid-run */
	hwprof_hist_fold(h, ips, use_w ? w : NULL, NIPS / 3, &x1);
	hwprof_hist_fold(h, ips + NIPS / 3, use_w ? w + NIPS / 3 : NULL, NIPS - NIPS / 3, &x1);
	ref_fold(b, nt, index, fold, thr, ips, use_w ? w : NULL, NIPS, &x2, &rs);
	hwprof_hist_stats(h, &st);
	hwprof_hist_free(h);

	for (size_t i = 0; i < nt; i++) {
		if (memcmp(mine[i], theirs[i], sizeof(mine[i]))) {
			printf("FAIL iter %d index %u fold %u: region %zu differs\n", iter,
			       index, fold, i);
			return 1;
		}
	}
	if (st.samples != NIPS || st.folded != rs.folded || st.outside != rs.outside ||
	    st.saturated != rs.saturated || st.dropped != rs.dropped ||
	    st.refused != rs.refused || x1 != x2) {
		printf("FAIL iter %d index %u fold %u: stats %llu/%llu %llu/%llu "
		       "%llu/%llu %llu/%llu %llu/%llu\n",
		       iter, index, fold, (unsigned long long)st.folded,
		       (unsigned long long)rs.folded, (unsigned long long)st.outside,
		       (unsigned long long)rs.outside, (unsigned long long)st.saturated,
		       (unsigned long long)rs.saturated, (unsigned long long)st.dropped,
		       (unsigned long long)rs.dropped, (unsigned long long)st.refused,
		       (unsigned long long)rs.refused);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned int folds[] = {
		HWPROF_FOLD_POSIX,
		HWPROF_FOLD_RANDOM,
		HWPROF_FOLD_WEIGHTED,
		HWPROF_FOLD_COMPRESS,
		HWPROF_FOLD_RANDOM | HWPROF_FOLD_COMPRESS | HWPROF_FOLD_WEIGHTED,
	};
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20261121;
	int iters = argc > 2 ? atoi(argv[2]) : 300, bad = 0;

	rng_state = seed;
	printf("seed %llu, %d iterations per formula and mode\n", (unsigned long long)seed,
	       iters);
	for (unsigned int index = HWPROF_INDEX_PAPI; index <= HWPROF_INDEX_SPROFIL; index++)
		for (size_t f = 0; f < sizeof(folds) / sizeof(folds[0]); f++)
			for (int i = 0; i < iters && bad < 5; i++)
				bad += one_case(index, folds[f], i);
	t_failed = bad;
	return t_done("test-hist-prop");
}
