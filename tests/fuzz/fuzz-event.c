/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: hwp_event_resolve() (lib/perf/event.c) on arbitrary event
 * names: it must return 0 or a negative errno, never crash, and leave a
 * NUL-terminated reason no longer than the buffer it was given. Only the
 * name is parsed: no perf event is opened.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/engine/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwp_event ev;
	size_t len;
	char *name, *why;
	int ret;

	if (!size)
		return 0;
	len = data[0] % 80; /* the reason buffer, 0 .. 79 bytes */
	name = malloc(size);
	memcpy(name, data + 1, size - 1);
	name[size - 1] = 0;
	why = len ? malloc(len) : NULL;
	if (why)
		memset(why, 'x', len);
	ret = hwp_event_resolve(name, &ev, why, len);
	if (ret > 0 || ret < -4095)
		abort();
	if (why && !memchr(why, 0, len) && ret)
		abort(); /* a reason that is not a string */
	if (!ret && ev.attr.size != sizeof(ev.attr)) {
		/* the kernel would read only attr.size bytes of the attr */
		fprintf(stderr, "%s: attr.size %u, not %zu\n", name, ev.attr.size,
			sizeof(ev.attr));
		abort();
	}
	free(why);
	free(name);
	return 0;
}
