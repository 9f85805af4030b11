/* SPDX-License-Identifier: MIT */
/*
 * profil, sprofil and pcsample end to end, linked with -lhwprof: exact
 * counts on page faults (HWPROF_EVENT=page-faults: one per fresh page, at
 * the storing instruction) everywhere and on breakpoints where they fire,
 * a hot function on task-clock, threads, fork, exec, every error, and the
 * glibc bugs that must not happen. usage: test-classic CASE
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwprof.h>
#include <hwprof/profil.h>
#include <hwprof/pcsample.h>
#include "harness.h"
#include "tlib.h"

#define N   1000
#define NPF 1400 /* page faults per exact run: a multiple of 7 */

/* Turns profil off with scale 0: glibc declares its buffer nonnull, so a
 * NULL buffer (the other way) is undefined for a caller using <unistd.h>. */
static int profil_off(void)
{
	static unsigned short dummy[1];

	return profil(dummy, sizeof(dummy), 0, 0);
}

static void use(const char *event, const char *period)
{
	setenv("HWPROF_EVENT", event, 1);
	if (period)
		setenv("HWPROF_PERIOD", period, 1);
	else
		unsetenv("HWPROF_PERIOD");
}

/* Breakpoints where they fire; a raw probe decides the skip. */
static int need_bp(void)
{
	return t_require_bp();
}

/* Page faults: the raw probe, where touch_a's and touch_b's stores are
 * (bytes from touch_a), the stack faulted in, and one profil on and off
 * so that what hwprof touches the first time is in place. */
static uint64_t off_a, off_b;

static int need_pf(void)
{
	static unsigned short warm[1];
	int r = t_require_pf();

	if (r)
		return r;
	off_a = t_store_pc(touch_a) - (uint64_t)(uintptr_t)touch_a;
	off_b = t_store_pc(touch_b) - (uint64_t)(uintptr_t)touch_a;
	if (off_a >= 64) {
		printf("ERROR: touch_a's store at +%llu, past the buckets\n",
		       (unsigned long long)off_a);
		return T_ERROR;
	}
	t_prefault_stack();
	use("page-faults", "1");
	if (profil(warm, sizeof(warm), (size_t)(uintptr_t)touch_a, 0x10000) || profil_off()) {
		printf("FAIL: profil on page-faults: %s\n", strerror(errno));
		return T_FAIL;
	}
	return T_PASS;
}

/* ------------------------------------------------------------------ */

/* profil on page faults: one 16-bit bucket per 2 bytes from touch_a
 * (scale 0x10000); threshold 1 and 7, touch_a and touch_b NPF times each:
 * NPF / k at each store (touch_b's when it falls in the buffer). */
static int case_profil(void)
{
	static unsigned short buf[64];
	static const int ks[] = { 1, 7 };
	struct t_pages pool;
	int r = need_pf(), loop = t_faults_open();

	if (r || (r = t_pages_new(&pool, 2 * NPF)))
		return r;
	if (loop < 0)
		return T_ERROR;
	for (int i = 0; i < 2; i++) {
		unsigned int want = NPF / ks[i];
		long long nloop, extra;
		char k[16];

		snprintf(k, sizeof(k), "%d", ks[i]);
		use("page-faults", k);
		memset(buf, 0, sizeof(buf));
		t_pages_zap(&pool);
		T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)touch_a, 0x10000), 0);
		t_faults_start(loop);
		t_touch_n(touch_a, &pool, NPF);
		t_touch_n(touch_b, &pool, NPF);
		/* the loops made 2 NPF faults, nothing in between: NPF / k at
		 * each store, wherever the count started (within the faults a
		 * sanitizer added, which land in its runtime, not here) */
		nloop = t_faults_stop(loop);
		T_FAULTS(nloop, 2 * NPF);
		extra = T_EXTRA(nloop, 2 * NPF);
		T_EQ(profil_off(), 0); /* off: exact now */
		T_NEAR(buf[off_a / 2], want, extra, "k=%d: touch_a's store", ks[i]);
		for (uint64_t b = 0; b < 64; b++)
			if (b != off_a / 2 && b != off_b / 2)
				T_CHECK(buf[b] == 0, "k=%d: bucket %llu = %u", ks[i],
					(unsigned long long)b, buf[b]);
		if (off_b / 2 < 64)
			T_NEAR(buf[off_b / 2], want, extra, "k=%d: touch_b's store", ks[i]);
		want = buf[off_a / 2];
		t_touch_n(touch_a, &pool, 10); /* off means off */
		T_EQ(buf[off_a / 2], want);
	}
	/* scale 0 and 1 turn it off too, and nothing is counted */
	memset(buf, 0, sizeof(buf));
	use("page-faults", "1");
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)touch_a, 0x10000), 0);
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)touch_a, 1), 0);
	t_touch_n(touch_a, &pool, 10);
	T_EQ(buf[off_a / 2], 0);
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)touch_a, 0), 0);
	close(loop);
	T_EQ(t_count_perf_fds(), 0);
	t_pages_free(&pool);
	return t_done("profil");
}

/* profil on a breakpoint, where they fire: HWPROF_EVENT=mem:SYMBOL:x counts
 * every execution in the function's first bucket, at threshold 1 and 7. */
static int case_bp(void)
{
	static unsigned short buf[64];
	static const int ks[] = { 1, 7 };
	int r = need_bp();

	if (r)
		return r;
	for (int i = 0; i < 2; i++) {
		char k[16];

		snprintf(k, sizeof(k), "%d", ks[i]);
		use("mem:fn_a:x", k);
		memset(buf, 0, sizeof(buf));
		T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)fn_a, 0x10000), 0);
		call_n(fn_a, N);
		call_n(fn_b, N);
		T_EQ(profil_off(), 0); /* off: exact now */
		T_CHECK(buf[0] == N / ks[i], "k=%d: bucket 0 = %u", ks[i], buf[0]);
		for (int b = 1; b < 64; b++)
			T_EQ(buf[b], 0);
		call_n(fn_a, 10); /* off means off */
		T_EQ(buf[0], N / ks[i]);
	}
	/* scale 0 and 1 turn it off too, and nothing is counted */
	memset(buf, 0, sizeof(buf));
	use("mem:fn_a:x", "1");
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)fn_a, 0x10000), 0);
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)fn_a, 1), 0);
	call_n(fn_a, 10);
	T_EQ(buf[0], 0);
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)fn_a, 0), 0);
	T_EQ(t_count_perf_fds(), 0);
	return t_done("bp");
}

/* task-clock: the hot function dominates, profil over the whole text. */
extern char __executable_start, etext;

static int case_profil_clock(void)
{
	size_t len = (size_t)(&etext - &__executable_start);
	unsigned short *buf = calloc(len / 2 + 1, sizeof(*buf));
	uint64_t hot = 0, total = 0, lo, hi;
	volatile uint64_t sink;

	use("task-clock", "100000");
	T_EQ(profil(buf, (len / 2 + 1) * 2, (size_t)(uintptr_t)&__executable_start, 0x10000),
	     0);
	sink = spin_hot(150000000);
	T_EQ(profil_off(), 0);
	(void)sink;
	lo = ((uintptr_t)spin_hot - (uintptr_t)&__executable_start) / 2;
	hi = lo + 64; /* 128 bytes cover the loop */
	for (size_t i = 0; i <= len / 2; i++) {
		total += buf[i];
		if (i >= lo && i < hi)
			hot += buf[i];
	}
	printf("profil task-clock: %llu of %llu samples in spin_hot\n",
	       (unsigned long long)hot, (unsigned long long)total);
	T_CHECK(total > 100, "only %llu samples", (unsigned long long)total);
	T_CHECK(hot * 10 > total * 9, "spin_hot %llu of %llu", (unsigned long long)hot,
		(unsigned long long)total);
	free(buf);

	/* sprofil: a 32-bit region over spin_hot and the overflow bin */
	{
		static uint32_t hotb[64], bin[1];
		struct prof p[2] = {
			{ .pr_base = bin, .pr_size = 4, .pr_off = 0, .pr_scale = 2 },
			{ .pr_base = hotb,
			  .pr_size = sizeof(hotb),
			  .pr_off = (size_t)(uintptr_t)spin_hot,
			  .pr_scale = 0x10000 },
		};
		uint64_t in = 0;

		T_EQ(sprofil(p, 2, NULL, PROF_UINT), 0);
		sink = spin_hot(150000000);
		T_EQ(sprofil(NULL, 0, NULL, 0), 0);
		for (int i = 0; i < 64; i++)
			in += hotb[i];
		printf("sprofil task-clock: %llu in spin_hot, %u in the bin\n",
		       (unsigned long long)in, bin[0]);
		T_CHECK(in > 100 && in * 10 > (in + bin[0]) * 9, "spin_hot %llu, bin %u",
			(unsigned long long)in, bin[0]);
	}
	/* pcsample: most pcs are inside spin_hot */
	{
		static uintptr_t pcs[100000];
		long n, in = 0;

		T_EQ(pcsample(pcs, 100000), 0);
		sink = spin_hot(150000000);
		n = pcsample(NULL, 0);
		for (long i = 0; i < n; i++)
			in += pcs[i] >= (uintptr_t)spin_hot &&
			      pcs[i] < (uintptr_t)spin_hot + 128;
		printf("pcsample task-clock: %ld of %ld pcs in spin_hot\n", in, n);
		T_CHECK(n > 100 && in * 10 > n * 9, "spin_hot %ld of %ld", in, n);
	}
	return t_done("profil-clock");
}

/* sprofil on page faults: two regions given out of order, the overflow bin
 * in the middle; pages touched alternately by the two functions (glibc
 * misattributes the first sample after each switch: not here). */
static int case_sprofil_regions(void)
{
	enum {
		K = 400
	};
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	static uint32_t ba[64], bb[64], bin[1];
	struct prof p[3] = {
		{ .pr_base = bb,
		  .pr_size = sizeof(bb),
		  .pr_off = (size_t)(uintptr_t)touch_b,
		  .pr_scale = 0x10000 },
		{ .pr_base = bin, .pr_size = sizeof(bin), .pr_off = 0, .pr_scale = 2 },
		{ .pr_base = ba,
		  .pr_size = sizeof(ba),
		  .pr_off = (size_t)(uintptr_t)touch_a,
		  .pr_scale = 0x10000 },
	};
	uint64_t sa = 0, sb = 0;
	char *m;

	m = mmap(NULL, 2 * K * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (m == MAP_FAILED)
		return T_ERROR;
	madvise(m, 2 * K * psz, MADV_NOHUGEPAGE);
	use("page-faults", "1");
	T_EQ(sprofil(p, 3, NULL, PROF_UINT), 0);
	for (int i = 0; i < K; i++) {
		touch_a(m + (size_t)(2 * i) * psz);
		touch_b(m + (size_t)(2 * i + 1) * psz);
	}
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
	for (int i = 0; i < 64; i++) {
		sa += ba[i];
		sb += bb[i];
	}
	printf("sprofil page-faults: %llu in touch_a, %llu in touch_b, %u in the bin\n",
	       (unsigned long long)sa, (unsigned long long)sb, bin[0]);
	/* exact, and a lower bound under a sanitizer (tlib.h: CI's TSan pass
	 * under load once found 401 in touch_b) */
	T_FAULTS(sa, K);
	T_FAULTS(sb, K);
	munmap(m, 2 * K * psz);
	return t_done("sprofil-regions");
}

/* sprofil, exact on page faults: every width, the overflow bin first and
 * last, and threads that existed before the call and threads made after
 * it, each touching N fresh pages of its own. */
static pthread_barrier_t go;

static void *before(void *arg)
{
	pthread_barrier_wait(&go);
	t_touch_n(touch_a, arg, N);
	pthread_barrier_wait(&go);
	return NULL;
}

static void *after(void *arg)
{
	t_touch_n(touch_a, arg, N);
	return NULL;
}

static int case_sprofil_threads(void)
{
	static unsigned char buf[256], bin[8];
	static const unsigned int flags[] = { PROF_USHORT, PROF_UINT, PROF_UINT64 };
	static const unsigned int w[] = { 2, 4, 8 };
	struct t_pages pool[4];
	int r = need_pf();

	if (r)
		return r;
	for (int i = 0; i < 4; i++)
		if ((r = t_pages_new(&pool[i], N)))
			return r;
	use("page-faults", "1");
	for (int f = 0; f < 3; f++) {
		for (int binfirst = 0; binfirst < 2; binfirst++) {
			struct prof reg = { .pr_base = buf,
					    .pr_size = sizeof(buf),
					    .pr_off = (size_t)(uintptr_t)touch_a,
					    .pr_scale = 0x10000 };
			struct prof ob = { .pr_base = bin,
					   .pr_size = w[f],
					   .pr_off = 0,
					   .pr_scale = 2 };
			struct prof p[2];
			struct timeval tv = { 7, 7 };
			/* the sprofil index divides by the counter size */
			size_t at = (size_t)(off_a / w[f] * w[f]);
			pthread_t t1, t2, t3;
			uint64_t v = 0;

			p[binfirst ? 0 : 1] = ob;
			p[binfirst ? 1 : 0] = reg;
			memset(buf, 0, sizeof(buf));
			memset(bin, 0, sizeof(bin));
			for (int i = 0; i < 4; i++)
				t_pages_zap(&pool[i]);
			pthread_barrier_init(&go, NULL, 3);
			pthread_create(&t1, NULL, before, &pool[0]);
			pthread_create(&t2, NULL, before, &pool[1]);
			T_EQ(sprofil(p, 2, &tv, flags[f]), 0);
			T_CHECK(tv.tv_sec == 0 && tv.tv_usec == 0,
				"tvp for page faults: %ld.%06ld", (long)tv.tv_sec,
				(long)tv.tv_usec);
			pthread_barrier_wait(&go);
			t_touch_n(touch_a, &pool[2], N);
			pthread_create(&t3, NULL, after, &pool[3]);
			pthread_join(t3, NULL);
			pthread_barrier_wait(&go);
			pthread_join(t1, NULL);
			pthread_join(t2, NULL);
			T_EQ(sprofil(NULL, 0, NULL, 0), 0);
			pthread_barrier_destroy(&go);
			memcpy(&v, buf + at, w[f]);
			T_CHECK(v == 4 * N, "width %u, bin %s: %llu, want %d", w[f] * 8,
				binfirst ? "first" : "last", (unsigned long long)v, 4 * N);
			for (size_t i = 0; i < sizeof(buf); i++)
				if (i < at || i >= at + w[f])
					T_CHECK(!buf[i], "byte %zu", i);
		}
	}
	for (int i = 0; i < 4; i++)
		t_pages_free(&pool[i]);
	return t_done("sprofil-threads");
}

/* Re-arming works any number of times (glibc aborts on the third call). */
static int case_rearm(void)
{
	static unsigned short buf[64];
	struct prof p = { .pr_base = buf,
			  .pr_size = sizeof(buf),
			  .pr_off = (size_t)(uintptr_t)touch_a,
			  .pr_scale = 0x10000 };
	struct t_pages pool;
	int r = need_pf();

	if (r || (r = t_pages_new(&pool, 123)))
		return r;
	use("page-faults", "1");
	for (int i = 0; i < 1000; i++) {
		if (sprofil(&p, 1, NULL, 0) || sprofil(NULL, 0, NULL, 0)) {
			T_CHECK(0, "round %d: %s", i, strerror(errno));
			break;
		}
	}
	memset(buf, 0, sizeof(buf));
	T_EQ(sprofil(&p, 1, NULL, 0), 0);
	T_EQ(sprofil(&p, 1, NULL, 0), 0); /* a call while on replaces */
	t_touch_n(touch_a, &pool, 123);
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
	T_EQ(buf[off_a / 2], 123);
	T_EQ(t_count_perf_fds(), 0);
	t_pages_free(&pool);
	return t_done("rearm");
}

/* fork: each process its own samples; exec: nothing follows. The pages
 * touched before the fork are never written again. */
static int case_fork_exec(const char *self)
{
	static unsigned short buf[64];
	struct t_pages pool;
	int status = 0, r = need_pf();
	pid_t pid;

	if (r)
		return r;
#ifdef __SANITIZE_THREAD__
	printf("SKIP: fork: TSan cannot track a thread made in a forked child; checked in the other builds\n");
	return T_SKIP;
#endif
	if ((r = t_pages_new(&pool, 500)))
		return r;
	use("page-faults", "1");
	memset(buf, 0, sizeof(buf));
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)touch_a, 0x10000), 0);
	t_touch_n(touch_a, &pool, 100);
	pid = fork();
	if (pid == 0) {
		t_touch_n(touch_a, &pool, 300);
		profil_off();
		_exit(buf[off_a / 2] == 400 ? 0 : 10);
	}
	t_touch_n(touch_a, &pool, 50);
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %#x", status);
	pid = fork();
	if (pid == 0) {
		execl(self, self, "count-fds", (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "after exec %d perf fds",
		WEXITSTATUS(status));
	T_EQ(profil_off(), 0);
	T_EQ(buf[off_a / 2], 150);
	t_pages_free(&pool);
	return t_done("fork-exec");
}

/* Every error the classic pages list (ERRORS in profil(3hwprof),
 * sprofil(3hwprof), pcsample(3hwprof), monitor(3hwprof)), and the
 * environment's. */
static int stderr_to(int fd)
{
	int old = dup(2);

	dup2(fd, 2);
	return old;
}

static int case_errors(void)
{
	static unsigned short buf[16];
	static const char ro[64] = "read-only";
	struct prof p = { .pr_base = buf,
			  .pr_size = sizeof(buf),
			  .pr_off = (size_t)(uintptr_t)fn_a,
			  .pr_scale = 0x10000 };
	struct prof bad = p;
	char tmpl[] = "/tmp/hwprof-err-XXXXXX", text[4096];
	struct timeval tv;
	int fd = mkstemp(tmpl), old;
	ssize_t n;

	use("task-clock", "100000");
	errno = 0;
	T_CHECK(sprofil(&p, -1, NULL, 0) == -1 && errno == E2BIG, "-1: %d", errno);
	T_CHECK(sprofil(&p, (1 << 20) + 1, NULL, 0) == -1 && errno == E2BIG, "big");
	T_CHECK(sprofil(&p, 1, NULL, 0x100) == -1 && errno == EINVAL, "flags");
	T_CHECK(sprofil(&p, 1, NULL, PROF_UINT | PROF_UINT64) == -1 && errno == EINVAL,
		"two widths");
	bad.pr_size = 0;
	T_CHECK(sprofil(&bad, 1, NULL, 0) == -1 && errno == EINVAL, "pr_size 0");
	T_CHECK(sprofil((struct prof *)(uintptr_t)8, 1, NULL, 0) == -1 && errno == EFAULT,
		"profp");
	T_CHECK(sprofil(&p, 1, (struct timeval *)(uintptr_t)8, 0) == -1 && errno == EFAULT,
		"tvp");
	bad = p;
	bad.pr_base = (void *)(uintptr_t)ro;
	T_CHECK(sprofil(&bad, 1, NULL, 0) == -1 && errno == EFAULT, "read-only buffer");
	bad.pr_base = NULL;
	T_CHECK(sprofil(&bad, 1, NULL, 0) == -1 && errno == EFAULT, "NULL buffer");
	T_CHECK(profil((unsigned short *)(uintptr_t)ro, 64, 0x1000, 0x10000) == -1 &&
			errno == EFAULT,
		"profil read-only");
	T_CHECK(profil(buf, 0, 0x1000, 0x10000) == -1 && errno == EINVAL, "profil size 0");
	T_CHECK(profil(buf, 32, 0x1000, 0x30000) == -1 && errno == EINVAL, "profil scale");
	T_CHECK(pcsample(NULL, -1) == -1 && errno == EINVAL, "pcsample -1");
	T_EQ(t_count_perf_fds(), 0); /* no failure left anything running */

	/* tvp gets the real period: 100 us here, the clock tick by default */
	T_EQ(sprofil(&p, 1, &tv, 0), 0);
	T_CHECK(tv.tv_sec == 0 && tv.tv_usec == 100, "tv %ld.%06ld", (long)tv.tv_sec,
		(long)tv.tv_usec);
	use("task-clock", NULL);
	T_EQ(sprofil(&p, 1, &tv, 0), 0);
	T_CHECK(tv.tv_usec == 1000000 / sysconf(_SC_CLK_TCK), "tick %ld", (long)tv.tv_usec);
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
	/* all entries off (scale 0 or 1): profiling off */
	bad = p;
	bad.pr_scale = 1;
	T_EQ(sprofil(&bad, 1, NULL, 0), 0);
	T_EQ(t_count_perf_fds(), 0);

	/* a bad HWPROF_* fails with EINVAL and says why once on stderr */
	old = stderr_to(fd);
	use("no-such-event-xyz", NULL);
	T_CHECK(profil(buf, sizeof(buf), 0x1000, 0x10000) == -1 && errno == EINVAL, "event");
	T_CHECK(sprofil(&p, 1, NULL, 0) == -1 && errno == EINVAL, "event");
	use("task-clock", "abc");
	T_CHECK(profil(buf, sizeof(buf), 0x1000, 0x10000) == -1 && errno == EINVAL, "period");
	use("task-clock", "0");
	T_CHECK(pcsample((uintptr_t *)(void *)buf, 2) == -1 && errno == EINVAL, "period 0");
	use("task-clock", "-5");
	T_CHECK(profil(buf, sizeof(buf), 0x1000, 0x10000) == -1 && errno == EINVAL,
		"period -5");
	use("mem:no_such_function_xyz:x", "1");
	T_CHECK(profil(buf, sizeof(buf), 0x1000, 0x10000) == -1 && errno == EINVAL,
		"mem: symbol");
	dup2(old, 2);
	close(old);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(tmpl);
	printf("stderr said:\n%s", text);
	T_CHECK(strstr(text,
		       "HWPROF_EVENT=no-such-event-xyz: no-such-event-xyz: no such event"),
		"event reason");
	T_CHECK(strstr(strstr(text, "no-such-event-xyz: no such event") + 1,
		       "no-such-event-xyz: no such event") == NULL,
		"said twice");
	T_CHECK(strstr(text, "HWPROF_PERIOD=abc"), "period reason");
	T_CHECK(strstr(text, "HWPROF_PERIOD=0"), "period 0 reason");
	T_CHECK(strstr(text, "HWPROF_PERIOD=-5"), "period -5 reason");
	T_CHECK(strstr(text, "HWPROF_EVENT=mem:no_such_function_xyz:x: "), "mem: reason");
	return t_done("errors");
}

/* pcsample on page faults: every pc in order (600 at touch_b's store,
 * then 600 at touch_a's), stops when full, returns the last count. */
static int case_pcsample(void)
{
	static uintptr_t a[2000], b[100];
	uintptr_t sa, sb;
	struct t_pages pool;
	long n, na = 0, nb = 0, order = 0;
	int r = need_pf();

	if (r || (r = t_pages_new(&pool, 1500)))
		return r;
	sa = (uintptr_t)touch_a + off_a;
	sb = (uintptr_t)touch_a + off_b;
	use("page-faults", "1");
	T_EQ(pcsample(a, 2000), 0); /* nothing ran before */
	t_touch_n(touch_b, &pool, 600);
	t_touch_n(touch_a, &pool, 600);
	n = pcsample(b, 100); /* stops a, starts b */
	for (long i = 0; i < n && i < 2000; i++) {
		if (a[i] == sb) {
			nb++;
			order += na > 0; /* touch_b's after touch_a's */
		} else if (a[i] == sa) {
			na++;
		}
	}
	printf("pcsample: %ld pcs, %ld at touch_b's store, %ld at touch_a's\n", n, nb, na);
	T_EQ(nb, 600);
	T_EQ(na, 600);
	T_CHECK(order == 0, "%ld of touch_b's pcs after touch_a's", order);
	T_CHECK(n >= 1200 && n < 2000, "pcsample returned %ld", n);
	T_EQ(a[n], 0); /* nothing written past the count */
	t_touch_n(touch_b, &pool, 300);
	T_EQ(pcsample(NULL, 0), 100); /* full at 100; 0 stops */
	/* b holds the first 100 pcs: touch_b's, after any fault made while
	 * starting (a TSan build's runtime makes some) */
	nb = 0;
	for (int i = 0; i < 100; i++) {
		T_CHECK(b[i] != 0, "b[%d] not written", i);
		if (b[i] == sb)
			nb++;
		else
			T_CHECK(nb == 0, "b[%d] = %#lx after touch_b's", i,
				(unsigned long)b[i]);
	}
	printf("pcsample: %ld of b's 100 pcs at touch_b's store\n", nb);
	T_CHECK(b[99] == sb || nb == 0, "b[99] = %#lx", (unsigned long)b[99]);
	T_EQ(pcsample(NULL, 0), 0);
	T_EQ(t_count_perf_fds(), 0);
	t_pages_free(&pool);
	return t_done("pcsample");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "count-fds"))
		return t_count_perf_fds();
	if (!strcmp(c, "profil"))
		return case_profil();
	if (!strcmp(c, "bp"))
		return case_bp();
	if (!strcmp(c, "profil-clock"))
		return case_profil_clock();
	if (!strcmp(c, "sprofil-regions"))
		return case_sprofil_regions();
	if (!strcmp(c, "sprofil-threads"))
		return case_sprofil_threads();
	if (!strcmp(c, "rearm"))
		return case_rearm();
	if (!strcmp(c, "fork-exec"))
		return case_fork_exec(argv[0]);
	if (!strcmp(c, "errors"))
		return case_errors();
	if (!strcmp(c, "pcsample"))
		return case_pcsample();
	printf("usage: test-classic CASE\n");
	return T_ERROR;
}
