/* SPDX-License-Identifier: MIT */
/*
 * The public calls on event names (hwprof_event_probe(3),
 * hwprof_preset_info(3)): lib/perf does the work (attr.c opens the event,
 * presets.c holds the presets).
 */
#include "internal.h"

HWPROF_API int hwprof_event_probe(const char *name, char *why, size_t len)
{
	return hwp_attr_probe(name, why, len);
}

HWPROF_API int hwprof_preset_info(unsigned int i, const char **name, unsigned int *code,
				  const char **desc)
{
	return hwp_preset_info(i, name, code, desc);
}
