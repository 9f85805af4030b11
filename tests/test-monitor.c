/* SPDX-License-Identifier: MIT */
/*
 * AIX monitor/monstartup/moncontrol: gprof reads the gmon.out and names
 * the hot function first; exact counts on page faults (one per fresh page,
 * at the storing instruction), above 65535 too; multi-range with the
 * function-count space reserved; errors.
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

/* Page faults: the raw probe, where the stores are, the stack faulted in. */
static uintptr_t store_a;

static int need_pf(void)
{
	int r = t_require_pf();

	if (r)
		return r;
	store_a = (uintptr_t)t_store_pc(touch_a);
	t_prefault_stack();
	return T_PASS;
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

/* Reads the records: number of TIME_HIST records, the sum of bin at and of
 * every bin. */
static int read_gmon(size_t at, int *records, uint64_t *bin0, uint64_t *total)
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
			if ((size_t)i == at)
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
		exit(0); /* writes gmon.out */
	}
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child %#x", status);
	gprof_first(self, first, sizeof(first));
	T_CHECK(!strcmp(first, "spin_hot"), "gprof's first function: '%s'", first);
	return t_done("monstartup");
}

/* Page faults: exactly n in the bin of touch_a's store, also past 65535
 * (the caller's counter stops at 65535, the file carries the rest in
 * another record): 70000 faults from a pool of pages zapped as it runs. */
static int case_exact(void)
{
	static const int ns[] = { 1000, 70000 };
	HISTCOUNTER buf[40];
	struct t_pages pool;
	size_t at;
	int r = need_pf();

	if (r || (r = t_pages_new(&pool, 4096)))
		return r;
	at = (store_a - (uintptr_t)touch_a) / 2; /* 64 bytes, 32 bins */
	if (at >= 32) {
		printf("ERROR: touch_a's store at +%zu\n", store_a - (uintptr_t)touch_a);
		return T_ERROR;
	}
	use("page-faults", "1");
	_mondata.prof_type = _PROF_TYPE_IS_NONE; /* nothing set it: -p */
	for (int k = 0; k < 2; k++) {
		uint64_t bin, total;
		int records;

		t_pages_zap(&pool);
		/* 8 HISTCOUNTERs of function-count space, 32 of histogram */
		T_EQ(monitor((caddr_t)touch_a, (caddr_t)touch_a + 64, buf, 40, 1), 0);
		t_touch_n(touch_a, &pool, (size_t)ns[k]);
		T_EQ(monitor((caddr_t)0), 0);
		T_CHECK(buf[8 + at] == (ns[k] > 65535 ? 65535 : ns[k]), "n %d: counter %u",
			ns[k], buf[8 + at]);
		for (size_t i = 8; i < 40; i++)
			if (i != 8 + at)
				T_CHECK(buf[i] == 0, "n %d: counter %zu = %u", ns[k], i,
					buf[i]);
		T_EQ(read_gmon(at, &records, &bin, &total), 0);
		T_EQ(bin, ns[k]);
		T_EQ(total, ns[k]);
		T_EQ(records, ns[k] > 65535 ? 2 : 1);
	}
	t_pages_free(&pool);
	return t_done("exact");
}

/* Two ranges in one contiguous buffer, [lo, lo + 64) and [hi, hi + 64)
 * for the two functions lo < hi (64 bytes each: one bin width, whatever
 * the distance between them); moncontrol pauses and resumes. Only touch_b
 * faults: one counter, in touch_b's range, holds them all. */
static int case_multi(void)
{
	HISTCOUNTER buf[16 + 32 + 32];
	caddr_t a = (caddr_t)touch_a, b = (caddr_t)touch_b;
	caddr_t lo = a < b ? a : b, hi = a < b ? b : a;
	struct prof pb[3] = {
		{ .p_low = lo,
		  .p_high = hi - lo < 64 ? hi : lo + 64,
		  .p_buff = buf,
		  .p_bufsize = 16 + 32 },
		{ .p_low = hi, .p_high = hi + 64, .p_buff = buf + 48, .p_bufsize = 32 },
		{ .p_high = 0 },
	};
	/* touch_b's range: the second when it is hi, else the first */
	int from = b == hi ? 48 : 16, to = b == hi ? 80 : 48, nonzero = 0;
	struct t_pages pool;
	int r = need_pf();

	if (r || (r = t_pages_new(&pool, 400)))
		return r;
	use("page-faults", "1");
	_mondata.prof_type = _PROF_TYPE_IS_P;
	memset(buf, 0xff, sizeof(buf));
	/* 2 poutcnt records reserved: 16 bytes each = 16 HISTCOUNTERs */
	T_EQ(monitor((caddr_t)1, (caddr_t)1, (HISTCOUNTER *)(void *)pb, -1, 2), 0);
	t_touch_n(touch_b, &pool, 300);
	T_EQ(moncontrol(0), 0);
	t_touch_n(touch_b, &pool, 50); /* paused: not counted */
	T_EQ(moncontrol(1), 0);
	t_touch_n(touch_b, &pool, 20);
	T_EQ(monitor((caddr_t)0), 0);
	for (int i = 16; i < 80; i++) {
		if (!buf[i])
			continue;
		nonzero++;
		T_CHECK(i >= from && i < to && buf[i] == 320,
			"counter %d = %u (touch_b's range: %d to %d, want one counter of 320)",
			i, buf[i], from, to - 1);
	}
	T_EQ(nonzero, 1);
	T_EQ(buf[0], 0xffff); /* the reserved space is untouched */
	T_EQ(buf[15], 0xffff);
	t_pages_free(&pool);
	return t_done("multi");
}

/* Two adjacent ranges, the first not a whole number of bins long: its
 * last bin reaches into the second range, whose own bins take the pcs
 * there (monitor() refused such ranges with EINVAL before). */
static int case_adjacent(void)
{
	HISTCOUNTER buf[16 + 32 + 32];
	uintptr_t pc = (uintptr_t)touch_b;
	caddr_t b = (caddr_t)pc, lo = (caddr_t)(pc - 530);
	struct prof pb[3] = {
		{ .p_low = lo, .p_high = b, .p_buff = buf, .p_bufsize = 16 + 32 },
		{ .p_low = b, .p_high = b + 64, .p_buff = buf + 48, .p_bufsize = 32 },
		{ .p_high = 0 },
	};
	struct t_pages pool;
	int r = need_pf(), nonzero = 0;

	if (r || (r = t_pages_new(&pool, 200)))
		return r;
	use("page-faults", "1");
	_mondata.prof_type = _PROF_TYPE_IS_P;
	memset(buf, 0, sizeof(buf));
	T_EQ(monitor((caddr_t)1, (caddr_t)1, (HISTCOUNTER *)(void *)pb, -1, 2), 0);
	t_touch_n(touch_b, &pool, 150);
	T_EQ(monitor((caddr_t)0), 0);
	for (int i = 16; i < 80; i++) {
		if (!buf[i])
			continue;
		nonzero++;
		T_CHECK(i >= 48 && buf[i] == 150,
			"counter %d = %u (touch_b's range starts at counter 48, want 150)", i,
			buf[i]);
	}
	T_EQ(nonzero, 1);
	t_pages_free(&pool);
	return t_done("adjacent");
}

static int case_errors(void)
{
	HISTCOUNTER buf[32];
	struct prof bad[3] = {
		{ .p_low = (caddr_t)0x2000,
		  .p_high = (caddr_t)0x3000,
		  .p_buff = buf,
		  .p_bufsize = 16 },
		{ .p_low = (caddr_t)0x1000,
		  .p_high = (caddr_t)0x1800,
		  .p_buff = buf + 16,
		  .p_bufsize = 16 },
		{ .p_high = 0 },
	};

	use("task-clock", "1000000");
	T_EQ(monitor((caddr_t)0), -1); /* nothing started */
	T_EQ(moncontrol(1), -1);
	_mondata.prof_type = 5;
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, buf, 32, 0), -1);
	_mondata.prof_type = _PROF_TYPE_IS_P;
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a, buf, 32, 0), -1);	    /* empty */
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, buf, 32, 100), -1); /* no room */
	T_EQ(monitor((caddr_t)fn_a, (caddr_t)fn_a + 64, (HISTCOUNTER *)(uintptr_t) "ro", 32,
		     0),
	     -1);
	T_EQ(monitor((caddr_t)1, (caddr_t)1, (HISTCOUNTER *)(void *)bad, -1, 0),
	     -1); /* not ascending */
	bad[1].p_low = (caddr_t)0x4000;
	bad[1].p_high = (caddr_t)0x5000;
	bad[1].p_buff = buf + 20;
	T_EQ(monitor((caddr_t)1, (caddr_t)1, (HISTCOUNTER *)(void *)bad, -1, 0),
	     -1); /* not contiguous */
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
	if (!strcmp(c, "adjacent"))
		return case_adjacent();
	if (!strcmp(c, "errors"))
		return case_errors();
	printf("usage: test-monitor CASE\n");
	return T_ERROR;
}
