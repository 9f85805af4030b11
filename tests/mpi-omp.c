/* SPDX-License-Identifier: MIT */
/*
 * A hybrid MPI + OpenMP job for tests/test-mpi-threads.sh: each rank runs
 * one parallel region of 2 OpenMP threads, in which thread 0 (the rank's
 * main thread) calls omp_work() N times and thread 1 (a worker) 2N times,
 * each call touching one fresh page: 2N page faults in the worker, N in
 * the main thread besides its own (MPI's). omp_work() is called through
 * omp_phase(), so its call path is main -> ... -> omp_phase -> omp_work.
 * usage: mpi-omp N
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static __attribute__((noinline)) void omp_work(volatile char *page)
{
	*page = 1;
}

static __attribute__((noinline)) void omp_phase(char *base, long n, long pg)
{
	for (long i = 0; i < n; i++)
		omp_work(base + i * pg);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, pg = sysconf(_SC_PAGESIZE);
	int provided, bad = 0;
	char *region;

	if (n <= 0 || MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return 2;
	region = mmap(NULL, (size_t)(3 * n * pg), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 2;
	madvise(region, (size_t)(3 * n * pg), MADV_NOHUGEPAGE);
#pragma omp parallel num_threads(2) reduction(+ : bad)
	{
		int t = omp_get_thread_num();

		if (omp_get_num_threads() != 2)
			bad = 1;
		else
			omp_phase(region + (t ? n : 0) * pg, t ? 2 * n : n, pg);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	if (bad)
		fprintf(stderr, "mpi-omp: the region did not get 2 threads\n");
	return bad;
}
