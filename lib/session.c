/* SPDX-License-Identifier: MIT */
/*
 * The one engine: sessions of events, a sampling fd and ring per thread and
 * event, a drain thread that folds the rings into histograms in batches,
 * new threads caught at creation, fork and exec.
 *
 * Locking: one mutex (eng) guards the list of running sessions and every
 * session's slots; draining and folding run under it, whether in the drain
 * thread or in a caller's hwprof_session_read()/stop(). The fold itself
 * takes no lock.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"

#define BATCH		512	/* IPs folded per step: 4 KiB on the stack */
#define DEF_PAGES	16
#define DEF_DRAIN_MS	100
#define MIN_CLOCK_NS	10000	/* the kernel's floor for hrtimer events */

struct slot {			/* one thread x one event */
	int fd;
	int ev;
	pid_t tid;
	uint32_t lcg;		/* RANDOM/COMPRESS state of this stream */
	int fmt_lost;		/* read() gives {value, lost} */
	uint64_t lost_base;	/* lost count at the last reset */
	struct hwp_ring ring;
};

struct counts {
	uint64_t samples, lost, throttled, folded, outside, saturated;
};

struct sev {			/* one event of a session */
	char *name;
	struct hwp_event e;
	uint64_t period;
	uint32_t precise;
	struct hwprof_hist *hist;	/* the caller's, or objs->hist */
	struct hwp_objects *objs;	/* when the session owns the buckets */
	hwp_sink_fn sink;		/* or raw pcs to a callback (pcsample) */
	void *sink_arg;
	struct counts st;		/* folded so far, and from closed rings */
};

struct hwprof_session {
	unsigned int mode;
	unsigned int flags;
	unsigned int pages;
	unsigned int drain_ms;
	struct sev *ev;
	size_t nev;
	struct slot *slot;
	size_t nslot, capslot;
	int running;
	pid_t owner;		/* thread mode: the thread sampled */
	uint32_t threads;
	struct hwprof_session *next;	/* in the running list */
	struct hwprof_object *snap;	/* hwprof_session_objects() copy */
};

/* The drain thread: one while any session runs. */
struct drainer {
	pthread_t thread;
	pid_t tid;		/* set by the thread itself, first thing */
	int wake;		/* eventfd: the running set changed, or stop */
	int stop;
};

static pthread_mutex_t eng = PTHREAD_MUTEX_INITIALIZER;
static struct hwprof_session *running;
static struct drainer *drn;
static int nprocess;		/* running process-mode sessions */

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);
static pthread_create_fn real_create;
static __thread int no_trampoline;	/* set while making the drain thread */

static pthread_create_fn create_fn(void)
{
	pthread_create_fn f = __atomic_load_n(&real_create, __ATOMIC_ACQUIRE);

	if (!f) {
		/* the next definition: libc's default version, or another
		 * interposer's (a sanitizer's) that comes after ours */
		f = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
		__atomic_store_n(&real_create, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* ------------------------------------------------------------------ */
/* Slots                                                                */

/*
 * Samples the kernel dropped for this fd: its running total when the
 * kernel has PERF_FORMAT_LOST (a LOST record is only written once the
 * reader frees space, so records alone miss drops just before a stop),
 * else the LOST records seen.
 */
static uint64_t slot_lost(const struct slot *sl)
{
	uint64_t v[2];

	if (sl->fmt_lost && !hwp_perf_read(sl->fd, v, 2))
		return v[1] > sl->lost_base ? v[1] - sl->lost_base : 0;
	return sl->ring.stats.lost;
}

static void slot_close(struct hwprof_session *s, struct slot *sl)
{
	struct sev *e = &s->ev[sl->ev];

	e->st.lost += slot_lost(sl);
	e->st.throttled += sl->ring.stats.throttled;
	hwp_ring_unmap(&sl->ring);
	close(sl->fd);
	sl->fd = -1;
}

static int attached(const struct hwprof_session *s, pid_t tid)
{
	for (size_t i = 0; i < s->nslot; i++)
		if (s->slot[i].tid == tid)
			return 1;
	return 0;
}

/* A thread whose fd reports POLLHUP has exited: its ring is final. */
static int slot_hung_up(const struct slot *sl)
{
	struct pollfd p = { .fd = sl->fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLHUP);
}

static void drain_slot(struct hwprof_session *s, struct slot *sl);

/* Drops the slots of exited threads (after a last drain) and compacts. */
static void reap(struct hwprof_session *s, int all)
{
	size_t j = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		struct slot *sl = &s->slot[i];

		if (all || slot_hung_up(sl)) {
			drain_slot(s, sl);
			slot_close(s, sl);
			continue;
		}
		s->slot[j++] = *sl;
	}
	s->nslot = j;
}

/*
 * Opens and maps one fd per event for tid, enabled. On failure nothing of
 * this thread stays open.
 */
static int attach(struct hwprof_session *s, pid_t tid, int log_fail)
{
	size_t first = s->nslot;
	char why[256];
	int ret = 0;

	if (s->nslot + s->nev > s->capslot) {
		size_t cap = (s->capslot ? 2 * s->capslot : 16) + s->nev;
		struct slot *ns = realloc(s->slot, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		s->slot = ns;
		s->capslot = cap;
	}
	for (size_t i = 0; i < s->nev; i++) {
		struct sev *e = &s->ev[i];
		struct slot *sl = &s->slot[s->nslot];
		int precise = 0, fd;

		fd = hwp_event_open(e->name, &e->e, tid, -1, &precise, why,
				    sizeof(why));
		if (fd == -EINVAL && (e->e.attr.read_format & PERF_FORMAT_LOST)) {
			e->e.attr.read_format = 0;	/* kernel before 6.0 */
			fd = hwp_event_open(e->name, &e->e, tid, -1, &precise,
					    why, sizeof(why));
		}
		if (fd < 0) {
			ret = fd;
			if (log_fail)
				hwp_log(HWPROF_LOG_ERR, "hwprof: tid %d: %s", (int)tid, why);
			goto err;
		}
		memset(sl, 0, sizeof(*sl));
		sl->fd = fd;
		sl->ev = (int)i;
		sl->tid = tid;
		sl->lcg = HWPROF_LCG_SEED;
		sl->fmt_lost = !!(e->e.attr.read_format & PERF_FORMAT_LOST);
		ret = hwp_ring_map(&sl->ring, fd, s->pages);
		if (!ret)
			ret = hwp_perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		if (ret) {
			if (sl->ring.page)
				hwp_ring_unmap(&sl->ring);
			close(fd);
			if (log_fail)
				hwp_log(HWPROF_LOG_ERR, "hwprof: tid %d: %s: ring: %s",
					(int)tid, e->name, strerror(-ret));
			goto err;
		}
		e->precise = (uint32_t)precise;
		s->nslot++;
	}
	s->threads++;
	return 0;
err:
	while (s->nslot > first) {
		struct slot *sl = &s->slot[--s->nslot];

		hwp_ring_unmap(&sl->ring);
		close(sl->fd);
	}
	return ret;
}

/* Before a new thread attaches: closes the slots its tid still has from an
 * exited thread that had the same tid (after a last drain), and returns 1
 * if it is already covered (the drainer's scan got to it first). */
static int retire_tid(struct hwprof_session *s, pid_t tid)
{
	size_t j = 0;
	int live = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		struct slot *sl = &s->slot[i];

		if (sl->tid == tid && slot_hung_up(sl)) {
			drain_slot(s, sl);
			slot_close(s, sl);
			continue;
		}
		live |= sl->tid == tid;
		s->slot[j++] = *sl;
	}
	s->nslot = j;
	return live;
}

/* The drain thread's tid; a thread made a moment ago may not have set it
 * yet (only a scan racing its birth waits). */
static pid_t drainer_tid(void)
{
	pid_t tid;

	if (!drn)
		return 0;
	while (!(tid = __atomic_load_n(&drn->tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	return tid;
}

/* Every thread of the process not yet covered, except the drain thread. */
static int scan_threads(struct hwprof_session *s, int log_fail)
{
	DIR *d = opendir("/proc/self/task");
	pid_t skip = drainer_tid();
	struct dirent *de;
	int ret = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		int r;

		if (tid <= 0 || tid == skip || attached(s, tid))
			continue;
		r = attach(s, tid, log_fail);
		if (r && r != -ESRCH && !ret)	/* ESRCH: exited meanwhile */
			ret = r;
	}
	closedir(d);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Draining                                                             */

static void fold_into(struct sev *e, struct slot *sl, const uint64_t *ips,
		      size_t n)
{
	struct hwprof_hist_stats a = { .sz = sizeof(a) }, b = { .sz = sizeof(b) };

	if (e->sink) {
		size_t took = e->sink(e->sink_arg, ips, n);

		e->st.folded += took;
		e->st.outside += n - took;
		return;
	}
	if (!e->hist) {
		e->st.outside += n;
		return;
	}
	hwprof_hist_stats(e->hist, &a);
	hwprof_hist_fold(e->hist, ips, NULL, n, &sl->lcg);
	hwprof_hist_stats(e->hist, &b);
	e->st.folded += b.folded - a.folded;
	e->st.outside += b.outside - a.outside;
	e->st.saturated += b.saturated - a.saturated;
}

static void drain_slot(struct hwprof_session *s, struct slot *sl)
{
	struct sev *e = &s->ev[sl->ev];
	uint64_t ips[BATCH];
	size_t n;

	if (!sl->ring.page)
		return;
	do {
		n = hwp_ring_read_ips(&sl->ring, ips, BATCH);
		e->st.samples += n;
		if (n)
			fold_into(e, sl, ips, n);
	} while (n == BATCH);
}

/* Folds everything the rings hold; keeps object histograms current first,
 * so samples in a just-dlopen'ed object land in its buckets. */
static void drain(struct hwprof_session *s)
{
	for (size_t i = 0; i < s->nev; i++) {
		struct sev *e = &s->ev[i];

		if (e->objs && !hwp_objects_refresh(e->objs))
			e->hist = e->objs->hist;
	}
	for (size_t i = 0; i < s->nslot; i++)
		drain_slot(s, &s->slot[i]);
}

static void wake_drainer(void)
{
	uint64_t one = 1;

	if (drn && write(drn->wake, &one, sizeof(one)) < 0) {
		/* the counter is only a doorbell: a full one still rings */
	}
}

static unsigned int drain_period(void)
{
	unsigned int ms = 0;

	for (struct hwprof_session *s = running; s; s = s->next)
		if (!ms || s->drain_ms < ms)
			ms = s->drain_ms;
	return ms ? ms : DEF_DRAIN_MS;
}

/*
 * Sleeps in poll() on every ring (each wakes at half full) and the
 * doorbell, at most drain_ms, then drains every running session and
 * drops the rings of exited threads. It has no fd of its own: it is
 * created by the engine's own pthread_create, never attached by a scan.
 */
static void *drain_main(void *arg)
{
	struct drainer *d = arg;
	struct pollfd *pf = NULL;
	size_t cap = 0;

	__atomic_store_n(&d->tid, hwp_gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&eng);
	for (;;) {
		size_t n = 1;
		unsigned int ms;
		uint64_t v;

		if (d->stop)
			break;
		for (struct hwprof_session *s = running; s; s = s->next)
			n += s->nslot;
		if (n > cap) {
			struct pollfd *np = realloc(pf, n * sizeof(*pf));

			if (np) {
				pf = np;
				cap = n;
			}
		}
		n = 0;
		if (cap) {
			pf[n++] = (struct pollfd){ .fd = d->wake, .events = POLLIN };
			for (struct hwprof_session *s = running; s; s = s->next)
				for (size_t i = 0; i < s->nslot && n < cap; i++)
					pf[n++] = (struct pollfd){
						.fd = s->slot[i].fd, .events = POLLIN };
		}
		ms = drain_period();
		pthread_mutex_unlock(&eng);

		poll(pf, n, (int)ms);
		if (n && (pf[0].revents & POLLIN) &&
		    read(d->wake, &v, sizeof(v)) < 0) {
			/* EAGAIN: rung and read already */
		}

		pthread_mutex_lock(&eng);
		for (struct hwprof_session *s = running; s; s = s->next) {
			drain(s);
			reap(s, 0);
			if (s->mode == HWPROF_SESSION_PROCESS)
				scan_threads(s, 0);	/* raw clone()s, old binaries */
		}
	}
	pthread_mutex_unlock(&eng);
	free(pf);
	return NULL;
}

/* Called with eng held. */
static int drainer_start(void)
{
	struct drainer *d;
	sigset_t all, old;
	int ret;

	if (drn)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->wake < 0) {
		ret = -errno;
		free(d);
		return ret;
	}

	/* no signal of the program's should land on the drain thread; it is
	 * made through the global pthread_create, so that an interposer in
	 * front of ours (a sanitizer's) knows it, but skips our trampoline */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	no_trampoline = 1;
	ret = -pthread_create(&d->thread, NULL, drain_main, d);
	no_trampoline = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		close(d->wake);
		free(d);
		return ret;
	}
	drn = d;
	return 0;
}

/* Called with eng held; returns with it held. */
static void drainer_stop(void)
{
	struct drainer *d = drn;

	if (!d || running)
		return;
	drn = NULL;
	d->stop = 1;
	{
		uint64_t one = 1;

		if (write(d->wake, &one, sizeof(one)) < 0) {
			/* full doorbell: it will see stop anyway */
		}
	}
	pthread_mutex_unlock(&eng);
	pthread_join(d->thread, NULL);
	pthread_mutex_lock(&eng);
	close(d->wake);
	free(d);
}

/* ------------------------------------------------------------------ */
/* New threads: an interposed pthread_create                            */

struct tramp {
	void *(*fn)(void *);
	void *arg;
};

/* Runs first in every thread created through pthread_create(): attaches
 * it to the running process-wide sessions before its start routine. */
static void *trampoline(void *p)
{
	struct tramp t = *(struct tramp *)p;

	free(p);
	if (__atomic_load_n(&nprocess, __ATOMIC_ACQUIRE)) {
		pid_t tid = hwp_gettid();

		pthread_mutex_lock(&eng);
		for (struct hwprof_session *s = running; s; s = s->next) {
			if (s->mode != HWPROF_SESSION_PROCESS)
				continue;
			if (!retire_tid(s, tid))
				attach(s, tid, 1);
		}
		wake_drainer();
		pthread_mutex_unlock(&eng);
	}
	return t.fn(t.arg);
}

/*
 * Interposes glibc's pthread_create (version GLIBC_2.34, lib/hwprof.map).
 * Always goes through the trampoline, so a session that starts while the
 * thread is being created still gets it: either the scan at start sees the
 * new tid or the trampoline sees the running session; both dedupe by tid.
 */
HWPROF_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			      void *(*fn)(void *), void *arg)
{
	pthread_create_fn real = create_fn();
	struct tramp *t;
	int ret;

	if (!real)
		return EAGAIN;
	if (no_trampoline)
		return real(thread, attr, fn, arg);
	t = malloc(sizeof(*t));
	if (!t)
		return real(thread, attr, fn, arg);
	t->fn = fn;
	t->arg = arg;
	ret = real(thread, attr, trampoline, t);
	if (ret)
		free(t);
	return ret;
}

/* ------------------------------------------------------------------ */
/* fork: the child profiles on, into its own copy of the buffers        */

static pid_t fork_tid;

/* Drains first, so the copy of the buffers the child gets is current. */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&eng);
	fork_tid = hwp_gettid();
	for (struct hwprof_session *s = running; s; s = s->next)
		drain(s);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&eng);
}

/*
 * In the child the fds still name the parent's events (disabling one would
 * stop the parent) and the rings are not mapped (perf mappings are not
 * copied). Close them without touching the events, then open fresh ones
 * for the one thread the child has: the one that forked. Sessions that
 * sampled another thread stop.
 */
static void atfork_child(void)
{
	struct hwprof_session **pp = &running;
	pid_t me = hwp_gettid();

	/* eng is still held: the thread that forked took it in prepare, and
	 * that is the thread running here */
	if (drn) {		/* its thread did not come along */
		close(drn->wake);
		free(drn);
		drn = NULL;
	}
	while (*pp) {
		struct hwprof_session *s = *pp;
		int keep = s->mode == HWPROF_SESSION_PROCESS || s->owner == fork_tid;

		for (size_t i = 0; i < s->nslot; i++) {
			struct sev *e = &s->ev[s->slot[i].ev];

			e->st.lost += s->slot[i].ring.stats.lost;
			e->st.throttled += s->slot[i].ring.stats.throttled;
			close(s->slot[i].fd);
		}
		s->nslot = 0;
		s->threads = 0;
		if (keep && !attach(s, me, 1)) {
			s->owner = me;
			pp = &s->next;
			continue;
		}
		s->running = 0;
		if (s->mode == HWPROF_SESSION_PROCESS)
			nprocess--;
		*pp = s->next;
	}
	if (running)
		drainer_start();
	pthread_mutex_unlock(&eng);
}

__attribute__((constructor)) static void session_init(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	create_fn();
}

/* ------------------------------------------------------------------ */
/* Public calls                                                         */

HWPROF_API int hwprof_session_new(const struct hwprof_session_opts *opts,
				  struct hwprof_session **out)
{
	struct hwprof_session_opts o = { 0 };
	struct hwprof_session *s;

	if (!out)
		return -EINVAL;
	if (opts) {
		if (!hwp_opts_ok(opts, opts->sz, sizeof(o)))
			return -EINVAL;
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	}
	if (o.mode > HWPROF_SESSION_PROCESS || (o.flags & ~HWPROF_SESSION_NO_WAKEUP) ||
	    (o.ring_pages & (o.ring_pages - 1)) || o.ring_pages > (1u << 16))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->mode = o.mode;
	s->flags = o.flags;
	s->pages = o.ring_pages ? o.ring_pages : DEF_PAGES;
	s->drain_ms = o.drain_ms ? o.drain_ms : DEF_DRAIN_MS;
	*out = s;
	return 0;
}

uint64_t hwp_applied_period(int clock, uint64_t period)
{
	return clock && period < MIN_CLOCK_NS ? MIN_CLOCK_NS : period;
}

/* Says what the kernel will do with a period it cannot honour. */
static void period_notes(const char *name, const struct sev *e)
{
	long rate = hwp_read_long("/proc/sys/kernel/perf_event_max_sample_rate", 0);

	if (e->e.kind != HWP_EV_CLOCK)
		return;
	if (e->period < MIN_CLOCK_NS)
		hwp_log(HWPROF_LOG_WARN,
			"hwprof: %s: period %llu ns is below the kernel's minimum: it samples every %d ns",
			name, (unsigned long long)e->period, MIN_CLOCK_NS);
	if (rate > 0 && e->period && 1000000000ull / e->period > (uint64_t)rate)
		hwp_log(HWPROF_LOG_WARN,
			"hwprof: %s: %llu samples/s per thread exceeds kernel.perf_event_max_sample_rate (%ld): the kernel will throttle",
			name, 1000000000ull / e->period, rate);
}

HWPROF_API int hwprof_session_add(struct hwprof_session *s, const char *event,
				  uint64_t threshold, struct hwprof_hist *h)
{
	return hwp_session_add(s, event, threshold, h, NULL, NULL);
}

/* hwprof_session_add(), or with a sink that takes the raw pcs instead of a
 * histogram (pcsample). */
int hwp_session_add(struct hwprof_session *s, const char *event,
		    uint64_t threshold, struct hwprof_hist *h,
		    hwp_sink_fn sink, void *sink_arg)
{
	struct sev *ne, *e;
	char why[256];
	int ret;

	if (!s || threshold > INT64_MAX)	/* the kernel's period is signed */
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
	ret = hwp_event_resolve(event, &e->e, why, sizeof(why));
	if (ret) {
		hwp_log(HWPROF_LOG_ERR, "hwprof: %s", why);
		return ret;
	}
	e->name = strdup(event && *event ? event : "task-clock");
	if (!e->name)
		return -ENOMEM;
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
			free(e->name);
			return ret;
		}
		e->hist = e->objs->hist;
	}
	e->period = threshold ? threshold : e->e.default_period;
	e->e.attr.sample_period = e->period;
	e->e.attr.sample_type = PERF_SAMPLE_IP;
	e->e.attr.disabled = 1;
	e->e.attr.exclude_kernel = 1;
	e->e.attr.exclude_hv = 1;
	e->e.attr.inherit = 0;
	e->e.attr.read_format = PERF_FORMAT_LOST;	/* kernel 6.0+; see attach() */
	e->e.attr.watermark = 1;
	/* half the ring wakes the drainer; NO_WAKEUP: more than the ring
	 * holds, so only the interval, read and stop drain */
	e->e.attr.wakeup_watermark = (uint32_t)(s->pages * (size_t)sysconf(_SC_PAGESIZE) /
						(s->flags & HWPROF_SESSION_NO_WAKEUP ? 1 : 2));
	if (s->flags & HWPROF_SESSION_NO_WAKEUP)
		e->e.attr.wakeup_watermark += 1;
	period_notes(e->name, e);
	return (int)s->nev++;
}

HWPROF_API int hwprof_session_start(struct hwprof_session *s)
{
	int ret;

	if (!s)
		return -EINVAL;
	if (!s->nev)
		return -ENOENT;
	pthread_mutex_lock(&eng);
	if (s->running) {
		ret = -EBUSY;
		goto out;
	}
	s->threads = 0;
	if (s->mode == HWPROF_SESSION_THREAD) {
		s->owner = hwp_gettid();
		ret = attach(s, s->owner, 1);
	} else {
		/* A thread being created now either runs (so the scan sees it)
		 * or has not reached its trampoline, which waits for eng and
		 * then finds this session running. */
		ret = scan_threads(s, 1);
	}
	/* The drain thread comes after the fds and is never given one: fds
	 * are per thread (nothing inherits), it skips the trampoline, and
	 * scans leave its tid out. Not waiting for it to run keeps start
	 * fast. */
	if (!ret)
		ret = drainer_start();
	if (ret) {
		reap(s, 1);
		goto out;
	}
	s->running = 1;
	s->next = running;
	running = s;
	if (s->mode == HWPROF_SESSION_PROCESS)
		__atomic_add_fetch(&nprocess, 1, __ATOMIC_RELEASE);
	wake_drainer();
out:
	pthread_mutex_unlock(&eng);
	return ret;
}

/* Called with eng held: disable, drain to the last record, close. */
static void stop_locked(struct hwprof_session *s)
{
	struct hwprof_session **pp;

	for (size_t i = 0; i < s->nslot; i++)
		hwp_perf_ioctl(s->slot[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(s);
	reap(s, 1);
	for (pp = &running; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	if (s->mode == HWPROF_SESSION_PROCESS)
		__atomic_sub_fetch(&nprocess, 1, __ATOMIC_RELEASE);
	s->running = 0;
	wake_drainer();
	drainer_stop();
}

HWPROF_API int hwprof_session_stop(struct hwprof_session *s)
{
	int ret = 0;

	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&eng);
	if (s->running)
		stop_locked(s);
	else
		ret = -EALREADY;
	pthread_mutex_unlock(&eng);
	return ret;
}

static uint64_t total_folded(const struct hwprof_session *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nev; i++)
		n += s->ev[i].st.folded;
	return n;
}

HWPROF_API int hwprof_session_read(struct hwprof_session *s)
{
	uint64_t before;

	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&eng);
	before = total_folded(s);
	drain(s);
	before = total_folded(s) - before;
	pthread_mutex_unlock(&eng);
	return before > INT32_MAX ? INT32_MAX : (int)before;
}

HWPROF_API int hwprof_session_reset(struct hwprof_session *s)
{
	uint64_t ips[BATCH];

	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&eng);
	for (size_t i = 0; i < s->nslot; i++) {
		struct slot *sl = &s->slot[i];

		uint64_t v[2];

		while (sl->ring.page && hwp_ring_read_ips(&sl->ring, ips, BATCH))
			;
		memset(&sl->ring.stats, 0, sizeof(sl->ring.stats));
		if (sl->fmt_lost && !hwp_perf_read(sl->fd, v, 2))
			sl->lost_base = v[1];
	}
	for (size_t i = 0; i < s->nev; i++) {
		memset(&s->ev[i].st, 0, sizeof(s->ev[i].st));
		if (s->ev[i].objs)
			hwp_objects_zero(s->ev[i].objs);
	}
	pthread_mutex_unlock(&eng);
	return 0;
}

HWPROF_API int hwprof_session_stats(struct hwprof_session *s, int event,
				    struct hwprof_session_stats *st)
{
	struct hwprof_session_stats v = { .sz = sizeof(v) };
	const struct sev *e;

	if (!s || !st || st->sz < sizeof(size_t) || event < 0 ||
	    (size_t)event >= s->nev)
		return -EINVAL;
	pthread_mutex_lock(&eng);
	e = &s->ev[event];
	v.samples = e->st.samples;
	v.lost = e->st.lost;
	v.throttled = e->st.throttled;
	for (size_t i = 0; i < s->nslot; i++) {
		if (s->slot[i].ev != event)
			continue;
		v.lost += slot_lost(&s->slot[i]);
		v.throttled += s->slot[i].ring.stats.throttled;
	}
	v.folded = e->st.folded;
	v.outside = e->st.outside;
	v.saturated = e->st.saturated;
	v.period = hwp_applied_period(e->e.kind == HWP_EV_CLOCK, e->period);
	v.precise = e->precise;
	v.threads = s->threads;
	pthread_mutex_unlock(&eng);
	memcpy((char *)st + sizeof(size_t), (char *)&v + sizeof(size_t),
	       (st->sz < sizeof(v) ? st->sz : sizeof(v)) - sizeof(size_t));
	return 0;
}

HWPROF_API int hwprof_session_objects(struct hwprof_session *s, int event,
				      const struct hwprof_object **objs,
				      size_t *n)
{
	struct hwp_objects *o;
	struct hwprof_object *snap;
	int ret = 0;

	if (!s || !objs || !n || event < 0 || (size_t)event >= s->nev)
		return -EINVAL;
	pthread_mutex_lock(&eng);
	o = s->ev[event].objs;
	if (!o) {
		ret = -ENOENT;
		goto out;
	}
	snap = realloc(s->snap, (o->n ? o->n : 1) * sizeof(*snap));
	if (!snap) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(snap, o->obj, o->n * sizeof(*snap));
	s->snap = snap;
	*objs = snap;
	*n = o->n;
out:
	pthread_mutex_unlock(&eng);
	return ret;
}

HWPROF_API void hwprof_session_free(struct hwprof_session *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&eng);
	if (s->running)
		stop_locked(s);
	pthread_mutex_unlock(&eng);
	for (size_t i = 0; i < s->nev; i++) {
		free(s->ev[i].name);
		hwp_objects_free(s->ev[i].objs);
	}
	free(s->ev);
	free(s->slot);
	free(s->snap);
	free(s);
}
