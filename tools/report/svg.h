/* SPDX-License-Identifier: MIT */
/* hwprof report --svg (tools/report/svg.c): the icicle, or for a file
 * with call paths the flame graph (flame.c). */
#ifndef HWPROF_TOOLS_SVG_H
#define HWPROF_TOOLS_SVG_H

#include <stddef.h>

#include "view.h"

/* The icicle of c (function or lines view) into out, the flame graph
 * when c's event has call paths: 0, or 1 after one line on stderr. */
int svg_write(const char *out, struct view_ctx *c, char **inputs, size_t ninputs);

#endif
