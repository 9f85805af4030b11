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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data.h"
#include "rows.h"
#include "symbols.h"
#include "view.h"

static uint32_t view_intern(struct view_ctx *c, const char *s);

/* --event N: a number from 0 to the file's last event. */
int view_event(const char *arg, const struct hd_file *d, const char *file, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v < 0 || v > INT_MAX) {
		fputs("hwprof: --event ", stderr);
		nm_put(stderr, arg, NM_TEXT);
		fputs(": not an event number (0, 1, ...)\n", stderr);
		return 1;
	}
	if (!d)
		return 0;
	if ((size_t)v >= d->nevents) {
		fprintf(stderr, "hwprof: --event %ld: ", v);
		nm_put(stderr, file, NM_TEXT);
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

const char *view_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	if (!path)
		return VIEW_NO_OBJECT;
	return s && s[1] ? s + 1 : path;
}

/* The printable function name of a raw one: demangled unless told not. */
char *view_func_name(const char *raw)
{
	char *dm = nm_demangle(raw);

	return dm ? dm : strdup(raw);
}

/* The function row key of a sample, filling its symbol. */
static void func_key(struct view_ctx *c, const struct hd_sample *s, uint64_t *a, uint64_t *b,
		     const struct sym_func **sym)
{
	*sym = NULL;
	if (s->object != HD_NO_OBJECT) {
		struct sym_obj *o = &c->objs[s->object];

		sym_obj_load(o);
		*sym = sym_obj_sym(o, s->addr);
	}
	if (*sym) {
		*a = VIEW_KEY_FUNC | s->object;
		*b = (uint64_t)(*sym - c->objs[s->object].syms);
	} else {
		*a = VIEW_KEY_ADDR | s->object;
		*b = s->addr;
	}
}

/* Gives row r its name (function, or +ADDR when no symbol covers it). */
static int name_func_row(struct view_ctx *c, struct view_row *r, const struct sym_func *sym,
			 const struct hd_sample *s)
{
	if (r->name || !sym)
		return 0; /* no symbol: view_name() makes it when printed */
	r->obj = s->object;
	r->name = view_func_name(sym->name);
	return r->name ? 0 : -1;
}

long view_func_row(struct view_ctx *c, uint32_t obj, uint64_t addr)
{
	struct rows_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	const struct hd_sample s = { (uint32_t)c->event, 0, obj, addr, 0 };
	const struct sym_func *sym;
	uint64_t a, b;
	long f;

	if (obj != HD_NO_OBJECT && obj >= c->nobjs)
		return -1;
	func_key(c, &s, &a, &b, &sym);
	f = rows_get(t, a, b);
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
static int by_function(struct view_ctx *c, long f, const struct view_row *r, uint64_t n)
{
	long q = rows_get(&c->flines, (uint64_t)f << 8 | r->a >> 56, r->b);
	struct view_row *l;

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

/* The state of job_tops(). */
struct tops {
	long *frow;	      /* function -> its row, or -1 */
	char *has;	      /* function -> counted */
	uint64_t *umax;	      /* row -> sum of its uncounted functions' max */
	long *cidx;	      /* row -> counted row index, or -1 */
	size_t *crow;	      /* counted row index -> row */
	size_t m;	      /* counted rows */
	uint64_t uall;	      /* largest umax of a row of uncounted functions only */
	uint64_t *tot;	      /* process -> samples */
	struct hd_fcount *fc; /* counted functions' counts, by process */
	size_t nfc;
	uint64_t *lo; /* counted row index -> count in one rank */
};

static void tops_free(struct tops *t)
{
	free(t->frow);
	free(t->has);
	free(t->umax);
	free(t->cidx);
	free(t->crow);
	free(t->tot);
	free(t->fc);
	free(t->lo);
}

/* Each function of the event: its row, and whether it is counted. 0 or -1. */
static int tops_funcs(struct view_ctx *c, struct tops *t)
{
	const struct hd_file *d = c->d;
	size_t nf = d->nfuncs;
	uint64_t *fsum = calloc(nf + 1, sizeof(*fsum));
	int ret = -1;

	t->frow = calloc(nf + 1, sizeof(*t->frow));
	t->has = calloc(nf + 1, 1);
	if (!t->frow || !fsum || !t->has)
		goto out;
	for (size_t i = 0; i < d->nfcounts; i++) {
		t->has[d->fcounts[i].func] = 1;
		fsum[d->fcounts[i].func] = hwp_add_sat(fsum[d->fcounts[i].func],
						       d->fcounts[i].count);
	}
	for (size_t i = 0; i < nf; i++) {
		t->frow[i] = -1;
		if (d->funcs[i].event == (uint32_t)c->event && d->funcs[i].sum &&
		    (t->frow[i] = view_func_row(c, d->funcs[i].object, d->funcs[i].addr)) < 0)
			goto out;
		t->has[i] = t->has[i] && fsum[i] == d->funcs[i].sum;
	}
	ret = 0;
out:
	free(fsum);
	return ret;
}

/* The rows: counted ones numbered, the others' max summed; each rank's
 * samples; the counted functions' counts by rank. 0 or -1. */
static int tops_rows(struct view_ctx *c, struct tops *t)
{
	const struct hd_file *d = c->d;
	size_t nr = c->funcs.n;

	t->umax = calloc(nr + 1, sizeof(*t->umax));
	t->cidx = calloc(nr + 1, sizeof(*t->cidx));
	t->crow = calloc(nr + 1, sizeof(*t->crow));
	t->tot = calloc(d->nprocs + 1, sizeof(*t->tot));
	t->fc = calloc(d->nfcounts + 1, sizeof(*t->fc));
	if (!t->umax || !t->cidx || !t->crow || !t->tot || !t->fc)
		return -1;
	for (size_t r = 0; r < nr; r++)
		t->cidx[r] = -1;
	for (size_t i = 0; i < d->nfuncs; i++) {
		long f = t->frow[i];

		if (f < 0)
			continue;
		if (!t->has[i])
			t->umax[f] = hwp_add_sat(t->umax[f], d->funcs[i].max);
		else if (t->cidx[f] < 0) {
			t->crow[t->m] = (size_t)f;
			t->cidx[f] = (long)t->m++;
		}
	}
	for (size_t r = 0; r < nr; r++)
		if (t->cidx[r] < 0 && t->umax[r] > t->uall)
			t->uall = t->umax[r];
	t->lo = calloc(t->m + 1, sizeof(*t->lo));
	if (!t->lo)
		return -1;
	for (size_t i = 0; i < d->nrtotals; i++)
		if (d->rtotals[i].event == (uint32_t)c->event)
			t->tot[d->rtotals[i].proc] = hwp_add_sat(t->tot[d->rtotals[i].proc],
								 d->rtotals[i].samples);
	for (size_t i = 0; i < d->nfcounts; i++)
		if (t->frow[d->fcounts[i].func] >= 0 && t->has[d->fcounts[i].func])
			t->fc[t->nfc++] = d->fcounts[i];
	qsort(t->fc, t->nfc, sizeof(*t->fc), by_proc);
	return 0;
}

/* The counts fc[i..] of rank p: adds (p, top row) to pair where proved.
 * Returns the index past the rank's counts, or 0 when out of memory. */
static size_t prove_rank(struct tops *t, size_t i, struct rows_table *pair)
{
	uint32_t p = t->fc[i].proc;
	uint64_t counted = 0, rem, best = 0;
	long bestr = -1;
	int proved = 1;
	size_t j;

	memset(t->lo, 0, t->m * sizeof(*t->lo));
	for (j = i; j < t->nfc && t->fc[j].proc == p; j++) {
		long k = t->cidx[t->frow[t->fc[j].func]];

		t->lo[k] = hwp_add_sat(t->lo[k], t->fc[j].count);
		counted = hwp_add_sat(counted, t->fc[j].count);
	}
	rem = t->tot[p] > counted ? t->tot[p] - counted : 0;
	for (size_t k = 0; k < t->m; k++)
		if (!t->umax[t->crow[k]] && t->lo[k] > best) {
			best = t->lo[k];
			bestr = (long)t->crow[k];
		}
	if (bestr < 0 || best <= (t->uall < rem ? t->uall : rem))
		return j;
	for (size_t k = 0; k < t->m && proved; k++) {
		uint64_t um = t->umax[t->crow[k]];

		if ((long)t->crow[k] != bestr)
			proved = best > hwp_add_sat(t->lo[k], um < rem ? um : rem);
	}
	if (proved) {
		long q = rows_get(pair, p, (uint64_t)bestr);

		if (q < 0)
			return 0;
		pair->rows[q].n = best;
	}
	return j;
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
static int job_tops(struct view_ctx *c, struct rows_table *pair)
{
	struct tops t = { 0 };
	int ret = -1;

	if (tops_funcs(c, &t) || tops_rows(c, &t))
		goto out;
	for (size_t i = 0; i < t.nfc;)
		if (!(i = prove_rank(&t, i, pair)))
			goto out;
	ret = 0;
out:
	tops_free(&t);
	return ret;
}

/* Objects view: the sample's object row. 0 or -1. */
static int add_object(struct view_ctx *c, const struct hd_sample *s)
{
	long k = rows_get(&c->rows, VIEW_KEY_OBJ, s->object);
	struct view_row *r;

	if (k < 0)
		return -1;
	r = &c->rows.rows[k];
	if (!r->name) {
		r->obj = s->object;
		r->name = strdup(s->object == HD_NO_OBJECT ?
					 VIEW_NO_OBJECT :
					 view_base(c->d->objects[s->object].path));
		if (!r->name)
			return -1;
	}
	r->n = hwp_add_sat(r->n, s->count);
	return 0;
}

/* Lines view, a sample with line information: its (file, line) row,
 * named after the inlined function fn, else function row f. 0 or -1. */
static int add_line(struct view_ctx *c, const struct hd_sample *s, long f, const char *file,
		    int line, const char *fn)
{
	long k = rows_get(&c->rows, VIEW_KEY_LINE | s->object,
			  (uint64_t)view_intern(c, file) << 32 | (uint32_t)line);
	struct view_row *r;

	if (k < 0)
		return -1;
	r = &c->rows.rows[k];
	if (!r->name) {
		r->obj = s->object;
		r->file = file;
		r->line = line;
		if (fn)
			r->name = view_func_name(fn);
		else if (c->funcs.rows[f].name)
			r->name = strdup(c->funcs.rows[f].name);
		else if (asprintf(&r->name, "+%#llx", (unsigned long long)s->addr) < 0)
			r->name = NULL;
		if (!r->name)
			return -1;
	}
	r->n = hwp_add_sat(r->n, s->count);
	return by_function(c, f, r, s->count);
}

/* Lines view: the sample's line row, or its function's row (key a, b)
 * when the object has no line information there. 0 or -1. */
static int add_line_or_func(struct view_ctx *c, const struct hd_sample *s, long f, uint64_t a,
			    uint64_t b)
{
	const char *file, *fn;
	struct view_row *r;
	int line;
	long k;

	if (s->object != HD_NO_OBJECT &&
	    !sym_obj_line(&c->objs[s->object], s->addr, &file, &line, &fn))
		return add_line(c, s, f, file, line, fn);
	k = rows_get(&c->rows, a, b);
	if (k < 0)
		return -1;
	r = &c->rows.rows[k];
	if (r->parent < 0) {
		r->obj = s->object;
		r->parent = f;
		if (c->funcs.rows[f].name && !(r->name = strdup(c->funcs.rows[f].name)))
			return -1;
	}
	r->n = hwp_add_sat(r->n, s->count);
	return by_function(c, f, r, s->count);
}

/* Threads and processes views: the sample's thread or process row, and
 * its (thread|process, function f) pair. 0 or -1. */
static int add_owner(struct view_ctx *c, const struct hd_sample *s, long f,
		     struct rows_table *pair)
{
	uint64_t who = c->view == VIEW_THREADS ? s->thread : proc_of(c->d, s->thread);
	long k, p;

	if (c->d->job)
		return 0; /* ranks: from rtotals, add_ranks() */
	k = rows_get(&c->rows, c->view == VIEW_THREADS ? VIEW_KEY_THREAD : VIEW_KEY_PROC, who);
	if (k < 0)
		return -1;
	c->rows.rows[k].aux = (uint32_t)who;
	c->rows.rows[k].n = hwp_add_sat(c->rows.rows[k].n, s->count);
	p = rows_get(pair, who, (uint64_t)f);
	if (p < 0)
		return -1;
	pair->rows[p].n = hwp_add_sat(pair->rows[p].n, s->count);
	return 0;
}

/* One sample of the event: its function row, then the view's row. 0 or -1. */
static int add_sample(struct view_ctx *c, const struct hd_sample *s, struct rows_table *pair)
{
	const struct sym_func *sym;
	uint64_t a, b;
	long f;

	c->total = hwp_add_sat(c->total, s->count);
	func_key(c, s, &a, &b, &sym);
	f = rows_get(&c->funcs, a, b);
	if (f < 0 || name_func_row(c, &c->funcs.rows[f], sym, s))
		return -1;
	c->funcs.rows[f].obj = s->object;
	c->funcs.rows[f].n = hwp_add_sat(c->funcs.rows[f].n, s->count);
	switch (c->view) {
	case VIEW_OBJECTS:
		return add_object(c, s);
	case VIEW_LINES:
		return add_line_or_func(c, s, f, a, b);
	case VIEW_THREADS:
	case VIEW_PROCS:
		return add_owner(c, s, f, pair);
	default:
		return 0;
	}
}

/* A job file's processes are its ranks, their samples in rtotals. 0 or -1. */
static int add_ranks(struct view_ctx *c)
{
	const struct hd_file *d = c->d;

	for (size_t i = 0; i < d->nrtotals; i++) {
		const struct hd_rtotal *t = &d->rtotals[i];
		long k;

		if (t->event != (uint32_t)c->event)
			continue;
		k = rows_get(&c->rows, VIEW_KEY_PROC, t->proc);
		if (k < 0)
			return -1;
		c->rows.rows[k].aux = t->proc;
		c->rows.rows[k].n = hwp_add_sat(c->rows.rows[k].n, t->samples);
	}
	return 0;
}

/* A job file's threads: each rank's kept threads and their samples in
 * ttotals (libhwprof-mpi(7), "Threads"). 0 or -1. */
static int add_job_threads(struct view_ctx *c)
{
	const struct hd_file *d = c->d;

	for (size_t i = 0; i < d->nttotals; i++) {
		const struct hd_ttotal *t = &d->ttotals[i];
		long k;

		if (t->event != (uint32_t)c->event || !t->samples)
			continue;
		k = rows_get(&c->rows, VIEW_KEY_THREAD, t->thread);
		if (k < 0)
			return -1;
		c->rows.rows[k].aux = t->thread;
		c->rows.rows[k].n = hwp_add_sat(c->rows.rows[k].n, t->samples);
	}
	return 0;
}

/* Each thread's or process's top function: the pair with most samples,
 * ties by name. Fills bestf[k] with 1 + its function row. */
static void pick_tops(struct view_ctx *c, const struct rows_table *pair, uint64_t *best,
		      long *bestf)
{
	for (size_t i = 0; i < pair->n; i++) {
		long k = rows_get(&c->rows,
				  c->view == VIEW_THREADS ? VIEW_KEY_THREAD : VIEW_KEY_PROC,
				  pair->rows[i].a);
		char b1[40], b2[40];

		if (k < 0)
			break;
		if (pair->rows[i].n > best[k] ||
		    (pair->rows[i].n == best[k] && bestf[k] &&
		     strcmp(view_name(&c->funcs.rows[pair->rows[i].b], b1),
			    view_name(&c->funcs.rows[bestf[k] - 1], b2)) < 0)) {
			best[k] = pair->rows[i].n;
			bestf[k] = (long)pair->rows[i].b + 1;
		}
	}
}

/* Names each thread (tid) or process (pid) row and its top function. 0 or -1. */
static int name_owners(struct view_ctx *c, const struct rows_table *pair)
{
	const struct hd_file *d = c->d;
	uint64_t *best = calloc(c->rows.n + 1, sizeof(*best));
	long *bestf = calloc(c->rows.n + 1, sizeof(*bestf));
	int ret = -1;

	if (!best || !bestf)
		goto out;
	pick_tops(c, pair, best, bestf);
	for (size_t k = 0; k < c->rows.n; k++) {
		struct view_row *r = &c->rows.rows[k];
		char b1[40];

		r->topn = best[k];
		if (bestf[k])
			r->top = strdup(view_name(&c->funcs.rows[bestf[k] - 1], b1));
		if (c->view == VIEW_THREADS && d->job && !d->threads[r->aux].tid) {
			r->name = strdup("-"); /* a rank's threads not kept */
		} else if (c->view == VIEW_THREADS) {
			if (asprintf(&r->name, "%d", d->threads[r->aux].tid) < 0)
				r->name = NULL;
		} else if (asprintf(&r->name, "%d", d->procs[r->aux].pid) < 0) {
			r->name = NULL;
		}
		if (!r->name || (bestf[k] && !r->top))
			goto out;
	}
	ret = 0;
out:
	free(best);
	free(bestf);
	return ret;
}

/*
 * Fills c->rows with the view's rows for event c->event, and c->funcs
 * with the function rows (the threads and processes views name each
 * one's top function from them). Returns 0 or -1 (out of memory).
 */
int view_build(struct view_ctx *c)
{
	const struct hd_file *d = c->d;
	struct rows_table pair = { 0 }; /* (thread|process, function) */
	int owners = c->view == VIEW_THREADS || c->view == VIEW_PROCS;

	/* at most one function row per sample: no rehash on the way for
	 * most files; merged rank files have many samples per function, and
	 * a table sized for all of them would cost more to clear than it
	 * saves */
	if (rows_reserve(&c->funcs, d->nsamples < (1u << 18) ? d->nsamples : (1u << 18)))
		return -1;
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];

		if (s->event == (uint32_t)c->event && s->count && add_sample(c, s, &pair))
			goto oom;
	}
	if (c->view == VIEW_FUNCS) {
		c->rows = c->funcs;
		memset(&c->funcs, 0, sizeof(c->funcs));
		c->funcs_are_rows = 1;
	}
	if (d->job && c->view == VIEW_PROCS && (add_ranks(c) || job_tops(c, &pair)))
		goto oom;
	if (d->job && c->view == VIEW_THREADS && add_job_threads(c))
		goto oom;
	if (owners && name_owners(c, &pair))
		goto oom;
	rows_free(&pair);
	return 0;
oom:
	rows_free(&pair);
	return -1;
}

/* Interns a source file name; returns its number. */
static uint32_t view_intern(struct view_ctx *c, const char *s)
{
	uint64_t h = 1469598103934665603ull;
	long k;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	/* equal hashes of different names get their own numbers */
	for (uint64_t salt = 0;; salt++) {
		k = rows_get(&c->strs, h, salt);
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

const char *view_name(const struct view_row *r, char buf[40])
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
	const struct view_row *a = x, *b = y;
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

/* Most samples on paths through it first (call paths), then as above. */
static int by_total(const void *x, const void *y)
{
	const struct view_row *a = x, *b = y;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return by_samples(x, y);
}

static int by_name(const void *x, const void *y)
{
	const struct view_row *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return by_samples(x, y);
}

/* Sorts the rows (by_symbol 1: by name, 2: by total); the table's index is
 * of no use afterwards. Returns 0, or -1 when out of memory. */
int view_sort(struct view_ctx *c, int by_symbol)
{
	for (size_t i = 0; by_symbol == 1 && i < c->rows.n; i++) {
		struct view_row *r = &c->rows.rows[i];
		char buf[40];

		if (!r->name && !(r->name = strdup(view_name(r, buf))))
			return -1;
	}
	if (c->rows.n)
		qsort(c->rows.rows, c->rows.n, sizeof(*c->rows.rows),
		      by_symbol == 1 ? by_name :
		      by_symbol == 2 ? by_total :
				       by_samples);
	hwp_htab_free(&c->rows.index);
	return 0;
}

void view_ctx_free(struct view_ctx *c)
{
	rows_free(&c->rows);
	rows_free(&c->funcs);
	rows_free(&c->strs);
	rows_free(&c->flines);
	for (size_t i = 0; i < c->nobjs; i++)
		sym_obj_free(&c->objs[i]);
	free(c->objs);
}

int view_ctx_init(struct view_ctx *c, const struct hd_file *d, int event, enum view_kind view)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->event = event;
	c->view = view;
	c->objs = calloc(d->nobjects + 1, sizeof(*c->objs));
	if (!c->objs)
		return -1;
	c->nobjs = d->nobjects;
	for (size_t i = 0; i < d->nobjects; i++) {
		sym_obj_init(&c->objs[i], d->objects[i].path, d->objects[i].buildid,
			     d->objects[i].size);
		sym_obj_keep(&c->objs[i], d, (uint32_t)i);
	}
	return 0;
}

double view_pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

int view_width;

int view_terminal_width(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col)
		return 0;
	return ws.ws_col < 40 ? 40 : ws.ws_col;
}

const struct sym_func *view_row_sym(const struct view_ctx *c, const struct view_row *r)
{
	if ((r->a & ~0xffffffffull) != VIEW_KEY_FUNC || r->obj == HD_NO_OBJECT ||
	    r->obj >= c->nobjs || r->b >= c->objs[r->obj].nsyms)
		return NULL;
	return &c->objs[r->obj].syms[r->b];
}

/* Whether name is an alias of f, raw or demangled (part: holds name). */
static int is_alias(const struct sym_func *f, const char *name, int part)
{
	for (const char *a = f ? sym_alias_next(f, NULL) : NULL; a; a = sym_alias_next(f, a)) {
		char *dm;
		int eq = part ? strstr(a, name) != NULL : !strcmp(a, name);

		if (!eq && (dm = nm_demangle(a))) {
			eq = part ? strstr(dm, name) != NULL : !strcmp(dm, name);
			free(dm);
		}
		if (eq)
			return 1;
	}
	return 0;
}

/* How well row r's name matches (view_match()): 5 its name, raw name or
 * an alias is name (OBJECT+0xADDR for an address no symbol covers, or
 * an address of OBJECT in the row's function), 4
 * its name less return type and parameters is (nm_bare()), 3 the same
 * less template arguments, 1 its name or an alias holds name (a PLT
 * stub name@plt too), -1 no match. */
static int match_level(const struct view_ctx *c, const struct view_row *r, const char *name,
		       const char *bare_name)
{
	const struct sym_func *f = view_row_sym(c, r);
	char buf[40], *b;
	const char *s = view_name(r, buf);
	int lvl = -1;

	if (!strcmp(s, name) || (f && (!strcmp(f->name, name) || is_alias(f, name, 0))))
		return 5;
	if (r->obj != HD_NO_OBJECT && r->obj < c->nobjs) {
		/* OBJECT+0xADDR for an address no symbol covers; for a
		 * function (an FDE's too), any address in it */
		const char *base = view_base(c->d->objects[r->obj].path);
		size_t m = strlen(base);

		if (!r->name && !strncmp(name, base, m) && !strcmp(name + m, s))
			return 5;
		if (f && !strncmp(name, base, m) && !strncmp(name + m, "+0x", 3) &&
		    name[m + 3] &&
		    strspn(name + m + 3, "0123456789abcdefABCDEF") == strlen(name + m + 3)) {
			unsigned long long a = strtoull(name + m + 3, NULL, 16);

			if (a >= f->lo && a < f->hi)
				return 5;
		}
	}
	b = nm_bare(s, 1);
	if (b && !strcmp(b, name))
		lvl = 4;
	free(b);
	b = lvl < 0 ? nm_bare(s, 0) : NULL;
	if (b && (!strcmp(b, name) || (bare_name && !strcmp(b, bare_name))))
		lvl = 3;
	free(b);
	if (lvl < 0 && (strstr(s, name) || is_alias(f, name, 1)))
		lvl = 1;
	return lvl;
}

static int by_row_samples(const void *x, const void *y)
{
	const struct view_row *a = *(const struct view_row *const *)x;
	const struct view_row *b = *(const struct view_row *const *)y;

	return a->n != b->n ? (a->n < b->n ? 1 : -1) : 0;
}

long view_match(const struct view_ctx *c, const struct rows_table *t, const char *name)
{
	char *bare_name = nm_bare(name, 0), buf[40], buf2[40];
	const struct view_row **cand = NULL;
	int best = -1, distinct = 0;
	size_t nc = 0;
	long pick = -1;

	for (size_t i = 0; i < t->n; i++) {
		int l = match_level(c, &t->rows[i], name, bare_name);

		if (l > best) {
			best = l;
			nc = 0;
		}
		if (l == best && l >= 0) {
			const struct view_row **nw = realloc(cand, (nc + 1) * sizeof(*cand));

			if (!nw)
				break;
			cand = nw;
			cand[nc++] = &t->rows[i];
		}
	}
	free(bare_name);
	if (!nc) {
		free(cand);
		return -1;
	}
	qsort(cand, nc, sizeof(*cand), by_row_samples);
	for (size_t i = 1; i < nc; i++)
		distinct |= strcmp(view_name(cand[i], buf), view_name(cand[0], buf2)) != 0;
	if (!distinct) { /* one name (in one or several objects): the most sampled */
		pick = cand[0] - t->rows;
		if (best == 1) { /* not its name: say what was taken */
			fputs("hwprof: ", stderr);
			nm_put(stderr, name, NM_TEXT);
			fputs(": no function has that name; taking ", stderr);
			nm_put(stderr, view_name(cand[0], buf), NM_TEXT);
			fputs(", the one name that holds it\n", stderr);
		}
		free(cand);
		return pick;
	}
	fputs("hwprof: ", stderr);
	nm_put(stderr, name, NM_TEXT);
	fprintf(stderr, ": %zu functions match; give one of (samples, name, object):\n", nc);
	for (size_t i = 0; i < nc && i < 20; i++) {
		fprintf(stderr, "hwprof: %10llu  ", (unsigned long long)cand[i]->n);
		nm_put(stderr, view_name(cand[i], buf), NM_TEXT);
		fprintf(stderr, " (%s)\n",
			cand[i]->obj == HD_NO_OBJECT || cand[i]->obj >= c->nobjs ?
				VIEW_NO_OBJECT :
				view_base(c->d->objects[cand[i]->obj].path));
	}
	if (nc > 20)
		fprintf(stderr, "hwprof: and %zu more\n", nc - 20);
	free(cand);
	return -2;
}

const char *view_fit(const char *name, int used)
{
	static char *ring[4];
	static unsigned int next;
	int room = view_width - used;
	char **slot = &ring[next++ % 4];

	if (view_width <= 0 || (int)strlen(name) <= (room < 24 ? 24 : room))
		return name;
	free(*slot);
	*slot = nm_shorten(name, (size_t)(room < 24 ? 24 : room));
	return *slot ? *slot : name;
}

int view_pad(int want, int used)
{
	int room = view_width - used;

	if (view_width <= 0 || room >= want)
		return want;
	return room < 24 ? 24 : room;
}

const char *view_obj_path(const struct view_ctx *c, uint32_t obj)
{
	return obj == HD_NO_OBJECT || obj >= c->nobjs ? VIEW_NO_OBJECT :
							c->d->objects[obj].path;
}
