/* SPDX-License-Identifier: MIT */
/* Shared by the parts of the hwprof command. */
#ifndef HWPROF_CLI_H
#define HWPROF_CLI_H

#include <stddef.h>
#include <stdint.h>

/* Each takes its own name as argv[0]; "--help" prints every option. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_list(int argc, char **argv);

/* One line "hwprof: ..." on stderr; returns 1 (the exit status). */
int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* die() for a usage error: exit status 2, as every --help says */
#define usage_error(...) (die(__VA_ARGS__) + 1)

/* The value of option argv[*i] ("--opt VALUE" or "--opt=VALUE"), or NULL
 * when argv[*i] is not that option; *bad is set when the value is missing. */
const char *cli_value(int argc, char **argv, int *i, const char *opt, int *bad);

#endif
