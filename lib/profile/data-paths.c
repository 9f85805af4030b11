/* SPDX-License-Identifier: MIT */
/*
 * Call paths in the data file (hwprof-data(5), version 4): the nodes of
 * the calling-context tree (lib/hist/cct.c), each (parent, object,
 * address) once, and the samples counted by (event, thread, innermost
 * node), found through a hash index (lib/hist/htab.h), like the flat
 * samples (data.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "data.h"

static uint64_t path_hash(uint32_t event, uint32_t thread, uint32_t node)
{
	/* mixed in the high half, which the index uses (lib/hist/htab.h) */
	return (((uint64_t)node << 32 | thread) * 0x9e3779b97f4a7c15ull ^ event) *
	       0xff51afd7ed558ccdull;
}

long hd_node(struct hd_file *d, uint32_t parent, uint32_t object, uint64_t addr)
{
	if (parent != HD_NO_NODE && parent >= d->cct.n)
		return -1;
	d->cct.max_depth = HD_MAX_DEPTH; /* a file may start without hd_init() */
	return hwp_cct_node(&d->cct, parent, object, addr);
}

int hd_count_path(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t node,
		  uint64_t n)
{
	return hd_count_path_at(d, event, thread, node, n) < 0 ? -1 : 0;
}

long hd_count_path_at(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t node,
		      uint64_t n)
{
	uint64_t h = path_hash(event, thread, node);
	struct hd_path *p;
	size_t k;
	long i;

	if (node >= d->cct.n || hwp_htab_reserve(&d->pindex, d->npaths + 1))
		return -1;
	for (k = hwp_htab_start(&d->pindex, h); (i = hwp_htab_find(&d->pindex, &k, h)) >= 0;
	     k = hwp_htab_step(&d->pindex, k)) {
		p = &d->paths[i];
		if (p->event == event && p->thread == thread && p->node == node) {
			p->count = hwp_add_sat(p->count, n);
			return i;
		}
	}
	if (hd_grow(&d->paths, d->npaths, sizeof(*p)))
		return -1;
	d->paths[d->npaths] = (struct hd_path){ event, thread, node, n };
	hwp_htab_put(&d->pindex, k, h, d->npaths);
	return (long)d->npaths++;
}

size_t hd_path_frames(const struct hd_file *d, uint32_t node, uint32_t *out, size_t cap)
{
	size_t n = 0;

	/* parents come before their children: the walk ends */
	for (; node != HD_NO_NODE && node < d->cct.n; node = d->cct.node[node].parent) {
		if (n < cap)
			out[n] = node;
		n++;
	}
	return n;
}
