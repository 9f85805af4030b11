/* SPDX-License-Identifier: MIT */
/*
 * The calling-context tree and the hash index under it (lib/hist/cct.c,
 * htab.c): a node is kept once and found again across the index's
 * growth, object and parent tell nodes apart, the limits on nodes and
 * depth hold (a full tree still finds its nodes), zeroing forgets every
 * node, and the index finds entries whose hashes are all equal.
 */
#include <stdint.h>

#include "harness.h"
#include "../lib/hist/cct.h"

static void shape(void)
{
	struct hwp_cct t = { 0 };
	long m = hwp_cct_node(&t, HWP_CCT_ROOT, 0, 0x1000);
	long a = hwp_cct_node(&t, (uint32_t)m, 0, 0x1010);
	long b = hwp_cct_node(&t, (uint32_t)a, 0, 0x1100);
	long b2 = hwp_cct_node(&t, (uint32_t)m, 0, 0x1100);
	long o = hwp_cct_node(&t, (uint32_t)m, 7, 0x1100);

	T_EQ(m, 0);
	T_EQ(a, 1);
	T_EQ(b, 2);
	T_EQ(b2, 3); /* the same address under another caller */
	T_EQ(o, 4);  /* the same address in another object */
	T_EQ(t.n, 5);
	T_EQ(hwp_cct_node(&t, (uint32_t)a, 0, 0x1100), b); /* found, not added */
	T_EQ(hwp_cct_node(&t, (uint32_t)m, 7, 0x1100), o);
	T_EQ(t.n, 5);
	T_EQ(t.node[b].depth, 3);
	T_EQ(t.node[b].parent, a);
	T_EQ(t.node[o].object, 7);
	T_EQ(t.node[m].depth, 1);
	T_EQ(t.node[m].parent, HWP_CCT_ROOT);
	hwp_cct_free(&t);
}

/* 200000 nodes, node i under node i / 8: the index grows 9 times; each is
 * found again with its number, none added twice. */
static void growth(void)
{
	struct hwp_cct t = { 0 };
	const uint32_t n = 200000;
	uint32_t bad = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t parent = i < 8 ? HWP_CCT_ROOT : i / 8;
			long x = hwp_cct_node(&t, parent, i % 3, 0x400000 + (uint64_t)i * 16);

			bad += x != (long)i;
		}
	}
	T_EQ(bad, 0);
	T_EQ(t.n, n);
	T_CHECK(t.index.nslot >= 2 * (size_t)n, "index of %zu slots", t.index.nslot);
	hwp_cct_free(&t);
}

static void limits(void)
{
	struct hwp_cct t = { .max = 4, .max_depth = 3 };
	long r = hwp_cct_node(&t, HWP_CCT_ROOT, 0, 1);
	long c = hwp_cct_node(&t, (uint32_t)r, 0, 2);
	long g = hwp_cct_node(&t, (uint32_t)c, 0, 3);

	T_EQ(g, 2);
	T_EQ(hwp_cct_node(&t, (uint32_t)g, 0, 4), -2); /* depth 4 */
	T_EQ(hwp_cct_node(&t, HWP_CCT_ROOT, 0, 5), 3);
	T_EQ(hwp_cct_node(&t, HWP_CCT_ROOT, 0, 6), -1); /* a fifth node */
	T_EQ(t.n, 4);
	T_EQ(hwp_cct_node(&t, (uint32_t)r, 0, 2), c); /* full: still found */
	T_EQ(hwp_cct_node(&t, HWP_CCT_ROOT, 0, 5), 3);
	hwp_cct_zero(&t);
	T_EQ(t.n, 0);
	T_EQ(hwp_cct_node(&t, HWP_CCT_ROOT, 0, 6), 0); /* forgotten: room again */
	T_EQ(hwp_cct_node(&t, HWP_CCT_ROOT, 0, 1), 1);
	hwp_cct_free(&t);
}

/* Every entry with the same hash: a search walks them all and the caller's
 * compare picks its own; growing keeps them. */
static void collisions(void)
{
	struct hwp_htab t = { 0 };
	const uint64_t h = 0x123456789abcdef0ull;
	uint32_t key[3000], bad = 0;

	for (uint32_t i = 0; i < 3000; i++) {
		size_t k;
		long e;

		key[i] = i * 7 + 1;
		T_EQ(hwp_htab_reserve(&t, i + 1), 0);
		for (k = hwp_htab_start(&t, h); (e = hwp_htab_find(&t, &k, h)) >= 0;
		     k = hwp_htab_step(&t, k))
			bad += key[e] == key[i];
		hwp_htab_put(&t, k, h, i);
	}
	for (uint32_t i = 0; i < 3000; i++) {
		size_t k;
		long e, found = -1;

		for (k = hwp_htab_start(&t, h); (e = hwp_htab_find(&t, &k, h)) >= 0;
		     k = hwp_htab_step(&t, k))
			if (key[e] == key[i])
				found = e;
		bad += found != (long)i;
	}
	T_EQ(bad, 0);
	T_EQ(t.nslot, 8192); /* 1024 doubled while 3000 > half */
	T_EQ(hwp_htab_reserve(&t, ((size_t)1 << 31) + 1), -1); /* past 2^31 */
	T_EQ(t.nslot, 8192);
	hwp_htab_free(&t);
}

int main(void)
{
	shape();
	growth();
	limits();
	collisions();
	return t_done("cct");
}
