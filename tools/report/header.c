/* SPDX-License-Identifier: MIT */
/*
 * The header of hwprof report's text (the command, processes, and every
 * event's statistics) and the warnings of the reported event and of the
 * objects, which report, diff and --ranks print: on stderr, as lines of
 * the output or as JSON strings.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header.h"
#include "names.h"
#include "symbols.h"
#include "view.h"

struct header_notes header_notes;

static int is_clock(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

/* "the share not sampled": an event's own count beside its samples
 * (hwprof-data(5) "count"), the header's line about it */
static void unsampled_line(const struct hd_file *d, const struct hd_event *e)
{
	double share, total, held;

	if (e->count_scope == HD_COUNT_NONE) {
		if (d->job || header_notes.merged) {
			printf("#   count: - (%s): the share not in this profile is "
			       "unknown\n",
			       d->job ? "libhwprof-mpi keeps none" :
					"not every merged file has one");
		}
		return;
	}
	fputs("#   ", stdout);
	if (hd_unsampled(e, &share, &total, &held)) {
		printf("count: %llu%s; without a single period the share not in this "
		       "profile cannot be said\n",
		       (unsigned long long)e->count, is_clock(e->name) ? " ns" : "");
	} else if (e->count_scope == HD_COUNT_ALL) {
		printf("%.1f %% of ", 100 * share);
		nm_put(stdout, e->name, NM_TEXT);
		printf(" time (%.3f s of %.3f s) was spent in the kernel and is not in this "
		       "profile\n",
		       (total - held) / 1e9 > 0 ? (total - held) / 1e9 : 0, total / 1e9);
	} else {
		printf("%.1f %% of the ", 100 * share);
		nm_put(stdout, e->name, NM_TEXT);
		printf(" count in user space (%.0f of %.0f) is not in this profile "
		       "(periods left unfinished, samples lost)\n",
		       total - held > 0 ? total - held : 0, total);
	}
}

/* One warning: on stderr after "hwprof: ", a JSON string, or a line
 * after prefix. */
static void put_warning(FILE *f, const char *prefix, const char *msg, int json, int *first)
{
	if (f == stderr) {
		fputs("hwprof: ", f);
		nm_put(f, msg, NM_TEXT);
		fputc('\n', f);
	} else if (json) {
		fputs(*first ? "" : ", ", f);
		nm_put(f, msg, NM_JSON);
	} else {
		fputs(prefix, f);
		nm_put(f, msg, NM_TEXT);
		fputc('\n', f);
	}
	*first = 0;
}

/* The processes whose end was not seen (hwprof-data(5), "unseen"). */
size_t header_unseen(const struct hd_file *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nprocs; i++)
		n += d->procs[i].how == HD_UNSEEN;
	return n;
}

/* The warnings of the reported event (threads it could not see, samples
 * the kernel dropped, call paths cut or short) and of the objects (kept
 * with their names when recorded, or found when they were named now): to
 * stderr, or into the output. */
void header_warnings(FILE *f, const char *prefix, const struct hd_file *d, int event, int json)
{
	header_warnings_of(f, prefix, d, event, json, 1);
}

void header_warnings_of(FILE *f, const char *prefix, const struct hd_file *d, int event,
			int json, int names)
{
	const struct hd_event *e = &d->events[event];
	size_t unseen = header_unseen(d);
	int first = 1;

	/* the file's own losses first: a partial profile, side-band records
	 * dropped, processes whose end was not seen (hwprof-data(5)) */
	for (int k = 0; k < 3; k++) {
		char msg[512];

		if (k == 0 && d->checkpoint)
			snprintf(msg, sizeof(msg),
				 "warning: the profile is partial: this file is a "
				 "checkpoint that hwprof record wrote while the command ran, and "
				 "the recording never finished (record was killed)");
		else if (k == 1 && d->side_lost)
			snprintf(msg, sizeof(msg),
				 "warning: the kernel dropped %llu side-band "
				 "record%s (mmap, comm, fork, exit): samples of code mapped then "
				 "may be named [unknown], and processes or threads may be missing "
				 "or their end not seen",
				 (unsigned long long)d->side_lost,
				 d->side_lost == 1 ? "" : "s");
		else if (k == 2 && unseen)
			snprintf(msg, sizeof(msg),
				 "warning: %zu process%s ended unseen: %s exit "
				 "record was dropped, or %s state could not be known",
				 unseen, unseen == 1 ? "" : "es",
				 unseen == 1 ? "its" : "their", unseen == 1 ? "its" : "their");
		else
			continue;
		put_warning(f, prefix, msg, json, &first);
	}
	for (int k = 0; k < 4; k++) {
		char msg[512];

		if (k == 0 && e->missed)
			snprintf(msg, sizeof(msg),
				 "warning: %llu thread%s %s not covered (%s): "
				 "the profile misses them",
				 (unsigned long long)e->missed, e->missed == 1 ? "" : "s",
				 e->missed == 1 ? "was" : "were",
				 e->missed_why ? e->missed_why : "reason unknown");
		else if (k == 1 && e->lost)
			snprintf(msg, sizeof(msg),
				 "warning: %llu sample%s lost: the kernel "
				 "dropped %s",
				 (unsigned long long)e->lost, e->lost == 1 ? " was" : "s were",
				 e->lost == 1 ? "it" : "them");
		else if (k == 2 && e->callgraph != HD_CG_NONE && e->cut)
			snprintf(msg, sizeof(msg),
				 "warning: %llu of %llu call paths (%.2f%%) were "
				 "cut short when recorded (%s): callers beyond it are missing",
				 (unsigned long long)e->cut, (unsigned long long)e->chains,
				 view_pct(e->cut, e->chains),
				 e->callgraph == HD_CG_DWARF ?
					 "the end of the stack copy, or 127 frames: record with a larger "
					 "--call-graph dwarf,SIZE" :
					 "the kernel's depth limit, kernel.perf_event_max_stack");
		/* the cut paths end short too, and have their own warning and
		 * cure: the rest are the ones a missing frame hid */
		else if (k == 3 && e->callgraph != HD_CG_NONE && header_notes.paths_counted &&
			 header_notes.paths_short > e->cut)
			snprintf(msg, sizeof(msg),
				 "warning: %llu of %llu samples (%.2f%%) have a "
				 "call path that ends short of a thread's entry (_start, "
				 "__libc_start_main, start_thread, clone, clone3)%s: %s",
				 (unsigned long long)(header_notes.paths_short - e->cut),
				 (unsigned long long)e->chains,
				 view_pct(header_notes.paths_short - e->cut, e->chains),
				 e->cut ? " and was not cut short" : "",
				 e->callgraph == HD_CG_DWARF ?
					 "code without call-frame information (or a stack copy too "
					 "small) hid its callers" :
					 "a frame without a frame pointer hid its callers; build with "
					 "-fno-omit-frame-pointer or record with --call-graph dwarf");
		else
			continue;
		put_warning(f, prefix, msg, json, &first);
	}
	/* what was wrong with an object when recorded, and when named now
	 * (stderr has had those already) */
	for (size_t i = 0; i < d->nobjects; i++) {
		char *msg;

		if (!d->objects[i].kept_why ||
		    asprintf(&msg, "warning: %s: %s", d->objects[i].path,
			     d->objects[i].kept_why) < 0)
			continue;
		put_warning(f, prefix, msg, json, &first);
		free(msg);
	}
	for (size_t i = 0; names && f != stderr && i < sym_nwarnings; i++)
		put_warning(f, prefix, sym_warnings[i], json, &first);
	if (header_notes.lines_msg)
		put_warning(f, prefix, header_notes.lines_msg, json, &first);
}

void header_text(const struct view_ctx *c)
{
	const struct hd_file *d = c->d;

	fputs("# command: ", stdout);
	nm_put(stdout, d->command ? d->command : (d->nprocs ? d->procs[0].command : ""),
	       NM_TEXT);
	/* a version 1 file names one process and no thread: its threads
	 * are not known (lib/profile/data-read.c keeps one for the process) */
	if (d->version == 1)
		printf("\n# processes: %zu  threads: not listed (version 1 file)\n",
		       d->nprocs);
	else if (d->job && !d->nthreads)
		printf("\n# processes: %zu (the ranks)  threads: not kept in a job file of "
		       "libhwprof-mpi\n",
		       d->nprocs);
	else if (d->job)
		printf("\n# processes: %zu (the ranks)  threads: %zu kept (each rank's most "
		       "sampled; tid -: the rest of a rank's)\n",
		       d->nprocs, d->nthreads);
	else
		printf("\n# processes: %zu  threads: %zu\n", d->nprocs, d->nthreads);
	/* the side band is hwprof record's: not in a job file, nor in a
	 * version 1 file of the preloaded recorder */
	if (d->version != 1 && !d->job)
		printf("# side-band records lost: %llu (mmap, comm, fork, exit)  processes "
		       "whose end was not seen: %zu%s\n",
		       (unsigned long long)d->side_lost, header_unseen(d),
		       d->checkpoint ? "  partial: a checkpoint" : "");
	/* hwprof record and the engine ask the kernel for user-space samples
	 * only (hwprof(1), "User space only") */
	printf("# user space only: time in the kernel (system calls, page-fault handling, "
	       "interrupts) is not sampled\n");
	for (size_t i = 0; i < d->nevents; i++) {
		const struct hd_event *e = &d->events[i];

		printf("# event %zu%s: ", i, (int)i == c->event ? " (this report)" : "");
		nm_put(stdout, e->name, NM_TEXT);
		/* period 0 (hwprof-data(5)): no single one, or none known */
		if (e->period)
			printf(", one sample every %llu%s\n", (unsigned long long)e->period,
			       is_clock(e->name) ? " ns" : " events");
		else if (d->job && !e->samples && e->missed >= d->nprocs)
			printf(", no period: no rank had a profile\n");
		else if (d->job && !header_notes.merged)
			printf(", periods differ between the ranks\n");
		else if (header_notes.merged)
			printf(", periods differ between the merged files\n");
		else
			printf(", the kernel adjusted the period to a rate (hwprof record -F)\n");
		printf("#   samples: %llu  lost: %llu  throttled: %llu  threads not covered: %llu",
		       (unsigned long long)e->samples, (unsigned long long)e->lost,
		       (unsigned long long)e->throttled, (unsigned long long)e->missed);
		if (e->missed) {
			fputs(" (", stdout);
			nm_put(stdout, e->missed_why ? e->missed_why : "reason unknown",
			       NM_TEXT);
			fputc(')', stdout);
		}
		fputc('\n', stdout);
		unsampled_line(d, e);
		if (e->callgraph != HD_CG_NONE)
			printf("#   call paths (%s): %llu samples with one, %llu cut short when "
			       "recorded, %llu frames dropped (not code: 0 or not mapped "
			       "executable)\n",
			       e->callgraph == HD_CG_DWARF ? "dwarf" : "frame pointers",
			       (unsigned long long)e->chains, (unsigned long long)e->cut,
			       (unsigned long long)e->dropped);
	}
	header_warnings(stdout, "# ", d, c->event, 0);
	if (nm_demangle_missing)
		printf("# note: libstdc++.so.6 not found: C++ names are not demangled\n");
	printf("#\n");
}
