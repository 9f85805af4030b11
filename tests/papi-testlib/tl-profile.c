/* SPDX-License-Identifier: MIT */
/*
 * After PAPI's ctests/profile: PAPI_profil over the program's text with
 * the cycles role, kernel and FORCE_SW; the hot loop gets samples and a
 * 16-bit buffer holds about one per threshold, never the counter's value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi_tlib.h"

int main(int argc, char **argv)
{
	const int modes[] = { PAPI_PROFIL_POSIX, PAPI_PROFIL_POSIX | PAPI_PROFIL_FORCE_SW };
	const PAPI_exe_info_t *exe;
	unsigned short *buf;
	unsigned long len;
	int codes[2], es, r;

	tl_init(argc, argv);
	exe = PAPI_get_executable_info();
	if (!exe)
		tl_fail(__FILE__, __LINE__, "PAPI_get_executable_info", PAPI_EMISC);
	len = (unsigned long)((char *)exe->address_info.text_end -
			      (char *)exe->address_info.text_start);
	buf = calloc(1, len);
	es = tl_add_two_events(codes);
	for (int m = 0; m < 2; m++) {
		unsigned long long sum = 0;
		long long v[2];

		memset(buf, 0, len);
		r = PAPI_profil(buf, (unsigned)len, exe->address_info.text_start, 65536, es,
				codes[0], 1000000, modes[m] | PAPI_PROFIL_BUCKET_16);
		if (r != PAPI_OK)
			tl_fail(__FILE__, __LINE__, "PAPI_profil", r);
		if ((r = PAPI_start(es)) != PAPI_OK)
			tl_fail(__FILE__, __LINE__, "PAPI_start", r);
		tl_spin(150000000);
		if ((r = PAPI_stop(es, v)) != PAPI_OK)
			tl_fail(__FILE__, __LINE__, "PAPI_stop", r);
		for (unsigned long i = 0; i < len / 2; i++)
			sum += buf[i];
		if (!tl_quiet)
			printf("flags %#x: %llu samples, count %lld\n", modes[m], sum, v[0]);
		/* one per threshold: never more than count/threshold + slack */
		if (sum == 0 || sum > (unsigned long long)(v[0] / 1000000) + 2)
			tl_fail(__FILE__, __LINE__, "samples", PAPI_EMISC);
		r = PAPI_profil(buf, (unsigned)len, exe->address_info.text_start, 65536, es,
				codes[0], 0, modes[m]);
		if (r != PAPI_OK)
			tl_fail(__FILE__, __LINE__, "PAPI_profil off", r);
	}
	free(buf);
	tl_pass(__FILE__);
}
