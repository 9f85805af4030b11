/* SPDX-License-Identifier: MIT */
/* Functions inlined three deep, with a lexical block between, for
 * test-scopes (built -O2 -g: the innermost function of each address is
 * an inlined one). */
#include <stdlib.h>
static inline __attribute__((always_inline)) unsigned c3(unsigned x)
{
	for (int i = 0; i < 3; i++)
		x = x * 2654435761u + (unsigned)i;
	return x;
}
static inline __attribute__((always_inline)) unsigned c2(unsigned x)
{
	x ^= c3(x);
	{
		unsigned y = x >> 3;
		x += c3(y);
	}
	return x;
}
static inline __attribute__((always_inline)) unsigned c1(unsigned x)
{
	return c2(x) + c3(x + 1);
}
static __attribute__((noinline)) unsigned outer(unsigned x)
{
	unsigned s = 0;
	for (unsigned i = 0; i < x; i++)
		s += c1(i);
	return s;
}
int main(int argc, char **argv)
{
	return (int)outer((unsigned)atoi(argc > 1 ? argv[1] : "10")) & 1;
}
