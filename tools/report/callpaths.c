/* SPDX-License-Identifier: MIT */
/*
 * hwprof report's call-path views (hwprof-data(5), version 4): each
 * sample's path as function rows of the view, the inclusive ("total")
 * samples of every function, the callers and callees of one, the
 * top-down and bottom-up trees, and FlameGraph's folded stacks. A path's
 * innermost frame is named by the sampled pc, every other one by its
 * return address less one, which lies in the call instruction (the line
 * of the call, not the line after it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callpaths.h"
#include "cli.h"
#include "names.h"
#include "rows.h"
#include "view.h"

#define CP_UNKNOWN (-2)

int cp_init(struct cp *p, struct view_ctx *c)
{
	size_t n = c->d->cct.n;

	memset(p, 0, sizeof(*p));
	p->c = c;
	p->cap = 64;
	p->fn = malloc((2 * n + 1) * sizeof(*p->fn));
	p->frames = malloc(p->cap * sizeof(*p->frames));
	p->fns = malloc(p->cap * sizeof(*p->fns));
	if (!p->fn || !p->frames || !p->fns) {
		cp_free(p);
		return -1;
	}
	for (size_t i = 0; i < 2 * n; i++)
		p->fn[i] = CP_UNKNOWN;
	return 0;
}

void cp_free(struct cp *p)
{
	free(p->fn);
	free(p->frames);
	free(p->fns);
	memset(p, 0, sizeof(*p));
}

/* The function row of node as a path's innermost frame (leaf) or as a
 * caller; -1 when out of memory. */
static long node_fn(struct cp *p, uint32_t node, int leaf)
{
	long *f = &p->fn[2 * (size_t)node + !leaf];

	if (*f == CP_UNKNOWN) {
		const struct hwp_cct_node *x = &p->c->d->cct.node[node];

		*f = view_func_row(p->c, x->object, leaf || !x->addr ? x->addr : x->addr - 1);
	}
	return *f;
}

long cp_path(struct cp *p, const struct hd_path *h)
{
	size_t n = hd_path_frames(p->c->d, h->node, p->frames, p->cap);

	if (n > p->cap) {
		size_t cap = n + 64;
		uint32_t *nf = realloc(p->frames, cap * sizeof(*nf));
		long *nfn = realloc(p->fns, cap * sizeof(*nfn));

		if (nf)
			p->frames = nf;
		if (nfn)
			p->fns = nfn;
		if (!nf || !nfn)
			return -1;
		p->cap = cap;
		n = hd_path_frames(p->c->d, h->node, p->frames, p->cap);
	}
	for (size_t i = 0; i < n; i++)
		if ((p->fns[i] = node_fn(p, p->frames[i], i == 0)) < 0)
			return -1;
	return (long)n;
}

char *cp_covered(const struct hd_file *d)
{
	size_t per = d->nthreads + 1;
	char *c = calloc(d->nevents * per + 1, 1);

	for (size_t i = 0; c && i < d->npaths; i++) {
		const struct hd_path *h = &d->paths[i];

		c[h->event * per + (h->thread == HD_NO_THREAD ? d->nthreads : h->thread)] = 1;
	}
	return c;
}

int cp_flat_sample(const struct hd_file *d, const char *covered, const struct hd_sample *s)
{
	size_t per = d->nthreads + 1;

	return !covered[s->event * per + (s->thread == HD_NO_THREAD ? d->nthreads : s->thread)];
}

/* Whether f is among the first n of fns. */
static int seen(const long *fns, size_t n, long f)
{
	for (size_t i = 0; i < n; i++)
		if (fns[i] == f)
			return 1;
	return 0;
}

/*
 * The next unit of the reported event from *i on, into p->fns: a call
 * path, or a flat sample of an (event, thread) without paths (covered,
 * from cp_covered()) as its own frame alone. Returns its frames (0 when
 * there are no more, -1 when out of memory) and its samples in *count.
 */
static long next_unit(struct cp *p, const char *covered, size_t *i, uint64_t *count)
{
	const struct hd_file *d = p->c->d;

	for (; *i < d->npaths + d->nsamples; ++*i) {
		if (*i < d->npaths) {
			const struct hd_path *h = &d->paths[*i];

			if (h->event != (uint32_t)p->c->event)
				continue;
			*count = h->count;
			++*i;
			return cp_path(p, h);
		} else {
			const struct hd_sample *s = &d->samples[*i - d->npaths];

			if (s->event != (uint32_t)p->c->event ||
			    !cp_flat_sample(d, covered, s))
				continue;
			*count = s->count;
			++*i;
			p->fns[0] = view_func_row(p->c, s->object, s->addr);
			return p->fns[0] < 0 ? -1 : 1;
		}
	}
	return 0;
}

int cp_totals(struct cp *p)
{
	struct view_ctx *c = p->c;
	struct rows_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	char *covered = cp_covered(c->d);
	uint64_t count;
	size_t i = 0;
	long n;

	if (!covered)
		return -1;
	while ((n = next_unit(p, covered, &i, &count)) > 0)
		/* a function counts a sample once, however often it recurs */
		for (long k = 0; k < n; k++)
			if (!seen(p->fns, (size_t)k, p->fns[k]))
				t->rows[p->fns[k]].total =
					hwp_add_sat(t->rows[p->fns[k]].total, count);
	free(covered);
	if (n < 0)
		return -1;
	c->has_totals = 1;
	return 0;
}

/* Whether name is one of the places where a thread's call path starts
 * when it is whole: the C runtime's entry and the thread-start routines
 * of glibc and musl. A symbol version ("__libc_start_main@@GLIBC_2.34")
 * and glibc's internal-alias prefix (__GI___clone3) are not part of it. */
static int entry_name(const char *name)
{
	static const char *const entry[] = {
		"_start",
		"__libc_start_main",
		"__libc_start_call_main",
		"__libc_start_main_impl",
		"__libc_start_main_alias_1",
		"__libc_start_main_alias_2",
		"start_thread",
		"clone",
		"clone3",
		"__clone",
		"__clone3",
		"__clone_internal",
		"__clone_internal_fallback",
		"thread_start",
		"start",
	};
	size_t n;

	if (!strncmp(name, "__GI_", 5))
		name += 5;
	n = strcspn(name, "@");
	for (size_t i = 0; i < sizeof(entry) / sizeof(entry[0]); i++)
		if (strlen(entry[i]) == n && !strncmp(name, entry[i], n))
			return 1;
	return 0;
}

/* Whether function row r is a thread's entry: by the name shown or by
 * any alias of its symbol (the name shown is the public one: clone3 for
 * the __clone3 and __GI___clone3 glibc also calls it). */
static int is_entry(const struct view_ctx *c, const struct view_row *r)
{
	const struct sym_func *f = view_row_sym(c, r);
	char buf[40];

	if (entry_name(view_name(r, buf)))
		return 1;
	for (const char *a = f ? sym_alias_next(f, NULL) : NULL; a; a = sym_alias_next(f, a))
		if (entry_name(a))
			return 1;
	return 0;
}

int cp_short(struct cp *p, uint64_t *out)
{
	struct view_ctx *c = p->c;
	const struct rows_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	uint64_t n = 0;

	for (size_t i = 0; i < c->d->npaths; i++) {
		const struct hd_path *h = &c->d->paths[i];
		long k;

		if (h->event != (uint32_t)c->event)
			continue;
		if ((k = cp_path(p, h)) < 0)
			return -1;
		t = c->funcs_are_rows ? &c->rows : &c->funcs; /* may have grown */
		if (!is_entry(c, &t->rows[p->fns[k - 1]]))
			n = hwp_add_sat(n, h->count);
	}
	*out = n; /* saturated, never wrapped: not an error */
	return 0;
}

/* ------------------------------------------------------------------ */
/* One function's callers and callees                                   */

/* Case-sensitive substring search over the function rows' names. */
long cp_find(struct cp *p, const char *name)
{
	struct view_ctx *c = p->c;
	long f = view_match(c, c->funcs_are_rows ? &c->rows : &c->funcs, name);

	if (f == -1) {
		fputs("hwprof: ", stderr);
		nm_put(stderr, name, NM_TEXT);
		fputs(": no function of that name took samples on a call path\n", stderr);
	}
	return f < 0 ? -1 : f;
}

struct edge {
	long fn; /* -1: none (the path's end) */
	uint64_t n;
};

static int by_count(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;

	return a->n != b->n ? (a->n < b->n ? 1 : -1) : (a->fn > b->fn) - (a->fn < b->fn);
}

/* Adds n to the edge to fn in e (of *ne), once per path (done). */
static int edge_add(struct edge **e, size_t *ne, long fn, uint64_t n)
{
	for (size_t i = 0; i < *ne; i++)
		if ((*e)[i].fn == fn) {
			(*e)[i].n = hwp_add_sat((*e)[i].n, n);
			return 0;
		}
	if (hd_grow(e, *ne, sizeof(**e)))
		return -1;
	(*e)[(*ne)++] = (struct edge){ fn, n };
	return 0;
}

/* One neighbour's name as JSON: null for the path's end. */
static void json_neighbour(const struct rows_table *t, long fn, char *buf)
{
	if (fn < 0)
		fputs("null", stdout);
	else
		nm_put(stdout, view_name(&t->rows[fn], buf), NM_JSON);
}

int cp_neighbours(struct cp *p, const char *name, int callers, int once, int json)
{
	struct view_ctx *c = p->c;
	struct rows_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	struct edge *e = NULL;
	size_t ne = 0;
	uint64_t total = 0, all = 0;
	long f = cp_find(p, name), *one = NULL, n;
	char buf[40], *covered = cp_covered(c->d);
	uint64_t count;
	size_t i = 0;
	int ret = 1;

	if (f < 0) {
		free(covered);
		return 1;
	}
	if (!covered)
		goto oom;
	while ((n = next_unit(p, covered, &i, &count))) {
		size_t none = 0;

		if (n < 0)
			goto oom;
		all = hwp_add_sat(all, count);
		if (!seen(p->fns, (size_t)n, f))
			continue;
		total = hwp_add_sat(total, count);
		if (once) {
			/* the caller of its outermost frame (who entered a
			 * recursion), the callee of its innermost (what it
			 * called out to): one per path */
			long k = callers ? n - 1 : 0, nb;

			while (p->fns[k] != f)
				k += callers ? -1 : 1;
			nb = callers ? (k + 1 < n ? p->fns[k + 1] : -1) :
				       (k ? p->fns[k - 1] : -1);
			if (edge_add(&e, &ne, nb, count))
				goto oom;
			continue;
		}
		free(one);
		one = malloc(((size_t)n + 1) * sizeof(*one));
		if (!one)
			goto oom;
		/* fns is innermost first: a caller is the next one out */
		for (long k = 0; k < n; k++) {
			long nb;

			if (p->fns[k] != f)
				continue;
			nb = callers ? (k + 1 < n ? p->fns[k + 1] : -1) :
				       (k ? p->fns[k - 1] : -1);
			if (seen(one, none, nb))
				continue;
			one[none++] = nb;
			if (edge_add(&e, &ne, nb, count))
				goto oom;
		}
	}
	qsort(e, ne, sizeof(*e), by_count);
	if (json) {
		printf("{\"view\": \"%s\", \"function\": ", callers ? "callers" : "callees");
		nm_put(stdout, view_name(&t->rows[f], buf), NM_JSON);
		printf(", \"denominator\": \"function_total\", \"total\": %llu, "
		       "\"samples_on_paths\": %llu, \"counting\": \"%s\", \"sums_to_100\": %s, "
		       "\"rows\": [",
		       (unsigned long long)total, (unsigned long long)all,
		       once ? (callers ? "outermost" : "innermost") : "each",
		       once ? "true" : "false");
		for (size_t k = 0; k < ne; k++) {
			printf("%s{\"%s\": ", k ? ", " : "", callers ? "caller" : "callee");
			json_neighbour(t, e[k].fn, buf);
			printf(", \"samples\": %llu, \"percent\": %.17g}",
			       (unsigned long long)e[k].n, view_pct(e[k].n, total));
		}
		printf("]}\n");
		ret = 0;
		goto out;
	}
	printf("# %s of ", callers ? "callers" : "callees");
	nm_put(stdout, view_name(&t->rows[f], buf), NM_TEXT);
	printf(": shares of its total, the %llu sample%s on call paths through it "
	       "(%.2f%% of the %llu on call paths); ",
	       (unsigned long long)total, total == 1 ? "" : "s", view_pct(total, all),
	       (unsigned long long)all);
	if (once)
		printf("each path counts once, at the function's %s frame on it: the shares sum to 100%%\n",
		       callers ? "outermost" : "innermost");
	else
		printf("a path counts once for each %s, so under recursion the shares may sum "
		       "past 100%% (--once: to 100%%)\n",
		       callers ? "caller" : "callee");
	printf("%8s %10s  %s\n", "percent", "samples", callers ? "caller" : "callee");
	for (size_t k = 0; k < ne; k++) {
		printf("%7.2f%% %10llu  ", view_pct(e[k].n, total),
		       (unsigned long long)e[k].n);
		if (e[k].fn < 0)
			fputs(callers ? "[no caller: the path's outermost frame]" :
					"[self: samples in it]",
			      stdout);
		else
			nm_put(stdout, view_fit(view_name(&t->rows[e[k].fn], buf), 21),
			       NM_TEXT);
		putchar('\n');
	}
	ret = 0;
	goto out;
oom:
	die("out of memory");
out:
	free(covered);
	free(one);
	free(e);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Trees                                                                */

static long tree_get(struct cp_tree *tr, struct rows_table *idx, long parent, long fn)
{
	long i = rows_get(idx, (uint64_t)(parent + 1), (uint64_t)fn);

	if (i < 0)
		return -1;
	if ((size_t)i == tr->nn) {
		if (hd_grow(&tr->n, tr->nn, sizeof(*tr->n)))
			return -1;
		tr->n[tr->nn++] = (struct cp_tnode){ parent, fn, 0, 0, 0, 0 };
	}
	return i;
}

static const struct cp_tree *sort_tree;

static int by_parent_total(const void *x, const void *y)
{
	const struct cp_tnode *a = &sort_tree->n[*(const size_t *)x];
	const struct cp_tnode *b = &sort_tree->n[*(const size_t *)y];

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return (a->fn > b->fn) - (a->fn < b->fn);
}

/* Adds count samples of the path in p->fns (n frames) to the tree. */
static int tree_add(struct cp *p, struct cp_tree *tr, struct rows_table *idx, long n,
		    uint64_t count, int bottom_up)
{
	long parent = -1, x;

	tr->all = hwp_add_sat(tr->all, count);
	for (long k = 0; k < n; k++) {
		long fn = p->fns[bottom_up ? k : n - 1 - k];

		if ((x = tree_get(tr, idx, parent, fn)) < 0)
			return -1;
		tr->n[x].total = hwp_add_sat(tr->n[x].total, count);
		if (k == n - 1 && !bottom_up)
			tr->n[x].self = hwp_add_sat(tr->n[x].self, count);
		parent = x;
	}
	return 0;
}

int cp_tree_build(struct cp *p, int bottom_up, struct cp_tree *tr)
{
	struct view_ctx *c = p->c;
	struct rows_table idx = { 0 };
	char *covered = cp_covered(c->d);

	memset(tr, 0, sizeof(*tr));
	if (!covered)
		goto oom;
	for (size_t i = 0; i < c->d->npaths; i++) {
		const struct hd_path *h = &c->d->paths[i];
		long n;

		if (h->event != (uint32_t)c->event)
			continue;
		if ((n = cp_path(p, h)) < 0 || tree_add(p, tr, &idx, n, h->count, bottom_up))
			goto oom;
	}
	/* a merged file's samples that came without paths: their own
	 * frame alone */
	for (size_t i = 0; i < c->d->nsamples; i++) {
		const struct hd_sample *s = &c->d->samples[i];

		if (s->event != (uint32_t)c->event || !cp_flat_sample(c->d, covered, s))
			continue;
		if ((p->fns[0] = view_func_row(c, s->object, s->addr)) < 0 ||
		    tree_add(p, tr, &idx, 1, s->count, bottom_up))
			goto oom;
	}
	free(covered);
	covered = NULL;
	rows_free(&idx);
	tr->kids = malloc((tr->nn + 1) * sizeof(*tr->kids));
	if (!tr->kids)
		goto oom;
	for (size_t i = 0; i < tr->nn; i++)
		tr->kids[i] = i;
	sort_tree = tr;
	qsort(tr->kids, tr->nn, sizeof(*tr->kids), by_parent_total);
	for (size_t k = 0; k < tr->nn; k++) {
		struct cp_tnode *x = &tr->n[tr->kids[k]];

		if (x->parent < 0) {
			tr->nroots++;
			continue;
		}
		if (!tr->n[x->parent].nkids++)
			tr->n[x->parent].first = k;
	}
	return 0;
oom:
	free(covered);
	rows_free(&idx);
	cp_tree_free(tr);
	return -1;
}

void cp_tree_free(struct cp_tree *tr)
{
	free(tr->n);
	free(tr->kids);
	memset(tr, 0, sizeof(*tr));
}

static void tree_print(const struct cp *p, const struct cp_tree *tr, size_t from, size_t n,
		       int depth, uint64_t min, int bottom_up)
{
	const struct view_ctx *c = p->c;
	const struct rows_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	char buf[40];

	for (size_t k = from; k < from + n; k++) {
		const struct cp_tnode *x = &tr->n[tr->kids[k]];
		const struct view_row *r = &t->rows[x->fn];
		const char *on;

		if (x->total < min)
			break; /* sorted: the rest are smaller */
		printf("%7.2f%% ", view_pct(x->total, tr->all));
		if (!bottom_up)
			printf("%7.2f%% ", view_pct(x->self, tr->all));
		for (int i = 0; i < depth && i < 64; i++)
			fputs("  ", stdout);
		on = r->obj == HD_NO_OBJECT ? VIEW_NO_OBJECT :
					      view_base(c->d->objects[r->obj].path);
		nm_put(stdout,
		       view_fit(view_name(r, buf), (bottom_up ? 9 : 18) +
							   2 * (depth < 64 ? depth : 64) + 2 +
							   (int)strlen(on)),
		       NM_TEXT);
		printf("  %s\n", on);
		tree_print(p, tr, x->first, x->nkids, depth + 1, min, bottom_up);
	}
}

int cp_tree(struct cp *p, int bottom_up, double min_pct)
{
	struct cp_tree tr;

	if (cp_tree_build(p, bottom_up, &tr))
		die("out of memory");
	printf("# %s tree of the call paths: %s; nodes under %.2f%% of the %llu samples "
	       "with a path are left out\n",
	       bottom_up ? "bottom-up" : "top-down",
	       bottom_up ?
		       "each function where samples fell, then its callers, outward; "
		       "total: samples of that path suffix" :
		       "from the outermost frames in; total: samples in the node and below, "
		       "self: in the node itself",
	       min_pct, (unsigned long long)tr.all);
	printf(bottom_up ? "%8s  %s\n" : "%8s %8s  %s\n", "total",
	       bottom_up ? "function" : "self", "function");
	tree_print(p, &tr, 0, tr.nroots, 0, (uint64_t)((double)tr.all * min_pct / 100.0),
		   bottom_up);
	cp_tree_free(&tr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Folded stacks                                                        */

struct fline {
	char *s;
	uint64_t n;
};

static int by_str(const void *x, const void *y)
{
	return strcmp(((const struct fline *)x)->s, ((const struct fline *)y)->s);
}

/* One frame's name as FlameGraph's collapsed format takes it: on one line,
 * with no ';' (the frame separator). */
static void put_frame(FILE *f, const char *name)
{
	for (const char *s = name; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

const char *cp_comm(const struct hd_file *d, uint32_t thread)
{
	const struct hd_thread *t;
	const char *cmd, *b;
	static char word[256];
	size_t n;

	if (thread == HD_NO_THREAD || thread >= d->nthreads)
		return "[unknown]";
	t = &d->threads[thread];
	if (t->comm && *t->comm)
		return t->comm;
	cmd = d->procs[t->proc].command;
	if (!cmd || !*cmd)
		return "[unknown]";
	/* the basename of its first word */
	n = strcspn(cmd, " ");
	for (b = cmd + n; b > cmd && b[-1] != '/'; b--)
		;
	n -= (size_t)(b - cmd);
	if (n >= sizeof(word))
		n = sizeof(word) - 1;
	memcpy(word, b, n);
	word[n] = 0;
	return n ? word : "[unknown]";
}

int cp_folded(struct cp *p, int comm)
{
	struct view_ctx *c = p->c;
	const struct rows_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	struct fline *l = NULL;
	size_t nl = 0;
	int ret = 1;
	char buf[40], *covered = cp_covered(c->d);

	if (!covered)
		die("out of memory");
	/* one line per path, and per innermost frame of the samples that
	 * came without one (a flat file, or a merged one's threads) */
	for (size_t i = 0; i < c->d->npaths + c->d->nsamples; i++) {
		const struct hd_path *h = i < c->d->npaths ? &c->d->paths[i] : NULL;
		const struct hd_sample *s = h ? NULL : &c->d->samples[i - c->d->npaths];
		size_t len = 0;
		long n, one;
		FILE *m;

		if ((h ? h->event : s->event) != (uint32_t)c->event ||
		    (s && !cp_flat_sample(c->d, covered, s)))
			continue;
		if (h) {
			n = cp_path(p, h);
		} else {
			one = view_func_row(c, s->object, s->addr);
			n = one < 0 ? -1 : 1;
			p->fns[0] = one;
		}
		if (n < 0 || hd_grow(&l, nl, sizeof(*l)))
			goto oom;
		l[nl].s = NULL;
		m = open_memstream(&l[nl].s, &len);
		if (!m)
			goto oom;
		if (comm) {
			put_frame(m, cp_comm(c->d, h ? h->thread : s->thread));
			if (n)
				fputc(';', m);
		}
		for (long k = n - 1; k >= 0; k--) {
			put_frame(m, view_name(&t->rows[p->fns[k]], buf));
			if (k)
				fputc(';', m);
		}
		if (fclose(m) || !l[nl].s) {
			free(l[nl].s);
			goto oom;
		}
		l[nl++].n = h ? h->count : s->count;
	}
	if (nl)
		qsort(l, nl, sizeof(*l), by_str);
	for (size_t i = 0; i < nl;) {
		uint64_t n = 0;
		size_t j = i;

		for (; j < nl && !strcmp(l[j].s, l[i].s); j++)
			n = hwp_add_sat(n, l[j].n);
		printf("%s %llu\n", l[i].s, (unsigned long long)n);
		i = j;
	}
	ret = 0;
	goto out;
oom:
	die("out of memory");
out:
	for (size_t i = 0; i < nl; i++)
		free(l[i].s);
	free(l);
	free(covered);
	return ret;
}
