/* SPDX-License-Identifier: MIT */
/*
 * Regions of PAPI 7's high-level API with known page faults, for
 * tests/test-papi-hl-json.py (run with PAPI_EVENTS=perf::PAGE-FAULTS).
 * The main thread: "warm-outer" and its "warm-inner"s, then "outer" (14
 * faults) holding two passes of "inner", the first read once (3 faults,
 * then 5 in all), the second 5 faults; then a thread with "worker" (7
 * faults).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "tlib.h"

static struct t_pages tp;

static void must(int r, const char *what)
{
	if (r != PAPI_OK) {
		printf("ERROR: %s: %s\n", what, PAPI_strerror(r));
		exit(99);
	}
}

static void *worker(void *arg)
{
	struct t_pages mine;

	(void)arg;
	if (t_pages_new(&mine, 16))
		exit(99);
	t_prefault_stack();
	must(PAPI_hl_region_begin("worker"), "begin worker");
	t_touch_n(touch_a, &mine, 7);
	must(PAPI_hl_region_end("worker"), "end worker");
	t_pages_free(&mine);
	return NULL;
}

/* "outer" holding two passes of "inner", the first read once. */
static void pass(const char *outer, const char *inner)
{
	must(PAPI_hl_region_begin(outer), "begin outer");
	t_touch_n(touch_a, &tp, 4);
	must(PAPI_hl_region_begin(inner), "begin inner");
	t_touch_n(touch_a, &tp, 3);
	must(PAPI_hl_read(inner), "read inner");
	t_touch_n(touch_a, &tp, 2);
	must(PAPI_hl_region_end(inner), "end inner");
	must(PAPI_hl_region_begin(inner), "begin inner 2");
	t_touch_n(touch_a, &tp, 5);
	if (PAPI_hl_region_end(outer) != PAPI_EINVAL) { /* not the innermost */
		printf("FAIL: ending %s inside %s\n", outer, inner);
		exit(1);
	}
	must(PAPI_hl_region_end(inner), "end inner 2");
	must(PAPI_hl_region_end(outer), "end outer");
}

int main(void)
{
	pthread_t t;

	if (t_pages_new(&tp, 64))
		return 99;
	t_prefault_stack();
	{
		/* the heap's pages faulted in before the regions: the
		 * library's own allocations in them fault no more */
		char *h = malloc(1 << 16);

		if (!h)
			return 99;
		memset(h, 1, 1 << 16);
		free(h);
	}
	/* once to fault in the library's code that the regions run, then
	 * measured */
	pass("warm-outer", "warm-inner");
	pass("outer", "inner");
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 99;
	t_pages_free(&tp);
	return 0; /* the output is written at exit */
}
