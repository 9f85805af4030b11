/* SPDX-License-Identifier: MIT */
/*
 * The calling-context tree (cct.h): one node per (parent, object,
 * address), found through an index that holds each node's hash.
 */
#include <stdlib.h>

#include "cct.h"

/* The node at the end of a search that did not find it: added at slot k
 * of an index with room, when the tree takes it. */
long hwp_cct_add(struct hwp_cct *t, size_t k, uint64_t h, uint32_t parent, uint32_t object,
		 uint64_t addr)
{
	uint32_t depth = parent == HWP_CCT_ROOT ? 1 : t->node[parent].depth + 1;

	if (t->max && t->n >= t->max)
		return -1;
	if (t->max_depth && depth > t->max_depth)
		return -2;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct hwp_cct_node *nn = realloc(t->node, cap * sizeof(*nn));

		if (!nn)
			return -1;
		t->node = nn;
		t->cap = cap;
	}
	t->node[t->n] = (struct hwp_cct_node){ parent, object, depth, addr };
	hwp_htab_put(&t->index, k, h, t->n);
	return (long)t->n++;
}

/* hwp_cct_node() where the index is as full as it may be: grown first;
 * when it cannot grow (the tree is full, or memory short), a node is
 * only looked for (the index, at most half full, still ends a search). */
long hwp_cct_grow(struct hwp_cct *t, uint32_t parent, uint32_t object, uint64_t addr)
{
	uint64_t h = hwp_cct_hash(parent, object, addr);
	int full = (t->max && t->n >= t->max) || hwp_htab_reserve(&t->index, t->n + 1);
	size_t k;
	long i;

	if (!t->index.nslot)
		return -1;
	i = hwp_cct_look(t, h, parent, object, addr, &k);
	return i >= 0 || full ? i : hwp_cct_add(t, k, h, parent, object, addr);
}

void hwp_cct_zero(struct hwp_cct *t)
{
	t->n = 0;
	hwp_htab_clear(&t->index);
}

void hwp_cct_free(struct hwp_cct *t)
{
	free(t->node);
	t->node = NULL;
	t->n = t->cap = 0;
	hwp_htab_free(&t->index);
}
