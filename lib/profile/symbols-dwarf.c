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

/* ------------------------------------------------------------------ */
/* The functions of a unit, indexed once                                */

/*
 * The innermost function (inlined or not) at an address is found in an
 * index built once per unit: every subprogram and inlined-subroutine DIE's
 * address ranges, flattened into disjoint segments that each name the
 * innermost one covering them, then binary search. dwarf_getscopes() walks
 * the unit's DIE tree on every call, which for a large unit (CPython's
 * ceval.c) costs millions of instructions an address.
 */
struct scope_iv {
	uint64_t lo, hi;
	unsigned depth;
	size_t seq; /* DIE order: the first of equal ones wins */
	const char *name;
};

struct scope_walk {
	struct scope_iv *v;
	size_t n, cap;
	int failed;
};

static void add_iv(struct scope_walk *w, uint64_t lo, uint64_t hi, unsigned depth,
		   const char *name)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct scope_iv *nv = realloc(w->v, cap * sizeof(*nv));

		if (!nv) {
			w->failed = 1;
			return;
		}
		w->v = nv;
		w->cap = cap;
	}
	w->v[w->n] = (struct scope_iv){ lo, hi, depth, w->n, name };
	w->n++;
}

/* DIEs whose children may hold code: the rest (types' members, variables,
 * parameters) are not walked. */
static int may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_partial_unit:
	case DW_TAG_compile_unit:
		return 1;
	}
	return 0;
}

/* Adds the functions under parent, at depth (bounded: hostile DWARF can
 * nest or import without end). */
static void walk_scopes(struct scope_walk *w, Dwarf_Die *parent, unsigned depth)
{
	Dwarf_Die d;

	if (depth > 256 || dwarf_child(parent, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);

		if (w->failed)
			return;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			const char *name = NULL;

			while ((it = dwarf_ranges(&d, it, &base, &lo, &hi)) > 0)
				if (lo < hi) {
					if (!name && !(name = die_name(&d)))
						name = "";
					add_iv(w, lo, hi, depth, name);
				}
		} else if (tag == DW_TAG_imported_unit && depth < 8) {
			Dwarf_Attribute at;
			Dwarf_Die u;

			if (dwarf_formref_die(dwarf_attr(&d, DW_AT_import, &at), &u))
				walk_scopes(w, &u, depth + 1);
			continue;
		}
		if (may_hold_code(tag) && dwarf_haschildren(&d) > 0)
			walk_scopes(w, &d, depth + 1);
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int by_start(const void *a, const void *b)
{
	const struct scope_iv *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi) /* the outer one first */
		return x->hi > y->hi ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->seq < y->seq) - (x->seq > y->seq); /* the last one pushed wins */
}

static void add_seg(struct sym_scopes *s, uint64_t lo, uint64_t hi, const char *name)
{
	if (lo >= hi)
		return;
	if (s->n && s->seg[s->n - 1].hi == lo && s->seg[s->n - 1].name == name) {
		s->seg[s->n - 1].hi = hi;
		return;
	}
	s->seg[s->n++] = (struct sym_seg){ lo, hi, name };
}

/* The intervals (sorted by start, outer first) as disjoint segments, each
 * naming the innermost interval over it: a sweep with a stack of the open
 * intervals. An interval that overlaps its enclosing one without nesting
 * (damaged DWARF) is cut at the enclosing one's end. */
static int flatten(struct sym_scopes *s, struct scope_iv *v, size_t n)
{
	struct scope_iv **st = malloc((n + 1) * sizeof(*st));
	size_t top = 0;
	uint64_t at = 0;

	/* each interval adds at most two segments */
	s->seg = malloc((2 * n + 1) * sizeof(*s->seg));
	if (!st || !s->seg) {
		free(st);
		return -1;
	}
	for (size_t i = 0; i <= n; i++) {
		uint64_t next = i < n ? v[i].lo : UINT64_MAX;

		/* close what ends before the next start */
		while (top && st[top - 1]->hi <= next) {
			add_seg(s, at, st[top - 1]->hi, st[top - 1]->name);
			if (at < st[top - 1]->hi)
				at = st[top - 1]->hi;
			top--;
		}
		if (i == n)
			break;
		if (top) {
			add_seg(s, at, v[i].lo, st[top - 1]->name);
			if (v[i].hi > st[top - 1]->hi)
				v[i].hi = st[top - 1]->hi;
		}
		at = v[i].lo;
		st[top++] = &v[i];
	}
	free(st);
	return 0;
}

/* The index of unit cu, built on first use; NULL when out of memory. */
static struct sym_scopes *unit_scopes(struct sym_obj *o, Dwarf_Die *cu)
{
	uint64_t off = dwarf_dieoffset(cu);
	size_t a = 0, b = o->nunits;
	struct sym_scopes *s;
	struct scope_walk w = { 0 };
	void *nu;

	if (o->nunits && o->units[o->lastunit].off == off)
		return &o->units[o->lastunit];
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (o->units[m].off < off)
			a = m + 1;
		else
			b = m;
	}
	if (a < o->nunits && o->units[a].off == off) {
		o->lastunit = a;
		return &o->units[a];
	}
	nu = realloc(o->units, (o->nunits + 1) * sizeof(*o->units));
	if (!nu)
		return NULL;
	o->units = nu;
	memmove(&o->units[a + 1], &o->units[a], (o->nunits - a) * sizeof(*o->units));
	o->nunits++;
	s = &o->units[a];
	*s = (struct sym_scopes){ .off = off };
	o->lastunit = a;
	walk_scopes(&w, cu, 0);
	if (!w.failed && w.n) {
		qsort(w.v, w.n, sizeof(*w.v), by_start);
		if (flatten(s, w.v, w.n)) {
			free(s->seg);
			*s = (struct sym_scopes){ .off = off };
		}
	}
	free(w.v);
	return s;
}

/* The innermost function (inlined or not) at addr in unit cu, or NULL. */
static const char *scope_func(struct sym_obj *o, Dwarf_Die *cu, uint64_t addr)
{
	const struct sym_scopes *s = unit_scopes(o, cu);
	size_t a = 0, b;

	if (!s)
		return NULL;
	b = s->n;
	while (a < b) { /* the first segment ending after addr */
		size_t m = a + (b - a) / 2;

		if (s->seg[m].hi <= addr)
			a = m + 1;
		else
			b = m;
	}
	if (a < s->n && s->seg[a].lo <= addr && *s->seg[a].name)
		return s->seg[a].name;
	return NULL;
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

	if (o->kd && !o->loaded)
		sym_obj_load(o);
	if (o->from_kept)
		return sym_obj_kept_line(o, addr, file, line, func);
	if (!sym_obj_dwarf(o) || sym_obj_cu(o, addr, &cu) ||
	    !(l = dwarf_getsrc_die(&cu, addr)))
		return -1;
	*file = dwarf_linesrc(l, NULL, NULL);
	if (!*file || dwarf_lineno(l, line))
		return -1;
	*file = sym_obj_abs(o, &cu, *file);
	if (func)
		*func = scope_func(o, &cu, addr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Whole units for the name cache                                       */

/* 1 when .debug_aranges maps every address to at most one unit (sorted,
 * none overlapping): then an address range of one arange is that unit's
 * throughout, as dwarf_addrdie() finds it. Without any aranges (clang
 * writes none), when the units' own ranges do not overlap: then
 * sym_obj_cu() finds the unit of each address of one of them by them.
 * Checked once an object; *n is 0 in the second case. */
static int units_disjoint(struct sym_obj *o, Dwarf_Aranges **ar, size_t *n)
{
	if (dwarf_getaranges(o->dw, ar, n))
		return 0;
	if (!o->ar_checked) {
		Dwarf_Addr end = 0;

		o->ar_checked = 1;
		for (size_t i = 0; i < *n; i++) {
			Dwarf_Addr lo;
			Dwarf_Word len;

			if (dwarf_getarangeinfo(dwarf_onearange(*ar, i), &lo, &len, NULL) ||
			    (len && (lo < end || lo + len < lo))) {
				o->ar_checked = -1;
				break;
			}
			if (len)
				end = lo + len;
		}
		if (!*n) {
			if (!o->cus_built)
				cu_ranges(o);
			for (size_t i = 0; i < o->ncus; i++)
				if (o->cus[i].hi < o->cus[i].lo ||
				    (i && o->cus[i].lo < o->cus[i - 1].hi))
					o->ar_checked = -1;
		}
	}
	return o->ar_checked > 0;
}

int sym_obj_unit(struct sym_obj *o, uint64_t addr, uint64_t *unit)
{
	Dwarf_Aranges *ar;
	Dwarf_Arange *a;
	Dwarf_Off off;
	size_t n;

	if (!sym_obj_dwarf(o) || !units_disjoint(o, &ar, &n))
		return -1;
	if (!n) {
		size_t lo = 0, hi = o->ncus;

		while (lo < hi) { /* the first range starting above addr */
			size_t m = lo + (hi - lo) / 2;

			if (o->cus[m].lo <= addr)
				lo = m + 1;
			else
				hi = m;
		}
		if (!lo || addr >= o->cus[lo - 1].hi)
			return -1;
		*unit = o->cus[lo - 1].die;
		return 0;
	}
	if (!(a = dwarf_getarange_addr(ar, addr)) || dwarf_getarangeinfo(a, NULL, NULL, &off))
		return -1;
	*unit = off;
	return 0;
}

/* Range k of the ranges sym_obj_unit() goes by (aranges, else the units'
 * own): 0 and it, -1 past the last. */
static int unit_range(struct sym_obj *o, Dwarf_Aranges *ar, size_t n, size_t k, uint64_t *lo,
		      uint64_t *len, uint64_t *unit)
{
	Dwarf_Addr a;
	Dwarf_Word l;
	Dwarf_Off off;

	if (!n) {
		if (k >= o->ncus)
			return -1;
		*lo = o->cus[k].lo;
		*len = o->cus[k].hi - o->cus[k].lo;
		*unit = o->cus[k].die;
		return 0;
	}
	if (k >= n)
		return -1;
	if (dwarf_getarangeinfo(dwarf_onearange(ar, k), &a, &l, &off))
		*len = 0;
	else
		*lo = a, *len = l, *unit = off;
	return 0;
}

/*
 * What sym_obj_line() gives depends on the address only through the last
 * line-table row at or below it and the function segment holding it
 * (dwarf_getsrc_die(), scope_func()), within one range of a unit: so it
 * is one answer between consecutive row addresses and segment bounds.
 * Each such piece is asked once, at its start, and handed to put.
 */
int sym_obj_unit_pieces(struct sym_obj *o, uint64_t unit,
			void (*put)(void *arg, uint64_t lo, uint64_t hi, const char *file,
				    int line, const char *func),
			void *arg)
{
	Dwarf_Aranges *ar;
	Dwarf_Lines *lines;
	Dwarf_Die cu;
	const struct sym_scopes *s;
	size_t n, nl;
	uint64_t lo, len, off;

	if (!sym_obj_dwarf(o) || !units_disjoint(o, &ar, &n) ||
	    !dwarf_offdie(o->dw, unit, &cu) || !(s = unit_scopes(o, &cu)))
		return -1;
	if (dwarf_getsrclines(&cu, &lines, &nl))
		nl = 0;
	for (size_t k = 0; !unit_range(o, ar, n, k, &lo, &len, &off); k++) {
		Dwarf_Addr b, ra = 0;
		size_t ri = 0, si = 0, hi;

		if (off != unit || !len)
			continue;
		/* where the range starts in the rows and the segments: a unit
		 * of many ranges (-ffunction-sections) is not walked for each */
		for (hi = nl; ri < hi;) {
			size_t m = ri + (hi - ri) / 2;

			if (!dwarf_lineaddr(dwarf_onesrcline(lines, m), &ra) && ra < lo)
				ri = m + 1;
			else
				hi = m;
		}
		for (hi = s->n; si < hi;) {
			size_t m = si + (hi - si) / 2;

			if (s->seg[m].hi <= lo)
				si = m + 1;
			else
				hi = m;
		}
		for (b = lo; b < lo + len;) {
			uint64_t next = lo + len;
			const char *file = NULL, *fn = NULL;
			int line = -1;

			/* the first row above b: rows are sorted by address */
			while (ri < nl &&
			       (dwarf_lineaddr(dwarf_onesrcline(lines, ri), &ra) || ra <= b))
				ri++;
			if (ri < nl && ra < next)
				next = ra;
			while (si < s->n && s->seg[si].hi <= b)
				si++;
			if (si < s->n) {
				uint64_t edge = s->seg[si].lo > b ? s->seg[si].lo :
								    s->seg[si].hi;

				if (edge < next)
					next = edge;
			}
			if (sym_obj_line(o, b, &file, &line, &fn) || line < 0 || !file ||
			    !*file)
				file = NULL;
			put(arg, b, next, file, line, fn);
			b = next;
		}
	}
	return 0;
}
