/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --format pprof: the profile as pprof's profile.proto
 * (github.com/google/pprof, proto/profile.proto), gzip-compressed, which
 * go tool pprof, speedscope, Pyroscope and Parca read. The protobuf
 * encoding is written here by hand (varints, tags, length-delimited
 * messages; repeated numbers packed) and compressed with zlib.
 *
 * What goes in: one sample type per event of the file (its name, unit
 * "count"), the reported event the default; one sample per call path and
 * thread (or, without paths, per innermost frame and thread), its
 * locations innermost first; labels "thread" (tid), "pid", "comm" (the
 * thread's command, callpaths.c's cp_comm()) and "rank" where known; one mapping per object
 * (its path and build-id), one location per frame (the ELF address; a caller's return
 * address), named with its function, source file and line as report names them, so pprof
 * symbolizes nothing itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "callpaths.h"
#include "cli.h"
#include "pprof.h"
#include "rows.h"
#include "view.h"

/* ------------------------------------------------------------------ */
/* Protobuf, by hand                                                    */

struct pb {
	unsigned char *b;
	size_t n, cap;
	int oom;
};

static void pb_put(struct pb *p, const void *data, size_t n)
{
	if (p->oom)
		return;
	if (p->n + n > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		unsigned char *nb;

		while (cap < p->n + n)
			cap *= 2;
		nb = realloc(p->b, cap);
		if (!nb) {
			p->oom = 1;
			return;
		}
		p->b = nb;
		p->cap = cap;
	}
	memcpy(p->b + p->n, data, n);
	p->n += n;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		b[n++] |= v ? 0x80 : 0;
	} while (v);
	pb_put(p, b, n);
}

/* A varint field; proto3 leaves zeros out. */
static void pb_num(struct pb *p, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(p, (uint64_t)field << 3);
	pb_varint(p, v);
}

static void pb_len(struct pb *p, unsigned int field, const void *data, size_t n)
{
	pb_varint(p, (uint64_t)field << 3 | 2);
	pb_varint(p, n);
	pb_put(p, data, n);
}

/* A submessage built in m, appended as field, and m emptied. */
static void pb_msg(struct pb *p, unsigned int field, struct pb *m)
{
	p->oom |= m->oom;
	pb_len(p, field, m->b, m->n);
	m->n = 0;
}

/* Repeated numbers, packed. */
static void pb_packed(struct pb *p, unsigned int field, const uint64_t *v, size_t n,
		      struct pb *tmp)
{
	tmp->n = 0;
	for (size_t i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(p, field, tmp);
}

/* ------------------------------------------------------------------ */
/* The string table: each string once, "" first                        */

struct strs {
	struct hd_strs t; /* lib/profile/data.c's interning */
	int oom;
};

static uint64_t str_id(struct strs *t, const char *s)
{
	long k = hd_str_id(&t->t, s ? s : "");

	if (k < 0) {
		t->oom = 1;
		return 0;
	}
	return (uint64_t)k;
}

/* ------------------------------------------------------------------ */
/* Locations, functions, mappings                                       */

struct loc {
	uint32_t object;
	uint64_t addr;
	int leaf;
	long fn; /* function row */
};

struct out {
	struct cp *p;
	struct strs str;
	struct rows_table lidx; /* (object | leaf << 32, addr) -> loc */
	struct loc *loc;
	size_t nloc;
	struct rows_table fidx; /* function row -> function id - 1 */
	struct pb body, tmp, tmp2;
	uint64_t *ids, *vals;
	size_t capids;
};

/* The location id of node (or of a flat sample's address), from 1. */
static uint64_t loc_id(struct out *o, uint32_t object, uint64_t addr, int leaf, long fn)
{
	long i = rows_get(&o->lidx, (uint64_t)object | (uint64_t) !!leaf << 32, addr);

	if (i < 0)
		return 0;
	if ((size_t)i == o->nloc) {
		if (hd_grow(&o->loc, o->nloc, sizeof(*o->loc)))
			return 0;
		o->loc[o->nloc++] = (struct loc){ object, addr, leaf, fn };
	}
	return (uint64_t)i + 1;
}

static void put_labels(struct out *o, struct pb *s, const struct hd_file *d, uint32_t thread)
{
	const struct hd_process *pr;
	struct pb *l = &o->tmp2;
	int rank;

	if (thread == HD_NO_THREAD)
		return;
	pr = &d->procs[d->threads[thread].proc];
	rank = pr->rank >= 0 ? pr->rank : d->rank;
	l->n = 0;
	pb_num(l, 1, str_id(&o->str, "thread"));
	pb_num(l, 3, (uint64_t)d->threads[thread].tid);
	pb_msg(s, 3, l);
	pb_num(l, 1, str_id(&o->str, "pid"));
	pb_num(l, 3, (uint64_t)pr->pid);
	pb_msg(s, 3, l);
	/* a string label: the programs of a build (g++, cc1plus, as) apart */
	pb_num(l, 1, str_id(&o->str, "comm"));
	pb_num(l, 2, str_id(&o->str, cp_comm(d, thread)));
	pb_msg(s, 3, l);
	if (rank >= 0) {
		pb_num(l, 1, str_id(&o->str, "rank"));
		pb_num(l, 3, (uint64_t)rank);
		pb_num(l, 4, str_id(&o->str, "rank"));
		pb_msg(s, 3, l);
	}
}

/* One Sample: locations ids[0..n), count n of event ev. */
static void put_sample(struct out *o, const struct hd_file *d, size_t nids, uint32_t ev,
		       uint64_t count, uint32_t thread)
{
	struct pb s = { 0 };

	for (size_t i = 0; i < d->nevents; i++)
		o->vals[i] = i == ev ? count : 0;
	pb_packed(&s, 1, o->ids, nids, &o->tmp);
	pb_packed(&s, 2, o->vals, d->nevents, &o->tmp);
	put_labels(o, &s, d, thread);
	pb_msg(&o->body, 2, &s);
	free(s.b);
}

static int samples(struct out *o)
{
	struct cp *p = o->p;
	const struct hd_file *d = p->c->d;
	char *covered = cp_covered(d);

	if (!covered)
		return -1;
	for (size_t i = 0; i < d->npaths; i++) {
		const struct hd_path *h = &d->paths[i];
		long n = cp_path(p, h);

		if (n < 0)
			goto oom;
		if ((size_t)n > o->capids) {
			uint64_t *ni = realloc(o->ids, (size_t)n * sizeof(*ni));

			if (!ni)
				goto oom;
			o->ids = ni;
			o->capids = (size_t)n;
		}
		for (long k = 0; k < n; k++) {
			const struct hwp_cct_node *x = &d->cct.node[p->frames[k]];

			if (!(o->ids[k] = loc_id(o, x->object, x->addr, k == 0, p->fns[k])))
				goto oom;
		}
		put_sample(o, d, (size_t)n, h->event, h->count, h->thread);
	}
	/* flat samples where there are no paths (an event recorded without
	 * them, or a merged file's thread that had none) */
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];
		long fn;

		if (!cp_flat_sample(d, covered, s))
			continue;
		if ((fn = view_func_row(p->c, s->object, s->addr)) < 0 ||
		    !(o->ids[0] = loc_id(o, s->object, s->addr, 1, fn)))
			goto oom;
		put_sample(o, d, 1, s->event, s->count, s->thread);
	}
	free(covered);
	return o->body.oom || o->str.oom ? -1 : 0;
oom:
	free(covered);
	return -1;
}

/* Functions (one per function row met), locations, mappings. */
static int tables(struct out *o)
{
	struct view_ctx *c = o->p->c;
	const struct rows_table *t = c->funcs_are_rows ? &c->rows : &c->funcs;
	const struct hd_file *d = c->d;
	uint64_t *lo = calloc(d->nobjects + 1, sizeof(*lo)),
		 *hi = calloc(d->nobjects + 1, sizeof(*hi));
	char *lines = calloc(d->nobjects + 1, 1);
	struct pb *m = &o->tmp, *l = &o->tmp2;
	char buf[40];

	if (!lo || !hi || !lines)
		goto oom;
	for (size_t i = 0; i < o->nloc; i++) {
		const struct loc *x = &o->loc[i];
		const char *file = NULL, *name = view_name(&t->rows[x->fn], buf);
		int line = 0;
		size_t had = o->fidx.n;
		long f = rows_get(&o->fidx, (uint64_t)x->fn, 0);
		struct pb fn = { 0 };

		if (f < 0)
			goto oom;
		if (x->object != HD_NO_OBJECT) {
			struct sym_obj *so = &c->objs[x->object];

			if (!sym_obj_line(so, x->leaf || !x->addr ? x->addr : x->addr - 1,
					  &file, &line, NULL))
				lines[x->object] = 1;
			if (!lo[x->object] || x->addr + 1 < lo[x->object])
				lo[x->object] = x->addr + 1; /* +1: 0 is unset */
			if (x->addr + 1 > hi[x->object])
				hi[x->object] = x->addr + 1;
		}
		if (o->fidx.n > had) { /* new: its Function */
			pb_num(&fn, 1, (uint64_t)f + 1);
			pb_num(&fn, 2, str_id(&o->str, name));
			pb_num(&fn, 3, str_id(&o->str, name));
			pb_num(&fn, 4, str_id(&o->str, file));
			pb_msg(&o->body, 5, &fn);
			free(fn.b);
		}
		/* Location { id, mapping_id, address, line { function_id, line } } */
		m->n = 0;
		pb_num(m, 1, i + 1);
		pb_num(m, 2, x->object == HD_NO_OBJECT ? 0 : (uint64_t)x->object + 1);
		pb_num(m, 3, x->addr);
		l->n = 0;
		pb_num(l, 1, (uint64_t)f + 1);
		pb_num(l, 2, line > 0 ? (uint64_t)line : 0);
		pb_msg(m, 4, l);
		pb_msg(&o->body, 4, m);
	}
	for (size_t i = 0; i < d->nobjects; i++) {
		const struct hd_object *ob = &d->objects[i];

		if (!hi[i])
			continue;
		/* Mapping { id, start, limit, offset, filename, build_id, has_* } */
		m->n = 0;
		pb_num(m, 1, i + 1);
		pb_num(m, 2, lo[i] - 1);
		pb_num(m, 3, hi[i] + 1);
		pb_num(m, 5, str_id(&o->str, ob->path));
		pb_num(m, 6, str_id(&o->str, ob->buildid));
		pb_num(m, 7, 1);
		pb_num(m, 8, lines[i]);
		pb_num(m, 9, lines[i]);
		pb_msg(&o->body, 3, m);
	}
	free(lo);
	free(hi);
	free(lines);
	return o->body.oom || o->str.oom ? -1 : 0;
oom:
	free(lo);
	free(hi);
	free(lines);
	return -1;
}

/* Compresses the message into f as gzip. 0 or -1 (with errno). */
static int gzip_to(FILE *f, const unsigned char *data, size_t n)
{
	unsigned char out[1 << 16];
	z_stream z = { 0 };
	int zr;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	z.next_in = (unsigned char *)(uintptr_t)data;
	do {
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;

		z.avail_in = (uInt)chunk;
		n -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, n ? Z_NO_FLUSH : Z_FINISH);
			if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
			    sizeof(out) - z.avail_out) {
				deflateEnd(&z);
				return -1;
			}
		} while (z.avail_out == 0);
	} while (n);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : (errno = EIO, -1);
}

int pprof_write(struct view_ctx *c, FILE *f)
{
	const struct hd_file *d = c->d;
	struct out o = { 0 };
	struct pb all = { 0 };
	struct cp p;
	int ret = 1;

	if (cp_init(&p, c))
		die("out of memory");
	o.p = &p;
	o.capids = 64;
	o.ids = malloc(o.capids * sizeof(*o.ids));
	o.vals = malloc((d->nevents + 1) * sizeof(*o.vals));
	if (!o.ids || !o.vals)
		goto oom;
	str_id(&o.str, "");			  /* string 0 is "" */
	for (size_t i = 0; i < d->nevents; i++) { /* sample_type */
		o.tmp.n = 0;
		pb_num(&o.tmp, 1, str_id(&o.str, d->events[i].name));
		pb_num(&o.tmp, 2, str_id(&o.str, "count"));
		pb_msg(&o.body, 1, &o.tmp);
	}
	if (samples(&o) || tables(&o))
		goto oom;
	/* period_type and period: the reported event's; its type the default */
	o.tmp.n = 0;
	pb_num(&o.tmp, 1, str_id(&o.str, d->events[c->event].name));
	pb_num(&o.tmp, 2, str_id(&o.str, "count"));
	pb_msg(&o.body, 11, &o.tmp);
	pb_num(&o.body, 12, d->events[c->event].period);
	pb_num(&o.body, 14, str_id(&o.str, d->events[c->event].name));
	{
		char *cmt = NULL;

		if (asprintf(&cmt, "hwprof report of: %s", d->command ? d->command : "") >=
		    0) {
			uint64_t id = str_id(&o.str, cmt);

			pb_packed(&o.body, 13, &id, 1, &o.tmp);
			free(cmt);
		}
	}
	if (o.str.oom)
		goto oom;
	/* the string table last (its strings were met while writing), then
	 * the rest: fields may come in any order */
	for (size_t i = 0; i < o.str.t.n; i++)
		pb_len(&all, 6, o.str.t.s[i], strlen(o.str.t.s[i]));
	pb_put(&all, o.body.b, o.body.n);
	if (all.oom || o.body.oom)
		goto oom;
	if (gzip_to(f, all.b, all.n) || fflush(f))
		die("standard output: %s", strerror(errno));
	else
		ret = 0;
	goto out;
oom:
	die("out of memory");
out:
	free(all.b);
	free(o.body.b);
	free(o.tmp.b);
	free(o.tmp2.b);
	free(o.ids);
	free(o.vals);
	free(o.loc);
	rows_free(&o.lidx);
	rows_free(&o.fidx);
	hd_strs_free(&o.str.t);
	cp_free(&p);
	return ret;
}
