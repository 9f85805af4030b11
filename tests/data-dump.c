/* SPDX-License-Identifier: MIT */
/*
 * A small reader of hwprof data files for the tests, independent of
 * hwprof report: prints the model as lines the shell can check.
 *   data-dump FILE
 *     checkpoint                             (a checkpoint file only)
 *     sideband-lost N
 *     event NAME PERIOD SAMPLES LOST MISSED
 *     process PID PPID HOW STATUS COMMAND
 *     thread TID PID
 *     sample EVENT PID TID OBJECT ADDR COUNT   (OBJECT - when none)
 *   data-dump FILE func NAME
 *     PID TID COUNT for each thread with samples in the function NAME of
 *     any object (from its ELF symbol table), then "total N"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/profile/data.h"

/* [lo, hi) of function name in an ELF file, or 0 */
static int sym_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name) && s.st_size) {
				*lo = s.st_value;
				*hi = s.st_value + s.st_size;
				found = 1;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

static const char *how(enum hd_how h)
{
	return h == HD_EXITED	? "exit" :
	       h == HD_SIGNALED ? "signal" :
	       h == HD_ENDED	? "ended" :
	       h == HD_UNSEEN	? "unseen" :
				  "running";
}

int main(int argc, char **argv)
{
	struct hd_file d;
	char err[512];

	if (argc < 2) {
		fprintf(stderr, "usage: data-dump FILE [func NAME]\n");
		return 2;
	}
	if (hd_read(argv[1], &d, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	elf_version(EV_CURRENT);
	if (argc > 3 && !strcmp(argv[2], "func")) {
		uint64_t *lo = calloc(d.nobjects + 1, sizeof(*lo));
		uint64_t *hi = calloc(d.nobjects + 1, sizeof(*hi));
		uint64_t *per = calloc(d.nthreads + 1, sizeof(*per));
		uint64_t total = 0;

		for (size_t o = 0; o < d.nobjects; o++)
			if (!sym_range(d.objects[o].path, argv[3], &lo[o], &hi[o]))
				lo[o] = hi[o] = 0;
		for (size_t i = 0; i < d.nsamples; i++) {
			const struct hd_sample *s = &d.samples[i];

			if (s->object != HD_NO_OBJECT && s->addr >= lo[s->object] &&
			    s->addr < hi[s->object]) {
				per[s->thread] += s->count;
				total += s->count;
			}
		}
		for (size_t t = 0; t < d.nthreads; t++)
			if (per[t])
				printf("%d %d %llu\n", d.procs[d.threads[t].proc].pid,
				       d.threads[t].tid, (unsigned long long)per[t]);
		printf("total %llu\n", (unsigned long long)total);
		free(lo);
		free(hi);
		free(per);
		hd_free(&d);
		return 0;
	}
	if (d.checkpoint)
		printf("checkpoint\n");
	printf("sideband-lost %llu\n", (unsigned long long)d.side_lost);
	for (size_t e = 0; e < d.nevents; e++)
		printf("event %s %llu %llu %llu %llu\n", d.events[e].name,
		       (unsigned long long)d.events[e].period,
		       (unsigned long long)d.events[e].samples,
		       (unsigned long long)d.events[e].lost,
		       (unsigned long long)d.events[e].missed);
	for (size_t p = 0; p < d.nprocs; p++)
		printf("process %d %d %s %d %s\n", d.procs[p].pid, d.procs[p].ppid,
		       how(d.procs[p].how), d.procs[p].status, d.procs[p].command);
	for (size_t t = 0; t < d.nthreads; t++)
		printf("thread %d %d\n", d.threads[t].tid, d.procs[d.threads[t].proc].pid);
	for (size_t i = 0; i < d.nsamples; i++) {
		const struct hd_sample *s = &d.samples[i];
		const struct hd_thread *t = &d.threads[s->thread];

		printf("sample %s %d %d %s %llx %llu\n", d.events[s->event].name,
		       d.procs[t->proc].pid, t->tid,
		       s->object == HD_NO_OBJECT ? "-" : d.objects[s->object].path,
		       (unsigned long long)s->addr, (unsigned long long)s->count);
	}
	hd_free(&d);
	return 0;
}
