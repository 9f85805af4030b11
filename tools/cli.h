/* SPDX-License-Identifier: MIT */
/*
 * The floor of the hwprof command (tools/cli.c): its error lines and its
 * option values. Every part of the command may use it; it uses none of
 * them.
 */
#ifndef HWPROF_CLI_H
#define HWPROF_CLI_H

/* One line "hwprof: ..." on stderr, then exit status 1 (hwprof(1)). For
 * an error that leaves nothing to undo: no child started, no temp file,
 * no thread. */
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
/* The same line, but returns: 1, the exit status, for a caller that has
 * something to undo first (a child to kill, a temp directory to remove,
 * a data file to keep). */
__attribute__((format(printf, 1, 2))) int cli_error(const char *fmt, ...);
/* The same line for a usage error; returns 2, the exit status every
 * --help gives for it. */
__attribute__((format(printf, 1, 2))) int usage_error(const char *fmt, ...);

/* The value of option argv[*i] ("--opt VALUE" or "--opt=VALUE"), or NULL
 * when argv[*i] is not that option; *bad is set when the value is missing. */
const char *cli_value(int argc, char **argv, int *i, const char *opt, int *bad);
/* 2 after the line "OPT takes no value" when arg is "OPT=..." for one of
 * flags (the options of command cmd that take none; NULL-terminated), as
 * getopt_long refuses them; else 0. */
int cli_flag_value(const char *arg, const char *const *flags, const char *cmd);

#endif
