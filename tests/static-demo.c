/* SPDX-License-Identifier: MIT */
/* A statically linked program: hwprof record must say how to profile it. */
#include <stdio.h>

int main(void)
{
	puts("static");
	return 0;
}
