/* SPDX-License-Identifier: MIT */
/* The rows of hwprof report (tools/report/view.c), shared by its output formats. */
#ifndef HWPROF_TOOLS_VIEW_H
#define HWPROF_TOOLS_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "data.h"
#include "symbols.h"

/* Row keys: (kind | object, value) */
#define RV_FUNC		(1ull << 56)	/* value: symbol index */
#define RV_ADDR		(2ull << 56)	/* value: address, no symbol */
#define RV_OBJ		(3ull << 56)	/* value: object */
#define RV_LINE		(4ull << 56)	/* value: file number << 32 | line */
#define RV_THREAD	(5ull << 56)	/* value: thread index */
#define RV_PROC		(6ull << 56)	/* value: process index */

struct rv_row {
	uint64_t a, b;		/* key */
	uint64_t n;		/* samples, saturating */
	char *name;		/* function, object base name, tid or pid; NULL
				 * for an address without symbol: see rv_name() */
	uint32_t obj;		/* object index or HD_NO_OBJECT */
	uint32_t aux;		/* thread or process index */
	const char *file;	/* source file (lines view) */
	int line;
	long parent;		/* function row (lines view), or -1 */
	char *top;		/* top function (threads, processes) */
	uint64_t topn;
};

struct rv_table {
	struct rv_row *rows;
	size_t n, cap;
	size_t *slot;
	size_t nslot;
};

enum rv_view {
	RV_VIEW_FUNCS,
	RV_VIEW_OBJECTS,
	RV_VIEW_LINES,
	RV_VIEW_THREADS,
	RV_VIEW_PROCS,
};

struct rv_ctx {
	const struct hd_file *d;
	int event;
	enum rv_view view;
	struct rp_obj *objs;	/* one per d->objects */
	size_t nobjs;
	struct rv_table rows;	/* the view's rows */
	struct rv_table funcs;	/* function rows (not for RV_VIEW_FUNCS) */
	struct rv_table strs;	/* interned source file names */
	struct rv_table flines;	/* lines view: (function, line) rows, parent set */
	int funcs_are_rows;
	uint64_t total;		/* samples of the event, saturating */
};

/* tools/report/rows.c: the row of key (a, b) in t, made when new; its
 * index, or -1 (out of memory). */
long rv_row(struct rv_table *t, uint64_t a, uint64_t b);
/* Room for n rows; 0 or -1. */
int rv_reserve(struct rv_table *t, size_t n);
void rv_free(struct rv_table *t);
/* The data files of the command line: files as given, each directory
 * replaced by its regular files named *.data, sorted by name; a file met
 * again (same device and inode: given twice, or also in a directory
 * given) is kept once, with one line on stderr. 0, or 1 after one line
 * on stderr. */
struct rv_input_key {
	dev_t dev;
	ino_t ino;
	int known;		/* stat() succeeded */
};
struct rv_inputs {
	char **files;
	struct rv_input_key *keys;	/* one per file */
	size_t n, cap;
};
int rv_inputs(struct rv_inputs *in, char **args, size_t nargs);
void rv_inputs_free(struct rv_inputs *in);
/* Reads one file, or merges several after checking that they profile one
 * program with one event set and world size and hold no rank twice, and
 * that none is a job file; need_ranks: every process must have an MPI
 * rank. 0, or 1 after one line on stderr. */
int rv_read(struct hd_file *d, char **files, size_t nfiles, int need_ranks);
/* The function row (functions view, before rv_sort) of address addr of
 * object obj, made with no samples when new: its index, or -1. */
long rv_func_row(struct rv_ctx *c, uint32_t obj, uint64_t addr);
int rv_event(const char *arg, const struct hd_file *d, const char *file, int *out);
const char *rv_base(const char *path);
char *rv_func_name(const char *raw);
int rv_ctx_init(struct rv_ctx *c, const struct hd_file *d, int event, enum rv_view view);
int rv_build(struct rv_ctx *c);
int rv_sort(struct rv_ctx *c, int by_symbol);
/* The row's name; for an address no symbol covers, made in buf. */
const char *rv_name(const struct rv_row *r, char buf[40]);
void rv_ctx_free(struct rv_ctx *c);
uint32_t rv_intern(struct rv_ctx *c, const char *s);
double rv_pct(uint64_t n, uint64_t total);
/* The object's path, or "[unknown]" for HD_NO_OBJECT. */
const char *rv_obj_path(const struct rv_ctx *c, uint32_t obj);

/* tools/report/svg.c: the icicle of c (function or lines view) into out. */
int rv_svg(const char *out, struct rv_ctx *c, char **inputs, size_t ninputs);
/* Opens out for writing, never blocking; NULL after one line on stderr
 * (also when out is one of the inputs). */
FILE *rv_svg_open(const char *out, char **inputs, size_t ninputs);
/* 1 (after one line on stderr) when out is one of the inputs, else 0. */
int rv_svg_check(const char *out, char **inputs, size_t ninputs);

/* tools/report/report.c: the text header (command, events, warnings) and the
 * warnings of the reported event (to stderr when f is stderr, else into
 * the output: text lines after prefix, or JSON strings). */
void rv_text_header(const struct rv_ctx *c);
void rv_warnings(FILE *f, const char *prefix, const struct hd_file *d, int event, int json);

/* tools/report/ranks.c: hwprof report --ranks (sort: samples, imbalance or
 * symbol; fmt: text, csv or json; svg: NULL or the SVG's path). c is a
 * built functions view, not sorted. 0, or 1 after one line on stderr. */
int rk_report(struct rv_ctx *c, const char *sort, const char *fmt, const char *svg,
	      char **inputs, size_t ninputs);

#endif
