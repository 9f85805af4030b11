/* SPDX-License-Identifier: MIT */
/*
 * The one histogram core: a region table compiled into a flat map of the
 * 64-bit address space, and the saturating batch fold every API uses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define SEG_NONE    UINT32_MAX
#define MAX_BUCKETS (1ull << 46) /* keeps every in-region product < 2^63 */

typedef unsigned __int128 u128;

/* One region as the fold sees it. */
struct hreg {
	unsigned char *base;
	uint64_t off;
	uint64_t nbuckets; /* whole buckets in the caller's size */
	uint32_t scale;
	uint8_t wshift; /* log2 of the bucket bytes: 1, 2 or 3 */
	uint8_t loop;	/* which specialised fold loop, see run() */
	size_t user;	/* index in the caller's table */
	u128 end;	/* first pc past the range, at most 2^64 */
};

/*
 * The address space cut into segments: segment i covers [start[i],
 * start[i+1]) (the last one up to 2^64) and folds into reg[owner[i]], or
 * into the overflow bin / "outside" when owner[i] is SEG_NONE. start[0] is
 * always 0, so every pc has exactly one segment.
 */
struct hwprof_hist {
	unsigned int index;
	unsigned int fold;
	uint64_t threshold;
	struct hreg *reg;
	size_t nreg;
	struct hreg bin; /* overflow bin, valid when has_bin */
	int has_bin;
	uint64_t *start;
	uint32_t *owner;
	size_t nseg;
	/* front[k] is the segment holding fa + (k << fshift), k <= nfront,
	 * for pcs in [fa, fa + fspan): the search starts a few segments wide */
	uint32_t *front;
	uint64_t fa, fspan;
	unsigned int fshift;
	uint32_t lcg;
	int off;	 /* a caller buffer faulted: nothing is written */
	const char *api; /* the call that gave the buffers, for messages */
	struct hwprof_hist_stats st;
};

/* ------------------------------------------------------------------ */
/* The index formula: idx = ((d >> pre) * scale) >> post, d = pc - off  */

static void formula(unsigned int index, unsigned int wshift, unsigned int *pre,
		    unsigned int *post)
{
	switch (index) {
	case HWPROF_INDEX_PAPI:
		*pre = 0;
		*post = 17;
		break;
	case HWPROF_INDEX_PROFIL:
		*pre = 1;
		*post = 16;
		break;
	default: /* SPROFIL divides by the bucket bytes */
		*pre = wshift;
		*post = 16;
		break;
	}
}

static int scale_ok(unsigned int index, uint32_t s)
{
	if (index == HWPROF_INDEX_PAPI)
		return (s >= 2 && s <= 0x10000) || s == 0x20000;
	return s >= 2 && s <= 0x20000;
}

static int is_bin(const struct hwprof_region *r)
{
	return r->offset == 0 && r->scale == 2;
}

static int width_shift(uint32_t width)
{
	switch (width) {
	case 16:
		return 1;
	case 32:
		return 2;
	case 64:
		return 3;
	}
	return -1;
}

/* First pc whose index is >= n: idx < n <=> (d >> pre) < ceil((n << post) / s). */
static u128 range_end(uint64_t off, uint64_t n, uint32_t s, unsigned int pre,
		      unsigned int post)
{
	u128 lim = ((u128)n << post);
	u128 u = (lim + s - 1) / s;
	u128 end = (u << pre) + off;
	u128 top = (u128)1 << 64;

	return end > top ? top : end;
}

static int opts_copy(const struct hwprof_hist_opts *in, struct hwprof_hist_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (!in || !hwp_user_opts_ok(in, in->sz, sizeof(*o)))
		return -1;
	memcpy(o, in, in->sz < sizeof(*o) ? in->sz : sizeof(*o));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Checking and compiling a table                                       */

static int cmp_off(const void *a, const void *b)
{
	const struct hreg *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->user < y->user ? -1 : x->user > y->user;
}

/*
 * Checks the table and, when out is not NULL, hands it the regions
 * that take part (scale 0/1 skipped, zero-bucket ones dropped), sorted by
 * offset then caller index, and the overflow bin. The one place the rules
 * live, so check and new can never disagree.
 */
static int table_check(const struct hwprof_hist_opts *o, size_t *where,
		       struct hwprof_hist *out)
{
	const unsigned int known = HWPROF_HIST_SORT | HWPROF_HIST_OVERLAP |
				   HWPROF_HIST_PARTIAL | HWPROF_HIST_SKIP_OFF;
	const unsigned int fold = HWPROF_FOLD_RANDOM | HWPROF_FOLD_WEIGHTED |
				  HWPROF_FOLD_COMPRESS;
	struct hreg *reg = NULL, bin = { 0 };
	size_t nreg = 0, i;
	int has_bin = 0, fault = HWPROF_HIST_OK;
	uint64_t prev_off = 0;
	int have_prev = 0;

	*where = 0;
	if (o->index < HWPROF_INDEX_PAPI || o->index > HWPROF_INDEX_SPROFIL ||
	    (o->fold & ~fold) || (o->flags & ~known) || (o->nregions && !o->regions))
		return HWPROF_HIST_EOPTS;
	if ((o->fold & HWPROF_FOLD_WEIGHTED) && !o->threshold)
		return HWPROF_HIST_ETHRESHOLD;
	if (o->nregions > HWPROF_HIST_MAX_REGIONS)
		return HWPROF_HIST_ETOOMANY;
	if (o->nregions) {
		reg = calloc(o->nregions, sizeof(*reg));
		if (!reg)
			return -ENOMEM;
	}

	for (i = 0; i < o->nregions; i++) {
		const struct hwprof_region *r = &o->regions[i];
		unsigned int pre, post;
		int ws = width_shift(r->width);
		struct hreg h;

		*where = i;
		if (r->scale < 2 && (o->flags & HWPROF_HIST_SKIP_OFF))
			continue;
		if (ws < 0) {
			fault = HWPROF_HIST_EWIDTH;
			goto out;
		}
		if (!is_bin(r) && !scale_ok(o->index, r->scale)) {
			fault = HWPROF_HIST_ESCALE;
			goto out;
		}
		if (!r->size) {
			fault = HWPROF_HIST_EZEROSIZE;
			goto out;
		}
		if (!r->base || (uintptr_t)r->base + r->size < (uintptr_t)r->base) {
			fault = HWPROF_HIST_EBASE;
			goto out;
		}
		if ((r->size & ((1u << ws) - 1)) && !(o->flags & HWPROF_HIST_PARTIAL)) {
			fault = HWPROF_HIST_EPARTIAL;
			goto out;
		}
		if ((r->size >> ws) > MAX_BUCKETS) {
			fault = HWPROF_HIST_EBIG;
			goto out;
		}

		memset(&h, 0, sizeof(h));
		h.base = r->base;
		h.off = r->offset;
		h.nbuckets = r->size >> ws;
		h.scale = r->scale;
		h.wshift = (uint8_t)ws;
		h.user = i;
		if (is_bin(r)) {
			if (has_bin) {
				fault = HWPROF_HIST_EBIN;
				goto out;
			}
			has_bin = 1;
			bin = h;
			continue;
		}
		if (!h.nbuckets) /* PARTIAL, smaller than one bucket */
			continue;
		if (have_prev && h.off < prev_off && !(o->flags & HWPROF_HIST_SORT)) {
			fault = HWPROF_HIST_EUNSORTED;
			goto out;
		}
		prev_off = h.off;
		have_prev = 1;
		formula(o->index, h.wshift, &pre, &post);
		h.end = range_end(h.off, h.nbuckets, h.scale, pre, post);
		h.loop = (uint8_t)((o->index - 1) * 3 + (h.wshift - 1));
		reg[nreg++] = h;
	}

	/* Overlap is judged in offset order, whatever order was given. */
	if (nreg)
		qsort(reg, nreg, sizeof(*reg), cmp_off);
	if (!(o->flags & HWPROF_HIST_OVERLAP)) {
		for (i = 1; i < nreg; i++) {
			if ((u128)reg[i].off < reg[i - 1].end) {
				size_t a = reg[i].user, b = reg[i - 1].user;

				*where = a > b ? a : b;
				fault = HWPROF_HIST_EOVERLAP;
				goto out;
			}
		}
	}

	if (out) {
		out->reg = reg;
		out->nreg = nreg;
		out->bin = bin;
		out->has_bin = has_bin;
		return HWPROF_HIST_OK;
	}
out:
	free(reg);
	return fault;
}

/*
 * Cuts the address space into segments. Where regions overlap the winner
 * is the one with the largest offset not above the pc, the first in the
 * caller's table on ties (HP-UX sprofil(2)); among the regions that hold
 * the pc, so a short region nested in a long one does not hide the rest of
 * the long one. A sweep over the sorted starts with a max-heap of the open
 * regions, closed ones dropped lazily: O(n log n).
 */
static int heap_above(const struct hreg *reg, uint32_t a, uint32_t b)
{
	if (reg[a].off != reg[b].off)
		return reg[a].off > reg[b].off;
	return reg[a].user < reg[b].user;
}

static void heap_push(const struct hreg *reg, uint32_t *hp, size_t *n, uint32_t v)
{
	size_t i = (*n)++;

	while (i && heap_above(reg, v, hp[(i - 1) / 2])) {
		hp[i] = hp[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	hp[i] = v;
}

static void heap_pop(const struct hreg *reg, uint32_t *hp, size_t *n)
{
	uint32_t v = hp[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && heap_above(reg, hp[c + 1], hp[c]))
			c++;
		if (!heap_above(reg, hp[c], v))
			break;
		hp[i] = hp[c];
		i = c;
	}
	if (*n)
		hp[i] = v;
}

static int cmp_u128(const void *a, const void *b)
{
	u128 x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x < y ? -1 : x > y;
}

static void seg_add(struct hwprof_hist *h, uint64_t at, uint32_t owner)
{
	if (h->nseg && h->owner[h->nseg - 1] == owner)
		return;
	if (h->nseg && h->start[h->nseg - 1] == at) {
		h->owner[h->nseg - 1] = owner; /* empty segment: replace */
		if (h->nseg > 1 && h->owner[h->nseg - 2] == owner)
			h->nseg--;
		return;
	}
	h->start[h->nseg] = at;
	h->owner[h->nseg] = owner;
	h->nseg++;
}

/*
 * The front table: the span between the first and last segment boundary
 * cut into nfront equal power-of-two blocks (about one per two segments,
 * at most 2^16), each naming the segment its first pc falls in. A pc's
 * segment then lies between two neighbouring entries.
 */
static int build_front(struct hwprof_hist *h)
{
	size_t nfront = 1, s = 0;

	h->fa = h->nseg > 1 ? h->start[1] : 0;
	if (h->nseg < 3)
		return 0; /* fspan 0: the two checks in seg_find() decide */
	h->fspan = h->start[h->nseg - 1] - h->fa;
	while (nfront < h->nseg / 2 && nfront < (1u << 16))
		nfront <<= 1;
	h->fshift = 0;
	while (h->fshift < 63 && ((h->fspan - 1) >> h->fshift) >= nfront)
		h->fshift++;
	/* a span above 2^63 with one block: a pc's block can be 1 at the
	 * largest shift, so there must be two (fuzz-hist found it) */
	if (((h->fspan - 1) >> h->fshift) >= nfront)
		nfront = 2;
	h->front = malloc((nfront + 1) * sizeof(*h->front));
	if (!h->front)
		return -ENOMEM;
	for (size_t k = 0; k < nfront; k++) {
		uint64_t pc = h->fa + ((uint64_t)k << h->fshift);

		if ((uint64_t)k << h->fshift >= h->fspan)
			pc = h->start[h->nseg - 1];
		while (s + 1 < h->nseg && h->start[s + 1] <= pc)
			s++;
		h->front[k] = (uint32_t)s;
	}
	h->front[nfront] = (uint32_t)(h->nseg - 1);
	return 0;
}

static int build_segments(struct hwprof_hist *h)
{
	const u128 top = (u128)1 << 64;
	size_t n = h->nreg, si = 0, ei = 0, hn = 0;
	uint32_t *hp;
	u128 *ends;

	h->start = malloc((2 * n + 1) * sizeof(*h->start));
	h->owner = malloc((2 * n + 1) * sizeof(*h->owner));
	hp = malloc((n + 1) * sizeof(*hp));
	ends = malloc((n + 1) * sizeof(*ends));
	if (!h->start || !h->owner || !hp || !ends) {
		free(hp);
		free(ends);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ends[i] = h->reg[i].end;
	qsort(ends, n, sizeof(*ends), cmp_u128);

	h->nseg = 0;
	seg_add(h, 0, SEG_NONE);
	while (si < n || ei < n) {
		u128 x = ei < n ? ends[ei] : top;

		if (si < n && (u128)h->reg[si].off < x)
			x = h->reg[si].off;
		if (x >= top)
			break;
		while (ei < n && ends[ei] == x)
			ei++;
		while (si < n && (u128)h->reg[si].off == x)
			heap_push(h->reg, hp, &hn, (uint32_t)si++);
		while (hn && h->reg[hp[0]].end <= x)
			heap_pop(h->reg, hp, &hn);
		seg_add(h, (uint64_t)x, hn ? hp[0] : SEG_NONE);
	}
	free(hp);
	free(ends);
	return build_front(h);
}

/* ------------------------------------------------------------------ */
/* Public table calls                                                   */

HWPROF_API int hwprof_hist_check(const struct hwprof_hist_opts *opts, size_t *where)
{
	struct hwprof_hist_opts o;
	size_t w = 0;
	int ret;

	if (opts_copy(opts, &o)) {
		ret = HWPROF_HIST_EOPTS;
	} else {
		ret = table_check(&o, &w, NULL);
		if (ret < 0) /* no memory to finish the check */
			ret = HWPROF_HIST_EOPTS;
	}
	if (where)
		*where = ret ? w : 0;
	return ret;
}

HWPROF_API const char *hwprof_hist_strfault(int fault)
{
	static const char *const msg[] = {
		[HWPROF_HIST_OK] = "no fault",
		[HWPROF_HIST_EOPTS] = "bad options (size, index formula, fold bits or flags)",
		[HWPROF_HIST_ETHRESHOLD] = "WEIGHTED fold needs a threshold",
		[HWPROF_HIST_ETOOMANY] = "too many regions",
		[HWPROF_HIST_EWIDTH] = "bucket width is not 16, 32 or 64 bits",
		[HWPROF_HIST_ESCALE] = "scale out of range for this index formula",
		[HWPROF_HIST_EZEROSIZE] = "region size is zero",
		[HWPROF_HIST_EBASE] = "region buffer is NULL or wraps the address space",
		[HWPROF_HIST_EPARTIAL] = "region size is not a multiple of the bucket size",
		[HWPROF_HIST_EBIG] = "region has more than 2^46 buckets",
		[HWPROF_HIST_EUNSORTED] = "regions are not sorted by offset",
		[HWPROF_HIST_EOVERLAP] = "regions overlap",
		[HWPROF_HIST_EBIN] = "more than one overflow bin",
	};

	if (fault < 0 || (size_t)fault >= sizeof(msg) / sizeof(msg[0]))
		return "unknown fault";
	return msg[fault];
}

/*
 * Every buffer the fold will write must be writable memory of this
 * process, or the fold (often on the drain thread) would crash far from
 * the call that handed it over: -EFAULT, as profil(3) and sprofil(3) say
 * for the same buffer. The maps are read once for the lot.
 */
int hwp_hist_writable(const struct hwprof_hist *h)
{
	void **base;
	size_t *len, n = 0;
	int ok;

	if (!h->nreg && !h->has_bin)
		return 0;
	base = malloc((h->nreg + 1) * sizeof(*base));
	len = malloc((h->nreg + 1) * sizeof(*len));
	if (!base || !len) {
		free(base);
		free(len);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->nreg; i++) {
		base[n] = h->reg[i].base;
		len[n++] = (size_t)h->reg[i].nbuckets << h->reg[i].wshift;
	}
	if (h->has_bin && h->bin.nbuckets) {
		base[n] = h->bin.base;
		len[n++] = (size_t)1 << h->bin.wshift; /* its first bucket */
	}
	ok = hwp_user_writable_all(base, len, n);
	free(base);
	free(len);
	return ok ? 0 : -EFAULT;
}

HWPROF_API int hwprof_hist_new(const struct hwprof_hist_opts *opts, struct hwprof_hist **out)
{
	struct hwprof_hist_opts o;
	struct hwprof_hist *h;
	size_t where;
	int ret;

	if (!out || opts_copy(opts, &o))
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	ret = table_check(&o, &where, h);
	if (ret) {
		free(h);
		if (ret < 0)
			return ret;
		return ret == HWPROF_HIST_ETOOMANY ? -E2BIG : -EINVAL;
	}
	ret = hwp_hist_writable(h);
	if (ret) {
		hwprof_hist_free(h);
		return ret;
	}
	h->index = o.index;
	h->fold = o.fold;
	h->threshold = o.threshold;
	h->lcg = HWPROF_LCG_SEED;
	h->api = "hwprof_hist_new";
	ret = build_segments(h);
	if (ret) {
		hwprof_hist_free(h);
		return ret;
	}
	*out = h;
	return 0;
}

HWPROF_API void hwprof_hist_free(struct hwprof_hist *h)
{
	if (!h)
		return;
	free(h->reg);
	free(h->start);
	free(h->owner);
	free(h->front);
	free(h);
}

HWPROF_API int hwprof_hist_stats(const struct hwprof_hist *h, struct hwprof_hist_stats *st)
{
	size_t sz;

	if (!h || !st || st->sz < sizeof(size_t))
		return -EINVAL;
	sz = st->sz < sizeof(*st) ? st->sz : sizeof(*st);
	memcpy((char *)st + sizeof(size_t), (const char *)&h->st + sizeof(size_t),
	       sz - sizeof(size_t));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Folding                                                              */

/* Last segment whose start is <= pc: the front table narrows the range,
 * a branch-free binary search finishes. */
static inline size_t seg_find(const struct hwprof_hist *h, uint64_t pc)
{
	uint64_t d = pc - h->fa;
	const uint64_t *base;
	size_t lo, n;

	if (d >= h->fspan) /* also every pc when nseg < 3 */
		return pc < h->fa ? 0 : h->nseg - 1;
	lo = h->front[d >> h->fshift];
	n = h->front[(d >> h->fshift) + 1] - lo + 1;
	base = h->start + lo;
	while (n > 1) {
		size_t half = n / 2;

		base = base[half] <= pc ? base + half : base;
		n -= half;
	}
	return (size_t)(base - h->start);
}

/* Segment s spans [lo, lo + lenm1]; the last one runs to 2^64 - 1. */
static inline uint64_t seg_lenm1(const struct hwprof_hist *h, size_t s)
{
	uint64_t next = s + 1 < h->nseg ? h->start[s + 1] : 0;

	return next - h->start[s] - 1;
}

static inline uint64_t bucket_idx(const struct hreg *r, uint64_t d, unsigned int pre,
				  unsigned int post)
{
	return ((d >> pre) * r->scale) >> post;
}

static inline uint64_t load_w(const unsigned char *p, unsigned int wshift)
{
	uint16_t a;
	uint32_t b;
	uint64_t c;

	switch (wshift) {
	case 1:
		memcpy(&a, p, 2);
		return a;
	case 2:
		memcpy(&b, p, 4);
		return b;
	default:
		memcpy(&c, p, 8);
		return c;
	}
}

static inline void store_w(unsigned char *p, unsigned int wshift, uint64_t v)
{
	uint16_t a = (uint16_t)v;
	uint32_t b = (uint32_t)v;

	switch (wshift) {
	case 1:
		memcpy(p, &a, 2);
		break;
	case 2:
		memcpy(p, &b, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

static inline uint64_t wmax(unsigned int wshift)
{
	return wshift == 3 ? UINT64_MAX : (1ull << (8u << wshift)) - 1;
}

/* Adds inc to the bucket at p, stopping at its maximum; returns 1 if clipped. */
static inline int add_sat(unsigned char *p, unsigned int wshift, uint64_t inc)
{
	uint64_t v = load_w(p, wshift), max = wmax(wshift);

	if (max - v < inc) {
		store_w(p, wshift, max);
		return 1;
	}
	store_w(p, wshift, v + inc);
	return 0;
}

/*
 * The POSIX fold of a run of pcs inside one region segment, specialised at
 * compile time for each formula and bucket width: this is the per-sample
 * cost of profiling. Stops at the first pc outside [lo, lo + lenm1]. When
 * the segment starts at the region's offset (always, unless an overlapping
 * region clipped it) one subtraction serves the range test and the index.
 */
#define RUN_LOOP(T, PRE, POST, FROM, DELTA)                         \
	for (; i < n; i++) {                                        \
		uint64_t d = ips[i] - (FROM), idx;                  \
		T v;                                                \
                                                                    \
		if (d > lenm1)                                      \
			break;                                      \
		idx = (((d + (DELTA)) >> (PRE)) * scale) >> (POST); \
		memcpy(&v, b + idx * sizeof(T), sizeof(T));         \
		if (unlikely(v == (T)-1)) {                         \
			clipped++;                                  \
			continue;                                   \
		}                                                   \
		v++;                                                \
		memcpy(b + idx * sizeof(T), &v, sizeof(T));         \
	}

#define DEFINE_RUN(name, T, PRE, POST)                                                        \
	static inline __attribute__((always_inline)) size_t name(const uint64_t *ips,         \
								 size_t i, size_t n,          \
								 uint64_t lo, uint64_t lenm1, \
								 const struct hreg *r,        \
								 uint64_t *sat)               \
	{                                                                                     \
		unsigned char *b = r->base;                                                   \
		const uint64_t off = r->off, delta = lo - off, scale = r->scale;              \
		uint64_t clipped = 0;                                                         \
                                                                                              \
		if (likely(!delta))                                                           \
			RUN_LOOP(T, PRE, POST, off, 0)                                        \
		else                                                                          \
			RUN_LOOP(T, PRE, POST, lo, delta)                                     \
		*sat += clipped;                                                              \
		return i;                                                                     \
	}

DEFINE_RUN(run_papi16, uint16_t, 0, 17)
DEFINE_RUN(run_papi32, uint32_t, 0, 17)
DEFINE_RUN(run_papi64, uint64_t, 0, 17)
DEFINE_RUN(run_profil16, uint16_t, 1, 16)
DEFINE_RUN(run_profil32, uint32_t, 1, 16)
DEFINE_RUN(run_profil64, uint64_t, 1, 16)
DEFINE_RUN(run_sprofil16, uint16_t, 1, 16)
DEFINE_RUN(run_sprofil32, uint32_t, 2, 16)
DEFINE_RUN(run_sprofil64, uint64_t, 3, 16)

/* hreg.loop = (index - 1) * 3 + (wshift - 1) picks the loop. */
static inline size_t run(const uint64_t *ips, size_t i, size_t n, uint64_t lo, uint64_t lenm1,
			 const struct hreg *r, uint64_t *sat)
{
	switch (r->loop) {
	case 0:
		return run_papi16(ips, i, n, lo, lenm1, r, sat);
	case 1:
		return run_papi32(ips, i, n, lo, lenm1, r, sat);
	case 2:
		return run_papi64(ips, i, n, lo, lenm1, r, sat);
	case 3:
		return run_profil16(ips, i, n, lo, lenm1, r, sat);
	case 4:
		return run_profil32(ips, i, n, lo, lenm1, r, sat);
	case 5:
		return run_profil64(ips, i, n, lo, lenm1, r, sat);
	case 6:
		return run_sprofil16(ips, i, n, lo, lenm1, r, sat);
	case 7:
		return run_sprofil32(ips, i, n, lo, lenm1, r, sat);
	default:
		return run_sprofil64(ips, i, n, lo, lenm1, r, sat);
	}
}

/* PAPI's generator: x = 1664525 x + 1013904223 (mod 2^32), low 16 bits. */
static inline uint32_t lcg_draw(uint32_t *x)
{
	*x = 1664525u * *x + 1013904223u;
	return *x & 0xffff;
}

/* PAPI's WEIGHTED increment, kept in 1..255 and free of its division by 0. */
static inline uint64_t weighted_inc(uint64_t excess, uint64_t threshold)
{
	uint64_t div, w;

	if (excess <= 1)
		return 1;
	if (excess > threshold)
		return 255;
	div = threshold / 255 ? threshold / 255 : 1;
	w = excess / div;
	return w < 1 ? 1 : w > 255 ? 255 : w;
}

/* Every mode and weights: one sample at a time. */
static size_t fold_general(struct hwprof_hist *h, const uint64_t *ips, const uint64_t *weights,
			   size_t n, uint32_t *lcg)
{
	struct hwprof_hist_stats *st = &h->st;
	uint64_t lo = 1, lenm1 = 0;
	uint32_t owner = SEG_NONE;
	size_t folded = 0;
	int valid = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t pc = ips[i], idx, v, inc;
		const struct hreg *r;
		unsigned char *p;

		if (!valid || pc - lo > lenm1) {
			size_t s = seg_find(h, pc);

			lo = h->start[s];
			lenm1 = seg_lenm1(h, s);
			owner = h->owner[s];
			valid = 1;
		}
		if (owner != SEG_NONE) {
			unsigned int pre, post;

			r = &h->reg[owner];
			formula(h->index, r->wshift, &pre, &post);
			idx = bucket_idx(r, pc - r->off, pre, post);
		} else if (h->has_bin && h->bin.nbuckets) {
			r = &h->bin;
			idx = 0;
		} else {
			st->outside++;
			continue;
		}
		p = r->base + (idx << r->wshift);
		v = load_w(p, r->wshift);
		if ((h->fold & HWPROF_FOLD_RANDOM) && lcg_draw(lcg) <= 0x3fff) {
			st->dropped++;
			continue;
		}
		if ((h->fold & HWPROF_FOLD_COMPRESS) && lcg_draw(lcg) < v) {
			st->refused++;
			continue;
		}
		if (h->fold & HWPROF_FOLD_WEIGHTED)
			inc = weighted_inc(weights ? weights[i] : 0, h->threshold);
		else
			inc = weights ? weights[i] : 1;
		st->saturated += (uint64_t)add_sat(p, r->wshift, inc);
		folded++;
	}
	return folded;
}

HWPROF_API size_t hwprof_hist_fold(struct hwprof_hist *h, const uint64_t *ips,
				   const uint64_t *weights, size_t n, uint32_t *lcg)
{
	struct hwprof_hist_stats *st;
	size_t i = 0, folded = 0;
	uint64_t sat = 0;

	if (!h || !ips || !n)
		return 0;
	st = &h->st;
	st->samples += n;
	if (unlikely(__atomic_load_n(&h->off, __ATOMIC_RELAXED))) {
		st->dropped += n;
		return 0;
	}
	if (h->fold != HWPROF_FOLD_POSIX || weights) {
		folded = fold_general(h, ips, weights, n, lcg ? lcg : &h->lcg);
		st->folded += folded;
		return folded;
	}

	while (i < n) {
		size_t s = seg_find(h, ips[i]), j;
		uint64_t lo = h->start[s], lenm1 = seg_lenm1(h, s);
		uint32_t owner = h->owner[s];

		if (owner != SEG_NONE) {
			const struct hreg *r = &h->reg[owner];

			j = run(ips, i, n, lo, lenm1, r, &sat);
			folded += j - i;
			i = j;
			continue;
		}
		for (j = i + 1; j < n && ips[j] - lo <= lenm1; j++)
			;
		if (h->has_bin && h->bin.nbuckets) {
			uint64_t k = j - i, v = load_w(h->bin.base, h->bin.wshift);
			uint64_t room = wmax(h->bin.wshift) - v;

			if (k > room) {
				st->saturated += k - room;
				k = room;
			}
			store_w(h->bin.base, h->bin.wshift, v + k);
			folded += j - i;
		} else {
			st->outside += j - i;
		}
		i = j;
	}
	st->saturated += sat;
	st->folded += folded;
	return folded;
}

HWPROF_API int hwprof_hist_locate(const struct hwprof_hist *h, uint64_t pc, size_t *region,
				  uint64_t *bucket)
{
	size_t s;
	uint32_t owner;

	if (!h)
		return 0;
	s = seg_find(h, pc);
	owner = h->owner[s];
	if (owner != SEG_NONE) {
		const struct hreg *r = &h->reg[owner];
		unsigned int pre, post;

		formula(h->index, r->wshift, &pre, &post);
		if (region)
			*region = r->user;
		if (bucket)
			*bucket = bucket_idx(r, pc - r->off, pre, post);
		return 1;
	}
	if (h->has_bin && h->bin.nbuckets) {
		if (region)
			*region = h->bin.user;
		if (bucket)
			*bucket = 0;
		return 2;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Buffers that faulted                                                 */

void hwp_hist_set_api(struct hwprof_hist *h, const char *api)
{
	if (h)
		h->api = api;
}

const char *hwp_hist_api(const struct hwprof_hist *h)
{
	return h->api;
}

static int reg_holds(const struct hreg *r, uintptr_t addr, size_t len)
{
	uintptr_t b = (uintptr_t)r->base;

	return addr >= b && addr - b < len;
}

/* Whether addr is in a buffer the fold writes: a hwp_owns_fn for
 * hwp_guard_run(), so it runs in a signal handler. */
int hwp_hist_owns(const void *ctx, uintptr_t addr)
{
	const struct hwprof_hist *h = ctx;

	for (size_t i = 0; i < h->nreg; i++)
		if (reg_holds(&h->reg[i], addr,
			      (size_t)h->reg[i].nbuckets << h->reg[i].wshift))
			return 1;
	return h->has_bin && h->bin.nbuckets &&
	       reg_holds(&h->bin, addr, (size_t)1 << h->bin.wshift);
}

/* "buffer 0x... (N bytes)", with the caller's region number when the
 * table has more than one. */
void hwp_hist_describe(const struct hwprof_hist *h, uintptr_t addr, char *buf, size_t len)
{
	const struct hreg *r = NULL;
	size_t bytes = 0;

	for (size_t i = 0; i < h->nreg && !r; i++) {
		bytes = (size_t)h->reg[i].nbuckets << h->reg[i].wshift;
		if (reg_holds(&h->reg[i], addr, bytes))
			r = &h->reg[i];
	}
	if (!r && h->has_bin) {
		r = &h->bin;
		bytes = (size_t)h->bin.nbuckets << h->bin.wshift;
	}
	if (!r) {
		snprintf(buf, len, "a buffer");
		return;
	}
	if (h->nreg + (size_t)h->has_bin > 1)
		snprintf(buf, len, "region %zu buffer %p (%zu bytes)", r->user,
			 (void *)r->base, bytes);
	else
		snprintf(buf, len, "buffer %p (%zu bytes)", (void *)r->base, bytes);
}

/* From now on every sample given to the fold is counted as dropped and
 * nothing is written. With the fold's caller's lock held. */
void hwp_hist_turn_off(struct hwprof_hist *h)
{
	struct hwprof_hist_stats *st = &h->st;
	uint64_t seen = st->folded + st->outside + st->dropped + st->refused;

	__atomic_store_n(&h->off, 1, __ATOMIC_RELAXED);
	/* a fold cut short by the fault counted its samples but not where
	 * they went: they are dropped */
	if (st->samples > seen)
		st->dropped += st->samples - seen;
}

int hwp_hist_is_off(const struct hwprof_hist *h)
{
	return __atomic_load_n(&h->off, __ATOMIC_RELAXED);
}
