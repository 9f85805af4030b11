/* SPDX-License-Identifier: MIT */
/*
 * The demo hwprof record profiles in the Quick start: most of its time is
 * in hot_loop(), some in warm_loop(), little elsewhere.
 *   demo [faults N] [threads N] [fork] [dlopen LIB]
 * faults: fault_pages() writes once to each of N fresh pages, so
 * `hwprof record -e page-faults -c 1` finds exactly N samples in it (and
 * N more per thread of a later "threads"); threads: N threads run hot_loop
 * too; fork: a child runs warm_loop; dlopen: LIB's lib_loop() runs after
 * being loaded.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

uint64_t hot_loop(uint64_t n);
uint64_t warm_loop(uint64_t n);
uint64_t thread_loop(uint64_t n);
void fault_pages(volatile char *p, size_t n, size_t psz);

static size_t nfaults; /* "faults N": pages per thread */

__attribute__((noinline)) uint64_t hot_loop(uint64_t n)
{
	uint64_t x = 88172645463325252ull;

	__asm__ volatile("" ::: "memory");
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

__attribute__((noinline)) uint64_t warm_loop(uint64_t n)
{
	uint64_t x = 1;

	__asm__ volatile("" ::: "memory");
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) uint64_t thread_loop(uint64_t n)
{
	uint64_t x = 7;

	__asm__ volatile("" ::: "memory");
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 7;
		x ^= x >> 9;
	}
	return x ^ hot_loop(1);
}

/* One store per page: on a fresh page (no huge page), one page fault,
 * at the store. Nothing else here can fault: the caller made the pages
 * and, calling mmap, already used more stack than this. */
__attribute__((noinline)) void fault_pages(volatile char *p, size_t n, size_t psz)
{
	for (size_t i = 0; i < n; i++)
		p[i * psz] = 1;
}

static int faults(size_t n)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	if (p == MAP_FAILED || madvise(p, n * psz, MADV_NOHUGEPAGE)) {
		perror("demo: faults");
		return -1;
	}
	fault_pages(p, n, psz);
	munmap(p, n * psz);
	return 0;
}

static void *worker(void *arg)
{
	if (nfaults && faults(nfaults))
		return NULL;
	return (void *)(uintptr_t)thread_loop((uint64_t)(uintptr_t)arg);
}

int main(int argc, char **argv)
{
	uint64_t sink = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "faults") && i + 1 < argc) {
			nfaults = (size_t)strtoul(argv[++i], NULL, 10);
			if (nfaults && faults(nfaults))
				return 1;
		} else if (!strcmp(argv[i], "threads") && i + 1 < argc) {
			int n = atoi(argv[++i]);
			pthread_t t[16];

			for (int k = 0; k < n && k < 16; k++)
				pthread_create(&t[k], NULL, worker,
					       (void *)(uintptr_t)100000000);
			for (int k = 0; k < n && k < 16; k++)
				pthread_join(t[k], NULL);
		} else if (!strcmp(argv[i], "fork")) {
			pid_t pid = fork();

			if (!pid) {
				sink = warm_loop(200000000);
				printf("child %llu\n", (unsigned long long)(sink & 1));
				exit(0);
			}
			waitpid(pid, NULL, 0);
		} else if (!strcmp(argv[i], "dlopen") && i + 1 < argc) {
			void *h = dlopen(argv[++i], RTLD_NOW);
			uint64_t (*f)(
				uint64_t) = h ? (uint64_t(*)(uint64_t))dlsym(h, "lib_loop") :
						NULL;

			if (!f) {
				fprintf(stderr, "demo: %s\n", dlerror());
				return 1;
			}
			sink ^= f(200000000);
		}
	}
	sink ^= hot_loop(300000000);
	sink ^= warm_loop(60000000);
	printf("demo done (%llu)\n", (unsigned long long)(sink & 1));
	return 0;
}
