/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's events: per CPU, one event per -e name on the command's
 * process (inherit: every thread and child it makes later is counted
 * there; enable_on_exec: nothing before the command's own exec), or on
 * each thread of an attached process. Two rings per CPU, sized from the
 * locked-memory budget: one that every -e event of that CPU writes into
 * (PERF_EVENT_IOC_SET_OUTPUT), each sample tagged with its event's id
 * (PERF_SAMPLE_IDENTIFIER), and one for a dummy event that asks for the
 * side-band records: MMAP2 (with the build-id where the kernel gives
 * it), COMM with exec, FORK and EXIT. rec-read.c reads them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf.h"
#include "rec.h"

static int online_cpus(struct rec *r)
{
	char buf[4096];
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	char *p = buf;

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(buf, sizeof(buf), "0-%ld", c > 0 ? c - 1 : 0);
	} else {
		buf[n] = 0;
	}
	r->ncpu = 0;
	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && c < 65536; c++) {
			int *np = realloc(r->cpus, (r->ncpu + 1) * sizeof(*np));

			if (!np)
				return -ENOMEM;
			r->cpus = np;
			r->cpus[r->ncpu++] = (int)c;
		}
		p = end + (*end == ',');
	}
	return r->ncpu ? 0 : -ENODEV;
}

static int keep_fd(struct rec *r, int fd, uint32_t ev)
{
	uint64_t id;
	int ret;

	if (r->nfds == r->capfds) {
		size_t c = r->capfds ? 2 * r->capfds : 64;
		int *np = realloc(r->fds, c * sizeof(*np));
		uint32_t *ep;

		if (!np)
			return -ENOMEM;
		r->fds = np;
		ep = realloc(r->fd_ev, c * sizeof(*ep));
		if (!ep)
			return -ENOMEM;
		r->fd_ev = ep;
		r->capfds = c;
	}
	r->fd_ev[r->nfds] = ev;
	r->fds[r->nfds++] = fd;
	ret = hwp_perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id);
	if (ret)
		return ret;
	if (r->nids == r->capids) {
		size_t c = r->capids ? 2 * r->capids : 64;
		void *np = realloc(r->ids, c * sizeof(*r->ids));

		if (!np)
			return -ENOMEM;
		r->ids = np;
		r->capids = c;
	}
	r->ids[r->nids].id = id;
	r->ids[r->nids++].ev = ev;
	return 0;
}

uint32_t rec_ev_of(const struct rec *r, uint64_t id)
{
	size_t lo = 0, hi = r->nids; /* sorted once all are open */

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->ids[mid].id < id)
			lo = mid + 1;
		else if (r->ids[mid].id > id)
			hi = mid;
		else
			return r->ids[mid].ev;
	}
	return UINT32_MAX;
}

static int cmp_id(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * Data pages per ring when -m did not say: the largest power of two whose
 * rings (per CPU, one for samples and one of 1/16 that size for the side
 * band), fit the locked memory an unprivileged user may pin
 * (perf_event_mlock_kb per CPU, shared by all of the user's processes,
 * then RLIMIT_MEMLOCK: perf_event_open(2), "perf_event_mlock_kb"), at most
 * 4 MiB a ring and 64 MiB in all. Root (CAP_IPC_LOCK) and an unlimited
 * RLIMIT_MEMLOCK take those caps. A burst the drain cannot follow then
 * waits in the ring instead of being lost: 4 MiB holds about 100 000
 * samples of 40 bytes. ring_map() halves it when the kernel still says no.
 */
static unsigned int budget_pages(int ncpu)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t most = (64u << 20) / (uint64_t)psz / (uint64_t)(ncpu > 0 ? ncpu : 1);
	uint64_t per = (4u << 20) / (uint64_t)psz, budget;
	struct rlimit rl;
	unsigned int p = 8;

	if (most < per)
		per = most;
	if (geteuid() && !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		long kb = hwp_sys_read_long("/proc/sys/kernel/perf_event_mlock_kb", 516);

		budget = (uint64_t)(kb > 0 ? kb : 0) * 1024 * (uint64_t)(ncpu > 0 ? ncpu : 1) +
			 (uint64_t)rl.rlim_cur;
		budget = budget / (uint64_t)psz / (uint64_t)(ncpu > 0 ? ncpu : 1);
		/* a CPU's two rings: 1 + p pages, and 1 + p / 16 for the side band */
		budget = budget > 2 ? (budget - 2) * 16 / 17 : 1;
		if (budget < per)
			per = budget;
	}
	while ((uint64_t)p * 2 <= per && p < (1u << 20))
		p *= 2;
	return p;
}

/* Maps the ring of fd: 1 + 2^n pages, fewer when the mlock budget left
 * (other processes of the user hold some) does not allow that many; never
 * fewer than 8 unless -m asked. */
static int ring_map(struct rec *r, struct rec_ring *rg, int fd, int side)
{
	unsigned int *pages = side ? &r->side_pages : &r->ring_pages;

	for (;;) {
		int ret = hwp_ring_map(&rg->ring, fd, *pages);

		if (!ret) {
			rg->fd = fd;
			return 0;
		}
		if ((ret != -EPERM && ret != -ENOMEM) || *pages <= 8 || r->pages_asked)
			return ret;
		*pages /= 2;
	}
}

/* Raises the soft limit on open files to the hard one (attach opens
 * threads x CPUs x events). */
static void more_fds(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Why the open of event e (-1: the side-band event) on task tid failed,
 * as the library says it (hwp_attr_why()), with the option that helps
 * when the machine cannot sample the event. */
static void say_open(const struct rec *r, int e, const struct perf_event_attr *a, int err,
		     pid_t tid, char *why, size_t len)
{
	const char *name = e < 0 ? "the side-band event" : r->ev[e].name;
	size_t n;

	if (hwp_attr_why(err, a, tid, name, e < 0 ? NULL : r->ev[e].src, why, len) !=
	    -EOPNOTSUPP)
		return;
	n = strlen(why);
	snprintf(why + n, len - n, "; try -e task-clock");
}

/* Opens event e on task pid, CPU index c; e -1 is the ring's owner: a
 * dummy event that asks for the side-band records. Hardware events get
 * the most precise skid level the PMU accepts (the library's rule,
 * hwp_attr_open()); the first level an event opened at is kept for
 * record's line about it. The attr asked for goes to *ap. */
static int open_one(struct rec *r, int e, pid_t pid, int c, int enabled,
		    struct perf_event_attr *ap)
{
	struct perf_event_attr a;
	long pg = sysconf(_SC_PAGESIZE);
	int level, fd;

	if (e >= 0) {
		a = r->ev[e].attr;
	} else {
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.mmap = 1;
		a.mmap2 = 1;
		a.comm = 1;
		a.comm_exec = 1;
		a.task = 1;
		a.build_id = r->bid_in_mmap;
	}
	a.size = sizeof(a);
	a.disabled = !enabled;
	a.enable_on_exec = !enabled;
	if (e >= 0 && r->paused) { /* on when rec_perf_pause() says so */
		a.disabled = 1;
		a.enable_on_exec = 0;
	}
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	/* the count at the end (rec_read_account()): how much the samples
	 * do not hold, scaled when the PMU multiplexed the event */
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.sample_type = REC_SAMPLE_TYPE;
	a.sample_id_all = 1;
	if (e >= 0 && r->callgraph == HD_CG_FP) {
		/* user space only: the frame pointers the kernel walks */
		a.sample_type = REC_SAMPLE_FP;
		a.exclude_callchain_kernel = 1;
		a.sample_max_stack = (uint16_t)r->max_stack;
		if (r->leaf) { /* what rec-leaf.c patches the chain from */
			a.sample_type = REC_SAMPLE_LEAF;
			a.sample_regs_user = REC_LEAF_MASK;
			a.sample_stack_user = REC_LEAF_STACK;
		}
	} else if (e >= 0 && r->callgraph == HD_CG_DWARF) {
		/* the registers and stack rec-unwind.c unwinds */
		a.sample_type = REC_SAMPLE_DWARF;
		a.sample_regs_user = REC_UW_MASK;
		a.sample_stack_user = r->stack_size;
	}
	/* poll wakes at a quarter full; --call-graph dwarf's reader thread
	 * at half (as perf record's rings): it reads again at once while
	 * records come, and each wakeup may come a tick late (bench/README.md,
	 * "--call-graph dwarf in a burst") */
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)((size_t)(e < 0 ? r->side_pages : r->ring_pages) *
					(size_t)pg /
					(e >= 0 && r->callgraph == HD_CG_DWARF ? 2 : 4));
	fd = hwp_attr_open(&a, -1, pid, r->cpus[c], -1, 0, &level);
	if (fd == -EINVAL && a.build_id) { /* before Linux 5.12 */
		a.build_id = 0;
		r->bid_in_mmap = 0;
		fd = hwp_attr_open(&a, -1, pid, r->cpus[c], -1, 0, &level);
	}
	if (fd >= 0 && e >= 0 && r->ev[e].precise < 0 && hwp_attr_precise_max(&a))
		r->ev[e].precise = level;
	*ap = a;
	return fd;
}

/* A thread that could not be covered, counted in every event. */
static void miss(struct rec *r, int err)
{
	for (int e = 0; e < r->nev; e++) {
		struct hd_event *he = &r->d.events[r->ev[e].hd];

		he->missed++;
		if (!he->missed_why)
			he->missed_why = strdup(err == -ENOMEM ? "out-of-memory" :
								 "out-of-file-descriptors");
	}
}

/* Adds the threads of pid not in tids yet; -ESRCH when it is gone. */
static int list_tids(pid_t pid, int **tids, int *ntid, int *added)
{
	char dir[64];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name), seen = 0;

		if (tid <= 0)
			continue;
		for (int i = 0; i < *ntid && !seen; i++)
			seen = (*tids)[i] == tid;
		if (seen)
			continue;
		if (*ntid % 256 == 0) {
			int *np = realloc(*tids, (size_t)(*ntid + 256) * sizeof(*np));

			if (!np) {
				closedir(d);
				return -ENOMEM;
			}
			*tids = np;
		}
		(*tids)[(*ntid)++] = tid;
		(*added)++;
	}
	closedir(d);
	return 0;
}

/* Opens the events of one task on CPU index c: the ring's owner first
 * (unless late: the late events then join the existing ring). */
static int open_cpu(struct rec *r, pid_t tid, int c, int enabled, int late, int *failed,
		    char *why, size_t len)
{
	int ret;

	for (int e = late ? 0 : -1; e < r->nev; e++) {
		struct perf_event_attr a;
		struct rec_ring *rg;
		int fd;

		if (e >= 0 && r->ev[e].late != late)
			continue;
		fd = open_one(r, e, tid, c, enabled, &a);
		if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM) {
			miss(r, fd); /* this thread is not covered */
			*failed = 1;
			return 0;
		}
		if (fd == -ESRCH && enabled) { /* it ended: not a miss */
			*failed = 1;
			return 0;
		}
		if (fd < 0) {
			say_open(r, e, &a, fd, tid, why, len);
			return fd;
		}
		rg = &r->rings[2 * c + (e < 0)];
		if (rg->fd < 0) {
			ret = ring_map(r, rg, fd, e < 0);
			if (ret) {
				close(fd);
				snprintf(why, len,
					 "cannot map a %u-page ring (mlock budget: perf_event_mlock_kb, ulimit -l): %s",
					 e < 0 ? r->side_pages : r->ring_pages,
					 strerror(-ret));
				return ret;
			}
		} else if ((ret = hwp_perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
						 (unsigned long)rg->fd))) {
			close(fd);
			snprintf(why, len, "%s: cannot share the CPU's ring: %s",
				 e < 0 ? "the side-band event" : r->ev[e].name,
				 strerror(-ret));
			return ret;
		}
		ret = keep_fd(r, fd, e < 0 ? UINT32_MAX : (uint32_t)e);
		if (ret) {
			snprintf(why, len, "%s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int rec_perf_open_late(struct rec *r, pid_t pid, char *why, size_t len)
{
	int failed = 0, ret = 0;

	for (int c = 0; c < r->ncpu && !ret; c++)
		ret = open_cpu(r, pid, c, 1, 1, &failed, why, len);
	if (r->nids)
		qsort(r->ids, r->nids, sizeof(*r->ids), cmp_id);
	return ret;
}

/*
 * Opens every event on pid (the command, stopped before its exec; or each
 * thread of an attached process) on every online CPU. Returns 0, or -errno
 * with the reason in why. A thread that could not be covered for another
 * reason than having ended is counted in its events' missed.
 */
int rec_perf_open(struct rec *r, pid_t pid, int attach, char *why, size_t len)
{
	int *tids = NULL, ntid = 0, ret;

	r->bid_in_mmap = 1;
	r->pages_asked = r->ring_pages != 0;
	if (r->callgraph) {
		long ms = hwp_sys_read_long("/proc/sys/kernel/perf_event_max_stack",
					    PERF_MAX_STACK_DEPTH);

		r->max_stack = ms > 0 && ms < PERF_MAX_STACK_DEPTH ? (int)ms :
								     PERF_MAX_STACK_DEPTH;
		if (r->callgraph == HD_CG_DWARF)
			r->max_stack = PERF_MAX_STACK_DEPTH; /* the unwinder's */
		for (int e = 0; e < r->nev; e++)
			r->d.events[r->ev[e].hd].callgraph = r->callgraph;
	}
	ret = online_cpus(r); /* before the ring size: it divides the budget */
	if (ret) {
		snprintf(why, len, "cannot list the online CPUs");
		return ret;
	}
	if (!r->pages_asked)
		r->ring_pages = budget_pages(r->ncpu);
	r->side_pages = r->ring_pages / 16 < 8	 ? 8 :
			r->ring_pages / 16 > 256 ? 256 :
						   r->ring_pages / 16;
	r->nrings = 2 * r->ncpu;
	r->rings = calloc((size_t)r->nrings, sizeof(*r->rings));
	if (!r->rings)
		return -ENOMEM;
	for (int c = 0; c < r->nrings; c++)
		r->rings[c].fd = -1;
	if (attach)
		more_fds();

	/*
	 * Attach: every thread of the process, listed again until a pass finds
	 * no new one (threads made by a covered thread inherit its events).
	 */
	for (int pass = 0;; pass++) {
		int added = 0;

		if (attach) {
			ret = list_tids(pid, &tids, &ntid, &added);
			if (ret == -ESRCH && !pass) {
				snprintf(why, len, "-p %d: no such process", (int)pid);
				free(tids);
				return ret;
			}
			if (ret == -ENOMEM) {
				free(tids);
				return ret;
			}
		} else {
			tids = malloc(sizeof(*tids));
			if (!tids)
				return -ENOMEM;
			tids[ntid++] = pid;
			added = 1;
		}
		for (int i = ntid - added; i < ntid; i++) {
			int failed = 0;

			for (int c = 0; c < r->ncpu && !failed && !ret; c++)
				ret = open_cpu(r, tids[i], c, attach, 0, &failed, why, len);
			if (ret) {
				free(tids);
				return ret;
			}
		}
		if (!attach || !added)
			break;
	}
	free(tids);
	if (r->nids)
		qsort(r->ids, r->nids, sizeof(*r->ids), cmp_id);
	return 0;
}

int rec_perf_pause(struct rec *r, int paused)
{
	int ret = 0;

	/* an ioctl on an inherited event's fd reaches its children too */
	for (size_t i = 0; i < r->nfds; i++)
		if (r->fd_ev[i] != UINT32_MAX) {
			int e = hwp_perf_ioctl(r->fds[i],
					       paused ? PERF_EVENT_IOC_DISABLE :
							PERF_EVENT_IOC_ENABLE,
					       0);

			if (e && e != -ESRCH && !ret)
				ret = e;
		}
	r->paused = paused;
	return ret;
}

size_t rec_perf_pollfds(const struct rec *r, int *fds, size_t cap)
{
	size_t n = 0;

	for (int c = 0; c < r->nrings && n < cap; c++)
		if (r->rings[c].fd >= 0)
			fds[n++] = r->rings[c].fd; /* both kinds */
	return n;
}

void rec_perf_close(struct rec *r)
{
	for (int c = 0; r->rings && c < r->nrings; c++)
		if (r->rings[c].fd >= 0)
			hwp_ring_unmap(&r->rings[c].ring);
	for (size_t i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	free(r->rings);
	free(r->fds);
	free(r->fd_ev);
	free(r->ids);
	free(r->cpus);
	free(r->q);
	free(r->qe);
	free(r->front);
	r->front = NULL;
	r->nfront = 0;
	r->q = NULL;
	r->qe = NULL;
	r->qlen = r->qcap = r->nqe = r->capqe = r->nsorted = r->qdead = 0;
	r->rings = NULL;
	r->fds = NULL;
	r->fd_ev = NULL;
	r->ids = NULL;
	r->cpus = NULL;
	r->nfds = r->nids = r->capfds = 0;
	r->ncpu = r->nrings = 0;
}
