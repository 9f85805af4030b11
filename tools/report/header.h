/* SPDX-License-Identifier: MIT */
/* The header of a report and its warnings (tools/report/header.c), which
 * report, diff and --ranks print. */
#ifndef HWPROF_TOOLS_HEADER_H
#define HWPROF_TOOLS_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data.h"
#include "view.h"

/* What the report found that its header and warnings tell, set by the
 * report command (tools/report/report.c); zero for the others. */
struct header_notes {
	uint64_t paths_short;  /* call paths of the event that end short of a
				* thread's entry, saturated at UINT64_MAX */
	int paths_counted;     /* paths_short was counted (a file with call
				* paths) */
	int merged;	       /* the report is of more than one file */
	const char *lines_msg; /* --lines: the objects sampled without any
				* line, with the cure (a warning), or NULL */
};
extern struct header_notes header_notes;

/* The text header (command, events, warnings) on standard output. */
void header_text(const struct view_ctx *c);
/* The warnings of the reported event (to stderr when f is stderr, else
 * into the output: text lines after prefix, or JSON strings). */
void header_warnings(FILE *f, const char *prefix, const struct hd_file *d, int event,
		     int json);
/* The same; names 0 leaves out those found when naming objects now
 * (sym_warnings: hwprof diff prints them once for both sides). */
void header_warnings_of(FILE *f, const char *prefix, const struct hd_file *d, int event,
			int json, int names);
/* The processes of d whose end was not seen (HD_UNSEEN). */
size_t header_unseen(const struct hd_file *d);

#endif
