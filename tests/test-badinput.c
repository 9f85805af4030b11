/* SPDX-License-Identifier: MIT */
/*
 * Bad input to every public call of the native API (hwprof.h) and of the
 * classic calls (profil, sprofil, pcsample, monitor, monstartup,
 * moncontrol): NULL pointers, bad sz, huge sizes, unmapped and read-only
 * buffers, bad flags. Each row names the call, the input and the result
 * its man page documents; each runs in a child of its own, so a crash is
 * that row's failure (and ASan/UBSan's report, in the sanitizer builds,
 * is printed under it). The PAPI calls are not here (test-papi covers
 * its error codes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/profil.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwprof.h>
#include <hwprof/pcsample.h>
#include "harness.h"

/* <hwprof/mon.h>'s AIX struct prof clashes with glibc's <sys/profil.h>:
 * the same layout under another name. */
typedef char *caddr_t_;
struct aix_prof {
	caddr_t_ p_low, p_high;
	unsigned short *p_buff;
	int p_bufsize;
	unsigned int p_scale;
};
int monitor(caddr_t_ lowpc, ...);
int monstartup(caddr_t_ lowpc, caddr_t_ highpc);
int moncontrol(int mode);
struct monglobal {
	int prof_type;
};
extern struct monglobal _mondata;

/* glibc declares profil's buffer nonnull */
static int (*volatile profil_)(unsigned short *, size_t, size_t, unsigned int) = profil;

static long psz;
static char *ro;	/* a read-only page */
static char *gone;	/* an inaccessible page, after a mapped one */
static char *end;	/* == gone: the end of a writable page */

#define NONE	0	/* no errno to check */
#define ANY	(-4096)	/* any negative errno */

struct row {
	const char *call, *input;
	long (*fn)(void);
	long want;	/* the return value */
	int err;	/* errno for the -1 calls, else NONE */
};

/* ------------------------------------------------------------------ */
/* The histogram core                                                   */

static uint16_t buf16[64];

static struct hwprof_region one(void *base, size_t size)
{
	return (struct hwprof_region){ .base = base, .size = size, .offset = 0x1000,
				       .scale = 0x10000, .width = 16 };
}

static long hc_null(void) { return hwprof_hist_check(NULL, NULL); }

static long hc_sz(size_t sz)
{
	struct hwprof_hist_opts o = { .sz = sz, .index = HWPROF_INDEX_PAPI };

	return hwprof_hist_check(&o, NULL);
}

static long hc_sz0(void) { return hc_sz(0); }
static long hc_sz4(void) { return hc_sz(4); }
static long hc_szbig(void) { return hc_sz(4097); }
static long hc_szmax(void) { return hc_sz(SIZE_MAX); }

static long hc_opts(unsigned int index, unsigned int fold, unsigned int flags,
		    const struct hwprof_region *r, size_t n)
{
	struct hwprof_hist_opts o = { .sz = sizeof(o), .index = index, .fold = fold,
				      .flags = flags, .regions = r, .nregions = n };
	size_t where = 12345;
	long ret = hwprof_hist_check(&o, &where);

	return ret == HWPROF_HIST_OK || where < (n ? n : 1) ? ret : -1000;
}

static long hc_index0(void) { return hc_opts(0, 0, 0, NULL, 0); }
static long hc_index9(void) { return hc_opts(9, 0, 0, NULL, 0); }
static long hc_fold(void) { return hc_opts(1, 0x80, 0, NULL, 0); }
static long hc_flags(void) { return hc_opts(1, 0, 1u << 31, NULL, 0); }
static long hc_noregions(void) { return hc_opts(1, 0, 0, NULL, 3); }
static long hc_threshold(void) { return hc_opts(1, HWPROF_FOLD_WEIGHTED, 0, NULL, 0); }

static long hc_toomany(void)
{
	struct hwprof_region r = one(buf16, sizeof(buf16));

	return hc_opts(1, 0, 0, &r, (size_t)HWPROF_HIST_MAX_REGIONS + 1);
}

static long hc_width(void)
{
	struct hwprof_region r = one(buf16, sizeof(buf16));

	r.width = 24;
	return hc_opts(1, 0, 0, &r, 1);
}

static long hc_scale(void)
{
	struct hwprof_region r = one(buf16, sizeof(buf16));

	r.scale = UINT32_MAX;
	return hc_opts(1, 0, 0, &r, 1);
}

static long hc_nullbase(void)
{
	struct hwprof_region r = one(NULL, 64);

	return hc_opts(1, 0, 0, &r, 1);
}

static long hc_wrap(void)
{
	struct hwprof_region r = one(buf16, SIZE_MAX - 1);

	return hc_opts(1, 0, 0, &r, 1);
}

static long hc_zero(void)
{
	struct hwprof_region r = one(buf16, 0);

	return hc_opts(1, 0, 0, &r, 1);
}

static long hc_huge(void)
{
	struct hwprof_region r = one((void *)(uintptr_t)0x1000, (size_t)1 << 60);

	return hc_opts(1, 0, 0, &r, 1);
}

static long hn_null(void)
{
	struct hwprof_hist *h;

	return hwprof_hist_new(NULL, &h);
}

static long hn_nullout(void)
{
	struct hwprof_hist_opts o = { .sz = sizeof(o), .index = HWPROF_INDEX_PAPI };

	return hwprof_hist_new(&o, NULL);
}

static long hn_region(void *base, size_t size, unsigned int n)
{
	struct hwprof_region r = one(base, size);
	struct hwprof_hist_opts o = { .sz = sizeof(o), .index = HWPROF_INDEX_PAPI,
				      .regions = &r, .nregions = n };
	struct hwprof_hist *h = NULL;
	long ret = hwprof_hist_new(&o, &h);

	if (ret && h)
		return -1000;	/* a histogram returned with an error */
	hwprof_hist_free(h);
	return ret;
}

static long hn_ro(void) { return hn_region(ro, 64, 1); }
static long hn_gone(void) { return hn_region(gone, 64, 1); }
static long hn_edge(void) { return hn_region(end - 32, 64, 1); }
static long hn_text(void) { return hn_region((void *)(uintptr_t)hn_text, 64, 1); }
static long hn_ok(void) { return hn_region(buf16, sizeof(buf16), 1); }
static long hn_toomany(void) { return hn_region(buf16, sizeof(buf16), HWPROF_HIST_MAX_REGIONS + 1); }
static long hn_wrap(void) { return hn_region(buf16, SIZE_MAX - 1, 1); }

static long hn_szmax(void)
{
	struct hwprof_hist_opts o = { .sz = SIZE_MAX, .index = HWPROF_INDEX_PAPI };
	struct hwprof_hist *h = NULL;

	return hwprof_hist_new(&o, &h);
}

static long hn_tail(void)
{
	struct {
		struct hwprof_hist_opts o;
		uint64_t more;
	} big = { .o = { .sz = sizeof(big), .index = HWPROF_INDEX_PAPI }, .more = 1 };
	struct hwprof_hist *h = NULL;

	return hwprof_hist_new(&big.o, &h);
}

static struct hwprof_hist *good_hist(void)
{
	struct hwprof_region r = one(buf16, sizeof(buf16));
	struct hwprof_hist_opts o = { .sz = sizeof(o), .index = HWPROF_INDEX_PAPI,
				      .regions = &r, .nregions = 1 };
	struct hwprof_hist *h = NULL;

	if (hwprof_hist_new(&o, &h))
		abort();
	return h;
}

static long hf_null(void)
{
	uint64_t pc = 0x1000;

	hwprof_hist_free(NULL);
	return (long)hwprof_hist_fold(NULL, &pc, NULL, 1, NULL);
}

static long hf_nullips(void) { return (long)hwprof_hist_fold(good_hist(), NULL, NULL, 5, NULL); }

static long hf_zero(void)
{
	uint64_t pc = 0x1000;

	return (long)hwprof_hist_fold(good_hist(), &pc, NULL, 0, NULL);
}

static long hl_null(void)
{
	size_t r;
	uint64_t b;

	return hwprof_hist_locate(NULL, 0x1000, &r, &b);
}

static long hl_nullout(void) { return hwprof_hist_locate(good_hist(), 0x1000, NULL, NULL); }

static long hs_null(void)
{
	struct hwprof_hist_stats st = { .sz = sizeof(st) };

	return hwprof_hist_stats(NULL, &st);
}

static long hs_nullst(void) { return hwprof_hist_stats(good_hist(), NULL); }

static long hs_sz0(void)
{
	struct hwprof_hist_stats st = { .sz = 0 };

	return hwprof_hist_stats(good_hist(), &st);
}

/* a huge sz: only the fields this library knows are written */
static long hs_szbig(void)
{
	struct hwprof_hist_stats *st = (void *)(end - sizeof(*st));

	memset(st, 0, sizeof(*st));
	st->sz = SIZE_MAX;
	return hwprof_hist_stats(good_hist(), st);
}

static long hsf_neg(void)
{
	return strcmp(hwprof_hist_strfault(-1), "unknown fault") ||
	       strcmp(hwprof_hist_strfault(INT_MAX), "unknown fault");
}

/* ------------------------------------------------------------------ */
/* Diagnostics and events                                               */

static long log_bad(void)
{
	hwprof_set_log(NULL, NULL, INT_MIN);
	hwprof_set_log(NULL, (void *)(uintptr_t)1, INT_MAX);
	return 0;
}

static long ep_nosuch(void) { return hwprof_event_probe("no-such-event-xyz", NULL, 0); }
static long ep_empty_why(void)
{
	char why[1] = { 'x' };
	long ret = hwprof_event_probe("no-such-event-xyz", why, sizeof(why));

	return why[0] ? -1000 : ret;
}

static long ep_long(void)
{
	static char name[100000];
	char why[64];

	memset(name, 'a', sizeof(name) - 1);
	return hwprof_event_probe(name, why, sizeof(why));
}

static long ep_mem_rw(void) { return hwprof_event_probe("mem:0x1000:rw", NULL, 0); }
static long ep_mem_noaddr(void) { return hwprof_event_probe("mem::x", NULL, 0); }
static long ep_mem_badhex(void) { return hwprof_event_probe("mem:0xzz:x", NULL, 0); }
static long ep_mem_nosym(void) { return hwprof_event_probe("mem:no_such_function_xyz:x", NULL, 0); }

static long pi_past(void)
{
	const char *n;
	unsigned int c;
	const char *d;

	return hwprof_preset_info(UINT_MAX, &n, &c, &d);
}

static long pi_nullout(void) { return hwprof_preset_info(0, NULL, NULL, NULL); }

/* ------------------------------------------------------------------ */
/* Sessions                                                             */

static long sn_nullout(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o) };

	return hwprof_session_new(&o, NULL);
}

static long sn_opts(unsigned int mode, unsigned int pages, unsigned int flags, size_t sz)
{
	struct hwprof_session_opts o = { .sz = sz, .mode = mode, .ring_pages = pages,
					 .flags = flags };
	struct hwprof_session *s = NULL;
	long ret = hwprof_session_new(&o, &s);

	if (ret && s)
		return -1000;
	hwprof_session_free(s);
	return ret;
}

static long sn_mode(void) { return sn_opts(7, 0, 0, sizeof(struct hwprof_session_opts)); }
static long sn_pages3(void) { return sn_opts(0, 3, 0, sizeof(struct hwprof_session_opts)); }
static long sn_pagesbig(void) { return sn_opts(0, 1u << 17, 0, sizeof(struct hwprof_session_opts)); }
static long sn_flags(void) { return sn_opts(0, 0, 1u << 30, sizeof(struct hwprof_session_opts)); }
static long sn_sz0(void) { return sn_opts(0, 0, 0, 0); }
static long sn_szmax(void) { return sn_opts(0, 0, 0, SIZE_MAX); }
static long sn_szbig(void) { return sn_opts(0, 0, 0, 1u << 20); }

static struct hwprof_session *good_session(void)
{
	struct hwprof_session *s = NULL;

	if (hwprof_session_new(NULL, &s))
		abort();
	return s;
}

static long sa_null(void) { return hwprof_session_add(NULL, "task-clock", 0, NULL); }
static long sa_nosuch(void) { return hwprof_session_add(good_session(), "no-such-event-xyz", 0, NULL); }
static long sa_thr(void) { return hwprof_session_add(good_session(), "task-clock", UINT64_MAX, NULL); }
static long sa_mem(void) { return hwprof_session_add(good_session(), "mem:0x1000:w", 0, NULL); }

static long sa_many(void)
{
	struct hwprof_session *s = good_session();
	long ret = 0;

	for (int i = 0; i < 65 && ret >= 0; i++)
		ret = hwprof_session_add(s, "page-faults", 0, NULL);
	return ret;
}

static long ss_null(void) { return hwprof_session_start(NULL); }
static long ss_empty(void) { return hwprof_session_start(good_session()); }
static long sp_null(void) { return hwprof_session_stop(NULL); }
static long sp_idle(void) { return hwprof_session_stop(good_session()); }
static long sr_null(void) { return hwprof_session_read(NULL); }
static long sz_null(void) { return hwprof_session_reset(NULL); }

static long st_args(int null_s, int event, int null_st, size_t sz)
{
	struct hwprof_session *s = good_session();
	struct hwprof_session_stats st = { .sz = sz };

	if (hwprof_session_add(s, "page-faults", 0, NULL) != 0)
		abort();
	return hwprof_session_stats(null_s ? NULL : s, event, null_st ? NULL : &st);
}

static long st_null(void) { return st_args(1, 0, 0, sizeof(struct hwprof_session_stats)); }
static long st_nullst(void) { return st_args(0, 0, 1, 0); }
static long st_neg(void) { return st_args(0, -1, 0, sizeof(struct hwprof_session_stats)); }
static long st_past(void) { return st_args(0, 1, 0, sizeof(struct hwprof_session_stats)); }
static long st_sz0(void) { return st_args(0, 0, 0, 0); }

static long so_args(int null_s, int event, int null_objs, int null_n, int with_hist)
{
	struct hwprof_session *s = good_session();
	const struct hwprof_object *objs;
	size_t n;

	if (hwprof_session_add(s, "page-faults", 0, with_hist ? good_hist() : NULL) != 0)
		abort();
	return hwprof_session_objects(null_s ? NULL : s, event, null_objs ? NULL : &objs,
				      null_n ? NULL : &n);
}

static long so_null(void) { return so_args(1, 0, 0, 0, 0); }
static long so_neg(void) { return so_args(0, -1, 0, 0, 0); }
static long so_past(void) { return so_args(0, 5, 0, 0, 0); }
static long so_nullobjs(void) { return so_args(0, 0, 1, 0, 0); }
static long so_nulln(void) { return so_args(0, 0, 0, 1, 0); }
static long so_hist(void) { return so_args(0, 0, 0, 0, 1); }

static long sf_null(void)
{
	hwprof_session_free(NULL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The classic calls: -1 and errno                                      */

static long pr_gone(void) { return profil_((unsigned short *)(void *)gone, 64, 0x1000, 0x10000); }
static long pr_ro(void) { return profil_((unsigned short *)(void *)ro, 64, 0x1000, 0x10000); }
static long pr_edge(void) { return profil_((unsigned short *)(void *)(end - 32), 64, 0x1000, 0x10000); }
static long pr_zero(void) { return profil_(buf16, 0, 0x1000, 0x10000); }
static long pr_scale(void) { return profil_(buf16, sizeof(buf16), 0x1000, 0x20001); }
static long pr_wrap(void) { return profil_(buf16, SIZE_MAX - 1, 0x1000, 0x10000); }

static long sp_prof(struct prof *p, int n, struct timeval *tv, unsigned int flags)
{
	return sprofil(p, n, tv, flags);
}

static struct prof pgood = { .pr_base = buf16, .pr_size = sizeof(buf16),
			     .pr_off = 0x1000, .pr_scale = 0x10000 };

static long spr_neg(void) { return sp_prof(&pgood, -1, NULL, 0); }
static long spr_many(void) { return sp_prof(&pgood, (1 << 20) + 1, NULL, 0); }
static long spr_intmax(void) { return sp_prof(&pgood, INT_MAX, NULL, 0); }
static long spr_nullp(void) { return sp_prof(NULL, 1, NULL, 0); }
static long spr_gone(void) { return sp_prof((struct prof *)(void *)gone, 1, NULL, 0); }

static long spr_edge(void)
{
	struct prof *p = (struct prof *)(void *)(end - sizeof(struct prof));

	*p = pgood;
	return sp_prof(p, 2, NULL, 0);
}

static long spr_flags(void) { return sp_prof(&pgood, 1, NULL, 0x80); }
static long spr_twosizes(void) { return sp_prof(&pgood, 1, NULL, PROF_UINT | (1 << 2)); }
static long spr_tvro(void) { return sp_prof(&pgood, 1, (struct timeval *)(void *)ro, 0); }
static long spr_tvgone(void) { return sp_prof(&pgood, 1, (struct timeval *)(void *)gone, 0); }

static long spr_entry(void *base, size_t size, unsigned long scale)
{
	struct prof p = { .pr_base = base, .pr_size = size, .pr_off = 0x1000,
			  .pr_scale = scale };

	return sp_prof(&p, 1, NULL, 0);
}

static long spr_size0(void) { return spr_entry(buf16, 0, 0x10000); }
static long spr_scale(void) { return spr_entry(buf16, sizeof(buf16), 0x20001); }
static long spr_scalehuge(void) { return spr_entry(buf16, sizeof(buf16), (unsigned long)UINT32_MAX + 5); }
static long spr_basero(void) { return spr_entry(ro, 64, 0x10000); }
static long spr_basenull(void) { return spr_entry(NULL, 64, 0x10000); }
static long spr_wrap(void) { return spr_entry(buf16, SIZE_MAX - 1, 0x10000); }

static long pc_neg(void) { return pcsample((uintptr_t *)(void *)buf16, -1); }
static long pc_null(void) { return pcsample(NULL, 5); }
static long pc_ro(void) { return pcsample((uintptr_t *)(void *)ro, 5); }
static long pc_edge(void) { return pcsample((uintptr_t *)(void *)(end - 16), 5); }
static long pc_wrap(void) { return pcsample((uintptr_t *)(void *)buf16, (1L << 61) + 4); }
static long pc_max(void) { return pcsample((uintptr_t *)(void *)buf16, LONG_MAX); }

static unsigned short hc[1024];

static long mo_type(void)
{
	_mondata.prof_type = 7;
	return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, hc, 1024, 0);
}

static long mo_inverted(void) { return monitor((caddr_t_)0x2000, (caddr_t_)0x1000, hc, 1024, 0); }
static long mo_nobuf(void) { return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, NULL, 1024, 0); }
static long mo_size0(void) { return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, hc, 0, 0); }
static long mo_sizeneg(void) { return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, hc, -5, 0); }
static long mo_nfunc(void) { return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, hc, 1024, -1); }
static long mo_nfuncall(void) { return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, hc, 4, 100); }
static long mo_ro(void) { return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, (unsigned short *)(void *)ro, 1024, 0); }
static long mo_edge(void) { return monitor((caddr_t_)0x1000, (caddr_t_)0x2000, (unsigned short *)(void *)(end - 16), 1024, 0); }
static long mo_huge(void) { return monitor((caddr_t_)0x1000, (caddr_t_)(uintptr_t)(UINTPTR_MAX - 8), hc, 1024, 0); }
static long mo_arr_gone(void) { return monitor((caddr_t_)1, NULL, (unsigned short *)(void *)gone, -1, 0); }
static long mo_arr_null(void) { return monitor((caddr_t_)1, NULL, NULL, -1, 0); }

static long mo_arr(const struct aix_prof *p, size_t n)
{
	struct aix_prof *a = (struct aix_prof *)(void *)(end - n * sizeof(*a));

	memcpy(a, p, n * sizeof(*a));
	return monitor((caddr_t_)1, NULL, (unsigned short *)(void *)a, -1, 0);
}

static long mo_arr_empty(void)
{
	struct aix_prof p[1] = { { 0 } };

	return mo_arr(p, 1);
}

static long mo_arr_noend(void)	/* no p_high 0 before the page ends */
{
	struct aix_prof p[1] = { { (caddr_t_)0x1000, (caddr_t_)0x2000, hc, 1024, 0 } };

	return mo_arr(p, 1);
}

static long mo_arr_order(void)
{
	struct aix_prof p[3] = { { (caddr_t_)0x3000, (caddr_t_)0x4000, hc, 512, 0 },
				 { (caddr_t_)0x1000, (caddr_t_)0x2000, hc + 512, 512, 0 },
				 { 0 } };

	return mo_arr(p, 3);
}

static long mo_arr_apart(void)
{
	struct aix_prof p[3] = { { (caddr_t_)0x1000, (caddr_t_)0x2000, hc, 256, 0 },
				 { (caddr_t_)0x3000, (caddr_t_)0x4000, hc + 512, 256, 0 },
				 { 0 } };

	return mo_arr(p, 3);
}

static long mo_arr_wild(void)	/* pointers and sizes that overflow */
{
	struct aix_prof p[3] = {
		{ (caddr_t_)0x1000, (caddr_t_)0x2000,
		  (unsigned short *)(uintptr_t)(UINTPTR_MAX - 64), INT_MAX, 0 },
		{ (caddr_t_)0x3000, (caddr_t_)0x4000, hc, INT_MIN, 0 },
		{ 0 } };

	return mo_arr(p, 3);
}

static long mo_finish_none(void) { return monitor((caddr_t_)0); }
static long mc_none(void) { return moncontrol(1); }
static long ms_inverted(void) { return monstartup((caddr_t_)0x2000, (caddr_t_)0x1000); }
static long ms_huge(void) { return monstartup((caddr_t_)0x1000, (caddr_t_)(uintptr_t)(UINTPTR_MAX - 8)); }
static long ms_pairs_gone(void) { return monstartup((caddr_t_)-1, gone); }

static long ms_pairs_empty(void)
{
	caddr_t_ (*pair)[2] = (void *)(end - 2 * sizeof(caddr_t_));

	pair[0][0] = (caddr_t_)0x1000;
	pair[0][1] = NULL;
	return monstartup((caddr_t_)-1, (caddr_t_)(void *)pair);
}

static long ms_pairs_edge(void)
{
	caddr_t_ (*pair)[2] = (void *)(end - 2 * sizeof(caddr_t_));

	pair[0][0] = (caddr_t_)0x1000;
	pair[0][1] = (caddr_t_)0x2000;
	return monstartup((caddr_t_)-1, (caddr_t_)(void *)pair);
}

static const struct row rows[] = {
	{ "hwprof_hist_check", "opts NULL", hc_null, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "sz 0", hc_sz0, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "sz 4", hc_sz4, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "sz 4097", hc_szbig, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "sz SIZE_MAX", hc_szmax, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "index 0", hc_index0, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "index 9", hc_index9, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "unknown fold bit", hc_fold, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "unknown flag", hc_flags, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "nregions 3, regions NULL", hc_noregions, HWPROF_HIST_EOPTS, NONE },
	{ "hwprof_hist_check", "WEIGHTED, threshold 0", hc_threshold, HWPROF_HIST_ETHRESHOLD, NONE },
	{ "hwprof_hist_check", "2^20 + 1 regions", hc_toomany, HWPROF_HIST_ETOOMANY, NONE },
	{ "hwprof_hist_check", "width 24", hc_width, HWPROF_HIST_EWIDTH, NONE },
	{ "hwprof_hist_check", "scale 2^32 - 1", hc_scale, HWPROF_HIST_ESCALE, NONE },
	{ "hwprof_hist_check", "base NULL", hc_nullbase, HWPROF_HIST_EBASE, NONE },
	{ "hwprof_hist_check", "base + size wraps", hc_wrap, HWPROF_HIST_EBASE, NONE },
	{ "hwprof_hist_check", "size 0", hc_zero, HWPROF_HIST_EZEROSIZE, NONE },
	{ "hwprof_hist_check", "2^59 buckets", hc_huge, HWPROF_HIST_EBIG, NONE },
	{ "hwprof_hist_strfault", "-1 and INT_MAX", hsf_neg, 0, NONE },
	{ "hwprof_hist_new", "opts NULL", hn_null, -EINVAL, NONE },
	{ "hwprof_hist_new", "out NULL", hn_nullout, -EINVAL, NONE },
	{ "hwprof_hist_new", "sz SIZE_MAX", hn_szmax, -EINVAL, NONE },
	{ "hwprof_hist_new", "non-zero byte past the known struct", hn_tail, -EINVAL, NONE },
	{ "hwprof_hist_new", "buffer read-only", hn_ro, -EFAULT, NONE },
	{ "hwprof_hist_new", "buffer unmapped", hn_gone, -EFAULT, NONE },
	{ "hwprof_hist_new", "buffer runs into an unmapped page", hn_edge, -EFAULT, NONE },
	{ "hwprof_hist_new", "buffer in program text", hn_text, -EFAULT, NONE },
	{ "hwprof_hist_new", "2^20 + 1 regions", hn_toomany, -E2BIG, NONE },
	{ "hwprof_hist_new", "size wraps", hn_wrap, -EINVAL, NONE },
	{ "hwprof_hist_new", "a good table (control)", hn_ok, 0, NONE },
	{ "hwprof_hist_fold", "h NULL (and hwprof_hist_free(NULL))", hf_null, 0, NONE },
	{ "hwprof_hist_fold", "ips NULL", hf_nullips, 0, NONE },
	{ "hwprof_hist_fold", "n 0", hf_zero, 0, NONE },
	{ "hwprof_hist_locate", "h NULL", hl_null, 0, NONE },
	{ "hwprof_hist_locate", "region, bucket NULL", hl_nullout, 1, NONE },
	{ "hwprof_hist_stats", "h NULL", hs_null, -EINVAL, NONE },
	{ "hwprof_hist_stats", "st NULL", hs_nullst, -EINVAL, NONE },
	{ "hwprof_hist_stats", "st->sz 0", hs_sz0, -EINVAL, NONE },
	{ "hwprof_hist_stats", "st->sz SIZE_MAX at a page end", hs_szbig, 0, NONE },
	{ "hwprof_set_log", "NULL fn, INT_MIN and INT_MAX levels", log_bad, 0, NONE },
	{ "hwprof_event_probe", "unknown name", ep_nosuch, -ENOENT, NONE },
	{ "hwprof_event_probe", "why of 1 byte", ep_empty_why, -ENOENT, NONE },
	{ "hwprof_event_probe", "a 99999-byte name", ep_long, -ENOENT, NONE },
	{ "hwprof_event_probe", "mem:0x1000:rw", ep_mem_rw, -EINVAL, NONE },
	{ "hwprof_event_probe", "mem::x", ep_mem_noaddr, -EINVAL, NONE },
	{ "hwprof_event_probe", "mem:0xzz:x", ep_mem_badhex, -EINVAL, NONE },
	{ "hwprof_event_probe", "mem:no_such_function:x", ep_mem_nosym, -ENOENT, NONE },
	{ "hwprof_preset_info", "index UINT_MAX", pi_past, -ENOENT, NONE },
	{ "hwprof_preset_info", "outputs NULL", pi_nullout, 0, NONE },
	{ "hwprof_session_new", "out NULL", sn_nullout, -EINVAL, NONE },
	{ "hwprof_session_new", "mode 7", sn_mode, -EINVAL, NONE },
	{ "hwprof_session_new", "ring_pages 3", sn_pages3, -EINVAL, NONE },
	{ "hwprof_session_new", "ring_pages 2^17", sn_pagesbig, -EINVAL, NONE },
	{ "hwprof_session_new", "unknown flag", sn_flags, -EINVAL, NONE },
	{ "hwprof_session_new", "sz 0", sn_sz0, -EINVAL, NONE },
	{ "hwprof_session_new", "sz 2^20", sn_szbig, -EINVAL, NONE },
	{ "hwprof_session_new", "sz SIZE_MAX", sn_szmax, -EINVAL, NONE },
	{ "hwprof_session_add", "s NULL", sa_null, -EINVAL, NONE },
	{ "hwprof_session_add", "unknown event", sa_nosuch, -ENOENT, NONE },
	{ "hwprof_session_add", "threshold 2^64 - 1", sa_thr, -EINVAL, NONE },
	{ "hwprof_session_add", "mem:0x1000:w", sa_mem, -EINVAL, NONE },
	{ "hwprof_session_add", "65 events", sa_many, -E2BIG, NONE },
	{ "hwprof_session_start", "s NULL", ss_null, -EINVAL, NONE },
	{ "hwprof_session_start", "no event", ss_empty, -ENOENT, NONE },
	{ "hwprof_session_stop", "s NULL", sp_null, -EINVAL, NONE },
	{ "hwprof_session_stop", "not running", sp_idle, -EALREADY, NONE },
	{ "hwprof_session_read", "s NULL", sr_null, -EINVAL, NONE },
	{ "hwprof_session_reset", "s NULL", sz_null, -EINVAL, NONE },
	{ "hwprof_session_stats", "s NULL", st_null, -EINVAL, NONE },
	{ "hwprof_session_stats", "st NULL", st_nullst, -EINVAL, NONE },
	{ "hwprof_session_stats", "event -1", st_neg, -EINVAL, NONE },
	{ "hwprof_session_stats", "event past the last", st_past, -EINVAL, NONE },
	{ "hwprof_session_stats", "st->sz 0", st_sz0, -EINVAL, NONE },
	{ "hwprof_session_objects", "s NULL", so_null, -EINVAL, NONE },
	{ "hwprof_session_objects", "event -1", so_neg, -EINVAL, NONE },
	{ "hwprof_session_objects", "event past the last", so_past, -EINVAL, NONE },
	{ "hwprof_session_objects", "objs NULL", so_nullobjs, -EINVAL, NONE },
	{ "hwprof_session_objects", "n NULL", so_nulln, -EINVAL, NONE },
	{ "hwprof_session_objects", "event with the caller's histogram", so_hist, -ENOENT, NONE },
	{ "hwprof_session_free", "NULL", sf_null, 0, NONE },
	{ "profil", "buf unmapped", pr_gone, -1, EFAULT },
	{ "profil", "buf read-only", pr_ro, -1, EFAULT },
	{ "profil", "buf runs into an unmapped page", pr_edge, -1, EFAULT },
	{ "profil", "bufsiz 0", pr_zero, -1, EINVAL },
	{ "profil", "scale 0x20001", pr_scale, -1, EINVAL },
	{ "profil", "bufsiz wraps", pr_wrap, -1, EFAULT },
	{ "sprofil", "profcnt -1", spr_neg, -1, E2BIG },
	{ "sprofil", "profcnt 2^20 + 1", spr_many, -1, E2BIG },
	{ "sprofil", "profcnt INT_MAX", spr_intmax, -1, E2BIG },
	{ "sprofil", "profp NULL", spr_nullp, -1, EFAULT },
	{ "sprofil", "profp unmapped", spr_gone, -1, EFAULT },
	{ "sprofil", "profp runs into an unmapped page", spr_edge, -1, EFAULT },
	{ "sprofil", "unknown flag", spr_flags, -1, EINVAL },
	{ "sprofil", "PROF_UINT | PROF_UINT64", spr_twosizes, -1, EINVAL },
	{ "sprofil", "tvp read-only", spr_tvro, -1, EFAULT },
	{ "sprofil", "tvp unmapped", spr_tvgone, -1, EFAULT },
	{ "sprofil", "pr_size 0", spr_size0, -1, EINVAL },
	{ "sprofil", "pr_scale 0x20001", spr_scale, -1, EINVAL },
	{ "sprofil", "pr_scale 2^32 + 4", spr_scalehuge, -1, EINVAL },
	{ "sprofil", "pr_base read-only", spr_basero, -1, EFAULT },
	{ "sprofil", "pr_base NULL", spr_basenull, -1, EFAULT },
	{ "sprofil", "pr_size wraps", spr_wrap, -1, EFAULT },
	{ "pcsample", "nsamples -1", pc_neg, -1, EINVAL },
	{ "pcsample", "samples NULL", pc_null, -1, EFAULT },
	{ "pcsample", "samples read-only", pc_ro, -1, EFAULT },
	{ "pcsample", "samples run into an unmapped page", pc_edge, -1, EFAULT },
	{ "pcsample", "nsamples 2^61 + 4 (wraps to 32 bytes)", pc_wrap, -1, EFAULT },
	{ "pcsample", "nsamples LONG_MAX", pc_max, -1, EFAULT },
	{ "monitor", "_mondata.prof_type 7", mo_type, -1, NONE },
	{ "monitor", "highpc below lowpc", mo_inverted, -1, NONE },
	{ "monitor", "buffer NULL", mo_nobuf, -1, NONE },
	{ "monitor", "bufsize 0", mo_size0, -1, NONE },
	{ "monitor", "bufsize -5", mo_sizeneg, -1, NONE },
	{ "monitor", "nfunc -1", mo_nfunc, -1, NONE },
	{ "monitor", "function counts fill the buffer", mo_nfuncall, -1, NONE },
	{ "monitor", "buffer read-only", mo_ro, -1, NONE },
	{ "monitor", "buffer runs into an unmapped page", mo_edge, -1, NONE },
	{ "monitor", "range of 2^64 - 0x1008 bytes", mo_huge, -1, NONE },
	{ "monitor", "prof array unmapped", mo_arr_gone, -1, NONE },
	{ "monitor", "prof array NULL", mo_arr_null, -1, NONE },
	{ "monitor", "prof array with no range", mo_arr_empty, -1, NONE },
	{ "monitor", "prof array with no end before an unmapped page", mo_arr_noend, -1, NONE },
	{ "monitor", "prof array not ascending", mo_arr_order, -1, NONE },
	{ "monitor", "prof array buffers not contiguous", mo_arr_apart, -1, NONE },
	{ "monitor", "prof array with wrapping buffer pointers and sizes", mo_arr_wild, -1, NONE },
	{ "monitor", "monitor(0) with nothing set up", mo_finish_none, -1, NONE },
	{ "moncontrol", "nothing set up", mc_none, -1, NONE },
	{ "monstartup", "highpc below lowpc", ms_inverted, -1, NONE },
	{ "monstartup", "range of 2^64 - 0x1008 bytes", ms_huge, -1, NONE },
	{ "monstartup", "pair array unmapped", ms_pairs_gone, -1, NONE },
	{ "monstartup", "pair array with no range", ms_pairs_empty, -1, NONE },
	{ "monstartup", "pair array with no end before an unmapped page", ms_pairs_edge, -1, NONE },
};

/* One row in a child: 0 when it returned what it should. */
static int run(const struct row *r)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		long ret;
		int err;

		alarm(30);
		errno = 0;
		ret = r->fn();
		err = errno;
		if (ret == r->want && (r->err == NONE || err == r->err))
			_exit(0);
		printf("FAIL %s (%s): returned %ld errno %d (%s), want %ld", r->call,
		       r->input, ret, err, strerror(err), r->want);
		if (r->err != NONE)
			printf(" errno %d (%s)", r->err, strerror(r->err));
		printf("\n");
		_exit(1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st)) {
		printf("FAIL %s (%s): killed by signal %d (%s)\n", r->call, r->input,
		       WTERMSIG(st), strsignal(WTERMSIG(st)));
		return -1;
	}
	return WEXITSTATUS(st) ? -1 : 0;
}

/* A raw probe, without hwprof. */
static int task_clock_opens(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0) {
		printf("task-clock: perf_event_open: %s: the classic calls' rows are skipped\n",
		       strerror(errno));
		return 0;
	}
	close((int)fd);
	return 1;
}

int main(void)
{
	size_t n = sizeof(rows) / sizeof(rows[0]), bad = 0;
	int perf;
	char *p;

	setvbuf(stdout, NULL, _IONBF, 0);
	psz = sysconf(_SC_PAGESIZE);
	p = mmap(NULL, 3 * (size_t)psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return T_ERROR;
	ro = p;
	mprotect(ro, (size_t)psz, PROT_READ);
	end = gone = p + 2 * psz;
	/* inaccessible rather than unmapped: an unmapped hole can be taken
	 * by the next mmap (a sanitizer's allocator's, say) */
	mprotect(gone, (size_t)psz, PROT_NONE);
	/* the classic calls need an event that opens everywhere */
	setenv("HWPROF_EVENT", "task-clock", 1);
	perf = task_clock_opens();
	unsetenv("HWPROF_PERIOD");
	for (size_t i = 0; i < n; i++) {
		int ret;

		/* the classic calls check the event first: without it (no
		 * perf_event_open here) their rows say nothing */
		if (!perf && strncmp(rows[i].call, "hwprof_", 7)) {
			printf("skip %s (%s): task-clock cannot be opened here\n",
			       rows[i].call, rows[i].input);
			continue;
		}
		ret = run(&rows[i]);

		if (!ret)
			printf("ok   %s (%s)\n", rows[i].call, rows[i].input);
		bad += ret != 0;
	}
	printf("%zu rows, %zu failed\n", n, bad);
	return bad ? T_FAIL : T_PASS;
}
