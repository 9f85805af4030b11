/* SPDX-License-Identifier: MIT */
/* The output files of options beside standard output (--svg, --stats):
 * tools/report/out.c. */
#ifndef HWPROF_TOOLS_OUT_H
#define HWPROF_TOOLS_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "outfile.h"

/* An output file of an option (--svg, --stats): written to a temp file
 * beside it, renamed over it by out_close() (lib/profile/outfile.h). */
struct out_file {
	FILE *f;
	const char *opt, *name;
	struct hwp_out o;
};
/* Opens out for writing (of->f): 0, or 1 after one line on stderr when
 * out is one of the inputs, something other than a regular file (a
 * symbolic link, a FIFO, a device) is there, or no file can be made
 * beside it. */
int out_open(struct out_file *of, const char *opt, const char *out, char **inputs,
	     size_t ninputs);
/* 1 (after one line on stderr) when out is one of the inputs, or
 * something other than a regular file is there, or its directory cannot
 * be opened; else 0. Called before the work, out_open() checks again. */
int out_check(const char *opt, const char *out, char **inputs, size_t ninputs);
/* Flushes and closes of->f and puts the file in place: 0, or 1 after one
 * line (the old file, if any, is then left as it was). */
int out_close(struct out_file *of);
/* Closes of->f and drops what was written. */
void out_drop(struct out_file *of);

#endif
