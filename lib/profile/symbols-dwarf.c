/* SPDX-License-Identifier: MIT */
/*
 * The source lines of an object for hwprof report and annotate (libdw):
 * the compile unit and line of an address, the function inlined there,
 * and file names made absolute against the unit's directory. The object
 * and its DWARF handle come from symbols.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "symbols.h"

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *n;

	if ((n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at))))
		return n;
	if ((n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))))
		return n;
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
}

/* A relative source file name joined to its unit's compilation directory,
 * kept in o (a few distinct names per object: a short list, last hit
 * first). */
const char *sym_obj_abs(struct sym_obj *o, Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute at;
	const char *dir;
	char *joined;
	void *np;

	if (file[0] == '/')
		return file;
	if (o->npaths && o->paths[o->lastpath].raw == file)
		return o->paths[o->lastpath].abs;
	for (size_t i = 0; i < o->npaths; i++)
		if (o->paths[i].raw == file) {
			o->lastpath = i;
			return o->paths[i].abs;
		}
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	if (!dir || asprintf(&joined, "%s/%s", dir, file) < 0)
		return file;
	np = realloc(o->paths, (o->npaths + 1) * sizeof(*o->paths));
	if (!np) {
		free(joined);
		return file;
	}
	o->paths = np;
	o->paths[o->npaths].raw = file;
	o->paths[o->npaths].abs = joined;
	o->lastpath = o->npaths++;
	return joined;
}

/* The innermost function (inlined or not) at addr in unit cu, or NULL. */
static const char *scope_func(Dwarf_Die *cu, uint64_t addr)
{
	Dwarf_Die *scopes = NULL;
	const char *fn = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);

	for (int i = 0; i < n && !fn; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			fn = die_name(&scopes[i]);
	}
	free(scopes);
	return fn;
}

static void grow_fncache(struct sym_obj *o)
{
	size_t cap = o->capfn ? 2 * o->capfn : 256;
	struct sym_fncache *nc = calloc(cap, sizeof(*nc));

	if (!nc)
		return;
	for (size_t i = 0; i < o->capfn; i++) {
		size_t j;

		if (!o->fn[i].line)
			continue;
		j = ((uintptr_t)o->fn[i].line >> 4) & (cap - 1);
		while (nc[j].line)
			j = (j + 1) & (cap - 1);
		nc[j] = o->fn[i];
	}
	free(o->fn);
	o->fn = nc;
	o->capfn = cap;
}

static int cmp_range(const void *a, const void *b)
{
	const struct sym_cu *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every unit's address ranges, from the units themselves: clang writes no
 * .debug_aranges, and libdw before 0.189 finds no unit without it. */
static void cu_ranges(struct sym_obj *o)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	o->cus_built = 1;
	while (!dwarf_nextcu(o->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;

		if (dwarf_offdie(o->dw, off + hsize, &cu)) {
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				if (o->ncus == cap) {
					struct sym_cu *nc;

					cap = cap ? 2 * cap : 64;
					nc = realloc(o->cus, cap * sizeof(*nc));
					if (!nc)
						return;
					o->cus = nc;
				}
				o->cus[o->ncus++] = (struct sym_cu){ lo, hi, off + hsize };
			}
		}
		off = next;
	}
	if (o->ncus)
		qsort(o->cus, o->ncus, sizeof(*o->cus), cmp_range);
}

/* The unit holding addr: libdw's aranges, else the units' own ranges. */
int sym_obj_cu(struct sym_obj *o, uint64_t addr, Dwarf_Die *cu)
{
	size_t a = 0, b;

	if (!sym_obj_dwarf(o))
		return -1;
	if (dwarf_addrdie(o->dw, addr, cu))
		return 0;
	if (!o->cus_built)
		cu_ranges(o);
	b = o->ncus;
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (o->cus[m].lo <= addr)
			a = m + 1;
		else
			b = m;
	}
	for (size_t i = a, k = 0; i > 0 && k < 16; i--, k++)
		if (addr >= o->cus[i - 1].lo && addr < o->cus[i - 1].hi)
			return dwarf_offdie(o->dw, o->cus[i - 1].die, cu) ? 0 : -1;
	return -1;
}

int sym_obj_line(struct sym_obj *o, uint64_t addr, const char **file, int *line,
		const char **func)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	size_t j;

	if (o->kd && !o->loaded)
		sym_obj_load(o);
	if (o->from_kept)
		return sym_obj_kept_line(o, addr, file, line, func);
	if (!sym_obj_dwarf(o) || sym_obj_cu(o, addr, &cu) || !(l = dwarf_getsrc_die(&cu, addr)))
		return -1;
	*file = dwarf_linesrc(l, NULL, NULL);
	if (!*file || dwarf_lineno(l, line))
		return -1;
	*file = sym_obj_abs(o, &cu, *file);
	if (!func)
		return 0;
	/* the function of a line-table row, found once: walking the unit's
	 * scopes costs as much as the unit is large, and inlined code starts
	 * a row of its own (its line differs from its caller's) */
	if (o->nfn * 2 >= o->capfn)
		grow_fncache(o);
	if (o->nfn * 2 >= o->capfn) {		/* out of memory: no cache */
		*func = scope_func(&cu, addr);
		return 0;
	}
	j = ((uintptr_t)l >> 4) & (o->capfn - 1);
	for (; o->fn[j].line; j = (j + 1) & (o->capfn - 1))
		if (o->fn[j].line == l) {
			*func = o->fn[j].func;
			return 0;
		}
	*func = scope_func(&cu, addr);
	o->fn[j].line = l;
	o->fn[j].func = *func;
	o->nfn++;
	return 0;
}
