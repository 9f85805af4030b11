/* SPDX-License-Identifier: MIT */
/*
 * The histogram core against hand-computed expectations: index formulas,
 * region edges, the overflow bin, saturation, fold modes, table faults.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hwprof.h"
#include "harness.h"

#define O     0x400000ull /* region offset used throughout */
#define GUARD 64	  /* canary bytes on each side of a buffer */

/* A caller buffer between two canaries, to prove nothing is written outside. */
struct gbuf {
	unsigned char mem[GUARD + 4096 + GUARD];
	size_t size;
};

static void *gbuf_init(struct gbuf *g, size_t size)
{
	memset(g->mem, 0xa5, sizeof(g->mem));
	memset(g->mem + GUARD, 0, size);
	g->size = size;
	return g->mem + GUARD;
}

static int gbuf_intact(const struct gbuf *g)
{
	for (size_t i = 0; i < GUARD; i++)
		if (g->mem[i] != 0xa5)
			return 0;
	for (size_t i = GUARD + g->size; i < sizeof(g->mem); i++)
		if (g->mem[i] != 0xa5)
			return 0;
	return 1;
}

static uint64_t bucket(const void *base, uint32_t width, size_t i)
{
	const unsigned char *p = base;
	uint16_t a;
	uint32_t b;
	uint64_t c;

	switch (width) {
	case 16:
		memcpy(&a, p + 2 * i, 2);
		return a;
	case 32:
		memcpy(&b, p + 4 * i, 4);
		return b;
	default:
		memcpy(&c, p + 8 * i, 8);
		return c;
	}
}

static void set_bucket(void *base, uint32_t width, size_t i, uint64_t v)
{
	unsigned char *p = base;
	uint16_t a = (uint16_t)v;
	uint32_t b = (uint32_t)v;

	switch (width) {
	case 16:
		memcpy(p + 2 * i, &a, 2);
		break;
	case 32:
		memcpy(p + 4 * i, &b, 4);
		break;
	default:
		memcpy(p + 8 * i, &v, 8);
		break;
	}
}

static struct hwprof_hist *mk(const struct hwprof_region *r, size_t n, unsigned int index,
			      unsigned int fold, unsigned int flags, uint64_t threshold)
{
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = r,
		.nregions = n,
		.index = index,
		.fold = fold,
		.flags = flags,
		.threshold = threshold,
	};
	struct hwprof_hist *h = NULL;
	int ret = hwprof_hist_new(&o, &h);

	T_CHECK(ret == 0, "hwprof_hist_new: %d", ret);
	return h;
}

static struct hwprof_hist_stats stats(const struct hwprof_hist *h)
{
	struct hwprof_hist_stats st = { .sz = sizeof(st) };

	T_EQ(hwprof_hist_stats(h, &st), 0);
	return st;
}

/*
 * Four buckets per region. For each formula, width and scale: the last pc
 * distance d that still has a bucket, and that bucket; d + 1 is outside.
 * Worked out by hand from the formulas in hwprof_hist_new(3).
 */
static const struct edge {
	unsigned int index;
	uint32_t width, scale;
	uint64_t last_d, last_bucket;
} edges[] = {
	/* PAPI: (d * s) >> 17, the same for every width */
	{ HWPROF_INDEX_PAPI, 16, 2, 0x3ffff, 3 },
	{ HWPROF_INDEX_PAPI, 16, 0x4000, 31, 3 },
	{ HWPROF_INDEX_PAPI, 16, 0x8000, 15, 3 },
	{ HWPROF_INDEX_PAPI, 16, 0xffff, 8, 3 }, /* 8*0xffff < 4<<17 */
	{ HWPROF_INDEX_PAPI, 16, 0x10000, 7, 3 },
	{ HWPROF_INDEX_PAPI, 16, 0x20000, 3, 3 },
	{ HWPROF_INDEX_PAPI, 32, 2, 0x3ffff, 3 },
	{ HWPROF_INDEX_PAPI, 32, 0x4000, 31, 3 },
	{ HWPROF_INDEX_PAPI, 32, 0x8000, 15, 3 },
	{ HWPROF_INDEX_PAPI, 32, 0xffff, 8, 3 },
	{ HWPROF_INDEX_PAPI, 32, 0x10000, 7, 3 },
	{ HWPROF_INDEX_PAPI, 32, 0x20000, 3, 3 },
	{ HWPROF_INDEX_PAPI, 64, 2, 0x3ffff, 3 },
	{ HWPROF_INDEX_PAPI, 64, 0x4000, 31, 3 },
	{ HWPROF_INDEX_PAPI, 64, 0x8000, 15, 3 },
	{ HWPROF_INDEX_PAPI, 64, 0xffff, 8, 3 },
	{ HWPROF_INDEX_PAPI, 64, 0x10000, 7, 3 },
	{ HWPROF_INDEX_PAPI, 64, 0x20000, 3, 3 },
	/* glibc profil: ((d / 2) * s) >> 16; at 0x20000 only even buckets */
	{ HWPROF_INDEX_PROFIL, 16, 2, 0x3ffff, 3 },
	{ HWPROF_INDEX_PROFIL, 16, 0x4000, 31, 3 },
	{ HWPROF_INDEX_PROFIL, 16, 0x8000, 15, 3 },
	{ HWPROF_INDEX_PROFIL, 16, 0xffff, 9, 3 }, /* 4*0xffff < 4<<16 */
	{ HWPROF_INDEX_PROFIL, 16, 0x10000, 7, 3 },
	{ HWPROF_INDEX_PROFIL, 16, 0x20000, 3, 2 },
	{ HWPROF_INDEX_PROFIL, 32, 0x10000, 7, 3 },
	{ HWPROF_INDEX_PROFIL, 64, 0x10000, 7, 3 },
	/* sprofil: ((d / E) * s) >> 16, E = bucket bytes */
	{ HWPROF_INDEX_SPROFIL, 16, 2, 0x3ffff, 3 },
	{ HWPROF_INDEX_SPROFIL, 16, 0x4000, 31, 3 },
	{ HWPROF_INDEX_SPROFIL, 16, 0x8000, 15, 3 },
	{ HWPROF_INDEX_SPROFIL, 16, 0xffff, 9, 3 },
	{ HWPROF_INDEX_SPROFIL, 16, 0x10000, 7, 3 },
	{ HWPROF_INDEX_SPROFIL, 16, 0x20000, 3, 2 },
	{ HWPROF_INDEX_SPROFIL, 32, 2, 0x7ffff, 3 },
	{ HWPROF_INDEX_SPROFIL, 32, 0x4000, 63, 3 },
	{ HWPROF_INDEX_SPROFIL, 32, 0x8000, 31, 3 },
	{ HWPROF_INDEX_SPROFIL, 32, 0xffff, 19, 3 },
	{ HWPROF_INDEX_SPROFIL, 32, 0x10000, 15, 3 },
	{ HWPROF_INDEX_SPROFIL, 32, 0x20000, 7, 2 },
	{ HWPROF_INDEX_SPROFIL, 64, 2, 0xfffff, 3 },
	{ HWPROF_INDEX_SPROFIL, 64, 0x4000, 127, 3 },
	{ HWPROF_INDEX_SPROFIL, 64, 0x8000, 63, 3 },
	{ HWPROF_INDEX_SPROFIL, 64, 0xffff, 39, 3 },
	{ HWPROF_INDEX_SPROFIL, 64, 0x10000, 31, 3 },
	{ HWPROF_INDEX_SPROFIL, 64, 0x20000, 15, 2 },
};

static void test_edges(void)
{
	for (size_t k = 0; k < sizeof(edges) / sizeof(edges[0]); k++) {
		const struct edge *e = &edges[k];
		static struct gbuf g;
		struct hwprof_region r = {
			.size = 4 * e->width / 8,
			.offset = O,
			.scale = e->scale,
			.width = e->width,
		};
		uint64_t ips[] = { O, O + e->last_d, O + e->last_d + 1, O - 1 };
		struct hwprof_hist_stats st;
		struct hwprof_hist *h;
		uint64_t b = 99;
		size_t reg = 99;

		r.base = gbuf_init(&g, r.size);
		h = mk(&r, 1, e->index, HWPROF_FOLD_POSIX, 0, 0);
		if (!h)
			continue;
		T_CHECK(hwprof_hist_fold(h, ips, NULL, 4, NULL) == 2, "row %zu", k);
		T_CHECK(bucket(r.base, e->width, 0) == 1, "row %zu: first byte", k);
		T_CHECK(bucket(r.base, e->width, e->last_bucket) == 1 + (e->last_bucket == 0),
			"row %zu: last byte", k);
		st = stats(h);
		T_CHECK(st.samples == 4 && st.folded == 2 && st.outside == 2,
			"row %zu: stats %llu %llu %llu", k, (unsigned long long)st.samples,
			(unsigned long long)st.folded, (unsigned long long)st.outside);
		T_CHECK(hwprof_hist_locate(h, O + e->last_d, &reg, &b) == 1 && reg == 0 &&
				b == e->last_bucket,
			"row %zu: locate", k);
		T_CHECK(hwprof_hist_locate(h, O + e->last_d + 1, NULL, NULL) == 0,
			"row %zu: one past the end", k);
		T_CHECK(gbuf_intact(&g), "row %zu: write outside the buffer", k);
		hwprof_hist_free(h);
	}
}

/* A few interior points, including the 0xffff drift and scale 2 off 0. */
static void test_points(void)
{
	static const struct {
		unsigned int index;
		uint32_t width, scale;
		uint64_t d, want;
	} pt[] = {
		{ HWPROF_INDEX_PAPI, 16, 0xffff, 2, 0 }, /* 131070 >> 17 */
		{ HWPROF_INDEX_PAPI, 16, 0xffff, 3, 1 },
		{ HWPROF_INDEX_PAPI, 32, 0x20000, 5, 5 }, /* one byte each */
		{ HWPROF_INDEX_PAPI, 64, 0x10000, 9, 4 },
		{ HWPROF_INDEX_PAPI, 16, 2, 0xffff, 0 }, /* d >> 16 */
		{ HWPROF_INDEX_PAPI, 16, 2, 0x10000, 1 },
		{ HWPROF_INDEX_PROFIL, 16, 0x20000, 5, 4 }, /* halves first */
		{ HWPROF_INDEX_PROFIL, 16, 0x8000, 5, 1 },
		{ HWPROF_INDEX_SPROFIL, 32, 0x10000, 9, 2 },
		{ HWPROF_INDEX_SPROFIL, 64, 0x10000, 9, 1 },
	};

	for (size_t k = 0; k < sizeof(pt) / sizeof(pt[0]); k++) {
		static struct gbuf g;
		struct hwprof_region r = {
			.size = 16 * pt[k].width / 8,
			.offset = O,
			.scale = pt[k].scale,
			.width = pt[k].width,
		};
		uint64_t ip = O + pt[k].d;
		struct hwprof_hist *h;

		r.base = gbuf_init(&g, r.size);
		h = mk(&r, 1, pt[k].index, 0, 0, 0);
		if (!h)
			continue;
		hwprof_hist_fold(h, &ip, NULL, 1, NULL);
		T_CHECK(bucket(r.base, r.width, pt[k].want) == 1, "point %zu", k);
		hwprof_hist_free(h);
	}
}

/* A size that is not a bucket multiple: the partial bucket is never used. */
static void test_partial(void)
{
	static struct gbuf g;
	struct hwprof_region r = {
		.size = 3,
		.offset = O,
		.scale = 0x10000,
		.width = 16,
	};
	uint64_t ips[] = { O, O + 1, O + 2, O + 3 };
	struct hwprof_hist_stats st;
	struct hwprof_hist *h;
	size_t where = 9;

	r.base = gbuf_init(&g, 3);
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = &r,
		.nregions = 1,
		.index = HWPROF_INDEX_PAPI,
	};
	T_EQ(hwprof_hist_check(&o, &where), HWPROF_HIST_EPARTIAL);
	T_EQ(where, 0);
	T_EQ(hwprof_hist_new(&o, &h), -EINVAL);

	h = mk(&r, 1, HWPROF_INDEX_PAPI, 0, HWPROF_HIST_PARTIAL, 0);
	if (!h)
		return;
	hwprof_hist_fold(h, ips, NULL, 4, NULL);
	st = stats(h);
	T_EQ(bucket(r.base, 16, 0), 2);
	T_EQ(((unsigned char *)r.base)[2], 0); /* the partial byte */
	T_EQ(st.outside, 2);
	T_CHECK(gbuf_intact(&g), "write outside a 3-byte buffer");
	hwprof_hist_free(h);
}

/* The overflow bin counts every pc in no region, wherever it stands. */
static void test_bin(void)
{
	for (int pos = 0; pos < 3; pos++) {
		static struct gbuf gb, g1, g2;
		struct hwprof_region a = {
			.size = 8,
			.offset = O,
			.scale = 0x10000,
			.width = 16,
		};
		struct hwprof_region b = {
			.size = 8,
			.offset = O + 0x100,
			.scale = 0x10000,
			.width = 16,
		};
		struct hwprof_region bin = {
			.size = 4,
			.offset = 0,
			.scale = 2,
			.width = 32,
		};
		struct hwprof_region t[3];
		/* below, in a, a's end, between, in b, above, 0, top */
		uint64_t ips[] = { O - 1,     O + 1,	 O + 8, O + 0x80,
				   O + 0x107, O + 0x108, 0,	UINT64_MAX };
		struct hwprof_hist_stats st;
		struct hwprof_hist *h;
		size_t reg = 9, binpos;

		a.base = gbuf_init(&g1, 8);
		b.base = gbuf_init(&g2, 8);
		bin.base = gbuf_init(&gb, 4);
		binpos = (size_t)pos;
		t[binpos] = bin;
		t[binpos == 0 ? 1 : 0] = a;
		t[binpos == 2 ? 1 : 2] = b;
		h = mk(t, 3, HWPROF_INDEX_PAPI, 0, 0, 0);
		if (!h)
			continue;
		T_EQ(hwprof_hist_fold(h, ips, NULL, 8, NULL), 8);
		T_CHECK(bucket(bin.base, 32, 0) == 6, "bin at %d: %llu", pos,
			(unsigned long long)bucket(bin.base, 32, 0));
		T_EQ(bucket(a.base, 16, 0), 1);
		T_EQ(bucket(b.base, 16, 3), 1);
		st = stats(h);
		T_EQ(st.outside, 0);
		T_EQ(st.folded, 8);
		T_CHECK(hwprof_hist_locate(h, O - 1, &reg, NULL) == 2 && reg == binpos,
			"locate bin at %d", pos);
		T_CHECK(gbuf_intact(&gb) && gbuf_intact(&g1) && gbuf_intact(&g2),
			"write outside at %d", pos);
		hwprof_hist_free(h);
	}
}

/* Counters stop at their maximum and every clipped increment is counted. */
static void test_saturation(void)
{
	static const uint32_t widths[] = { 16, 32, 64 };

	for (size_t k = 0; k < 3; k++) {
		uint32_t w = widths[k];
		uint64_t max = w == 64 ? UINT64_MAX : (1ull << w) - 1;
		static struct gbuf g, gb;
		struct hwprof_region t[2] = {
			{ .size = 2 * w / 8, .offset = O, .scale = 0x10000, .width = w },
			{ .size = w / 8, .offset = 0, .scale = 2, .width = w },
		};
		uint64_t ips[] = { O, O, O, 1, 1, 1 };
		uint64_t wts[] = { 1, 1, 1, 1, 1, 1 };
		struct hwprof_hist_stats st;
		struct hwprof_hist *h;

		t[0].base = gbuf_init(&g, t[0].size);
		t[1].base = gbuf_init(&gb, t[1].size);
		set_bucket(t[0].base, w, 0, max - 1);
		set_bucket(t[1].base, w, 0, max - 1);
		h = mk(t, 2, HWPROF_INDEX_PAPI, 0, 0, 0);
		if (!h)
			continue;
		T_EQ(hwprof_hist_fold(h, ips, NULL, 6, NULL), 6);
		T_EQ(bucket(t[0].base, w, 0), max);
		T_EQ(bucket(t[1].base, w, 0), max);
		st = stats(h);
		T_CHECK(st.saturated == 4, "width %u: saturated %llu", w,
			(unsigned long long)st.saturated);
		/* the weighted path clips too: a big weight lands on max */
		set_bucket(t[0].base, w, 1, max - 5);
		ips[0] = O + 2;
		wts[0] = 1000;
		hwprof_hist_fold(h, ips, wts, 1, NULL);
		T_EQ(bucket(t[0].base, w, 1), max);
		T_EQ(stats(h).saturated, 5);
		T_CHECK(gbuf_intact(&g) && gbuf_intact(&gb), "width %u", w);
		hwprof_hist_free(h);
	}
}

/* The test's own copy of PAPI's generator. */
static uint32_t lcg_next(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x & 0xffffu;
}

static void test_random(void)
{
	enum {
		N = 4000
	};
	static uint64_t ips[N];
	static struct gbuf g;
	struct hwprof_region r = {
		.size = 64,
		.offset = O,
		.scale = 0x10000,
		.width = 64,
	};
	uint32_t ref = HWPROF_LCG_SEED, mine = HWPROF_LCG_SEED;
	uint64_t want[8] = { 0 }, kept = 0;
	struct hwprof_hist *h;

	r.base = gbuf_init(&g, 64);
	for (size_t i = 0; i < N; i++) {
		/* every third pc is outside: it must not advance the generator */
		ips[i] = i % 3 == 2 ? O + 0x1000 : O + 2 * (i % 8);
		if (i % 3 == 2)
			continue;
		if (lcg_next(&ref) > 0x3fff) {
			want[i % 8]++;
			kept++;
		}
	}
	h = mk(&r, 1, HWPROF_INDEX_PAPI, HWPROF_FOLD_RANDOM, 0, 0);
	if (!h)
		return;
	T_EQ(hwprof_hist_fold(h, ips, NULL, N, &mine), kept);
	for (int b = 0; b < 8; b++)
		T_CHECK(bucket(r.base, 64, b) == want[b], "bucket %d", b);
	T_EQ(mine, ref); /* one draw per sample that reached a bucket */
	T_EQ(stats(h).dropped, N - N / 3 - kept);
	/* about a quarter dropped */
	T_CHECK(kept * 100 > 70 * (N - N / 3) && kept * 100 < 80 * (N - N / 3), "kept %llu",
		(unsigned long long)kept);

	/* NULL state: the histogram's own, seeded like PAPI, so reproducible */
	memset(r.base, 0, 64);
	hwprof_hist_fold(h, ips, NULL, N, NULL);
	for (int b = 0; b < 8; b++)
		T_CHECK(bucket(r.base, 64, b) == want[b], "own state, bucket %d", b);
	hwprof_hist_free(h);
}

static void test_compress(void)
{
	enum {
		N = 3000
	};
	static uint64_t ips[N];
	static struct gbuf g;
	struct hwprof_region r = {
		.size = 8,
		.offset = O,
		.scale = 0x10000,
		.width = 32,
	};
	uint32_t ref = 777, mine = 777;
	uint64_t v0 = 60000, v1 = 0, refused = 0;
	struct hwprof_hist *h;

	r.base = gbuf_init(&g, 8);
	set_bucket(r.base, 32, 0, 60000);
	for (size_t i = 0; i < N; i++) {
		uint64_t *v = i & 1 ? &v1 : &v0;

		ips[i] = O + 2 * (i & 1);
		if (lcg_next(&ref) < *v)
			refused++;
		else
			(*v)++;
	}
	h = mk(&r, 1, HWPROF_INDEX_PAPI, HWPROF_FOLD_COMPRESS, 0, 0);
	if (!h)
		return;
	hwprof_hist_fold(h, ips, NULL, N, &mine);
	T_EQ(bucket(r.base, 32, 0), v0);
	T_EQ(bucket(r.base, 32, 1), v1);
	T_EQ(stats(h).refused, refused);
	/* keep probability (65536 - 60000) / 65536, about 8.4% of 1500 */
	T_CHECK(v0 - 60000 > 60 && v0 - 60000 < 200, "kept %llu at 60000",
		(unsigned long long)(v0 - 60000));
	/* a bucket at 65536 or more never grows again */
	set_bucket(r.base, 32, 0, 70000);
	for (size_t i = 0; i < 100; i++)
		ips[i] = O;
	hwprof_hist_fold(h, ips, NULL, 100, &mine);
	T_EQ(bucket(r.base, 32, 0), 70000);
	hwprof_hist_free(h);
}

/* RANDOM then COMPRESS: two draws per sample, in that order. */
static void test_random_compress(void)
{
	enum {
		N = 500
	};
	static uint64_t ips[N];
	static struct gbuf g;
	struct hwprof_region r = {
		.size = 2,
		.offset = O,
		.scale = 0x10000,
		.width = 16,
	};
	uint32_t ref = HWPROF_LCG_SEED, mine = HWPROF_LCG_SEED;
	uint64_t v = 30000;
	struct hwprof_hist *h;

	r.base = gbuf_init(&g, 2);
	set_bucket(r.base, 16, 0, v);
	for (size_t i = 0; i < N; i++) {
		ips[i] = O;
		if (lcg_next(&ref) <= 0x3fff)
			continue;
		if (lcg_next(&ref) < v)
			continue;
		v++;
	}
	h = mk(&r, 1, HWPROF_INDEX_PAPI, HWPROF_FOLD_RANDOM | HWPROF_FOLD_COMPRESS, 0, 0);
	if (!h)
		return;
	hwprof_hist_fold(h, ips, NULL, N, &mine);
	T_EQ(bucket(r.base, 16, 0), v);
	T_EQ(mine, ref);
	hwprof_hist_free(h);
}

static void test_weighted(void)
{
	static const struct {
		uint64_t threshold, excess, inc;
	} wt[] = {
		{ 1000, 0, 1 },	     { 1000, 1, 1 },
		{ 1000, 2, 1 },	     /* 2 / 3 is 0 in PAPI; at least 1 here */
		{ 1000, 500, 166 },  /* 500 / (1000 / 255) */
		{ 1000, 1000, 255 }, /* 333, kept within 255 */
		{ 1000, 1001, 255 }, /* above the threshold */
		{ 100, 50, 50 },     /* PAPI divides by 100 / 255 = 0 here */
		{ 100, 100, 100 },   { 100, 101, 255 },
		{ 255, 254, 254 },
	};

	for (size_t k = 0; k < sizeof(wt) / sizeof(wt[0]); k++) {
		static struct gbuf g;
		struct hwprof_region r = {
			.size = 8,
			.offset = O,
			.scale = 0x10000,
			.width = 64,
		};
		uint64_t ip = O, ex = wt[k].excess;
		struct hwprof_hist *h;

		r.base = gbuf_init(&g, 8);
		h = mk(&r, 1, HWPROF_INDEX_PAPI, HWPROF_FOLD_WEIGHTED, 0, wt[k].threshold);
		if (!h)
			continue;
		hwprof_hist_fold(h, &ip, &ex, 1, NULL);
		T_CHECK(bucket(r.base, 64, 0) == wt[k].inc, "row %zu: %llu", k,
			(unsigned long long)bucket(r.base, 64, 0));
		hwprof_hist_fold(h, &ip, NULL, 1, NULL); /* no excess: 1 */
		T_EQ(bucket(r.base, 64, 0), wt[k].inc + 1);
		hwprof_hist_free(h);
	}
}

/* POSIX with weights adds each weight; a weight of 0 adds nothing. */
static void test_weights(void)
{
	static struct gbuf g;
	struct hwprof_region r = {
		.size = 8,
		.offset = O,
		.scale = 0x10000,
		.width = 32,
	};
	uint64_t ips[] = { O, O, O + 2, O + 0x1000 };
	uint64_t w[] = { 5, 0, 7, 9 };
	struct hwprof_hist *h;

	r.base = gbuf_init(&g, 8);
	h = mk(&r, 1, HWPROF_INDEX_PAPI, 0, 0, 0);
	if (!h)
		return;
	T_EQ(hwprof_hist_fold(h, ips, w, 4, NULL), 3);
	T_EQ(bucket(r.base, 32, 0), 5);
	T_EQ(bucket(r.base, 32, 1), 7);
	T_EQ(stats(h).outside, 1);
	hwprof_hist_free(h);
}

/* Overlapping regions: the largest offset not above the pc among those
 * holding it; the first in the table on ties. */
static void test_overlap(void)
{
	static struct gbuf g1, g2, g3;
	struct hwprof_region t[3] = {
		{ .size = 64, .offset = O, .scale = 0x10000, .width = 16 }, /* [O, O+64) */
		{ .size = 8,
		  .offset = O + 16,
		  .scale = 0x10000,
		  .width = 16 }, /* [O+16, O+24) */
		{ .size = 8,
		  .offset = O + 16,
		  .scale = 0x10000,
		  .width = 16 }, /* tie: loses */
	};
	uint64_t ips[] = { O + 15, O + 16, O + 23, O + 24, O + 63 };
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = t,
		.nregions = 3,
		.index = HWPROF_INDEX_PAPI,
	};
	struct hwprof_hist *h;
	size_t where = 0;

	t[0].base = gbuf_init(&g1, 64);
	t[1].base = gbuf_init(&g2, 8);
	t[2].base = gbuf_init(&g3, 8);
	T_EQ(hwprof_hist_check(&o, &where), HWPROF_HIST_EOVERLAP);
	T_EQ(where, 1);
	h = mk(t, 3, HWPROF_INDEX_PAPI, 0, HWPROF_HIST_OVERLAP, 0);
	if (!h)
		return;
	hwprof_hist_fold(h, ips, NULL, 5, NULL);
	T_EQ(bucket(t[0].base, 16, 7), 1);  /* O+15 */
	T_EQ(bucket(t[1].base, 16, 0), 1);  /* O+16 */
	T_EQ(bucket(t[1].base, 16, 3), 1);  /* O+23 */
	T_EQ(bucket(t[0].base, 16, 12), 1); /* O+24: back in the long one */
	T_EQ(bucket(t[0].base, 16, 31), 1); /* O+63 */
	for (int i = 0; i < 4; i++)
		T_EQ(bucket(t[2].base, 16, i), 0);
	hwprof_hist_free(h);
}

/* Unsorted tables are refused, or sorted with HWPROF_HIST_SORT; the
 * caller's indices still come back from locate. */
static void test_sort_and_skip(void)
{
	static struct gbuf g1, g2;
	struct hwprof_region t[3] = {
		{ .size = 8, .offset = O + 0x100, .scale = 0x10000, .width = 16 },
		{ .size = 8, .offset = O, .scale = 0x10000, .width = 16 },
		{ .base = NULL, .size = 0, .offset = O, .scale = 1, .width = 16 },
	};
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = t,
		.nregions = 2,
		.index = HWPROF_INDEX_SPROFIL,
	};
	struct hwprof_hist *h;
	size_t where = 0, reg = 9;

	t[0].base = gbuf_init(&g1, 8);
	t[1].base = gbuf_init(&g2, 8);
	T_EQ(hwprof_hist_check(&o, &where), HWPROF_HIST_EUNSORTED);
	T_EQ(where, 1);
	o.flags = HWPROF_HIST_SORT;
	o.nregions = 3;
	T_EQ(hwprof_hist_check(&o, &where), HWPROF_HIST_ESCALE); /* scale 1 */
	T_EQ(where, 2);
	o.flags |= HWPROF_HIST_SKIP_OFF;
	T_EQ(hwprof_hist_check(&o, &where), HWPROF_HIST_OK);
	h = mk(t, 3, HWPROF_INDEX_SPROFIL, 0, HWPROF_HIST_SORT | HWPROF_HIST_SKIP_OFF, 0);
	if (!h)
		return;
	T_CHECK(hwprof_hist_locate(h, O + 0x101, &reg, NULL) == 1 && reg == 0, "reg %zu", reg);
	T_CHECK(hwprof_hist_locate(h, O + 1, &reg, NULL) == 1 && reg == 1, "reg %zu", reg);
	hwprof_hist_free(h);
}

/* Every rule has its own fault code and names the region at fault. */
static void test_faults(void)
{
	static uint16_t buf[64];
	const struct hwprof_region ok = {
		.base = buf,
		.size = 8,
		.offset = O,
		.scale = 0x10000,
		.width = 16,
	};
	const struct hwprof_region ok2 = {
		.base = buf + 8,
		.size = 8,
		.offset = O + 0x100,
		.scale = 0x10000,
		.width = 16,
	};
	const struct hwprof_region bin = {
		.base = buf + 16,
		.size = 2,
		.offset = 0,
		.scale = 2,
		.width = 16,
	};
	static const struct {
		int fault;
		size_t where;
		unsigned int index;
		int field; /* which field of region 1 to spoil */
		uint64_t value;
	} rows[] = {
		{ HWPROF_HIST_EWIDTH, 1, HWPROF_INDEX_PAPI, 'w', 8 },
		{ HWPROF_HIST_EWIDTH, 1, HWPROF_INDEX_PAPI, 'w', 128 },
		{ HWPROF_HIST_ESCALE, 1, HWPROF_INDEX_PAPI, 's', 0 },
		{ HWPROF_HIST_ESCALE, 1, HWPROF_INDEX_PAPI, 's', 1 },
		{ HWPROF_HIST_ESCALE, 1, HWPROF_INDEX_PAPI, 's', 0x10001 },
		{ HWPROF_HIST_ESCALE, 1, HWPROF_INDEX_PAPI, 's', 0x1ffff },
		{ HWPROF_HIST_ESCALE, 1, HWPROF_INDEX_PAPI, 's', 0x20001 },
		{ HWPROF_HIST_OK, 0, HWPROF_INDEX_SPROFIL, 's', 0x10001 },
		{ HWPROF_HIST_ESCALE, 1, HWPROF_INDEX_SPROFIL, 's', 0x20001 },
		{ HWPROF_HIST_ESCALE, 1, HWPROF_INDEX_PROFIL, 's', 0 },
		{ HWPROF_HIST_EZEROSIZE, 1, HWPROF_INDEX_PAPI, 'z', 0 },
		{ HWPROF_HIST_EPARTIAL, 1, HWPROF_INDEX_PAPI, 'z', 7 },
		{ HWPROF_HIST_EPARTIAL, 1, HWPROF_INDEX_PAPI, 'z', 1 },
		{ HWPROF_HIST_EBIG, 1, HWPROF_INDEX_PAPI, 'z', (1ull << 47) + 2 },
		{ HWPROF_HIST_EBASE, 1, HWPROF_INDEX_PAPI, 'b', 0 },
		{ HWPROF_HIST_EBASE, 1, HWPROF_INDEX_PAPI, 'b', UINT64_MAX - 3 },
		{ HWPROF_HIST_EUNSORTED, 1, HWPROF_INDEX_PAPI, 'o', O - 0x100 },
		{ HWPROF_HIST_EOVERLAP, 1, HWPROF_INDEX_PAPI, 'o', O + 7 },
		{ HWPROF_HIST_OK, 0, HWPROF_INDEX_PAPI, 'o', O + 8 }, /* touching */
		{ HWPROF_HIST_EBIN, 2, HWPROF_INDEX_PAPI, 'B', 0 },
	};

	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct hwprof_region t[3] = { ok, ok2, bin };
		struct hwprof_hist_opts o = {
			.sz = sizeof(o),
			.regions = t,
			.nregions = 2,
			.index = rows[k].index,
		};
		struct hwprof_hist *h = NULL;
		size_t where = 77;
		int f, ret;

		switch (rows[k].field) {
		case 'w':
			t[1].width = (uint32_t)rows[k].value;
			break;
		case 's':
			t[1].scale = (uint32_t)rows[k].value;
			break;
		case 'z':
			t[1].size = (size_t)rows[k].value;
			break;
		case 'b':
			t[1].base = (void *)(uintptr_t)rows[k].value;
			t[1].size = 8;
			break;
		case 'o':
			t[1].offset = rows[k].value;
			break;
		case 'B':
			t[1] = bin;
			o.nregions = 3;
			break;
		}
		f = hwprof_hist_check(&o, &where);
		T_CHECK(f == rows[k].fault, "row %zu: fault %d (%s), want %d", k, f,
			hwprof_hist_strfault(f), rows[k].fault);
		T_CHECK(where == rows[k].where, "row %zu: where %zu", k, where);
		ret = hwprof_hist_new(&o, &h);
		T_CHECK(rows[k].fault ? ret == -EINVAL && !h : ret == 0 && h,
			"row %zu: new %d", k, ret);
		hwprof_hist_free(h);
	}

	/* options themselves */
	struct hwprof_region t1[1] = { ok };
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = t1,
		.nregions = 1,
		.index = HWPROF_INDEX_PAPI,
	};
	struct hwprof_hist *h = NULL;
	struct {
		struct hwprof_hist_opts o;
		uint64_t tail;
	} big = { o, 0 };

	o.index = 0;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_EOPTS);
	o.index = 4;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_EOPTS);
	o.index = HWPROF_INDEX_PAPI;
	o.fold = 0x8;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_EOPTS);
	o.fold = 0;
	o.flags = 1u << 4;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_EOPTS);
	o.flags = 0;
	o.fold = HWPROF_FOLD_WEIGHTED;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_ETHRESHOLD);
	o.fold = 0;
	o.nregions = HWPROF_HIST_MAX_REGIONS + 1;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_ETOOMANY);
	T_EQ(hwprof_hist_new(&o, &h), -E2BIG);
	o.nregions = 1;
	o.regions = NULL;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_EOPTS);
	T_EQ(hwprof_hist_check(NULL, NULL), HWPROF_HIST_EOPTS);
	T_EQ(hwprof_hist_new(NULL, &h), -EINVAL);
	o.regions = t1;
	T_EQ(hwprof_hist_new(&o, NULL), -EINVAL);
	o.sz = 4;
	T_EQ(hwprof_hist_new(&o, &h), -EINVAL);

	/* a larger struct from a newer header: fine if its tail is zero */
	big.o.sz = sizeof(big);
	T_EQ(hwprof_hist_check(&big.o, NULL), HWPROF_HIST_OK);
	big.tail = 1;
	T_EQ(hwprof_hist_check(&big.o, NULL), HWPROF_HIST_EOPTS);

	/* an older, smaller struct: the missing threshold reads as 0 */
	o.sz = offsetof(struct hwprof_hist_opts, threshold);
	T_EQ(hwprof_hist_new(&o, &h), 0);
	hwprof_hist_free(h);

	for (int f = 0; f <= HWPROF_HIST_EBIN; f++)
		T_CHECK(strcmp(hwprof_hist_strfault(f), "unknown fault") != 0,
			"fault %d has no text", f);
	T_CHECK(strcmp(hwprof_hist_strfault(-1), "unknown fault") == 0, "-1");
	T_CHECK(strcmp(hwprof_hist_strfault(1000), "unknown fault") == 0, "1000");
	hwprof_hist_free(NULL);
}

/* No region at all: everything is outside, nothing crashes. */
static void test_empty(void)
{
	struct hwprof_hist *h = mk(NULL, 0, HWPROF_INDEX_PAPI, 0, 0, 0);
	uint64_t ips[] = { 0, 1, UINT64_MAX };
	struct hwprof_hist_stats st = { .sz = sizeof(size_t) + 8 };

	if (!h)
		return;
	T_EQ(hwprof_hist_fold(h, ips, NULL, 3, NULL), 0);
	T_EQ(hwprof_hist_fold(h, NULL, NULL, 3, NULL), 0);
	T_EQ(hwprof_hist_fold(NULL, ips, NULL, 3, NULL), 0);
	T_EQ(hwprof_hist_locate(h, 5, NULL, NULL), 0);
	T_EQ(hwprof_hist_locate(NULL, 5, NULL, NULL), 0);
	st.outside = 12345;
	T_EQ(hwprof_hist_stats(h, &st), 0); /* old, shorter struct */
	T_EQ(st.samples, 3);
	T_EQ(st.outside, 12345); /* beyond its sz: untouched */
	st.sz = 0;
	T_EQ(hwprof_hist_stats(h, &st), -EINVAL);
	T_EQ(hwprof_hist_stats(NULL, &st), -EINVAL);
	hwprof_hist_free(h);
}

/* A region that reaches the top of the address space. */
static void test_top(void)
{
	static struct gbuf g;
	struct hwprof_region r = {
		.size = 64,
		.offset = UINT64_MAX - 7,
		.scale = 0x20000,
		.width = 16,
	};
	uint64_t ips[] = { UINT64_MAX, UINT64_MAX - 7, 0 };
	struct hwprof_hist *h;

	r.base = gbuf_init(&g, 64);
	h = mk(&r, 1, HWPROF_INDEX_PAPI, 0, 0, 0);
	if (!h)
		return;
	T_EQ(hwprof_hist_fold(h, ips, NULL, 3, NULL), 2);
	T_EQ(bucket(r.base, 16, 7), 1);
	T_EQ(bucket(r.base, 16, 0), 1);
	T_EQ(stats(h).outside, 1);
	T_CHECK(gbuf_intact(&g), "top");
	hwprof_hist_free(h);
}

int main(void)
{
	test_edges();
	test_points();
	test_partial();
	test_bin();
	test_saturation();
	test_random();
	test_compress();
	test_random_compress();
	test_weighted();
	test_weights();
	test_overlap();
	test_sort_and_skip();
	test_faults();
	test_empty();
	test_top();
	return t_done("test-hist");
}
