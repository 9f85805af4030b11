/* SPDX-License-Identifier: MIT */
/* A library the demo dlopens: hwprof record follows it in. */
#include <stdint.h>

uint64_t lib_loop(uint64_t n);

__attribute__((noinline)) uint64_t lib_loop(uint64_t n)
{
	uint64_t x = 3;

	__asm__ volatile("" ::: "memory");
	for (uint64_t i = 0; i < n; i++)
		x = x * 2862933555777941757ull + 3037000493ull;
	return x;
}
