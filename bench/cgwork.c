/* SPDX-License-Identifier: MIT */
/*
 * A workload with call paths for bench/callgraph.sh: eight leaf functions
 * reached through two levels of callers (16 distinct paths), built with
 * frame pointers.
 *   cgwork faults N   N page faults (fresh pages, reused by munmap and
 *                     mmap again), spread over the paths
 *   cgwork spin MS    MS ms of CPU spread over the same paths
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CHUNK 4096L /* pages mapped at once */

static char *pool;
static long used;
static int spin;
static volatile uint64_t sink;

static void work(void)
{
	if (spin) {
		uint64_t x = sink;

		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		sink = x;
		return;
	}
	if (used == CHUNK) {
		munmap(pool, (size_t)CHUNK * 4096);
		pool = mmap(NULL, (size_t)CHUNK * 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		madvise(pool, (size_t)CHUNK * 4096, MADV_NOHUGEPAGE);
		used = 0;
	}
	pool[used++ * 4096] = 1;
}

#define LEAF(n)                                       \
	__attribute__((noinline)) void leaf##n(void); \
	void leaf##n(void)                            \
	{                                             \
		work();                               \
		__asm__ volatile("" ::: "memory");    \
	}
LEAF(0)
LEAF(1)
LEAF(2)
LEAF(3)
LEAF(4)
LEAF(5)
LEAF(6)
LEAF(7)

static void (*const leaves[8])(void) = {
	leaf0, leaf1, leaf2, leaf3, leaf4, leaf5, leaf6, leaf7
};

__attribute__((noinline)) void mid(int k, int i);
void mid(int k, int i)
{
	leaves[(k + i) & 7]();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(int k);
void outer(int k)
{
	for (int i = 0; i < 2; i++)
		mid(k, i * 4);
	__asm__ volatile("" ::: "memory");
}

static uint64_t cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc < 3 || n <= 0)
		return 2;
	spin = !strcmp(argv[1], "spin");
	used = CHUNK;
	if (spin) {
		uint64_t end = cpu_ms() + (uint64_t)n;

		for (int k = 0; cpu_ms() < end; k++)
			for (int j = 0; j < 64; j++)
				outer(k + j);
	} else {
		for (long k = 0; k < n / 2; k++)
			outer((int)k);
	}
	return 0;
}
