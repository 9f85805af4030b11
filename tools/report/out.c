/* SPDX-License-Identifier: MIT */
/*
 * The output files of hwprof report's and diff's options (--svg, --stats):
 * checked before the work (never one of the inputs, never through a link),
 * written to a temp file beside the name, renamed over it once whole
 * (lib/profile/outfile.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "names.h"
#include "out.h"

/* One line: "hwprof: OPT NAME: what". 1. */
static int out_say(const char *opt, const char *name, const char *what)
{
	fprintf(stderr, "hwprof: %s ", opt);
	nm_put(stderr, name, NM_TEXT);
	fprintf(stderr, ": %s\n", what);
	return 1;
}

/* hwp_out_open()'s r for out, said in one line (1), or 0. */
static int out_open_said(const char *opt, const char *out, const struct hwp_out *o, int r)
{
	char why[96];

	if (r == HWP_OUT_NOTREG) {
		snprintf(why, sizeof(why),
			 "%s; hwprof writes only regular files, never "
			 "through a link",
			 hwp_out_what(o->found));
		return out_say(opt, out, why);
	}
	if (r == -EISDIR)
		return out_say(opt, out, "not a file name");
	return r ? out_say(opt, out, strerror(-r)) : 0;
}

/*
 * The directory of each output as out_check() first found it (its device
 * and inode): out_open() writes only into that one, so that a directory
 * another user moved aside and replaced (with a link to one of this
 * user's) while the report was made never receives the file. Few names:
 * --svg and --stats.
 */
static struct {
	char *name;
	dev_t dev;
	ino_t ino;
} seen[4];

/* 0, or 1 after one line when dir is not the directory out had when
 * first checked. */
static int dir_same(const char *opt, const char *out, int dir)
{
	struct stat st;
	size_t i;

	if (fstat(dir, &st))
		return out_say(opt, out, strerror(errno));
	for (i = 0; i < sizeof(seen) / sizeof(seen[0]) && seen[i].name; i++)
		if (!strcmp(seen[i].name, out))
			return seen[i].dev == st.st_dev && seen[i].ino == st.st_ino ?
				       0 :
				       out_say(opt, out,
					       "its directory is not the one checked before the "
					       "report was made (moved or replaced since): not "
					       "written there");
	if (i == sizeof(seen) / sizeof(seen[0]))
		return out_say(opt, out, "more output files than hwprof makes");
	if (!(seen[i].name = strdup(out)))
		return out_say(opt, out, "out of memory");
	seen[i].dev = st.st_dev;
	seen[i].ino = st.st_ino;
	return 0;
}

/* Refuses an output (of option opt) that cannot be written (a symbolic
 * link, a FIFO, a device is there; no such directory) or that is one of
 * the inputs: 0, or 1 after saying so. */
int out_check(const char *opt, const char *out, char **inputs, size_t ninputs)
{
	struct stat so, si;
	struct hwp_out o;
	int r = hwp_out_open(&o, out);

	r = out_open_said(opt, out, &o, r);
	if (!r)
		r = dir_same(opt, out, o.dir);
	hwp_out_close(&o);
	if (r)
		return 1;
	if (!stat(out, &so))
		for (size_t i = 0; i < ninputs; i++)
			if (!stat(inputs[i], &si) && si.st_dev == so.st_dev &&
			    si.st_ino == so.st_ino)
				return out_say(opt, out,
					       "that is the data file being reported; "
					       "not overwriting it");
	return 0;
}

void out_drop(struct out_file *of)
{
	if (of->f)
		fclose(of->f);
	of->f = NULL;
	hwp_out_close(&of->o);
}

int out_close(struct out_file *of)
{
	int bad = fflush(of->f) || ferror(of->f), r;

	bad = fclose(of->f) || bad;
	of->f = NULL;
	r = bad ? -(errno ? errno : EIO) : hwp_out_commit(&of->o, 0);
	hwp_out_close(&of->o);
	return r ? out_say(of->opt, of->name, strerror(-r)) : 0;
}

/* A new file beside out, renamed over it at out_close(): nothing at the
 * name (a link, a FIFO, a file another user put there) is written
 * through (hwprof(1), --svg). */
int out_open(struct out_file *of, const char *opt, const char *out, char **inputs,
	     size_t ninputs)
{
	int r;

	*of = (struct out_file){ .opt = opt, .name = out };
	if (out_check(opt, out, inputs, ninputs))
		return 1;
	r = out_open_said(opt, out, &of->o, hwp_out_open(&of->o, out));
	if (!r)
		r = dir_same(opt, out, of->o.dir);
	if (!r && (r = hwp_out_temp(&of->o)))
		r = out_say(opt, out, strerror(-r));
	if (!r && !(of->f = hwp_out_stream(&of->o)))
		r = out_say(opt, out, strerror(errno));
	if (r)
		hwp_out_close(&of->o);
	return r;
}
