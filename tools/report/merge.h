/* SPDX-License-Identifier: MIT */
/* The data files of hwprof report, annotate and diff (tools/report/merge.c):
 * the command line's files and directories, read and merged. */
#ifndef HWPROF_TOOLS_MERGE_H
#define HWPROF_TOOLS_MERGE_H

#include <stddef.h>
#include <sys/types.h>

#include "data.h"

/* The data files of the command line: files as given, each directory
 * replaced by its regular files named *.data, sorted by name; a file met
 * again (same device and inode: given twice, or also in a directory
 * given) is kept once, with one line on stderr. 0, or 1 after one line
 * on stderr. */
struct merge_input_key {
	dev_t dev;
	ino_t ino;
	int known; /* stat() succeeded */
};
struct merge_inputs {
	char **files;
	struct merge_input_key *keys; /* one per file */
	size_t n, cap;
};
int merge_inputs(struct merge_inputs *in, char **args, size_t nargs);
void merge_inputs_free(struct merge_inputs *in);
/* Reads one file, or merges several after checking that they profile one
 * program with one event set and world size and hold no rank twice, and
 * that none is a job file; need_ranks: every process must have an MPI
 * rank. 0, or 1 after one line on stderr. */
int merge_read(struct hd_file *d, char **files, size_t nfiles, int need_ranks);

#endif
