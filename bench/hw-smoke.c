/* SPDX-License-Identifier: MIT */
/*
 * The PAPI half of bench/hw-smoke.sh, a PAPI client built against
 * hwprof's <papi.h>:
 *   hw-smoke work            the workload alone (for perf stat/record)
 *   hw-smoke profil PRESET   PAPI_profil on PRESET over this program's
 *                            text during the workload: prints the add and
 *                            profil results, the native events PAPI_get_
 *                            event_info names, the count and the samples
 * The workload walks 256 MiB a page apart (TLB and cache misses) and runs
 * a branchy loop.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <papi.h>

#define SPAN (256u << 20)

__attribute__((noinline)) static uint64_t work(void)
{
	volatile unsigned char *m = malloc(SPAN);
	uint64_t x = 0;

	if (!m)
		return 0;
	for (int r = 0; r < 8; r++)
		for (size_t i = 0; i < SPAN; i += 4096 + 64)
			x += m[i] += (unsigned char)r;
	for (uint64_t i = 0; i < 50000000; i++)
		x += (i * 2654435761u) >> 31 & 1 ? i : 3;
	free((void *)m);
	return x;
}

extern char __executable_start, etext;

static int profile(const char *name)
{
	/* scale 0x10000: one 2-byte bucket per 2 bytes of text, so the whole
	 * text takes as many bytes of buffer as it has */
	unsigned long span = (unsigned long)(&etext - &__executable_start);
	unsigned int bufsiz = (unsigned int)(span + 16) & ~1u;
	unsigned short *buf = calloc(bufsiz, 1);
	PAPI_event_info_t info;
	int set = PAPI_NULL, code, r, derived = 0;
	long long v = 0, samples = 0;

	if (!buf || PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    PAPI_create_eventset(&set))
		return 2;
	if ((r = PAPI_event_name_to_code(name, &code))) {
		printf("%s: PAPI_event_name_to_code: %s\n", name, PAPI_strerror(r));
		return 1;
	}
	if (!PAPI_get_event_info(code, &info)) {
		derived = strcmp(info.derived, "NOT_DERIVED") != 0;
		printf("%s: %u native event(s), %s:", name, info.count, info.derived);
		for (unsigned int i = 0; i < info.count; i++)
			printf(" %s", info.name[i]);
		printf("\n");
	}
	r = PAPI_add_event(set, code);
	printf("%s: PAPI_add_event: %s\n", name, PAPI_strerror(r));
	if (r)
		return 1;
	r = PAPI_profil(buf, bufsiz, (vptr_t)&__executable_start, 65536, set, code, 100000,
			PAPI_PROFIL_POSIX);
	printf("%s: PAPI_profil: %s%s\n", name, PAPI_strerror(r),
	       r && derived ? " (a derived preset: as PAPI 7)" : "");
	if (PAPI_start(set))
		return 1;
	work();
	if (PAPI_stop(set, &v))
		return 1;
	for (unsigned int i = 0; i < bufsiz / 2; i++)
		samples += buf[i];
	printf("%s: count %lld, samples %lld (threshold 100000)\n", name, v, samples);
	/* a preset one counter samples: profiled, and ten thresholds' worth
	 * of events leave samples in the text */
	if (!derived && (r || (v >= 10 * 100000 && !samples))) {
		printf("%s: %s\n", name, r ? "PAPI_profil failed" : "no sample in the text");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && !strcmp(argv[1], "work"))
		return !work();
	if (argc == 3 && !strcmp(argv[1], "profil"))
		return profile(argv[2]);
	fprintf(stderr, "usage: hw-smoke work | hw-smoke profil PRESET\n");
	return 2;
}
