/* SPDX-License-Identifier: MIT */
/* The rows of hwprof report (tools/report/view.c), shared by its output formats. */
#ifndef HWPROF_TOOLS_VIEW_H
#define HWPROF_TOOLS_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "data.h"
#include "outfile.h"
#include "symbols.h"

/* Row keys: (kind | object, value) */
#define VIEW_KEY_FUNC		(1ull << 56)	/* value: symbol index */
#define VIEW_KEY_ADDR		(2ull << 56)	/* value: address, no symbol */
#define VIEW_KEY_OBJ		(3ull << 56)	/* value: object */
#define VIEW_KEY_LINE		(4ull << 56)	/* value: file number << 32 | line */
#define VIEW_KEY_THREAD	(5ull << 56)	/* value: thread index */
#define VIEW_KEY_PROC		(6ull << 56)	/* value: process index */

struct view_row {
	uint64_t a, b;		/* key */
	uint64_t n;		/* samples, saturating */
	char *name;		/* function, object base name, tid or pid; NULL
				 * for an address without symbol: see view_name() */
	uint32_t obj;		/* object index or HD_NO_OBJECT */
	uint32_t aux;		/* thread or process index */
	const char *file;	/* source file (lines view) */
	int line;
	long parent;		/* function row (lines view), or -1 */
	char *top;		/* top function (threads, processes) */
	uint64_t topn;
	uint64_t total;		/* functions: samples of paths through it (paths.c) */
};

struct rows_table {
	struct view_row *rows;
	size_t n, cap;
	struct hwp_htab index;	/* of (a, b); dropped by view_sort() */
};

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
	struct sym_obj *objs;	/* one per d->objects */
	size_t nobjs;
	struct rows_table rows;	/* the view's rows */
	struct rows_table funcs;	/* function rows (not for VIEW_FUNCS) */
	struct rows_table strs;	/* interned source file names */
	struct rows_table flines;	/* lines view: (function, line) rows, parent set */
	int funcs_are_rows;
	int has_totals;		/* rows carry inclusive totals (call paths) */
	uint64_t total;		/* samples of the event, saturating */
};

/* tools/report/rows.c: the row of key (a, b) in t, made when new; its
 * index, or -1 (out of memory). */
long rows_get(struct rows_table *t, uint64_t a, uint64_t b);
/* Room for n rows; 0 or -1. */
int rows_reserve(struct rows_table *t, size_t n);
void rows_free(struct rows_table *t);
/* The data files of the command line: files as given, each directory
 * replaced by its regular files named *.data, sorted by name; a file met
 * again (same device and inode: given twice, or also in a directory
 * given) is kept once, with one line on stderr. 0, or 1 after one line
 * on stderr. */
struct merge_input_key {
	dev_t dev;
	ino_t ino;
	int known;		/* stat() succeeded */
};
struct merge_inputs {
	char **files;
	struct merge_input_key *keys;	/* one per file */
	size_t n, cap;
};
int merge_inputs(struct merge_inputs *in, char **args, size_t nargs);
void merge_inputs_free(struct merge_inputs *in);
/* Reads one file, or merges several after checking that they profile one
 * program with one event set and world size and hold no rank twice, and
 * that none is a job file; need_ranks: every process must have an MPI
 * rank. 0, or 1 after one line on stderr. */
int merge_read(struct hd_file *d, char **files, size_t nfiles, int need_ranks);
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
 * no symbol covers, OBJECT+0xADDR for the function that holds ADDR; else that name without return type and parameters
 * (with or without template arguments); else any name or alias that
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
/* The terminal's columns when standard output is one, else 0 (no limit). */
int view_terminal_width(void);
/* The name of "no object" (HD_NO_OBJECT): a pc in anonymous executable
 * memory, such as JIT code, or whose object the recording missed
 * (hwprof(1), report). */
#define VIEW_NO_OBJECT	"[anon]"
/* The object's path, or VIEW_NO_OBJECT for HD_NO_OBJECT. */
const char *view_obj_path(const struct view_ctx *c, uint32_t obj);

/* tools/report/svg.c: the hue (0-359) a name is drawn in, the same in
 * every drawing. */
uint32_t svg_hue(const char *s);
/* tools/report/svg.c: at most max characters (UTF-8 code points) of s as
 * XML text, cut to leave room for more (more_w characters wide) when it
 * does not fit. */
void svg_label(FILE *f, const char *s, int max, const char *more, int more_w);
/* tools/report/svg.c: the icicle of c (function or lines view) into out. */
int svg_write(const char *out, struct view_ctx *c, char **inputs, size_t ninputs);
/* An output file of an option (--svg, --stats): written to a temp file
 * beside it, renamed over it by out_close() (lib/profile/outfile.h). */
struct out_file {
	FILE *f;
	const char *opt, *name;
	struct hwp_out o;
};
/* Opens out for writing (of->f): 0, or 1 after one line on stderr when
 * out is one of the inputs, something other than a regular file (a
 * symbolic link, a FIFO, a device) is there, or no file can be made
 * beside it. */
int out_open(struct out_file *of, const char *opt, const char *out, char **inputs,
	     size_t ninputs);
/* 1 (after one line on stderr) when out is one of the inputs, or
 * something other than a regular file is there, or its directory cannot
 * be opened; else 0. Called before the work, out_open() checks again. */
int out_check(const char *opt, const char *out, char **inputs, size_t ninputs);
/* Flushes and closes of->f and puts the file in place: 0, or 1 after one
 * line (the old file, if any, is then left as it was). */
int out_close(struct out_file *of);
/* Closes of->f and drops what was written. */
void out_drop(struct out_file *of);

/* tools/report/report.c: the text header (command, events, warnings) and the
 * warnings of the reported event (to stderr when f is stderr, else into
 * the output: text lines after prefix, or JSON strings). */
void report_text_header(const struct view_ctx *c);
void report_warnings(FILE *f, const char *prefix, const struct hd_file *d, int event, int json);
/* The same; names 0 leaves out those found when naming objects now
 * (sym_warnings: hwprof diff prints them once for both sides). */
void report_warnings_of(FILE *f, const char *prefix, const struct hd_file *d, int event,
			int json, int names);
/* The processes of d whose end was not seen (HD_UNSEEN). */
size_t report_unseen(const struct hd_file *d);

/* tools/report/ranks.c: hwprof report --ranks (sort: samples, imbalance or
 * symbol; fmt: text, csv or json; svg: NULL or the SVG's path; stats:
 * NULL or the CSV file of the per-rank totals; outliers: --outliers;
 * callers: --callers FUNC, or NULL). c is
 * a built functions view, not sorted. 0, or 1 after one line on stderr. */
int rk_report(struct view_ctx *c, const char *sort, const char *fmt, const char *svg,
	      const char *stats, int outliers, const char *callers, char **inputs,
	      size_t ninputs);

#endif
