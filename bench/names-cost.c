/* SPDX-License-Identifier: MIT */
/*
 * The CPU time of naming a recording's sampled addresses (what hwprof
 * record does before its last write: sym_keep_names()), alone: reads
 * each data file, forgets the names it kept and names it again, with the
 * name cache of $HWPROF_CACHE_DIR (empty: off). Prints the seconds of
 * CPU of each and, with -v, the cache's line (bench/namecache.sh).
 *
 *   names-cost [-v] FILE...
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "symbols.h"

static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		sym_cache_verbose = 1;
		i++;
	}
	if (i >= argc || elf_version(EV_CURRENT) == EV_NONE) {
		fputs("usage: names-cost [-v] FILE...\n", stderr);
		return 2;
	}
	for (; i < argc; i++) {
		struct hd_file d;
		char err[512];
		double t;

		if (hd_read(argv[i], &d, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		hd_drop_names(&d);
		t = cpu();
		if (sym_keep_names(&d))
			return 1;
		printf("%.4f %zu\n", cpu() - t, d.nlines);
		hd_free(&d);
	}
	return 0;
}
