/* SPDX-License-Identifier: MIT */
/* hwprof report's call-path views (tools/report/callpaths.c). */
#ifndef HWPROF_TOOLS_CALLPATHS_H
#define HWPROF_TOOLS_CALLPATHS_H

#include "view.h"

struct cp {
	struct view_ctx *c;
	long *fn;	  /* per node: its function row as a leaf [2i] and as
			   * a caller [2i+1], found when first asked */
	uint32_t *frames; /* the path being read: its nodes, innermost first */
	long *fns;	  /* and their function rows */
	size_t cap;
};

/* For a built view c (functions, or any view: its function table). */
int cp_init(struct cp *p, struct view_ctx *c);
void cp_free(struct cp *p);
/* The function rows of path h into p->fns, innermost first: their
 * number, or -1 (out of memory). */
long cp_path(struct cp *p, const struct hd_path *h);
/* Every function's inclusive samples (paths through it, once each) into
 * its row's total, before the view is sorted. 0 or -1. */
int cp_totals(struct cp *p);
/* The function row named name (exact, else a unique substring); -1 after
 * saying on stderr that none or several match (listing them). */
long cp_find(struct cp *p, const char *name);
/* Which (event, thread) have call paths: a flag per event and thread,
 * the last thread slot standing for a job file's (HD_NO_THREAD); NULL
 * when out of memory. A flat sample of an (event, thread) without paths
 * (a merged file recorded without -g) is counted as its own frame alone
 * by every call-path view. */
char *cp_covered(const struct hd_file *d);
int cp_flat_sample(const struct hd_file *d, const char *covered, const struct hd_sample *s);
/* The samples whose path ends short of a thread's entry (_start, clone,
 * start_thread...: its outermost frame is another function) into *n,
 * saturated at UINT64_MAX: 0, or -1 when out of memory. */
int cp_short(struct cp *p, uint64_t *n);
/* --callers / --callees name as text or JSON, their shares of the
 * function's total; once: each path counted once (at the function's
 * outermost frame for callers, innermost for callees), so the shares sum
 * to 100%. 0, or 1 after one line on stderr. */
int cp_neighbours(struct cp *p, const char *name, int callers, int once, int json);
/* The calling-context tree of functions: top-down from the outermost
 * frames, or bottom-up from the innermost. Children are contiguous in
 * kids, most samples first; the roots come first. */
struct cp_tnode {
	long parent, fn;      /* node index (-1: a root), function row */
	uint64_t total, self; /* samples in it and below; in it (top-down) */
	size_t first, nkids;  /* its children: kids[first .. first + nkids) */
};

struct cp_tree {
	struct cp_tnode *n;
	size_t nn;
	size_t *kids;  /* node indexes sorted by parent, then total */
	size_t nroots; /* kids[0 .. nroots) */
	uint64_t all;  /* samples with a path */
};

int cp_tree_build(struct cp *p, int bottom_up, struct cp_tree *tr);
void cp_tree_free(struct cp_tree *tr);
/* --tree top-down or bottom-up, leaving out nodes under min_pct. */
int cp_tree(struct cp *p, int bottom_up, double min_pct);
/* --format folded: FlameGraph's collapsed stacks (the innermost frame
 * alone for a flat profile); comm: the command first (cp_comm()). */
int cp_folded(struct cp *p, int comm);
/* A thread's command as perf names a sample's: the kernel's name of the
 * thread, else the basename of its process's first word, else
 * "[unknown]" (a job file's samples). Valid until the next call. */
const char *cp_comm(const struct hd_file *d, uint32_t thread);

#endif
