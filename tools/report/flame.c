/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --svg of a file with call paths: a flame graph, drawn
 * top-down (an icicle) so that the roots are on the first screen. Each
 * box is a function on a call path, as wide as the samples of the paths
 * through it there, below its caller. A caller's callees narrower than a
 * pixel are one "(N more)" box, or left out and counted where even that
 * is under a pixel; the width is raised until at most MAXBOXES boxes of
 * about MAXBYTES remain (hwprof(1), --svg). A hue per object, a shade per
 * function; the full name, object and counts on hover (<title>); a click
 * zooms into a box (its callers stay, stretched, above it), "Reset zoom"
 * and Escape undo it; "Search" (or Ctrl-F) takes a regular expression,
 * colours the boxes it matches and says what share of the samples they
 * hold. The script is inline and plain ES5; without it the drawing is the
 * same, static. Opening the file with #zoom=NAME or #search=RE in the URL
 * does the same at load (the tests use it; #zoom= clicks the box, so the
 * click's handler is what they test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callpaths.h"
#include "flame.h"
#include "svg-style.h"
#include "view.h"

#define W	 1200.0 /* drawing width */
#define MARGIN	 10.0
#define ROW	 18.0	/* height of one frame */
#define CHARW	 6.6	/* a character of the 11px monospace font */
#define MINPX	 1.0	/* narrower boxes are merged (hwprof(1), --svg) */
#define MAXBOXES 4000	/* at most this many boxes, */
#define MAXBYTES 900000 /* about this many bytes of them: MINPX raised */
#define TOP	 66.0	/* room for the title and the buttons */

struct flame {
	FILE *f;
	struct view_ctx *c;
	const struct rows_table *ft;
	struct cp_tree tr;
	double scale;
	double minw;	      /* narrower boxes are merged or dropped */
	int depth;	      /* deepest level drawn */
	size_t drawn, merged; /* boxes drawn; functions merged into others */
	uint64_t dropped;     /* samples in boxes left out */
	/* a differential graph: the base's tree, its functions, and the
	 * factor its samples are scaled by */
	struct view_ctx *bc;
	const struct rows_table *bft;
	struct cp_tree btr;
	double k;
};

/* The samples of kids [from, from + n) narrower than fl->minw (sorted by
 * total: the tail), *cnt of them; *at the first of them. */
static uint64_t narrow(const struct flame *fl, size_t from, size_t n, size_t *cnt, size_t *at)
{
	uint64_t s = 0;
	size_t k = from;

	while (k < from + n && (double)fl->tr.n[fl->tr.kids[k]].total * fl->scale >= fl->minw)
		k++;
	*at = k;
	*cnt = from + n - k;
	for (; k < from + n; k++)
		s += fl->tr.n[fl->tr.kids[k]].total;
	return s;
}

/* The length of s as XML text (nm_put()). */
static size_t xml_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '<' || *s == '>' ? 4 : *s == '&' ? 5 : *s == '"' ? 6 : 1;
	return n;
}

/* The bytes x's box takes, at most (frame(): the name twice and its label,
 * the object, 300 for the rest and 60 for a note in its title; 60 more for
 * a differential's counts). */
static size_t box_bytes(const struct flame *fl, const struct cp_tnode *x)
{
	const struct view_row *r = &fl->ft->rows[x->fn];
	char buf[40];

	return 3 * xml_len(view_name(r, buf)) +
	       xml_len(view_base(view_obj_path(fl->c, r->obj))) + 360 + (fl->bc ? 60 : 0);
}

/* The boxes kids [from, from + n) and their callees take at fl->minw,
 * their bytes added to *bytes, and the deepest level among them in
 * *depth. */
static size_t count(const struct flame *fl, size_t from, size_t n, int d, int *depth,
		    size_t *bytes)
{
	size_t c = 0, cnt, at;
	uint64_t rest = narrow(fl, from, n, &cnt, &at);

	for (size_t k = from; k < at; k++) {
		const struct cp_tnode *x = &fl->tr.n[fl->tr.kids[k]];

		*bytes += box_bytes(fl, x);
		c += 1 + count(fl, x->first, x->nkids, d + 1, depth, bytes);
	}
	if ((at > from || (cnt && (double)rest * fl->scale >= fl->minw)) && d > *depth)
		*depth = d;
	if (cnt && (double)rest * fl->scale >= fl->minw) {
		*bytes += 400;
		c++;
	}
	return c;
}

static double height(const struct flame *fl)
{
	return TOP + ROW * (fl->depth + 1) + 44;
}

static void frame(struct flame *fl, double x, double w, int d, const char *name,
		  const char *obj, uint64_t n, const char *fill, const char *more)
{
	FILE *f = fl->f;
	double y = TOP + ROW * d;
	int fit = (int)((w - 6) / CHARW);

	fprintf(f, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" data-d=\"%d\" data-n=\"", x,
		w, d);
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
	fprintf(f,
		"<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" "
		"fill=\"%s\"/><text x=\"%.2f\" y=\"%.0f\">",
		x, y, w, ROW - 1, fill, x + 3, y + ROW - 5);
	if (fit >= 3) /* ".." as the script cuts them */
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
		snprintf(fill, fl_len, "hsl(%d,%d%%,%d%%)", dn > 0 ? 0 : 220,
			 sat < 20 ? 20 : sat, 90 - sat / 3);
	snprintf(more, mlen, "; base %.0f%s, change %+.0f (%+.1f%%)", b,
		 fl->k != 1 ? " (normalized)" : "", dn, b > 0 ? 100.0 * dn / b : 100.0);
}

/* The base's samples (scaled) of the functions among base kids
 * [bfrom, bfrom + bn) that match kids [from, from + n). */
static double base_sum(const struct flame *fl, size_t from, size_t n, size_t bfrom, size_t bn)
{
	double b = 0;
	char buf[40];

	for (size_t k = from; k < from + n; k++) {
		const struct cp_tnode *t = &fl->tr.n[fl->tr.kids[k]];
		const struct view_row *r = &fl->ft->rows[t->fn];
		long bk = base_match(fl, bfrom, bn, view_name(r, buf),
				     view_base(view_obj_path(fl->c, r->obj)));

		if (bk >= 0)
			b += fl->k * (double)fl->btr.n[fl->btr.kids[bk]].total;
	}
	return b;
}

/* The box of the kids [from, from + n) too narrow to draw one by one:
 * "(N more)", as wide as all of them, when that is wide enough; else
 * they are left out and counted. */
static void others(struct flame *fl, size_t from, size_t n, double x, int d, size_t bfrom,
		   size_t bn)
{
	char name[48], fill[40], more[160];
	uint64_t s = 0;

	for (size_t k = from; k < from + n; k++)
		s += fl->tr.n[fl->tr.kids[k]].total;
	if (!n)
		return;
	if ((double)s * fl->scale < fl->minw) {
		fl->dropped += s;
		return;
	}
	snprintf(name, sizeof(name), "(%zu more)", n);
	if (bn == SIZE_MAX) {
		snprintf(fill, sizeof(fill), "hsl(0,0%%,78%%)");
		snprintf(more, sizeof(more),
			 "; %zu function%s each under %.3g pixel%s, merged", n,
			 n == 1 ? "" : "s", fl->minw, fl->minw == 1 ? "" : "s");
	} else {
		diff_look(fl, s, base_sum(fl, from, n, bfrom, bn), fill, sizeof(fill), more,
			  sizeof(more));
	}
	frame(fl, x, (double)s * fl->scale, d, name, NULL, s, fill, more);
	fl->merged += n;
}

/* Boxes for kids [from, from + n) at depth d from x; bfrom, bn: the same
 * place's kids in the base's tree (bn SIZE_MAX: not a differential). */
static void frames(struct flame *fl, size_t from, size_t n, double x, int d, size_t bfrom,
		   size_t bn)
{
	char buf[40], fill[40], more[160];
	size_t cnt, at;

	narrow(fl, from, n, &cnt, &at);
	for (size_t k = from; k < at; k++) {
		const struct cp_tnode *t = &fl->tr.n[fl->tr.kids[k]];
		const struct view_row *r = &fl->ft->rows[t->fn];
		const char *obj = view_base(view_obj_path(fl->c, r->obj));
		const char *name = view_name(r, buf);
		double w = (double)t->total * fl->scale;
		size_t kf = 0, kn = bn == SIZE_MAX ? SIZE_MAX : 0, ncnt, nat;
		uint64_t lost = narrow(fl, t->first, t->nkids, &ncnt, &nat);
		size_t used;

		if (bn == SIZE_MAX) {
			int sat, light;

			svg_shade(name, &sat, &light);
			snprintf(fill, sizeof(fill), "hsl(%u,%d%%,%d%%)", svg_hue(obj), sat,
				 light);
			more[0] = 0;
		} else {
			long bk = base_match(fl, bfrom, bn, name, obj);
			const struct cp_tnode *b = bk < 0 ? NULL :
							    &fl->btr.n[fl->btr.kids[bk]];

			diff_look(fl, t->total, b ? fl->k * (double)b->total : 0, fill,
				  sizeof(fill), more, sizeof(more));
			if (b) {
				kf = b->first;
				kn = b->nkids;
			}
		}
		used = strlen(more);
		if (ncnt && (double)lost * fl->scale < fl->minw)
			snprintf(more + used, sizeof(more) - used,
				 "; %llu sample%s in %zu callee%s "
				 "too narrow to draw",
				 (unsigned long long)lost, lost == 1 ? "" : "s", ncnt,
				 ncnt == 1 ? "" : "s");
		frame(fl, x, w, d, name, obj, t->total, fill, more);
		frames(fl, t->first, t->nkids, x, d + 1, kf, kn);
		x += w;
	}
	others(fl, at, cnt, x, d, bfrom, bn);
}

/* The interaction: zoom, reset, search; #zoom= and #search= at load. */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	/* E: data-x and data-w are written to 0.01, so a box's end read
	 * back may be off by 0.015 from where the next one starts; every
	 * box is a pixel or wider (MINPX), so this tells a sibling from a
	 * box inside another */
	"var W = %.1f, M = %.1f, CW = %.2f, E = 0.015;\n"
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
	"    var inside = x >= x0 - E && x + w <= x0 + w0 + E;\n"
	"    var below = d < d0 && x <= x0 + E && x + w >= x0 + w0 - E;\n"
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
	"    if (iv[j][0] >= end - E) { cov += iv[j][2]; end = iv[j][1]; }\n"
	"  }\n"
	"  info.textContent = re === '' ? '' : 'matched ' + re + ': ' +\n"
	"    (all ? (100 * cov / all).toFixed(2) : '0.00') + '%% of the samples';\n"
	"}\n"
	"document.addEventListener('click', function (e) {\n"
	"  for (var g = e.target; g && g.getAttribute; g = g.parentNode) {\n"
	"    var k = g.getAttribute('class');\n"
	"    if (k && k.split(' ')[0] == 'f') { zoom(g); return; }\n"
	"  }\n"
	"});\n"
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
	"    if (fs[i].getAttribute('data-n') == h.substring(5)) {\n"
	"      var ev = document.createEvent('MouseEvents');\n"
	"      ev.initEvent('click', true, true);\n"
	"      fs[i].getElementsByTagName('rect')[0].dispatchEvent(ev); break;\n"
	"    }\n"
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
	if (base &&
	    (cp_init(&bp, base) || (cp_tree_build(&bp, 0, &fl.btr) && (cp_free(&bp), 1)))) {
		cp_tree_free(&fl.tr);
		cp_free(&p);
		return -1;
	}
	if (base)
		fl.bft = base->funcs_are_rows ? &base->rows : &base->funcs;
	fl.ft = c->funcs_are_rows ? &c->rows : &c->funcs;
	fl.scale = fl.tr.all ? (W - 2 * MARGIN) / (double)fl.tr.all : 0;
	/* a box under a pixel says nothing: merged (others()); where more
	 * than MAXBOXES or MAXBYTES would remain, the width raised until
	 * they fit */
	for (fl.minw = MINPX;; fl.minw *= 1.25) {
		size_t bytes = 0;

		fl.depth = 0;
		if (count(&fl, 0, fl.tr.nroots, 0, &fl.depth, &bytes) <= MAXBOXES &&
		    bytes <= MAXBYTES)
			break;
	}
	h = height(&fl);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" "
		"font-size=\"11\">\n",
		W, h, W, h);
	fputs("<style>.f{cursor:pointer}.f:hover rect{stroke:#000;stroke-width:0.7}"
	      "text{pointer-events:none}.b{cursor:pointer;fill:#236}</style>\n",
	      f);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fdfdf6\"/>\n", f);
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">hwprof %sflame graph: ",
		base ? "differential " : "");
	nm_put(f, c->d->command ? c->d->command : "", NM_XML);
	fputs("</text>\n<text x=\"10\" y=\"38\">", f);
	nm_put(f, e->name, NM_XML);
	fprintf(f,
		": %llu samples with a call path (lost %llu, cut when recorded %llu). "
		"Width: samples; click to zoom; hover for the full name.</text>\n",
		(unsigned long long)fl.tr.all, (unsigned long long)e->lost,
		(unsigned long long)e->cut);
	fprintf(f,
		"<text id=\"reset\" class=\"b\" x=\"%.0f\" y=\"20\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"b\" x=\"%.0f\" y=\"38\">Search (Ctrl-F)</text>\n"
		"<text id=\"info\" x=\"10\" y=\"54\" fill=\"#a00\"></text>\n",
		W - 120, W - 120);
	frames(&fl, 0, fl.tr.nroots, MARGIN, 0, 0, base ? fl.btr.nroots : SIZE_MAX);
	fprintf(f,
		"<text x=\"10\" y=\"%.0f\" fill=\"#555\">%zu boxes; the outermost frames "
		"on top, each function below its caller; %s</text>\n",
		h - 24, fl.drawn,
		base ? "the new profile, red where a path gained samples over the base, blue "
		       "where it lost, grey where equal (paths only in the base are not drawn)" :
		       "a hue per object, a shade per function");
	fprintf(f,
		"<text x=\"10\" y=\"%.0f\" fill=\"#555\">callees under %.3g pixel%s wide "
		"merged per caller into one \"(N more)\" box (%zu function%s)",
		h - 10, fl.minw, fl.minw == 1 ? "" : "s", fl.merged,
		fl.merged == 1 ? "" : "s");
	if (fl.dropped)
		fprintf(f, ", %llu sample%s in boxes narrower still left out",
			(unsigned long long)fl.dropped, fl.dropped == 1 ? "" : "s");
	fputs("</text>\n", f);
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
