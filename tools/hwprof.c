/* SPDX-License-Identifier: MIT */
/*
 * hwprof: record a program's profile, report it, annotate a function, list
 * the events. Dispatches to the commands, with git's and perf's
 * conventions: `hwprof help CMD` and `hwprof CMD --help`, `--version`.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

#ifndef HWPROF_VERSION_STRING
#error "the build passes HWPROF_VERSION_STRING (tools/meson.build)"
#endif

static void usage(FILE *f)
{
	fputs("usage: hwprof [--version] [--help] COMMAND [ARGS]\n"
	      "commands:\n"
	      "  record     run a command and record its profile into a data file\n"
	      "  report     print the profile of data files (functions, lines, threads...)\n"
	      "  annotate   one function's source lines or instructions, with samples\n"
	      "  diff       two profiles compared function by function\n"
	      "  list       the events and PAPI presets, and which this machine has\n"
	      "  help CMD   every option of a command\n"
	      "see hwprof(1); exit status 0, 1 on an error, 2 on bad usage\n",
	      f);
}

static int help(const char *cmd, FILE *f)
{
	static char *argv[] = { NULL, (char *)"--help", NULL };

	if (!cmd) {
		usage(f);
		return 0;
	}
	argv[0] = (char *)cmd;
	if (!strcmp(cmd, "record"))
		return cmd_record(2, argv);
	if (!strcmp(cmd, "report"))
		return cmd_report(2, argv);
	if (!strcmp(cmd, "annotate"))
		return cmd_annotate(2, argv);
	if (!strcmp(cmd, "diff"))
		return cmd_diff(2, argv);
	if (!strcmp(cmd, "list"))
		return cmd_list(2, argv);
	if (!strcmp(cmd, "help")) {
		usage(f);
		return 0;
	}
	return usage_error("help: no command '%s' (record, report, annotate, diff, list)",
			   cmd);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "annotate"))
		return cmd_annotate(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return cmd_diff(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "help"))
		return help(argc > 2 ? argv[2] : NULL, stdout);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-v") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("hwprof %s\n", HWPROF_VERSION_STRING);
		return 0;
	}
	return usage_error("unknown command '%s' (record, report, annotate, diff, list, help; "
			   "see hwprof(1))",
			   cmd);
}
