/* SPDX-License-Identifier: MIT */
/*
 * The innermost function at an address (sym_obj_line(), which hwprof
 * record keeps and report prints: lib/profile/symbols-dwarf.c indexes a
 * unit's functions once) held against binutils' addr2line -i and LLVM's
 * llvm-symbolizer, which read the same DWARF with other libraries: for
 * addresses spread over every function of OBJECT, the function hwprof
 * names is the first (innermost) one either prints (or an ELF alias of
 * it: both symbols at one address) at 95 % of the addresses or more, and
 * exactly the one libdw's
 * dwarf_getscopes() finds, which hwprof used to call for every address.
 * (addr2line names some of glibc's assembler functions by another alias
 * than DWARF's, __memcpy_avx_unaligned_erms for __memmove_..., and its
 * system-call wrappers by their hidden __GI_ aliases: 2.8 % of libc's
 * addresses; hwprof's symbol table keeps one name of each address. And
 * binutils 2.40 reads clang 14's inlined ranges wrong where LLVM's own
 * reader and libdw agree: on scopes-prog built with clang it names the
 * caller for a third of the inlined addresses.)
 *
 *   test-scopes OBJECT [MAX [INLINED]]
 *
 * at most MAX addresses (default 4000), and at least INLINED of them
 * (default 0) in inlined code (named otherwise than their ELF symbol).
 *
 * Exit 77 when OBJECT has no debug information or addr2line is missing
 * (llvm-symbolizer, from llvm-14, is used where it is installed).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "../lib/profile/symbols.h"

extern char **environ;

#include <dwarf.h>

struct probe {
	uint64_t addr;
	const char *fn; /* hwprof's, NULL: none */
	int lined;	/* sym_obj_line() found a line */
};

/* The innermost function at addr as dwarf_getscopes() gives it. */
static const char *by_getscopes(struct sym_obj *o, uint64_t addr)
{
	Dwarf_Die cu, *scopes = NULL;
	const char *fn = NULL;
	int n;

	if (sym_obj_cu(o, addr, &cu))
		return NULL;
	n = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < n && !fn; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute at;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (!(fn = dwarf_formstring(
			      dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &at))))
			fn = dwarf_formstring(
				dwarf_attr_integrate(&scopes[i], DW_AT_name, &at));
		if (!fn)
			fn = "";
	}
	free(scopes);
	return fn && *fn ? fn : NULL;
}

/* Two names of one address in the ELF symbol table. */
static int aliases(const struct sym_obj *o, const char *a, const char *b)
{
	const struct sym_func *x = sym_obj_find(o, a), *y = sym_obj_find(o, b);

	return x && y && x->lo == y->lo;
}

/* The addresses: each function's start, then a stride through all. */
static size_t pick(const struct sym_obj *o, struct probe *p, size_t max)
{
	uint64_t span = 0, step;
	size_t n = 0;

	for (size_t i = 0; i < o->nsyms; i++)
		if (o->syms[i].hi > o->syms[i].lo && !strstr(o->syms[i].name, "@plt"))
			span += o->syms[i].hi - o->syms[i].lo;
	step = span / max + 1;
	for (size_t i = 0; i < o->nsyms && n < max; i++) {
		const struct sym_func *f = &o->syms[i];

		if (f->hi <= f->lo || strstr(f->name, "@plt"))
			continue;
		for (uint64_t a = f->lo; a < f->hi && n < max; a += step)
			p[n++].addr = a;
	}
	return n;
}

/* addr2line -a -f -i (or llvm-symbolizer in GNU style, argv): for each
 * address a line "0x...", then function and file:line pairs, innermost
 * first. Returns the innermost names in order. */
static int run_symbolizer(char *const argv[], struct probe *p, size_t n, char ***out)
{
	char in[] = "/tmp/hwprof-scopes-XXXXXX";
	int fd = mkstemp(in), pfd[2], st;
	posix_spawn_file_actions_t fa;
	char *line = NULL, **names = calloc(n, sizeof(*names));
	size_t cap = 0, k = 0;
	long cur = -1, want_fn = 0;
	pid_t pid;
	FILE *f;

	if (fd < 0 || !names || pipe(pfd))
		return -1;
	f = fdopen(fd, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%" PRIx64 "\n", p[i].addr);
	fclose(f);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in, 0, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		unlink(in);
		close(pfd[0]);
		close(pfd[1]);
		free(names);
		return -1;
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0x", 2) && k < n) {
			cur = (long)k++;
			want_fn = 1;
		} else if (want_fn && cur >= 0) {
			names[cur] = strdup(line);
			want_fn = 0;
		}
	}
	free(line);
	fclose(f);
	waitpid(pid, &st, 0);
	unlink(in);
	posix_spawn_file_actions_destroy(&fa);
	if (k != n || !WIFEXITED(st) || WEXITSTATUS(st)) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return -1;
	}
	*out = names;
	return 0;
}

int main(int argc, char **argv)
{
	size_t max = argc > 2 ? strtoul(argv[2], NULL, 0) : 4000, n, named = 0, agree = 0;
	size_t min_inl = argc > 3 ? strtoul(argv[3], NULL, 0) : 0, inl = 0;
	struct probe *p;
	struct sym_obj o;
	char **theirs, **llvm = NULL;
	char *a2l[] = { "addr2line", "-a", "-f", "-i", "-e", argv[1], NULL };
	char obj[4200];
	char *sym[] = { "llvm-symbolizer", "--output-style=GNU", "-a", "-f", "-i", obj, NULL };

	if (argc < 2) {
		fprintf(stderr, "usage: test-scopes OBJECT [MAX]\n");
		return T_ERROR;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return T_ERROR;
	sym_obj_init(&o, argv[1], NULL, 0);
	sym_obj_load(&o);
	if (!o.readable || !sym_obj_dwarf(&o)) {
		printf("SKIP: %s has no debug information\n", argv[1]);
		return T_SKIP;
	}
	p = calloc(max, sizeof(*p));
	n = pick(&o, p, max);
	for (size_t i = 0; i < n; i++) {
		const char *file, *fn = NULL;
		int line;

		if (!sym_obj_line(&o, p[i].addr, &file, &line, &fn)) {
			p[i].fn = fn;
			p[i].lined = 1;
		}
	}
	if (run_symbolizer(a2l, p, n, &theirs)) {
		printf("SKIP: addr2line did not run\n");
		return T_SKIP;
	}
	snprintf(obj, sizeof(obj), "--obj=%s", argv[1]);
	if (run_symbolizer(sym, p, n, &llvm))
		llvm = NULL; /* not installed */
	for (size_t i = 0; i < n; i++) {
		const char *want = theirs[i] && strcmp(theirs[i], "??") ? theirs[i] : NULL;
		const char *want2 = llvm && llvm[i] && strcmp(llvm[i], "??") ? llvm[i] : NULL;
		const char *old = p[i].lined ? by_getscopes(&o, p[i].addr) : NULL;

		T_CHECK(p[i].fn == old || (p[i].fn && old && !strcmp(p[i].fn, old)),
			"0x%" PRIx64 ": hwprof says %s, dwarf_getscopes %s", p[i].addr,
			p[i].fn ? p[i].fn : "(none)", old ? old : "(none)");
		if (!p[i].fn)
			continue; /* no line here: nothing kept */
		named++;
		if (sym_obj_sym(&o, p[i].addr) &&
		    strcmp(sym_obj_sym(&o, p[i].addr)->name, p[i].fn))
			inl++;
		if ((want && (!strcmp(want, p[i].fn) || aliases(&o, want, p[i].fn))) ||
		    (want2 && (!strcmp(want2, p[i].fn) || aliases(&o, want2, p[i].fn))))
			agree++;
		else if (named - agree <= 5)
			printf("0x%" PRIx64
			       ": hwprof says %s, addr2line -i %s, llvm-symbolizer %s\n",
			       p[i].addr, p[i].fn, want ? want : "??", want2 ? want2 : "-");
	}
	printf("%zu addresses, %zu named by hwprof (%zu inlined), %zu agree with addr2line%s "
	       "(or an alias)\n",
	       n, named, inl, agree, llvm ? " or llvm-symbolizer" : "");
	T_CHECK(named > n / 4, "only %zu of %zu addresses named", named, n);
	T_CHECK(agree * 100 >= named * 95, "addr2line%s agrees on %zu of %zu",
		llvm ? " or llvm-symbolizer" : "", agree, named);
	T_CHECK(inl >= min_inl, "%zu addresses in inlined code, want %zu", inl, min_inl);
	for (size_t i = 0; i < n; i++) {
		free(theirs[i]);
		if (llvm)
			free(llvm[i]);
	}
	free(theirs);
	free(llvm);
	free(p);
	sym_obj_free(&o);
	return t_done("scopes");
}
