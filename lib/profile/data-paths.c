/* SPDX-License-Identifier: MIT */
/*
 * Call paths in the data file (hwprof-data(5), version 4): the nodes of
 * the calling-context tree, each (parent, object, address) once, and the
 * samples counted by (event, thread, innermost node). Both are found
 * through open-addressing indexes, like the flat samples (data.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "data.h"

static uint64_t mix(uint64_t h)
{
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static uint64_t node_hash(uint32_t parent, uint32_t object, uint64_t addr)
{
	return mix(addr * 0x9e3779b97f4a7c15ull ^ ((uint64_t)parent << 32 | object));
}

static uint64_t path_hash(uint32_t event, uint32_t thread, uint32_t node)
{
	return mix(((uint64_t)node << 32 | thread) * 0x9e3779b97f4a7c15ull ^ event);
}

/* An empty index of n slots (a power of two); NULL when out of memory. */
static size_t *slots_new(size_t n)
{
	size_t *slot = malloc(n * sizeof(*slot));

	for (size_t i = 0; slot && i < n; i++)
		slot[i] = SIZE_MAX;
	return slot;
}

static int nodes_rehash(struct hd_file *d, size_t n)
{
	size_t *slot = slots_new(n);

	if (!slot)
		return -1;
	for (size_t i = 0; i < d->nnodes; i++) {
		const struct hd_node *x = &d->nodes[i];
		size_t j = node_hash(x->parent, x->object, x->addr) & (n - 1);

		while (slot[j] != SIZE_MAX)
			j = (j + 1) & (n - 1);
		slot[j] = i;
	}
	free(d->nslots);
	d->nslots = slot;
	d->nnslot = n;
	return 0;
}

long hd_node(struct hd_file *d, uint32_t parent, uint32_t object, uint64_t addr)
{
	struct hd_node *x;
	uint32_t depth;
	size_t j;

	if (d->nnodes >= HD_NO_NODE - 1 || (parent != HD_NO_NODE && parent >= d->nnodes))
		return -1;
	if (2 * (d->nnodes + 1) > d->nnslot &&
	    nodes_rehash(d, d->nnslot ? 2 * d->nnslot : 1024))
		return -1;
	j = node_hash(parent, object, addr) & (d->nnslot - 1);
	for (; d->nslots[j] != SIZE_MAX; j = (j + 1) & (d->nnslot - 1)) {
		x = &d->nodes[d->nslots[j]];
		if (x->parent == parent && x->object == object && x->addr == addr)
			return (long)d->nslots[j];
	}
	depth = parent == HD_NO_NODE ? 1 : d->nodes[parent].depth + 1;
	if (depth > HD_MAX_DEPTH)
		return -2;
	if (hd_grow(&d->nodes, d->nnodes, sizeof(*x)))
		return -1;
	d->nodes[d->nnodes] = (struct hd_node){ parent, object, depth, addr };
	d->nslots[j] = d->nnodes;
	return (long)d->nnodes++;
}

static int paths_rehash(struct hd_file *d, size_t n)
{
	size_t *slot = slots_new(n);

	if (!slot)
		return -1;
	for (size_t i = 0; i < d->npaths; i++) {
		const struct hd_path *p = &d->paths[i];
		size_t j = path_hash(p->event, p->thread, p->node) & (n - 1);

		while (slot[j] != SIZE_MAX)
			j = (j + 1) & (n - 1);
		slot[j] = i;
	}
	free(d->pslots);
	d->pslots = slot;
	d->npslot = n;
	return 0;
}

int hd_count_path(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t node,
		  uint64_t n)
{
	return hd_count_path_at(d, event, thread, node, n) < 0 ? -1 : 0;
}

long hd_count_path_at(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t node,
		      uint64_t n)
{
	struct hd_path *p;
	size_t j;

	if (node >= d->nnodes)
		return -1;
	if (2 * (d->npaths + 1) > d->npslot &&
	    paths_rehash(d, d->npslot ? 2 * d->npslot : 1024))
		return -1;
	j = path_hash(event, thread, node) & (d->npslot - 1);
	for (; d->pslots[j] != SIZE_MAX; j = (j + 1) & (d->npslot - 1)) {
		p = &d->paths[d->pslots[j]];
		if (p->event == event && p->thread == thread && p->node == node) {
			p->count = hwp_add_sat(p->count, n);
			return (long)d->pslots[j];
		}
	}
	if (hd_grow(&d->paths, d->npaths, sizeof(*p)))
		return -1;
	d->paths[d->npaths] = (struct hd_path){ event, thread, node, n };
	d->pslots[j] = d->npaths;
	return (long)d->npaths++;
}

size_t hd_path_frames(const struct hd_file *d, uint32_t node, uint32_t *out, size_t cap)
{
	size_t n = 0;

	/* parents come before their children: the walk ends */
	for (; node != HD_NO_NODE && node < d->nnodes; node = d->nodes[node].parent) {
		if (n < cap)
			out[n] = node;
		n++;
	}
	return n;
}
