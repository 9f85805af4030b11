/* SPDX-License-Identifier: MIT */
/* The views of hwprof report (tools/report/view.c): the rows of a profile
 * by function, object, line, thread or process, shared by every output. */
#ifndef HWPROF_TOOLS_VIEW_H
#define HWPROF_TOOLS_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "rows.h"
#include "symbols.h"

/* Row keys: (kind | object, value) */
#define VIEW_KEY_FUNC	(1ull << 56) /* value: symbol index */
#define VIEW_KEY_ADDR	(2ull << 56) /* value: address, no symbol */
#define VIEW_KEY_OBJ	(3ull << 56) /* value: object */
#define VIEW_KEY_LINE	(4ull << 56) /* value: file number << 32 | line */
#define VIEW_KEY_THREAD (5ull << 56) /* value: thread index */
#define VIEW_KEY_PROC	(6ull << 56) /* value: process index */

enum view_kind {
	VIEW_FUNCS,
	VIEW_OBJECTS,
	VIEW_LINES,
	VIEW_THREADS,
	VIEW_PROCS,
};

struct view_ctx {
	const struct hd_file *d;
	int event;
	enum view_kind view;
	struct sym_obj *objs; /* one per d->objects */
	size_t nobjs;
	struct rows_table rows;	  /* the view's rows */
	struct rows_table funcs;  /* function rows (not for VIEW_FUNCS) */
	struct rows_table strs;	  /* interned source file names */
	struct rows_table flines; /* lines view: (function, line) rows, parent set */
	int funcs_are_rows;
	int has_totals; /* rows carry inclusive totals (call paths) */
	uint64_t total; /* samples of the event, saturating */
};

/* The function row (functions view, before view_sort) of address addr of
 * object obj, made with no samples when new: its index, or -1. */
long view_func_row(struct view_ctx *c, uint32_t obj, uint64_t addr);
int view_event(const char *arg, const struct hd_file *d, const char *file, int *out);
const char *view_base(const char *path);
char *view_func_name(const char *raw);
int view_ctx_init(struct view_ctx *c, const struct hd_file *d, int event, enum view_kind view);
int view_build(struct view_ctx *c);
int view_sort(struct view_ctx *c, int by_symbol);
/* The symbol of a function row (its name, range and aliases), or NULL
 * for an address no symbol covers. */
const struct sym_func *view_row_sym(const struct view_ctx *c, const struct view_row *r);
/* The row's name; for an address no symbol covers, made in buf. */
const char *view_name(const struct view_row *r, char buf[40]);
void view_ctx_free(struct view_ctx *c);
double view_pct(uint64_t n, uint64_t total);
/*
 * The row of t (function rows of c) that name means, as annotate, diff's
 * --callers and report's --callers and --callees take it, best first:
 * its name as report prints it, raw, or any alias of its symbol
 * (__libc_malloc finds malloc); OBJECT+0xADDR or +0xADDR for an address
 * no symbol covers, OBJECT+0xADDR for the function that holds ADDR; else that name without
 * return type and parameters (with or without template arguments); else any name or alias that
 * holds it (a PLT stub NAME@plt among them). Several rows of one name (in several
 * objects): the most sampled. Several names at the best level: they are
 * listed on stderr with their samples and -2 is returned; -1 when none
 * matches (nothing said). A name that holds it, taken when it is the
 * only one, is said on stderr in one line.
 */
long view_match(const struct view_ctx *c, const struct rows_table *t, const char *name);
/* Text output's width (--width; the terminal's by default, 0: no limit)
 * and name, shortened (nm_shorten()) to fit what is left of it once used
 * columns are taken, at least 24; the full name when there is no limit.
 * The string lives until the fourth call after. */
extern int view_width;
const char *view_fit(const char *name, int used);
/* The width to pad a name column to: want, or less when --width leaves
 * less room once used columns are taken, never under the 24 view_fit()
 * keeps for a name: a row of names so fitted and padded is at most
 * view_width wide unless its other columns and 24 already are. */
int view_pad(int want, int used);
/* The terminal's columns when standard output is one, else 0 (no limit). */
int view_terminal_width(void);
/* The name of "no object" (HD_NO_OBJECT): a pc in anonymous executable
 * memory, such as JIT code, or whose object the recording missed
 * (hwprof(1), report). */
#define VIEW_NO_OBJECT "[anon]"
/* The object's path, or VIEW_NO_OBJECT for HD_NO_OBJECT. */
const char *view_obj_path(const struct view_ctx *c, uint32_t obj);

#endif
