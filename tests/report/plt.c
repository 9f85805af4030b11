/* SPDX-License-Identifier: MIT */
/*
 * A program for hwprof report's tests whose hot loop calls libm's sincos
 * through the PLT: samples in the stub must be named sincos@plt.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 20000000;
	volatile double x = 0.5;
	double s, c, acc = 0;

	for (long i = 0; i < n; i++) {
		sincos(x + (double)i * 1e-9, &s, &c);
		acc += s + c;
	}
	printf("%f\n", acc);
	return 0;
}
