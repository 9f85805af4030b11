/* SPDX-License-Identifier: MIT */
/*
 * Reading the data file (hwprof-data(5)), versions 1 to 4. Lines are
 * read in one pass and every index a line names must have been declared by
 * an earlier line, so a reader never follows a reference it has not
 * checked. A file that breaks a rule is refused with one line naming the
 * file and the line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

struct rd {
	const char *path;
	char *err;
	size_t len;
	unsigned long lineno;
	char *p; /* the rest of the current line */
};

static int fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct rd *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->lineno)
		snprintf(r->err, r->len, "%s: line %lu: %s", r->path, r->lineno, msg);
	else
		snprintf(r->err, r->len, "%s: %s", r->path, msg);
	return -1;
}

/* The next space-separated field, or NULL at the end of the line. */
static char *field(struct rd *r)
{
	char *s = r->p;

	if (!s || !*s)
		return NULL;
	r->p = strchr(s, ' ');
	if (r->p)
		*r->p++ = 0;
	return s;
}

/* The rest of the line as one string. */
static char *rest(struct rd *r)
{
	char *s = r->p ? r->p : (char *)"";

	r->p = NULL;
	return s;
}

static int num(struct rd *r, int base, uint64_t max, uint64_t *v)
{
	char *s = field(r), *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end || *v > max ? -1 : 0;
}

static int snum(struct rd *r, long min, long max, long *v)
{
	char *s = field(r), *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || *v < min || *v > max ? -1 : 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Undoes hd_put_escaped() in place; "-" as a token is NULL. */
static char *unescape(char *s, int token, int *bad)
{
	char *o = s, *p;

	if (token && !strcmp(s, "-"))
		return NULL;
	for (p = s; *p; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		switch (*++p) {
		case '\\':
			*o++ = '\\';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 'x': {
			int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);

			if (lo < 0 || !(hi | lo)) { /* two digits, not NUL */
				*bad = 1;
				return s;
			}
			*o++ = (char)(hi << 4 | lo);
			p += 2;
			break;
		}
		default:
			*bad = 1;
			return s;
		}
	}
	if (o != p) /* shortened: never writes when nothing was escaped,
		     * so the read-only "" of an empty rest is safe */
		*o = 0;
	return s;
}

static char *take(struct rd *r, char *s, int token, int *bad)
{
	char *u;

	if (!s) {
		*bad = 1;
		return NULL;
	}
	u = unescape(s, token, bad);
	if (!u)
		return NULL;
	u = strdup(u);
	if (!u)
		*bad = 1;
	return u;
}

/* An index field below n, or "-" (none) when dash is not NULL. */
static int index_or_dash(struct rd *r, uint64_t n, uint32_t none, uint64_t *v)
{
	char *s = field(r), *end;

	if (!s || !*s)
		return -1;
	if (!strcmp(s, "-")) {
		*v = none;
		return 0;
	}
	if (*s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v >= n ? -1 : 0;
}

/* The lines version 3 added: program, job, rt, f, fr. 1 when kw is none
 * of them. */
static int read_v3_line(struct rd *r, struct hd_file *d, const char *kw)
{
	uint64_t a, b, c, e, f, g, h;
	long x;
	int bad = 0;

	if (!strcmp(kw, "program")) {
		char *bid = field(r);

		if (!bid || index_or_dash(r, UINT64_MAX, 0, &a))
			return -1;
		free(d->program_id);
		free(d->program);
		d->program_id = take(r, bid, 1, &bad);
		d->program_size = a;
		d->program = take(r, rest(r), 0, &bad);
		if (!d->program || !*d->program)
			bad = 1;
	} else if (!strcmp(kw, "job")) {
		/* once, before any process, and never in a rank's file */
		if (snum(r, 1, 1 << 30, &x) || num(r, 10, UINT32_MAX, &a) || r->p ||
		    d->nprocs || d->job || d->rank >= 0)
			return -1;
		d->job = 1;
		d->size = (int)x;
		d->top = (uint32_t)a;
	} else if (!strcmp(kw, "rt")) {
		struct hd_rtotal t;

		if (!d->job || num(r, 10, UINT32_MAX, &a) || a >= d->nprocs ||
		    num(r, 10, UINT32_MAX, &b) || b >= d->nevents ||
		    num(r, 10, UINT64_MAX, &c) || num(r, 10, UINT64_MAX, &e) || r->p || e > c)
			return -1;
		t = (struct hd_rtotal){ (uint32_t)a, (uint32_t)b, c, e };
		if (hd_add_rtotal(d, &t))
			return fail(r, "out of memory");
	} else if (!strcmp(kw, "f")) {
		struct hd_func fn;
		long mr;

		if (!d->job || num(r, 10, UINT32_MAX, &a) || a != d->nfuncs ||
		    num(r, 10, UINT32_MAX, &b) || b >= d->nevents ||
		    index_or_dash(r, d->nobjects, HD_NO_OBJECT, &c) ||
		    num(r, 16, UINT64_MAX, &e) || num(r, 10, UINT64_MAX, &f) ||
		    num(r, 10, UINT64_MAX, &g) || num(r, 10, UINT64_MAX, &h) ||
		    snum(r, 0, d->size - 1, &mr) || num(r, 10, (uint64_t)d->size, &a) ||
		    r->p || g > h || h > f || (h && !a) ||
		    /* a min above 0 is every rank's; a rank without it makes it 0 */
		    (g && a != (uint64_t)d->size) || (a < (uint64_t)d->size && g))
			return -1;
		fn = (struct hd_func){ (uint32_t)b, (uint32_t)c, e,	  f,
				       g,	    h,		 (int)mr, (uint32_t)a };
		if (hd_add_func(d, &fn))
			return fail(r, "out of memory");
	} else if (!strcmp(kw, "fr")) {
		if (!d->job || num(r, 10, UINT32_MAX, &a) || a >= d->nfuncs ||
		    num(r, 10, UINT32_MAX, &b) || b >= d->nprocs ||
		    num(r, 10, UINT64_MAX, &c) || r->p || !c || c > d->funcs[a].max ||
		    c < d->funcs[a].min)
			return -1;
		if (hd_add_fcount(d, (uint32_t)a, (uint32_t)b, c))
			return fail(r, "out of memory");
	} else {
		return 1;
	}
	return bad ? -1 : 0;
}

/* Version 4's kept names: kept, sym, src, line. 1 when kw is none of them. */
static int read_names_line(struct rd *r, struct hd_file *d, const char *kw)
{
	uint64_t a, b, c, e;
	int bad = 0;
	char *t;
	long x;

	if (!strcmp(kw, "kept")) {
		if (num(r, 10, UINT32_MAX, &a) || a >= d->nobjects)
			return -1;
		if (d->objects[a].kept)
			return fail(r, "names of object %llu kept twice",
				    (unsigned long long)a);
		t = rest(r);
		d->objects[a].kept = 1;
		d->objects[a].kept_why = *t ? take(r, t, 0, &bad) : NULL;
	} else if (!strcmp(kw, "sym")) {
		if (num(r, 10, UINT32_MAX, &a) || a >= d->nobjects || !d->objects[a].kept ||
		    num(r, 16, UINT64_MAX, &b) || num(r, 16, UINT64_MAX, &c) || c <= b)
			return -1;
		t = unescape(rest(r), 0, &bad);
		if (bad || !t || !*t)
			return -1;
		if (hd_add_name(d, (uint32_t)a, b, c, t))
			return fail(r, "out of memory");
	} else if (!strcmp(kw, "src")) {
		if (num(r, 10, UINT32_MAX, &a) || a != d->srcs.n)
			return -1;
		t = unescape(rest(r), 0, &bad);
		if (bad || !t || !*t)
			return -1;
		/* each once, in order: hd_src() finds none equal */
		if ((x = hd_src(d, t)) < 0)
			return fail(r, "out of memory");
		if ((size_t)x != a)
			return fail(r, "source file given twice");
	} else if (!strcmp(kw, "line")) {
		if (num(r, 10, UINT32_MAX, &a) || a >= d->nobjects || !d->objects[a].kept ||
		    num(r, 16, UINT64_MAX, &b) || num(r, 10, UINT32_MAX, &c) ||
		    c >= d->srcs.n || num(r, 10, INT32_MAX, &e))
			return -1;
		t = r->p ? unescape(rest(r), 0, &bad) : NULL;
		if (bad || (t && !*t))
			return -1;
		if (hd_add_line(d, (uint32_t)a, (uint32_t)c, b, (int)e, t))
			return fail(r, "out of memory");
	} else {
		return 1;
	}
	return bad ? -1 : 0;
}

/* The time in MPI (version 4) of a job file, or of a rank's file of
 * hwprof record: mt, ms, msr. 1 when kw is none of them. */
static int read_mpi_time(struct rd *r, struct hd_file *d, const char *kw)
{
	uint64_t a, b, c, e, f, g;
	int bad = 0, mt_file = d->job || d->rank >= 0; /* a job's or a rank's */

	if (!strcmp(kw, "mt")) {
		struct hd_mrank m;

		if (!mt_file || num(r, 10, UINT32_MAX, &a) || a >= d->nprocs ||
		    num(r, 10, UINT64_MAX, &b) || !b || num(r, 10, UINT64_MAX, &c) ||
		    num(r, 10, UINT64_MAX, &e) || r->p)
			return -1;
		m = (struct hd_mrank){ (uint32_t)a, b, c, e };
		if (hd_add_mrank(d, &m))
			return fail(r, "out of memory");
	} else if (!strcmp(kw, "ms")) {
		char *call;

		if (!mt_file || num(r, 10, UINT32_MAX, &a) || a != d->nmsites ||
		    index_or_dash(r, d->nobjects, HD_NO_OBJECT, &b) ||
		    num(r, 16, UINT64_MAX, &c) || (b == HD_NO_OBJECT && c))
			return -1;
		call = take(r, field(r), 1, &bad);
		if (bad || !call || !*call || r->p) {
			free(call);
			return -1;
		}
		a = hd_add_msite(d, (uint32_t)b, c, call) < 0;
		free(call);
		if (a)
			return fail(r, "out of memory");
	} else if (!strcmp(kw, "msr")) {
		struct hd_msrank m;

		if (!mt_file || num(r, 10, UINT32_MAX, &a) || a >= d->nmsites ||
		    num(r, 10, UINT32_MAX, &b) || b >= d->nprocs ||
		    num(r, 10, UINT64_MAX, &c) || !c || num(r, 10, UINT64_MAX, &e) ||
		    num(r, 10, UINT64_MAX, &f) || num(r, 10, UINT64_MAX, &g) || r->p ||
		    f > g || g > e)
			return -1;
		m = (struct hd_msrank){ (uint32_t)a, (uint32_t)b, c, e, f, g };
		if (hd_add_msrank(d, &m))
			return fail(r, "out of memory");
	} else {
		return 1;
	}
	return 0;
}

/* The lines version 4 added: checkpoint, sideband-lost, paths, count, n,
 * c, mt, ms, msr and the kept names. 1 when kw is none of them. */
static int read_v4_line(struct rd *r, struct hd_file *d, const char *kw)
{
	uint64_t a, b, c, e;
	char *k;
	long x;

	if (!strcmp(kw, "checkpoint")) {
		if (r->p || d->checkpoint)
			return -1;
		d->checkpoint = 1;
	} else if (!strcmp(kw, "tt")) {
		struct hd_ttotal t;

		/* a job file's thread: its samples, at most its rank's */
		if (!d->job || num(r, 10, UINT32_MAX, &a) || a >= d->nthreads ||
		    num(r, 10, UINT32_MAX, &b) || b >= d->nevents ||
		    num(r, 10, UINT64_MAX, &c) || r->p)
			return -1;
		t = (struct hd_ttotal){ (uint32_t)a, (uint32_t)b, c };
		if (hd_add_ttotal(d, &t))
			return fail(r, "out of memory");
	} else if (!strcmp(kw, "sideband-lost")) {
		/* once, and never 0: a file without loss has no such line */
		if (num(r, 10, UINT64_MAX, &a) || r->p || !a || d->side_lost)
			return -1;
		d->side_lost = a;
	} else if (!strcmp(kw, "paths")) {
		struct hd_event *ev;

		uint64_t drop = 0;

		if (num(r, 10, UINT32_MAX, &a) || a >= d->nevents || !(k = field(r)) ||
		    num(r, 10, UINT64_MAX, &b) || num(r, 10, UINT64_MAX, &c) || c > b ||
		    (r->p && (num(r, 10, UINT64_MAX, &drop) || !drop)) || r->p)
			return -1;
		ev = &d->events[a];
		if (ev->callgraph != HD_CG_NONE)
			return fail(r, "paths of event %llu given twice",
				    (unsigned long long)a);
		if (!strcmp(k, "fp"))
			ev->callgraph = HD_CG_FP;
		else if (!strcmp(k, "dwarf"))
			ev->callgraph = HD_CG_DWARF;
		else
			return -1;
		ev->chains = b;
		ev->cut = c;
		ev->dropped = drop;
	} else if (!strcmp(kw, "count")) {
		struct hd_event *ev;
		uint64_t en, run;

		/* once an event: its scope, count, time enabled and running */
		if (num(r, 10, UINT32_MAX, &a) || a >= d->nevents || !(k = field(r)) ||
		    num(r, 10, UINT64_MAX, &b) || num(r, 10, UINT64_MAX, &en) ||
		    num(r, 10, UINT64_MAX, &run) || r->p || run > en)
			return -1;
		ev = &d->events[a];
		if (ev->count_scope != HD_COUNT_NONE)
			return fail(r, "count of event %llu given twice",
				    (unsigned long long)a);
		if (!strcmp(k, "user"))
			ev->count_scope = HD_COUNT_USER;
		else if (!strcmp(k, "all"))
			ev->count_scope = HD_COUNT_ALL;
		else
			return -1;
		ev->count = b;
		ev->enabled = en;
		ev->running = run;
	} else if (!strcmp(kw, "n")) {
		/* each node once, numbered in order, its parent before it */
		if (num(r, 10, UINT32_MAX, &a) || a != d->cct.n ||
		    index_or_dash(r, d->cct.n, HD_NO_NODE, &b) ||
		    index_or_dash(r, d->nobjects, HD_NO_OBJECT, &c) ||
		    num(r, 16, UINT64_MAX, &e) || r->p)
			return -1;
		x = hd_node(d, (uint32_t)b, (uint32_t)c, e);
		if (x == -2)
			return fail(r, "a call path deeper than %d frames", HD_MAX_DEPTH);
		if (x < 0)
			return fail(r, "out of memory");
		if (x != (long)a)
			return fail(r, "node given twice");
	} else if (!strcmp(kw, "c")) {
		if (num(r, 10, UINT32_MAX, &a) || a >= d->nevents ||
		    (d->job ? index_or_dash(r, 0, HD_NO_THREAD, &b) :
			      num(r, 10, UINT32_MAX, &b) || b >= d->nthreads) ||
		    num(r, 10, UINT32_MAX, &c) || c >= d->cct.n ||
		    num(r, 10, UINT64_MAX, &e) || r->p)
			return -1;
		if (d->events[a].callgraph == HD_CG_NONE)
			return fail(r,
				    "call-path samples of event %llu without its paths line",
				    (unsigned long long)a);
		if (hd_count_path(d, (uint32_t)a, (uint32_t)b, (uint32_t)c, e))
			return fail(r, "out of memory");
	} else {
		x = read_mpi_time(r, d, kw);
		return x == 1 ? read_names_line(r, d, kw) : (int)x;
	}
	return 0;
}

/* "event I PERIOD SAMPLES LOST THROTTLED MISSED WHY NAME" */
static int read_event(struct rd *r, struct hd_file *d)
{
	uint64_t a, b, c, e, f, g;
	struct hd_event *ev;
	char *why, *name;
	int bad = 0;

	if (num(r, 10, UINT32_MAX, &a) || a != d->nevents || num(r, 10, UINT64_MAX, &b) ||
	    num(r, 10, UINT64_MAX, &c) || num(r, 10, UINT64_MAX, &e) ||
	    num(r, 10, UINT64_MAX, &f) || num(r, 10, UINT64_MAX, &g))
		return -1;
	why = field(r);
	name = rest(r);
	if (!why || !*name)
		return -1;
	if (hd_add_event(d, "", b) < 0)
		return fail(r, "out of memory");
	ev = &d->events[d->nevents - 1];
	ev->samples = c;
	ev->lost = e;
	ev->throttled = f;
	ev->missed = g;
	ev->missed_why = take(r, why, 1, &bad);
	free(ev->name);
	ev->name = take(r, name, 0, &bad);
	return bad ? -1 : 0;
}

static int how_of(const char *how, int version, enum hd_how *out)
{
	if (!strcmp(how, "exit"))
		*out = HD_EXITED;
	else if (!strcmp(how, "signal"))
		*out = HD_SIGNALED;
	else if (!strcmp(how, "running"))
		*out = HD_RUNNING;
	else if (!strcmp(how, "ended"))
		*out = HD_ENDED;
	else if (!strcmp(how, "unseen") && version >= 4)
		*out = HD_UNSEEN;
	else
		return -1;
	return 0;
}

/* "process I PID PPID RANK HOW STATUS HOST COMMAND" */
static int read_process(struct rd *r, struct hd_file *d)
{
	struct hd_process *p;
	char *how, *host;
	uint64_t a;
	long x, y, z, st;
	int bad = 0;

	if (num(r, 10, UINT32_MAX, &a) || a != d->nprocs || snum(r, 0, INT32_MAX, &x) ||
	    snum(r, 0, INT32_MAX, &y) || snum(r, -1, 1 << 30, &z) || !(how = field(r)) ||
	    snum(r, -1000000, 1000000, &st))
		return -1;
	host = field(r);
	if (hd_add_process(d, (int)x, (int)y, "") < 0)
		return fail(r, "out of memory");
	p = &d->procs[d->nprocs - 1];
	p->rank = (int)z;
	p->status = (int)st;
	if (how_of(how, d->version, &p->how))
		return -1;
	p->host = take(r, host, 1, &bad);
	free(p->command);
	p->command = take(r, rest(r), 0, &bad);
	return bad ? -1 : 0;
}

/* "thread I PROCESS TID COMM" */
static int read_thread(struct rd *r, struct hd_file *d)
{
	uint64_t a, b;
	char *comm;
	long x;
	int bad = 0;

	if (num(r, 10, UINT32_MAX, &a) || a != d->nthreads || num(r, 10, UINT32_MAX, &b) ||
	    b >= d->nprocs || snum(r, 0, INT32_MAX, &x))
		return -1;
	comm = rest(r);
	if (hd_add_thread(d, (int)x, (uint32_t)b, NULL) < 0)
		return fail(r, "out of memory");
	d->threads[d->nthreads - 1].comm = *comm ? take(r, comm, 0, &bad) : NULL;
	return bad ? -1 : 0;
}

/* "object I BUILDID [SIZE] PATH" (SIZE from version 3) */
static int read_object(struct rd *r, struct hd_file *d)
{
	struct hd_object *o;
	uint64_t a, b = 0;
	char *bid;
	int bad = 0;

	if (num(r, 10, UINT32_MAX, &a) || a != d->nobjects || !(bid = field(r)) ||
	    (d->version >= 3 && index_or_dash(r, UINT64_MAX, 0, &b)))
		return -1;
	if (hd_grow(&d->objects, d->nobjects, sizeof(*o)))
		return fail(r, "out of memory");
	o = &d->objects[d->nobjects++];
	memset(o, 0, sizeof(*o));
	o->size = b;
	o->buildid = take(r, bid, 1, &bad);
	o->path = take(r, rest(r), 0, &bad);
	return bad || !o->path ? -1 : 0;
}

/* "s EVENT THREAD OBJECT ADDR COUNT" (THREAD "-" in a job file) */
static int read_sample(struct rd *r, struct hd_file *d)
{
	uint64_t a, b, c, e, f;
	char *obj;

	if (num(r, 10, UINT32_MAX, &a) || a >= d->nevents ||
	    (d->job ? index_or_dash(r, 0, HD_NO_THREAD, &b) :
		      num(r, 10, UINT32_MAX, &b) || b >= d->nthreads) ||
	    !(obj = field(r)))
		return -1;
	if (!strcmp(obj, "-")) {
		c = HD_NO_OBJECT;
	} else {
		char *end;

		errno = 0;
		c = strtoull(obj, &end, 10);
		if (errno || *end || !*obj || *obj == '-' || c >= d->nobjects)
			return -1;
	}
	if (num(r, 16, UINT64_MAX, &e) || num(r, 10, UINT64_MAX, &f) || r->p)
		return -1;
	if (hd_count(d, (uint32_t)a, (uint32_t)b, (uint32_t)c, e, f))
		return fail(r, "out of memory");
	return 0;
}

static int read_v2_line(struct rd *r, struct hd_file *d, const char *kw)
{
	long x, y;
	int bad = 0, v3;

	if (!strcmp(kw, "host")) {
		free(d->host);
		d->host = take(r, field(r), 1, &bad);
	} else if (!strcmp(kw, "rank")) {
		/* the world size is -1 when the launcher did not say */
		if (d->job || snum(r, 0, 1 << 30, &x) || snum(r, -1, 1 << 30, &y) || !y ||
		    (y > 0 && x >= y))
			return -1;
		d->rank = (int)x;
		d->size = (int)y;
	} else if (!strcmp(kw, "command")) {
		free(d->command);
		d->command = take(r, rest(r), 0, &bad);
	} else if (!strcmp(kw, "event")) {
		return read_event(r, d);
	} else if (!strcmp(kw, "process")) {
		return read_process(r, d);
	} else if (!strcmp(kw, "thread")) {
		return read_thread(r, d);
	} else if (!strcmp(kw, "object")) {
		return read_object(r, d);
	} else if (!strcmp(kw, "s")) {
		return read_sample(r, d);
	} else if (d->version >= 3) {
		v3 = read_v3_line(r, d, kw);
		if (v3 == 1 && d->version >= 4)
			v3 = read_v4_line(r, d, kw);
		return v3 == 1 ? -1 : v3;
	} else {
		return -1;
	}
	return bad ? -1 : 0;
}

/* Version 1: one process, objects as run-time ranges with 8-byte buckets. */
struct v1 {
	uint64_t start, base, bytes;
	long obj; /* this object's index, -1 before the first */
	long ev;  /* the event its buckets belong to */
	int pid;
	char *command;
};

static int read_v1_line(struct rd *r, struct hd_file *d, const char *kw, struct v1 *v)
{
	uint64_t a, b, c, n;
	int bad = 0;

	if (!strcmp(kw, "command")) {
		free(v->command);
		v->command = strdup(rest(r));
		return v->command ? 0 : fail(r, "out of memory");
	}
	if (!strcmp(kw, "pid")) {
		long x;

		if (snum(r, 0, INT32_MAX, &x))
			return -1;
		v->pid = (int)x;
		return 0;
	}
	if (!strcmp(kw, "bucket-bytes"))
		return num(r, 10, 4096, &v->bytes) || !v->bytes ? -1 : 0;
	if (!strcmp(kw, "event")) {
		uint64_t f[9];
		struct hd_event *e;

		if (num(r, 10, UINT32_MAX, &a) || a != d->nevents)
			return -1;
		for (int i = 0; i < 9; i++)
			if (num(r, 10, UINT64_MAX, &f[i]))
				return -1;
		if (!r->p || !*r->p)
			return -1; /* a name, as version 2 needs */
		if (hd_add_event(d, "", f[0]) < 0)
			return fail(r, "out of memory");
		e = &d->events[d->nevents - 1];
		free(e->name);
		e->name = strdup(rest(r));
		e->samples = f[1];
		e->lost = f[2];
		e->throttled = f[3];
		return e->name ? 0 : fail(r, "out of memory");
	}
	if (!strcmp(kw, "object")) {
		char *bid;
		uint64_t loaded, nz;

		if (num(r, 10, UINT32_MAX, &a) || a >= d->nevents ||
		    num(r, 16, UINT64_MAX, &b) || num(r, 16, UINT64_MAX, &c) ||
		    num(r, 16, UINT64_MAX, &n) || !(bid = field(r)) ||
		    num(r, 10, 1, &loaded) || num(r, 10, UINT64_MAX, &nz) || b < n)
			return -1;
		v->start = b;
		v->base = n;
		v->ev = (long)a;
		v->obj = hd_object(d, rest(r), strcmp(bid, "-") ? bid : NULL, 0);
		(void)c;
		(void)loaded;
		(void)nz;
		return v->obj < 0 ? fail(r, "out of memory") : bad;
	}
	return -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* 1 when some value of v[0..n) appears twice (sorts v to see). */
static int has_twice(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (v[i] == v[i - 1])
			return 1;
	return 0;
}

/* A job file's time in MPI: a rank's totals (mt) and its calls at a
 * site (msr) given once each; the reason, or NULL. */
static const char *job_check_mpi_time(const struct hd_file *d)
{
	size_t n = d->nmranks > d->nmsranks ? d->nmranks : d->nmsranks;
	uint64_t *v = malloc((n + 1) * sizeof(*v));
	const char *bad = NULL;

	if (!v)
		return "out of memory";
	for (size_t i = 0; i < d->nmranks; i++)
		v[i] = d->mranks[i].proc;
	if (has_twice(v, d->nmranks))
		bad = "a rank's time in MPI (mt) given twice";
	for (size_t i = 0; i < d->nmsranks && !bad; i++)
		v[i] = (uint64_t)d->msranks[i].site << 32 | d->msranks[i].proc;
	if (!bad && has_twice(v, d->nmsranks))
		bad = "a rank's calls at a call site (msr) given twice";
	free(v);
	return bad;
}

/*
 * What a job file's lines say together (hwprof-data(5), "Job files"):
 * each process is one rank of the world, each rank once; a rank's total
 * and a function's count of a rank given once each, and no function's
 * per-rank counts above its sum. 0, or -1 after saying what is wrong.
 */
static int job_check(struct rd *r, const struct hd_file *d)
{
	size_t n = d->nprocs > d->nfcounts ? d->nprocs : d->nfcounts;
	uint64_t *v, *sum;
	const char *bad = NULL;

	if (n < d->nrtotals)
		n = d->nrtotals;
	v = malloc((n + 1) * sizeof(*v));
	sum = calloc(d->nfuncs + 1, sizeof(*sum));
	r->lineno = 0;
	if (!v || !sum) {
		free(v);
		free(sum);
		return fail(r, "out of memory");
	}
	for (size_t i = 0; i < d->nprocs && !bad; i++) {
		if (d->procs[i].rank < 0 || d->procs[i].rank >= d->size)
			bad = "a process whose rank is not one of the job's";
		v[i] = (uint64_t)d->procs[i].rank;
	}
	if (!bad && has_twice(v, d->nprocs))
		bad = "a rank given twice";
	for (size_t i = 0; i < d->nrtotals && !bad; i++)
		v[i] = (uint64_t)d->rtotals[i].proc << 32 | d->rtotals[i].event;
	if (!bad && has_twice(v, d->nrtotals))
		bad = "a rank's total (rt) given twice";
	if (n < d->nttotals) {
		uint64_t *nv = realloc(v, (d->nttotals + 1) * sizeof(*v));

		if (!nv)
			bad = "out of memory";
		else
			v = nv;
	}
	for (size_t i = 0; i < d->nttotals && !bad; i++)
		v[i] = (uint64_t)d->ttotals[i].thread << 32 | d->ttotals[i].event;
	if (!bad && has_twice(v, d->nttotals))
		bad = "a thread's total (tt) given twice";
	for (size_t i = 0; i < d->nfcounts && !bad; i++) {
		const struct hd_fcount *c = &d->fcounts[i];

		v[i] = (uint64_t)c->func << 32 | c->proc;
		sum[c->func] = hwp_add_sat(sum[c->func], c->count);
		if (sum[c->func] > d->funcs[c->func].sum)
			bad = "a function's per-rank counts (fr) above its sum";
	}
	if (!bad && has_twice(v, d->nfcounts))
		bad = "a rank's count of a function (fr) given twice";
	free(v);
	if (!bad)
		bad = job_check_mpi_time(d);
	free(sum);
	return bad ? fail(r, "job file: %s", bad) : 0;
}

/*
 * What the counts say together, in every file: an event's call-path
 * samples (its c lines, each sample with a path counted once) are at most
 * the samples with a path its paths line gives, and at most its samples
 * (its s lines: a sample with a path is counted there too). Sums
 * saturate, so a file with huge counts is refused here, not misread: no
 * view's share can then exceed 100 %. 0, or -1 after saying what is
 * wrong.
 */
static int counts_check(struct rd *r, const struct hd_file *d)
{
	uint64_t *flat = calloc(d->nevents + 1, sizeof(*flat));
	uint64_t *cp = calloc(d->nevents + 1, sizeof(*cp));
	int ret = 0;

	r->lineno = 0;
	if (!flat || !cp) {
		free(flat);
		free(cp);
		return fail(r, "out of memory");
	}
	for (size_t i = 0; i < d->nsamples; i++)
		flat[d->samples[i].event] = hwp_add_sat(flat[d->samples[i].event],
							d->samples[i].count);
	for (size_t i = 0; i < d->npaths; i++)
		cp[d->paths[i].event] = hwp_add_sat(cp[d->paths[i].event], d->paths[i].count);
	for (size_t e = 0; e < d->nevents && !ret; e++) {
		if (cp[e] > d->events[e].chains)
			ret = fail(r,
				   "event %zu: its call-path samples (c lines: %llu) exceed the "
				   "samples with a path of its paths line (%llu)",
				   e, (unsigned long long)cp[e],
				   (unsigned long long)d->events[e].chains);
		else if (cp[e] > flat[e])
			ret = fail(r,
				   "event %zu: its call-path samples (c lines: %llu) exceed its "
				   "samples (s lines: %llu)",
				   e, (unsigned long long)cp[e], (unsigned long long)flat[e]);
	}
	free(flat);
	free(cp);
	return ret;
}

/* The first line, "hwprof-data VERSION": 0, or -1 after saying why. */
static int read_magic(struct rd *r, FILE *f, char **line, size_t *cap, int *version)
{
	ssize_t n = getline(line, cap, f);

	if (n <= 0 || sscanf(*line, "hwprof-data %d", version) != 1 ||
	    strncmp(*line, "hwprof-data ", 12))
		return fail(r, "not an hwprof data file");
	if (*version < 1 || *version > HD_VERSION)
		return fail(r, "data file version %d; this hwprof reads versions 1 to %d",
			    *version, HD_VERSION);
	r->lineno = 1;
	return 0;
}

/* A version 1 bucket line, "K N", of object v->obj. 0 or -1. */
static int read_v1_bucket(struct rd *r, struct hd_file *d, struct v1 *v)
{
	uint64_t k, c;

	if (num(r, 10, UINT64_MAX / 4096, &k) || num(r, 10, UINT64_MAX, &c) || r->p)
		return fail(r, "malformed bucket line");
	if (!d->nthreads && (hd_add_process(d, v->pid, 0, v->command) < 0 ||
			     hd_add_thread(d, v->pid, 0, NULL) < 0))
		return fail(r, "out of memory");
	if (hd_count(d, (uint32_t)v->ev, 0, (uint32_t)v->obj,
		     v->start - v->base + k * v->bytes, c))
		return fail(r, "out of memory");
	return 0;
}

/* One line after the first (its newline removed, n bytes). 0 or -1. */
static int read_line(struct rd *r, struct hd_file *d, struct v1 *v, char *line, size_t n)
{
	char *kw;
	int bad;

	if (!*line || *line == '#')
		return 0;
	if (strlen(line) != n)
		return fail(r, "NUL byte in a line");
	r->p = line;
	if (d->version == 1 && v->obj >= 0 && *line >= '0' && *line <= '9')
		return read_v1_bucket(r, d, v);
	kw = field(r);
	if (!kw)
		return fail(r, "malformed line");
	/* the v1 event name runs to the end of the line */
	bad = d->version == 1 ? read_v1_line(r, d, kw, v) : read_v2_line(r, d, kw);
	if (bad && !*r->err)
		fail(r, "malformed line: %.60s", kw);
	return bad ? -1 : 0;
}

/* The lines up to "end" and nothing after it. 0 or -1. */
static int read_body(struct rd *r, struct hd_file *d, struct v1 *v, FILE *f, char **line,
		     size_t *cap)
{
	int ended = 0;
	ssize_t n;

	while ((n = getline(line, cap, f)) > 0) {
		char *l = *line;

		r->lineno++;
		if (l[n - 1] == '\n')
			l[--n] = 0;
		if (ended)
			return fail(r, "text after the end line");
		if (!strcmp(l, "end"))
			ended = 1;
		else if (read_line(r, d, v, l, (size_t)n))
			return -1;
	}
	r->lineno = 0;
	if (ferror(f))
		return fail(r, "%s", strerror(errno));
	if (!ended)
		return fail(r, "truncated (no end line)");
	return 0;
}

int hd_read(const char *path, struct hd_file *d, char *err, size_t len)
{
	struct rd r = { .path = path, .err = err, .len = len };
	struct v1 v = { .bytes = 8, .obj = -1, .ev = -1 };
	size_t cap = 0;
	char *line = NULL;
	int ret = -1;
	FILE *f;

	hd_init(d);
	if (len)
		*err = 0;
	f = fopen(path, "re");
	if (!f)
		return fail(&r, "%s", strerror(errno));
	if (read_magic(&r, f, &line, &cap, &d->version) ||
	    read_body(&r, d, &v, f, &line, &cap))
		goto out;
	if ((d->job && job_check(&r, d)) || counts_check(&r, d))
		goto out;
	if (!d->job && d->nmranks + d->nmsranks) {
		const char *bad = job_check_mpi_time(d);

		r.lineno = 0;
		if (bad) {
			fail(&r, "%s", bad);
			goto out;
		}
	}
	if (d->version == 1) {
		if (!d->nprocs && (hd_add_process(d, v.pid, 0, v.command) < 0 ||
				   hd_add_thread(d, v.pid, 0, NULL) < 0)) {
			fail(&r, "out of memory");
			goto out;
		}
		d->command = v.command;
		v.command = NULL;
	}
	ret = 0;
out:
	free(v.command);
	free(line);
	fclose(f);
	if (ret)
		hd_free(d);
	return ret;
}
