/* SPDX-License-Identifier: MIT */
/*
 * PAPI_profil, PAPI_sprofil and PAPI_overflow: their checks, in PAPI 7's
 * order, and the EventSet's profiling state. How the events then sample
 * (a kernel session, or FORCE_SW signals) is papi_sample.c's.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "papi_priv.h"

#define MAX_PROF 8 /* profiled events per EventSet */

/* ------------------------------------------------------------------ */
/* Profiling                                                            */

/* The histogram of checked sprofil regions, in PAPI's index formula and
 * the bucket width flags asks for (PAPI_PROFIL_BUCKET_16 when none). */
static int build_hist(const PAPI_sprofil_t *prof, int profcnt, int threshold, int flags,
		      const char *api, struct hwprof_hist **h)
{
	struct hwprof_region reg[64], *r = reg;
	struct hwprof_hist_opts o = { .sz = sizeof(o),
				      .index = HWPROF_INDEX_PAPI,
				      .flags = HWPROF_HIST_SORT | HWPROF_HIST_OVERLAP |
					       HWPROF_HIST_PARTIAL };
	int buckets = flags & PAPI_PROFIL_BUCKETS, ret, width;

	width = buckets == PAPI_PROFIL_BUCKET_64 ? 64 :
		buckets == PAPI_PROFIL_BUCKET_32 ? 32 :
						   16;
	if (profcnt > 64 && !(r = calloc((size_t)profcnt, sizeof(*r))))
		return PAPI_ENOMEM;
	for (int k = 0; k < profcnt; k++)
		r[k] = (struct hwprof_region){
			.base = prof[k].pr_base,
			.size = prof[k].pr_size,
			.offset = (uint64_t)(uintptr_t)prof[k].pr_off,
			.scale = prof[k].pr_scale,
			.width = (uint32_t)width,
		};
	o.regions = r;
	o.nregions = (size_t)profcnt;
	o.fold = (unsigned int)(flags & (PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED |
					 PAPI_PROFIL_COMPRESS));
	o.threshold = (uint64_t)threshold;
	ret = hwp_papi_errno(hwprof_hist_new(&o, h), HWP_PAPI_AT_USE);
	if (!ret)
		hwp_hist_set_api(*h, api); /* named if its buffers fault */
	if (r != reg)
		free(r);
	return ret;
}

/* PAPI_sprofil's checks in PAPI 7's order; @empty: PAPI_profil with
 * bufsiz 0, profiled with nowhere to write. */
/* A preset PAPI derives from several events on this CPU: no counter of
 * its own to sample (PAPI refuses it too; FORCE_SW does not help here). */
static int derived(const struct hwp_pevent *e)
{
	struct hwp_preset_terms t;

	hwp_papi_terms(e->name, &t);
	return t.derived != NULL;
}

static int sprofil_locked(PAPI_sprofil_t *prof, int profcnt, int id, int code, int threshold,
			  int flags, int empty, const char *api)
{
	const int known = PAPI_PROFIL_POSIX | PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED |
			  PAPI_PROFIL_COMPRESS | PAPI_PROFIL_BUCKETS | PAPI_PROFIL_FORCE_SW |
			  PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR;
	struct hwprof_hist *h = NULL;
	struct hwp_pevent *e;
	struct hwp_pset *s;
	int ret, i, nprof = 0, buckets;

	ret = hwp_papi_stopped(id, &s); /* 1, 2 */
	if (ret)
		return ret;
	i = hwp_papi_index(s, code);
	if (i < 0) /* 5 */
		return PAPI_ENOEVNT;
	e = &s->ev[i];
	if (derived(e)) /* 6 */
		return PAPI_EINVAL;
	if (!prof) /* 7 */
		profcnt = 0;
	for (int k = 0; k < profcnt; k++) { /* 8 */
		unsigned sc = prof[k].pr_scale;

		if (sc != 0x20000 && (sc < 2 || sc > 0x10000))
			return PAPI_EINVAL;
	}
	if (threshold < 0) /* 9 */
		return PAPI_EINVAL;
	if (!threshold) { /* 10, 12: turn off */
		if (!e->threshold)
			return PAPI_EINVAL;
		hwp_papi_unprofile(e);
		return PAPI_OK;
	}
	for (int k = 0; k < s->nev; k++)
		nprof += s->ev[k].threshold && k != i;
	if (nprof >= MAX_PROF || i >= HWP_PAPI_MAX_OV) /* 11 */
		return PAPI_ECNFLCT;
	for (int k = 0; k < s->nev; k++) /* 13 */
		if (k != i && s->ev[k].threshold &&
		    (s->ev[k].flags & PAPI_PROFIL_FORCE_SW) != (flags & PAPI_PROFIL_FORCE_SW))
			return PAPI_ECNFLCT;
	if (flags & ~known) /* 15 */
		return PAPI_EINVAL;
	buckets = flags & PAPI_PROFIL_BUCKETS; /* 16 */
	if (!buckets)
		flags |= buckets = PAPI_PROFIL_BUCKET_16;
	if (buckets & (buckets - 1))
		return PAPI_EINVAL;
	if (flags & (PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR)) /* 18 */
		return PAPI_ENOSUPP;
	if (empty)
		goto set;
	if (!profcnt)
		return PAPI_EINVAL; /* PAPI would dereference NULL at the first sample */
	ret = build_hist(prof, profcnt, threshold, flags, api, &h);
	if (ret)
		return ret;
set: /* all checked: only now does the EventSet change */
	hwprof_hist_free(e->hist);
	e->hist = h;
	e->threshold = threshold;
	e->flags = flags;
	return PAPI_OK;
}

HWPROF_API int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int id, int code, int threshold,
			    int flags)
{
	int ret;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	hwp_papi_lock();
	ret = sprofil_locked(prof, profcnt, id, code, threshold, flags, 0, "PAPI_sprofil");
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset, unsigned scale, int id,
			   int code, int threshold, int flags)
{
	PAPI_sprofil_t one = { buf, bufsiz, offset, scale };
	struct hwp_pset *s;
	int ret;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (threshold <= 0) /* PAPI: a negative threshold turns off too */
		return PAPI_sprofil(NULL, 0, id, code, 0, flags);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s)
		ret = PAPI_ENOEVST;
	else if (hwp_papi_index(s, code) < 0)
		ret = PAPI_ENOEVNT;
	else /* bufsiz 0: PAPI 7 accepts it and never writes */
		ret = sprofil_locked(&one, 1, id, code, threshold, flags, bufsiz == 0,
				     "PAPI_profil");
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_overflow(int id, int code, int threshold, int flags,
			     PAPI_overflow_handler_t handler)
{
	struct hwp_pevent *e;
	struct hwp_pset *s;
	int ret, i;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	hwp_papi_lock();
	ret = hwp_papi_stopped(id, &s);
	if (ret)
		goto out;
	i = hwp_papi_index(s, code);
	if (i < 0) {
		ret = PAPI_ENOEVNT;
		goto out;
	}
	e = &s->ev[i];
	if (threshold < 0 || (threshold && !handler) ||
	    (flags & ~(PAPI_OVERFLOW_FORCE_SW | PAPI_OVERFLOW_HARDWARE)) ||
	    (threshold && derived(e))) {
		ret = PAPI_EINVAL;
	} else if (!threshold) { /* off: only what is on */
		ret = e->handler ? PAPI_OK : PAPI_EINVAL;
		e->handler = NULL;
		e->ov_threshold = 0;
	} else if (i >= HWP_PAPI_MAX_OV) {
		ret = PAPI_ECNFLCT;
	} else {
		e->handler = handler;
		e->ov_threshold = threshold;
		e->ov_flags = flags;
	}
out:
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_get_overflow_event_index(int id, long long vec, int *array, int *number)
{
	struct hwp_pset *s;
	int ret = PAPI_OK, n = 0;

	if (!array || !number || *number <= 0 || !vec)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s) {
		ret = PAPI_ENOEVST;
	} else {
		for (int i = 0; i < s->nev && i < HWP_PAPI_MAX_OV && n < *number; i++)
			if ((vec & (1LL << i)) && (s->ev[i].handler || s->ev[i].threshold))
				array[n++] = i;
		*number = n;
		if (!n)
			ret = PAPI_EINVAL;
	}
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}
