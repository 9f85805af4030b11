/* SPDX-License-Identifier: MIT */
/*
 * The name cache of hwprof record (hwprof(1), "Name cache"): the source
 * line and innermost function that DWARF gives the addresses a recording
 * named (symbols-keep.c), or that it gives none, kept per object by its
 * build-id in the directory of the debug cache (debugcache.c), so that
 * the next recording of the same object, and the other ranks of a job on
 * the node, take them from there without opening the DWARF at all.
 *
 * Where an address lies in a unit that sym_obj_unit() finds (by aranges
 * that do not overlap, else by the units' own ranges), the recording
 * that resolves it, having read that unit's line table and functions
 * anyway, keeps the whole unit: each range over which the answer is one
 * (sym_obj_unit_pieces()); so the next recordings find there the other
 * addresses of the same code, not only the same addresses. Elsewhere
 * the address alone is kept.
 *
 * One file an object, BUILDID.names: a header (magic, version, the
 * object's build-id, the build-id of the file the DWARF came from, the
 * counts, an FNV-1a sum of the rest), the ranges sorted and disjoint,
 * then their strings. A file whose header, size, order, offsets or sum do not
 * check is ignored (and written anew); one made from another DWARF file
 * (a debug file installed or updated since) is stale and likewise
 * replaced: the names are always those the DWARF gives now. A recording
 * that resolved addresses the file lacks writes the union of the file as
 * it is then and its own to a temp file beside it and renames it over
 * (concurrent writers leave one whole file; the last one's union wins).
 * A recording that finds no file, or a quarter of its addresses or more
 * missing from it, first takes the object's
 * lock (sym_cache_lock(), sym_ncache_need()) until it has written: the
 * ranks of a job, naming the same object at once, then resolve in turn,
 * each after reading what the ones before it wrote, not all the same
 * units at once.
 * Bounded: at most NC_MAX_ENT ranges and NC_MAX_STR bytes of strings a
 * file (32 MiB); past that, what a recording adds is not kept.
 *
 * Nothing here costs a name: any failure leaves the recording to resolve
 * the address itself. It says nothing unless sym_cache_verbose is set
 * (hwprof record -v): then one line of what it did, and one line of the
 * first thing that went wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../perf/elfsym.h"
#include "symbols.h"

int sym_cache_verbose;

#define NC_MAGIC   "HWPNAMES"
#define NC_VERSION 1
#define NC_MAX_ENT (1u << 20) /* 24 MiB of entries */
#define NC_MAX_STR (8u << 20)
#define NC_NONE	   UINT32_MAX

struct nc_head {
	char magic[8];
	uint32_t version;
	uint32_t nent;
	uint64_t strsize;
	uint64_t sum;			 /* FNV-1a 64 of entries and strings */
	char bid[HWP_ELF_BUILDID_HEX];	 /* the object's */
	char dwbid[HWP_ELF_BUILDID_HEX]; /* the DWARF file's */
	char pad[6];
};

struct nc_ent {
	uint64_t lo;   /* the range [lo, lo + len) */
	uint32_t len;  /* at least 1 */
	int32_t line;  /* -1: no line (file and fn NC_NONE) */
	uint32_t file; /* offsets into the strings */
	uint32_t fn;   /* NC_NONE: no function */
};

_Static_assert(sizeof(struct nc_head) % 8 == 0, "entries aligned");
_Static_assert(sizeof(struct nc_ent) == 24, "no padding");

struct nc_add {
	uint64_t lo, hi;
	int line;
	const char *file, *fn; /* borrowed (sym_ncache_put()) */
};

struct sym_ncache {
	const char *dir;
	char bid[HWP_ELF_BUILDID_HEX], dwbid[HWP_ELF_BUILDID_HEX];
	char *buf; /* the file as read and checked, or NULL */
	const struct nc_ent *ent;
	size_t nent;
	const char *str;
	size_t nstr;	    /* bytes of str */
	struct stat fst;    /* the file read, when buf is set */
	struct nc_add *add; /* resolved here */
	size_t nadd;
	uint64_t *units; /* kept whole here */
	size_t nunits;
	int lock; /* sym_cache_lock()'s, or -1 */
};

/* What was done, for the -v line. */
static struct {
	size_t objects, hits, misses, written, stale, damaged;
	const char *dir;
} st;
static int warned, rereading; /* the second read counts nothing */

__attribute__((format(printf, 1, 2))) static void nc_warn(const char *fmt, ...)
{
	va_list ap;

	if (!sym_cache_verbose || warned++)
		return;
	fputs("hwprof: name cache: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

/* The sum of a file's body: FNV-1a over 8-byte words (a byte at a time
 * costs 10 ms on a 10 MB file), then the bytes left. */
static uint64_t body_sum(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0;

	if (!n)
		return h;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 32;
	}
	return fnv(h, s + i, n - i);
}

#define FNV_INIT 0xcbf29ce484222325ULL

static int path_of(char *path, size_t len, const char *dir, const char *bid)
{
	int n = snprintf(path, len, "%s/%s.names", dir, bid);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* 1 when s is a string of the table (NUL-ended inside it) */
static int str_ok(const char *str, uint64_t size, uint32_t off, int empty_ok)
{
	return off < size && (empty_ok || str[off]) && memchr(str + off, 0, size - off);
}

/* Reads and checks c's file into c->buf: 0, -1 when there is none to
 * use (absent, stale, damaged: counted, and said when asked). */
static int nc_read(struct sym_ncache *c)
{
	char path[PATH_MAX];
	const struct nc_head *h;
	const struct nc_ent *e;
	struct stat sb;
	char *buf = NULL;
	size_t got = 0, need;
	int fd;

	if (path_of(path, sizeof(path), c->dir, c->bid))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno != ENOENT && !rereading) {
			st.damaged++;
			nc_warn("%s: %s: ignored", path, strerror(errno));
		}
		return -1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		close(fd);
		st.damaged += !rereading;
		nc_warn("%s: not a file this user wrote: ignored", path);
		return -1;
	}
	if ((uint64_t)sb.st_size < sizeof(*h) ||
	    (uint64_t)sb.st_size > sizeof(*h) + (uint64_t)NC_MAX_ENT * sizeof(*e) + NC_MAX_STR)
		goto damaged;
	if (!(buf = malloc((size_t)sb.st_size)))
		goto fail;
	while (got < (size_t)sb.st_size) {
		ssize_t r = pread(fd, buf + got, (size_t)sb.st_size - got, (off_t)got);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			goto damaged;
		}
		got += (size_t)r;
	}
	h = (const struct nc_head *)buf;
	if (memcmp(h->magic, NC_MAGIC, 8) || h->version != NC_VERSION ||
	    h->nent > NC_MAX_ENT || h->strsize > NC_MAX_STR ||
	    !memchr(h->bid, 0, sizeof(h->bid)) || !memchr(h->dwbid, 0, sizeof(h->dwbid)) ||
	    strcmp(h->bid, c->bid))
		goto damaged;
	need = sizeof(*h) + (size_t)h->nent * sizeof(*e) + (size_t)h->strsize;
	if (need != got || body_sum(FNV_INIT, buf + sizeof(*h), got - sizeof(*h)) != h->sum)
		goto damaged;
	e = (const struct nc_ent *)(buf + sizeof(*h));
	c->str = buf + sizeof(*h) + (size_t)h->nent * sizeof(*e);
	for (size_t i = 0; i < h->nent; i++) {
		if (!e[i].len || e[i].lo + e[i].len < e[i].lo ||
		    (i && e[i].lo < e[i - 1].lo + e[i - 1].len))
			goto damaged;
		if (e[i].line < 0 ? e[i].file != NC_NONE || e[i].fn != NC_NONE :
				    !str_ok(c->str, h->strsize, e[i].file, 0) ||
					    (e[i].fn != NC_NONE &&
					     !str_ok(c->str, h->strsize, e[i].fn, 0)))
			goto damaged;
	}
	close(fd);
	if (strcmp(h->dwbid, c->dwbid)) {
		st.stale += !rereading; /* from other DWARF: replaced */
		free(buf);
		c->str = NULL;
		return -1;
	}
	c->buf = buf;
	c->ent = e;
	c->nent = h->nent;
	c->nstr = (size_t)h->strsize;
	c->fst = sb;
	return 0;
damaged:
	st.damaged += !rereading;
	nc_warn("%s: damaged: ignored and written anew", path);
fail:
	free(buf);
	c->str = NULL;
	close(fd);
	return -1;
}

struct sym_ncache *sym_ncache_open(const char *bid, Elf *dwelf)
{
	struct sym_ncache *c;
	const char *why, *dir;

	if (!sym_debug_cache || !dwelf || !bid || !*bid || strlen(bid) >= HWP_ELF_BUILDID_HEX)
		return NULL;
	if (!(dir = sym_cache_dir(&why))) {
		if (why)
			nc_warn("%s", why);
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	c->dir = st.dir = dir;
	c->lock = -1;
	snprintf(c->bid, sizeof(c->bid), "%s", bid);
	sym_elf_buildid(dwelf, c->dwbid);
	if (!*c->dwbid) { /* DWARF no build-id names: nothing to check it by */
		free(c);
		return NULL;
	}
	st.objects++;
	nc_read(c);
	return c;
}

/* The index of addr's range, or -1. */
static long nc_find(const struct sym_ncache *c, uint64_t addr)
{
	size_t a = 0, b = c->nent;

	while (a < b) { /* the first range starting above addr */
		size_t m = a + (b - a) / 2;

		if (c->ent[m].lo <= addr)
			a = m + 1;
		else
			b = m;
	}
	if (!a || addr - c->ent[a - 1].lo >= c->ent[a - 1].len)
		return -1;
	return (long)a - 1;
}

static int unchanged(const struct sym_ncache *c);

void sym_ncache_need(struct sym_ncache *c, const uint64_t *a, size_t n)
{
	size_t i = 0, miss = 0;

	if (!c || c->lock >= 0)
		return;
	for (size_t k = 0; k < n; k++)
		miss += nc_find(c, a[k]) < 0;
	/* a few addresses new to a file that has the rest: resolved side
	 * by side (waiting in turn would cost the ranks more than it saves) */
	if (!miss || (c->buf && miss < n / 4) || (c->lock = sym_cache_lock(c->bid)) < 0)
		return;
	if (!unchanged(c)) { /* another rank's names since: take them */
		free(c->buf);
		c->buf = NULL;
		c->ent = NULL;
		c->nent = 0;
		c->str = NULL;
		c->nstr = 0;
		rereading = 1;
		nc_read(c);
		rereading = 0;
		for (i = 0; i < n && nc_find(c, a[i]) >= 0;)
			i++;
		if (i == n) { /* it had them all: nothing to write */
			sym_cache_unlock(c->lock);
			c->lock = -1;
		}
	}
}

int sym_ncache_get(struct sym_ncache *c, uint64_t addr, const char **file, int *line,
		   const char **fn)
{
	long a = nc_find(c, addr);

	if (a < 0) {
		st.misses++;
		return -1;
	}
	st.hits++;
	if (c->ent[a].line < 0)
		return 0;
	*file = c->str + c->ent[a].file;
	*line = c->ent[a].line;
	*fn = c->ent[a].fn == NC_NONE ? NULL : c->str + c->ent[a].fn;
	return 1;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Adds [lo, hi): joined to the last range when it goes on with the same
 * answer. */
static void put_range(void *arg, uint64_t lo, uint64_t hi, const char *file, int line,
		      const char *fn)
{
	struct sym_ncache *c = arg;
	struct nc_add *l = c->nadd ? &c->add[c->nadd - 1] : NULL;

	if (!file || !*file || line < 0) {
		file = fn = NULL;
		line = -1;
	} else if (fn && !*fn) {
		fn = NULL;
	}
	if (hi <= lo || hi - lo > UINT32_MAX)
		return; /* not kept */
	if (l && l->hi == lo && l->line == line && same_str(l->file, file) &&
	    same_str(l->fn, fn)) {
		if (hi - l->lo <= UINT32_MAX) {
			l->hi = hi;
			return;
		}
	}
	if (hd_grow(&c->add, c->nadd, sizeof(*c->add)))
		return; /* one less to keep */
	c->add[c->nadd++] = (struct nc_add){ lo, hi, line, file, fn };
}

void sym_ncache_put(struct sym_ncache *c, struct sym_obj *o, uint64_t addr, const char *file,
		    int line, const char *fn)
{
	uint64_t unit;
	size_t i;

	if (sym_obj_unit(o, addr, &unit)) {
		put_range(c, addr, addr + 1, file, line, fn);
		return;
	}
	for (i = 0; i < c->nunits && c->units[i] != unit; i++)
		;
	if (i < c->nunits)
		return; /* kept whole already: addr is in it */
	if (hd_grow(&c->units, c->nunits, sizeof(*c->units)) ||
	    sym_obj_unit_pieces(o, unit, put_range, c)) {
		put_range(c, addr, addr + 1, file, line, fn);
		return;
	}
	c->units[c->nunits++] = unit;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */

/* The strings of the file being written, each once: those of the file
 * it merges with first, as they were (their entries keep their
 * offsets), then the new ones. */
struct strtab {
	char *v;
	size_t n, cap;
	struct {
		uint32_t used, off;
	} * h;
	size_t hcap; /* a power of two */
	int failed;
};

/* The slot of s: its own, or the empty one where it goes. */
static size_t st_slot(const struct strtab *t, const char *s, size_t len)
{
	size_t i = (size_t)fnv(FNV_INIT, s, len) & (t->hcap - 1);

	for (; t->h[i].used; i = (i + 1) & (t->hcap - 1))
		if (!strcmp(t->v + t->h[i].off, s))
			break;
	return i;
}

static uint32_t st_add(struct strtab *t, const char *s)
{
	size_t len = strlen(s), i = st_slot(t, s, len);

	if (t->h[i].used)
		return t->h[i].off;
	if (t->n + len + 1 > NC_MAX_STR) {
		t->failed = 1;
		return NC_NONE;
	}
	if (t->n + len + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *nv;

		while (cap < t->n + len + 1)
			cap *= 2;
		if (!(nv = realloc(t->v, cap))) {
			t->failed = 1;
			return NC_NONE;
		}
		t->v = nv;
		t->cap = cap;
	}
	memcpy(t->v + t->n, s, len + 1);
	t->h[i].used = 1;
	t->h[i].off = (uint32_t)t->n;
	t->n += len + 1;
	return t->h[i].off;
}

/* The table begun with the strings of a file (NUL-ended, checked by
 * nc_read()), room made for more new ones. 0 or -1. */
static int st_seed(struct strtab *t, const char *bs, size_t bsize, size_t more)
{
	size_t nstr = 0;

	for (size_t i = 0; i < bsize; i++)
		nstr += !bs[i];
	for (t->hcap = 64; t->hcap < 2 * (nstr + more) + 64; t->hcap *= 2)
		;
	if (!(t->h = calloc(t->hcap, sizeof(*t->h))))
		return -1;
	if (!bsize)
		return 0;
	if (!(t->v = malloc(bsize)))
		return -1;
	memcpy(t->v, bs, bsize);
	t->n = t->cap = bsize;
	for (size_t off = 0; off < bsize;) {
		size_t len = strlen(t->v + off), i = st_slot(t, t->v + off, len);

		if (!t->h[i].used) {
			t->h[i].used = 1;
			t->h[i].off = (uint32_t)off;
		}
		off += len + 1;
	}
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = ENOSPC;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int add_by_lo(const void *x, const void *y)
{
	const struct nc_add *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->hi < b->hi) - (a->hi > b->hi); /* the longer first */
}

/* The union of base (the file as it is now, else as read; bsize bytes
 * of strings) and c's own, as disjoint ranges, one merge of the two
 * sorted lists: where two overlap (both exact for the same DWARF, so of
 * one answer there) the later one is cut to start where the earlier
 * ends; ours first where both start at once. */
static void nc_write(struct sym_ncache *c, const struct nc_ent *be, size_t bn, const char *bs,
		     size_t bsize)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	struct strtab t = { 0 };
	struct nc_ent *out = NULL;
	struct nc_head h = { 0 };
	size_t n = 0, i = 0, j = 0;
	uint64_t end = 0;
	int fd = -1;

	if (path_of(path, sizeof(path), c->dir, c->bid) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.names.XXXXXX", c->dir, c->bid) >=
		    (int)sizeof(tmp))
		return;
	qsort(c->add, c->nadd, sizeof(*c->add), add_by_lo);
	out = malloc((bn + c->nadd + 1) * sizeof(*out));
	if (!out || st_seed(&t, bs, bsize, 2 * c->nadd))
		goto out;
	while ((i < bn || j < c->nadd) && n < NC_MAX_ENT && !t.failed) {
		struct nc_ent e;
		uint64_t hi;

		if (j < c->nadd &&
		    (i == bn || c->add[j].lo < be[i].lo ||
		     (c->add[j].lo == be[i].lo && c->add[j].hi >= be[i].lo + be[i].len))) {
			const struct nc_add *x = &c->add[j++];

			hi = x->hi;
			if (n && hi <= end)
				continue; /* inside the one before */
			e = (struct nc_ent){ .lo = x->lo,
					     .line = x->line,
					     .file = NC_NONE,
					     .fn = NC_NONE };
			if (x->line >= 0) {
				e.file = st_add(&t, x->file);
				if (x->fn)
					e.fn = st_add(&t, x->fn);
			}
		} else {
			e = be[i++];
			hi = e.lo + e.len;
			if (n && hi <= end)
				continue;
		}
		if (n && e.lo < end)
			e.lo = end;
		e.len = (uint32_t)(hi - e.lo);
		end = hi;
		out[n++] = e;
	}
	if (t.failed)
		goto out; /* strings past the bound: what it has stays */
	memcpy(h.magic, NC_MAGIC, 8);
	h.version = NC_VERSION;
	h.nent = (uint32_t)n;
	h.strsize = t.n;
	h.sum = body_sum(FNV_INIT, out, n * sizeof(*out));
	h.sum = body_sum(h.sum, t.v, t.n);
	snprintf(h.bid, sizeof(h.bid), "%s", c->bid);
	snprintf(h.dwbid, sizeof(h.dwbid), "%s", c->dwbid);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		nc_warn("%s: %s: not written", c->dir, strerror(errno));
		goto out;
	}
	if (write_all(fd, &h, sizeof(h)) || write_all(fd, out, n * sizeof(*out)) ||
	    write_all(fd, t.v ? t.v : "", t.n) || close(fd)) {
		nc_warn("%s: %s: not written", path, strerror(errno));
		fd = -1;
		unlink(tmp);
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		nc_warn("%s: %s: not written", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	st.written++;
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(out);
	free(t.h);
	free(t.v);
}

/* 1 when the file is still the one c read (no one replaced it since). */
static int unchanged(const struct sym_ncache *c)
{
	char path[PATH_MAX];
	struct stat sb;

	if (path_of(path, sizeof(path), c->dir, c->bid) || lstat(path, &sb))
		return !c->buf && errno == ENOENT; /* none then, none now */
	return c->buf && sb.st_dev == c->fst.st_dev && sb.st_ino == c->fst.st_ino &&
	       sb.st_size == c->fst.st_size && sb.st_mtim.tv_sec == c->fst.st_mtim.tv_sec &&
	       sb.st_mtim.tv_nsec == c->fst.st_mtim.tv_nsec;
}

void sym_ncache_close(struct sym_ncache *c, int keep)
{
	if (!c)
		return;
	if (keep && c->nadd) {
		/* the file as another recording may have left it since */
		struct sym_ncache now = { .dir = c->dir };

		memcpy(now.bid, c->bid, sizeof(now.bid));
		memcpy(now.dwbid, c->dwbid, sizeof(now.dwbid));
		rereading = 1;
		if (!unchanged(c) && !nc_read(&now))
			nc_write(c, now.ent, now.nent, now.str, now.nstr);
		else
			nc_write(c, c->ent, c->nent, c->str, c->nstr);
		rereading = 0;
		free(now.buf);
	}
	sym_cache_unlock(c->lock);
	free(c->add);
	free(c->units);
	free(c->buf);
	free(c);
}

void sym_ncache_report(void)
{
	if (!sym_cache_verbose || !st.objects)
		return;
	fprintf(stderr,
		"hwprof: name cache %s: %zu of %zu addresses of %zu objects from the "
		"cache, %zu files written",
		st.dir, st.hits, st.hits + st.misses, st.objects, st.written);
	if (st.stale)
		fprintf(stderr, ", %zu stale", st.stale);
	if (st.damaged)
		fprintf(stderr, ", %zu damaged", st.damaged);
	fputc('\n', stderr);
}
