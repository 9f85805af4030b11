/* SPDX-License-Identifier: MIT */
/*
 * A program written for glibc's sprofil, built without hwprof. Run with
 * LD_PRELOAD=libhwprof.so.0 HWPROF_EVENT=mem:target:x HWPROF_PERIOD=1 it
 * must count every call exactly, which glibc's 10 ms SIGPROF sampling
 * cannot do: the proof that hwprof's sprofil ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/profil.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 5000

void target(void);
__attribute__((noinline, used)) void target(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	static unsigned int buf[16];
	struct prof p = { .pr_base = buf, .pr_size = sizeof(buf),
			  .pr_off = (size_t)(uintptr_t)target, .pr_scale = 0x10000 };
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_X, .bp_addr = (uintptr_t)target,
		.bp_len = sizeof(long), .sample_period = 1, .exclude_kernel = 1,
		.disabled = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0) {	/* probed without hwprof: no breakpoints, no test */
		printf("SKIP: execute breakpoints: %s\n", strerror(errno));
		return 77;
	}
	close(fd);
	if (sprofil(&p, 1, NULL, PROF_UINT)) {
		printf("FAIL: sprofil: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < N; i++)
		target();
	sprofil(NULL, 0, NULL, 0);
	printf("%u of %d calls counted in target's bucket\n", buf[0], N);
	return buf[0] == N ? 0 : 1;
}
