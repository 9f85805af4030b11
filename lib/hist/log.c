/* SPDX-License-Identifier: MIT */
/*
 * The log callback and its level: where every detail of a failure goes.
 * The callback is the user's code, so it never runs while hwprof holds a
 * lock: a thread that holds one queues its messages (hwp_log_hold()) and
 * sends them when it lets go (hwp_log_release()).
 */
#include <stdarg.h>
#include <stdio.h>

#include "hist.h"

#define QUEUED 8 /* messages kept while a lock is held */

static hwprof_log_fn log_fn;
static void *log_arg;
static int log_level = HWPROF_LOG_WARN;

static __thread struct {
	int hold;
	unsigned int n, dropped;
	struct {
		int level;
		char msg[384];
	} q[QUEUED];
} held;

HWPROF_API void hwprof_set_log(hwprof_log_fn fn, void *arg, int level)
{
	__atomic_store_n(&log_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
	__atomic_store_n(&log_fn, fn, __ATOMIC_RELEASE);
}

static void emit(int level, const char *msg)
{
	hwprof_log_fn fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);

	if (fn)
		fn(level, msg, __atomic_load_n(&log_arg, __ATOMIC_RELAXED));
}

void hwp_log(int level, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	if (!__atomic_load_n(&log_fn, __ATOMIC_ACQUIRE) ||
	    level > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!held.hold) {
		emit(level, msg);
		return;
	}
	if (held.n == QUEUED) {
		held.dropped++;
		return;
	}
	held.q[held.n].level = level;
	snprintf(held.q[held.n].msg, sizeof(held.q[held.n].msg), "%s", msg);
	held.n++;
}

void hwp_log_hold(void)
{
	held.hold++;
}

void hwp_log_release(void)
{
	unsigned int n, dropped;

	if (--held.hold)
		return;
	n = held.n;
	dropped = held.dropped;
	held.n = 0;
	held.dropped = 0;
	for (unsigned int i = 0; i < n; i++)
		emit(held.q[i].level, held.q[i].msg);
	if (dropped) {
		char msg[96];

		snprintf(msg, sizeof(msg), "hwprof: %u more messages like these", dropped);
		emit(HWPROF_LOG_WARN, msg);
	}
}
