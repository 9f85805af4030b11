/* SPDX-License-Identifier: MIT */
/*
 * libhwprof-mpi (libhwprof-mpi(7)): a process-wide profile of every rank
 * of an MPI job, through the MPI profiling interface. MPI_Init and
 * MPI_Init_thread (and their Fortran names) start it once MPI is up;
 * MPI_Finalize stops it, reduces every rank's profile to rank 0 with MPI
 * itself (reduce.c) and rank 0 writes one job file (hwprof-data(5)), all
 * before MPI goes down. Linked before the MPI library or preloaded, with no
 * change to the program.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include <hwprof.h>
#include "../engine/internal.h"
#include "../profile/outfile.h"
#include "../profile/data.h"
#include "../profile/symbols.h"
#include "hwpmpi.h"

#define DEFAULT_TOP	64   /* functions whose per-rank counts are kept */
#define MAX_TOP		1024 /* P x MAX_TOP x 8 bytes at rank 0 */
#define DEFAULT_SITES	256  /* call sites whose per-rank times are kept */
#define MAX_SITES	4096 /* P x MAX_SITES x 32 bytes at rank 0 */
#define DEFAULT_THREADS 16   /* threads kept per rank */
#define MAX_THREADS	1024 /* P x (MAX_THREADS + 1) x 32 bytes at rank 0 */

static struct {
	struct hwprof_session *s;
	int ev;
	int err; /* why this rank has no profile (-errno), or 0 */
	char why[160];
	char event[256];
	uint64_t period; /* HWPROF_PERIOD, 0: the event's default */
	int started, finished;
	int paused;		    /* stopped by MPI_Pcontrol(0) */
	const char *times;	    /* HWPROF_MPI_TIMES: the clock only, into it */
	int paths;		    /* HWPROF_MPI_PATHS: call paths kept */
	struct hwp_tid_count *tids; /* at MPI_Finalize: samples per thread */
	size_t ntids;
	uint64_t untold; /* samples of no known thread */
} prof;			 /* this rank's profile run */

/* One thread of a rank as rank 0 gathers it (sent as bytes). */
struct rthread {
	int32_t tid; /* 0: the rank's threads not kept, summed */
	uint32_t pad;
	uint64_t samples;
	char comm[16];
};

/* What each rank tells rank 0 besides its profile (sent as bytes). */
struct rinfo {
	int32_t pid;
	int32_t err;	  /* no profile: -errno, why says why */
	uint64_t read;	  /* sample records read */
	uint64_t samples; /* in its profile */
	uint64_t mpi;	  /* of them in MPI objects */
	uint64_t lost, throttled, missed, period;
	int32_t missed_err;
	uint32_t pad;
	uint64_t app_ns;  /* MPI_Init to MPI_Finalize, less pauses */
	uint64_t mpi_ns;  /* in the timed MPI calls (wait.c) */
	uint64_t calls;	  /* timed calls */
	uint64_t cut;	  /* call paths cut short */
	uint64_t dropped; /* frames dropped from them (push_paths()) */
	char host[64];
	char why[160];
	char cmd[256];
};

static int world_rank(void)
{
	int r = -1;

	PMPI_Comm_rank(MPI_COMM_WORLD, &r);
	return r;
}

/* ------------------------------------------------------------------ */
/* Start                                                                */

/* HWPROF_MPI_PATHS: 1 keeps call paths, 0 or unset does not; anything
 * else is said and taken as 0. */
static int paths_wanted(void)
{
	const char *v = secure_getenv("HWPROF_MPI_PATHS");

	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (!strcmp(v, "1"))
		return 1;
	fprintf(stderr, "hwprof-mpi: HWPROF_MPI_PATHS=%.20s: not 0 or 1; no call paths\n", v);
	return 0;
}

static void start(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	int r;

	if (prof.started++)
		return;
	hwp_wait_start();
	prof.ev = -1;
	/* hwprof record samples this rank itself: the clock only */
	prof.times = secure_getenv("HWPROF_MPI_TIMES");
	if (prof.times && *prof.times)
		return;
	prof.times = NULL;
	elf_version(EV_CURRENT); /* for the symbol tables at MPI_Finalize */
	/* HWPROF_EVENT and HWPROF_PERIOD as the classic calls read them
	 * (lib/engine/env.c), but an unset period is the event's default */
	{
		struct hwp_env env;

		r = hwp_env_read(&env, prof.why, sizeof(prof.why));
		snprintf(prof.event, sizeof(prof.event), "%s", env.event);
		prof.period = env.period;
		if (r)
			goto fail;
	}
	prof.paths = paths_wanted();
	if (prof.paths)
		o.flags |= HWPROF_SESSION_CALLCHAIN;
	r = hwprof_session_new(&o, &prof.s);
	/* each sample's thread, for the samples per thread */
	if (!r)
		r = hwp_tids_enable(prof.s);
	if (!r) {
		r = hwprof_session_add(prof.s, prof.event, prof.period, NULL);
		if (r >= 0) {
			prof.ev = r;
			r = hwprof_session_start(prof.s);
		}
	}
	if (!r)
		return;
	{
		char w[128];

		if (hwprof_event_probe(prof.event, w, sizeof(w)) < 0)
			snprintf(prof.why, sizeof(prof.why), "HWPROF_EVENT=%.40s: %.100s",
				 prof.event, w);
		else
			snprintf(prof.why, sizeof(prof.why), "%.40s: %s", prof.event,
				 strerror(-r));
	}
fail:
	prof.err = r;
	fprintf(stderr, "hwprof-mpi: rank %d: no profile: %s\n", world_rank(), prof.why);
	hwprof_session_free(prof.s);
	prof.s = NULL;
}

/* ------------------------------------------------------------------ */
/* This rank's profile                                                  */

struct lobj {
	char *path, *bid;
	uint64_t hash, size;
	int mpi;
	struct sym_obj rp;
};

static char *self_exe(void)
{
	char p[PATH_MAX];

	/* realpath() into a buffer: a sanitizer's interceptor in a preloaded
	 * library may reach glibc's oldest realpath, which refuses NULL */
	return strdup(realpath("/proc/self/exe", p) ? p : "/proc/self/exe");
}

/*
 * The function an 8-byte bucket's samples are named after: the symbol
 * that covers most of its bytes (the first on a tie). A function that is
 * not 8-byte aligned (-O1, -Os) shares a bucket with the end of the one
 * before it, and which of the bucket's instructions took a sample is not
 * kept (HWPROF_OBJECT_BYTES): its start alone would name the one before.
 */
static const struct sym_func *bucket_sym(const struct sym_obj *o, uint64_t addr)
{
	const struct sym_func *s[HWPROF_OBJECT_BYTES], *best = NULL;
	int n[HWPROF_OBJECT_BYTES] = { 0 }, k = 0, most = 0;

	for (int i = 0; i < HWPROF_OBJECT_BYTES; i++) {
		const struct sym_func *x = sym_obj_sym(o, addr + (uint64_t)i);
		int j = 0;

		if (!x)
			continue;
		while (j < k && s[j] != x)
			j++;
		if (j == k)
			s[k++] = x;
		if (++n[j] > most) {
			most = n[j];
			best = x;
		}
	}
	return best;
}

static int push(struct hwp_mpi_prof *p, size_t *cap, uint32_t kind, uint64_t obj,
		uint64_t addr, uint64_t n, int rank)
{
	if (p->nents == *cap) {
		size_t nc = *cap ? 2 * *cap : 1024;
		struct hwp_mpi_ent *ne = realloc(p->ents, nc * sizeof(*ne));

		if (!ne)
			return -1;
		p->ents = ne;
		*cap = nc;
	}
	p->ents[p->nents++] = (struct hwp_mpi_ent){ .obj = obj,
						    .addr = addr,
						    .sum = n,
						    .min = n,
						    .max = n,
						    .kind = kind,
						    .maxrank = rank,
						    .ranks = 1 };
	return 0;
}

/* The local object of path among lo[0 .. *nlo), added when new (lo has
 * room for one per loaded object); NULL when out of memory. */
static void lobjs_free(struct lobj *lo, size_t nlo)
{
	for (size_t k = 0; k < nlo; k++) {
		sym_obj_free(&lo[k].rp);
		free(lo[k].path);
		free(lo[k].bid);
	}
	free(lo);
}

static struct lobj *lobj_of(struct lobj *lo, size_t *nlo, const char *path)
{
	struct lobj *l;

	for (size_t k = 0; k < *nlo; k++)
		if (!strcmp(lo[k].path, path))
			return &lo[k];
	l = &lo[(*nlo)++];
	if (!(l->path = strdup(path)))
		return NULL;
	l->bid = path[0] == '/' ? sym_file_buildid(path) : NULL;
	l->size = path[0] == '/' ? sym_file_size(path) : 0;
	l->hash = hwp_mpi_objhash(l->bid, l->path, l->size);
	l->mpi = hd_object_is_mpi(path);
	sym_obj_init(&l->rp, l->path, l->bid, 0);
	return l;
}

/* Object o's buckets, each as an address and as its function (the bucket
 * at the function's start: bucket_sym()); 0 or -1 (out of memory). */
static int push_buckets(struct hwp_mpi_prof *p, size_t *cap, struct lobj *l,
			const struct hwprof_object *o, struct rinfo *ri, int rank)
{
	sym_obj_load(&l->rp);
	for (size_t b = 0; b < o->nbuckets; b++) {
		uint64_t c = o->counts[b], addr;
		const struct sym_func *sym;

		if (!c)
			continue;
		addr = o->start + b * HWPROF_OBJECT_BYTES - o->base;
		sym = bucket_sym(&l->rp, addr);
		if (sym && sym->lo > addr)
			addr = sym->lo; /* inside the function it is named after */
		if (push(p, cap, HWP_MPI_ADDR, l->hash, addr, c, rank) ||
		    push(p, cap, HWP_MPI_FUNC, l->hash, sym ? sym->lo : addr, c, rank))
			return -1;
		ri->samples += c;
		if (l->mpi)
			ri->mpi += c;
	}
	return 0;
}

/* The object whose text holds pc, or NULL. */
static const struct hwprof_object *obj_at(const struct hwprof_object *objs, size_t n,
					  uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (pc >= objs[i].start && pc < objs[i].end)
			return &objs[i];
	return NULL;
}

/*
 * The session's call paths as HWP_MPI_NODE entries (hwpmpi.h): each node
 * of the engine's tree keyed by its path's frames as ELF addresses of
 * their objects, so the same path on every rank is one key wherever the
 * objects were loaded. A return address is looked up at itself, then one
 * byte before (a call that ends its object's text). A frame that no
 * object holds and where no path ends cannot be code (0, or what a
 * frame-pointer walk read through a function without one): it is dropped
 * as hwp record drops it (hwprof-data(5), "paths"), its callees then
 * under its caller, and *dropped counts it once for each sample below.
 * 0 or -1.
 */
static int push_paths(struct hwp_mpi_prof *p, size_t *cap, struct lobj *lo, size_t *nlo,
		      const struct hwprof_object *objs, size_t n, char **exe, int rank,
		      const struct hwprof_path_node *nd, size_t nn, uint64_t *dropped)
{
	uint64_t *h = malloc((nn + 1) * sizeof(*h)), *below = calloc(nn + 1, sizeof(*below));

	if (!h || !below)
		goto fail;
	/* each node's samples and those of the paths through it: parents
	 * come first, so from the last node back each is whole */
	for (size_t i = nn; i-- > 0;) {
		below[i] = hwp_add_sat(below[i], nd[i].samples);
		if (nd[i].parent != HWPROF_NO_NODE && nd[i].parent < i)
			below[nd[i].parent] = hwp_add_sat(below[nd[i].parent], below[i]);
	}
	for (size_t i = 0; i < nn; i++) {
		const struct hwprof_path_node *x = &nd[i];
		const struct hwprof_object *o = obj_at(objs, n, x->pc);
		uint64_t oh = 0, addr = x->pc, ph;
		struct hwp_mpi_ent *e;

		if (!o && x->pc)
			o = obj_at(objs, n, x->pc - 1);
		if (o) {
			const char *path = o->path;
			struct lobj *l;

			if (!*path) {
				if (!*exe && !(*exe = self_exe()))
					goto fail;
				path = *exe;
			}
			if (!(l = lobj_of(lo, nlo, path)))
				goto fail;
			oh = l->hash;
			addr = x->pc - o->base;
		}
		ph = x->parent == HWPROF_NO_NODE || x->parent >= i ? 0 : h[x->parent];
		if (!o && !x->samples) {
			h[i] = ph; /* not code: its callees go to its caller */
			*dropped = hwp_add_sat(*dropped, below[i]);
			continue;
		}
		h[i] = hwp_mpi_nodehash(ph, oh, addr);
		if (push(p, cap, HWP_MPI_NODE, h[i], addr, x->samples, rank))
			goto fail;
		e = &p->ents[p->nents - 1];
		e->min = oh;
		e->max = ph;
	}
	free(h);
	free(below);
	return 0;
fail:
	free(h);
	free(below);
	return -1;
}

/*
 * Stops the session and turns its per-object buckets into entries: one per
 * sampled 8-byte bucket (its ELF address) and one per function holding it
 * (the start of the symbol that covers it in the object's symbol table,
 * as hwprof report names it; the bucket itself where none does).
 */
static int collect(struct hwp_mpi_prof *p, struct rinfo *ri, int rank)
{
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	const struct hwprof_object *objs;
	const struct hwprof_path_node *pn;
	struct hwprof_path_node *nodes = NULL;
	struct lobj *lo = NULL;
	size_t n, nlo = 0, cap = 0, nn = 0;
	char *exe = NULL;
	int ret = -1;

	hwprof_session_stop(prof.s);
	if (hwprof_session_stats(prof.s, prof.ev, &st))
		return -1;
	/* the call paths copied: the objects' call ends their loan */
	if (prof.paths) {
		if (hwprof_session_paths(prof.s, prof.ev, &pn, &nn) ||
		    !(nodes = malloc((nn + 1) * sizeof(*nodes))))
			return -1;
		if (nn)
			memcpy(nodes, pn, nn * sizeof(*nodes));
		ri->cut = st.paths_cut;
	}
	if (hwprof_session_objects(prof.s, prof.ev, &objs, &n)) {
		free(nodes);
		return -1;
	}
	ri->read = st.samples;
	ri->lost = st.lost + st.saturated; /* a full bucket drops the sample */
	ri->throttled = st.throttled;
	ri->missed = st.missed;
	ri->missed_err = st.missed_err;
	ri->period = st.period;
	/* the samples per thread: none kept when they cannot be had */
	if (hwp_tids_of(prof.s, prof.ev, &prof.tids, &prof.ntids, &prof.untold))
		prof.ntids = 0;
	lo = calloc(n + 1, sizeof(*lo));
	if (!lo)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct hwprof_object *o = &objs[i];
		const char *path = o->path;
		struct lobj *l = NULL;

		for (size_t b = 0; b < o->nbuckets && !l; b++) {
			if (!o->counts[b])
				continue;
			if (!*path) {
				if (!exe && !(exe = self_exe()))
					goto out;
				path = exe;
			}
			if (!(l = lobj_of(lo, &nlo, path)))
				goto out;
		}
		if (!l)
			continue; /* no sample in this one */
		if (push_buckets(p, &cap, l, o, ri, rank))
			goto out;
	}
	/* samples in no loaded object: kept, at address 0 of no object */
	if (st.outside && (push(p, &cap, HWP_MPI_ADDR, 0, 0, st.outside, rank) ||
			   push(p, &cap, HWP_MPI_FUNC, 0, 0, st.outside, rank)))
		goto out;
	ri->samples += st.outside;
	if (nodes &&
	    push_paths(p, &cap, lo, &nlo, objs, n, &exe, rank, nodes, nn, &ri->dropped))
		goto out;
	p->objs = calloc(nlo + 1, sizeof(*p->objs));
	if (!p->objs)
		goto out;
	for (size_t k = 0; k < nlo; k++) {
		p->objs[k] = (struct hwp_mpi_obj){ lo[k].hash, lo[k].bid, lo[k].path,
						   lo[k].size };
		lo[k].bid = lo[k].path = NULL;
	}
	p->nobjs = nlo;
	hwp_mpi_sort(p);
	ret = 0;
out:
	lobjs_free(lo, nlo);
	free(exe);
	free(nodes);
	return ret;
}

/* One call site of this rank, keyed as its entry (HWP_MPI_SITE + call,
 * object, ELF address of the return address). */
struct lsite {
	uint64_t kind, obj, addr;
	uint64_t n, tot, min, max;
};

static int cmp_lsite(const void *a, const void *b)
{
	const struct lsite *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The object holding a return address: its path (the executable's as
 * collect() names it) and the address's ELF address; NULL when no
 * object holds it. */
static const char *site_object(uintptr_t ret, const char *exe, uint64_t *addr)
{
	Dl_info info;
	struct link_map *lm = NULL;

	if (!ret || !dladdr1((void *)(ret - 1), &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	*addr = (uint64_t)(ret - lm->l_addr);
	return lm->l_name && *lm->l_name ? lm->l_name : exe;
}

/*
 * This rank's call sites (wait.c) into *out, sorted (0: none), and as
 * entries of p with their objects: each site's total nanoseconds as its
 * count, so the reduction gives rank 0 every site of the job with its
 * sum, min and max over the ranks. 0 or -1 (out of memory).
 */
static int collect_sites(struct hwp_mpi_prof *p, struct lsite **out, size_t *nout)
{
	struct hwp_wait_site *ws = malloc(HWP_WAIT_MAXSITES * sizeof(*ws));
	struct lsite *ls = NULL;
	struct lobj *lo = NULL;
	size_t n, nlo = 0, o = 0;
	char *exe = self_exe();
	int ret = -1;

	*out = NULL;
	*nout = 0;
	if (!ws || !exe)
		goto out;
	n = hwp_wait_sites(ws, HWP_WAIT_MAXSITES);
	ls = calloc(n + 1, sizeof(*ls));
	lo = calloc(n + 1, sizeof(*lo));
	if (!ls || !lo)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = 0;
		const char *path = site_object(ws[i].ret, exe, &addr);
		struct lobj *l = path ? lobj_of(lo, &nlo, path) : NULL;

		if (path && !l)
			goto out;
		ls[i] = (struct lsite){ HWP_MPI_SITE + ws[i].fn,
					l ? l->hash : 0,
					l ? addr : 0,
					ws[i].n,
					ws[i].tot,
					ws[i].min,
					ws[i].max };
	}
	qsort(ls, n, sizeof(*ls), cmp_lsite);
	for (size_t i = 0; i < n; i++) {
		struct lsite *x = o ? &ls[o - 1] : NULL;

		if (x && !cmp_lsite(x, &ls[i])) {
			x->n += ls[i].n;
			x->tot = hwp_add_sat(x->tot, ls[i].tot);
			x->min = ls[i].min < x->min ? ls[i].min : x->min;
			x->max = ls[i].max > x->max ? ls[i].max : x->max;
		} else {
			ls[o++] = ls[i];
		}
	}
	{
		struct hwp_mpi_ent *ne = realloc(p->ents, (p->nents + o + 1) * sizeof(*ne));
		struct hwp_mpi_obj *no = realloc(p->objs, (p->nobjs + nlo + 1) * sizeof(*no));

		if (ne)
			p->ents = ne;
		if (no)
			p->objs = no;
		if (!ne || !no)
			goto out;
	}
	for (size_t i = 0; i < o; i++)
		p->ents[p->nents++] = (struct hwp_mpi_ent){ .obj = ls[i].obj,
							    .addr = ls[i].addr,
							    .sum = ls[i].tot,
							    .min = ls[i].tot,
							    .max = ls[i].tot,
							    .kind = (uint32_t)ls[i].kind,
							    .maxrank = world_rank(),
							    .ranks = 1 };
	for (size_t k = 0; k < nlo; k++) {
		size_t j = 0;

		while (j < p->nobjs && p->objs[j].hash != lo[k].hash)
			j++;
		if (j < p->nobjs)
			continue;
		p->objs[p->nobjs++] = (struct hwp_mpi_obj){ lo[k].hash, lo[k].bid, lo[k].path,
							    lo[k].size };
		lo[k].bid = lo[k].path = NULL;
	}
	hwp_mpi_sort(p);
	*out = ls;
	*nout = o;
	ls = NULL;
	ret = 0;
out:
	lobjs_free(lo, nlo);
	free(ls);
	free(ws);
	free(exe);
	return ret;
}

/* The command line, arguments space-separated, cut to fit out. */
static void cmdline(char *out, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	out[n] = 0;
	while (n > 0 && !out[n - 1])
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (!out[i])
			out[i] = ' ';
}

/* ------------------------------------------------------------------ */
/* Rank 0: the job file                                                 */

struct topkey {
	uint64_t obj, addr;
};

static long obj_index(const struct hwp_mpi_prof *p, const long *map, uint64_t hash)
{
	if (!hash)
		return -1;
	for (size_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].hash == hash)
			return map[i];
	return -1;
}

/* A call site rank 0 picked: its key, as every rank looks it up. */
struct sitekey {
	uint64_t kind, obj, addr;
};

/* The call sites' lines (mt, ms, msr): each rank's totals, and for the
 * sites picked each rank's calls, total, min and max. */
static int build_sites(struct hd_file *d, const struct hwp_mpi_prof *p, const long *map,
		       const struct rinfo *all, int size, const struct sitekey *sk,
		       const uint64_t *st, uint32_t ns)
{
	for (int i = 0; i < size; i++) {
		struct hd_mrank m = { (uint32_t)i, all[i].app_ns, all[i].mpi_ns,
				      all[i].calls };

		if (m.app_ns && hd_add_mrank(d, &m))
			return -1;
	}
	for (uint32_t j = 0; j < ns; j++) {
		long oi = obj_index(p, map, sk[j].obj);
		uint32_t fn = (uint32_t)(sk[j].kind - HWP_MPI_SITE);

		if (fn >= HWP_MPI_NCALLS ||
		    hd_add_msite(d, oi < 0 ? HD_NO_OBJECT : (uint32_t)oi,
				 oi < 0 ? 0 : sk[j].addr, hwp_mpi_call_names[fn]) < 0)
			return -1;
		for (int i = 0; i < size; i++) {
			const uint64_t *v = &st[((size_t)i * ns + j) * 4];
			struct hd_msrank r = { j, (uint32_t)i, v[0], v[1], v[2], v[3] };

			if (v[0] && hd_add_msrank(d, &r))
				return -1;
		}
	}
	return 0;
}

/* The ranks' threads: thread and tt lines, each rank's kept threads and
 * a row (tid 0) of those not kept. 0 or -1. */
static int build_threads(struct hd_file *d, int size, const struct rthread *thr, uint32_t keep)
{
	for (int i = 0; thr && i < size; i++)
		for (uint32_t j = 0; j <= keep; j++) {
			const struct rthread *t = &thr[(size_t)i * (keep + 1) + j];
			char comm[sizeof(t->comm)];
			struct hd_ttotal tt;
			long ti;

			if (!t->samples)
				continue;
			memcpy(comm, t->comm, sizeof(comm));
			comm[sizeof(comm) - 1] = 0;
			ti = hd_add_thread(d, j < keep ? t->tid : 0, (uint32_t)i,
					   j < keep ? (*comm ? comm : NULL) : "(others)");
			tt = (struct hd_ttotal){ (uint32_t)ti, 0, t->samples };
			if (ti < 0 || hd_add_ttotal(d, &tt))
				return -1;
		}
	return 0;
}

/* The HWP_MPI_NODE entries of p: [*lo, *hi). */
static void node_range(const struct hwp_mpi_prof *p, size_t *lo, size_t *hi)
{
	size_t i = 0;

	while (i < p->nents && p->ents[i].kind < HWP_MPI_NODE)
		i++;
	*lo = i;
	while (i < p->nents && p->ents[i].kind == HWP_MPI_NODE)
		i++;
	*hi = i;
}

/* The node entry whose path hash is h, among those sorted in e[0 .. n). */
static long node_find(const struct hwp_mpi_ent *e, size_t n, uint64_t h)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (e[m].obj < h)
			a = m + 1;
		else
			b = m;
	}
	return a < n && e[a].obj == h ? (long)a : -1;
}

/* Node entry k's node in d (its parents first), memoized in idx (-1: not
 * yet, -2: none). */
static long node_of(struct hd_file *d, const struct hwp_mpi_prof *p, const long *map,
		    const struct hwp_mpi_ent *e, size_t n, long *idx, size_t k, int depth)
{
	uint32_t parent = HD_NO_NODE;
	long oi, x;

	if (idx[k] != -1)
		return idx[k];
	idx[k] = -2; /* a cycle (hashes that collide) ends here */
	if (depth > HD_MAX_DEPTH)
		return -2;
	if (e[k].max) {
		long j = node_find(e, n, e[k].max);

		if (j < 0 || (x = node_of(d, p, map, e, n, idx, (size_t)j, depth + 1)) < 0)
			return -2;
		parent = (uint32_t)x;
	}
	oi = obj_index(p, map, e[k].min);
	x = hd_node(d, parent, oi < 0 ? HD_NO_OBJECT : (uint32_t)oi, e[k].addr);
	if (x == -1)
		return -1; /* out of memory */
	idx[k] = x < 0 ? -2 : x;
	return idx[k];
}

/*
 * The job's call paths (HWPROF_MPI_PATHS): the union of the ranks' trees
 * as n lines, the samples of each path summed over the ranks as c lines
 * (thread -), and the event's paths line. Paths that cannot be written
 * whole (a parent missing, deeper than HD_MAX_DEPTH) are left out, and
 * all of them where their samples would pass the event's. 0 or -1.
 */
static int build_paths(struct hd_file *d, const struct hwp_mpi_prof *p, const long *map,
		       const struct rinfo *all, int size, uint64_t samples)
{
	size_t lo, hi, n;
	const struct hwp_mpi_ent *e;
	uint64_t chains = 0, cut = 0, dropped = 0;
	long *idx;

	node_range(p, &lo, &hi);
	e = &p->ents[lo];
	n = hi - lo;
	for (size_t k = 0; k < n; k++)
		chains = hwp_add_sat(chains, e[k].sum);
	if (!n)
		return 0;
	if (chains > samples) {
		fprintf(stderr,
			"hwprof-mpi: the call paths hold more samples than the profile "
			"(a full bucket): no call paths written\n");
		return 0;
	}
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -1;
	for (size_t k = 0; k < n; k++)
		idx[k] = -1;
	chains = 0;
	for (size_t k = 0; k < n; k++) {
		long x;

		if (!e[k].sum)
			continue;
		x = node_of(d, p, map, e, n, idx, k, 1);
		if (x == -1 ||
		    (x >= 0 && hd_count_path(d, 0, HD_NO_THREAD, (uint32_t)x, e[k].sum))) {
			free(idx);
			return -1;
		}
		if (x >= 0)
			chains = hwp_add_sat(chains, e[k].sum);
	}
	free(idx);
	for (int i = 0; i < size; i++) {
		cut = hwp_add_sat(cut, all[i].cut);
		dropped = hwp_add_sat(dropped, all[i].dropped);
	}
	d->events[0].dropped = dropped;
	d->events[0].callgraph = HD_CG_FP;
	d->events[0].chains = chains;
	d->events[0].cut = cut < chains ? cut : chains;
	return 0;
}

static int build(struct hd_file *d, const struct hwp_mpi_prof *p, const struct rinfo *all,
		 int size, const struct topkey *keys, const uint64_t *counts, uint32_t k,
		 const struct sitekey *sk, const uint64_t *st, uint32_t ns,
		 const struct rthread *thr, uint32_t keep)
{
	long *map = calloc(p->nobjs + 1, sizeof(*map));
	struct hd_event *e;
	size_t nfuncs0 = 0;
	char *exe;
	int ret = -1, failed = -1, differ = 0;
	uint64_t period = 0, total = 0;

	if (!map)
		return -1;
	d->job = 1;
	d->size = size;
	d->top = k;
	exe = self_exe();
	d->program = exe;
	if (exe) {
		d->program_id = sym_file_buildid(exe);
		d->program_size = sym_file_size(exe);
	}
	d->host = strdup(all[0].host);
	d->command = strdup(all[0].cmd);
	if (!d->program || !d->host || !d->command || hd_add_event(d, prof.event, 0) < 0)
		goto out;
	e = &d->events[0];
	for (int i = 0; i < size; i++) {
		const struct rinfo *r = &all[i];
		long pi = hd_add_process(d, r->pid, 0, r->cmd);

		if (pi < 0)
			goto out;
		d->procs[pi].rank = i;
		d->procs[pi].how = HD_RUNNING; /* not seen to end: at MPI_Finalize */
		if (strcmp(r->host, d->host) && !(d->procs[pi].host = strdup(r->host)))
			goto out;
		if (r->err) {
			if (failed < 0)
				failed = i;
			e->missed = hwp_add_sat(e->missed, 1);
			continue;
		}
		if (period && r->period != period)
			differ = 1;
		period = r->period;
		e->samples = hwp_add_sat(e->samples, r->read);
		e->lost = hwp_add_sat(e->lost, r->lost);
		e->throttled = hwp_add_sat(e->throttled, r->throttled);
		e->missed = hwp_add_sat(e->missed, r->missed);
		if (r->missed && failed < 0 && !e->missed_why &&
		    asprintf(&e->missed_why, "rank %d: %s", i, strerror(-r->missed_err)) < 0)
			e->missed_why = NULL;
	}
	e->period = differ ? 0 : period;
	if (failed >= 0) {
		/* a rank without a profile counts as a thread not covered, and
		 * says why first */
		free(e->missed_why);
		if (asprintf(&e->missed_why, "rank %d has no profile: %s", failed,
			     all[failed].why) < 0)
			e->missed_why = NULL;
	}
	for (size_t i = 0; i < p->nobjs; i++)
		if ((map[i] = hd_object(d, p->objs[i].path, p->objs[i].bid, p->objs[i].size)) <
		    0)
			goto out;
	for (size_t i = 0; i < p->nents; i++) {
		const struct hwp_mpi_ent *x = &p->ents[i];
		long oi = obj_index(p, map, x->obj);
		uint32_t o = oi < 0 ? HD_NO_OBJECT : (uint32_t)oi;

		if (x->kind == HWP_MPI_ADDR) {
			if (hd_count(d, 0, HD_NO_THREAD, o, x->addr, x->sum))
				goto out;
			total = hwp_add_sat(total, x->sum);
			nfuncs0++;
		} else if (x->kind == HWP_MPI_FUNC) {
			struct hd_func f = { 0,	     o,	     x->addr,	 x->sum,
					     x->min, x->max, x->maxrank, x->ranks };

			if (hd_add_func(d, &f))
				goto out;
		}
	}
	for (uint32_t j = 0; j < k; j++) {
		const struct hwp_mpi_ent *x = hwp_mpi_find(p, HWP_MPI_FUNC, keys[j].obj,
							   keys[j].addr);
		uint32_t fi;

		if (!x)
			continue;
		fi = (uint32_t)((size_t)(x - p->ents) - nfuncs0);
		for (int i = 0; i < size; i++)
			if (counts[(size_t)i * k + j] &&
			    hd_add_fcount(d, fi, (uint32_t)i, counts[(size_t)i * k + j]))
				goto out;
	}
	for (int i = 0; i < size; i++) {
		struct hd_rtotal t = { (uint32_t)i, 0, all[i].samples, all[i].mpi };

		if (hd_add_rtotal(d, &t))
			goto out;
	}
	if (build_sites(d, p, map, all, size, sk, st, ns) ||
	    build_threads(d, size, thr, keep) || build_paths(d, p, map, all, size, total))
		goto out;
	ret = 0;
out:
	free(map);
	return ret;
}

/*
 * Writes d to HWPROF_OUTPUT (default hwprof.data) as hwprof record writes
 * its file (lib/profile/outfile.h): a temp file beside it renamed over it, so the
 * file is whole or absent and nothing put at the name is written through.
 * A symbolic link, FIFO or device there is left as it is
 * (libhwprof-mpi(7)). 0, HWP_OUT_NOTREG for that (*found says what was
 * there), or -errno.
 */
static int write_job(const struct hd_file *d, const char *name, mode_t *found)
{
	struct hwp_out o;
	FILE *f = NULL;
	int r = hwp_out_open(&o, name);

	*found = o.found;
	if (!r)
		r = hwp_out_temp(&o);
	if (!r && !(f = hwp_out_stream(&o)))
		r = -errno;
	if (!r) {
		r = hd_write(f, d);
		if (fclose(f) && !r)
			r = -errno;
		if (!r)
			r = hwp_out_commit(&o, 0);
	}
	hwp_out_close(&o);
	return r;
}

static int cmp_top(const void *a, const void *b)
{
	const struct hwp_mpi_ent *x = *(const struct hwp_mpi_ent *const *)a;
	const struct hwp_mpi_ent *y = *(const struct hwp_mpi_ent *const *)b;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Rank 0: the k functions with most samples (their keys into keys). */
static uint32_t pick_top(const struct hwp_mpi_prof *p, struct topkey *keys, uint32_t want)
{
	const struct hwp_mpi_ent **v = malloc((p->nents + 1) * sizeof(*v));
	size_t n = 0;
	uint32_t k = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < p->nents; i++)
		if (p->ents[i].kind == HWP_MPI_FUNC)
			v[n++] = &p->ents[i];
	qsort(v, n, sizeof(*v), cmp_top);
	for (; k < want && k < n; k++)
		keys[k] = (struct topkey){ v[k]->obj, v[k]->addr };
	free(v);
	return k;
}

/* A number from 0 to max in variable name (its value s), else def after
 * saying so. */
static uint32_t env_wanted(const char *name, const char *s, uint32_t def, uint32_t max)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || *s < '0' || *s > '9' || v > max) {
		fprintf(stderr,
			"hwprof-mpi: %s=%.20s: not a number from 0 to %u; "
			"using %u\n",
			name, s, max, def);
		return def;
	}
	return (uint32_t)v;
}

static uint32_t top_wanted(void)
{
	return env_wanted("HWPROF_MPI_TOP", secure_getenv("HWPROF_MPI_TOP"), DEFAULT_TOP,
			  MAX_TOP);
}

static int any_bad(MPI_Comm comm, int bad);

static int cmp_site(const void *a, const void *b)
{
	return cmp_top(a, b);
}

/* Rank 0: the k call sites with most time (their keys into keys). */
static uint32_t pick_sites(const struct hwp_mpi_prof *p, struct sitekey *keys, uint32_t want)
{
	const struct hwp_mpi_ent **v = malloc((p->nents + 1) * sizeof(*v));
	size_t n = 0;
	uint32_t k = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < p->nents; i++)
		if (p->ents[i].kind >= HWP_MPI_SITE)
			v[n++] = &p->ents[i];
	qsort(v, n, sizeof(*v), cmp_site);
	for (; k < want && k < n; k++)
		keys[k] = (struct sitekey){ v[k]->kind, v[k]->obj, v[k]->addr };
	free(v);
	return k;
}

/*
 * The call sites' per-rank times: rank 0 picks the sites (most time
 * first, HWPROF_MPI_SITES of them), every rank gives its calls, total,
 * min and max at each, rank 0 gathers them into *st (rank-major). Every
 * rank takes part whatever failed; 0, or 1 when the result is not whole.
 */
static int gather_sites(MPI_Comm comm, int rank, int size, const struct hwp_mpi_prof *p,
			const struct lsite *ls, size_t nls, struct sitekey **skp,
			uint64_t **stp, uint32_t *nsp)
{
	struct sitekey *sk = NULL;
	uint64_t *mine = NULL, *st = NULL;
	uint32_t ns = 0;
	int bad = 0;

	if (!rank) {
		ns = env_wanted("HWPROF_MPI_SITES", secure_getenv("HWPROF_MPI_SITES"),
				DEFAULT_SITES, MAX_SITES);
		sk = calloc(ns + 1, sizeof(*sk));
		ns = sk ? pick_sites(p, sk, ns) : 0;
	}
	if (PMPI_Bcast(&ns, 1, MPI_UINT32_T, 0, comm) != MPI_SUCCESS)
		bad = 1;
	if (rank && !bad)
		sk = calloc(ns + 1, sizeof(*sk));
	mine = calloc((size_t)ns * 4 + 1, sizeof(*mine));
	if (!rank)
		st = calloc((size_t)size * ns * 4 + 1, sizeof(*st));
	if (any_bad(comm, bad || !sk || !mine || (!rank && !st))) {
		bad = 1;
		goto out;
	}
	if (PMPI_Bcast(sk, (int)(3 * ns), MPI_UINT64_T, 0, comm) != MPI_SUCCESS)
		bad = 1;
	for (uint32_t j = 0; j < ns && !bad; j++) {
		struct lsite key = { sk[j].kind, sk[j].obj, sk[j].addr, 0, 0, 0, 0 };
		const struct lsite *x = nls ? bsearch(&key, ls, nls, sizeof(*ls), cmp_lsite) :
					      NULL;

		if (x) {
			mine[4 * j] = x->n;
			mine[4 * j + 1] = x->tot;
			mine[4 * j + 2] = x->min;
			mine[4 * j + 3] = x->max;
		}
	}
	if (PMPI_Gather(mine, (int)(4 * ns), MPI_UINT64_T, st, (int)(4 * ns), MPI_UINT64_T, 0,
			comm) != MPI_SUCCESS)
		bad = 1;
	bad = any_bad(comm, bad);
out:
	free(mine);
	if (bad) {
		free(sk);
		free(st);
		sk = NULL;
		st = NULL;
		ns = 0;
	}
	*skp = sk;
	*stp = st;
	*nsp = ns;
	return bad;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct hwp_tid_count *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* This rank's threads into out[0 .. keep]: the keep with most samples
 * (ties: the lowest tid), then the rest summed under tid 0. */
static void my_threads(struct rthread *out, uint32_t keep)
{
	size_t n = prof.ntids;

	if (n)
		qsort(prof.tids, n, sizeof(*prof.tids), cmp_tid);
	for (size_t i = 0; i < n; i++) {
		struct rthread *t = &out[i < keep ? i : keep];

		if (i < keep) {
			char path[64];
			int fd;
			ssize_t k;

			t->tid = (int32_t)prof.tids[i].tid;
			/* its name, where the thread is still there */
			snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)t->tid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			k = fd >= 0 ? read(fd, t->comm, sizeof(t->comm) - 1) : -1;
			if (fd >= 0)
				close(fd);
			while (k > 0 && (t->comm[k - 1] == '\n' || !t->comm[k - 1]))
				k--;
			t->comm[k > 0 ? k : 0] = 0;
		}
		t->samples = hwp_add_sat(t->samples, prof.tids[i].samples);
	}
	out[keep].samples = hwp_add_sat(out[keep].samples, prof.untold);
}

/*
 * The ranks' threads (libhwprof-mpi(7), "Threads"): rank 0 says how many
 * each keeps (HWPROF_MPI_THREADS), every rank gives that many and a row
 * of the rest, rank 0 gathers them into *tp (rank-major, keep + 1 a
 * rank). Every rank takes part whatever failed; 0, or 1 when the result
 * is not whole.
 */
static int gather_threads(MPI_Comm comm, int rank, int size, struct rthread **tp,
			  uint32_t *keepp)
{
	struct rthread *mine = NULL, *all = NULL;
	uint32_t keep = 0;
	int bad = 0;

	if (!rank)
		keep = env_wanted("HWPROF_MPI_THREADS", secure_getenv("HWPROF_MPI_THREADS"),
				  DEFAULT_THREADS, MAX_THREADS);
	if (PMPI_Bcast(&keep, 1, MPI_UINT32_T, 0, comm) != MPI_SUCCESS)
		bad = 1;
	mine = calloc((size_t)keep + 1, sizeof(*mine));
	if (!rank)
		all = calloc((size_t)size * (keep + 1), sizeof(*all));
	if (any_bad(comm, bad || !mine || (!rank && !all))) {
		bad = 1;
		goto out;
	}
	my_threads(mine, keep);
	if (PMPI_Gather(mine, (int)((keep + 1) * sizeof(*mine)), MPI_BYTE, all,
			(int)((keep + 1) * sizeof(*mine)), MPI_BYTE, 0, comm) != MPI_SUCCESS)
		bad = 1;
	bad = any_bad(comm, bad);
out:
	free(mine);
	if (bad) {
		free(all);
		all = NULL;
	}
	*tp = all;
	*keepp = keep;
	return bad;
}

/* ------------------------------------------------------------------ */
/* Finish: reduce and write                                             */

/* 1 when any rank's bad is set; every rank calls it at the same point. */
static int any_bad(MPI_Comm comm, int bad)
{
	int any = 1;

	if (PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
		return 1;
	return any;
}

/*
 * The clock only (HWPROF_MPI_TIMES, set by hwprof record for the rank it
 * samples): this rank's sites into a data file of its own (hwprof-data(5):
 * a rank file with one process and its mt, ms and msr lines), read back
 * by record and folded into its file. No MPI call: ranks do not wait on
 * each other.
 */
static void finish_times(void)
{
	struct hwp_mpi_prof p = { 0 };
	struct hd_file d;
	struct lsite *ls = NULL;
	size_t nls = 0;
	struct hd_mrank m = { 0, 0, 0, 0 };
	long *map = NULL;
	char cmd[256];
	mode_t found = 0;
	int r = -ENOMEM, size = -1;

	hwp_wait_totals(&m.app_ns, &m.mpi_ns, &m.calls);
	hd_init(&d);
	cmdline(cmd, sizeof(cmd));
	d.rank = world_rank();
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	d.size = size;
	if (!m.app_ns || collect_sites(&p, &ls, &nls) ||
	    hd_add_process(&d, getpid(), 0, cmd) || !(map = calloc(p.nobjs + 1, sizeof(*map))))
		goto out;
	d.procs[0].rank = d.rank;
	for (size_t i = 0; i < p.nobjs; i++)
		if ((map[i] = hd_object(&d, p.objs[i].path, p.objs[i].bid, p.objs[i].size)) <
		    0)
			goto out;
	if (hd_add_mrank(&d, &m))
		goto out;
	for (size_t j = 0; j < nls; j++) {
		long oi = obj_index(&p, map, ls[j].obj);
		uint32_t fn = (uint32_t)(ls[j].kind - HWP_MPI_SITE);
		struct hd_msrank x = {
			(uint32_t)j, 0, ls[j].n, ls[j].tot, ls[j].min, ls[j].max
		};

		if (fn >= HWP_MPI_NCALLS ||
		    hd_add_msite(&d, oi < 0 ? HD_NO_OBJECT : (uint32_t)oi,
				 oi < 0 ? 0 : ls[j].addr, hwp_mpi_call_names[fn]) < 0 ||
		    hd_add_msrank(&d, &x))
			goto out;
	}
	r = write_job(&d, prof.times, &found);
out:
	if (r)
		fprintf(stderr, "hwprof-mpi: rank %d: %s: %s: its time in MPI is not kept\n",
			world_rank(), prof.times,
			r == HWP_OUT_NOTREG ? "not a regular file" : strerror(-r));
	hd_free(&d);
	hwp_mpi_free(&p);
	free(ls);
	free(map);
}

/*
 * Every rank runs the same collectives in the same order whatever failed
 * on any of them: a failure is agreed on (any_bad()) before the step that
 * would need what failed, and then every rank skips the rest together.
 */
static void finish(void)
{
	struct hwp_mpi_prof p = { 0 }, mine = { 0 };
	struct rinfo ri, *all = NULL;
	struct topkey *keys = NULL;
	uint64_t *cnt = NULL, *allc = NULL, *st = NULL;
	struct sitekey *sk = NULL;
	struct lsite *ls = NULL;
	struct rthread *thr = NULL;
	size_t nls = 0;
	uint32_t ns = 0, keep = 0;
	const char *out = secure_getenv("HWPROF_OUTPUT");
	MPI_Comm comm;
	int rank, size, bad = 0;
	uint32_t k = 0;

	if (prof.finished++ || !prof.started)
		return;
	hwp_wait_stop();
	if (prof.times) {
		finish_times();
		return;
	}
	if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
		return;
	/* errors come back as codes, never abort the job */
	PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &size);
	memset(&ri, 0, sizeof(ri));
	ri.pid = (int32_t)getpid();
	if (gethostname(ri.host, sizeof(ri.host) - 1))
		strcpy(ri.host, "localhost");
	cmdline(ri.cmd, sizeof(ri.cmd));
	if (prof.s && !prof.err) {
		if (collect(&p, &ri, rank)) {
			ri.err = -ENOMEM;
			snprintf(ri.why, sizeof(ri.why), "out of memory at MPI_Finalize");
			hwp_mpi_free(&p);
		}
	} else {
		ri.err = prof.err ? prof.err : -ENOENT;
		snprintf(ri.why, sizeof(ri.why), "%s", prof.why);
	}
	hwprof_session_free(prof.s);
	prof.s = NULL;
	hwp_wait_totals(&ri.app_ns, &ri.mpi_ns, &ri.calls);
	/* its call sites: without them, its totals still count */
	if (collect_sites(&p, &ls, &nls))
		nls = 0;
	/* this rank's functions, for the top functions' per-rank counts */
	mine.ents = malloc((p.nents + 1) * sizeof(*mine.ents));
	if (mine.ents) {
		for (size_t i = 0; i < p.nents; i++)
			if (p.ents[i].kind == HWP_MPI_FUNC)
				mine.ents[mine.nents++] = p.ents[i];
	}
	if (!rank)
		all = calloc((size_t)size, sizeof(*all));
	if (any_bad(comm, !mine.ents || (!rank && !all)))
		goto fail;
	if (PMPI_Gather(&ri, sizeof(ri), MPI_BYTE, all, sizeof(ri), MPI_BYTE, 0, comm) !=
	    MPI_SUCCESS)
		bad = 1;
	if (hwp_mpi_reduce(comm, &p, bad))
		bad = 1;
	if (any_bad(comm, bad))
		goto fail;
	/* the top functions: rank 0 names them, every rank counts its own */
	if (!rank) {
		k = top_wanted();
		keys = calloc(k + 1, sizeof(*keys));
		k = keys ? pick_top(&p, keys, k) : 0;
	}
	if (PMPI_Bcast(&k, 1, MPI_UINT32_T, 0, comm) != MPI_SUCCESS)
		bad = 1;
	if (rank && !bad)
		keys = calloc(k + 1, sizeof(*keys));
	cnt = calloc(k + 1, sizeof(*cnt));
	if (!rank)
		allc = calloc((size_t)size * k + 1, sizeof(*allc));
	if (any_bad(comm, bad || !keys || !cnt || (!rank && !allc)))
		goto fail;
	if (PMPI_Bcast(keys, (int)(2 * k), MPI_UINT64_T, 0, comm) != MPI_SUCCESS)
		bad = 1;
	for (uint32_t j = 0; j < k && !bad; j++) {
		const struct hwp_mpi_ent *x = hwp_mpi_find(&mine, HWP_MPI_FUNC, keys[j].obj,
							   keys[j].addr);

		cnt[j] = x ? x->sum : 0;
	}
	if (PMPI_Gather(cnt, (int)k, MPI_UINT64_T, allc, (int)k, MPI_UINT64_T, 0, comm) !=
	    MPI_SUCCESS)
		bad = 1;
	if (any_bad(comm, bad))
		goto fail;
	if (gather_sites(comm, rank, size, &p, ls, nls, &sk, &st, &ns) ||
	    gather_threads(comm, rank, size, &thr, &keep))
		goto fail;
	if (!rank) {
		struct hd_file d;
		mode_t found = 0;
		int r;

		if (!out || !*out)
			out = "hwprof.data";
		hd_init(&d);
		/* with the names of its sampled addresses (hwprof-data(5),
		 * "Names"), as rank 0's objects give them; without them
		 * (sym_keep_names() then drops all) when they cannot be had */
		r = build(&d, &p, all, size, keys, allc, k, sk, st, ns, thr, keep) ?
			    -ENOMEM :
			    (sym_keep_names(&d), write_job(&d, out, &found));
		if (r == HWP_OUT_NOTREG)
			fprintf(stderr,
				"hwprof-mpi: %s: %s, not a regular file, left as it is: "
				"no profile written\n",
				out, hwp_out_what(found));
		else if (r)
			fprintf(stderr, "hwprof-mpi: %s: %s: no profile written\n", out,
				strerror(-r));
		else
			fprintf(stderr,
				"hwprof-mpi: wrote %s (%llu sample%s, %d rank%s); see it "
				"with: hwprof report %s\n",
				out, (unsigned long long)d.events[0].samples,
				d.events[0].samples == 1 ? "" : "s", size,
				size == 1 ? "" : "s", out);
		hd_free(&d);
	}
	goto out;
fail:
	if (!rank)
		fprintf(stderr, "hwprof-mpi: out of memory or an MPI error on a rank while "
				"reducing the profiles: no profile written\n");
out:
	PMPI_Comm_free(&comm);
	hwp_mpi_free(&p);
	hwp_mpi_free(&mine);
	free(all);
	free(keys);
	free(cnt);
	free(allc);
	free(sk);
	free(st);
	free(ls);
	free(thr);
	free(prof.tids);
	prof.tids = NULL;
	prof.ntids = 0;
}

/* ------------------------------------------------------------------ */
/* The MPI calls                                                        */

/*
 * MPI_Pcontrol's levels are the profiler's to define (MPI 4.0, 15.2.4):
 * 0 stops this rank's profile (its fds closed, what they held folded in),
 * any other level starts it again into the same buckets
 * (libhwprof-mpi(7)). A rank calls it for itself.
 */
static void pcontrol(int level)
{
	int r;

	if (!prof.started || prof.finished)
		return;
	hwp_wait_pause(!level);
	if (!prof.s)
		return;
	if (!level && !prof.paused) {
		hwprof_session_stop(prof.s);
		prof.paused = 1;
	} else if (level && prof.paused) {
		r = hwprof_session_start(prof.s);
		if (r)
			fprintf(stderr,
				"hwprof-mpi: rank %d: MPI_Pcontrol(%d): the profile cannot "
				"start again: %s\n",
				world_rank(), level, strerror(-r));
		else
			prof.paused = 0;
	}
}

HWPROF_API int MPI_Pcontrol(const int level, ...)
{
	pcontrol(level);
	return PMPI_Pcontrol(level);
}

HWPROF_API int MPI_Init(int *argc, char ***argv)
{
	int r = PMPI_Init(argc, argv);

	if (r == MPI_SUCCESS)
		start();
	return r;
}

HWPROF_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int r = PMPI_Init_thread(argc, argv, required, provided);

	if (r == MPI_SUCCESS)
		start();
	return r;
}

HWPROF_API int MPI_Finalize(void)
{
	finish();
	return PMPI_Finalize();
}

/*
 * Fortran (mpif.h, the mpi and mpi_f08 modules): the MPI library's own Fortran
 * entry points call the C PMPI functions, never the ones above, so each
 * name the compilers use is wrapped around the library's PMPI one.
 */
typedef void (*f_init_fn)(MPI_Fint *);
typedef void (*f_init_thread_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* The MPI library's Fortran PMPI entry point, or NULL after saying so
 * (an error argument may be NULL: mpi_f08's is OPTIONAL). */
static void *f_real(const char *name, MPI_Fint *ierr)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "hwprof-mpi: %s: not in the MPI library\n", name);
		if (ierr)
			*ierr = MPI_ERR_OTHER;
	}
	return f;
}

/* After a Fortran init: whether MPI came up is asked of MPI itself, as
 * the error argument may be absent. */
static void f_started(void)
{
	int up = 0, down = 0;

	if (PMPI_Initialized(&up) == MPI_SUCCESS && up &&
	    PMPI_Finalized(&down) == MPI_SUCCESS && !down)
		start();
}

#define F_WRAP(NAME, PNAME)                                   \
	HWPROF_API void NAME(MPI_Fint *ierr);                 \
	HWPROF_API void NAME(MPI_Fint *ierr)                  \
	{                                                     \
		f_init_fn f = (f_init_fn)f_real(PNAME, ierr); \
                                                              \
		if (f) {                                      \
			f(ierr);                              \
			f_started();                          \
		}                                             \
	}
#define F_WRAP_THREAD(NAME, PNAME)                                           \
	HWPROF_API void NAME(MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr); \
	HWPROF_API void NAME(MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr)  \
	{                                                                    \
		f_init_thread_fn f = (f_init_thread_fn)f_real(PNAME, ierr);  \
                                                                             \
		if (f) {                                                     \
			f(req, prov, ierr);                                  \
			f_started();                                         \
		}                                                            \
	}
#define F_WRAP_FINI(NAME, PNAME)                              \
	HWPROF_API void NAME(MPI_Fint *ierr);                 \
	HWPROF_API void NAME(MPI_Fint *ierr)                  \
	{                                                     \
		f_init_fn f = (f_init_fn)f_real(PNAME, ierr); \
                                                              \
		if (f) {                                      \
			finish();                             \
			f(ierr);                              \
		}                                             \
	}

/* mpif.h and the mpi module, in each compiler's spelling; the mpi_f08
 * module */
F_WRAP(mpi_init_, "pmpi_init_")
F_WRAP(mpi_init__, "pmpi_init__")
F_WRAP(mpi_init, "pmpi_init")
F_WRAP(MPI_INIT, "PMPI_INIT")
F_WRAP(mpi_init_f08_, "pmpi_init_f08_")
F_WRAP_THREAD(mpi_init_thread_, "pmpi_init_thread_")
F_WRAP_THREAD(mpi_init_thread__, "pmpi_init_thread__")
F_WRAP_THREAD(mpi_init_thread, "pmpi_init_thread")
F_WRAP_THREAD(MPI_INIT_THREAD, "PMPI_INIT_THREAD")
F_WRAP_THREAD(mpi_init_thread_f08_, "pmpi_init_thread_f08_")
F_WRAP_FINI(mpi_finalize_, "pmpi_finalize_")
F_WRAP_FINI(mpi_finalize__, "pmpi_finalize__")
F_WRAP_FINI(mpi_finalize, "pmpi_finalize")
F_WRAP_FINI(MPI_FINALIZE, "PMPI_FINALIZE")
F_WRAP_FINI(mpi_finalize_f08_, "pmpi_finalize_f08_")

typedef void (*f_pcontrol_fn)(MPI_Fint *);
#define F_WRAP_PCONTROL(NAME, PNAME)                                  \
	HWPROF_API void NAME(MPI_Fint *level);                        \
	HWPROF_API void NAME(MPI_Fint *level)                         \
	{                                                             \
		f_pcontrol_fn f = (f_pcontrol_fn)f_real(PNAME, NULL); \
                                                                      \
		pcontrol(level ? (int)*level : 1);                    \
		if (f)                                                \
			f(level);                                     \
	}
F_WRAP_PCONTROL(mpi_pcontrol_, "pmpi_pcontrol_")
F_WRAP_PCONTROL(mpi_pcontrol__, "pmpi_pcontrol__")
F_WRAP_PCONTROL(mpi_pcontrol, "pmpi_pcontrol")
F_WRAP_PCONTROL(MPI_PCONTROL, "PMPI_PCONTROL")
