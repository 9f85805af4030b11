/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's events: every -e name resolved (lib/perf's resolver,
 * lib/perf/event.c) and its period chosen before anything runs, with the line
 * that says what each records. mem:FUNC:x is looked up in the command's
 * ELF symbol table; in a PIE it is an offset placed once the command is
 * loaded (rec-launch.c).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <hwprof.h>
#include "elfsym.h"
#include "perf.h"
#include "cli.h"
#include "rec-cmd.h"

long rec_max_rate(void)
{
	return hwp_sys_read_long("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
}

/* "1 ms", "250 us", "1.5 s" */
static void human_ns(char *b, size_t n, uint64_t ns)
{
	if (ns >= 1000000000ull && ns % 1000000000ull == 0)
		snprintf(b, n, "%llu s", (unsigned long long)(ns / 1000000000ull));
	else if (ns >= 1000000000ull)
		snprintf(b, n, "%.3g s", (double)ns / 1e9);
	else if (ns >= 1000000 && ns % 1000000 == 0)
		snprintf(b, n, "%llu ms", (unsigned long long)(ns / 1000000));
	else if (ns >= 1000000)
		snprintf(b, n, "%.3g ms", (double)ns / 1e6);
	else if (ns >= 1000 && ns % 1000 == 0)
		snprintf(b, n, "%llu us", (unsigned long long)(ns / 1000));
	else if (ns >= 1000)
		snprintf(b, n, "%.3g us", (double)ns / 1e3);
	else
		snprintf(b, n, "%llu ns", (unsigned long long)ns);
}

/* mem:FUNC:x, event e: FUNC found in the command's file now (a PIE's
 * placed once it is loaded, or at its load address in -p's process). */
static int resolve_func(struct rec_run *run, int e, const char *name, struct hwp_event *ev)
{
	const char *colon = strrchr(name + 4, ':');
	char func[256], mem[64], why[512], *colon2;
	uint64_t a = 0, base;
	int etype = 0, pie, ret;

	if (!colon || strcmp(colon, ":x") || colon == name + 4 ||
	    (size_t)(colon - name - 4) >= sizeof(func))
		return usage_error("%s: only execute breakpoints (mem:FUNC:x, mem:0xADDR:x) "
				   "are supported",
				   name);
	snprintf(func, sizeof(func), "%.*s", (int)(colon - name - 4), name + 4);
	/* a PIE (ET_DYN) is placed by the kernel: its value is an offset
	 * from the load address, read once it is loaded */
	ret = hwp_elf_func(run->file, func, &a, &etype);
	pie = etype == ET_DYN;
	if (ret == -ENOENT)
		die("%s: no function '%s' in %s", name, func, run->file);
	if (ret)
		die("%s: cannot read %s: %s", name, run->file, strerror(-ret));
	if (pie && !run->op.pid) {
		run->bps[run->nbp++] = (struct rec_bp){ e, a };
		a = 0x1000; /* checked now, placed later */
	} else if (pie) {
		if (rec_load_base(run->op.pid, run->file, &base))
			die("%s: cannot find %s in process %d", name, run->file,
			    (int)run->op.pid);
		a += base;
	}
	snprintf(mem, sizeof(mem), "mem:%#llx:x", (unsigned long long)a);
	ret = hwp_event_resolve(mem, ev, why, sizeof(why));
	if (ret) {
		colon2 = strstr(why, ": ");
		die("%s: %s", name, colon2 ? colon2 + 2 : why);
	}
	return 0;
}

static int refuse_modifier(const char *name)
{
	return usage_error("%s: hwprof record samples user space only and takes no kernel or "
			   "hypervisor modifier; drop it (hwprof report states the kernel's share "
			   "of task-clock and cpu-clock time)",
			   name);
}

/* 1 when name is an event that resolves once its last :MODIFIERS (perf's
 * letters, u k h p G H I ..., k or h among them) are dropped:
 * task-clock:uk, cycles:kh */
static int modifier_only(const char *name)
{
	const char *colon = strrchr(name, ':');
	struct hwp_event ev;
	char base[256], why[512];

	if (!colon || colon == name || !colon[1] || (size_t)(colon - name) >= sizeof(base) ||
	    strspn(colon + 1, "ukhpPGHIDSW") != strlen(colon + 1))
		return 0;
	snprintf(base, sizeof(base), "%.*s", (int)(colon - name), name);
	return !hwp_event_resolve(base, &ev, why, sizeof(why));
}

static int resolve(struct rec_run *run, int e, struct hwp_event *ev)
{
	const char *name = run->op.ev[e];
	char why[512];
	int ret;

	if (!strncmp(name, "mem:", 4) && strncasecmp(name + 4, "0x", 2))
		return resolve_func(run, e, name, ev);
	ret = hwp_event_resolve(name, ev, why, sizeof(why));
	/* mem:0xADDR with another access than :x, or a bad address: the
	 * event's syntax, a usage error as for mem:FUNC */
	if (ret == -EINVAL && !strncmp(name, "mem:", 4)) {
		if (strlen(name) < 2 || strcmp(name + strlen(name) - 2, ":x"))
			return usage_error("%s: only execute breakpoints (mem:FUNC:x, "
					   "mem:0xADDR:x) are supported",
					   name);
		return usage_error("%s", why);
	}
	if (ret && modifier_only(name))
		return refuse_modifier(name);
	if (ret == -EOPNOTSUPP && !strstr(why, "task-clock"))
		die("%s; try -e task-clock, which every Linux has", why);
	if (ret)
		die("%s", why);
	/* hwprof record samples user space only (exclude_kernel, exclude_hv
	 * on every event it opens): a modifier that asks for the kernel or
	 * the hypervisor, or leaves user space out (:k, :h, :u=0), is
	 * refused, a usage error; the report states the kernel's share of a
	 * clock's time instead (hwprof(1)) */
	if (ev->attr.exclude_user || !ev->attr.exclude_kernel || !ev->attr.exclude_hv)
		return refuse_modifier(name);
	return 0;
}

/*
 * The period of event e (0: the kernel's, at -F's rate) and what it is in
 * msg. chosen: -c or -F was given (else the period is the default).
 */
static int set_period(struct rec_run *run, int e, const struct hwp_event *ev, int chosen,
		      uint64_t *period, char *msg, size_t len)
{
	const struct rec_opts *op = &run->op;
	struct rec_event *re = &run->r->ev[e];
	uint64_t applied;
	char hn[32], hz[48] = "";

	*period = op->count ? op->count : ev->default_period;
	if (op->hz) {
		if (re->clock) {
			*period = 1000000000ull / op->hz;
			if (!*period)
				*period = 1;
		} else if (ev->kind == HWP_EV_HARDWARE) {
			re->attr.freq = 1;
			re->attr.sample_freq = op->hz;
			*period = 0; /* the kernel adjusts it */
			snprintf(msg, len, "at %llu Hz (the kernel adjusts the period)",
				 (unsigned long long)op->hz);
			return 0;
		} else {
			return usage_error("-F needs a clock or cycles event; give %s a "
					   "threshold with -c",
					   re->name);
		}
	}
	applied = re->clock ? hwp_attr_applied_period(1, *period) : *period;
	re->attr.sample_period = applied;
	if (!re->clock) {
		snprintf(msg, len, "every %llu event%s%s", (unsigned long long)applied,
			 applied == 1 ? "" : "s", op->count ? "" : " (its default)");
	} else {
		human_ns(hn, sizeof(hn), applied);
		if (op->hz)
			snprintf(hz, sizeof(hz), ", %llu Hz", (unsigned long long)op->hz);
		snprintf(msg, len, "every %llu ns (%s%s%s)", (unsigned long long)applied, hn,
			 applied != *period ? ", the kernel's minimum" : hz,
			 applied == *period && !chosen ? ", its default" : "");
	}
	*period = applied;
	return 0;
}

/*
 * Resolves every -e name and its period, before anything runs. Fills the
 * events of r and the data file, with the line that says what each
 * records; the PIE breakpoints to place once the command is loaded.
 */
int rec_events_setup(struct rec_run *run)
{
	struct rec_opts *op = &run->op;
	struct rec *r = run->r;
	int chosen = op->count || op->hz;

	run->nbp = 0;
	if (!op->nev) {
		op->ev[op->nev++] = hwp_attr_probe("cycles", NULL, 0) ? "task-clock" :
									"cycles";
		if (!op->count && !op->hz)
			op->hz = REC_DEFAULT_HZ;
	}
	for (int e = 0; e < op->nev; e++) {
		struct rec_event *re = &r->ev[e];
		struct hwp_event ev;
		char msg[160];
		uint64_t period;
		int ret;
		long h;

		re->name = op->ev[e];
		re->precise = -1;
		ret = resolve(run, e, &ev);
		if (ret)
			return ret;
		re->attr = ev.attr;
		snprintf(re->src, sizeof(re->src), "%s", ev.src);
		re->clock = ev.kind == HWP_EV_CLOCK;
		ret = set_period(run, e, &ev, chosen, &period, msg, sizeof(msg));
		if (ret)
			return ret;
		h = hd_add_event(&r->d, re->name, period);
		if (h < 0)
			die("out of memory");
		re->hd = (uint32_t)h;
		snprintf(re->msg, sizeof(re->msg), "hwprof: recording %s %s into %s", re->name,
			 msg, op->out);
	}
	r->nev = op->nev;
	return 0;
}
