/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the data file reader of the hwprof command
 * (lib/profile/data-read.c hd_read(), versions 1 to 4) on arbitrary files. A file
 * read must either be refused with one line naming it, or give a model
 * whose every index is in range; a model read is written out again and
 * must read back the same (hd_write() and hd_read() agree).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/profile/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char in[64], out[64];

static int bad_object(const struct hd_file *d, uint32_t o)
{
	return o != HD_NO_OBJECT && o >= d->nobjects;
}

static void check(const struct hd_file *d)
{
	for (size_t i = 0; i < d->nthreads; i++)
		if (d->threads[i].proc >= d->nprocs)
			abort();
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];

		/* a job file's samples are summed over the ranks: no thread */
		if (s->event >= d->nevents || bad_object(d, s->object) ||
		    (d->job ? s->thread != HD_NO_THREAD : s->thread >= d->nthreads))
			abort();
	}
	if (!d->job && (d->nfuncs || d->nfcounts || d->nrtotals))
		abort(); /* version 3's job lines: job files only */
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct hd_func *f = &d->funcs[i];

		if (f->event >= d->nevents || bad_object(d, f->object) || f->min > f->max ||
		    f->max > f->sum || f->ranks > (uint32_t)d->size)
			abort();
	}
	for (size_t i = 0; i < d->nfcounts; i++)
		if (d->fcounts[i].func >= d->nfuncs || d->fcounts[i].proc >= d->nprocs)
			abort();
	for (size_t i = 0; i < d->nrtotals; i++)
		if (d->rtotals[i].proc >= d->nprocs || d->rtotals[i].event >= d->nevents)
			abort();
	/* version 4: a node's parent comes before it; a path's event has a
	 * paths line */
	for (size_t i = 0; i < d->cct.n; i++)
		if ((d->cct.node[i].parent != HD_NO_NODE && d->cct.node[i].parent >= i) ||
		    bad_object(d, d->cct.node[i].object) ||
		    d->cct.node[i].depth > HD_MAX_DEPTH)
			abort();
	for (size_t i = 0; i < d->npaths; i++) {
		const struct hd_path *p = &d->paths[i];

		if (p->event >= d->nevents || p->node >= d->cct.n ||
		    d->events[p->event].callgraph == HD_CG_NONE ||
		    (d->job ? p->thread != HD_NO_THREAD : p->thread >= d->nthreads))
			abort();
	}
	for (size_t i = 0; i < d->nevents; i++)
		if (d->events[i].cut > d->events[i].chains)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_file d, e;
	char err[512];
	FILE *f;

	if (!*in) {
		snprintf(in, sizeof(in), "/tmp/hwprof-fuzz-data-%d.in", (int)getpid());
		snprintf(out, sizeof(out), "/tmp/hwprof-fuzz-data-%d.out", (int)getpid());
	}
	f = fopen(in, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (hd_read(in, &d, err, sizeof(err))) {
		if (!strstr(err, in) || strchr(err, '\n'))
			abort(); /* one line, naming the file */
		return 0;
	}
	check(&d);
	f = fopen(out, "w");
	if (f) {
		if (hd_write(f, &d))
			abort();
		fclose(f);
		if (hd_read(out, &e, err, sizeof(err)))
			abort(); /* what we write, we read */
		if (e.nevents != d.nevents || e.nprocs != d.nprocs ||
		    e.nthreads != d.nthreads || e.nobjects != d.nobjects ||
		    e.nsamples != d.nsamples || e.job != d.job || e.size != d.size ||
		    e.top != d.top || e.nfuncs != d.nfuncs || e.nfcounts != d.nfcounts ||
		    e.nrtotals != d.nrtotals || e.program_size != d.program_size ||
		    e.cct.n != d.cct.n || e.npaths != d.npaths || e.side_lost != d.side_lost ||
		    e.checkpoint != d.checkpoint)
			abort();
		for (size_t i = 0; i < d.nprocs; i++)
			if (e.procs[i].how != d.procs[i].how)
				abort(); /* unseen stays unseen: version 4 */
		for (size_t i = 0; i < d.cct.n; i++)
			if (e.cct.node[i].parent != d.cct.node[i].parent ||
			    e.cct.node[i].object != d.cct.node[i].object ||
			    e.cct.node[i].addr != d.cct.node[i].addr ||
			    e.cct.node[i].depth != d.cct.node[i].depth)
				abort();
		if (d.npaths && memcmp(e.paths, d.paths, d.npaths * sizeof(*d.paths)))
			abort();
		for (size_t i = 0; i < d.nevents; i++)
			if (e.events[i].callgraph != d.events[i].callgraph ||
			    e.events[i].chains != d.events[i].chains ||
			    e.events[i].cut != d.events[i].cut ||
			    e.events[i].dropped != d.events[i].dropped)
				abort();
		for (size_t i = 0; i < d.nobjects; i++)
			if (e.objects[i].size != d.objects[i].size)
				abort();
		for (size_t i = 0; i < d.nfuncs; i++)
			if (memcmp(&e.funcs[i], &d.funcs[i], sizeof(d.funcs[i])))
				abort();
		for (size_t i = 0; i < d.nfcounts; i++)
			if (memcmp(&e.fcounts[i], &d.fcounts[i], sizeof(d.fcounts[i])))
				abort();
		for (size_t i = 0; i < d.nrtotals; i++)
			if (memcmp(&e.rtotals[i], &d.rtotals[i], sizeof(d.rtotals[i])))
				abort();
		for (size_t i = 0; i < d.nsamples; i++)
			if (e.samples[i].count != d.samples[i].count ||
			    e.samples[i].addr != d.samples[i].addr)
				abort();
		hd_free(&e);
	}
	hd_free(&d);
	return 0;
}
