/* SPDX-License-Identifier: MIT */
/*
 * AIX monitor, monstartup and moncontrol on the engine. Samples go into
 * 32-bit buckets of the library's (so gmon.out keeps counts above 65535);
 * the caller's HISTCOUNTERs receive them, saturated, when sampling stops.
 * Errors: -1 after one line on stderr, as AIX does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwprof/mon.h"
#include "classic.h"
#include "gmon.h"

#define MAX_RANGES    1024
#define MAX_BIN_BYTES 0x10000u /* widest bin: 64 KiB of text */
/* monstartup's buffer: one counter per 4 bytes of text, at most this
 * many per range (32 MiB); wider ranges get wider bins */
#define MAX_START_COUNTERS (1u << 24)

HWPROF_API struct monglobal _mondata;

struct mrange {
	uint64_t lo, hi;
	HISTCOUNTER *user; /* the caller's counters for this range */
	size_t nuser;
	uint32_t *counts; /* ours: nbins */
	size_t nbins;
};

static struct {
	struct mrange r[MAX_RANGES];
	size_t nr;
	uint32_t bytes; /* text bytes per bin, a power of two, >= 2 */
	struct hwp_env env;
	int set; /* monitor() set the ranges up */
	int sampling;
	HISTCOUNTER *owned; /* monstartup's buffer */
} mon;

static int say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int say(const char *fmt, ...)
{
	va_list ap;

	fputs("monitor: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static void forget(void)
{
	for (size_t i = 0; i < mon.nr; i++)
		free(mon.r[i].counts);
	free(mon.owned);
	memset(&mon, 0, sizeof(mon));
}

/* Starts sampling into our buckets (the histogram is the slot's). */
static int sample(void)
{
	struct hwprof_region reg[MAX_RANGES];
	/* a range whose length is not a whole number of bins ends in a bin
	 * that reaches into the next range: the next range's own bins win
	 * there (the largest offset not above the pc) */
	struct hwprof_hist_opts o = {
		.sz = sizeof(o),
		.regions = reg,
		.nregions = mon.nr,
		.index = HWPROF_INDEX_PAPI,
		.flags = HWPROF_HIST_OVERLAP,
	};
	struct hwprof_hist *h;
	int ret;

	for (size_t i = 0; i < mon.nr; i++)
		reg[i] = (struct hwprof_region){
			.base = mon.r[i].counts,
			.size = mon.r[i].nbins * 4,
			.offset = mon.r[i].lo,
			.scale = 0x20000u / mon.bytes,
			.width = 32,
		};
	ret = hwprof_hist_new(&o, &h);
	if (!ret)
		ret = hwp_classic_replace(HWP_CLASSIC_MONITOR, &mon.env, h, NULL, NULL);
	if (ret)
		return say("cannot sample %s: %s", mon.env.event, strerror(-ret));
	mon.sampling = 1;
	hwp_classic_arm();
	return 0;
}

static void copy_out(void *arg)
{
	struct mrange *m = arg;

	for (size_t b = 0; b < m->nbins && b < m->nuser; b++)
		m->user[b] = (HISTCOUNTER)(m->counts[b] > HIST_CNT_MAX ? HIST_CNT_MAX :
									 m->counts[b]);
}

static int owns(const void *ctx, uintptr_t addr)
{
	const struct mrange *m = ctx;

	return addr >= (uintptr_t)m->user &&
	       addr - (uintptr_t)m->user < m->nuser * HIST_COUNTER_SIZE;
}

/* Stops sampling (the buckets are exact after) and fills the caller's
 * counters from them, saturated at HIST_CNT_MAX. A buffer the program
 * unmapped or made read-only since is left alone, with one line on
 * stderr (hwp_guard_run()). */
static void halt(void)
{
	if (mon.sampling && hwp_classic_kind() == HWP_CLASSIC_MONITOR)
		hwp_classic_replace(HWP_CLASSIC_NONE, NULL, NULL, NULL, NULL);
	mon.sampling = 0;
	for (size_t i = 0; i < mon.nr; i++) {
		struct mrange *m = &mon.r[i];
		uintptr_t at = 0;
		char what[96];

		if (!m->user)
			continue;
		if (!hwp_guard_write(copy_out, m, owns, m, m->user,
				     m->nuser * HIST_COUNTER_SIZE, &at))
			continue;
		snprintf(what, sizeof(what), "range %zu buffer %p (%zu counters)", i,
			 (void *)m->user, m->nuser);
		hwp_guard_say("monitor", what, at, 0);
		m->user = NULL; /* never written again */
	}
}

/*
 * The data file: HWPROF_GMON_OUT with every %p replaced by the pid, or
 * gmon.out. Read with secure_getenv(): a set-user-ID program writes
 * gmon.out in its working directory, as glibc's gmon does. NULL when the
 * name does not fit.
 */
static const char *out_path(char *buf, size_t len)
{
	const char *p = secure_getenv("HWPROF_GMON_OUT");
	size_t at = 0;
	int n;

	if (!p || !*p)
		return "gmon.out";
	while (*p && at < len) {
		if (p[0] == '%' && p[1] == 'p') {
			n = snprintf(buf + at, len - at, "%d", (int)getpid());
			if (n < 0)
				return NULL;
			at += (size_t)n;
			p += 2;
		} else {
			buf[at++] = *p++;
		}
	}
	if (at >= len)
		return NULL;
	buf[at] = 0;
	return buf;
}

/* monitor(0): stop, fill the caller's buffer, write the data file. */
static int finish(void)
{
	struct hwp_gmon_range g[MAX_RANGES];
	char buf[4096];
	const char *path;
	size_t written;
	int ret;

	if (!mon.set)
		return say("profiling was not started");
	halt();
	for (size_t i = 0; i < mon.nr; i++)
		g[i] = (struct hwp_gmon_range){
			.lo = mon.r[i].lo,
			.nbins = mon.r[i].nbins,
			.counts = mon.r[i].counts,
		};
	path = out_path(buf, sizeof(buf));
	if (!path) {
		forget();
		return say("HWPROF_GMON_OUT: the file name is too long");
	}
	ret = hwp_gmon_write(path, g, mon.nr, mon.bytes, &mon.env, &written);
	forget();
	if (ret == HWP_GMON_NOTREG)
		return say("%s: not a regular file: not written", path);
	if (ret)
		return say("%s: %s", path, strerror(-ret));
	if (!written)
		return say("%s: no range lies in the main program, whose symbols gprof reads",
			   path);
	return 0;
}

/* Text bytes per bin: the smallest power of two (>= 2, gprof's minimum)
 * that fits the range into the counters. */
static uint32_t bin_bytes(uint64_t range, size_t counters)
{
	uint32_t b = 2;

	while (b < MAX_BIN_BYTES && (uint64_t)b * counters < range)
		b <<= 1;
	return b;
}

static int setup(caddr_t low, caddr_t high, HISTCOUNTER *buffer, int bufsize, int nfunc)
{
	static struct prof pr[MAX_RANGES]; /* under hwp_classic_lock */
	size_t reserve, n = 0;
	int type = _mondata.prof_type;

	if (type != _PROF_TYPE_IS_NONE && type != _PROF_TYPE_IS_P && type != _PROF_TYPE_IS_PG)
		return say("_mondata.prof_type is %d, not -1 (-p) or 1 (-pg)", type);
	if (nfunc < 0)
		return say("NFunction %d is negative", nfunc);
	/* the function-count space AIX reserves at the start of the first
	 * buffer: -p counts records, -pg gives bytes; never written here */
	reserve = type == _PROF_TYPE_IS_PG ? (size_t)nfunc :
					     (size_t)nfunc * sizeof(struct poutcnt);
	reserve = (reserve + HIST_COUNTER_SIZE - 1) / HIST_COUNTER_SIZE;

	if (bufsize == -1) {
		if (!buffer)
			return say("no prof array");
		/* the caller's array, one entry at a time, up to p_high 0 */
		for (n = 0; n < MAX_RANGES; n++) {
			if (hwp_user_read(&pr[n], (const struct prof *)(void *)buffer + n,
					  sizeof(pr[n])))
				return say("prof array entry %zu is not readable memory", n);
			if (!pr[n].p_high)
				break;
			if (pr[n].p_high <= pr[n].p_low)
				return say("range %zu: p_high is not above p_low", n);
			if (n && pr[n].p_low < pr[n - 1].p_high)
				return say("range %zu: ranges must ascend and not overlap", n);
			/* in integers: the caller's pointers may be anything */
			if (n && (uintptr_t)pr[n].p_buff !=
					 (uintptr_t)pr[n - 1].p_buff +
						 (uintptr_t)(intptr_t)pr[n - 1].p_bufsize *
							 HIST_COUNTER_SIZE)
				return say("range %zu: the buffers must form one contiguous area",
					   n);
		}
		if (n == MAX_RANGES)
			return say("more than %d ranges, or no entry with p_high 0",
				   MAX_RANGES - 1);
		if (!n)
			return say("the prof array has no range");
	} else {
		if (!low)
			return say("LowProgramCounter is 0");
		if (high <= low)
			return say("HighProgramCounter is not above LowProgramCounter");
		if (!buffer || bufsize <= 0)
			return say("no buffer");
		n = 1;
	}

	if (mon.set) /* a new setup replaces the old one */
		halt();
	forget();
	mon.bytes = 2;
	for (size_t i = 0; i < n; i++) {
		struct mrange *m = &mon.r[i];
		caddr_t lo = bufsize == -1 ? pr[i].p_low : low;
		caddr_t hi = bufsize == -1 ? pr[i].p_high : high;
		HISTCOUNTER *b = bufsize == -1 ? pr[i].p_buff : buffer;
		long size = bufsize == -1 ? pr[i].p_bufsize : bufsize;
		long skip = i ? 0 : (long)reserve;
		uint64_t range;

		if (size - skip <= 0) {
			forget();
			return say("range %zu: buffer of %ld HISTCOUNTERs leaves no room after %ld for function counts",
				   i, size, skip);
		}
		if (!hwp_user_writable(b, (size_t)size * HIST_COUNTER_SIZE)) {
			forget();
			return say("range %zu: buffer is not writable", i);
		}
		range = (uint64_t)(uintptr_t)hi - (uint64_t)(uintptr_t)lo;
		if (range / MAX_BIN_BYTES >= (uint64_t)(size - skip)) {
			forget();
			return say("range %zu: %#llx bytes of text is too large for %ld counters (%u bytes of text per counter at most)",
				   i, (unsigned long long)range, size - skip, MAX_BIN_BYTES);
		}
		m->lo = (uint64_t)(uintptr_t)lo;
		m->hi = (uint64_t)(uintptr_t)hi;
		m->user = b + skip;
		m->nuser = (size_t)(size - skip);
		memset(m->user, 0, m->nuser * HIST_COUNTER_SIZE);
		if (bin_bytes(m->hi - m->lo, m->nuser) > mon.bytes)
			mon.bytes = bin_bytes(m->hi - m->lo, m->nuser);
	}
	mon.nr = n;
	/* one bin width for every range: gprof wants the same scale */
	for (size_t i = 0; i < n; i++) {
		struct mrange *m = &mon.r[i];

		m->nbins = (size_t)((m->hi - m->lo + mon.bytes - 1) / mon.bytes);
		m->counts = calloc(m->nbins, sizeof(*m->counts));
		if (!m->counts) {
			forget();
			return say("out of memory");
		}
	}
	if (hwp_env_get(&mon.env)) {
		forget();
		return say("HWPROF_EVENT or HWPROF_PERIOD is not usable (see above)");
	}
	mon.set = 1;
	if (sample()) {
		forget();
		return -1;
	}
	return 0;
}

HWPROF_API int monitor(caddr_t lowpc, ...)
{
	caddr_t high = NULL;
	HISTCOUNTER *buffer = NULL;
	int bufsize = 0, nfunc = 0, ret;
	va_list ap;

	pthread_mutex_lock(&hwp_classic_lock);
	if (!lowpc) {
		ret = finish();
	} else {
		va_start(ap, lowpc);
		high = va_arg(ap, caddr_t);
		buffer = va_arg(ap, HISTCOUNTER *);
		bufsize = va_arg(ap, int);
		nfunc = va_arg(ap, int);
		va_end(ap);
		ret = setup(lowpc, high, buffer, bufsize, nfunc);
	}
	pthread_mutex_unlock(&hwp_classic_lock);
	return ret;
}

HWPROF_API int moncontrol(int mode)
{
	int ret = 0;

	pthread_mutex_lock(&hwp_classic_lock);
	if (!mon.set)
		ret = say("moncontrol: monitor has not set profiling up");
	else if (!mode && mon.sampling)
		halt();
	else if (mode && !mon.sampling)
		ret = sample();
	pthread_mutex_unlock(&hwp_classic_lock);
	return ret;
}

static void at_exit(void)
{
	pthread_mutex_lock(&hwp_classic_lock);
	if (mon.set)
		finish();
	pthread_mutex_unlock(&hwp_classic_lock);
}

/* lowpc (caddr_t)-1 with highpc 0: the whole main program; lowpc -1 with
 * highpc != 0: highpc is an array of {p_low, p_high} pairs ended by
 * p_high 0. The data file is written at exit, or by monitor(0). */
HWPROF_API int monstartup(caddr_t lowpc, caddr_t highpc)
{
	static int registered;
	struct prof pr[MAX_RANGES];
	size_t n = 0, total = 0;
	HISTCOUNTER *buf;
	uint64_t lo, hi;
	int ret;

	if (lowpc == (caddr_t)-1 && !highpc) {
		if (hwp_gmon_main_text(&lo, &hi, NULL))
			return say("monstartup: cannot find the main program's text");
		pr[n++] = (struct prof){ .p_low = (caddr_t)(uintptr_t)lo,
					 .p_high = (caddr_t)(uintptr_t)hi };
	} else if (lowpc == (caddr_t)-1) {
		const caddr_t(*frag)[2] = (const caddr_t(*)[2])(void *)highpc;
		caddr_t pair[2];

		for (; n < MAX_RANGES - 1; n++) {
			if (hwp_user_read(pair, frag[n], sizeof(pair)))
				return say("monstartup: pair %zu of the array is not readable memory",
					   n);
			if (!pair[1])
				break;
			pr[n] = (struct prof){ .p_low = pair[0], .p_high = pair[1] };
		}
	} else {
		if (highpc <= lowpc)
			return say("monstartup: highpc is not above lowpc");
		pr[n++] = (struct prof){ .p_low = lowpc, .p_high = highpc };
	}
	if (!n)
		return say("monstartup: no range");
	for (size_t i = 0; i < n; i++) {
		if (pr[i].p_high <= pr[i].p_low)
			return say("monstartup: range %zu is empty", i);
		uint64_t range = (uint64_t)(uintptr_t)pr[i].p_high -
				 (uint64_t)(uintptr_t)pr[i].p_low;
		uint64_t want = NUM_HIST_COUNTERS(range);

		if (want > MAX_START_COUNTERS)
			want = MAX_START_COUNTERS;
		if (range / MAX_BIN_BYTES >= want)
			return say("monstartup: range %zu: %#llx bytes of text is too large (at most %#llx: %u counters of %u bytes)",
				   i, (unsigned long long)range,
				   (unsigned long long)MAX_START_COUNTERS * MAX_BIN_BYTES,
				   MAX_START_COUNTERS, MAX_BIN_BYTES);
		pr[i].p_bufsize = (int)want;
		total += (size_t)pr[i].p_bufsize;
	}
	buf = calloc(total, HIST_COUNTER_SIZE);
	if (!buf)
		return say("monstartup: out of memory");
	for (size_t i = 0, at = 0; i < n; i++) {
		pr[i].p_buff = buf + at;
		at += (size_t)pr[i].p_bufsize;
	}
	pr[n].p_high = 0;
	pthread_mutex_lock(&hwp_classic_lock);
	ret = setup((caddr_t)1, NULL, (HISTCOUNTER *)(void *)pr, -1, 0);
	if (!ret) {
		mon.owned = buf;
		if (!registered && !atexit(at_exit))
			registered = 1;
	} else {
		free(buf);
	}
	pthread_mutex_unlock(&hwp_classic_lock);
	return ret;
}
