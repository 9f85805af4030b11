/* SPDX-License-Identifier: MIT */
/*
 * The sampling engine under programs that do hostile things:
 *   fds        a process-mode session runs; the program closes every fd
 *              from 3 up (close_range, or a loop to 1024) and opens its
 *              own files, which take the old numbers: hwprof never writes
 *              to, reads from or closes them, its drain thread does not
 *              spin (under 30 ms of CPU in 300 ms), and the thread whose
 *              fds were lost is counted missed with -EBADF
 *   fork-loader
 *              200 fork()s under a process-mode session with per-object
 *              buckets while another thread is always inside
 *              dl_iterate_phdr() (the loader's lock held): every child
 *              samples its pages, stops or just exits, within 5 s
 *   static-threads
 *              (the same source linked -static with libhwprof.a) a
 *              process-mode session starts, 8 threads made after it each
 *              fault N pages: exactly 8 x N samples in touch_pages
 *   dlopen-cycles
 *              20 dlopen/dlclose cycles of libdlo.so, each loaded at
 *              another address and faulting N pages in it: one object
 *              for it in hwprof_session_objects, holding 20 x N samples
 *   sample-cost
 *              task-clock at the kernel's 10 us floor: when a raw probe
 *              (no hwprof) finds a thread runs at under 30% of its speed
 *              so sampled, start logs one warning saying so (and only
 *              once over two starts); above 90%, none
 * usage: test-hostile CASE
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <link.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "hwprof.h"
#include "harness.h"
#include "tlib.h"

static size_t psz;
static struct hwprof_session *arg_session;

static int need_faults(void)
{
	return t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-fault events");
}

/* t_fresh(), or the test ends with an error. */
static char *fresh(size_t n)
{
	char *p = t_fresh(n);

	if (!p) {
		printf("ERROR: mmap: %s\n", strerror(errno));
		exit(T_ERROR);
	}
	return p;
}

/* CPU time (ns) of the thread named hwprof-drain, or -1 if none. */
static long long drainer_cpu_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	long long ns = -1;

	while (d && (de = readdir(d))) {
		char path[300], buf[64];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f) || strncmp(buf, "hwprof-drain", 12)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", de->d_name);
		f = fopen(path, "re");
		if (f && fscanf(f, "%lld", &ns) != 1)
			ns = -1;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return ns;
}

static int max_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int m = 2;

	while (d && (de = readdir(d)))
		if (atoi(de->d_name) > m && atoi(de->d_name) != dirfd(d))
			m = atoi(de->d_name);
	if (d)
		closedir(d);
	return m;
}

static void *toucher(void *arg)
{
	touch_pages(fresh(20), 20, psz);
	return arg;
}

#define MAXOWN 256

static int case_fds(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o),
					 .mode = HWPROF_SESSION_PROCESS,
					 .drain_ms = 20 };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s;
	int own[MAXOWN], nown = 0, pipefd[2], top, r;
	struct stat sb;
	pthread_t t;
	long long c0, c1;
	char buf[64];
	const char msg[] = "the program's own bytes";

	if ((r = need_faults()))
		return r;
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, NULL), 0);
	T_EQ(hwprof_session_start(s), 0);
	touch_pages(fresh(10), 10, psz);
	top = max_fd();
	/* what every daemon does */
	if (syscall(SYS_close_range, 3u, ~0u, 0u))
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	/* its own files take the numbers: a pipe with data waiting (always
	 * readable) and empty memfds */
	if (pipe2(pipefd, O_CLOEXEC) || write(pipefd[1], msg, sizeof(msg)) != sizeof(msg)) {
		printf("ERROR: pipe: %s\n", strerror(errno));
		return T_ERROR;
	}
	while (nown < MAXOWN) {
		int fd = memfd_create("own", MFD_CLOEXEC);

		if (fd < 0) {
			printf("ERROR: memfd_create: %s\n", strerror(errno));
			return T_ERROR;
		}
		own[nown++] = fd;
		if (fd >= top)
			break;
	}
	/* a new thread (which rings the drain thread's doorbell), then time
	 * for the drain thread to spin if it would */
	T_EQ(pthread_create(&t, NULL, toucher, NULL), 0);
	pthread_join(t, NULL);
	c0 = drainer_cpu_ns();
	usleep(300000);
	c1 = drainer_cpu_ns();
	T_CHECK(c0 >= 0 && c1 >= 0, "no hwprof-drain thread");
	printf("drain thread: %lld us of CPU in 300 ms\n", (c1 - c0) / 1000);
	T_CHECK(c1 - c0 < 30000000, "drain thread used %lld us of CPU in 300 ms",
		(c1 - c0) / 1000);
	T_EQ(hwprof_session_read(s), 0);
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	T_CHECK(st.missed >= 1, "missed %u", st.missed);
	T_CHECK(st.missed_err == -EBADF, "missed_err %d", st.missed_err);
	hwprof_session_free(s);

	/* nothing of the program's was touched */
	memset(buf, 0, sizeof(buf));
	T_CHECK(fcntl(pipefd[0], F_SETFL, O_NONBLOCK) == 0, "pipe closed: %s",
		strerror(errno));
	T_EQ(read(pipefd[0], buf, sizeof(buf)), sizeof(msg));
	T_CHECK(!memcmp(buf, msg, sizeof(msg)), "pipe content changed");
	T_CHECK(fstat(pipefd[1], &sb) == 0, "pipe write end closed: %s", strerror(errno));
	for (int i = 0; i < nown; i++) {
		T_CHECK(fstat(own[i], &sb) == 0, "fd %d closed behind the program's back: %s",
			own[i], strerror(errno));
		T_CHECK(sb.st_size == 0, "fd %d written: %lld bytes", own[i],
			(long long)sb.st_size);
	}
	return t_done("fds");
}

static volatile int iterating = 1;

static int slow_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct timespec ts = { 0, 200000 };

	(void)info;
	(void)size;
	(void)arg;
	nanosleep(&ts, NULL);
	return 0;
}

static void *iterator(void *arg)
{
	while (iterating)
		dl_iterate_phdr(slow_cb, NULL);
	return arg;
}

#define NCHILD 200
#define BATCH  10

static int child(int i)
{
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s = arg_session;
	struct timespec ts = { 0, 30000000 };

	touch_pages(fresh(8), 8, psz);
	nanosleep(&ts, NULL); /* a few drains (drain_ms 5) */
	if (i % 2)
		return 0; /* exit() with the session running */
	if (hwprof_session_stop(s) || hwprof_session_stats(s, 0, &st))
		return 1;
	hwprof_session_free(s);
	return st.threads >= 1 ? 0 : 2;
}

static int case_fork_loader(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o),
					 .mode = HWPROF_SESSION_PROCESS,
					 .drain_ms = 5 };
	pthread_t t;
	int r, hung = 0, bad = 0;

	if ((r = need_faults()))
		return r;
	T_EQ(hwprof_session_new(&o, &arg_session), 0);
	T_EQ(hwprof_session_add(arg_session, "page-faults", 1, NULL), 0);
	T_EQ(hwprof_session_start(arg_session), 0);
	T_EQ(pthread_create(&t, NULL, iterator, NULL), 0);
	for (int b = 0; b < NCHILD; b += BATCH) {
		pid_t pid[BATCH];
		struct timespec t0, now;

		for (int k = 0; k < BATCH; k++) {
			pid[k] = fork();
			if (pid[k] == 0)
				exit(child(b + k));
			if (pid[k] < 0) {
				printf("ERROR: fork: %s\n", strerror(errno));
				return T_ERROR;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int k = 0; k < BATCH; k++) {
			int status;

			for (;;) {
				pid_t w = waitpid(pid[k], &status, WNOHANG);

				if (w == pid[k]) {
					if (!WIFEXITED(status) || WEXITSTATUS(status))
						bad++;
					break;
				}
				clock_gettime(CLOCK_MONOTONIC, &now);
				if (now.tv_sec - t0.tv_sec >= 5) {
					kill(pid[k], SIGKILL);
					waitpid(pid[k], &status, 0);
					hung++;
					break;
				}
				usleep(2000);
			}
		}
	}
	iterating = 0;
	pthread_join(t, NULL);
	T_EQ(hung, 0);
	T_EQ(bad, 0);
	hwprof_session_free(arg_session);
	return t_done("fork-loader");
}

#define NTHR 8
#define NPG  50

static uint32_t fnbuf[1024];

static void *faulter(void *arg)
{
	touch_pages(fresh(NPG), NPG, psz);
	return arg;
}

static int case_static_threads(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_region reg = {
		.base = fnbuf,
		.size = sizeof(fnbuf),
		.offset = (uint64_t)(uintptr_t)touch_pages,
		.scale = 0x20000,
		.width = 32,
	};
	struct hwprof_hist_opts ho = {
		.sz = sizeof(ho),
		.regions = &reg,
		.nregions = 1,
		.index = HWPROF_INDEX_PAPI,
	};
	struct hwprof_hist *h;
	struct hwprof_session *s;
	pthread_t t[NTHR];
	uint64_t sum = 0;
	int r;

	if ((r = need_faults()))
		return r;
	T_EQ(hwprof_hist_new(&ho, &h), 0);
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, h), 0);
	T_EQ(hwprof_session_start(s), 0);
	int made = 0;

	for (int i = 0; i < NTHR; i++) {
		r = pthread_create(&t[made], NULL, faulter, NULL);
		T_EQ(r, 0);
		made += !r;
	}
	for (int i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	for (size_t i = 0; i < sizeof(fnbuf) / sizeof(fnbuf[0]); i++)
		sum += fnbuf[i];
	T_EQ(sum, NTHR * NPG);
	T_CHECK(st.threads >= NTHR + 1, "threads %u", st.threads);
	T_EQ(st.missed, 0);
	hwprof_session_free(s);
	hwprof_hist_free(h);
	return t_done("static-threads");
}

#ifndef HOSTILE_STATIC /* no dlopen in the static copy */
#define CYCLES 20
#define DPG    10

static int case_dlopen_cycles(const char *self)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_THREAD };
	struct hwprof_session *s;
	const struct hwprof_object *objs;
	char path[4096], *slash;
	size_t n = 0, nlib = 0;
	uint64_t sum = 0, top = 0;
	int r;

	if ((r = need_faults()))
		return r;
	snprintf(path, sizeof(path), "%s", self);
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path,
		 sizeof(path) - (size_t)(slash ? slash + 1 - path : 0), "libdlo.so");
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, NULL), 0);
	T_EQ(hwprof_session_start(s), 0);
	for (int c = 0; c < CYCLES; c++) {
		void (*touch)(volatile char *, size_t, size_t);
		void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		Dl_info di;

		if (!lib) {
			printf("ERROR: dlopen %s: %s\n", path, dlerror());
			return T_ERROR;
		}
		touch = (void (*)(volatile char *, size_t, size_t))dlsym(lib, "dlo_touch");
		if (!touch || !dladdr((void *)touch, &di)) {
			printf("ERROR: dlo_touch not found\n");
			return T_ERROR;
		}
		touch(fresh(DPG), DPG, psz);
		T_CHECK(hwprof_session_read(s) >= 0, "read"); /* folded while loaded */
		if (c < 3)
			printf("cycle %d: libdlo.so at %p\n", c, di.dli_fbase);
		dlclose(lib);
		/* the next load goes elsewhere: this one's range stays taken */
		mmap(di.dli_fbase, 4 * psz, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	}
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_objects(s, 0, &objs, &n), 0);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(objs[i].path);

		if (l < 9 || strcmp(objs[i].path + l - 9, "libdlo.so"))
			continue;
		nlib++;
		for (size_t k = 0; k < objs[i].nbuckets; k++) {
			sum += objs[i].counts[k];
			if (objs[i].counts[k] > top)
				top = objs[i].counts[k];
		}
	}
	/* every store at one pc, whatever the address of the load; the
	 * rest is each load's text page faulting in at the first
	 * instruction (and, under ASan, its shadow pages) */
	T_EQ(nlib, 1);
	T_EQ(top, CYCLES * DPG);
	printf("libdlo.so: %llu samples at the store, %llu elsewhere in it\n",
	       (unsigned long long)top, (unsigned long long)(sum - top));
	hwprof_session_free(s);
	return t_done("dlopen-cycles");
}
#endif

static int nwarn_cost;

static void log_cb(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level == HWPROF_LOG_WARN && strstr(msg, "a sample costs")) {
		printf("logged: %s\n", msg);
		nwarn_cost++;
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Loop rounds a thread gets through in 2 ms of its CPU time, per ms. */
static double rounds_per_ms(void)
{
	uint64_t t0 = cpu_ns(), t, n = 0;
	volatile uint64_t x = 1;

	do {
		for (int i = 0; i < 100; i++)
			x = x * 6364136223846793005ull + 1;
		n++;
	} while ((t = cpu_ns()) - t0 < 2000000);
	return (double)n * 1e6 / (double)(t - t0);
}

/* The speed of a thread sampled by task-clock every period ns, as a
 * share of its speed unsampled, measured through a raw perf fd. */
static double raw_speed(uint64_t period)
{
	struct perf_event_attr a;
	double base, sampled;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	base = rounds_per_ms();
	if (rounds_per_ms() > base)
		base = rounds_per_ms();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sampled = rounds_per_ms();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	return sampled / base;
}

static int case_sample_cost(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_THREAD };
	struct hwprof_session *s;
	double speed;
	int r = t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock");

	if (r)
		return r;
	speed = raw_speed(10000);
	printf("raw probe: sampled every 10 us a thread runs at %.1f%% of its speed\n",
	       speed * 100);
	hwprof_set_log(log_cb, NULL, HWPROF_LOG_WARN);
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "task-clock", 10000, NULL), 0);
	for (int i = 0; i < 2; i++) {
		T_EQ(hwprof_session_start(s), 0);
		T_EQ(hwprof_session_stop(s), 0);
	}
	hwprof_session_free(s);
	hwprof_set_log(NULL, NULL, HWPROF_LOG_WARN);
	if (speed < 0.3)
		T_EQ(nwarn_cost, 1);
	else if (speed > 0.9)
		T_EQ(nwarn_cost, 0);
	else
		printf("between 30%% and 90%%: a warning may or may not come (%d)\n",
		       nwarn_cost);
	return t_done("sample-cost");
}

int main(int argc, char **argv)
{
	psz = (size_t)sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && !strcmp(argv[1], "fds"))
		return case_fds();
	if (argc == 2 && !strcmp(argv[1], "sample-cost"))
		return case_sample_cost();
#ifndef HOSTILE_STATIC
	if (argc == 2 && !strcmp(argv[1], "dlopen-cycles"))
		return case_dlopen_cycles(argv[0]);
#endif
	if (argc == 2 && !strcmp(argv[1], "static-threads"))
		return case_static_threads();
	if (argc == 2 && !strcmp(argv[1], "fork-loader"))
		return case_fork_loader();
	fprintf(stderr,
		"usage: test-hostile fds|fork-loader|static-threads|dlopen-cycles|sample-cost\n");
	return T_ERROR;
}
