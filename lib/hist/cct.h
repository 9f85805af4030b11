/* SPDX-License-Identifier: MIT */
/*
 * A calling-context tree (lib/hist/cct.c): a node is one frame under its
 * caller's node, kept once however many paths take it, so the tree grows
 * with a program's distinct call paths, not with the run. Nodes are kept
 * parents before children and found by (parent, object, address) through
 * one index (htab.h). The engine's call paths (lib/engine/paths.c) and
 * the data file's (lib/profile/data-paths.c) are such trees.
 */
#ifndef HWPROF_CCT_H
#define HWPROF_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "htab.h"

#define HWP_CCT_ROOT UINT32_MAX /* the parent of an outermost frame */

struct hwp_cct_node {
	uint32_t parent; /* the caller's node, or HWP_CCT_ROOT */
	uint32_t object; /* where addr is: the tree's user's number for
			  * it (0 where all are in one space) */
	uint32_t depth;	 /* frames from the outermost one: 1 for a root */
	uint64_t addr;	 /* the sampled pc where a path ends here, the
			  * return address where it goes on to a callee */
};

struct hwp_cct {
	struct hwp_cct_node *node; /* parents before children */
	size_t n, cap;
	size_t max;	       /* nodes it takes at most; 0: no limit */
	uint32_t max_depth;    /* depth of a node at most; 0: no limit */
	struct hwp_htab index; /* of (parent, object, addr) */
};

/* the slow part of hwp_cct_node(), in cct.c */
long hwp_cct_grow(struct hwp_cct *t, uint32_t parent, uint32_t object, uint64_t addr);
long hwp_cct_add(struct hwp_cct *t, size_t k, uint64_t h, uint32_t parent, uint32_t object,
		 uint64_t addr);

static inline uint64_t hwp_cct_hash(uint32_t parent, uint32_t object, uint64_t addr)
{
	/* one multiply mixes every bit into the high half, which the index
	 * uses */
	return (addr ^ (uint64_t)parent << 40 ^ parent ^ (uint64_t)object << 20) *
	       0x9e3779b97f4a7c15ull;
}

/* The node (parent, object, addr) with hash h: its number, or -1 with *k
 * at the empty slot where it would go. */
static inline long hwp_cct_look(const struct hwp_cct *t, uint64_t h, uint32_t parent,
				uint32_t object, uint64_t addr, size_t *k)
{
	long i;

	for (*k = hwp_htab_start(&t->index, h); (i = hwp_htab_find(&t->index, k, h)) >= 0;
	     *k = hwp_htab_step(&t->index, *k)) {
		const struct hwp_cct_node *x = &t->node[i];

		if (x->addr == addr && x->parent == parent && x->object == object)
			return i;
	}
	return -1;
}

/*
 * The node (parent, object, addr), parent HWP_CCT_ROOT or a node of the
 * tree: its number, found or added. -1 when memory is short or the tree
 * holds max nodes (a node there is still found); -2 when the node would
 * be deeper than max_depth. Inline: the engine's drain and the data
 * file's reader take it once a frame.
 */
static inline long hwp_cct_node(struct hwp_cct *t, uint32_t parent, uint32_t object,
				uint64_t addr)
{
	uint64_t h;
	size_t k;
	long i;

	if (t->n >= t->index.room)
		return hwp_cct_grow(t, parent, object, addr);
	h = hwp_cct_hash(parent, object, addr);
	i = hwp_cct_look(t, h, parent, object, addr, &k);
	return i >= 0 ? i : hwp_cct_add(t, k, h, parent, object, addr);
}

/* Every node forgotten; memory is kept. */
void hwp_cct_zero(struct hwp_cct *t);
/* The tree's memory freed, the tree left empty (its limits kept). */
void hwp_cct_free(struct hwp_cct *t);

#endif /* HWPROF_CCT_H */
