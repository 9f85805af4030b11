/* SPDX-License-Identifier: MIT */
/* Saturating arithmetic, for every count hwprof adds up: the engine, the
 * profile library, the command and libhwprof-mpi include it. */
#ifndef HWPROF_SAT_H
#define HWPROF_SAT_H

#include <stdint.h>

/* a + b, saturating at UINT64_MAX instead of wrapping */
static inline uint64_t hwp_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif /* HWPROF_SAT_H */
