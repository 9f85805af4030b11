/* SPDX-License-Identifier: MIT */
/*
 * hwprof report: reads a data file (hwprof-data(5)), gives each sampled
 * address its function from the object's ELF symbols (libelf; a
 * .gnu_debuglink or build-id debug file when the object is stripped), and
 * prints a flat profile as text, CSV or JSON, or draws it as SVG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct sym {
	uint64_t lo, hi;	/* file addresses */
	char *name;
};

struct object {
	int event;
	uint64_t start, end, base;
	char buildid[130];
	char *path;
	struct sym *syms;
	size_t nsyms;
	int symbolized;
};

struct event {
	uint64_t period, samples, lost, throttled, folded, outside, saturated;
	unsigned int precise, threads;
	char name[256];
};

struct row {			/* one function (or object+offset) */
	char *func;
	const char *obj;
	uint64_t n;
};

static struct event evs[8];
static int nev;
static struct object *objs;
static size_t nobj;
static struct row *rows;
static size_t nrows, caprows;
static char command[4096];
static unsigned int bytes = 8;

/* ------------------------------------------------------------------ */
/* Symbols                                                              */

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void free_syms(struct object *o)
{
	for (size_t i = 0; i < o->nsyms; i++)
		free(o->syms[i].name);
	free(o->syms);
	o->syms = NULL;
	o->nsyms = 0;
}

/* Loads the function symbols of file into o, replacing what o had:
 * .symtab, or .dynsym when there is none. Returns 1 for a .symtab, 0 for
 * .dynsym only, -1 when the file cannot be read (o is then untouched). */
static int load_syms(const char *file, struct object *o)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), have_symtab = 0;
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	Elf *e;

	if (fd < 0)
		return -1;
	free_syms(o);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			have_symtab = 1;
	}
	scn = NULL;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    sh.sh_type != (have_symtab ? SHT_SYMTAB : SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
			    s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (!n || !*n)
				continue;
			if (o->nsyms == cap) {
				struct sym *ns;

				cap = cap ? 2 * cap : 256;
				ns = realloc(o->syms, cap * sizeof(*ns));
				if (!ns)
					break;
				o->syms = ns;
			}
			o->syms[o->nsyms++] = (struct sym){ s.st_value,
				s.st_value + (s.st_size ? s.st_size : 1), strdup(n) };
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
	/* a symbol of size 0 runs to the next one */
	for (size_t i = 0; i + 1 < o->nsyms; i++)
		if (o->syms[i].hi == o->syms[i].lo + 1 && o->syms[i + 1].lo > o->syms[i].lo)
			o->syms[i].hi = o->syms[i + 1].lo;
	return have_symtab;
}

/* The debug-link name of a stripped file, or "". */
static void debuglink(const char *file, char *out, size_t len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	size_t shstr;
	Elf *e;

	out[0] = 0;
	if (fd < 0)
		return;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstr)) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(e, shstr, sh.sh_name);
			if (!n || strcmp(n, ".gnu_debuglink"))
				continue;
			d = elf_getdata(scn, NULL);
			if (d && d->d_size)
				snprintf(out, len, "%.*s", (int)d->d_size, (const char *)d->d_buf);
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

static int find_debug(struct object *o, char *dir, size_t dlen, char *link,
		      size_t llen, char *cand, size_t clen);

/* The symbols of o: its own .symtab, else a debug file's, else .dynsym. */
static void symbolize(struct object *o)
{
	char dir[4096], link[256], cand[8400];
	char *slash;

	(void)slash;
	o->symbolized = 1;
	if (load_syms(o->path, o) > 0)
		return;
	{	/* keep .dynsym aside in case no debug file has a .symtab */
		struct object dyn = *o;

		o->syms = NULL;
		o->nsyms = 0;
		if (find_debug(o, dir, sizeof(dir), link, sizeof(link), cand, sizeof(cand))) {
			free_syms(&dyn);
			return;
		}
		free_syms(o);
		o->syms = dyn.syms;
		o->nsyms = dyn.nsyms;
	}
}

/* Loads the first debug file of o that has a .symtab: by build-id under
 * /usr/lib/debug, then by .gnu_debuglink beside it, in .debug/, under
 * /usr/lib/debug. Returns 1 when one was found. */
static int find_debug(struct object *o, char *dir, size_t dlen, char *link,
		      size_t llen, char *cand, size_t clen)
{
	char *slash;

	snprintf(dir, dlen, "%s", o->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	if (strlen(o->buildid) > 2) {
		snprintf(cand, clen, "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 o->buildid, o->buildid + 2);
		if (!access(cand, R_OK) && load_syms(cand, o) > 0)
			return 1;
	}
	debuglink(o->path, link, llen);
	if (*link) {
		for (int i = 0; i < 3; i++) {
			if (i == 0)
				snprintf(cand, clen, "%s/%s", dir, link);
			else if (i == 1)
				snprintf(cand, clen, "%s/.debug/%s", dir, link);
			else
				snprintf(cand, clen, "/usr/lib/debug%s/%s", dir, link);
			if (!access(cand, R_OK) && load_syms(cand, o) > 0)
				return 1;
		}
	}
	return 0;
}

static const char *lookup(const struct object *o, uint64_t addr)
{
	size_t a = 0, b = o->nsyms;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (o->syms[m].lo <= addr)
			a = m + 1;
		else
			b = m;
	}
	if (a && addr < o->syms[a - 1].hi)
		return o->syms[a - 1].name;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Reading the data file                                                */

static void add(const char *func, const char *obj, uint64_t n)
{
	/* buckets come in address order: mostly the same function as the last */
	if (nrows && rows[nrows - 1].obj == obj && !strcmp(rows[nrows - 1].func, func)) {
		rows[nrows - 1].n += n;
		return;
	}
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].obj == obj && !strcmp(rows[i].func, func)) {
			rows[i].n += n;
			return;
		}
	if (nrows == caprows) {
		caprows = caprows ? 2 * caprows : 256;
		rows = realloc(rows, caprows * sizeof(*rows));
		if (!rows)
			exit(die("out of memory"));
	}
	rows[nrows++] = (struct row){ strdup(func), obj, n };
}

static int parse(const char *file, int event)
{
	char line[8192];
	struct object *o = NULL;
	int version = 0, ended = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return die("%s: %s", file, strerror(errno));
	if (!fgets(line, sizeof(line), f) || sscanf(line, "hwprof-data %d", &version) != 1) {
		fclose(f);
		return die("%s: not an hwprof data file", file);
	}
	if (version != 1) {
		fclose(f);
		return die("%s: data file version %d; this hwprof reads version 1", file, version);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, c;
		char *p;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "command ", 8)) {
			snprintf(command, sizeof(command), "%.4000s", line + 8);
		} else if (sscanf(line, "bucket-bytes %u", &bytes) == 1 ||
			   sscanf(line, "pid %llu", &a) == 1) {
			;
		} else if (!strncmp(line, "event ", 6)) {
			struct event *e = &evs[nev < 8 ? nev : 7];
			int idx, used = 0;

			if (sscanf(line, "event %d %llu %llu %llu %llu %llu %llu %llu %u %u %n",
				   &idx, (unsigned long long *)&e->period,
				   (unsigned long long *)&e->samples, (unsigned long long *)&e->lost,
				   (unsigned long long *)&e->throttled, (unsigned long long *)&e->folded,
				   (unsigned long long *)&e->outside,
				   (unsigned long long *)&e->saturated, &e->precise, &e->threads,
				   &used) < 10 || !used)
				goto bad;
			snprintf(e->name, sizeof(e->name), "%s", line + used);
			if (nev < 8)
				nev++;
		} else if (!strncmp(line, "object ", 7)) {
			int ev, loaded, used = 0;
			size_t nz;
			char bid[130];

			if (sscanf(line, "object %d %llx %llx %llx %129s %d %zu %n", &ev, &a, &b,
				   &c, bid, &loaded, &nz, &used) < 7 || !used)
				goto bad;
			objs = realloc(objs, (nobj + 1) * sizeof(*objs));
			if (!objs)
				exit(die("out of memory"));
			o = &objs[nobj++];
			memset(o, 0, sizeof(*o));
			o->event = ev;
			o->start = a;
			o->end = b;
			o->base = c;
			snprintf(o->buildid, sizeof(o->buildid), "%s", bid);
			o->path = strdup(line + used);
		} else if (!strcmp(line, "end")) {
			ended = 1;
			break;
		} else if (o && (a = strtoull(line, &p, 10), *p == ' ')) {
			uint64_t n = strtoull(p + 1, NULL, 10);
			uint64_t addr = o->start + a * bytes - o->base;
			const char *fn, *base = strrchr(o->path, '/');
			char buf[64];

			if (o->event != event)
				continue;
			if (!o->symbolized)
				symbolize(o);
			fn = lookup(o, addr);
			if (!fn) {
				snprintf(buf, sizeof(buf), "+%#llx", (unsigned long long)addr);
				fn = buf;
			}
			add(fn, base ? base + 1 : o->path, n);
		} else if (*line) {
			goto bad;
		}
	}
	fclose(f);
	if (!ended)
		return die("%s: truncated (no end line)", file);
	if (event >= nev)
		return die("%s: has no event %d", file, event);
	return 0;
bad:
	fclose(f);
	return die("%s: malformed line: %.60s", file, line);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */

static int by_samples(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->func, y->func);
}

static int by_symbol(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return strcmp(x->func, y->func);
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void xml_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static int svg(const char *out, uint64_t total, const struct event *e)
{
	size_t n = nrows < 20 ? nrows : 20;
	FILE *f = fopen(out, "we");
	uint64_t max = n ? rows[0].n : 1;

	if (!f)
		return die("%s: %s", out, strerror(errno));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"%zu\" "
		"font-family=\"monospace\" font-size=\"13\">\n", 60 + 24 * n);
	fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"15\">hwprof: ");
	xml_str(f, e->name);
	fprintf(f, ", %llu samples, top %zu functions</text>\n", (unsigned long long)total, n);
	for (size_t i = 0; i < n; i++) {
		double w = 500.0 * (double)rows[i].n / (double)(max ? max : 1);
		size_t y = 40 + 24 * i;

		fprintf(f, "<rect x=\"10\" y=\"%zu\" width=\"%.1f\" height=\"18\" fill=\"#4a7fb5\"/>\n",
			y, w < 1 ? 1 : w);
		fprintf(f, "<text x=\"%.1f\" y=\"%zu\">%.1f%% ", 16 + (w < 1 ? 1 : w), y + 14,
			total ? 100.0 * (double)rows[i].n / (double)total : 0);
		xml_str(f, rows[i].func);
		fprintf(f, " (");
		xml_str(f, rows[i].obj);
		fprintf(f, ")</text>\n");
	}
	fprintf(f, "</svg>\n");
	if (fclose(f))
		return die("%s: %s", out, strerror(errno));
	return 0;
}

int cmd_report(int argc, char **argv)
{
	const char *file = "hwprof.data", *sort = "samples", *fmt = "text", *svgout = NULL;
	int objects = 0, event = 0, ret;
	uint64_t total = 0;
	const struct event *e;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "--sort") || !strcmp(a, "--format") || !strcmp(a, "--svg") ||
		     !strcmp(a, "--event")) && i + 1 >= argc)
			return die("%s needs a value", a);
		if (!strcmp(a, "--sort"))
			sort = argv[++i];
		else if (!strcmp(a, "--format"))
			fmt = argv[++i];
		else if (!strcmp(a, "--svg"))
			svgout = argv[++i];
		else if (!strcmp(a, "--event"))
			event = atoi(argv[++i]);
		else if (!strcmp(a, "--objects"))
			objects = 1;
		else if (a[0] == '-')
			return die("unknown option %s (see hwprof(1))", a);
		else
			file = a;
	}
	if (strcmp(sort, "samples") && strcmp(sort, "symbol"))
		return die("--sort %s: samples or symbol", sort);
	if (strcmp(fmt, "text") && strcmp(fmt, "csv") && strcmp(fmt, "json"))
		return die("--format %s: text, csv or json", fmt);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return die("libelf: %s", elf_errmsg(-1));
	ret = parse(file, event);
	if (ret)
		return ret;
	e = &evs[event];
	if (objects) {		/* one row per object */
		struct row *r = rows;
		size_t n = nrows;

		rows = NULL;
		nrows = caprows = 0;
		for (size_t i = 0; i < n; i++)
			add(r[i].obj, r[i].obj, r[i].n);
	}
	qsort(rows, nrows, sizeof(*rows), strcmp(sort, "symbol") ? by_samples : by_symbol);
	for (size_t i = 0; i < nrows; i++)
		total += rows[i].n;

	if (!strcmp(fmt, "json")) {
		printf("{\"event\": ");
		json_str(e->name);
		printf(", \"period\": %llu, \"samples\": %llu, \"lost\": %llu, \"throttled\": %llu, "
		       "\"outside\": %llu, \"saturated\": %llu, \"threads\": %u, \"command\": ",
		       (unsigned long long)e->period, (unsigned long long)e->samples,
		       (unsigned long long)e->lost, (unsigned long long)e->throttled,
		       (unsigned long long)e->outside, (unsigned long long)e->saturated, e->threads);
		json_str(command);
		printf(", \"rows\": [");
		for (size_t i = 0; i < nrows; i++) {
			printf("%s\n  {\"percent\": %.2f, \"samples\": %llu, \"function\": ",
			       i ? "," : "", total ? 100.0 * (double)rows[i].n / (double)total : 0,
			       (unsigned long long)rows[i].n);
			json_str(rows[i].func);
			printf(", \"object\": ");
			json_str(rows[i].obj);
			printf("}");
		}
		printf("\n]}\n");
	} else if (!strcmp(fmt, "csv")) {
		printf("percent,samples,%s,object\n", objects ? "object" : "function");
		for (size_t i = 0; i < nrows; i++)
			printf("%.2f,%llu,\"%s\",\"%s\"\n",
			       total ? 100.0 * (double)rows[i].n / (double)total : 0,
			       (unsigned long long)rows[i].n, rows[i].func, rows[i].obj);
	} else {
		printf("# command: %s\n# event: %s, one sample every %llu%s\n", command, e->name,
		       (unsigned long long)e->period,
		       !strcmp(e->name, "task-clock") || !strcmp(e->name, "cpu-clock") ? " ns" : "");
		printf("# samples: %llu  lost: %llu  throttled: %llu  outside any object: %llu"
		       "  saturated: %llu  threads: %u\n#\n",
		       (unsigned long long)e->samples, (unsigned long long)e->lost,
		       (unsigned long long)e->throttled, (unsigned long long)e->outside,
		       (unsigned long long)e->saturated, e->threads);
		printf("%8s %10s  %-40s %s\n", "percent", "samples", objects ? "object" : "function",
		       "object");
		for (size_t i = 0; i < nrows; i++)
			printf("%7.2f%% %10llu  %-40s %s\n",
			       total ? 100.0 * (double)rows[i].n / (double)total : 0,
			       (unsigned long long)rows[i].n, rows[i].func, rows[i].obj);
	}
	if (svgout)
		return svg(svgout, total, e);
	return 0;
}
