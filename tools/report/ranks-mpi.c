/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --ranks, a job file's wall clock in MPI (libhwprof-mpi(7),
 * "Time in MPI"): each rank's time in MPI calls and its share of
 * MPI_Init to MPI_Finalize, the time per MPI call and per call site with
 * each site's spread over the ranks, as mpiP prints them; and --outliers,
 * the ranks whose profile differs from the job's median beyond noise.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranks.h"
#include "view.h"

/* diff's threshold (tools/report/diff.c): standard deviations of the
 * sampling noise of two Poisson counts */
#define OUT_SIGMA 3.0
#define OUT_FUNCS 5 /* functions named per outlying rank */

size_t rk_mpi_ranks(struct rk *k)
{
	const struct hd_file *d = k->d;
	size_t n = 0;

	for (size_t i = 0; i < d->nmranks; i++) {
		const struct hd_mrank *m = &d->mranks[i];
		uint32_t c = m->proc < d->nprocs ? k->col[m->proc] : UINT32_MAX;

		if (c == UINT32_MAX || k->ranks[c].timed)
			continue;
		k->ranks[c].timed = 1;
		k->ranks[c].app_ns = m->app_ns;
		k->ranks[c].mpi_ns = m->mpi_ns;
		k->ranks[c].calls = m->calls;
		n++;
	}
	return n;
}

static double sec(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* A site's or a call's time over the ranks. */
struct agg {
	const char *call;
	long site; /* index into msites, -1: a call's sum */
	uint64_t calls, total;
	uint64_t max, min; /* per-rank totals */
	int maxrank;
	size_t ranks; /* ranks with a call there */
};

static int by_total(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return strcmp(a->call, b->call);
}

static void put_name(const char *s, int w)
{
	if (nm_is_plain(s))
		printf("%-*s", w, s);
	else
		nm_put(stdout, s, NM_TEXT);
}

int rk_mpi_text(struct rk *k)
{
	const struct hd_file *d = k->d;
	struct agg *site = calloc(d->nmsites + 1, sizeof(*site));
	struct agg *call = calloc(d->nmsites + 2, sizeof(*call));
	uint64_t app = 0, mpi = 0, kept = 0, calls = 0, kcalls = 0;
	size_t ntimed = 0, ncall = 0;

	if (!site || !call) {
		free(site);
		free(call);
		return -1;
	}
	for (size_t i = 0; i < k->nranks; i++)
		if (k->ranks[i].timed) {
			app = hwp_add_sat(app, k->ranks[i].app_ns);
			mpi = hwp_add_sat(mpi, k->ranks[i].mpi_ns);
			calls = hwp_add_sat(calls, k->ranks[i].calls);
			ntimed++;
		}
	for (size_t i = 0; i < d->nmsites; i++)
		site[i] = (struct agg){
			d->msites[i].call, (long)i, 0, 0, 0, UINT64_MAX, -1, 0
		};
	for (size_t i = 0; i < d->nmsranks; i++) {
		const struct hd_msrank *m = &d->msranks[i];
		struct agg *a = &site[m->site];
		uint32_t c = k->col[m->proc];
		int rank = c == UINT32_MAX ? -1 : k->ranks[c].rank;

		a->calls = hwp_add_sat(a->calls, m->calls);
		a->total = hwp_add_sat(a->total, m->total);
		if (m->total > a->max || a->maxrank < 0 ||
		    (m->total == a->max && rank < a->maxrank)) {
			a->max = m->total;
			a->maxrank = rank;
		}
		if (m->total < a->min)
			a->min = m->total;
		a->ranks++;
	}
	for (size_t i = 0; i < d->nmsites; i++) {
		struct agg *a = &site[i];
		size_t j = 0;

		if (a->ranks < ntimed || a->min == UINT64_MAX)
			a->min = 0; /* a rank without a call there */
		kept = hwp_add_sat(kept, a->total);
		kcalls = hwp_add_sat(kcalls, a->calls);
		while (j < ncall && strcmp(call[j].call, a->call))
			j++;
		if (j == ncall)
			call[ncall++] = (struct agg){ a->call, -1, 0, 0, 0, 0, -1, 0 };
		call[j].calls = hwp_add_sat(call[j].calls, a->calls);
		call[j].total = hwp_add_sat(call[j].total, a->total);
	}
	if (mpi > kept)
		call[ncall++] = (struct agg){
			"(sites not kept)", -1, calls - kcalls, mpi - kept, 0, 0, -1, 0
		};
	qsort(call, ncall, sizeof(*call), by_total);
	qsort(site, d->nmsites, sizeof(*site), by_total);
	printf("\n# time in MPI calls (wall clock, every timed rank): %.6f s of %.6f s "
	       "(MPI_Init to MPI_Finalize summed over %zu ranks), %.2f%%\n",
	       sec(mpi), sec(app), ntimed, view_pct(mpi, app));
	printf("%-24s %14s %8s %8s %12s\n", "call", "time s", "app %", "MPI %", "calls");
	for (size_t i = 0; i < ncall; i++)
		printf("%-24s %14.6f %7.2f%% %7.2f%% %12llu\n", call[i].call,
		       sec(call[i].total), view_pct(call[i].total, app),
		       view_pct(call[i].total, mpi), (unsigned long long)call[i].calls);
	if (!d->nmsites)
		goto out;
	printf("\n# MPI call sites: each site's time over the ranks (max, mean and min of "
	       "the ranks' totals there)\n");
	printf("%4s %-20s %10s %12s %12s %8s %12s %12s %8s %8s  %s\n", "site", "call", "calls",
	       "time s", "max s", "max-rank", "mean s", "min s", "app %", "MPI %",
	       "caller (object+address)");
	for (size_t i = 0; i < d->nmsites; i++) {
		const struct agg *a = &site[i];
		const struct hd_msite *m = &d->msites[a->site];
		long f = m->object == HD_NO_OBJECT ?
				 -1 :
				 view_func_row(k->c, m->object, m->addr ? m->addr - 1 : 0);
		char nb[40];

		if (!a->calls)
			continue;
		printf("%4ld ", a->site);
		put_name(a->call, 20);
		printf(" %10llu %12.6f %12.6f %8d %12.6f %12.6f %7.2f%% %7.2f%%  ",
		       (unsigned long long)a->calls, sec(a->total), sec(a->max), a->maxrank,
		       ntimed ? sec(a->total) / (double)ntimed : 0, sec(a->min),
		       view_pct(a->total, app), view_pct(a->total, mpi));
		if (f >= 0)
			nm_put(stdout, view_name(&k->c->rows.rows[f], nb), NM_TEXT);
		else
			fputs("[unknown]", stdout);
		if (m->object != HD_NO_OBJECT) {
			printf(" (");
			nm_put(stdout, view_base(d->objects[m->object].path), NM_TEXT);
			printf("+0x%llx)", (unsigned long long)m->addr);
		}
		putchar('\n');
	}
out:
	free(site);
	free(call);
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The median of v[0 .. n) (sorted in place). */
static double median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

struct odd {
	uint32_t col; /* the rank's index */
	long row;
	uint64_t n;
	double med, z;
};

static int by_rank_z(const void *x, const void *y)
{
	const struct odd *a = x, *b = y;

	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	if (fabs(a->z) != fabs(b->z))
		return fabs(a->z) > fabs(b->z) ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* Adds rank col's count n of row f against the median b when beyond
 * noise. 0 or -1. */
static int test_one(struct odd **o, size_t *n, size_t *cap, uint32_t col, long row, uint64_t c,
		    double b)
{
	double x = (double)c, z = x == b ? 0 : (x - b) / sqrt(x + b);

	if (fabs(z) <= OUT_SIGMA)
		return 0;
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct odd *no = realloc(*o, nc * sizeof(*no));

		if (!no)
			return -1;
		*o = no;
		*cap = nc;
	}
	(*o)[(*n)++] = (struct odd){ col, row, c, b, z };
	return 0;
}

int rk_outliers(struct rk *k)
{
	size_t nr = k->nranks, nodd = 0, cap = 0, counted = 0, found = 0;
	uint64_t *v = calloc(nr + 1, sizeof(*v));
	char *has = calloc(nr + 1, 1);
	struct odd *o = NULL;
	int ret = -1;

	if (!v || !has)
		goto out;
	for (size_t f = 0; f < k->nrows; f++) {
		const struct rk_row *r = &k->rows[f];
		size_t nv = 0;
		double b;

		if (!r->counts)
			continue;
		counted++;
		/* the ranks without a pair had 0 */
		for (size_t i = r->c0; i < r->c1; i++)
			v[nv++] = k->pairs[i].n;
		while (nv < nr)
			v[nv++] = 0;
		b = median(v, nr);
		memset(has, 0, nr);
		for (size_t i = r->c0; i < r->c1; i++) {
			has[k->pairs[i].col] = 1;
			if (test_one(&o, &nodd, &cap, k->pairs[i].col, r->row, k->pairs[i].n,
				     b))
				goto out;
		}
		for (size_t c = 0; c < nr; c++)
			if (!has[c] && test_one(&o, &nodd, &cap, (uint32_t)c, r->row, 0, b))
				goto out;
	}
	if (nodd)
		qsort(o, nodd, sizeof(*o), by_rank_z);
	printf("\n# --outliers: ranks whose counts differ from the job's median beyond "
	       "sampling noise (|z| > %.0f, z = (n - median) / sqrt(n + median)), over the %zu "
	       "functions with per-rank counts\n",
	       OUT_SIGMA, counted);
	for (size_t i = 0; i < nodd;) {
		size_t j = i;

		while (j < nodd && o[j].col == o[i].col)
			j++;
		found++;
		printf("rank %d: %zu function%s beyond noise:", k->ranks[o[i].col].rank, j - i,
		       j - i == 1 ? "" : "s");
		for (size_t q = i; q < j && q < i + OUT_FUNCS; q++) {
			char nb[40];

			putchar(' ');
			nm_put(stdout, view_name(&k->c->rows.rows[o[q].row], nb), NM_TEXT);
			printf(" %llu vs median %.1f (z %+.1f)%s", (unsigned long long)o[q].n,
			       o[q].med, o[q].z,
			       q + 1 < j && q + 1 < i + OUT_FUNCS ? "," : "");
		}
		if (j - i > OUT_FUNCS)
			printf(" and %zu more", j - i - OUT_FUNCS);
		putchar('\n');
		i = j;
	}
	if (!found)
		printf("no rank differs from the median beyond noise\n");
	ret = 0;
out:
	free(v);
	free(has);
	free(o);
	return ret;
}

/* A caller of --callers: its row (-1: none, the path's outermost frame)
 * and its samples in each rank. */
struct caller {
	long fn;
	uint64_t *n; /* per rank index */
	uint64_t total;
};

static int by_caller_total(const void *x, const void *y)
{
	const struct caller *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return (a->fn > b->fn) - (a->fn < b->fn);
}

int rk_callers(struct rk *k, const char *name)
{
	const struct hd_file *d = k->d;
	struct rows_table *t = &k->c->rows;
	long f = view_match(k->c, t, name);
	struct caller *cl = NULL;
	size_t ncl = 0, capcl = 0;
	uint64_t *tot = calloc(k->nranks + 1, sizeof(*tot));
	uint32_t fr[HD_MAX_DEPTH];
	long fn[HD_MAX_DEPTH], one[HD_MAX_DEPTH];
	char nb[40];
	int ret = 1;

	if (!tot)
		die("out of memory");
	if (f == -2) {
		free(tot);
		return 1; /* view_match() listed them */
	}
	if (f < 0 || !d->npaths) {
		fputs("hwprof: ", stderr);
		nm_put(stderr, name, NM_TEXT);
		fputs(d->npaths ?
			      ": no function of that name took samples on a call path\n" :
			      ": --callers needs call paths (rank files of hwprof record -g; a job "
			      "file keeps none)\n",
		      stderr);
		free(tot);
		return 1;
	}
	for (size_t i = 0; i < d->npaths; i++) {
		const struct hd_path *h = &d->paths[i];
		size_t n, none = 0;
		uint32_t col;
		int on = 0;

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

			fn[j] = view_func_row(k->c, x->object,
					      j && x->addr ? x->addr - 1 : x->addr);
			if (fn[j] < 0)
				goto oom;
			on |= fn[j] == f;
		}
		if (!on)
			continue;
		tot[col] = hwp_add_sat(tot[col], h->count);
		/* fn is innermost first: a caller is the next one out; each
		 * caller once a path */
		for (size_t j = 0; j < n; j++) {
			long c = j + 1 < n ? fn[j + 1] : -1;
			size_t q = 0;

			if (fn[j] != f)
				continue;
			while (q < none && one[q] != c)
				q++;
			if (q < none)
				continue;
			one[none++] = c;
			for (q = 0; q < ncl && cl[q].fn != c; q++)
				;
			if (q == ncl) {
				if (ncl == capcl) {
					size_t nc = capcl ? 2 * capcl : 16;
					struct caller *x = realloc(cl, nc * sizeof(*x));

					if (!x)
						goto oom;
					cl = x;
					capcl = nc;
				}
				cl[ncl] = (struct caller){
					c, calloc(k->nranks + 1, sizeof(uint64_t)), 0
				};
				if (!cl[ncl++].n)
					goto oom;
			}
			cl[q].n[col] = hwp_add_sat(cl[q].n[col], h->count);
			cl[q].total = hwp_add_sat(cl[q].total, h->count);
		}
	}
	qsort(cl, ncl, sizeof(*cl), by_caller_total);
	printf("# callers of ");
	nm_put(stdout, view_name(&t->rows[f], nb), NM_TEXT);
	printf(" over the ranks: the samples of the paths on which each called it (a path "
	       "counts once for each caller)\n# its paths' samples per rank:");
	for (size_t i = 0; i < k->nranks; i++)
		printf(" %d:%llu", k->ranks[i].rank, (unsigned long long)tot[i]);
	printf("\n%10s %10s %12s %10s %8s  %s\n", "total", "min", "mean", "max", "max-rank",
	       "caller");
	for (size_t q = 0; q < ncl; q++) {
		uint64_t mn = UINT64_MAX, mx = 0;
		int mr = -1;

		for (size_t i = 0; i < k->nranks; i++) {
			if (cl[q].n[i] < mn)
				mn = cl[q].n[i];
			if (cl[q].n[i] > mx || mr < 0) {
				mx = cl[q].n[i];
				mr = k->ranks[i].rank;
			}
		}
		printf("%10llu %10llu %12.2f %10llu %8d  ", (unsigned long long)cl[q].total,
		       (unsigned long long)(k->nranks ? mn : 0),
		       k->nranks ? (double)cl[q].total / (double)k->nranks : 0,
		       (unsigned long long)mx, mr);
		if (cl[q].fn < 0)
			fputs("[no caller: the path's outermost frame]", stdout);
		else
			nm_put(stdout, view_name(&t->rows[cl[q].fn], nb), NM_TEXT);
		putchar('\n');
	}
	ret = 0;
	goto out;
oom:
	die("out of memory");
out:
	for (size_t q = 0; q < ncl; q++)
		free(cl[q].n);
	free(cl);
	free(tot);
	return ret;
}
