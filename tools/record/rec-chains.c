/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's chain cache: a sample's call chain as the kernel gave it
 * (-g) or as the unwinder made it (--call-graph dwarf), with its process,
 * thread and pc, mapped to what rec-maps.c resolved it to (the data
 * file's thread, the pc's object and ELF address, the path's innermost
 * node). A program's samples take the same few paths again and again:
 * a hit costs a hash and a compare where a miss walks the map history
 * and the path tree for every frame.
 *
 * Exact: a hit compares the whole key (process, thread, pc, every frame).
 * An entry is used only while what it was resolved against still holds:
 * its process's generation (rec-maps.c bumps it on each mmap, exec, pid
 * or tid reuse of that process), the cache's own generation (bumped by a
 * side-band record older than a record already handled: the history
 * changed behind the samples) and a sample no older than the latest
 * record handled when the entry was made (what came before is resolved
 * through the history as it was then). Direct-mapped: a new chain takes
 * its slot from the one there.
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"

#define REC_CHAIN_SLOTS 8192 /* a power of two */

struct rec_chain {
	uint64_t hash;
	uint64_t tmin; /* the latest record handled when it was made */
	uint64_t *ips; /* the pc, then the chain */
	size_t n, cap; /* in ips: 1 + frames */
	int pid, tid;
	uint32_t proc, gen, cgen;
	struct rec_resolved v;
};

uint64_t rec_chain_hash(int pid, int tid, uint64_t pc, const uint64_t *chain, size_t n)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) ^ n;

	h = (h ^ pc) * 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++)
		h = h * 0x9e3779b97f4a7c15ull + chain[i];
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

struct rec_resolved *rec_chain_find(struct rec *r, uint64_t hash, int pid, int tid,
				    uint64_t pc, const uint64_t *chain, size_t n,
				    uint64_t time)
{
	struct rec_chain *c;

	if (!r->chains)
		return NULL;
	c = &r->chains[hash & (REC_CHAIN_SLOTS - 1)];
	if (c->hash != hash || !c->n || c->n != n + 1 || c->pid != pid || c->tid != tid ||
	    c->ips[0] != pc || c->cgen != r->chain_gen || time < c->tmin ||
	    c->gen != r->procs[c->proc].gen ||
	    (n && memcmp(c->ips + 1, chain, n * sizeof(*chain))))
		return NULL;
	return &c->v;
}

void rec_chain_put(struct rec *r, uint64_t hash, int pid, int tid, uint64_t pc,
		   const uint64_t *chain, size_t n, uint32_t proc,
		   const struct rec_resolved *v)
{
	struct rec_chain *c;

	if (!r->chains && !(r->chains = calloc(REC_CHAIN_SLOTS, sizeof(*r->chains))))
		return; /* no cache: every sample resolved in full */
	c = &r->chains[hash & (REC_CHAIN_SLOTS - 1)];
	if (c->cap < n + 1) {
		uint64_t *p = realloc(c->ips, (n + 1) * sizeof(*p));

		if (!p) {
			c->n = 0; /* the slot holds nothing */
			return;
		}
		c->ips = p;
		c->cap = n + 1;
	}
	c->ips[0] = pc;
	if (n)
		memcpy(c->ips + 1, chain, n * sizeof(*chain));
	c->n = n + 1;
	c->hash = hash;
	c->pid = pid;
	c->tid = tid;
	c->proc = proc;
	c->gen = r->procs[proc].gen;
	c->cgen = r->chain_gen;
	c->tmin = r->handled_max;
	c->v = *v;
}

void rec_chain_free(struct rec *r)
{
	for (size_t i = 0; r->chains && i < REC_CHAIN_SLOTS; i++)
		free(r->chains[i].ips);
	free(r->chains);
	r->chains = NULL;
}
