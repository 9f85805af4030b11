/* SPDX-License-Identifier: MIT */
/*
 * hwprof's PAPI: exact PAPI_profil/PAPI_sprofil profiles on page faults
 * (one per fresh page, at the storing instruction), every flag and bucket
 * width, two events at once, the overflow bin first and last, counting,
 * PAPI_overflow, FORCE_SW, PAPI_profil(3hwprof)'s example, the error paths,
 * and breakpoints (mem:fn_a:x) where they fire. usage: test-papi CASE
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <papi.h>
#include "harness.h"
#include "tlib.h"

#define N   1000
#define NPF 1400 /* page faults per exact run: a multiple of 7 */

/* Where touch_a's and touch_b's stores are, in bytes from each function
 * and from touch_a; a raw fault counter for the window from start to
 * stop (a hwprof count can hold no more than it saw). */
static uint64_t off_a, off_b, off_ba;
static int win = -1;

static int setup(int *es, const char *event, int *code)
{
	int r;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return T_ERROR;
	*es = PAPI_NULL;
	T_EQ(PAPI_create_eventset(es), PAPI_OK);
	r = PAPI_event_name_to_code(event, code);
	T_CHECK(r == PAPI_OK, "name_to_code %s: %d", event, r);
	T_EQ(PAPI_add_event(*es, *code), PAPI_OK);
	return 0;
}

/* Page faults: the raw probe, the stores, the stack faulted in, and one
 * start/stop of the set (after setup), so that what hwprof touches the
 * first time is in place before an exact count. */
static int need_pf(void)
{
	int r = t_require_pf();

	if (r)
		return r;
	off_a = t_store_pc(touch_a) - (uint64_t)(uintptr_t)touch_a;
	off_b = t_store_pc(touch_b) - (uint64_t)(uintptr_t)touch_b;
	off_ba = t_store_pc(touch_b) - (uint64_t)(uintptr_t)touch_a;
	if (off_a >= 16 || off_b >= 16) {
		printf("ERROR: stores at touch_a+%llu, touch_b+%llu: past the buckets\n",
		       (unsigned long long)off_a, (unsigned long long)off_b);
		return T_ERROR;
	}
	if ((win = t_faults_open()) < 0)
		return T_ERROR;
	t_prefault_stack();
	return T_PASS;
}

static void warm_up(int es)
{
	long long v[2];

	if (PAPI_start(es) == PAPI_OK)
		PAPI_stop(es, v);
}

static uint64_t bucket(const void *buf, int width, int i)
{
	uint64_t v = 0;

	memcpy(&v, (const char *)buf + i * width / 8, (size_t)width / 8);
	return v;
}

/* Page faults at threshold 1 and 7, every width, scale 0x20000 and
 * 0x10000: touch_a and touch_b NPF times each give NPF / k at each store
 * (touch_b's where it falls in the buffer), nothing else in the buffer;
 * the count is every fault. */
static int case_exact(void)
{
	static const int widths[] = { 16, 32, 64 };
	static const int flags[] = { PAPI_PROFIL_BUCKET_16, PAPI_PROFIL_BUCKET_32,
				     PAPI_PROFIL_BUCKET_64 };
	static uint64_t buf[64];
	struct t_pages pool;
	int es, code, r = need_pf(), loop = t_faults_open();

	if (r || (r = setup(&es, "page-faults", &code)) || (r = t_pages_new(&pool, 2 * NPF)))
		return r;
	if (loop < 0)
		return T_ERROR;
	warm_up(es);
	for (int w = 0; w < 3; w++) {
		int nb = (int)sizeof(buf) * 8 / widths[w];

		for (int k = 1; k <= 7; k += 6) {
			for (unsigned scale = 0x10000; scale <= 0x20000; scale += 0x10000) {
				uint64_t ia = (off_a * scale) >> 17,
					 ib = (off_ba * scale) >> 17;
				uint64_t want = NPF / k;
				long long v, nwin, nloop, extra;

				memset(buf, 0, sizeof(buf));
				t_pages_zap(&pool);
				T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)touch_a, scale, es,
						 code, k, PAPI_PROFIL_POSIX | flags[w]),
				     PAPI_OK);
				t_faults_start(win);
				T_EQ(PAPI_start(es), PAPI_OK);
				t_faults_start(loop);
				t_touch_n(touch_a, &pool, NPF);
				t_touch_n(touch_b, &pool, NPF);
				/* nothing faulted in between: NPF / k at each store
				 * (within the faults a sanitizer added elsewhere) */
				nloop = t_faults_stop(loop);
				T_FAULTS(nloop, 2 * NPF);
				extra = T_EXTRA(nloop, 2 * NPF);
				T_EQ(PAPI_stop(es, &v), PAPI_OK);
				nwin = t_faults_stop(win);
				for (int b = 0; b < nb; b++) {
					uint64_t got = bucket(buf, widths[w], b);
					int hit = (uint64_t)b == ia || (uint64_t)b == ib;

					T_NEAR(got, hit ? want : 0, hit ? extra : 0,
					       "width %d k %d scale %#x: bucket %d", widths[w],
					       k, scale, b);
				}
				/* it counted every fault */
				T_CHECK(v >= 2 * NPF && v <= nwin,
					"count %lld, %d faults (%lld from start to stop)", v,
					2 * NPF, nwin);
				T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)touch_a, scale, es,
						 code, 0, 0),
				     PAPI_OK); /* off, no leak */
			}
		}
	}
	close(loop);
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("exact");
}

/* Breakpoints, where they fire: mem:fn_a:x at threshold 1 and 7 puts
 * exactly N / k in the first bucket, fn_b's calls nowhere; the count is
 * every call; the name round-trips. */
static int case_bp(void)
{
	static uint32_t buf[16];
	char name[PAPI_MAX_STR_LEN];
	int es, code, r = t_require_bp();

	if (r || (r = setup(&es, "mem:fn_a:x", &code)))
		return r;
	T_EQ(PAPI_event_code_to_name(code, name), PAPI_OK);
	T_CHECK(!strcmp(name, "mem:fn_a:x"), "%s", name);
	for (int k = 1; k <= 7; k += 6) {
		long long v;

		memset(buf, 0, sizeof(buf));
		T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x20000, es, code, k,
				 PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_32),
		     PAPI_OK);
		T_EQ(PAPI_start(es), PAPI_OK);
		call_n(fn_a, N);
		call_n(fn_b, N);
		T_EQ(PAPI_stop(es, &v), PAPI_OK);
		T_CHECK(buf[0] == (uint32_t)(N / k), "k %d: %u", k, buf[0]);
		for (int b = 1; b < 16; b++)
			T_EQ(buf[b], 0);
		T_EQ(v, N);
		T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x20000, es, code, 0, 0),
		     PAPI_OK);
	}
	PAPI_shutdown();
	return t_done("bp");
}

/* Fold modes on page faults: RANDOM keeps PAPI's 3 in 4 (from its LCG,
 * reproducibly; a sample outside every region draws nothing), COMPRESS
 * keeps fewer as the bucket grows, WEIGHTED adds 1 (no excess on kernel
 * sampling). */
static int case_flags(void)
{
	static uint32_t buf[16];
	uint32_t x = 0x0dedbeef, keep = 0; /* PAPI's seed */
	struct t_pages pool;
	int es, code, r = need_pf();

	if (r || (r = setup(&es, "page-faults", &code)) || (r = t_pages_new(&pool, N)))
		return r;
	warm_up(es);
	for (int i = 0; i < N; i++) {
		x = x * 1664525u + 1013904223u;
		keep += (x & 0xffff) > 0x3fff;
	}
	memset(buf, 0, sizeof(buf));
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)touch_a, 0x10000, es, code, 1,
			 PAPI_PROFIL_RANDOM | PAPI_PROFIL_BUCKET_32),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_CHECK(buf[off_a / 2] == keep, "RANDOM kept %u, PAPI's LCG keeps %u", buf[off_a / 2],
		keep);

	memset(buf, 0, sizeof(buf));
	t_pages_zap(&pool);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)touch_a, 0x10000, es, code, 1,
			 PAPI_PROFIL_WEIGHTED | PAPI_PROFIL_BUCKET_32),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_EQ(buf[off_a / 2], N);

	buf[off_a / 2] = 60000;
	t_pages_zap(&pool);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)touch_a, 0x10000, es, code, 1,
			 PAPI_PROFIL_COMPRESS | PAPI_PROFIL_BUCKET_32),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	t_touch_n(touch_a, &pool, N);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_CHECK(buf[off_a / 2] > 60000 && buf[off_a / 2] < 60000 + N / 4,
		"COMPRESS at 60000: %u", buf[off_a / 2]);
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("flags");
}

/* Two events profiled at once, each into its own buffer: page-faults over
 * touch_a, minor faults (every fault on a fresh anonymous page is one)
 * over touch_b. Each event sees every fault; each buffer holds exactly
 * its function's. */
static int case_two(void)
{
	static uint16_t ba[8], bb[8];
	struct t_pages pool;
	long long v[2];
	int es, ca, cb, r = need_pf();

	if (r || (r = setup(&es, "page-faults", &ca)) || (r = t_pages_new(&pool, 800)))
		return r;
	r = PAPI_event_name_to_code("perf::MINOR-FAULTS", &cb);
	T_CHECK(r == PAPI_OK, "perf::MINOR-FAULTS: %d", r);
	T_EQ(PAPI_add_event(es, cb), PAPI_OK);
	warm_up(es);
	T_EQ(PAPI_profil(ba, sizeof(ba), (vptr_t)touch_a, 0x10000, es, ca, 1, 0), PAPI_OK);
	T_EQ(PAPI_profil(bb, sizeof(bb), (vptr_t)touch_b, 0x10000, es, cb, 1,
			 PAPI_PROFIL_BUCKET_16),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	t_touch_n(touch_a, &pool, 300);
	t_touch_n(touch_b, &pool, 500);
	T_EQ(PAPI_stop(es, v), PAPI_OK);
	T_EQ(ba[off_a / 2], 300);
	T_EQ(bb[off_b / 2], 500);
	for (int i = 0; i < 8; i++) {
		if ((uint64_t)i != off_a / 2)
			T_EQ(ba[i], 0);
		if ((uint64_t)i != off_b / 2)
			T_EQ(bb[i], 0);
	}
	T_CHECK(v[0] >= 800 && v[1] >= 800, "counts %lld %lld", v[0], v[1]);
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("two");
}

/* PAPI_sprofil: the overflow bin first and last (PAPI's own works only
 * first); a pc equal to a region's offset is in it. The bin takes every
 * fault outside touch_a's 16 bytes: touch_b's 250, and no more than the
 * raw counter saw from start to stop. */
static int case_sprofil(void)
{
	static uint32_t reg[8], bin[1];
	struct t_pages pool;
	int es, code, r = need_pf();

	if (r || (r = setup(&es, "page-faults", &code)) || (r = t_pages_new(&pool, 250)))
		return r;
	warm_up(es);
	for (int last = 0; last < 2; last++) {
		PAPI_sprofil_t p[2];
		PAPI_sprofil_t region = { reg, sizeof(reg), (vptr_t)touch_a, 0x10000 };
		PAPI_sprofil_t ovfl = { bin, sizeof(bin), 0, 2 };
		long long nwin;

		p[last ? 1 : 0] = ovfl;
		p[last ? 0 : 1] = region;
		memset(reg, 0, sizeof(reg));
		bin[0] = 0;
		t_pages_zap(&pool);
		/* the region covers 16 bytes from touch_a: touch_b lies outside */
		T_EQ(PAPI_sprofil(p, 2, es, code, 1, PAPI_PROFIL_BUCKET_32), PAPI_OK);
		t_faults_start(win);
		T_EQ(PAPI_start(es), PAPI_OK);
		t_touch_n(touch_b, &pool, 250);
		T_EQ(PAPI_stop(es, NULL), PAPI_OK);
		nwin = t_faults_stop(win);
		printf("bin %s: %u, %lld faults from start to stop\n", last ? "last" : "first",
		       bin[0], nwin);
		T_CHECK(bin[0] >= 250 && bin[0] <= nwin, "bin %s: %u, want 250 (%lld faults)",
			last ? "last" : "first", bin[0], nwin);
		for (int i = 0; i < 8; i++)
			T_EQ(reg[i], 0);
		T_EQ(PAPI_sprofil(NULL, 0, es, code, 0, 0), PAPI_OK);
	}
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("sprofil");
}

/* PAPI_overflow: the handler sees every sample's address. */
/* Nothing of hwprof's making in a PAPI profile: N fresh pages give
 * exactly N samples in the region and 0 in the overflow bin (PAPI_start
 * and PAPI_stop keep their own work out of the profile). */
static int case_self(void)
{
	static uint32_t reg[64], bin[1];
	struct t_pages pool;
	int es, code, r = need_pf();
	uint64_t n = 0;

	if (r || (r = setup(&es, "page-faults", &code)) || (r = t_pages_new(&pool, 300)))
		return r;
	{
		PAPI_sprofil_t p[2] = {
			{ reg, sizeof(reg), (vptr_t)touch_b, 0x10000 },
			{ bin, sizeof(bin), 0, 2 },
		};

		T_EQ(PAPI_sprofil(p, 2, es, code, 1, PAPI_PROFIL_BUCKET_32), PAPI_OK);
		T_EQ(PAPI_start(es), PAPI_OK);
		t_touch_n(touch_b, &pool, 300);
		T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	}
	for (int i = 0; i < 64; i++)
		n += reg[i];
	T_CHECK(n == 300, "%llu samples in touch_b's buckets, want 300",
		(unsigned long long)n);
	/* a sanitizer's runtime faults on the thread's behalf: those land in
	 * the bin, and are the program's (tlib.h) */
	T_CHECK(bin[0] == 0 || T_SANITIZED,
		"%u samples of hwprof's making in the overflow bin", bin[0]);
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("self");
}

static int calls;
static void *last_addr;
static long long last_vec;

static int at_store;

static void on_overflow(int es, void *addr, long long vec, void *ctx)
{
	(void)es;
	(void)ctx;
	calls++;
	at_store += (uintptr_t)addr == (uintptr_t)touch_a + off_a;
	last_addr = addr;
	last_vec = vec;
}

static int case_overflow(void)
{
	struct t_pages pool;
	int es, code, r = need_pf();

	if (r || (r = setup(&es, "page-faults", &code)) || (r = t_pages_new(&pool, 200)))
		return r;
	warm_up(es);
	T_EQ(PAPI_overflow(es, code, 1, 0, on_overflow), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	t_touch_n(touch_a, &pool, 200);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_EQ(at_store, 200);
	T_CHECK(calls >= 200, "%d calls", calls);
	/* the last overflow is the last store's, but where a sanitizer's
	 * runtime may fault after it (PAPI_stop's own calls) */
	if (!T_SANITIZED)
		T_EQ((uintptr_t)last_addr, (uintptr_t)touch_a + off_a);
	T_EQ(last_vec, 1);
	T_EQ(PAPI_overflow(es, code, 0, 0, NULL), PAPI_OK);
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("overflow");
}

/* PAPI_stop from a handler on its own set: PAPI_OK with the count at
 * that point, no handler call after it, the set stopped (not running and
 * stopped at once, its count frozen), and cleanup and destroy then work
 * from the main thread. Handlers run on hwprof's drain thread. */
static int hs_es, hs_ret = 1, hs_calls, hs_after;
static long long hs_count;
static pid_t hs_tid;

static void stop_in_handler(int es, void *addr, long long vec, void *ctx)
{
	long long v[1] = { -1 };

	(void)addr;
	(void)vec;
	(void)ctx;
	if (__atomic_load_n(&hs_calls, __ATOMIC_ACQUIRE)) {
		__atomic_add_fetch(&hs_after, 1, __ATOMIC_RELEASE);
		return;
	}
	hs_tid = (pid_t)syscall(SYS_gettid);
	hs_ret = PAPI_stop(es, v);
	hs_count = v[0];
	T_EQ(es, hs_es);
	__atomic_store_n(&hs_calls, 1, __ATOMIC_RELEASE);
}

static int case_stop_in_handler(void)
{
	struct t_pages pool;
	long long v[1];
	int es, code, st = 0, r = t_require_pf(); /* no bucket offsets here */

	if (r || (r = setup(&es, "page-faults", &code)) || (r = t_pages_new(&pool, 400)))
		return r;
	hs_es = es;
	T_EQ(PAPI_overflow(es, code, 1, 0, stop_in_handler), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	t_touch_n(touch_a, &pool, 200);
	/* the drain hands samples over within its interval: wait for it
	 * (bounded; a hang here is the bug this case is about) */
	for (int i = 0; i < 20000 && !__atomic_load_n(&hs_calls, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	T_EQ(__atomic_load_n(&hs_calls, __ATOMIC_ACQUIRE), 1);
	T_EQ(hs_ret, PAPI_OK);
	T_CHECK(hs_count >= 1, "count %lld at the stop", hs_count);
	T_CHECK(hs_tid != (pid_t)syscall(SYS_gettid), "the handler ran on the main thread");
	T_EQ(PAPI_state(es, &st), PAPI_OK);
	T_EQ(st & (PAPI_RUNNING | PAPI_STOPPED), PAPI_STOPPED);
	T_EQ(PAPI_stop(es, v), PAPI_ENOTRUN);
	t_touch_n(touch_a, &pool, 100); /* not counted: stopped */
	T_EQ(PAPI_read(es, v), PAPI_OK);
	T_EQ(v[0], hs_count);
	T_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	T_EQ(__atomic_load_n(&hs_after, __ATOMIC_ACQUIRE), 0);
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("stop-in-handler");
}

/* FORCE_SW: a timer reads task-clock; WEIGHTED sees the real excess, so
 * the hot function's buckets hold more than one per sample. */
/* FORCE_SW borrows SIGRTMIN+6 while it runs: the program's own handler
 * is back after PAPI_stop (PAPI_profil(3hwprof)). */
static volatile sig_atomic_t own_hits;

static void own_handler(int sig)
{
	(void)sig;
	own_hits++;
}

static int case_sw_restore(void)
{
	static uint16_t buf[128];
	struct sigaction sa, cur;
	volatile uint64_t sink;
	int es, code, r = t_require(1, 1, "task-clock");

	if (r || (r = setup(&es, "perf::TASK-CLOCK", &code)))
		return r;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = own_handler;
	sigemptyset(&sa.sa_mask);
	T_EQ(sigaction(SIGRTMIN + 6, &sa, NULL), 0);
	for (int round = 0; round < 2; round++) {
		T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)spin_hot, 0x10000, es, code,
				 1000000, PAPI_PROFIL_FORCE_SW),
		     PAPI_OK);
		T_EQ(PAPI_start(es), PAPI_OK);
		T_EQ(sigaction(SIGRTMIN + 6, NULL, &cur), 0);
		T_CHECK(cur.sa_handler != own_handler, "FORCE_SW runs on its own handler");
		sink = spin_hot(20000000);
		T_EQ(PAPI_stop(es, NULL), PAPI_OK);
		(void)sink;
		T_EQ(sigaction(SIGRTMIN + 6, NULL, &cur), 0);
		T_CHECK(cur.sa_handler == own_handler,
			"round %d: the program's handler is not back", round);
		T_EQ(PAPI_profil(NULL, 0, 0, 0, es, code, 0, PAPI_PROFIL_POSIX), PAPI_OK);
	}
	own_hits = 0;
	raise(SIGRTMIN + 6);
	T_EQ(own_hits, 1);
	PAPI_shutdown();
	return t_done("sw-restore");
}

static int case_force_sw(void)
{
	static uint16_t buf[128];
	volatile uint64_t sink;
	int es, code, r = t_require(1, 1, "task-clock");
	uint64_t sum = 0;

	if (r || (r = setup(&es, "perf::TASK-CLOCK", &code)))
		return r;
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)spin_hot, 0x10000, es, code, 1000000,
			 PAPI_PROFIL_FORCE_SW | PAPI_PROFIL_WEIGHTED),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	sink = spin_hot(150000000);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	(void)sink;
	for (int i = 0; i < 128; i++)
		sum += buf[i];
	printf("FORCE_SW|WEIGHTED: %llu in spin_hot\n", (unsigned long long)sum);
	T_CHECK(sum > 20, "spin_hot got %llu", (unsigned long long)sum);
	PAPI_shutdown();
	return t_done("force-sw");
}

/* PAPI_profil(3hwprof)'s example, as written (with start and the bucket
 * count). */
static int case_seed(void)
{
	const PAPI_exe_info_t *prginfo;
	unsigned long length;
	unsigned short *profbuf;
	int retval, EventSet = PAPI_NULL, code;
	volatile uint64_t sink;
	uint64_t sum = 0;
	int r = t_require(1, 1, "task-clock");

	if (r)
		return r;
	T_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	if ((prginfo = PAPI_get_executable_info()) == NULL)
		return T_FAIL;
	length = (unsigned long)((char *)prginfo->address_info.text_end -
				 (char *)prginfo->address_info.text_start);
	profbuf = (unsigned short *)malloc(length);
	memset(profbuf, 0x00, length);
	T_EQ(PAPI_create_eventset(&EventSet), PAPI_OK);
	T_EQ(PAPI_event_name_to_code("perf::TASK-CLOCK", &code), PAPI_OK);
	T_EQ(PAPI_add_event(EventSet, code), PAPI_OK);
	retval = PAPI_profil(profbuf, (unsigned)length, prginfo->address_info.text_start,
			     65536, EventSet, code, 100000,
			     PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_16);
	T_EQ(retval, PAPI_OK);
	T_EQ(PAPI_start(EventSet), PAPI_OK);
	sink = spin_hot(100000000);
	T_EQ(PAPI_stop(EventSet, NULL), PAPI_OK);
	(void)sink;
	for (unsigned long i = 0; i < length / 2; i++)
		sum += profbuf[i];
	printf("seed example: %llu samples in the text\n", (unsigned long long)sum);
	T_CHECK(sum > 100, "only %llu", (unsigned long long)sum);
	T_EQ(PAPI_profil(profbuf, (unsigned)length, prginfo->address_info.text_start, 65536,
			 EventSet, code, 0, PAPI_PROFIL_POSIX),
	     PAPI_OK);
	free(profbuf);
	PAPI_shutdown();
	return t_done("seed");
}

/* Counting: start/read/accum/reset/stop on a page-fault count. */
static int case_count(void)
{
	long long v[2] = { 0, 0 }, acc[1] = { 5 };
	char name[PAPI_MAX_STR_LEN];
	struct t_pages pool;
	int es, code, r = need_pf(), st;

	if (r || (r = setup(&es, "page-faults", &code)) || (r = t_pages_new(&pool, 107)))
		return r;
	warm_up(es);
	T_EQ(PAPI_num_events(es), 1);
	T_EQ(PAPI_event_code_to_name(code, name), PAPI_OK);
	T_CHECK(!strcmp(name, "page-faults"), "%s", name);
	T_EQ(PAPI_event_code_to_name(PAPI_TOT_CYC, name), PAPI_OK);
	T_CHECK(!strcmp(name, "PAPI_TOT_CYC"), "%s", name);
	T_EQ(PAPI_start(es), PAPI_OK);
	T_EQ(PAPI_state(es, &st), PAPI_OK);
	T_CHECK(st & PAPI_RUNNING, "state %#x", st);
	t_touch_n(touch_a, &pool, 100);
	T_EQ(PAPI_read(es, v), PAPI_OK);
	T_FAULTS(v[0], 100);
	T_EQ(PAPI_accum(es, acc), PAPI_OK);
	T_FAULTS(acc[0], 105);
	t_touch_n(touch_a, &pool, 7);
	T_EQ(PAPI_stop(es, v), PAPI_OK);
	T_FAULTS(v[0], 7);
	T_EQ(PAPI_read(es, v), PAPI_OK); /* stopped: the last counts */
	T_FAULTS(v[0], 7);
	T_EQ(PAPI_reset(es), PAPI_OK);
	T_EQ(PAPI_read(es, v), PAPI_OK);
	T_EQ(v[0], 0);
	T_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	T_EQ(es, PAPI_NULL);
	T_CHECK(PAPI_get_opt(PAPI_MAX_HWCTRS, NULL) > 0, "MAX_HWCTRS");
	t_pages_free(&pool);
	PAPI_shutdown();
	return t_done("count");
}

/*
 * PAPI_INHERIT_ALL: the threads made while the set runs are profiled with
 * the one that started it, as they are counted. 1024 threads (64 KiB
 * stacks, faulted in beforehand) each fault FPT fresh pages at touch_a's
 * store and exit before PAPI_stop; at threshold 1 touch_a's region holds
 * exactly their 1024 x FPT samples, the overflow bin (or, with a
 * handler, its other calls) the main thread's own faults between
 * PAPI_start and PAPI_stop (a raw counter's), what was kept plus what
 * was lost (hwprof's one stderr line) is the counter's value, and that
 * is 1024 x FPT + the main thread's. Run as nobody with a user's limits (1024 open files,
 * 8 MiB of locked memory); inherit-lost with rings of one page, which
 * lose most samples: the equation holds with them. Then, with
 * PAPI_profil (or the handler), 64 more threads that exit, and
 * PAPI_reset: the count is 0, not theirs, and the buffer keeps their
 * 64 x FPT samples (PAPI_reset clears no buffer). FORCE_SW, whose
 * signal and pc are the starting thread's, is refused (PAPI_ENOSUPP).
 */
#define NTHR 1024
#define FPT  50

static char *ipages, *istacks; /* istacks: NTHR x ISTACK, faulted in */
static size_t ipsz;
#define ISTACK (64 * 1024)
static pthread_barrier_t ibar;
static uint64_t ov_calls, ov_store; /* on the drain thread */

static void *inherit_worker(void *arg)
{
	char *p = ipages + (size_t)(uintptr_t)arg * FPT * ipsz;

	pthread_barrier_wait(&ibar); /* all made: none is reused */
	for (int i = 0; i < FPT; i++)
		touch_a(p + (size_t)i * ipsz);
	return NULL;
}

static void on_inherit(int es, void *addr, long long vec, void *ctx)
{
	(void)es;
	(void)vec;
	(void)ctx;
	ov_calls++;
	ov_store += (uintptr_t)addr == (uintptr_t)touch_a + off_a;
}

/* n workers made, faulted and joined; 0 or T_ERROR. Their stacks (and
 * the thread descriptors and static TLS that glibc puts there) are
 * faulted in beforehand, when istacks is set: a worker then faults only
 * at touch_a's store, and the main thread's faults are the rest. */
static int run_workers(int n)
{
	static pthread_t t[NTHR];
	int made;

	pthread_barrier_init(&ibar, NULL, (unsigned)n + 1);
	for (made = 0; made < n; made++) {
		pthread_attr_t pa;
		int r;

		pthread_attr_init(&pa);
		if (istacks)
			pthread_attr_setstack(&pa, istacks + (size_t)made * ISTACK, ISTACK);
		else
			pthread_attr_setstacksize(&pa, ISTACK);
		r = pthread_create(&t[made], &pa, inherit_worker, (void *)(uintptr_t)made);
		pthread_attr_destroy(&pa);
		if (r)
			break;
	}
	if (made < n) {
		printf("ERROR: pthread_create %d of %d failed\n", made, n);
		return T_ERROR;
	}
	pthread_barrier_wait(&ibar);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&ibar);
	return 0;
}

/* stderr caught from catch_begin() to catch_end(), which passes it on
 * and returns the samples hwprof said were lost (0 when it said nothing). */
struct catch
{
	FILE *f;
	int saved;
};

static int catch_begin(struct catch *c)
{
	c->f = tmpfile();
	c->saved = dup(2);
	if (!c->f || c->saved < 0)
		return T_ERROR;
	fflush(stderr);
	dup2(fileno(c->f), 2);
	return 0;
}

static unsigned long long catch_end(struct catch *c)
{
	unsigned long long lost = 0;
	char line[512];

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	rewind(c->f);
	while (fgets(line, sizeof(line), c->f)) {
		unsigned long long n;

		fputs(line, stderr);
		if (strstr(line, " samples lost (") &&
		    sscanf(line, "hwprof: %llu samples lost", &n) == 1)
			lost = n;
	}
	fclose(c->f);
	return lost;
}

/* PAPI_stop with stderr caught: the count, and the samples lost. */
static int stop_lost(int es, long long *v, unsigned long long *lost)
{
	struct catch c;
	int r;

	*lost = 0;
	if (catch_begin(&c))
		return PAPI_ESYS;
	r = PAPI_stop(es, v);
	*lost = catch_end(&c);
	return r;
}

static int case_inherit(char **argv, int overflow, int small_rings)
{
	static uint32_t reg[8], bin[1];
	PAPI_sprofil_t p[2] = { { reg, sizeof(reg), (vptr_t)touch_a, 0x10000 },
				{ bin, sizeof(bin), 0, 2 } };
	PAPI_option_t opt;
	unsigned long long lost, kept, in_a = 0;
	long long v, m;
	int es, code, r = t_as_nobody(argv), mine;
	struct catch c;

	if (r >= 0)
		return r;
	if (small_rings) /* rings of one data page: a burst overflows them */
		setenv("HWPROF_MMAP_PAGES", "1", 1);
	if ((r = need_pf()) || (r = setup(&es, "page-faults", &code)))
		return r;
	if ((mine = t_faults_open()) < 0)
		return T_ERROR;
	ipsz = (size_t)sysconf(_SC_PAGESIZE);
	ipages = t_fresh((size_t)NTHR * FPT);
	/* a sanitizer's static TLS (900 KiB under TSan) does not fit such
	 * stacks, and its runtime faults in the workers anyway: there, glibc
	 * makes the stacks and the counts are checked as lower bounds */
	istacks = T_SANITIZED ? NULL : t_fresh((size_t)NTHR * ISTACK / ipsz);
	if (!ipages || (!T_SANITIZED && !istacks))
		return T_ERROR;
	if (istacks)
		memset(istacks, 1, (size_t)NTHR * ISTACK);
	memset(&opt, 0, sizeof(opt));
	opt.inherit.eventset = es;
	opt.inherit.inherit = PAPI_INHERIT_ALL;
	T_EQ(PAPI_set_opt(PAPI_INHERIT, &opt), PAPI_OK);
	T_EQ(PAPI_get_opt(PAPI_INHERIT, &opt), PAPI_INHERIT_ALL);
	warm_up(es);
	/* FORCE_SW cannot follow the threads: refused at start */
	T_EQ(PAPI_profil(reg, sizeof(reg), (vptr_t)touch_a, 0x10000, es, code, 1,
			 PAPI_PROFIL_POSIX | PAPI_PROFIL_FORCE_SW),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_ENOSUPP);
	T_EQ(PAPI_profil(reg, sizeof(reg), (vptr_t)touch_a, 0x10000, es, code, 0, 0), PAPI_OK);

	if (overflow)
		T_EQ(PAPI_overflow(es, code, 1, 0, on_inherit), PAPI_OK);
	else
		T_EQ(PAPI_sprofil(p, 2, es, code, 1, PAPI_PROFIL_BUCKET_32), PAPI_OK);
	/* a first thread pages in what glibc's thread exit touches once
	 * per process; its pages are made fresh again */
	if (run_workers(1))
		return T_ERROR;
	madvise(ipages, (size_t)FPT * ipsz, MADV_DONTNEED);
	/* the main thread's faults, raw, between PAPI_start and PAPI_stop
	 * (what those calls fault is hwprof's, and counted by neither) */
	if (catch_begin(&c))
		return T_ERROR;
	T_EQ(PAPI_start(es), PAPI_OK);
	t_faults_start(mine);
	if (run_workers(NTHR))
		return T_ERROR;
	m = t_faults_stop(mine);
	T_EQ(PAPI_stop(es, &v), PAPI_OK);
	lost = catch_end(&c);
	if (overflow) {
		kept = ov_calls;
		in_a = ov_store;
	} else {
		kept = bin[0];
		for (int i = 0; i < 8; i++)
			in_a += reg[i];
		kept += in_a;
	}
	printf("inherit%s (uid %d): counter %lld; kept %llu (%llu at touch_a's store, %llu elsewhere), lost %llu; the main thread faulted %lld times\n",
	       overflow ? " (overflow)" : "", (int)geteuid(), v, kept, in_a, kept - in_a, lost,
	       m);
	/* every sample the counter counted: kept or lost (a sanitizer's
	 * runtime may fault on the main thread inside PAPI_start/stop,
	 * between the counters and the sampling) */
	T_FAULTS((unsigned long long)v, kept + lost);
	/* every worker's every store, the ones lost aside (a fault a
	 * sanitizer's process takes twice can add one) */
	T_CHECK((T_SANITIZED || in_a <= (unsigned long long)NTHR * FPT) &&
			in_a + lost >= (unsigned long long)NTHR * FPT,
		"%llu at touch_a's store (%llu lost), want %d", in_a, lost, NTHR * FPT);
	if (!lost)
		T_FAULTS(in_a, (unsigned long long)NTHR * FPT);
	if (small_rings) /* the losses of the inherited threads are counted */
		T_CHECK(lost > 0, "nothing lost from rings of one page");
	/* the rest is the main thread's own faults: the count is the
	 * workers' stores and those (a sanitizer's runtime faults in the
	 * workers too: then at least) */
	T_FAULTS((unsigned long long)v,
		 (unsigned long long)NTHR * FPT + (unsigned long long)m);
	T_CHECK(kept - in_a + lost >= (unsigned long long)m,
		"%llu samples elsewhere (+%llu lost), the main thread alone faulted %lld times",
		kept - in_a, lost, m);

	/* PAPI_reset after threads exited: their counts go too; the
	 * profile (PAPI_profil now, or the handler) keeps their samples */
	madvise(ipages, (size_t)NTHR * FPT * ipsz, MADV_DONTNEED);
	in_a = 0;
	if (overflow) {
		ov_calls = ov_store = 0;
	} else {
		T_EQ(PAPI_sprofil(NULL, 0, es, code, 0, 0), PAPI_OK);
		memset(reg, 0, sizeof(reg));
		T_EQ(PAPI_profil(reg, sizeof(reg), (vptr_t)touch_a, 0x10000, es, code, 1,
				 PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_32),
		     PAPI_OK);
	}
	T_EQ(PAPI_start(es), PAPI_OK);
	if (run_workers(64))
		return T_ERROR;
	T_EQ(PAPI_read(es, &v), PAPI_OK);
	T_CHECK(v >= 64 * FPT, "read %lld, want %d or more", v, 64 * FPT);
	T_EQ(PAPI_reset(es), PAPI_OK);
	T_EQ(PAPI_read(es, &v), PAPI_OK);
	T_CHECK(v < FPT, "read after reset %lld (64 exited threads x %d before it)", v, FPT);
	T_EQ(stop_lost(es, &v, &lost), PAPI_OK);
	T_CHECK(v < FPT, "stop after reset %lld", v);
	for (int i = 0; !overflow && i < 8; i++)
		in_a += reg[i];
	if (overflow)
		in_a = ov_store;
	printf("after reset: counter %lld; %llu at touch_a's store, %llu lost\n", v, in_a,
	       lost);
	T_CHECK(in_a <= 64 * FPT && in_a + lost >= 64 * FPT,
		"%llu at touch_a's store (%llu lost), want %d", in_a, lost, 64 * FPT);
	if (!lost)
		T_EQ(in_a, 64 * FPT);
	close(mine);
	munmap(ipages, (size_t)NTHR * FPT * ipsz);
	if (istacks)
		munmap(istacks, (size_t)NTHR * ISTACK);
	istacks = NULL;
	PAPI_shutdown();
	return t_done(argv[1]);
}

/*
 * inherit-tree: PAPI_INHERIT_ALL follows what the counter follows, no
 * more: a fork child (its faults at touch_a, in the parent's buffer, at
 * its pcs) and the threads the starting thread makes are in both; a
 * thread that existed before PAPI_start, and the threads it makes after,
 * are in neither. So touch_a's region holds exactly the child's CHILD_PF
 * and the 8 threads' 8 x FPT, not the outsider's 16 threads' 16 x FPT,
 * and what was kept plus lost is the count.
 */
#define CHILD_PF 100

static pthread_barrier_t go;

static void *outsider(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go); /* the set runs */
	return (void *)(intptr_t)run_workers(16);
}

static int case_inherit_tree(char **argv)
{
	static uint32_t reg[8], bin[1];
	PAPI_sprofil_t p[2] = { { reg, sizeof(reg), (vptr_t)touch_a, 0x10000 },
				{ bin, sizeof(bin), 0, 2 } };
	PAPI_option_t opt;
	unsigned long long lost, kept, in_a = 0;
	char *child_pages;
	pthread_t out;
	void *ret;
	long long v;
	pid_t pid;
	int es, code, r = t_as_nobody(argv), st;

	if (r >= 0)
		return r;
	if ((r = need_pf()) || (r = setup(&es, "page-faults", &code)))
		return r;
	ipsz = (size_t)sysconf(_SC_PAGESIZE);
	ipages = t_fresh((size_t)(16 + 8) * FPT);
	child_pages = t_fresh(CHILD_PF);
	if (!ipages || !child_pages)
		return T_ERROR;
	memset(&opt, 0, sizeof(opt));
	opt.inherit.eventset = es;
	opt.inherit.inherit = PAPI_INHERIT_ALL;
	T_EQ(PAPI_set_opt(PAPI_INHERIT, &opt), PAPI_OK);
	warm_up(es);
	pthread_barrier_init(&go, NULL, 2);
	if (pthread_create(&out, NULL, outsider, NULL))
		return T_ERROR;
	T_EQ(PAPI_sprofil(p, 2, es, code, 1, PAPI_PROFIL_BUCKET_32), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	/* the outsider's 16 threads use the first 16 x FPT pages, at once */
	pthread_barrier_wait(&go);
	pthread_join(out, &ret);
	if (ret)
		return T_ERROR;
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < CHILD_PF; i++)
			touch_a(child_pages + (size_t)i * ipsz);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return T_ERROR;
	/* the starting thread's own 8, on the next 8 x FPT pages */
	ipages += (size_t)16 * FPT * ipsz;
	if (run_workers(8))
		return T_ERROR;
	T_EQ(stop_lost(es, &v, &lost), PAPI_OK);
	for (int i = 0; i < 8; i++)
		in_a += reg[i];
	kept = in_a + bin[0];
	printf("inherit-tree (uid %d): counter %lld; kept %llu (%llu at touch_a's store, %llu elsewhere), lost %llu\n",
	       (int)geteuid(), v, kept, in_a, kept - in_a, lost);
	T_FAULTS((unsigned long long)v, kept + lost);
	if (!lost)
		T_FAULTS(in_a, (unsigned long long)(8 * FPT + CHILD_PF));
	/* under a sanitizer, a fault taken twice can add one, but never
	 * the outsider's 16 x FPT */
	T_CHECK(in_a <= 8 * FPT + CHILD_PF + (T_SANITIZED ? 16 * FPT - 1 : 0) &&
			in_a + lost >= 8 * FPT + CHILD_PF,
		"%llu at touch_a's store (%llu lost), want %d: the outsider's %d are not in",
		in_a, lost, 8 * FPT + CHILD_PF, 16 * FPT);
	PAPI_shutdown();
	return t_done("inherit-tree");
}

/* Every error path, in PAPI 7's order, and the PAPI bugs that must not
 * happen. */
static int case_errors(void)
{
	static uint16_t buf[16];
	PAPI_sprofil_t p = { buf, sizeof(buf), (vptr_t)fn_a, 0x10000 };
	int es = PAPI_NULL, code, other, r = t_require(1, 1, "task-clock");

	if (r)
		return r;
	T_EQ(PAPI_create_eventset(&es), PAPI_ENOINIT);
	T_EQ(PAPI_library_init(0x06000000), PAPI_EINVAL);
	T_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	T_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT); /* again: fine */
	T_EQ(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED);
	T_EQ(PAPI_create_eventset(&es), PAPI_OK);
	T_EQ(PAPI_event_name_to_code("no::SUCH", &code), PAPI_ENOEVNT);
	T_EQ(PAPI_event_name_to_code("PAPI_NOT_ONE", &code), PAPI_ENOEVNT);
	T_EQ(PAPI_query_event(PAPI_PRESET_MASK | 500), PAPI_ENOTPRESET);
	T_EQ(PAPI_event_name_to_code("perf::TASK-CLOCK", &code), PAPI_OK);
	T_EQ(PAPI_query_event(code), PAPI_OK);
	T_EQ(PAPI_add_event(es, code), PAPI_OK);
	T_EQ(PAPI_add_event(es, code), PAPI_ECNFLCT);
	T_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &other), PAPI_OK);
	/* PAPI_sprofil's order: ENOEVST, EISRUN, ENOEVNT, scale, threshold */
	T_EQ(PAPI_sprofil(&p, 1, 77, code, 1000, 0), PAPI_ENOEVST);
	T_EQ(PAPI_sprofil(&p, 1, es, other, 1000, 0), PAPI_ENOEVNT);
	p.pr_scale = 1;
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000, 0), PAPI_EINVAL);
	p.pr_scale = 0x10001;
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000, 0), PAPI_EINVAL);
	p.pr_scale = 0x10000;
	T_EQ(PAPI_sprofil(&p, 1, es, code, -1, 0), PAPI_EINVAL);
	T_EQ(PAPI_sprofil(&p, 1, es, code, 0, 0), PAPI_EINVAL); /* not profiling */
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000, 0x200), PAPI_EINVAL);
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000,
			  PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32),
	     PAPI_EINVAL);
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000, PAPI_PROFIL_DATA_EAR), PAPI_ENOSUPP);
	/* PAPI bug B1: a late failure then a disable must not double-free */
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 1000, 0x200),
	     PAPI_EINVAL);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 0, 0),
	     PAPI_EINVAL);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 1000, 0), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_EISRUN);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 0, 0),
	     PAPI_EISRUN);
	T_EQ(PAPI_add_event(es, other), PAPI_EISRUN);
	T_EQ(PAPI_cleanup_eventset(es), PAPI_EISRUN);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_EQ(PAPI_stop(es, NULL), PAPI_ENOTRUN);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, -1, 0), PAPI_OK);
	T_EQ(PAPI_overflow(es, code, 100, 0, NULL), PAPI_EINVAL);
	T_EQ(PAPI_overflow(es, code, 0, 0, NULL), PAPI_EINVAL);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_EINVAL); /* not cleaned up */
	T_CHECK(!strcmp(PAPI_strerror(PAPI_EINVAL), "Invalid argument"), "strerror");
	T_CHECK(PAPI_strerror(1) == NULL && PAPI_strerror(-28) == NULL, "strerror range");
	T_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_ENOEVST);
	PAPI_shutdown();
	T_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	return t_done("errors");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "exact"))
		return case_exact();
	if (!strcmp(c, "bp"))
		return case_bp();
	if (!strcmp(c, "flags"))
		return case_flags();
	if (!strcmp(c, "two"))
		return case_two();
	if (!strcmp(c, "sprofil"))
		return case_sprofil();
	if (!strcmp(c, "self"))
		return case_self();
	if (!strcmp(c, "sw-restore"))
		return case_sw_restore();
	if (!strcmp(c, "overflow"))
		return case_overflow();
	if (!strcmp(c, "stop-in-handler"))
		return case_stop_in_handler();
	if (!strcmp(c, "force-sw"))
		return case_force_sw();
	if (!strcmp(c, "seed"))
		return case_seed();
	if (!strcmp(c, "count"))
		return case_count();
	if (!strcmp(c, "errors"))
		return case_errors();
	if (!strcmp(c, "inherit"))
		return case_inherit(argv, 0, 0);
	if (!strcmp(c, "inherit-overflow"))
		return case_inherit(argv, 1, 0);
	if (!strcmp(c, "inherit-lost"))
		return case_inherit(argv, 0, 1);
	if (!strcmp(c, "inherit-tree"))
		return case_inherit_tree(argv);
	printf("usage: test-papi CASE\n");
	return T_ERROR;
}
