/* SPDX-License-Identifier: MIT */
/* hwprof: record a program's profile, report it, list the events. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int die(const char *fmt, ...)
{
	va_list ap;

	fputs("hwprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static void usage(FILE *f)
{
	fputs("usage: hwprof record [-e EVENT]... [-c THRESHOLD | -F HZ] [-o FILE] -- CMD [ARGS...]\n"
	      "       hwprof report [FILE] [--sort samples|symbol] [--objects]\n"
	      "                     [--format text|csv|json] [--svg OUT]\n"
	      "       hwprof list\n"
	      "see hwprof(1)\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	return die("unknown command '%s' (record, report or list; see hwprof(1))",
		   argv[1]) + 1;
}
