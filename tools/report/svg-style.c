/* SPDX-License-Identifier: MIT */
/*
 * What every drawing of hwprof report and diff shares (the icicle of
 * svg.c, the flame graphs of flame.c, the --ranks spread of ranks-out.c):
 * a name's colour, the same in each, and names cut to fit as XML text.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "svg-style.h"

uint32_t svg_hue(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % 360;
}

void svg_label(FILE *f, const char *s, int max, const char *more, int more_w)
{
	size_t cps = 0, cut = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xc0) != 0x80) {
			if ((int)cps == max - more_w)
				cut = (size_t)((const char *)p - s);
			cps++;
		}
	if ((int)cps <= max) {
		nm_put(f, s, NM_XML);
		return;
	}
	{
		char *t = strndup(s, cut);

		if (t)
			nm_put(f, t, NM_XML);
		free(t);
		fputs(more, f);
	}
}

void svg_shade(const char *name, int *sat, int *light)
{
	uint32_t h = 2166136261u ^ 0x9e3779b9u;

	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	h ^= h >> 13;
	*sat = 45 + (int)(h % 8) * 6;	       /* 45 .. 87 */
	*light = 50 + (int)((h >> 8) % 9) * 3; /* 50 .. 74 */
}
