/* SPDX-License-Identifier: MIT */
/*
 * A program for hwprof report's tests, built with -g -O0 (every line keeps
 * its line-table rows, with gcc and clang alike): its time is in
 * hot(), on the line marked HOT, partly through mix(), which is inlined
 * (its line is marked MIX). Built twice: -DREBUILT moves hot() (another
 * build-id), as a rebuild after recording would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef REBUILT
__attribute__((noinline)) uint64_t pad(uint64_t x);
__attribute__((noinline)) uint64_t pad(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		x = x * 31 + (uint64_t)i;
	return x;
}
#endif

static inline __attribute__((always_inline)) uint64_t mix(uint64_t x)
{
	return x ^ (x >> 7) ^ (x << 3); /* MIX */
}

__attribute__((noinline)) uint64_t hot(uint64_t n);
__attribute__((noinline)) uint64_t hot(uint64_t n)
{
	uint64_t x = 88172645463325252ull;

	for (uint64_t i = 0; i < n; i++)
		x = mix(x) + i * 0x9e3779b97f4a7c15ull; /* HOT */
	return x;
}

__attribute__((noinline)) uint64_t cold(uint64_t n);
__attribute__((noinline)) uint64_t cold(uint64_t n)
{
	return n * 3;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 300000000ull;

	printf("%llu\n", (unsigned long long)(hot(n) + cold(n)));
	return 0;
}
