/* SPDX-License-Identifier: MIT */
/* The one-line reasons lib/perf writes into a caller's why buffer. */
#ifndef HWPROF_PERF_SAY_H
#define HWPROF_PERF_SAY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* printf into why (len bytes), nothing when why is NULL. */
static inline __attribute__((format(printf, 3, 4))) void hwp_say(char *why, size_t len,
								 const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

#endif /* HWPROF_PERF_SAY_H */
