/* SPDX-License-Identifier: MIT */
/*
 * Lost samples, told once: the count is the engine's
 * (hwprof_session_stats(3): records the kernel could not write because a
 * ring was full, and pcs a sink's queue could not hold), the cure the
 * knobs that make rings bigger or samples rarer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lost.h"

#define WATCHED 64 /* running sessions told at exit; more are not */

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static struct hwprof_session *watched[WATCHED];
static int at_exit;

uint64_t hwp_lost_tell(struct hwprof_session *s)
{
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	uint64_t lost = 0;

	for (int i = 0; s; i++) {
		if (hwprof_session_stats(s, i, &st))
			break;
		lost += st.lost;
	}
	if (lost)
		fprintf(stderr,
			"hwprof: %llu samples lost (ring full): "
			"raise HWPROF_MMAP_PAGES or the period\n",
			(unsigned long long)lost);
	/* threads never sampled: their events are in no count at all */
	if (s && st.missed)
		fprintf(stderr, "hwprof: %u threads not covered (%s): %s\n", st.missed,
			strerror(-st.missed_err),
			st.missed_err == -EPERM ? "locked memory is used up: raise ulimit -l, "
						  "or lower HWPROF_MMAP_PAGES" :
						  "raise ulimit -n");
	return lost;
}

/* At exit, for what still runs: the program never stopped it. */
static void tell_all(void)
{
	pthread_mutex_lock(&lk);
	for (int i = 0; i < WATCHED; i++) {
		if (watched[i])
			hwp_lost_tell(watched[i]);
		watched[i] = NULL;
	}
	pthread_mutex_unlock(&lk);
}

void hwp_lost_watch(struct hwprof_session *s)
{
	pthread_mutex_lock(&lk);
	if (!at_exit)
		at_exit = !atexit(tell_all);
	for (int i = 0; i < WATCHED; i++) {
		if (!watched[i]) {
			watched[i] = s;
			break;
		}
	}
	pthread_mutex_unlock(&lk);
}

void hwp_lost_unwatch(struct hwprof_session *s)
{
	int was = 0;

	if (!s)
		return;
	pthread_mutex_lock(&lk);
	for (int i = 0; i < WATCHED; i++) {
		if (watched[i] == s) {
			watched[i] = NULL;
			was = 1;
		}
	}
	pthread_mutex_unlock(&lk);
	if (was)
		hwp_lost_tell(s);
}
