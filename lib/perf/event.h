/* SPDX-License-Identifier: MIT */
/*
 * What event.c, attr.c and presets.c share inside lib/perf, and nothing
 * outside it uses: libpfm4's one start (pfm.c), the writer of a reason
 * line, and whether a name is a preset. Private; perf.h is the folder's
 * door.
 */
#ifndef HWPROF_PERF_EVENT_H
#define HWPROF_PERF_EVENT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* libpfm4 initialised, once for the process (pfm.c): 1 ready, else 0. */
int hwp_pfm_ready(void);

/* printf into why (len bytes), nothing when why is NULL. */
static inline __attribute__((format(printf, 3, 4))) void hwp_event_say(char *why, size_t len,
								       const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}
/* 1 when name is a PAPI preset of events/presets.h (presets.c). */
int hwp_preset_known(const char *name);

#endif /* HWPROF_PERF_EVENT_H */
