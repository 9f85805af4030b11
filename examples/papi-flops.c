/* SPDX-License-Identifier: MIT */
/*
 * Floating-point operations and Mflop/s of a piece of code with PAPI 7's
 * PAPI_flops_rate(PAPI_FP_OPS, ...), the way PAPI's own example of it
 * uses the call: a first call that initialises PAPI and starts counting,
 * the code, a second call that returns the real and processor time, the
 * operations and the rate since the first. Exits 1 with the PAPI code
 * where the machine has no floating-point event (PAPI_ENOEVNT, -7, as on
 * one with no PMU).
 * Build: cc papi-flops.c $(pkg-config --cflags --libs hwprof-papi)
 */
#include <stdio.h>
#include <stdlib.h>

#include <papi.h>

static double work(void)
{
	volatile double x = 1.1;

	for (int i = 1; i < 2000; i++)
		x = (x + 100) / i;
	return x;
}

int main(void)
{
	float rtime, ptime, mflops;
	long long flpops;
	int r;

	r = PAPI_flops_rate(PAPI_FP_OPS, &rtime, &ptime, &flpops, &mflops);
	if (r < PAPI_OK) {
		printf("PAPI_flops_rate cannot start\nretval: %d\n", r);
		exit(1);
	}
	work();
	r = PAPI_flops_rate(PAPI_FP_OPS, &rtime, &ptime, &flpops, &mflops);
	if (r < PAPI_OK) {
		printf("retval: %d\n", r);
		exit(1);
	}
	printf("Real_time: %f Proc_time: %f flpops: %lld MFLOPS: %f\n", rtime, ptime, flpops,
	       mflops);
	exit(0);
}
