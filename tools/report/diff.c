/* SPDX-License-Identifier: MIT */
/*
 * hwprof diff BASE NEW: two profiles compared function by function (or
 * line by line), as perf diff and pprof -diff_base do. Each side is read
 * as report reads its files (a directory: its *.data merged) and named as
 * report names it (names kept at recording: a rebuild between the runs
 * changes nothing). A function is the same on both sides by its name and
 * its object's file name, never by address. Per row: the samples and the
 * share of the event's samples on each side, the change of the share in
 * points, and whether the function's own samples changed beyond sampling
 * noise (hwprof(1), "diff").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libelf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "flame.h"
#include "header.h"
#include "merge.h"
#include "out.h"
#include "view.h"

static const char diff_usage[] =
	"usage: hwprof diff BASE NEW [OPTIONS]\n"
	"  BASE, NEW            data files, or directories of them (merged as report\n"
	"                       merges them): the profile before and after\n"
	"  --event N            BASE's event N, and NEW's event of that name (default 0)\n"
	"  --lines              one row per source line instead of per function\n"
	"  --normalize          scale BASE's samples to NEW's total before comparing\n"
	"                       (runs of different lengths); default: as counted\n"
	"  --format text|csv|json  the output (default text)\n"
	"  --svg OUT            a differential flame graph of NEW (both need call paths):\n"
	"                       red where a path gained samples, blue where it lost\n"
	"  --width N            text: names shortened to N columns (as report)\n"
	"  --no-demangle        keep C++ names as the objects have them\n"
	"  -h, --help           this help\n"
	"exit status: 0; 1 after one line on stderr; 2 on a usage error (see hwprof(1))\n";

/* A change is significant when the function's samples moved by more than
 * this many standard deviations of the sampling noise (Poisson counts). */
#define DIFF_SIGMA  3.0
#define DIFF_SIGMA2 5.0

struct dside {
	struct merge_inputs in;
	struct hd_file d;
	struct view_ctx c;
	int event;
	int built;
	uint64_t total;
};

struct dkey {	   /* a row of one side, by its key */
	char *key; /* name \t object (lines: place \t name \t object) */
	const struct view_row *r;
	uint64_t n;
};

struct drow {
	const char *name, *obj, *place; /* place: file:line, or NULL */
	uint64_t nb, nn;		/* samples in BASE and NEW */
	double pb, pn, delta;		/* shares (%) and NEW - BASE in points */
	double z;			/* (NEW - k BASE) / sigma */
};

struct dargs {
	const char *evarg, *fmt, *svgout;
	int lines, normalize, width, width_set;
	char *side[2];
};

static int by_key(const void *x, const void *y)
{
	return strcmp(((const struct dkey *)x)->key, ((const struct dkey *)y)->key);
}

static const char *obj_of(const struct view_ctx *c, const struct view_row *r)
{
	return view_base(view_obj_path(c, r->obj));
}

/* The place column of a lines-view row: file:line, or "??" */
static char *place_of(const struct view_row *r)
{
	char *s = NULL;

	if (!r->file)
		return strdup("??");
	if (asprintf(&s, "%s:%d", view_base(r->file), r->line) < 0)
		return NULL;
	return s;
}

/* The rows of one side with their keys, sorted by key; rows of one key
 * (a function split over several rows) summed. NULL when out of memory. */
static struct dkey *keys_of(const struct view_ctx *c, int lines, size_t *n)
{
	struct dkey *k = calloc(c->rows.n + 1, sizeof(*k));
	size_t w = 0;

	if (!k)
		return NULL;
	for (size_t i = 0; i < c->rows.n; i++) {
		const struct view_row *r = &c->rows.rows[i];
		char buf[40], *pl = lines ? place_of(r) : NULL;

		if ((lines && !pl) || asprintf(&k[i].key, "%s\t%s\t%s", pl ? pl : "",
					       view_name(r, buf), obj_of(c, r)) < 0) {
			free(pl);
			for (size_t j = 0; j < i; j++)
				free(k[j].key);
			free(k);
			return NULL;
		}
		free(pl);
		k[i].r = r;
		k[i].n = r->n;
	}
	qsort(k, c->rows.n, sizeof(*k), by_key);
	for (size_t i = 0; i < c->rows.n; i++) {
		if (w && !strcmp(k[w - 1].key, k[i].key)) {
			k[w - 1].n = hwp_add_sat(k[w - 1].n, k[i].n);
			free(k[i].key);
			continue;
		}
		k[w++] = k[i];
	}
	*n = w;
	return k;
}

static void keys_free(struct dkey *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++)
		free(k[i].key);
	free(k);
}

static int by_change(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	double da = fabs(a->delta), db = fabs(b->delta);
	int c;

	if (da != db)
		return da > db ? -1 : 1;
	if (a->nn + a->nb != b->nn + b->nb)
		return a->nn + a->nb > b->nn + b->nb ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->obj, b->obj);
}

static const char *mark(double z)
{
	return fabs(z) >= DIFF_SIGMA2 ? "**" : fabs(z) >= DIFF_SIGMA ? "*" : "";
}

/* One row of the join: keys kb (BASE) and kn (NEW), either NULL. */
static void fill(struct drow *d, const struct dside *b, const struct dside *nw,
		 const struct dkey *kb, const struct dkey *kn, double k, int lines)
{
	const struct dkey *any = kn ? kn : kb;
	double vb, vn;

	memset(d, 0, sizeof(*d));
	/* the key holds place \t name \t object: point into it */
	d->place = lines ? any->key : NULL;
	d->name = strchr(any->key, '\t') + 1;
	d->obj = strchr(d->name, '\t') + 1;
	d->nb = kb ? kb->n : 0;
	d->nn = kn ? kn->n : 0;
	d->pb = view_pct(d->nb, b->total);
	d->pn = view_pct(d->nn, nw->total);
	d->delta = d->pn - d->pb;
	vb = k * (double)d->nb;
	vn = (double)d->nn;
	/* Poisson noise of both counts, BASE's scaled by k */
	d->z = vn - vb == 0 ? 0 : (vn - vb) / sqrt(vn + k * k * (double)d->nb);
}

/* Splits the key strings at their tabs (after fill() took the pointers). */
static void cut_keys(struct dkey *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (char *p = k[i].key; (p = strchr(p, '\t')); p++)
			*p = 0;
}

static void text_out(const struct drow *r, size_t n, const struct dside *s, double k,
		     int lines)
{
	const char *ev = s[1].d.events[s[1].event].name;
	int used = 55 + (lines ? 33 : 0), ow = (int)strlen("object"), nw;

	/* the function column: 40, narrower where --width leaves less room
	 * once the other columns and the widest object are taken */
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(r[i].obj) > ow)
			ow = (int)strlen(r[i].obj);
	nw = view_pad(40, used + 1 + ow);
	fputs("# base: ", stdout);
	nm_put(stdout, s[0].in.n == 1 ? s[0].in.files[0] : "(merged files)", NM_TEXT);
	printf(", %llu sample%s of ", (unsigned long long)s[0].total,
	       s[0].total == 1 ? "" : "s");
	nm_put(stdout, ev, NM_TEXT);
	fputs("\n# new:  ", stdout);
	nm_put(stdout, s[1].in.n == 1 ? s[1].in.files[0] : "(merged files)", NM_TEXT);
	printf(", %llu sample%s\n", (unsigned long long)s[1].total,
	       s[1].total == 1 ? "" : "s");
	if (k != 1)
		printf("# base normalized: its samples scaled by %.4f to new's total\n", k);
	printf("# change: new's share minus base's, in points; sig: the function's own "
	       "samples changed by more than %.0f (*) or %.0f (**) standard deviations of "
	       "sampling noise\n",
	       DIFF_SIGMA, DIFF_SIGMA2);
	header_warnings_of(stdout, "# base: ", &s[0].d, s[0].event, 0, 0);
	header_warnings_of(stdout, "# new: ", &s[1].d, s[1].event, 0, 0);
	for (size_t i = 0; i < sym_nwarnings; i++) {
		fputs("# ", stdout);
		nm_put(stdout, sym_warnings[i], NM_TEXT);
		putchar('\n');
	}
	printf("#\n%8s %8s %9s %10s %10s %3s  %s%-*s %s\n", "base%", "new%", "change", "base",
	       "new", "sig", lines ? "line                             " : "", nw, "function",
	       "object");
	for (size_t i = 0; i < n; i++) {
		const char *name = view_fit(r[i].name, used + 1 + (int)strlen(r[i].obj));
		int len = (int)strlen(name);

		printf("%7.2f%% %7.2f%% %+9.2f %10llu %10llu %3s  ", r[i].pb, r[i].pn,
		       r[i].delta, (unsigned long long)r[i].nb, (unsigned long long)r[i].nn,
		       mark(r[i].z));
		if (lines) {
			nm_put(stdout, r[i].place, NM_TEXT);
			printf("%*s",
			       (int)(33 - (strlen(r[i].place) < 33 ? strlen(r[i].place) : 32)),
			       "");
		}
		nm_put(stdout, name, NM_TEXT);
		printf("%*s", len < nw ? nw + 1 - len : 1, "");
		nm_put(stdout, r[i].obj, NM_TEXT);
		putchar('\n');
	}
}

static void csv_out(const struct drow *r, size_t n, int lines)
{
	printf("%sfunction,object,base_samples,new_samples,base_percent,new_percent,"
	       "change_points,z,significant\n",
	       lines ? "line," : "");
	for (size_t i = 0; i < n; i++) {
		if (lines) {
			nm_put(stdout, r[i].place, NM_CSV);
			putchar(',');
		}
		nm_put(stdout, r[i].name, NM_CSV);
		putchar(',');
		nm_put(stdout, r[i].obj, NM_CSV);
		printf(",%llu,%llu,%.4f,%.4f,%.4f,%.2f,%d\n", (unsigned long long)r[i].nb,
		       (unsigned long long)r[i].nn, r[i].pb, r[i].pn, r[i].delta, r[i].z,
		       fabs(r[i].z) >= DIFF_SIGMA);
	}
}

static void json_side(const char *key, const struct dside *s)
{
	printf("\"%s\": {\"files\": [", key);
	for (size_t i = 0; i < s->in.n; i++) {
		if (i)
			fputs(", ", stdout);
		nm_put(stdout, s->in.files[i], NM_JSON);
	}
	printf("], \"samples\": %llu, \"warnings\": [", (unsigned long long)s->total);
	header_warnings(stdout, "", &s->d, s->event, 1);
	printf("]}");
}

static void json_out(const struct drow *r, size_t n, const struct dside *s, double k,
		     int lines)
{
	printf("{\"event\": ");
	nm_put(stdout, s[1].d.events[s[1].event].name, NM_JSON);
	printf(", \"view\": \"%s\", \"normalized\": %.6f, \"sigma\": %.1f,\n ",
	       lines ? "lines" : "functions", k, DIFF_SIGMA);
	json_side("base", &s[0]);
	printf(",\n ");
	json_side("new", &s[1]);
	printf(",\n \"rows\": [");
	for (size_t i = 0; i < n; i++) {
		printf("%s\n  {", i ? "," : "");
		if (lines) {
			printf("\"line\": ");
			nm_put(stdout, r[i].place, NM_JSON);
			printf(", ");
		}
		printf("\"function\": ");
		nm_put(stdout, r[i].name, NM_JSON);
		printf(", \"object\": ");
		nm_put(stdout, r[i].obj, NM_JSON);
		printf(", \"base_samples\": %llu, \"new_samples\": %llu, \"base_percent\": %.4f, "
		       "\"new_percent\": %.4f, \"change_points\": %.4f, \"z\": %.3f, "
		       "\"significant\": %s}",
		       (unsigned long long)r[i].nb, (unsigned long long)r[i].nn, r[i].pb,
		       r[i].pn, r[i].delta, r[i].z,
		       fabs(r[i].z) >= DIFF_SIGMA ? "true" : "false");
	}
	printf("\n ]}\n");
}

/* The join of both sides' rows, printed. 0, or 1 after one line. */
static int compare(struct dside *s, const struct dargs *a)
{
	size_t nb = 0, nn = 0, i = 0, j = 0, n = 0;
	struct dkey *kb = keys_of(&s[0].c, a->lines, &nb);
	struct dkey *kn = kb ? keys_of(&s[1].c, a->lines, &nn) : NULL;
	struct drow *r = kn ? calloc(nb + nn + 1, sizeof(*r)) : NULL;
	double k = a->normalize && s[0].total ? (double)s[1].total / (double)s[0].total : 1;

	if (!r)
		die("out of memory");
	while (i < nb || j < nn) {
		int c = i == nb ? 1 : j == nn ? -1 : strcmp(kb[i].key, kn[j].key);

		if (c < 0)
			fill(&r[n++], &s[0], &s[1], &kb[i++], NULL, k, a->lines);
		else if (c > 0)
			fill(&r[n++], &s[0], &s[1], NULL, &kn[j++], k, a->lines);
		else
			fill(&r[n++], &s[0], &s[1], &kb[i++], &kn[j++], k, a->lines);
	}
	cut_keys(kb, nb);
	cut_keys(kn, nn);
	qsort(r, n, sizeof(*r), by_change);
	if (!strcmp(a->fmt, "json"))
		json_out(r, n, s, k, a->lines);
	else if (!strcmp(a->fmt, "csv"))
		csv_out(r, n, a->lines);
	else
		text_out(r, n, s, k, a->lines);
	if (fflush(stdout) || ferror(stdout))
		die("standard output: %s", strerror(errno));
	free(r);
	keys_free(kb, nb);
	keys_free(kn, nn);
	return 0;
}

/* Every input file of both sides (for the check that --svg is none of
 * them), in *all; NULL when out of memory. */
static char **all_inputs(const struct dside *s, size_t *n)
{
	char **all = calloc(s[0].in.n + s[1].in.n + 1, sizeof(*all));

	*n = 0;
	for (int i = 0; all && i < 2; i++)
		for (size_t j = 0; j < s[i].in.n; j++)
			all[(*n)++] = s[i].in.files[j];
	return all;
}

/* --svg: NEW's flame graph coloured by the change from BASE. */
static int diff_svg(struct dside *s, const struct dargs *a, double k)
{
	size_t n;
	char **inputs = all_inputs(s, &n);
	struct out_file of;
	int r;

	if (!inputs)
		die("out of memory");
	r = out_open(&of, "--svg", a->svgout, inputs, n);
	free(inputs);
	if (r)
		return 1;
	r = flame_write_diff(of.f, &s[1].c, &s[0].c, k);
	if (r) {
		out_drop(&of);
		die("out of memory");
	}
	return out_close(&of);
}

/* NEW's event of BASE's event's name: 0, or 1 after one line. */
static int match_event(struct dside *s)
{
	const char *name = s[0].d.events[s[0].event].name;

	for (size_t i = 0; i < s[1].d.nevents; i++)
		if (!strcmp(s[1].d.events[i].name, name)) {
			s[1].event = (int)i;
			return 0;
		}
	fputs("hwprof: diff: ", stderr);
	nm_put(stderr, s[1].in.files[0], NM_TEXT);
	fputs(" has no event ", stderr);
	nm_put(stderr, name, NM_TEXT);
	fputs(" (the base's; --event picks another)\n", stderr);
	return 1;
}

static int parse(int argc, char **argv, struct dargs *a)
{
	int nside = 0;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v;
		int bad = 0;

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(diff_usage, stdout);
			return -1;
		} else if (o[0] != '-' || !o[1]) {
			if (nside == 2)
				return usage_error(
					"diff takes two profiles, BASE and NEW (a third: %s)",
					o);
			a->side[nside++] = argv[i];
		} else if (!strcmp(o, "--lines")) {
			a->lines = 1;
		} else if (!strcmp(o, "--normalize")) {
			a->normalize = 1;
		} else if (!strcmp(o, "--no-demangle")) {
			nm_no_demangle = 1;
		} else if ((v = cli_value(argc, argv, &i, "--event", &bad))) {
			a->evarg = v;
		} else if ((v = cli_value(argc, argv, &i, "--format", &bad))) {
			a->fmt = v;
		} else if ((v = cli_value(argc, argv, &i, "--svg", &bad))) {
			a->svgout = v;
		} else if ((v = cli_value(argc, argv, &i, "--width", &bad))) {
			char *end;
			long w = strtol(v, &end, 10);

			if (*end || end == v || w < 0 || w > 100000 || (w && w < 40))
				return usage_error(
					"--width %s: 0 (no limit) or 40 to 100000 columns", v);
			a->width = (int)w;
			a->width_set = 1;
		} else if (bad) {
			return usage_error("%s needs a value (see hwprof diff --help)", o);
		} else {
			static const char *const flags[] = { "--help", "--lines",
							     "--normalize", "--no-demangle",
							     NULL };

			if (cli_flag_value(o, flags, "diff"))
				return 2;
			fputs("hwprof: unknown option ", stderr);
			nm_put(stderr, o, NM_TEXT);
			fputs(" (see hwprof diff --help)\n", stderr);
			return 2;
		}
	}
	if (nside != 2)
		return usage_error("diff needs BASE and NEW (see hwprof diff --help)");
	if (strcmp(a->fmt, "text") && strcmp(a->fmt, "csv") && strcmp(a->fmt, "json"))
		return usage_error("--format %s: text, csv or json", a->fmt);
	if (a->svgout && a->lines)
		return usage_error("--svg: of functions (no --lines)");
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct dargs a = { .fmt = "text" };
	struct dside s[2];
	int ret, ev = 0;

	memset(s, 0, sizeof(s));
	ret = parse(argc, argv, &a);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (a.evarg && view_event(a.evarg, NULL, NULL, &ev))
		return 2;
	if (elf_version(EV_CURRENT) == EV_NONE)
		die("libelf: %s", elf_errmsg(-1));
	view_width = a.width_set ? a.width : view_terminal_width();
	/* the inputs of both sides, --svg none of them, then the files */
	for (int i = 0; i < 2 && !ret; i++)
		if (merge_inputs(&s[i].in, &a.side[i], 1))
			ret = 1;
	if (!ret && a.svgout) {
		size_t n;
		char **all = all_inputs(s, &n);

		if (!all)
			die("out of memory");
		ret = out_check("--svg", a.svgout, all, n);
		free(all);
	}
	for (int i = 0; i < 2 && !ret; i++)
		if (merge_read(&s[i].d, s[i].in.files, s[i].in.n, 0))
			ret = 1;
	if (ret)
		goto out;
	if (a.evarg && view_event(a.evarg, &s[0].d, a.side[0], &ev)) {
		ret = 1;
		goto out;
	}
	if (!s[0].d.nevents || !s[1].d.nevents)
		die("diff: %s has no events", s[0].d.nevents ? a.side[1] : a.side[0]);
	s[0].event = ev;
	if (match_event(s)) {
		ret = 1;
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		if (view_ctx_init(&s[i].c, &s[i].d, s[i].event,
				  a.lines ? VIEW_LINES : VIEW_FUNCS) ||
		    view_build(&s[i].c))
			die("out of memory");
		s[i].built = 1;
		s[i].total = s[i].c.total;
	}
	for (int i = 0; a.svgout && i < 2; i++)
		if (s[i].d.events[s[i].event].callgraph == HD_CG_NONE) {
			fputs("hwprof: --svg: ", stderr);
			nm_put(stderr, a.side[i], NM_TEXT);
			fputs(": no call paths (record both with hwprof record -g)\n", stderr);
			ret = 1;
			goto out;
		}
	header_warnings(stderr, "", &s[0].d, s[0].event, 0);
	header_warnings(stderr, "", &s[1].d, s[1].event, 0);
	ret = compare(s, &a);
	if (!ret && a.svgout)
		ret = diff_svg(s, &a,
			       a.normalize && s[0].total ?
				       (double)s[1].total / (double)s[0].total :
				       1);
out:
	for (int i = 0; i < 2; i++) {
		if (s[i].built)
			view_ctx_free(&s[i].c);
		hd_free(&s[i].d);
		merge_inputs_free(&s[i].in);
	}
	return ret;
}
