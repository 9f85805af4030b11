/* SPDX-License-Identifier: MIT */
/*
 * profil and sprofil as glibc declares them, on the engine and the core:
 * any event (HWPROF_EVENT) at any period (HWPROF_PERIOD), every thread,
 * counters that saturate, the overflow bin anywhere, HP-UX's errors where
 * glibc has none. Also the classic slot the four classic calls share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/profil.h>
#include <sys/time.h>

#include "classic.h"
#include "lost.h"

/* Not <unistd.h> nor <hwprof/profil.h>: glibc declares profil()'s buffer
 * nonnull there, which would let the compiler drop the NULL test that
 * turns profiling off. */
int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale);

#ifndef PROF_UINT64
#define PROF_UINT64 (1 << 2) /* as <hwprof/profil.h> */
#endif

pthread_mutex_t hwp_classic_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	enum hwp_classic_kind kind;
	struct hwprof_session *s;
	struct hwprof_hist *h;
} classic; /* the one classic call profiling now */

enum hwp_classic_kind hwp_classic_kind(void)
{
	return classic.kind;
}

void hwp_classic_arm(void)
{
	if (classic.s)
		hwp_session_arm(classic.s);
}

int hwp_classic_replace(enum hwp_classic_kind kind, const struct hwp_env *env,
			struct hwprof_hist *h, hwp_sink_fn sink, void *arg)
{
	struct hwprof_session_opts o = {
		.sz = sizeof(o),
		.mode = HWPROF_SESSION_PROCESS,
	};
	struct hwprof_session *s = NULL;
	int ret;

	if (classic.s)
		hwprof_session_stop(classic.s); /* old buffers are exact */
	hwp_lost_unwatch(classic.s);		/* then its losses are final */
	hwprof_session_free(classic.s);
	hwprof_hist_free(classic.h);
	memset(&classic, 0, sizeof(classic));
	if (!h && !sink)
		return 0;
	ret = hwprof_session_new(&o, &s);
	if (!ret) {
		ret = hwp_session_add_ev(s, &env->ev, env->period, h, sink, arg);
		if (ret > 0)
			ret = 0;
	}
	if (!ret)
		ret = hwp_session_start_quiet(s);
	if (ret) {
		hwprof_session_free(s);
		hwprof_hist_free(h);
		return ret;
	}
	classic.kind = kind;
	classic.s = s;
	classic.h = h;
	hwp_lost_watch(s);
	return 0;
}

/* The real period of the driving event: time for the clocks, else 0. */
static void period_tv(const struct hwp_env *env, struct timeval *tv)
{
	tv->tv_sec = 0;
	tv->tv_usec = 0;
	if (env->clock) {
		uint64_t ns = hwp_attr_applied_period(1, env->period);

		tv->tv_sec = (time_t)(ns / 1000000000u);
		tv->tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
	}
}

/* A table fault as the classic calls report it. */
static int fault_errno(const struct hwprof_hist_opts *o)
{
	switch (hwprof_hist_check(o, NULL)) {
	case HWPROF_HIST_OK:
		return 0;
	case HWPROF_HIST_ETOOMANY:
		return -E2BIG;
	case HWPROF_HIST_EBASE:
		return -EFAULT;
	default:
		return -EINVAL;
	}
}

static int start_hist(const struct hwprof_hist_opts *o, const struct hwp_env *env)
{
	struct hwprof_hist *h;
	void **base = NULL;
	size_t *len = NULL, n = 0;
	int ret = 0;

	/* every buffer that will be written, against the maps at once */
	base = malloc(o->nregions * sizeof(*base));
	len = malloc(o->nregions * sizeof(*len));
	if (!base || !len)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < o->nregions; i++) {
		if (o->regions[i].scale < 2)
			continue;
		base[n] = o->regions[i].base;
		len[n++] = o->regions[i].size;
	}
	if (!ret && !hwp_user_writable_all(base, len, n))
		ret = -EFAULT;
	free(base);
	free(len);
	if (!ret) {
		ret = hwprof_hist_new(o, &h);
		if (ret == -EINVAL) /* which rule: the errno the call reports */
			ret = fault_errno(o);
		if (!ret) /* named in the line a buffer fault prints */
			hwp_hist_set_api(h, o->index == HWPROF_INDEX_PROFIL ? "profil" :
									      "sprofil");
	}
	if (!ret)
		ret = hwp_classic_replace(HWP_CLASSIC_PROFIL, env, h, NULL, NULL);
	if (ret && ret != -EFAULT && ret != -E2BIG && ret != -ENOMEM)
		ret = -EINVAL; /* the event could not run: said on stderr */
	return ret;
}

HWPROF_API int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale)
{
	struct hwprof_region r = {
		.base = buf,
		.size = bufsiz,
		.offset = offset,
		.scale = scale,
		.width = 16,
	};
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = &r,
		.nregions = 1,
		.index = HWPROF_INDEX_PROFIL,
		.flags = HWPROF_HIST_PARTIAL,
	};
	struct hwp_env env;
	int ret;

	pthread_mutex_lock(&hwp_classic_lock);
	if (!buf || scale < 2) { /* off, as Solaris and HP-UX say */
		ret = hwp_classic_replace(HWP_CLASSIC_NONE, NULL, NULL, NULL, NULL);
	} else {
		ret = hwp_env_get(&env);
		if (!ret)
			ret = start_hist(&o, &env);
	}
	if (!ret)
		hwp_classic_arm();
	pthread_mutex_unlock(&hwp_classic_lock);
	return ret ? hwp_fail(ret) : 0;
}

HWPROF_API int sprofil(struct prof *profp, int profcnt, struct timeval *tvp,
		       unsigned int flags)
{
	const unsigned int known = PROF_UINT | PROF_FAST | PROF_UINT64;
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.index = HWPROF_INDEX_SPROFIL,
		.flags = HWPROF_HIST_SORT | HWPROF_HIST_OVERLAP | HWPROF_HIST_PARTIAL |
			 HWPROF_HIST_SKIP_OFF,
	};
	struct hwprof_region *reg = NULL;
	struct prof *p = NULL;
	struct timeval tv;
	struct hwp_env env;
	uint32_t width;
	int ret, live = 0;

	if ((flags & ~known) || ((flags & PROF_UINT) && (flags & PROF_UINT64)))
		return hwp_fail(-EINVAL);
	if (profcnt < 0 || (unsigned int)profcnt > HWPROF_HIST_MAX_REGIONS)
		return hwp_fail(-E2BIG);
	if (tvp && !hwp_user_writable(tvp, sizeof(*tvp)))
		return hwp_fail(-EFAULT);
	width = flags & PROF_UINT64 ? 64 : flags & PROF_UINT ? 32 : 16;

	pthread_mutex_lock(&hwp_classic_lock);
	if (!profcnt) { /* off; tvp still told the period */
		ret = hwp_classic_replace(HWP_CLASSIC_NONE, NULL, NULL, NULL, NULL);
		if (tvp && !hwp_env_get(&env)) {
			period_tv(&env, &tv);
			*tvp = tv;
		}
		goto out;
	}
	ret = hwp_env_get(&env);
	if (ret)
		goto out;
	p = malloc((size_t)profcnt * sizeof(*p));
	reg = calloc((size_t)profcnt, sizeof(*reg));
	if (!p || !reg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = hwp_user_read(p, profp, (size_t)profcnt * sizeof(*p));
	if (ret)
		goto out;
	for (int i = 0; i < profcnt; i++) {
		if (p[i].pr_scale >= 2)
			live++;
		if (p[i].pr_scale > UINT32_MAX) {
			ret = -EINVAL;
			goto out;
		}
		if (p[i].pr_scale >= 2 && !p[i].pr_size) {
			ret = -EINVAL; /* HP-UX: a pr_size of zero */
			goto out;
		}
		reg[i] = (struct hwprof_region){
			.base = p[i].pr_base,
			.size = p[i].pr_size,
			.offset = p[i].pr_off,
			.scale = (uint32_t)p[i].pr_scale,
			.width = width,
		};
	}
	if (!live) { /* every entry off: profiling off (IRIX) */
		ret = hwp_classic_replace(HWP_CLASSIC_NONE, NULL, NULL, NULL, NULL);
	} else {
		o.regions = reg;
		o.nregions = (size_t)profcnt;
		ret = start_hist(&o, &env);
	}
	if (!ret && tvp) {
		period_tv(&env, &tv);
		*tvp = tv;
	}
out:
	free(p);
	free(reg);
	if (!ret)
		hwp_classic_arm(); /* last: none of this call is sampled */
	pthread_mutex_unlock(&hwp_classic_lock);
	return ret ? hwp_fail(ret) : 0;
}
