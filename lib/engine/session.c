/* SPDX-License-Identifier: MIT */
/*
 * Sessions, the public face of the engine: events added (resolved once),
 * started (the drain thread made first, then every thread attached, the
 * caller last), read, reset, stopped (the caller's fds disabled first,
 * everything drained and handed to sinks), statistics.
 * The rest of the engine is in the files engine.h lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

/* HWPROF_MMAP_PAGES (hwprof(7)): the data pages of a ring when the caller
 * did not choose, for the classic and PAPI calls above all; a power of
 * two up to 65536 into *pages (unset: the default), else -EINVAL after
 * one line on stderr and to the log. */
static int env_pages(unsigned int *pages)
{
	const char *v = secure_getenv("HWPROF_MMAP_PAGES");
	char *end, msg[160];
	unsigned long p;

	*pages = HWP_DEF_PAGES;
	if (!v || !*v)
		return 0;
	errno = 0;
	p = strtoul(v, &end, 10);
	if (errno || *end || !p || (p & (p - 1)) || p > (1u << 16) || *v < '0' || *v > '9') {
		snprintf(msg, sizeof(msg),
			 "hwprof: HWPROF_MMAP_PAGES=%.40s: not a power of two from 1 to 65536",
			 v);
		hwp_env_complain(msg);
		hwp_log(HWPROF_LOG_ERR, "%s", msg);
		return -EINVAL;
	}
	*pages = (unsigned int)p;
	return 0;
}

HWPROF_API int hwprof_session_new(const struct hwprof_session_opts *opts,
				  struct hwprof_session **out)
{
	struct hwprof_session_opts o = { 0 };
	struct hwprof_session *s;
	unsigned int envp = HWP_DEF_PAGES;

	if (!out)
		return -EINVAL;
	if (opts) {
		if (!hwp_user_opts_ok(opts, opts->sz, sizeof(o)))
			return -EINVAL;
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	}
	if (o.mode > HWPROF_SESSION_PROCESS ||
	    (o.flags & ~(HWPROF_SESSION_NO_WAKEUP | HWPROF_SESSION_CALLCHAIN)) ||
	    (o.ring_pages & (o.ring_pages - 1)) || o.ring_pages > (1u << 16))
		return -EINVAL;
	/* a bad HWPROF_* value fails the call (hwprof(7)) */
	if ((!o.ring_pages && env_pages(&envp)) ||
	    (o.mode == HWPROF_SESSION_PROCESS && hwp_crings_wanted() == -2))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->mode = o.mode;
	s->flags = o.flags;
	s->pages_set = o.ring_pages || envp != HWP_DEF_PAGES;
	s->pages = o.ring_pages ? o.ring_pages : envp;
	/* a sample with its call path is up to 65 times larger: rings of
	 * their own 4 times larger by default (still fitted to the budget) */
	if ((o.flags & HWPROF_SESSION_CALLCHAIN) && !s->pages_set)
		s->pages = 4 * HWP_DEF_PAGES;
	s->drain_ms = o.drain_ms ? o.drain_ms : HWP_DEF_DRAIN_MS;
	*out = s;
	return 0;
}

/* Says what the kernel will do with a period it cannot honour. */
static void period_notes(const struct hwp_sev *e)
{
	long rate = hwp_sys_read_long("/proc/sys/kernel/perf_event_max_sample_rate", 0);

	if (e->e.kind != HWP_EV_CLOCK)
		return;
	if (e->period < HWP_MIN_CLOCK_NS)
		hwp_log(HWPROF_LOG_WARN,
			"hwprof: %s: period %llu ns is below the kernel's minimum: it samples every %d ns",
			e->e.name, (unsigned long long)e->period, HWP_MIN_CLOCK_NS);
	if (rate > 0 && e->period && 1000000000ull / e->period > (uint64_t)rate)
		hwp_log(HWPROF_LOG_WARN,
			"hwprof: %s: %llu samples/s per thread exceeds kernel.perf_event_max_sample_rate (%ld): the kernel will throttle",
			e->e.name, 1000000000ull / e->period, rate);
}

/* ------------------------------------------------------------------ */
/* What a sample costs                                                  */

/*
 * On a VM a clock event's timer interrupt can cost as much as its period
 * (10 us at the kernel's floor): the program then makes almost no
 * progress, and nothing is throttled or lost to say so. So when a
 * session starts a clock event with a period under HWP_COST_CHECK_NS, the
 * calling thread times a loop for 2 ms of its CPU time unsampled and 2 ms
 * with a private fd of that event (no ring: nothing is recorded, but the
 * interrupts come as they will), once per period in the process. A
 * thread that runs at under half its speed gets one warning with the
 * measured cost of a sample.
 */
#define HWP_COST_CHECK_NS 100000
#define HWP_COST_SPIN_NS  2000000

static pthread_mutex_t cost_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t cost_checked[8]; /* periods measured already */

static uint64_t thread_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Rounds of a fixed loop per ms of this thread's CPU time. */
static double loop_speed(void)
{
	uint64_t t0 = thread_ns(), t, n = 0;
	volatile uint64_t x = 1;

	do {
		for (int i = 0; i < 64; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		n++;
	} while ((t = thread_ns()) - t0 < HWP_COST_SPIN_NS && t >= t0);
	return t > t0 ? (double)n * 1e6 / (double)(t - t0) : 0;
}

static void check_sample_cost(const struct hwp_sev *e)
{
	struct perf_event_attr a = e->e.attr;
	uint64_t period = hwp_attr_applied_period(1, e->period);
	double base, on, cost;
	size_t i;
	int fd;

	if (e->e.kind != HWP_EV_CLOCK || a.freq || period >= HWP_COST_CHECK_NS)
		return;
	pthread_mutex_lock(&cost_lock);
	for (i = 0; i < 8 && cost_checked[i] && cost_checked[i] != period; i++)
		;
	if (i == 8 || cost_checked[i]) { /* measured, or enough periods */
		pthread_mutex_unlock(&cost_lock);
		return;
	}
	cost_checked[i] = period;
	a.disabled = 1;
	a.sample_period = period;
	a.sample_type = 0;
	a.inherit = 0;
	a.wakeup_events = 0;
	a.watermark = 0;
	a.wakeup_watermark = 0;
	fd = hwp_perf_open(&a, 0, -1, -1);
	if (fd < 0) {
		pthread_mutex_unlock(&cost_lock);
		return;
	}
	base = loop_speed();
	on = loop_speed(); /* the faster of two: the other may be preempted */
	if (on > base)
		base = on;
	hwp_perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	on = loop_speed();
	hwp_perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	pthread_mutex_unlock(&cost_lock);
	if (base <= 0 || on >= base / 2)
		return;
	/* speed on/base = period / (period + cost) while the cost is below
	 * the period; past it, the next expiry is due as a sample ends (the
	 * clock counts the handler's time too) and the thread barely runs */
	cost = on > base / 20 ? (double)period * (base / on - 1) : 0;
	if (cost > 0)
		hwp_log(HWPROF_LOG_WARN,
			"hwprof: %s every %llu ns: a sample costs about %.0f ns on this machine, so a sampled thread runs at %.0f%% of its speed; use a longer period",
			e->e.name, (unsigned long long)period, cost, 100 * on / base);
	else
		hwp_log(HWPROF_LOG_WARN,
			"hwprof: %s every %llu ns: a sample costs at least the period on this machine, so a sampled thread makes almost no progress; use a longer period",
			e->e.name, (unsigned long long)period);
}

HWPROF_API int hwprof_session_add(struct hwprof_session *s, const char *event,
				  uint64_t threshold, struct hwprof_hist *h)
{
	return hwp_session_add(s, event, threshold, h, NULL, NULL);
}

/* hwprof_session_add(), or with a sink that takes the raw pcs instead of a
 * histogram (pcsample, PAPI_overflow). */
int hwp_session_add(struct hwprof_session *s, const char *event, uint64_t threshold,
		    struct hwprof_hist *h, hwp_sink_fn sink, void *sink_arg)
{
	struct hwp_event ev;
	char why[256];
	int ret;

	if (!s)
		return -EINVAL;
	ret = hwp_event_resolve(event, &ev, why, sizeof(why));
	if (ret) {
		hwp_log(HWPROF_LOG_ERR, "hwprof: %s", why);
		return ret;
	}
	return hwp_session_add_ev(s, &ev, threshold, h, sink, sink_arg);
}

int hwp_session_add_ev(struct hwprof_session *s, const struct hwp_event *ev,
		       uint64_t threshold, struct hwprof_hist *h, hwp_sink_fn sink,
		       void *sink_arg)
{
	struct hwp_sev *ne, *e;
	int ret;

	if (!s || !ev || threshold > INT64_MAX) /* the kernel's period is signed */
		return -EINVAL;
	if (s->running)
		return -EBUSY;
	if (s->nev >= 64)
		return -E2BIG;
	ne = realloc(s->ev, (s->nev + 1) * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	s->ev = ne;
	e = &s->ev[s->nev];
	memset(e, 0, sizeof(*e));
	e->e = *ev;
	if (sink) {
		e->sink = sink;
		e->sink_arg = sink_arg;
	} else if (h) {
		e->hist = h;
	} else {
		e->objs = calloc(1, sizeof(*e->objs));
		ret = e->objs ? hwp_objects_refresh(e->objs) : -ENOMEM;
		if (ret) {
			hwp_objects_free(e->objs);
			return ret;
		}
		e->hist = e->objs->hist;
	}
	e->period = threshold ? threshold : e->e.default_period;
	if (s->flags & HWPROF_SESSION_CALLCHAIN) {
		/* the kernel walks user frames up to its own limit */
		e->paths = hwp_paths_new(
			(uint64_t)hwp_sys_read_long("/proc/sys/kernel/perf_event_max_stack",
						    PERF_MAX_STACK_DEPTH));
		if (!e->paths) {
			hwp_objects_free(e->objs);
			return -ENOMEM;
		}
	}
	if (s->count_tids && !(e->tids = hwp_tids_new())) {
		hwp_paths_free(e->paths);
		e->paths = NULL;
		hwp_objects_free(e->objs);
		return -ENOMEM;
	}
	hwp_attr_sampling(&e->e, e->period,
			  (e->paths ? PERF_SAMPLE_CALLCHAIN : 0) |
				  (e->tids ? PERF_SAMPLE_TID : 0),
			  !!(s->flags & HWPROF_SESSION_NO_WAKEUP));
	period_notes(e);
	return (int)s->nev++;
}

/* On a hybrid CPU, the one line that says which cores the session's PMU
 * events sample on (hwprof_session_add(3)). */
static void hybrid_note(const struct hwprof_session *s)
{
	const struct perf_event_attr *a[16];
	const char *name[16];
	char line[384];
	size_t n = 0;

	for (size_t i = 0; i < s->nev && n < 16; i++, n++) {
		a[n] = &s->ev[i].e.attr;
		name[n] = s->ev[i].e.name;
	}
	if (hwp_attr_hybrid_note(a, name, n, line, sizeof(line)))
		hwp_log(HWPROF_LOG_WARN, "%s", line);
}

/*
 * An inherit session (PAPI_INHERIT_ALL's, lib/compat/papi_sample.c): a
 * thread-mode session whose fds carry attr.inherit, as the counters of
 * that EventSet do, so the threads and processes the thread creates from
 * its start on (and theirs, down the tree) are sampled with it, by the
 * kernel: each gets copies of the fds at its creation, whose samples the
 * kernel writes into the rings of the fds they came from, and counts as
 * lost there when those are full. The kernel maps no ring of an inherited
 * fd of one thread on every CPU, so its fds are one per event and CPU,
 * each writing into that event's shared ring for its CPU (lib/engine/crings.c).
 * A thread that exits loses nothing: its samples are in those rings.
 * Called before the session starts.
 */
int hwp_session_inherit(struct hwprof_session *s)
{
	if (!s || s->mode != HWPROF_SESSION_THREAD)
		return -EINVAL;
	hwp_lock_engine();
	if (s->running) {
		hwp_unlock_engine();
		return -EBUSY;
	}
	s->inherit = 1;
	hwp_unlock_engine();
	return 0;
}

/* The calling thread's own fds off (on), around work of hwprof's that
 * faults; not in an inherit session, where a disable reaches every
 * thread that inherited them (their samples would be counted by an
 * inherited counter and lost to the profile). */
static void self_pause(struct hwprof_session *s, pid_t me, int on)
{
	if (s->running && !s->inherit)
		hwp_threads_enable(s, me, on);
}

/* Starts s; the calling thread's own fds are enabled when self_on, else
 * left for hwp_session_arm(). */
static int start(struct hwprof_session *s, int self_on)
{
	pid_t me = hwp_sys_gettid();
	int ret;

	if (!s)
		return -EINVAL;
	if (!s->nev)
		return -ENOENT;
	/* before any fd of the session, and with no lock of the engine's
	 * held: it takes a few ms, once per period */
	if (!__atomic_load_n(&s->running, __ATOMIC_RELAXED)) {
		for (size_t i = 0; i < s->nev; i++)
			check_sample_cost(&s->ev[i]);
		hybrid_note(s);
	}
	hwp_lock_engine();
	if (s->running) {
		ret = -EBUSY;
		goto out;
	}
	hwp_drain_wait_delivered(s);
	s->threads = 0;
	s->missed = 0;
	s->missed_err = 0;
	s->nmissed_tid = 0;
	hwp_threads_size_rings(s);
	if (s->inherit && s->ncpu >= HWP_CPU_IDS) {
		ret = -EOPNOTSUPP; /* a CPU would have no fd */
		goto out;
	}
	for (size_t i = 0; i < s->nev; i++)
		s->ev[i].e.attr.inherit = (uint32_t)s->inherit;
	/* The drain thread is made first, before any fd: its creation is not
	 * sampled. Then every thread is attached enabled, the caller last,
	 * so that of this call only its return is sampled. */
	ret = hwp_drainer_start();
	if (ret)
		goto out;
	if (s->mode == HWPROF_SESSION_THREAD) {
		s->owner = me;
		ret = hwp_threads_attach(s, s->owner, self_on);
	} else {
		/* A thread being created now either runs (so the scan sees it)
		 * or has not reached its hook (follow.c), which waits for the lock
		 * and then finds this session running. */
		ret = hwp_threads_scan(s, hwp_drainer_tid(), me, self_on);
		if (s->threads && s->missed)
			hwp_log(HWPROF_LOG_WARN, "hwprof: %u of %u threads not sampled: %s",
				s->missed, s->missed + s->threads,
				hwp_threads_missed_why(s->missed_err));
		if (s->threads)
			ret = 0; /* the others are counted as missed */
		else if (!ret)
			ret = -ESRCH;
	}
	if (ret) {
		hwp_threads_reap(s, 1);
		hwp_crings_close(s);
		hwp_drainer_stop();
		goto out;
	}
	s->running = 1;
	s->next = hwp_running;
	hwp_running = s;
	if (s->mode == HWPROF_SESSION_PROCESS)
		__atomic_add_fetch(&hwp_nprocess, 1, __ATOMIC_RELEASE);
	hwp_drainer_wake();
out:
	hwp_unlock_engine();
	return ret;
}

HWPROF_API int hwprof_session_start(struct hwprof_session *s)
{
	return start(s, 1);
}

/* For an API that has work of its own to finish after starting (the
 * classic calls, PAPI_start): the caller's fds stay off until it calls
 * hwp_session_arm() as its last step, so none of that work is sampled. */
int hwp_session_start_quiet(struct hwprof_session *s)
{
	return start(s, 0);
}

void hwp_session_arm(struct hwprof_session *s)
{
	pid_t me = hwp_sys_gettid();

	hwp_lock_engine();
	if (s->running)
		hwp_threads_enable(s, me, 1);
	hwp_unlock_engine();
}

/* The reverse, as an API's first step of stopping: the caller's fds off
 * before any of the API's own work. */
void hwp_session_disarm(struct hwprof_session *s)
{
	pid_t me = hwp_sys_gettid();

	hwp_lock_engine();
	if (s->running)
		hwp_threads_enable(s, me, 0);
	hwp_unlock_engine();
}

/* For a caller that cannot stop s (a sink, on the drain thread): every fd
 * off and what the rings hold folded, so nothing more reaches s's
 * histograms; pcs for sinks stay queued. hwprof_session_stop() or _free()
 * still ends it, from another thread. */
void hwp_session_halt(struct hwprof_session *s)
{
	hwp_lock_engine();
	if (s->running) {
		hwp_threads_enable(s, 0, 0);
		hwp_drain(s);
	}
	hwp_unlock_engine();
}

/* Called with hwp_eng held: disable (the calling thread's fds first, so
 * the rest of this is not sampled), drain to the last record, close, and
 * hand the last pcs to the sinks. Returns with hwp_eng held. */
static void stop_locked(struct hwprof_session *s)
{
	struct hwprof_session **pp;

	hwp_threads_stop(s, hwp_sys_gettid());
	hwp_threads_stop(s, 0);
	hwp_drain(s);
	hwp_threads_reap(s, 1);
	hwp_crings_close(s);
	for (pp = &hwp_running; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	if (s->mode == HWPROF_SESSION_PROCESS)
		__atomic_sub_fetch(&hwp_nprocess, 1, __ATOMIC_RELEASE);
	s->running = 0;
	hwp_drainer_wake();
	hwp_drainer_stop();
	hwp_drain_deliver(s);
}

HWPROF_API int hwprof_session_stop(struct hwprof_session *s)
{
	int ret = 0;

	if (!s)
		return -EINVAL;
	hwp_lock_engine();
	if (s->running)
		stop_locked(s);
	else
		ret = -EALREADY;
	hwp_unlock_engine();
	return ret;
}

static uint64_t total_folded(const struct hwprof_session *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nev; i++)
		n += s->ev[i].st.folded;
	return n;
}

/* Drains every ring now. The calling thread's own fds are off meanwhile:
 * folding may touch bucket pages for the first time, and those faults are
 * hwprof's, not the program's. */
HWPROF_API int hwprof_session_read(struct hwprof_session *s)
{
	pid_t me = hwp_sys_gettid();
	uint64_t before;

	if (!s)
		return -EINVAL;
	hwp_lock_engine();
	self_pause(s, me, 0);
	before = total_folded(s);
	hwp_drain(s);
	hwp_drain_deliver(s);
	before = total_folded(s) - before;
	self_pause(s, me, 1);
	hwp_unlock_engine();
	return before > INT32_MAX ? INT32_MAX : (int)before;
}

HWPROF_API int hwprof_session_reset(struct hwprof_session *s)
{
	pid_t me = hwp_sys_gettid();
	uint64_t ips[HWP_BATCH];

	if (!s)
		return -EINVAL;
	hwp_lock_engine();
	hwp_drain_wait_delivered(s);
	self_pause(s, me, 0);
	for (size_t i = 0; i < s->nslot; i++) {
		struct hwp_slot *sl = &s->slot[i];
		uint64_t v[2];

		while (sl->ring.page && hwp_ring_read_ips(&sl->ring, ips, HWP_BATCH))
			;
		memset(&sl->ring.stats, 0, sizeof(sl->ring.stats));
		if (sl->fmt_lost && hwp_threads_slot_ours(sl) && !hwp_perf_read(sl->fd, v, 2))
			sl->lost_base = v[1];
	}
	for (size_t i = 0; s->cring && i < s->nev * s->ncpu; i++) {
		struct hwp_ring *r = &s->cring[i].ring;

		while (r->page && hwp_ring_read_ips(r, ips, HWP_BATCH))
			;
		memset(&r->stats, 0, sizeof(r->stats));
	}
	for (size_t i = 0; i < s->nev; i++) {
		memset(&s->ev[i].st, 0, sizeof(s->ev[i].st));
		s->ev[i].npend = 0;
		if (s->ev[i].objs)
			hwp_objects_zero(s->ev[i].objs);
		if (s->ev[i].paths)
			hwp_paths_zero(s->ev[i].paths);
		hwp_tids_zero(s->ev[i].tids);
	}
	self_pause(s, me, 1);
	hwp_unlock_engine();
	return 0;
}

HWPROF_API int hwprof_session_stats(struct hwprof_session *s, int event,
				    struct hwprof_session_stats *st)
{
	struct hwprof_session_stats v = { .sz = sizeof(v) };
	const struct hwp_sev *e;

	if (!s || !st || st->sz < sizeof(size_t) || event < 0 || (size_t)event >= s->nev)
		return -EINVAL;
	hwp_lock_engine();
	e = &s->ev[event];
	v.samples = e->st.samples;
	v.lost = e->st.lost;
	v.throttled = e->st.throttled;
	for (size_t i = 0; i < s->nslot; i++) {
		if (s->slot[i].ev != event)
			continue;
		v.lost += hwp_threads_slot_lost(&s->slot[i]);
		v.throttled += s->slot[i].ring.stats.throttled;
	}
	hwp_crings_stats(s, event, &v.lost, &v.throttled);
	v.folded = e->st.folded;
	v.outside = e->st.outside;
	v.saturated = e->st.saturated;
	v.period = hwp_attr_applied_period(e->e.kind == HWP_EV_CLOCK, e->period);
	v.precise = e->precise;
	v.threads = s->threads;
	v.missed = s->missed;
	v.missed_err = s->missed_err;
	if (e->percpu)
		v.ring_pages = s->cpages;
	else
		v.ring_pages = s->fit && s->fit < s->pages ? s->fit : s->pages;
	if (e->paths) {
		v.paths = e->paths->chains;
		v.paths_cut = e->paths->cut;
	}
	hwp_unlock_engine();
	memcpy((char *)st + sizeof(size_t), (char *)&v + sizeof(size_t),
	       (st->sz < sizeof(v) ? st->sz : sizeof(v)) - sizeof(size_t));
	return 0;
}

/* snap grown to n elements of sz bytes and those at from copied in (the
 * borrowed array of hwprof_session_objects()): the new
 * array, or NULL when out of memory (snap left as it was). */
static void *snapshot(void *snap, const void *from, size_t n, size_t sz)
{
	void *p = realloc(snap, (n ? n : 1) * sz);

	if (p && n)
		memcpy(p, from, n * sz);
	return p;
}

HWPROF_API int hwprof_session_objects(struct hwprof_session *s, int event,
				      const struct hwprof_object **objs, size_t *n)
{
	struct hwp_objects *o;
	struct hwprof_object *snap;
	int ret = 0;

	if (!s || !objs || !n || event < 0 || (size_t)event >= s->nev)
		return -EINVAL;
	hwp_lock_engine();
	o = s->ev[event].objs;
	if (!o) {
		ret = -ENOENT;
		goto out;
	}
	snap = snapshot(s->snap, o->obj, o->n, sizeof(*snap));
	if (!snap) {
		ret = -ENOMEM;
		goto out;
	}
	s->snap = snap;
	*objs = snap;
	*n = o->n;
out:
	hwp_unlock_engine();
	return ret;
}

HWPROF_API int hwprof_session_paths(struct hwprof_session *s, int event,
				    const struct hwprof_path_node **nodes, size_t *n)
{
	struct hwprof_path_node *snap;
	struct hwp_paths *p;
	int ret = 0;

	if (!s || !nodes || !n || event < 0 || (size_t)event >= s->nev)
		return -EINVAL;
	hwp_lock_engine();
	p = s->ev[event].paths;
	if (!p) {
		ret = -ENOENT;
		goto out;
	}
	snap = realloc(s->psnap, (p->cct.n ? p->cct.n : 1) * sizeof(*snap));
	if (!snap) {
		ret = -ENOMEM;
		goto out;
	}
	hwp_paths_copy(p, snap);
	s->psnap = snap;
	*nodes = snap;
	*n = p->cct.n;
out:
	hwp_unlock_engine();
	return ret;
}

HWPROF_API void hwprof_session_free(struct hwprof_session *s)
{
	if (!s)
		return;
	hwp_lock_engine();
	if (s->running)
		stop_locked(s);
	hwp_drain_wait_delivered(s);
	hwp_unlock_engine();
	for (size_t i = 0; i < s->nev; i++) {
		hwp_objects_free(s->ev[i].objs);
		hwp_paths_free(s->ev[i].paths);
		hwp_tids_free(s->ev[i].tids);
		free(s->ev[i].pend);
	}
	free(s->ev);
	free(s->slot);
	free(s->cring);
	free(s->snap);
	free(s->psnap);
	free(s->missed_tid);
	free(s);
}

/* The engine follows the process from load on: new threads, fork; and a
 * mem:SYMBOL event waits for a fork child's loader (lib/perf/perf.h). */
__attribute__((constructor)) static void session_init(void)
{
	hwp_event_loader_check(hwp_loader_usable);
	hwp_follow_init();
}
