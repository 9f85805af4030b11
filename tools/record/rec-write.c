/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's output file: its name (-o's %r %h %p, an MPI rank's
 * default name), the checks made before anything runs (nothing or a
 * regular file, never a link, device, FIFO, directory or kernel file
 * system; a directory that takes a new file), and the atomic write
 * (lib/profile/outfile.c): a temp file beside it renamed over it, so a reader
 * never sees half a file and nothing at the name is written through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cli.h"
#include "outfile.h"
#include "rec-cmd.h"
#include "symbols.h"

/* ------------------------------------------------------------------ */
/* MPI launchers                                                        */

/*
 * The rank a launcher gave this process: the first of these variables
 * that is set (Open MPI's mpirun, a PMIx launcher, MPICH's and Intel MPI's
 * Hydra, Slurm's srun). The world size comes from the first size variable
 * set, -1 when none is (a PMIx launcher alone names no size).
 */
static const char *const rank_vars[] = {
	"OMPI_COMM_WORLD_RANK",
	"PMIX_RANK",
	"PMI_RANK",
	"SLURM_PROCID",
};
static const char *const size_vars[] = {
	"OMPI_COMM_WORLD_SIZE",
	"PMI_SIZE",
	"SLURM_NTASKS",
};

static int env_int(const char *name, long max)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	x = strtol(v, &end, 10);
	return errno || *end || x > max ? -1 : (int)x;
}

static void launcher_rank(int *rank, int *size)
{
	*rank = *size = -1;
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && *rank < 0; i++) {
		/* a batch script runs as task 0 of its Slurm job too: only a
		 * step srun started (SLURM_STEP_ID) has ranks */
		if (!strcmp(rank_vars[i], "SLURM_PROCID") && !getenv("SLURM_STEP_ID"))
			continue;
		*rank = env_int(rank_vars[i], 1 << 30);
	}
	for (size_t i = 0; i < sizeof(size_vars) / sizeof(size_vars[0]) && *size < 0; i++)
		*size = env_int(size_vars[i], 1 << 30);
	if (*size <= *rank)
		*size = -1; /* not a size this rank fits in */
}

/*
 * -o with %r (rank), %h (host), %p (hwprof record's pid) and %% put in:
 * the name, malloc'd, or NULL after one line on stderr when the pattern
 * itself is wrong (a usage error).
 */
static char *out_expand(const char *arg, int rank, const char *host)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		die("out of memory");
	for (const char *p = arg; *p; p++) {
		if (*p != '%') {
			fputc(*p, m);
			continue;
		}
		switch (*++p) {
		case '%':
			fputc('%', m);
			break;
		case 'p':
			fprintf(m, "%d", (int)getpid());
			break;
		case 'h':
			fputs(host, m);
			break;
		case 'r':
			if (rank < 0)
				die("-o %s: %%r, but no MPI launcher gave a rank (none of "
				    "OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID is set)",
				    arg);
			fprintf(m, "%d", rank);
			break;
		default:
			fclose(m);
			free(buf);
			usage_error("-o %s: %%%s is not one of %%r (rank), %%h (host), %%p (pid), "
				    "%%%%",
				    arg, *p ? (char[]){ *p, 0 } : "");
			return NULL;
		}
	}
	if (fclose(m))
		die("out of memory");
	return buf;
}

/* ------------------------------------------------------------------ */
/* The file                                                             */

/* 1 when the output's directory is in a kernel file system (/proc,
 * /sys...) */
static int in_kernel_fs(int dir)
{
	struct statfs sf;

	return !fstatfs(dir, &sf) &&
	       (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC ||
		sf.f_type == DEBUGFS_MAGIC || sf.f_type == CGROUP_SUPER_MAGIC ||
		sf.f_type == CGROUP2_SUPER_MAGIC);
}

/*
 * Checks -o before anything runs (hwprof(1)): at the name nothing or a
 * regular file, never a symbolic link, device, FIFO or directory; not in a
 * kernel file system; a directory that takes a new file. The directory is
 * not kept open while the command runs (a descriptor fewer for the
 * events): each write opens it again by its path, and writes only if that
 * is still the directory checked here (its device and inode), so that a
 * directory another user moves aside and replaces with a link meanwhile
 * never sends the file elsewhere.
 */
static int out_prepare(struct rec_out *o, const char *arg)
{
	int r = hwp_out_open(&o->f, arg);
	struct stat st;

	o->name = arg;
	if (r == -EISDIR && (!*arg || arg[strlen(arg) - 1] == '/'))
		return usage_error("-o %s: not a file name", arg);
	if (r == HWP_OUT_NOTREG)
		die("-o %s: %s; hwprof record writes only regular files, never "
		    "through a link",
		    arg, hwp_out_what(o->f.found));
	if (r == -EISDIR)
		die("-o %s: a directory; hwprof record writes only regular files", arg);
	if (r == -ENOMEM)
		die("out of memory");
	if (r)
		die("-o %s: cannot create a file beside it: %s", arg, strerror(-r));
	if (in_kernel_fs(o->f.dir))
		die("-o %s: a kernel file system; hwprof record writes only regular files",
		    arg);
	if (fstat(o->f.dir, &st))
		die("-o %s: cannot create a file beside it: %s", arg, strerror(errno));
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	/* the directory takes a new file: checked now, made at the write (a
	 * SIGKILL of record leaves no empty temp file behind) */
	r = hwp_out_temp(&o->f);
	hwp_out_close(&o->f);
	if (r)
		die("-o %s: cannot create a file beside it: %s", arg, strerror(-r));
	return 0;
}

/* Writes d into a new temp file and renames it over the output. What
 * another user put at the name since the check (a link, in a directory
 * others can write) is replaced by the rename, never followed; a
 * directory that is not the one checked is not written in. */
int rec_out_write(struct rec_out *o, const struct hd_file *d)
{
	FILE *f = NULL;
	int r = hwp_out_open(&o->f, o->name);
	struct stat st;

	if (r == HWP_OUT_NOTREG)
		r = 0;
	if (!r && fstat(o->f.dir, &st))
		r = -errno;
	if (!r && (st.st_dev != o->dev || st.st_ino != o->ino))
		r = REC_OUT_MOVED;
	if (!r)
		r = hwp_out_temp(&o->f);
	if (!r && !(f = hwp_out_stream(&o->f)))
		r = -errno;
	if (!r) {
		errno = 0;
		r = hd_write(f, d);
		if (r == -EIO && errno)
			r = -errno; /* the write's own error: EFBIG, ENOSPC */
		if (fclose(f) && !r)
			r = -errno;
	}
	if (!r)
		r = hwp_out_commit(&o->f, 0);
	hwp_out_close(&o->f);
	return r;
}

const char *rec_out_strerror(int r)
{
	return r == REC_OUT_MOVED ? "its directory is not the one checked when record started "
				    "(moved or replaced since): not written there" :
				    strerror(-r);
}

void rec_out_free(struct rec_out *o)
{
	hwp_out_close(&o->f);
}

/* The rank, host and program in the data file. */
static void describe(struct rec_run *run, int rank, int size, const char *host)
{
	struct hd_file *d = &run->r->d;

	d->rank = rank;
	d->size = rank >= 0 ? size : -1;
	elf_version(EV_CURRENT);
	d->program = realpath(run->file, NULL);
	if (!d->program)
		d->program = strdup(run->file);
	d->program_id = sym_file_buildid(d->program ? d->program : run->file);
	if (d->program)
		d->program_size = sym_file_size(d->program);
	if (!(d->host = strdup(host)) || !d->program)
		die("out of memory");
}

int rec_out_setup(struct rec_run *run)
{
	char host[HOST_NAME_MAX + 1] = "";
	const char *pattern = run->op.out;
	int rank, size;

	launcher_rank(&rank, &size);
	if (gethostname(host, sizeof(host) - 1))
		strcpy(host, "localhost");
	/* under a launcher, ranks never share the default name */
	if (!pattern)
		pattern = rank >= 0 ? "hwprof.%r.data" : "hwprof.data";
	run->outname = out_expand(pattern, rank, host);
	if (!run->outname)
		return 2;
	run->op.out = run->outname;
	describe(run, rank, size, host);
	return out_prepare(&run->out, run->op.out);
}
