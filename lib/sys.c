/* SPDX-License-Identifier: MIT */
/* Every system call the engine makes, returning -errno: one place to read. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

int hwp_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	return hwp_perf_open_flags(attr, pid, cpu, group, 0);
}

int hwp_perf_open_flags(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group,
			  PERF_FLAG_FD_CLOEXEC | flags);

	return fd < 0 ? -errno : (int)fd;
}

int hwp_perf_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int hwp_perf_read(int fd, uint64_t *v, size_t n)
{
	ssize_t r = read(fd, v, n * sizeof(*v));

	if (r < 0)
		return -errno;
	return (size_t)r == n * sizeof(*v) ? 0 : -EIO;
}

pid_t hwp_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* perf_event_paranoid, or -100 when it cannot be read. */
int hwp_paranoid(void)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -100;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -100;
	buf[n] = 0;
	return atoi(buf);
}

/* A small decimal from a /proc or /sys file, or dflt. */
long hwp_read_long(const char *path, long dflt)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* 1 when a seccomp filter is installed on this thread (/proc status
 * "Seccomp: 2"), else 0. */
int hwp_seccomp(void)
{
	char buf[4096];
	int fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *p;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strstr(buf, "\nSeccomp:");
	return p && atoi(p + 9) == 2;
}
