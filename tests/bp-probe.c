/* SPDX-License-Identifier: MIT */
/*
 * For the shell tests, the raw probes of tlib.c (no hwprof involved):
 *   bp-probe              execute breakpoints fire (HWPROF_TEST_BP_BROKEN=1
 *                         forces the answer no)
 *   bp-probe page-faults  page faults can be sampled, at the store
 * Exit 0 yes, 77 no with the reason on stdout, 99 on an error that says
 * nothing about the machine.
 */
#include <stdio.h>
#include <string.h>

#include "tlib.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "page-faults"))
		return t_require_pf();
	return t_require_bp();
}
