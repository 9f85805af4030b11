/* SPDX-License-Identifier: MIT */
/*
 * The data file module of the profile library (lib/profile/data*.c): a version 2
 * round trip with every field and awkward strings, a version 1 file read
 * into the same model, a job file and version 4's call paths, kept
 * names and losses (checkpoint, side band, processes unseen) round trip, counting that merges
 * equal keys, and malformed files refused with one line naming the file and the line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "../lib/profile/data.h"

static char dir[] = "/tmp/hwprof-test-data-XXXXXX";

static const char *put(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		exit(T_ERROR);
	fputs(text, f);
	fclose(f);
	return path;
}

static void round_trip(void)
{
	struct hd_file d, r;
	char err[512], path[256];
	FILE *f;
	long p, t, o;

	hd_init(&d);
	d.host = strdup("node 7");
	d.rank = 3;
	d.size = 8;
	d.command = strdup("python3 -c 'print(1)\nprint(2)'\t\\x");
	T_EQ(hd_add_event(&d, "task-clock", 1000000), 0);
	d.events[0].samples = 10;
	d.events[0].lost = 2;
	d.events[0].throttled = 1;
	d.events[0].missed = 5;
	d.events[0].missed_why = strdup("mlock budget");
	T_EQ(hd_add_event(&d, "mem:foo:x", 1), 1);
	p = hd_add_process(&d, 4242, 0, "./a b");
	T_EQ(p, 0);
	d.procs[0].how = HD_SIGNALED;
	d.procs[0].status = 9;
	d.procs[0].rank = 3;
	T_EQ(hd_add_process(&d, 4243, 4242, "-"), 1);
	d.procs[1].how = HD_EXITED;
	d.procs[1].status = 3;
	T_EQ(hd_add_process(&d, 4245, 4242, "true"), 2);
	d.procs[2].how = HD_ENDED;			    /* its status went to its parent */
	T_EQ(hd_add_process(&d, 4246, 4242, "sleep 1"), 3); /* HD_RUNNING */
	t = hd_add_thread(&d, 4242, 0, "main thread");
	T_EQ(t, 0);
	T_EQ(hd_add_thread(&d, 4244, 1, NULL), 1);
	o = hd_object(&d, "/usr/lib/x 1.so", "abcd", 0);
	T_EQ(o, 0);
	/* found again, its size now known */
	T_EQ(hd_object(&d, "/usr/lib/x 1.so", "abcd", 4096), 0);
	T_EQ(d.objects[0].size, 4096);
	T_EQ(hd_object(&d, "/usr/lib/x 1.so", NULL, 4096), 1); /* other identity */
	/* no build-id: the path's file of that size, an unknown size any */
	T_EQ(hd_object(&d, "/usr/lib/x 1.so", NULL, 8192), 2);
	T_EQ(hd_object(&d, "/usr/lib/x 1.so", NULL, 0), 1);
	T_EQ(hd_object(&d, "/usr/lib/x 1.so", NULL, 8192), 2);
	T_EQ(hd_object(&d, "[vdso]", NULL, 0), 3);
	for (int i = 0; i < 5000; i++)
		T_EQ(hd_count(&d, (uint32_t)(i & 1), (uint32_t)(i % 2), 0,
			      0x1000 + (uint64_t)(i % 1000) * 4, 1),
		     0);
	T_EQ(d.nsamples, 1000);
	T_EQ(hd_count(&d, 0, 0, HD_NO_OBJECT, 0xffffffffff600000ull, UINT64_MAX), 0);
	T_EQ(hd_count(&d, 0, 0, HD_NO_OBJECT, 0xffffffffff600000ull, 5), 0);

	snprintf(path, sizeof(path), "%s/rt", dir);
	f = fopen(path, "w");
	T_EQ(hd_write(f, &d), 0);
	fclose(f);
	T_EQ(hd_read(path, &r, err, sizeof(err)), 0);
	T_EQ(r.nprocs, 4);
	if (r.nevents == 2 && r.nprocs == 4 && r.nthreads == 2 && r.nobjects == 4) {
		T_EQ(r.version, 3); /* no call paths */
		T_CHECK(!strcmp(r.host, "node 7"), "host '%s'", r.host);
		T_EQ(r.rank, 3);
		T_EQ(r.size, 8);
		T_CHECK(!strcmp(r.command, d.command), "command '%s'", r.command);
		T_CHECK(!strcmp(r.events[0].name, "task-clock"), "%s", r.events[0].name);
		T_EQ(r.events[0].period, 1000000);
		T_EQ(r.events[0].samples, 10);
		T_EQ(r.events[0].lost, 2);
		T_EQ(r.events[0].throttled, 1);
		T_EQ(r.events[0].missed, 5);
		T_CHECK(r.events[0].missed_why &&
				!strcmp(r.events[0].missed_why, "mlock budget"),
			"why");
		T_CHECK(!r.events[1].missed_why, "no why");
		T_CHECK(!strcmp(r.events[1].name, "mem:foo:x"), "%s", r.events[1].name);
		T_EQ(r.procs[0].pid, 4242);
		T_EQ(r.procs[0].how, HD_SIGNALED);
		T_EQ(r.procs[0].status, 9);
		T_EQ(r.procs[0].rank, 3);
		T_CHECK(!strcmp(r.procs[1].command, "-"), "'%s'", r.procs[1].command);
		T_EQ(r.procs[1].ppid, 4242);
		T_EQ(r.procs[1].how, HD_EXITED);
		T_EQ(r.procs[1].status, 3);
		T_EQ(r.procs[2].how, HD_ENDED);
		T_EQ(r.procs[3].how, HD_RUNNING);
		T_CHECK(!strcmp(r.procs[3].command, "sleep 1"), "'%s'", r.procs[3].command);
		T_CHECK(!strcmp(r.threads[0].comm, "main thread"), "comm");
		T_CHECK(!r.threads[1].comm, "no comm");
		T_EQ(r.threads[1].proc, 1);
		T_CHECK(!strcmp(r.objects[0].path, "/usr/lib/x 1.so"), "path");
		T_CHECK(!strcmp(r.objects[0].buildid, "abcd"), "bid");
		T_CHECK(!r.objects[1].buildid, "no bid");
		T_EQ(r.objects[0].size, 4096);
		T_EQ(r.objects[1].size, 4096);
		T_EQ(r.objects[2].size, 8192);
		T_EQ(r.objects[3].size, 0); /* "-" */
		T_EQ(r.nsamples, d.nsamples);
		for (size_t i = 0; i < r.nsamples && i < d.nsamples; i++) {
			T_EQ(r.samples[i].event, d.samples[i].event);
			T_EQ(r.samples[i].thread, d.samples[i].thread);
			T_EQ(r.samples[i].object, d.samples[i].object);
			T_EQ(r.samples[i].addr, d.samples[i].addr);
			T_EQ(r.samples[i].count, d.samples[i].count);
		}
		/* counts saturate, never wrap */
		T_EQ(r.samples[r.nsamples - 1].count, UINT64_MAX);
	} else {
		T_CHECK(0, "read back %zu events %zu procs %zu threads %zu objects", r.nevents,
			r.nprocs, r.nthreads, r.nobjects);
	}
	hd_free(&r);
	hd_free(&d);
}

static void version1(void)
{
	struct hd_file r;
	char err[512];
	const char *p =
		put("v1",
		    "hwprof-data 1\ncommand ./demo x\npid 4242\nbucket-bytes 8\n"
		    "event 0 1000000 583 1 2 583 0 0 0 1 task-clock\n"
		    "object 0 0x55e0c3a01000 0x55e0c3a014cd 0x55e0c3a00000 4915f1 1 2 /home/u/demo\n"
		    "137 300\n140 215\nend\n");

	T_EQ(hd_read(p, &r, err, sizeof(err)), 0);
	T_CHECK(!*err, "%s", err);
	T_EQ(r.version, 1);
	T_EQ(r.nevents, 1);
	T_EQ(r.nsamples, 2);
	T_EQ(r.nprocs, 1);
	T_EQ(r.nthreads, 1);
	if (r.nsamples == 2 && r.nevents == 1 && r.nprocs == 1) {
		T_CHECK(!strcmp(r.events[0].name, "task-clock"), "'%s'", r.events[0].name);
		T_EQ(r.events[0].samples, 583);
		T_EQ(r.events[0].lost, 1);
		T_EQ(r.events[0].throttled, 2);
		T_EQ(r.procs[0].pid, 4242);
		T_CHECK(!strcmp(r.command, "./demo x"), "'%s'", r.command);
		T_CHECK(!strcmp(r.objects[0].path, "/home/u/demo"), "path");
		T_CHECK(!strcmp(r.objects[0].buildid, "4915f1"), "bid");
		/* file address = start - base + K * 8 */
		T_EQ(r.samples[0].addr, 0x1000 + 137 * 8);
		T_EQ(r.samples[0].count, 300);
		T_EQ(r.samples[1].addr, 0x1000 + 140 * 8);
	}
	hd_free(&r);
}

/* Version 3: the program line, and a job file of libhwprof-mpi (samples
 * summed over ranks, per-rank totals, function spreads, top counts). */
static void job_round_trip(void)
{
	struct hd_file d, r;
	struct hd_func fn = { 0, 0, 0x1130, 100, 10, 40, 3, 4 };
	struct hd_func fx = { 0, HD_NO_OBJECT, 0x7f0000001000, 2, 0, 2, 1, 1 };
	struct hd_rtotal rt = { 2, 0, 31, 7 };
	char path[300], err[512];
	FILE *f;

	hd_init(&d);
	d.job = 1;
	d.size = 4;
	d.top = 1;
	d.program = strdup("/opt/app bin/ring");
	d.program_id = strdup("feed");
	d.program_size = 123456;
	T_EQ(hd_add_event(&d, "page-faults", 1), 0);
	for (int i = 0; i < 4; i++) {
		T_EQ(hd_add_process(&d, 100 + i, 0, "./ring 4"), i);
		d.procs[i].rank = i;
	}
	T_EQ(hd_object(&d, "/opt/app bin/ring", "feed", 123456), 0);
	T_EQ(hd_count(&d, 0, HD_NO_THREAD, 0, 0x1134, 100), 0);
	T_EQ(hd_add_func(&d, &fn), 0);
	T_EQ(hd_add_func(&d, &fx), 0);
	for (uint32_t i = 0; i < 4; i++)
		T_EQ(hd_add_fcount(&d, 0, i, 10 * (i + 1)), 0);
	T_EQ(hd_add_rtotal(&d, &rt), 0);
	snprintf(path, sizeof(path), "%s/job", dir);
	f = fopen(path, "w");
	T_EQ(hd_write(f, &d), 0);
	fclose(f);
	T_EQ(hd_read(path, &r, err, sizeof(err)), 0);
	T_CHECK(!*err, "%s", err);
	T_EQ(r.version, 3); /* no call paths: what 0.2 reads */
	T_EQ(r.job, 1);
	T_EQ(r.size, 4);
	T_EQ(r.rank, -1);
	T_EQ(r.top, 1);
	T_CHECK(r.program && !strcmp(r.program, "/opt/app bin/ring"), "program");
	T_CHECK(r.program_id && !strcmp(r.program_id, "feed"), "program id");
	T_EQ(r.program_size, 123456);
	T_EQ(r.nsamples, 1);
	T_EQ(r.nfuncs, 2);
	T_EQ(r.nfcounts, 4);
	T_EQ(r.nrtotals, 1);
	if (r.nsamples == 1 && r.nfuncs == 2 && r.nfcounts == 4 && r.nrtotals == 1) {
		T_EQ(r.samples[0].thread, HD_NO_THREAD);
		T_EQ(r.samples[0].count, 100);
		T_CHECK(!memcmp(&r.funcs[0], &fn, sizeof(fn)), "func 0");
		T_CHECK(!memcmp(&r.funcs[1], &fx, sizeof(fx)), "func 1");
		T_EQ(r.fcounts[3].proc, 3);
		T_EQ(r.fcounts[3].count, 40);
		T_CHECK(!memcmp(&r.rtotals[0], &rt, sizeof(rt)), "rt");
	}
	hd_free(&r);
	hd_free(&d);
	T_EQ(hd_object_is_mpi("/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4"), 1);
	T_EQ(hd_object_is_mpi(
		     "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so"),
	     1);
	T_EQ(hd_object_is_mpi("libopen-pal.so.40"), 1);
	T_EQ(hd_object_is_mpi("/usr/lib/x86_64-linux-gnu/libc.so.6"), 0);
	T_EQ(hd_object_is_mpi("/home/u/mpiapp"), 0);
	T_EQ(hd_object_is_mpi(NULL), 0);
}

/* A job file's wall clock in MPI (mt, ms, msr): written as version 4,
 * read back the same; a site of no object at address 0. */
/* Version 4: a job file's threads (thread lines, tt lines with each
 * one's samples), read back as written. */
static void job_threads_round_trip(void)
{
	struct hd_file d, r;
	struct hd_ttotal tt[3] = { { 0, 0, 400 }, { 1, 0, 12 }, { 2, 0, 399 } };
	char path[300], err[512];
	FILE *f;

	hd_init(&d);
	d.job = 1;
	d.size = 2;
	T_EQ(hd_add_event(&d, "page-faults", 1), 0);
	for (int i = 0; i < 2; i++) {
		T_EQ(hd_add_process(&d, 100 + i, 0, "./omp"), i);
		d.procs[i].rank = i;
	}
	T_EQ(hd_add_thread(&d, 150, 0, "omp"), 0);
	T_EQ(hd_add_thread(&d, 0, 0, "(others)"), 1);
	T_EQ(hd_add_thread(&d, 160, 1, NULL), 2);
	for (int i = 0; i < 3; i++)
		T_EQ(hd_add_ttotal(&d, &tt[i]), 0);
	T_EQ(hd_count(&d, 0, HD_NO_THREAD, HD_NO_OBJECT, 0x1000, 811), 0);
	snprintf(path, sizeof(path), "%s/job-threads", dir);
	f = fopen(path, "w");
	T_EQ(hd_write(f, &d), 0);
	fclose(f);
	T_EQ(hd_read(path, &r, err, sizeof(err)), 0);
	T_CHECK(!*err, "%s", err);
	T_EQ(r.version, 4); /* tt lines: not for 0.2's reader */
	T_EQ(r.nthreads, 3);
	T_EQ(r.nttotals, 3);
	if (r.nthreads == 3 && r.nttotals == 3) {
		T_EQ(r.threads[1].tid, 0);
		T_EQ(r.threads[2].proc, 1);
		T_CHECK(r.threads[1].comm && !strcmp(r.threads[1].comm, "(others)"), "comm");
		T_CHECK(!r.threads[2].comm, "no comm");
		T_CHECK(!memcmp(r.ttotals, tt, sizeof(tt)), "tt lines");
	}
	hd_free(&r);
	hd_free(&d);
}

static void mpi_time_round_trip(void)
{
	struct hd_file d, r;
	struct hd_mrank m0 = { 0, 4000000000u, 2500000000u, 11 };
	struct hd_mrank m1 = { 1, 4000000100u, 100, 11 };
	struct hd_msrank s0 = { 0, 0, 10, 2400000000u, 1000, 900000000u };
	struct hd_msrank s1 = { 1, 1, 1, 100, 100, 100 };
	char path[300], err[512];
	FILE *f;

	hd_init(&d);
	d.job = 1;
	d.size = 2;
	T_EQ(hd_add_event(&d, "page-faults", 1), 0);
	for (int i = 0; i < 2; i++) {
		T_EQ(hd_add_process(&d, 100 + i, 0, "./app"), i);
		d.procs[i].rank = i;
	}
	T_EQ(hd_object(&d, "/opt/app", "feed", 1234), 0);
	T_EQ(hd_add_mrank(&d, &m0), 0);
	T_EQ(hd_add_mrank(&d, &m1), 0);
	T_EQ(hd_add_msite(&d, 0, 0x1237, "MPI_Barrier"), 0);
	T_EQ(hd_add_msite(&d, HD_NO_OBJECT, 0, "MPI_Allreduce"), 1);
	T_EQ(hd_add_msrank(&d, &s0), 0);
	T_EQ(hd_add_msrank(&d, &s1), 0);
	snprintf(path, sizeof(path), "%s/job-mpi", dir);
	f = fopen(path, "w");
	T_EQ(hd_write(f, &d), 0);
	fclose(f);
	T_EQ(hd_read(path, &r, err, sizeof(err)), 0);
	T_CHECK(!*err, "%s", err);
	T_EQ(r.version, 4); /* the lines are version 4's */
	T_EQ(r.nmranks, 2);
	T_EQ(r.nmsites, 2);
	T_EQ(r.nmsranks, 2);
	if (r.nmranks == 2 && r.nmsites == 2 && r.nmsranks == 2) {
		for (int i = 0; i < 2; i++) {
			const struct hd_mrank *m = i ? &m1 : &m0;

			T_EQ(r.mranks[i].proc, m->proc);
			T_EQ(r.mranks[i].app_ns, m->app_ns);
			T_EQ(r.mranks[i].mpi_ns, m->mpi_ns);
			T_EQ(r.mranks[i].calls, m->calls);
		}
		T_EQ(r.msites[0].object, 0);
		T_EQ(r.msites[0].addr, 0x1237);
		T_CHECK(!strcmp(r.msites[0].call, "MPI_Barrier"), "ms 0");
		T_EQ(r.msites[1].object, HD_NO_OBJECT);
		T_CHECK(!strcmp(r.msites[1].call, "MPI_Allreduce"), "ms 1");
		T_CHECK(!memcmp(&r.msranks[0], &s0, sizeof(s0)), "msr 0");
		T_CHECK(!memcmp(&r.msranks[1], &s1, sizeof(s1)), "msr 1");
	}
	hd_free(&r);
	hd_free(&d);
}

/* Version 4's call paths: the tree's nodes shared by paths, counts per
 * (event, thread, node) merged, the frames of a path innermost first, and
 * what a file says of each event's paths. */
static void paths_round_trip(void)
{
	struct hd_file d, r;
	char path[300], err[512];
	uint32_t fr[8];
	long m, a, b, b2, x;
	FILE *f;

	hd_init(&d);
	T_EQ(hd_add_event(&d, "page-faults", 1), 0);
	T_EQ(hd_add_event(&d, "task-clock", 1000000), 1);
	T_EQ(hd_add_process(&d, 10, 0, "./p"), 0);
	T_EQ(hd_add_thread(&d, 10, 0, "p"), 0);
	T_EQ(hd_object(&d, "/bin/p", "ab", 4096), 0);
	d.events[0].callgraph = HD_CG_FP;
	d.events[0].chains = 8; /* the c lines' 8 samples */
	d.events[0].cut = 2;
	T_EQ(hd_count(&d, 0, 0, 0, 0x1100, 7), 0); /* their s lines */
	T_EQ(hd_count(&d, 0, 0, HD_NO_OBJECT, 0x7f00, 1), 0);
	m = hd_node(&d, HD_NO_NODE, 0, 0x1000);		   /* main */
	a = hd_node(&d, (uint32_t)m, 0, 0x1010);	   /* main -> a */
	b = hd_node(&d, (uint32_t)a, 0, 0x1100);	   /* main -> a -> b */
	b2 = hd_node(&d, (uint32_t)m, 0, 0x1100);	   /* main -> b */
	x = hd_node(&d, HD_NO_NODE, HD_NO_OBJECT, 0x7f00); /* JIT, no caller */
	T_EQ(m, 0);
	T_EQ(a, 1);
	T_EQ(b, 2);
	T_EQ(b2, 3);
	T_EQ(x, 4);
	T_EQ(hd_node(&d, (uint32_t)a, 0, 0x1100), b); /* found, not added */
	T_EQ(hd_node(&d, 99, 0, 0x1100), -1);	      /* no such parent */
	T_EQ(hd_count_path(&d, 0, 0, (uint32_t)b, 4), 0);
	T_EQ(hd_count_path(&d, 0, 0, (uint32_t)b, 1), 0);
	T_EQ(hd_count_path(&d, 0, 0, (uint32_t)b2, 2), 0);
	T_EQ(hd_count_path(&d, 0, 0, (uint32_t)x, 1), 0);
	T_EQ(d.npaths, 3);
	T_EQ(hd_path_frames(&d, (uint32_t)b, fr, 8), 3);
	T_EQ(fr[0], (uint32_t)b);
	T_EQ(fr[1], (uint32_t)a);
	T_EQ(fr[2], (uint32_t)m);
	T_EQ(hd_path_frames(&d, (uint32_t)b, fr, 1), 3); /* depth beyond cap */
	snprintf(path, sizeof(path), "%s/paths", dir);
	f = fopen(path, "w");
	T_EQ(hd_write(f, &d), 0);
	fclose(f);
	T_EQ(hd_read(path, &r, err, sizeof(err)), 0);
	T_CHECK(!*err, "%s", err);
	T_EQ(r.version, 4);
	T_EQ(r.cct.n, 5);
	T_EQ(r.npaths, 3);
	T_EQ(r.events[0].callgraph, HD_CG_FP);
	T_EQ(r.events[0].chains, 8);
	T_EQ(r.events[0].cut, 2);
	T_EQ(r.events[1].callgraph, HD_CG_NONE);
	if (r.cct.n == 5 && r.npaths == 3) {
		for (int i = 0; i < 5; i++)
			T_CHECK(r.cct.node[i].parent == d.cct.node[i].parent &&
					r.cct.node[i].object == d.cct.node[i].object &&
					r.cct.node[i].addr == d.cct.node[i].addr &&
					r.cct.node[i].depth == d.cct.node[i].depth,
				"node %d", i);
		T_EQ(r.cct.node[2].depth, 3); /* main -> a -> b */
		T_EQ(r.paths[0].count, 5);
		T_EQ(r.paths[0].node, (uint32_t)b);
		T_EQ(r.paths[2].count, 1);
		T_EQ(r.cct.node[4].object, HD_NO_OBJECT);
	}
	hd_free(&r);
	hd_free(&d);
}

/* Version 4's kept names: functions, sources and lines per object, with
 * what was wrong when recorded; an object not kept stays so. */
static void names_round_trip(void)
{
	struct hd_file d, r;
	char path[300], err[512];
	FILE *f;

	hd_init(&d);
	T_EQ(hd_add_event(&d, "page-faults", 1), 0);
	T_EQ(hd_add_process(&d, 10, 0, "./p"), 0);
	T_EQ(hd_add_thread(&d, 10, 0, "p"), 0);
	T_EQ(hd_object(&d, "/bin/p", "ab", 4096), 0);
	T_EQ(hd_object(&d, "/lib/q.so", NULL, 8192), 1);
	T_EQ(hd_object(&d, "/lib/r.so", NULL, 100), 2);
	T_EQ(hd_count(&d, 0, 0, 0, 0x1010, 3), 0);
	d.objects[0].kept = 1;
	d.objects[1].kept = 1;
	d.objects[1].kept_why = strdup("could not be read\nwhen recorded");
	T_EQ(hd_add_name(&d, 0, 0x1000, 0x1040, "_ZN2ns1fEv"), 0);
	T_EQ(hd_add_name(&d, 0, 0x2000, 0x2010, "operator new (x)"), 0);
	T_EQ(hd_src(&d, "/src/a b.c"), 0);
	T_EQ(hd_src(&d, "/src/c.h"), 1);
	T_EQ(hd_src(&d, "/src/a b.c"), 0); /* found, not added */
	T_EQ(hd_add_line(&d, 0, 0, 0x1010, 12, NULL), 0);
	T_EQ(hd_add_line(&d, 0, 1, 0x1020, 7, "inl"), 0);
	snprintf(path, sizeof(path), "%s/names", dir);
	f = fopen(path, "w");
	T_EQ(hd_write(f, &d), 0);
	fclose(f);
	T_EQ(hd_read(path, &r, err, sizeof(err)), 0);
	T_CHECK(!*err, "%s", err);
	T_EQ(r.version, 4); /* kept names need 4 */
	T_EQ(r.nnames, 2);
	T_EQ(r.srcs.n, 2);
	T_EQ(r.nlines, 2);
	if (r.nobjects == 3 && r.nnames == 2 && r.srcs.n == 2 && r.nlines == 2) {
		T_CHECK(r.objects[0].kept && !r.objects[0].kept_why,
			"object 0 kept, no warning");
		T_CHECK(r.objects[1].kept && r.objects[1].kept_why &&
				!strcmp(r.objects[1].kept_why,
					"could not be read\nwhen recorded"),
			"object 1's warning");
		T_CHECK(!r.objects[2].kept, "object 2 not kept");
		T_CHECK(r.names[0].lo == 0x1000 && r.names[0].hi == 0x1040 &&
				!strcmp(r.names[0].name, "_ZN2ns1fEv"),
			"name 0");
		T_CHECK(!strcmp(r.names[1].name, "operator new (x)"), "a name with spaces");
		T_CHECK(!strcmp(r.srcs.s[0], "/src/a b.c"), "a source with a space");
		T_CHECK(r.lines[0].addr == 0x1010 && r.lines[0].line == 12 &&
				!r.lines[0].func && r.lines[0].src == 0,
			"line 0");
		T_CHECK(r.lines[1].src == 1 && r.lines[1].func &&
				!strcmp(r.lines[1].func, "inl"),
			"line 1");
	}
	hd_free(&r);
	hd_free(&d);
}

static void refused(const char *name, const char *text, const char *want)
{
	struct hd_file r;
	char err[512];
	const char *p = put(name, text);

	T_CHECK(hd_read(p, &r, err, sizeof(err)) == -1, "%s accepted", name);
	T_CHECK(strstr(err, want) && strstr(err, p) && !strchr(err, '\n'),
		"%s: said '%s', want '%s'", name, err, want);
	T_EQ(r.nsamples, 0);
}

/*
 * The losses of version 4: a checkpoint, side-band records dropped and a
 * process whose end was not seen are written as version 4 (a reader of
 * version 3 would misread them), read back, and refused in version 3.
 */
static void losses_round_trip(void)
{
	struct hd_file d, r;
	char err[512], path[256];
	FILE *f;

	for (int k = 0; k < 4; k++) {
		hd_init(&d);
		d.command = strdup("./a");
		T_EQ(hd_add_event(&d, "page-faults", 1), 0);
		T_EQ(hd_add_process(&d, 10, 0, "./a"), 0);
		T_EQ(hd_add_process(&d, 11, 10, "./a"), 1);
		T_EQ(hd_add_thread(&d, 10, 0, "a"), 0);
		if (k == 1)
			d.side_lost = UINT64_MAX; /* saturated: kept as it is */
		if (k == 2)
			d.checkpoint = 1;
		if (k == 3)
			d.procs[1].how = HD_UNSEEN;
		snprintf(path, sizeof(path), "%s/loss%d", dir, k);
		f = fopen(path, "w");
		T_EQ(hd_write(f, &d), 0);
		fclose(f);
		T_EQ(hd_read(path, &r, err, sizeof(err)), 0);
		T_CHECK(!*err, "%s", err);
		/* without a loss version 4 adds: version 3, as before */
		T_EQ(r.version, k ? 4 : 3);
		T_EQ(r.side_lost, k == 1 ? UINT64_MAX : 0);
		T_EQ(r.checkpoint, k == 2);
		if (r.nprocs == 2) {
			T_EQ(r.procs[0].how, HD_RUNNING);
			T_EQ(r.procs[1].how, k == 3 ? HD_UNSEEN : HD_RUNNING);
		} else {
			T_CHECK(0, "read back %zu processes", r.nprocs);
		}
		hd_free(&r);
		hd_free(&d);
	}
}

/* A line whose last string is empty (no command after the host) reads
 * as an empty string: the reader once wrote into a read-only "" there
 * (fuzz-data). */
static void empty_rest(void)
{
	struct hd_file r;
	char err[512];
	const char *p = put("empty-rest",
			    "hwprof-data 2\nprocess 0 1 0 -1 exit 0 -\ncommand\nend\n");

	T_EQ(hd_read(p, &r, err, sizeof(err)), 0);
	T_CHECK(!*err, "%s", err);
	if (r.nprocs == 1)
		T_CHECK(r.procs[0].command && !*r.procs[0].command, "command");
	hd_free(&r);
}

int main(void)
{
	if (!mkdtemp(dir))
		return T_ERROR;
	round_trip();
	version1();
	empty_rest();
	job_round_trip();
	job_threads_round_trip();
	mpi_time_round_trip();
	paths_round_trip();
	names_round_trip();
	losses_round_trip();
	refused("v3-checkpoint", "hwprof-data 3\ncheckpoint\nend\n", "malformed");
	refused("v3-sideband", "hwprof-data 3\nsideband-lost 5\nend\n", "malformed");
	refused("v3-unseen", "hwprof-data 3\nprocess 0 1 0 -1 unseen 0 - c\nend\n", "line 2");
	refused("v4-checkpoint-arg", "hwprof-data 4\ncheckpoint 1\nend\n", "line 2");
	refused("v4-checkpoint-twice", "hwprof-data 4\ncheckpoint\ncheckpoint\nend\n",
		"line 3");
	refused("v4-sideband-zero", "hwprof-data 4\nsideband-lost 0\nend\n", "line 2");
	refused("v4-sideband-twice", "hwprof-data 4\nsideband-lost 5\nsideband-lost 5\nend\n",
		"line 3");
	refused("v4-sideband-neg", "hwprof-data 4\nsideband-lost -5\nend\n", "line 2");
	refused("v4-sideband-none", "hwprof-data 4\nsideband-lost\nend\n", "line 2");
	refused("v4-sideband-big", "hwprof-data 4\nsideband-lost 18446744073709551616\nend\n",
		"line 2");
	refused("empty", "", "not an hwprof data file");
	refused("foreign", "P6\n", "not an hwprof data file");
	refused("v9", "hwprof-data 9\nend\n", "version 9");
	refused("trunc", "hwprof-data 2\ncommand x\n", "truncated");
	refused("after", "hwprof-data 2\nend\nx\n", "after the end");
	refused("thread-ref", "hwprof-data 2\nthread 0 0 5 x\nend\n", "line 2");
	refused("sample-ref",
		"hwprof-data 2\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\n"
		"thread 0 0 1 t\ns 0 0 7 10 1\nend\n",
		"line 5");
	refused("sample-extra",
		"hwprof-data 2\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\n"
		"thread 0 0 1 t\ns 0 0 - 10 1 9\nend\n",
		"line 5");
	refused("neg", "hwprof-data 2\nevent 0 -1 1 0 0 0 - e\nend\n", "line 2");
	refused("index", "hwprof-data 2\nevent 1 1 1 0 0 0 - e\nend\n", "line 2");
	refused("escape", "hwprof-data 2\ncommand a\\x00b\nend\n", "line 2");
	refused("keyword", "hwprof-data 2\nfrob 1\nend\n", "malformed");
	refused("blank-kw", "hwprof-data 2\n \nend\n", "malformed");
	refused("how", "hwprof-data 2\nprocess 0 1 0 -1 zombie 0 - c\nend\n", "line 2");
	refused("v3-job-late", "hwprof-data 3\nprocess 0 1 0 0 exit 0 - c\njob 2 0\nend\n",
		"line 3");
	refused("v3-job-thread",
		"hwprof-data 3\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 exit 0 - c\nthread 0 0 1 t\ns 0 0 - 10 1\nend\n",
		"line 6");
	refused("v3-not-job",
		"hwprof-data 3\nevent 0 1 1 0 0 0 - e\n"
		"s 0 - - 10 1\nend\n",
		"line 3");
	refused("v3-f-min",
		"hwprof-data 3\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"f 0 0 - 10 5 6 4 0 2\nend\n",
		"line 4");
	refused("v3-f-rank",
		"hwprof-data 3\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"f 0 0 - 10 5 1 4 2 2\nend\n",
		"line 4");
	refused("v3-fr-ref",
		"hwprof-data 3\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 exit 0 - c\nf 0 0 - 10 5 1 4 0 2\nfr 0 1 4\nend\n",
		"line 6");
	refused("v4-tt-not-job",
		"hwprof-data 4\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 -1 exit 0 - c\nthread 0 0 1 t\ntt 0 0 5\nend\n",
		"line 5");
	refused("v4-tt-ref",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nthread 0 0 1 t\ntt 1 0 5\nend\n",
		"line 6");
	refused("v4-tt-twice",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nthread 0 0 1 t\ntt 0 0 5\ntt 0 0 5\nend\n",
		"tt) given twice");
	refused("v3-tt",
		"hwprof-data 3\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nthread 0 0 1 t\ntt 0 0 5\nend\n",
		"malformed");
	refused("v3-job-twice", "hwprof-data 3\njob 2 0\njob 8 0\nend\n", "line 3");
	refused("v3-job-after-rank", "hwprof-data 3\nrank 1 4\njob 2 0\nend\n", "line 3");
	refused("v3-f-min-not-all",
		"hwprof-data 3\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"f 0 0 - 10 5 1 4 0 1\nend\n",
		"line 4");
	refused("v3-f-min-missing",
		"hwprof-data 3\njob 3 0\nevent 0 1 1 0 0 0 - e\n"
		"f 0 0 - 10 5 1 4 0 2\nend\n",
		"line 4");
	refused("v3-fr-zero",
		"hwprof-data 3\njob 2 1\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nf 0 0 - 10 5 0 5 0 1\nfr 0 0 0\nend\n",
		"line 6");
	refused("v3-fr-above-max",
		"hwprof-data 3\njob 2 1\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nf 0 0 - 10 5 0 5 0 1\nfr 0 0 6\nend\n",
		"line 6");
	refused("v3-fr-twice",
		"hwprof-data 3\njob 2 1\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nf 0 0 - 10 10 5 5 0 2\nfr 0 0 5\nfr 0 0 5\nend\n",
		"fr) given twice");
	refused("v3-fr-sum",
		"hwprof-data 3\njob 2 1\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nprocess 1 2 0 1 running 0 - c\n"
		"f 0 0 - 10 6 0 5 0 1\nfr 0 0 5\nfr 0 1 4\nend\n",
		"above its sum");
	refused("v3-rank-twice",
		"hwprof-data 3\njob 2 0\nprocess 0 1 0 1 running 0 - c\n"
		"process 1 2 0 1 running 0 - c\nend\n",
		"rank given twice");
	refused("v3-rank-outside",
		"hwprof-data 3\njob 2 0\nprocess 0 1 0 5 running 0 - c\n"
		"end\n",
		"not one of the job's");
	refused("v3-rank-none",
		"hwprof-data 3\njob 2 0\nprocess 0 1 0 -1 running 0 - c\n"
		"end\n",
		"not one of the job's");
	refused("v3-rt-twice",
		"hwprof-data 3\njob 2 0\nevent 0 1 1 0 0 0 - e\n"
		"process 0 1 0 0 running 0 - c\nrt 0 0 5 1\nrt 0 0 5 1\nend\n",
		"rt) given twice");
	refused("v2-job", "hwprof-data 2\njob 2 0\nend\n", "line 2");
	/* the wall clock in MPI: version 4, job files, indexes in range,
	 * min <= max <= total, each (rank) and (site, rank) once */
	refused("v3-mt",
		"hwprof-data 3\njob 2 0\nprocess 0 1 0 0 running 0 - c\n"
		"mt 0 10 5 1\nend\n",
		"line 4");
	refused("v4-mt-not-job",
		"hwprof-data 4\nprocess 0 1 0 -1 exit 0 - c\nmt 0 10 5 1\nend\n", "line 3");
	refused("v4-mt-proc",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nmt 1 10 5 1\nend\n",
		"line 6");
	refused("v4-mt-zero-app",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nmt 0 0 5 1\nend\n",
		"line 6");
	refused("v4-mt-twice",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nmt 0 10 5 1\nmt 0 10 5 1\nend\n",
		"mt) given twice");
	refused("v4-ms-index",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 1 0 10 MPI_Send\nend\n",
		"line 6");
	refused("v4-ms-no-call",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 0 10\nend\n",
		"line 6");
	refused("v4-ms-none-addr",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 - 10 MPI_Send\nend\n",
		"line 6");
	refused("v4-ms-object",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 1 10 MPI_Send\nend\n",
		"line 6");
	refused("v4-msr-site",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 0 10 MPI_Send\nmsr 1 0 1 5 5 5\nend\n",
		"line 7");
	refused("v4-msr-zero",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 0 10 MPI_Send\nmsr 0 0 0 5 5 5\nend\n",
		"line 7");
	refused("v4-msr-min",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 0 10 MPI_Send\nmsr 0 0 2 9 6 5\nend\n",
		"line 7");
	refused("v4-msr-max",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 0 10 MPI_Send\nmsr 0 0 2 5 1 6\nend\n",
		"line 7");
	refused("v4-msr-twice",
		"hwprof-data 4\njob 2 0\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 0 running 0 - c\n"
		"object 0 - 5 /x\nms 0 0 10 MPI_Send\nmsr 0 0 1 5 5 5\n"
		"msr 0 0 1 5 5 5\nend\n",
		"msr) given twice");
	refused("v3-program", "hwprof-data 3\nprogram abc\nend\n", "line 2");
	refused("v3-program-size", "hwprof-data 3\nprogram abc 12x /p\nend\n", "line 2");
	refused("v3-object-no-size", "hwprof-data 3\nobject 0 abc /x\nend\n", "line 2");
	refused("v3-object-size", "hwprof-data 3\nobject 0 abc -5 /x\nend\n", "line 2");
	refused("v4-sym-not-kept", "hwprof-data 4\nobject 0 - - /x\nsym 0 10 20 f\nend\n",
		"line 3");
	refused("v4-sym-empty", "hwprof-data 4\nobject 0 - - /x\nkept 0\nsym 0 10 10 f\nend\n",
		"line 4");
	refused("v4-sym-no-name", "hwprof-data 4\nobject 0 - - /x\nkept 0\nsym 0 10 20\nend\n",
		"line 4");
	refused("v4-kept-twice", "hwprof-data 4\nobject 0 - - /x\nkept 0\nkept 0\nend\n",
		"kept twice");
	refused("v4-kept-object", "hwprof-data 4\nkept 0\nend\n", "line 2");
	refused("v4-src-order", "hwprof-data 4\nsrc 1 /a.c\nend\n", "line 2");
	refused("v4-src-twice", "hwprof-data 4\nsrc 0 /a.c\nsrc 1 /a.c\nend\n",
		"source file given twice");
	refused("v4-line-src", "hwprof-data 4\nobject 0 - - /x\nkept 0\nline 0 10 0 5\nend\n",
		"line 4");
	refused("v4-node-order", "hwprof-data 4\nn 1 - - 10\nend\n", "line 2");
	refused("v4-node-parent", "hwprof-data 4\nn 0 0 - 10\nend\n", "line 2");
	refused("v4-node-twice", "hwprof-data 4\nn 0 - - 10\nn 1 - - 10\nend\n",
		"node given twice");
	refused("v4-node-object", "hwprof-data 4\nn 0 - 3 10\nend\n", "line 2");
	refused("v4-c-no-paths",
		"hwprof-data 4\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\nthread 0 0 1 t\n"
		"n 0 - - 10\nc 0 0 0 5\nend\n",
		"without its paths line");
	refused("v4-c-node",
		"hwprof-data 4\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\nthread 0 0 1 t\n"
		"paths 0 fp 5 0\nn 0 - - 10\nc 0 0 1 5\nend\n",
		"line 7");
	refused("v4-paths-kind",
		"hwprof-data 4\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\nthread 0 0 1 t\n"
		"paths 0 lbr 5 0\nend\n",
		"line 5");
	refused("v4-paths-cut",
		"hwprof-data 4\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\nthread 0 0 1 t\n"
		"paths 0 fp 5 6\nend\n",
		"line 5");
	refused("v4-paths-twice",
		"hwprof-data 4\nevent 0 1 1 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\nthread 0 0 1 t\n"
		"paths 0 fp 5 0\npaths 0 fp 5 0\nend\n",
		"given twice");
	refused("v3-n", "hwprof-data 3\nn 0 - - 10\nend\n", "malformed");
	/* counts that disagree: refused, never a share above 100 % */
	refused("v4-c-above-chains",
		"hwprof-data 4\nevent 0 1 9 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\n"
		"thread 0 0 1 t\ns 0 0 - 10 9\npaths 0 fp 1 0\nn 0 - - 10\nc 0 0 0 5\nend\n",
		"event 0: its call-path samples (c lines: 5) exceed the samples with a path of its paths line (1)");
	refused("v4-c-above-s",
		"hwprof-data 4\nevent 0 1 9 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\n"
		"thread 0 0 1 t\ns 0 0 - 10 2\npaths 0 fp 9 0\nn 0 - - 10\nc 0 0 0 5\nend\n",
		"event 0: its call-path samples (c lines: 5) exceed its samples (s lines: 2)");
	refused("v4-c-saturated",
		"hwprof-data 4\nevent 0 1 9 0 0 0 - e\nprocess 0 1 0 -1 exit 0 - c\n"
		"thread 0 0 1 t\ns 0 0 - 10 18446744073709551615\npaths 0 fp 9 0\nn 0 - - 10\n"
		"n 1 - - 20\nc 0 0 0 18446744073709551615\nc 0 0 1 1\nend\n",
		"(c lines: 18446744073709551615) exceed the samples with a path of its paths line (9)");
	{
		/* a path of 1025 frames: deeper than any reader walks */
		size_t cap = 1100 * 24, len;
		char *t = malloc(cap);

		len = (size_t)snprintf(t, cap, "hwprof-data 4\nn 0 - - 10\n");
		for (int i = 1; i <= 1024; i++)
			len += (size_t)snprintf(t + len, cap - len, "n %d %d - 10\n", i,
						i - 1);
		snprintf(t + len, cap - len, "end\n");
		refused("v4-too-deep", t, "line 1026: a call path deeper than 1024 frames");
		free(t);
	}
	refused("v1-no-name", "hwprof-data 1\nevent 0 1 1 0 0 0 0 0 0 1\nend\n", "line 2");
	refused("v1-bucket",
		"hwprof-data 1\nevent 0 1 1 0 0 0 0 0 0 1 e\n"
		"object 0 0x2000 0x3000 0x1000 - 1 1 /x\n5\nend\n",
		"line 4");
	return t_done("data");
}
