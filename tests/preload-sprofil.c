/* SPDX-License-Identifier: MIT */
/*
 * A program written for glibc's sprofil, built without hwprof. Run with
 * LD_PRELOAD=libhwprof.so.0 HWPROF_EVENT=page-faults HWPROF_PERIOD=1 it
 * must count every fault of target() on N fresh pages, exactly, at its
 * store, which glibc's 10 ms SIGPROF sampling cannot do: the proof that
 * hwprof's sprofil ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/profil.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 5000

/* one store: one fault per fresh page; no sanitizer shadow access */
void target(volatile char *p);
__attribute__((noinline, used, no_sanitize_address, no_sanitize("thread"))) void
target(volatile char *p)
{
	*p = 1;
}

int main(void)
{
	static unsigned int buf[16];
	struct prof p = { .pr_base = buf,
			  .pr_size = sizeof(buf),
			  .pr_off = (size_t)(uintptr_t)target,
			  .pr_scale = 0x10000 };
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.disabled = 1,
	};
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	unsigned int sum = 0, nonzero = 0;
	char *m;

	if (fd < 0) { /* probed without hwprof */
		printf("SKIP: page-fault events: %s\n", strerror(errno));
		return 77;
	}
	close(fd);
	m = mmap(NULL, N * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || madvise(m, N * psz, MADV_NOHUGEPAGE)) {
		printf("ERROR: %s\n", strerror(errno));
		return 99;
	}
	if (sprofil(&p, 1, NULL, PROF_UINT)) {
		printf("FAIL: sprofil: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < N; i++)
		target(m + (size_t)i * psz);
	sprofil(NULL, 0, NULL, 0);
	for (int i = 0; i < 16; i++) {
		sum += buf[i];
		nonzero += buf[i] != 0;
	}
	printf("%u of %d faults counted in target's buckets (%u buckets used)\n", sum, N,
	       nonzero);
	return sum == N && nonzero == 1 ? 0 : 1;
}
