/* SPDX-License-Identifier: MIT */
/*
 * One sampling fd and ring per thread and event: attaching a thread (with
 * rings sized to the locked-memory budget, and the open-file limit raised
 * when the fds run out), the threads of the process at start, new threads
 * attached as they are made (hwp_attach_new(), lib/follow.c), exited
 * threads reaped. What cannot be covered is counted, never hidden.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"

/* ------------------------------------------------------------------ */
/* Whose fd is it                                                       */

/*
 * A program may close hwprof's fds behind its back (close_range(3, ~0U),
 * a daemon's close loop up to 1024) and open its own files, which take the
 * same numbers. Every fd is known by what it was at open: fstat()'s device
 * and inode (every perf fd shares one anonymous inode with eventfds,
 * epolls and the like) and the event's PERF_EVENT_IOC_ID, unique to each
 * event ('$' ioctls are perf's alone, so asking an anonymous-inode fd of
 * another kind does nothing to it). Before hwprof reads, ioctls or closes
 * a slot's fd it checks both; a slot whose fd is not its own any more is
 * dropped without touching the fd (see slot_foreign()).
 */
static int fd_identity(int fd, uint64_t *dev, uint64_t *ino, uint64_t *id)
{
	struct stat st;

	if (fstat(fd, &st) || ioctl(fd, PERF_EVENT_IOC_ID, id))
		return -errno;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* 1 if sl->fd is still the fd hwprof opened for sl. */
int hwp_slot_ours(const struct hwp_slot *sl)
{
	struct stat st;
	uint64_t id;

	if (sl->fd < 0 || fstat(sl->fd, &st) || (uint64_t)st.st_dev != sl->dev ||
	    (uint64_t)st.st_ino != sl->ino)
		return 0;
	return !ioctl(sl->fd, PERF_EVENT_IOC_ID, &id) && id == sl->id;
}

/*
 * Samples the kernel dropped for this fd: its running total when the
 * kernel has PERF_FORMAT_LOST (a LOST record is only written once the
 * reader frees space, so records alone miss drops just before a stop),
 * else the LOST records seen.
 */
uint64_t hwp_slot_lost(const struct hwp_slot *sl)
{
	uint64_t v[2];

	if (sl->fmt_lost && hwp_slot_ours(sl) && !hwp_perf_read(sl->fd, v, 2))
		return v[1] > sl->lost_base ? v[1] - sl->lost_base : 0;
	return sl->ring.stats.lost;
}

static int was_missed(const struct hwprof_session *s, pid_t tid);
static void count_missed(struct hwprof_session *s, pid_t tid, int err);

/*
 * A slot whose fd the program closed (and maybe reused): what the ring
 * holds is folded (the mapping keeps the event alive, so nothing was lost
 * on the way), the ring unmapped, which ends the event, and the fd left
 * alone. Its thread is no longer covered: counted missed with -EBADF,
 * and said once per session.
 */
static void slot_foreign(struct hwprof_session *s, struct hwp_slot *sl)
{
	struct hwp_sev *e = &s->ev[sl->ev];

	hwp_drain_slot(s, sl);
	e->st.lost += sl->ring.stats.lost;
	e->st.throttled += sl->ring.stats.throttled;
	hwp_ring_unmap(&sl->ring);
	sl->fd = -1;
	if (!was_missed(s, sl->tid))
		count_missed(s, sl->tid, -EBADF);
	if (!s->told_ebadf) {
		s->told_ebadf = 1;
		hwp_log(HWPROF_LOG_WARN,
			"hwprof: the program closed hwprof's file descriptors (close_range or a close loop): thread %d, and any other whose fds went, is no longer sampled",
			(int)sl->tid);
	}
}

static void slot_close(struct hwprof_session *s, struct hwp_slot *sl)
{
	struct hwp_sev *e = &s->ev[sl->ev];

	if (!hwp_slot_ours(sl)) {
		slot_foreign(s, sl);
		return;
	}
	e->st.lost += hwp_slot_lost(sl);
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

static int was_missed(const struct hwprof_session *s, pid_t tid)
{
	for (size_t i = 0; i < s->nmissed_tid; i++)
		if (s->missed_tid[i] == tid)
			return 1;
	return 0;
}

/* Attached, or tried and counted as missed: a scan leaves it alone. */
static int known(const struct hwprof_session *s, pid_t tid)
{
	return was_missed(s, tid) || attached(s, tid);
}

/* The number of threads of this process (/proc/self/stat, field 20), or
 * -1 when it cannot be read. */
int hwp_threads_now(void)
{
	char buf[1024], *p;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the name may hold spaces */
	for (; p && *p && field < 20; p++)
		if (*p == ' ' && p[1] != ' ')
			field++;
	return p ? atoi(p) : -1;
}

/* A thread whose fd reports POLLHUP has exited: its ring is final. */
static int slot_hung_up(const struct hwp_slot *sl)
{
	struct pollfd p = { .fd = sl->fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLHUP);
}

/* Whether fd is among the n sorted fds. */
static int fd_listed(const int *fds, size_t n, int fd)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (fds[m] < fd)
			a = m + 1;
		else
			b = m;
	}
	return a < n && fds[a] == fd;
}

/* Drops the slots of exited threads among those whose fd a poll() saw
 * hang up (fds, sorted): each is checked again, since the fd number may
 * have been reused since. */
void hwp_reap_hung(struct hwprof_session *s, const int *fds, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		struct hwp_slot *sl = &s->slot[i];

		if (fd_listed(fds, n, sl->fd) && slot_hung_up(sl)) {
			hwp_drain_slot(s, sl);
			slot_close(s, sl);
			continue;
		}
		s->slot[j++] = *sl;
	}
	s->nslot = j;
}

/* Drops the slots of exited threads (after a last drain) and compacts. */
void hwp_reap(struct hwprof_session *s, int all)
{
	size_t j = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		struct hwp_slot *sl = &s->slot[i];

		if (all || slot_hung_up(sl)) {
			hwp_drain_slot(s, sl);
			slot_close(s, sl);
			continue;
		}
		s->slot[j++] = *sl;
	}
	s->nslot = j;
}

/* Enables (or disables) the slots of one thread, or of all (tid 0). */
void hwp_slots_enable(struct hwprof_session *s, pid_t tid, int on)
{
	int foreign = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		if (tid && s->slot[i].tid != tid)
			continue;
		if (!hwp_slot_ours(&s->slot[i])) {
			foreign = 1;
			continue;
		}
		hwp_perf_ioctl(s->slot[i].fd, on ? PERF_EVENT_IOC_ENABLE :
			       PERF_EVENT_IOC_DISABLE, 0);
	}
	if (foreign)
		hwp_drop_foreign(s, NULL, 0);
}

/* Drops the slots whose fd is not hwprof's any more, among those whose fd
 * is in fds (sorted), or all of them (fds NULL). */
void hwp_drop_foreign(struct hwprof_session *s, const int *fds, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		struct hwp_slot *sl = &s->slot[i];

		if (fds && !fd_listed(fds, n, sl->fd)) {
			s->slot[j++] = *sl;
			continue;
		}
		if (!hwp_slot_ours(sl)) {
			slot_foreign(s, sl);
			continue;
		}
		s->slot[j++] = *sl;
	}
	s->nslot = j;
}

/* ------------------------------------------------------------------ */
/* Limits: locked memory for the rings, open files for the fds          */

static long status_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * The ring size for a session's threads. The kernel lets an unprivileged
 * user lock perf_event_mlock_kb per CPU (shared by all of that user's
 * processes) plus RLIMIT_MEMLOCK per process (perf_event_open(2)); a ring
 * of 1 + p pages costs 1 + p pages of it. Process-wide sessions keep
 * enough of it for HWP_FIT_THREADS threads with the largest ring that
 * fits (s->fit), and give the first threads (the main thread, which
 * usually makes the others) the size asked for out of what is left: a
 * process that makes many threads is covered whole rather than its first
 * 135 with 16-page rings. Root (or an unlimited RLIMIT_MEMLOCK) keeps the
 * size asked for.
 */
void hwp_size_rings(struct hwprof_session *s)
{
	struct rlimit rl;
	long psz = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long user_kb, pinned_kb;
	uint64_t budget, pages, per;
	unsigned int p = s->pages;

	s->fit = 0;
	s->surplus = 0;
	if (s->mode != HWPROF_SESSION_PROCESS || geteuid() == 0 ||
	    hwp_paranoid() < 0 || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return;
	user_kb = hwp_read_long("/proc/sys/kernel/perf_event_mlock_kb", 516);
	pinned_kb = status_kb("VmPin");
	budget = (uint64_t)(user_kb > 0 ? user_kb : 0) * (uint64_t)(ncpu > 0 ? ncpu : 1) * 1024;
	if (rl.rlim_cur / 1024 > (rlim_t)(pinned_kb > 0 ? pinned_kb : 0))
		budget += rl.rlim_cur - (uint64_t)(pinned_kb > 0 ? pinned_kb : 0) * 1024;
	pages = budget / (uint64_t)psz;
	per = pages / HWP_FIT_THREADS / s->nev;		/* pages a ring may take */
	while (p > 1 && p + 1 > per)
		p /= 2;
	s->fit = p;
	/* the surplus leaves room for a few more threads than promised (a
	 * sanitizer's or a runtime's own) */
	if (pages > (uint64_t)(HWP_FIT_THREADS + 64) * s->nev * (p + 1))
		s->surplus = pages - (uint64_t)(HWP_FIT_THREADS + 64) * s->nev * (p + 1);
	if (p != s->pages)
		hwp_log(HWPROF_LOG_INFO,
			"hwprof: rings of %u data pages a thread (%u for the first ones): %llu KiB of locked memory is kept for %d threads",
			p, s->pages, (unsigned long long)(budget / 1024), HWP_FIT_THREADS);
}

/* The ring size for the next thread's ring: the size asked for while the
 * surplus lasts, else the size that fits. */
static unsigned int ring_pages(struct hwprof_session *s)
{
	if (!s->fit || s->fit >= s->pages)
		return s->pages;
	if (s->surplus >= s->pages - s->fit) {
		s->surplus -= s->pages - s->fit;
		return s->pages;
	}
	return s->fit;
}

/* Raises the soft limit on open files to the hard one, once: a thread
 * costs one fd per event. 1 if it was raised. */
static int raise_nofile(void)
{
	static int done;
	struct rlimit rl;
	rlim_t was;

	if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL) || getrlimit(RLIMIT_NOFILE, &rl) ||
	    rl.rlim_cur >= rl.rlim_max)
		return 0;
	was = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_cur == RLIM_INFINITY || setrlimit(RLIMIT_NOFILE, &rl)) {
		long nr = hwp_read_long("/proc/sys/fs/nr_open", 1048576);

		rl.rlim_cur = (rlim_t)nr < rl.rlim_max ? (rlim_t)nr : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	hwp_log(HWPROF_LOG_INFO,
		"hwprof: raised the soft limit on open files from %llu to %llu (one fd per thread and event)",
		(unsigned long long)was, (unsigned long long)rl.rlim_cur);
	return 1;
}

/* The words for why a thread could not be covered. */
const char *hwp_missed_why(int err)
{
	switch (err) {
	case 0:
		return "";
	case -EPERM:
		return "locked-memory budget (ulimit -l, kernel.perf_event_mlock_kb)";
	case -EMFILE:
	case -ENFILE:
		return "open-file limit (ulimit -n)";
	case -EACCES:
		return "permission (perf_event_paranoid, seccomp)";
	case -ENOMEM:
		return "out of memory";
	default:
		return strerror(-err);
	}
}

/* Counts a thread that could not be covered; start says how many in one
 * line, a running session each as it happens. */
static void count_missed(struct hwprof_session *s, pid_t tid, int err)
{
	pid_t *nt = realloc(s->missed_tid, (s->nmissed_tid + 1) * sizeof(*nt));

	if (nt) {
		nt[s->nmissed_tid++] = tid;
		s->missed_tid = nt;
	}
	if (!s->missed++)
		s->missed_err = err;
}

static void missed(struct hwprof_session *s, pid_t tid, int err)
{
	count_missed(s, tid, err);
	if (s->running)
		hwp_log(HWPROF_LOG_WARN, "hwprof: thread %d not sampled: %s", (int)tid,
			hwp_missed_why(err));
}

/* ------------------------------------------------------------------ */
/* Attaching a thread                                                   */

/* Maps a ring for sl: the session's size, smaller ones while the
 * locked-memory budget refuses (EPERM), down to one page. */
static int map_ring(struct hwprof_session *s, struct hwp_slot *sl)
{
	unsigned int p = ring_pages(s), want = p;
	int ret;

	for (;;) {
		ret = hwp_ring_map(&sl->ring, sl->fd, p);
		if (ret != -EPERM || p == 1)
			break;
		p /= 2;
	}
	if (!ret && p < want && s->mode == HWPROF_SESSION_PROCESS) {
		/* the budget is shorter than it looked (other processes of
		 * this user hold some): later threads get this size */
		s->fit = p;
		s->surplus = 0;
		if (s->pages > p)
			s->pages = p;
	}
	return ret;
}

/*
 * Opens and maps one fd per event for tid, disabled unless enable. On
 * failure nothing of this thread stays open, and a thread that exists but
 * could not be covered is counted in s->missed (one that exited meanwhile
 * is not: -ESRCH).
 */
int hwp_attach(struct hwprof_session *s, pid_t tid, int enable)
{
	size_t first = s->nslot;
	char why[256];
	int ret = 0;

	if (s->nslot + s->nev > s->capslot) {
		size_t cap = (s->capslot ? 2 * s->capslot : 16) + s->nev;
		struct hwp_slot *ns = realloc(s->slot, cap * sizeof(*ns));

		if (!ns) {
			missed(s, tid, -ENOMEM);
			return -ENOMEM;
		}
		s->slot = ns;
		s->capslot = cap;
	}
	for (size_t i = 0; i < s->nev; i++) {
		struct hwp_sev *e = &s->ev[i];
		struct hwp_slot *sl = &s->slot[s->nslot];
		int precise = 0, fd;

		fd = hwp_event_open(&e->e, tid, -1, &precise, why, sizeof(why));
		if (fd == -EMFILE && raise_nofile())
			fd = hwp_event_open(&e->e, tid, -1, &precise, why, sizeof(why));
		if (fd == -EINVAL && (e->e.attr.read_format & PERF_FORMAT_LOST)) {
			e->e.attr.read_format = 0;	/* kernel before 6.0 */
			fd = hwp_event_open(&e->e, tid, -1, &precise, why, sizeof(why));
		}
		if (fd < 0) {
			ret = fd;
			if (fd != -ESRCH)
				hwp_log(HWPROF_LOG_ERR, "hwprof: tid %d: %s", (int)tid, why);
			goto err;
		}
		memset(sl, 0, sizeof(*sl));
		ret = fd_identity(fd, &sl->dev, &sl->ino, &sl->id);
		if (ret) {
			close(fd);
			goto err;
		}
		sl->fd = fd;
		sl->ev = (int)i;
		sl->tid = tid;
		sl->lcg = HWPROF_LCG_SEED;
		sl->fmt_lost = !!(e->e.attr.read_format & PERF_FORMAT_LOST);
		ret = map_ring(s, sl);
		if (!ret && enable)
			ret = hwp_perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		if (ret) {
			if (sl->ring.page)
				hwp_ring_unmap(&sl->ring);
			close(fd);
			goto err;
		}
		e->precise = (uint32_t)precise;
		s->nslot++;
	}
	s->threads++;
	return 0;
err:
	while (s->nslot > first) {
		struct hwp_slot *sl = &s->slot[--s->nslot];

		hwp_ring_unmap(&sl->ring);
		close(sl->fd);
	}
	if (ret != -ESRCH)
		missed(s, tid, ret);
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
		struct hwp_slot *sl = &s->slot[i];

		if (sl->tid == tid && slot_hung_up(sl)) {
			hwp_drain_slot(s, sl);
			slot_close(s, sl);
			continue;
		}
		live |= sl->tid == tid;
		s->slot[j++] = *sl;
	}
	s->nslot = j;
	return live;
}

/*
 * Attaches every thread of the process not yet covered, except skip (the
 * drain thread) and the loader probe, enabled; thread last (if not 0)
 * after all the others (enabled if last_on), so that when it is the
 * caller its own hwprof code is not sampled. Returns 0 or the first error
 * other than a thread gone (those are counted missed).
 */
int hwp_scan_threads(struct hwprof_session *s, pid_t skip, pid_t last, int last_on)
{
	DIR *d = opendir("/proc/self/task");
	pid_t probe = hwp_loader_probe_tid();
	struct dirent *de;
	int ret = 0, r;

	if (!d)
		return -errno;
	s->seen = (uint32_t)hwp_threads_now();
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || tid == skip || tid == probe || tid == last || known(s, tid))
			continue;
		r = hwp_attach(s, tid, 1);
		if (r && r != -ESRCH && !ret)	/* ESRCH: exited meanwhile */
			ret = r;
	}
	closedir(d);
	if (last && !attached(s, last)) {
		r = hwp_attach(s, last, last_on);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/* A thread just made (by pthread_create, before its start routine):
 * attached to s unless a scan got to it first (or tried it and counted it
 * missed); slots an exited thread left under its tid are closed. */
void hwp_attach_new(struct hwprof_session *s, pid_t tid)
{
	if (!retire_tid(s, tid) && !was_missed(s, tid))
		hwp_attach(s, tid, 1);
}
