/* SPDX-License-Identifier: MIT */
/*
 * An MPI program whose work per rank is known exactly: rank r calls
 * mpi_work() (r + 1) * N times, each call storing into a fresh page, so
 * page-faults sampled every event give exactly (r + 1) * N samples in
 * mpi_work on rank r and 10 * N over 4 ranks (tests/test-mpi.sh).
 * Built twice: as mpi-app and, with -DMPI_APP_OTHER, as another program.
 * With MPI_APP_NOPROF_RANK=R, rank R gets no profile (case one-lacks).
 * With MPI_APP_READY=DIR set, each rank then makes DIR/ready.RANK and
 * waits for ever, as a job at its walltime (case walltime).
 * With MPI_APP_PCONTROL set, each rank also stores into as many pages in
 * mpi_outside() before and after, with MPI_Pcontrol(0) around them: the
 * profile must hold none of those (case pcontrol).
 * With MPI_APP_ODD set (x86-64), the stores are made by mpi_odd(), which
 * starts 3 bytes into an 8-byte bucket after the 3-byte mpi_pad()
 * (case pmpi-odd: the bucket is mpi_odd's, which covers 4 of its bytes).
 * usage: mpi-app N | mpi-app probe
 *   probe: a raw perf_event_open of page-faults, bypassing hwprof; exit 77
 *   (SKIP) with the reason when this machine cannot sample it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mpi.h>

#ifdef MPI_APP_OTHER
const char mpi_app_name[] = "the other program";
#else
const char mpi_app_name[] = "mpi-app";
#endif

/* one store into the page: its one fault is sampled here */
void mpi_work(volatile char *page);

__attribute__((noinline, aligned(64))) void mpi_work(volatile char *page)
{
	*page = 1;
}

/* the same, outside the profiled region (MPI_APP_PCONTROL) */
void mpi_outside(volatile char *page);
__attribute__((noinline)) void mpi_outside(volatile char *page)
{
	*page = 2;
}

#if defined(__x86_64__) && !defined(MPI_APP_OTHER)
/* mpi_pad: nop, nop, ret; mpi_odd at +3: movb $1, (%rdi); ret */
void mpi_odd(volatile char *page);
__asm__(".text\n"
	".p2align 4\n"
	".globl mpi_pad\n.type mpi_pad, @function\n"
	"mpi_pad:\n\tnop\n\tnop\n\tret\n.size mpi_pad, 3\n"
	".globl mpi_odd\n.type mpi_odd, @function\n"
	"mpi_odd:\n\tmovb $1, (%rdi)\n\tret\n.size mpi_odd, 4\n");
#else
#define mpi_odd mpi_work
#endif

static int probe(void)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("SKIP: page-faults cannot be sampled here: %s\n", strerror(errno));
		return 77;
	}
	close((int)fd);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, calls, pg = sysconf(_SC_PAGESIZE);
	int rank, size, provided;
	long total = 0, mine;
	char *mem;

	if (argc > 1 && !strcmp(argv[1], "probe"))
		return probe();
	/* MPI_APP_NOPROF_RANK=R: rank R asks libhwprof-mpi for an event that
	 * does not exist, so it has no profile beside ranks that have one
	 * (the launcher's rank variable is there before MPI_Init) */
	if (getenv("MPI_APP_NOPROF_RANK") && getenv("OMPI_COMM_WORLD_RANK") &&
	    !strcmp(getenv("MPI_APP_NOPROF_RANK"), getenv("OMPI_COMM_WORLD_RANK")))
		setenv("HWPROF_EVENT", "no-such-event", 1);
	if (getenv("MPI_APP_THREAD"))
		MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	else
		MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	calls = (rank + 1) * n;
	mem = mmap(NULL, (size_t)(3 * calls * pg), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	madvise(mem, (size_t)(3 * calls * pg), MADV_NOHUGEPAGE);
	MPI_Barrier(MPI_COMM_WORLD);
	if (getenv("MPI_APP_PCONTROL")) {
		MPI_Pcontrol(0);
		for (long i = 0; i < calls; i++)
			mpi_outside(mem + (calls + i) * pg);
		MPI_Pcontrol(1);
	}
	for (long i = 0; i < calls; i++)
		(getenv("MPI_APP_ODD") ? mpi_odd : mpi_work)(mem + i * pg);
	if (getenv("MPI_APP_PCONTROL")) {
		MPI_Pcontrol(0);
		for (long i = 0; i < calls; i++)
			mpi_outside(mem + (2 * calls + i) * pg);
	}
	if (getenv("MPI_APP_READY")) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/ready.%d", getenv("MPI_APP_READY"), rank);
		f = fopen(path, "w");
		if (f)
			fclose(f);
		for (;;)
			pause();
	}
	mine = calls;
	MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!rank)
		printf("%s: %d ranks, %ld calls\n", mpi_app_name, size, total);
	munmap(mem, (size_t)(3 * calls * pg));
	MPI_Finalize();
	return 0;
}
