/* SPDX-License-Identifier: MIT */
/*
 * The in-MPI reduction of libhwprof-mpi (lib/mpi/reduce.c) on profiles of
 * a chosen size: every rank holds about A sampled addresses and F
 * functions in 5 objects, drawn at random from a key space twice that size
 * that every rank shares (the same program: keys are object + ELF address),
 * and U percent of them its own, never seen by another rank (code no other
 * rank has: the worst case for the union). Prints, from rank 0, the slowest
 * rank's time for the reduction and the sizes it moved (bench/README.md).
 * usage: mpirun -np P mpi-reduce [A F [U]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "../lib/mpi/hwpmpi.h"

static int push(struct hwp_mpi_prof *p, uint32_t kind, uint64_t obj, uint64_t addr, uint64_t n,
		int rank)
{
	p->ents[p->nents++] = (struct hwp_mpi_ent){ .obj = obj,
						    .addr = addr,
						    .sum = n,
						    .min = n,
						    .max = n,
						    .kind = kind,
						    .maxrank = rank,
						    .ranks = 1 };
	return 0;
}

int main(int argc, char **argv)
{
	long na = argc > 2 ? atol(argv[1]) : 20000, nf = argc > 2 ? atol(argv[2]) : 2000;
	long uniq = argc > 3 ? atol(argv[3]) : 0;
	struct hwp_mpi_prof p = { 0 };
	double t0, t, tmax;
	int rank, size, r;
	unsigned int seed;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	seed = 1u + (unsigned int)rank;
	p.ents = calloc((size_t)(na + nf), sizeof(*p.ents));
	p.objs = calloc(5, sizeof(*p.objs));
	if (!p.ents || !p.objs)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int o = 0; o < 5; o++) {
		char *path;

		if (asprintf(&path, "/usr/lib/x86_64-linux-gnu/libbench%d.so", o) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
		p.objs[o] = (struct hwp_mpi_obj){ hwp_mpi_objhash(NULL, path, 0), NULL, path,
						  0 };
	}
	p.nobjs = 5;
	for (long i = 0; i < na + nf; i++) {
		int func = i >= na;
		long n = func ? nf : na;
		long k = rand_r(&seed) % (2 * n);
		/* a shared key, or U % of the time this rank's own */
		uint64_t addr = rand_r(&seed) % 100 >= uniq ?
					0x1000 + 16 * (uint64_t)k :
					0x10000000 + ((uint64_t)rank * 2 * (uint64_t)n +
						      (uint64_t)k) *
							     16;

		push(&p, func ? HWP_MPI_FUNC : HWP_MPI_ADDR, p.objs[k % 5].hash, addr,
		     1 + rand_r(&seed) % 1000, rank);
	}
	hwp_mpi_sort(&p);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	r = hwp_mpi_reduce(MPI_COMM_WORLD, &p, 0);
	t = MPI_Wtime() - t0;
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (!rank)
		printf("ranks %d  own %ld%%  per rank: %ld addresses %ld functions (%zu bytes)  "
		       "rank 0 after: %zu keys (%zu bytes)  reduce: %.2f ms%s\n",
		       size, uniq, na, nf, (size_t)(na + nf) * sizeof(struct hwp_mpi_ent),
		       p.nents, p.nents * sizeof(struct hwp_mpi_ent), tmax * 1e3,
		       r ? "  FAILED" : "");
	hwp_mpi_free(&p);
	MPI_Finalize();
	return r ? 1 : 0;
}
