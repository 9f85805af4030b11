/* SPDX-License-Identifier: MIT */
/*
 * After PAPI's ctests/overflow_one_and_read: the overflow handler reads
 * the EventSet it was called for. Every call must succeed, the reads must
 * not go backwards, and PAPI_stop must return (no deadlock).
 */
#include <stdio.h>
#include <unistd.h>

#include "papi_tlib.h"

static int es, calls, bad;
static long long last;

static void handler(int set, void *address, long long vector, void *context)
{
	long long v[2];

	(void)address;
	(void)context;
	calls++;
	if (set != es || !(vector & 1) || PAPI_read(set, v) != PAPI_OK || v[0] < last)
		bad++;
	else
		last = v[0];
}

int main(int argc, char **argv)
{
	int codes[2], r, idx[2], n = 2;
	long long v[2];

	tl_init(argc, argv);
	tl_print_machine();
	es = tl_add_two_events(codes);
	if ((r = PAPI_overflow(es, codes[0], 2000000, 0, handler)) != PAPI_OK)
		tl_fail(__FILE__, __LINE__, "PAPI_overflow", r);
	alarm(60);
	if ((r = PAPI_start(es)) != PAPI_OK)
		tl_fail(__FILE__, __LINE__, "PAPI_start", r);
	tl_spin(200000000);
	if ((r = PAPI_stop(es, v)) != PAPI_OK)
		tl_fail(__FILE__, __LINE__, "PAPI_stop", r);
	if (!tl_quiet)
		printf("%d handler calls, last read %lld, final %lld\n", calls, last, v[0]);
	if (!calls || bad)
		tl_fail(__FILE__, __LINE__, "overflow handler", PAPI_EMISC);
	if ((r = PAPI_get_overflow_event_index(es, 1, idx, &n)) != PAPI_OK || n != 1 ||
	    idx[0] != 0)
		tl_fail(__FILE__, __LINE__, "PAPI_get_overflow_event_index", r);
	tl_pass(__FILE__);
}
