/* SPDX-License-Identifier: MIT */
/*
 * The debug cache of hwprof record (hwprof(1), "Debug cache"): Debian's
 * debug files (and most distributions') hold their .debug sections
 * compressed, and libdw inflates all of them when it opens one, about
 * 60 ms of CPU for libc's on every recording that names an address of
 * libc. The first recording that opens such a file writes the sections as
 * libdw left them, uncompressed, into a copy named by the file's build-id
 * in the user's cache directory; the next recordings, and the other ranks
 * of a job on the node, read the copy instead.
 *
 * Where: $HWPROF_CACHE_DIR, else $XDG_CACHE_HOME/hwprof, else
 * ~/.cache/hwprof (secure_getenv: none in a set-user-ID program), one
 * directory of the user's own that nobody else can write; empty
 * HWPROF_CACHE_DIR turns the cache off. Each copy is written to a temp
 * file beside it and renamed (two ranks writing at once leave one whole
 * copy; sym_cache_lock() makes the others wait for the first and read its
 * copy rather than inflate the same file), opened without following a
 * symbolic link, used only when it is
 * a regular file of the user's whose build-id, size and section layout
 * check. Anything wrong with the cache (unwritable, full, damaged) costs
 * one line on stderr, once, and the recording reads the debug file itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../perf/elfsym.h"
#include "symbols.h"

int sym_debug_cache;

static int warned;

__attribute__((format(printf, 1, 2))) static void cache_warn(const char *fmt, ...)
{
	va_list ap;

	if (warned++)
		return;
	fputs("hwprof: warning: debug cache: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A directory of ours that no one else can write, made 0700 if missing. */
static int own_dir(const char *dir, int make)
{
	struct stat st;

	if (make && mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	if (lstat(dir, &st))
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* The cache directory, made when missing; NULL when off or unusable,
 * with *why the line to say (NULL: nothing to say). A user without a
 * home (nobody's is /nonexistent) has no cache and is told nothing.
 * Shared with the name cache (namecache.c), which says it only when
 * asked. */
const char *sym_cache_dir(const char **why)
{
	static char dir[PATH_MAX], whybuf[PATH_MAX + 100];
	static int state; /* 0 not looked, 1 usable, -1 not */
	char base[PATH_MAX];
	const char *v;
	int n;

	*why = NULL;
	if (state) {
		if (state < 0 && *whybuf)
			*why = whybuf;
		return state > 0 ? dir : NULL;
	}
	state = -1;
	if ((v = secure_getenv("HWPROF_CACHE_DIR"))) {
		if (!*v)
			return NULL; /* off */
		n = snprintf(dir, sizeof(dir), "%s", v);
	} else {
		if ((v = secure_getenv("XDG_CACHE_HOME")) && *v == '/')
			n = snprintf(base, sizeof(base), "%s", v);
		else if ((v = secure_getenv("HOME")) && *v == '/')
			n = snprintf(base, sizeof(base), "%s/.cache", v);
		else
			return NULL;
		if (n <= 0 || (size_t)n >= sizeof(base))
			return NULL;
		if (mkdir(base, 0700) && errno != EEXIST)
			return NULL; /* no home to keep it in */
		n = snprintf(dir, sizeof(dir), "%s/hwprof", base);
	}
	if (n <= 0 || (size_t)n >= sizeof(dir) - 160)
		return NULL;
	if (own_dir(dir, 1)) {
		snprintf(whybuf, sizeof(whybuf), "%s: %s: not used", dir,
			 errno == EPERM ?
				 "not a directory of this user's that only it can write" :
				 strerror(errno));
		*why = whybuf;
		return NULL;
	}
	state = 1;
	return dir;
}

static const char *cache_dir(void)
{
	const char *why, *dir = sym_cache_dir(&why);

	if (!dir && why)
		cache_warn("%s", why);
	return dir;
}

/* The lock held by this process (one at a time is all that nests: the
 * names of an object, then its DWARF file's copy, the same build-id). */
static struct {
	char bid[HWP_ELF_BUILDID_HEX];
	int fd, depth;
} held = { .fd = -1 };

#define LOCK_WAIT_MS 10000 /* then on without it */

int sym_cache_lock(const char *bid)
{
	const char *dir = sym_debug_cache ? cache_dir() : NULL;
	char path[PATH_MAX];
	struct stat sb;
	int fd;

	if (!dir || !bid || !*bid || strlen(bid) >= sizeof(held.bid))
		return -1;
	if (held.depth) {
		if (strcmp(held.bid, bid))
			return -1; /* another object's: not nested */
		held.depth++;
		return held.fd;
	}
	if (snprintf(path, sizeof(path), "%s/%s.lock", dir, bid) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
		  0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		close(fd);
		return -1;
	}
	for (int ms = 0; flock(fd, LOCK_EX | LOCK_NB); ms += 2) {
		struct timespec ts = { 0, 2000000 };

		if ((errno != EWOULDBLOCK && errno != EINTR) || ms >= LOCK_WAIT_MS) {
			close(fd);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	snprintf(held.bid, sizeof(held.bid), "%s", bid);
	held.fd = fd;
	held.depth = 1;
	return fd;
}

void sym_cache_unlock(int h)
{
	if (h < 0 || h != held.fd || !held.depth || --held.depth)
		return;
	close(held.fd); /* the lock with it */
	held.fd = -1;
}

/* 1 when a section of e is compressed (SHF_COMPRESSED, or GNU's older
 * .zdebug), or with zdebug_only set, when one is .zdebug. */
static int compressed(Elf *e, int zdebug_only)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return zdebug_only; /* unreadable: copied by no one */
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if ((!zdebug_only && (sh.sh_flags & SHF_COMPRESSED)) ||
		    (name && !strncmp(name, ".zdebug", 7)))
			return 1;
	}
	return 0;
}

int sym_debug_compressed(Elf *e)
{
	return compressed(e, 0);
}

/* The bytes an ELF file's sections and headers take: a copy shorter than
 * that was cut short. */
static uint64_t elf_extent(Elf *e)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	uint64_t end;

	if (!gelf_getehdr(e, &eh))
		return UINT64_MAX;
	end = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return UINT64_MAX;
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > end)
			end = sh.sh_offset + sh.sh_size;
	}
	return end;
}

Elf *sym_debug_cached(const char *bid, int *fdp)
{
	const char *dir = sym_debug_cache ? cache_dir() : NULL;
	char path[PATH_MAX], got[HWP_ELF_BUILDID_HEX];
	struct stat st;
	Elf *e;
	int fd;

	*fdp = -1;
	if (!dir || !bid || !*bid || strlen(bid) > 128)
		return NULL;
	if (snprintf(path, sizeof(path), "%s/%s.debug", dir, bid) >= (int)sizeof(path))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL; /* not there yet (or a link: not ours) */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		close(fd);
		cache_warn("%s: not a copy this user wrote: not used", path);
		return NULL;
	}
	sym_elf_buildid(e, got);
	if (elf_kind(e) != ELF_K_ELF || strcasecmp(got, bid) || sym_debug_compressed(e) ||
	    elf_extent(e) > (uint64_t)st.st_size) {
		elf_end(e);
		close(fd);
		cache_warn("%s: damaged: written again", path);
		unlink(path);
		return NULL;
	}
	*fdp = fd;
	return e;
}

/* Writes e's sections as they are now in memory into fd (a new ELF file
 * with the same headers, laid out by libelf). */
static int write_copy(Elf *in, int fd)
{
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t phnum, shstrndx;
	int ret = -1;

	if (!out || !gelf_getehdr(in, &eh) || elf_getphdrnum(in, &phnum) ||
	    elf_getshdrstrndx(in, &shstrndx) || !gelf_newehdr(out, gelf_getclass(in)))
		goto out;
	if (phnum) {
		if (!gelf_newphdr(out, phnum))
			goto out;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(in, (int)i, &ph) ||
			    !gelf_update_phdr(out, (int)i, &ph))
				goto out;
		}
	}
	while ((scn = elf_nextscn(in, scn))) {
		Elf_Scn *ns = elf_newscn(out);
		Elf_Data *d = NULL, *nd;
		GElf_Shdr sh;

		if (!ns)
			goto out;
		/* what libdw left compressed (sections it does not read) */
		if (!gelf_getshdr(scn, &sh) ||
		    ((sh.sh_flags & SHF_COMPRESSED) &&
		     (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh))))
			goto out;
		while ((d = elf_getdata(scn, d))) {
			if (!(nd = elf_newdata(ns)))
				goto out;
			nd->d_buf = d->d_buf;
			nd->d_type = d->d_type;
			nd->d_size = d->d_size;
			nd->d_off = d->d_off;
			nd->d_align = d->d_align;
			nd->d_version = d->d_version;
		}
		if (!gelf_update_shdr(ns, &sh))
			goto out;
	}
	eh.e_shstrndx = (Elf64_Half)shstrndx;
	if (!gelf_update_ehdr(out, &eh) || elf_update(out, ELF_C_WRITE) < 0)
		goto out;
	ret = 0;
out:
	if (out)
		elf_end(out);
	return ret;
}

void sym_debug_store(Elf *e, const char *bid)
{
	const char *dir = sym_debug_cache ? cache_dir() : NULL;
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd;

	if (!dir || !bid || !*bid || strlen(bid) > 128 ||
	    compressed(e, 1)) /* .zdebug: renamed when uncompressed, not copied */
		return;
	if (snprintf(path, sizeof(path), "%s/%s.debug", dir, bid) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, bid) >= (int)sizeof(tmp))
		return;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		cache_warn("%s: %s: not written", dir, strerror(errno));
		return;
	}
	errno = 0;
	if (write_copy(e, fd) || fsync(fd)) {
		int err = errno;

		close(fd);
		unlink(tmp);
		cache_warn("%s: %s: not written", path, err ? strerror(err) : elf_errmsg(-1));
		return;
	}
	close(fd);
	if (rename(tmp, path)) {
		cache_warn("%s: %s: not written", path, strerror(errno));
		unlink(tmp);
	}
}
