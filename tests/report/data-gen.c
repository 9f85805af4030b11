/* SPDX-License-Identifier: MIT */
/*
 * Writes hwprof data files with known contents for hwprof report's tests,
 * through lib/profile/data-write.c (so they are what hwprof record writes):
 *   data-gen OUT < SPEC     one entry per line of SPEC:
 *     command TEXT
 *     event NAME PERIOD SAMPLES LOST THROTTLED MISSED WHY|-
 *     process PID PPID COMMAND
 *     thread TID PROC COMM|-
 *     object BUILDID|- PATH          (its size unknown)
 *     sobject BUILDID|- SIZE PATH    (its size SIZE bytes)
 *     s EVENT THREAD|- OBJECT|- ADDR(hex) COUNT   (THREAD -: a job file's)
 *     host NAME | rank RANK SIZE | program BUILDID|- PATH | psize BYTES
 *     procrank PROC RANK | prochost PROC NAME
 *     job SIZE TOP                 (a job file of libhwprof-mpi)
 *     rt PROC EVENT SAMPLES MPI | fr FUNC PROC COUNT
 *     f EVENT OBJECT|- ADDR(hex) SUM MIN MAX MAXRANK RANKS
 *   strings may hold \xNN and \\ (a control byte, a backslash)
 *   data-gen --big N OUT    N samples at distinct addresses no symbol covers
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/profile/data.h"

static char *unesc(char *s)
{
	char *o = s;

	if (!strcmp(s, "-"))
		return NULL;
	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] == 'x' && p[2] && p[3]) {
			char h[3] = { p[2], p[3], 0 };

			*o++ = (char)strtol(h, NULL, 16);
			p += 3;
		} else if (p[0] == '\\' && p[1] == '\\') {
			*o++ = '\\';
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
	return s;
}

static int bad(unsigned long n, const char *line)
{
	fprintf(stderr, "data-gen: line %lu: cannot use: %s\n", n, line);
	return 99;
}

static int write_out(const char *out, const struct hd_file *d)
{
	FILE *f = fopen(out, "w");

	if (!f || hd_write(f, d) || fclose(f)) {
		perror(out);
		return 99;
	}
	return 0;
}

static int big(unsigned long n, const char *out)
{
	struct hd_file d;
	int ret;

	hd_init(&d);
	d.command = strdup("big");
	if (hd_add_event(&d, "task-clock", 1000000) < 0 ||
	    hd_add_process(&d, 100, 0, "big") < 0 || hd_add_thread(&d, 100, 0, "big") < 0 ||
	    hd_object(&d, "/nonexistent/big.so", NULL, 0) < 0)
		return 99;
	d.events[0].samples = n;
	for (unsigned long i = 0; i < n; i++)
		if (hd_count(&d, 0, 0, i & 1 ? 0 : HD_NO_OBJECT, 0x10000 + 4 * (uint64_t)i,
			     1 + i % 7))
			return 99;
	ret = write_out(out, &d);
	hd_free(&d);
	return ret;
}

int main(int argc, char **argv)
{
	char *line = NULL, kw[32];
	unsigned long lineno = 0;
	size_t cap = 0;
	struct hd_file d;
	int ret;

	if (argc == 4 && !strcmp(argv[1], "--big"))
		return big(strtoul(argv[2], NULL, 0), argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: data-gen OUT < SPEC | data-gen --big N OUT\n");
		return 99;
	}
	hd_init(&d);
	while (getline(&line, &cap, stdin) > 0) {
		int used = 0;

		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (!*line || *line == '#')
			continue;
		if (sscanf(line, "%31s %n", kw, &used) != 1)
			return bad(lineno, line);
		if (!strcmp(kw, "command")) {
			free(d.command);
			d.command = strdup(unesc(line + used));
		} else if (!strcmp(kw, "event")) {
			unsigned long long p, s, l, t, m;
			char name[256], why[256];
			long k;

			if (sscanf(line + used, "%255s %llu %llu %llu %llu %llu %255s", name,
				   &p, &s, &l, &t, &m, why) != 7 ||
			    (k = hd_add_event(&d, unesc(name), p)) < 0)
				return bad(lineno, line);
			d.events[k].samples = s;
			d.events[k].lost = l;
			d.events[k].throttled = t;
			d.events[k].missed = m;
			if (strcmp(why, "-"))
				d.events[k].missed_why = strdup(unesc(why));
		} else if (!strcmp(kw, "process")) {
			int pid, ppid, n = 0;

			if (sscanf(line + used, "%d %d %n", &pid, &ppid, &n) != 2 || !n ||
			    hd_add_process(&d, pid, ppid, unesc(line + used + n)) < 0)
				return bad(lineno, line);
		} else if (!strcmp(kw, "thread")) {
			int tid, n = 0;
			unsigned int proc;

			if (sscanf(line + used, "%d %u %n", &tid, &proc, &n) != 2 || !n ||
			    proc >= d.nprocs ||
			    hd_add_thread(&d, tid, proc, unesc(line + used + n)) < 0)
				return bad(lineno, line);
		} else if (!strcmp(kw, "object")) {
			char bid[200];
			int n = 0;

			if (sscanf(line + used, "%199s %n", bid, &n) != 1 || !n ||
			    hd_object(&d, unesc(line + used + n), unesc(bid), 0) < 0)
				return bad(lineno, line);
		} else if (!strcmp(kw, "sobject")) {
			unsigned long long size;
			char bid[200];
			int n = 0;

			if (sscanf(line + used, "%199s %llu %n", bid, &size, &n) != 2 || !n ||
			    hd_object(&d, unesc(line + used + n), unesc(bid), size) < 0)
				return bad(lineno, line);
		} else if (!strcmp(kw, "psize")) {
			if (sscanf(line + used, "%" SCNu64, &d.program_size) != 1)
				return bad(lineno, line);
		} else if (!strcmp(kw, "s")) {
			unsigned int e, t;
			char o[32], ts[32];
			unsigned long long a, c;
			uint32_t obj;

			if (sscanf(line + used, "%u %31s %31s %llx %llu", &e, ts, o, &a, &c) !=
				    5 ||
			    e >= d.nevents)
				return bad(lineno, line);
			t = strcmp(ts, "-") ? (unsigned int)strtoul(ts, NULL, 10) :
					      HD_NO_THREAD;
			if (t != HD_NO_THREAD && t >= d.nthreads)
				return bad(lineno, line);
			obj = strcmp(o, "-") ? (uint32_t)strtoul(o, NULL, 10) : HD_NO_OBJECT;
			if ((obj != HD_NO_OBJECT && obj >= d.nobjects) ||
			    hd_count(&d, e, t, obj, a, c))
				return bad(lineno, line);
		} else if (!strcmp(kw, "host")) {
			free(d.host);
			d.host = strdup(unesc(line + used));
		} else if (!strcmp(kw, "rank")) {
			if (sscanf(line + used, "%d %d", &d.rank, &d.size) != 2)
				return bad(lineno, line);
		} else if (!strcmp(kw, "job")) {
			if (sscanf(line + used, "%d %u", &d.size, &d.top) != 2)
				return bad(lineno, line);
			d.job = 1;
		} else if (!strcmp(kw, "program")) {
			char bid[200];
			int n = 0;

			if (sscanf(line + used, "%199s %n", bid, &n) != 1 || !n)
				return bad(lineno, line);
			d.program_id = unesc(bid) ? strdup(bid) : NULL;
			d.program = strdup(unesc(line + used + n));
		} else if (!strcmp(kw, "procrank") || !strcmp(kw, "prochost")) {
			unsigned int p;
			int r, n = 0;

			if (sscanf(line + used, "%u %n", &p, &n) != 1 || !n || p >= d.nprocs)
				return bad(lineno, line);
			if (kw[4] == 'h') {
				d.procs[p].host = strdup(unesc(line + used + n));
			} else {
				if (sscanf(line + used + n, "%d", &r) != 1)
					return bad(lineno, line);
				d.procs[p].rank = r;
			}
		} else if (!strcmp(kw, "rt")) {
			struct hd_rtotal t;
			unsigned long long a, b;

			if (sscanf(line + used, "%u %u %llu %llu", &t.proc, &t.event, &a,
				   &b) != 4 ||
			    t.proc >= d.nprocs || t.event >= d.nevents)
				return bad(lineno, line);
			t.samples = a;
			t.mpi = b;
			if (hd_add_rtotal(&d, &t))
				return bad(lineno, line);
		} else if (!strcmp(kw, "f")) {
			struct hd_func f;
			unsigned long long a, sum, mn, mx;
			char o[32];

			if (sscanf(line + used, "%u %31s %llx %llu %llu %llu %d %u", &f.event,
				   o, &a, &sum, &mn, &mx, &f.maxrank, &f.ranks) != 8 ||
			    f.event >= d.nevents)
				return bad(lineno, line);
			f.object = strcmp(o, "-") ? (uint32_t)strtoul(o, NULL, 10) :
						    HD_NO_OBJECT;
			if (f.object != HD_NO_OBJECT && f.object >= d.nobjects)
				return bad(lineno, line);
			f.addr = a;
			f.sum = sum;
			f.min = mn;
			f.max = mx;
			if (hd_add_func(&d, &f))
				return bad(lineno, line);
		} else if (!strcmp(kw, "fr")) {
			unsigned int fn, p;
			unsigned long long c;

			if (sscanf(line + used, "%u %u %llu", &fn, &p, &c) != 3 ||
			    fn >= d.nfuncs || p >= d.nprocs || hd_add_fcount(&d, fn, p, c))
				return bad(lineno, line);
		} else {
			return bad(lineno, line);
		}
	}
	free(line);
	ret = write_out(argv[1], &d);
	hd_free(&d);
	return ret;
}
