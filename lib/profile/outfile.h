/* SPDX-License-Identifier: MIT */
/*
 * Every file hwprof writes (the command's data file, drawings and tables,
 * gmon.out, the MPI job file) is made here, so that nothing another user
 * put at its name is ever written through (hwprof(7), "Files"). Never
 * installed; the engine archive carries it to libhwprof, the command and
 * libhwprof-mpi.
 *
 * hwp_out_open() opens the name's directory once and keeps it: every later
 * step is relative to that descriptor, so a directory renamed or replaced
 * meanwhile changes nothing. What is at the name must be nothing or a
 * regular file: a symbolic link (dangling or not), FIFO, device, socket or
 * directory there is refused. hwp_out_temp() makes a new file beside it
 * (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666 less the umask), and
 * hwp_out_commit() renames it over the name: rename(2) replaces whatever
 * is there by then, a link included, and never follows it. The new file
 * is never more open than the regular file it replaces.
 */
#ifndef HWPROF_OUTFILE_H
#define HWPROF_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

struct hwp_out {
	int dir;      /* the name's directory (O_PATH), or -1 */
	char *name;   /* the last component */
	char *tmp;    /* the temp file's name in dir, or NULL */
	int fd;	      /* the temp file, or -1 */
	mode_t found; /* the type hwp_out_open() found at the name */
	mode_t perm;  /* the most the new file may allow */
};

/* hwp_out_open(): something other than a regular file is at the name
 * (o->found says what; hwp_out_what() names it). */
#define HWP_OUT_NOTREG 1
/* hwp_out_commit(): never replace a file (nothing else either): -EEXIST. */
#define HWP_OUT_NOREPLACE 1

/* Sets o up for path: 0, HWP_OUT_NOTREG, -EISDIR (path names no file:
 * empty, ends in '/', "." or ".."), or -errno of the directory. o is
 * ready for hwp_out_close() whatever is returned. */
int hwp_out_open(struct hwp_out *o, const char *path);
/* A new, empty temp file beside the name (o->fd): 0 or -errno. */
int hwp_out_temp(struct hwp_out *o);
/* A stream on the temp file (its own descriptor: fclose() it before the
 * commit, and check what fclose() says), or NULL with errno set. */
FILE *hwp_out_stream(struct hwp_out *o);
/* The temp file renamed over the name (flags: HWP_OUT_NOREPLACE), then
 * closed: 0, or -errno with the temp file removed. */
int hwp_out_commit(struct hwp_out *o, int flags);
/* The temp file, if any, removed and closed. */
void hwp_out_discard(struct hwp_out *o);
/* hwp_out_discard(), and the directory closed. */
void hwp_out_close(struct hwp_out *o);
/* "a symbolic link", "a FIFO", "a directory", ... for a st_mode. */
const char *hwp_out_what(mode_t mode);

#endif /* HWPROF_OUTFILE_H */
