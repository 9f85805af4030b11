/* SPDX-License-Identifier: MIT */
/* The shared part of the end-to-end tests; see tlib.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "tlib.h"

__attribute__((noinline, used)) void fn_a(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void fn_b(void)
{
	__asm__ volatile("nop" ::: "memory");
}

void call_n(void (*f)(void), int n)
{
	for (int i = 0; i < n; i++)
		f();
}

__attribute__((noinline, used)) uint64_t spin_hot(uint64_t n)
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

__attribute__((noinline, used)) uint64_t spin_cold(uint64_t n)
{
	uint64_t x = 1;

	__asm__ volatile("" ::: "memory");
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1;
	return x;
}

/* Not instrumented by ASan: its shadow loads would fault too, and the
 * count must be exact. */
__attribute__((noinline, used, no_sanitize_address)) void touch_a(volatile char *p)
{
	*p = 1;
}

__attribute__((noinline, used, no_sanitize_address)) void touch_b(volatile char *p)
{
	*p = 2;
}

__attribute__((noinline, used, no_sanitize_address)) void touch_pages(volatile char *p,
									size_t k, size_t psz)
{
	for (size_t i = 0; i < k; i++)
		p[i * psz] = 1;
}

int t_count_perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char path[320], link[256];
	int n = 0;

	while (d && (de = readdir(d))) {
		ssize_t l;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l > 0) {
			link[l] = 0;
			n += strstr(link, "perf_event") != NULL;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static int probe(struct perf_event_attr *a, const char *what)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return T_PASS;
	}
	switch (errno) {
	case ENOENT: case ENODEV: case EOPNOTSUPP: case ENOSYS:
	case EACCES: case EPERM:
		printf("SKIP: %s: %s\n", what, strerror(errno));
		return T_SKIP;
	}
	printf("ERROR: %s: probe failed: %s\n", what, strerror(errno));
	return T_ERROR;
}

int t_require(uint32_t type, uint64_t config, const char *what)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = type, .config = config,
		.sample_period = 1000000, .sample_type = PERF_SAMPLE_IP,
		.disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
	};

	return probe(&a, what);
}

int t_require_bp(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_X, .bp_addr = (uintptr_t)fn_a,
		.bp_len = sizeof(long), .sample_period = 1,
		.sample_type = PERF_SAMPLE_IP, .disabled = 1, .exclude_kernel = 1,
	};

	return probe(&a, "execute breakpoints");
}
