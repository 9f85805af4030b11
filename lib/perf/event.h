/* SPDX-License-Identifier: MIT */
/*
 * What event.c, attr.c and presets.c share inside lib/perf, and nothing
 * outside it uses: libpfm4's one start (pfm.c), the writer of a reason
 * line (say.h), and whether a name is a preset. Private; perf.h is the folder's
 * door.
 */
#ifndef HWPROF_PERF_EVENT_H
#define HWPROF_PERF_EVENT_H

#include <stddef.h>

#include "say.h"

/* libpfm4 initialised, once for the process (pfm.c): 1 ready, else 0. */
int hwp_pfm_ready(void);

/* 1 when name is a PAPI preset of events/presets.h (presets.c). */
int hwp_preset_known(const char *name);

#endif /* HWPROF_PERF_EVENT_H */
