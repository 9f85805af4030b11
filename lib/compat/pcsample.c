/* SPDX-License-Identifier: MIT */
/*
 * Solaris pcsample: the user pc of every sample of the driving event, in
 * order, into the caller's array until it is full.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/pcsample.h"
#include "classic.h"

static struct {
	uintptr_t *buf;
	long cap;
	long n; /* stored so far in this run */
} dest;		/* the caller's array being filled */

struct store {
	const uint64_t *ips;
	size_t k;
};

static void store(void *arg)
{
	const struct store *a = arg;

	for (size_t i = 0; i < a->k; i++)
		dest.buf[dest.n + (long)i] = (uintptr_t)a->ips[i];
}

static int owns(const void *ctx, uintptr_t addr)
{
	(void)ctx;
	return addr >= (uintptr_t)dest.buf &&
	       addr - (uintptr_t)dest.buf < (size_t)dest.cap * sizeof(*dest.buf);
}

/* Called by the engine with no lock held, in sample order per thread. An
 * array the program unmapped or made read-only since turns the run off:
 * one line on stderr, and it counts as full (hwp_guard_run()). */
static size_t take(void *arg, const uint64_t *ips, size_t n)
{
	size_t room = (size_t)(dest.cap - dest.n), k = n < room ? n : room;
	struct store a = { .ips = ips, .k = k };
	uintptr_t at = 0;
	char what[96];

	(void)arg;
	if (!k)
		return 0;
	if (!hwp_guard_write(store, &a, owns, NULL, dest.buf + dest.n, k * sizeof(*dest.buf),
			     &at)) {
		dest.n += (long)k;
		return k; /* the rest find the array full: counted, not kept */
	}
	snprintf(what, sizeof(what), "array %p (%ld samples)", (void *)dest.buf, dest.cap);
	hwp_guard_say("pcsample", what, at, 0);
	dest.cap = dest.n;
	return 0;
}

HWPROF_API long pcsample(uintptr_t samples[], long nsamples)
{
	struct hwp_env env;
	long prev;
	int ret;

	if (nsamples < 0)
		return hwp_fail(-EINVAL);
	/* an array that would pass the end of the address space is not
	 * there: checked before the multiplication can wrap */
	if ((unsigned long)nsamples > SIZE_MAX / sizeof(*samples) ||
	    (nsamples && !hwp_user_writable(samples, (size_t)nsamples * sizeof(*samples))))
		return hwp_fail(-EFAULT);
	pthread_mutex_lock(&hwp_classic_lock);
	/* stopping drains the last samples into the previous array */
	if (hwp_classic_kind() == HWP_CLASSIC_PCSAMPLE)
		hwp_classic_replace(HWP_CLASSIC_NONE, NULL, NULL, NULL, NULL);
	prev = dest.n;
	memset(&dest, 0, sizeof(dest));
	if (!nsamples) {
		pthread_mutex_unlock(&hwp_classic_lock);
		return prev;
	}
	ret = hwp_env_get(&env);
	if (!ret) {
		dest.buf = samples;
		dest.cap = nsamples;
		ret = hwp_classic_replace(HWP_CLASSIC_PCSAMPLE, &env, NULL, take, NULL);
		if (ret && ret != -ENOMEM)
			ret = -EINVAL;
	}
	if (ret)
		memset(&dest, 0, sizeof(dest));
	else
		hwp_classic_arm();
	pthread_mutex_unlock(&hwp_classic_lock);
	return ret ? hwp_fail(ret) : prev;
}
