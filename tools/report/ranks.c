/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --ranks: how each function's samples spread over the MPI
 * ranks (load imbalance), as mpiP and HPCToolkit users read it: per
 * function the total, min, mean and max over the ranks, max/mean and the
 * rank of the max; per rank its samples and its share in MPI objects.
 * From merged rank files (each process has its rank) or from a job file of
 * libhwprof-mpi (its per-function spread, per-rank counts of the top
 * functions, and per-rank totals); printed by ranks-out.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callpaths.h"
#include "cli.h"
#include "header.h"
#include "out.h"
#include "ranks.h"
#include "view.h"

static int by_rank(const void *x, const void *y)
{
	const struct rk_pr *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

/* The ranks present, each process's column. 0 or -1 (out of memory). */
static int columns(struct rk *k)
{
	const struct hd_file *d = k->d;
	struct rk_pr *pr = calloc(d->nprocs + 1, sizeof(*pr));
	size_t n = 0;

	k->col = calloc(d->nprocs + 1, sizeof(*k->col));
	k->ranks = calloc(d->nprocs + 1, sizeof(*k->ranks));
	if (!pr || !k->col || !k->ranks) {
		free(pr);
		return -1;
	}
	for (size_t i = 0; i < d->nprocs; i++) {
		int r = d->procs[i].rank >= 0 ? d->procs[i].rank : d->rank;

		k->col[i] = UINT32_MAX;
		if (r >= 0)
			pr[n++] = (struct rk_pr){ r, (uint32_t)i };
	}
	qsort(pr, n, sizeof(*pr), by_rank);
	for (size_t i = 0; i < n; i++) {
		if (!k->nranks || k->ranks[k->nranks - 1].rank != pr[i].rank)
			k->ranks[k->nranks++] = (struct rk_rank){ .rank = pr[i].rank,
								  .proc = pr[i].proc };
		k->col[pr[i].proc] = (uint32_t)(k->nranks - 1);
	}
	free(pr);
	return 0;
}

/* Moves the run's counts into pairs. 0 or -1. */
static int flush(struct rk *k)
{
	for (size_t i = 0; i < k->ntouched; i++) {
		uint32_t f = k->touched[i];

		if (k->npairs == k->cappairs) {
			size_t cap = k->cappairs ? 2 * k->cappairs : 4096;
			struct rk_pair *np = realloc(k->pairs, cap * sizeof(*np));

			if (!np)
				return -1;
			k->pairs = np;
			k->cappairs = cap;
		}
		k->pairs[k->npairs++] = (struct rk_pair){ f, k->runcol, k->acc[f] };
		k->acc[f] = 0;
	}
	k->ntouched = 0;
	return 0;
}

/*
 * Adds n samples of function row f in rank index col. Samples come in runs
 * of one rank (a file's process), so they are summed in an array by
 * function row and moved out when the rank changes: no hashing; a rank met
 * in several runs gives several pairs, summed when sorted. 0 or -1.
 */
static int add_pair(struct rk *k, long f, uint32_t col, uint64_t n)
{
	if (!n)
		return 0;
	if (col != k->runcol && flush(k))
		return -1;
	k->runcol = col;
	if ((size_t)f >= k->nacc) {
		size_t cap = k->nacc ? k->nacc : 1024;
		uint64_t *na;
		uint32_t *nt;

		while (cap <= (size_t)f)
			cap *= 2;
		na = realloc(k->acc, cap * sizeof(*na));
		if (na)
			k->acc = na;
		nt = realloc(k->touched, cap * sizeof(*nt));
		if (nt)
			k->touched = nt;
		if (!na || !nt)
			return -1;
		memset(k->acc + k->nacc, 0, (cap - k->nacc) * sizeof(*na));
		k->nacc = cap;
	}
	if (!k->acc[f])
		k->touched[k->ntouched++] = (uint32_t)f;
	k->acc[f] = hwp_add_sat(k->acc[f], n);
	return 0;
}

static int by_col(const void *x, const void *y)
{
	const struct rk_pair *a = x, *b = y;

	return a->col < b->col ? -1 : a->col > b->col;
}

/* Sorts the pairs by function row (counting sort: stable, linear), then
 * by rank within a row where the runs were not in rank order, and sums
 * pairs of the same row and rank. 0 or -1. */
static int sort_pairs(struct rk *k, size_t nrows)
{
	size_t *at = calloc(nrows + 2, sizeof(*at)), n = 0;
	struct rk_pair *out = malloc((k->npairs + 1) * sizeof(*out));

	if (!at || !out) {
		free(at);
		free(out);
		return -1;
	}
	for (size_t i = 0; i < k->npairs; i++)
		at[k->pairs[i].f + 1]++;
	for (size_t f = 0; f < nrows; f++)
		at[f + 1] += at[f];
	for (size_t i = 0; i < k->npairs; i++)
		out[at[k->pairs[i].f]++] = k->pairs[i];
	free(at);
	for (size_t i = 0, j; i < k->npairs; i = j) {
		int sorted = 1;

		for (j = i + 1; j < k->npairs && out[j].f == out[i].f; j++)
			sorted &= out[j].col >= out[j - 1].col;
		if (!sorted)
			qsort(out + i, j - i, sizeof(*out), by_col);
	}
	for (size_t i = 0; i < k->npairs; i++) {
		if (n && out[n - 1].f == out[i].f && out[n - 1].col == out[i].col)
			out[n - 1].n = hwp_add_sat(out[n - 1].n, out[i].n);
		else
			out[n++] = out[i];
	}
	free(k->pairs);
	k->pairs = out;
	k->npairs = n;
	k->cappairs = k->npairs + 1;
	return 0;
}

/* Whether the function row at (obj, addr) is an MPI call: MPI_ or PMPI_
 * (a wrapper of libhwprof-mpi or of another tool, or the library's own). */
static int mpi_name(struct rk *k, uint32_t obj, uint64_t addr, int *bad)
{
	long f = view_func_row(k->c, obj, addr);
	char nb[40];
	const char *n;

	if (f < 0) {
		*bad = 1;
		return 0;
	}
	n = view_name(&k->c->rows.rows[f], nb);
	return !strncmp(n, "MPI_", 4) || !strncmp(n, "PMPI_", 5);
}

/*
 * Time in MPI by call path (hwprof(1), "Time in MPI"): the samples of a
 * path with an MPI frame anywhere on it (an MPI object, or a function
 * named MPI_ or PMPI_) count as MPI, sched_yield or memcpy under
 * opal_progress included; added to each rank's mpi. The flat samples of
 * an (event, thread) with paths were left out of it (covered). 0 or -1.
 */
static int mpi_by_path(struct rk *k, const char *mpiobj)
{
	const struct hd_file *d = k->d;
	char *in = calloc(d->cct.n + 1, 1);
	int bad = 0;

	if (!in)
		return -1;
	/* parents come before their children */
	for (size_t i = 0; i < d->cct.n && !bad; i++) {
		const struct hwp_cct_node *n = &d->cct.node[i];

		if (n->parent != HD_NO_NODE && in[n->parent])
			in[i] = 1;
		else if (n->object != HD_NO_OBJECT && mpiobj[n->object])
			in[i] = 1;
		else /* a pc, or a return address: its call is before it */
			in[i] = (char)(mpi_name(k, n->object, n->addr, &bad) ||
				       (n->addr && mpi_name(k, n->object, n->addr - 1, &bad)));
	}
	for (size_t i = 0; i < d->npaths && !bad; i++) {
		const struct hd_path *h = &d->paths[i];
		uint32_t col;

		if (h->event != (uint32_t)k->c->event || h->thread >= d->nthreads ||
		    !in[h->node])
			continue;
		col = k->col[d->threads[h->thread].proc];
		if (col != UINT32_MAX)
			k->ranks[col].mpi = hwp_add_sat(k->ranks[col].mpi, h->count);
	}
	for (size_t i = 0; i < k->nranks; i++)
		if (k->ranks[i].mpi > k->ranks[i].samples)
			k->ranks[i].mpi = k->ranks[i].samples;
	free(in);
	return bad ? -1 : 0;
}

/*
 * --sort total: each path's samples added once to every function on it,
 * in its rank (the per-rank spread of inclusive time). 0 or -1.
 */
static int inclusive_paths(struct rk *k)
{
	const struct hd_file *d = k->d;
	uint32_t fr[HD_MAX_DEPTH];
	long fn[HD_MAX_DEPTH];

	for (size_t i = 0; i < d->npaths; i++) {
		const struct hd_path *h = &d->paths[i];
		size_t n, m = 0;
		uint32_t col;

		if (h->event != (uint32_t)k->c->event || h->thread >= d->nthreads || !h->count)
			continue;
		col = k->col[d->threads[h->thread].proc];
		if (col == UINT32_MAX)
			continue;
		n = hd_path_frames(d, h->node, fr, HD_MAX_DEPTH);
		if (n > HD_MAX_DEPTH)
			n = HD_MAX_DEPTH;
		for (size_t j = 0; j < n; j++) {
			const struct hwp_cct_node *x = &d->cct.node[fr[j]];
			/* the innermost frame is a pc; the others return
			 * addresses, their call before them */
			long f = view_func_row(k->c, x->object,
					       j && x->addr ? x->addr - 1 : x->addr);
			size_t q = 0;

			if (f < 0)
				return -1;
			while (q < m && fn[q] != f)
				q++;
			if (q < m)
				continue; /* recursion: once a path */
			fn[m++] = f;
			if (add_pair(k, f, col, h->count))
				return -1;
		}
	}
	return 0;
}

/* Merged rank files: every sample's rank is its process's. */
static int from_samples(struct rk *k)
{
	const struct hd_file *d = k->d;
	char *mpi = calloc(d->nobjects + 1, 1);
	char *covered = d->npaths ? cp_covered(d) : NULL;
	uint32_t lastobj = HD_NO_OBJECT;
	uint64_t lastaddr = 0;
	long f = -1;

	if (!mpi || (d->npaths && !covered)) {
		free(mpi);
		free(covered);
		return -1;
	}
	for (size_t i = 0; i < d->nobjects; i++)
		mpi[i] = (char)hd_object_is_mpi(d->objects[i].path);
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];
		uint32_t col;
		struct rk_rank *r;

		if (s->event != (uint32_t)k->c->event || !s->count || s->thread >= d->nthreads)
			continue;
		col = k->col[d->threads[s->thread].proc];
		if (col == UINT32_MAX)
			continue; /* refused before: merge_read(need_ranks) */
		r = &k->ranks[col];
		r->samples = hwp_add_sat(r->samples, s->count);
		/* by object where the sample has no path */
		if (s->object != HD_NO_OBJECT && mpi[s->object] &&
		    (!covered || cp_flat_sample(d, covered, s)))
			r->mpi = hwp_add_sat(r->mpi, s->count);
		/* a merged file holds each rank's samples of one address in a
		 * row, mostly: the previous lookup serves again */
		/* --sort total: a sample with a path counts through it */
		if (k->inclusive && covered && !cp_flat_sample(d, covered, s))
			continue;
		if (f < 0 || s->object != lastobj || s->addr != lastaddr) {
			f = view_func_row(k->c, s->object, s->addr);
			lastobj = s->object;
			lastaddr = s->addr;
		}
		if (f < 0 || add_pair(k, f, col, s->count)) {
			free(mpi);
			free(covered);
			return -1;
		}
	}
	f = covered ? mpi_by_path(k, mpi) : 0;
	if (!f && covered && k->inclusive)
		f = inclusive_paths(k);
	k->mpi_paths = covered != NULL;
	free(mpi);
	free(covered);
	return (int)f;
}

/* Per function row of a job file: its funcs, summed; the spread of a
 * single func; per-rank counts where every func of the row has them. */
struct jrow {
	uint64_t sum;
	size_t nfuncs;
	long func; /* the row's first func */
	int all_counted;
};

static int from_job(struct rk *k, struct jrow **out)
{
	const struct hd_file *d = k->d;
	size_t nf = d->nfuncs;
	long *frow = calloc(nf + 1, sizeof(*frow));
	uint64_t *fsum = calloc(nf + 1, sizeof(*fsum)); /* of its fcounts */
	char *has = calloc(nf + 1, 1);
	struct jrow *jr = NULL;
	int ret = -1;

	if (!frow || !fsum || !has)
		goto out;
	for (size_t i = 0; i < d->nrtotals; i++) {
		const struct hd_rtotal *t = &d->rtotals[i];
		uint32_t col = t->proc < d->nprocs ? k->col[t->proc] : UINT32_MAX;

		if (t->event != (uint32_t)k->c->event || col == UINT32_MAX)
			continue;
		k->ranks[col].samples = hwp_add_sat(k->ranks[col].samples, t->samples);
		k->ranks[col].mpi = hwp_add_sat(k->ranks[col].mpi, t->mpi);
	}
	for (size_t i = 0; i < nf; i++) {
		frow[i] = -1;
		if (d->funcs[i].event != (uint32_t)k->c->event || !d->funcs[i].sum)
			continue;
		frow[i] = view_func_row(k->c, d->funcs[i].object, d->funcs[i].addr);
		if (frow[i] < 0)
			goto out;
	}
	for (size_t i = 0; i < d->nfcounts; i++) {
		const struct hd_fcount *fc = &d->fcounts[i];

		has[fc->func] = 1;
		fsum[fc->func] = hwp_add_sat(fsum[fc->func], fc->count);
	}
	jr = calloc(k->c->rows.n + 1, sizeof(*jr));
	if (!jr)
		goto out;
	for (size_t r = 0; r <= k->c->rows.n; r++)
		jr[r].all_counted = 1;
	for (size_t i = 0; i < nf; i++) {
		struct jrow *j;

		if (frow[i] < 0)
			continue;
		j = &jr[frow[i]];
		if (!j->nfuncs++)
			j->func = (long)i;
		j->sum = hwp_add_sat(j->sum, d->funcs[i].sum);
		/* counts that add up to the func's sum: all of its ranks */
		if (!has[i] || fsum[i] != d->funcs[i].sum)
			j->all_counted = 0;
	}
	for (size_t i = 0; i < d->nfcounts; i++) {
		const struct hd_fcount *fc = &d->fcounts[i];
		uint32_t col = fc->proc < d->nprocs ? k->col[fc->proc] : UINT32_MAX;
		long r = frow[fc->func];

		if (r < 0 || col == UINT32_MAX || !jr[r].all_counted || !fc->count)
			continue;
		if (add_pair(k, r, col, fc->count))
			goto out;
	}
	*out = jr;
	jr = NULL;
	ret = 0;
out:
	free(jr);
	free(frow);
	free(fsum);
	free(has);
	return ret;
}

/* The rows' statistics from the sorted pairs (and a job file's funcs). */
static int stats(struct rk *k, const struct jrow *jr)
{
	const struct rows_table *ft = &k->c->rows;
	size_t p = 0;

	if (flush(k) || sort_pairs(k, ft->n))
		return -1;
	k->rows = calloc(ft->n + 1, sizeof(*k->rows));
	if (!k->rows)
		return -1;
	for (size_t f = 0; f < ft->n; f++) {
		struct rk_row *r = &k->rows[k->nrows];

		memset(r, 0, sizeof(*r));
		r->row = (long)f;
		r->c0 = p;
		while (p < k->npairs && k->pairs[p].f == f)
			p++;
		r->c1 = p;
		if (!jr || jr[f].all_counted) {
			/* per-rank counts: ranks without one had none */
			r->counts = 1;
			r->known = 1;
			r->maxrank = -1;
			r->min = r->c1 - r->c0 < k->nranks ? 0 : UINT64_MAX;
			for (size_t i = r->c0; i < r->c1; i++) {
				const struct rk_pair *q = &k->pairs[i];

				r->sum = hwp_add_sat(r->sum, q->n);
				if (q->n < r->min)
					r->min = q->n;
				if (q->n > r->max || r->maxrank < 0) {
					r->max = q->n;
					r->maxrank = k->ranks[q->col].rank;
				}
			}
			if (r->min == UINT64_MAX)
				r->min = 0;
		} else if (jr[f].nfuncs == 1) {
			const struct hd_func *fn = &k->d->funcs[jr[f].func];

			r->known = 1;
			r->sum = fn->sum;
			r->min = fn->min;
			r->max = fn->max;
			r->maxrank = fn->maxrank;
		} else {
			/* several functions of the file in one row: the spread of
			 * their sum is not in the file */
			r->sum = jr[f].sum;
			r->maxrank = -1;
		}
		if (!r->sum)
			continue;
		r->mean = k->nranks ? (double)r->sum / (double)k->nranks : 0;
		r->ratio = r->known && r->mean > 0 ? (double)r->max / r->mean : 0;
		if (r->counts && k->nranks) {
			double sq = 0, var;

			for (size_t i = r->c0; i < r->c1; i++) {
				double dv = (double)k->pairs[i].n - r->mean;

				sq += dv * dv;
			}
			/* the ranks without a pair were at 0 */
			sq += (double)(k->nranks - (r->c1 - r->c0)) * r->mean * r->mean;
			var = sq / (double)k->nranks;
			r->sd = sqrt(var);
			r->cv = r->mean > 0 ? r->sd / r->mean : 0;
		}
		k->total = hwp_add_sat(k->total, r->sum);
		k->nrows++;
	}
	return 0;
}

/* How by_row() orders: by (1) the cost of the imbalance, max - mean (what
 * the job would save were the slowest rank at the mean), then total, then
 * name; (0) total, then name; (-1) name. */
struct order {
	const struct rows_table *ft;
	int imb;
};

static int by_row(const void *x, const void *y, void *arg)
{
	const struct order *o = arg;
	const struct rk_row *a = x, *b = y;
	const struct view_row *ra = &o->ft->rows[a->row], *rb = &o->ft->rows[b->row];
	char b1[40], b2[40];
	int c;

	if (o->imb > 0) {
		if (a->known != b->known)
			return a->known ? -1 : 1;
		double ca = a->known ? (double)a->max - a->mean : 0;
		double cb = b->known ? (double)b->max - b->mean : 0;

		if (ca != cb)
			return ca > cb ? -1 : 1;
	}
	if (o->imb >= 0 && a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	c = strcmp(view_name(ra, b1), view_name(rb, b2));
	if (c)
		return c;
	return ra->obj < rb->obj ? -1 : ra->obj > rb->obj;
}

int rk_report(struct view_ctx *c, const char *sort, const char *fmt, const char *svgout,
	      const char *statsout, int outliers, const char *callers, char **inputs,
	      size_t ninputs)
{
	struct rk k = { .c = c, .d = c->d };
	struct jrow *jr = NULL;
	struct order o;
	int ret = 1;

	k.inclusive = !strcmp(sort, "total");
	if (columns(&k) || (c->d->job ? from_job(&k, &jr) : from_samples(&k)) ||
	    stats(&k, jr)) {
		die("out of memory");
	}
	rk_mpi_ranks(&k);
	if (callers) {
		ret = rk_callers(&k, callers);
		goto out;
	}
	o.ft = &c->rows;
	o.imb = !strcmp(sort, "imbalance") ? 1 : !strcmp(sort, "symbol") ? -1 : 0;
	if (k.nrows)
		qsort_r(k.rows, k.nrows, sizeof(*k.rows), by_row, &o);
	{
		char msg[256];

		header_warnings(stderr, "", c->d, c->event, 0);
		if (rk_missing(&k, msg, sizeof(msg))) {
			fputs("hwprof: ", stderr);
			fputs(msg, stderr);
			fputc('\n', stderr);
		}
	}
	if (!strcmp(fmt, "json"))
		rk_json(&k);
	else if (!strcmp(fmt, "csv"))
		rk_csv(&k);
	else
		rk_text(&k);
	if (!strcmp(fmt, "text") &&
	    ((k.d->nmranks && rk_mpi_text(&k)) || (outliers && rk_outliers(&k)))) {
		die("out of memory");
	}
	if (fflush(stdout) || ferror(stdout))
		die("standard output: %s", strerror(errno));
	else
		ret = svgout ? rk_svg(&k, svgout, inputs, ninputs) : 0;
	if (!ret && statsout) {
		struct out_file of;

		if (out_open(&of, "--stats", statsout, inputs, ninputs)) {
			ret = 1;
		} else {
			rk_csv_ranks(&k, of.f);
			ret = out_close(&of);
		}
	}
out:
	free(jr);
	free(k.col);
	free(k.ranks);
	free(k.rows);
	free(k.pairs);
	free(k.acc);
	free(k.touched);
	return ret;
}
