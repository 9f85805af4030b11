/* SPDX-License-Identifier: MIT */
/*
 * Loaded objects as histogram regions: one region per executable segment
 * of every object dl_iterate_phdr() reports, with buckets this file owns,
 * rebuilt when the loader's generation counters move (dlopen, dlclose).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"

#define SCALE 0x4000u /* PAPI index: 8 bytes of text a bucket */

/* ------------------------------------------------------------------ */
/* Objects                                                              */

struct scan {
	struct hwp_objects *o;
	int err;
};

static char *exe_path(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return strdup("");
	buf[n] = 0;
	return strdup(buf);
}

/*
 * Finds or appends the object for one executable segment; marks it live.
 * An object is known by what was loaded, not where: the same file
 * (path, device and inode) and segment (file offset and size) loaded
 * again after a dlclose, at another address, gets its old buckets back,
 * moved to the new address (a bucket is a place in the segment, so the
 * counts stay at their file offset). So dlopen/dlclose cycles of one
 * library keep one object, not one per load.
 */
static int note(struct hwp_objects *o, const char *path, const struct hwp_objid *id,
		uint64_t base, uint64_t start, uint64_t end)
{
	struct hwprof_object *ob;
	uint32_t *counts;

	for (size_t i = 0; i < o->n; i++) {
		const struct hwp_objid *oi = &o->id[i];

		ob = &o->obj[i];
		if (strcmp(ob->path, path) || ob->end - ob->start != end - start ||
		    oi->dev != id->dev || oi->ino != id->ino || oi->off != id->off)
			continue;
		if (ob->start == start && ob->base == base) {
			o->seen[i] = 1;
			return 0;
		}
		/* the same file elsewhere: reloaded, unless it is loaded
		 * twice at once (dlmopen) or its identity is unknown */
		if (o->seen[i] || (!id->dev && !id->ino))
			continue;
		ob->base = base;
		ob->start = start;
		ob->end = end;
		o->seen[i] = 1;
		o->changed = 1;
		return 0;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		struct hwprof_object *no = realloc(o->obj, cap * sizeof(*no));
		struct hwp_objid *ni;
		unsigned char *ns;

		if (!no)
			return -ENOMEM;
		o->obj = no;
		ns = realloc(o->seen, cap);
		if (!ns)
			return -ENOMEM;
		o->seen = ns;
		ni = realloc(o->id, cap * sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		o->id = ni;
		o->cap = cap;
	}
	o->id[o->n] = *id;
	ob = &o->obj[o->n];
	memset(ob, 0, sizeof(*ob));
	ob->nbuckets = (size_t)((end - start + HWPROF_OBJECT_BYTES - 1) / HWPROF_OBJECT_BYTES);
	counts = calloc(ob->nbuckets ? ob->nbuckets : 1, sizeof(*counts));
	ob->path = strdup(path);
	if (!counts || !ob->path) {
		free(counts);
		free((char *)ob->path);
		return -ENOMEM;
	}
	ob->counts = counts;
	ob->base = base;
	ob->start = start;
	ob->end = end;
	o->seen[o->n++] = 1;
	o->changed = 1;
	return 0;
}

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;
	char *exe = NULL;
	const char *path = info->dlpi_name;

	struct hwp_objid id = { 0, 0, 0 };
	struct stat st;

	(void)size;
	if (!path || !*path)
		path = exe = exe_path();
	if (path && *path && !stat(path, &st)) {
		id.dev = (uint64_t)st.st_dev;
		id.ino = (uint64_t)st.st_ino;
	}
	for (int i = 0; path && i < info->dlpi_phnum && !sc->err; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t start;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz)
			continue;
		start = info->dlpi_addr + ph->p_vaddr;
		id.off = (uint64_t)ph->p_offset;
		sc->err = note(sc->o, path, &id, info->dlpi_addr, start, start + ph->p_memsz);
	}
	free(exe);
	return sc->err;
}

static int gen_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *g = arg;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		return 1;
	g[0] = info->dlpi_adds;
	g[1] = info->dlpi_subs;
	return 1; /* the first entry carries the counters */
}

/*
 * Brings the list up to date with the loader and rebuilds the histogram
 * when something was loaded or unloaded. Unloaded objects keep their
 * counts but leave the histogram. Returns 0 or -errno; the old histogram
 * stays in use on failure.
 */
int hwp_objects_refresh(struct hwp_objects *o)
{
	unsigned long long g[2] = { 0, 0 };
	struct hwprof_region *reg = NULL;
	struct hwprof_hist_opts opts = { .sz = sizeof(opts) };
	struct hwprof_hist *h = NULL;
	struct scan sc = { .o = o };
	size_t nreg = 0;
	int ret;

	/* in a fork child, what the parent knew until the loader is safe */
	if (!hwp_loader_usable(o->hist ? 0 : 200))
		return o->hist ? 0 : -EAGAIN;
	dl_iterate_phdr(gen_cb, g);
	if (o->hist && g[0] == o->adds && g[1] == o->subs)
		return 0;
	if (o->cap)
		memset(o->seen, 0, o->cap);
	o->changed = 0;
	dl_iterate_phdr(scan_cb, &sc);
	if (sc.err)
		return sc.err;
	for (size_t i = 0; i < o->n; i++) {
		if (o->obj[i].loaded != o->seen[i])
			o->changed = 1;
		o->obj[i].loaded = o->seen[i];
	}
	o->adds = g[0];
	o->subs = g[1];
	if (o->hist && !o->changed)
		return 0;

	reg = calloc(o->n ? o->n : 1, sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	for (size_t i = 0; i < o->n; i++) {
		if (!o->obj[i].loaded || !o->obj[i].nbuckets)
			continue;
		reg[nreg++] = (struct hwprof_region){
			.base = (void *)o->obj[i].counts,
			.size = o->obj[i].nbuckets * sizeof(uint32_t),
			.offset = o->obj[i].start,
			.scale = SCALE,
			.width = 32,
		};
	}
	opts.regions = reg;
	opts.nregions = nreg;
	opts.index = HWPROF_INDEX_PAPI;
	opts.flags = HWPROF_HIST_SORT | HWPROF_HIST_OVERLAP;
	ret = hwprof_hist_new(&opts, &h);
	free(reg);
	if (ret)
		return ret;
	hwprof_hist_free(o->hist);
	o->hist = h;
	return 0;
}

void hwp_objects_zero(struct hwp_objects *o)
{
	for (size_t i = 0; i < o->n; i++)
		memset((void *)o->obj[i].counts, 0, o->obj[i].nbuckets * sizeof(uint32_t));
}

void hwp_objects_free(struct hwp_objects *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		free((void *)o->obj[i].counts);
		free((char *)o->obj[i].path);
	}
	free(o->obj);
	free(o->seen);
	free(o->id);
	hwprof_hist_free(o->hist);
	free(o);
}
