/* SPDX-License-Identifier: MIT */
/*
 * HWPROF_EVENT and HWPROF_PERIOD, which drive profil, sprofil, pcsample
 * and monitor; and the checks of caller pointers those calls make. The
 * only place the library writes to stderr: a bad value is reported there,
 * once, with the reason, because these calls have no other way to say it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;
static char said[512];

/* Prints msg once: the same complaint about the same value is not repeated. */
static void complain(const char *msg)
{
	pthread_mutex_lock(&said_lock);
	if (strcmp(said, msg)) {
		snprintf(said, sizeof(said), "%s", msg);
		fprintf(stderr, "%s\n", msg);
	}
	pthread_mutex_unlock(&said_lock);
}

/*
 * A period: decimal digits (a leading 0 is not octal), or 0x and hex
 * digits; nothing else, no sign, no space. 0, or -EINVAL.
 */
int hwp_parse_period(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
	} else if (!isdigit((unsigned char)*s)) {
		return -EINVAL;
	}
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno || *end || !*v || *v > INT64_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Reads both variables; the event must resolve and be something this
 * thread can sample. Returns 0, or -EINVAL after one line on stderr.
 * Like every HWPROF_* variable they are read with secure_getenv(): a
 * set-user-ID or set-group-ID program sees none (hwprof(7)).
 */
int hwp_env_get(struct hwp_env *env)
{
	const char *ev = secure_getenv("HWPROF_EVENT");
	const char *per = secure_getenv("HWPROF_PERIOD");
	char why[256], msg[512];
	struct hwp_event e;
	int ret;

	memset(env, 0, sizeof(*env));
	snprintf(env->event, sizeof(env->event), "%s", ev && *ev ? ev : "task-clock");
	if (strlen(env->event) >= sizeof(env->event) - 1) {
		complain("hwprof: HWPROF_EVENT: name too long");
		return -EINVAL;
	}
	ret = hwp_event_resolve(env->event, &env->ev, why, sizeof(why));
	if (!ret)
		ret = hwp_event_check(&env->ev, why, sizeof(why));
	if (ret) {
		snprintf(msg, sizeof(msg), "hwprof: HWPROF_EVENT=%s: %s", env->event, why);
		complain(msg);
		return -EINVAL;
	}
	e = env->ev;
	env->clock = e.kind == HWP_EV_CLOCK;
	if (per && *per) {
		if (hwp_parse_period(per, &env->period)) {
			snprintf(msg, sizeof(msg),
				 "hwprof: HWPROF_PERIOD=%s: not a whole number of events (ns for %s) from 1 to 2^63-1, decimal or 0x hex",
				 per, env->event);
			complain(msg);
			return -EINVAL;
		}
	} else if (env->clock) {
		long tck = sysconf(_SC_CLK_TCK);

		/* the clock tick, as glibc's profil samples */
		env->period = 1000000000ull / (uint64_t)(tck > 0 ? tck : 100);
	} else {
		env->period = e.default_period;
	}
	return 0;
}

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

		if (sscanf(line, "%lx-%lx %4s", &a, &b, perm) != 3 ||
		    perm[want] != "rw"[want])
			continue;
		if (w->n && w->r[w->n - 1][1] == a) {	/* adjacent: merge */
			w->r[w->n - 1][1] = b;
			continue;
		}
		if (w->n == cap) {
			uint64_t (*nr)[2] = realloc(w->r, (cap ? 2 * cap : 64) * sizeof(*nr));

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
	while (a < b) {		/* the last mapping starting at or below lo */
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
		return 1;	/* cannot tell: let it be */
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
		return -EFAULT;	/* short: the rest is not mapped */
	if (wmaps_load(&w, 1))
		return -EFAULT;	/* cannot tell: do not touch it */
	ok = wmaps_holds(&w, (uintptr_t)src, len);
	free(w.r);
	if (!ok)
		return -EFAULT;
	memcpy(dst, src, len);
	return 0;
}
