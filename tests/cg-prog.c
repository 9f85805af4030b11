/* SPDX-License-Identifier: MIT */
/*
 * Call paths with known counts, for hwprof record -g (tests/test-paths.sh):
 * built with frame pointers in every function. Each
 * fault is one store into a fresh page (MADV_NOHUGEPAGE), so page-fault
 * samples at a period of 1 count them exactly:
 *   cg-prog paths [K]  main -> top -> mid_a -> leaf: 300 K faults,
 *                      main -> top -> mid_b -> leaf: 100 K faults
 *   cg-prog deep D     main -> deep x D -> leaf: 10 faults at depth D
 *   cg-prog paced K    as paths 1, K times, 50 ms apart
 *   cg-prog late [K]   as paths, after a second's sleep, then ends with
 *                      the exit_group system call itself: recorded with
 *                      -D (after the dynamic loader and libc's start,
 *                      built without frame pointers), every frame of
 *                      every sample is exact (tests/test-frames.sh)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void nothing(void);
void leaf(long n);
void mid_a(long n);
void mid_b(long n);
void top(long k);
void deep(int d);

static char *pool;
static long used, psz = 4096;

__attribute__((noinline)) void nothing(void)
{
	__asm__ volatile("" ::: "memory");
}

/* n faults, one per fresh page. It calls nothing() so that it is no leaf:
 * GCC 12 sets up no frame pointer in a leaf function that needs no frame,
 * -fno-omit-frame-pointer or not, and its caller would drop out of the
 * kernel's frame-pointer walk. Not instrumented by a sanitizer: its
 * shadow would fault in here too. */
__attribute__((noinline, no_sanitize_address, no_sanitize_thread)) void leaf(long n)
{
	nothing();
	for (long i = 0; i < n; i++) {
		pool[used] = 1;
		used += psz;
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void mid_a(long n)
{
	leaf(n);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

__attribute__((noinline)) void mid_b(long n)
{
	leaf(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void top(long k)
{
	mid_a(300 * k);
	mid_b(100 * k);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void deep(int d)
{
	if (d > 1)
		deep(d - 1);
	else
		leaf(10);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long k = argc > 2 ? atol(argv[2]) : 1;
	size_t len;

	if (argc < 2 || k < 1 || k > 1000) {
		fputs("usage: cg-prog paths [K] | deep DEPTH | late [K]\n", stderr);
		return 2;
	}
	len = (size_t)(400 * k + 16) * (size_t)psz;
	pool = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED || madvise(pool, len, MADV_NOHUGEPAGE))
		return 1;
	if (!strcmp(argv[1], "paths")) {
		top(k);
	} else if (!strcmp(argv[1], "paced")) {
		struct timespec ts = { 0, 50000000 };

		for (long i = 0; i < k; i++) {
			top(1);
			nanosleep(&ts, NULL);
		}
	} else if (!strcmp(argv[1], "late")) {
		struct timespec ts = { 1, 0 };

		nanosleep(&ts, NULL);
		top(k);
#if defined(__x86_64__)
		/* no libc code after the faults: its exit path has no frame
		 * pointers and may fault */
		__asm__ volatile("syscall" : : "a"(SYS_exit_group), "D"(0) : "memory");
#endif
		_exit(0);
	} else if (!strcmp(argv[1], "deep"))
		deep((int)k);
	else
		return 2;
	return 0;
}
