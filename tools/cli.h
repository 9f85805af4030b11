/* SPDX-License-Identifier: MIT */
/* Shared by the parts of the hwprof command. */
#ifndef HWPROF_CLI_H
#define HWPROF_CLI_H

#include <stddef.h>
#include <stdint.h>

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);

/* One line "hwprof: ..." on stderr; returns 1 (the exit status). */
int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
