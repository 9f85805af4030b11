/* SPDX-License-Identifier: MIT */
/*
 * Call paths of a session's samples (HWPROF_SESSION_CALLCHAIN,
 * hwprof_session_paths(3)): each sample's user-space call chain, as the
 * kernel walked it by frame pointers (perf_event_open(2),
 * PERF_SAMPLE_CALLCHAIN), added to a calling-context tree. A node is one
 * frame under its caller's node, kept once however many samples take it,
 * so the tree grows with the program's distinct paths, not with the run.
 * Knows nothing of rings or histograms; the drain (lib/engine/drain.c) feeds it
 * under the engine's lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "../hist/sat.h"

static size_t hash(uint32_t parent, uint64_t pc)
{
	uint64_t h = (pc ^ ((uint64_t)parent << 40) ^ parent) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20);
}

/* Doubles the index (of node numbers + 1; 0 is empty) and refills it. */
static int grow_index(struct hwp_paths *p)
{
	size_t n = p->nslot ? p->nslot * 2 : 1024;
	uint32_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		size_t k = hash(p->node[i].parent, p->node[i].pc) & (n - 1);

		while (slot[k])
			k = (k + 1) & (n - 1);
		slot[k] = (uint32_t)i + 1;
	}
	free(p->slot);
	p->slot = slot;
	p->nslot = n;
	return 0;
}

/* The node (parent, pc): found, or added; -1 when the tree is full or
 * memory is short. */
static long node_of(struct hwp_paths *p, uint32_t parent, uint64_t pc)
{
	struct hwprof_path_node *nn;
	size_t k;

	if ((p->n + 1) * 2 > p->nslot && (p->n >= HWP_PATH_NODES || grow_index(p)))
		goto find_only;
	k = hash(parent, pc) & (p->nslot - 1);
	for (; p->slot[k]; k = (k + 1) & (p->nslot - 1)) {
		struct hwprof_path_node *x = &p->node[p->slot[k] - 1];

		if (x->parent == parent && x->pc == pc)
			return (long)p->slot[k] - 1;
	}
	if (p->n >= HWP_PATH_NODES)
		return -1;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;

		nn = realloc(p->node, cap * sizeof(*nn));
		if (!nn)
			return -1;
		p->node = nn;
		p->cap = cap;
	}
	nn = &p->node[p->n];
	nn->parent = parent;
	nn->depth = parent == HWPROF_NO_NODE ? 1 : p->node[parent].depth + 1;
	nn->pc = pc;
	nn->samples = 0;
	p->slot[k] = (uint32_t)p->n + 1;
	return (long)p->n++;

find_only:	/* the index is as large as it gets: look, add nothing */
	if (!p->nslot)
		return -1;
	k = hash(parent, pc) & (p->nslot - 1);
	for (size_t probes = 0; p->slot[k] && probes < p->nslot;
	     k = (k + 1) & (p->nslot - 1), probes++) {
		struct hwprof_path_node *x = &p->node[p->slot[k] - 1];

		if (x->parent == parent && x->pc == pc)
			return (long)p->slot[k] - 1;
	}
	return -1;
}

/*
 * Adds one sample: chain is the kernel's PERF_SAMPLE_CALLCHAIN (n entries,
 * innermost first, context markers among them), ip the sample's pc. The
 * path is the chain's user-space entries; a chain with none is the pc
 * alone. A path is cut when it holds the kernel's max_stack frames (the
 * walk stopped there), or when the tree could not take all of it (the
 * sample then ends at the deepest frame it has; one whose outermost frame
 * does not fit is not kept, and the caller's samples minus chains says
 * how many).
 */
void hwp_paths_add(struct hwp_paths *p, const uint64_t *chain, uint64_t n, uint64_t ip)
{
	uint32_t node = HWPROF_NO_NODE;
	uint64_t user = 0;
	int cut = 0;

	for (uint64_t i = 0; i < n; i++)
		user += chain[i] < PERF_CONTEXT_MAX;
	if (!user) {
		chain = &ip;
		n = 1;
		cut = 1;
	} else if (p->max_stack && user >= p->max_stack) {
		cut = 1;
	}
	for (uint64_t i = n; i-- > 0;) {
		long x;

		if (chain[i] >= PERF_CONTEXT_MAX)
			continue;
		x = node_of(p, node, chain[i]);
		if (x < 0) {
			cut = 1;
			break;
		}
		node = (uint32_t)x;
	}
	if (node == HWPROF_NO_NODE)
		return;		/* not even its outermost frame fits */
	p->node[node].samples = hwp_add_sat(p->node[node].samples, 1);
	p->chains = hwp_add_sat(p->chains, 1);
	if (cut)
		p->cut = hwp_add_sat(p->cut, 1);
}

/* Forgets every path (hwprof_session_reset()); memory is kept. */
void hwp_paths_zero(struct hwp_paths *p)
{
	p->n = 0;
	if (p->slot)
		memset(p->slot, 0, p->nslot * sizeof(*p->slot));
	p->chains = p->cut = 0;
}

void hwp_paths_free(struct hwp_paths *p)
{
	if (!p)
		return;
	free(p->node);
	free(p->slot);
	free(p);
}
