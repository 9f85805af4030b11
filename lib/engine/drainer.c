/* SPDX-License-Identifier: MIT */
/*
 * The drain thread, one while any session runs: it sleeps in poll() on
 * every ring and a doorbell, then drains every running session, drops the
 * rings of exited threads and catches threads made without
 * pthread_create. It has no fd of its own, so it is never sampled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"

/* The drain thread: one while any session runs. */
struct drainer {
	pthread_t thread;
	pid_t tid;	     /* set by the thread itself, first thing */
	int wake[2];	     /* pipe: the running set changed, or stop */
	uint64_t wdev, wino; /* its identity (see wake_ours()) */
	int stop;
};

static struct drainer *drn;

pid_t hwp_drainer_tid(void)
{
	pid_t tid;

	if (!drn)
		return 0;
	/* a thread made a moment ago may not have set it yet: only a scan
	 * racing its birth waits */
	while (!(tid = __atomic_load_n(&drn->tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	return tid;
}

/*
 * The doorbell is a pipe, not an eventfd: a pipe's inode is its own, so
 * fstat() tells whether the program closed it and put a file of its own
 * at that number (every eventfd shares one inode). Nothing is written to
 * or read from an fd that is not the doorbell; without it the drain
 * thread wakes on its interval only.
 */
static int wake_ours(const struct drainer *d, int end)
{
	struct stat st;

	return d->wake[end] >= 0 && !fstat(d->wake[end], &st) &&
	       (uint64_t)st.st_dev == d->wdev && (uint64_t)st.st_ino == d->wino &&
	       S_ISFIFO(st.st_mode);
}

static void ring_bell(struct drainer *d)
{
	char one = 1;

	if (wake_ours(d, 1) && write(d->wake[1], &one, 1) < 0) {
		/* EAGAIN: a full pipe still rings */
	}
}

static void close_bell(struct drainer *d)
{
	for (int i = 0; i < 2; i++)
		if (wake_ours(d, i))
			close(d->wake[i]);
}

void hwp_drainer_wake(void)
{
	if (drn)
		ring_bell(drn);
}

static unsigned int drain_period(void)
{
	unsigned int ms = 0;

	for (struct hwprof_session *s = hwp_running; s; s = s->next)
		if (!ms || s->drain_ms < ms)
			ms = s->drain_ms;
	return ms ? ms : HWP_DEF_DRAIN_MS;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Sleeps in poll() on every ring (each wakes at half full) and the
 * doorbell, at most drain_ms, then drains every running session, drops
 * the rings of exited threads and catches threads made without
 * pthread_create. It has no fd of its own: it is made without the
 * trampoline and scans leave its tid out.
 */
static void *drain_main(void *arg)
{
	struct drainer *d = arg;
	struct pollfd *pf = NULL;
	int *hung = NULL, *woke = NULL, threads, bell = 1;
	size_t cap = 0, nhung, nwoke;

	__atomic_store_n(&d->tid, hwp_sys_gettid(), __ATOMIC_RELEASE);
	prctl(PR_SET_NAME, "hwprof-drain"); /* for top -H, ps -L */
	/* every signal stays blocked but the two a fold into a buffer the
	 * program took away raises: blocked, they would kill the process
	 * (lib/engine/drain.c fold_guarded()) */
	{
		sigset_t faults;

		sigemptyset(&faults);
		sigaddset(&faults, SIGSEGV);
		sigaddset(&faults, SIGBUS);
		pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
	}
	hwp_lock_engine();
	for (;;) {
		size_t n = 1;
		unsigned int ms;
		char buf[64];

		if (d->stop)
			break;
		for (struct hwprof_session *s = hwp_running; s; s = s->next)
			n += s->nslot;
		if (n > cap) {
			struct pollfd *np = realloc(pf, n * sizeof(*pf));
			int *nh = realloc(hung, n * sizeof(*nh));
			int *nw = realloc(woke, n * sizeof(*nw));

			if (nh)
				hung = nh;
			if (nw)
				woke = nw;
			if (np)
				pf = np;
			if (np && nh && nw)
				cap = n;
		}
		/* a doorbell the program closed is not polled (an fd it put
		 * there may be always ready): the interval alone wakes us */
		if (bell && !wake_ours(d, 0))
			bell = 0;
		n = 0;
		if (cap) {
			pf[n++] = (struct pollfd){ .fd = bell ? d->wake[0] : -1,
						   .events = POLLIN };
			/* NO_WAKEUP rings are watched for hang-ups only: the
			 * kernel wakes a full ring's reader all the same */
			for (struct hwprof_session *s = hwp_running; s; s = s->next)
				for (size_t i = 0; i < s->nslot && n < cap; i++)
					pf[n++] = (struct pollfd){
						.fd = s->slot[i].fd,
						.events = s->flags & HWPROF_SESSION_NO_WAKEUP ?
								  0 :
								  POLLIN
					};
		}
		ms = drain_period();
		hwp_unlock_engine();

		poll(pf, n, (int)ms);
		if (n && (pf[0].revents & POLLIN) && wake_ours(d, 0) &&
		    read(d->wake[0], buf, sizeof(buf)) < 0) {
			/* EAGAIN: rung and read already */
		}

		/* the fds that hung up (their thread exited), and every fd
		 * poll() reported on, which is checked to be still ours: a
		 * file of the program's at that number may be always ready
		 * (or gone: POLLNVAL), and would make this loop spin */
		nhung = nwoke = 0;
		for (size_t i = 1; i < n; i++) {
			if (pf[i].revents & POLLHUP)
				hung[nhung++] = pf[i].fd;
			if (pf[i].revents)
				woke[nwoke++] = pf[i].fd;
		}
		qsort(hung, nhung, sizeof(*hung), cmp_int);
		qsort(woke, nwoke, sizeof(*woke), cmp_int);
		threads = hwp_threads_now();

		hwp_lock_engine();
		for (struct hwprof_session *s = hwp_running; s; s = s->next) {
			hwp_drain(s);
			if (nwoke)
				hwp_threads_drop_foreign(s, woke, nwoke);
			if (nhung)
				hwp_threads_reap_hung(s, hung, nhung);
			/* threads made by raw clone(), or by binaries older than
			 * pthread_create@GLIBC_2.34: only when the count moved */
			if (s->mode == HWPROF_SESSION_PROCESS &&
			    (threads < 0 || (uint32_t)threads != s->seen))
				hwp_threads_scan(s, d->tid, 0, 1);
		}
		hwp_drain_deliver_all();
	}
	hwp_unlock_engine();
	free(pf);
	free(hung);
	free(woke);
	return NULL;
}

/* Called with hwp_eng held, before any fd of a starting session is
 * opened: the thread's creation (its stack, its first page faults) is
 * never sampled. */
int hwp_drainer_start(void)
{
	struct drainer *d;
	sigset_t all, old;
	int ret;

	if (drn)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (pipe2(d->wake, O_CLOEXEC | O_NONBLOCK)) {
		ret = -errno;
		free(d);
		return ret;
	} else {
		struct stat st;

		fstat(d->wake[0], &st);
		d->wdev = (uint64_t)st.st_dev;
		d->wino = (uint64_t)st.st_ino;
	}
	/* no signal of the program's should land on the drain thread; it is
	 * made through the global pthread_create, so that an interposer in
	 * front of ours (a sanitizer's) knows it, but skips our trampoline */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -hwp_spawn_untracked(&d->thread, drain_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		close_bell(d);
		free(d);
		return ret;
	}
	drn = d;
	return 0;
}

/* Called with hwp_eng held; returns with it held. Ends the thread once no
 * session runs. */
void hwp_drainer_stop(void)
{
	struct drainer *d = drn;

	if (!d || hwp_running)
		return;
	drn = NULL;
	d->stop = 1;
	ring_bell(d); /* without it, it sees stop within drain_ms */
	pthread_mutex_unlock(&hwp_eng);
	pthread_join(d->thread, NULL);
	pthread_mutex_lock(&hwp_eng);
	close_bell(d);
	free(d);
}

/* In a fork child: the thread did not come along. */
void hwp_drainer_forget(void)
{
	if (drn) {
		close_bell(drn);
		free(drn);
		drn = NULL;
	}
}
