/* SPDX-License-Identifier: MIT */
/*
 * Caller memory that may be bad: a copy that refuses an unreadable byte
 * instead of faulting, whether a range is writable, and an options struct
 * whose sz runs past what this library knows. The maps of the process
 * (/proc/self/maps) decide where process_vm_readv(2) cannot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hist.h"

/* The readable or writable mappings of this process, merged and sorted. */
struct wmaps {
	uint64_t (*r)[2];
	size_t n;
};

/* perm: 1 for readable, 2 for writable */
static int wmaps_load(struct wmaps *w, int mode)
{
	int want = mode == 2;
	char line[512];
	size_t cap = 0;
	FILE *f;

	w->r = NULL;
	w->n = 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char perm[5];

		if (sscanf(line, "%lx-%lx %4s", &a, &b, perm) != 3 || perm[want] != "rw"[want])
			continue;
		if (w->n && w->r[w->n - 1][1] == a) { /* adjacent: merge */
			w->r[w->n - 1][1] = b;
			continue;
		}
		if (w->n == cap) {
			uint64_t(*nr)[2] = realloc(w->r, (cap ? 2 * cap : 64) * sizeof(*nr));

			if (!nr) {
				fclose(f);
				return -ENOMEM;
			}
			w->r = nr;
			cap = cap ? 2 * cap : 64;
		}
		w->r[w->n][0] = a;
		w->r[w->n][1] = b;
		w->n++;
	}
	fclose(f);
	return 0;
}

static int wmaps_holds(const struct wmaps *w, uintptr_t lo, size_t len)
{
	size_t a = 0, b = w->n;

	if (lo + len < lo)
		return 0;
	while (a < b) { /* the last mapping starting at or below lo */
		size_t m = (a + b) / 2;

		if (w->r[m][0] <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a && lo + len <= w->r[a - 1][1];
}

/* Whether each [p[i], p[i] + len[i]) lies in writable memory of this
 * process (NULL never does; length 0 always does): 1 or 0. The maps are
 * read once for the lot. */
int hwp_user_writable_all(void *const *p, const size_t *len, size_t n)
{
	struct wmaps w;
	int ok = 1;

	for (size_t i = 0; i < n; i++)
		if (!p[i] && len[i])
			return 0;
	if (wmaps_load(&w, 2))
		return 1; /* cannot tell: let it be */
	for (size_t i = 0; ok && i < n; i++)
		ok = !len[i] || wmaps_holds(&w, (uintptr_t)p[i], len[i]);
	free(w.r);
	return ok;
}

int hwp_user_writable(const void *p, size_t len)
{
	void *q = (void *)(uintptr_t)p;

	if (!p)
		return 0;
	return hwp_user_writable_all(&q, &len, 1);
}

/*
 * Copies from a caller's pointer that may be bad: 0, or -EFAULT when any
 * byte of [src, src + len) is not readable. process_vm_readv() does the
 * copy, stopping at the first bad page (a short count); where it is not
 * allowed (seccomp, a kernel without it) the maps decide first.
 */
int hwp_user_read(void *dst, const void *src, size_t len)
{
	struct iovec l = { .iov_base = dst, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)src, .iov_len = len };
	struct wmaps w;
	ssize_t got;
	int ok;

	if (!len)
		return 0;
	if (!src || (uintptr_t)src + len < (uintptr_t)src)
		return -EFAULT;
	errno = 0;
	got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	if (got == (ssize_t)len)
		return 0;
	if (got >= 0 || errno == EFAULT)
		return -EFAULT; /* short: the rest is not mapped */
	if (wmaps_load(&w, 1))
		return -EFAULT; /* cannot tell: do not touch it */
	ok = wmaps_holds(&w, (uintptr_t)src, len);
	free(w.r);
	if (!ok)
		return -EFAULT;
	memcpy(dst, src, len);
	return 0;
}

/*
 * Accepts an options struct of @have bytes from a caller built against a
 * header where it had that size: smaller (older) is fine, larger only when
 * the tail this library does not know is all zero, as libbpf's OPTS_VALID
 * judges. A size above HWP_OPTS_MAX is refused unread: no struct of ours
 * grows that far, so it is a wrong sz, not a newer caller. The tail is
 * copied with hwp_user_read(), so a sz running past the caller's memory
 * is refused, not a crash. 1 for fine, 0 for refused.
 */
int hwp_user_opts_ok(const void *opts, size_t have, size_t know)
{
	const unsigned char *p = opts;
	unsigned char tail[HWP_OPTS_MAX];

	if (have < sizeof(size_t) || have > HWP_OPTS_MAX)
		return 0;
	if (have <= know)
		return 1;
	if (hwp_user_read(tail, p + know, have - know))
		return 0;
	for (size_t i = 0; i < have - know; i++)
		if (tail[i])
			return 0;
	return 1;
}
