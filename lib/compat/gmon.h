/* SPDX-License-Identifier: MIT */
/* The gmon.out writer monitor uses. Never installed. */
#ifndef HWPROF_COMPAT_GMON_H
#define HWPROF_COMPAT_GMON_H

#include "../engine/internal.h"

struct hwp_gmon_range {
	uint64_t lo; /* run-time address of bin 0 */
	size_t nbins;
	const uint32_t *counts;
};

/* The main program's executable text and load bias. */
int hwp_gmon_main_text(uint64_t *lo, uint64_t *hi, uint64_t *bias);

/* Writes path (a new file renamed over the name: lib/profile/outfile.h); ranges
 * outside the main program are left out (gprof reads only its symbols).
 * *written: how many ranges went in. 0 or -errno, or HWP_GMON_NOTREG when
 * path names something other than a regular file (a FIFO, a device),
 * which is left as it is. A symbolic link is not followed (-ELOOP); in a
 * set-user-ID program an existing file is not replaced (-EEXIST). */
#define HWP_GMON_NOTREG 1
int hwp_gmon_write(const char *path, const struct hwp_gmon_range *r, size_t nr,
		   uint32_t bytes_per_bin, const struct hwp_env *env, size_t *written);

#endif /* HWPROF_COMPAT_GMON_H */
