/* SPDX-License-Identifier: MIT */
/*
 * AIX monitor/monstartup/moncontrol: gprof reads the gmon.out and names
 * the hot function first; exact counts on a breakpoint event, above 65535
 * too; multi-range with the function-count space reserved; errors.
 * usage: test-monitor CASE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwprof.h>
#include <hwprof/mon.h>
#include "harness.h"
#include "tlib.h"


extern char __executable_start, etext;
static char out[4096];

static void use(const char *event, const char *period)
{
	setenv("HWPROF_EVENT", event, 1);
	setenv("HWPROF_PERIOD", period, 1);
}

static int need_bp(void)
{
	return t_require_bp();
}

/* The first function of gprof's flat profile, or "". */
static void gprof_first(const char *self, char *name, size_t len)
{
	char cmd[9000], line[512];
	FILE *p;
	int rows = 0;

	name[0] = 0;
	snprintf(cmd, sizeof(cmd), "gprof -b -p '%s' '%s' 2>&1", self, out);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		char *last = strrchr(line, ' ');

		printf("gprof: %s", line);
		/* rows start with a percentage: "%time cumulative self ... name" */
		if (!rows && strchr("0123456789", line[strspn(line, " ")]) && last) {
			snprintf(name, len, "%s", last + 1);
			name[strcspn(name, "\n")] = 0;
			rows++;
		}
	}
	if (p)
		pclose(p);
}

/* Reads the records: number of TIME_HIST records and the sum of bin 0. */
static int read_gmon(int *records, uint64_t *bin0, uint64_t *total)
{
	FILE *f = fopen(out, "rb");
	unsigned char hdr[20];
	int ret = -1;

	*records = 0;
	*bin0 = *total = 0;
	if (!f || fread(hdr, 1, 20, f) != 20 || memcmp(hdr, "gmon", 4))
		goto done;
	for (;;) {
		unsigned char tag;
		uint64_t lo, hi;
		int32_t n, rate;
		char dimen[16];

		if (fread(&tag, 1, 1, f) != 1) {
			ret = 0;
			break;
		}
		if (tag != 0 || fread(&lo, 8, 1, f) != 1 || fread(&hi, 8, 1, f) != 1 ||
		    fread(&n, 4, 1, f) != 1 || fread(&rate, 4, 1, f) != 1 ||
		    fread(dimen, 16, 1, f) != 1)
			break;
		for (int32_t i = 0; i < n; i++) {
			uint16_t v;

			if (fread(&v, 2, 1, f) != 1)
				goto done;
			if (!i)
				*bin0 += v;
			*total += v;
		}
		(*records)++;
	}
done:
	if (f)
		fclose(f);
	return ret;
}

/* task-clock over the whole text: gprof names spin_hot first. */
static int case_gprof(const char *self)
{
	size_t range = (size_t)(&etext - &__executable_start);
	int size = (int)NUM_HIST_COUNTERS(range) + 64;
	HISTCOUNTER *buf = calloc((size_t)size, sizeof(*buf));
	volatile uint64_t sink;
	char first[256];

	use("task-clock", "100000");
	_mondata.prof_type = _PROF_TYPE_IS_P;
	T_EQ(monitor(&__executable_start, &etext, buf, size, 8), 0);
	sink = spin_hot(150000000) + spin_cold(15000000);
	T_EQ(monitor((caddr_t)0), 0);
	(void)sink;
	gprof_first(self, first, sizeof(first));
	T_CHECK(!strcmp(first, "spin_hot"), "gprof's first function: '%s'", first);
	free(buf);
	return t_done("gprof");
}

/* monstartup over the whole program; the file is written at exit. */
static int case_monstartup(const char *self)
{
	char first[256];
	int status = 0;
	pid_t pid;

	use("task-clock", "100000");
	unlink(out);
	pid = fork();
	if (pid == 0) {
		volatile uint64_t sink;

		if (monstartup((caddr_t)-1, (caddr_t)0))
			_exit(3);
		sink = spin_hot(150000000);
		(void)sink;
		exit(0);		/* writes gmon.out */
	}
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child %#x", status);
	gprof_first(self, first, sizeof(first));
	T_CHECK(!strcmp(first, "spin_hot"), "gprof's first function: '%s'", first);
	return t_done("monstartup");
}

/* A breakpoint: exactly n in fn_a's bin, also past 65535 (the caller's
 * counter stops at 65535, the file carries the rest in another record). */
static int case_exact(void)
{
	static const int ns[] = { 1000, 70000 };
	HISTCOUNTER buf[40];
	int r = need_bp();

	if (r)
		return r;
	use("mem:fn_a:x", "1");
	_mondata.prof_type = _PROF_TYPE_IS_NONE;	/* nothing set it: -p */
	for (int k = 0; k < 2; k++) {
		uint64_t bin0, total;
		int records;

		/* 8 HISTCOUNTERs of function-count space, 32 of histogram */
		T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, buf, 40, 1), 0);
		for (int i = 0; i < ns[k]; i++)
			fn_a();
		T_EQ(monitor((caddr_t)0), 0);
		T_CHECK(buf[8] == (ns[k] > 65535 ? 65535 : ns[k]), "n %d: counter %u",
			ns[k], buf[8]);
		T_EQ(read_gmon(&records, &bin0, &total), 0);
		T_EQ(bin0, ns[k]);
		T_EQ(total, ns[k]);
		T_EQ(records, ns[k] > 65535 ? 2 : 1);
	}
	return t_done("exact");
}

/* Two ranges in one contiguous buffer, [lo, hi) and [hi, hi + 64) for the
 * two functions lo < hi; moncontrol pauses and resumes. */
static int case_multi(void)
{
	HISTCOUNTER buf[16 + 32 + 32];
	caddr_t a = (caddr_t)fn_a, b = (caddr_t)fn_b;
	caddr_t lo = a < b ? a : b, hi = a < b ? b : a;
	struct prof pb[3] = {
		{ .p_low = lo, .p_high = hi, .p_buff = buf, .p_bufsize = 16 + 32 },
		{ .p_low = hi, .p_high = hi + 64, .p_buff = buf + 48, .p_bufsize = 32 },
		{ .p_high = 0 },
	};
	/* fn_b's bin 0: the first of range 2 when it is hi, else of range 1 */
	int at = b == hi ? 48 : 16, other = b == hi ? 16 : 48;
	int r = need_bp();

	if (r)
		return r;
	use("mem:fn_b:x", "1");
	_mondata.prof_type = _PROF_TYPE_IS_P;
	memset(buf, 0xff, sizeof(buf));
	/* 2 poutcnt records reserved: 16 bytes each = 16 HISTCOUNTERs */
	T_EQ(monitor((caddr_t)1, (caddr_t)1, (HISTCOUNTER *)(void *)pb, -1, 2), 0);
	for (int i = 0; i < 300; i++)
		fn_b();
	T_EQ(moncontrol(0), 0);
	for (int i = 0; i < 50; i++)
		fn_b();				/* paused: not counted */
	T_EQ(moncontrol(1), 0);
	for (int i = 0; i < 20; i++)
		fn_b();
	T_EQ(monitor((caddr_t)0), 0);
	T_CHECK(buf[at] == 320, "fn_b's bin: %u", buf[at]);
	T_EQ(buf[other], 0);
	T_EQ(buf[0], 0xffff);			/* the reserved space is untouched */
	T_EQ(buf[15], 0xffff);
	return t_done("multi");
}

static int case_errors(void)
{
	HISTCOUNTER buf[32];
	struct prof bad[3] = {
		{ .p_low = (caddr_t)0x2000, .p_high = (caddr_t)0x3000, .p_buff = buf,
		  .p_bufsize = 16 },
		{ .p_low = (caddr_t)0x1000, .p_high = (caddr_t)0x1800, .p_buff = buf + 16,
		  .p_bufsize = 16 },
		{ .p_high = 0 },
	};

	use("task-clock", "1000000");
	T_EQ(monitor((caddr_t)0), -1);			/* nothing started */
	T_EQ(moncontrol(1), -1);
	_mondata.prof_type = 5;
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, buf, 32, 0), -1);
	_mondata.prof_type = _PROF_TYPE_IS_P;
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a, buf, 32, 0), -1);	/* empty */
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, buf, 32, 100), -1);	/* no room */
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, (HISTCOUNTER *)(uintptr_t)"ro", 32, 0), -1);
	T_EQ(monitor((caddr_t)1, (caddr_t)1, (HISTCOUNTER *)(void *)bad, -1, 0), -1);	/* not ascending */
	bad[1].p_low = (caddr_t)0x4000;
	bad[1].p_high = (caddr_t)0x5000;
	bad[1].p_buff = buf + 20;
	T_EQ(monitor((caddr_t)1, (caddr_t)1, (HISTCOUNTER *)(void *)bad, -1, 0), -1);	/* not contiguous */
	setenv("HWPROF_PERIOD", "x", 1);
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, buf, 32, 0), -1);
	return t_done("errors");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	const char *dir = getenv("HWPROF_TEST_TMP");

	setvbuf(stdout, NULL, _IONBF, 0);
	snprintf(out, sizeof(out), "%s/gmon-%s.out", dir ? dir : "/tmp", c);
	setenv("HWPROF_GMON_OUT", out, 1);
	if (!strcmp(c, "gprof"))
		return case_gprof(argv[0]);
	if (!strcmp(c, "monstartup"))
		return case_monstartup(argv[0]);
	if (!strcmp(c, "exact"))
		return case_exact();
	if (!strcmp(c, "multi"))
		return case_multi();
	if (!strcmp(c, "errors"))
		return case_errors();
	printf("usage: test-monitor CASE\n");
	return T_ERROR;
}
