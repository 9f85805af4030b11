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

/* An event's empty call paths; max_stack: the kernel's depth limit.
 * NULL when memory is short. */
struct hwp_paths *hwp_paths_new(uint64_t max_stack)
{
	struct hwp_paths *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cct.max = HWP_PATH_NODES; /* and no depth limit */
	p->max_stack = max_stack;
	return p;
}

/* Room for the counts of up to n more nodes (as many as the tree may
 * add), new counts 0. 0 or -1. */
static int count_room(struct hwp_paths *p, uint64_t n)
{
	size_t want = p->cct.max - p->cct.n < n ? p->cct.max : p->cct.n + (size_t)n;
	size_t cap = p->capsamples ? p->capsamples : 256;
	uint64_t *ns;

	if (want <= p->capsamples)
		return 0;
	while (cap < want)
		cap *= 2;
	ns = realloc(p->samples, cap * sizeof(*ns));
	if (!ns)
		return -1;
	memset(ns + p->capsamples, 0, (cap - p->capsamples) * sizeof(*ns));
	p->samples = ns;
	p->capsamples = cap;
	return 0;
}

/*
 * Adds one sample: chain is the kernel's PERF_SAMPLE_CALLCHAIN (n entries,
 * innermost first, context markers among them), ip the sample's pc. The
 * path is the chain's user-space entries; a chain with none is the pc
 * alone. A path is cut when it holds the kernel's max_stack frames (the
 * walk stopped there), or when the tree could not take all of it (the
 * sample then ends at the deepest frame it has; one whose outermost frame
 * does not fit, or that finds memory short for its nodes' counts, is not
 * kept, and the caller's samples minus chains says how many).
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
	if (p->cct.n + n > p->capsamples && count_room(p, n))
		return;
	for (uint64_t i = n; i-- > 0;) {
		long x;

		if (chain[i] >= PERF_CONTEXT_MAX)
			continue;
		x = hwp_cct_node(&p->cct, node, 0, chain[i]);
		if (x < 0) {
			cut = 1;
			break;
		}
		node = (uint32_t)x;
	}
	if (node == HWPROF_NO_NODE)
		return; /* not even its outermost frame fits */
	p->samples[node] = hwp_add_sat(p->samples[node], 1);
	p->chains = hwp_add_sat(p->chains, 1);
	if (cut)
		p->cut = hwp_add_sat(p->cut, 1);
}

/* Forgets every path (hwprof_session_reset()); memory is kept. */
void hwp_paths_zero(struct hwp_paths *p)
{
	if (p->samples)
		memset(p->samples, 0, p->cct.n * sizeof(*p->samples));
	hwp_cct_zero(&p->cct);
	p->chains = p->cut = 0;
}

void hwp_paths_free(struct hwp_paths *p)
{
	if (!p)
		return;
	hwp_cct_free(&p->cct);
	free(p->samples);
	free(p);
}

/* The tree as hwprof_session_paths(3) gives it: p->cct.n nodes into out. */
void hwp_paths_copy(const struct hwp_paths *p, struct hwprof_path_node *out)
{
	for (size_t i = 0; i < p->cct.n; i++) {
		const struct hwp_cct_node *x = &p->cct.node[i];

		out[i] = (struct hwprof_path_node){ x->parent, x->depth, x->addr,
						    p->samples[i] };
	}
}
