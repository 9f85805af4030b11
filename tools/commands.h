/* SPDX-License-Identifier: MIT */
/* The commands of hwprof, which tools/hwprof.c dispatches to. */
#ifndef HWPROF_COMMANDS_H
#define HWPROF_COMMANDS_H

/* Each takes its own name as argv[0]; "--help" prints every option.
 * The exit status: 0, 1 after one line on stderr, 2 on a usage error. */
int cmd_record(int argc, char **argv);	 /* tools/record/record.c */
int cmd_report(int argc, char **argv);	 /* tools/report/report.c */
int cmd_annotate(int argc, char **argv); /* tools/report/annotate.c */
int cmd_diff(int argc, char **argv);	 /* tools/report/diff.c */
int cmd_list(int argc, char **argv);	 /* tools/list.c */

#endif
