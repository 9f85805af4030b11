/* SPDX-License-Identifier: MIT */
/* hwprof list: the events and PAPI presets, and whether this machine can
 * sample each (probed by opening it), with the reason when it cannot. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hwprof.h>
#include "cli.h"
#include "commands.h"
#include "perf.h"

/* One event: whether this machine can sample it and, when not, why; for
 * hardware events where the encoding came from (events/presets.h row,
 * kernel generic event). probe is the name tried, shown as name. */
static void row_as(const char *name, const char *probe, const char *desc)
{
	char why[512];
	int r = hwp_attr_probe(probe, why, sizeof(why));
	const char *colon = strstr(why, ": ");

	if (r)
		printf("  %-24s %-11s %s -- %s\n", name, "no", desc, colon ? colon + 2 : why);
	else if (!strncmp(why, "ok (", 4))
		printf("  %-24s %-11s %s [%.*s]\n", name, "yes", desc, (int)strlen(why) - 5,
		       why + 4);
	else
		printf("  %-24s %-11s %s\n", name, "yes", desc);
}

static void row(const char *name, const char *desc)
{
	row_as(name, name, desc);
}

int cmd_list(int argc, char **argv)
{
	static const char *const alias[][2] = {
		{ "task-clock", "CPU time of the thread (period in ns)" },
		{ "cpu-clock", "CPU clock (period in ns)" },
		{ "page-faults", "page faults" },
		{ "cycles", "CPU cycles (hardware)" },
		{ "instructions", "instructions retired (hardware)" },
		{ "cache-misses", "last-level cache misses (hardware)" },
		{ "branch-misses", "mispredicted branches (hardware)" },
	};
	const char *name, *desc;
	unsigned int code;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs("usage: hwprof list\n"
		      "  lists the event names and PAPI presets, whether this machine can\n"
		      "  sample each (it opens them to see), and why not when it cannot\n"
		      "  -h, --help   this help\n"
		      "exit status: 0; 1 after one line on stderr; 2 on a usage error (see hwprof(1))\n",
		      stdout);
		return 0;
	}
	if (argc > 1) {
		static const char *const flags[] = { "--help", NULL };

		if (cli_flag_value(argv[1], flags, "list"))
			return 2;
		return usage_error("list takes no arguments (see hwprof list --help)");
	}
	printf("events (any libpfm4 name works too, e.g. perf::CONTEXT-SWITCHES):\n");
	printf("  %-24s %-11s %s\n", "name", "available", "what");
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		row(alias[i][0], alias[i][1]);
	/* a function every hwprof has, to ask whether breakpoints fire */
	row_as("mem:ADDR:x, mem:FUNC:x", "mem:hwprof_session_new:x",
	       "each execution of an instruction (execute breakpoint, exact)");
	printf("\nPAPI presets:\n");
	for (unsigned int i = 0; !hwp_preset_info(i, &name, &code, &desc); i++)
		row(name, desc);
	printf("\nmem:FUNC:x names a function of the recorded program; at most 4 per thread.\n");
	return 0;
}
