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
 * call-frame information (.eh_frame) locates its return address in that
 * copy. When it is not the walk's first frame it is put there, before
 * it: one frame, the sampled one's, is patched; a caller further up
 * without a frame pointer stays hidden (that takes --call-graph dwarf).
 *
 * Bounded: the rule for a pc (CFA = BP or SP + offset, return address at
 * CFA + offset) is found from its object's .eh_frame (opened once per
 * object for the whole recording, through libelf and libdw) and kept in
 * a direct-mapped cache keyed by the object and the ELF address, so every
 * process that maps the object shares it. In front of it a second one,
 * keyed by the process and the pc as sampled, holds the same rule while
 * the process's maps stand as they were (the chain cache's validity,
 * rec-chains.c), and only a new pc looks its object up in the maps. In
 * front of both, the chain cache itself is keyed by the kernel's chain
 * and keeps what the patch read (struct rec_leaf_key): a sample whose
 * chain it holds is patched as that entry's was when its IP register and
 * the word its rule reads are the same (rec_leaf_same()), at the cost of
 * that compare; the same chain with another word there (one call site
 * through a pointer to two callers of a frameless leaf) is patched anew.
 * Nothing is patched where there is no such rule (no CFI, a CFA that is
 * an expression, the outermost frame, a signal frame) or where the
 * return address lies beyond the copy (a frame of more than
 * REC_LEAF_STACK bytes).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec.h"

#define LEAF_SLOTS 4096 /* a power of two */
#define PC_SLOTS   4096 /* a power of two */

/* What the patch needs of a pc: CFA = (cfa_reg: 6 BP, 7 SP, the x86-64
 * psABI's DWARF numbers) + cfa_off, the return address at CFA + ra_off. */
struct cfa_rule {
	int cfa_reg;
	int64_t cfa_off, ra_off;
};

struct leaf_ent {
	uint32_t obj; /* REC_NO_OBJ: the slot is empty */
	int ok;	      /* rule holds one; else the address has none */
	uint64_t addr;
	struct cfa_rule rule;
};

/* An object's .eh_frame, opened when a sample first needs it */
struct leaf_obj {
	int state; /* 0: not yet, 1: cfi, -1: none */
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
};

/* A pc as sampled in one process, while its maps are as they were: the
 * chain cache's conditions (rec-chains.c) */
struct pc_ent {
	uint64_t pc;
	uint64_t tmin; /* the latest record handled when it was made */
	long p;	       /* -1: the slot is empty */
	uint32_t gen, cgen;
	int ok;
	struct cfa_rule rule;
};

struct rec_leaf {
	struct leaf_ent e[LEAF_SLOTS];
	struct pc_ent pcs[PC_SLOTS];
	struct leaf_obj *objs;
	size_t nobjs;
};

/* The .eh_frame CFI of object o (its ELF virtual addresses), or NULL. */
static Dwarf_CFI *cfi_of(struct rec *r, uint32_t o)
{
	struct rec_leaf *lf = r->lf;
	struct leaf_obj *lo;

	if (o >= lf->nobjs) {
		size_t n = (size_t)o + 64;
		struct leaf_obj *no = realloc(lf->objs, n * sizeof(*no));

		if (!no)
			return NULL;
		memset(no + lf->nobjs, 0, (n - lf->nobjs) * sizeof(*no));
		lf->objs = no;
		lf->nobjs = n;
	}
	lo = &lf->objs[o];
	if (!lo->state) {
		const struct rec_obj *ro = &r->objs[o];

		lo->state = -1;
		lo->fd = -1;
		if (ro->nseg <= 0 || ro->path[0] != '/' || elf_version(EV_CURRENT) == EV_NONE)
			return NULL; /* unreadable, or [vdso] */
		lo->fd = open(ro->path, O_RDONLY | O_CLOEXEC);
		lo->elf = lo->fd < 0 ? NULL : elf_begin(lo->fd, ELF_C_READ_MMAP, NULL);
		lo->cfi = lo->elf ? dwarf_getcfi_elf(lo->elf) : NULL;
		if (lo->cfi) {
			lo->state = 1;
		} else { /* no .eh_frame: nothing to keep open */
			if (lo->elf)
				elf_end(lo->elf);
			if (lo->fd >= 0)
				close(lo->fd);
			lo->elf = NULL;
			lo->fd = -1;
		}
	}
	return lo->state > 0 ? lo->cfi : NULL;
}

/*
 * The CFI row of ELF address addr, reduced to what a frame without a
 * frame pointer needs: CFA = register + offset (libdw gives it as one
 * DW_OP_bregx), return address saved at CFA + offset (libdw:
 * DW_OP_call_frame_cfa, then DW_OP_plus_uconst of the offset as a 64-bit
 * word, no DW_OP_stack_value). 0, or -1 when there is no such rule (no
 * FDE, an expression, the outermost frame).
 */
static int cfa_rule(Dwarf_CFI *cfi, uint64_t addr, struct cfa_rule *rule)
{
	Dwarf_Op *ops, mem[3];
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr start, end;
	size_t nops;
	bool signal;
	int ra, ret = -1;

	if (dwarf_cfi_addrframe(cfi, addr, &fr) || !fr)
		return -1;
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1)
		goto out;
	if (ops[0].atom == DW_OP_bregx) {
		rule->cfa_reg = (int)ops[0].number;
		rule->cfa_off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		rule->cfa_reg = ops[0].atom - DW_OP_breg0;
		rule->cfa_off = (int64_t)ops[0].number;
	} else {
		goto out;
	}
	if (rule->cfa_reg != 6 && rule->cfa_reg != 7)
		goto out; /* only BP and SP are in the sample */
	ra = dwarf_frame_info(fr, &start, &end, &signal);
	if (ra < 0 || signal || dwarf_frame_register(fr, ra, mem, &ops, &nops) || !ops ||
	    nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa ||
	    (nops == 2 && ops[1].atom != DW_OP_plus_uconst))
		goto out; /* undefined (the outermost frame), or not in memory */
	rule->ra_off = nops == 2 ? (int64_t)ops[1].number : 0;
	ret = 0;
out:
	free(fr);
	return ret;
}

/* The rule of ELF address addr of object o: NULL when it has none. */
static const struct cfa_rule *rule_of(struct rec *r, uint32_t o, uint64_t addr)
{
	uint64_t h = (addr ^ (uint64_t)o << 40) * 0x9e3779b97f4a7c15ull;
	struct leaf_ent *e;
	Dwarf_CFI *cfi;

	if (!r->lf) {
		r->lf = calloc(1, sizeof(*r->lf));
		if (!r->lf)
			return NULL;
		for (size_t i = 0; i < LEAF_SLOTS; i++)
			r->lf->e[i].obj = REC_NO_OBJ;
		for (size_t i = 0; i < PC_SLOTS; i++)
			r->lf->pcs[i].p = -1;
	}
	e = &r->lf->e[(h >> 32) & (LEAF_SLOTS - 1)];
	if (e->obj != o || e->addr != addr) {
		cfi = cfi_of(r, o);
		e->obj = o;
		e->addr = addr;
		e->ok = cfi && !cfa_rule(cfi, addr, &e->rule);
	}
	return e->ok ? &e->rule : NULL;
}

/* The rule of pc as process p had it mapped at time: NULL when none. */
static const struct cfa_rule *rule_at(struct rec *r, long p, uint64_t pc, uint64_t time,
				      rec_obj_at_fn obj_at)
{
	uint64_t h = (pc ^ (uint64_t)p << 48) * 0x9e3779b97f4a7c15ull, addr;
	const struct cfa_rule *rule;
	struct pc_ent *e;
	uint32_t o;

	if (r->lf) {
		e = &r->lf->pcs[(h >> 32) & (PC_SLOTS - 1)];
		if (e->p == p && e->pc == pc && e->gen == r->procs[p].gen &&
		    e->cgen == r->chain_gen && time >= e->tmin)
			return e->ok ? &e->rule : NULL;
	}
	o = obj_at(r, p, pc, time, &addr);
	rule = o == REC_NO_OBJ ? NULL : rule_of(r, o, addr);
	if (!r->lf || time < r->handled_max)
		return rule; /* resolved through the history as it was */
	e = &r->lf->pcs[(h >> 32) & (PC_SLOTS - 1)];
	e->p = p;
	e->pc = pc;
	e->gen = r->procs[p].gen;
	e->cgen = r->chain_gen;
	e->tmin = r->handled_max;
	e->ok = rule != NULL;
	if (rule)
		e->rule = *rule;
	return e->ok ? &e->rule : NULL;
}

size_t rec_leaf_patch(struct rec *r, long p, const struct rec_sample *s, rec_obj_at_fn obj_at,
		      uint64_t *out, size_t cap, struct rec_leaf_key *k)
{
	const uint64_t *chain = s->chain;
	uint64_t ip = s->leaf_regs[2], at, ra;
	const struct cfa_rule *rule;
	size_t n = s->nchain, first, next;

	*k = (struct rec_leaf_key){ .made = 1, .ip = ip };
	if (!s->stack)
		return 0;
	/* the chain's first user frame is the pc itself (the kernel's walk
	 * starts from the sampled registers) */
	for (first = 0; first < n && chain[first] >= PERF_CONTEXT_MAX; first++)
		;
	if (first == n || chain[first] != ip)
		return 0;
	for (next = first + 1; next < n && chain[next] >= PERF_CONTEXT_MAX; next++)
		;
	if (!(rule = rule_at(r, p, ip, s->time, obj_at)))
		return 0;
	k->rule = 1;
	k->reg = (int8_t)rule->cfa_reg;
	k->off = (int64_t)((uint64_t)rule->cfa_off + (uint64_t)rule->ra_off); /* no overflow */
	if (rec_leaf_word_at(k->reg, k->off, s, &at))
		return 0; /* beyond the copy */
	memcpy(&ra, s->stack + at, sizeof(ra));
	k->have = 1;
	k->word = ra;
	if (!ra || ra >= PERF_CONTEXT_MAX || (next < n && chain[next] == ra))
		return 0; /* the walk has it */
	if (n + 1 > cap)
		return 0;
	memcpy(out, chain, (first + 1) * sizeof(*chain));
	out[first + 1] = ra;
	memcpy(out + first + 2, chain + first + 1, (n - first - 1) * sizeof(*chain));
	return n + 1;
}

void rec_leaf_free(struct rec *r)
{
	if (!r->lf)
		return;
	for (size_t i = 0; i < r->lf->nobjs; i++) {
		struct leaf_obj *lo = &r->lf->objs[i];

		if (lo->cfi)
			dwarf_cfi_end(lo->cfi);
		if (lo->elf)
			elf_end(lo->elf);
		if (lo->state && lo->fd >= 0)
			close(lo->fd);
	}
	free(r->lf->objs);
	free(r->lf);
	r->lf = NULL;
}
