/* SPDX-License-Identifier: MIT */
/*
 * One source, built against Debian's real PAPI 7 and against hwprof's
 * <papi.h>: prints the code every call returns, so test-papi-side.sh can
 * compare them. Only perf::TASK-CLOCK is used: real PAPI has it on a
 * machine without a PMU. The late errors (after which PAPI has changed its
 * state: its bug B1) come last, so nothing after them depends on that.
 */
#include <stdio.h>
#include <string.h>

#include <papi.h>

static unsigned short buf[64];

static void f(void)
{
}

#define SAY(what, call) printf("%-28s %d\n", what, (int)(call))

int main(void)
{
	PAPI_sprofil_t p = { buf, sizeof(buf), (vptr_t)f, 0x10000 };
	int es = PAPI_NULL, code = 0, other = 0;

	SAY("library_init(6.0)", PAPI_library_init(0x06000000));
	SAY("library_init", PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT);
	SAY("create_eventset", PAPI_create_eventset(&es));
	SAY("name_to_code(TASK-CLOCK)", PAPI_event_name_to_code("perf::TASK-CLOCK", &code));
	SAY("name_to_code(PAGE-FAULTS)", PAPI_event_name_to_code("perf::PAGE-FAULTS", &other));
	SAY("name_to_code(bogus)", PAPI_event_name_to_code("no::SUCH_EVENT_X", &other));
	SAY("add_event", PAPI_add_event(es, code));
	SAY("sprofil(no set)", PAPI_sprofil(&p, 1, 77, code, 1000000, 0));
	SAY("sprofil(event not in set)", PAPI_sprofil(&p, 1, es, code ^ 1, 1000000, 0));
	p.pr_scale = 1;
	SAY("sprofil(scale 1)", PAPI_sprofil(&p, 1, es, code, 1000000, 0));
	p.pr_scale = 0x10001;
	SAY("sprofil(scale 0x10001)", PAPI_sprofil(&p, 1, es, code, 1000000, 0));
	p.pr_scale = 0x20000;
	SAY("sprofil(threshold -1)", PAPI_sprofil(&p, 1, es, code, -1, 0));
	SAY("sprofil(off, not on)", PAPI_sprofil(&p, 1, es, code, 0, 0));
	SAY("profil", PAPI_profil(buf, sizeof(buf), (vptr_t)f, 0x10000, es, code, 1000000,
				  PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_16));
	SAY("start", PAPI_start(es));
	SAY("start again", PAPI_start(es));
	SAY("profil while running",
	    PAPI_profil(buf, sizeof(buf), (vptr_t)f, 0x10000, es, code, 0, 0));
	SAY("stop", PAPI_stop(es, NULL));
	SAY("stop again", PAPI_stop(es, NULL));
	SAY("profil off", PAPI_profil(buf, sizeof(buf), (vptr_t)f, 0x10000, es, code, 0, 0));
	SAY("num_events", PAPI_num_events(es));
	SAY("num_events(no set)", PAPI_num_events(77));
	for (int e = 0; e >= -27; e--)
		printf("strerror(%d) %s\n", e, PAPI_strerror(e));
	/* the late errors */
	SAY("profil(flags 0x200)",
	    PAPI_profil(buf, sizeof(buf), (vptr_t)f, 0x10000, es, code, 1000000, 0x200));
	SAY("profil(two buckets)",
	    PAPI_profil(buf, sizeof(buf), (vptr_t)f, 0x10000, es, code, 1000000,
			PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32));
	SAY("profil(DATA_EAR)", PAPI_profil(buf, sizeof(buf), (vptr_t)f, 0x10000, es, code,
					    1000000, PAPI_PROFIL_DATA_EAR));
	SAY("profil(RANDOM)", PAPI_profil(buf, sizeof(buf), (vptr_t)f, 0x10000, es, code,
					  1000000, PAPI_PROFIL_RANDOM));
	return 0;
}
