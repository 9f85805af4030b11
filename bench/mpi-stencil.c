/* SPDX-License-Identifier: MIT */
/*
 * A small MPI code that computes for a few seconds (bench/mpi-record.sh):
 * each rank owns a band of rows of an N x N grid, runs S Jacobi sweeps of
 * the 5-point Laplacian with halo rows exchanged between neighbours, and
 * then C iterations of conjugate gradients on the same operator, with an
 * MPI_Allreduce per dot product. Built -O2 -g, so a profile of it has
 * functions, inlined helpers and source lines to name.
 * usage: mpi-stencil [N [S [C]]]   (defaults 1024 1000 300)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

struct band {
	int n;	      /* columns */
	int rows;     /* rows owned, plus one halo row above and below */
	int up, down; /* neighbour ranks, MPI_PROC_NULL at the edges */
};

static inline double *row(double *a, const struct band *b, int i)
{
	return a + (size_t)i * b->n;
}

/* the halo rows of a from the neighbours */
static void exchange(double *a, const struct band *b)
{
	MPI_Sendrecv(row(a, b, 1), b->n, MPI_DOUBLE, b->up, 0, row(a, b, b->rows + 1), b->n,
		     MPI_DOUBLE, b->down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(row(a, b, b->rows), b->n, MPI_DOUBLE, b->down, 1, row(a, b, 0), b->n,
		     MPI_DOUBLE, b->up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* y = A x, A the 5-point Laplacian with zero boundary (x's halos fresh) */
static void laplacian(double *y, const double *x, const struct band *b)
{
	int n = b->n;

	for (int i = 1; i <= b->rows; i++) {
		const double *xm = x + (size_t)(i - 1) * n, *x0 = x + (size_t)i * n,
			     *xp = x + (size_t)(i + 1) * n;
		double *y0 = y + (size_t)i * n;

		for (int j = 0; j < n; j++) {
			double l = j ? x0[j - 1] : 0, r = j + 1 < n ? x0[j + 1] : 0;

			y0[j] = 4 * x0[j] - l - r - xm[j] - xp[j];
		}
	}
}

/* one Jacobi sweep of A u = f: u' = (f + neighbours) / 4 */
static void jacobi(double *u2, const double *u, const double *f, const struct band *b)
{
	int n = b->n;

	for (int i = 1; i <= b->rows; i++) {
		const double *um = u + (size_t)(i - 1) * n, *u0 = u + (size_t)i * n,
			     *up = u + (size_t)(i + 1) * n, *f0 = f + (size_t)i * n;
		double *v = u2 + (size_t)i * n;

		for (int j = 0; j < n; j++) {
			double l = j ? u0[j - 1] : 0, r = j + 1 < n ? u0[j + 1] : 0;

			v[j] = 0.25 * (f0[j] + l + r + um[j] + up[j]);
		}
	}
}

static double dot(const double *x, const double *y, const struct band *b)
{
	double s = 0, all;

	for (size_t k = (size_t)b->n; k < (size_t)(b->rows + 1) * b->n; k++)
		s += x[k] * y[k];
	MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return all;
}

static void axpy(double *y, double a, const double *x, const struct band *b)
{
	for (size_t k = (size_t)b->n; k < (size_t)(b->rows + 1) * b->n; k++)
		y[k] += a * x[k];
}

/* C iterations of CG on A u = f from u; the residual's norm */
static double cg(double *u, const double *f, const struct band *b, int c)
{
	size_t len = (size_t)(b->rows + 2) * b->n;
	double *r = calloc(len, sizeof(*r)), *p = calloc(len, sizeof(*p)),
	       *q = calloc(len, sizeof(*q));
	double rr;

	if (!r || !p || !q) {
		fprintf(stderr, "mpi-stencil: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	exchange(u, b);
	laplacian(q, u, b);
	for (size_t k = (size_t)b->n; k < (size_t)(b->rows + 1) * b->n; k++)
		p[k] = r[k] = f[k] - q[k];
	rr = dot(r, r, b);
	for (int it = 0; it < c && rr > 0; it++) {
		double alpha, rr2;

		exchange(p, b);
		laplacian(q, p, b);
		alpha = rr / dot(p, q, b);
		axpy(u, alpha, p, b);
		axpy(r, -alpha, q, b);
		rr2 = dot(r, r, b);
		for (size_t k = (size_t)b->n; k < (size_t)(b->rows + 1) * b->n; k++)
			p[k] = r[k] + rr2 / rr * p[k];
		rr = rr2;
	}
	free(r);
	free(p);
	free(q);
	return sqrt(rr);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024, s = argc > 2 ? atoi(argv[2]) : 1000,
	    c = argc > 3 ? atoi(argv[3]) : 300, rank, size;
	struct band b;
	double *u, *u2, *f, res;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (n < size || s < 0 || c < 0) {
		if (!rank)
			fprintf(stderr, "usage: mpi-stencil [N [SWEEPS [CG]]] (N >= ranks)\n");
		MPI_Finalize();
		return 2;
	}
	b.n = n;
	b.rows = n / size + (rank < n % size);
	b.up = rank ? rank - 1 : MPI_PROC_NULL;
	b.down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
	u = calloc((size_t)(b.rows + 2) * n, sizeof(*u));
	u2 = calloc((size_t)(b.rows + 2) * n, sizeof(*u2));
	f = calloc((size_t)(b.rows + 2) * n, sizeof(*f));
	if (!u || !u2 || !f) {
		fprintf(stderr, "mpi-stencil: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* a point source in the middle of the grid */
	for (int i = 1; i <= b.rows; i++)
		for (int j = 0; j < n; j++)
			row(f, &b, i)[j] = (j == n / 2) ? 1.0 : 0.0;
	for (int it = 0; it < s; it++) {
		double *t;

		exchange(u, &b);
		jacobi(u2, u, f, &b);
		t = u;
		u = u2;
		u2 = t;
	}
	res = cg(u, f, &b, c);
	if (!rank)
		printf("mpi-stencil: %d ranks, %dx%d, %d sweeps, %d CG iterations, residual %.3e\n",
		       size, n, n, s, c, res);
	free(u);
	free(u2);
	free(f);
	MPI_Finalize();
	return 0;
}
