/* SPDX-License-Identifier: MIT */
/* Private declarations shared by the files in lib/; never installed. */
#ifndef HWPROF_INTERNAL_H
#define HWPROF_INTERNAL_H

#include "hwprof.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * Accepts an options struct of @have bytes from a caller built against a
 * header where it had that size: smaller (older) is fine, larger only when
 * the tail this library does not know is all zero.
 */
static inline int hwp_opts_ok(const void *opts, size_t have, size_t know)
{
	const unsigned char *p = opts;

	if (have < sizeof(size_t))
		return 0;
	for (size_t i = know; i < have; i++)
		if (p[i])
			return 0;
	return 1;
}

#endif /* HWPROF_INTERNAL_H */
