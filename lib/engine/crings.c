/* SPDX-License-Identifier: MIT */
/*
 * Rings shared per CPU (engine.h, struct hwp_cring): which events of a
 * session use them and how large they are, each made when the first
 * thread's fd for its CPU is opened (on an event of its own, so the ring
 * outlives that thread), drained with the session (lib/engine/drain.c), closed
 * at stop. The fds that write into them are slots like any other
 * (lib/engine/threads.c).
 *
 * Why (bench/README.md, "Threads"): an unprivileged user may lock
 * perf_event_mlock_kb per CPU plus RLIMIT_MEMLOCK, 9 MiB on a 2-CPU
 * machine with Debian's defaults, which gives 1024 threads rings of one
 * data page each, and a burst overflows those at once. Shared, the same
 * budget gives each CPU a ring of 1 MiB, and a thread costs no mmap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine.h"

/* HWPROF_RINGS (hwprof(7)): "thread" (0) or "cpu" (1) forces a layout
 * for process-wide sessions; unset or "auto" (-1): shared rings up to
 * HWP_CPU_RINGS_MAX CPUs; anything else -2, after one line on stderr and
 * to the log (hwprof_session_new() fails then). */
int hwp_crings_wanted(void)
{
	char msg[160];

	const char *v = secure_getenv("HWPROF_RINGS");

	if (!v || !*v || !strcmp(v, "auto"))
		return -1;
	if (!strcmp(v, "thread"))
		return 0;
	if (!strcmp(v, "cpu"))
		return 1;
	snprintf(msg, sizeof(msg), "hwprof: HWPROF_RINGS=%.40s: not thread, cpu or auto", v);
	hwp_env_complain(msg);
	hwp_log(HWPROF_LOG_ERR, "%s", msg);
	return -2;
}

/*
 * Chooses, at start, which events share rings per CPU (process-wide
 * sessions, up to HWP_CPU_RINGS_MAX CPUs, where the open-file limit
 * allows one fd per thread and CPU) and their size:
 * s->pages when the caller chose it, else HWP_DEF_CPU_PAGES, halved while
 * all of them would take more than half the locked-memory budget
 * (budget_pages; 0: none, as for root), which leaves the other half to
 * the rings of threads that cannot share (lib/engine/threads.c).
 */
/*
 * The CPUs a thread may run on: the kernel's possible list
 * (/sys/devices/system/cpu/possible, "0-3,8-11": ids may have gaps), or
 * 0 .. _SC_NPROCESSORS_CONF - 1 where it cannot be read. Into s->cpu_id,
 * their number into s->ncpu (at most HWP_CPU_IDS).
 */
static void possible_cpus(struct hwprof_session *s)
{
	char buf[512], *p = buf, *end;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	s->ncpu = 0;
	if (got > 0) {
		buf[got] = 0;
		while (*p >= '0' && *p <= '9') {
			long a = strtol(p, &end, 10), b = a;

			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			for (long c = a; c <= b && s->ncpu < HWP_CPU_IDS; c++)
				s->cpu_id[s->ncpu++] = (int)c;
			p = *end == ',' ? end + 1 : end;
		}
	}
	if (!s->ncpu)
		for (long c = 0; c < (n > 0 ? n : 1) && c < HWP_CPU_IDS; c++)
			s->cpu_id[s->ncpu++] = (int)c;
}

void hwp_crings_plan(struct hwprof_session *s, uint64_t budget_pages)
{
	int want = hwp_crings_wanted();
	struct rlimit rl;
	size_t shared = 0;

	possible_cpus(s);
	for (size_t i = 0; i < s->nev; i++) {
		struct hwp_sev *e = &s->ev[i];

		/* breakpoints keep one fd a thread: each fd holds a debug
		 * register's worth of the kernel's accounting */
		e->percpu = s->mode == HWPROF_SESSION_PROCESS &&
			    e->e.kind != HWP_EV_BREAKPOINT && want != 0 &&
			    (want == 1 || s->ncpu <= HWP_CPU_RINGS_MAX) &&
			    s->ncpu < HWP_CPU_IDS; /* all of them listed */
		/* the kernel maps no ring of an inherited fd of one thread
		 * on every CPU: an inherit session's fds are one per CPU,
		 * whatever HWPROF_RINGS says (session.c checks they are
		 * all listed) */
		e->percpu |= s->inherit;
		shared += (size_t)e->percpu;
	}
	/* a thread costs an fd per shared event and CPU: where the hard
	 * limit on open files cannot hold that for HWP_FIT_THREADS threads,
	 * a ring per thread (one fd) covers twice as many or more */
	if (shared && want != 1 && !s->inherit && !getrlimit(RLIMIT_NOFILE, &rl) &&
	    rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < (rlim_t)(shared * s->ncpu * HWP_FIT_THREADS + 64)) {
		for (size_t i = 0; i < s->nev; i++)
			s->ev[i].percpu = 0;
		shared = 0;
	}
	s->cpages = s->pages_set ? s->pages : HWP_DEF_CPU_PAGES;
	while (budget_pages && shared && s->cpages > 1 &&
	       (uint64_t)(s->cpages + 1) * shared * s->ncpu > budget_pages / 2)
		s->cpages /= 2;
}

/* The array of shared rings, when an event needs them and it is not
 * there yet (at start, or in a fork child). */
int hwp_crings_alloc(struct hwprof_session *s)
{
	int need = 0;

	for (size_t i = 0; i < s->nev; i++)
		need |= s->ev[i].percpu;
	if (!need || s->cring)
		return 0;
	s->cring = calloc(s->nev * s->ncpu, sizeof(*s->cring));
	if (!s->cring)
		return -ENOMEM;
	for (size_t i = 0; i < s->nev * s->ncpu; i++) {
		s->cring[i].fd = -1;
		s->cring[i].lcg = HWPROF_LCG_SEED;
	}
	return 0;
}

struct hwp_cring *hwp_cring_of(struct hwprof_session *s, const struct hwp_slot *sl)
{
	return sl->cr >= 0 && s->cring ? &s->cring[sl->cr] : NULL;
}

/*
 * Makes the shared ring of event i on cpu: s->cpages, halved while the
 * locked-memory budget refuses, mapped on an event of its own that never
 * counts (a disabled PERF_COUNT_SW_DUMMY of the calling thread on that
 * CPU), so that every thread's fd can be stopped and closed alike, and a
 * program that closes hwprof's fds ends every thread's event with them.
 */
int hwp_cring_open(struct hwprof_session *s, size_t i, int cpu)
{
	struct hwp_cring *cr = &s->cring[i * s->ncpu + (size_t)cpu];
	struct perf_event_attr a = s->ev[i].e.attr;
	unsigned int p = s->cpages;
	int ret, fd;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.inherit = 0; /* no copy of it in the threads made later */
	a.bp_type = 0; /* shares its bytes with nothing a dummy needs */
	a.config1 = 0;
	a.config2 = 0;
	fd = hwp_attr_open(&a, 0, 0, s->cpu_id[cpu], -1, 0, NULL);
	if (fd < 0)
		return fd;
	for (;;) {
		ret = hwp_ring_map(&cr->ring, fd, p);
		if (ret != -EPERM || p == 1)
			break;
		p /= 2;
	}
	if (!ret && (ret = hwp_perf_fd_note(fd, &cr->who)))
		hwp_ring_unmap(&cr->ring);
	if (ret) {
		close(fd);
		return ret;
	}
	cr->fd = fd;
	if (p < s->cpages)
		s->cpages = p; /* the budget is shorter than it looked */
	return 0;
}

/* 1 if cr->fd is still the fd hwprof kept for cr (see hwp_threads_slot_ours()). */
int hwp_cring_ours(const struct hwp_cring *cr)
{
	return hwp_perf_fd_ours(cr->fd, &cr->who);
}

/*
 * What the kernel reported lost and throttled in the live shared rings of
 * event ev. Where every fd reads its own lost count (PERF_FORMAT_LOST),
 * the slots count losses (hwp_threads_slot_lost()), exactly, and LOST records
 * here are the same samples again: they are left out.
 */
void hwp_crings_stats(const struct hwprof_session *s, int ev, uint64_t *lost,
		      uint64_t *throttled)
{
	int by_fd = !!(s->ev[ev].e.attr.read_format & PERF_FORMAT_LOST);

	for (size_t c = 0; s->cring && c < s->ncpu; c++) {
		const struct hwp_cring *cr = &s->cring[(size_t)ev * s->ncpu + c];

		if (!by_fd)
			*lost += cr->ring.stats.lost;
		*throttled += cr->ring.stats.throttled;
	}
}

/* After the last slot is closed: what the rings hold folded, their counts
 * kept in the events', the rings unmapped and their fds closed. */
void hwp_crings_close(struct hwprof_session *s)
{
	if (!s->cring)
		return;
	for (size_t i = 0; i < s->nev * s->ncpu; i++)
		hwp_drain_ring(s, (int)(i / s->ncpu), &s->cring[i].ring, &s->cring[i].lcg);
	for (size_t i = 0; i < s->nev; i++)
		hwp_crings_stats(s, (int)i, &s->ev[i].st.lost, &s->ev[i].st.throttled);
	for (size_t i = 0; i < s->nev * s->ncpu; i++) {
		struct hwp_cring *cr = &s->cring[i];

		if (hwp_cring_ours(cr))
			close(cr->fd);
		hwp_ring_unmap(&cr->ring);
	}
	free(s->cring);
	s->cring = NULL;
}

/* In a fork child: the rings are not mapped there (the kernel does not
 * copy perf mappings) and the fds name the parent's events. */
void hwp_crings_forget(struct hwprof_session *s)
{
	if (!s->cring)
		return;
	for (size_t i = 0; i < s->nev; i++)
		hwp_crings_stats(s, (int)i, &s->ev[i].st.lost, &s->ev[i].st.throttled);
	for (size_t i = 0; i < s->nev * s->ncpu; i++) {
		struct hwp_cring *cr = &s->cring[i];

		if (cr->fd >= 0 && hwp_cring_ours(cr))
			close(cr->fd);
		free(cr->ring.copy);
	}
	free(s->cring);
	s->cring = NULL;
}
