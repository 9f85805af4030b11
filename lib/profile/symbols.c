/* SPDX-License-Identifier: MIT */
/*
 * The names of an object file for hwprof report and annotate: function
 * symbols by ELF virtual address (libelf), PLT stubs as name@plt, the
 * build-id check against the data file, debug files (build-id under
 * /usr/lib/debug, .gnu_debuglink, then a debuginfod server). Source lines are
 * symbols-dwarf.c's.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include "../perf/elfsym.h"
#include "symbols.h"

const char *sym_debug_dir = "/usr/lib/debug";

/* ------------------------------------------------------------------ */
/* Opening ELF files: regular files only, never blocking on a FIFO      */

static Elf *open_elf(const char *file, int *fdp)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	Elf *e;

	*fdp = -1;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return e;
}

static void close_elf(Elf *e, int fd)
{
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

Elf_Scn *sym_scn_by_name(Elf *e, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(e, &shstr))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstr, sh->sh_name);
		if (n && !strcmp(n, want))
			return scn;
	}
	return NULL;
}

/* The GNU build-id of e in lower-case hex, or "" (out holds
 * HWP_ELF_BUILDID_HEX bytes). */
void sym_elf_buildid(Elf *e, char *out)
{
	Elf_Scn *scn = NULL;

	out[0] = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && !hwp_elf_note_buildid(d->d_buf, d->d_size, out))
			return;
	}
}

char *sym_file_buildid(const char *path)
{
	char bid[HWP_ELF_BUILDID_HEX];
	int fd;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return NULL;
	sym_elf_buildid(e, bid);
	close_elf(e, fd);
	return *bid ? strdup(bid) : NULL;
}

uint64_t sym_file_size(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

static int has_section_type(Elf *e, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return 1;
	return 0;
}

static int has_debug_info(Elf *e)
{
	GElf_Shdr sh;

	return sym_scn_by_name(e, ".debug_info", &sh) && sh.sh_type != SHT_NOBITS;
}

/* ------------------------------------------------------------------ */
/* Symbols                                                              */

struct symvec {
	struct sym_func *v;
	size_t n, cap;
};

static int push(struct symvec *s, uint64_t lo, uint64_t hi, const char *name, int rank)
{
	char *dup;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct sym_func *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		s->v = nv;
		s->cap = cap;
	}
	dup = strdup(name);
	if (!dup)
		return -1;
	s->v[s->n] = (struct sym_func){ lo, hi, dup, NULL, rank, 0, 0, s->n };
	s->n++;
	return 0;
}

/* the score bit of a symbol whose size is known */
#define SYM_SIZED ((uint64_t)1 << 44)

/*
 * How much a symbol table's name is preferred among the aliases at its
 * address, higher first: the public name; perf's choice (its
 * choose_best_symbol(), tools/perf/util/symbol.c; the tie checked with
 * perf 6.1 on Debian 12) save where perf shows an internal alias.
 *  - a symbol with a size before one without (perf);
 *  - an exported one (global or weak) before a local one: glibc's
 *    internal aliases (__GI___libc_write, __libc_write) are local, its
 *    public names global or weak (write; perf puts a weak one after a
 *    local one and shows __GI___libc_write);
 *  - a global before a weak one (perf: the vDSO's __vdso_clock_gettime,
 *    not its weak alias clock_gettime, which is libc's name too);
 *  - a name without a non-default symbol version before one with
 *    ("free", not "cfree@GLIBC_2.2.5", the alias kept for old programs:
 *    perf shows that one);
 *  - fewer leading underscores ("malloc" before "__libc_malloc", "clone3"
 *    before "__GI___clone3": perf);
 *  - a longer name (perf);
 *  - the earlier in the table on a tie (cmp_sym(); perf:
 *    __memmove_avx512_unaligned_erms, not __memcpy_avx512_unaligned_erms
 *    which follows it in libc.so.6's table).
 */
static uint64_t sym_score(const char *name, int bind, int sized)
{
	const char *at = strchr(name, '@');
	size_t us = strspn(name, "_"), len = strlen(name);
	int compat = at && at[1] != '@';
	uint64_t exported = bind == STB_GLOBAL || bind == STB_WEAK;

	return (uint64_t)(sized != 0) << 44 | exported << 40 |
	       (uint64_t)(bind == STB_GLOBAL) << 39 | (uint64_t)!compat << 36 |
	       (uint64_t)(255 - (us < 255 ? us : 255)) << 26 |
	       (len < 0xffffff ? len : 0xffffff);
}

/*
 * The function symbols of one symbol table. A symbol of size 0 (such as
 * _init) ends at its section's end; the sort below cuts it at the next
 * symbol, so it never swallows the PLT that follows it.
 */
static void table_syms(Elf *e, GElf_Word type, struct symvec *out)
{
	Elf_Scn *scn = NULL;
	size_t nscn = 0;

	elf_getshdrnum(e, &nscn);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			GElf_Shdr ss;
			const char *n;
			uint64_t hi;
			int t, bind;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			t = GELF_ST_TYPE(s.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
			    s.st_shndx >= nscn || !s.st_value)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (!n || !*n)
				continue;
			hi = s.st_value + s.st_size;
			if (!s.st_size) {
				Elf_Scn *in = elf_getscn(e, s.st_shndx);

				hi = s.st_value + 1;
				if (in && gelf_getshdr(in, &ss) &&
				    ss.sh_addr + ss.sh_size > s.st_value)
					hi = ss.sh_addr + ss.sh_size;
			}
			bind = GELF_ST_BIND(s.st_info);
			if (push(out, s.st_value, hi, n, 1))
				return;
			out->v[out->n - 1].score = sym_score(n, bind, s.st_size != 0);
			out->v[out->n - 1].order = i;
		}
	}
}

/* The name of the .dynsym symbol of relocation r, or NULL. */
static const char *reloc_name(Elf *e, Elf_Data *dsym, size_t dstr, uint64_t info)
{
	GElf_Sym s;
	size_t idx = GELF_R_SYM(info);
	const char *n;

	if (!dsym || !idx || !gelf_getsym(dsym, (int)idx, &s))
		return NULL;
	n = elf_strptr(e, dstr, s.st_name);
	return n && *n ? n : NULL;
}

struct reloc {
	uint64_t got; /* r_offset: the GOT slot */
	const char *name;
};

/* The relocations that name GOT slots: all with a symbol (rel), and
 * .rela.plt's by index (jslot, name NULL where it has no symbol). */
struct relocs {
	struct reloc *rel, *jslot;
	size_t nrel, njslot;
};

static int reloc_push(struct reloc **v, size_t *n, uint64_t off, const char *name)
{
	struct reloc *nr = realloc(*v, (*n + 1) * sizeof(*nr));

	if (!nr)
		return -1;
	*v = nr;
	(*v)[(*n)++] = (struct reloc){ off, name };
	return 0;
}

/* Adds the relocations of section scn (REL or RELA) to rs. 0 or -1. */
static int scn_relocs(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Data *dsym, size_t dstr,
		      struct relocs *rs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t cnt = sh->sh_size / sh->sh_entsize;
	/* .rela.plt is the one the dynamic section's JMPREL names; its
	 * sh_info points at .plt/.got.plt: tell it by SHF_INFO_LINK. */
	int is_plt_rel = (sh->sh_flags & SHF_INFO_LINK) != 0;

	for (size_t i = 0; d && i < cnt; i++) {
		uint64_t off, info;
		const char *n;

		if (sh->sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(d, (int)i, &r))
				continue;
			off = r.r_offset;
			info = r.r_info;
		} else {
			GElf_Rel r;

			if (!gelf_getrel(d, (int)i, &r))
				continue;
			off = r.r_offset;
			info = r.r_info;
		}
		n = reloc_name(e, dsym, dstr, info);
		if (is_plt_rel && reloc_push(&rs->jslot, &rs->njslot, off, n))
			return -1;
		if (n && reloc_push(&rs->rel, &rs->nrel, off, n))
			return -1;
	}
	return 0;
}

/* Every relocation of the object that names a .dynsym symbol. 0, or -1
 * (none: no .dynsym, or out of memory). */
static int all_relocs(Elf *e, struct relocs *rs)
{
	Elf_Data *dsym = NULL;
	Elf_Scn *scn = NULL;
	size_t dstr = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
			dsym = elf_getdata(scn, NULL);
			dstr = sh.sh_link;
		}
	}
	if (!dsym)
		return -1;
	scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || !sh.sh_entsize)
			continue;
		if (scn_relocs(e, scn, &sh, dsym, dstr, rs))
			return -1;
	}
	return 0;
}

/* The function an x86-64 PLT entry p (es bytes at address addr of
 * section plt) jumps to, or NULL. */
static const char *x86_plt_name(const struct relocs *rs, const unsigned char *p, uint64_t es,
				uint64_t addr, const char *plt)
{
	/* jmp at 0, after bnd (1), endbr64 (4), both (5) */
	static const unsigned char at_j[] = { 0, 1, 4, 5 };

	for (size_t q = 0; q < sizeof(at_j); q++) {
		uint64_t j = at_j[q], got;
		int32_t disp;

		if (j + 6 > es || p[j] != 0xff || p[j + 1] != 0x25)
			continue;
		memcpy(&disp, p + j + 2, 4);
		got = addr + j + 6 + (uint64_t)(int64_t)disp;
		for (size_t r = 0; r < rs->nrel; r++)
			if (rs->rel[r].got == got)
				return rs->rel[r].name;
	}
	/* a lazy entry beside .plt.sec: endbr64; push N */
	if (es >= 9 && !strcmp(plt, ".plt") && !memcmp(p, "\xf3\x0f\x1e\xfa\x68", 5)) {
		uint32_t idx;

		memcpy(&idx, p + 5, 4);
		if (idx < rs->njslot)
			return rs->jslot[idx].name;
	}
	return NULL;
}

/* Names the entries of PLT section plt as NAME@plt. 0 or -1. */
static int plt_scn_syms(Elf *e, const GElf_Ehdr *eh, const struct relocs *rs, const char *plt,
			struct symvec *out)
{
	GElf_Shdr sh;
	Elf_Data *d;
	Elf_Scn *scn = sym_scn_by_name(e, plt, &sh);
	uint64_t es;
	char buf[600];

	if (!scn || sh.sh_type != SHT_PROGBITS || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return 0;
	es = sh.sh_entsize >= 8 && sh.sh_entsize <= 64 ? sh.sh_entsize : 16;
	if (!strcmp(plt, ".plt.got") && sh.sh_entsize < 8)
		es = 8;
	for (uint64_t at = 0; at + es <= d->d_size && at + es <= sh.sh_size; at += es) {
		const unsigned char *p = (const unsigned char *)d->d_buf + at;
		const char *name = NULL;

		if (eh->e_machine == EM_X86_64)
			name = x86_plt_name(rs, p, es, sh.sh_addr + at, plt);
		if (!name)
			continue;
		snprintf(buf, sizeof(buf), "%s@plt", name);
		if (push(out, sh.sh_addr + at, sh.sh_addr + at + es, buf, 2))
			return -1;
	}
	return 0;
}

/*
 * PLT stubs (x86-64): each entry of .plt, .plt.sec and .plt.got jumps
 * through a GOT slot ("ff 25 disp32", rip-relative, maybe after endbr64
 * and a bnd prefix); the relocation of that slot (JUMP_SLOT in .rela.plt,
 * GLOB_DAT in .rela.dyn) names the function. A lazy-binding .plt entry
 * beside .plt.sec has no such jump: it pushes its .rela.plt index after
 * endbr64. The header entry (PLT0) matches neither and stays unnamed.
 * Other machines' stubs are not named (their samples show as +OFFSET).
 */
static void plt_syms(Elf *e, struct symvec *out)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	struct relocs rs = { 0 };
	GElf_Ehdr eh;

	if (gelf_getehdr(e, &eh) && !all_relocs(e, &rs))
		for (size_t k = 0; k < sizeof(plts) / sizeof(plts[0]); k++)
			if (plt_scn_syms(e, &eh, &rs, plts[k], out))
				break;
	free(rs.rel);
	free(rs.jslot);
}

/*
 * The entry point as "_start" where no symbol names it (the dynamic
 * loader's own entry has none in Debian's ld.so): the outermost frame of
 * every path that starts there, which report checks paths against. It
 * runs to the end of its section or to the next symbol, and any symbol at
 * the same address wins (the lowest rank).
 */
static void entry_sym(Elf *e, struct symvec *out)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!gelf_getehdr(e, &eh) || !eh.e_entry)
		return;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    eh.e_entry >= sh.sh_addr && eh.e_entry < sh.sh_addr + sh.sh_size) {
			/* its size is unknown: an entry stub's 64 bytes at
			 * most, so that code after it in a stripped object is
			 * not taken for it */
			uint64_t end = sh.sh_addr + sh.sh_size;

			push(out, eh.e_entry, end - eh.e_entry > 64 ? eh.e_entry + 64 : end,
			     "_start", 0);
			return;
		}
}

/* By address; at one address the preferred name first: the source
 * (rank), then the score, then the table's order. */
static int cmp_sym(const void *a, const void *b)
{
	const struct sym_func *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->name, y->name);
}

const char *sym_alias_next(const struct sym_func *f, const char *a)
{
	if (!f->aliases)
		return NULL;
	a = a ? a + strlen(a) + 1 : f->aliases;
	return *a ? a : NULL;
}

/* Whether name is f's name or one of its aliases. */
static int has_name(const struct sym_func *f, const char *name)
{
	if (!strcmp(f->name, name))
		return 1;
	for (const char *a = sym_alias_next(f, NULL); a; a = sym_alias_next(f, a))
		if (!strcmp(a, name))
			return 1;
	return 0;
}

/* Adds name to f's aliases unless f has it already. 0 or -1. */
static int add_alias(struct sym_func *f, const char *name)
{
	size_t old = 0, n = strlen(name) + 1;
	char *nv;

	if (has_name(f, name))
		return 0;
	if (f->aliases)
		for (const char *a = f->aliases; *a; a += strlen(a) + 1)
			old += strlen(a) + 1;
	nv = realloc(f->aliases, old + n + 1);
	if (!nv)
		return -1;
	memcpy(nv + old, name, n);
	nv[old + n] = 0;
	f->aliases = nv;
	return 0;
}

/* The name a default-versioned symbol is shown by: without its version
 * ("__libc_start_main@@GLIBC_2.34" is __libc_start_main, the name a
 * program calls it by); the full name stays an alias. 0 or -1. */
static int drop_default_version(struct sym_func *f)
{
	char *at = strstr(f->name, "@@"), *bare;

	if (!at || at == f->name || !strcmp(at, "@@plt"))
		return 0;
	bare = strndup(f->name, (size_t)(at - f->name));
	if (!bare)
		return -1;
	if (add_alias(f, f->name)) {
		free(bare);
		return -1;
	}
	free(f->name);
	f->name = bare;
	return 0;
}

/* Sorted, one symbol per address (the preferred name, the others its
 * aliases), and a symbol that ran to its section's end cut at the next
 * one. */
static void finish(struct sym_obj *o, struct symvec *s)
{
	size_t w = 0;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_sym);
	for (size_t i = 0; i < s->n; i++) {
		if (w && s->v[w - 1].lo == s->v[i].lo) {
			add_alias(&s->v[w - 1], s->v[i].name); /* out of memory: one less */
			free(s->v[i].name);
			free(s->v[i].aliases);
			continue;
		}
		s->v[w++] = s->v[i];
	}
	for (size_t i = 0; i < w; i++)
		drop_default_version(&s->v[i]); /* out of memory: the full name */
	for (size_t i = 0; i + 1 < w; i++)
		if (s->v[i].hi > s->v[i + 1].lo && !(s->v[i].score & SYM_SIZED))
			s->v[i].hi = s->v[i + 1].lo; /* sizeless */
	o->syms = s->v;
	o->nsyms = w;
}

/* ------------------------------------------------------------------ */
/* Code no symbol names: functions bounded by call-frame information    */

/* The base name of an object's path. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The first symbol of o (sorted) that starts above addr: its index. */
static size_t sym_after(const struct sym_obj *o, uint64_t addr)
{
	size_t a = 0, b = o->nsyms;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (o->syms[m].lo <= addr)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * Code no symbol covers, grouped into functions: each FDE of .eh_frame
 * (the call-frame information every x86-64 function has for unwinding,
 * kept in stripped objects) that starts where no symbol covers is one
 * function named OBJECT+0xSTART (hwprof(1), "Names"), its range the FDE's
 * [initial location, + address range), cut at the next symbol. The cost
 * is a pass over the sorted table and one FDE read per function named.
 */
static void fde_syms(struct sym_obj *o, Elf *e)
{
	struct sym_fdes f;
	size_t n = sym_fdes_open(e, &f), add = 0;
	struct symvec s = { 0 };
	uint64_t prev = 0;
	char name[600];

	for (size_t i = 0; i < n; i++) {
		uint64_t lo = sym_fde_start(&f, i), hi, len;
		size_t next;

		if (i && lo <= prev)
			continue; /* out of order: not a table to trust */
		prev = lo;
		if (sym_obj_sym(o, lo))
			continue; /* a symbol names it */
		len = sym_fde_len(&f, i);
		if (!len || lo + len < lo)
			continue;
		hi = lo + len;
		next = sym_after(o, lo);
		if (next < o->nsyms && o->syms[next].lo < hi)
			hi = o->syms[next].lo;
		snprintf(name, sizeof(name), "%s+%#llx", base_name(o->path),
			 (unsigned long long)lo);
		if (push(&s, lo, hi, name, 1))
			break;
		s.v[s.n - 1].fde = 1;
		s.v[s.n - 1].score = SYM_SIZED; /* sized */
	}
	if (s.n) {
		/* both sorted, no start in common: merged */
		struct sym_func *nv = malloc((o->nsyms + s.n) * sizeof(*nv));
		size_t a = 0, b = 0, w = 0;

		if (nv) {
			while (a < o->nsyms || b < s.n)
				nv[w++] = b == s.n || (a < o->nsyms &&
						       o->syms[a].lo < s.v[b].lo) ?
						  o->syms[a++] :
						  s.v[b++];
			free(o->syms);
			o->syms = nv;
			o->nsyms = w;
			add = s.n;
		}
	}
	for (size_t i = add; i < s.n; i++)
		free(s.v[i].name);
	free(s.v);
}

/* ------------------------------------------------------------------ */
/* Debug files                                                          */

/* The .gnu_debuglink name of e, or "". */
static void debuglink(Elf *e, char *out, size_t len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sym_scn_by_name(e, ".gnu_debuglink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	out[0] = 0;
	if (d && d->d_buf && d->d_size)
		snprintf(out, len, "%.*s", (int)strnlen(d->d_buf, d->d_size),
			 (const char *)d->d_buf);
}

/* Opens the debug file of build-id bid under the debug directory if its
 * own build-id is bid. */
static Elf *debug_by_id(const char *bid, int *fd, char *path, size_t len)
{
	char got[129];
	Elf *e;

	if (!bid || strlen(bid) < 4)
		return NULL;
	snprintf(path, len, "%s/.build-id/%.2s/%s.debug", sym_debug_dir, bid, bid + 2);
	e = open_elf(path, fd);
	if (!e)
		return NULL;
	sym_elf_buildid(e, got);
	if (strcasecmp(got, bid)) {
		close_elf(e, *fd);
		return NULL;
	}
	return e;
}

/* The debug file named by e's .gnu_debuglink (beside the object, in
 * .debug/, under /usr/lib/debug), if its build-id is bid. */
static Elf *debug_by_link(Elf *e, const char *objpath, const char *bid, int *fd, char *path,
			  size_t len)
{
	char link[256], dir[4096], got[129];
	char *slash;

	debuglink(e, link, sizeof(link));
	if (!*link || strchr(link, '/'))
		return NULL;
	snprintf(dir, sizeof(dir), "%s", objpath);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	for (int i = 0; i < 3; i++) {
		Elf *d;

		if (i == 0)
			snprintf(path, len, "%s/%s", dir, link);
		else if (i == 1)
			snprintf(path, len, "%s/.debug/%s", dir, link);
		else
			snprintf(path, len, "%s%s/%s", sym_debug_dir, dir, link);
		if (!strcmp(path, objpath))
			continue;
		d = open_elf(path, fd);
		if (!d)
			continue;
		sym_elf_buildid(d, got);
		if (!bid || !*bid || !strcasecmp(got, bid))
			return d;
		close_elf(d, *fd);
	}
	return NULL;
}

/* The debug file of build-id bid from a debuginfod server (debuginfod.c),
 * if its build-id is bid; asked only when no local one has it. */
static Elf *debug_remote(const char *bid, int *fd, char *path, size_t len)
{
	char got[129];
	Elf *e;

	if (!bid || sym_debuginfod(bid, path, len))
		return NULL;
	e = open_elf(path, fd);
	if (!e)
		return NULL;
	sym_elf_buildid(e, got);
	if (strcasecmp(got, bid)) {
		close_elf(e, *fd);
		return NULL;
	}
	return e;
}

/* Keeps the file with the debug info; libdw reads it (decompressing every
 * .debug section) only when a line is first asked for (sym_obj_dwarf()). */
static void keep_dwarf(struct sym_obj *o, Elf *e, int fd, const char *path)
{
	o->dwelf = e;
	o->dwfd = fd;
	o->dw = NULL;
	o->dw_tried = 0;
	o->dwfile = strdup(path);
}

/* Compressed debug sections are read from the debug cache's copy when
 * it has one, and the copy is written when it has none (debugcache.c). */
static void open_dwarf_cached(struct sym_obj *o)
{
	char bid[HWP_ELF_BUILDID_HEX];
	Elf *c;
	int cfd;

	int lk = -1;

	sym_elf_buildid(o->dwelf, bid);
	for (int pass = 0; pass < 2; pass++) {
		if (*bid && (c = sym_debug_cached(bid, &cfd))) {
			if ((o->dw = dwarf_begin_elf(c, DWARF_C_READ, NULL))) {
				close_elf(o->dwelf, o->dwfd);
				o->dwelf = c;
				o->dwfd = cfd;
				sym_cache_unlock(lk);
				return;
			}
			close_elf(c, cfd);
			break;
		}
		/* none: of the ranks that lack it at once, one inflates
		 * and writes it, the others wait and read its copy */
		if (pass || !*bid || (lk = sym_cache_lock(bid)) < 0)
			break;
	}
	o->dw = dwarf_begin_elf(o->dwelf, DWARF_C_READ, NULL);
	if (o->dw && *bid)
		sym_debug_store(o->dwelf, bid);
	sym_cache_unlock(lk);
}

Dwarf *sym_obj_dwarf(struct sym_obj *o)
{
	if (!o->dw && !o->dw_tried && o->dwelf) {
		o->dw_tried = 1;
		if (sym_debug_cache && sym_debug_compressed(o->dwelf))
			open_dwarf_cached(o);
		else
			o->dw = dwarf_begin_elf(o->dwelf, DWARF_C_READ, NULL);
	}
	return o->dw;
}

/* ------------------------------------------------------------------ */
/* One object                                                           */

void sym_obj_init(struct sym_obj *o, const char *path, const char *buildid, uint64_t size)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->buildid = buildid && *buildid ? buildid : NULL;
	o->size = size;
	o->dwfd = -1;
}

void sym_obj_free(struct sym_obj *o)
{
	for (size_t i = 0; i < o->nsyms; i++) {
		free(o->syms[i].name);
		free(o->syms[i].aliases);
	}
	free(o->syms);
	if (o->dw)
		dwarf_end(o->dw);
	close_elf(o->dwelf, o->dwfd);
	free(o->dwfile);
	free(o->textfile);
	for (size_t i = 0; i < o->npaths; i++)
		free(o->paths[i].abs);
	free(o->paths);
	for (size_t i = 0; i < o->nunits; i++)
		free(o->units[i].seg);
	free(o->units);
	free(o->cus);
	free(o->klines);
	sym_obj_init(o, NULL, NULL, 0);
}

/* Every warning said about an object, for a report's own output too. */
char **sym_warnings;
size_t sym_nwarnings;

/* "hwprof: warning: PATH: WHAT[EXTRA]" on stderr, escaped, and kept in
 * sym_warnings as "warning: ..." (unescaped: the output escapes it). */
static void warn_path(const char *what, const char *path, const char *extra)
{
	char *msg = NULL;

	fputs("hwprof: warning: ", stderr);
	nm_put(stderr, path, NM_TEXT);
	fputs(what, stderr);
	if (extra)
		nm_put(stderr, extra, NM_TEXT);
	fputc('\n', stderr);
	if (asprintf(&msg, "warning: %s%s%s", path, what, extra ? extra : "") < 0)
		return;
	if (hd_grow(&sym_warnings, sym_nwarnings, sizeof(*sym_warnings)))
		free(msg);
	else
		sym_warnings[sym_nwarnings++] = msg;
}

/*
 * Names, best first: when the file on disk is the one recorded (same
 * build-id, or none recorded), its .symtab, else a debug file's .symtab
 * (build-id, then .gnu_debuglink, then a debuginfod server: debuginfod.c),
 * else its .dynsym; plus its PLT stubs.
 * When it was rebuilt since, only a debug file with the recorded build-id
 * gives trustworthy names; without one the file's names are used with a
 * warning that they may be wrong. A file recorded without a build-id is
 * the recorded one while its size is the recorded size; when that
 * differs, its names are used with the same warning and its code is not
 * disassembled.
 */
/* Names (and, where it has them, lines) from debug file d alone; keeps
 * or closes d. */
static void load_debug(struct sym_obj *o, Elf *d, int dfd, const char *dpath)
{
	struct symvec s = { 0 };

	table_syms(d, SHT_SYMTAB, &s);
	finish(o, &s);
	if (has_debug_info(d))
		keep_dwarf(o, d, dfd, dpath);
	else
		close_elf(d, dfd);
}

/* The object e (open on fd) was rebuilt since the recording: names from
 * the debug file of the recorded build-id, else its own with a warning.
 * Closes e. */
static void load_rebuilt(struct sym_obj *o, Elf *e, int fd)
{
	char dpath[4400];
	int dfd = -1;
	Elf *d = debug_by_id(o->buildid, &dfd, dpath, sizeof(dpath));

	if (!d)
		d = debug_remote(o->buildid, &dfd, dpath, sizeof(dpath));
	o->mismatch = 1;
	if (d) {
		warn_path(": rebuilt since the recording (build-id differs): names from ",
			  o->path, dpath);
		load_debug(o, d, dfd, dpath);
	} else {
		struct symvec s = { 0 };

		warn_path(": rebuilt since the recording (build-id differs) and no debug "
			  "file has the recorded one: its names may be wrong",
			  o->path, NULL);
		table_syms(e, has_section_type(e, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM, &s);
		plt_syms(e, &s);
		entry_sym(e, &s);
		finish(o, &s);
	}
	close_elf(e, fd);
}

/* An object recorded without build-id whose size changed: a warning. */
static void check_size(struct sym_obj *o, int fd)
{
	struct stat st;
	char what[160];

	if (o->buildid || !o->size || fstat(fd, &st) || (uint64_t)st.st_size == o->size)
		return;
	o->mismatch = 1;
	snprintf(what, sizeof(what),
		 ": changed since the recording (no build-id; %llu bytes then, "
		 "%llu now): its names may be wrong",
		 (unsigned long long)o->size, (unsigned long long)st.st_size);
	warn_path(what, o->path, NULL);
}

/* The object e (open on fd, build-id got) as recorded: its symbols, else
 * its debug file's, else its dynamic ones; lines from whichever has
 * DWARF. Closes or keeps e. */
static void load_current(struct sym_obj *o, Elf *e, int fd, const char *got)
{
	struct symvec s = { 0 };
	char dpath[4400];
	Elf *d = NULL;
	int dfd = -1;

	/* a debug file for the names a stripped file lacks, or for the lines
	 * of one stripped of its DWARF only (strip --strip-debug) */
	if (!has_section_type(e, SHT_SYMTAB) || !has_debug_info(e)) {
		const char *want = *got ? got : NULL;

		d = debug_by_id(want, &dfd, dpath, sizeof(dpath));
		if (!d)
			d = debug_by_link(e, o->path, want, &dfd, dpath, sizeof(dpath));
		if (!d)
			d = debug_remote(want, &dfd, dpath, sizeof(dpath));
	}
	if (has_section_type(e, SHT_SYMTAB))
		table_syms(e, SHT_SYMTAB, &s);
	else if (d && has_section_type(d, SHT_SYMTAB))
		table_syms(d, SHT_SYMTAB, &s);
	else
		table_syms(e, SHT_DYNSYM, &s);
	plt_syms(e, &s);
	entry_sym(e, &s);
	finish(o, &s);
	fde_syms(o, e);
	if (has_debug_info(e)) {
		keep_dwarf(o, e, fd, o->path);
		close_elf(d, dfd);
	} else if (d && has_debug_info(d)) {
		keep_dwarf(o, d, dfd, dpath);
		close_elf(e, fd);
	} else {
		close_elf(d, dfd);
		close_elf(e, fd);
	}
}

/* ------------------------------------------------------------------ */
/* Names kept in the data file                                          */

void sym_obj_keep(struct sym_obj *o, const struct hd_file *d, uint32_t obj)
{
	if (obj < d->nobjects && d->objects[obj].kept) {
		o->kd = d;
		o->kobj = obj;
	}
}

static int cmp_kline(const void *a, const void *b)
{
	const struct hd_line *x = *(const struct hd_line *const *)a;
	const struct hd_line *y = *(const struct hd_line *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The names and lines kd kept for the object; no file is read. A
 * warning kept with them is the report's (report_warnings()). */
static void load_kept(struct sym_obj *o)
{
	const struct hd_file *d = o->kd;
	struct symvec s = { 0 };
	size_t n = 0;

	/* each kept with its range; the first of an address is the name
	 * shown, the others its aliases (keep_object()) */
	for (size_t i = 0; i < d->nnames; i++) {
		if (d->names[i].object != o->kobj)
			continue;
		if (push(&s, d->names[i].lo, d->names[i].hi, d->names[i].name, 1))
			break;			/* out of memory: the names so far */
		s.v[s.n - 1].score = SYM_SIZED; /* its size is known */
	}
	finish(o, &s);
	for (size_t i = 0; i < d->nlines; i++)
		n += d->lines[i].object == o->kobj;
	o->klines = n ? malloc(n * sizeof(*o->klines)) : NULL;
	for (size_t i = 0; o->klines && i < d->nlines; i++)
		if (d->lines[i].object == o->kobj)
			o->klines[o->nklines++] = &d->lines[i];
	if (o->nklines)
		qsort(o->klines, o->nklines, sizeof(*o->klines), cmp_kline);
	o->from_kept = 1;
	o->readable = o->nsyms || o->nklines;
}

int sym_obj_kept_line(const struct sym_obj *o, uint64_t addr, const char **file, int *line,
		      const char **func)
{
	size_t a = 0, b = o->nklines;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (o->klines[m]->addr < addr)
			a = m + 1;
		else
			b = m;
	}
	if (a == o->nklines || o->klines[a]->addr != addr)
		return -1;
	*file = o->kd->srcs.s[o->klines[a]->src];
	*line = o->klines[a]->line;
	if (func)
		*func = o->klines[a]->func;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The vDSO                                                             */

/* 1 for the names the vDSO goes by: [vdso] in hwprof record's maps,
 * linux-vdso.so.1 in the loader's list (libhwprof-mpi). */
int sym_is_vdso(const char *path)
{
	return path && (!strcmp(path, "[vdso]") || !strncmp(path, "linux-vdso.so", 13));
}

/* A copy of this process's vDSO image (the kernel maps the same one into
 * every process of its ABI), its length in *len; NULL when there is none.
 * Its extent is the [vdso] line of /proc/self/maps. */
static char *vdso_image(size_t *len)
{
	unsigned long at = getauxval(AT_SYSINFO_EHDR);
	unsigned long lo, hi;
	char line[512], *img = NULL;
	FILE *f;

	if (!at || !(f = fopen("/proc/self/maps", "re")))
		return NULL;
	while (!img && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[vdso]") || sscanf(line, "%lx-%lx", &lo, &hi) != 2 ||
		    lo != at || hi <= lo || hi - lo > (64u << 20))
			continue;
		img = malloc(hi - lo);
		if (img) {
			memcpy(img, (const void *)lo, hi - lo);
			*len = hi - lo;
		}
	}
	fclose(f);
	return img;
}

/* The vDSO's names, from this process's image when its build-id is the
 * recorded one (the same kernel and ABI), else none and a warning. */
static void load_vdso(struct sym_obj *o)
{
	struct symvec s = { 0 };
	size_t len = 0;
	char *img = vdso_image(&len), got[129];
	Elf *e = img ? elf_memory(img, len) : NULL;

	if (!e) {
		warn_path(": this machine has no vDSO to read: its samples have no names",
			  o->path, NULL);
		free(img);
		return;
	}
	sym_elf_buildid(e, got);
	if (o->buildid && strcasecmp(got, o->buildid)) {
		o->mismatch = 1;
		warn_path(": another kernel's (build-id differs): its samples have no names",
			  o->path, NULL);
	} else {
		o->readable = 1;
		table_syms(e, has_section_type(e, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM, &s);
		finish(o, &s);
	}
	elf_end(e);
	free(img);
}

int sym_file_is_recorded(const char *path, const char *buildid, uint64_t size)
{
	char *bid;
	int same;

	if (!path || path[0] != '/')
		return 0;
	bid = sym_file_buildid(path);
	if (buildid && *buildid)
		same = bid && !strcasecmp(bid, buildid);
	else
		same = !access(path, R_OK) && (!size || sym_file_size(path) == size);
	free(bid);
	return same;
}

/* Annotate's case: the file when it is the recorded one, else the kept
 * names (and no code). 1 when the file is to be read. */
static int file_is_recorded(struct sym_obj *o)
{
	return sym_file_is_recorded(o->path, o->buildid, o->size);
}

void sym_obj_load(struct sym_obj *o)
{
	char got[129], dpath[4400];
	Elf *e, *d;
	int fd, dfd = -1;

	if (o->loaded)
		return;
	o->loaded = 1;
	if (o->kd && (!o->prefer_file || !file_is_recorded(o))) {
		load_kept(o);
		if (o->readable || sym_is_vdso(o->path) || !file_is_recorded(o)) {
			o->mismatch = o->prefer_file; /* no code of the recorded one */
			return;
		}
		/* nothing was kept (the object could not be read then) and
		 * the recorded file is here now: it names them */
		free(o->klines);
		free(o->syms);
		o->klines = NULL;
		o->syms = NULL;
		o->nklines = o->nsyms = 0;
		o->from_kept = 0;
	}
	if (sym_is_vdso(o->path)) {
		load_vdso(o);
		return;
	}
	if (!o->path || o->path[0] == '[')
		return; /* [heap] and the like: no file */
	e = open_elf(o->path, &fd);
	if (!e) {
		/* the object is gone: a debug file may still know it */
		d = debug_by_id(o->buildid, &dfd, dpath, sizeof(dpath));
		if (!d)
			d = debug_remote(o->buildid, &dfd, dpath, sizeof(dpath));
		if (!d) {
			warn_path(": cannot read it: its samples have no names", o->path,
				  NULL);
			return;
		}
		o->readable = 1;
		load_debug(o, d, dfd, dpath);
		return;
	}
	sym_elf_buildid(e, got);
	o->readable = 1;
	if (o->buildid && strcasecmp(got, o->buildid)) {
		load_rebuilt(o, e, fd);
		return;
	}
	check_size(o, fd);
	if (!o->mismatch)
		o->textfile = strdup(o->path);
	load_current(o, e, fd, got);
}

const struct sym_func *sym_obj_sym(const struct sym_obj *o, uint64_t addr)
{
	size_t a = sym_after(o, addr);

	/* the closest start at or below addr; a few back for a symbol that
	 * encloses a smaller one */
	for (size_t i = a, k = 0; i > 0 && k < 8; i--, k++)
		if (addr < o->syms[i - 1].hi)
			return &o->syms[i - 1];
	return NULL;
}

const struct sym_func *sym_obj_find(const struct sym_obj *o, const char *name)
{
	for (size_t i = 0; i < o->nsyms; i++)
		if (has_name(&o->syms[i], name))
			return &o->syms[i];
	for (size_t i = 0; i < o->nsyms; i++) {
		char *dm = nm_demangle(o->syms[i].name);
		int eq = 0;

		if (dm) {
			size_t n = strlen(name);

			/* "f" finds "f(int)"; "ns::f(int)" finds itself */
			eq = !strcmp(dm, name) || (!strncmp(dm, name, n) && dm[n] == '(');
			free(dm);
		}
		if (eq)
			return &o->syms[i];
	}
	return NULL;
}
