/* SPDX-License-Identifier: MIT */
/* libpfm4 started once for the process, for event.c's encodings and
 * presets.c's core PMU (lib/perf/event.h). */
#include <pthread.h>
#include <perfmon/pfmlib.h>

#include "event.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init(void)
{
	pfm_status = pfm_initialize();
}

int hwp_pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_status == PFM_SUCCESS;
}
