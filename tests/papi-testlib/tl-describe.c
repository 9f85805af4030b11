/* SPDX-License-Identifier: MIT */
/*
 * After PAPI's ctests/describe, all_native_events and cmpinfo: every
 * enumerated event describes itself, converts to its name and back, and
 * the options a test library reads have answers.
 */
#include <stdio.h>
#include <string.h>

#include "papi_tlib.h"

int main(int argc, char **argv)
{
	PAPI_event_info_t info;
	PAPI_option_t opt;
	int code = PAPI_NATIVE_MASK, n = 0, r, back;
	char name[PAPI_MAX_STR_LEN];

	tl_init(argc, argv);
	if (PAPI_num_components() != 1)
		tl_fail(__FILE__, __LINE__, "PAPI_num_components", PAPI_EMISC);
	r = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 0);
	while (r == PAPI_OK) {
		if ((r = PAPI_get_event_info(code, &info)) != PAPI_OK)
			tl_fail(__FILE__, __LINE__, "PAPI_get_event_info", r);
		if ((r = PAPI_event_code_to_name(code, name)) != PAPI_OK ||
		    strcmp(name, info.symbol))
			tl_fail(__FILE__, __LINE__, "PAPI_event_code_to_name", r);
		if ((r = PAPI_event_name_to_code(name, &back)) != PAPI_OK || back != code)
			tl_fail(__FILE__, __LINE__, "PAPI_event_name_to_code", r);
		n++;
		r = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, 0);
	}
	if (!n)
		tl_fail(__FILE__, __LINE__, "no native events", PAPI_ENOEVNT);
	if (PAPI_get_opt(PAPI_DEFDOM, NULL) != PAPI_DOM_USER ||
	    PAPI_get_opt(PAPI_DEFGRN, NULL) != PAPI_GRN_THR)
		tl_fail(__FILE__, __LINE__, "PAPI_get_opt", PAPI_EMISC);
	if ((r = PAPI_get_opt(PAPI_COMPONENTINFO, &opt)) != PAPI_OK ||
	    strcmp(opt.cmp_info->name, "perf_event"))
		tl_fail(__FILE__, __LINE__, "PAPI_COMPONENTINFO", r);
	if (!tl_quiet)
		printf("%d native events\n", n);
	tl_pass(__FILE__);
}
