/* SPDX-License-Identifier: MIT */
/*
 * hwprof record -g: the caller the kernel's frame-pointer walk misses.
 *
 * The kernel walks the chain of saved frame pointers from the sampled
 * BP: its first frame after the pc is the return address at BP + 8. When
 * the sampled function has no frame of its own (GCC builds a leaf that
 * needs no frame without one, even with -fno-omit-frame-pointer), or the
 * sample lands in a prologue before BP is set up or in an epilogue after
 * it is restored, BP is still the caller's: the walk's first frame is
 * then the caller's caller, and the caller itself is missing from the
 * path. So each -g sample also carries the user BP, SP and IP and a copy
 * of the top REC_LEAF_STACK bytes of the stack; here the sampled pc's
 * call-frame information (.eh_frame, through rec-unwind.c) locates its
 * return address in that copy. When it is not the walk's first frame it
 * is put there, before it: one frame, the sampled one's, is patched; a
 * caller further up without a frame pointer stays hidden (that takes
 * --call-graph dwarf).
 *
 * Bounded: the rule for a pc (CFA = BP or SP + offset, return address at
 * CFA + offset) is looked up once and kept in a direct-mapped cache keyed
 * by the pc and the process image's mappings; a sample then costs a hash,
 * a compare and one read of its stack copy. Nothing is patched where
 * there is no such rule (no CFI, a CFA that is an expression, the
 * outermost frame) or where the return address lies beyond the copy (a
 * frame of more than REC_LEAF_STACK bytes of locals).
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"

#define LEAF_SLOTS	4096	/* a power of two */

struct leaf_ent {
	uint64_t pc;
	long im;		/* -1: the slot is empty */
	size_t gen;		/* the image's mappings when looked up */
	int ok;			/* rule holds one; else pc has none */
	struct rec_cfa rule;
};

struct rec_leaf {
	struct leaf_ent e[LEAF_SLOTS];
};

/* The CFA rule of pc in image im: NULL when it has none. */
static const struct rec_cfa *rule_of(struct rec *r, long im, int pid, uint64_t pc)
{
	const struct rec_image *img = &r->imgs[im];
	size_t gen = img->ncur + img->nold;
	uint64_t h = (pc ^ (uint64_t)im << 40) * 0x9e3779b97f4a7c15ull;
	struct leaf_ent *e;

	if (!r->lf) {
		r->lf = malloc(sizeof(*r->lf));
		if (!r->lf)
			return NULL;
		for (size_t i = 0; i < LEAF_SLOTS; i++)
			r->lf->e[i].im = -1;
	}
	e = &r->lf->e[(h >> 32) & (LEAF_SLOTS - 1)];
	if (e->im != im || e->pc != pc || e->gen != gen) {
		e->im = im;
		e->pc = pc;
		e->gen = gen;
		e->ok = !rec_cfa_rule(r, im, pid, pc, &e->rule);
	}
	return e->ok ? &e->rule : NULL;
}

size_t rec_leaf_patch(struct rec *r, long im, int pid, const uint64_t *chain, size_t n,
		      const uint64_t *regs, const unsigned char *stack, uint64_t size,
		      uint64_t *out, size_t cap)
{
	uint64_t bp = regs[0], sp = regs[1], ip = regs[2], at, ra;
	const struct rec_cfa *rule;
	size_t first, next;

	if (im < 0 || !stack || size < 8)
		return 0;
	/* the chain's first user frame is the pc itself (the kernel's walk
	 * starts from the sampled registers) */
	for (first = 0; first < n && chain[first] >= PERF_CONTEXT_MAX; first++)
		;
	if (first == n || chain[first] != ip)
		return 0;
	for (next = first + 1; next < n && chain[next] >= PERF_CONTEXT_MAX; next++)
		;
	rule = rule_of(r, im, pid, ip);
	if (!rule)
		return 0;
	at = (rule->cfa_reg == 6 ? bp : sp) + (uint64_t)rule->cfa_off + (uint64_t)rule->ra_off;
	if (at < sp || at - sp > size - 8)
		return 0;	/* beyond the copy */
	memcpy(&ra, stack + (at - sp), sizeof(ra));
	if (!ra || ra >= PERF_CONTEXT_MAX || (next < n && chain[next] == ra))
		return 0;	/* the walk has it */
	if (n + 1 > cap)
		return 0;
	memcpy(out, chain, (first + 1) * sizeof(*chain));
	out[first + 1] = ra;
	memcpy(out + first + 2, chain + first + 1, (n - first - 1) * sizeof(*chain));
	return n + 1;
}

void rec_leaf_free(struct rec *r)
{
	free(r->lf);
	r->lf = NULL;
}
