/* SPDX-License-Identifier: MIT */
/*
 * The views of hwprof report and annotate: each sample of the data files
 * (read and merged by tools/report/merge.c) named from its object
 * (lib/profile/symbols.c), and rows by function, object, source line, thread or
 * process. Linear in the samples: rows are found through a hash table,
 * never by a scan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "data.h"
#include "symbols.h"
#include "view.h"

/* ------------------------------------------------------------------ */
/* Rows, found by key                                                   */

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* Makes room for n rows without rehashing. 0 or -1. */
static int reserve(struct rv_table *t, size_t n, size_t ns)
{
	size_t *slot;

	if (n > t->cap) {
		struct rv_row *nr = realloc(t->rows, n * sizeof(*nr));

		if (!nr)
			return -1;
		t->rows = nr;
		t->cap = n;
	}
	if (ns <= t->nslot)
		return 0;
	slot = malloc(ns * sizeof(*slot));
	if (!slot)
		return -1;
	memset(slot, 0xff, ns * sizeof(*slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t k = mix(t->rows[i].a, t->rows[i].b) & (ns - 1);

		while (slot[k] != SIZE_MAX)
			k = (k + 1) & (ns - 1);
		slot[k] = i;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

int rv_reserve(struct rv_table *t, size_t n)
{
	size_t ns = 1024;

	while (ns < 2 * n && ns < SIZE_MAX / 4)
		ns *= 2;
	return reserve(t, n, ns);
}

/* The row of key (a, b), made when new; its index, or -1 (out of memory). */
long rv_row(struct rv_table *t, uint64_t a, uint64_t b)
{
	size_t j;

	if (2 * (t->n + 1) > t->nslot &&
	    reserve(t, t->cap, t->nslot ? 2 * t->nslot : 1024))
		return -1;
	j = mix(a, b) & (t->nslot - 1);
	for (; t->slot[j] != SIZE_MAX; j = (j + 1) & (t->nslot - 1)) {
		struct rv_row *r = &t->rows[t->slot[j]];

		if (r->a == a && r->b == b)
			return (long)t->slot[j];
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct rv_row *nr = realloc(t->rows, cap * sizeof(*nr));

		if (!nr)
			return -1;
		t->rows = nr;
		t->cap = cap;
	}
	memset(&t->rows[t->n], 0, sizeof(t->rows[0]));
	t->rows[t->n].a = a;
	t->rows[t->n].b = b;
	t->rows[t->n].parent = -1;
	t->slot[j] = t->n;
	return (long)t->n++;
}

void rv_free(struct rv_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].name);
		free(t->rows[i].top);
	}
	free(t->rows);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* --event N: a number from 0 to the file's last event. */
int rv_event(const char *arg, const struct hd_file *d, const char *file, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v < 0 || v > INT_MAX) {
		fputs("hwprof: --event ", stderr);
		rp_put(stderr, arg, RP_TEXT);
		fputs(": not an event number (0, 1, ...)\n", stderr);
		return 1;
	}
	if (!d)
		return 0;
	if ((size_t)v >= d->nevents) {
		fprintf(stderr, "hwprof: --event %ld: ", v);
		rp_put(stderr, file, RP_TEXT);
		if (d->nevents)
			fprintf(stderr, " has events 0 to %zu\n", d->nevents - 1);
		else
			fputs(" has no events\n", stderr);
		return 1;
	}
	*out = (int)v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                                */

const char *rv_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	if (!path)
		return "[unknown]";
	return s && s[1] ? s + 1 : path;
}

/* The printable function name of a raw one: demangled unless told not. */
char *rv_func_name(const char *raw)
{
	char *dm = rp_demangle(raw);

	return dm ? dm : strdup(raw);
}

/* The function row key of a sample, filling its symbol. */
static void func_key(struct rv_ctx *c, const struct hd_sample *s, uint64_t *a, uint64_t *b,
		     const struct rp_sym **sym)
{
	*sym = NULL;
	if (s->object != HD_NO_OBJECT) {
		struct rp_obj *o = &c->objs[s->object];

		rp_obj_load(o);
		*sym = rp_obj_sym(o, s->addr);
	}
	if (*sym) {
		*a = RV_FUNC | s->object;
		*b = (uint64_t)(*sym - c->objs[s->object].syms);
	} else {
		*a = RV_ADDR | s->object;
		*b = s->addr;
	}
}

/* Gives row r its name (function, or +ADDR when no symbol covers it). */
static int name_func_row(struct rv_ctx *c, struct rv_row *r, const struct rp_sym *sym,
			 const struct hd_sample *s)
{
	if (r->name || !sym)
		return 0;	/* no symbol: rv_name() makes it when printed */
	r->obj = s->object;
	r->name = rv_func_name(sym->name);
	return r->name ? 0 : -1;
}

long rv_func_row(struct rv_ctx *c, uint32_t obj, uint64_t addr)
{
	struct rv_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	const struct hd_sample s = { (uint32_t)c->event, 0, obj, addr, 0 };
	const struct rp_sym *sym;
	uint64_t a, b;
	long f;

	if (obj != HD_NO_OBJECT && obj >= c->nobjs)
		return -1;
	func_key(c, &s, &a, &b, &sym);
	f = rv_row(t, a, b);
	if (f < 0 || name_func_row(c, &t->rows[f], sym, &s))
		return -1;
	t->rows[f].obj = obj;
	return f;
}

/* ------------------------------------------------------------------ */
/* Building a view                                                      */

/* Adds n samples of line row r under function row f in c->flines (the
 * same line can be reached from several functions, as inlined code is:
 * the SVG draws each under its function). 0 or -1. */
static int by_function(struct rv_ctx *c, long f, const struct rv_row *r, uint64_t n)
{
	long q = rv_row(&c->flines, (uint64_t)f << 8 | r->a >> 56, r->b);
	struct rv_row *l;

	if (q < 0)
		return -1;
	l = &c->flines.rows[q];
	if (l->parent < 0) {
		l->parent = f;
		l->obj = r->obj;
		l->file = r->file;
		l->line = r->line;
		if (r->name && !(l->name = strdup(r->name)))
			return -1;
	}
	l->n = hwp_add_sat(l->n, n);
	return 0;
}

static uint32_t proc_of(const struct hd_file *d, uint32_t thread)
{
	return thread < d->nthreads ? d->threads[thread].proc : 0;
}

static int by_proc(const void *x, const void *y)
{
	const struct hd_fcount *a = x, *b = y;

	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

/*
 * A job file's ranks (the processes view): the top function of a rank,
 * where the file proves it. A function whose per-rank counts (fcounts)
 * add up to its sum is "counted". A rank's top is the function row made
 * of counted functions only whose count in that rank exceeds what any
 * other row can have had there: a counted row its count plus, for the
 * uncounted functions in it, their max (at most the rank's samples not
 * in counted functions); a row of uncounted functions only, the largest
 * sum of their max (the same cap). Adds (process, row) -> count to pair
 * for each rank proved. 0 or -1 (out of memory).
 */
static int job_tops(struct rv_ctx *c, struct rv_table *pair)
{
	const struct hd_file *d = c->d;
	size_t nf = d->nfuncs, nr, m = 0, nfc = 0;
	long *frow = calloc(nf + 1, sizeof(*frow));
	uint64_t *fsum = calloc(nf + 1, sizeof(*fsum));
	char *has = calloc(nf + 1, 1);
	uint64_t *umax = NULL, *lo = NULL, *tot = NULL, uall = 0;
	long *cidx = NULL;		/* row -> counted row index, or -1 */
	size_t *crow = NULL;		/* counted row index -> row */
	struct hd_fcount *fc = NULL;
	int ret = -1;

	if (!frow || !fsum || !has)
		goto out;
	for (size_t i = 0; i < d->nfcounts; i++) {
		has[d->fcounts[i].func] = 1;
		fsum[d->fcounts[i].func] = hwp_add_sat(fsum[d->fcounts[i].func], d->fcounts[i].count);
	}
	for (size_t i = 0; i < nf; i++) {
		frow[i] = -1;
		if (d->funcs[i].event == (uint32_t)c->event && d->funcs[i].sum &&
		    (frow[i] = rv_func_row(c, d->funcs[i].object, d->funcs[i].addr)) < 0)
			goto out;
		has[i] = has[i] && fsum[i] == d->funcs[i].sum;
	}
	nr = c->funcs.n;
	umax = calloc(nr + 1, sizeof(*umax));
	cidx = calloc(nr + 1, sizeof(*cidx));
	crow = calloc(nr + 1, sizeof(*crow));
	tot = calloc(d->nprocs + 1, sizeof(*tot));
	fc = calloc(d->nfcounts + 1, sizeof(*fc));
	if (!umax || !cidx || !crow || !tot || !fc)
		goto out;
	for (size_t r = 0; r < nr; r++)
		cidx[r] = -1;
	for (size_t i = 0; i < nf; i++) {
		if (frow[i] < 0)
			continue;
		if (has[i]) {
			if (cidx[frow[i]] < 0) {
				crow[m] = (size_t)frow[i];
				cidx[frow[i]] = (long)m++;
			}
		} else {
			umax[frow[i]] = hwp_add_sat(umax[frow[i]], d->funcs[i].max);
		}
	}
	for (size_t r = 0; r < nr; r++)
		if (cidx[r] < 0 && umax[r] > uall)
			uall = umax[r];
	lo = calloc(m + 1, sizeof(*lo));
	if (!lo)
		goto out;
	for (size_t i = 0; i < d->nrtotals; i++)
		if (d->rtotals[i].event == (uint32_t)c->event)
			tot[d->rtotals[i].proc] = hwp_add_sat(tot[d->rtotals[i].proc],
							 d->rtotals[i].samples);
	/* the counted functions' counts, rank by rank */
	for (size_t i = 0; i < d->nfcounts; i++)
		if (frow[d->fcounts[i].func] >= 0 && has[d->fcounts[i].func])
			fc[nfc++] = d->fcounts[i];
	qsort(fc, nfc, sizeof(*fc), by_proc);
	for (size_t i = 0, j; i < nfc; i = j) {
		uint32_t p = fc[i].proc;
		uint64_t counted = 0, rem, best = 0;
		long bestr = -1;
		int proved = 1;

		memset(lo, 0, m * sizeof(*lo));
		for (j = i; j < nfc && fc[j].proc == p; j++) {
			lo[cidx[frow[fc[j].func]]] = hwp_add_sat(lo[cidx[frow[fc[j].func]]], fc[j].count);
			counted = hwp_add_sat(counted, fc[j].count);
		}
		rem = tot[p] > counted ? tot[p] - counted : 0;
		for (size_t k = 0; k < m; k++)
			if (!umax[crow[k]] && lo[k] > best) {
				best = lo[k];
				bestr = (long)crow[k];
			}
		if (bestr < 0 || best <= (uall < rem ? uall : rem))
			continue;
		for (size_t k = 0; k < m && proved; k++)
			if ((long)crow[k] != bestr)
				proved = best > hwp_add_sat(lo[k], umax[crow[k]] < rem ? umax[crow[k]] : rem);
		if (proved) {
			long q = rv_row(pair, p, (uint64_t)bestr);

			if (q < 0)
				goto out;
			pair->rows[q].n = best;
		}
	}
	ret = 0;
out:
	free(frow);
	free(fsum);
	free(has);
	free(umax);
	free(cidx);
	free(crow);
	free(tot);
	free(fc);
	free(lo);
	return ret;
}

/*
 * Fills c->rows with the view's rows for event c->event, and c->funcs
 * with the function rows (the threads and processes views name each
 * one's top function from them). Returns 0 or -1 (out of memory).
 */
int rv_build(struct rv_ctx *c)
{
	const struct hd_file *d = c->d;
	struct rv_table pair = { 0 };	/* (thread|process, function) */

	/* at most one function row per sample: no rehash on the way for
	 * most files; merged rank files have many samples per function, and
	 * a table sized for all of them would cost more to clear than it
	 * saves */
	if (rv_reserve(&c->funcs, d->nsamples < (1u << 18) ? d->nsamples : (1u << 18)))
		return -1;

	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];
		const struct rp_sym *sym;
		struct rv_row *r;
		uint64_t a, b;
		long k, f;

		if (s->event != (uint32_t)c->event || !s->count)
			continue;
		c->total = hwp_add_sat(c->total, s->count);
		func_key(c, s, &a, &b, &sym);
		f = rv_row(&c->funcs, a, b);
		if (f < 0 || name_func_row(c, &c->funcs.rows[f], sym, s))
			goto oom;
		c->funcs.rows[f].obj = s->object;
		c->funcs.rows[f].n = hwp_add_sat(c->funcs.rows[f].n, s->count);

		switch (c->view) {
		case RV_VIEW_FUNCS:
			continue;
		case RV_VIEW_OBJECTS:
			k = rv_row(&c->rows, RV_OBJ, s->object);
			if (k < 0)
				goto oom;
			r = &c->rows.rows[k];
			if (!r->name) {
				r->obj = s->object;
				r->name = strdup(s->object == HD_NO_OBJECT ? "[unknown]" :
						 rv_base(d->objects[s->object].path));
				if (!r->name)
					goto oom;
			}
			break;
		case RV_VIEW_LINES: {
			const char *file, *fn;
			int line;

			if (s->object != HD_NO_OBJECT &&
			    !rp_obj_line(&c->objs[s->object], s->addr, &file, &line, &fn)) {
				k = rv_row(&c->rows, RV_LINE | s->object,
					   (uint64_t)rv_intern(c, file) << 32 | (uint32_t)line);
				if (k < 0)
					goto oom;
				r = &c->rows.rows[k];
				if (!r->name) {
					r->obj = s->object;
					r->file = file;
					r->line = line;
					if (fn)
						r->name = rv_func_name(fn);
					else if (c->funcs.rows[f].name)
						r->name = strdup(c->funcs.rows[f].name);
					else if (asprintf(&r->name, "+%#llx",
							  (unsigned long long)s->addr) < 0)
						r->name = NULL;
					if (!r->name)
						goto oom;
				}
				if (by_function(c, f, r, s->count))
					goto oom;
			} else {
				/* no line information: the function's row */
				k = rv_row(&c->rows, a, b);
				if (k < 0)
					goto oom;
				r = &c->rows.rows[k];
				if (r->parent < 0) {
					r->obj = s->object;
					r->parent = f;
					if (c->funcs.rows[f].name &&
					    !(r->name = strdup(c->funcs.rows[f].name)))
						goto oom;
				}
				if (by_function(c, f, r, s->count))
					goto oom;
			}
			break;
		}
		case RV_VIEW_THREADS:
		case RV_VIEW_PROCS: {
			uint64_t who = c->view == RV_VIEW_THREADS ? s->thread :
				       proc_of(d, s->thread);
			long p;

			if (d->job)
				continue;	/* ranks: from rtotals below */

			k = rv_row(&c->rows, c->view == RV_VIEW_THREADS ? RV_THREAD : RV_PROC, who);
			if (k < 0)
				goto oom;
			r = &c->rows.rows[k];
			r->aux = (uint32_t)who;
			p = rv_row(&pair, who, (uint64_t)f);
			if (p < 0)
				goto oom;
			pair.rows[p].n = hwp_add_sat(pair.rows[p].n, s->count);
			break;
		}
		default:
			continue;
		}
		r->n = hwp_add_sat(r->n, s->count);
	}
	if (c->view == RV_VIEW_FUNCS) {
		c->rows = c->funcs;
		memset(&c->funcs, 0, sizeof(c->funcs));
		c->funcs_are_rows = 1;
	}
	/* a job file's processes are its ranks, their samples in rtotals */
	for (size_t i = 0; d->job && c->view == RV_VIEW_PROCS && i < d->nrtotals; i++) {
		const struct hd_rtotal *t = &d->rtotals[i];
		long k;

		if (t->event != (uint32_t)c->event)
			continue;
		k = rv_row(&c->rows, RV_PROC, t->proc);
		if (k < 0)
			goto oom;
		c->rows.rows[k].aux = t->proc;
		c->rows.rows[k].n = hwp_add_sat(c->rows.rows[k].n, t->samples);
	}
	if (d->job && c->view == RV_VIEW_PROCS && job_tops(c, &pair))
		goto oom;
	if (c->view == RV_VIEW_THREADS || c->view == RV_VIEW_PROCS) {
		/* each one's top function: the pair with most samples */
		uint64_t *best = calloc(c->rows.n + 1, sizeof(*best));
		long *bestf = calloc(c->rows.n + 1, sizeof(*bestf));

		if (!best || !bestf) {
			free(best);
			free(bestf);
			goto oom;
		}
		for (size_t i = 0; i < pair.n; i++) {
			long k = rv_row(&c->rows, c->view == RV_VIEW_THREADS ? RV_THREAD : RV_PROC,
					pair.rows[i].a);

			char b1[40], b2[40];

			if (k < 0)
				break;
			if (pair.rows[i].n > best[k] ||
			    (pair.rows[i].n == best[k] && bestf[k] &&
			     strcmp(rv_name(&c->funcs.rows[pair.rows[i].b], b1),
				    rv_name(&c->funcs.rows[bestf[k] - 1], b2)) < 0)) {
				best[k] = pair.rows[i].n;
				bestf[k] = (long)pair.rows[i].b + 1;
			}
		}
		for (size_t k = 0; k < c->rows.n; k++) {
			struct rv_row *r = &c->rows.rows[k];
			char b1[40];

			r->topn = best[k];
			if (bestf[k])
				r->top = strdup(rv_name(&c->funcs.rows[bestf[k] - 1], b1));
			if (c->view == RV_VIEW_THREADS) {
				const struct hd_thread *t = &d->threads[r->aux];

				if (asprintf(&r->name, "%d", t->tid) < 0)
					r->name = NULL;
			} else if (asprintf(&r->name, "%d", d->procs[r->aux].pid) < 0) {
				r->name = NULL;
			}
			if (!r->name || (bestf[k] && !r->top)) {
				free(best);
				free(bestf);
				goto oom;
			}
		}
		free(best);
		free(bestf);
	}
	rv_free(&pair);
	return 0;
oom:
	rv_free(&pair);
	return -1;
}

/* Interns a source file name; returns its number. */
uint32_t rv_intern(struct rv_ctx *c, const char *s)
{
	uint64_t h = 1469598103934665603ull;
	long k;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	/* equal hashes of different names get their own numbers */
	for (uint64_t salt = 0;; salt++) {
		k = rv_row(&c->strs, h, salt);
		if (k < 0)
			return 0;
		if (!c->strs.rows[k].file) {
			c->strs.rows[k].file = s;
			break;
		}
		if (!strcmp(c->strs.rows[k].file, s))
			break;
	}
	return (uint32_t)k;
}

const char *rv_name(const struct rv_row *r, char buf[40])
{
	uint32_t obj = (uint32_t)r->a;

	char *p = buf + 39;
	uint64_t v = r->b;

	if (r->name)
		return r->name;
	/* "+0x1a2b" in an object, "0x1a2b" outside any ("%#llx", by hand:
	 * a million of them print in a fraction of printf's time) */
	*p = 0;
	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	if (r->b) {
		*--p = 'x';
		*--p = '0';
	}
	if (obj != HD_NO_OBJECT)
		*--p = '+';
	return p;
}

/* Most samples first; ties by name, rows without a symbol after those
 * with one, by object and address (no name made for them). */
static int by_samples(const void *x, const void *y)
{
	const struct rv_row *a = x, *b = y;
	int c;

	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	if (!a->name || !b->name) {
		if (a->name || b->name)
			return a->name ? -1 : 1;
		if (a->a != b->a)
			return a->a < b->a ? -1 : 1;
		return a->b < b->b ? -1 : a->b > b->b;
	}
	if ((c = strcmp(a->name, b->name)))
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->obj < b->obj ? -1 : a->obj > b->obj;
}

static int by_name(const void *x, const void *y)
{
	const struct rv_row *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return by_samples(x, y);
}

/* Sorts the rows; the table's index is of no use afterwards. Returns 0,
 * or -1 when out of memory. */
int rv_sort(struct rv_ctx *c, int by_symbol)
{
	for (size_t i = 0; by_symbol && i < c->rows.n; i++) {
		struct rv_row *r = &c->rows.rows[i];
		char buf[40];

		if (!r->name && !(r->name = strdup(rv_name(r, buf))))
			return -1;
	}
	if (c->rows.n)
		qsort(c->rows.rows, c->rows.n, sizeof(*c->rows.rows),
		      by_symbol ? by_name : by_samples);
	free(c->rows.slot);
	c->rows.slot = NULL;
	c->rows.nslot = 0;
	return 0;
}

void rv_ctx_free(struct rv_ctx *c)
{
	rv_free(&c->rows);
	rv_free(&c->funcs);
	rv_free(&c->strs);
	rv_free(&c->flines);
	for (size_t i = 0; i < c->nobjs; i++)
		rp_obj_free(&c->objs[i]);
	free(c->objs);
}

int rv_ctx_init(struct rv_ctx *c, const struct hd_file *d, int event, enum rv_view view)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->event = event;
	c->view = view;
	c->objs = calloc(d->nobjects + 1, sizeof(*c->objs));
	if (!c->objs)
		return -1;
	c->nobjs = d->nobjects;
	for (size_t i = 0; i < d->nobjects; i++)
		rp_obj_init(&c->objs[i], d->objects[i].path, d->objects[i].buildid,
			    d->objects[i].size);
	return 0;
}

double rv_pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

const char *rv_obj_path(const struct rv_ctx *c, uint32_t obj)
{
	return obj == HD_NO_OBJECT || obj >= c->nobjs ? "[unknown]" : c->d->objects[obj].path;
}
