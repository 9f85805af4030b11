/* SPDX-License-Identifier: MIT */
/*
 * The perf_event system calls and ioctls (perf_event_open(2), its ioctls and
 * read), each returning -errno, with the test seam under them; and the few
 * reads of /proc/sys and /proc/self the perf layer needs (perf_event_paranoid,
 * seccomp). The engine's other system calls (mmap, prctl, signals, tgkill)
 * are made where they are used.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf.h"

int hwp_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	return hwp_perf_open_flags(attr, pid, cpu, group, 0);
}

/* ------------------------------------------------------------------ */
/* The test seam: a PMU as a real machine answers, on one that has none */

/*
 * HWPROF_TEST_PMU (read with secure_getenv(3): never in a setuid or
 * setgid program) makes every open of a PMU event (PERF_TYPE_HARDWARE,
 * HW_CACHE, RAW or a dynamic PMU type) answer as a given CPU would, so
 * the suite runs the precise_ip fallbacks of real machines on a machine
 * without a PMU:
 *
 *   HWPROF_TEST_PMU=A3,A2,A1,A0[;run=PCT][;as=page-faults]
 *
 * Ai is the answer at precise_ip i: an errno name (EINVAL, EOPNOTSUPP,
 * ENOENT, ENODEV, EACCES) or "ok", which opens a software stand-in with
 * the rest of the attr unchanged (task-clock; page-faults with
 * as=page-faults), so that its samples and counts are real. run=PCT
 * (1-99) has a stand-in read as a multiplexed counter: time_running and
 * the count PCT% of what they are (read_format with both times only).
 * Each answer given is counted: hwp_sys_test_pmu_opens().
 */
#define FAKE_FDS 256

static struct {
	int on;
	int answer[4];	  /* 0: ok, else -errno */
	unsigned int run; /* percent, 100: not multiplexed */
	uint64_t config;  /* the stand-in's */
	unsigned long opens;
	int last_ok; /* precise_ip of the last stand-in, -1: none */
	pthread_mutex_t lock;
	struct {
		int fd;
		uint64_t id, fmt;
	} fds[FAKE_FDS];
	unsigned int nfds;
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER };
static pthread_once_t fake_once = PTHREAD_ONCE_INIT;

static int fake_errno(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int err;
	} names[] = {
		{ "ok", 0 },	      { "EINVAL", EINVAL }, { "EOPNOTSUPP", EOPNOTSUPP },
		{ "ENOENT", ENOENT }, { "ENODEV", ENODEV }, { "EACCES", EACCES },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && !strncmp(names[i].name, s, n))
			return -names[i].err;
	return 1;
}

static void fake_init(void)
{
	const char *v = secure_getenv("HWPROF_TEST_PMU"), *p;

	if (!v || !*v)
		return;
	fake.run = 100;
	fake.last_ok = -1;
	fake.config = PERF_COUNT_SW_TASK_CLOCK;
	p = v;
	for (int i = 3; i >= 0; i--) {
		size_t n = strcspn(p, ",;");

		fake.answer[i] = fake_errno(p, n);
		if (fake.answer[i] == 1 || (i && p[n] != ','))
			return; /* malformed: no seam */
		p += n + (p[n] == ',');
	}
	while (*p == ';') {
		p++;
		if (!strncmp(p, "run=", 4))
			fake.run = (unsigned int)strtoul(p + 4, NULL, 10);
		else if (!strncmp(p, "as=page-faults", 14))
			fake.config = PERF_COUNT_SW_PAGE_FAULTS;
		p += strcspn(p, ";");
	}
	if (!fake.run || fake.run > 100)
		fake.run = 100;
	fake.on = 1;
}

/* Stand-ins are told apart by their event id (PERF_EVENT_IOC_ID): an fd
 * number is used again after a close. */
static void fake_keep(int fd, uint64_t fmt)
{
	uint64_t id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return;
	pthread_mutex_lock(&fake.lock);
	fake.fds[fake.nfds % FAKE_FDS].fd = fd;
	fake.fds[fake.nfds % FAKE_FDS].id = id;
	fake.fds[fake.nfds % FAKE_FDS].fmt = fmt;
	fake.nfds++;
	pthread_mutex_unlock(&fake.lock);
}

/* The read_format of a multiplexed stand-in fd, else 0. */
static uint64_t fake_fmt(int fd)
{
	uint64_t fmt = 0, id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return 0;
	pthread_mutex_lock(&fake.lock);
	for (unsigned int i = 0; i < fake.nfds && i < FAKE_FDS && !fmt; i++)
		if (fake.fds[i].fd == fd && fake.fds[i].id == id)
			fmt = fake.fds[i].fmt;
	pthread_mutex_unlock(&fake.lock);
	return fmt;
}

/* 1 and *ret set when the seam answers this open itself. */
static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
		     unsigned long flags, int *ret)
{
	struct perf_event_attr a;
	unsigned int level = attr->precise_ip;
	long fd;

	pthread_once(&fake_once, fake_init);
	if (!fake.on || !hwp_sys_pmu_event(attr)) /* not a PMU's event */
		return 0;
	__atomic_add_fetch(&fake.opens, 1, __ATOMIC_RELAXED);
	if (fake.answer[level > 3 ? 3 : level]) {
		*ret = fake.answer[level > 3 ? 3 : level];
		return 1;
	}
	a = *attr;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = fake.config;
	a.config1 = 0;
	a.config2 = 0;
	a.precise_ip = 0;
	fd = syscall(SYS_perf_event_open, &a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC | flags);
	*ret = fd < 0 ? -errno : (int)fd;
	if (fd >= 0)
		__atomic_store_n(&fake.last_ok, (int)level, __ATOMIC_RELAXED);
	if (fd >= 0 && fake.run < 100 && (a.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) &&
	    (a.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING))
		fake_keep((int)fd, a.read_format);
	return 1;
}

/* A multiplexed stand-in's read: running and the count cut to run%. */
static void fake_read(int fd, uint64_t *v, size_t n)
{
	uint64_t fmt;

	if (!fake.on || fake.run == 100 || n < 3 || !(fmt = fake_fmt(fd)) ||
	    (fmt & PERF_FORMAT_GROUP))
		return;
	/* value, time_enabled, time_running (perf_event_open(2), read) */
	v[2] = v[1] * fake.run / 100;
	v[0] = v[0] * fake.run / 100;
}

/* How many opens the seam has answered (0 when HWPROF_TEST_PMU is unset),
 * and in *last_ok the precise_ip of the last one it let open (-1: none). */
unsigned long hwp_sys_test_pmu_opens(int *last_ok)
{
	pthread_once(&fake_once, fake_init);
	if (last_ok)
		*last_ok = fake.on ? __atomic_load_n(&fake.last_ok, __ATOMIC_RELAXED) : -1;
	return __atomic_load_n(&fake.opens, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */

int hwp_sys_pmu_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX;
}

int hwp_perf_open_flags(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			unsigned long flags)
{
	long fd;
	int ret;

	if (fake_open(attr, pid, cpu, group, flags, &ret))
		return ret;
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC | flags);
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
	if ((size_t)r != n * sizeof(*v))
		return -EIO;
	fake_read(fd, v, n);
	return 0;
}

/*
 * Whose fd is it: a program may close hwprof's fds behind its back
 * (close_range(3, ~0U), a daemon's close loop up to 1024) and open its
 * own files, which take the same numbers. An fd is known by what it was
 * at open: fstat()'s device and inode (every perf fd shares one anonymous
 * inode with eventfds, epolls and the like) and the event's
 * PERF_EVENT_IOC_ID, unique to each event ('$' ioctls are perf's alone,
 * so asking an anonymous-inode fd of another kind does nothing to it).
 */
int hwp_perf_fd_note(int fd, struct hwp_perf_fd *who)
{
	struct stat st;

	if (fstat(fd, &st) || ioctl(fd, PERF_EVENT_IOC_ID, &who->id))
		return -errno;
	who->dev = (uint64_t)st.st_dev;
	who->ino = (uint64_t)st.st_ino;
	return 0;
}

/* 1 when fd is still the fd hwp_perf_fd_note() noted as who, else 0. */
int hwp_perf_fd_ours(int fd, const struct hwp_perf_fd *who)
{
	struct stat st;
	uint64_t id;

	if (fd < 0 || fstat(fd, &st) || (uint64_t)st.st_dev != who->dev ||
	    (uint64_t)st.st_ino != who->ino)
		return 0;
	return !ioctl(fd, PERF_EVENT_IOC_ID, &id) && id == who->id;
}

pid_t hwp_sys_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A small /proc or /sys file into buf (len bytes, NUL-terminated) with
 * read(), no stdio: no allocation on the engine's paths. Its length, or
 * -1 when it cannot be read or is empty. */
ssize_t hwp_sys_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || len < 2) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* perf_event_paranoid, or -100 when it cannot be read. */
int hwp_sys_paranoid(void)
{
	return (int)hwp_sys_read_long("/proc/sys/kernel/perf_event_paranoid", -100);
}

/* A small decimal from a /proc or /sys file, or dflt. */
long hwp_sys_read_long(const char *path, long dflt)
{
	char buf[32];

	return hwp_sys_read_text(path, buf, sizeof(buf)) < 0 ? dflt : strtol(buf, NULL, 10);
}

/* 1 when a seccomp filter is installed on this thread (/proc status
 * "Seccomp: 2"), else 0. */
int hwp_sys_seccomp(void)
{
	char buf[4096], *p;

	if (hwp_sys_read_text("/proc/thread-self/status", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "\nSeccomp:");
	return p && atoi(p + 9) == 2;
}
