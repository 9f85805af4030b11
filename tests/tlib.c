/* SPDX-License-Identifier: MIT */
/* The shared part of the end-to-end tests; see tlib.h. */
#define _GNU_SOURCE
#include <alloca.h>
#include <dirent.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* Not instrumented by ASan or TSan: their shadow accesses would fault
 * too, and the count must be exact. */
#define T_NOSAN __attribute__((noinline, used, no_sanitize_address, no_sanitize("thread")))

T_NOSAN void touch_a(volatile char *p)
{
	*p = 1;
}

T_NOSAN void touch_b(volatile char *p)
{
	*p = 2;
}

T_NOSAN void touch_pages(volatile char *p, size_t k, size_t psz)
{
	for (size_t i = 0; i < k; i++)
		p[i * psz] = 1;
}

int t_pages_new(struct t_pages *tp, size_t n)
{
	tp->psz = (size_t)sysconf(_SC_PAGESIZE);
	tp->n = n;
	tp->next = 0;
	tp->base = mmap(NULL, n * tp->psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (tp->base == MAP_FAILED) {
		printf("ERROR: mmap of %zu pages: %s\n", n, strerror(errno));
		tp->base = NULL;
		return T_ERROR;
	}
	if (madvise(tp->base, n * tp->psz, MADV_NOHUGEPAGE)) {
		printf("ERROR: MADV_NOHUGEPAGE: %s\n", strerror(errno));
		t_pages_free(tp);
		return T_ERROR;
	}
	return T_PASS;
}

/* The page pool and the touch loop are not instrumented either: a TSan
 * function-entry record can fault in its trace buffer, in the middle of
 * an exact count. */
T_NOSAN void t_pages_zap(struct t_pages *tp)
{
	if (madvise(tp->base, tp->n * tp->psz, MADV_DONTNEED)) {
		printf("FAIL: MADV_DONTNEED: %s\n", strerror(errno));
		abort();
	}
	tp->next = 0;
}

T_NOSAN char *t_page(struct t_pages *tp)
{
	if (tp->next == tp->n)
		t_pages_zap(tp);
	return tp->base + tp->next++ * tp->psz;
}

void t_pages_free(struct t_pages *tp)
{
	if (tp->base)
		munmap(tp->base, tp->n * tp->psz);
	tp->base = NULL;
}

T_NOSAN void t_touch_n(void (*touch)(volatile char *), struct t_pages *tp, size_t n)
{
	for (size_t i = 0; i < n; i++)
		touch(t_page(tp));
}

__attribute__((noinline)) void t_prefault_stack(void)
{
	volatile char *p = alloca(256 * 1024);

	for (size_t i = 0; i < 256 * 1024; i += 512)
		p[i] = 0;
}

int t_faults_open(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void t_faults_start(int fd)
{
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

long long t_faults_stop(int fd)
{
	long long v = -1;

	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) || read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

/* The threads of this process now. */
int t_count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* n fresh anonymous pages without huge pages (one fault each at the
 * first store), or NULL. */
char *t_fresh(size_t n)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n * psz, MADV_NOHUGEPAGE);
	return p;
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
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case ENOSYS:
	case EACCES:
	case EPERM:
		printf("SKIP: %s: %s\n", what, strerror(errno));
		return T_SKIP;
	}
	printf("ERROR: %s: probe failed: %s\n", what, strerror(errno));
	return T_ERROR;
}

int t_require(uint32_t type, uint64_t config, const char *what)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = type,
		.config = config,
		.sample_period = 1000000,
		.sample_type = PERF_SAMPLE_IP,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return probe(&a, what);
}

/* The pcs of the page-fault samples of one touch() on a fresh page, read
 * from a raw ring: the one in [touch, touch + 4096), or 0. */
uint64_t t_store_pc(void (*touch)(volatile char *))
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t lo = (uint64_t)(uintptr_t)touch, pc = 0, head, pos;
	struct perf_event_mmap_page *pg;
	struct t_pages tp;
	int fd, found = 0;

	if (t_pages_new(&tp, 1))
		return 0;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	pg = fd < 0 ? MAP_FAILED :
		      mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		printf("t_store_pc: perf_event ring: %s\n", strerror(errno));
		goto out;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	touch(t_page(&tp));
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	for (pos = 0; pos + sizeof(struct perf_event_header) <= head && pos < psz;) {
		struct perf_event_header h;
		uint64_t ip;

		memcpy(&h, (char *)pg + psz + pos, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			memcpy(&ip, (char *)pg + psz + pos + sizeof(h), sizeof(ip));
			if (ip >= lo && ip < lo + 4096) {
				pc = ip;
				found++;
			}
		}
		pos += h.size;
	}
	if (found != 1) {
		printf("t_store_pc: %d samples in the touch function, want 1\n", found);
		pc = 0;
	}
	munmap(pg, 2 * psz);
out:
	if (fd >= 0)
		close(fd);
	t_pages_free(&tp);
	return pc;
}

int t_require_pf(void)
{
	int r = t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-fault events");

	if (r)
		return r;
	if (!t_store_pc(touch_a)) {
		printf("ERROR: page-fault sampling opens, but a fresh page's fault was not sampled at its store\n");
		return T_ERROR;
	}
	return T_PASS;
}

int t_require_bp(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_X,
		.bp_addr = (uintptr_t)fn_a,
		.bp_len = sizeof(long),
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	const char *off = getenv("HWPROF_TEST_BP_BROKEN");
	long long n = -1;
	int fd;

	if (off && !strcmp(off, "1")) {
		printf("SKIP: execute breakpoints forced off (HWPROF_TEST_BP_BROKEN)\n");
		return T_SKIP;
	}
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return probe(&a, "execute breakpoints"); /* says why */
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0) {
		fn_a();
		if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) ||
		    read(fd, &n, sizeof(n)) != sizeof(n))
			n = -1;
	}
	close(fd);
	if (n == 1)
		return T_PASS;
	if (n == 0) {
		printf("SKIP: execute breakpoints do not fire on this machine\n");
		return T_SKIP;
	}
	printf("ERROR: execute breakpoint probe: count %lld after one call\n", n);
	return T_ERROR;
}

int t_as_nobody(char **argv)
{
	char self[4096];
	ssize_t n;
	pid_t pid;
	int st;

	if (geteuid() != 0)
		return -1;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || access("/usr/bin/setpriv", X_OK)) {
		printf("SKIP: running as root and cannot drop to nobody (no setpriv)\n");
		return T_SKIP;
	}
	self[n] = 0;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		/* a user's defaults on Debian: 1024 open files (hard 4096),
		 * 8 MiB of locked memory */
		struct rlimit nf = { 1024, 4096 }, ml = { 8 << 20, 8 << 20 };
		const char *hard = getenv("HWPROF_TEST_NOFILE_HARD");

		if (hard)
			nf.rlim_max = nf.rlim_cur = (rlim_t)atoi(hard);
		if (setrlimit(RLIMIT_NOFILE, &nf) || setrlimit(RLIMIT_MEMLOCK, &ml))
			_exit(T_ERROR);
		/* T_NOBODY_UID: another unprivileged uid for a test whose
		 * budget is perf's per-user locked memory, which every
		 * process of one uid shares (tests/meson.build) */
		const char *uid = getenv("T_NOBODY_UID");
		char re[64], rg[64];

		if (!uid || strspn(uid, "0123456789") != strlen(uid) || !*uid ||
		    atoi(uid) <= 0)
			uid = "65534";
		snprintf(re, sizeof(re), "--reuid=%s", uid);
		snprintf(rg, sizeof(rg), "--regid=%s", uid);
		execl("/usr/bin/setpriv", "setpriv", re, rg, "--clear-groups",
		      "--inh-caps=-all", self, argv[1], (char *)NULL);
		_exit(T_ERROR);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return T_ERROR;
	if (WEXITSTATUS(st) == T_ERROR)
		printf("ERROR: could not run as nobody (is the build tree readable by it?)\n");
	return WEXITSTATUS(st);
}
