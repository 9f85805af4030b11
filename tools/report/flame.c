/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --svg of a file with call paths: a flame graph. Each box
 * is a function on a call path, as wide as the samples of the paths
 * through it there, above its caller; the outermost frames at the bottom.
 * One colour per object; the full name, object and counts on hover
 * (<title>); a click zooms into a box (its callers stay, stretched, below
 * it), "Reset zoom" and Escape undo it; "Search" (or Ctrl-F) takes a
 * regular expression, colours the boxes it matches and says what share
 * of the samples they hold. The script is inline and plain ES5; without
 * it the drawing is the same, static. Opening the file with #zoom=NAME or
 * #search=RE in the URL does the same at load (the tests use it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flame.h"
#include "paths.h"

#define W	1200.0		/* drawing width */
#define MARGIN	10.0
#define ROW	18.0		/* height of one frame */
#define CHARW	6.6		/* a character of the 11px monospace font */
#define MINW	0.1		/* narrower boxes are not drawn */
#define TOP	60.0		/* room for the title and the buttons */

struct flame {
	FILE *f;
	struct view_ctx *c;
	const struct rows_table *ft;
	struct cp_tree tr;
	double scale;
	int depth;		/* deepest level drawn */
	size_t drawn, skipped;
	/* a differential graph: the base's tree, its functions, and the
	 * factor its samples are scaled by */
	struct view_ctx *bc;
	const struct rows_table *bft;
	struct cp_tree btr;
	double k;
};

/* Depth of the deepest node wide enough to draw. */
static int max_depth(struct flame *fl, size_t from, size_t n, int d)
{
	int m = d;

	for (size_t k = from; k < from + n; k++) {
		const struct cp_tnode *x = &fl->tr.n[fl->tr.kids[k]];
		int s;

		if ((double)x->total * fl->scale < MINW)
			break;
		s = max_depth(fl, x->first, x->nkids, d + 1);
		if (s > m)
			m = s;
	}
	return m;
}

static double height(const struct flame *fl)
{
	return TOP + ROW * (fl->depth + 2) + 30;
}

static void frame(struct flame *fl, double x, double w, int d, const char *name,
		  const char *obj, uint64_t n, const char *fill, const char *more)
{
	FILE *f = fl->f;
	double y = height(fl) - 30 - ROW * (d + 1);
	int fit = (int)((w - 6) / CHARW);

	fprintf(f, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\" data-d=\"%d\" data-n=\"",
		x, w, d);
	nm_put(f, name, NM_XML);
	fprintf(f, "\" data-s=\"%llu\"><title>", (unsigned long long)n);
	nm_put(f, name, NM_XML);
	if (obj) {
		fputs(" (", f);
		nm_put(f, obj, NM_XML);
		fputc(')', f);
	}
	fprintf(f, ": %llu sample%s, %.2f%%%s</title>", (unsigned long long)n,
		n == 1 ? "" : "s", view_pct(n, fl->tr.all), more);
	fprintf(f, "<rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%.1f\" "
		"fill=\"%s\" rx=\"1\"/><text x=\"%.3f\" y=\"%.1f\">",
		x, y, w, ROW - 1, fill, x + 3, y + ROW - 5);
	if (fit >= 3)		/* ".." as the script cuts them */
		svg_label(f, name, fit, "..", 2);
	fputs("</text></g>\n", f);
	fl->drawn++;
}

/* The base's node among kids [from, from + n) of the same function (by
 * name and object), or -1. */
static long base_match(const struct flame *fl, size_t from, size_t n, const char *name,
		       const char *obj)
{
	char buf[40];

	for (size_t k = from; k < from + n; k++) {
		const struct cp_tnode *b = &fl->btr.n[fl->btr.kids[k]];
		const struct view_row *r = &fl->bft->rows[b->fn];

		if (!strcmp(view_name(r, buf), name) &&
		    !strcmp(view_base(view_obj_path(fl->bc, r->obj)), obj))
			return (long)k;
	}
	return -1;
}

/* A differential box's colour and title: red where the path gained
 * samples, blue where it lost, as deep as the change is large against
 * the larger count; grey when equal. */
static void diff_look(const struct flame *fl, uint64_t n, double b, char *fill, size_t fl_len,
		      char *more, size_t mlen)
{
	double dn = (double)n - b, big = (double)n > b ? (double)n : b;
	int sat = big > 0 ? (int)(100.0 * (dn < 0 ? -dn : dn) / big + 0.5) : 0;

	if (sat < 1)
		snprintf(fill, fl_len, "hsl(0,0%%,82%%)");
	else
		snprintf(fill, fl_len, "hsl(%d,%d%%,%d%%)", dn > 0 ? 0 : 220, sat < 20 ? 20 : sat,
			 90 - sat / 3);
	snprintf(more, mlen, "; base %.0f%s, change %+.0f (%+.1f%%)", b,
		 fl->k != 1 ? " (normalized)" : "", dn, b > 0 ? 100.0 * dn / b : 100.0);
}

/* Boxes for kids [from, from + n) at depth d from x; bfrom, bn: the same
 * place's kids in the base's tree (bn SIZE_MAX: not a differential). */
static void frames(struct flame *fl, size_t from, size_t n, double x, int d, size_t bfrom,
		   size_t bn)
{
	char buf[40], fill[40], more[96];

	for (size_t k = from; k < from + n; k++) {
		const struct cp_tnode *t = &fl->tr.n[fl->tr.kids[k]];
		const struct view_row *r = &fl->ft->rows[t->fn];
		const char *obj = view_base(view_obj_path(fl->c, r->obj));
		const char *name = view_name(r, buf);
		double w = (double)t->total * fl->scale;
		size_t kf = 0, kn = bn == SIZE_MAX ? SIZE_MAX : 0;

		if (w < MINW) {
			fl->skipped++;
			break;	/* sorted: the rest are narrower */
		}
		if (bn == SIZE_MAX) {
			snprintf(fill, sizeof(fill), "hsl(%u,65%%,62%%)", svg_hue(obj));
			more[0] = 0;
		} else {
			long bk = base_match(fl, bfrom, bn, name, obj);
			const struct cp_tnode *b = bk < 0 ? NULL : &fl->btr.n[fl->btr.kids[bk]];

			diff_look(fl, t->total, b ? fl->k * (double)b->total : 0, fill, sizeof(fill),
				  more, sizeof(more));
			if (b) {
				kf = b->first;
				kn = b->nkids;
			}
		}
		frame(fl, x, w, d, name, obj, t->total, fill, more);
		frames(fl, t->first, t->nkids, x, d + 1, kf, kn);
		x += w;
	}
}

/* The interaction: zoom, reset, search; #zoom= and #search= at load. */
static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"(function () {\n"
"var W = %.1f, M = %.1f, CW = %.2f;\n"
"var fs = document.getElementsByClassName('f');\n"
"var info = document.getElementById('info');\n"
"function num(g, k) { return parseFloat(g.getAttribute('data-' + k)); }\n"
"function label(g, w) {\n"
"  var n = g.getAttribute('data-n'), fit = Math.floor((w - 6) / CW);\n"
"  var t = g.getElementsByTagName('text')[0];\n"
"  t.textContent = fit < 3 ? '' : n.length <= fit ? n : n.substring(0, fit - 2) + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('text')[0];\n"
"  r.setAttribute('x', x); r.setAttribute('width', w); t.setAttribute('x', x + 3);\n"
"  label(g, w);\n"
"}\n"
"function zoom(z) {\n"
"  var x0 = num(z, 'x'), w0 = num(z, 'w'), d0 = num(z, 'd'), k = (W - 2 * M) / w0;\n"
"  for (var i = 0; i < fs.length; i++) {\n"
"    var g = fs[i], x = num(g, 'x'), w = num(g, 'w'), d = num(g, 'd');\n"
"    var inside = x >= x0 - 1e-6 && x + w <= x0 + w0 + 1e-6;\n"
"    var below = d < d0 && x <= x0 + 1e-6 && x + w >= x0 + w0 - 1e-6;\n"
"    if (d >= d0 ? !inside : !below) { g.style.display = 'none'; continue; }\n"
"    g.style.display = '';\n"
"    if (d < d0) { place(g, M, W - 2 * M); g.setAttribute('opacity', '0.6'); }\n"
"    else { place(g, M + (x - x0) * k, w * k); g.removeAttribute('opacity'); }\n"
"  }\n"
"  info.textContent = 'zoomed into ' + z.getAttribute('data-n') + ' (Reset zoom, or Escape)';\n"
"}\n"
"function reset() {\n"
"  for (var i = 0; i < fs.length; i++) {\n"
"    var g = fs[i]; g.style.display = ''; g.removeAttribute('opacity');\n"
"    place(g, num(g, 'x'), num(g, 'w'));\n"
"  }\n"
"  info.textContent = '';\n"
"}\n"
"function search(re) {\n"
"  var rx, iv = [], all = 0, cov = 0, end = -1;\n"
"  try { rx = new RegExp(re); } catch (e) { info.textContent = 'not a regular expression: ' + re; return; }\n"
"  for (var i = 0; i < fs.length; i++) {\n"
"    var g = fs[i], r = g.getElementsByTagName('rect')[0];\n"
"    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
"    if (num(g, 'd') == 0) all += num(g, 's');\n"
"    if (re !== '' && rx.test(g.getAttribute('data-n'))) {\n"
"      r.setAttribute('fill', 'rgb(230,0,230)'); g.setAttribute('class', 'f m');\n"
"      iv.push([num(g, 'x'), num(g, 'x') + num(g, 'w'), num(g, 's'), num(g, 'w')]);\n"
"    } else { r.setAttribute('fill', r.getAttribute('data-fill')); g.setAttribute('class', 'f'); }\n"
"  }\n"
"  iv.sort(function (a, b) { return a[0] - b[0]; });\n"
"  for (var j = 0; j < iv.length; j++) {\n"
"    if (iv[j][0] >= end - 1e-6) { cov += iv[j][2]; end = iv[j][1]; }\n"
"  }\n"
"  info.textContent = re === '' ? '' : 'matched ' + re + ': ' +\n"
"    (all ? (100 * cov / all).toFixed(2) : '0.00') + '%% of the samples';\n"
"}\n"
"for (var i = 0; i < fs.length; i++)\n"
"  fs[i].addEventListener('click', function (e) { zoom(this); e.stopPropagation(); });\n"
"document.getElementById('reset').addEventListener('click', reset);\n"
"document.getElementById('search').addEventListener('click', function () {\n"
"  var re = prompt('Search (a regular expression)', ''); if (re !== null) search(re);\n"
"});\n"
"document.addEventListener('keydown', function (e) {\n"
"  if (e.key == 'Escape') reset();\n"
"  if ((e.ctrlKey || e.metaKey) && e.key == 'f') {\n"
"    e.preventDefault(); var re = prompt('Search (a regular expression)', '');\n"
"    if (re !== null) search(re);\n"
"  }\n"
"});\n"
"var h = decodeURIComponent(location.hash.substring(1));\n"
"if (h.indexOf('zoom=') == 0) {\n"
"  for (var i = 0; i < fs.length; i++)\n"
"    if (fs[i].getAttribute('data-n') == h.substring(5)) { zoom(fs[i]); break; }\n"
"} else if (h.indexOf('search=') == 0) search(h.substring(7));\n"
"})();\n"
"]]></script>\n";

int flame_write(FILE *f, struct view_ctx *c)
{
	return flame_write_diff(f, c, NULL, 1);
}

int flame_write_diff(FILE *f, struct view_ctx *c, struct view_ctx *base, double k)
{
	const struct hd_event *e = &c->d->events[c->event];
	struct flame fl = { .f = f, .c = c, .bc = base, .k = k };
	struct cp p, bp;
	double h;

	if (cp_init(&p, c))
		return -1;
	if (cp_tree_build(&p, 0, &fl.tr)) {
		cp_free(&p);
		return -1;
	}
	if (base && (cp_init(&bp, base) || (cp_tree_build(&bp, 0, &fl.btr) &&
					     (cp_free(&bp), 1)))) {
		cp_tree_free(&fl.tr);
		cp_free(&p);
		return -1;
	}
	if (base)
		fl.bft = base->funcs_are_rows ? &base->rows : &base->funcs;
	fl.ft = c->funcs_are_rows ? &c->rows : &c->funcs;
	fl.scale = fl.tr.all ? (W - 2 * MARGIN) / (double)fl.tr.all : 0;
	fl.depth = max_depth(&fl, 0, fl.tr.nroots, 0);
	h = height(&fl);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" "
		"font-size=\"11\">\n", W, h, W, h);
	fputs("<style>.f{cursor:pointer}.f:hover rect{stroke:#000;stroke-width:0.7}"
	      "text{pointer-events:none}.b{cursor:pointer;fill:#236}</style>\n", f);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fdfdf6\"/>\n", f);
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">hwprof %sflame graph: ",
		base ? "differential " : "");
	nm_put(f, c->d->command ? c->d->command : "", NM_XML);
	fputs("</text>\n<text x=\"10\" y=\"38\">", f);
	nm_put(f, e->name, NM_XML);
	fprintf(f, ": %llu samples with a call path (lost %llu, cut when recorded %llu). "
		"Width: samples; click to zoom; hover for the full name.</text>\n",
		(unsigned long long)fl.tr.all, (unsigned long long)e->lost,
		(unsigned long long)e->cut);
	fprintf(f, "<text id=\"reset\" class=\"b\" x=\"%.0f\" y=\"20\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"b\" x=\"%.0f\" y=\"38\">Search (Ctrl-F)</text>\n"
		"<text id=\"info\" x=\"10\" y=\"54\" fill=\"#a00\"></text>\n",
		W - 120, W - 120);
	frames(&fl, 0, fl.tr.nroots, MARGIN, 0, 0, base ? fl.btr.nroots : SIZE_MAX);
	fprintf(f, "<text x=\"10\" y=\"%.0f\" fill=\"#555\">%zu boxes; the outermost frames "
		"at the bottom, each function above its caller; %s%s</text>\n",
		h - 10, fl.drawn, base ? "the new profile, red where a path gained samples "
		"over the base, blue where it lost, grey where equal (paths only in the base "
		"are not drawn)" : "one colour per object",
		fl.skipped ? "; boxes under 0.1 pixel left out" : "");
	fprintf(f, script, W, MARGIN, CHARW);
	fputs("</svg>\n", f);
	cp_tree_free(&fl.tr);
	cp_free(&p);
	if (base) {
		cp_tree_free(&fl.btr);
		cp_free(&bp);
	}
	return 0;
}
