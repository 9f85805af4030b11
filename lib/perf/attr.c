/* SPDX-License-Identifier: MIT */
/*
 * A resolved event as the kernel is asked for it: the sampling attr
 * (hwp_attr_sampling()), the precise_ip rule and the one open that steps
 * down through it (hwp_attr_open(), the only code that sets precise_ip),
 * perf_event_open(2)'s -errno turned into the one line that says why
 * (hwp_attr_why(), for the engine and the command alike), the period the
 * kernel applies, and the line a hybrid CPU is worth.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event.h"
#include "perf.h"

#ifndef PERF_FORMAT_LOST /* kernel headers before 6.0 */
#define PERF_FORMAT_LOST (1u << 4)
#endif

uint64_t hwp_attr_applied_period(int clock, uint64_t period)
{
	return clock && period < HWP_MIN_CLOCK_NS ? HWP_MIN_CLOCK_NS : period;
}

/*
 * Fills the sampling attr of a resolved event, the one place it is built:
 * every threshold events a sample of the user-space pc (sample_type adds
 * to PERF_SAMPLE_IP; a CALLCHAIN's user-space frames only), disabled until enabled, the
 * kernel's lost count readable (PERF_FORMAT_LOST, kernel 6.0+; the engine drops it on older
 * ones), the ring waking its reader at half full unless no_wakeup.
 */
void hwp_attr_sampling(struct hwp_event *ev, uint64_t period, uint64_t sample_type,
		       int no_wakeup)
{
	struct perf_event_attr *a = &ev->attr;

	a->sample_period = period;
	a->freq = 0;
	a->sample_type = PERF_SAMPLE_IP | sample_type;
	/* call chains of user space only: the frames the profile names */
	a->exclude_callchain_kernel = !!(sample_type & PERF_SAMPLE_CALLCHAIN);
	/* exclude_kernel and exclude_hv stay as resolved: set, unless a
	 * libpfm4 string asked for kernel samples (:k) */
	a->disabled = 1;
	a->inherit = 0;
	a->read_format = PERF_FORMAT_LOST;
	/* half the ring (the kernel's default) wakes the drain; NO_WAKEUP:
	 * a watermark past any ring, so only the interval, read and stop
	 * drain */
	a->watermark = no_wakeup ? 1 : 0;
	a->wakeup_watermark = no_wakeup ? UINT32_MAX : 0;
	a->wakeup_events = 0;
}

/*
 * The precise_ip rule, for every open of the library and the command
 * (hwprof_session_add(3), "Skid"): an event of a PMU (PERF_TYPE_HARDWARE,
 * HW_CACHE, RAW or a PMU's own type) is tried at precise_ip 3 and one
 * level lower after each answer a kernel gives for a level it cannot do:
 * EINVAL (Intel: a level above what the event's PEBS supports),
 * EOPNOTSUPP (x86: above the CPU's maximum; AMD: above 2) and ENOENT
 * (AMD with IBS: 1 and 2 go to IBS, which has no such event); at 0 the
 * answer is the event's. Other events are opened at 0.
 */
int hwp_attr_precise_max(const struct perf_event_attr *a)
{
	return hwp_sys_pmu_event(a) ? 3 : 0;
}

/*
 * Opens a (perf_event_open(2) flags besides CLOEXEC in flags) at the most
 * precise level from `from` down (-1: hwp_attr_precise_max(a)), the one place
 * precise_ip is set. The fd, with the level in *level and in a, or the
 * -errno of the open at level 0.
 */
int hwp_attr_open(struct perf_event_attr *a, int from, pid_t pid, int cpu, int group,
		  unsigned long flags, int *level)
{
	int l = from < 0 ? hwp_attr_precise_max(a) : from > 3 ? 3 : from;
	int fd;

	for (;; l--) {
		a->precise_ip = (unsigned int)l;
		fd = hwp_perf_open_flags(a, pid, cpu, group, flags);
		if (fd >= 0) {
			if (level)
				*level = l;
			return fd;
		}
		if (!l || (fd != -EINVAL && fd != -EOPNOTSUPP && fd != -ENOENT))
			return fd;
	}
}

/* ------------------------------------------------------------------ */
/* Why an open failed                                                   */

/* The highest perf_event_paranoid that lets an unprivileged user open
 * a (perf_event_open(2)): 2 for user-space events on its own threads,
 * 1 with kernel samples or on other CPUs' processes, 0 for CPU-wide. */
static int paranoid_needed(const struct perf_event_attr *a, pid_t pid)
{
	if (pid == -1)
		return 0;
	return a->exclude_kernel ? 2 : 1;
}

/*
 * Why the kernel's ptrace access check (perf_event_open(2) on a task asks
 * for ptrace read access to it, PTRACE_MODE_READ_REALCREDS) refuses task
 * tid to this process, unless it has CAP_PERFMON: its real, effective or
 * saved uid (or gid) is not our real one, or it is not dumpable (a
 * set-user-ID program; /proc then gives its files to root). Into what, 1;
 * 0 when the check passes as far as can be seen: a thread of this
 * process (which the check lets through), or root, whose capabilities
 * pass it.
 */
static int ptrace_denied(pid_t tid, char *what, size_t len)
{
	unsigned long id[2][3];
	char path[64], buf[4096], *t, *u, *g;
	struct stat st;

	if (!geteuid() || tid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (hwp_sys_read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	t = strstr(buf, "\nTgid:");
	u = strstr(buf, "\nUid:");
	g = strstr(buf, "\nGid:");
	if (!t || !u || !g || strtol(t + 6, NULL, 10) == (long)getpid() ||
	    sscanf(u + 1, "Uid: %lu %lu %lu", &id[0][0], &id[0][1], &id[0][2]) != 3 ||
	    sscanf(g + 1, "Gid: %lu %lu %lu", &id[1][0], &id[1][1], &id[1][2]) != 3)
		return 0;
	for (int k = 0; k < 3; k++) {
		if (id[0][k] != (unsigned long)getuid()) {
			snprintf(what, len, "another user's (uid %lu)", id[0][k]);
			return 1;
		}
		if (id[1][k] != (unsigned long)getgid()) {
			snprintf(what, len, "another group's (gid %lu)", id[1][k]);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	if (!stat(path, &st) && st.st_uid != getuid()) {
		snprintf(what, len,
			 "not dumpable (it ran a set-user-ID or set-group-ID "
			 "program, or called prctl(PR_SET_DUMPABLE, 0))");
		return 1;
	}
	return 0;
}

/* EACCES or EPERM: what refused it, as far as can be seen from here. */
static void why_denied(int err, const struct perf_event_attr *a, pid_t pid, const char *name,
		       char *why, size_t len)
{
	int par = hwp_sys_paranoid(), need = paranoid_needed(a, pid);
	/* root's capabilities are not bound by perf_event_paranoid */
	int allowed = par <= need || !geteuid();
	char what[160];

	if (ptrace_denied(pid, what, sizeof(what)))
		/* perf_event_paranoid is not what refuses it: lowering it
		 * would not help */
		hwp_say(why, len,
			"%s: the kernel's ptrace access check refuses it: process %d is %s; perf_event_paranoid does not matter: run as its user, or with CAP_PERFMON or CAP_SYS_PTRACE (as root); kernel.yama.ptrace_scope limits ptrace attach only, not this check",
			name, (int)pid, what);
	else if (allowed && hwp_sys_seccomp())
		hwp_say(why, len,
			"%s: perf_event_open is denied by a seccomp filter (perf_event_paranoid %d would allow it): run outside the container's profile or allow perf_event_open",
			name, par);
	else if (allowed && par <= need)
		hwp_say(why, len,
			"%s: perf_event_open is denied (%s) though perf_event_paranoid %d allows it: a security module or a missing capability",
			name, strerror(-err), par);
	else if (allowed)
		hwp_say(why, len,
			"%s: perf_event_open is denied (%s) though root is not bound by perf_event_paranoid (%d): a security module or a missing capability",
			name, strerror(-err), par);
	else if (hwp_sys_seccomp())
		hwp_say(why, len,
			"%s: perf_event_open is denied by a seccomp filter or by perf_event_paranoid (value %d, above the %d it needs)",
			name, par, need);
	else
		hwp_say(why, len,
			"%s: perf_event_paranoid forbids it (value %d; sysctl kernel.perf_event_paranoid=%d allows it, or run with CAP_PERFMON)",
			name, par, need);
}

/*
 * Why perf_event_open(2) refused a for pid (-1: every process on a CPU)
 * with -errno err: one line into why, "NAME: reason" (src, when not NULL
 * or empty, says where a PMU event's encoding came from). The one reading
 * of the kernel's answers, for the engine (hwp_attr_event_open()) and the
 * command alike. Returns what it means: -EOPNOTSUPP (this machine cannot
 * sample it), -EACCES (forbidden) or err.
 */
int hwp_attr_why(int err, const struct perf_event_attr *a, pid_t pid, const char *name,
		 const char *src, char *why, size_t len)
{
	switch (err) {
	case -ENOENT:
	case -ENODEV:
	case -EOPNOTSUPP:
		if (src && *src)
			hwp_say(why, len, "%s: event not supported by this machine's PMU (%s)",
				name, src);
		else
			hwp_say(why, len, "%s: event not supported by this machine's PMU",
				name);
		return -EOPNOTSUPP;
	case -EACCES:
	case -EPERM:
		why_denied(err, a, pid, name, why, len);
		return -EACCES;
	case -ENOSPC:
		hwp_say(why, len,
			"%s: no free debug register (at most 4 breakpoints a thread)", name);
		return err;
	case -EMFILE:
	case -ENFILE:
		hwp_say(why, len, "%s: out of file descriptors (ulimit -n)", name);
		return err;
	default:
		hwp_say(why, len, "%s: perf_event_open: %s", name, strerror(-err));
		return err;
	}
}

/*
 * Opens a sampling fd for a resolved event, at the most precise level the
 * PMU accepts (hwp_attr_open()). Returns the fd or -EOPNOTSUPP (cannot
 * sample here), -EACCES (forbidden) or another -errno, with the reason in
 * why (hwp_attr_why()).
 */
int hwp_attr_event_open(struct hwp_event *ev, pid_t pid, int cpu, int out_fd, int *precise,
			char *why, size_t len)
{
	int fd;

	/* the kernel attaches the ring before it installs the event, so one
	 * born enabled loses no sample to a missing ring */
	ev->attr.disabled = out_fd < 0;
	fd = hwp_attr_open(&ev->attr, -1, pid, cpu, out_fd,
			   out_fd < 0 ? 0 : PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP,
			   precise);
	ev->attr.disabled = 1;
	if (fd >= 0)
		return fd;
	return hwp_attr_why(fd, &ev->attr, pid, ev->name, ev->src, why, len);
}

/*
 * Hybrid CPUs (cpu_core and cpu_atom PMUs in sysfs): an event is opened on
 * one core PMU, not one per PMU as perf does. The kernel puts a generic
 * event (HARDWARE, HW_CACHE: no PMU type in config's high bits) and a RAW
 * one on the PMU of type PERF_TYPE_RAW, cpu_core; a PMU's own type goes to
 * that PMU. HWPROF_TEST_SYSFS (secure_getenv) puts a directory before the
 * sysfs path, for tests.
 */
static long pmu_type_of(const char *pmu)
{
	const char *root = secure_getenv("HWPROF_TEST_SYSFS");
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/type",
		 root ? root : "", pmu);
	return hwp_sys_read_long(path, -1);
}

/* The one line a session on a hybrid CPU says of its PMU events (n
 * events, names[i] each, attrs[i]), or 0 when there is nothing to say. */
int hwp_attr_hybrid_note(const struct perf_event_attr *const *attrs, const char *const *names,
			 size_t n, char *line, size_t len)
{
	long core = pmu_type_of("cpu_core"), atom = pmu_type_of("cpu_atom");
	size_t at;
	int any = 0;

	if (core < 0 || atom < 0)
		return 0;
	at = (size_t)snprintf(line, len,
			      "hwprof: hybrid CPU: each event samples on one kind of core (");
	for (size_t i = 0; i < n && at < len; i++) {
		const struct perf_event_attr *a = attrs[i];
		const char *on;

		if (!hwp_attr_precise_max(a))
			continue; /* not a PMU's */
		on = a->type == (uint32_t)atom				  ? "cpu_atom" :
		     a->type < PERF_TYPE_MAX || a->type == (uint32_t)core ? "cpu_core" :
									    NULL;
		if (!on)
			continue; /* another PMU's: not the cores' */
		at += (size_t)snprintf(line + at, len - at, "%s%s on %s", any ? ", " : "",
				       names[i], on);
		any = 1;
	}
	if (any && at < len)
		snprintf(line + at, len - at,
			 "): a thread's time on the other kind is not sampled");
	return any;
}

/* Whether this thread can sample a resolved event: opens and closes it.
 * 0 or -errno as hwp_attr_event_open(), with the reason in why. */
int hwp_attr_check(const struct hwp_event *ev, char *why, size_t len)
{
	struct hwp_event e = *ev;
	int fd;

	hwp_attr_sampling(&e, e.default_period, 0, 0);
	e.attr.read_format = 0;
	fd = hwp_attr_event_open(&e, 0, -1, -1, NULL, why, len);
	if (fd < 0)
		return fd;
	close(fd);
	if (*e.src)
		hwp_say(why, len, "ok (%s)", e.src);
	else
		hwp_say(why, len, "ok");
	return 0;
}

int hwp_attr_probe(const char *name, char *why, size_t len)
{
	struct hwp_event ev;
	int ret;

	hwp_say(why, len, "ok");
	ret = hwp_event_resolve(name, &ev, why, len);
	return ret ? ret : hwp_attr_check(&ev, why, len);
}
