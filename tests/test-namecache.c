/* SPDX-License-Identifier: MIT */
/*
 * The name cache (lib/profile/namecache.c, hwprof(1) "Name cache"): the
 * names sym_keep_names() keeps for the sampled addresses of OBJECTs are
 * the same, byte for byte, with the cache off, filling it, read from it
 * warm, merged from a part, after its file was damaged (cut, a byte
 * flipped, junk) or made from other DWARF (stale), written by 8
 * processes at once (then whole; with the same addresses, by one of them
 * while the others wait: sym_cache_lock()), as nobody whose cache directory is
 * root's or not writable, and with the disk "full" (RLIMIT_FSIZE). It
 * says nothing unless asked; asked (sym_cache_verbose), one line of what
 * it did and one of the first thing wrong.
 *
 *   test-namecache CACHEDIR OBJECT...
 *
 * Each step runs in a child of its own, as a recording would.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "../lib/perf/elfsym.h"
#include "../lib/profile/symbols.h"

enum {
	PER = 400
}; /* addresses an object */

static const char *dir, *tmp;
static char **objs;
static int nobjs;

/* The data file a recording of PER addresses spread over each object's
 * functions would name; with part 1..8, only every eighth of them from
 * the (part-1)-th on; 9: every second; 10: each 2 bytes further on (none
 * of them named before, most in the same units). */
static void build(struct hd_file *d, int part)
{
	hd_init(d);
	hd_add_event(d, "task-clock", 1);
	hd_add_process(d, 1, 0, "t");
	hd_add_thread(d, 1, 0, "t");
	for (int k = 0; k < nobjs; k++) {
		struct sym_obj o;
		char *bid = sym_file_buildid(objs[k]);
		long obj = hd_object(d, objs[k], bid, sym_file_size(objs[k]));
		uint64_t span = 0, step, want = 0, at = 0;
		size_t n = 0;

		free(bid);
		sym_obj_init(&o, objs[k], NULL, 0);
		sym_obj_load(&o);
		for (size_t i = 0; i < o.nsyms; i++)
			if (o.syms[i].hi > o.syms[i].lo)
				span += o.syms[i].hi - o.syms[i].lo;
		step = span / PER + 1;
		/* every step-th byte of the functions laid end to end */
		for (size_t i = 0; i < o.nsyms; i++) {
			uint64_t len = o.syms[i].hi > o.syms[i].lo ?
					       o.syms[i].hi - o.syms[i].lo :
					       0;

			for (; want < at + len && n < PER; want += step, n++) {
				uint64_t a = o.syms[i].lo + (want - at);

				if (!part || part == 10 ||
				    (part == 9 ? n % 2 == 0 : n % 8 == (size_t)part - 1))
					hd_count(d, 0, 0, (uint32_t)obj,
						 part == 10 ? a + 2 : a, 1);
			}
			at += len;
		}
		sym_obj_free(&o);
	}
}

/* The names kept, as text. */
static void dump(const struct hd_file *d, FILE *f)
{
	for (size_t i = 0; i < d->nobjects; i++)
		fprintf(f, "object %zu %s %s\n", i, d->objects[i].path,
			d->objects[i].kept_why ? d->objects[i].kept_why : "-");
	for (size_t i = 0; i < d->nnames; i++)
		fprintf(f, "name %u %llx %llx %s\n", d->names[i].object,
			(unsigned long long)d->names[i].lo, (unsigned long long)d->names[i].hi,
			d->names[i].name);
	for (size_t i = 0; i < d->nlines; i++)
		fprintf(f, "line %u %llx %s %d %s\n", d->lines[i].object,
			(unsigned long long)d->lines[i].addr, d->srcs.s[d->lines[i].src],
			d->lines[i].line, d->lines[i].func ? d->lines[i].func : "-");
}

enum {
	AS_ME,
	AS_NOBODY,
	FULL
};

/* One recording's naming in a child: its names into tmp/NAME.names, its
 * stderr into tmp/NAME.err. cache NULL: off. 0 when it went well. */
static pid_t start(const char *name, const char *cache, int part, int verbose, int how)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		char path[4096];
		struct hd_file d;
		FILE *f;

		setenv("HWPROF_CACHE_DIR", cache ? cache : "", 1);
		snprintf(path, sizeof(path), "%s/%s.err", tmp, name);
		if (!freopen(path, "w", stderr))
			_exit(3);
		if (how == AS_NOBODY &&
		    (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		     setresuid(65534, 65534, 65534)))
			_exit(4);
		build(&d, part);
		sym_cache_verbose = verbose;
		if (how == FULL) {
			/* files past 100 bytes fail (EFBIG): the cache's */
			struct rlimit r = { 100, RLIM_INFINITY };

			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &r);
		}
		if (sym_keep_names(&d))
			_exit(5);
		if (how == FULL) {
			struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };

			setrlimit(RLIMIT_FSIZE, &r);
		}
		fflush(stderr);
		snprintf(path, sizeof(path), "%s/%s.names", tmp, name);
		if (!(f = fopen(path, "w")))
			_exit(6);
		dump(&d, f);
		fclose(f);
		hd_free(&d);
		_exit(0);
	}
}

static int finish(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

static int run(const char *name, const char *cache, int part, int verbose, int how)
{
	return finish(start(name, cache, part, verbose, how));
}

static char *slurp(const char *name, const char *ext)
{
	char path[4096], *s = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", tmp, name, ext);
	if (!(f = fopen(path, "r")))
		return strdup("");
	if (getdelim(&s, &n, 0, f) < 0) {
		free(s);
		s = strdup("");
	}
	fclose(f);
	return s;
}

static int lines_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The step's names are the reference's, byte for byte. */
static void same_as(const char *ref, const char *name)
{
	char *want = slurp(ref, "names"), *got = slurp(name, "names");

	T_CHECK(*got && !strcmp(want, got), "%s: names differ from the cache off", name);
	free(want);
	free(got);
}

static void same_names(const char *name)
{
	same_as("off", name);
}

/* The -v line: hits of total, files written. */
static void counts(const char *name, long *hits, long *total, long *written)
{
	char *err = slurp(name, "err"), *p = strstr(err, "hwprof: name cache ");

	*hits = *total = *written = -1;
	if (p && (p = strstr(p + 19, ": ")) &&
	    sscanf(p,
		   ": %ld of %ld addresses of %*d objects from the cache, %ld files written",
		   hits, total, written) != 3)
		*hits = *total = *written = -1;
	free(err);
}

static int contains(const char *name, const char *what)
{
	char *err = slurp(name, "err");
	int r = strstr(err, what) != NULL;

	free(err);
	return r;
}

static int nerr(const char *name)
{
	char *err = slurp(name, "err");
	int n = lines_of(err);

	free(err);
	return n;
}

/* The cache's files of the objects: their paths into out; how many. */
static int files(char out[][4200], int max)
{
	int n = 0;

	for (int k = 0; k < nobjs && n < max; k++) {
		char *bid = sym_file_buildid(objs[k]);

		if (bid) {
			snprintf(out[n], 4200, "%s/%s.names", dir, bid);
			if (!access(out[n], F_OK))
				n++;
		}
		free(bid);
	}
	return n;
}

static void clear(void)
{
	char f[8][4200];
	int n = files(f, 8);

	for (int i = 0; i < n; i++)
		unlink(f[i]);
}

static int temps_left(void)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (dp && (e = readdir(dp)))
		n += e->d_name[0] == '.' && strstr(e->d_name, ".names.") != NULL;
	if (dp)
		closedir(dp);
	return n;
}

static void damage(const char *path, const char *how)
{
	struct stat st;
	int fd = open(path, O_RDWR);

	if (fd < 0 || fstat(fd, &st)) {
		T_CHECK(0, "cannot open %s", path);
		return;
	}
	if (!strcmp(how, "cut")) {
		T_CHECK(!ftruncate(fd, st.st_size / 2), "truncate");
	} else if (!strcmp(how, "flip")) {
		unsigned char c;

		T_CHECK(pread(fd, &c, 1, st.st_size * 3 / 4) == 1, "read");
		c ^= 0x20;
		T_CHECK(pwrite(fd, &c, 1, st.st_size * 3 / 4) == 1, "write");
	} else if (!strcmp(how, "junk")) {
		T_CHECK(!ftruncate(fd, 0) && write(fd, "junk\n", 5) == 5, "junk");
	} else { /* stale: the DWARF build-id of the header, another */
		T_CHECK(pwrite(fd, "00", 2, 8 + 4 + 4 + 8 + 8 + 129) == 2, "stale");
	}
	close(fd);
}

int main(int argc, char **argv)
{
	char f[8][4200], sub[4200];
	long h, t, w, total;
	pid_t kids[8];
	struct stat st;
	int nf;

	if (argc < 3 || elf_version(EV_CURRENT) == EV_NONE)
		return T_ERROR;
	dir = argv[1];
	objs = argv + 2;
	nobjs = argc - 2;
	mkdir(dir, 0700);
	chmod(dir, 0700);
	/* the steps' output, where nobody may write too */
	if (snprintf(sub, sizeof(sub), "%s.out", dir) >= (int)sizeof(sub))
		return T_ERROR;
	mkdir(sub, 0700);
	tmp = strdup(sub);
	clear();

	/* the reference: the cache off, nothing said */
	T_EQ(run("off", NULL, 0, 1, AS_ME), 0);
	{
		char *ref = slurp("off", "names");

		T_CHECK(lines_of(ref) > nobjs + 50, "few names");
		free(ref);
	}
	T_EQ(nerr("off"), 0);

	/* filling it: silent unless asked */
	T_EQ(run("cold-quiet", dir, 0, 0, AS_ME), 0);
	same_names("cold-quiet");
	T_EQ(nerr("cold-quiet"), 0);
	nf = files(f, 8);
	T_CHECK(nf >= 1, "no cache file written in %s", dir);
	for (int i = 0; i < nf; i++)
		T_CHECK(!stat(f[i], &st) && S_ISREG(st.st_mode) &&
				(st.st_mode & 0777) == 0600 && st.st_uid == geteuid(),
			"%s: mode %o", f[i], st.st_mode);
	clear();
	T_EQ(run("cold", dir, 0, 1, AS_ME), 0);
	same_names("cold");
	counts("cold", &h, &total, &w);
	T_CHECK(h == 0 && total > 0 && w == nf, "cold: %ld of %ld, %ld written", h, total, w);
	T_EQ(nerr("cold"), 1);

	/* warm: every address from the cache, nothing written */
	T_EQ(run("warm", dir, 0, 1, AS_ME), 0);
	same_names("warm");
	counts("warm", &h, &t, &w);
	T_CHECK(h == total && t == total && w == 0, "warm: %ld of %ld, %ld written", h, t, w);

	/* other addresses of the same code: from the units kept whole */
	T_EQ(run("off-shift", NULL, 10, 0, AS_ME), 0);
	T_EQ(run("shift", dir, 10, 1, AS_ME), 0);
	same_as("off-shift", "shift");
	counts("shift", &h, &t, &w);
	T_CHECK(h > t / 2, "addresses not named before: %ld of %ld from the cache", h, t);

	/* a part first, then the whole: merged */
	clear();
	T_EQ(run("half", dir, 9, 1, AS_ME), 0);
	T_EQ(run("merge", dir, 0, 1, AS_ME), 0);
	same_names("merge");
	counts("merge", &h, &t, &w);
	T_CHECK(h > 0 && h < total && t == total && w == nf, "merge: %ld of %ld, %ld written",
		h, t, w);
	T_EQ(run("merged", dir, 0, 1, AS_ME), 0);
	counts("merged", &h, &t, &w);
	T_CHECK(h == total && w == 0, "after the merge: %ld of %ld", h, t);

	/* damaged or stale: the same names; quiet, or asked two lines */
	static const char *const hows[] = { "cut", "flip", "junk", "stale" };

	for (int i = 0; i < 4; i++) {
		char name[32];

		files(f, 8);
		damage(f[0], hows[i]);
		snprintf(name, sizeof(name), "%s-quiet", hows[i]);
		T_EQ(run(name, dir, 0, 0, AS_ME), 0);
		same_names(name);
		T_CHECK(nerr(name) == 0, "%s: said something unasked", name);
		files(f, 8);
		damage(f[0], hows[i]);
		T_EQ(run(hows[i], dir, 0, 1, AS_ME), 0);
		same_names(hows[i]);
		counts(hows[i], &h, &t, &w);
		T_CHECK(h < total && w == 1, "%s: %ld of %ld, %ld written", hows[i], h, t, w);
		if (i < 3) {
			T_EQ(nerr(hows[i]), 2);
			T_CHECK(contains(hows[i], "damaged: ignored and written anew"), "%s",
				hows[i]);
		} else { /* stale is no damage: the report only */
			T_EQ(nerr(hows[i]), 1);
			T_CHECK(contains(hows[i], ", 1 stale"), "stale not counted");
		}
		T_EQ(run("again", dir, 0, 1, AS_ME), 0);
		counts("again", &h, &t, &w);
		T_CHECK(h == total && w == 0, "after %s, written anew: %ld of %ld", hows[i], h,
			t);
	}

	/* 8 at once, each its eighth: whole files, no temp left */
	clear();
	for (int i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "kid%d", i);
		kids[i] = start(name, dir, i + 1, 1, AS_ME);
	}
	for (int i = 0; i < 8; i++)
		T_EQ(finish(kids[i]), 0);
	T_EQ(temps_left(), 0);
	T_EQ(run("after-race", dir, 0, 1, AS_ME), 0);
	same_names("after-race");
	counts("after-race", &h, &t, &w);
	T_CHECK(h > 0 && !contains("after-race", "damaged"), "after the race: %ld of %ld", h,
		t);
	T_EQ(nerr("after-race"), 1);

	/* 8 at once, the same addresses (the ranks of a job naming the same
	 * objects as it ends): one resolves and writes each object's file,
	 * the 7 others wait for it (sym_cache_lock()) and take every address
	 * from it, none resolved again, no file written again */
	clear();
	T_EQ(run("one", dir, 0, 1, AS_ME), 0);
	counts("one", &h, &t, &w);
	T_CHECK(h == 0 && t > 0 && w >= 1, "one cold: %ld of %ld, %ld written", h, t, w);
	clear();
	{
		long sh = 0, sw = 0, h1, t1, w1;

		for (int i = 0; i < 8; i++) {
			char name[32];

			snprintf(name, sizeof(name), "same%d", i);
			kids[i] = start(name, dir, 0, 1, AS_ME);
		}
		for (int i = 0; i < 8; i++)
			T_EQ(finish(kids[i]), 0);
		for (int i = 0; i < 8; i++) {
			char name[32];

			snprintf(name, sizeof(name), "same%d", i);
			same_names(name);
			counts(name, &h1, &t1, &w1);
			T_CHECK(t1 == t, "%s: %ld addresses, not %ld", name, t1, t);
			sh += h1;
			sw += w1;
		}
		T_CHECK(sh == 7 * t && sw == w,
			"8 at once: %ld of %ld from the cache, %ld files "
			"written (want %ld, %ld)",
			sh, 8 * t, sw, 7 * t, w);
	}
	T_EQ(temps_left(), 0);

	/* the disk full: the names, no temp left, one line when asked */
	clear();
	T_EQ(run("full-quiet", dir, 0, 0, FULL), 0);
	same_names("full-quiet");
	T_EQ(nerr("full-quiet"), 0);
	T_EQ(run("full", dir, 0, 1, FULL), 0);
	same_names("full");
	T_CHECK(contains("full", "not written"), "full: not said");
	T_EQ(nerr("full"), 2);
	T_EQ(temps_left(), 0);
	T_EQ(files(f, 8), 0);

	if (geteuid() == 0) {
		/* nobody, the directory root's: unused, the names the same */
		chmod(tmp, 0777);
		T_EQ(run("nobody-quiet", dir, 0, 0, AS_NOBODY), 0);
		same_names("nobody-quiet");
		T_EQ(nerr("nobody-quiet"), 0);
		T_EQ(run("nobody", dir, 0, 1, AS_NOBODY), 0);
		same_names("nobody");
		T_EQ(nerr("nobody"), 1);
		T_CHECK(contains("nobody", "not a directory of this user's"),
			"nobody: not said");
		/* nobody's own directory, read-only */
		{
			char ro[4300];

			snprintf(ro, sizeof(ro), "%s/ro", tmp);
			mkdir(ro, 0500);
			T_CHECK(!chown(ro, 65534, 65534) && !chmod(ro, 0500), "chown");
			T_EQ(run("ro", ro, 0, 1, AS_NOBODY), 0);
			same_names("ro");
			T_CHECK(contains("ro", "not written"), "read-only: not said");
			T_EQ(nerr("ro"), 2);
			rmdir(ro);
		}
	} else {
		printf("not root: the nobody steps are not run\n");
	}
	return t_done("namecache");
}
