/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --ranks: how each function's samples spread over the MPI
 * ranks (load imbalance), as mpiP and HPCToolkit users read it: per
 * function the total, min, mean and max over the ranks, max/mean and the
 * rank of the max; per rank its samples and its share in MPI objects.
 * From merged rank files (each process has its rank) or from a job file of
 * libhwprof-mpi (its per-function spread, per-rank counts of the top
 * functions, and per-rank totals). Text, CSV, JSON, and an SVG heat map.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "view.h"

struct rk_rank {
	int rank;
	uint32_t proc;		/* its first process */
	uint64_t samples, mpi;
};

struct rk_row {
	long row;		/* its function row in c->rows */
	uint64_t sum, min, max;
	int maxrank;
	int known;		/* min, max and the max's rank are known */
	int counts;		/* per-rank counts known: pairs[c0, c1) */
	size_t c0, c1;
	double mean, ratio;
};

struct rk_pair {
	uint32_t f;		/* function row */
	uint32_t col;		/* rank index */
	uint64_t n;
};

struct rk {
	struct rv_ctx *c;
	const struct hd_file *d;
	struct rk_rank *ranks;	/* sorted by rank */
	size_t nranks;
	uint32_t *col;		/* per process: its rank's index */
	struct rk_pair *pairs;	/* sorted by function row, then rank */
	size_t npairs, cappairs;
	/* the run of samples of one rank being summed: each function row's
	 * count (acc), the rows with one (touched) */
	uint64_t *acc;
	uint32_t *touched;
	size_t nacc, ntouched;
	uint32_t runcol;
	struct rk_row *rows;
	size_t nrows;
	uint64_t total;
};

struct rk_pr {
	int rank;
	uint32_t proc;
};

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
			k->ranks[k->nranks++] = (struct rk_rank){ pr[i].rank, pr[i].proc, 0, 0 };
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

/* Merged rank files: every sample's rank is its process's. */
static int from_samples(struct rk *k)
{
	const struct hd_file *d = k->d;
	char *mpi = calloc(d->nobjects + 1, 1);
	uint32_t lastobj = HD_NO_OBJECT;
	uint64_t lastaddr = 0;
	long f = -1;

	if (!mpi)
		return -1;
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
			continue;	/* refused before: rv_read(need_ranks) */
		r = &k->ranks[col];
		r->samples = hwp_add_sat(r->samples, s->count);
		if (s->object != HD_NO_OBJECT && mpi[s->object])
			r->mpi = hwp_add_sat(r->mpi, s->count);
		/* a merged file holds each rank's samples of one address in a
		 * row, mostly: the previous lookup serves again */
		if (f < 0 || s->object != lastobj || s->addr != lastaddr) {
			f = rv_func_row(k->c, s->object, s->addr);
			lastobj = s->object;
			lastaddr = s->addr;
		}
		if (f < 0 || add_pair(k, f, col, s->count)) {
			free(mpi);
			return -1;
		}
	}
	free(mpi);
	return 0;
}

/* Per function row of a job file: its funcs, summed; the spread of a
 * single func; per-rank counts where every func of the row has them. */
struct jrow {
	uint64_t sum;
	size_t nfuncs;
	long func;		/* the row's first func */
	int all_counted;
};

static int from_job(struct rk *k, struct jrow **out)
{
	const struct hd_file *d = k->d;
	size_t nf = d->nfuncs;
	long *frow = calloc(nf + 1, sizeof(*frow));
	uint64_t *fsum = calloc(nf + 1, sizeof(*fsum));	/* of its fcounts */
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
		frow[i] = rv_func_row(k->c, d->funcs[i].object, d->funcs[i].addr);
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
	const struct rv_table *ft = &k->c->rows;
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
		k->total = hwp_add_sat(k->total, r->sum);
		k->nrows++;
	}
	return 0;
}

/* How by_row() orders: by (1) max/mean, then total, then name; (0) total,
 * then name; (-1) name. */
struct order {
	const struct rv_table *ft;
	int imb;
};

static int by_row(const void *x, const void *y, void *arg)
{
	const struct order *o = arg;
	const struct rk_row *a = x, *b = y;
	const struct rv_row *ra = &o->ft->rows[a->row], *rb = &o->ft->rows[b->row];
	char b1[40], b2[40];
	int c;

	if (o->imb > 0) {
		if (a->known != b->known)
			return a->known ? -1 : 1;
		if (a->ratio != b->ratio)
			return a->ratio > b->ratio ? -1 : 1;
	}
	if (o->imb >= 0 && a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	c = strcmp(rv_name(ra, b1), rv_name(rb, b2));
	if (c)
		return c;
	return ra->obj < rb->obj ? -1 : ra->obj > rb->obj;
}

static const char *obj_base(const struct rk *k, uint32_t obj)
{
	return obj == HD_NO_OBJECT || obj >= k->d->nobjects ? "[unknown]" :
	       rv_base(k->d->objects[obj].path);
}

/* The spread of the per-rank samples (or MPI shares): min, mean, max. */
struct spread {
	double min, mean, max;
	int minrank, maxrank;
};

static struct spread spread_of(const struct rk *k, int mpi)
{
	struct spread s = { 0, 0, 0, -1, -1 };

	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];
		double v = mpi ? rv_pct(r->mpi, r->samples) : (double)r->samples;

		if (s.minrank < 0 || v < s.min) {
			s.min = v;
			s.minrank = r->rank;
		}
		if (s.maxrank < 0 || v > s.max) {
			s.max = v;
			s.maxrank = r->rank;
		}
		s.mean += v;
	}
	if (k->nranks)
		s.mean /= (double)k->nranks;
	return s;
}

/* The warning about ranks of the world missing, into msg; 0 when none. */
static int missing(const struct rk *k, char *msg, size_t len)
{
	int size = k->d->size, first = -1;

	if (size <= 0 || k->nranks >= (size_t)size)
		return 0;
	for (size_t i = 0; i <= k->nranks && first < 0; i++)
		if (i == k->nranks || k->ranks[i].rank != (int)i)
			first = (int)i;
	snprintf(msg, len, "warning: %zu of the %d ranks of the job are present (the first "
		 "missing: rank %d): means and minimums are over the present ones", k->nranks,
		 size, first);
	return 1;
}

static const char *host_of(const struct rk *k, const struct rk_rank *r)
{
	const char *h = k->d->procs[r->proc].host;

	return h ? h : k->d->host ? k->d->host : "";
}

/*
 * Each rank's samples and time in MPI, as mpiP's task table: every rank
 * up to TEXT_RANKS of them; above, the table is in CSV and JSON only.
 */
#define TEXT_RANKS	64

static void text_ranks(const struct rk *k)
{
	if (k->nranks > TEXT_RANKS) {
		printf("\n# %zu ranks: each rank's samples and time in MPI are in "
		       "--format csv or json\n", k->nranks);
		return;
	}
	printf("\n%8s %-24s %10s %10s %10s %8s\n", "rank", "host", "pid", "samples", "in MPI",
	       "MPI %");
	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];
		const char *h = host_of(k, r);

		printf("%8d ", r->rank);
		if (rp_is_plain(h))
			printf("%-24s ", h);
		else {
			rp_put(stdout, h, RP_TEXT);
			putchar(' ');
		}
		printf("%10d %10llu %10llu %7.2f%%\n", k->d->procs[r->proc].pid,
		       (unsigned long long)r->samples, (unsigned long long)r->mpi,
		       rv_pct(r->mpi, r->samples));
	}
}

static void text(const struct rk *k)
{
	const struct rv_table *ft = &k->c->rows;
	struct spread s = spread_of(k, 0), m = spread_of(k, 1);
	char msg[256];

	rv_text_header(k->c);
	printf("# ranks: %zu present", k->nranks);
	if (k->d->size > 0)
		printf(" of %d (world size)", k->d->size);
	printf("%s\n", k->d->job ? "; from a job file of libhwprof-mpi" : "");
	printf("# samples per rank: min %.0f (rank %d), mean %.2f, max %.0f (rank %d)\n",
	       s.min, s.minrank, s.mean, s.max, s.maxrank);
	printf("# time in MPI per rank (samples in MPI objects): min %.2f%% (rank %d), "
	       "mean %.2f%%, max %.2f%% (rank %d)\n", m.min, m.minrank, m.mean, m.max,
	       m.maxrank);
	if (missing(k, msg, sizeof(msg))) {
		fputs("# ", stdout);
		puts(msg);
	}
	printf("#\n%10s %10s %12s %10s %9s %8s  %-40s %s\n", "total", "min", "mean", "max",
	       "max/mean", "max-rank", "function", "object");
	for (size_t i = 0; i < k->nrows; i++) {
		const struct rk_row *r = &k->rows[i];
		const struct rv_row *fr = &ft->rows[r->row];
		const char *name;
		char nb[40];

		printf("%10llu ", (unsigned long long)r->sum);
		if (r->known)
			printf("%10llu %12.2f %10llu %9.2f %8d  ", (unsigned long long)r->min,
			       r->mean, (unsigned long long)r->max, r->ratio, r->maxrank);
		else
			printf("%10s %12.2f %10s %9s %8s  ", "?", r->mean, "?", "?", "?");
		name = rv_name(fr, nb);
		if (rp_is_plain(name)) {
			printf("%-40s ", name);
		} else {
			rp_put(stdout, name, RP_TEXT);
			putchar(' ');
		}
		rp_put(stdout, obj_base(k, fr->obj), RP_TEXT);
		putchar('\n');
	}
	text_ranks(k);
}

/* The count of rank column col in row r; *p walks the row's pairs in
 * rank order (call it for col 0, 1, 2...). */
static uint64_t count_at(const struct rk *k, const struct rk_row *r, size_t *p, size_t col)
{
	if (*p < r->c1 && k->pairs[*p].col == col)
		return k->pairs[(*p)++].n;
	return 0;
}

static void csv(const struct rk *k)
{
	const struct rv_table *ft = &k->c->rows;

	fputs("total,min,mean,max,max_mean,max_rank,function,object", stdout);
	for (size_t i = 0; i < k->nranks; i++)
		printf(",rank_%d", k->ranks[i].rank);
	putchar('\n');
	for (size_t i = 0; i < k->nrows; i++) {
		const struct rk_row *r = &k->rows[i];
		const struct rv_row *fr = &ft->rows[r->row];
		size_t p = r->c0;
		char nb[40];

		if (r->known)
			printf("%llu,%llu,%.2f,%llu,%.2f,%d,", (unsigned long long)r->sum,
			       (unsigned long long)r->min, r->mean, (unsigned long long)r->max,
			       r->ratio, r->maxrank);
		else
			printf("%llu,,%.2f,,,,", (unsigned long long)r->sum, r->mean);
		rp_put(stdout, rv_name(fr, nb), RP_CSV);
		putchar(',');
		rp_put(stdout, obj_base(k, fr->obj), RP_CSV);
		for (size_t c = 0; c < k->nranks; c++) {
			if (r->counts)
				printf(",%llu", (unsigned long long)count_at(k, r, &p, c));
			else
				putchar(',');
		}
		putchar('\n');
	}
	puts("\nrank,host,pid,samples,mpi_samples,mpi_percent");
	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];
		char sb[32];

		printf("%d,", r->rank);
		rp_put(stdout, host_of(k, r), RP_CSV);
		snprintf(sb, sizeof(sb), "%.2f", rv_pct(r->mpi, r->samples));
		printf(",%d,%llu,%llu,%s\n", k->d->procs[r->proc].pid,
		       (unsigned long long)r->samples, (unsigned long long)r->mpi, sb);
	}
}

static void json_spread(const char *name, struct spread s, int pct)
{
	printf(" \"%s\": {\"min\": %.*f, \"min_rank\": %d, \"mean\": %.4f, \"max\": %.*f, "
	       "\"max_rank\": %d}", name, pct ? 4 : 0, s.min, s.minrank, s.mean, pct ? 4 : 0,
	       s.max, s.maxrank);
}

static void json(const struct rk *k)
{
	const struct rv_table *ft = &k->c->rows;
	const struct hd_file *d = k->d;
	char msg[256];

	printf("{\"view\": \"ranks\", \"event\": ");
	rp_put(stdout, d->events[k->c->event].name, RP_JSON);
	printf(", \"event_index\": %d, \"command\": ", k->c->event);
	rp_put(stdout, d->command ? d->command : d->nprocs ? d->procs[0].command : "", RP_JSON);
	printf(",\n \"job_file\": %s, \"world_size\": ", d->job ? "true" : "false");
	if (d->size > 0)
		printf("%d", d->size);
	else
		printf("null");
	printf(", \"ranks_present\": %zu, \"total\": %llu,\n", k->nranks,
	       (unsigned long long)k->total);
	json_spread("samples_per_rank", spread_of(k, 0), 0);
	printf(",\n");
	json_spread("mpi_percent_per_rank", spread_of(k, 1), 1);
	printf(",\n \"warnings\": [");
	rv_warnings(stdout, "", d, k->c->event, 1);
	if (missing(k, msg, sizeof(msg))) {
		int other = d->events[k->c->event].missed || d->events[k->c->event].lost;

		fputs(other ? ", " : "", stdout);
		rp_put(stdout, msg, RP_JSON);
	}
	printf("],\n \"ranks\": [");
	for (size_t i = 0; i < k->nranks; i++)
		printf("%s%d", i ? ", " : "", k->ranks[i].rank);
	printf("],\n \"rows\": [");
	for (size_t i = 0; i < k->nrows; i++) {
		const struct rk_row *r = &k->rows[i];
		const struct rv_row *fr = &ft->rows[r->row];
		size_t p = r->c0;
		char nb[40];

		printf("%s\n  {\"function\": ", i ? "," : "");
		rp_put(stdout, rv_name(fr, nb), RP_JSON);
		printf(", \"object\": ");
		rp_put(stdout, obj_base(k, fr->obj), RP_JSON);
		printf(", \"path\": ");
		rp_put(stdout, rv_obj_path(k->c, fr->obj), RP_JSON);
		printf(", \"total\": %llu, \"mean\": %.4f, ", (unsigned long long)r->sum, r->mean);
		if (r->known)
			printf("\"min\": %llu, \"max\": %llu, \"max_mean\": %.4f, \"max_rank\": %d",
			       (unsigned long long)r->min, (unsigned long long)r->max, r->ratio,
			       r->maxrank);
		else
			printf("\"min\": null, \"max\": null, \"max_mean\": null, \"max_rank\": null");
		printf(", \"counts\": ");
		if (!r->counts) {
			printf("null}");
			continue;
		}
		putchar('[');
		for (size_t c = 0; c < k->nranks; c++)
			printf("%s%llu", c ? ", " : "", (unsigned long long)count_at(k, r, &p, c));
		printf("]}");
	}
	printf("\n ],\n \"per_rank\": [");
	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];

		printf("%s\n  {\"rank\": %d, \"host\": ", i ? "," : "", r->rank);
		rp_put(stdout, host_of(k, r), RP_JSON);
		printf(", \"pid\": %d, \"samples\": %llu, \"mpi_samples\": %llu}",
		       d->procs[r->proc].pid, (unsigned long long)r->samples,
		       (unsigned long long)r->mpi);
	}
	printf("\n ]}\n");
}

/* ------------------------------------------------------------------ */
/* The SVG: one strip per top function, a cell per rank (or bin of ranks)
 * shaded by its count against the function's max, and a min-mean-max bar
 * on the scale of the largest max drawn. */

#define SW	1200.0		/* drawing width */
#define LABW	300.0		/* function names */
#define STRIPW	600.0		/* the per-rank strip */
#define BARX	(LABW + STRIPW + 30.0)
#define BARW	(SW - BARX - 90.0)
#define RH	22.0		/* one function */
#define TOP	70.0
#define MAXCOLS	300		/* more ranks than this: binned */
#define MAXFUNCS 30

static void svg_row(FILE *f, const struct rk *k, const struct rk_row *r, size_t i,
		    uint64_t scale, size_t bin, size_t ncols)
{
	const struct rv_row *fr = &k->c->rows.rows[r->row];
	double y = TOP + (double)i * RH, cw = STRIPW / (double)ncols;
	char nb[40];
	const char *name = rv_name(fr, nb);
	size_t p = r->c0;

	fputs("<g class=\"func\"><title>", f);
	rp_put(f, name, RP_XML);
	fputs(" (", f);
	rp_put(f, obj_base(k, fr->obj), RP_XML);
	fprintf(f, "): total %llu, mean %.2f", (unsigned long long)r->sum, r->mean);
	if (r->known)
		fprintf(f, ", min %llu, max %llu (rank %d), max/mean %.2f",
			(unsigned long long)r->min, (unsigned long long)r->max, r->maxrank,
			r->ratio);
	fputs("</title>\n<text x=\"10\" y=\"", f);
	fprintf(f, "%.0f\">", y + 15);
	{
		/* at most 40 characters of the name */
		char *cut = strndup(name, 40);

		rp_put(f, cut ? cut : "", RP_XML);
		if (cut && strlen(name) > 40)
			fputs("\xe2\x80\xa6", f);
		free(cut);
	}
	fputs("</text>\n", f);
	if (r->counts) {
		for (size_t b = 0; b < ncols; b++) {
			uint64_t sum = 0, mx = 0;
			size_t n = 0;
			double v;

			for (size_t c = b * bin; c < (b + 1) * bin && c < k->nranks; c++, n++) {
				uint64_t x = count_at(k, r, &p, c);

				sum = hwp_add_sat(sum, x);
				if (x > mx)
					mx = x;
			}
			v = r->max && n ? (double)sum / (double)n / (double)r->max : 0;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" "
				"fill=\"hsl(10,80%%,%.0f%%)\"><title>rank%s %d", LABW + b * cw, y,
				cw, RH - 3, 97 - 55 * v, n > 1 ? "s" : "", k->ranks[b * bin].rank);
			if (n > 1)
				fprintf(f, "-%d", k->ranks[b * bin + n - 1].rank);
			fprintf(f, ": %s %.1f, max %llu</title></rect>\n", n > 1 ? "mean" : "count",
				n ? (double)sum / (double)n : 0, (unsigned long long)mx);
		}
	} else {
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
			"fill=\"#eee\"/><text x=\"%.0f\" y=\"%.0f\" fill=\"#777\">per-rank counts "
			"not in the job file (not a top function)</text>\n", LABW, y, STRIPW,
			RH - 3, LABW + 6, y + 15);
	}
	/* min-mean-max */
	{
		double sx = scale ? BARW / (double)scale : 0, my = y + (RH - 3) / 2;

		if (r->known) {
			fprintf(f, "<line class=\"range\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
				"y2=\"%.1f\" stroke=\"#444\" stroke-width=\"2\"/>\n",
				BARX + sx * (double)r->min, my, BARX + sx * (double)r->max, my);
			fprintf(f, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" "
				"stroke=\"#444\"/><line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" "
				"y2=\"%.0f\" stroke=\"#c00\" stroke-width=\"2\"/>\n",
				BARX + sx * (double)r->min, y + 3, BARX + sx * (double)r->min,
				y + RH - 6, BARX + sx * (double)r->max, y + 3,
				BARX + sx * (double)r->max, y + RH - 6);
		}
		fprintf(f, "<rect class=\"mean\" x=\"%.2f\" y=\"%.0f\" width=\"4\" height=\"%.0f\" "
			"fill=\"#06c\"/>\n", BARX + sx * r->mean - 2, y + 2, RH - 7);
		if (r->known)
			fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.2f</text>\n",
				SW - 20, y + 15, r->ratio);
	}
	fputs("</g>\n", f);
}

static int svg(const struct rk *k, const char *out, char **inputs, size_t ninputs)
{
	const struct hd_file *d = k->d;
	size_t nf = k->nrows < MAXFUNCS ? k->nrows : MAXFUNCS;
	size_t bin = (k->nranks + MAXCOLS - 1) / MAXCOLS, ncols;
	uint64_t scale = 0;
	double h;
	FILE *f;

	if (!bin)
		bin = 1;
	ncols = k->nranks ? (k->nranks + bin - 1) / bin : 1;
	for (size_t i = 0; i < nf; i++)
		if (k->rows[i].known ? k->rows[i].max > scale : k->rows[i].mean > (double)scale)
			scale = k->rows[i].known ? k->rows[i].max : (uint64_t)k->rows[i].mean + 1;
	f = rv_svg_open(out, inputs, ninputs);
	if (!f)
		return 1;
	h = TOP + RH * (double)nf + 40;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" "
		"font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdfd\"/>\n"
		"<text x=\"10\" y=\"20\" font-size=\"15\">hwprof report --ranks: ", SW, h, SW, h);
	rp_put(f, d->command ? d->command : d->nprocs ? d->procs[0].command : "", RP_XML);
	fputs("</text>\n<text x=\"10\" y=\"38\">", f);
	rp_put(f, d->events[k->c->event].name, RP_XML);
	fprintf(f, ": top %zu functions over %zu ranks", nf, k->nranks);
	if (d->size > 0)
		fprintf(f, " (world size %d)", d->size);
	if (bin > 1)
		fprintf(f, ", %zu ranks per cell (their mean)", bin);
	fputs(". Hover for counts.</text>\n", f);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">rank %d</text>"
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\" text-anchor=\"end\">rank %d</text>\n"
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">min-max, mean (0 to %llu)</text>"
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\" text-anchor=\"end\">max/mean</text>\n",
		LABW, TOP - 8, k->nranks ? k->ranks[0].rank : 0, LABW + STRIPW, TOP - 8,
		k->nranks ? k->ranks[k->nranks - 1].rank : 0, BARX, TOP - 8,
		(unsigned long long)scale, SW - 20, TOP - 8);
	for (size_t i = 0; i < nf; i++)
		svg_row(f, k, &k->rows[i], i, scale, bin, ncols);
	fprintf(f, "<text x=\"10\" y=\"%.0f\" fill=\"#555\">each strip: a function's samples "
		"per rank, darker is nearer its max; right: its min to max over the ranks, "
		"mean in blue</text>\n</svg>\n", h - 14);
	if (fflush(f) || ferror(f)) {
		int e = errno;

		fclose(f);
		fputs("hwprof: --svg ", stderr);
		rp_put(stderr, out, RP_TEXT);
		fprintf(stderr, ": %s\n", strerror(e));
		return 1;
	}
	if (fclose(f))
		return die("--svg: %s", strerror(errno));
	return 0;
}

int rk_report(struct rv_ctx *c, const char *sort, const char *fmt, const char *svgout,
	      char **inputs, size_t ninputs)
{
	struct rk k = { .c = c, .d = c->d };
	struct jrow *jr = NULL;
	struct order o;
	int ret = 1;

	if (columns(&k) || (c->d->job ? from_job(&k, &jr) : from_samples(&k)) ||
	    stats(&k, jr)) {
		ret = die("out of memory");
		goto out;
	}
	o.ft = &c->rows;
	o.imb = !strcmp(sort, "imbalance") ? 1 : !strcmp(sort, "symbol") ? -1 : 0;
	if (k.nrows)
		qsort_r(k.rows, k.nrows, sizeof(*k.rows), by_row, &o);
	{
		char msg[256];

		rv_warnings(stderr, "", c->d, c->event, 0);
		if (missing(&k, msg, sizeof(msg))) {
			fputs("hwprof: ", stderr);
			fputs(msg, stderr);
			fputc('\n', stderr);
		}
	}
	if (!strcmp(fmt, "json"))
		json(&k);
	else if (!strcmp(fmt, "csv"))
		csv(&k);
	else
		text(&k);
	if (fflush(stdout) || ferror(stdout))
		ret = die("standard output: %s", strerror(errno));
	else
		ret = svgout ? svg(&k, svgout, inputs, ninputs) : 0;
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
