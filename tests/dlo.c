/* SPDX-License-Identifier: MIT */
/* A shared object test-session dlopens after sampling has started. */
#include <stddef.h>
#include <stdint.h>

uint64_t dlo_spin(uint64_t n);

__attribute__((noinline)) uint64_t dlo_spin(uint64_t n)
{
	uint64_t x = 88172645463325252ull;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

void dlo_touch(volatile char *p, size_t k, size_t psz);

/* The one store: every page's fault at one pc, however the loop below is
 * unrolled. */
__attribute__((noinline)) static void dlo_store(volatile char *p)
{
	*p = 1;
}

/* One store a page: on fresh pages, one page fault each, in this object. */
__attribute__((noinline)) void dlo_touch(volatile char *p, size_t k, size_t psz)
{
	for (size_t i = 0; i < k; i++)
		dlo_store(p + i * psz);
}
