/* SPDX-License-Identifier: MIT */
/*
 * A burst through the in-process engine: a program written for glibc's
 * sprofil, built without hwprof, whose T threads (all alive at once) each
 * store into P fresh pages in target(). Run with LD_PRELOAD=libhwprof.so.0
 * HWPROF_EVENT=page-faults HWPROF_PERIOD=1, every fault is one sample:
 * the samples sprofil folded into target's element plus the samples
 * hwprof reports lost on stderr (profil(3hwprof)) must be T x P exactly.
 * Prints "target N": the element's count.
 * usage: burst-sprofil T P
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/profil.h>
#include <unistd.h>

void target(volatile char *p, long n, size_t psz);
__attribute__((noinline, used, no_sanitize_address, no_sanitize("thread"))) void
target(volatile char *p, long n, size_t psz)
{
	for (long i = 0; i < n; i++)
		p[(size_t)i * psz] = 1;
}

static pthread_barrier_t bar;
static long pages;

static void *thread(void *arg)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)pages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		return (void *)1;
	madvise(p, (size_t)pages * psz, MADV_NOHUGEPAGE);
	pthread_barrier_wait(&bar); /* all alive, then all at once */
	target(p, pages, psz);
	return NULL;
}

int main(int argc, char **argv)
{
	static unsigned int buf[64];
	struct prof pr = { .pr_base = buf,
			   .pr_size = sizeof(buf),
			   .pr_off = (size_t)(uintptr_t)target,
			   .pr_scale = 0x10000 };
	long nt = argc > 2 ? atol(argv[1]) : 0;
	pthread_t *t;
	pthread_attr_t at;
	unsigned long long sum = 0;
	void *bad = NULL;

	pages = argc > 2 ? atol(argv[2]) : 0;
	if (nt < 1 || pages < 1) {
		fprintf(stderr, "usage: burst-sprofil THREADS PAGES\n");
		return 2;
	}
	t = calloc((size_t)nt, sizeof(*t));
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 * 1024);
	pthread_barrier_init(&bar, NULL, (unsigned int)nt);
	if (!t || sprofil(&pr, 1, NULL, PROF_UINT)) { /* 32-bit buckets */
		perror("sprofil");
		return 99;
	}
	for (long i = 0; i < nt; i++)
		if (pthread_create(&t[i], &at, thread, NULL)) {
			fprintf(stderr, "burst-sprofil: thread %ld not made\n", i);
			return 99;
		}
	for (long i = 0; i < nt; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad = r ? r : bad;
	}
	sprofil(NULL, 0, NULL, 0); /* stop: every sample folded */
	for (size_t i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
		sum += buf[i];
	printf("target %llu\n", sum);
	return bad ? 99 : 0;
}
