/* SPDX-License-Identifier: MIT */
/*
 * The engine on the machines users have (no PMU, breakpoints that may not
 * fire, no root, many threads):
 *   self       N fresh pages give exactly N page-fault samples in the
 *              function that touched them and 0 anywhere else (an
 *              overflow bin catches every other pc): nothing of hwprof's
 *              making is sampled, thread and process mode, sprofil,
 *              PAPI_sprofil
 *   bp-off     with breakpoints that do not fire (forced by the test-only
 *              switch HWPROF_TEST_BP_BROKEN=1) every API refuses mem:...:x
 *              with the reason
 *   threads    as an unprivileged user (nobody, when run as root, with
 *              Debian's default limits) 1024 threads each faulting N
 *              pages: exactly 1024 x N samples, no thread missed, within
 *              the locked-memory budget; with HWPROF_TEST_NOFILE_HARD
 *              below the thread count, the threads left without an fd
 *              are counted missed and the rest is exact
 *   threads-parked
 *              the same with the threads made before the session starts:
 *              exact, none missed, no ring of a single page, one fd per
 *              thread and CPU where rings are shared per CPU
 *   tids       a process session's samples per thread (the internal
 *              hwp_tids_enable()): 8 threads made before it starts,
 *              thread i touching (i + 1) x 4 fresh pages, each counted
 *              exactly under its tid, the threads adding up to the samples
 *   paranoid   as nobody, an event asking for kernel samples is refused
 *              with perf_event_paranoid's value and the sysctl to change
 *   unlocked   the log callback and sinks run with no hwprof lock held:
 *              they may call back into the engine
 *   seccomp    a seccomp filter's EPERM is named, not blamed on
 *              perf_event_paranoid
 * usage: test-engine CASE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/profil.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/engine/internal.h"
#include "harness.h"
#include "tlib.h"

#define NPAGES 300

#if defined(__SANITIZE_THREAD__)
static const int tsan = 1;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
static const int tsan = 1;
#else
static const int tsan = 0;
#endif
#else
static const int tsan = 0;
#endif

static size_t psz;

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

/* Buckets over touch_pages (PAPI scale 0x20000: one 32-bit bucket a byte
 * of its first 1024 bytes) and an overflow bin for every other pc. */
static uint32_t fnbuf[1024], bin[1];

static struct hwprof_hist *hist_fn_bin(void)
{
	struct hwprof_region r[2] = {
		{ .base = fnbuf,
		  .size = sizeof(fnbuf),
		  .offset = (uint64_t)(uintptr_t)touch_pages,
		  .scale = 0x20000,
		  .width = 32 },
		{ .base = bin, .size = sizeof(bin), .offset = 0, .scale = 2, .width = 32 },
	};
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = r,
		.nregions = 2,
		.index = HWPROF_INDEX_PAPI,
	};
	struct hwprof_hist *h = NULL;

	memset(fnbuf, 0, sizeof(fnbuf));
	memset(bin, 0, sizeof(bin));
	T_EQ(hwprof_hist_new(&o, &h), 0);
	return h;
}

static uint64_t fn_sum(void)
{
	uint64_t n = 0;

	for (size_t i = 0; i < 1024; i++)
		n += fnbuf[i];
	return n;
}

static void self_session(unsigned int mode, const char *what)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = mode };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s = NULL;
	struct hwprof_hist *h = hist_fn_bin();
	char *p = fresh(NPAGES);

	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, h), 0);
	T_EQ(hwprof_session_start(s), 0);
	touch_pages(p, NPAGES, psz);
	T_EQ(hwprof_session_read(s) >= 0, 1); /* a read while running */
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	T_CHECK(fn_sum() == NPAGES, "%s: %llu samples in touch_pages, want %d", what,
		(unsigned long long)fn_sum(), NPAGES);
	if (tsan) {
		/* TSan's runtime faults in its shadow memory on behalf of the
		 * test's own instrumented code: those samples are the
		 * program's, so only the function's count is exact here */
		printf("%s: %u samples elsewhere (TSan's shadow faults)\n", what, bin[0]);
	} else {
		T_CHECK(bin[0] == 0, "%s: %u samples of hwprof's making (overflow bin)", what,
			bin[0]);
		T_EQ(st.samples, NPAGES);
	}
	T_EQ(st.missed, 0);
	hwprof_session_free(s);
	hwprof_hist_free(h);
	munmap(p, NPAGES * psz);
}

/* sprofil, process-wide, through HWPROF_EVENT/HWPROF_PERIOD */
static void self_sprofil(void)
{
	struct prof pr[2];
	struct timeval tv;
	char *p = fresh(NPAGES);
	uint16_t fn16[1024], bin16[1];

	memset(fn16, 0, sizeof(fn16));
	memset(bin16, 0, sizeof(bin16));
	setenv("HWPROF_EVENT", "page-faults", 1);
	setenv("HWPROF_PERIOD", "1", 1);
	/* sprofil: index ((pc - off) / 2 * scale) >> 16 for 16-bit buckets */
	pr[0] = (struct prof){ .pr_base = fn16,
			       .pr_size = sizeof(fn16),
			       .pr_off = (size_t)(uintptr_t)touch_pages,
			       .pr_scale = 0x10000 };
	pr[1] = (struct prof){ .pr_base = bin16,
			       .pr_size = sizeof(bin16),
			       .pr_off = 0,
			       .pr_scale = 2 };
	T_EQ(sprofil(pr, 2, &tv, 0), 0);
	touch_pages(p, NPAGES, psz);
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
	{
		uint64_t n = 0;

		for (size_t i = 0; i < 1024; i++)
			n += fn16[i];
		T_CHECK(n == NPAGES, "sprofil: %llu in touch_pages, want %d",
			(unsigned long long)n, NPAGES);
		T_CHECK(bin16[0] == 0 || tsan, "sprofil: %u samples of hwprof's making",
			bin16[0]);
	}
	munmap(p, NPAGES * psz);
}

static int case_self(void)
{
	int r = need_faults();

	if (r)
		return r;
	self_session(HWPROF_SESSION_THREAD, "thread mode");
	self_session(HWPROF_SESSION_PROCESS, "process mode");
	self_sprofil();
	return t_done("self");
}

/* ------------------------------------------------------------------ */

/* Runs child() in a forked process with stderr captured in buf. */
static int capture_stderr(int (*child)(void), char *buf, size_t len)
{
	int pfd[2], st;
	pid_t pid;
	ssize_t n, got = 0;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 2);
		close(pfd[0]);
		_exit(child());
	}
	close(pfd[1]);
	while (got < (ssize_t)len - 1 &&
	       (n = read(pfd[0], buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = 0;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int classic_bp(void)
{
	uint16_t buf[64];

	setenv("HWPROF_EVENT", "mem:fn_a:x", 1);
	setenv("HWPROF_PERIOD", "1", 1);
	errno = 0;
	if (profil(buf, sizeof(buf), (unsigned long)(uintptr_t)fn_a, 0x10000) != -1)
		return 2;
	return errno == EINVAL ? 0 : 3;
}

static int case_bp_off(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o) };
	struct hwprof_session *s = NULL;
	char why[256], err[1024];
	int r;

	/* the switch is read once, at the first breakpoint asked for */
	setenv("HWPROF_TEST_BP_BROKEN", "1", 1);
	T_EQ(hwp_event_bp_fires(), 0);
	T_EQ(hwprof_event_probe("mem:fn_a:x", why, sizeof(why)), -EOPNOTSUPP);
	T_CHECK(strstr(why, "execute breakpoints do not fire on this machine") != NULL,
		"probe said '%s'", why);
	snprintf(err, sizeof(err), "mem:%p:x", (void *)fn_a);
	T_EQ(hwprof_event_probe(err, why, sizeof(why)), -EOPNOTSUPP);
	/* an unknown symbol is still "no such event" */
	T_EQ(hwprof_event_probe("mem:no_such_fn_zz:x", why, sizeof(why)), -ENOENT);
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "mem:fn_a:x", 1, NULL), -EOPNOTSUPP);
	hwprof_session_free(s);
	/* the classic calls: EINVAL and one line on stderr */
	r = capture_stderr(classic_bp, err, sizeof(err));
	T_CHECK(r == 0, "profil with HWPROF_EVENT=mem:fn_a:x: child status %d", r);
	T_CHECK(strstr(err, "HWPROF_EVENT=mem:fn_a:x") &&
			strstr(err, "execute breakpoints do not fire on this machine") &&
			strchr(err, '\n') == err + strlen(err) - 1,
		"stderr: '%s'", err);
	return t_done("bp-off");
}

/* ------------------------------------------------------------------ */
/* Unprivileged                                                         */

#define NTHREADS 1024

#define TPAGES 4

static pthread_barrier_t bar;
static char *tpages;

static void *fault_worker(void *arg)
{
	size_t i = (size_t)(uintptr_t)arg;

	pthread_barrier_wait(&bar); /* every thread is covered */
	touch_pages(tpages + i * TPAGES * psz, TPAGES, psz);
	pthread_barrier_wait(&bar); /* all done: none exits early */
	return NULL;
}

/* Makes the NTHREADS fault workers (64 KiB stacks), waiting at bar:
 * NTHREADS, or T_ERROR after saying why (made: how many were). */
static int make_workers(pthread_t *t, int *made)
{
	pthread_attr_t pa;

	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, 64 * 1024);
	for (*made = 0; *made < NTHREADS; ++*made) {
		if (pthread_create(&t[*made], &pa, fault_worker, (void *)(uintptr_t)*made)) {
			printf("ERROR: pthread_create %d: %s\n", *made, strerror(errno));
			pthread_attr_destroy(&pa);
			return T_ERROR;
		}
	}
	pthread_attr_destroy(&pa);
	return NTHREADS;
}

static int case_threads(char **argv)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s = NULL;
	struct hwprof_hist *h;
	static pthread_t t[NTHREADS];
	struct rlimit nofile, memlock;
	int r = t_as_nobody(argv), made = 0, limited, base;

	if (r >= 0)
		return r;
	if ((r = need_faults()))
		return r;
	getrlimit(RLIMIT_NOFILE, &nofile);
	limited = nofile.rlim_max < NTHREADS + 64;
	getrlimit(RLIMIT_MEMLOCK, &memlock);
	printf("threads: uid %d, open files %llu/%llu, memlock %llu KiB, paranoid %d\n",
	       (int)geteuid(), (unsigned long long)nofile.rlim_cur,
	       (unsigned long long)nofile.rlim_max,
	       (unsigned long long)memlock.rlim_cur / 1024, hwp_sys_paranoid());
	tpages = fresh((size_t)NTHREADS * TPAGES);
	h = hist_fn_bin();
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, h), 0);
	base = t_count_tasks(); /* main, and a sanitizer's thread if any */
	T_EQ(hwprof_session_start(s), 0);
	pthread_barrier_init(&bar, NULL, NTHREADS + 1);
	if (make_workers(t, &made) != NTHREADS)
		return T_ERROR;
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	printf("threads: %u covered, %u missed, rings of %u pages, %llu samples, %llu lost, %llu in touch_pages\n",
	       st.threads, st.missed, st.ring_pages, (unsigned long long)st.samples,
	       (unsigned long long)st.lost, (unsigned long long)fn_sum());
	if (limited) {
		/* the hard limit on open files leaves no fd for some threads:
		 * each is counted, with the reason, and the profile holds
		 * exactly the others' samples */
		T_CHECK(st.missed > 0, "no thread missed under %llu open files",
			(unsigned long long)nofile.rlim_max);
		T_EQ(st.missed_err, -EMFILE);
		T_CHECK(st.threads + st.missed >= NTHREADS + (unsigned)base,
			"%u covered + %u missed", st.threads, st.missed);
		/* the fds run out late: every thread missed is a worker (the
		 * others, a sanitizer's included, came first), and every
		 * covered worker's pages are there */
		T_CHECK(fn_sum() == (uint64_t)(NTHREADS - st.missed) * TPAGES,
			"%llu samples in touch_pages, want %u covered workers x %d",
			(unsigned long long)fn_sum(), NTHREADS - st.missed, TPAGES);
	} else {
		T_EQ(st.missed, 0);
		T_CHECK(st.threads >= NTHREADS + (unsigned)base, "threads covered %u",
			st.threads);
		T_CHECK(fn_sum() == (uint64_t)NTHREADS * TPAGES,
			"%llu samples in touch_pages, want %d", (unsigned long long)fn_sum(),
			NTHREADS * TPAGES);
	}
	/* creating 1024 threads faults in bursts that one-page rings may not
	 * hold while the drain thread waits for a CPU: those are counted */
	T_CHECK(st.lost < st.samples, "lost %llu", (unsigned long long)st.lost);
	hwprof_session_free(s);
	hwprof_hist_free(h);
	return t_done("threads");
}

/*
 * threads-parked: 1024 threads made before the session starts (the scan
 * attaches them, several at once), then each faults TPAGES pages: exactly
 * 1024 x TPAGES samples, none missed, and no ring of a single page. Where
 * rings are shared per CPU (up to 8 CPUs, HWPROF_RINGS unset), the fds
 * are one per thread and CPU plus one per CPU for the rings.
 */
static int case_parked(char **argv)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s = NULL;
	struct hwprof_hist *h;
	static pthread_t t[NTHREADS];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	const char *layout = getenv("HWPROF_RINGS");
	int r = t_as_nobody(argv), made = 0, fds;

	if (r >= 0)
		return r;
	if ((r = need_faults()))
		return r;
	tpages = fresh((size_t)NTHREADS * TPAGES);
	h = hist_fn_bin();
	pthread_barrier_init(&bar, NULL, NTHREADS + 1);
	if (make_workers(t, &made) != NTHREADS)
		return T_ERROR;
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, h), 0);
	T_EQ(hwprof_session_start(s), 0);
	fds = t_count_perf_fds();
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	printf("parked: %u threads covered, %u missed, %d perf fds on %ld CPUs, rings of %u pages, %llu samples, %llu lost, %llu in touch_pages\n",
	       st.threads, st.missed, fds, ncpu, st.ring_pages, (unsigned long long)st.samples,
	       (unsigned long long)st.lost, (unsigned long long)fn_sum());
	T_EQ(st.missed, 0);
	T_CHECK(st.threads >= NTHREADS + 1, "threads covered %u", st.threads);
	T_CHECK(fn_sum() == (uint64_t)NTHREADS * TPAGES,
		"%llu samples in touch_pages, want %d", (unsigned long long)fn_sum(),
		NTHREADS * TPAGES);
	T_EQ(st.lost, 0);
	if (!layout && ncpu <= 8) {
		T_CHECK(st.ring_pages > 1, "rings of %u pages", st.ring_pages);
		T_CHECK(fds == (int)(st.threads * ncpu + ncpu), "%d perf fds for %u threads",
			fds, st.threads);
	}
	hwprof_session_free(s);
	hwprof_hist_free(h);
	return t_done("threads-parked");
}

/* ------------------------------------------------------------------ */
/* Samples per thread (hwp_tids_enable(), libhwprof-mpi's)      */

#define TIDS_N 8

static pid_t ttid[TIDS_N];
static char *tidpages;

/* The stack a worker will use, touched before the session starts. */
static __attribute__((noinline)) void warm_stack(void)
{
	volatile char buf[16 * 1024];

	for (size_t i = 0; i < sizeof(buf); i += 256)
		buf[i] = 0;
}

/* Worker i touches (i + 1) x TPAGES fresh pages once the session runs. */
static void *tids_worker(void *arg)
{
	size_t i = (size_t)(uintptr_t)arg, at = TPAGES * i * (i + 1) / 2;

	warm_stack();
	ttid[i] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&bar); /* made */
	pthread_barrier_wait(&bar); /* the session runs */
	touch_pages(tidpages + at * psz, (i + 1) * TPAGES, psz);
	pthread_barrier_wait(&bar); /* all done */
	pthread_barrier_wait(&bar); /* the session stopped: the
				     * thread's exit is not counted */
	return NULL;
}

static int case_tids(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s = NULL, *plain = NULL;
	struct hwp_tid_count *v = NULL;
	pthread_t t[TIDS_N];
	size_t n = 0;
	uint64_t untold = 1, sum = 0;
	int r;

	if ((r = need_faults()))
		return r;
	tidpages = fresh((size_t)TPAGES * TIDS_N * (TIDS_N + 1) / 2);
	pthread_barrier_init(&bar, NULL, TIDS_N + 1);
	for (int i = 0; i < TIDS_N; i++)
		if (pthread_create(&t[i], NULL, tids_worker, (void *)(uintptr_t)i))
			return T_ERROR;
	pthread_barrier_wait(&bar);
	/* asked for before an event, not after; not at all: -ENOENT */
	T_EQ(hwprof_session_new(&o, &plain), 0);
	T_EQ(hwprof_session_add(plain, "page-faults", 1, NULL), 0);
	T_EQ(hwp_tids_enable(plain), -EINVAL);
	T_EQ(hwp_tids_of(plain, 0, &v, &n, NULL), -ENOENT);
	hwprof_session_free(plain);
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwp_tids_enable(s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, NULL), 0);
	T_EQ(hwprof_session_start(s), 0);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	T_EQ(hwprof_session_stop(s), 0);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < TIDS_N; i++)
		pthread_join(t[i], NULL);
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	T_EQ(hwp_tids_of(s, 1, &v, &n, &untold), -EINVAL);
	T_EQ(hwp_tids_of(s, 0, &v, &n, &untold), 0);
	T_EQ(untold, 0);
	for (size_t k = 0; k < n; k++)
		sum += v[k].samples;
	/* every sample read is some thread's */
	T_CHECK(sum == st.samples, "%llu samples over the threads, %llu read",
		(unsigned long long)sum, (unsigned long long)st.samples);
	for (int i = 0; i < TIDS_N; i++) {
		uint64_t got = 0;

		for (size_t k = 0; k < n; k++)
			if (v[k].tid == ttid[i])
				got = v[k].samples;
		T_CHECK(got == (uint64_t)(i + 1) * TPAGES,
			"thread %d (tid %d): %llu samples, want %d", i, (int)ttid[i],
			(unsigned long long)got, (i + 1) * TPAGES);
	}
	printf("tids: %zu threads with samples, %llu samples\n", n, (unsigned long long)sum);
	free(v);
	hwprof_session_free(s);
	return t_done("tids");
}

static int case_paranoid(char **argv)
{
	struct hwprof_session_opts o = { .sz = sizeof(o) };
	struct hwprof_session *s = NULL;
	char why[512], want[64];
	int r = t_as_nobody(argv), par = hwp_sys_paranoid();

	if (r >= 0)
		return r;
	if (geteuid() == 0) {
		printf("SKIP: root is not subject to perf_event_paranoid\n");
		return T_SKIP;
	}
	if (par < 2) {
		printf("SKIP: perf_event_paranoid is %d: kernel samples are allowed\n", par);
		return T_SKIP;
	}
	/* kernel samples (:k, a libpfm4 modifier) need paranoid 1 or lower */
	r = hwprof_event_probe("perf::TASK-CLOCK:k", why, sizeof(why));
	printf("paranoid: %s\n", why);
	T_EQ(r, -EACCES);
	snprintf(want, sizeof(want), "perf_event_paranoid forbids it (value %d;", par);
	T_CHECK(strstr(why, want) && strstr(why, "sysctl kernel.perf_event_paranoid=1"),
		"said '%s'", why);
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "perf::TASK-CLOCK:k", 0, NULL), 0);
	T_EQ(hwprof_session_start(s), -EACCES);
	hwprof_session_free(s);
	/* user-space samples stay allowed */
	T_EQ(hwprof_event_probe("task-clock", why, sizeof(why)), 0);
	return t_done("paranoid");
}

/* A seccomp filter that refuses perf_event_open with EPERM (Docker's
 * default profile does) is named as such, not blamed on
 * perf_event_paranoid, whose value allows the event. */
static int seccomp_child(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	char why[512];
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 2;
	r = hwprof_event_probe("task-clock", why, sizeof(why));
	printf("seccomp: %d: %s\n", r, why);
	if (r != -EACCES)
		return 3;
	if (!strstr(why, "seccomp filter") || strstr(why, "perf_event_paranoid forbids"))
		return 4;
	return 0;
}

static int case_seccomp(void)
{
	int r = t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock"), st;
	pid_t pid;

	if (r)
		return r;
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(seccomp_child());
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return T_ERROR;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
		printf("SKIP: a seccomp filter cannot be installed here\n");
		return T_SKIP;
	}
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	return t_done("seccomp");
}

/* ------------------------------------------------------------------ */

static struct hwprof_session *cb_session;
static int cb_calls, cb_stats_ok;

static void log_cb(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	cb_calls++;
	/* takes the engine's lock: a deadlock if called under it */
	if (cb_session && hwprof_session_read(cb_session) >= 0)
		cb_stats_ok++;
	printf("log: %s\n", msg);
}

static size_t sink_calls;

static size_t sink(void *arg, const uint64_t *ips, size_t n)
{
	struct hwprof_session_stats st = { .sz = sizeof(st) };

	(void)ips;
	sink_calls++;
	T_EQ(hwprof_session_stats(arg, 0, &st), 0); /* the lock is free */
	return n;
}

static void on_alarm(int sig)
{
	(void)sig;
	printf("FAIL: deadlock: a callback ran under hwprof's lock\n");
	_exit(T_FAIL);
}

static int case_unlocked(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o) };
	struct hwprof_session *s = NULL;
	char *p;
	int r = need_faults();

	if (r)
		return r;
	signal(SIGALRM, on_alarm);
	alarm(20);
	/* a log message raised while the lock is held: a 5 us clock period
	 * is logged at add; a failing attach is logged at start */
	hwprof_set_log(log_cb, NULL, HWPROF_LOG_DEBUG);
	T_EQ(hwprof_session_new(&o, &s), 0);
	cb_session = s;
	T_EQ(hwprof_session_add(s, "task-clock", 5000, NULL), 0);
	if (hwprof_event_probe("cycles", NULL, 0)) {
		T_EQ(hwprof_session_add(s, "cycles", 100000, NULL), 1);
		T_CHECK(hwprof_session_start(s) < 0, "cycles started without a PMU");
	}
	T_CHECK(cb_calls >= 1 && cb_stats_ok == cb_calls,
		"log callback: %d calls, %d could read", cb_calls, cb_stats_ok);
	cb_session = NULL;
	hwprof_session_free(s);
	hwprof_set_log(NULL, NULL, 0);

	/* a sink that reads its own session's statistics */
	s = NULL;
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwp_session_add(s, "page-faults", 1, NULL, sink, s), 0);
	p = fresh(64);
	T_EQ(hwprof_session_start(s), 0);
	touch_pages(p, 64, psz);
	T_EQ(hwprof_session_stop(s), 0);
	T_CHECK(sink_calls >= 1, "sink never called");
	hwprof_session_free(s);
	alarm(0);
	return t_done("unlocked");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	psz = (size_t)sysconf(_SC_PAGESIZE);
	if (argc < 2)
		return T_ERROR;
	if (!strcmp(argv[1], "self"))
		return case_self();
	if (!strcmp(argv[1], "bp-off"))
		return case_bp_off();
	if (!strcmp(argv[1], "threads"))
		return case_threads(argv);
	if (!strcmp(argv[1], "threads-parked"))
		return case_parked(argv);
	if (!strcmp(argv[1], "tids"))
		return case_tids();
	if (!strcmp(argv[1], "paranoid"))
		return case_paranoid(argv);
	if (!strcmp(argv[1], "unlocked"))
		return case_unlocked();
	if (!strcmp(argv[1], "seccomp"))
		return case_seccomp();
	return T_ERROR;
}
