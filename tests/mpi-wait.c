/* SPDX-License-Identifier: MIT */
/*
 * An imbalanced MPI job (tests/test-mpi.sh, cases wait-*): each of ITERS
 * iterations, every rank calls compute_kernel() and then MPI_Barrier, and
 * rank 2 does three times the work of the others, so ranks 0, 1 and 3
 * wait in MPI_Barrier about two thirds of each iteration (with a CPU per
 * rank; about half with 4 ranks on 2 CPUs). A unit of work is a store
 * into each of PAGES fresh pages (one page fault each, exact: rank 2 takes
 * 2 * ITERS * PAGES faults more in compute_kernel than each other rank)
 * and MS milliseconds of spinning on the wall clock. With MPI_WAIT_PCONTROL
 * set, the barrier before the loop is between MPI_Pcontrol(0) and
 * MPI_Pcontrol(1): not timed.
 * usage: mpi-wait ITERS MS
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

/* the wall clock: the work takes its time however loaded the machine
 * (a CPU-time loop would stretch with the load and the ranks that spin
 * waiting would stretch rank 2's part most) */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#define PAGES 50 /* fresh pages a unit of work stores into */

void compute_kernel(volatile char *pages, int units, double ms);

__attribute__((noinline)) void compute_kernel(volatile char *pages, int units, double ms)
{
	long pg = sysconf(_SC_PAGESIZE);

	for (int u = 0; u < units; u++) {
		double t0 = now_ms();

		for (int p = 0; p < PAGES; p++)
			pages[((long)u * PAGES + p) * pg] = 1;
		while (now_ms() - t0 < ms)
			;
	}
}

int main(int argc, char **argv)
{
	int rank, iters, units;
	double ms;
	long pg = sysconf(_SC_PAGESIZE);
	char *pages;

	if (argc != 3 || (iters = atoi(argv[1])) < 1 || (ms = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: mpi-wait ITERS MS\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	units = rank == 2 ? 3 : 1;
	pages = mmap(NULL, (size_t)(iters * units * PAGES) * (size_t)pg,
		     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED) {
		perror("mmap");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	madvise(pages, (size_t)(iters * units * PAGES) * (size_t)pg, MADV_NOHUGEPAGE);
	if (getenv("MPI_WAIT_PCONTROL"))
		MPI_Pcontrol(0);
	MPI_Barrier(MPI_COMM_WORLD);
	if (getenv("MPI_WAIT_PCONTROL"))
		MPI_Pcontrol(1);
	for (int i = 0; i < iters; i++) {
		compute_kernel(pages + (long)i * units * PAGES * pg, units, ms);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
