/* SPDX-License-Identifier: MIT */
/*
 * The one process-wide profiling setup the classic calls share: profil,
 * sprofil, pcsample and monitor each replace whatever ran before (as on
 * Solaris, where profil and pcsample exclude each other). Never installed.
 */
#ifndef HWPROF_COMPAT_CLASSIC_H
#define HWPROF_COMPAT_CLASSIC_H

#include "../engine/internal.h"

enum hwp_classic_kind {
	HWP_CLASSIC_NONE,
	HWP_CLASSIC_PROFIL, /* profil and sprofil */
	HWP_CLASSIC_PCSAMPLE,
	HWP_CLASSIC_MONITOR,
};

/*
 * Stops what runs (its buffers are exact afterwards), then, when h or sink
 * is given, starts sampling the whole process on HWPROF_EVENT every
 * HWPROF_PERIOD into it. The histogram becomes the slot's: it is freed
 * when the slot is replaced. Returns 0 or -errno; on failure nothing runs.
 * The caller holds hwp_classic_lock.
 */
int hwp_classic_replace(enum hwp_classic_kind kind, const struct hwp_env *env,
			struct hwprof_hist *h, hwp_sink_fn sink, void *arg);
enum hwp_classic_kind hwp_classic_kind(void);
/* Enables the calling thread's sampling of what hwp_classic_replace()
 * started: each call's last step, so none of its own work is sampled. */
void hwp_classic_arm(void);

extern pthread_mutex_t hwp_classic_lock;

/* -errno to errno, returning -1, for the calls that report that way. */
static inline int hwp_fail(int err)
{
	errno = -err;
	return -1;
}

#endif /* HWPROF_COMPAT_CLASSIC_H */
