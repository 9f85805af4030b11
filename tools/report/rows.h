/* SPDX-License-Identifier: MIT */
/* The row tables of hwprof report (tools/report/rows.c): the rows of a
 * view, found by their key (a, b). */
#ifndef HWPROF_TOOLS_ROWS_H
#define HWPROF_TOOLS_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "data.h" /* struct hwp_htab (lib/hist/htab.h) */

struct view_row {
	uint64_t a, b;	  /* key */
	uint64_t n;	  /* samples, saturating */
	char *name;	  /* function, object base name, tid or pid; NULL
			   * for an address without symbol: see view_name() */
	uint32_t obj;	  /* object index or HD_NO_OBJECT */
	uint32_t aux;	  /* thread or process index */
	const char *file; /* source file (lines view) */
	int line;
	long parent; /* function row (lines view), or -1 */
	char *top;   /* top function (threads, processes) */
	uint64_t topn;
	uint64_t total; /* functions: samples of paths through it (callpaths.c) */
};

struct rows_table {
	struct view_row *rows;
	size_t n, cap;
	struct hwp_htab index; /* of (a, b); dropped by view_sort() */
};

/* The row of key (a, b) in t, made when new; its
 * index, or -1 (out of memory). */
long rows_get(struct rows_table *t, uint64_t a, uint64_t b);
/* Room for n rows; 0 or -1. */
int rows_reserve(struct rows_table *t, size_t n);
void rows_free(struct rows_table *t);

#endif
