/* SPDX-License-Identifier: MIT */
/*
 * hwprof annotate: one function of a data file with its samples, line by
 * line of its source when the object has DWARF line information (libdw),
 * else instruction by instruction of its disassembly (objdump(1)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "view.h"

extern char **environ;

static const char annotate_usage[] =
	"usage: hwprof annotate FUNCTION [FILE|DIR...] [OPTIONS]\n"
	"  FUNCTION        a function's name, as report prints it or raw (mangled)\n"
	"  FILE            data file (default hwprof.data); several, or a DIR's\n"
	"                  *.data files, are merged as hwprof report merges them\n"
	"  --event N       the file's event N (default 0)\n"
	"  --asm           the disassembly even when there is line information\n"
	"  --no-demangle   keep C++ names as the object has them\n"
	"  --debug-dir DIR where debug files are (default /usr/lib/debug)\n"
	"  -h, --help      this help\n"
	"exit status: 0, or 1 after one line on stderr (see hwprof(1))\n";

struct hit {
	uint64_t addr, n;
};

static int by_addr(const void *x, const void *y)
{
	const struct hit *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static uint64_t hits_at(const struct hit *h, size_t n, uint64_t addr)
{
	struct hit key = { addr, 0 };
	const struct hit *f = bsearch(&key, h, n, sizeof(*h), by_addr);

	return f ? f->n : 0;
}

/* Prints a line of source or disassembly with its tabs expanded (to
 * 8 columns) and every other control byte escaped. */
static void put_line(const char *s)
{
	size_t n = 0, col = 0;
	char *buf;

	for (const char *p = s; *p; p++)
		n += *p == '\t' ? 8 : 1;
	buf = malloc(n + 1);
	if (!buf) {
		rp_put(stdout, s, RP_TEXT);
		return;
	}
	n = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '\t') {
			do
				buf[n++] = ' ';
			while (++col % 8);
		} else {
			buf[n++] = *p;
			if ((*p & 0xc0) != 0x80)
				col++;
		}
	}
	buf[n] = 0;
	rp_put(stdout, buf, RP_TEXT);
	free(buf);
}

/* Reads a source file's lines (regular files only); NULL when it cannot. */
static char **read_source(const char *path, size_t *nlines)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char **lines = NULL, *buf = NULL;
	size_t cap = 0, n = 0;
	struct stat st;
	FILE *f;

	*nlines = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	while (getline(&buf, &cap, f) > 0) {
		char **nl = realloc(lines, (n + 1) * sizeof(*nl));

		if (!nl)
			break;
		lines = nl;
		buf[strcspn(buf, "\n")] = 0;
		lines[n++] = buf;
		buf = NULL;
		cap = 0;
	}
	free(buf);
	fclose(f);
	*nlines = n;
	return lines;
}

/* Source lines: the function's own file, from its first to its last line,
 * each with its samples; samples of code inlined from elsewhere after. */
static int by_source(struct rp_obj *o, const struct rp_sym *sym, const struct hit *h,
		     size_t nh, uint64_t total)
{
	const char *main_file, *file, *fn;
	int line, lo = 0, hi = 0;
	uint64_t *cnt;
	size_t nsrc = 0;
	char **src;
	struct rv_table other = { 0 };
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t nl;

	if (rp_obj_line(o, sym->lo, &main_file, &line, NULL))
		return -1;
	lo = hi = line;
	/* the function's extent in its file, from the line table */
	if (!rp_obj_cu(o, sym->lo, &cu) && !dwarf_getsrclines(&cu, &lines, &nl)) {
		for (size_t i = 0; i < nl; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr a;
			const char *s;
			int ln;

			if (!l || dwarf_lineaddr(l, &a) || a < sym->lo || a >= sym->hi ||
			    dwarf_lineno(l, &ln) || !ln || !(s = dwarf_linesrc(l, NULL, NULL)) ||
			    strcmp(rp_obj_abs(o, &cu, s), main_file))
				continue;
			if (ln < lo)
				lo = ln;
			if (ln > hi)
				hi = ln;
		}
	}
	if (hi - lo > 100000)
		hi = lo + 100000;
	cnt = calloc((size_t)(hi - lo) + 1, sizeof(*cnt));
	if (!cnt)
		return die("out of memory");
	for (size_t i = 0; i < nh; i++) {
		if (rp_obj_line(o, h[i].addr, &file, &line, &fn)) {
			long k = rv_row(&other, 0, 0);

			if (k >= 0)
				other.rows[k].n = hwp_add_sat(other.rows[k].n, h[i].n);
			continue;
		}
		if (!strcmp(file, main_file) && line >= lo && line <= hi) {
			cnt[line - lo] = hwp_add_sat(cnt[line - lo], h[i].n);
		} else {
			/* inlined from another file (or beyond the extent) */
			uint64_t fh = 1469598103934665603ull;
			long k;

			for (const char *p = file; *p; p++)
				fh = (fh ^ (unsigned char)*p) * 1099511628211ull;
			k = rv_row(&other, fh, (uint64_t)line + 1);
			if (k < 0)
				continue;
			other.rows[k].file = file;
			other.rows[k].line = line;
			other.rows[k].n = hwp_add_sat(other.rows[k].n, h[i].n);
		}
	}
	src = read_source(main_file, &nsrc);
	fputs("# source: ", stdout);
	rp_put(stdout, main_file, RP_TEXT);
	if (!src)
		fputs(" (not readable here: line numbers only)", stdout);
	printf("\n%10s %8s %6s  %s\n", "samples", "percent", "line", "source");
	for (int ln = lo; ln <= hi; ln++) {
		uint64_t n = cnt[ln - lo];

		if (n)
			printf("%10llu %7.2f%% %6d  ", (unsigned long long)n, rv_pct(n, total), ln);
		else
			printf("%10s %8s %6d  ", "", "", ln);
		if (src && ln >= 1 && (size_t)ln <= nsrc)
			put_line(src[ln - 1]);
		putchar('\n');
	}
	if (other.n) {
		printf("# samples at lines outside the function's own (inlined code):\n");
		for (size_t i = 0; i < other.n; i++) {
			const struct rv_row *r = &other.rows[i];

			printf("%10llu %7.2f%%  ", (unsigned long long)r->n, rv_pct(r->n, total));
			if (r->file) {
				rp_put(stdout, r->file, RP_TEXT);
				printf(":%d\n", r->line);
			} else {
				printf("(no line information)\n");
			}
		}
	}
	for (size_t i = 0; i < nsrc; i++)
		free(src[i]);
	free(src);
	free(cnt);
	rv_free(&other);
	return 0;
}

/* Instructions, from objdump -d over the function's range. */
static int by_insn(struct rp_obj *o, const struct rp_sym *sym, const struct hit *h,
		   size_t nh, uint64_t total, const char *fname)
{
	char start[40], stop[40], *line = NULL;
	char *argv[] = { (char *)"objdump", (char *)"-d", (char *)"-w",
			 (char *)"--no-show-raw-insn", start, stop,
			 (char *)(rp_no_demangle ? "--no-demangle" : "--demangle"), (char *)"--",
			 o->textfile, NULL };
	posix_spawn_file_actions_t fa;
	uint64_t shown = 0;
	size_t cap = 0;
	int pfd[2], st, err;
	pid_t pid;
	FILE *f;

	if (!o->textfile) {
		fputs("hwprof: ", stderr);
		rp_put(stderr, fname, RP_TEXT);
		fputs(": no line information, and the object on disk is not the one recorded: "
		      "cannot disassemble it\n", stderr);
		return 1;
	}
	snprintf(start, sizeof(start), "--start-address=%#llx", (unsigned long long)sym->lo);
	snprintf(stop, sizeof(stop), "--stop-address=%#llx", (unsigned long long)sym->hi);
	if (pipe2(pfd, O_CLOEXEC))
		return die("pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = posix_spawnp(&pid, "objdump", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err) {
		close(pfd[0]);
		return die("objdump: %s: install binutils to disassemble", strerror(err));
	}
	f = fdopen(pfd[0], "r");
	if (!f) {
		close(pfd[0]);
		waitpid(pid, &st, 0);
		return die("out of memory");
	}
	printf("# disassembly of ");
	rp_put(stdout, o->textfile, RP_TEXT);
	printf(" (objdump%s)\n%10s %8s  %s\n", rp_obj_dwarf(o) ? "" : "; no line information",
	       "samples", "percent", "address: instruction");
	while (getline(&line, &cap, f) > 0) {
		char *end;
		unsigned long long a;
		const char *p = line;
		uint64_t n;

		line[strcspn(line, "\n")] = 0;
		while (*p == ' ')
			p++;
		a = strtoull(p, &end, 16);
		if (end == p || *end != ':' || end[1] != '\t')
			continue;	/* a header or a label */
		n = hits_at(h, nh, a);
		shown = hwp_add_sat(shown, n);
		if (n)
			printf("%10llu %7.2f%%  ", (unsigned long long)n, rv_pct(n, total));
		else
			printf("%10s %8s  ", "", "");
		put_line(p);
		putchar('\n');
	}
	free(line);
	fclose(f);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return die("objdump failed on %s", o->textfile);
	if (shown < total)
		printf("# %llu samples at addresses that start no instruction objdump shows\n",
		       (unsigned long long)(total - shown));
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	const char *fname = NULL, *evarg = NULL, *file, *v;
	char *deflt = (char *)"hwprof.data";
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int event = 0, asm_only = 0, ret = 1;
	struct rv_inputs in = { 0 };
	size_t nargs = 0;
	const struct rp_sym *best = NULL;
	struct rp_obj *bo = NULL;
	uint64_t bestn = 0;
	struct hit *h = NULL;
	size_t nh = 0;
	struct hd_file d;
	struct rv_ctx c;

	if (!args)
		return die("out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int bad = 0;

		if (a[0] != '-' || !a[1]) {
			if (!fname)
				fname = a;
			else
				args[nargs++] = argv[i];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(annotate_usage, stdout);
			free(args);
			return 0;
		} else if ((v = cli_value(argc, argv, &i, "--event", &bad))) {
			evarg = v;
		} else if ((v = cli_value(argc, argv, &i, "--debug-dir", &bad))) {
			rp_debug_dir = v;
		} else if (bad) {
			die("%s needs a value (see hwprof annotate --help)", a);
			goto out_args;
		} else if (!strcmp(a, "--asm")) {
			asm_only = 1;
		} else if (!strcmp(a, "--no-demangle")) {
			rp_no_demangle = 1;
		} else {
			fputs("hwprof: unknown option ", stderr);
			rp_put(stderr, a, RP_TEXT);
			fputs(" (see hwprof annotate --help)\n", stderr);
			goto out_args;
		}
	}
	if (!nargs)
		args[nargs++] = deflt;
	if (!fname) {
		die("annotate needs a function (see hwprof annotate --help)");
		goto out_args;
	}
	if (evarg && rv_event(evarg, NULL, NULL, &event))
		goto out_args;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		die("libelf: %s", elf_errmsg(-1));
		goto out_args;
	}
	/* several files, or a directory's: merged as report merges them */
	if (rv_inputs(&in, args, nargs) || rv_read(&d, in.files, in.n, 0))
		goto out_args;
	file = in.n > 1 ? "the merged files" : in.files[0];
	if (evarg && rv_event(evarg, &d, file, &event))
		goto out_file;
	if (!d.nevents) {
		die("%s: no events", file);
		goto out_file;
	}
	if (rv_ctx_init(&c, &d, event, RV_VIEW_FUNCS)) {
		die("out of memory");
		goto out_file;
	}
	/* the sampled object whose function of that name took most samples */
	{
		uint64_t *per = calloc(d.nobjects + 1, sizeof(*per));
		const struct rp_sym **sym = calloc(d.nobjects + 1, sizeof(*sym));

		if (!per || !sym) {
			free(per);
			free(sym);
			die("out of memory");
			goto out;
		}
		for (size_t i = 0; i < d.nsamples; i++) {
			const struct hd_sample *s = &d.samples[i];
			struct rp_obj *o;

			if (s->event != (uint32_t)event || s->object == HD_NO_OBJECT)
				continue;
			o = &c.objs[s->object];
			if (!o->loaded) {
				rp_obj_load(o);
				sym[s->object] = rp_obj_find(o, fname);
			}
			if (sym[s->object] && s->addr >= sym[s->object]->lo &&
			    s->addr < sym[s->object]->hi)
				per[s->object] = hwp_add_sat(per[s->object], s->count);
		}
		for (size_t k = 0; k < d.nobjects; k++)
			if (sym[k] && (!best || per[k] > bestn)) {
				best = sym[k];
				bestn = per[k];
				bo = &c.objs[k];
			}
		if (best) {
			h = calloc(d.nsamples + 1, sizeof(*h));
			for (size_t i = 0; h && i < d.nsamples; i++) {
				const struct hd_sample *s = &d.samples[i];

				if (s->event == (uint32_t)event && s->object != HD_NO_OBJECT &&
				    &c.objs[s->object] == bo && s->addr >= best->lo &&
				    s->addr < best->hi)
					h[nh++] = (struct hit){ s->addr, s->count };
			}
		}
		free(per);
		free(sym);
	}
	if (!best) {
		fputs("hwprof: ", stderr);
		rp_put(stderr, fname, RP_TEXT);
		fputs(": no such function in the sampled objects of ", stderr);
		rp_put(stderr, file, RP_TEXT);
		fputc('\n', stderr);
		goto out;
	}
	if (!h) {
		die("out of memory");
		goto out;
	}
	/* one entry per address (a merged file may repeat one per thread) */
	qsort(h, nh, sizeof(*h), by_addr);
	{
		size_t w = 0;

		for (size_t i = 0; i < nh; i++) {
			if (w && h[w - 1].addr == h[i].addr)
				h[w - 1].n = hwp_add_sat(h[w - 1].n, h[i].n);
			else
				h[w++] = h[i];
		}
		nh = w;
	}
	{
		char *name = rv_func_name(best->name);

		printf("# ");
		rp_put(stdout, name ? name : best->name, RP_TEXT);
		printf(" in ");
		rp_put(stdout, bo->path, RP_TEXT);
		printf(": %llu samples of ", (unsigned long long)bestn);
		rp_put(stdout, d.events[event].name, RP_TEXT);
		printf("\n");
		free(name);
	}
	if (asm_only || by_source(bo, best, h, nh, bestn))
		ret = by_insn(bo, best, h, nh, bestn, fname);
	else
		ret = 0;
out:
	free(h);
	rv_ctx_free(&c);
out_file:
	hd_free(&d);
out_args:
	rv_inputs_free(&in);
	free(args);
	return ret ? 1 : 0;
}
