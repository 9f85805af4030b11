/* SPDX-License-Identifier: MIT */
/*
 * The sampling engine end to end, on events a PMU-less machine has: page
 * faults (exact: one per fresh page, at the storing instruction; every
 * exact case runs on them), execute breakpoints where they fire (exact:
 * one sample per execution, at the function's first byte) and task-clock.
 * usage: test-session CASE   (one case per meson test; see tests/meson.build)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hwprof.h"
#include "harness.h"
#include "tlib.h"

#define N   2000 /* breakpoint hits per case */
#define NPF 2100 /* page faults per case: a multiple of 7 and 100 */

/* One 32-bit bucket per byte from the function's address (PAPI 0x20000). */
static uint32_t fbuf[64];

static struct hwprof_hist *hist_at(void *fn, uint32_t *buf, size_t n)
{
	struct hwprof_region r = {
		.base = buf,
		.size = n * sizeof(*buf),
		.offset = (uint64_t)(uintptr_t)fn,
		.scale = 0x20000,
		.width = 32,
	};
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = &r,
		.nregions = 1,
		.index = HWPROF_INDEX_PAPI,
	};
	struct hwprof_hist *h = NULL;

	memset(buf, 0, n * sizeof(*buf));
	T_EQ(hwprof_hist_new(&o, &h), 0);
	return h;
}

static struct hwprof_session *session(unsigned int mode, const char *ev, uint64_t thr,
				      struct hwprof_hist *h)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = mode };
	struct hwprof_session *s = NULL;

	T_EQ(hwprof_session_new(&o, &s), 0);
	if (s)
		T_EQ(hwprof_session_add(s, ev, thr, h), 0);
	return s;
}

static struct hwprof_session_stats sstats(struct hwprof_session *s)
{
	struct hwprof_session_stats st = { .sz = sizeof(st) };

	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	return st;
}

static int need_bp(void)
{
	return t_require_bp();
}

/* Page faults: the probe, touch_a's store as an offset into fbuf's 64
 * one-byte buckets, and this thread's stack faulted in. */
static uint64_t off_a;

static int need_pf(void)
{
	int r = t_require_pf();

	if (r)
		return r;
	off_a = t_store_pc(touch_a) - (uint64_t)(uintptr_t)touch_a;
	if (off_a >= 64) {
		printf("ERROR: touch_a's store at +%llu, past the 64 buckets\n",
		       (unsigned long long)off_a);
		return T_ERROR;
	}
	t_prefault_stack();
	return T_PASS;
}

/* Buckets other than touch_a's store hold nothing. */
static void only_store(const char *what)
{
	for (int b = 0; b < 64; b++)
		if ((uint64_t)b != off_a)
			T_CHECK(fbuf[b] == 0, "%s: bucket %d = %u", what, b, fbuf[b]);
}

/* One start/stop with nothing to count, so that what hwprof touches the
 * first time (its drain thread's stack, its allocations) is in place
 * before a count that must be exact: the program's pages are faulted in
 * ahead of time as well. */
static void warm_up(unsigned int mode)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = mode };
	struct hwprof_session *s = NULL;

	if (hwprof_session_new(&o, &s) == 0 &&
	    hwprof_session_add(s, "page-faults", 1, NULL) >= 0 && hwprof_session_start(s) == 0)
		hwprof_session_stop(s);
	hwprof_session_free(s);
}

/* ------------------------------------------------------------------ */

/* Breakpoints, where they fire: threshold 1 gives exactly N samples, all
 * at the function's first byte; threshold k floor(N / k); named by symbol
 * and by hex address. */
static int case_bp_exact(void)
{
	static const uint64_t ks[] = { 1, 7, 100 };
	char name[64];
	int r = need_bp();

	if (r)
		return r;

	for (int by_addr = 0; by_addr < 2; by_addr++) {
		for (size_t i = 0; i < 3; i++) {
			struct hwprof_hist *h = hist_at(fn_a, fbuf, 64);
			struct hwprof_session *s;
			struct hwprof_session_stats st;

			if (by_addr)
				snprintf(name, sizeof(name), "mem:%p:x", (void *)fn_a);
			else
				snprintf(name, sizeof(name), "mem:fn_a:x");
			s = session(HWPROF_SESSION_THREAD, name, ks[i], h);
			T_EQ(hwprof_session_start(s), 0);
			call_n(fn_a, N);
			call_n(fn_b, N); /* not watched */
			T_EQ(hwprof_session_stop(s), 0);
			st = sstats(s);
			T_CHECK(fbuf[0] == N / ks[i], "%s k=%llu: bucket 0 = %u, want %llu",
				name, (unsigned long long)ks[i], fbuf[0],
				(unsigned long long)(N / ks[i]));
			for (int b = 1; b < 64; b++)
				T_CHECK(fbuf[b] == 0, "%s: bucket %d = %u", name, b, fbuf[b]);
			T_EQ(st.samples, N / ks[i]);
			T_EQ(st.folded, N / ks[i]);
			T_EQ(st.lost, 0);
			T_EQ(st.outside, 0);
			T_EQ(st.period, ks[i]);
			T_EQ(st.threads, 1);
			hwprof_session_free(s);
			hwprof_hist_free(h);
		}
	}
	return t_done("bp-exact");
}

/* Page faults, threshold 1, 7 and 100: touch_a on N fresh pages, then
 * touch_b on N more. Samples fall on the k-th, 2k-th, ... fault after the
 * enable, so a run of N faults (N a multiple of k) holds exactly N / k of
 * them wherever it starts, and all land on the storing instruction. A raw
 * counter checks that the loops faulted 2N times, nothing else. */
static int case_pf_exact(void)
{
	static const uint64_t ks[] = { 1, 7, 100 };
	struct t_pages pool;
	uint64_t off_b;
	int r = need_pf(), loop, win;

	if (r || (r = t_pages_new(&pool, 2 * NPF)))
		return r;
	off_b = t_store_pc(touch_b) - (uint64_t)(uintptr_t)touch_a; /* maybe >= 64 */
	loop = t_faults_open();
	win = t_faults_open();
	if (loop < 0 || win < 0)
		return T_ERROR;
	printf("touch_a stores at +%llu, touch_b at +%lld from touch_a\n",
	       (unsigned long long)off_a, (long long)off_b);
	warm_up(HWPROF_SESSION_THREAD);
	for (size_t i = 0; i < 3; i++) {
		struct hwprof_hist *h = hist_at(touch_a, fbuf, 64);
		uint64_t want = NPF / ks[i], in_b = off_b < 64 ? want : 0;
		struct hwprof_session_stats st;
		struct hwprof_session *s;
		long long nloop, nwin, extra;

		t_pages_zap(&pool);
		s = session(HWPROF_SESSION_THREAD, "page-faults", ks[i], h);
		t_faults_start(win);
		T_EQ(hwprof_session_start(s), 0);
		t_faults_start(loop);
		t_touch_n(touch_a, &pool, NPF);
		t_touch_n(touch_b, &pool, NPF);
		nloop = t_faults_stop(loop);
		T_EQ(hwprof_session_stop(s), 0);
		nwin = t_faults_stop(win);
		st = sstats(s);
		printf("k=%llu: %u at touch_a's store, %llu samples, %llu outside, %lld faults from start to stop\n",
		       (unsigned long long)ks[i], fbuf[off_a], (unsigned long long)st.samples,
		       (unsigned long long)st.outside, nwin);
		/* the test itself made no other fault (a sanitizer's runtime
		 * may have, elsewhere: each moves at most one sample) */
		T_FAULTS(nloop, 2 * NPF);
		extra = T_EXTRA(nloop, 2 * NPF);
		T_NEAR(fbuf[off_a], want, extra, "k=%llu: touch_a's store",
		       (unsigned long long)ks[i]);
		for (int b = 0; b < 64; b++)
			if ((uint64_t)b != off_a && (uint64_t)b != off_b)
				T_CHECK(fbuf[b] == 0, "k=%llu: bucket %d = %u",
					(unsigned long long)ks[i], b, fbuf[b]);
		if (off_b < 64)
			T_NEAR(fbuf[off_b], want, extra, "k=%llu: touch_b's store",
			       (unsigned long long)ks[i]);
		T_NEAR(st.folded, want + in_b, 2 * extra, "k=%llu: folded",
		       (unsigned long long)ks[i]);
		T_EQ(st.samples, st.folded + st.outside);
		T_CHECK(st.samples >= 2 * want && st.samples <= (uint64_t)nwin / ks[i],
			"k=%llu: %llu samples of %lld faults", (unsigned long long)ks[i],
			(unsigned long long)st.samples, nwin);
		T_EQ(st.lost, 0);
		T_EQ(st.period, ks[i]);
		T_EQ(st.threads, 1);
		hwprof_session_free(s);
		hwprof_hist_free(h);
	}
	close(loop);
	close(win);
	t_pages_free(&pool);
	return t_done("pf-exact");
}

static uint64_t count_in(const struct hwprof_object *o, size_t n, uint64_t lo, uint64_t hi)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (lo < o[i].start || lo >= o[i].end)
			continue;
		for (uint64_t a = lo; a < hi && a < o[i].end; a += HWPROF_OBJECT_BYTES)
			sum += o[i].counts[(a - o[i].start) / HWPROF_OBJECT_BYTES];
	}
	return sum;
}

static int case_task_clock(void)
{
	const struct hwprof_object *objs;
	struct hwprof_session_stats st;
	struct hwprof_session *s;
	uint64_t hot, total = 0, sink;
	size_t n = 0;
	int r = t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock");

	if (r)
		return r;
	s = session(HWPROF_SESSION_THREAD, "task-clock", 100000, NULL);
	T_EQ(hwprof_session_start(s), 0);
	sink = spin_hot(200000000) + spin_cold(200000000);
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_objects(s, 0, &objs, &n), 0);
	T_CHECK(n >= 2, "objects %zu", n);
	/* spin_hot's body: 256 bytes is generous for the loop */
	hot = count_in(objs, n, (uint64_t)(uintptr_t)spin_hot,
		       (uint64_t)(uintptr_t)spin_hot + 256);
	for (size_t i = 0; i < n; i++)
		for (size_t b = 0; b < objs[i].nbuckets; b++)
			total += objs[i].counts[b];
	st = sstats(s);
	printf("task-clock: %llu samples, %llu in spin_hot, %llu folded, %llu outside (sink %llu)\n",
	       (unsigned long long)st.samples, (unsigned long long)hot,
	       (unsigned long long)st.folded, (unsigned long long)st.outside,
	       (unsigned long long)(sink & 1));
	T_CHECK(st.samples > 50, "too few samples: %llu", (unsigned long long)st.samples);
	T_CHECK(hot * 10 > total * 8, "spin_hot has %llu of %llu", (unsigned long long)hot,
		(unsigned long long)total);
	T_EQ(total, st.folded);
	hwprof_session_free(s);
	return t_done("task-clock");
}

/* ------------------------------------------------------------------ */
/* Threads                                                              */

static pthread_barrier_t go;

/* Each thread touches NT fresh pages of its own pool. */
#define NT 1000

static void *worker_before(void *arg)
{
	pthread_barrier_wait(&go); /* the session has started */
	t_touch_n(touch_a, arg, NT);
	pthread_barrier_wait(&go); /* done */
	return NULL;
}

static void *worker(void *arg)
{
	t_touch_n(touch_a, arg, NT);
	return NULL;
}

/* Process-wide: threads that exist at start and threads created after it,
 * including one created by a thread that existed before. */
static void *creator(void *arg)
{
	pthread_t t;

	pthread_barrier_wait(&go);
	pthread_create(&t, NULL, worker, arg);
	pthread_join(t, NULL);
	pthread_barrier_wait(&go);
	return NULL;
}

static int case_process(void)
{
	struct hwprof_session_stats st;
	struct hwprof_session *s;
	struct hwprof_hist *h;
	struct t_pages pool[6];
	pthread_t b1, b2, c, a1, a2;
	int r = need_pf(), ntask;

	if (r)
		return r;
	for (int i = 0; i < 6; i++)
		if ((r = t_pages_new(&pool[i], NT)))
			return r;
	h = hist_at(touch_a, fbuf, 64);
	s = session(HWPROF_SESSION_PROCESS, "page-faults", 1, h);
	pthread_barrier_init(&go, NULL, 4);
	pthread_create(&b1, NULL, worker_before, &pool[0]);
	pthread_create(&b2, NULL, worker_before, &pool[1]);
	pthread_create(&c, NULL, creator, &pool[2]);
	ntask = t_count_tasks(); /* a sanitizer may have threads too */
	T_EQ(hwprof_session_start(s), 0);
	pthread_barrier_wait(&go);
	t_touch_n(touch_a, &pool[3], NT);	     /* main */
	pthread_create(&a1, NULL, worker, &pool[4]); /* after start */
	pthread_create(&a2, NULL, worker, &pool[5]);
	pthread_join(a1, NULL);
	pthread_join(a2, NULL);
	pthread_barrier_wait(&go);
	T_EQ(hwprof_session_stop(s), 0);
	pthread_join(b1, NULL);
	pthread_join(b2, NULL);
	pthread_join(c, NULL);
	st = sstats(s);
	/* main, b1, b2, a1, a2 and c's worker: 6 threads touched NT each */
	T_CHECK(fbuf[off_a] == 6 * NT, "touch_a's store = %u, want %d", fbuf[off_a], 6 * NT);
	only_store("process");
	T_EQ(st.folded, 6 * NT);
	T_CHECK(st.samples >= 6 * NT, "samples %llu", (unsigned long long)st.samples);
	/* those at start and the 3 made after, never the drain thread */
	T_CHECK(st.threads == (uint32_t)ntask + 3, "threads %u, want %d", st.threads,
		ntask + 3);
	hwprof_session_free(s);
	hwprof_hist_free(h);
	pthread_barrier_destroy(&go);
	for (int i = 0; i < 6; i++)
		t_pages_free(&pool[i]);
	return t_done("process");
}

/* Per-thread: another thread's faults are not counted. */
static int case_thread(void)
{
	struct hwprof_session *s;
	struct hwprof_hist *h;
	struct t_pages mine, other;
	pthread_t t;
	int r = need_pf();

	if (r || (r = t_pages_new(&mine, NT)) || (r = t_pages_new(&other, NT)))
		return r;
	h = hist_at(touch_a, fbuf, 64);
	s = session(HWPROF_SESSION_THREAD, "page-faults", 1, h);
	T_EQ(hwprof_session_start(s), 0);
	pthread_create(&t, NULL, worker, &other);
	pthread_join(t, NULL);
	t_touch_n(touch_a, &mine, NT / 2);
	T_EQ(hwprof_session_stop(s), 0);
	T_CHECK(fbuf[off_a] == NT / 2, "touch_a's store = %u, want %d", fbuf[off_a], NT / 2);
	only_store("thread");
	T_EQ(sstats(s).folded, NT / 2);
	T_EQ(sstats(s).threads, 1);
	hwprof_session_free(s);
	hwprof_hist_free(h);
	t_pages_free(&mine);
	t_pages_free(&other);
	return t_done("thread");
}

/* fork: the child profiles on into its own copy; the parent's buckets hold
 * only the parent's faults. Each process goes on through its own copy of
 * the pool: pages touched before the fork are never written again. */
static int case_fork(void)
{
	struct hwprof_session *s;
	struct hwprof_hist *h;
	struct t_pages pool;
	int status = 0, r = need_pf();
	pid_t pid;

	if (r)
		return r;
#ifdef __SANITIZE_THREAD__
	printf("SKIP: fork: TSan cannot track a thread made in a forked child (\"dup thread with used id\"); checked in the other builds\n");
	return T_SKIP;
#endif
	if ((r = t_pages_new(&pool, 500)))
		return r;
	for (unsigned int mode = 0; mode < 2; mode++) {
		t_pages_zap(&pool);
		h = hist_at(touch_a, fbuf, 64);
		s = session(mode, "page-faults", 1, h);
		T_EQ(hwprof_session_start(s), 0);
		t_touch_n(touch_a, &pool, 100);
		pid = fork();
		if (pid == 0) {
			t_touch_n(touch_a, &pool, 300);
			hwprof_session_stop(s);
			/* 100 before the fork (copied) + 300 of its own */
			_exit(fbuf[off_a] == 400 && sstats(s).threads == 1 ? 0 : 10);
		}
		t_touch_n(touch_a, &pool, 50);
		waitpid(pid, &status, 0);
		t_touch_n(touch_a, &pool, 50);
		T_EQ(hwprof_session_stop(s), 0);
		T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"mode %u: child status %#x", mode, status);
		T_CHECK(fbuf[off_a] == 200, "mode %u: parent's touch_a store = %u, want 200",
			mode, fbuf[off_a]);
		only_store("fork");
		hwprof_session_free(s);
		hwprof_hist_free(h);
	}
	t_pages_free(&pool);
	return t_done("fork");
}

static int case_exec(const char *self)
{
	struct hwprof_session *s;
	int status = 0,
	    r = t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	pid_t pid;

	if (r)
		return r;
	s = session(HWPROF_SESSION_PROCESS, "task-clock", 0, NULL);
	T_EQ(hwprof_session_start(s), 0);
	T_CHECK(t_count_perf_fds() >= 1, "no perf fd while running");
	pid = fork();
	if (pid == 0) {
		execl(self, self, "count-fds", (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "after exec: %d perf fds",
		WEXITSTATUS(status));
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(t_count_perf_fds(), 0); /* stop released them all */
	hwprof_session_free(s);
	return t_done("exec");
}

/* A one-page ring that is not drained until stop: the kernel drops what
 * does not fit and says so; samples + lost is every fault of the session
 * (5N of touch_a, and at most the few more a raw counter saw from start to
 * stop) and the histogram holds exactly the samples that were read. */
static int case_lost(void)
{
	struct hwprof_session_opts o = {
		.sz = sizeof(o),
		.mode = HWPROF_SESSION_THREAD,
		.ring_pages = 1,
		.drain_ms = 60000,
		.flags = HWPROF_SESSION_NO_WAKEUP,
	};
	struct hwprof_session_stats st;
	struct hwprof_session *s = NULL;
	struct hwprof_hist *h;
	struct t_pages pool;
	long long nwin;
	int r = need_pf(), win;

	if (r || (r = t_pages_new(&pool, 5 * N)))
		return r;
	if ((win = t_faults_open()) < 0)
		return T_ERROR;
	warm_up(HWPROF_SESSION_THREAD);
	h = hist_at(touch_a, fbuf, 64);
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, h), 0);
	t_faults_start(win);
	T_EQ(hwprof_session_start(s), 0);
	t_touch_n(touch_a, &pool, 5 * N);
	T_EQ(hwprof_session_stop(s), 0);
	nwin = t_faults_stop(win);
	st = sstats(s);
	printf("lost: %llu samples, %llu lost, %lld faults from start to stop\n",
	       (unsigned long long)st.samples, (unsigned long long)st.lost, nwin);
	T_CHECK(st.lost > 0, "nothing lost from a one-page ring");
	T_CHECK(st.samples + st.lost >= 5 * N &&
			st.samples + st.lost <= (unsigned long long)nwin,
		"samples + lost = %llu, want 5N = %d (%lld faults from start to stop)",
		(unsigned long long)(st.samples + st.lost), 5 * N, nwin);
	T_EQ(fbuf[off_a] + st.outside, st.samples);
	T_EQ(st.folded, fbuf[off_a]);
	only_store("lost");
	hwprof_session_free(s);
	hwprof_hist_free(h);
	close(win);
	t_pages_free(&pool);
	return t_done("lost");
}

/* What the library printed on stderr while fn(arg) ran, into buf. */
static char said[1024];

static int stderr_of(int (*fn)(const char *, const char *), const char *a, const char *b)
{
	FILE *t = tmpfile();
	int saved = dup(STDERR_FILENO), ret;
	size_t n = 0;

	fflush(stderr);
	if (t)
		dup2(fileno(t), STDERR_FILENO);
	ret = fn(a, b);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	said[0] = 0;
	if (t) {
		rewind(t);
		n = fread(said, 1, sizeof(said) - 1, t);
		said[n] = 0;
		fclose(t);
	}
	return ret;
}

/* HWPROF_MMAP_PAGES sizes the rings of a session that leaves ring_pages
 * 0 (the classic and PAPI calls); a value that is not a power of two from
 * 1 to 65536 fails hwprof_session_new() with EINVAL after one line on
 * stderr (hwprof(7)). The ring pages, or -errno. */
static int pages_with(const char *env, const char *unused)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_THREAD };
	struct hwprof_session *s = NULL;
	struct hwprof_hist *h = hist_at(touch_a, fbuf, 64);
	int pages = -1, ret;

	(void)unused;
	if (env)
		setenv("HWPROF_MMAP_PAGES", env, 1);
	else
		unsetenv("HWPROF_MMAP_PAGES");
	ret = hwprof_session_new(&o, &s);
	if (ret) {
		hwprof_hist_free(h);
		return ret;
	}
	if (!hwprof_session_add(s, "page-faults", 1, h) && !hwprof_session_start(s)) {
		pages = (int)sstats(s).ring_pages;
		hwprof_session_stop(s);
	}
	hwprof_session_free(s);
	hwprof_hist_free(h);
	return pages;
}

static int case_mmap_pages(void)
{
	int r = need_pf();

	if (r)
		return r;
	T_EQ(pages_with(NULL, NULL), 16);
	T_EQ(pages_with("4", NULL), 4);
	T_EQ(pages_with("64", NULL), 64);
	T_EQ(stderr_of(pages_with, "3", NULL), -EINVAL);
	T_CHECK(!strcmp(said,
			"hwprof: HWPROF_MMAP_PAGES=3: not a power of two from 1 to 65536\n"),
		"stderr: %s", said);
	T_EQ(stderr_of(pages_with, "3", NULL), -EINVAL);
	T_CHECK(!said[0], "said twice: %s", said);
	T_EQ(pages_with("0", NULL), -EINVAL);
	T_EQ(pages_with("131072", NULL), -EINVAL);
	T_EQ(pages_with("8x", NULL), -EINVAL);
	T_EQ(pages_with("-8", NULL), -EINVAL);
	unsetenv("HWPROF_MMAP_PAGES");
	return t_done("mmap-pages");
}

/* The ring size of a process-wide session with HWPROF_RINGS set to env
 * (NULL: unset), and HWPROF_MMAP_PAGES to pages (NULL: unset). */
static int rings_with(const char *env, const char *pages)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	struct hwprof_session *s = NULL;
	struct hwprof_hist *h = hist_at(touch_a, fbuf, 64);
	int got = -1, ret;

	if (env)
		setenv("HWPROF_RINGS", env, 1);
	else
		unsetenv("HWPROF_RINGS");
	if (pages)
		setenv("HWPROF_MMAP_PAGES", pages, 1);
	else
		unsetenv("HWPROF_MMAP_PAGES");
	ret = hwprof_session_new(&o, &s);
	if (ret) {
		hwprof_hist_free(h);
		return ret;
	}
	if (!hwprof_session_add(s, "page-faults", 1, h) && !hwprof_session_start(s)) {
		got = (int)sstats(s).ring_pages;
		hwprof_session_stop(s);
	}
	hwprof_session_free(s);
	hwprof_hist_free(h);
	return got;
}

static void capture(int level, const char *msg, void *arg);
static char logged[1024];

/* HWPROF_RINGS (hwprof(7)): thread rings of 16 pages (fewer for an
 * unprivileged user, fitted to the budget), shared per-CPU rings of 256
 * (or HWPROF_MMAP_PAGES), auto: shared up to 8 CPUs; another value fails
 * hwprof_session_new() with EINVAL after one line on stderr and the log. */
static int case_rings(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct rlimit nf;
	int shared, r = need_pf(), thr;

	if (r)
		return r;
	getrlimit(RLIMIT_NOFILE, &nf);
	shared = ncpu <= 8 &&
		 (nf.rlim_max == RLIM_INFINITY || nf.rlim_max >= (rlim_t)ncpu * 1024 + 64);
	thr = rings_with("thread", NULL);
	T_CHECK(thr >= 1 && thr <= 16, "thread rings of %d pages", thr);
	if (geteuid() == 0)
		T_EQ(thr, 16);
	T_EQ(rings_with("cpu", NULL), 256);
	T_EQ(rings_with("cpu", "8"), 8);
	T_EQ(rings_with(NULL, NULL), shared ? 256 : thr);
	T_EQ(rings_with("auto", NULL), shared ? 256 : thr);
	hwprof_set_log(capture, NULL, HWPROF_LOG_WARN);
	logged[0] = 0;
	T_EQ(stderr_of(rings_with, "percpu", NULL), -EINVAL);
	T_CHECK(strstr(logged, "HWPROF_RINGS=percpu: not thread, cpu or auto"), "log: %s",
		logged);
	T_CHECK(!strcmp(said, "hwprof: HWPROF_RINGS=percpu: not thread, cpu or auto\n"),
		"stderr: %s", said);
	hwprof_set_log(NULL, NULL, 0);
	unsetenv("HWPROF_RINGS");
	unsetenv("HWPROF_MMAP_PAGES");
	return t_done("rings");
}

/* Every error path, with the errno its man page names (ERRORS). */
static int case_errors(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o) };
	struct hwprof_session *s = NULL;
	char why[256];
	int ret;

	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "no-such-event-xyz", 0, NULL), -ENOENT);
	T_EQ(hwprof_event_probe("no-such-event-xyz", why, sizeof(why)), -ENOENT);
	T_CHECK(strstr(why, "no such event"), "why: %s", why);
	T_EQ(hwprof_session_add(s, "mem:no_such_function_xyz:x", 1, NULL), -ENOENT);
	T_EQ(hwprof_event_probe("mem:no_such_function_xyz:x", why, sizeof(why)), -ENOENT);
	T_CHECK(strstr(why, "no_such_function_xyz"), "why: %s", why);
	T_EQ(hwprof_session_add(s, "mem:0xzz:x", 1, NULL), -EINVAL);
	T_EQ(hwprof_session_add(s, "mem:fn_a:w", 1, NULL), -EINVAL);
	T_EQ(hwprof_session_add(s, "PAPI_NOT_A_PRESET", 0, NULL), -ENOENT);
	T_EQ(hwprof_session_add(s, "task-clock", (uint64_t)INT64_MAX + 1, NULL), -EINVAL);
	T_EQ(hwprof_session_start(s), -ENOENT); /* no event added */
	T_EQ(hwprof_session_stop(s), -EALREADY);

	/* a hardware event on a machine without its PMU: the probe bypasses
	 * hwprof; where cycles can be sampled this part checks nothing */
	if (t_require(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		      "cycles (expected here: no PMU)") == T_SKIP) {
		ret = hwprof_event_probe("cycles", why, sizeof(why));
		T_CHECK(ret == -EOPNOTSUPP || ret == -EACCES, "cycles: %d (%s)", ret, why);
		T_CHECK(strstr(why, "cycles"), "why: %s", why);
		T_EQ(hwprof_session_add(s, "cycles", 0, NULL), 0);
		ret = hwprof_session_start(s);
		T_CHECK(ret == -EOPNOTSUPP || ret == -EACCES, "start: %d", ret);
		T_EQ(hwprof_session_stop(s), -EALREADY);
	}
	hwprof_session_free(s);

	T_EQ(hwprof_session_new(NULL, NULL), -EINVAL);
	o.mode = 7;
	T_EQ(hwprof_session_new(&o, &s), -EINVAL);
	o.mode = 0;
	o.ring_pages = 3;
	T_EQ(hwprof_session_new(&o, &s), -EINVAL);
	o.ring_pages = 0;
	o.flags = 0x100;
	T_EQ(hwprof_session_new(&o, &s), -EINVAL);
	T_EQ(hwprof_session_add(NULL, "task-clock", 0, NULL), -EINVAL);
	T_EQ(hwprof_session_start(NULL), -EINVAL);
	hwprof_session_free(NULL);

	/* running twice, adding while running */
	s = session(HWPROF_SESSION_THREAD, "task-clock", 0, NULL);
	T_EQ(hwprof_session_start(s), 0);
	T_EQ(hwprof_session_start(s), -EBUSY);
	T_EQ(hwprof_session_add(s, "page-faults", 0, NULL), -EBUSY);
	hwprof_session_free(s); /* frees a running session */
	T_EQ(t_count_perf_fds(), 0);
	return t_done("errors");
}

/* Per-object buckets follow dlopen: an object loaded after start gets its
 * samples; after dlclose its counts stay. */
static int case_dlopen(const char *self)
{
	char path[4096], *slash;
	const struct hwprof_object *objs;
	struct hwprof_session_stats st;
	struct hwprof_session *s;
	uint64_t (*spin)(uint64_t), in_lib = 0, total = 0;
	size_t n = 0;
	int found = 0,
	    r = t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	void *lib;

	if (r)
		return r;
	snprintf(path, sizeof(path), "%s", self);
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path,
		 sizeof(path) - (size_t)(slash ? slash + 1 - path : 0), "libdlo.so");
	s = session(HWPROF_SESSION_THREAD, "task-clock", 100000, NULL);
	T_EQ(hwprof_session_start(s), 0);
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		printf("ERROR: dlopen %s: %s\n", path, dlerror());
		return T_ERROR;
	}
	spin = (uint64_t(*)(uint64_t))dlsym(lib, "dlo_spin");
	T_CHECK(spin && spin(150000000) != 1, "dlo_spin");
	T_EQ(hwprof_session_stop(s), 0);
	dlclose(lib);
	T_EQ(hwprof_session_read(s), 0); /* refreshes the list: unloaded */
	T_EQ(hwprof_session_objects(s, 0, &objs, &n), 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t sum = 0;

		for (size_t b = 0; b < objs[i].nbuckets; b++)
			sum += objs[i].counts[b];
		total += sum;
		if (strstr(objs[i].path, "libdlo.so")) {
			found = 1;
			in_lib += sum;
			T_CHECK(!objs[i].loaded, "still marked loaded after dlclose");
		}
	}
	st = sstats(s);
	printf("dlopen: %llu of %llu samples in libdlo.so\n", (unsigned long long)in_lib,
	       (unsigned long long)total);
	T_CHECK(found, "libdlo.so not among the objects");
	T_CHECK(in_lib * 10 > total * 8, "libdlo.so has %llu of %llu",
		(unsigned long long)in_lib, (unsigned long long)total);
	T_EQ(st.outside, 0);
	hwprof_session_free(s);
	return t_done("dlopen");
}

/* A period the kernel will not honour is reported, not silently raised. */

static void capture(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
}

static int case_period(void)
{
	struct hwprof_session *s;

	hwprof_set_log(capture, NULL, HWPROF_LOG_WARN);
	s = session(HWPROF_SESSION_THREAD, "task-clock", 5000, NULL);
	T_CHECK(strstr(logged, "below the kernel's minimum"), "log: %s", logged);
	T_CHECK(strstr(logged, "task-clock"), "log: %s", logged);
	T_EQ(sstats(s).period, 10000); /* what the kernel applies */
	hwprof_session_free(s);

	logged[0] = 0;
	s = session(HWPROF_SESSION_THREAD, "task-clock", 1000000, NULL);
	T_CHECK(!logged[0], "1 ms needs no note: %s", logged);
	T_EQ(sstats(s).period, 1000000);
	hwprof_session_free(s);

	logged[0] = 0;
	T_CHECK(hwprof_session_add(NULL, "nope::NOPE", 0, NULL) == -EINVAL, "NULL");
	s = session(HWPROF_SESSION_THREAD, "task-clock", 0, NULL);
	T_EQ(hwprof_session_add(s, "nope::NOPE", 0, NULL), -ENOENT);
	T_CHECK(strstr(logged, "nope::NOPE: no such event"), "log: %s", logged);
	hwprof_session_free(s);
	hwprof_set_log(NULL, NULL, 0);
	return t_done("period");
}

/* read drains now; reset zeroes; start/stop repeat. */
static int case_read_reset(void)
{
	struct hwprof_session *s;
	struct hwprof_hist *h;
	struct t_pages pool;
	int r = need_pf(), ret;

	if (r || (r = t_pages_new(&pool, 320)))
		return r;
	h = hist_at(touch_a, fbuf, 64);
	s = session(HWPROF_SESSION_THREAD, "page-faults", 1, h);
	for (int round = 0; round < 3; round++) {
		t_pages_zap(&pool);
		memset(fbuf, 0, sizeof(fbuf));
		T_EQ(hwprof_session_reset(s), 0);
		T_EQ(hwprof_session_start(s), 0);
		t_touch_n(touch_a, &pool, 300);
		ret = hwprof_session_read(s); /* what this call folded: */
		T_CHECK(ret >= 0 && ret <= 300, "read %d",
			ret);		/* the drainer may have been first */
		T_EQ(fbuf[off_a], 300); /* current before stop */
		/* and the statistics too. Taking the session's lock, the
		 * call also orders the read of fbuf above before the drain
		 * thread folds the 20 faults below: the kernel's ring
		 * orders them in fact (the drain thread folds a sample only
		 * after the fault that wrote it to the ring), but
		 * ThreadSanitizer does not see it and reported a race at
		 * hist.c's bucket write when the drain thread's 100 ms
		 * tick fell before stop (1 of 3 loaded TSan runs) */
		T_EQ(sstats(s).folded, 300);
		t_touch_n(touch_a, &pool, 20);
		T_EQ(hwprof_session_stop(s), 0);
		T_EQ(fbuf[off_a], 320);
		only_store("read-reset");
		T_EQ(sstats(s).folded, 320); /* reset zeroed the last round's */
	}
	hwprof_session_free(s);
	hwprof_hist_free(h);
	t_pages_free(&pool);
	return t_done("read-reset");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "count-fds"))
		return t_count_perf_fds();
	if (!strcmp(c, "bp-exact"))
		return case_bp_exact();
	if (!strcmp(c, "pf-exact"))
		return case_pf_exact();
	if (!strcmp(c, "task-clock"))
		return case_task_clock();
	if (!strcmp(c, "process"))
		return case_process();
	if (!strcmp(c, "thread"))
		return case_thread();
	if (!strcmp(c, "fork"))
		return case_fork();
	if (!strcmp(c, "exec"))
		return case_exec(argv[0]);
	if (!strcmp(c, "lost"))
		return case_lost();
	if (!strcmp(c, "errors"))
		return case_errors();
	if (!strcmp(c, "mmap-pages"))
		return case_mmap_pages();
	if (!strcmp(c, "rings"))
		return case_rings();
	if (!strcmp(c, "read-reset"))
		return case_read_reset();
	if (!strcmp(c, "period"))
		return case_period();
	if (!strcmp(c, "dlopen"))
		return case_dlopen(argv[0]);
	printf("usage: test-session CASE\n");
	return T_ERROR;
}
