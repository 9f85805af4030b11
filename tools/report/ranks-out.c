/* SPDX-License-Identifier: MIT */
/*
 * hwprof report --ranks, the output: the per-function spread over the
 * ranks and each rank's samples (tools/report/ranks.c builds them) as
 * text, CSV, JSON and an SVG heat map.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header.h"
#include "out.h"
#include "ranks.h"
#include "view.h"

static const char *obj_base(const struct rk *k, uint32_t obj)
{
	return obj == HD_NO_OBJECT || obj >= k->d->nobjects ?
		       VIEW_NO_OBJECT :
		       view_base(k->d->objects[obj].path);
}

/* The spread of the per-rank samples (or MPI shares): min, mean, max. */
struct spread {
	double min, mean, max;
	int minrank, maxrank;
};

static struct spread spread_of(const struct rk *k, int mpi)
{
	struct spread s = { 0, 0, 0, -1, -1 };

	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];
		double v = mpi ? view_pct(r->mpi, r->samples) : (double)r->samples;

		if (s.minrank < 0 || v < s.min) {
			s.min = v;
			s.minrank = r->rank;
		}
		if (s.maxrank < 0 || v > s.max) {
			s.max = v;
			s.maxrank = r->rank;
		}
		s.mean += v;
	}
	if (k->nranks)
		s.mean /= (double)k->nranks;
	return s;
}

/* The warning about ranks of the world missing, into msg; 0 when none. */
int rk_missing(const struct rk *k, char *msg, size_t len)
{
	int size = k->d->size, first = -1;

	if (size <= 0 || k->nranks >= (size_t)size)
		return 0;
	for (size_t i = 0; i <= k->nranks && first < 0; i++)
		if (i == k->nranks || k->ranks[i].rank != (int)i)
			first = (int)i;
	snprintf(msg, len,
		 "warning: %zu of the %d ranks of the job are present (the first "
		 "missing: rank %d): means and minimums are over the present ones",
		 k->nranks, size, first);
	return 1;
}

static const char *host_of(const struct rk *k, const struct rk_rank *r)
{
	const char *h = k->d->procs[r->proc].host;

	return h ? h : k->d->host ? k->d->host : "";
}

/*
 * Each rank's samples and time in MPI, as mpiP's task table: every rank
 * up to TEXT_RANKS of them; above, the table is in CSV and JSON only.
 */
#define TEXT_RANKS 64

static void text_ranks(const struct rk *k)
{
	if (k->nranks > TEXT_RANKS) {
		printf("\n# %zu ranks: each rank's samples and time in MPI are in "
		       "--format csv or json\n",
		       k->nranks);
		return;
	}
	printf("\n%8s %-24s %10s %10s %10s %8s", "rank", "host", "pid", "samples", "in MPI",
	       "MPI %");
	/* a job file's wall clock: time in MPI calls, its share of MPI_Init
	 * to MPI_Finalize (libhwprof-mpi(7), "Time in MPI") */
	if (k->d->nmranks)
		printf(" %12s %12s %9s", "app s", "MPI s", "MPI time%");
	putchar('\n');
	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];
		const char *h = host_of(k, r);

		printf("%8d ", r->rank);
		if (nm_is_plain(h))
			printf("%-24s ", h);
		else {
			nm_put(stdout, h, NM_TEXT);
			putchar(' ');
		}
		printf("%10d %10llu %10llu %7.2f%%", k->d->procs[r->proc].pid,
		       (unsigned long long)r->samples, (unsigned long long)r->mpi,
		       view_pct(r->mpi, r->samples));
		if (k->d->nmranks && r->timed)
			printf(" %12.6f %12.6f %8.2f%%", (double)r->app_ns / 1e9,
			       (double)r->mpi_ns / 1e9, view_pct(r->mpi_ns, r->app_ns));
		else if (k->d->nmranks)
			printf(" %12s %12s %9s", "?", "?", "?");
		putchar('\n');
	}
}

void rk_text(const struct rk *k)
{
	const struct rows_table *ft = &k->c->rows;
	struct spread s = spread_of(k, 0), m = spread_of(k, 1);
	char msg[256];
	int ow = (int)strlen("object"), nw;

	/* the function column: 40, narrower where --width leaves less room
	 * once the other columns and the widest object are taken */
	for (size_t i = 0; i < k->nrows; i++) {
		int n = (int)strlen(obj_base(k, ft->rows[k->rows[i].row].obj));

		if (n > ow)
			ow = n;
	}
	nw = view_pad(40, 86 + 1 + ow);
	header_text(k->c);
	printf("# ranks: %zu present", k->nranks);
	if (k->d->size > 0)
		printf(" of %d (world size)", k->d->size);
	printf("%s\n", k->d->job ? "; from a job file of libhwprof-mpi" : "");
	printf("# samples per rank: min %.0f (rank %d), mean %.2f, max %.0f (rank %d)\n",
	       s.min, s.minrank, s.mean, s.max, s.maxrank);
	printf("# time in MPI per rank (samples %s): min %.2f%% (rank %d), "
	       "mean %.2f%%, max %.2f%% (rank %d)\n",
	       k->mpi_paths ? "with MPI on their call path" : "in MPI objects", m.min,
	       m.minrank, m.mean, m.max, m.maxrank);
	if (rk_missing(k, msg, sizeof(msg))) {
		fputs("# ", stdout);
		puts(msg);
	}
	if (k->inclusive && k->mpi_paths)
		printf("# --sort total: each function's samples are those of the call paths "
		       "through it (inclusive), per rank\n");
	printf("#\n%10s %10s %12s %10s %9s %8s %12s %6s  %-*s %s\n", "total", "min", "mean",
	       "max", "max/mean", "max-rank", "stddev", "cv", nw, "function", "object");
	for (size_t i = 0; i < k->nrows; i++) {
		const struct rk_row *r = &k->rows[i];
		const struct view_row *fr = &ft->rows[r->row];
		const char *name;
		char nb[40];

		printf("%10llu ", (unsigned long long)r->sum);
		if (r->known)
			printf("%10llu %12.2f %10llu %9.2f %8d ", (unsigned long long)r->min,
			       r->mean, (unsigned long long)r->max, r->ratio, r->maxrank);
		else
			printf("%10s %12.2f %10s %9s %8s ", "?", r->mean, "?", "?", "?");
		if (r->counts)
			printf("%12.2f %6.2f  ", r->sd, r->cv);
		else
			printf("%12s %6s  ", "?", "?");
		name = view_fit(view_name(fr, nb), 86 + 1 + (int)strlen(obj_base(k, fr->obj)));
		if (nm_is_plain(name)) {
			printf("%-*s ", nw, name);
		} else {
			nm_put(stdout, name, NM_TEXT);
			putchar(' ');
		}
		nm_put(stdout, obj_base(k, fr->obj), NM_TEXT);
		putchar('\n');
	}
	text_ranks(k);
}

/* The count of rank column col in row r; *p walks the row's pairs in
 * rank order (call it for col 0, 1, 2...). */
static uint64_t count_at(const struct rk *k, const struct rk_row *r, size_t *p, size_t col)
{
	if (*p < r->c1 && k->pairs[*p].col == col)
		return k->pairs[(*p)++].n;
	return 0;
}

void rk_csv(const struct rk *k)
{
	const struct rows_table *ft = &k->c->rows;

	fputs("total,min,mean,max,max_mean,max_rank,stddev,cv,function,object", stdout);
	for (size_t i = 0; i < k->nranks; i++)
		printf(",rank_%d", k->ranks[i].rank);
	putchar('\n');
	for (size_t i = 0; i < k->nrows; i++) {
		const struct rk_row *r = &k->rows[i];
		const struct view_row *fr = &ft->rows[r->row];
		size_t p = r->c0;
		char nb[40];

		if (r->known)
			printf("%llu,%llu,%.2f,%llu,%.2f,%d,", (unsigned long long)r->sum,
			       (unsigned long long)r->min, r->mean, (unsigned long long)r->max,
			       r->ratio, r->maxrank);
		else
			printf("%llu,,%.2f,,,,", (unsigned long long)r->sum, r->mean);
		if (r->counts)
			printf("%.2f,%.4f,", r->sd, r->cv);
		else
			printf(",,");
		nm_put(stdout, view_name(fr, nb), NM_CSV);
		putchar(',');
		nm_put(stdout, obj_base(k, fr->obj), NM_CSV);
		for (size_t c = 0; c < k->nranks; c++) {
			if (r->counts)
				printf(",%llu", (unsigned long long)count_at(k, r, &p, c));
			else
				putchar(',');
		}
		putchar('\n');
	}
}

void rk_csv_ranks(const struct rk *k, FILE *f)
{
	/* a job file's wall clock in MPI: three more columns */
	fputs(k->d->nmranks ? "rank,host,pid,samples,mpi_samples,mpi_percent,app_seconds,"
			      "mpi_seconds,mpi_time_percent\n" :
			      "rank,host,pid,samples,mpi_samples,mpi_percent\n",
	      f);
	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];
		char sb[32];

		fprintf(f, "%d,", r->rank);
		nm_put(f, host_of(k, r), NM_CSV);
		snprintf(sb, sizeof(sb), "%.2f", view_pct(r->mpi, r->samples));
		fprintf(f, ",%d,%llu,%llu,%s", k->d->procs[r->proc].pid,
			(unsigned long long)r->samples, (unsigned long long)r->mpi, sb);
		/* empty where the rank's clock is not in the file */
		if (r->timed)
			fprintf(f, ",%.9f,%.9f,%.2f", (double)r->app_ns / 1e9,
				(double)r->mpi_ns / 1e9, view_pct(r->mpi_ns, r->app_ns));
		else if (k->d->nmranks)
			fputs(",,,", f);
		fputc('\n', f);
	}
}

static void json_spread(const char *name, struct spread s, int pct)
{
	printf(" \"%s\": {\"min\": %.*f, \"min_rank\": %d, \"mean\": %.4f, \"max\": %.*f, "
	       "\"max_rank\": %d}",
	       name, pct ? 4 : 0, s.min, s.minrank, s.mean, pct ? 4 : 0, s.max, s.maxrank);
}

void rk_json(const struct rk *k)
{
	const struct rows_table *ft = &k->c->rows;
	const struct hd_file *d = k->d;
	char msg[256];

	printf("{\"view\": \"ranks\", \"event\": ");
	nm_put(stdout, d->events[k->c->event].name, NM_JSON);
	printf(", \"event_index\": %d, \"command\": ", k->c->event);
	nm_put(stdout,
	       d->command ? d->command :
	       d->nprocs  ? d->procs[0].command :
			    "",
	       NM_JSON);
	printf(",\n \"job_file\": %s, \"world_size\": ", d->job ? "true" : "false");
	if (d->size > 0)
		printf("%d", d->size);
	else
		printf("null");
	printf(", \"ranks_present\": %zu, \"total\": %llu,\n", k->nranks,
	       (unsigned long long)k->total);
	json_spread("samples_per_rank", spread_of(k, 0), 0);
	printf(",\n");
	json_spread("mpi_percent_per_rank", spread_of(k, 1), 1);
	printf(",\n \"warnings\": [");
	header_warnings(stdout, "", d, k->c->event, 1);
	if (rk_missing(k, msg, sizeof(msg))) {
		int other = d->events[k->c->event].missed || d->events[k->c->event].lost;

		fputs(other ? ", " : "", stdout);
		nm_put(stdout, msg, NM_JSON);
	}
	printf("],\n \"ranks\": [");
	for (size_t i = 0; i < k->nranks; i++)
		printf("%s%d", i ? ", " : "", k->ranks[i].rank);
	printf("],\n \"rows\": [");
	for (size_t i = 0; i < k->nrows; i++) {
		const struct rk_row *r = &k->rows[i];
		const struct view_row *fr = &ft->rows[r->row];
		size_t p = r->c0;
		char nb[40];

		printf("%s\n  {\"function\": ", i ? "," : "");
		nm_put(stdout, view_name(fr, nb), NM_JSON);
		printf(", \"object\": ");
		nm_put(stdout, obj_base(k, fr->obj), NM_JSON);
		printf(", \"path\": ");
		nm_put(stdout, view_obj_path(k->c, fr->obj), NM_JSON);
		printf(", \"total\": %llu, \"mean\": %.4f, ", (unsigned long long)r->sum,
		       r->mean);
		if (r->known)
			printf("\"min\": %llu, \"max\": %llu, \"max_mean\": %.4f, \"max_rank\": %d",
			       (unsigned long long)r->min, (unsigned long long)r->max,
			       r->ratio, r->maxrank);
		else
			printf("\"min\": null, \"max\": null, \"max_mean\": null, \"max_rank\": null");
		if (r->counts)
			printf(", \"stddev\": %.4f, \"cv\": %.4f", r->sd, r->cv);
		else
			printf(", \"stddev\": null, \"cv\": null");
		printf(", \"counts\": ");
		if (!r->counts) {
			printf("null}");
			continue;
		}
		putchar('[');
		for (size_t c = 0; c < k->nranks; c++)
			printf("%s%llu", c ? ", " : "",
			       (unsigned long long)count_at(k, r, &p, c));
		printf("]}");
	}
	printf("\n ],\n \"per_rank\": [");
	for (size_t i = 0; i < k->nranks; i++) {
		const struct rk_rank *r = &k->ranks[i];

		printf("%s\n  {\"rank\": %d, \"host\": ", i ? "," : "", r->rank);
		nm_put(stdout, host_of(k, r), NM_JSON);
		printf(", \"pid\": %d, \"samples\": %llu, \"mpi_samples\": %llu",
		       d->procs[r->proc].pid, (unsigned long long)r->samples,
		       (unsigned long long)r->mpi);
		/* the wall clock in MPI, where the file has the rank's */
		if (r->timed)
			printf(", \"app_seconds\": %.9f, \"mpi_seconds\": %.9f, "
			       "\"mpi_calls\": %llu",
			       (double)r->app_ns / 1e9, (double)r->mpi_ns / 1e9,
			       (unsigned long long)r->calls);
		putchar('}');
	}
	printf("\n ]}\n");
}

/* ------------------------------------------------------------------ */
/* The SVG: one strip per top function, a cell per rank (or bin of ranks)
 * shaded by its count against the function's max, and a min-mean-max bar
 * on the scale of the largest max drawn. */

#define SW	 1200.0 /* drawing width */
#define LABW	 300.0	/* function names */
#define STRIPW	 600.0	/* the per-rank strip */
#define BARX	 (LABW + STRIPW + 30.0)
#define BARW	 (SW - BARX - 90.0)
#define RH	 22.0 /* one function */
#define TOP	 70.0
#define MAXCOLS	 300 /* more ranks than this: binned */
#define MAXFUNCS 30

static void svg_row(FILE *f, const struct rk *k, const struct rk_row *r, size_t i,
		    uint64_t scale, size_t bin, size_t ncols)
{
	const struct view_row *fr = &k->c->rows.rows[r->row];
	double y = TOP + (double)i * RH, cw = STRIPW / (double)ncols;
	char nb[40];
	const char *name = view_name(fr, nb);
	size_t p = r->c0;

	fputs("<g class=\"func\"><title>", f);
	nm_put(f, name, NM_XML);
	fputs(" (", f);
	nm_put(f, obj_base(k, fr->obj), NM_XML);
	fprintf(f, "): total %llu, mean %.2f", (unsigned long long)r->sum, r->mean);
	if (r->known)
		fprintf(f, ", min %llu, max %llu (rank %d), max/mean %.2f",
			(unsigned long long)r->min, (unsigned long long)r->max, r->maxrank,
			r->ratio);
	fputs("</title>\n<text x=\"10\" y=\"", f);
	fprintf(f, "%.0f\">", y + 15);
	{
		/* at most 40 characters of the name */
		char *cut = strndup(name, 40);

		nm_put(f, cut ? cut : "", NM_XML);
		if (cut && strlen(name) > 40)
			fputs("\xe2\x80\xa6", f);
		free(cut);
	}
	fputs("</text>\n", f);
	if (r->counts) {
		for (size_t b = 0; b < ncols; b++) {
			uint64_t sum = 0, mx = 0;
			size_t n = 0;
			double v;

			for (size_t c = b * bin; c < (b + 1) * bin && c < k->nranks;
			     c++, n++) {
				uint64_t x = count_at(k, r, &p, c);

				sum = hwp_add_sat(sum, x);
				if (x > mx)
					mx = x;
			}
			v = r->max && n ? (double)sum / (double)n / (double)r->max : 0;
			fprintf(f,
				"<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" "
				"fill=\"hsl(10,80%%,%.0f%%)\"><title>rank%s %d",
				LABW + b * cw, y, cw, RH - 3, 97 - 55 * v, n > 1 ? "s" : "",
				k->ranks[b * bin].rank);
			if (n > 1)
				fprintf(f, "-%d", k->ranks[b * bin + n - 1].rank);
			fprintf(f, ": %s %.1f, max %llu</title></rect>\n",
				n > 1 ? "mean" : "count", n ? (double)sum / (double)n : 0,
				(unsigned long long)mx);
		}
	} else {
		fprintf(f,
			"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
			"fill=\"#eee\"/><text x=\"%.0f\" y=\"%.0f\" fill=\"#777\">per-rank counts "
			"not in the job file (not a top function)</text>\n",
			LABW, y, STRIPW, RH - 3, LABW + 6, y + 15);
	}
	/* min-mean-max */
	{
		double sx = scale ? BARW / (double)scale : 0, my = y + (RH - 3) / 2;

		if (r->known) {
			fprintf(f,
				"<line class=\"range\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
				"y2=\"%.1f\" stroke=\"#444\" stroke-width=\"2\"/>\n",
				BARX + sx * (double)r->min, my, BARX + sx * (double)r->max,
				my);
			fprintf(f,
				"<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" "
				"stroke=\"#444\"/><line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" "
				"y2=\"%.0f\" stroke=\"#c00\" stroke-width=\"2\"/>\n",
				BARX + sx * (double)r->min, y + 3, BARX + sx * (double)r->min,
				y + RH - 6, BARX + sx * (double)r->max, y + 3,
				BARX + sx * (double)r->max, y + RH - 6);
		}
		fprintf(f,
			"<rect class=\"mean\" x=\"%.2f\" y=\"%.0f\" width=\"4\" height=\"%.0f\" "
			"fill=\"#06c\"/>\n",
			BARX + sx * r->mean - 2, y + 2, RH - 7);
		if (r->known)
			fprintf(f,
				"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.2f</text>\n",
				SW - 20, y + 15, r->ratio);
	}
	fputs("</g>\n", f);
}

int rk_svg(const struct rk *k, const char *out, char **inputs, size_t ninputs)
{
	const struct hd_file *d = k->d;
	size_t nf = k->nrows < MAXFUNCS ? k->nrows : MAXFUNCS;
	size_t bin = (k->nranks + MAXCOLS - 1) / MAXCOLS, ncols;
	uint64_t scale = 0;
	struct out_file of;
	double h;
	FILE *f;

	if (!bin)
		bin = 1;
	ncols = k->nranks ? (k->nranks + bin - 1) / bin : 1;
	for (size_t i = 0; i < nf; i++)
		if (k->rows[i].known ? k->rows[i].max > scale :
				       k->rows[i].mean > (double)scale)
			scale = k->rows[i].known ? k->rows[i].max :
						   (uint64_t)k->rows[i].mean + 1;
	if (out_open(&of, "--svg", out, inputs, ninputs))
		return 1;
	f = of.f;
	h = TOP + RH * (double)nf + 40;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" "
		"font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdfd\"/>\n"
		"<text x=\"10\" y=\"20\" font-size=\"15\">hwprof report --ranks: ",
		SW, h, SW, h);
	nm_put(f, d->command ? d->command : d->nprocs ? d->procs[0].command : "", NM_XML);
	fputs("</text>\n<text x=\"10\" y=\"38\">", f);
	nm_put(f, d->events[k->c->event].name, NM_XML);
	fprintf(f, ": top %zu functions over %zu ranks", nf, k->nranks);
	if (d->size > 0)
		fprintf(f, " (world size %d)", d->size);
	if (bin > 1)
		fprintf(f, ", %zu ranks per cell (their mean)", bin);
	fputs(". Hover for counts.</text>\n", f);
	fprintf(f,
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">rank %d</text>"
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\" text-anchor=\"end\">rank %d</text>\n"
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">min-max, mean (0 to %llu)</text>"
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\" text-anchor=\"end\">max/mean</text>\n",
		LABW, TOP - 8, k->nranks ? k->ranks[0].rank : 0, LABW + STRIPW, TOP - 8,
		k->nranks ? k->ranks[k->nranks - 1].rank : 0, BARX, TOP - 8,
		(unsigned long long)scale, SW - 20, TOP - 8);
	for (size_t i = 0; i < nf; i++)
		svg_row(f, k, &k->rows[i], i, scale, bin, ncols);
	fprintf(f,
		"<text x=\"10\" y=\"%.0f\" fill=\"#555\">each strip: a function's samples "
		"per rank, darker is nearer its max; right: its min to max over the ranks, "
		"mean in blue</text>\n</svg>\n",
		h - 14);
	return out_close(&of);
}
