/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's output file: its name (-o's %r %h %p, an MPI rank's
 * default name), the checks made before anything runs (a regular file,
 * never a device, FIFO, directory or kernel file system; a directory that
 * takes a new file), and the atomic write: a temp file beside it renamed
 * over it, so a reader never sees half a file.
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
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID",
};
static const char *const size_vars[] = {
	"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
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
		*size = -1;	/* not a size this rank fits in */
}

/*
 * -o with %r (rank), %h (host), %p (hwprof record's pid) and %% put in:
 * the name, malloc'd, or NULL after one line on stderr (*usage set when
 * the pattern itself is wrong).
 */
static char *out_expand(const char *arg, int rank, const char *host, int *usage)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	*usage = 0;
	if (!m) {
		die("out of memory");
		return NULL;
	}
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
			if (rank < 0) {
				fclose(m);
				free(buf);
				die("-o %s: %%r, but no MPI launcher gave a rank (none of "
				    "OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID is set)",
				    arg);
				return NULL;
			}
			fprintf(m, "%d", rank);
			break;
		default:
			fclose(m);
			free(buf);
			*usage = 1;
			die("-o %s: %%%s is not one of %%r (rank), %%h (host), %%p (pid), %%%%",
			    arg, *p ? (char[]){ *p, 0 } : "");
			return NULL;
		}
	}
	if (fclose(m)) {
		free(buf);
		die("out of memory");
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------------ */
/* The file                                                             */

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* A temp file in the output's directory: rename() then replaces the old
 * file at once, and a reader never sees half a file. */
static int out_temp(struct rec_out *o)
{
	char *slash = strrchr(o->path, '/');
	int fd;

	free(o->tmp);
	if (asprintf(&o->tmp, "%.*s/.%s.XXXXXX", (int)(slash - o->path), o->path,
		     slash + 1) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;

		free(o->tmp);
		o->tmp = NULL;
		return e;
	}
	o->fd = fd;
	return 0;
}

/* arg made absolute (relative to the directory record started in), or
 * NULL after one line */
static char *out_absolute(const char *arg)
{
	char cwd[PATH_MAX], *abs = NULL;

	if (arg[0] == '/') {
		abs = strdup(arg);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			die("-o %s: cannot name the current directory: %s", arg,
			    strerror(errno));
			return NULL;
		}
		if (asprintf(&abs, "%s/%s", strcmp(cwd, "/") ? cwd : "", arg) < 0)
			abs = NULL;
	}
	if (!abs)
		die("out of memory");
	return abs;
}

/* 1 when path's directory is in a kernel file system (/proc, /sys...) */
static int in_kernel_fs(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	struct statfs sf;
	int r;

	if (!dir)
		return 0;
	r = statfs(dir, &sf);
	free(dir);
	return !r && (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC ||
		      sf.f_type == DEBUGFS_MAGIC || sf.f_type == CGROUP_SUPER_MAGIC ||
		      sf.f_type == CGROUP2_SUPER_MAGIC);
}

/*
 * Checks -o before anything runs: what is there must be a regular file
 * (a symlink is followed), never a device, FIFO or directory, and not in
 * a kernel file system; its directory must take a new file.
 */
static int out_prepare(struct rec_out *o, const char *arg)
{
	char *abs, *real;
	struct stat st;
	int r;

	o->fd = -1;
	if (!*arg || arg[strlen(arg) - 1] == '/')
		return die("-o %s: not a file name", arg) + 1;	/* a usage error */
	abs = out_absolute(arg);
	if (!abs)
		return 1;
	if (!stat(abs, &st)) {
		if (!S_ISREG(st.st_mode)) {
			free(abs);
			return die("-o %s: %s; hwprof record writes only regular files", arg,
				   kind_of(st.st_mode));
		}
		real = realpath(abs, NULL);	/* write where the link points */
		if (real) {
			free(abs);
			abs = real;
		}
	} else if (errno != ENOENT) {
		r = errno;
		free(abs);
		return die("-o %s: %s", arg, strerror(r));
	}
	o->path = abs;
	if (in_kernel_fs(abs))
		return die("-o %s: a kernel file system; hwprof record writes only regular files",
			   arg);
	/* the directory takes a new file: checked now, made at the write (a
	 * SIGKILL of record leaves no empty temp file behind) */
	r = out_temp(o);
	if (r)
		return die("-o %s: cannot create a file beside it: %s", arg, strerror(-r));
	unlink(o->tmp);
	close(o->fd);
	o->fd = -1;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

/* Writes d into the temp file and renames it over the output. */
int rec_out_write(struct rec_out *o, const struct hd_file *d)
{
	mode_t um = umask(0);
	FILE *f;
	int r, fd;

	umask(um);
	if (!o->tmp && (r = out_temp(o)))
		return r;
	fd = dup(o->fd);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (ftruncate(o->fd, 0) || lseek(fd, 0, SEEK_SET)) {
		r = -errno;
		fclose(f);
		return r;
	}
	r = hd_write(f, d);
	if (fclose(f) && !r)
		r = -errno;
	if (!r && fchmod(o->fd, 0666 & ~um))
		r = -errno;
	if (!r && rename(o->tmp, o->path))
		r = -errno;
	if (r)
		return r == -EIO && errno ? -errno : r;
	close(o->fd);
	o->fd = -1;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void rec_out_free(struct rec_out *o)
{
	if (o->tmp)
		unlink(o->tmp);
	if (o->fd >= 0)
		close(o->fd);
	free(o->tmp);
	free(o->path);
}

/* The rank, host and program in the data file. */
static int describe(struct rec_run *run, int rank, int size, const char *host)
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
		return die("out of memory");
	return 0;
}

int rec_out_setup(struct rec_run *run)
{
	char host[HOST_NAME_MAX + 1] = "";
	const char *pattern = run->op.out;
	int rank, size, bad, ret;

	launcher_rank(&rank, &size);
	if (gethostname(host, sizeof(host) - 1))
		strcpy(host, "localhost");
	/* under a launcher, ranks never share the default name */
	if (!pattern)
		pattern = rank >= 0 ? "hwprof.%r.data" : "hwprof.data";
	run->outname = out_expand(pattern, rank, host, &bad);
	if (!run->outname)
		return bad ? 2 : 1;
	run->op.out = run->outname;
	ret = describe(run, rank, size, host);
	return ret ? ret : out_prepare(&run->out, run->op.out);
}
