/* SPDX-License-Identifier: MIT */
/* The colours and labels every drawing shares (tools/report/svg-style.c). */
#ifndef HWPROF_TOOLS_SVG_STYLE_H
#define HWPROF_TOOLS_SVG_STYLE_H

#include <stdint.h>
#include <stdio.h>

/* The hue (0-359) a name is drawn in, the same in every drawing. */
uint32_t svg_hue(const char *s);
/* At most max characters (UTF-8 code points) of s as XML text, cut to
 * leave room for more (more_w characters wide) when it does not fit. */
void svg_label(FILE *f, const char *s, int max, const char *more, int more_w);
/* A saturation and lightness for a function's box, from a hash of its
 * name: functions of one object (one hue) told apart. */
void svg_shade(const char *name, int *sat, int *light);

#endif
