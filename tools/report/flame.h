/* SPDX-License-Identifier: MIT */
/* hwprof report --svg of a file with call paths (tools/report/flame.c). */
#ifndef HWPROF_TOOLS_FLAME_H
#define HWPROF_TOOLS_FLAME_H

#include <stdio.h>

#include "view.h"

/* The flame graph of c's event (which has call paths) into f. 0, or -1
 * when out of memory. */
int flame_write(FILE *f, struct view_ctx *c);
/* The same, coloured by the change from base's samples (scaled by k) on
 * the same call paths: hwprof diff --svg. */
int flame_write_diff(FILE *f, struct view_ctx *c, struct view_ctx *base, double k);

#endif
