/* SPDX-License-Identifier: MIT */
/*
 * The demo hwprof record profiles in the Quick start: most of its time is
 * in hot_loop(), some in warm_loop(), little elsewhere.
 *   demo [threads N] [fork] [dlopen LIB]
 * threads: N threads run hot_loop too; fork: a child runs warm_loop;
 * dlopen: LIB's lib_loop() runs after being loaded.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

uint64_t hot_loop(uint64_t n);
uint64_t warm_loop(uint64_t n);
uint64_t thread_loop(uint64_t n);

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

static void *worker(void *arg)
{
	return (void *)(uintptr_t)thread_loop((uint64_t)(uintptr_t)arg);
}

int main(int argc, char **argv)
{
	uint64_t sink = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "threads") && i + 1 < argc) {
			int n = atoi(argv[++i]);
			pthread_t t[16];

			for (int k = 0; k < n && k < 16; k++)
				pthread_create(&t[k], NULL, worker, (void *)(uintptr_t)100000000);
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
			uint64_t (*f)(uint64_t) = h ? (uint64_t (*)(uint64_t))dlsym(h, "lib_loop") : NULL;

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
