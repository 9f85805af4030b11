/* SPDX-License-Identifier: MIT */
/* hwprof report --format pprof (tools/report/pprof.c). */
#ifndef HWPROF_TOOLS_PPROF_H
#define HWPROF_TOOLS_PPROF_H

#include <stdio.h>

#include "view.h"

/* The file of c (built, any view) as gzip-compressed profile.proto into
 * f: 0, or 1 after one line on stderr. */
int pprof_write(struct view_ctx *c, FILE *f);

#endif
