/* SPDX-License-Identifier: MIT */
/*
 * Debug files from a debuginfod server (hwprof(1), ENVIRONMENT), as perf
 * and gdb fetch them: the debug file of a build-id that no local one
 * (/usr/lib/debug, .gnu_debuglink) has, asked of the servers in
 * $DEBUGINFOD_URLS through elfutils' libdebuginfod, which keeps what it
 * fetched in its own cache ($DEBUGINFOD_CACHE_PATH) and bounds each
 * transfer ($DEBUGINFOD_TIMEOUT).
 *
 * libdebuginfod.so.1 is opened with dlopen() the first time a build-id is
 * asked for, as elfutils' own libdwfl does: hwprof builds and runs without
 * it (no names from a server then), and a program that never needs one
 * never loads it nor libcurl. Nothing is asked when DEBUGINFOD_URLS is
 * unset or empty, nor ever in a set-user-ID or set-group-ID program or
 * one with file capabilities (AT_SECURE: libhwprof-mpi names objects
 * inside the user's processes). A server that fails ends the questions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "symbols.h"

#if __has_include(<elfutils/debuginfod.h>)
#include <elfutils/debuginfod.h>
typedef __typeof__(debuginfod_begin) begin_fn;
typedef __typeof__(debuginfod_find_debuginfo) find_fn;
typedef __typeof__(debuginfod_end) end_fn;
#else
/* libdebuginfod's interface (elfutils/debuginfod.h, ELFUTILS_0.178) */
typedef struct debuginfod_client debuginfod_client;
typedef debuginfod_client *begin_fn(void);
typedef int find_fn(debuginfod_client *, const unsigned char *, int, char **);
typedef void end_fn(debuginfod_client *);
#endif

static struct {
	int state; /* 0 not tried, 1 usable, -1 not */
	void *lib;
	debuginfod_client *client;
	find_fn *find;
} dbi;

/* The client, made on first use; NULL when no server is to be asked. */
static debuginfod_client *client(void)
{
	const char *urls;
	begin_fn *begin;

	if (dbi.state)
		return dbi.state > 0 ? dbi.client : NULL;
	dbi.state = -1;
	if (getauxval(AT_SECURE))
		return NULL;
	urls = secure_getenv("DEBUGINFOD_URLS");
	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	dbi.lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!dbi.lib) {
		fputs("hwprof: warning: DEBUGINFOD_URLS is set but libdebuginfod.so.1 "
		      "cannot be loaded (Debian: libdebuginfod1): no debug files from a "
		      "server\n",
		      stderr);
		return NULL;
	}
	begin = (begin_fn *)dlsym(dbi.lib, "debuginfod_begin");
	dbi.find = (find_fn *)dlsym(dbi.lib, "debuginfod_find_debuginfo");
	if (!begin || !dbi.find || !(dbi.client = begin())) {
		fputs("hwprof: warning: libdebuginfod.so.1: cannot start a client: no debug "
		      "files from a server\n",
		      stderr);
		return NULL; /* the library stays loaded: it may hold state */
	}
	dbi.state = 1;
	return dbi.client;
}

/* The build-id's hex text as bytes; 0 when it is not hex. */
static int hex_bytes(const char *hex, unsigned char *out, size_t max)
{
	size_t n = strlen(hex);

	if (!n || n % 2 || n / 2 > max || strspn(hex, "0123456789abcdefABCDEF") != n)
		return 0;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return 0;
		out[i] = (unsigned char)v;
	}
	return (int)(n / 2);
}

int sym_debuginfod(const char *bid, char *path, size_t len)
{
	unsigned char id[64];
	debuginfod_client *c;
	char *got = NULL;
	int n, fd;

	if (!bid || !(n = hex_bytes(bid, id, sizeof(id))) || !(c = client()))
		return -1;
	fd = dbi.find(c, id, n, &got);
	if (fd < 0) {
		/* not on any server (-ENOENT) is the common case: silent. Any
		 * other failure (unreachable, refused, timed out) ends the
		 * questions of this process: one wait of DEBUGINFOD_TIMEOUT at
		 * most, not one per object */
		if (fd != -ENOENT) {
			fprintf(stderr,
				"hwprof: warning: debuginfod: %s: no more debug files "
				"asked of the servers; objects without local ones may lack "
				"names and lines\n",
				strerror(-fd));
			dbi.state = -1;
		}
		free(got);
		return -1;
	}
	close(fd);
	n = got ? snprintf(path, len, "%s", got) : -1;
	free(got);
	return n > 0 && (size_t)n < len ? 0 : -1;
}
