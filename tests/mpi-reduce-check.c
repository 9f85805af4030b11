/* SPDX-License-Identifier: MIT */
/*
 * libhwprof-mpi's tree reduction (lib/mpi/reduce.c) against a brute force:
 * 200 rounds of 40 keys, each rank holding a random quarter-less subset
 * with counts 1 to 3 (many ties for the max, many keys some rank lacks);
 * rank 0 gathers every rank's counts and checks each key's sum, min (0
 * when a rank lacks it), max, rank of the max (the lowest on ties) and
 * number of ranks. Each key is also a call-path node (HWP_MPI_NODE), its
 * count split in two entries of the rank where it can be: the nodes sum,
 * keep their frame and parent (min, max) whole, and count their ranks.
 * Run at sizes that are not powers of two (tests/test-mpi.sh, case
 * reduce).
 * usage: mpirun -np P mpi-reduce-check
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../lib/mpi/hwpmpi.h"

#define NK 40

static int check_round(int round, int rank, int size)
{
	unsigned int seed = 1234u * (unsigned int)round + 7u * (unsigned int)rank + 1u;
	uint64_t mine[NK], *all = malloc(sizeof(mine) * (size_t)size);
	struct hwp_mpi_prof p = { 0 };
	int bad = 0;

	p.ents = calloc(3 * NK + 1, sizeof(*p.ents));
	p.objs = calloc(1, sizeof(*p.objs));
	if (!all || !p.ents || !p.objs)
		MPI_Abort(MPI_COMM_WORLD, 2);
	p.objs[0] = (struct hwp_mpi_obj){ 77, NULL, strdup("/x"), 0 };
	p.nobjs = 1;
	for (int k = 0; k < NK; k++) {
		mine[k] = rand_r(&seed) % 4 ? 1 + (uint64_t)(rand_r(&seed) % 3) : 0;
		if (mine[k])
			p.ents[p.nents++] = (struct hwp_mpi_ent){ .obj = 77,
								  .addr = (uint64_t)(NK - k),
								  .sum = mine[k],
								  .min = mine[k],
								  .max = mine[k],
								  .kind = HWP_MPI_FUNC,
								  .maxrank = rank,
								  .ranks = 1 };
		/* a node of count >= 2 in two entries, 1 and the rest */
		for (int part = 0; part < (mine[k] >= 2 ? 2 : mine[k] ? 1 : 0); part++)
			p.ents[p.nents++] = (struct hwp_mpi_ent){
				.obj = 1000 + (uint64_t)k,
				.addr = (uint64_t)k,
				.sum = mine[k] >= 2 ? (part ? mine[k] - 1 : 1) : mine[k],
				.min = 5000 + (uint64_t)k,
				.max = 9000 + (uint64_t)k,
				.kind = HWP_MPI_NODE,
				.maxrank = rank,
				.ranks = 1
			};
	}
	hwp_mpi_sort(&p);
	MPI_Gather(mine, NK, MPI_UINT64_T, all, NK, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (hwp_mpi_reduce(MPI_COMM_WORLD, &p, 0)) {
		printf("round %d: the reduction failed\n", round);
		bad = 1;
	}
	for (int k = 0; k < NK && !rank; k++) {
		uint64_t s = 0, mn = UINT64_MAX, mx = 0;
		int mr = -1;
		unsigned int nr = 0;
		const struct hwp_mpi_ent *e = hwp_mpi_find(&p, HWP_MPI_FUNC, 77,
							   (uint64_t)(NK - k));

		for (int r = 0; r < size; r++) {
			uint64_t v = all[r * NK + k];

			s += v;
			mn = v < mn ? v : mn;
			if (v > mx) {
				mx = v;
				mr = r;
			}
			nr += v != 0;
		}
		{
			const struct hwp_mpi_ent *x = hwp_mpi_find(&p, HWP_MPI_NODE,
								   1000 + (uint64_t)k,
								   (uint64_t)k);

			if (s && (!x || x->sum != s || x->min != 5000 + (uint64_t)k ||
				  x->max != 9000 + (uint64_t)k || x->ranks != nr)) {
				printf("round %d node %d: got %llu %llu %llu %u, want %llu %llu %llu %u\n",
				       round, k, x ? (unsigned long long)x->sum : 0,
				       x ? (unsigned long long)x->min : 0,
				       x ? (unsigned long long)x->max : 0, x ? x->ranks : 0,
				       (unsigned long long)s, 5000ull + (unsigned long long)k,
				       9000ull + (unsigned long long)k, nr);
				bad = 1;
			}
			if (!s && x) {
				printf("round %d node %d: in the result, on no rank\n", round,
				       k);
				bad = 1;
			}
		}
		if (!s) {
			if (e) {
				printf("round %d key %d: in the result, on no rank\n", round,
				       k);
				bad = 1;
			}
			continue;
		}
		if (!e || e->sum != s || e->min != mn || e->max != mx || e->maxrank != mr ||
		    e->ranks != nr) {
			printf("round %d key %d: got %llu %llu %llu %d %u, want %llu %llu %llu %d %u\n",
			       round, k, e ? (unsigned long long)e->sum : 0,
			       e ? (unsigned long long)e->min : 0,
			       e ? (unsigned long long)e->max : 0, e ? e->maxrank : -1,
			       e ? e->ranks : 0, (unsigned long long)s, (unsigned long long)mn,
			       (unsigned long long)mx, mr, nr);
			bad = 1;
		}
	}
	hwp_mpi_free(&p);
	free(all);
	return bad;
}

int main(int argc, char **argv)
{
	int rank, size, bad = 0, any = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int round = 0; round < 200; round++)
		bad |= check_round(round, rank, size);
	MPI_Reduce(&bad, &any, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	if (!rank)
		printf("%s: 200 rounds of %d keys on %d ranks\n", any ? "FAIL" : "ok", NK,
		       size);
	MPI_Finalize();
	return any;
}
