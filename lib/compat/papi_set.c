/* SPDX-License-Identifier: MIT */
/*
 * EventSets and counting. An EventSet is allocated when created and
 * counts with one perf fd per event (one per term of a derived preset),
 * opened at PAPI_start() on the starting thread (or the attached thread,
 * or a CPU). As PAPI's perf_event component: a set that is not
 * multiplexed is one group, its first fd the pinned leader, so its events
 * count over the same intervals, and a group the PMU cannot schedule is
 * refused with PAPI_ECNFLCT, at PAPI_add_event() and PAPI_start()
 * (enabled, disabled and read: a pinned group that cannot go on reads 0
 * bytes); a multiplexed set is one group per
 * fd, and counts are scaled by time_enabled/time_running. Every call takes
 * the PAPI lock; none runs user code under it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lost.h"
#include "papi_priv.h"

static struct hwp_pset **sets; /* id -> EventSet, under the PAPI lock */
static int nsets;

struct hwp_pset *hwp_papi_set(int id)
{
	return id >= 0 && id < nsets ? sets[id] : NULL;
}

/* PAPI's first two checks: the EventSet exists, and it is stopped (and
 * no PAPI_stop() is still running handlers on it). */
int hwp_papi_stopped(int id, struct hwp_pset **s)
{
	*s = hwp_papi_set(id);
	if (!*s)
		return PAPI_ENOEVST;
	return (*s)->state & PAPI_RUNNING || (*s)->draining ? PAPI_EISRUN : PAPI_OK;
}

int hwp_papi_index(const struct hwp_pset *s, int code)
{
	for (int i = 0; i < s->nev; i++)
		if (s->ev[i].code == code)
			return i;
	return -1;
}

static void set_free(struct hwp_pset *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nev; i++)
		hwp_papi_unprofile(&s->ev[i]);
	free(s->ev);
	free(s);
}

void hwp_papi_sets_free(void)
{
	for (int i = 0; i < nsets; i++)
		set_free(sets[i]);
	free(sets);
	sets = NULL;
	nsets = 0;
}

/* Stops every running EventSet (PAPI_shutdown), the lock not held. */
void hwp_papi_sets_stop_all(void)
{
	int n;

	hwp_papi_lock();
	n = nsets;
	hwp_papi_unlock();
	for (int i = 0; i < n; i++)
		PAPI_stop(i, NULL);
}

HWPROF_API int PAPI_create_eventset(int *id)
{
	struct hwp_pset *s;
	int i;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!id || *id != PAPI_NULL)
		return hwp_papi_err(PAPI_EINVAL);
	s = calloc(1, sizeof(*s));
	if (!s)
		return hwp_papi_err(PAPI_ENOMEM);
	s->state = PAPI_STOPPED;
	s->cidx = -1;
	s->domain = hwp_papi_defdom();
	s->granularity = hwp_papi_defgrn();
	s->cpu = -1;
	hwp_papi_lock();
	for (i = 0; i < nsets && sets[i]; i++)
		;
	if (i == nsets) {
		int n = nsets ? nsets * 2 : 16;
		struct hwp_pset **p = realloc(sets, (size_t)n * sizeof(*p));

		if (!p) {
			hwp_papi_unlock();
			free(s);
			return hwp_papi_err(PAPI_ENOMEM);
		}
		memset(p + nsets, 0, (size_t)(n - nsets) * sizeof(*p));
		sets = p;
		nsets = n;
	}
	s->id = i;
	sets[i] = s;
	*id = i;
	hwp_papi_unlock();
	return PAPI_OK;
}

HWPROF_API int PAPI_assign_eventset_component(int id, int cidx)
{
	struct hwp_pset *s;
	int ret;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (cidx != 0)
		return hwp_papi_err(PAPI_ENOCMP);
	hwp_papi_lock();
	ret = hwp_papi_stopped(id, &s);
	if (!ret)
		s->cidx = 0;
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_get_eventset_component(int id)
{
	struct hwp_pset *s;
	int ret;

	hwp_papi_lock();
	s = hwp_papi_set(id);
	ret = !s ? PAPI_ENOEVST : s->cidx < 0 ? PAPI_ENOCMP : s->cidx;
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

static int fits(struct hwp_pset *s);

static int add_locked(struct hwp_pset *s, int code)
{
	const char *n = hwp_papi_code_name(code);
	struct hwp_pevent *e;
	int r;

	if (!n)
		return PAPI_ENOEVNT;
	if (hwp_papi_cmp_disabled())
		return PAPI_ECMP_DISABLED;
	if (s->state & PAPI_RUNNING || s->draining)
		return PAPI_EISRUN;
	if (hwp_papi_index(s, code) >= 0)
		return PAPI_ECNFLCT;
	if (s->nev == HWP_PAPI_MAX_EVENTS)
		return PAPI_ECOUNT;
	r = hwp_papi_probe(n);
	if (r)
		return r;
	if (s->nev == s->cap) {
		int c = s->cap ? s->cap * 2 : 4;

		e = realloc(s->ev, (size_t)c * sizeof(*e));
		if (!e)
			return PAPI_ENOMEM;
		s->ev = e;
		s->cap = c;
	}
	e = &s->ev[s->nev];
	memset(e, 0, sizeof(*e));
	e->code = code;
	e->fd = -1;
	for (int k = 0; k < HWP_PRESET_MAX_TERMS; k++)
		e->tfd[k] = -1;
	snprintf(e->name, sizeof(e->name), "%s", n);
	s->nev++;
	r = fits(s);
	if (r) {
		s->nev--;
		return r;
	}
	s->cidx = 0;
	return PAPI_OK;
}

HWPROF_API int PAPI_add_event(int id, int code)
{
	struct hwp_pset *s;
	int ret;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	ret = s ? add_locked(s, code) : PAPI_ENOEVST;
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_add_events(int id, int *codes, int number)
{
	if (!codes || number <= 0)
		return hwp_papi_err(PAPI_EINVAL);
	for (int i = 0; i < number; i++) {
		int r = PAPI_add_event(id, codes[i]);

		if (r) /* PAPI: how many went in, as a positive count */
			return i ? i : r;
	}
	return PAPI_OK;
}

HWPROF_API int PAPI_add_named_event(int id, const char *name)
{
	int code, r;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!name)
		return hwp_papi_err(PAPI_EINVAL);
	r = PAPI_event_name_to_code(name, &code);
	return r ? r : PAPI_add_event(id, code);
}

HWPROF_API int PAPI_remove_event(int id, int code)
{
	struct hwp_pset *s;
	int ret, i;

	hwp_papi_lock();
	ret = hwp_papi_stopped(id, &s);
	if (!ret && (i = hwp_papi_index(s, code)) < 0)
		ret = PAPI_EINVAL;
	else if (!ret) {
		hwp_papi_unprofile(&s->ev[i]);
		memmove(&s->ev[i], &s->ev[i + 1], (size_t)(s->nev - i - 1) * sizeof(s->ev[0]));
		s->nev--;
	}
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_remove_named_event(int id, const char *name)
{
	int code, r;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!name)
		return hwp_papi_err(PAPI_EINVAL);
	r = PAPI_event_name_to_code(name, &code);
	return r ? r : PAPI_remove_event(id, code);
}

HWPROF_API int PAPI_remove_events(int id, int *codes, int number)
{
	if (!codes || number <= 0)
		return hwp_papi_err(PAPI_EINVAL);
	for (int i = 0; i < number; i++) {
		int r = PAPI_remove_event(id, codes[i]);

		if (r) /* as PAPI_add_events: how many went */
			return i ? i : r;
	}
	return PAPI_OK;
}

HWPROF_API int PAPI_list_events(int id, int *codes, int *number)
{
	struct hwp_pset *s;
	int ret = PAPI_OK;

	if (!number || *number < 0 || (*number > 0 && !codes))
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s) {
		ret = PAPI_ENOEVST;
	} else {
		for (int i = 0; i < s->nev && i < *number; i++)
			codes[i] = s->ev[i].code;
		*number = s->nev;
	}
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_num_events(int id)
{
	struct hwp_pset *s;
	int n;

	hwp_papi_lock();
	s = hwp_papi_set(id);
	n = s ? s->nev : PAPI_ENOEVST;
	hwp_papi_unlock();
	return hwp_papi_err(n);
}

HWPROF_API int PAPI_state(int id, int *status)
{
	struct hwp_pset *s;

	if (!status)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (s)
		*status = hwp_papi_state_bits(s);
	hwp_papi_unlock();
	return s ? PAPI_OK : hwp_papi_err(PAPI_ENOEVST);
}

HWPROF_API int PAPI_cleanup_eventset(int id)
{
	struct hwp_pset *s;
	int ret;

	hwp_papi_reap();
	hwp_papi_lock();
	ret = hwp_papi_stopped(id, &s);
	if (!ret) {
		for (int i = 0; i < s->nev; i++)
			hwp_papi_unprofile(&s->ev[i]);
		s->nev = 0;
		s->state = PAPI_STOPPED;
		s->multiplex = 0;
	}
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_destroy_eventset(int *id)
{
	struct hwp_pset *s;
	int ret;

	if (!id)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_reap();
	hwp_papi_lock();
	ret = hwp_papi_stopped(*id, &s);
	if (!ret && s->nev)
		ret = PAPI_EINVAL; /* PAPI: clean it up first */
	else if (!ret) {
		sets[*id] = NULL;
		set_free(s);
		*id = PAPI_NULL;
	}
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

/* ------------------------------------------------------------------ */
/* Options of one EventSet                                              */

int hwp_papi_state_bits(const struct hwp_pset *s)
{
	int st = s->state & ~(PAPI_MULTIPLEXING | PAPI_ATTACHED | PAPI_CPU_ATTACHED |
			      PAPI_PROFILING | PAPI_OVERFLOWING);

	/* as PAPI 7.0 keeps them: set by PAPI_profil/PAPI_sprofil (which
	 * samples through PAPI's overflow dispatch, so both) and
	 * PAPI_overflow from the call on, running or stopped, until the
	 * call that turns them off or PAPI_cleanup_eventset */
	for (int i = 0; i < s->nev; i++) {
		if (s->ev[i].threshold)
			st |= PAPI_PROFILING | PAPI_OVERFLOWING;
		if (s->ev[i].handler)
			st |= PAPI_OVERFLOWING;
	}
	if (s->multiplex)
		st |= PAPI_MULTIPLEXING;
	if (s->attach)
		st |= PAPI_ATTACHED;
	if (s->cpu >= 0)
		st |= PAPI_CPU_ATTACHED;
	return st;
}

/* ------------------------------------------------------------------ */
/* Counting                                                             */

static void close_fds(struct hwp_pset *s)
{
	for (int i = 0; i < s->nev; i++) {
		struct hwp_pevent *e = &s->ev[i];

		for (int k = 0; k < HWP_PRESET_MAX_TERMS; k++) {
			if (e->tfd[k] >= 0)
				close(e->tfd[k]);
			e->tfd[k] = -1;
		}
		e->fd = -1;
	}
}

/* Term k of e (its one event, or a derived preset's k-th) into *leader's
 * group; the first fd of a set that is not multiplexed leads it, pinned. */
static int open_term(struct hwp_pset *s, struct hwp_pevent *e, const char *name, int k,
		     int *leader)
{
	struct hwp_event ev;
	pid_t pid = s->attach ? s->attach : 0;
	int cpu = -1, fd;

	if (hwp_event_resolve(name, &ev, NULL, 0))
		return PAPI_ENOEVNT;
	ev.attr.sample_period = 0;
	ev.attr.sample_type = 0;
	ev.attr.disabled = 1;
	ev.attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	ev.attr.exclude_user = !(s->domain & PAPI_DOM_USER);
	ev.attr.exclude_kernel = !(s->domain & PAPI_DOM_KERNEL);
	ev.attr.exclude_hv = !(s->domain & PAPI_DOM_SUPERVISOR);
	ev.attr.inherit = s->inherit == PAPI_INHERIT_ALL;
	if (s->cpu >= 0) {
		pid = -1;
		cpu = s->cpu;
	}
	ev.attr.pinned = !s->multiplex && *leader < 0;
	fd = k ? PAPI_OK : hwp_papi_sw_attr(s, e, &ev.attr);
	if (fd)
		return fd;
	/* counting needs no skid level: precise_ip 0 */
	fd = hwp_attr_open(&ev.attr, 0, pid, cpu, s->multiplex ? -1 : *leader, 0, NULL);
	if (fd < 0)
		return hwp_papi_errno(fd, HWP_PAPI_AT_USE);
	e->tfd[k] = fd;
	if (!s->multiplex && *leader < 0)
		*leader = fd;
	return PAPI_OK;
}

static int open_counter(struct hwp_pset *s, struct hwp_pevent *e, int *leader)
{
	struct hwp_preset_terms t;
	int ret = PAPI_OK;

	hwp_papi_terms(e->name, &t);
	e->nterm = t.n;
	e->derived = t.derived;
	e->postfix = t.postfix;
	for (int k = 0; !ret && k < t.n; k++)
		ret = open_term(s, e, t.derived ? t.ev[k] : e->name, k, leader);
	e->fd = e->tfd[0];
	return ret;
}

/* PAPI's check: the group enabled and disabled at once, then read; a
 * pinned group the PMU could not put on reads 0 bytes (its error state). */
static int check_group(struct hwp_pset *s, int leader)
{
	uint64_t v[3];
	int r;

	if (s->multiplex || leader < 0)
		return PAPI_OK;
	if (hwp_perf_ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) ||
	    hwp_perf_ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP))
		return PAPI_ESYS;
	r = hwp_perf_read(leader, v, 3);
	if (r == -EIO)
		return PAPI_ECNFLCT;
	return r ? PAPI_ESYS : PAPI_OK;
}

/* Every event's counters, disabled, in one group unless multiplexed. */
static int open_counters(struct hwp_pset *s)
{
	int leader = -1, ret = PAPI_OK;

	for (int i = 0; !ret && i < s->nev; i++)
		ret = open_counter(s, &s->ev[i], &leader);
	return ret ? ret : check_group(s, leader);
}

/* PAPI 7 opens the set at each PAPI_add_event() and checks its group
 * there: so here, a trial open closed at once. PAPI_ECNFLCT when the
 * group with the new event cannot be scheduled; what else fails to open
 * is for PAPI_start() to say (the attached thread may not exist yet). */
static int fits(struct hwp_pset *s)
{
	int ret;

	if (s->multiplex)
		return PAPI_OK;
	ret = open_counters(s);
	close_fds(s);
	return ret == PAPI_ECNFLCT ? ret : PAPI_OK;
}

HWPROF_API int PAPI_start(int id)
{
	struct hwp_psess *sess = NULL;
	struct hwp_pset *s;
	int ret = PAPI_OK, late;

	hwp_papi_thread_seen(); /* as PAPI, which registers the thread */
	hwp_papi_reap();
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s) {
		ret = PAPI_ENOEVST;
		goto out;
	}
	if (s->state & PAPI_RUNNING || s->draining) {
		ret = PAPI_EISRUN;
		goto out;
	}
	if (!s->nev) {
		ret = PAPI_EINVAL;
		goto out;
	}
	/* The counters are opened first (disabled), the sampling fds after
	 * them; inherited counters after the engine has started instead:
	 * they count every thread created after their open, and the drain
	 * thread the engine may make now is no thread of the program's. */
	late = s->inherit == PAPI_INHERIT_ALL;
	if (!late)
		ret = open_counters(s);
	if (ret) {
		close_fds(s);
		goto out;
	}
	/* The engine runs without our lock (its drain calls overflow
	 * handlers, which take it); the set is busy meanwhile. Sampling
	 * starts first and counting last (the reverse at stop), so what the
	 * engine does while it starts is not counted. */
	s->draining = 1;
	hwp_papi_unlock();
	ret = hwp_papi_session(s); /* kernel sampling, if asked */
	/* started with this thread's sampling off: armed as the last step,
	 * so none of this call's own work is in the profile */
	if (!ret && s->ps)
		ret = hwp_papi_errno(hwp_session_start_quiet(s->ps->s), HWP_PAPI_AT_USE);
	hwp_papi_lock();
	s->draining = 0;
	if (!ret && late)
		ret = open_counters(s);
	if (!ret) {
		s->tid = hwp_sys_gettid();
		for (int i = 0; i < s->nev; i++) {
			struct hwp_pevent *e = &s->ev[i];

			for (int k = 0; k < e->nterm; k++) {
				uint64_t v[3] = { 0, 0, 0 };

				hwp_perf_ioctl(e->tfd[k], PERF_EVENT_IOC_RESET, 0);
				(void)hwp_perf_read(e->tfd[k], v, 3);
				e->en0[k] = v[1]; /* check_group()'s moment */
				e->run0[k] = v[2];
				e->base[k] = 0;
			}
		}
		ret = hwp_papi_sw_arm(s);
	}
	if (ret) { /* nothing stays open */
		hwp_papi_sw_disarm(s);
		sess = s->ps;
		s->ps = NULL;
		close_fds(s);
		goto out;
	}
	/* the leader (the first fd) last: members enabled while it is on
	 * would wait for the next context switch to go on with it */
	for (int i = s->nev - 1; i >= 0; i--)
		for (int k = s->ev[i].nterm - 1; k >= 0; k--)
			hwp_perf_ioctl(s->ev[i].tfd[k], PERF_EVENT_IOC_ENABLE, 0);
	s->state = hwp_papi_state_bits(s);
	s->state &= ~PAPI_STOPPED;
	s->state |= PAPI_RUNNING;
	if (s->ps) {
		hwp_lost_watch(s->ps->s);
		hwp_session_arm(s->ps->s); /* runs no handler: safe under our lock */
	}
out:
	hwp_papi_unlock();
	hwp_papi_psess_free(sess);
	return hwp_papi_err(ret);
}

/* One event: each counter since the last reset (scaled by
 * enabled/running in a multiplexed set; a pinned group runs whenever the
 * thread does, as PAPI, which does not scale it), then combined as a
 * derived preset says. */
static int read_one(const struct hwp_pset *s, struct hwp_pevent *e, long long *out)
{
	long long t[HWP_PRESET_MAX_TERMS];

	for (int k = 0; k < e->nterm; k++) {
		uint64_t v[3], en, run;

		if (hwp_perf_read(e->tfd[k], v, 3))
			return PAPI_ESYS;
		v[0] -= v[0] >= e->base[k] ? e->base[k] : v[0];
		en = v[1] - e->en0[k];
		run = v[2] - e->run0[k];
		if (s->multiplex && run && run < en)
			t[k] = (long long)((double)v[0] * ((double)en / (double)run));
		else
			t[k] = (long long)v[0];
	}
	*out = hwp_papi_derive(e->derived, e->postfix, t, e->nterm);
	return PAPI_OK;
}

static int read_locked(struct hwp_pset *s, long long *values)
{
	for (int i = 0; i < s->nev; i++) {
		if (s->state & PAPI_RUNNING) {
			int r = read_one(s, &s->ev[i], &values[i]);

			if (r)
				return r;
		} else {
			values[i] = s->ev[i].saved;
		}
	}
	return PAPI_OK;
}

/* Zeroes the counters; keeps the times, so scaling starts afresh. The
 * kernel's reset zeroes the counts of the threads that still run, not
 * what inherited counters gathered from those that exited: that stays in
 * the value read, and is taken off as the base. */
static void reset_locked(struct hwp_pset *s)
{
	for (int i = 0; i < s->nev; i++) {
		struct hwp_pevent *e = &s->ev[i];

		for (int k = 0; s->state & PAPI_RUNNING && k < e->nterm; k++) {
			uint64_t v[3];

			hwp_perf_ioctl(e->tfd[k], PERF_EVENT_IOC_RESET, 0);
			e->base[k] = 0;
			if (!hwp_perf_read(e->tfd[k], v, 3)) {
				e->base[k] = v[0];
				e->en0[k] = v[1];
				e->run0[k] = v[2];
			}
		}
		e->saved = 0;
		e->deadline = e->threshold ? e->threshold : e->ov_threshold;
	}
}

HWPROF_API int PAPI_read(int id, long long *values)
{
	struct hwp_pset *s;
	int ret;

	if (!values)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	ret = s ? read_locked(s, values) : PAPI_ENOEVST;
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}

/*
 * From an overflow handler (on the drain thread) the set's session cannot
 * be stopped there: it is halted instead (hwp_papi_halt()), so the stop
 * takes effect when the handler returns and the set is stopped at once;
 * the values are the counts at this call.
 */
HWPROF_API int PAPI_stop(int id, long long *values)
{
	struct hwp_psess *sess = NULL;
	struct hwp_pset *s;
	long long v;
	int ret = PAPI_OK;

	hwp_papi_reap();
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s) {
		ret = PAPI_ENOEVST;
		goto out;
	}
	if (!(s->state & PAPI_RUNNING) || s->draining) {
		ret = PAPI_ENOTRUN;
		goto out;
	}
	if (s->ps)
		hwp_session_disarm(s->ps->s); /* first: the rest is not sampled */
	hwp_papi_sw_disarm(s);
	for (int i = 0; i < s->nev; i++)
		for (int k = 0; k < s->ev[i].nterm; k++)
			hwp_perf_ioctl(s->ev[i].tfd[k], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < s->nev; i++)
		s->ev[i].saved = read_one(s, &s->ev[i], &v) ? 0 : v;
	for (int i = 0; values && i < s->nev; i++)
		values[i] = s->ev[i].saved;
	if (s->ps && hwp_papi_in_handler()) {
		hwp_papi_halt(s);
	} else if (s->ps) {
		/* Sampling stops and its drain runs overflow handlers, which
		 * may call PAPI_read() and the like on this EventSet: not
		 * under our lock. The EventSet cannot change meanwhile
		 * (draining); it reads the final counts. */
		sess = s->ps;
		s->draining = 1;
		hwp_papi_unlock();
		hwprof_session_stop(sess->s); /* drains: the buffers are exact */
		hwp_lost_unwatch(sess->s);    /* one stderr line if any was lost */
		hwp_papi_lock();
		s->draining = 0;
		s->ps = NULL;
	}
	close_fds(s);
	s->state = hwp_papi_state_bits(s) & ~PAPI_RUNNING;
	s->state |= PAPI_STOPPED;
out:
	hwp_papi_unlock();
	hwp_papi_psess_free(sess); /* stopped and drained: runs no handler */
	return hwp_papi_err(ret);
}

HWPROF_API int PAPI_reset(int id)
{
	struct hwp_pset *s;

	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (s)
		reset_locked(s);
	hwp_papi_unlock();
	return s ? PAPI_OK : hwp_papi_err(PAPI_ENOEVST);
}

HWPROF_API int PAPI_accum(int id, long long *values)
{
	long long v[HWP_PAPI_MAX_EVENTS];
	struct hwp_pset *s;
	int ret;

	if (!values)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	s = hwp_papi_set(id);
	ret = s ? read_locked(s, v) : PAPI_ENOEVST;
	if (!ret) {
		for (int i = 0; i < s->nev; i++)
			values[i] += v[i];
		reset_locked(s);
	}
	hwp_papi_unlock();
	return hwp_papi_err(ret);
}
