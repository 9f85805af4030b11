/* SPDX-License-Identifier: MIT */
/* hwprof report --ranks inside tools/report/: the per-rank model built by
 * ranks.c and printed by ranks-out.c. */
#ifndef HWPROF_TOOLS_RANKS_H
#define HWPROF_TOOLS_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "view.h"

/* hwprof report --ranks (ranks.c; sort: samples, imbalance or
 * symbol; fmt: text, csv or json; svg: NULL or the SVG's path; stats:
 * NULL or the CSV file of the per-rank totals; outliers: --outliers;
 * callers: --callers FUNC, or NULL). c is
 * a built functions view, not sorted. 0, or 1 after one line on stderr. */
int rk_report(struct view_ctx *c, const char *sort, const char *fmt, const char *svg,
	      const char *stats, int outliers, const char *callers, char **inputs,
	      size_t ninputs);

struct rk_rank {
	int rank;
	uint32_t proc; /* its first process */
	uint64_t samples, mpi;
	int timed; /* a job file's wall clock in MPI (mt line): */
	uint64_t app_ns, mpi_ns, calls;
};

struct rk_row {
	long row; /* its function row in c->rows */
	uint64_t sum, min, max;
	int maxrank;
	int known;  /* min, max and the max's rank are known */
	int counts; /* per-rank counts known: pairs[c0, c1) */
	size_t c0, c1;
	double mean, ratio;
	double sd, cv; /* standard deviation over the ranks (ranks
			* without samples count as 0) and sd/mean:
			* known with the per-rank counts */
};

struct rk_pair {
	uint32_t f;   /* function row */
	uint32_t col; /* rank index */
	uint64_t n;
};

struct rk {
	struct view_ctx *c;
	const struct hd_file *d;
	struct rk_rank *ranks; /* sorted by rank */
	size_t nranks;
	uint32_t *col;	       /* per process: its rank's index */
	struct rk_pair *pairs; /* sorted by function row, then rank */
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
	int mpi_paths; /* time in MPI by call path (rank files with paths) */
	int inclusive; /* --sort total: rows count the samples of the
			* paths through them (once a path) */
};

struct rk_pr {
	int rank;
	uint32_t proc;
};

/* A job file's time in MPI (ranks-mpi.c): each rank's clock into
 * k->ranks; the ranks timed. */
size_t rk_mpi_ranks(struct rk *k);
/* Its text tables: time per MPI call and per call site, each site's
 * spread over the ranks (mpiP's "Aggregate Time" and "Callsite Time
 * statistics"). 0 or -1 (out of memory). */
int rk_mpi_text(struct rk *k);
/* --ranks --callers FUNC: FUNC's callers, each with the samples of the
 * paths on which it called FUNC, spread over the ranks. 0, or 1 after
 * one line on stderr. */
int rk_callers(struct rk *k, const char *name);
/* --outliers: the ranks whose function counts differ from the job's
 * median beyond sampling noise, and those functions. 0 or -1. */
int rk_outliers(struct rk *k);

/* The warning about ranks of the world missing, into msg; 0 when none. */
int rk_missing(const struct rk *k, char *msg, size_t len);
/* The table of k on standard output: text, CSV or JSON. */
void rk_text(const struct rk *k);
void rk_csv(const struct rk *k);
/* The per-rank totals as one CSV table (--stats FILE). */
void rk_csv_ranks(const struct rk *k, FILE *f);
void rk_json(const struct rk *k);
/* The heat map of k's top functions into out: 0, or 1 after one line on
 * stderr. */
int rk_svg(const struct rk *k, const char *out, char **inputs, size_t ninputs);

#endif
