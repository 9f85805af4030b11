/* SPDX-License-Identifier: MIT */
/*
 * hwprof record under an MPI launcher: the wall clock in MPI calls
 * (hwprof(1), record, "MPI ranks"). record samples the rank itself;
 * libhwprof-mpi, preloaded into the command with HWPROF_MPI_TIMES, only
 * times the rank's MPI calls and writes them at MPI_Finalize into a file
 * of a directory only this user can enter, which record folds into its
 * own data file (mt, ms and msr lines, hwprof-data(5)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rec.h"
#include "rec-cmd.h"

#ifndef HWPROF_MPI_LIBPATH
#define HWPROF_MPI_LIBPATH ""
#endif

static char tdir[64]; /* the private directory, or "" */
static char tfile[96];

/* libhwprof-mpi's file: HWPROF_MPI_LIB (empty: none), else where it is
 * installed; NULL when it is not there. */
static const char *mpi_lib(void)
{
	const char *e = getenv("HWPROF_MPI_LIB");
	const char *p = e ? e : HWPROF_MPI_LIBPATH;

	return *p && p[0] == '/' && !access(p, R_OK) ? p : NULL;
}

/* The MPI library an ELF file needs (the first DT_NEEDED that starts
 * "libmpi", libmpi.so.40 for Open MPI), into out: 0, or -1 when it needs
 * none (a script, a static or non-MPI program) or cannot be read. */
static int mpi_needed(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), ret = -1;
	Elf *e = fd < 0 || elf_version(EV_CURRENT) == EV_NONE ?
			 NULL :
			 elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;

	while (e && ret && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !d ||
		    !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *n;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED ||
			    !(n = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)) ||
			    strncmp(n, "libmpi", 6) || strlen(n) >= len)
				continue;
			strcpy(out, n);
			ret = 0;
			break;
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return ret;
}

int rec_mpi_setup(struct rec_run *run)
{
	const char *lib = mpi_lib(), *old = getenv("LD_PRELOAD"), *t = getenv("TMPDIR");
	char *pre = NULL, want[128], have[128];

	if (run->op.pid || run->r->d.rank < 0 || !lib)
		return 0;
	/* only into a program linked with the MPI libhwprof-mpi was built
	 * for: another MPI's handles are not its handles */
	if (mpi_needed(lib, want, sizeof(want)) || !run->file ||
	    mpi_needed(run->file, have, sizeof(have)) || strcmp(want, have)) {
		if (run->r->d.rank == 0 && !run->op.quiet)
			fprintf(stderr,
				"hwprof: %s is not linked with %s: no wall clock in MPI "
				"calls for it (samples only)\n",
				run->file ? run->file : "the command",
				mpi_needed(lib, want, sizeof(want)) ? "an MPI library" : want);
		return 0;
	}
	snprintf(tdir, sizeof(tdir), "%s/hwprof-mpi-XXXXXX",
		 t && t[0] == '/' && strlen(t) < 40 ? t : "/tmp");
	if (!mkdtemp(tdir)) {
		fprintf(stderr, "hwprof: warning: %s: %s: no time in MPI for this rank\n",
			tdir, strerror(errno));
		tdir[0] = 0;
		return 0;
	}
	snprintf(tfile, sizeof(tfile), "%s/times.data", tdir);
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") <
		    0 ||
	    setenv("LD_PRELOAD", pre, 1) || setenv("HWPROF_MPI_TIMES", tfile, 1)) {
		rmdir(tdir); /* nothing else is started yet */
		die("out of memory");
	}
	free(pre);
	return 0;
}

/* The times' process: the command's own, the first of d's processes
 * otherwise. */
static uint32_t command_proc(const struct rec_run *run, const struct hd_file *d)
{
	for (size_t i = 0; i < d->nprocs; i++)
		if (d->procs[i].pid == run->pid)
			return (uint32_t)i;
	return 0;
}

void rec_mpi_fold(struct rec_run *run)
{
	struct hd_file *d = &run->r->d, t;
	char err[512];
	long *ob = NULL, *site = NULL;
	uint32_t proc;

	if (!tdir[0])
		return;
	if (access(tfile, F_OK)) {
		/* no MPI_Finalize (or not an MPI program): nothing to fold */
		rmdir(tdir);
		tdir[0] = 0;
		return;
	}
	if (hd_read(tfile, &t, err, sizeof(err))) {
		fprintf(stderr, "hwprof: warning: the rank's time in MPI is not kept: %s\n",
			err);
		goto out;
	}
	if (!d->nprocs || t.nprocs != 1 || t.nmranks != 1)
		goto done;
	proc = command_proc(run, d);
	ob = calloc(t.nobjects + 1, sizeof(*ob));
	site = calloc(t.nmsites + 1, sizeof(*site));
	if (!ob || !site)
		goto oom;
	for (size_t i = 0; i < t.nobjects; i++)
		if ((ob[i] = hd_object(d, t.objects[i].path, t.objects[i].buildid,
				       t.objects[i].size)) < 0)
			goto oom;
	t.mranks[0].proc = proc;
	if (hd_add_mrank(d, &t.mranks[0]))
		goto oom;
	for (size_t i = 0; i < t.nmsites; i++) {
		const struct hd_msite *m = &t.msites[i];

		site[i] = hd_add_msite(d,
				       m->object == HD_NO_OBJECT ? HD_NO_OBJECT :
								   (uint32_t)ob[m->object],
				       m->addr, m->call);
		if (site[i] < 0)
			goto oom;
	}
	for (size_t i = 0; i < t.nmsranks; i++) {
		struct hd_msrank x = t.msranks[i];

		x.site = (uint32_t)site[x.site];
		x.proc = proc;
		if (hd_add_msrank(d, &x))
			goto oom;
	}
	goto done;
oom:
	fprintf(stderr,
		"hwprof: warning: out of memory: the rank's time in MPI is not kept\n");
done:
	hd_free(&t);
out:
	free(ob);
	free(site);
	unlink(tfile);
	rmdir(tdir);
	tdir[0] = 0;
}

void rec_mpi_drop(void)
{
	if (!tdir[0])
		return;
	unlink(tfile);
	rmdir(tdir);
	tdir[0] = 0;
}
