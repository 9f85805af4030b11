/* SPDX-License-Identifier: MIT */
/*
 * glibc threads with known page-fault counts, for the thread-entry test of
 * hwprof report (tests/test-naming.sh): built with frame pointers.
 *   thr-prog N K        N threads (pthread_create: clone3 in glibc >=
 *                       2.34) and main each fault K fresh pages in
 *                       touch(), called from work()
 *   thr-prog alloc N    churn(): N calls of malloc, free and memmove
 *                       (glibc's, through the PLT), for its names
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void nothing(void);
void touch(long k);
void *work(void *arg);
void churn(long n);

__attribute__((noinline)) void nothing(void)
{
	__asm__ volatile("" ::: "memory");
}

/* k faults, one store per fresh page; it calls nothing() so that it is
 * no frameless leaf (GCC 12 omits the frame of a leaf that needs none) */
__attribute__((noinline, no_sanitize_address, no_sanitize_thread)) void touch(long k)
{
	char *p = mmap(NULL, (size_t)k * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	nothing();
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, (size_t)k * 4096, MADV_NOHUGEPAGE);
	for (long i = 0; i < k; i++)
		((volatile char *)p)[i * 4096] = 1;
	munmap(p, (size_t)k * 4096);
}

__attribute__((noinline)) void *work(void *arg)
{
	touch(*(long *)arg);
	nothing();
	return NULL;
}

__attribute__((noinline)) void churn(long n)
{
	static char a[4096], b[4096];
	/* sizes the compiler cannot see: real calls of libc's functions */
	size_t sz = 64 + (size_t)n % 7, mv = 1024 + (size_t)n % 5;

	for (long i = 0; i < n; i++) {
		char *volatile p = malloc(sz + (size_t)(i & 63));

		if (!p)
			exit(1);
		p[0] = (char)i;
		free(p);
		memmove(a, b + (i & 7), mv);
	}
}

int main(int argc, char **argv)
{
	long n, k;
	pthread_t *t;

	if (argc > 2 && !strcmp(argv[1], "alloc")) {
		churn(atol(argv[2]));
		return 0;
	}
	n = argc > 1 ? atol(argv[1]) : 2;
	k = argc > 2 ? atol(argv[2]) : 100;
	t = calloc((size_t)n + 1, sizeof(*t));

	if (!t || n < 0 || n > 64 || k < 1)
		return 2;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work, &k)) {
			fputs("thr-prog: pthread_create failed\n", stderr);
			return 1;
		}
	work(&k);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
