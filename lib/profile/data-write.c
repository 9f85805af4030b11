/* SPDX-License-Identifier: MIT */
/*
 * Writing the data file (hwprof-data(5)): version 4 when it holds call
 * paths, kept names, an event's count or the losses version 4 added,
 * else 3 (the same lines less 4's), one line per entry, every string
 * escaped so that it fits on its line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "data.h"

/* " SIZE " of an object or the program: its size in bytes, - unknown. */
static void put_size(FILE *f, uint64_t size)
{
	if (size)
		fprintf(f, " %llu ", (unsigned long long)size);
	else
		fputs(" - ", f);
}

void hd_put_escaped(FILE *f, const char *s, int token)
{
	if (!s || (token && !*s)) {
		fputc('-', f); /* an absent token */
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f || (token && *p == ' ') ||
			    (token && p == (const unsigned char *)s && *p == '-' && !p[1]))
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
}

static const char *how_name(enum hd_how h)
{
	return h == HD_EXITED	? "exit" :
	       h == HD_SIGNALED ? "signal" :
	       h == HD_ENDED	? "ended" :
	       h == HD_UNSEEN	? "unseen" :
				  "running";
}

/* The header lines: version, host, rank, job, program, command. */
static void write_head(FILE *f, const struct hd_file *d)
{
	int paths = 0;

	/* version 3 where nothing needs 4: readers of hwprof 0.2 read it */
	for (size_t i = 0; i < d->nevents; i++)
		paths |= d->events[i].callgraph != HD_CG_NONE ||
			 d->events[i].count_scope != HD_COUNT_NONE;
	for (size_t i = 0; i < d->nobjects; i++)
		paths |= d->objects[i].kept;
	paths |= d->cct.n || d->srcs.n || d->nnames || d->nlines || d->nmranks || d->nmsites ||
		 d->nttotals;
	/* and the losses version 4 added */
	paths |= d->side_lost || d->checkpoint;
	for (size_t i = 0; i < d->nprocs; i++)
		paths |= d->procs[i].how == HD_UNSEEN;
	fprintf(f, "hwprof-data %d\n", paths ? HD_VERSION : 3);
	if (d->host) {
		fputs("host ", f);
		hd_put_escaped(f, d->host, 1);
		fputc('\n', f);
	}
	if (d->rank >= 0)
		fprintf(f, "rank %d %d\n", d->rank, d->size);
	if (d->job)
		fprintf(f, "job %d %u\n", d->size, d->top);
	if (d->program) {
		fputs("program ", f);
		hd_put_escaped(f, d->program_id, 1);
		put_size(f, d->program_size);
		hd_put_escaped(f, d->program, 0);
		fputc('\n', f);
	}
	fputs("command ", f);
	hd_put_escaped(f, d->command ? d->command : "", 0);
	fputc('\n', f);
	if (d->checkpoint)
		fputs("checkpoint\n", f);
	if (d->side_lost)
		fprintf(f, "sideband-lost %llu\n", (unsigned long long)d->side_lost);
}

/* The event, process, thread and object lines. */
static void write_tables(FILE *f, const struct hd_file *d)
{
	for (size_t i = 0; i < d->nevents; i++) {
		const struct hd_event *e = &d->events[i];

		fprintf(f, "event %zu %llu %llu %llu %llu %llu ", i,
			(unsigned long long)e->period, (unsigned long long)e->samples,
			(unsigned long long)e->lost, (unsigned long long)e->throttled,
			(unsigned long long)e->missed);
		hd_put_escaped(f, e->missed ? e->missed_why : NULL, 1);
		fputc(' ', f);
		hd_put_escaped(f, e->name, 0);
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->nprocs; i++) {
		const struct hd_process *p = &d->procs[i];

		/* a process of a rank's file is of that rank */
		fprintf(f, "process %zu %d %d %d %s %d ", i, p->pid, p->ppid,
			p->rank >= 0 ? p->rank : d->rank, how_name(p->how), p->status);
		hd_put_escaped(f, p->host, 1);
		fputc(' ', f);
		hd_put_escaped(f, p->command, 0);
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct hd_thread *t = &d->threads[i];

		fprintf(f, "thread %zu %u %d ", i, t->proc, t->tid);
		hd_put_escaped(f, t->comm ? t->comm : "", 0);
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->nobjects; i++) {
		const struct hd_object *o = &d->objects[i];

		fprintf(f, "object %zu ", i);
		hd_put_escaped(f, o->buildid, 1);
		put_size(f, o->size);
		hd_put_escaped(f, o->path, 0);
		fputc('\n', f);
	}
}

static const char *cg_name(int cg)
{
	return cg == HD_CG_DWARF ? "dwarf" : "fp";
}

/* Version 4: each event's call-path counts and own count, the tree's nodes (parents
 * first), the samples per path. */
static void write_paths(FILE *f, const struct hd_file *d)
{
	for (size_t i = 0; i < d->nevents; i++) {
		const struct hd_event *e = &d->events[i];

		if (e->callgraph != HD_CG_NONE) {
			fprintf(f, "paths %zu %s %llu %llu", i, cg_name(e->callgraph),
				(unsigned long long)e->chains, (unsigned long long)e->cut);
			/* optional, never 0: a file without dropped frames
			 * reads as before */
			if (e->dropped)
				fprintf(f, " %llu", (unsigned long long)e->dropped);
			fputc('\n', f);
		}
		if (e->count_scope != HD_COUNT_NONE)
			fprintf(f, "count %zu %s %llu %llu %llu\n", i,
				e->count_scope == HD_COUNT_ALL ? "all" : "user",
				(unsigned long long)e->count, (unsigned long long)e->enabled,
				(unsigned long long)e->running);
	}
	for (size_t i = 0; i < d->cct.n; i++) {
		const struct hwp_cct_node *x = &d->cct.node[i];
		char pa[16] = "-", o[16] = "-";

		if (x->parent != HD_NO_NODE)
			snprintf(pa, sizeof(pa), "%u", x->parent);
		if (x->object != HD_NO_OBJECT)
			snprintf(o, sizeof(o), "%u", x->object);
		fprintf(f, "n %zu %s %s %llx\n", i, pa, o, (unsigned long long)x->addr);
	}
	for (size_t i = 0; i < d->npaths; i++) {
		const struct hd_path *p = &d->paths[i];
		char t[16] = "-";

		if (p->thread != HD_NO_THREAD)
			snprintf(t, sizeof(t), "%u", p->thread);
		fprintf(f, "c %u %s %u %llu\n", p->event, t, p->node,
			(unsigned long long)p->count);
	}
}

/* Version 4: the names kept at recording (kept, sym, src, line). */
static void write_names(FILE *f, const struct hd_file *d)
{
	for (size_t i = 0; i < d->nobjects; i++) {
		if (!d->objects[i].kept)
			continue;
		fprintf(f, "kept %zu", i);
		if (d->objects[i].kept_why) {
			fputc(' ', f);
			hd_put_escaped(f, d->objects[i].kept_why, 0);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->nnames; i++) {
		const struct hd_name *n = &d->names[i];

		fprintf(f, "sym %u %llx %llx ", n->object, (unsigned long long)n->lo,
			(unsigned long long)n->hi);
		hd_put_escaped(f, n->name, 0);
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->srcs.n; i++) {
		fprintf(f, "src %zu ", i);
		hd_put_escaped(f, d->srcs.s[i], 0);
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->nlines; i++) {
		const struct hd_line *l = &d->lines[i];

		fprintf(f, "line %u %llx %u %d", l->object, (unsigned long long)l->addr,
			l->src, l->line);
		if (l->func) {
			fputc(' ', f);
			hd_put_escaped(f, l->func, 0);
		}
		fputc('\n', f);
	}
}

/* A job file's time in MPI (version 4): mt, ms and msr lines. */
static void write_mpi_time(FILE *f, const struct hd_file *d)
{
	for (size_t i = 0; i < d->nmranks; i++) {
		const struct hd_mrank *m = &d->mranks[i];

		fprintf(f, "mt %u %llu %llu %llu\n", m->proc, (unsigned long long)m->app_ns,
			(unsigned long long)m->mpi_ns, (unsigned long long)m->calls);
	}
	for (size_t i = 0; i < d->nmsites; i++) {
		const struct hd_msite *m = &d->msites[i];
		char o[16];

		snprintf(o, sizeof(o), "%u", m->object);
		fprintf(f, "ms %zu %s %llx ", i, m->object == HD_NO_OBJECT ? "-" : o,
			(unsigned long long)m->addr);
		hd_put_escaped(f, m->call, 1);
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->nmsranks; i++) {
		const struct hd_msrank *m = &d->msranks[i];

		fprintf(f, "msr %u %u %llu %llu %llu %llu\n", m->site, m->proc,
			(unsigned long long)m->calls, (unsigned long long)m->total,
			(unsigned long long)m->min, (unsigned long long)m->max);
	}
}

/* The sample lines, then a job file's rt, tt, f and fr lines. */
static void write_counts(FILE *f, const struct hd_file *d)
{
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];
		char t[16], o[16];

		snprintf(t, sizeof(t), "%u", s->thread);
		snprintf(o, sizeof(o), "%u", s->object);
		fprintf(f, "s %u %s %s %llx %llu\n", s->event,
			s->thread == HD_NO_THREAD ? "-" : t,
			s->object == HD_NO_OBJECT ? "-" : o, (unsigned long long)s->addr,
			(unsigned long long)s->count);
	}
	for (size_t i = 0; i < d->nrtotals; i++) {
		const struct hd_rtotal *t = &d->rtotals[i];

		fprintf(f, "rt %u %u %llu %llu\n", t->proc, t->event,
			(unsigned long long)t->samples, (unsigned long long)t->mpi);
	}
	for (size_t i = 0; i < d->nttotals; i++) {
		const struct hd_ttotal *t = &d->ttotals[i];

		fprintf(f, "tt %u %u %llu\n", t->thread, t->event,
			(unsigned long long)t->samples);
	}
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct hd_func *fn = &d->funcs[i];
		char o[16];

		snprintf(o, sizeof(o), "%u", fn->object);
		fprintf(f, "f %zu %u %s %llx %llu %llu %llu %d %u\n", i, fn->event,
			fn->object == HD_NO_OBJECT ? "-" : o, (unsigned long long)fn->addr,
			(unsigned long long)fn->sum, (unsigned long long)fn->min,
			(unsigned long long)fn->max, fn->maxrank, fn->ranks);
	}
	for (size_t i = 0; i < d->nfcounts; i++)
		fprintf(f, "fr %u %u %llu\n", d->fcounts[i].func, d->fcounts[i].proc,
			(unsigned long long)d->fcounts[i].count);
	write_mpi_time(f, d);
}

int hd_write(FILE *f, const struct hd_file *d)
{
	write_head(f, d);
	write_tables(f, d);
	write_counts(f, d);
	write_paths(f, d);
	write_names(f, d);
	fputs("end\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
