/* SPDX-License-Identifier: MIT */
/*
 * What event.c, attr.c and presets.c share inside lib/perf, and nothing
 * outside it uses: libpfm4's one start, the writer of a reason line, and
 * whether a name is a preset. Private; perf.h is the folder's door.
 */
#ifndef HWPROF_PERF_EVENT_H
#define HWPROF_PERF_EVENT_H

#include <stddef.h>

/* libpfm4 initialised, once for the process (event.c): 1 ready, else 0. */
int hwp_event_pfm_ready(void);
/* printf into why (len bytes), nothing when why is NULL (event.c). */
void hwp_event_say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 1 when name is a PAPI preset of events/presets.h (presets.c). */
int hwp_preset_known(const char *name);

#endif /* HWPROF_PERF_EVENT_H */
