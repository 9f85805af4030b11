/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --svg: the profile as an icicle (a file with call paths:
 * a flame graph, tools/report/flame.c), the whole run on top, then
 * its objects, their functions and (with --lines) their source lines, each
 * as wide as its share of the samples. Boxes under a pixel are one grey
 * "(N more)" box per parent, or left out where even that is under a pixel;
 * a function's box has a shade of its object's hue of its own. Names that
 * do not fit are cut with an ellipsis; hovering any box shows its full
 * name and counts (<title>).
 * Plain SVG 1.1, no script: any browser shows it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "flame.h"
#include "out.h"
#include "svg-style.h"
#include "svg.h"
#include "view.h"

#define W      1200.0 /* drawing width */
#define MARGIN 10.0
#define ROW    24.0 /* height of one level */
#define CHARW  7.3  /* a character of the 12px monospace font */
#define MINPX  1.0  /* narrower boxes merged (hwprof(1), --svg) */

struct box {
	double x, w;
};

/* At most max characters, an ellipsis (U+2026) when cut. */
static void label(FILE *f, const char *s, int max)
{
	svg_label(f, s, max, "\xe2\x80\xa6", 1);
}

static void draw_fill(FILE *f, double x, double w, int level, const char *name,
		      const char *what, uint64_t n, uint64_t total, const char *fill)
{
	double y = 50 + level * ROW;
	int fit = (int)((w - 6) / CHARW);

	fprintf(f, "<g class=\"l%d\"><title>", level);
	nm_put(f, name, NM_XML);
	if (what) {
		fputs(" (", f);
		nm_put(f, what, NM_XML);
		fputc(')', f);
	}
	fprintf(f, ": %llu sample%s, %.2f%%</title>", (unsigned long long)n, n == 1 ? "" : "s",
		view_pct(n, total));
	fprintf(f,
		"<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" "
		"fill=\"%s\" rx=\"2\"/>",
		x, y, w, ROW - 2, fill);
	if (fit >= 2) {
		char pct[32];
		size_t cps = 0;

		for (const unsigned char *p = (const unsigned char *)name; *p; p++)
			cps += (*p & 0xc0) != 0x80;
		snprintf(pct, sizeof(pct), " %.1f%%", view_pct(n, total));
		fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + 16);
		label(f, name, fit);
		if (cps + strlen(pct) <= (size_t)fit)
			fputs(pct, f); /* the share too, where it fits */
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

/* A box in hue h: the run and the objects plain, functions (light) in a
 * shade of their own (svg_shade()), source lines lighter. */
static void draw(FILE *f, double x, double w, int level, const char *name, const char *what,
		 uint64_t n, uint64_t total, uint32_t h, int light)
{
	char fill[40];
	int sat = 60, l = 70;

	if (light && level == 2)
		svg_shade(name, &sat, &l);
	else if (light)
		sat = 55, l = 80 - 6 * level;
	snprintf(fill, sizeof(fill), "hsl(%u,%d%%,%d%%)", h, sat, l);
	draw_fill(f, x, w, level, name, what, n, total, fill);
}

/* The boxes under a pixel of one object's functions or one function's
 * lines: one grey "(N more)" box as wide as all of them where that is a
 * pixel or more, else left out and counted in *skipped. */
static void draw_more(FILE *f, double x, int level, size_t k, uint64_t n, uint64_t total,
		      double scale, size_t *skipped)
{
	char name[48];

	if (!k)
		return;
	if ((double)n * scale < MINPX) {
		*skipped += k;
		return;
	}
	snprintf(name, sizeof(name), "(%zu more)", k);
	draw_fill(f, x, (double)n * scale, level, name,
		  level == 2 ? "functions each under a pixel, merged" :
			       "lines each under a pixel, merged",
		  n, total, "hsl(0,0%,78%)");
}

static const struct rows_table *func_table(const struct view_ctx *c)
{
	return c->funcs_are_rows ? &c->rows : &c->funcs;
}

struct ord {
	uint64_t key; /* group position */
	uint64_t n;
	size_t i;
};

static int by_group(const void *x, const void *y)
{
	const struct ord *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The drawing's state: objects, then functions, then lines. */
struct icicle {
	FILE *f;
	struct out_file of;
	struct view_ctx *c;
	const struct rows_table *ft; /* function rows */
	size_t no;		     /* objects + 1 (VIEW_NO_OBJECT) */
	uint64_t *otot;		     /* samples per object */
	struct ord *oo;		     /* objects by samples */
	size_t *opos;		     /* object -> its place in oo */
	struct box *ob, *fb;	     /* object and function boxes */
	double scale;		     /* width of a sample */
	size_t skipped;		     /* boxes too narrow */
};

static size_t obj_slot(const struct icicle *ic, uint32_t obj)
{
	return obj == HD_NO_OBJECT ? ic->c->nobjs : obj;
}

/* Allocates the state and orders the objects by samples. 0 or -1. */
static int icicle_init(struct icicle *ic, struct view_ctx *c)
{
	memset(ic, 0, sizeof(*ic));
	ic->c = c;
	ic->ft = func_table(c);
	ic->no = c->nobjs + 1;
	ic->scale = c->total ? (W - 2 * MARGIN) / (double)c->total : 0;
	ic->otot = calloc(ic->no, sizeof(*ic->otot));
	ic->oo = calloc(ic->no, sizeof(*ic->oo));
	ic->opos = calloc(ic->no, sizeof(*ic->opos));
	ic->ob = calloc(ic->no, sizeof(*ic->ob));
	ic->fb = calloc(ic->ft->n + 1, sizeof(*ic->fb));
	if (!ic->otot || !ic->oo || !ic->opos || !ic->ob || !ic->fb)
		return -1;
	for (size_t i = 0; i < ic->ft->n; i++) {
		size_t k = obj_slot(ic, ic->ft->rows[i].obj);

		ic->otot[k] = hwp_add_sat(ic->otot[k], ic->ft->rows[i].n);
	}
	for (size_t k = 0; k < ic->no; k++)
		ic->oo[k] = (struct ord){ 0, ic->otot[k], k };
	qsort(ic->oo, ic->no, sizeof(*ic->oo), by_group);
	for (size_t k = 0; k < ic->no; k++)
		ic->opos[ic->oo[k].i] = k;
	return 0;
}

static void icicle_free(struct icicle *ic)
{
	free(ic->otot);
	free(ic->oo);
	free(ic->opos);
	free(ic->ob);
	free(ic->fb);
}

static double svg_height(int lines)
{
	return 50 + ROW * (lines ? 4 : 3) + 40;
}

/* The SVG's head: size, style, command and the event's counts. */
static void draw_head(FILE *f, const struct view_ctx *c)
{
	const struct hd_event *e = &c->d->events[c->event];
	double h = svg_height(c->view == VIEW_LINES);

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" "
		"font-size=\"12\">\n",
		W, h, W, h);
	fputs("<style>g:hover rect{stroke:#000;stroke-width:1}text{pointer-events:none}</style>\n",
	      f);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fdfdfd\"/>\n", f);
	fputs("<text x=\"10\" y=\"20\" font-size=\"15\">hwprof: ", f);
	nm_put(f, c->d->command ? c->d->command : "", NM_XML);
	fputs("</text>\n<text x=\"10\" y=\"38\">", f);
	nm_put(f, e->name, NM_XML);
	fprintf(f,
		": %llu samples, every %llu; lost %llu, throttled %llu, threads not covered "
		"%llu. Hover a box for its full name.</text>\n",
		(unsigned long long)c->total, (unsigned long long)e->period,
		(unsigned long long)e->lost, (unsigned long long)e->throttled,
		(unsigned long long)e->missed);
	draw(f, MARGIN, W - 2 * MARGIN, 0, "all", e->name, c->total, c->total, 210, 0);
}

/* Level 1: the objects, most samples first. */
static void draw_objects(struct icicle *ic)
{
	const struct view_ctx *c = ic->c;
	double x = MARGIN, mx = 0;
	size_t mk = 0;
	uint64_t mn = 0;

	for (size_t k = 0; k < ic->no; k++) {
		size_t i = ic->oo[k].i;
		const char *name = i == c->nobjs ? VIEW_NO_OBJECT :
						   view_base(c->d->objects[i].path);

		ic->ob[i] = (struct box){ x, (double)ic->otot[i] * ic->scale };
		x += ic->ob[i].w;
		if (!ic->otot[i])
			continue;
		if (ic->ob[i].w < MINPX) { /* the rest too: merged */
			if (!mk++)
				mx = ic->ob[i].x;
			mn += ic->otot[i];
			continue;
		}
		draw(ic->f, ic->ob[i].x, ic->ob[i].w, 1, name,
		     i == c->nobjs ? NULL : c->d->objects[i].path, ic->otot[i], c->total,
		     svg_hue(name), 0);
	}
	draw_more(ic->f, mx, 1, mk, mn, c->total, ic->scale, &ic->skipped);
}

/* Level 2: the functions inside their object, most samples first. 0 or -1. */
static int draw_funcs(struct icicle *ic)
{
	const struct rows_table *ft = ic->ft;
	struct ord *fo = calloc(ft->n + 1, sizeof(*fo));
	size_t last = SIZE_MAX, mk = 0;
	double x = 0, mx = 0;
	uint64_t mn = 0;

	if (!fo)
		return -1;
	for (size_t i = 0; i < ft->n; i++)
		fo[i] = (struct ord){ ic->opos[obj_slot(ic, ft->rows[i].obj)], ft->rows[i].n,
				      i };
	qsort(fo, ft->n, sizeof(*fo), by_group);
	for (size_t j = 0; j < ft->n; j++) {
		const struct view_row *r = &ft->rows[fo[j].i];
		struct box *b = &ic->fb[fo[j].i];
		size_t k = obj_slot(ic, r->obj);
		const char *base = view_base(view_obj_path(ic->c, r->obj));
		char nb[40];

		if (k != last) {
			draw_more(ic->f, mx, 2, mk, mn, ic->c->total, ic->scale, &ic->skipped);
			mk = 0;
			mn = 0;
			x = ic->ob[k].x;
			last = k;
		}
		*b = (struct box){ x, (double)r->n * ic->scale };
		x += b->w;
		if (b->w < MINPX) { /* the object's other functions too */
			if (!mk++)
				mx = b->x;
			mn += r->n;
			continue;
		}
		draw(ic->f, b->x, b->w, 2, view_name(r, nb), base, r->n, ic->c->total,
		     svg_hue(base), 1);
	}
	draw_more(ic->f, mx, 2, mk, mn, ic->c->total, ic->scale, &ic->skipped);
	free(fo);
	return 0;
}

/* One source line box under function row p, at x, w wide. */
static void draw_line(struct icicle *ic, const struct view_row *r, size_t p, double x,
		      double w)
{
	char *name = NULL, *what = NULL, fb2[40];
	const char *pn = view_name(&ic->ft->rows[p], fb2);
	/* code inlined from another function: say which */
	int other = r->name && strcmp(r->name, pn);

	if (r->file && asprintf(&name, "%s:%d%s%s", view_base(r->file), r->line,
				other ? " " : "", other ? r->name : "") < 0)
		name = NULL;
	if (r->file && r->name && asprintf(&what, "%s in %s", r->file, r->name) < 0)
		what = NULL;
	draw(ic->f, x, w, 3, name ? name : "(no line information)", what ? what : r->file,
	     r->n, ic->c->total, svg_hue(view_base(view_obj_path(ic->c, r->obj))), 1);
	free(name);
	free(what);
}

/* Level 3: the source lines under their function. 0 or -1. */
static int draw_lines(struct icicle *ic)
{
	const struct rows_table *lt = &ic->c->flines, *ft = ic->ft;
	struct ord *lo = calloc(lt->n + 1, sizeof(*lo));
	double *fx = calloc(ft->n + 1, sizeof(*fx)), mx = 0;
	size_t last = SIZE_MAX, mk = 0;
	uint64_t mn = 0;

	if (!lo || !fx) {
		free(lo);
		free(fx);
		return -1;
	}
	for (size_t i = 0; i < lt->n; i++)
		lo[i] = (struct ord){ (uint64_t)lt->rows[i].parent, lt->rows[i].n, i };
	qsort(lo, lt->n, sizeof(*lo), by_group);
	for (size_t j = 0; j < lt->n; j++) {
		const struct view_row *r = &lt->rows[lo[j].i];
		double w = (double)r->n * ic->scale;
		size_t p = (size_t)r->parent;

		if (r->parent < 0 || p >= ft->n)
			continue;
		if (p != last) {
			draw_more(ic->f, mx, 3, mk, mn, ic->c->total, ic->scale, &ic->skipped);
			mk = 0;
			mn = 0;
			last = p;
		}
		if (w < MINPX) { /* the function's other lines too */
			if (!mk++)
				mx = ic->fb[p].x + fx[p];
			mn += r->n;
		} else {
			draw_line(ic, r, p, ic->fb[p].x + fx[p], w);
		}
		fx[p] += w;
	}
	draw_more(ic->f, mx, 3, mk, mn, ic->c->total, ic->scale, &ic->skipped);
	free(lo);
	free(fx);
	return 0;
}

/* The legend and the end of the SVG; closes f. 0, or 1 after one line. */
static int draw_tail(struct icicle *ic)
{
	FILE *f = ic->f;
	int lines = ic->c->view == VIEW_LINES;

	fprintf(f, "<text x=\"10\" y=\"%.0f\" fill=\"#555\">levels: all, object, function%s",
		50 + ROW * (lines ? 4 : 3) + 16, lines ? ", source line" : "");
	fputs("; boxes under a pixel merged into \"(N more)\"", f);
	if (ic->skipped)
		fprintf(f, ", %zu narrower still left out (see the table)", ic->skipped);
	fputs("</text>\n</svg>\n", f);
	return out_close(&ic->of);
}

int svg_write(const char *out, struct view_ctx *c, char **inputs, size_t ninputs)
{
	struct icicle ic;
	int ret = 1;

	if (icicle_init(&ic, c))
		die("out of memory");
	if (out_open(&ic.of, "--svg", out, inputs, ninputs))
		goto out;
	ic.f = ic.of.f;
	if (c->view == VIEW_FUNCS && c->d->events[c->event].callgraph != HD_CG_NONE) {
		/* call paths: a flame graph (tools/report/flame.c) */
		if (flame_write(ic.f, c)) {
			out_drop(&ic.of);
			die("out of memory");
		}
		ret = out_close(&ic.of);
		goto out;
	}
	draw_head(ic.f, c);
	draw_objects(&ic);
	if (draw_funcs(&ic) || (c->view == VIEW_LINES && draw_lines(&ic))) {
		out_drop(&ic.of);
		die("out of memory");
	}
	ret = draw_tail(&ic);
out:
	icicle_free(&ic);
	return ret;
}
