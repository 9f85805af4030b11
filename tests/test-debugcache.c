/* SPDX-License-Identifier: MIT */
/*
 * The debug cache (lib/profile/debugcache.c, hwprof(1) "Debug cache"):
 * the source lines and functions of OBJECT's addresses are the same read
 * from its compressed debug file, while the cache writes the uncompressed
 * copy, from the copy, and after the copy was cut short (it is then
 * written again, whole); the copy is the user's own, mode 0600, with no
 * compressed section and the debug file's build-id.
 *
 *   test-debugcache OBJECT CACHEDIR
 *
 * Exit 77 when OBJECT's debug file is not compressed (libc6-dbg's is).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "../lib/perf/elfsym.h"
#include "../lib/profile/symbols.h"

enum {
	N = 3000
};

struct res {
	char *file, *fn;
	int line, ok;
};

/* Lines of N addresses spread over OBJECT's functions. */
static void lines(const char *obj, struct res *r, char *dwfile, size_t len)
{
	struct sym_obj o;
	uint64_t span = 0, step;
	size_t k = 0;

	sym_obj_init(&o, obj, NULL, 0);
	sym_obj_load(&o);
	for (size_t i = 0; i < o.nsyms; i++)
		if (o.syms[i].hi > o.syms[i].lo)
			span += o.syms[i].hi - o.syms[i].lo;
	step = span / N + 1;
	for (size_t i = 0; i < o.nsyms && k < N; i++)
		for (uint64_t a = o.syms[i].lo; a < o.syms[i].hi && k < N; a += step, k++) {
			const char *file, *fn = NULL;

			r[k].ok = !sym_obj_line(&o, a, &file, &r[k].line, &fn);
			r[k].file = r[k].ok ? strdup(file) : NULL;
			r[k].fn = r[k].ok && fn ? strdup(fn) : NULL;
		}
	/* the file libdw reads now */
	if (dwfile) {
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", o.dwfd);
		n = readlink(link, dwfile, len - 1);
		dwfile[n > 0 ? n : 0] = 0;
	}
	sym_obj_free(&o);
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void compare(const char *what, const struct res *want, const struct res *got)
{
	size_t ok = 0, bad = 0;

	for (size_t i = 0; i < N; i++) {
		if (want[i].ok)
			ok++;
		if (want[i].ok != got[i].ok || !same(want[i].file, got[i].file) ||
		    !same(want[i].fn, got[i].fn) ||
		    (want[i].ok && want[i].line != got[i].line))
			bad++;
	}
	printf("%s: %zu of %d addresses with a line, %zu differ\n", what, ok, N, bad);
	T_CHECK(ok > N / 2, "%s: only %zu lines", what, ok);
	T_EQ(bad, 0);
}

static void free_res(struct res *r)
{
	for (size_t i = 0; i < N; i++) {
		free(r[i].file);
		free(r[i].fn);
	}
	memset(r, 0, N * sizeof(*r));
}

int main(int argc, char **argv)
{
	static struct res plain[N], got[N];
	char copy[4096], used[4096], bid[HWP_ELF_BUILDID_HEX];
	struct sym_obj o;
	struct stat st;
	int fd;
	Elf *e;

	if (argc != 3 || elf_version(EV_CURRENT) == EV_NONE)
		return T_ERROR;
	setenv("HWPROF_CACHE_DIR", argv[2], 1);
	/* the debug file, and whether it is compressed */
	sym_obj_init(&o, argv[1], NULL, 0);
	sym_obj_load(&o);
	if (!o.dwelf || !sym_debug_compressed(o.dwelf)) {
		printf("SKIP: %s has no compressed debug file (libc6-dbg)\n", argv[1]);
		return T_SKIP;
	}
	sym_elf_buildid(o.dwelf, bid);
	sym_obj_free(&o);
	mkdir(argv[2], 0700);
	if (!realpath(argv[2], used))
		return T_ERROR;
	if (snprintf(copy, sizeof(copy), "%s/%s.debug", used, bid) >= (int)sizeof(copy))
		return T_ERROR;
	unlink(copy); /* a copy of an earlier run */

	sym_debug_cache = 0;
	lines(argv[1], plain, NULL, 0);
	T_CHECK(access(copy, F_OK), "cache off, yet %s written", copy);

	sym_debug_cache = 1;
	lines(argv[1], got, NULL, 0);
	compare("writing the copy", plain, got);
	free_res(got);
	T_CHECK(!stat(copy, &st), "no copy %s", copy);
	T_CHECK(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 && st.st_uid == geteuid(),
		"copy mode %o uid %u", st.st_mode, st.st_uid);
	fd = open(copy, O_RDONLY);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	T_CHECK(e && !sym_debug_compressed(e), "the copy has compressed sections");
	if (e) {
		char got_bid[HWP_ELF_BUILDID_HEX];

		sym_elf_buildid(e, got_bid);
		T_CHECK(!strcmp(got_bid, bid), "copy's build-id %s, want %s", got_bid, bid);
		elf_end(e);
	}
	if (fd >= 0)
		close(fd);

	lines(argv[1], got, used, sizeof(used));
	compare("reading the copy", plain, got);
	free_res(got);
	T_CHECK(!strcmp(used, copy), "libdw read %s, not the copy %s", used, copy);

	/* a copy cut short: not used, written again whole */
	T_CHECK(!truncate(copy, st.st_size / 2), "truncate");
	lines(argv[1], got, used, sizeof(used));
	compare("after a damaged copy", plain, got);
	free_res(got);
	T_CHECK(strcmp(used, copy), "the damaged copy was read");
	{
		struct stat again;

		T_CHECK(!stat(copy, &again) && again.st_size == st.st_size,
			"the copy was not written again whole");
	}
	free_res(plain);
	return t_done("debugcache");
}
