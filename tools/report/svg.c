/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --svg: the profile as an icicle, the whole run on top, then
 * its objects, their functions and (with --lines) their source lines, each
 * as wide as its share of the samples. Names that do not fit are cut with
 * an ellipsis; hovering any box shows its full name and counts (<title>).
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
#include "view.h"

#define W	1200.0		/* drawing width */
#define MARGIN	10.0
#define ROW	24.0		/* height of one level */
#define CHARW	7.3		/* a character of the 12px monospace font */
#define MINW	0.05		/* narrower boxes are not drawn */

struct box {
	double x, w;
};

static uint32_t hue(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % 360;
}

/* Writes at most max characters of s (UTF-8 code points), with an ellipsis
 * when cut. */
static void label(FILE *f, const char *s, int max)
{
	size_t cps = 0, cut = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xc0) != 0x80) {
			if ((int)cps == max - 1)
				cut = (size_t)((const char *)p - s);
			cps++;
		}
	if ((int)cps <= max) {
		rp_put(f, s, RP_XML);
		return;
	}
	{
		char *t = strndup(s, cut);

		if (t)
			rp_put(f, t, RP_XML);
		free(t);
		fputs("\xe2\x80\xa6", f);	/* U+2026 */
	}
}

static void draw(FILE *f, double x, double w, int level, const char *name, const char *what,
		 uint64_t n, uint64_t total, uint32_t h, int light)
{
	double y = 50 + level * ROW;
	int fit = (int)((w - 6) / CHARW);

	fprintf(f, "<g class=\"l%d\"><title>", level);
	rp_put(f, name, RP_XML);
	if (what) {
		fputs(" (", f);
		rp_put(f, what, RP_XML);
		fputc(')', f);
	}
	fprintf(f, ": %llu samples, %.2f%%</title>", (unsigned long long)n, rv_pct(n, total));
	fprintf(f, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" "
		"fill=\"hsl(%u,%d%%,%d%%)\" rx=\"2\"/>", x, y, w, ROW - 2, h,
		light ? 55 : 60, light ? 80 - 6 * level : 70);
	if (fit >= 2) {
		char pct[32];
		size_t cps = 0;

		for (const unsigned char *p = (const unsigned char *)name; *p; p++)
			cps += (*p & 0xc0) != 0x80;
		snprintf(pct, sizeof(pct), " %.1f%%", rv_pct(n, total));
		fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + 16);
		label(f, name, fit);
		if (cps + strlen(pct) <= (size_t)fit)
			fputs(pct, f);	/* the share too, where it fits */
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

static const struct rv_table *func_table(const struct rv_ctx *c)
{
	return c->funcs_are_rows ? &c->rows : &c->funcs;
}

struct ord {
	uint64_t key;		/* group position */
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

/* Refuses an output that is one of the inputs: 0, or 1 after saying so. */
int rv_svg_check(const char *out, char **inputs, size_t ninputs)
{
	struct stat so, si;

	if (!stat(out, &so))
		for (size_t i = 0; i < ninputs; i++)
			if (!stat(inputs[i], &si) && si.st_dev == so.st_dev &&
			    si.st_ino == so.st_ino) {
				fputs("hwprof: --svg ", stderr);
				rp_put(stderr, out, RP_TEXT);
				fputs(": that is the data file being reported; not overwriting it\n",
				      stderr);
				return 1;
			}
	return 0;
}

/* Opens the output, never blocking (a FIFO without reader fails). */
FILE *rv_svg_open(const char *out, char **inputs, size_t ninputs)
{
	int fd;

	if (rv_svg_check(out, inputs, ninputs))
		return NULL;
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644);
	if (fd < 0) {
		fputs("hwprof: --svg ", stderr);
		rp_put(stderr, out, RP_TEXT);
		fprintf(stderr, ": %s\n", strerror(errno));
		return NULL;
	}
	return fdopen(fd, "w");
}

int rv_svg(const char *out, struct rv_ctx *c, char **inputs, size_t ninputs)
{
	const struct rv_table *ft = func_table(c);
	const struct hd_file *d = c->d;
	size_t no = c->nobjs + 1, skipped = 0;
	uint64_t *otot = calloc(no, sizeof(*otot));
	struct ord *oo = calloc(no, sizeof(*oo));
	struct ord *fo = calloc(ft->n + 1, sizeof(*fo));
	struct box *ob = calloc(no, sizeof(*ob));
	struct box *fb = calloc(ft->n + 1, sizeof(*fb));
	size_t *opos = calloc(no, sizeof(*opos));
	const struct hd_event *e = &d->events[c->event];
	int lines = c->view == RV_VIEW_LINES, ret = 1;
	double scale = c->total ? (W - 2 * MARGIN) / (double)c->total : 0;
	FILE *f = NULL;

	if (!otot || !oo || !fo || !ob || !fb || !opos) {
		ret = die("out of memory");
		goto out;
	}
	f = rv_svg_open(out, inputs, ninputs);
	if (!f)
		goto out;
	/* objects by samples */
	for (size_t i = 0; i < ft->n; i++) {
		size_t k = ft->rows[i].obj == HD_NO_OBJECT ? c->nobjs : ft->rows[i].obj;

		otot[k] = hwp_add_sat(otot[k], ft->rows[i].n);
	}
	for (size_t k = 0; k < no; k++)
		oo[k] = (struct ord){ 0, otot[k], k };
	qsort(oo, no, sizeof(*oo), by_group);
	for (size_t k = 0; k < no; k++)
		opos[oo[k].i] = k;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" "
		"font-size=\"12\">\n", W, 50 + ROW * (lines ? 4 : 3) + 40,
		W, 50 + ROW * (lines ? 4 : 3) + 40);
	fputs("<style>g:hover rect{stroke:#000;stroke-width:1}text{pointer-events:none}</style>\n",
	      f);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fdfdfd\"/>\n", f);
	fputs("<text x=\"10\" y=\"20\" font-size=\"15\">hwprof: ", f);
	rp_put(f, d->command ? d->command : "", RP_XML);
	fputs("</text>\n<text x=\"10\" y=\"38\">", f);
	rp_put(f, e->name, RP_XML);
	fprintf(f, ": %llu samples, every %llu; lost %llu, throttled %llu, threads not covered "
		"%llu. Hover a box for its full name.</text>\n", (unsigned long long)c->total,
		(unsigned long long)e->period, (unsigned long long)e->lost,
		(unsigned long long)e->throttled, (unsigned long long)e->missed);

	draw(f, MARGIN, W - 2 * MARGIN, 0, "all", e->name, c->total, c->total, 210, 0);
	{
		double x = MARGIN;

		for (size_t k = 0; k < no; k++) {
			size_t i = oo[k].i;
			const char *name = i == c->nobjs ? "[unknown]" : rv_base(d->objects[i].path);

			ob[i] = (struct box){ x, (double)otot[i] * scale };
			x += ob[i].w;
			if (!otot[i])
				continue;
			if (ob[i].w < MINW) {
				skipped++;
				continue;
			}
			draw(f, ob[i].x, ob[i].w, 1, name,
			     i == c->nobjs ? NULL : d->objects[i].path, otot[i], c->total,
			     hue(name), 0);
		}
	}
	/* functions inside their object, most samples first */
	for (size_t i = 0; i < ft->n; i++) {
		size_t k = ft->rows[i].obj == HD_NO_OBJECT ? c->nobjs : ft->rows[i].obj;

		fo[i] = (struct ord){ opos[k], ft->rows[i].n, i };
	}
	qsort(fo, ft->n, sizeof(*fo), by_group);
	{
		size_t last = SIZE_MAX;
		double x = 0;

		for (size_t j = 0; j < ft->n; j++) {
			const struct rv_row *r = &ft->rows[fo[j].i];
			size_t k = r->obj == HD_NO_OBJECT ? c->nobjs : r->obj;
			char nb[40];

			if (k != last) {
				x = ob[k].x;
				last = k;
			}
			fb[fo[j].i] = (struct box){ x, (double)r->n * scale };
			x += fb[fo[j].i].w;
			if (fb[fo[j].i].w < MINW) {
				skipped++;
				continue;
			}
			draw(f, fb[fo[j].i].x, fb[fo[j].i].w, 2, rv_name(r, nb), rv_base(rv_obj_path(c, r->obj)),
			     r->n, c->total, hue(rv_base(rv_obj_path(c, r->obj))), 1);
		}
	}
	if (lines) {
		/* source lines under their function */
		const struct rv_table *lt = &c->flines;
		struct ord *lo = calloc(lt->n + 1, sizeof(*lo));
		double *fx = calloc(ft->n + 1, sizeof(*fx));

		if (!lo || !fx) {
			free(lo);
			free(fx);
			fclose(f);
			ret = die("out of memory");
			goto out;
		}
		for (size_t i = 0; i < lt->n; i++)
			lo[i] = (struct ord){ (uint64_t)lt->rows[i].parent, lt->rows[i].n, i };
		qsort(lo, lt->n, sizeof(*lo), by_group);
		for (size_t j = 0; j < lt->n; j++) {
			const struct rv_row *r = &lt->rows[lo[j].i];
			char *name = NULL, *what = NULL;
			double w = (double)r->n * scale;
			size_t p = (size_t)r->parent;

			if (r->parent < 0 || p >= ft->n)
				continue;
			if (w < MINW) {
				fx[p] += w;
				skipped++;
				continue;
			}
			{
				char fb2[40];
				const char *pn = rv_name(&ft->rows[p], fb2);
				/* code inlined from another function: say which */
				int other = r->name && strcmp(r->name, pn);

				if (r->file && asprintf(&name, "%s:%d%s%s", rv_base(r->file), r->line,
							other ? " " : "", other ? r->name : "") < 0)
					name = NULL;
			}
			if (r->file && r->name) {
				char *t = NULL;

				if (asprintf(&t, "%s in %s", r->file, r->name) >= 0) {
					free(what);
					what = t;
				}
			}
			draw(f, fb[p].x + fx[p], w, 3, name ? name : "(no line information)",
			     what ? what : r->file, r->n, c->total,
			     hue(rv_base(rv_obj_path(c, r->obj))), 1);
			fx[p] += w;
			free(name);
			free(what);
		}
		free(lo);
		free(fx);
	}
	fprintf(f, "<text x=\"10\" y=\"%.0f\" fill=\"#555\">levels: all, object, function%s",
		50 + ROW * (lines ? 4 : 3) + 16, lines ? ", source line" : "");
	if (skipped)
		fprintf(f, "; %zu boxes too narrow to draw (see the table)", skipped);
	fputs("</text>\n</svg>\n", f);
	if (fflush(f) || ferror(f)) {
		fputs("hwprof: --svg ", stderr);
		rp_put(stderr, out, RP_TEXT);
		fprintf(stderr, ": %s\n", strerror(errno));
		fclose(f);
		goto out;
	}
	if (fclose(f)) {
		ret = die("--svg: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(otot);
	free(oo);
	free(fo);
	free(ob);
	free(fb);
	free(opos);
	return ret;
}
