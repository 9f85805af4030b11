/* SPDX-License-Identifier: MIT */
/*
 * The data file (hwprof-data(5)): the model in memory, and adding to it
 * (events, processes, threads, objects, samples merged by key). Reading
 * is lib/profile/data-read.c, writing lib/profile/data-write.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

void hd_init(struct hd_file *d)
{
	memset(d, 0, sizeof(*d));
	d->version = HD_VERSION;
	d->rank = -1;
	d->size = -1;
}

void hd_drop_names(struct hd_file *d)
{
	for (size_t i = 0; i < d->nobjects; i++) {
		free(d->objects[i].kept_why);
		d->objects[i].kept_why = NULL;
		d->objects[i].kept = 0;
	}
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i].name);
	for (size_t i = 0; i < d->nlines; i++)
		free(d->lines[i].func);
	hd_strs_free(&d->srcs);
	free(d->names);
	free(d->lines);
	d->names = NULL;
	d->lines = NULL;
	d->nnames = d->nlines = 0;
}

void hd_free(struct hd_file *d)
{
	for (size_t i = 0; i < d->nevents; i++) {
		free(d->events[i].name);
		free(d->events[i].missed_why);
	}
	for (size_t i = 0; i < d->nprocs; i++) {
		free(d->procs[i].host);
		free(d->procs[i].command);
	}
	for (size_t i = 0; i < d->nthreads; i++)
		free(d->threads[i].comm);
	for (size_t i = 0; i < d->nobjects; i++) {
		free(d->objects[i].path);
		free(d->objects[i].buildid);
	}
	hd_drop_names(d);
	free(d->events);
	free(d->procs);
	free(d->threads);
	free(d->objects);
	free(d->samples);
	hwp_htab_free(&d->index);
	free(d->host);
	free(d->command);
	free(d->program);
	free(d->program_id);
	free(d->funcs);
	free(d->fcounts);
	free(d->rtotals);
	free(d->ttotals);
	free(d->mranks);
	for (size_t i = 0; i < d->nmsites; i++)
		free(d->msites[i].call);
	free(d->msites);
	free(d->msranks);
	hwp_cct_free(&d->cct);
	free(d->paths);
	hwp_htab_free(&d->pindex);
	hd_init(d);
}

/* Makes room for element n of an array that holds n: the capacity is 8,
 * then doubles at each power of two. 0 or -1. */
int hd_grow(void *pp, size_t n, size_t sz)
{
	void **p = pp;
	size_t cap;
	void *np;

	if (n && (n < 8 || (n & (n - 1))))
		return 0; /* room left */
	cap = n ? 2 * n : 8;
	if (cap > SIZE_MAX / sz)
		return -1;
	np = realloc(*p, cap * sz);
	if (!np)
		return -1;
	*p = np;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

long hd_add_event(struct hd_file *d, const char *name, uint64_t period)
{
	struct hd_event *e;

	if (hd_grow(&d->events, d->nevents, sizeof(*e)))
		return -1;
	e = &d->events[d->nevents];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name ? name : "");
	e->period = period;
	if (!e->name)
		return -1;
	return (long)d->nevents++;
}

int hd_unsampled(const struct hd_event *e, double *share, double *total, double *held)
{
	double t, h;

	if (e->count_scope == HD_COUNT_NONE || !e->period || !e->count)
		return -1;
	t = (double)e->count;
	/* a multiplexed event counted only while it ran: scaled to the
	 * whole time, as perf stat does; its samples lack the rest */
	if (e->running && e->running < e->enabled)
		t = t * (double)e->enabled / (double)e->running;
	h = ((double)e->samples + (double)e->lost) * (double)e->period;
	if (share)
		*share = h >= t ? 0 : 1 - h / t;
	if (total)
		*total = t;
	if (held)
		*held = h;
	return 0;
}

long hd_add_process(struct hd_file *d, int pid, int ppid, const char *command)
{
	struct hd_process *p;

	if (hd_grow(&d->procs, d->nprocs, sizeof(*p)))
		return -1;
	p = &d->procs[d->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	p->rank = -1;
	p->command = strdup(command ? command : "");
	if (!p->command)
		return -1;
	return (long)d->nprocs++;
}

long hd_add_thread(struct hd_file *d, int tid, uint32_t proc, const char *comm)
{
	struct hd_thread *t;

	if (hd_grow(&d->threads, d->nthreads, sizeof(*t)))
		return -1;
	t = &d->threads[d->nthreads];
	t->tid = tid;
	t->proc = proc;
	t->comm = dup_or_null(comm);
	if (comm && !t->comm)
		return -1;
	return (long)d->nthreads++;
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

long hd_object(struct hd_file *d, const char *path, const char *buildid, uint64_t size)
{
	struct hd_object *o;

	path = path ? path : "";
	for (size_t i = 0; i < d->nobjects; i++) {
		o = &d->objects[i];
		if (!same(o->path, path) || !same(o->buildid, buildid))
			continue;
		if (o->size && size && o->size != size)
			continue; /* another file at that path */
		if (!o->size)
			o->size = size;
		return (long)i;
	}
	if (hd_grow(&d->objects, d->nobjects, sizeof(*o)))
		return -1;
	o = &d->objects[d->nobjects];
	o->path = strdup(path);
	o->buildid = dup_or_null(buildid);
	o->size = size;
	o->kept = 0;
	o->kept_why = NULL;
	if (!o->path || (buildid && !o->buildid))
		return -1;
	return (long)d->nobjects++;
}

int hd_add_func(struct hd_file *d, const struct hd_func *f)
{
	if (hd_grow(&d->funcs, d->nfuncs, sizeof(*f)))
		return -1;
	d->funcs[d->nfuncs++] = *f;
	return 0;
}

int hd_add_fcount(struct hd_file *d, uint32_t func, uint32_t proc, uint64_t count)
{
	if (hd_grow(&d->fcounts, d->nfcounts, sizeof(*d->fcounts)))
		return -1;
	d->fcounts[d->nfcounts++] = (struct hd_fcount){ func, proc, count };
	return 0;
}

int hd_add_name(struct hd_file *d, uint32_t object, uint64_t lo, uint64_t hi, const char *name)
{
	struct hd_name *n;

	if (hd_grow(&d->names, d->nnames, sizeof(*n)))
		return -1;
	n = &d->names[d->nnames];
	*n = (struct hd_name){ object, lo, hi, strdup(name ? name : "") };
	if (!n->name)
		return -1;
	d->nnames++;
	return 0;
}

int hd_add_line(struct hd_file *d, uint32_t object, uint32_t src, uint64_t addr, int line,
		const char *func)
{
	struct hd_line *l;

	if (hd_grow(&d->lines, d->nlines, sizeof(*l)))
		return -1;
	l = &d->lines[d->nlines];
	*l = (struct hd_line){ object, src, addr, line, dup_or_null(func) };
	if (func && !l->func)
		return -1;
	d->nlines++;
	return 0;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

long hd_str_id(struct hd_strs *t, const char *s)
{
	uint64_t h = str_hash(s);
	size_t k;
	long i;

	if (hwp_htab_reserve(&t->index, t->n + 1))
		return -1;
	for (k = hwp_htab_start(&t->index, h); (i = hwp_htab_find(&t->index, &k, h)) >= 0;
	     k = hwp_htab_step(&t->index, k))
		if (!strcmp(t->s[i], s))
			return i;
	if (hd_grow(&t->s, t->n, sizeof(*t->s)) || !(t->s[t->n] = strdup(s)))
		return -1;
	hwp_htab_put(&t->index, k, h, t->n);
	return (long)t->n++;
}

void hd_strs_free(struct hd_strs *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	hwp_htab_free(&t->index);
	memset(t, 0, sizeof(*t));
}

long hd_src(struct hd_file *d, const char *path)
{
	return hd_str_id(&d->srcs, path);
}

int hd_add_rtotal(struct hd_file *d, const struct hd_rtotal *t)
{
	if (hd_grow(&d->rtotals, d->nrtotals, sizeof(*t)))
		return -1;
	d->rtotals[d->nrtotals++] = *t;
	return 0;
}

int hd_add_ttotal(struct hd_file *d, const struct hd_ttotal *t)
{
	if (hd_grow(&d->ttotals, d->nttotals, sizeof(*t)))
		return -1;
	d->ttotals[d->nttotals++] = *t;
	return 0;
}

int hd_add_mrank(struct hd_file *d, const struct hd_mrank *m)
{
	if (hd_grow(&d->mranks, d->nmranks, sizeof(*m)))
		return -1;
	d->mranks[d->nmranks++] = *m;
	return 0;
}

int hd_add_msrank(struct hd_file *d, const struct hd_msrank *m)
{
	if (hd_grow(&d->msranks, d->nmsranks, sizeof(*m)))
		return -1;
	d->msranks[d->nmsranks++] = *m;
	return 0;
}

long hd_add_msite(struct hd_file *d, uint32_t object, uint64_t addr, const char *call)
{
	char *c = strdup(call);

	if (!c || hd_grow(&d->msites, d->nmsites, sizeof(*d->msites))) {
		free(c);
		return -1;
	}
	d->msites[d->nmsites] = (struct hd_msite){ object, addr, c };
	return (long)d->nmsites++;
}

/*
 * MPI objects by file name: the MPI library itself and what it runs on
 * (its runtime, plugins, process manager and transports). A name starts
 * with one of these prefixes; Open MPI's plugins are mca_*.so.
 */
int hd_object_is_mpi(const char *path)
{
	static const char *const pre[] = {
		"libmpi",	 "libopen-pal",
		"libopen-rte",	 "libopen-orted",
		"libmca_",	 "mca_",
		"libpmix",	 "libprrte",
		"libpmi",	 "libhcoll",
		"libucp",	 "libucs",
		"libuct",	 "libucm",
		"libfabric",	 "libpsm",
		"libibverbs",	 "libmlx",
		"librdmacm",	 "libhwloc",
		"libevent_core", "libevent_pthreads",
		"libcxi",	 "libxpmem",
		"libknem",
	};
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	if (!base)
		return 0;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(base, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counting: an open-addressing index over samples[]                    */

static uint64_t key_hash(uint32_t e, uint32_t t, uint32_t o, uint64_t a)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)e << 48) ^ ((uint64_t)t << 20) ^ o;
	return h * 0xff51afd7ed558ccdull; /* mixed in the high half (htab.h) */
}

int hd_count(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t object,
	     uint64_t addr, uint64_t n)
{
	return hd_count_at(d, event, thread, object, addr, n) < 0 ? -1 : 0;
}

long hd_count_at(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t object,
		 uint64_t addr, uint64_t n)
{
	uint64_t h = key_hash(event, thread, object, addr);
	struct hd_sample *s;
	size_t k;
	long i;

	if (hwp_htab_reserve(&d->index, d->nsamples + 1))
		return -1;
	for (k = hwp_htab_start(&d->index, h); (i = hwp_htab_find(&d->index, &k, h)) >= 0;
	     k = hwp_htab_step(&d->index, k)) {
		s = &d->samples[i];
		if (s->event == event && s->thread == thread && s->object == object &&
		    s->addr == addr) {
			s->count = hwp_add_sat(s->count, n);
			return i;
		}
	}
	if (hd_grow(&d->samples, d->nsamples, sizeof(*s)))
		return -1;
	s = &d->samples[d->nsamples];
	*s = (struct hd_sample){ event, thread, object, addr, n };
	hwp_htab_put(&d->index, k, h, d->nsamples);
	return (long)d->nsamples++;
}

/* ------------------------------------------------------------------ */
/* Helpers added for hwprof report's merge                              */

int hd_add_samples(struct hd_file *d, const struct hd_sample *s, size_t n)
{
	size_t cap = 8;
	struct hd_sample *ns;

	if (!n)
		return 0;
	if (n > SIZE_MAX / 2 - d->nsamples)
		return -1;
	/* the capacity hd_grow() keeps: 8, then the power of two above n */
	while (cap < d->nsamples + n)
		cap *= 2;
	if (cap > SIZE_MAX / sizeof(*ns))
		return -1;
	ns = realloc(d->samples, cap * sizeof(*ns));
	if (!ns)
		return -1;
	d->samples = ns;
	memcpy(d->samples + d->nsamples, s, n * sizeof(*s));
	d->nsamples += n;
	hwp_htab_free(&d->index);
	return 0;
}

int hd_reindex(struct hd_file *d)
{
	hwp_htab_free(&d->index);
	if (hwp_htab_reserve(&d->index, d->nsamples + 1))
		return -1;
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];

		hwp_htab_add(&d->index, key_hash(s->event, s->thread, s->object, s->addr), i);
	}
	return 0;
}
