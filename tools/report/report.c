/* SPDX-License-Identifier: MIT */
/*
 * hwprof report: the options, and the profile printed as text, CSV or
 * JSON: a header with the statistics of every event and the warnings
 * (tools/report/header.c), then the rows of the view (tools/report/view.c);
 * the call-path views, --ranks, --svg and --format pprof by their files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callpaths.h"
#include "cli.h"
#include "commands.h"
#include "header.h"
#include "merge.h"
#include "out.h"
#include "pprof.h"
#include "ranks.h"
#include "svg.h"
#include "symbols.h"
#include "view.h"

const char report_usage[] =
	"usage: hwprof report [FILE|DIR...] [OPTIONS]\n"
	"  FILE                 data file (default hwprof.data); several are merged\n"
	"  DIR                  its *.data files, merged (the ranks of an MPI job)\n"
	"  --merge              accepted for compatibility: several files are merged\n"
	"  --event N            report the file's event N (default 0)\n"
	"  --sort samples|total|symbol|imbalance  most samples first (default), most\n"
	"                       samples on call paths through it, by name, or\n"
	"                       (--ranks) by the imbalance's cost, max - mean\n"
	"  --ranks              per function: total, min, mean, max over the MPI ranks,\n"
	"                       max/mean and the rank of the max; per-rank totals;\n"
	"                       a job file's wall-clock time in MPI per call site\n"
	"  --outliers           (--ranks, text) the ranks whose counts differ from the\n"
	"                       job's median beyond sampling noise\n"
	"  --objects            one row per object\n"
	"  --lines              one row per source line (needs debug info)\n"
	"  --threads            one row per thread, with its top function\n"
	"  --processes          one row per process, with its top function\n"
	"  --format text|csv|json|folded|pprof  the output (default text); csv: the\n"
	"                       rows alone, one table; folded: one line per call\n"
	"                       path, FlameGraph's collapsed stacks; pprof:\n"
	"                       gzip-compressed profile.proto (go tool pprof)\n"
	"  --stats FILE         --format csv: the statistics and warnings (--ranks:\n"
	"                       the per-rank totals) as a CSV table into FILE\n"
	"  --callers FUNC       (call paths) who calls FUNC, with the samples of each;\n"
	"                       with --ranks, each caller's spread over the ranks\n"
	"  --callees FUNC       (call paths) what FUNC calls; the shares are of FUNC's\n"
	"                       total (text or json)\n"
	"  --once               --callers/--callees: each path once (FUNC's outermost\n"
	"                       frame for callers, innermost for callees): shares sum\n"
	"                       to 100 %\n"
	"  --comm               --format folded: the process's command as the first\n"
	"                       frame\n"
	"  --tree top-down|bottom-up  (call paths) the calling-context tree\n"
	"  --min PCT            --tree: leave out nodes under PCT % (default 0.5)\n"
	"  --svg OUT            also draw an icicle (object, function, line) into OUT;\n"
	"                       with --ranks, the per-rank spread of the top functions\n"
	"  --width N            text: names shortened so that rows fit N columns\n"
	"                       (parameter lists, then template arguments elided);\n"
	"                       0 (no limit) or 40 to 100000; default: the\n"
	"                       terminal's, no limit when not a terminal\n"
	"  --no-demangle        keep C++ names as the object has them\n"
	"  --debug-dir DIR      where debug files are (default /usr/lib/debug)\n"
	"  -h, --help           this help\n"
	"exit status: 0; 1 after one line on stderr; 2 on a usage error (see hwprof(1))\n";

static const char *obj_name(const struct view_ctx *c, uint32_t obj)
{
	return obj == HD_NO_OBJECT ? VIEW_NO_OBJECT : view_base(c->d->objects[obj].path);
}

static void pad(size_t have, int width)
{
	static const char sp[] = "                                        ";

	while ((int)have < width) {
		size_t k = (size_t)width - have < sizeof(sp) - 1 ? (size_t)width - have :
								   sizeof(sp) - 1;

		fwrite(sp, 1, k, stdout);
		have += k;
	}
}

/* Prints s escaped, padded with spaces to width columns. */
static void cell(const char *s, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (nm_is_plain(s)) {
		size_t n = strlen(s);

		fwrite(s, 1, n, stdout);
		pad(n, width);
		return;
	}
	m = open_memstream(&buf, &len);
	if (!m)
		return;
	nm_put(m, s, NM_TEXT);
	fclose(m);
	printf("%-*s", width, buf ? buf : "");
	free(buf);
}

/* Digits of v ending at end; returns where they start. */
static char *digits(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/*
 * "%7.2f%% %10llu  " of a row's share and samples, without printf (a
 * million rows print in a fraction of the time): the share in hundredths
 * of a percent, rounded half up, exactly (128-bit).
 */
static uint64_t hundredths(uint64_t n, uint64_t total)
{
	return total ? (uint64_t)(((unsigned __int128)n * 10000 + total / 2) / total) : 0;
}

/* "12.345678": the share of n in total in CSV and JSON, with six decimals
 * (rounded half up, exactly), so that a column of many rows sums to 100
 * within 0.01; text rounds to two (lead()). */
static const char *share(uint64_t n, uint64_t total, char buf[32])
{
	uint64_t m = total ? (uint64_t)(((unsigned __int128)n * 100000000 + total / 2) /
					total) :
			     0;

	snprintf(buf, 32, "%llu.%06llu", (unsigned long long)(m / 1000000),
		 (unsigned long long)(m % 1000000));
	return buf;
}

static void lead(uint64_t n, uint64_t total)
{
	uint64_t h = hundredths(n, total);
	char buf[64], *e = buf + sizeof(buf), *p = e, *q;
	uint64_t whole = (uint64_t)(h / 100), frac = (uint64_t)(h % 100);

	*--p = ' ';
	*--p = ' ';
	q = digits(p, n);
	while (p - q < 10)
		*--q = ' ';
	p = q;
	*--p = ' ';
	*--p = '%';
	*--p = (char)('0' + frac % 10);
	*--p = (char)('0' + frac / 10);
	*--p = '.';
	q = digits(p, whole);
	while (p - q < 4)
		*--q = ' ';
	fwrite(q, 1, (size_t)(e - q), stdout);
}

static const char *thread_comm(const struct hd_file *d, uint32_t t)
{
	return d->threads[t].comm ? d->threads[t].comm : "-";
}

/* A command line in the processes view: whole without a width, else its
 * first 32 columns (the column's width), "..." marking the cut. */
static const char *proc_command(const char *cmd)
{
	static char buf[33];

	if (view_width <= 0 || strlen(cmd) <= 32)
		return cmd;
	snprintf(buf, sizeof(buf), "%.29s...", cmd);
	return buf;
}

/* The MPI rank of process proc: its own, the file's, or -1. */
static int rank_of(const struct hd_file *d, uint32_t proc)
{
	return d->procs[proc].rank >= 0 ? d->procs[proc].rank : d->rank;
}

/* Whether --threads and --processes have a rank column: some process has
 * an MPI rank (rank files, merged or not, and job files). */
static int has_ranks(const struct hd_file *d)
{
	for (size_t i = 0; i < d->nprocs; i++)
		if (rank_of(d, (uint32_t)i) >= 0)
			return 1;
	return 0;
}

/* The widest last column of the rows (the object, or its path in the
 * objects view), with the space before it. */
static int last_column(const struct view_ctx *c)
{
	int w = (int)strlen(c->view == VIEW_OBJECTS ? "path" : "object");

	for (size_t i = 0; i < c->rows.n; i++) {
		const struct view_row *r = &c->rows.rows[i];
		int n = (int)strlen(c->view == VIEW_OBJECTS ? view_obj_path(c, r->obj) :
							      obj_name(c, r->obj));

		if (n > w)
			w = n;
	}
	return w + 1;
}

static void text_rows(const struct view_ctx *c)
{
	const struct hd_file *d = c->d;
	int rk = (c->view == VIEW_THREADS || c->view == VIEW_PROCS) && has_ranks(d);
	int lw = c->view == VIEW_FUNCS || c->view == VIEW_OBJECTS || c->view == VIEW_LINES ?
			 last_column(c) :
			 0;
	/* the name column: 40 (32 beside a line), narrower where --width
	 * leaves less room once the other columns and the widest object
	 * are taken */
	int nw = c->view == VIEW_LINES ? view_pad(32, 21 + 33 + lw) :
					 view_pad(40, (c->has_totals ? 42 : 21) + lw);

	switch (c->view) {
	case VIEW_FUNCS:
		if (c->has_totals)
			printf("%8s %10s  %8s %10s  %-*s %s\n", "self", "samples", "total",
			       "samples", nw, "function", "object");
		else
			printf("%8s %10s  %-*s %s\n", "percent", "samples", nw, "function",
			       "object");
		break;
	case VIEW_OBJECTS:
		printf("%8s %10s  %-*s %s\n", "percent", "samples", nw, "object", "path");
		break;
	case VIEW_LINES:
		printf("%8s %10s  %-32s %-*s %s\n", "percent", "samples", "line", nw,
		       "function", "object");
		break;
	case VIEW_THREADS:
		printf("%8s %10s  %-8s %-8s ", "percent", "samples", "tid", "pid");
		if (rk)
			printf("%-6s ", "rank");
		printf("%-16s %s\n", "comm", "top function");
		break;
	case VIEW_PROCS:
		printf("%8s %10s  %-8s ", "percent", "samples", "pid");
		if (rk)
			printf("%-6s ", "rank");
		printf("%-32s %s\n", "command", "top function");
		break;
	}
	for (size_t i = 0; i < c->rows.n; i++) {
		const struct view_row *r = &c->rows.rows[i];
		char nb[40];
		const char *name = view_name(r, nb);
		int ow = (int)strlen(obj_name(c, r->obj)) + 1;

		lead(r->n, c->total);
		switch (c->view) {
		case VIEW_FUNCS:
			if (c->has_totals)
				lead(r->total, c->total);
			cell(view_fit(name, (c->has_totals ? 42 : 21) + ow), nw);
			putchar(' ');
			cell(obj_name(c, r->obj), 0);
			break;
		case VIEW_OBJECTS:
			cell(name, nw);
			putchar(' ');
			cell(view_obj_path(c, r->obj), 0);
			break;
		case VIEW_LINES: {
			char *at = NULL;

			if (r->file && asprintf(&at, "%s:%d", view_base(r->file), r->line) < 0)
				at = NULL;
			cell(at ? at : "??", 32);
			free(at);
			putchar(' ');
			cell(view_fit(name, 21 + 33 + ow), nw);
			putchar(' ');
			cell(obj_name(c, r->obj), 0);
			break;
		}
		case VIEW_THREADS:
			cell(name, 8);
			printf(" %-8d ", d->procs[d->threads[r->aux].proc].pid);
			if (rk)
				printf("%-6d ", rank_of(d, d->threads[r->aux].proc));
			cell(thread_comm(d, r->aux), 16);
			putchar(' ');
			cell(view_fit(r->top ? r->top : "-", 21 + 18 + 17 + 10), 0);
			if (r->top) /* none: a job file's thread */
				printf(" (%.2f%%)", view_pct(r->topn, r->n));
			break;
		case VIEW_PROCS:
			cell(name, 8);
			putchar(' ');
			if (rk)
				printf("%-6d ", rank_of(d, r->aux));
			cell(proc_command(d->procs[r->aux].command), 32);
			putchar(' ');
			cell(view_fit(r->top ? r->top : "-", 21 + 9 + 33 + 10), 0);
			if (r->top) /* none: a job file's rank */
				printf(" (%.2f%%)", view_pct(r->topn, r->n));
			break;
		}
		putchar('\n');
	}
}

static void csv_rows(const struct view_ctx *c)
{
	const struct hd_file *d = c->d;
	static const char *const head[] = {
		[VIEW_FUNCS] = "percent,samples,function,object", /* then total_* */
		[VIEW_OBJECTS] = "percent,samples,object,path",
		[VIEW_LINES] = "percent,samples,file,line,function,object,path",
		[VIEW_THREADS] = "percent,samples,tid,pid,comm,top_function,top_samples",
		[VIEW_PROCS] = "percent,samples,pid,ppid,command,top_function,top_samples",
	};

	int rk = (c->view == VIEW_THREADS || c->view == VIEW_PROCS) && has_ranks(d);

	fputs(head[c->view], stdout);
	/* the MPI rank last, so that the columns before keep their places */
	puts(c->has_totals ? ",total_percent,total_samples" : rk ? ",rank" : "");
	for (size_t i = 0; i < c->rows.n; i++) {
		const struct view_row *r = &c->rows.rows[i];
		char nb[40];
		const char *name = view_name(r, nb);

		char sb[32];

		printf("%s,%llu,", share(r->n, c->total, sb), (unsigned long long)r->n);
		switch (c->view) {
		case VIEW_FUNCS:
		case VIEW_OBJECTS:
			nm_put(stdout, name, NM_CSV);
			putchar(',');
			if (c->view == VIEW_FUNCS)
				nm_put(stdout, obj_name(c, r->obj), NM_CSV);
			else
				nm_put(stdout, view_obj_path(c, r->obj), NM_CSV);
			if (c->has_totals)
				printf(",%s,%llu", share(r->total, c->total, sb),
				       (unsigned long long)r->total);
			break;
		case VIEW_LINES:
			nm_put(stdout, r->file ? r->file : "", NM_CSV);
			printf(",%d,", r->file ? r->line : 0);
			nm_put(stdout, name, NM_CSV);
			putchar(',');
			nm_put(stdout, obj_name(c, r->obj), NM_CSV);
			putchar(',');
			nm_put(stdout, view_obj_path(c, r->obj), NM_CSV);
			break;
		case VIEW_THREADS:
			printf("%s,%d,", name, d->procs[d->threads[r->aux].proc].pid);
			nm_put(stdout, thread_comm(d, r->aux), NM_CSV);
			putchar(',');
			nm_put(stdout, r->top ? r->top : "", NM_CSV);
			printf(",%llu", (unsigned long long)r->topn);
			if (rk)
				printf(",%d", rank_of(d, d->threads[r->aux].proc));
			break;
		case VIEW_PROCS:
			printf("%s,%d,", name, d->procs[r->aux].ppid);
			nm_put(stdout, d->procs[r->aux].command, NM_CSV);
			putchar(',');
			nm_put(stdout, r->top ? r->top : "", NM_CSV);
			printf(",%llu", (unsigned long long)r->topn);
			if (rk)
				printf(",%d", rank_of(d, r->aux));
			break;
		}
		putchar('\n');
	}
}

/* The warnings of event (header_warnings()) on one line, joined by "; ";
 * malloc'd, or NULL when out of memory. */
static char *joined_warnings(const struct hd_file *d, int event)
{
	char *w = NULL, *out;
	size_t len = 0, k = 0;
	FILE *m = open_memstream(&w, &len);

	if (!m)
		return NULL;
	header_warnings(m, "", d, event, 0);
	fclose(m);
	out = malloc(2 * len + 1);
	for (size_t i = 0; out && i < len; i++) {
		if (w[i] != '\n') {
			out[k++] = w[i];
		} else if (i + 1 < len) {
			out[k++] = ';';
			out[k++] = ' ';
		}
	}
	if (out)
		out[k] = 0;
	free(w);
	return out;
}

/* --stats FILE with --format csv: the statistics, one row per event, its
 * warnings in the last column. */
static void csv_stats(const struct view_ctx *c, FILE *f)
{
	const struct hd_file *d = c->d;

	fputs("event,name,period,samples,lost,throttled,not_covered,not_covered_why,"
	      "reported,processes,threads,sideband_lost,end_not_seen,checkpoint,"
	      "frames_dropped,count,count_scope,unsampled_percent,warnings\n",
	      f);
	for (size_t i = 0; i < d->nevents; i++) {
		const struct hd_event *e = &d->events[i];
		char *w = joined_warnings(d, (int)i);
		double share;

		fprintf(f, "%zu,", i);
		nm_put(f, e->name, NM_CSV);
		fprintf(f, ",%llu,%llu,%llu,%llu,%llu,", (unsigned long long)e->period,
			(unsigned long long)e->samples, (unsigned long long)e->lost,
			(unsigned long long)e->throttled, (unsigned long long)e->missed);
		nm_put(f, e->missed_why ? e->missed_why : "", NM_CSV);
		fprintf(f, ",%d,%zu,", (int)i == c->event, d->nprocs);
		if (d->version != 1)
			fprintf(f, "%zu", d->nthreads);
		fprintf(f, ",%llu,%zu,%d,", (unsigned long long)d->side_lost, header_unseen(d),
			d->checkpoint);
		/* empty without call paths, as threads is for version 1 */
		if (e->callgraph != HD_CG_NONE)
			fprintf(f, "%llu", (unsigned long long)e->dropped);
		fputc(',', f);
		if (e->count_scope == HD_COUNT_NONE)
			fputs("-,-,-,", f);
		else if (hd_unsampled(e, &share, NULL, NULL))
			fprintf(f, "%llu,%s,-,", (unsigned long long)e->count,
				e->count_scope == HD_COUNT_ALL ? "all" : "user");
		else
			fprintf(f, "%llu,%s,%.17g,", (unsigned long long)e->count,
				e->count_scope == HD_COUNT_ALL ? "all" : "user", 100 * share);
		nm_put(f, w ? w : "(out of memory)", NM_CSV);
		fputc('\n', f);
		free(w);
	}
}

static void json_event(const struct hd_event *e)
{
	printf("\"event\": ");
	nm_put(stdout, e->name, NM_JSON);
	printf(", \"period\": %llu, \"samples\": %llu, \"lost\": %llu, \"throttled\": %llu, "
	       "\"not_covered\": %llu, \"not_covered_why\": ",
	       (unsigned long long)e->period, (unsigned long long)e->samples,
	       (unsigned long long)e->lost, (unsigned long long)e->throttled,
	       (unsigned long long)e->missed);
	if (e->missed_why)
		nm_put(stdout, e->missed_why, NM_JSON);
	else
		printf("null");
	printf(", \"call_paths\": ");
	if (e->callgraph == HD_CG_NONE)
		printf("null");
	else
		printf("{\"mode\": \"%s\", \"samples\": %llu, \"cut\": %llu, "
		       "\"frames_dropped\": %llu}",
		       e->callgraph == HD_CG_DWARF ? "dwarf" : "fp",
		       (unsigned long long)e->chains, (unsigned long long)e->cut,
		       (unsigned long long)e->dropped);
	/* the event's own count; the share of it the samples do not hold
	 * (for scope "all": the kernel's) */
	printf(", \"count\": ");
	if (e->count_scope == HD_COUNT_NONE) {
		printf("null");
	} else {
		double share;

		printf("{\"scope\": \"%s\", \"value\": %llu, \"enabled\": %llu, "
		       "\"running\": %llu, \"unsampled_percent\": ",
		       e->count_scope == HD_COUNT_ALL ? "all" : "user",
		       (unsigned long long)e->count, (unsigned long long)e->enabled,
		       (unsigned long long)e->running);
		if (hd_unsampled(e, &share, NULL, NULL))
			printf("null}");
		else
			printf("%.17g}", 100 * share);
	}
}

static void json_rows(const struct view_ctx *c)
{
	const struct hd_file *d = c->d;

	printf("{");
	json_event(&d->events[c->event]);
	printf(",\n \"event_index\": %d, \"user_space_only\": true, \"processes\": %zu, "
	       "\"threads\": ",
	       c->event, d->nprocs);
	if (d->version == 1 || (d->job && !d->nthreads))
		printf("null"); /* not listed in a version 1 file, nor a job file
				 * without them */
	else
		printf("%zu", d->nthreads);
	printf(", \"sideband_lost\": %llu, \"end_not_seen\": %zu, \"checkpoint\": %s",
	       (unsigned long long)d->side_lost, header_unseen(d),
	       d->checkpoint ? "true" : "false");
	printf(", \"command\": ");
	nm_put(stdout, d->command ? d->command : (d->nprocs ? d->procs[0].command : ""),
	       NM_JSON);
	printf(",\n \"view\": \"%s\", \"total\": %llu,\n \"events\": [",
	       (const char *[]){ "functions", "objects", "lines", "threads",
				 "processes" }[c->view],
	       (unsigned long long)c->total);
	for (size_t i = 0; i < d->nevents; i++) {
		printf("%s{", i ? ", " : "");
		json_event(&d->events[i]);
		printf("}");
	}
	printf("],\n \"warnings\": [");
	header_warnings(stdout, "", d, c->event, 1);
	printf("],\n \"rows\": [");
	for (size_t i = 0; i < c->rows.n; i++) {
		const struct view_row *r = &c->rows.rows[i];
		char nb[40];
		const char *name = view_name(r, nb);

		char sb[32];

		printf("%s\n  {\"percent\": %s, \"samples\": %llu, ", i ? "," : "",
		       share(r->n, c->total, sb), (unsigned long long)r->n);
		switch (c->view) {
		case VIEW_LINES:
			printf("\"file\": ");
			if (r->file)
				nm_put(stdout, r->file, NM_JSON);
			else
				printf("null");
			printf(", \"line\": %d, ", r->file ? r->line : 0);
			/* fall through */
		case VIEW_FUNCS:
			if (c->has_totals)
				printf("\"total_percent\": %s, \"total_samples\": %llu, ",
				       share(r->total, c->total, sb),
				       (unsigned long long)r->total);
			printf("\"function\": ");
			nm_put(stdout, name, NM_JSON);
			printf(", ");
			/* fall through */
		case VIEW_OBJECTS:
			printf("\"object\": ");
			nm_put(stdout, obj_name(c, r->obj), NM_JSON);
			printf(", \"path\": ");
			nm_put(stdout, view_obj_path(c, r->obj), NM_JSON);
			break;
		case VIEW_THREADS:
			/* null: a job file's row of a rank's threads not kept */
			printf("\"tid\": %s, \"pid\": %d, ", strcmp(name, "-") ? name : "null",
			       d->procs[d->threads[r->aux].proc].pid);
			if (rank_of(d, d->threads[r->aux].proc) >= 0)
				printf("\"rank\": %d, ", rank_of(d, d->threads[r->aux].proc));
			printf("\"comm\": ");
			if (d->threads[r->aux].comm)
				nm_put(stdout, d->threads[r->aux].comm, NM_JSON);
			else
				printf("null");
			goto top;
		case VIEW_PROCS:
			printf("\"pid\": %s, \"ppid\": %d, ", name, d->procs[r->aux].ppid);
			if (rank_of(d, r->aux) >= 0)
				printf("\"rank\": %d, ", rank_of(d, r->aux));
			printf("\"command\": ");
			nm_put(stdout, d->procs[r->aux].command, NM_JSON);
top:
			printf(", \"top_function\": ");
			if (r->top)
				nm_put(stdout, r->top, NM_JSON);
			else
				printf("null");
			printf(", \"top_samples\": %llu", (unsigned long long)r->topn);
			break;
		}
		printf("}");
	}
	printf("\n]}\n");
}

struct report_args {
	const char *sort, *fmt, *svgout, *evarg, *statsout;
	const char *callers, *callees, *tree; /* call-path views, or NULL */
	double min_pct;			      /* --tree: nodes left out below */
	int ranks, nview;
	int outliers;	      /* --outliers (with --ranks) */
	int once, comm;	      /* --once (--callers/--callees), --comm (folded) */
	int width, width_set; /* --width, or the terminal's */
	enum view_kind view;
	char **files; /* files and directories */
	size_t nfiles;
};

/* One option at argv[*i] into a: 0, 1 after one line on stderr, or -1
 * after printing the help. */
static int report_option(int argc, char **argv, int *i, struct report_args *a)
{
	const char *arg = argv[*i], *v;
	int bad = 0;

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		fputs(report_usage, stdout);
		return -1;
	} else if ((v = cli_value(argc, argv, i, "--sort", &bad))) {
		a->sort = v;
	} else if ((v = cli_value(argc, argv, i, "--format", &bad))) {
		a->fmt = v;
	} else if ((v = cli_value(argc, argv, i, "--svg", &bad))) {
		a->svgout = v;
	} else if ((v = cli_value(argc, argv, i, "--stats", &bad))) {
		a->statsout = v;
	} else if ((v = cli_value(argc, argv, i, "--width", &bad))) {
		char *end;
		long w = strtol(v, &end, 10);

		if (*end || end == v || w < 0 || w > 100000 || (w && w < 40))
			return usage_error("--width %s: 0 (no limit) or 40 to 100000 columns",
					   v);
		a->width = (int)w;
		a->width_set = 1;
	} else if ((v = cli_value(argc, argv, i, "--event", &bad))) {
		a->evarg = v;
	} else if ((v = cli_value(argc, argv, i, "--callers", &bad))) {
		a->callers = v;
	} else if ((v = cli_value(argc, argv, i, "--callees", &bad))) {
		a->callees = v;
	} else if ((v = cli_value(argc, argv, i, "--tree", &bad))) {
		a->tree = v;
	} else if ((v = cli_value(argc, argv, i, "--min", &bad))) {
		char *end;

		a->min_pct = strtod(v, &end);
		if (*end || end == v || !(a->min_pct >= 0 && a->min_pct <= 100))
			return usage_error("--min %s: a percentage from 0 to 100", v);
	} else if ((v = cli_value(argc, argv, i, "--debug-dir", &bad))) {
		sym_debug_dir = v;
	} else if (bad) {
		return usage_error("%s needs a value (see hwprof report --help)", arg);
	} else if (!strcmp(arg, "--merge")) {
		return 0; /* several files are always merged */
	} else if (!strcmp(arg, "--ranks")) {
		a->ranks = 1;
	} else if (!strcmp(arg, "--outliers")) {
		a->outliers = 1;
	} else if (!strcmp(arg, "--once")) {
		a->once = 1;
	} else if (!strcmp(arg, "--comm")) {
		a->comm = 1;
	} else if (!strcmp(arg, "--no-demangle")) {
		nm_no_demangle = 1;
	} else if (!strcmp(arg, "--objects")) {
		a->view = VIEW_OBJECTS, a->nview++;
	} else if (!strcmp(arg, "--lines")) {
		a->view = VIEW_LINES, a->nview++;
	} else if (!strcmp(arg, "--threads")) {
		a->view = VIEW_THREADS, a->nview++;
	} else if (!strcmp(arg, "--processes")) {
		a->view = VIEW_PROCS, a->nview++;
	} else {
		static const char *const flags[] = { "--help",	      "--merge",     "--ranks",
						     "--outliers",    "--once",	     "--comm",
						     "--no-demangle", "--objects",   "--lines",
						     "--threads",     "--processes", NULL };

		if (cli_flag_value(arg, flags, "report"))
			return 2;
		fputs("hwprof: unknown option ", stderr);
		nm_put(stderr, arg, NM_TEXT);
		fputs(" (see hwprof report --help)\n", stderr);
		return 2;
	}
	return 0;
}

/* Parses and checks the command line: 0, 1 after one line on stderr, or
 * -1 after printing the help. */
static int report_parse(int argc, char **argv, struct report_args *a, int *event)
{
	int dashdash = 0, r;

	for (int i = 1; i < argc; i++) {
		if (dashdash || argv[i][0] != '-' || !argv[i][1])
			a->files[a->nfiles++] = argv[i];
		else if (!strcmp(argv[i], "--"))
			dashdash = 1;
		else if ((r = report_option(argc, argv, &i, a)))
			return r;
	}
	if (!a->nfiles)
		a->files[a->nfiles++] = (char *)"hwprof.data";
	if (strcmp(a->sort, "samples") && strcmp(a->sort, "symbol") &&
	    strcmp(a->sort, "imbalance") && strcmp(a->sort, "total"))
		return usage_error("--sort %s: samples, total, symbol or imbalance", a->sort);
	if (a->tree && strcmp(a->tree, "top-down") && strcmp(a->tree, "bottom-up"))
		return usage_error("--tree %s: top-down or bottom-up", a->tree);
	if (!!a->callers + !!a->callees + !!a->tree > 1)
		return usage_error("--callers, --callees and --tree: one at a time");
	if (a->tree && (a->ranks || a->nview || strcmp(a->fmt, "text") || a->svgout))
		return usage_error("--tree: text, without --ranks, --svg or another view");
	if ((a->callers || a->callees) &&
	    ((a->ranks && !a->callers) || a->nview ||
	     (strcmp(a->fmt, "text") && (a->ranks || strcmp(a->fmt, "json"))) || a->svgout))
		return usage_error(
			"--callers and --callees: text or json, without --ranks (save "
			"--ranks --callers, in text), --svg or another view");
	if (a->once && (!(a->callers || a->callees) || a->ranks))
		return usage_error("--once: with --callers or --callees, without --ranks");
	if (a->comm && strcmp(a->fmt, "folded"))
		return usage_error("--comm: with --format folded");
	if ((!strcmp(a->fmt, "folded") || !strcmp(a->fmt, "pprof")) && (a->ranks || a->nview))
		return usage_error("--format %s: functions only (no --ranks or other view)",
				   a->fmt);
	if (!strcmp(a->fmt, "pprof") && isatty(STDOUT_FILENO))
		return usage_error(
			"--format pprof writes a gzip-compressed file: redirect the output "
			"(> profile.pb.gz)");
	if (!strcmp(a->sort, "imbalance") && !a->ranks)
		return usage_error("--sort imbalance: only with --ranks");
	if (a->outliers && (!a->ranks || strcmp(a->fmt, "text")))
		return usage_error("--outliers: only with --ranks, in text");
	if (a->ranks && a->nview)
		return usage_error(
			"--ranks: not with --objects, --lines, --threads or --processes");
	if (strcmp(a->fmt, "text") && strcmp(a->fmt, "csv") && strcmp(a->fmt, "json") &&
	    strcmp(a->fmt, "folded") && strcmp(a->fmt, "pprof"))
		return usage_error("--format %s: text, csv, json, folded or pprof", a->fmt);
	if (a->nview > 1)
		return usage_error(
			"--objects, --lines, --threads and --processes: one at a time");
	if (a->statsout && strcmp(a->fmt, "csv"))
		return usage_error("--stats FILE: with --format csv (text and JSON hold the "
				   "statistics themselves)");
	if (a->evarg && view_event(a->evarg, NULL, NULL, event))
		return 1;
	view_width = a->width_set ? a->width : view_terminal_width();
	if (elf_version(EV_CURRENT) == EV_NONE)
		die("libelf: %s", elf_errmsg(-1));
	return 0;
}

/* Builds the view of the read files and prints it: 0, or 1 after one
 * line on stderr. */
/* The call-path views (--callers, --callees, --tree, --format folded) and
 * the functions' totals: 0, 1 after one line on stderr, or -1 when the
 * report goes on to its rows. */
static int report_paths(struct view_ctx *c, const struct report_args *a, const char *file)
{
	const struct hd_event *e = &c->d->events[c->event];
	/* --ranks --callers: rk_report() */
	int want = (a->callers && !a->ranks) || a->callees || a->tree, ret = -1;
	struct cp p;

	if (want && e->callgraph == HD_CG_NONE) {
		fputs("hwprof: ", stderr);
		nm_put(stderr, file, NM_TEXT);
		fputs(": no call paths (record with hwprof record -g)\n", stderr);
		return 1;
	}
	if (!strcmp(a->sort, "total") && e->callgraph == HD_CG_NONE)
		return usage_error(
			"--sort total: the file has no call paths (record with -g)");
	if (e->callgraph == HD_CG_NONE && strcmp(a->fmt, "folded") && strcmp(a->fmt, "pprof"))
		return -1;
	if (cp_init(&p, c))
		die("out of memory");
	if (e->callgraph != HD_CG_NONE) {
		if (cp_short(&p, &header_notes.paths_short))
			die("out of memory");
		else
			header_notes.paths_counted = 1;
	}
	if (ret >= 0)
		;
	else if ((a->callers && !a->ranks) || a->callees)
		ret = cp_neighbours(&p, a->callers ? a->callers : a->callees, !!a->callers,
				    a->once, !strcmp(a->fmt, "json"));
	else if (a->tree)
		ret = cp_tree(&p, !strcmp(a->tree, "bottom-up"), a->min_pct);
	else if (!strcmp(a->fmt, "folded"))
		ret = cp_folded(&p, a->comm);
	else if (!strcmp(a->fmt, "pprof"))
		ret = pprof_write(c, stdout);
	else if (c->view == VIEW_FUNCS && cp_totals(&p))
		die("out of memory");
	/* the views that have no header of their own: the warnings on stderr */
	if (ret == 0 && (want || !strcmp(a->fmt, "folded") || !strcmp(a->fmt, "pprof")))
		header_warnings(stderr, "", c->d, c->event, 0);
	cp_free(&p);
	return ret;
}

/* The warning of a --lines view for the objects whose sampled addresses
 * have no line at all (no DWARF, no debug file found): which, their share
 * of the samples (rows "??"), and the cure. NULL when none, or out of
 * memory. Objects without a file ([vdso], [heap]) are not counted. */
static char *no_lines(const struct view_ctx *c)
{
	const struct hd_file *d = c->d;
	uint64_t *n = NULL, none = 0;
	unsigned char *has = NULL;
	size_t nobj = 0, listed = 0;
	char *list = NULL, *msg = NULL;
	size_t llen = 0;
	FILE *lf;

	if (c->view != VIEW_LINES || !c->rows.n || !d->nobjects)
		return NULL;
	n = calloc(d->nobjects, sizeof(*n));
	has = calloc(d->nobjects, 1);
	if (!n || !has)
		goto out;
	for (size_t i = 0; i < c->rows.n; i++) {
		const struct view_row *r = &c->rows.rows[i];

		if (r->obj >= d->nobjects || d->objects[r->obj].path[0] == '[')
			continue;
		has[r->obj] |= !!r->file;
		n[r->obj] = n[r->obj] + r->n < n[r->obj] ? UINT64_MAX : n[r->obj] + r->n;
	}
	lf = open_memstream(&list, &llen);
	if (!lf)
		goto out;
	for (size_t i = 0; i < d->nobjects; i++) {
		if (has[i] || !n[i])
			continue;
		none = none + n[i] < none ? UINT64_MAX : none + n[i];
		if (nobj++ < 4)
			fprintf(lf, "%s%s", nobj > 1 ? ", " : "", obj_name(c, (uint32_t)i)),
				listed++;
	}
	if (nobj > listed)
		fprintf(lf, " and %zu more", nobj - listed);
	if (fclose(lf) || !nobj)
		goto out;
	if (asprintf(&msg,
		     "warning: --lines: %s %s no line information (%llu samples, "
		     "%.2f%%, shown as ?\?): build with -g, install the debug files (Debian: "
		     "the -dbgsym packages), or set DEBUGINFOD_URLS to a debuginfod server",
		     list, nobj == 1 ? "has" : "have", (unsigned long long)none,
		     view_pct(none, c->total)) < 0)
		msg = NULL;
out:
	free(list);
	free(n);
	free(has);
	return msg;
}

static int report_print(const struct hd_file *d, int event, const struct report_args *a,
			const struct merge_inputs *in)
{
	struct view_ctx c;
	char *lines_msg = NULL;
	int ret = 0;

	header_notes.merged = in->n > 1;
	if (view_ctx_init(&c, d, event, a->view) || view_build(&c)) {
		die("out of memory");
	} else if ((ret = report_paths(&c, a,
				       in->n > 1 ? "the merged files" : in->files[0])) >= 0) {
		/* a call-path view, printed (0), or an error (1) */
	} else if (!(ret = 0) && a->ranks) {
		ret = rk_report(&c, a->sort, a->fmt, a->svgout, a->statsout, a->outliers,
				a->callers, in->files, in->n);
	} else if (view_sort(&c, !strcmp(a->sort, "symbol") ? 1 :
				 !strcmp(a->sort, "total")  ? 2 :
							      0)) {
		die("out of memory");
	} else {
		header_notes.lines_msg = lines_msg = no_lines(&c);
		header_warnings(stderr, "", d, event, 0);
		if (!strcmp(a->fmt, "json")) {
			json_rows(&c);
		} else if (!strcmp(a->fmt, "csv")) {
			csv_rows(&c);
		} else {
			header_text(&c);
			text_rows(&c);
		}
		if (fflush(stdout) || ferror(stdout))
			die("standard output: %s", strerror(errno));
		else if (a->svgout)
			ret = svg_write(a->svgout, &c, in->files, in->n);
		if (!ret && a->statsout) {
			struct out_file of;

			if (out_open(&of, "--stats", a->statsout, in->files, in->n)) {
				ret = 1;
			} else {
				csv_stats(&c, of.f);
				ret = out_close(&of);
			}
		}
	}
	view_ctx_free(&c);
	header_notes.lines_msg = NULL;
	free(lines_msg);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .sort = "samples",
				 .fmt = "text",
				 .min_pct = 0.5,
				 .view = VIEW_FUNCS };
	struct merge_inputs in = { 0 };
	const char *file;
	int event = 0, ret;
	struct hd_file d;

	a.files = calloc((size_t)argc + 1, sizeof(char *));
	if (!a.files)
		die("out of memory");
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	ret = report_parse(argc, argv, &a, &event);
	if (!ret && merge_inputs(&in, a.files, a.nfiles))
		ret = 1;
	else if (!ret && a.svgout && out_check("--svg", a.svgout, in.files, in.n))
		ret = 1;
	else if (!ret && a.statsout && out_check("--stats", a.statsout, in.files, in.n))
		ret = 1;
	free(a.files);
	if (ret || merge_read(&d, in.files, in.n, a.ranks)) {
		merge_inputs_free(&in);
		return ret < 0 ? 0 : ret > 1 ? ret : 1;
	}
	file = in.n > 1 ? "the merged files" : in.files[0];
	if (d.job && a.view == VIEW_THREADS && !d.nttotals) {
		fputs("hwprof: ", stderr);
		nm_put(stderr, in.files[0], NM_TEXT);
		fputs(": a job file (libhwprof-mpi) holds no per-thread samples: no --threads "
		      "(--processes lists its ranks; libhwprof-mpi keeps them from hwprof 0.3 on)\n",
		      stderr);
		ret = 1;
	} else if (a.evarg && view_event(a.evarg, &d, file, &event)) {
		ret = 1;
	} else if (!d.nevents) {
		die("%s: no events", file);
	} else {
		ret = report_print(&d, event, &a, &in);
	}
	hd_free(&d);
	merge_inputs_free(&in);
	return ret == 2 ? 2 : ret ? 1 : 0; /* 2: a usage error found with the file */
}
