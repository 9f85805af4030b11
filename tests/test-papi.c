/* SPDX-License-Identifier: MIT */
/*
 * hwprof's PAPI: exact PAPI_profil/PAPI_sprofil profiles on breakpoint
 * events (mem:fn_a:x), every flag and bucket width, two events at once,
 * the overflow bin first and last, counting, PAPI_overflow, FORCE_SW, the
 * seed page's example, and the error paths. usage: test-papi CASE
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <papi.h>
#include "harness.h"
#include "tlib.h"

#define N	1000

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

static uint64_t bucket(const void *buf, int width, int i)
{
	uint64_t v = 0;

	memcpy(&v, (const char *)buf + i * width / 8, (size_t)width / 8);
	return v;
}

/* threshold 1 and 7, every width, scale 0x20000 and 0x10000: exactly the
 * calls in the function's first bucket. */
static int case_exact(void)
{
	static const int widths[] = { 16, 32, 64 };
	static const int flags[] = { PAPI_PROFIL_BUCKET_16, PAPI_PROFIL_BUCKET_32,
				     PAPI_PROFIL_BUCKET_64 };
	static uint64_t buf[64];
	int es, code, r = t_require_bp();

	if (r || (r = setup(&es, "mem:fn_a:x", &code)))
		return r;
	for (int w = 0; w < 3; w++) {
		for (int k = 1; k <= 7; k += 6) {
			for (unsigned scale = 0x10000; scale <= 0x20000; scale += 0x10000) {
				long long v;

				memset(buf, 0, sizeof(buf));
				T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, scale, es, code, k,
						 PAPI_PROFIL_POSIX | flags[w]), PAPI_OK);
				T_EQ(PAPI_start(es), PAPI_OK);
				call_n(fn_a, N);
				call_n(fn_b, N);
				T_EQ(PAPI_stop(es, &v), PAPI_OK);
				T_CHECK(bucket(buf, widths[w], 0) == (uint64_t)(N / k),
					"width %d k %d scale %#x: %llu", widths[w], k, scale,
					(unsigned long long)bucket(buf, widths[w], 0));
				for (int b = 1; b < 8; b++)
					T_EQ(bucket(buf, widths[w], b), 0);
				T_EQ(v, N);		/* it counted every call */
				T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, scale, es, code, 0,
						 0), PAPI_OK);	/* off, no leak */
			}
		}
	}
	PAPI_shutdown();
	return t_done("exact");
}

/* Fold modes on a breakpoint: RANDOM keeps PAPI's 3 in 4 (from its LCG,
 * reproducibly), COMPRESS keeps fewer as the bucket grows, WEIGHTED adds 1
 * (no excess on kernel sampling). */
static int case_flags(void)
{
	static uint32_t buf[16];
	uint32_t x = 0x0dedbeef, keep = 0;	/* PAPI's seed */
	int es, code, r = t_require_bp();

	if (r || (r = setup(&es, "mem:fn_a:x", &code)))
		return r;
	for (int i = 0; i < N; i++) {
		x = x * 1664525u + 1013904223u;
		keep += (x & 0xffff) > 0x3fff;
	}
	memset(buf, 0, sizeof(buf));
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 1,
			 PAPI_PROFIL_RANDOM | PAPI_PROFIL_BUCKET_32), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	call_n(fn_a, N);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_CHECK(buf[0] == keep, "RANDOM kept %u, PAPI's LCG keeps %u", buf[0], keep);

	memset(buf, 0, sizeof(buf));
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 1,
			 PAPI_PROFIL_WEIGHTED | PAPI_PROFIL_BUCKET_32), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	call_n(fn_a, N);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_EQ(buf[0], N);

	buf[0] = 60000;
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 1,
			 PAPI_PROFIL_COMPRESS | PAPI_PROFIL_BUCKET_32), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	call_n(fn_a, N);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_CHECK(buf[0] > 60000 && buf[0] < 60000 + N / 4, "COMPRESS at 60000: %u", buf[0]);
	PAPI_shutdown();
	return t_done("flags");
}

/* Two events profiled at once, each into its own buffer. */
static int case_two(void)
{
	static uint16_t ba[8], bb[8];
	int es, ca, cb, r = t_require_bp();

	if (r || (r = setup(&es, "mem:fn_a:x", &ca)))
		return r;
	T_EQ(PAPI_event_name_to_code("mem:fn_b:x", &cb), PAPI_OK);
	T_EQ(PAPI_add_event(es, cb), PAPI_OK);
	T_EQ(PAPI_profil(ba, sizeof(ba), (vptr_t)fn_a, 0x10000, es, ca, 1, 0), PAPI_OK);
	T_EQ(PAPI_profil(bb, sizeof(bb), (vptr_t)fn_b, 0x10000, es, cb, 1,
			 PAPI_PROFIL_BUCKET_16), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	call_n(fn_a, 300);
	call_n(fn_b, 500);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_EQ(ba[0], 300);
	T_EQ(bb[0], 500);
	PAPI_shutdown();
	return t_done("two");
}

/* PAPI_sprofil: the overflow bin first and last (PAPI's own works only
 * first); a pc equal to a region's offset is in it. */
static int case_sprofil(void)
{
	static uint32_t reg[8], bin[1];
	int es, code, r = t_require_bp();

	if (r || (r = setup(&es, "mem:fn_b:x", &code)))
		return r;
	for (int last = 0; last < 2; last++) {
		PAPI_sprofil_t p[2];
		PAPI_sprofil_t region = { reg, sizeof(reg), (vptr_t)fn_a, 0x10000 };
		PAPI_sprofil_t ovfl = { bin, sizeof(bin), 0, 2 };

		p[last ? 1 : 0] = ovfl;
		p[last ? 0 : 1] = region;
		memset(reg, 0, sizeof(reg));
		bin[0] = 0;
		/* the region covers 16 bytes from fn_a: fn_b lies outside it */
		T_EQ(PAPI_sprofil(p, 2, es, code, 1, PAPI_PROFIL_BUCKET_32), PAPI_OK);
		T_EQ(PAPI_start(es), PAPI_OK);
		call_n(fn_b, 250);
		T_EQ(PAPI_stop(es, NULL), PAPI_OK);
		T_CHECK(bin[0] == 250, "bin %s: %u", last ? "last" : "first", bin[0]);
		T_EQ(PAPI_sprofil(NULL, 0, es, code, 0, 0), PAPI_OK);
	}
	PAPI_shutdown();
	return t_done("sprofil");
}

/* PAPI_overflow: the handler sees every sample's address. */
static int calls;
static void *last_addr;
static long long last_vec;

static void on_overflow(int es, void *addr, long long vec, void *ctx)
{
	(void)es;
	(void)ctx;
	calls++;
	last_addr = addr;
	last_vec = vec;
}

static int case_overflow(void)
{
	int es, code, r = t_require_bp();

	if (r || (r = setup(&es, "mem:fn_a:x", &code)))
		return r;
	T_EQ(PAPI_overflow(es, code, 1, 0, on_overflow), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	call_n(fn_a, 200);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_EQ(calls, 200);
	T_EQ((uintptr_t)last_addr, (uintptr_t)fn_a);
	T_EQ(last_vec, 1);
	T_EQ(PAPI_overflow(es, code, 0, 0, NULL), PAPI_OK);
	PAPI_shutdown();
	return t_done("overflow");
}

/* FORCE_SW: a timer reads task-clock; WEIGHTED sees the real excess, so
 * the hot function's buckets hold more than one per sample. */
static int case_force_sw(void)
{
	static uint16_t buf[128];
	volatile uint64_t sink;
	int es, code, r = t_require(1, 1, "task-clock");
	uint64_t sum = 0;

	if (r || (r = setup(&es, "perf::TASK-CLOCK", &code)))
		return r;
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)spin_hot, 0x10000, es, code, 1000000,
			 PAPI_PROFIL_FORCE_SW | PAPI_PROFIL_WEIGHTED), PAPI_OK);
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

/* The seed page's example, as written (with start and the bucket count). */
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
			 EventSet, code, 0, PAPI_PROFIL_POSIX), PAPI_OK);
	free(profbuf);
	PAPI_shutdown();
	return t_done("seed");
}

/* Counting: start/read/accum/reset/stop on a breakpoint count. */
static int case_count(void)
{
	long long v[2] = { 0, 0 }, acc[1] = { 5 };
	char name[PAPI_MAX_STR_LEN];
	int es, code, r = t_require_bp(), st;

	if (r || (r = setup(&es, "mem:fn_a:x", &code)))
		return r;
	T_EQ(PAPI_num_events(es), 1);
	T_EQ(PAPI_event_code_to_name(code, name), PAPI_OK);
	T_CHECK(!strcmp(name, "mem:fn_a:x"), "%s", name);
	T_EQ(PAPI_event_code_to_name(PAPI_TOT_CYC, name), PAPI_OK);
	T_CHECK(!strcmp(name, "PAPI_TOT_CYC"), "%s", name);
	T_EQ(PAPI_start(es), PAPI_OK);
	T_EQ(PAPI_state(es, &st), PAPI_OK);
	T_CHECK(st & PAPI_RUNNING, "state %#x", st);
	call_n(fn_a, 100);
	T_EQ(PAPI_read(es, v), PAPI_OK);
	T_EQ(v[0], 100);
	T_EQ(PAPI_accum(es, acc), PAPI_OK);
	T_EQ(acc[0], 105);
	call_n(fn_a, 7);
	T_EQ(PAPI_stop(es, v), PAPI_OK);
	T_EQ(v[0], 7);
	T_EQ(PAPI_read(es, v), PAPI_OK);	/* stopped: the last counts */
	T_EQ(v[0], 7);
	T_EQ(PAPI_reset(es), PAPI_OK);
	T_EQ(PAPI_read(es, v), PAPI_OK);
	T_EQ(v[0], 0);
	T_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	T_EQ(es, PAPI_NULL);
	T_CHECK(PAPI_get_opt(PAPI_MAX_HWCTRS, NULL) > 0, "MAX_HWCTRS");
	PAPI_shutdown();
	return t_done("count");
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
	T_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);	/* again: fine */
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
	T_EQ(PAPI_sprofil(&p, 1, es, code, 0, 0), PAPI_EINVAL);	/* not profiling */
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000, 0x200), PAPI_EINVAL);
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000,
			  PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32), PAPI_EINVAL);
	T_EQ(PAPI_sprofil(&p, 1, es, code, 1000, PAPI_PROFIL_DATA_EAR), PAPI_ENOSUPP);
	/* PAPI bug B1: a late failure then a disable must not double-free */
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 1000, 0x200),
	     PAPI_EINVAL);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 0, 0), PAPI_EINVAL);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 1000, 0), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_EISRUN);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, 0, 0), PAPI_EISRUN);
	T_EQ(PAPI_add_event(es, other), PAPI_EISRUN);
	T_EQ(PAPI_cleanup_eventset(es), PAPI_EISRUN);
	T_EQ(PAPI_stop(es, NULL), PAPI_OK);
	T_EQ(PAPI_stop(es, NULL), PAPI_ENOTRUN);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)fn_a, 0x10000, es, code, -1, 0), PAPI_OK);
	T_EQ(PAPI_overflow(es, code, 100, 0, NULL), PAPI_EINVAL);
	T_EQ(PAPI_overflow(es, code, 0, 0, NULL), PAPI_EINVAL);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_EINVAL);		/* not cleaned up */
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
	if (!strcmp(c, "flags"))
		return case_flags();
	if (!strcmp(c, "two"))
		return case_two();
	if (!strcmp(c, "sprofil"))
		return case_sprofil();
	if (!strcmp(c, "overflow"))
		return case_overflow();
	if (!strcmp(c, "force-sw"))
		return case_force_sw();
	if (!strcmp(c, "seed"))
		return case_seed();
	if (!strcmp(c, "count"))
		return case_count();
	if (!strcmp(c, "errors"))
		return case_errors();
	printf("usage: test-papi CASE\n");
	return T_ERROR;
}
