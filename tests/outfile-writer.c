/* SPDX-License-Identifier: MIT */
/*
 * The library's writers, one per run, for tests/test-outfile.sh:
 *   gmon   monstartup() of the whole program, some work, monitor(0): writes
 *          gmon.out (or HWPROF_GMON_OUT); exit 0, or 1 when monitor said
 *          why not
 *   hl     one PAPI high-level region; the output is written at exit
 *          (PAPI_OUTPUT_DIRECTORY, PAPI_EVENTS); exit 0, or 2 when a call
 *          failed
 * Either exits 3 when it was meant to run set-user-ID root (SETUID_ROOT
 * set) and is not (a nosuid mount). Linked whole with libhwprof, so that a
 * set-user-ID copy needs no library path.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwprof/mon.h>
#include <papi.h>

static volatile unsigned long sink;

static void work(void)
{
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i * i;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: outfile-writer gmon|hl\n");
		return 99;
	}
	if (getenv("SETUID_ROOT") && geteuid() != 0)
		return 3;
	if (!strcmp(argv[1], "gmon")) {
		if (monstartup((caddr_t)-1, 0))
			return 2;
		work();
		return monitor(0) ? 1 : 0;
	}
	if (!strcmp(argv[1], "hl")) {
		if (PAPI_hl_region_begin("work") != PAPI_OK)
			return 2;
		work();
		if (PAPI_hl_region_end("work") != PAPI_OK)
			return 2;
		return 0; /* exit() writes the output */
	}
	fprintf(stderr, "outfile-writer: %s: not gmon or hl\n", argv[1]);
	return 99;
}
