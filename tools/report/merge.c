/* SPDX-License-Identifier: MIT */
/*
 * The data files of hwprof report: the command line's files and
 * directories, and several files merged into one (the ranks of an MPI
 * job, or runs of one program) after the checks that they are parts of
 * one run; each refusal is one line naming both files and what differs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "data.h"
#include "merge.h"
#include "rows.h"
#include "symbols.h"

/* ------------------------------------------------------------------ */
/* Reading and merging                                                  */

static long merge_event(struct hd_file *m, const struct hd_event *e)
{
	struct hd_event *me;
	int fresh = 0;
	long i;

	for (i = 0; i < (long)m->nevents; i++)
		if (!strcmp(m->events[i].name, e->name))
			break;
	if (i == (long)m->nevents) {
		i = hd_add_event(m, e->name, e->period);
		if (i < 0)
			return -1;
		m->events[i].missed_why = NULL;
		fresh = 1;
	} else if (e->period != m->events[i].period) {
		m->events[i].period = 0; /* mixed: no single period */
	}
	me = &m->events[i];
	me->samples = hwp_add_sat(me->samples, e->samples);
	me->lost = hwp_add_sat(me->lost, e->lost);
	me->throttled = hwp_add_sat(me->throttled, e->throttled);
	me->missed = hwp_add_sat(me->missed, e->missed);
	/* call paths: the kind of the first file that has them; a file
	 * without them adds samples with no path (counted, not cut) */
	if (me->callgraph == HD_CG_NONE)
		me->callgraph = e->callgraph;
	me->chains = hwp_add_sat(me->chains, e->chains);
	me->cut = hwp_add_sat(me->cut, e->cut);
	me->dropped = hwp_add_sat(me->dropped, e->dropped);
	/* the count: summed where every file has one of the same scope;
	 * none once a file lacks it (hwprof-data(5)) */
	if (fresh) {
		me->count_scope = e->count_scope;
	} else if (me->count_scope != e->count_scope) {
		me->count_scope = HD_COUNT_NONE;
	}
	if (me->count_scope != HD_COUNT_NONE) {
		me->count = hwp_add_sat(fresh ? 0 : me->count, e->count);
		me->enabled = hwp_add_sat(fresh ? 0 : me->enabled, e->enabled);
		me->running = hwp_add_sat(fresh ? 0 : me->running, e->running);
	}
	if (!me->missed_why && e->missed_why && !(me->missed_why = strdup(e->missed_why)))
		return -1;
	return i;
}

/* The merged object: the same build-id, else the same path and size (both
 * without one; a size unknown, in a version 1 or 2 file, matches any). */
static long merge_object(struct hd_file *m, const struct hd_object *o)
{
	if (o->buildid)
		for (size_t k = 0; k < m->nobjects; k++)
			if (m->objects[k].buildid &&
			    !strcasecmp(m->objects[k].buildid, o->buildid))
				return (long)k;
	return hd_object(m, o->path, o->buildid, o->size);
}

/* f's call paths into m: its nodes found or added (the same path in two
 * files is one), its path counts renumbered (threads from t0). 0 or -1. */
static int merge_paths(struct hd_file *m, const struct hd_file *f, const long *ev,
		       const long *ob, size_t t0)
{
	uint32_t *nm;
	int ret = -1;

	if (!f->cct.n)
		return 0;
	nm = malloc(f->cct.n * sizeof(*nm));
	if (!nm)
		return -1;
	for (size_t i = 0; i < f->cct.n; i++) {
		const struct hwp_cct_node *x = &f->cct.node[i];
		long k = hd_node(m, x->parent == HD_NO_NODE ? HD_NO_NODE : nm[x->parent],
				 x->object == HD_NO_OBJECT ? HD_NO_OBJECT :
							     (uint32_t)ob[x->object],
				 x->addr);

		if (k < 0)
			goto out;
		nm[i] = (uint32_t)k;
	}
	for (size_t i = 0; i < f->npaths; i++) {
		const struct hd_path *p = &f->paths[i];

		if (hd_count_path(m, (uint32_t)ev[p->event],
				  p->thread == HD_NO_THREAD ? HD_NO_THREAD :
							      (uint32_t)(t0 + p->thread),
				  nm[p->node], p->count))
			goto out;
	}
	ret = 0;
out:
	free(nm);
	return ret;
}

/* The keys kept names were merged by: (object, address) of each function
 * and line, so that the same object in many files is named once. */
struct kept_seen {
	struct rows_table names, lines;
	char *unkept; /* per merged object: a file did not keep its names */
	size_t nunkept;
};

/* 1 when key (obj, addr) is new in t (and now seen), 0 when seen, -1. */
static int first_seen(struct rows_table *t, uint32_t obj, uint64_t addr)
{
	size_t n = t->n;
	long k = rows_get(t, obj, addr);

	return k < 0 ? -1 : t->n > n;
}

/* f's kept names into m, objects renumbered (ob). 0 or -1. */
static int merge_names(struct hd_file *m, const struct hd_file *f, const long *ob,
		       struct kept_seen *ks)
{
	long *src = calloc(f->srcs.n + 1, sizeof(*src));
	int ret = -1, r;

	if (!src)
		return -1;
	if (m->nobjects > ks->nunkept) {
		char *u = realloc(ks->unkept, m->nobjects);

		if (!u)
			goto out;
		memset(u + ks->nunkept, 0, m->nobjects - ks->nunkept);
		ks->unkept = u;
		ks->nunkept = m->nobjects;
	}
	for (size_t i = 0; i < f->nobjects; i++) {
		struct hd_object *o = &m->objects[ob[i]];

		/* one file without them (hwprof 0.2's): the object is named
		 * from its file, for that file's addresses too (merge_read()) */
		if (!f->objects[i].kept)
			ks->unkept[ob[i]] = 1;
		if (!f->objects[i].kept || o->kept)
			continue;
		o->kept = 1;
		if (f->objects[i].kept_why && !(o->kept_why = strdup(f->objects[i].kept_why)))
			goto out;
	}
	for (size_t i = 0; i < f->srcs.n; i++)
		if ((src[i] = hd_src(m, f->srcs.s[i])) < 0)
			goto out;
	for (size_t i = 0; i < f->nnames; i++) {
		const struct hd_name *x = &f->names[i];

		if ((r = first_seen(&ks->names, (uint32_t)ob[x->object], x->lo)) < 0 ||
		    (r && hd_add_name(m, (uint32_t)ob[x->object], x->lo, x->hi, x->name)))
			goto out;
	}
	for (size_t i = 0; i < f->nlines; i++) {
		const struct hd_line *x = &f->lines[i];

		if ((r = first_seen(&ks->lines, (uint32_t)ob[x->object], x->addr)) < 0 ||
		    (r && hd_add_line(m, (uint32_t)ob[x->object], (uint32_t)src[x->src],
				      x->addr, x->line, x->func)))
			goto out;
	}
	ret = 0;
out:
	free(src);
	return ret;
}

/* Adds file f into m (processes and threads side by side, events by
 * name, objects by identity). f's samples are renumbered for m: f is of
 * no use afterwards. 0 or -1. */
/* A rank file's time in MPI (hwprof record under a launcher): its
 * ranks' totals, its sites (one site of several files once: same object,
 * address and call) and their calls, renumbered. 0 or -1. */
static int merge_mpi_time(struct hd_file *m, const struct hd_file *f, const long *ob,
			  size_t p0)
{
	long *site = calloc(f->nmsites + 1, sizeof(*site));
	int ret = -1;

	if (!site)
		return -1;
	for (size_t i = 0; i < f->nmranks; i++) {
		struct hd_mrank x = f->mranks[i];

		x.proc = (uint32_t)(p0 + x.proc);
		if (hd_add_mrank(m, &x))
			goto out;
	}
	for (size_t i = 0; i < f->nmsites; i++) {
		const struct hd_msite *s = &f->msites[i];
		uint32_t o = s->object == HD_NO_OBJECT ? HD_NO_OBJECT :
							 (uint32_t)ob[s->object];
		size_t j = 0;

		while (j < m->nmsites &&
		       (m->msites[j].object != o || m->msites[j].addr != s->addr ||
			strcmp(m->msites[j].call, s->call)))
			j++;
		site[i] = j < m->nmsites ? (long)j : hd_add_msite(m, o, s->addr, s->call);
		if (site[i] < 0)
			goto out;
	}
	for (size_t i = 0; i < f->nmsranks; i++) {
		struct hd_msrank x = f->msranks[i];

		x.site = (uint32_t)site[x.site];
		x.proc = (uint32_t)(p0 + x.proc);
		if (hd_add_msrank(m, &x))
			goto out;
	}
	ret = 0;
out:
	free(site);
	return ret;
}

static int merge(struct hd_file *m, struct hd_file *f, struct kept_seen *ks)
{
	size_t p0 = m->nprocs, t0 = m->nthreads;
	long *ev = calloc(f->nevents + 1, sizeof(long));
	long *ob = calloc(f->nobjects + 1, sizeof(long));
	int ret = -1;

	if (!ev || !ob)
		goto out;
	if (!m->command && f->command && !(m->command = strdup(f->command)))
		goto out;
	/* the losses of every file: a merge with one checkpoint is partial */
	m->side_lost = hwp_add_sat(m->side_lost, f->side_lost);
	m->checkpoint |= f->checkpoint;
	for (size_t i = 0; i < f->nevents; i++)
		if ((ev[i] = merge_event(m, &f->events[i])) < 0)
			goto out;
	for (size_t i = 0; i < f->nobjects; i++)
		if ((ob[i] = merge_object(m, &f->objects[i])) < 0)
			goto out;
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct hd_process *p = &f->procs[i];
		long k = hd_add_process(m, p->pid, p->ppid, p->command);

		if (k < 0)
			goto out;
		m->procs[k].rank = p->rank >= 0 ? p->rank : f->rank;
		m->procs[k].how = p->how;
		m->procs[k].status = p->status;
		if ((p->host || f->host) &&
		    !(m->procs[k].host = strdup(p->host ? p->host : f->host)))
			goto out;
	}
	for (size_t i = 0; i < f->nthreads; i++)
		if (hd_add_thread(m, f->threads[i].tid, (uint32_t)(p0 + f->threads[i].proc),
				  f->threads[i].comm) < 0)
			goto out;
	if (merge_paths(m, f, ev, ob, t0) || merge_names(m, f, ob, ks) ||
	    merge_mpi_time(m, f, ob, p0))
		goto out;
	/* its threads are new in m: so are its keys, appended as they are
	 * (f's samples renumbered in place; f is read no more), unless two
	 * of its events have one name */
	for (size_t i = 0; i < f->nevents; i++)
		for (size_t j = i + 1; j < f->nevents; j++)
			if (ev[i] == ev[j])
				goto counted;
	for (size_t i = 0; i < f->nsamples; i++) {
		struct hd_sample *s = &f->samples[i];

		s->event = (uint32_t)ev[s->event];
		s->thread = (uint32_t)(t0 + s->thread);
		if (s->object != HD_NO_OBJECT)
			s->object = (uint32_t)ob[s->object];
	}
	if (hd_add_samples(m, f->samples, f->nsamples))
		goto out;
	ret = 0;
	goto out;
counted:
	if (!m->index.slot && hd_reindex(m))
		goto out;
	for (size_t i = 0; i < f->nsamples; i++) {
		const struct hd_sample *s = &f->samples[i];

		if (hd_count(m, (uint32_t)ev[s->event], (uint32_t)(t0 + s->thread),
			     s->object == HD_NO_OBJECT ? HD_NO_OBJECT :
							 (uint32_t)ob[s->object],
			     s->addr, s->count))
			goto out;
	}
	ret = 0;
out:
	free(ev);
	free(ob);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The inputs: files and directories                                    */

static int by_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Appends s (owned) to the list; 0 or -1. */
/* The input that is the same file as st (device and inode), or -1. */
static long same_file(const struct merge_inputs *in, const struct stat *st)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->keys[i].known && in->keys[i].dev == st->st_dev &&
		    in->keys[i].ino == st->st_ino)
			return (long)i;
	return -1;
}

/* Adds s (st: its stat, NULL when it has none), unless it is a file
 * already there: then one line says so and s is freed. 0 or -1. */
static int push(struct merge_inputs *in, char *s, const struct stat *st)
{
	long twin = st ? same_file(in, st) : -1;

	if (twin >= 0) {
		fputs("hwprof: ", stderr);
		nm_put(stderr, s, NM_TEXT);
		if (strcmp(s, in->files[twin])) {
			fputs(" and ", stderr);
			nm_put(stderr, in->files[twin], NM_TEXT);
			fputs(" are one file: counted once\n", stderr);
		} else {
			fputs(" given twice: counted once\n", stderr);
		}
		free(s);
		return 0;
	}
	if (in->n == in->cap) {
		size_t cap = in->cap ? 2 * in->cap : 16;
		char **np = realloc(in->files, cap * sizeof(*np));
		struct merge_input_key *nk;

		if (!np)
			return -1;
		in->files = np;
		nk = realloc(in->keys, cap * sizeof(*nk));
		if (!nk)
			return -1;
		in->keys = nk;
		in->cap = cap;
	}
	in->keys[in->n] = (struct merge_input_key){ 0, 0, 0 };
	if (st)
		in->keys[in->n] = (struct merge_input_key){ st->st_dev, st->st_ino, 1 };
	in->files[in->n++] = s;
	return 0;
}

/* The regular files named *.data in dir, sorted by name. 0, or 1 after
 * one line on stderr. */
static int add_dir(struct merge_inputs *in, const char *dir, DIR *dp)
{
	size_t first = in->n, dl = strlen(dir);
	struct dirent *e;
	char **names = NULL;
	size_t nn = 0, cap = 0;
	int ret = 0;

	/* sorted by name before the check for files given twice, so that
	 * the one kept is the first in that order */
	while ((e = readdir(dp))) {
		size_t n = strlen(e->d_name);
		char *p;

		if (n <= 5 || strcmp(e->d_name + n - 5, ".data"))
			continue;
		if (nn == cap) {
			char **nv = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*nv));

			if (!nv)
				die("out of memory");
			names = nv;
		}
		if (asprintf(&p, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/",
			     e->d_name) < 0)
			die("out of memory");
		names[nn++] = p;
	}
	if (nn)
		qsort(names, nn, sizeof(char *), by_str);
	for (size_t i = 0; i < nn; i++) {
		struct stat st;
		char *p = names[i];

		names[i] = NULL;
		if (stat(p, &st) || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (push(in, p, &st))
			die("out of memory");
	}
	if (in->n == first) {
		fputs("hwprof: ", stderr);
		nm_put(stderr, dir, NM_TEXT);
		fputs(": a directory with no data files (*.data) in it\n", stderr);
		ret = 1;
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return ret;
}

int merge_inputs(struct merge_inputs *in, char **args, size_t nargs)
{
	memset(in, 0, sizeof(*in));
	for (size_t i = 0; i < nargs; i++) {
		struct stat st;
		int known = !stat(args[i], &st), r;
		DIR *dp;
		char *p;

		if (known && S_ISDIR(st.st_mode)) {
			dp = opendir(args[i]);
			if (!dp) {
				fputs("hwprof: ", stderr);
				nm_put(stderr, args[i], NM_TEXT);
				fprintf(stderr, ": %s\n", strerror(errno));
				merge_inputs_free(in);
				return 1;
			}
			r = add_dir(in, args[i], dp);
			closedir(dp);
			if (r) {
				merge_inputs_free(in);
				return 1;
			}
			continue;
		}
		/* anything else is read as a file, which says what is wrong */
		p = strdup(args[i]);
		if (!p || push(in, p, known ? &st : NULL))
			die("out of memory");
	}
	return 0;
}

void merge_inputs_free(struct merge_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->files[i]);
	free(in->files);
	free(in->keys);
	memset(in, 0, sizeof(*in));
}

/* ------------------------------------------------------------------ */
/* What files must share to be merged                                   */

/* "hwprof: A and B WHAT (X, Y)" with every name escaped; returns 1. */
static int refuse(const char *a, const char *b, const char *what, const char *x, const char *y)
{
	fputs("hwprof: ", stderr);
	nm_put(stderr, a, NM_TEXT);
	fputs(" and ", stderr);
	nm_put(stderr, b, NM_TEXT);
	fputc(' ', stderr);
	fputs(what, stderr);
	if (x) {
		fputs(" (", stderr);
		nm_put(stderr, x, NM_TEXT);
		fputs(", ", stderr);
		nm_put(stderr, y, NM_TEXT);
		fputc(')', stderr);
	}
	fputc('\n', stderr);
	return 1;
}

static const char *command_of(const struct hd_file *d)
{
	return d->command ? d->command : d->nprocs ? d->procs[0].command : "";
}

/* The program a file profiles, as far as both files say: the build-id of
 * the executable when both have one, else its path (and its size when both
 * know it), else the first word of the command line (into buf). */
static void program_of(const struct hd_file *d, int level, char *buf, size_t len)
{
	const char *c = command_of(d);

	if (level == 0)
		snprintf(buf, len, "build-id %s", d->program_id);
	else if (level == 1)
		snprintf(buf, len, "%s", d->program);
	else if (level == 3)
		snprintf(buf, len, "%s (%llu bytes)", d->program,
			 (unsigned long long)d->program_size);
	else
		snprintf(buf, len, "%.*s", (int)strcspn(c, " "), c);
}

/* 0 when f and g profile the same program, else 1 after one line. */
static int same_program(const struct hd_file *f, const char *fn, const struct hd_file *g,
			const char *gn)
{
	char x[512], y[512], xs[1100], ys[1100];
	int level = f->program_id && g->program_id     ? 0 :
		    !f->program || !g->program	       ? 2 :
		    f->program_size && g->program_size ? 3 :
							 1;

	program_of(f, level, x, sizeof(x));
	program_of(g, level, y, sizeof(y));
	if (level == 0 ? !strcasecmp(x, y) : !strcmp(x, y))
		return 0;
	/* a build-id alone does not tell a user which program: its path too */
	snprintf(xs, sizeof(xs), "%s%s%s", level ? "" : f->program, level ? "" : " ", x);
	snprintf(ys, sizeof(ys), "%s%s%s", level ? "" : g->program, level ? "" : " ", y);
	return refuse(fn, gn, "are profiles of different programs", xs, ys);
}

/* The event names of d, comma-separated, into a malloc'd string. */
static char *event_list(const struct hd_file *d)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);

	if (!m)
		return NULL;
	for (size_t i = 0; i < d->nevents; i++)
		fprintf(m, "%s%s", i ? "," : "", d->events[i].name);
	if (!d->nevents)
		fputs("none", m);
	fclose(m);
	return s;
}

static int has_event(const struct hd_file *d, const char *name)
{
	for (size_t i = 0; i < d->nevents; i++)
		if (!strcmp(d->events[i].name, name))
			return 1;
	return 0;
}

/* 0 when f and g hold the same events (by name, in any order). */
static int same_events(const struct hd_file *f, const char *fn, const struct hd_file *g,
		       const char *gn)
{
	char *x, *y;
	int ret = 0;

	for (size_t i = 0; i < f->nevents && !ret; i++)
		ret = !has_event(g, f->events[i].name);
	for (size_t i = 0; i < g->nevents && !ret; i++)
		ret = !has_event(f, g->events[i].name);
	if (!ret)
		return 0;
	x = event_list(f);
	y = event_list(g);
	if (!x || !y)
		die("out of memory");
	else
		refuse(fn, gn, "have different events", x, y);
	free(x);
	free(y);
	return 1;
}

static int same_size(const struct hd_file *f, const char *fn, const struct hd_file *g,
		     const char *gn)
{
	char x[32] = "none", y[32] = "none";

	if (f->size == g->size)
		return 0;
	if (f->size >= 0)
		snprintf(x, sizeof(x), "%d", f->size);
	if (g->size >= 0)
		snprintf(y, sizeof(y), "%d", g->size);
	return refuse(fn, gn, "have different MPI world sizes", x, y);
}

/* Records the ranks of file number i in seen (rank -> file i + 1);
 * 1 after one line when another file holds one of them. */
static int new_ranks(struct rows_table *seen, const struct hd_file *f, size_t i, char **files)
{
	for (size_t k = 0; k <= f->nprocs; k++) {
		int r = k < f->nprocs ? f->procs[k].rank : f->rank;
		long j;

		if (r < 0)
			continue;
		j = rows_get(seen, (uint64_t)r, 0);
		if (j < 0)
			die("out of memory");
		if (!seen->rows[j].aux) {
			seen->rows[j].aux = (uint32_t)i + 1;
		} else if (seen->rows[j].aux != i + 1) {
			char what[64];

			snprintf(what, sizeof(what), "both hold MPI rank %d", r);
			return refuse(files[seen->rows[j].aux - 1], files[i], what, NULL,
				      NULL);
		}
	}
	return 0;
}

/* 1 after one line when a process of f has no MPI rank (--ranks). */
static int lacks_rank(const struct hd_file *f, const char *fn)
{
	int none = !f->nprocs;

	if (f->job || f->rank >= 0)
		return 0;
	for (size_t k = 0; k < f->nprocs; k++)
		none |= f->procs[k].rank < 0;
	if (!none)
		return 0;
	fputs("hwprof: ", stderr);
	nm_put(stderr, fn, NM_TEXT);
	fputs(": no MPI rank in it (not recorded under an MPI launcher): --ranks needs "
	      "ranks\n",
	      stderr);
	return 1;
}

static int read_one(const char *path, struct hd_file *f)
{
	char err[1024];

	if (!hd_read(path, f, err, sizeof(err)))
		return 0;
	fputs("hwprof: ", stderr);
	nm_put(stderr, err, NM_TEXT);
	fputc('\n', stderr);
	return 1;
}

/* Keeps what the merged files share: world size, program, host. */
static int merged_header(struct hd_file *m, const struct hd_file *f, int first)
{
	if (first) {
		m->size = f->size;
		m->program_size = f->program_size;
		if ((f->program && !(m->program = strdup(f->program))) ||
		    (f->program_id && !(m->program_id = strdup(f->program_id))) ||
		    (f->host && !(m->host = strdup(f->host))))
			return -1;
	} else if (m->host && (!f->host || strcmp(m->host, f->host))) {
		free(m->host); /* several hosts: each process has its own */
		m->host = NULL;
	}
	return 0;
}

/* Reads files into d: one file as it is, several merged (after the checks
 * that they are parts of one run: hwprof(1)). */
int merge_read(struct hd_file *d, char **files, size_t nfiles, int need_ranks)
{
	struct rows_table seen = { 0 }; /* MPI rank -> file number + 1 */
	struct kept_seen ks = { 0 };
	struct hd_file first;
	int ret = 1;

	if (nfiles == 1) {
		if (read_one(files[0], d))
			return 1;
		if (need_ranks && lacks_rank(d, files[0])) {
			hd_free(d);
			return 1;
		}
		return 0;
	}
	hd_init(d);
	hd_init(&first);
	for (size_t i = 0; i < nfiles; i++) {
		struct hd_file f;

		if (read_one(files[i], &f))
			goto out;
		if (f.job || (i && first.job)) {
			const char *job = f.job ? files[i] : files[0];

			fputs("hwprof: ", stderr);
			nm_put(stderr, job, NM_TEXT);
			fputs(" is a job file (libhwprof-mpi): it is reported alone, not merged "
			      "with ",
			      stderr);
			nm_put(stderr, f.job ? files[i ? 0 : 1] : files[i], NM_TEXT);
			fputc('\n', stderr);
			hd_free(&f);
			goto out;
		}
		if ((i && (same_program(&first, files[0], &f, files[i]) ||
			   same_events(&first, files[0], &f, files[i]) ||
			   same_size(&first, files[0], &f, files[i]))) ||
		    new_ranks(&seen, &f, i, files) ||
		    (need_ranks && lacks_rank(&f, files[i]))) {
			hd_free(&f);
			goto out;
		}
		if (merge(d, &f, &ks) || merged_header(d, &f, !i))
			die("out of memory");
		if (f.version < d->version)
			d->version = f.version; /* a version 1 file lists no threads */
		if (!i) {
			first = f; /* kept for the checks */
			continue;
		}
		hd_free(&f);
	}
	/* an object one file kept no names for is named from its file,
	 * where that is still the recorded one (else the kept names are the
	 * better half) */
	for (size_t i = 0; i < ks.nunkept && i < d->nobjects; i++)
		if (ks.unkept[i] && d->objects[i].kept &&
		    sym_file_is_recorded(d->objects[i].path, d->objects[i].buildid,
					 d->objects[i].size))
			d->objects[i].kept = 0;
	ret = 0;
out:
	hd_free(&first);
	rows_free(&seen);
	rows_free(&ks.names);
	rows_free(&ks.lines);
	free(ks.unkept);
	if (ret)
		hd_free(d);
	return ret;
}
