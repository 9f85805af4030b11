/* SPDX-License-Identifier: MIT */
/*
 * Instructions per cycle of a piece of code with PAPI 7's PAPI_ipc(), the
 * way PAPI's own example of it uses the call: a first call that
 * initialises PAPI and starts counting, the code, a second call that
 * returns the real and processor time, the instructions and the IPC since
 * the first, then PAPI_shutdown(). Exits 1 with the PAPI code where the
 * call fails (PAPI_ENOEVNT, -7, on a machine with no PMU).
 * Build: cc papi-ipc.c $(pkg-config --cflags --libs hwprof-papi)
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
	float rtime, ptime, ipc;
	long long ins;
	int r;

	r = PAPI_ipc(&rtime, &ptime, &ins, &ipc);
	if (r < PAPI_OK) {
		printf("PAPI_ipc cannot start\nretval: %d\n", r);
		exit(1);
	}
	work();
	r = PAPI_ipc(&rtime, &ptime, &ins, &ipc);
	if (r < PAPI_OK) {
		printf("retval: %d\n", r);
		exit(1);
	}
	printf("Real_time: %f Proc_time: %f Instructions: %lld IPC: %f\n", rtime, ptime, ins,
	       ipc);
	PAPI_shutdown();
	exit(0);
}
