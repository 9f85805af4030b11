/* SPDX-License-Identifier: MIT */
/* The log callback and its level: where every detail of a failure goes. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static hwprof_log_fn log_fn;
static void *log_arg;
static int log_level = HWPROF_LOG_WARN;

HWPROF_API void hwprof_set_log(hwprof_log_fn fn, void *arg, int level)
{
	__atomic_store_n(&log_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
	__atomic_store_n(&log_fn, fn, __ATOMIC_RELEASE);
}

void hwp_log(int level, const char *fmt, ...)
{
	hwprof_log_fn fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	char msg[512];
	va_list ap;

	if (!fn || level > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(level, msg, __atomic_load_n(&log_arg, __ATOMIC_RELAXED));
}
