/* SPDX-License-Identifier: MIT */
/*
 * One sampling fd and ring per thread and event: attaching a thread (with
 * rings sized to the locked-memory budget, and the open-file limit raised
 * when the fds run out), the threads of the process at start, new threads
 * attached as they are made (hwp_threads_attach_new(), lib/engine/follow.c), exited
 * threads reaped. What cannot be covered is counted, never hidden.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine.h"

/* ------------------------------------------------------------------ */
/* Whose fd is it                                                       */

/*
 * A program may close hwprof's fds behind its back and open its own files
 * under the same numbers: every fd is known by its identity at open
 * (hwp_perf_fd_note()). Before hwprof reads, ioctls or closes a slot's fd
 * it checks it; a slot whose fd is not its own any more is dropped
 * without touching the fd (see slot_foreign()).
 */

/* 1 if sl->fd is still the fd hwprof opened for sl. */
int hwp_threads_slot_ours(const struct hwp_slot *sl)
{
	return hwp_perf_fd_ours(sl->fd, &sl->who);
}

/*
 * Samples the kernel dropped for this fd: its running total when the
 * kernel has PERF_FORMAT_LOST (a LOST record is only written once the
 * reader frees space, so records alone miss drops just before a stop),
 * else the LOST records seen.
 */
static uint64_t lost_ours(const struct hwp_slot *sl)
{
	uint64_t v[2];

	if (sl->fmt_lost && !hwp_perf_read(sl->fd, v, 2))
		return v[1] > sl->lost_base ? v[1] - sl->lost_base : 0;
	return sl->ring.stats.lost;
}

uint64_t hwp_threads_slot_lost(const struct hwp_slot *sl)
{
	return sl->fmt_lost && !hwp_threads_slot_ours(sl) ? sl->ring.stats.lost :
							    lost_ours(sl);
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

	if (!hwp_threads_slot_ours(sl)) {
		slot_foreign(s, sl);
		return;
	}
	e->st.lost += lost_ours(sl);
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
	p = strrchr(buf, ')'); /* the name may hold spaces */
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
void hwp_threads_reap_hung(struct hwprof_session *s, const int *fds, size_t n)
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
void hwp_threads_reap(struct hwprof_session *s, int all)
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
void hwp_threads_enable(struct hwprof_session *s, pid_t tid, int on)
{
	int foreign = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		if (tid && s->slot[i].tid != tid)
			continue;
		if (!hwp_threads_slot_ours(&s->slot[i])) {
			foreign = 1;
			continue;
		}
		hwp_perf_ioctl(s->slot[i].fd,
			       on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	}
	if (foreign)
		hwp_threads_drop_foreign(s, NULL, 0);
}

/*
 * Stops the slots of one thread, or of all (tid 0), for good, before their
 * last drain. A slot that writes into a shared ring is detached from it
 * (PERF_EVENT_IOC_SET_OUTPUT -1): the kernel then neither writes nor
 * drops a sample of it, so the lost count read at close is final, and,
 * unlike a disable, this sends no interrupt to the CPU a parked thread
 * last ran on (10 us each on a 2-vCPU VM: 20 ms for 1024 threads). Slots
 * with a ring of their own are disabled, and so are an inherit session's:
 * its threads write through the fd they inherited from (detached, their
 * samples would be dropped uncounted), and the disable reaches them all.
 */
void hwp_threads_stop(struct hwprof_session *s, pid_t tid)
{
	int foreign = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		struct hwp_slot *sl = &s->slot[i];

		if (tid && sl->tid != tid)
			continue;
		if (!hwp_threads_slot_ours(sl)) {
			foreign = 1;
			continue;
		}
		if (sl->cr < 0 || s->inherit ||
		    hwp_perf_ioctl(sl->fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)-1))
			hwp_perf_ioctl(sl->fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	if (foreign)
		hwp_threads_drop_foreign(s, NULL, 0);
}

/* Drops the slots whose fd is not hwprof's any more, among those whose fd
 * is in fds (sorted), or all of them (fds NULL). */
void hwp_threads_drop_foreign(struct hwprof_session *s, const int *fds, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < s->nslot; i++) {
		struct hwp_slot *sl = &s->slot[i];

		if (fds && !fd_listed(fds, n, sl->fd)) {
			s->slot[j++] = *sl;
			continue;
		}
		if (!hwp_threads_slot_ours(sl)) {
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
 * The ring sizes for a session's threads. The kernel lets an unprivileged
 * user lock perf_event_mlock_kb per CPU (shared by all of that user's
 * processes) plus RLIMIT_MEMLOCK per process (perf_event_open(2)); a ring
 * of 1 + p pages costs 1 + p pages of it. Events whose threads share a
 * ring per CPU take at most half of it (lib/engine/crings.c). For the others,
 * process-wide sessions keep enough of the rest for HWP_FIT_THREADS
 * threads with the largest ring that fits (s->fit), and give the first
 * threads (the main thread, which usually makes the others) the size
 * asked for out of what is left: a process that makes many threads is
 * covered whole rather than its first 135 with 16-page rings. Root (or an
 * unlimited RLIMIT_MEMLOCK) keeps the sizes asked for.
 */
void hwp_threads_size_rings(struct hwprof_session *s)
{
	struct rlimit rl;
	long psz = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long user_kb, pinned_kb;
	uint64_t budget, pages, per, own = 0;
	unsigned int p = s->pages;

	s->fit = 0;
	s->surplus = 0;
	if ((s->mode != HWPROF_SESSION_PROCESS && !s->inherit) || geteuid() == 0 ||
	    hwp_sys_paranoid() < 0 || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY) {
		hwp_crings_plan(s, 0);
		return;
	}
	user_kb = hwp_sys_read_long("/proc/sys/kernel/perf_event_mlock_kb", 516);
	pinned_kb = status_kb("VmPin");
	budget = (uint64_t)(user_kb > 0 ? user_kb : 0) * (uint64_t)(ncpu > 0 ? ncpu : 1) *
		 1024;
	if (rl.rlim_cur / 1024 > (rlim_t)(pinned_kb > 0 ? pinned_kb : 0))
		budget += rl.rlim_cur - (uint64_t)(pinned_kb > 0 ? pinned_kb : 0) * 1024;
	pages = budget / (uint64_t)psz;
	hwp_crings_plan(s, pages);
	for (size_t i = 0; i < s->nev; i++) {
		if (s->ev[i].percpu)
			pages -= pages >= (uint64_t)(s->cpages + 1) * s->ncpu ?
					 (uint64_t)(s->cpages + 1) * s->ncpu :
					 pages;
		else
			own++;
	}
	if (!own)
		return;
	per = pages / HWP_FIT_THREADS / own; /* pages a ring may take */
	while (p > 1 && p + 1 > per)
		p /= 2;
	s->fit = p;
	/* the surplus leaves room for a few more threads than promised (a
	 * sanitizer's or a runtime's own) */
	if (pages > (uint64_t)(HWP_FIT_THREADS + 64) * own * (p + 1))
		s->surplus = pages - (uint64_t)(HWP_FIT_THREADS + 64) * own * (p + 1);
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
		long nr = hwp_sys_read_long("/proc/sys/fs/nr_open", 1048576);

		rl.rlim_cur = (rlim_t)nr < rl.rlim_max ? (rlim_t)nr : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	hwp_log(HWPROF_LOG_INFO,
		"hwprof: raised the soft limit on open files from %llu to %llu (one fd per thread and event)",
		(unsigned long long)was, (unsigned long long)rl.rlim_cur);
	return 1;
}

/*
 * Grows the process's fd table once, to room for n more fds. The kernel
 * grows it by doubling as fds are opened, and in a process with more than
 * one thread each growth waits for an RCU grace period (expand_files()):
 * opening 1024 fds one by one took five of them, 30-40 ms on a 2-vCPU
 * VM, more than the opens themselves. One dup to the highest fd needed
 * makes it one.
 */
static void reserve_fds(size_t n)
{
	struct rlimit rl;
	int lo, hi;

	if (n < 32 || getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < n + 64)
		raise_nofile();
	lo = fcntl(0, F_DUPFD_CLOEXEC, 0); /* the lowest free fd */
	if (lo < 0)
		lo = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
	if (lo < 0)
		return;
	hi = fcntl(lo, F_DUPFD_CLOEXEC, lo + (int)(n < 1u << 20 ? n : 1u << 20));
	if (hi >= 0)
		close(hi);
	close(lo);
}

/* The words for why a thread could not be covered. */
const char *hwp_threads_missed_why(int err)
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
			hwp_threads_missed_why(err));
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

/* A slot for fd, just opened for event i of tid (cr: its shared ring, or
 * -1), known by its identity (hwp_perf_fd_note()); 0 or -errno. */
static int slot_init(struct hwp_slot *sl, int fd, size_t i, int cr, pid_t tid,
		     const struct perf_event_attr *a)
{
	memset(sl, 0, sizeof(*sl));
	sl->fd = fd;
	sl->ev = (int)i;
	sl->cr = cr;
	sl->tid = tid;
	sl->lcg = HWPROF_LCG_SEED;
	sl->fmt_lost = !!(a->read_format & PERF_FORMAT_LOST);
	return hwp_perf_fd_note(fd, &sl->who);
}

/*
 * Opens tid's fd for event i on CPU number cpu (an index of s->cpu_id)
 * into sl, enabled if enable. With cpu -1 the fd gets a ring of its own. Else it writes into
 * the event's shared ring for cpu (made first if it is not there yet): born enabled into it
 * (no enable ioctl, and no window in which a sample has no ring), or, where the kernel refuses
 * PERF_FLAG_FD_OUTPUT, opened disabled and redirected with PERF_EVENT_IOC_SET_OUTPUT.
 */
static int open_slot(struct hwprof_session *s, size_t i, pid_t tid, int cpu, int enable,
		     struct hwp_slot *sl, char *why, size_t len)
{
	struct hwp_sev *e = &s->ev[i];
	struct hwp_cring *cr = cpu >= 0 ? &s->cring[i * s->ncpu + (size_t)cpu] : NULL;
	int precise = 0, out, fd, ret, id = cpu >= 0 ? s->cpu_id[cpu] : -1;

	if (cr && cr->fd < 0 && (ret = hwp_cring_open(s, i, cpu)))
		return ret;
	out = cr && enable && !s->no_fdout ? cr->fd : -1;
	fd = hwp_attr_event_open(&e->e, tid, id, out, &precise, why, len);
	if (fd == -EMFILE && raise_nofile())
		fd = hwp_attr_event_open(&e->e, tid, id, out, &precise, why, len);
	if (fd == -EINVAL && (e->e.attr.read_format & PERF_FORMAT_LOST)) {
		e->e.attr.read_format = 0; /* kernel before 6.0 */
		fd = hwp_attr_event_open(&e->e, tid, id, out, &precise, why, len);
	}
	if (fd == -EINVAL && out >= 0) {
		s->no_fdout = 1;
		out = -1;
		fd = hwp_attr_event_open(&e->e, tid, id, out, &precise, why, len);
	}
	if (fd < 0)
		return fd;
	*why = 0; /* what fails from here on is not the open's */
	ret = slot_init(sl, fd, i, cr ? (int)(cr - s->cring) : -1, tid, &e->e.attr);
	if (ret) {
		close(fd);
		return ret;
	}
	if (!cr)
		ret = map_ring(s, sl);
	else if (out < 0)
		ret = hwp_perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)cr->fd);
	if (!ret && enable && out < 0)
		ret = hwp_perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (ret) {
		hwp_ring_unmap(&sl->ring);
		close(fd);
		return ret;
	}
	e->precise = (uint32_t)precise;
	return 0;
}

/* Closes the slots from first on, which attach opened and nothing has
 * drained yet (their thread's samples in a shared ring are kept). */
static void unopen(struct hwprof_session *s, size_t first)
{
	while (s->nslot > first) {
		struct hwp_slot *sl = &s->slot[--s->nslot];

		hwp_ring_unmap(&sl->ring);
		close(sl->fd);
	}
}

/* Slots for event i of tid: one per CPU into the shared rings, or, where
 * that fails (the open-file limit, which one fd a thread may still fit,
 * or any other refusal), one with a ring of its own. */
static int attach_event(struct hwprof_session *s, size_t i, pid_t tid, int enable, char *why,
			size_t len)
{
	size_t first = s->nslot;
	int ret;

	if (s->ev[i].percpu && s->cring) {
		for (size_t c = 0; c < s->ncpu; c++) {
			ret = open_slot(s, i, tid, (int)c, enable, &s->slot[s->nslot], why,
					len);
			if (ret)
				break;
			s->nslot++;
		}
		if (!ret)
			return 0;
		unopen(s, first);
		if (ret == -ESRCH)
			return ret;
	}
	ret = open_slot(s, i, tid, -1, enable, &s->slot[s->nslot], why, len);
	if (!ret)
		s->nslot++;
	return ret;
}

/*
 * Opens one fd per event for tid (one per event and CPU where rings are
 * shared), disabled unless enable. On failure nothing of this thread stays
 * open, and a thread that exists but could not be covered is counted in
 * s->missed (one that exited meanwhile is not: -ESRCH).
 */
int hwp_threads_attach(struct hwprof_session *s, pid_t tid, int enable)
{
	size_t first = s->nslot, need = 0;
	char why[256] = "";
	int ret = hwp_crings_alloc(s);

	for (size_t i = 0; i < s->nev; i++)
		need += s->ev[i].percpu ? s->ncpu : 1;
	if (!ret && s->nslot + need > s->capslot) {
		size_t cap = (s->capslot ? 2 * s->capslot : 16) + need;
		struct hwp_slot *ns = realloc(s->slot, cap * sizeof(*ns));

		if (ns) {
			s->slot = ns;
			s->capslot = cap;
		} else {
			ret = -ENOMEM;
		}
	}
	for (size_t i = 0; !ret && i < s->nev; i++) {
		ret = attach_event(s, i, tid, enable, why, sizeof(why));
		if (ret && ret != -ESRCH && *why)
			hwp_log(HWPROF_LOG_ERR, "hwprof: tid %d: %s", (int)tid, why);
	}
	if (!ret) {
		s->threads++;
		return 0;
	}
	unopen(s, first);
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

/* ------------------------------------------------------------------ */
/* Many threads at once                                                 */

/*
 * Opening an event for another thread interrupts the CPU that thread last
 * ran on (the kernel installs it there) and waits for it: 10-20 us on a
 * VM, most of a start's time with 1024 threads parked. Openers on several
 * CPUs overlap those waits: 1024 threads x 2 CPUs took 14-16 ms from two
 * threads against 30-39 ms from one on a 2-vCPU VM. So a scan that finds
 * HWP_MANY threads or more, in a session whose events all share rings,
 * attaches the first one as usual (which maps the rings), has hwprof's own
 * threads open the others' fds straight into those rings, and makes slots
 * of them. A thread any of whose fds failed goes through hwp_threads_attach()
 * again, which knows every fallback and counts what it cannot cover.
 */
#define HWP_MANY    64
#define HWP_OPENERS 4

struct openers {
	struct hwprof_session *s;
	const pid_t *tid;
	size_t n, per;		      /* threads; fds a thread */
	struct perf_event_attr *attr; /* each event's, born enabled */
	struct hwp_slot *sl;	      /* n x per */
	size_t next;		      /* the next thread to open */
};

/* Opens thread t's fds into o->sl; 0, or the first error (the thread's
 * fds that opened are then closed). Touches nothing of the session. */
static int open_thread(struct openers *o, size_t t)
{
	struct hwp_slot *sl = &o->sl[t * o->per];
	const struct hwprof_session *s = o->s;
	size_t k = 0;
	int ret = 0;

	for (size_t i = 0; i < s->nev && !ret; i++) {
		for (size_t c = 0; c < s->ncpu && !ret; c++, k++) {
			const struct hwp_cring *cr = &s->cring[i * s->ncpu + c];
			struct perf_event_attr a = o->attr[i];
			/* from the level the session's first open found */
			int fd = hwp_attr_open(&a, (int)s->ev[i].precise, o->tid[t],
					       s->cpu_id[c], cr->fd,
					       PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP,
					       NULL);

			memset(&sl[k], 0, sizeof(sl[k]));
			if (fd < 0) {
				ret = fd;
				break;
			}
			ret = slot_init(&sl[k], fd, i, (int)(i * s->ncpu + c), o->tid[t],
					&o->attr[i]);
		}
	}
	if (ret)
		while (k--)
			close(sl[k].fd);
	return ret;
}

static void *opener(void *arg)
{
	struct openers *o = arg;
	size_t t;

	while ((t = __atomic_fetch_add(&o->next, 1, __ATOMIC_RELAXED)) < o->n)
		o->sl[t * o->per].fd = open_thread(o, t) ? -1 : o->sl[t * o->per].fd;
	return NULL;
}

/* Whether tids can be attached by openers: every event shares rings, and
 * those rings exist (the first thread made them). */
static int openers_fit(const struct hwprof_session *s)
{
	if (!s->cring || s->no_fdout)
		return 0;
	for (size_t i = 0; i < s->nev; i++)
		if (!s->ev[i].percpu)
			return 0;
	for (size_t i = 0; i < s->nev * s->ncpu; i++)
		if (s->cring[i].fd < 0)
			return 0;
	return 1;
}

/* Attaches the n threads in tid, enabled, with openers where that pays;
 * returns 0 or the first error other than a thread gone. */
static int attach_all(struct hwprof_session *s, const pid_t *tid, size_t n)
{
	struct openers o = { .s = s, .tid = tid, .n = n };
	pthread_t th[HWP_OPENERS];
	size_t nth = 0, first = 0;
	sigset_t all, old;
	int ret = 0, r;

	/* the first attaches as usual: it maps the shared rings */
	while (first < n && !openers_fit(s)) {
		r = hwp_threads_attach(s, tid[first++], 1);
		if (r && r != -ESRCH && !ret) /* ESRCH: exited meanwhile */
			ret = r;
		if (first == 1 && n < HWP_MANY)
			break;
	}
	if (n - first < HWP_MANY || !openers_fit(s))
		goto serial;
	o.tid = tid + first;
	o.n = n - first;
	o.per = s->nev * s->ncpu;
	o.attr = calloc(s->nev, sizeof(*o.attr));
	o.sl = calloc(o.n * o.per, sizeof(*o.sl));
	if (!o.attr || !o.sl || s->capslot - s->nslot < o.n * o.per) {
		struct hwp_slot *ns = o.attr && o.sl ?
					      realloc(s->slot,
						      (s->nslot + o.n * o.per) * sizeof(*ns)) :
					      NULL;

		if (!ns) {
			free(o.attr);
			free(o.sl);
			goto serial;
		}
		s->slot = ns;
		s->capslot = s->nslot + o.n * o.per;
	}
	for (size_t i = 0; i < s->nev; i++) {
		o.attr[i] = s->ev[i].e.attr;
		o.attr[i].disabled = 0;
	}
	/* no signal of the program's lands on them (as the drain thread) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (long c = sysconf(_SC_NPROCESSORS_ONLN);
	     nth + 1 < (size_t)c && nth + 1 < HWP_OPENERS; nth++)
		if (hwp_spawn_untracked(&th[nth], opener, &o))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	opener(&o);
	for (size_t i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (size_t t = 0; t < o.n; t++) {
		if (o.sl[t * o.per].fd < 0) {
			r = hwp_threads_attach(s, o.tid[t], 1);
			if (r && r != -ESRCH && !ret)
				ret = r;
			continue;
		}
		memcpy(&s->slot[s->nslot], &o.sl[t * o.per], o.per * sizeof(*o.sl));
		s->nslot += o.per;
		s->threads++;
	}
	free(o.attr);
	free(o.sl);
	return ret;
serial:
	for (; first < n; first++) {
		r = hwp_threads_attach(s, tid[first], 1);
		if (r && r != -ESRCH && !ret)
			ret = r;
	}
	return ret;
}

/*
 * Attaches every thread of the process not yet covered, except skip (the
 * drain thread) and the loader probe, enabled; thread last (if not 0)
 * after all the others (enabled if last_on), so that when it is the
 * caller its own hwprof code is not sampled. Returns 0 or the first error
 * other than a thread gone (those are counted missed).
 */
int hwp_threads_scan(struct hwprof_session *s, pid_t skip, pid_t last, int last_on)
{
	DIR *d = opendir("/proc/self/task");
	pid_t probe = hwp_loader_probe_tid(), *tid = NULL;
	size_t n = 0, cap = 0, per = 0;
	struct dirent *de;
	int ret = 0, r;

	if (!d)
		return -errno;
	s->seen = (uint32_t)hwp_threads_now();
	for (size_t i = 0; i < s->nev; i++)
		per += s->ev[i].percpu ? s->ncpu : 1;
	if ((int32_t)s->seen > 0)
		reserve_fds((size_t)s->seen * per);
	while ((de = readdir(d))) {
		pid_t t = (pid_t)atoi(de->d_name);

		if (t <= 0 || t == skip || t == probe || t == last || known(s, t))
			continue;
		if (n == cap) {
			pid_t *nt = realloc(tid, (cap ? 2 * cap : 64) * sizeof(*nt));

			if (!nt) {
				r = hwp_threads_attach(s, t, 1); /* one by one, then */
				if (r && r != -ESRCH && !ret)
					ret = r;
				continue;
			}
			tid = nt;
			cap = cap ? 2 * cap : 64;
		}
		tid[n++] = t;
	}
	closedir(d);
	r = attach_all(s, tid, n);
	if (r && !ret)
		ret = r;
	free(tid);
	if (last && !attached(s, last)) {
		r = hwp_threads_attach(s, last, last_on);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/* A thread just made (by pthread_create, before its start routine):
 * attached to s unless a scan got to it first (or tried it and counted it
 * missed); slots an exited thread left under its tid are closed. */
void hwp_threads_attach_new(struct hwprof_session *s, pid_t tid)
{
	if (!retire_tid(s, tid) && !was_missed(s, tid))
		hwp_threads_attach(s, tid, 1);
}
