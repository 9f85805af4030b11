/* SPDX-License-Identifier: MIT */
/*
 * Names kept at recording (hwprof-data(5), "Names"): hwprof record, before
 * its last write, names every sampled address of every object as the
 * object on disk gives it then (symbols.c, symbols-dwarf.c) and keeps the
 * functions and lines in the data file, so that hwprof report names them
 * rightly after a rebuild, an uninstall or on another machine
 * (sym_obj_keep()). Only sampled addresses are kept: the file grows with
 * the distinct places sampled, as its samples do. The lines come from
 * the name cache (namecache.c) where an earlier recording of the same
 * object resolved them, else from DWARF, and go into the cache.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

struct addrs {
	uint64_t *v;
	size_t n;
};

static int add_addr(struct addrs *a, uint64_t x)
{
	if (hd_grow(&a->v, a->n, sizeof(*a->v)))
		return -1;
	a->v[a->n++] = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every sampled address of each object: samples' pcs, and call-path
 * nodes' and MPI call sites' (a return address names its call, at the
 * address before it). */
static int gather(const struct hd_file *d, struct addrs *per)
{
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];

		if (s->object != HD_NO_OBJECT && add_addr(&per[s->object], s->addr))
			return -1;
	}
	for (size_t i = 0; i < d->cct.n; i++) {
		const struct hwp_cct_node *x = &d->cct.node[i];

		if (x->object == HD_NO_OBJECT)
			continue;
		if (add_addr(&per[x->object], x->addr) ||
		    (x->addr && add_addr(&per[x->object], x->addr - 1)))
			return -1;
	}
	/* a job file's MPI call sites: return addresses too */
	for (size_t i = 0; i < d->nmsites; i++) {
		const struct hd_msite *x = &d->msites[i];

		if (x->object != HD_NO_OBJECT && x->addr &&
		    (add_addr(&per[x->object], x->addr) ||
		     add_addr(&per[x->object], x->addr - 1)))
			return -1;
	}
	return 0;
}

/* One object's names and lines at its sorted, distinct addresses. */
static int keep_object(struct hd_file *d, uint32_t obj, const uint64_t *a, size_t n)
{
	struct hd_object *ob = &d->objects[obj];
	struct sym_obj o;
	struct sym_ncache *nc = NULL;
	char *added = NULL;
	int ret = -1;

	sym_obj_init(&o, ob->path, ob->buildid, ob->size);
	sym_obj_load(&o);
	if (o.nsyms && !(added = calloc(o.nsyms, 1)))
		goto out;
	ob->kept = 1;
	if (!o.readable)
		ob->kept_why = strdup(
			"could not be read when recorded: its samples have no names");
	else if (o.mismatch)
		ob->kept_why = strdup(
			"was not the file the program ran when recorded "
			"(rebuilt or replaced meanwhile): its names may be wrong");
	if ((!o.readable || o.mismatch) && !ob->kept_why)
		goto out;
	/* only for the file recorded: the cache is by its build-id */
	if (o.readable && !o.mismatch)
		nc = sym_ncache_open(ob->buildid, o.dwelf);
	/* the ranks of a job name the same objects at the same moment: one
	 * resolves what the cache lacks, the others then find it there */
	sym_ncache_need(nc, a, n);
	for (size_t i = 0; i < n; i++) {
		const struct sym_func *f = sym_obj_sym(&o, a[i]);
		const char *file = NULL, *fn = NULL;
		int line = -1, hit = nc ? sym_ncache_get(nc, a[i], &file, &line, &fn) : -1;

		if (f && f->name && *f->name && !added[f - o.syms]) {
			added[f - o.syms] = 1;
			/* the name shown first, then its aliases: report finds
			 * the function by any of them (load_kept()) */
			if (hd_add_name(d, obj, f->lo, f->hi, f->name))
				goto out;
			for (const char *al = sym_alias_next(f, NULL); al;
			     al = sym_alias_next(f, al))
				if (hd_add_name(d, obj, f->lo, f->hi, al))
					goto out;
		}
		/* what the reader takes: a line from 0, a function named */
		if (hit < 0) {
			if (sym_obj_line(&o, a[i], &file, &line, &fn) || line < 0 || !file ||
			    !*file)
				file = NULL;
			if (nc)
				sym_ncache_put(nc, &o, a[i], file, line, fn);
		} else if (!hit) {
			file = NULL; /* the cache: DWARF gave it none */
		}
		if (file) {
			long src = hd_src(d, file);

			if (src < 0 || hd_add_line(d, obj, (uint32_t)src, a[i], line,
						   fn && *fn ? fn : NULL))
				goto out;
		}
	}
	ret = 0;
out:
	/* not when libdw could not read the DWARF: that may pass */
	sym_ncache_close(nc, !ret && !(o.dw_tried && !o.dw));
	free(added);
	sym_obj_free(&o);
	return ret;
}

int sym_keep_names(struct hd_file *d)
{
	struct addrs *per = calloc(d->nobjects + 1, sizeof(*per));
	int ret = -1, cache = sym_debug_cache;

	sym_debug_cache = 1; /* compressed debug files from the copies */
	if (!per || gather(d, per))
		goto out;
	for (size_t i = 0; i < d->nobjects; i++) {
		struct addrs *a = &per[i];
		size_t w = 0;

		/* [heap] and the like have no file (the vDSO is read from
		 * memory); names kept once */
		if (!a->n ||
		    (d->objects[i].path[0] == '[' && !sym_is_vdso(d->objects[i].path)) ||
		    d->objects[i].kept)
			continue;
		qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
		for (size_t k = 0; k < a->n; k++)
			if (!w || a->v[w - 1] != a->v[k])
				a->v[w++] = a->v[k];
		if (keep_object(d, (uint32_t)i, a->v, w))
			goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; per && i < d->nobjects; i++)
		free(per[i].v);
	free(per);
	sym_debug_cache = cache;
	sym_ncache_report();
	if (ret)
		hd_drop_names(d); /* none rather than some */
	return ret;
}
