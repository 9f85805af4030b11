/* SPDX-License-Identifier: MIT */
/*
 * Lost samples told to the users of the classic and PAPI calls, which
 * have no other channel for them: one stderr line when profiling stops,
 * or at exit for what still runs. Never installed.
 */
#ifndef HWPROF_COMPAT_LOST_H
#define HWPROF_COMPAT_LOST_H

#include <stdint.h>

#include "../engine/internal.h"

/* The samples s lost so far (every event): with any, prints
 * "hwprof: N samples lost (ring full): raise HWPROF_MMAP_PAGES or the
 * period" on stderr. Returns N. */
uint64_t hwp_lost_tell(struct hwprof_session *s);

/* s runs for a classic or PAPI call: told at exit if it still does. */
void hwp_lost_watch(struct hwprof_session *s);
/* s stops: tells its losses now, and not at exit. */
void hwp_lost_unwatch(struct hwprof_session *s);

#endif /* HWPROF_COMPAT_LOST_H */
