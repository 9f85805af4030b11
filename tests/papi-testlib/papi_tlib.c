/* SPDX-License-Identifier: MIT */
/* The PAPI-style test library (papi_tlib.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi_tlib.h"

int tl_quiet;

void tl_init(int argc, char **argv)
{
	int r;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "TESTS_QUIET") || !strcmp(argv[i], "-q"))
			tl_quiet = 1;
	r = PAPI_library_init(PAPI_VER_CURRENT);
	if (r != PAPI_VER_CURRENT)
		tl_fail(__FILE__, __LINE__, "PAPI_library_init", r);
}

void tl_pass(const char *name)
{
	printf("%-40s PASSED\n", name);
	PAPI_shutdown();
	exit(0);
}

void tl_fail(const char *file, int line, const char *call, int ret)
{
	const char *s = PAPI_strerror(ret);

	printf("%s:%d: %s failed: %d (%s)\nFAILED\n", file, line, call, ret, s ? s : "?");
	exit(1);
}

void tl_skip(const char *file, int line, const char *why)
{
	printf("SKIP: %s:%d: %s\n", file, line, why);
	exit(77);
}

static int role(int preset, const char *fallback)
{
	int code;

	if (PAPI_query_event(preset) == PAPI_OK)
		return preset;
	if (PAPI_event_name_to_code(fallback, &code) != PAPI_OK ||
	    PAPI_query_event(code) != PAPI_OK)
		tl_skip(__FILE__, __LINE__,
			"neither the preset nor its software stand-in counts");
	return code;
}

int tl_cycles(void)
{
	return role(PAPI_TOT_CYC, "perf::TASK-CLOCK");
}

int tl_instructions(void)
{
	return role(PAPI_TOT_INS, "perf::CPU-CLOCK");
}

int tl_add_two_events(int codes[2])
{
	int es = PAPI_NULL, r;

	codes[0] = tl_cycles();
	codes[1] = tl_instructions();
	if ((r = PAPI_create_eventset(&es)) != PAPI_OK)
		tl_fail(__FILE__, __LINE__, "PAPI_create_eventset", r);
	if ((r = PAPI_add_events(es, codes, 2)) != PAPI_OK)
		tl_fail(__FILE__, __LINE__, "PAPI_add_events", r);
	return es;
}

void tl_print_machine(void)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	const PAPI_component_info_t *c = PAPI_get_component_info(0);

	if (!hw || !c)
		tl_fail(__FILE__, __LINE__, "PAPI_get_hardware_info", PAPI_EMISC);
	if (tl_quiet)
		return;
	printf("PAPI version: %d.%d.%d.%d\n", PAPI_VERSION_MAJOR(PAPI_VERSION),
	       PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
	       PAPI_VERSION_INCREMENT(PAPI_VERSION));
	printf("Vendor string and code: %s (%d)\n", hw->vendor_string, hw->vendor);
	printf("Model string and code: %s (%d)\n", hw->model_string, hw->model);
	printf("CPU max MHz: %d\n", hw->cpu_max_mhz);
	printf("Sockets x cores x threads: %d x %d x %d = %d\n", hw->sockets, hw->cores,
	       hw->threads, hw->totalcpus);
	printf("Component %s: %d counters, %d multiplexed\n", c->name, c->num_cntrs,
	       c->num_mpx_cntrs);
}

long long tl_spin(long long n)
{
	volatile long long x = 0;

	for (long long i = 0; i < n; i++)
		x += i ^ (x >> 3);
	return x;
}
