/* SPDX-License-Identifier: MIT */
/*
 * The process tree as the kernel's records describe it: each process's
 * executable mappings over time (MMAP2, from the mapping's time on; an exec
 * starts a new address space; a fork starts from the parent's as it was),
 * its threads and command, and samples resolved against that history into
 * (object, ELF virtual address) counts of the data model. Mappings are
 * never forgotten, so an object unloaded before a late sample is read
 * still owns its samples.
 *
 * ELF virtual address of a pc: the file offset pc - map start + map pgoff,
 * then through the object's PT_LOAD segment holding that offset:
 * offset - p_offset + p_vaddr (the address its symbol table uses). An
 * object whose file cannot be read keeps the file offset.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfsym.h"
#include "rec.h"

/* ------------------------------------------------------------------ */
/* int -> uint32 tables                                                 */
/* (not lib/hist/htab.h: keys and values live here, read per sample;
 * on the shared index bench/drain-cost.sh counted ~35 more per sample) */

static size_t ihash(int k, size_t cap)
{
	return (size_t)(((uint32_t)k * 2654435761u) & (cap - 1));
}

static uint32_t rec_imap_get(const struct rec_imap *m, int key)
{
	if (!m->cap)
		return UINT32_MAX;
	for (size_t j = ihash(key, m->cap);; j = (j + 1) & (m->cap - 1)) {
		if (m->val[j] == UINT32_MAX)
			return UINT32_MAX;
		if (m->key[j] == key)
			return m->val[j];
	}
}

static int imap_grow(struct rec_imap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 256;
	int *key = malloc(cap * sizeof(*key));
	uint32_t *val = malloc(cap * sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	for (size_t i = 0; i < cap; i++)
		val[i] = UINT32_MAX;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (m->val[i] == UINT32_MAX)
			continue;
		for (j = ihash(m->key[i], cap); val[j] != UINT32_MAX; j = (j + 1) & (cap - 1))
			;
		key[j] = m->key[i];
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

static int rec_imap_put(struct rec_imap *m, int key, uint32_t val)
{
	size_t j;

	if (2 * (m->n + 1) > m->cap && imap_grow(m))
		return -1;
	for (j = ihash(key, m->cap); m->val[j] != UINT32_MAX; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == key) {
			m->val[j] = val;
			return 0;
		}
	m->key[j] = key;
	m->val[j] = val;
	m->n++;
	return 0;
}

static void imap_free(struct rec_imap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* Room for one more element in *p, which holds n of capacity *cap. */
static int more(void *pp, size_t n, size_t *cap, size_t sz)
{
	void **p = pp;
	size_t c;
	void *np;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 16;
	np = realloc(*p, c * sz);
	if (!np)
		return -1;
	*p = np;
	*cap = c;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Objects                                                              */

static void hex(char *out, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/*
 * Reads an ELF's load segments and build-id through rd(arg, off, buf, n)
 * (a file or memory): 0, or -1 when it is not a readable ELF.
 */
typedef int (*rd_fn)(void *arg, uint64_t off, void *buf, size_t n);

static int elf_scan(rd_fn rd, void *arg, struct rec_obj *o, char *bid)
{
	unsigned char id[EI_NIDENT];
	uint64_t phoff;
	unsigned int phnum, phent;
	int is64;

	if (rd(arg, 0, id, sizeof(id)) || memcmp(id, ELFMAG, SELFMAG))
		return -1;
	is64 = id[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr e;

		if (rd(arg, 0, &e, sizeof(e)))
			return -1;
		phoff = e.e_phoff;
		phnum = e.e_phnum;
		phent = e.e_phentsize;
	} else {
		Elf32_Ehdr e;

		if (rd(arg, 0, &e, sizeof(e)))
			return -1;
		phoff = e.e_phoff;
		phnum = e.e_phnum;
		phent = e.e_phentsize;
	}
	if (phent < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phnum > 512)
		return -1;
	o->nseg = 0;
	for (unsigned int i = 0; i < phnum; i++) {
		uint64_t type, off, vaddr, filesz;

		if (is64) {
			Elf64_Phdr ph;

			if (rd(arg, phoff + (uint64_t)i * phent, &ph, sizeof(ph)))
				return -1;
			type = ph.p_type, off = ph.p_offset, vaddr = ph.p_vaddr,
			filesz = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			if (rd(arg, phoff + (uint64_t)i * phent, &ph, sizeof(ph)))
				return -1;
			type = ph.p_type, off = ph.p_offset, vaddr = ph.p_vaddr,
			filesz = ph.p_filesz;
		}
		if (type == PT_LOAD && o->nseg < (int)(sizeof(o->seg) / sizeof(o->seg[0]))) {
			o->seg[o->nseg++] = (struct rec_seg){ off, filesz, vaddr };
		} else if (type == PT_NOTE && bid && !*bid && filesz && filesz <= 65536) {
			unsigned char *p = malloc(filesz);

			if (p && !rd(arg, off, p, filesz))
				hwp_elf_note_buildid(p, filesz, bid);
			free(p);
		}
	}
	return 0;
}

static int rd_file(void *arg, uint64_t off, void *buf, size_t n)
{
	return pread(*(int *)arg, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* the vDSO is this kernel's, mapped in this process too */
struct mem {
	const unsigned char *base;
	uint64_t size;
};

static int rd_mem(void *arg, uint64_t off, void *buf, size_t n)
{
	const struct mem *m = arg;

	if (off > m->size || n > m->size - off)
		return -1;
	memcpy(buf, m->base + off, n);
	return 0;
}

/* the size of this process's vDSO mapping at base, or 0 */
static uint64_t vdso_size(uintptr_t base)
{
	unsigned long long lo, hi;
	char line[512];
	uint64_t n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base &&
		    strstr(line, "[vdso]")) {
			n = hi - lo;
			break;
		}
	if (f)
		fclose(f);
	return n;
}

static void obj_read(struct rec_obj *o, char *bid)
{
	int fd;

	o->nseg = -1;
	if (!strcmp(o->path, "[vdso]")) {
		struct mem m = { (const unsigned char *)getauxval(AT_SYSINFO_EHDR), 0 };

		if (m.base)
			m.size = vdso_size((uintptr_t)m.base);
		if (m.size && elf_scan(rd_mem, &m, o, bid))
			o->nseg = -1;
		return;
	}
	if (o->path[0] != '/')
		return;
	/* nonblocking: a FIFO put at the path since must not hang us */
	fd = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0) {
		struct stat st;

		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && elf_scan(rd_file, &fd, o, bid))
			o->nseg = -1;
		/* its size identifies it in a merge when it has no build-id:
		 * the mapped file's only (the path may name another by now) */
		if (o->nseg >= 0 &&
		    (!o->ino || ((uint64_t)st.st_ino == o->ino && major(st.st_dev) == o->maj &&
				 minor(st.st_dev) == o->min)))
			o->size = (uint64_t)st.st_size;
		close(fd);
	}
}

/* The object of a mapping: by path and build-id when the kernel gave one,
 * else by path and inode (its build-id then read from the file). */
static long obj_get(struct rec *r, const char *path, uint32_t maj, uint32_t min, uint64_t ino,
		    uint64_t ino_gen, const char *kbid)
{
	char bid[HWP_ELF_BUILDID_HEX] = "";
	struct rec_obj *o;
	long h;

	for (size_t i = 0; i < r->nobjs; i++) {
		o = &r->objs[i];
		if (strcmp(o->path, path))
			continue;
		if (kbid ? (o->buildid && !strcmp(o->buildid, kbid)) :
			   (o->maj == maj && o->min == min && o->ino == ino &&
			    o->ino_gen == ino_gen))
			return (long)i;
	}
	if (r->nobjs % 16 == 0) {
		void *np = realloc(r->objs, (r->nobjs + 16) * sizeof(*r->objs));

		if (!np)
			return -1;
		r->objs = np;
	}
	o = &r->objs[r->nobjs];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return -1;
	o->maj = maj;
	o->min = min;
	o->ino = ino;
	o->ino_gen = ino_gen;
	obj_read(o, bid);
	if (kbid && strcmp(bid, kbid))
		o->size = 0; /* the file at the path is not the mapped one */
	if (kbid)
		snprintf(bid, sizeof(bid), "%s", kbid); /* the mapped file's own */
	o->buildid = *bid ? strdup(bid) : NULL;
	h = hd_object(&r->d, path, o->buildid, o->size);
	if (h < 0 || (*bid && !o->buildid)) {
		free(o->path);
		free(o->buildid);
		return -1;
	}
	o->hd = (uint32_t)h;
	return (long)r->nobjs++;
}

/* ------------------------------------------------------------------ */
/* Processes, images, threads                                           */

void rec_maps_init(struct rec *r)
{
	hd_init(&r->d);
}

void rec_maps_free(struct rec *r)
{
	rec_unwind_free(r);
	rec_leaf_free(r);
	rec_chain_free(r);
	for (size_t i = 0; i < r->nobjs; i++) {
		free(r->objs[i].path);
		free(r->objs[i].buildid);
	}
	free(r->objs);
	for (size_t i = 0; i < r->nimgs; i++) {
		free(r->imgs[i].cur);
		free(r->imgs[i].old);
	}
	free(r->imgs);
	for (size_t i = 0; i < r->nprocs; i++)
		free(r->procs[i].imgs);
	free(r->procs);
	imap_free(&r->pid_proc);
	imap_free(&r->tid_thread);
	hd_free(&r->d);
}

/*
 * The history of process p (-1: none) changes at time: its cached chains
 * (rec-chains.c) are resolved again. A record older than one already
 * handled may change any process's past (a forked child sees its
 * parent's): then every cached chain is.
 */
static void history_changed(struct rec *r, long p, uint64_t time)
{
	if (time < r->handled_max) {
		r->chain_gen++;
		return;
	}
	r->handled_max = time;
	if (p >= 0)
		r->procs[p].gen++;
}

static long img_new(struct rec *r, uint64_t time, long parent, uint64_t fork_time)
{
	struct rec_image *im;

	if (r->nimgs % 64 == 0) {
		void *np = realloc(r->imgs, (r->nimgs + 64) * sizeof(*r->imgs));

		if (!np)
			return -1;
		r->imgs = np;
	}
	im = &r->imgs[r->nimgs];
	memset(im, 0, sizeof(*im));
	im->start_time = time;
	im->parent = parent;
	im->fork_time = fork_time;
	return (long)r->nimgs++;
}

static int proc_add_img(struct rec_proc *p, long img)
{
	long *n = realloc(p->imgs, (p->nimgs + 1) * sizeof(*n));

	if (!n)
		return -1;
	p->imgs = n;
	p->imgs[p->nimgs++] = img;
	return 0;
}

/* The command line of a live process, or NULL. */
static char *proc_cmdline(int pid, const char *comm)
{
	char path[64], buf[4096], c[64];
	ssize_t n = -1;
	int fd;

	if (comm) { /* still the same program? */
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		n = read(fd, c, sizeof(c) - 1);
		close(fd);
		if (n <= 0)
			return NULL;
		c[n - (c[n - 1] == '\n')] = 0;
		if (strcmp(c, comm))
			return NULL;
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	while (n > 0 && !buf[n - 1])
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	return strdup(buf);
}

/* A new process entry for pid (pid reuse makes a new one). */
/*
 * When a live process started (/proc/PID/stat's starttime, in clock ticks
 * since boot): what tells it from a later process given the same pid.
 * 0 when it is gone, a zombie (it has ended) or cannot be read.
 */
static uint64_t proc_start(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (hwp_sys_read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	/* "PID (COMM) STATE PPID ...": the comm may hold anything but the
	 * last ')'; starttime is the 20th field after it */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	p += 2;
	for (int k = 0; k < 19 && p; k++)
		if ((p = strchr(p, ' ')))
			p++;
	if (!p || sscanf(p, "%llu", &start) != 1)
		return 0;
	return start;
}

void rec_mark_unseen(struct rec *r)
{
	for (size_t i = 0; i < r->nprocs; i++) {
		struct rec_proc *p = &r->procs[i];
		struct hd_process *hp = &r->d.procs[p->hd];

		/* running still, and the same process as when it was met */
		if (hp->how == HD_RUNNING && (!p->start || proc_start(p->pid) != p->start))
			hp->how = HD_UNSEEN;
	}
}

static long proc_new(struct rec *r, int pid, int ppid, const char *command)
{
	struct rec_proc *p;
	uint32_t old = rec_imap_get(&r->pid_proc, pid);
	long h;

	if (old != UINT32_MAX)
		r->procs[old].gen++; /* its chains are not the new one's */
	if (r->nprocs % 64 == 0) {
		void *np = realloc(r->procs, (r->nprocs + 64) * sizeof(*r->procs));

		if (!np)
			return -1;
		r->procs = np;
	}
	h = hd_add_process(&r->d, pid, ppid, command);
	if (h < 0 || rec_imap_put(&r->pid_proc, pid, (uint32_t)r->nprocs))
		return -1;
	p = &r->procs[r->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->hd = (uint32_t)h;
	p->start = proc_start(pid);
	return (long)r->nprocs++;
}

static long thread_new(struct rec *r, int tid, uint32_t proc, const char *comm)
{
	long t = hd_add_thread(&r->d, tid, r->procs[proc].hd, comm);

	if (rec_imap_get(&r->tid_thread, tid) != UINT32_MAX)
		r->chain_gen++; /* a tid given again: its chains are another thread's */
	if (t < 0 || rec_imap_put(&r->tid_thread, tid, (uint32_t)t))
		return -1;
	return t;
}

int rec_add_root(struct rec *r, int pid, int ppid, const char *command, uint64_t time)
{
	long p = proc_new(r, pid, ppid, command), im;

	r->first_pid = pid;
	if (p < 0 || (im = img_new(r, time, -1, 0)) < 0 || proc_add_img(&r->procs[p], im) ||
	    thread_new(r, pid, (uint32_t)p, NULL) < 0)
		return -1;
	return 0;
}

struct hd_process *rec_process(struct rec *r, int pid)
{
	uint32_t p = rec_imap_get(&r->pid_proc, pid);

	return p == UINT32_MAX ? NULL : &r->d.procs[r->procs[p].hd];
}

/* The proc of pid, made on first sight (a process the records did not
 * announce: its parent unknown, its command from /proc if it still runs). */
static long proc_of(struct rec *r, int pid)
{
	uint32_t p = rec_imap_get(&r->pid_proc, pid);
	char *cmd;
	long n, im;

	if (p != UINT32_MAX)
		return p;
	cmd = proc_cmdline(pid, NULL);
	n = proc_new(r, pid, 0, cmd ? cmd : "?");
	free(cmd);
	if (n < 0 || (im = img_new(r, 0, -1, 0)) < 0 || proc_add_img(&r->procs[n], im))
		return -1;
	return n;
}

static long thread_of(struct rec *r, int pid, int tid)
{
	uint32_t t = rec_imap_get(&r->tid_thread, tid);
	long p;

	if (t != UINT32_MAX) {
		p = proc_of(r, pid);
		if (p >= 0 && r->d.threads[t].proc == r->procs[p].hd)
			return t;
	}
	p = proc_of(r, pid);
	return p < 0 ? -1 : thread_new(r, tid, (uint32_t)p, NULL);
}

/* ------------------------------------------------------------------ */
/* Mappings                                                             */

static int img_insert(struct rec_image *im, const struct rec_map *m)
{
	size_t lo = 0, hi = im->ncur, k, j;

	/* a newer mapping already over this range: m is history */
	for (k = 0; k < im->ncur; k++)
		if (im->cur[k].start < m->end && m->start < im->cur[k].end &&
		    im->cur[k].time > m->time) {
			if (more(&im->old, im->nold, &im->capold, sizeof(*m)))
				return -1;
			im->old[im->nold++] = *m;
			return 0;
		}
	/* move what m replaces to history */
	for (k = 0, j = 0; k < im->ncur; k++) {
		if (im->cur[k].start < m->end && m->start < im->cur[k].end) {
			if (more(&im->old, im->nold, &im->capold, sizeof(*m)))
				return -1;
			im->old[im->nold++] = im->cur[k];
		} else {
			im->cur[j++] = im->cur[k];
		}
	}
	im->ncur = j;
	if (more(&im->cur, im->ncur, &im->capcur, sizeof(*m)))
		return -1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (im->cur[mid].start < m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&im->cur[lo + 1], &im->cur[lo], (im->ncur - lo) * sizeof(*m));
	im->cur[lo] = *m;
	im->ncur++;
	return 0;
}

static const struct rec_map *img_find(const struct rec_image *im, uint64_t pc, uint64_t t)
{
	const struct rec_map *best = NULL;
	size_t lo = 0, hi = im->ncur;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (im->cur[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < im->ncur && im->cur[lo].start <= pc && im->cur[lo].time <= t)
		return &im->cur[lo];
	/* older samples, or records read out of order: the whole history */
	for (size_t k = 0; k < im->ncur + im->nold; k++) {
		const struct rec_map *m = k < im->ncur ? &im->cur[k] : &im->old[k - im->ncur];

		if (m->start <= pc && pc < m->end && m->time <= t &&
		    (!best || m->time >= best->time))
			best = m;
	}
	return best;
}

/* the image of proc p at time t */
static long img_at(const struct rec *r, const struct rec_proc *p, uint64_t t)
{
	size_t k = p->nimgs;

	while (k > 1 && r->imgs[p->imgs[k - 1]].start_time > t)
		k--;
	return k ? p->imgs[k - 1] : -1;
}

int rec_on_mmap(struct rec *r, int pid, uint64_t time, uint64_t start, uint64_t len,
		uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino, uint64_t ino_gen,
		const unsigned char *bid, size_t bidlen, const char *path)
{
	struct rec_map m = { time, start, start + len, pgoff, REC_NO_OBJ };
	char kbid[2 * 64 + 1];
	long p = proc_of(r, pid), im;

	if (p < 0)
		return -1;
	history_changed(r, p, time);
	im = img_at(r, &r->procs[p], time);
	if (im < 0)
		return 0;
	/* anonymous memory (JIT code: the kernel names it //anon, or
	 * [anon:NAME] after PR_SET_VMA_ANON_NAME) is in no object: its pcs
	 * are kept as they are (hwprof-data(5)) */
	if ((path[0] == '/' && strcmp(path, "//anon")) ||
	    (path[0] == '[' && strcmp(path, "[heap]") && strcmp(path, "[stack]") &&
	     strncmp(path, "[anon:", 6))) {
		long o;

		if (bid && bidlen)
			hex(kbid, bid, bidlen);
		o = obj_get(r, path, maj, min, ino, ino_gen, bid && bidlen ? kbid : NULL);
		if (o < 0)
			return -1;
		m.obj = (uint32_t)o;
	}
	return img_insert(&r->imgs[im], &m);
}

int rec_maps_read_proc(struct rec *r, int pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long lo, hi, off, ino;
		unsigned int maj, min;
		char perm[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perm, &off,
			   &maj, &min, &ino, &at) < 7 ||
		    !strchr(perm, 'x'))
			continue;
		line[strcspn(line, "\n")] = 0;
		if (rec_on_mmap(r, pid, 0, lo, hi - lo, off, maj, min, ino, 0, NULL, 0,
				line + at)) {
			free(line);
			fclose(f);
			return -ENOMEM;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

int rec_on_comm(struct rec *r, int pid, int tid, uint64_t time, int exec, const char *comm)
{
	long p = proc_of(r, pid), t;

	if (p < 0)
		return -1;
	if (exec && pid == tid) {
		struct hd_process *hp = &r->d.procs[r->procs[p].hd];
		long im = img_new(r, time, -1, 0);
		char *cmd;

		/* the image it leaves takes no more samples: its unwinder
		 * (its objects' open files) goes */
		for (size_t k = 0; k < r->procs[p].nimgs; k++)
			rec_unwind_forget(r, r->procs[p].imgs[k]);
		if (im < 0 || proc_add_img(&r->procs[p], im))
			return -1;
		history_changed(r, p, time);
		/* the command as it runs, when it still does; else its name */
		if (pid != r->first_pid || !*hp->command) {
			cmd = proc_cmdline(pid, comm);
			if (!cmd)
				cmd = strdup(comm);
			if (!cmd)
				return -1;
			free(hp->command);
			hp->command = cmd;
		}
	}
	t = thread_of(r, pid, tid);
	if (t < 0)
		return -1;
	free(r->d.threads[t].comm);
	r->d.threads[t].comm = strdup(comm);
	return r->d.threads[t].comm ? 0 : -1;
}

int rec_on_fork(struct rec *r, int pid, int ppid, int tid, int ptid, uint64_t time)
{
	long pp, p, im, pim;
	struct hd_process *parent;

	if (pid == ppid) { /* a new thread, named as its creator */
		uint32_t pt = rec_imap_get(&r->tid_thread, ptid);
		long t = thread_of(r, pid, tid);

		if (t < 0)
			return -1;
		if (pt != UINT32_MAX && r->d.threads[pt].comm && !r->d.threads[t].comm &&
		    !(r->d.threads[t].comm = strdup(r->d.threads[pt].comm)))
			return -1;
		return 0;
	}
	pp = proc_of(r, ppid);
	if (pp < 0)
		return -1;
	parent = &r->d.procs[r->procs[pp].hd];
	{
		char *cmd = strdup(parent->command ? parent->command : "");

		if (!cmd)
			return -1;
		p = proc_new(r, pid, ppid, cmd);
		free(cmd);
	}
	if (p < 0)
		return -1;
	pim = img_at(r, &r->procs[pp], time);
	im = img_new(r, time, pim, time);
	if (im < 0 || proc_add_img(&r->procs[p], im))
		return -1;
	history_changed(r, p, time);
	/* the copied comm */
	{
		uint32_t pt = rec_imap_get(&r->tid_thread, ptid);
		const char *comm = pt != UINT32_MAX ? r->d.threads[pt].comm : NULL;

		return thread_new(r, tid, (uint32_t)p, comm) < 0 ? -1 : 0;
	}
}

int rec_on_exit(struct rec *r, int pid, int tid, uint64_t time)
{
	uint32_t p = rec_imap_get(&r->pid_proc, pid);

	(void)time;
	if (p != UINT32_MAX && pid == tid) {
		struct hd_process *hp = &r->d.procs[r->procs[p].hd];

		/* records are handled in time order: none of its samples is
		 * still to come, and its unwinders' open files go */
		for (size_t k = 0; k < r->procs[p].nimgs; k++)
			rec_unwind_forget(r, r->procs[p].imgs[k]);
		r->procs[p].ended = 1;
		if (hp->how == HD_RUNNING)
			hp->how = HD_ENDED;
	}
	return 0;
}

/* The mapping that held pc at time in process p, through the map
 * history (as the parent had it at a fork, before an exec), or NULL. */
static const struct rec_map *map_at(const struct rec *r, long p, uint64_t pc, uint64_t time)
{
	const struct rec_map *m = NULL;
	long im = img_at(r, &r->procs[p], time);

	while (im >= 0) {
		const struct rec_image *img = &r->imgs[im];

		m = img_find(img, pc, time);
		if (m || img->parent < 0)
			break;
		time = img->fork_time; /* as the parent had it at fork */
		im = img->parent;
	}
	return m;
}

uint32_t rec_obj_at(const struct rec *r, long p, uint64_t pc, uint64_t time, uint64_t *addr)
{
	const struct rec_map *m = map_at(r, p, pc, time);

	if (!m || m->obj == REC_NO_OBJ)
		return REC_NO_OBJ;
	*addr = rec_obj_vaddr(&r->objs[m->obj], pc - m->start + m->pgoff);
	return m->obj;
}

/* Where pc was at time in process p: its object (HD_NO_OBJECT: none) and
 * ELF address (the pc itself without an object), through the map
 * history. 0 when an executable mapping held it, -1 when none did (only
 * executable mappings are recorded): it cannot be code. */
static int resolve(const struct rec *r, long p, uint64_t pc, uint64_t time, uint32_t *obj,
		   uint64_t *addr)
{
	const struct rec_map *m = map_at(r, p, pc, time);

	if (m && m->obj != REC_NO_OBJ) {
		const struct rec_obj *o = &r->objs[m->obj];

		*obj = o->hd;
		*addr = rec_obj_vaddr(o, pc - m->start + m->pgoff);
		return 0;
	}
	*obj = HD_NO_OBJECT;
	*addr = pc;
	return m ? 0 : -1;
}

/*
 * A sample's call path, stored from the outermost frame in as nodes of
 * the data file's tree, the sampled pc innermost (at its object and ELF
 * address obj, addr): its innermost node, or -1. chain holds the frames
 * innermost first: the kernel's (PERF_SAMPLE_CALLCHAIN, user space only:
 * its context markers are skipped; the first frame may be the pc itself)
 * or the unwinder's.
 *
 * A frame that cannot be code is dropped from the path and counted in
 * *dropped: 0 (where a frame-pointer walk ran off the stack's end), or an
 * address no executable mapping held at the sample's time (a walk through
 * a frame without a frame pointer reads any word as the next frame: a
 * non-canonical value, an address in data). The sampled pc itself is kept.
 */
static long path_node(struct rec *r, long p, uint64_t pc, uint32_t obj, uint64_t addr,
		      uint64_t time, const uint64_t *chain, size_t n, uint32_t *dropped)
{
	uint32_t parent = HD_NO_NODE, o;
	size_t skip = 0;
	uint64_t a;
	long node;

	/* the first user frame is the sampled pc itself */
	for (size_t i = 0; i < n; i++) {
		if (chain[i] >= PERF_CONTEXT_MAX)
			continue;
		skip = chain[i] == pc ? i + 1 : 0;
		break;
	}
	for (size_t i = n; i-- > skip;) {
		if (chain[i] >= PERF_CONTEXT_MAX)
			continue;
		if (!chain[i] || resolve(r, p, chain[i], time, &o, &a)) {
			(*dropped)++;
			continue;
		}
		node = hd_node(&r->d, parent, o, a);
		if (node < 0)
			return -1;
		parent = (uint32_t)node;
	}
	node = hd_node(&r->d, parent, obj, addr);
	return node < 0 ? -1 : node;
}

/* The kernel's chain: cut when it holds max_stack user frames. */
static int chain_cut(const struct rec *r, const uint64_t *chain, size_t n)
{
	size_t user = 0;

	for (size_t i = 0; i < n; i++)
		user += chain[i] < PERF_CONTEXT_MAX;
	return r->max_stack > 0 && user >= (size_t)r->max_stack;
}

/* A sample resolved: its pc counted, and its path (cut: cut short: the
 * kernel's depth limit, the end of the stack copy). Where v was counted
 * for the same event before, there again. */
static int count_path(struct rec *r, uint32_t ev, struct rec_resolved *v, int cut)
{
	struct hd_event *he = &r->d.events[r->ev[ev].hd];
	long i, j;

	he->chains = hwp_add_sat(he->chains, 1);
	he->dropped = hwp_add_sat(he->dropped, v->dropped);
	if (cut)
		he->cut = hwp_add_sat(he->cut, 1);
	if (v->ev == ev) {
		struct hd_sample *s = &r->d.samples[v->sample];
		struct hd_path *pa = &r->d.paths[v->path];

		s->count = hwp_add_sat(s->count, 1);
		pa->count = hwp_add_sat(pa->count, 1);
		return 0;
	}
	i = hd_count_at(&r->d, r->ev[ev].hd, v->thread, v->obj, v->addr, 1);
	j = i < 0 ? -1 : hd_count_path_at(&r->d, r->ev[ev].hd, v->thread, v->node, 1);
	if (j < 0)
		return -1;
	v->ev = ev;
	v->sample = (size_t)i;
	v->path = (size_t)j;
	return 0;
}

/*
 * A sample: its object and ELF address through the map history, and its
 * call path when it came with one. A chain seen before (rec-chains.c)
 * skips the history and the tree.
 */
int rec_on_sample(struct rec *r, uint32_t ev, int pid, int tid, const struct rec_sample *s)
{
	uint64_t pcs[PERF_MAX_STACK_DEPTH], hash = 0;
	uint64_t leaf[PERF_MAX_STACK_DEPTH + 16]; /* the kernel's frames and contexts, + 1 */
	const uint64_t *chain = s->chain, *key;
	size_t n = s->nchain, nkey;
	int fresh = s->time >= r->handled_max, cut = 0, cached;
	struct rec_resolved *hit;
	struct rec_resolved v;
	long t, p = -1, node;

	if (fresh)
		r->handled_max = s->time;
	if (r->callgraph != HD_CG_NONE && s->regs) {
		/* unwound first: the frames are then the key */
		if ((p = proc_of(r, pid)) < 0)
			return -1;
		n = rec_unwind(r, img_at(r, &r->procs[p], s->time), pid, tid, s->regs,
			       s->stack, s->stack_size, pcs, sizeof(pcs) / sizeof(pcs[0]),
			       &cut);
		chain = pcs;
		cut = cut || !n;
	} else if (r->callgraph != HD_CG_NONE && !chain) {
		/* recorded with paths but this sample came without one (no
		 * user registers, a record cut short): its pc alone, cut */
		cut = 1;
	}
	/* -g with the leaf patch: the kernel's chain is the key, and a hit
	 * needs the same word where the patch read it (rec-leaf.c) */
	key = chain;
	nkey = n;
	cached = r->callgraph != HD_CG_NONE && (chain || s->regs);
	if (cached) {
		hash = rec_chain_hash(pid, tid, s->pc, chain, n);
		hit = rec_chain_find(r, hash, pid, tid, s->pc, chain, n, s->time);
		if (hit && (!r->leaf || rec_leaf_same(&hit->leaf, s)))
			return count_path(r, ev, hit, s->chain ? hit->cut : cut);
	}
	memset(&v.leaf, 0, sizeof(v.leaf));
	if (chain && s->leaf_regs) {
		/* -g: the caller the walk missed put in */
		size_t m;

		if (p < 0 && (p = proc_of(r, pid)) < 0)
			return -1;
		m = rec_leaf_patch(r, p, s, rec_obj_at, leaf, sizeof(leaf) / sizeof(leaf[0]),
				   &v.leaf);
		if (m) {
			chain = leaf;
			n = m;
		}
	}
	t = thread_of(r, pid, tid);
	if (t < 0 || (p = proc_of(r, pid)) < 0)
		return -1;
	v.thread = (uint32_t)t;
	resolve(r, p, s->pc, s->time, &v.obj, &v.addr);
	if (r->callgraph == HD_CG_NONE)
		return hd_count(&r->d, r->ev[ev].hd, v.thread, v.obj, v.addr, 1);
	if (s->chain) /* the kernel's depth limit: its own frames */
		cut = chain_cut(r, s->chain, s->nchain);
	v.dropped = 0;
	node = path_node(r, p, s->pc, v.obj, v.addr, s->time, chain, n, &v.dropped);
	if (node < 0)
		return -1;
	v.node = (uint32_t)node;
	v.cut = cut;
	v.ev = UINT32_MAX;
	if (count_path(r, ev, &v, cut))
		return -1;
	if (cached && fresh)
		rec_chain_put(r, hash, pid, tid, s->pc, key, nkey, (uint32_t)p, &v);
	return 0;
}
