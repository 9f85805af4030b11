/* SPDX-License-Identifier: MIT */
/*
 * A hybrid MPI + OpenMP job for tests/test-mpi-threads.sh: each rank runs
 * one parallel region of 2 OpenMP threads, in which thread 0 (the rank's
 * main thread) calls omp_work() N times and thread 1 (a worker) 2N times,
 * each call touching one fresh page: 2N page faults in the worker, N in
 * the main thread besides its own (MPI's). omp_work() is called through
 * omp_phase(), so its call path is main -> ... -> omp_phase -> omp_work.
 * The threads are made, and their stacks touched, before MPI_Init, where
 * libhwprof-mpi starts: its count of the worker is then the 2N alone.
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

/* The stack a thread will use, touched (before MPI_Init: its page
 * faults are not the region's). */
static __attribute__((noinline)) void omp_warm(void)
{
	volatile char buf[64 * 1024];

	for (size_t i = 0; i < sizeof(buf); i += 512)
		buf[i] = 0;
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

	if (n <= 0)
		return 2;
		/* the OpenMP threads made and their stacks touched before MPI_Init,
		 * so that the region below faults only in omp_work */
#pragma omp parallel num_threads(2)
	omp_warm();
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
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
