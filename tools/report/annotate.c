/* SPDX-License-Identifier: MIT */
/*
 * hwprof annotate: one function of a data file with its samples, line by
 * line of its source when the object has DWARF line information (libdw)
 * and the source is here, else instruction by instruction of its
 * disassembly (objdump(1)). The function is found as report's --callers
 * finds one (view_match()).
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
#include "commands.h"
#include "merge.h"
#include "rows.h"
#include "view.h"

extern char **environ;

static const char annotate_usage[] =
	"usage: hwprof annotate FUNCTION [FILE|DIR...] [OPTIONS]\n"
	"  FUNCTION        a sampled function: its name as report prints it or raw\n"
	"                  (mangled), without return type, parameters or template\n"
	"                  arguments, or a unique part of it; +0xADDR or\n"
	"                  OBJECT+0xADDR for an address no symbol covers\n"
	"  FILE            data file (default hwprof.data); several, or a DIR's\n"
	"                  *.data files, are merged as hwprof report merges them\n"
	"  --event N       the file's event N (default 0)\n"
	"  --asm           the disassembly even when there is line information\n"
	"  --no-demangle   keep C++ names as the object has them\n"
	"  --debug-dir DIR where debug files are (default /usr/lib/debug)\n"
	"  -h, --help      this help\n"
	"exit status: 0; 1 after one line on stderr; 2 on a usage error (see hwprof(1))\n";

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
		nm_put(stdout, s, NM_TEXT);
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
	nm_put(stdout, buf, NM_TEXT);
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

/* The function's extent [*lo, *hi] in its own file main_file, from the
 * line table of its compile unit (at most 100000 lines). */
static void func_extent(struct sym_obj *o, const struct sym_func *sym, const char *main_file,
			int *lo, int *hi)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t nl;

	if (!sym_obj_cu(o, sym->lo, &cu) && !dwarf_getsrclines(&cu, &lines, &nl)) {
		for (size_t i = 0; i < nl; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr a;
			const char *s;
			int ln;

			if (!l || dwarf_lineaddr(l, &a) || a < sym->lo || a >= sym->hi ||
			    dwarf_lineno(l, &ln) || !ln ||
			    !(s = dwarf_linesrc(l, NULL, NULL)) ||
			    strcmp(sym_obj_abs(o, &cu, s), main_file))
				continue;
			if (ln < *lo)
				*lo = ln;
			if (ln > *hi)
				*hi = ln;
		}
	}
	if (*hi - *lo > 100000)
		*hi = *lo + 100000;
}

/* Adds n samples at (file, line) outside the function's own lines to
 * other; file NULL: no line information. */
static void count_other(struct rows_table *other, const char *file, int line, uint64_t n)
{
	uint64_t fh = 1469598103934665603ull;
	long k;

	if (!file) {
		k = rows_get(other, 0, 0);
		if (k >= 0)
			other->rows[k].n = hwp_add_sat(other->rows[k].n, n);
		return;
	}
	for (const char *p = file; *p; p++)
		fh = (fh ^ (unsigned char)*p) * 1099511628211ull;
	k = rows_get(other, fh, (uint64_t)line + 1);
	if (k < 0)
		return;
	other->rows[k].file = file;
	other->rows[k].line = line;
	other->rows[k].n = hwp_add_sat(other->rows[k].n, n);
}

/* Prints main_file's lines lo to hi, each with its samples cnt[ln - lo]. */
static void print_source(const char *main_file, int lo, int hi, const uint64_t *cnt,
			 uint64_t total)
{
	size_t nsrc = 0;
	char **src = read_source(main_file, &nsrc);

	fputs("# source: ", stdout);
	nm_put(stdout, main_file, NM_TEXT);
	if (!src)
		fputs(" (not readable here: line numbers only)", stdout);
	printf("\n%10s %8s %6s  %s\n", "samples", "percent", "line", "source");
	for (int64_t ln = lo; ln <= hi; ln++) {
		uint64_t n = cnt[ln - lo];

		if (n)
			printf("%10llu %7.2f%% %6d  ", (unsigned long long)n,
			       view_pct(n, total), (int)ln);
		else
			printf("%10s %8s %6d  ", "", "", (int)ln);
		if (src && ln >= 1 && (size_t)ln <= nsrc)
			put_line(src[ln - 1]);
		putchar('\n');
	}
	for (size_t i = 0; i < nsrc; i++)
		free(src[i]);
	free(src);
}

/* Prints the samples at lines outside the function's own. */
static void print_other(const struct rows_table *other, uint64_t total)
{
	if (!other->n)
		return;
	printf("# samples at lines outside the function's own (inlined code):\n");
	for (size_t i = 0; i < other->n; i++) {
		const struct view_row *r = &other->rows[i];

		printf("%10llu %7.2f%%  ", (unsigned long long)r->n, view_pct(r->n, total));
		if (r->file) {
			nm_put(stdout, r->file, NM_TEXT);
			printf(":%d\n", r->line);
		} else {
			printf("(no line information)\n");
		}
	}
}

/* A function named from the lines kept at recording (the object is gone
 * or rebuilt, sym_obj_keep()): its file is that of its hottest sampled
 * line, shown from its first to its last sampled line there and 3 lines
 * around. 0, or -1 when no sampled address has a line. */
static int kept_extent(struct sym_obj *o, const struct hit *h, size_t nh,
		       const char **main_file, int *lo, int *hi)
{
	const char *file, *fn;
	uint64_t best = 0;
	int line;

	*main_file = NULL;
	for (size_t i = 0; i < nh; i++)
		if (!sym_obj_line(o, h[i].addr, &file, &line, &fn) && h[i].n > best) {
			best = h[i].n;
			*main_file = file;
		}
	if (!*main_file)
		return -1;
	*lo = INT32_MAX;
	*hi = 0;
	for (size_t i = 0; i < nh; i++)
		if (!sym_obj_line(o, h[i].addr, &file, &line, &fn) &&
		    !strcmp(file, *main_file)) {
			*lo = line < *lo ? line : *lo;
			*hi = line > *hi ? line : *hi;
		}
	/* the lines come from a file: 3 around them, 100000 at most, no
	 * overflow near INT32_MAX */
	*lo = *lo > 3 ? *lo - 3 : 1;
	*hi = *hi > INT32_MAX - 3 ? INT32_MAX : *hi + 3;
	if ((int64_t)*hi - *lo > 100000)
		*hi = *lo + 100000;
	return 0;
}

/* Source lines: the function's own file, from its first to its last line,
 * each with its samples; samples of code inlined from elsewhere after. */
static int by_source(struct sym_obj *o, const struct sym_func *sym, const struct hit *h,
		     size_t nh, uint64_t total)
{
	const char *main_file, *file, *fn;
	int line, lo, hi;
	struct rows_table other = { 0 };
	uint64_t *cnt;

	if (!sym_obj_line(o, sym->lo, &main_file, &line, NULL)) {
		lo = hi = line;
		func_extent(o, sym, main_file, &lo, &hi);
	} else if (!o->from_kept || kept_extent(o, h, nh, &main_file, &lo, &hi)) {
		return -1;
	}
	if (o->textfile && access(main_file, R_OK)) {
		/* the source is not here, the code is: show the code */
		fputs("# source: ", stdout);
		nm_put(stdout, main_file, NM_TEXT);
		fputs(": not readable here: the disassembly instead\n", stdout);
		return -1;
	}
	cnt = calloc((size_t)(hi - lo) + 1, sizeof(*cnt));
	if (!cnt)
		die("out of memory");
	for (size_t i = 0; i < nh; i++) {
		if (sym_obj_line(o, h[i].addr, &file, &line, &fn))
			count_other(&other, NULL, 0, h[i].n);
		else if (!strcmp(file, main_file) && line >= lo && line <= hi)
			cnt[line - lo] = hwp_add_sat(cnt[line - lo], h[i].n);
		else /* inlined from another file (or beyond the extent) */
			count_other(&other, file, line, h[i].n);
	}
	print_source(main_file, lo, hi, cnt, total);
	print_other(&other, total);
	free(cnt);
	rows_free(&other);
	return 0;
}

/* Instructions, from objdump -d over the function's range. */
static int by_insn(struct sym_obj *o, const struct sym_func *sym, const struct hit *h,
		   size_t nh, uint64_t total, const char *fname)
{
	char start[40], stop[40], *line = NULL;
	char *argv[] = { (char *)"objdump",
			 (char *)"-d",
			 (char *)"-w",
			 (char *)"--no-show-raw-insn",
			 start,
			 stop,
			 (char *)(nm_no_demangle ? "--no-demangle" : "--demangle"),
			 (char *)"--",
			 o->textfile,
			 NULL };
	posix_spawn_file_actions_t fa;
	uint64_t shown = 0;
	size_t cap = 0;
	int pfd[2], st, err;
	pid_t pid;
	FILE *f;

	if (!o->textfile) {
		fputs("hwprof: ", stderr);
		nm_put(stderr, fname, NM_TEXT);
		fputs(": no line information, and the object on disk is not the one recorded: "
		      "cannot disassemble it\n",
		      stderr);
		return 1;
	}
	snprintf(start, sizeof(start), "--start-address=%#llx", (unsigned long long)sym->lo);
	snprintf(stop, sizeof(stop), "--stop-address=%#llx", (unsigned long long)sym->hi);
	if (pipe2(pfd, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = posix_spawnp(&pid, "objdump", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err)
		die("objdump: %s: install binutils to disassemble", strerror(err));
	f = fdopen(pfd[0], "r");
	if (!f) {
		close(pfd[0]);
		waitpid(pid, &st, 0);
		die("out of memory");
	}
	printf("# disassembly of ");
	nm_put(stdout, o->textfile, NM_TEXT);
	printf(" (objdump%s)\n%10s %8s  %s\n", sym_obj_dwarf(o) ? "" : "; no line information",
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
			continue; /* a header or a label */
		n = hits_at(h, nh, a);
		shown = hwp_add_sat(shown, n);
		if (n)
			printf("%10llu %7.2f%%  ", (unsigned long long)n, view_pct(n, total));
		else
			printf("%10s %8s  ", "", "");
		put_line(p);
		putchar('\n');
	}
	free(line);
	fclose(f);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("objdump failed on %s", o->textfile);
	if (shown < total)
		printf("# %llu sample%s at addresses that start no instruction objdump shows\n",
		       (unsigned long long)(total - shown), total - shown == 1 ? "" : "s");
	return 0;
}

struct annotate_args {
	const char *fname, *evarg;
	int asm_only;
	char **args; /* files and directories */
	size_t nargs;
};

/* Parses the command line into a: 0, 1 after one line on stderr, or -1
 * after printing the help. */
static int annotate_parse(int argc, char **argv, struct annotate_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;
		int bad = 0;

		if (arg[0] != '-' || !arg[1]) {
			if (!a->fname)
				a->fname = arg;
			else
				a->args[a->nargs++] = argv[i];
		} else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(annotate_usage, stdout);
			return -1;
		} else if ((v = cli_value(argc, argv, &i, "--event", &bad))) {
			a->evarg = v;
		} else if ((v = cli_value(argc, argv, &i, "--debug-dir", &bad))) {
			sym_debug_dir = v;
		} else if (bad) {
			return usage_error("%s needs a value (see hwprof annotate --help)",
					   arg);
		} else if (!strcmp(arg, "--asm")) {
			a->asm_only = 1;
		} else if (!strcmp(arg, "--no-demangle")) {
			nm_no_demangle = 1;
		} else {
			static const char *const flags[] = { "--help", "--asm",
							     "--no-demangle", NULL };

			if (cli_flag_value(arg, flags, "annotate"))
				return 2;
			fputs("hwprof: unknown option ", stderr);
			nm_put(stderr, arg, NM_TEXT);
			fputs(" (see hwprof annotate --help)\n", stderr);
			return 2;
		}
	}
	if (!a->nargs)
		a->args[a->nargs++] = (char *)"hwprof.data";
	if (!a->fname)
		return usage_error("annotate needs a function (see hwprof annotate --help)");
	return 0;
}

/* The function annotated: its symbol, object, samples and their addresses. */
struct target {
	const struct sym_func *sym;
	struct sym_func unnamed; /* sym for an address no symbol covers */
	uint64_t at;		 /* that address */
	struct sym_obj *o;
	uint64_t n;
	struct hit *h;
	size_t nh;
};

/* Bytes shown around an address no symbol covers (OBJECT+0xADDR). */
#define UNNAMED_SPAN 48

/*
 * The function (or unnamed address) fname means among the event's
 * sampled ones (view_match(): its name, the name without return type and
 * parameters, a unique part of it, OBJECT+0xADDR): fills t (sym NULL:
 * none, or several listed on stderr: *listed set). 0 or -1.
 */
static int find_target(struct view_ctx *c, const char *fname, struct target *t, int *listed)
{
	const struct view_row *r;
	long k;

	if (view_build(c))
		return -1;
	k = view_match(c, &c->rows, fname);
	*listed = k == -2;
	if (k < 0)
		return 0;
	r = &c->rows.rows[k];
	if (r->obj == HD_NO_OBJECT || r->obj >= c->nobjs)
		return 0; /* a pc in no object: nothing to show */
	t->o = &c->objs[r->obj];
	t->n = r->n;
	if ((r->a & ~0xffffffffull) == VIEW_KEY_FUNC && r->b < t->o->nsyms) {
		t->sym = &t->o->syms[r->b];
	} else {
		uint64_t lo = r->b > UNNAMED_SPAN ? (r->b - UNNAMED_SPAN) & ~0xfull : 0;

		t->unnamed = (struct sym_func){ .lo = lo, .hi = r->b + UNNAMED_SPAN };
		t->sym = &t->unnamed;
		t->at = r->b;
	}
	return 0;
}

/* The target's samples, one entry per address, sorted (a merged file may
 * repeat an address once per thread). 0 or -1. */
static int target_hits(const struct view_ctx *c, struct target *t)
{
	const struct hd_file *d = c->d;
	size_t w = 0;

	t->h = calloc(d->nsamples + 1, sizeof(*t->h));
	if (!t->h)
		return -1;
	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hd_sample *s = &d->samples[i];

		if (s->event == (uint32_t)c->event && s->object != HD_NO_OBJECT &&
		    &c->objs[s->object] == t->o && s->addr >= t->sym->lo &&
		    s->addr < t->sym->hi)
			t->h[t->nh++] = (struct hit){ s->addr, s->count };
	}
	qsort(t->h, t->nh, sizeof(*t->h), by_addr);
	for (size_t i = 0; i < t->nh; i++) {
		if (w && t->h[w - 1].addr == t->h[i].addr)
			t->h[w - 1].n = hwp_add_sat(t->h[w - 1].n, t->h[i].n);
		else
			t->h[w++] = t->h[i];
	}
	t->nh = w;
	return 0;
}

/* Finds and prints the function: 0, or 1 after one line on stderr. */
static int annotate(struct view_ctx *c, const char *fname, const char *file, int asm_only)
{
	struct target t = { 0 };
	char *name = NULL;
	int ret, listed;

	if (find_target(c, fname, &t, &listed))
		die("out of memory");
	if (!t.sym) {
		if (listed)
			return 1;
		fputs("hwprof: ", stderr);
		nm_put(stderr, fname, NM_TEXT);
		fputs(": no such function in the sampled objects of ", stderr);
		nm_put(stderr, file, NM_TEXT);
		fputc('\n', stderr);
		return 1;
	}
	if (target_hits(c, &t))
		die("out of memory");
	if (!t.sym->name) /* the samples of every address shown */
		for (size_t i = t.n = 0; i < t.nh; i++)
			t.n = hwp_add_sat(t.n, t.h[i].n);
	if (t.sym->name)
		name = view_func_name(t.sym->name);
	printf("# ");
	if (t.sym->name)
		nm_put(stdout, name ? name : t.sym->name, NM_TEXT);
	else
		printf("+%#llx (no symbol covers it: the code around it)",
		       (unsigned long long)t.at);
	printf(" in ");
	nm_put(stdout, t.o->path, NM_TEXT);
	printf(": %llu sample%s of ", (unsigned long long)t.n, t.n == 1 ? "" : "s");
	nm_put(stdout, c->d->events[c->event].name, NM_TEXT);
	printf("\n");
	if (t.o->from_kept)
		printf("# the object is gone or not the one recorded: names and lines as kept "
		       "when recorded, no disassembly\n");
	free(name);
	if (asm_only || !t.sym->name || by_source(t.o, t.sym, t.h, t.nh, t.n))
		ret = by_insn(t.o, t.sym, t.h, t.nh, t.n, fname);
	else
		ret = 0;
	free(t.h);
	return ret;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_args a = { 0 };
	struct merge_inputs in = { 0 };
	const char *file;
	int event = 0, ret = 1, r;
	struct hd_file d;
	struct view_ctx c;

	a.args = calloc((size_t)argc + 1, sizeof(*a.args));
	if (!a.args)
		die("out of memory");
	r = annotate_parse(argc, argv, &a);
	if (r) {
		free(a.args);
		return r < 0 ? 0 : r;
	}
	if (a.evarg && view_event(a.evarg, NULL, NULL, &event))
		goto out_args;
	if (elf_version(EV_CURRENT) == EV_NONE)
		die("libelf: %s", elf_errmsg(-1));
	/* several files, or a directory's: merged as report merges them */
	if (merge_inputs(&in, a.args, a.nargs) || merge_read(&d, in.files, in.n, 0))
		goto out_args;
	file = in.n > 1 ? "the merged files" : in.files[0];
	if (a.evarg && view_event(a.evarg, &d, file, &event))
		goto out_file;
	if (!d.nevents)
		die("%s: no events", file);
	if (view_ctx_init(&c, &d, event, VIEW_FUNCS))
		die("out of memory");
	/* the code is shown from the object when it is still the one
	 * recorded; names kept in the file otherwise */
	for (size_t i = 0; i < c.nobjs; i++)
		c.objs[i].prefer_file = 1;
	ret = annotate(&c, a.fname, file, a.asm_only);
	view_ctx_free(&c);
out_file:
	hd_free(&d);
out_args:
	merge_inputs_free(&in);
	free(a.args);
	return ret ? 1 : 0;
}
