/* SPDX-License-Identifier: MIT */
/*
 * Shared by hwprof report and annotate: an object file's names (symbols,
 * PLT stubs, debug files: symbols.c; source lines: symbols-dwarf.c).
 * Demangling and safe printing are names.h's, included here.
 */
#ifndef HWPROF_PROFILE_SYMBOLS_H
#define HWPROF_PROFILE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "data.h"
#include "names.h"
#include "../hist/sat.h"

/* Where a unit's functions are, innermost first (symbols-dwarf.c). */
struct sym_seg {
	uint64_t lo, hi;  /* [lo, hi), disjoint, sorted */
	const char *name; /* the innermost function over it ("": unnamed) */
};

struct sym_scopes {
	uint64_t off; /* the unit's DIE offset */
	struct sym_seg *seg;
	size_t n;
};

struct sym_cu {
	uint64_t lo, hi; /* an address range of a unit */
	uint64_t die;	 /* the unit's DIE offset */
};

struct sym_func {
	uint64_t lo, hi; /* ELF virtual addresses [lo, hi) */
	char *name;	 /* raw (mangled) name; "x@plt" for a stub;
			  * "OBJECT+0xSTART" for code only call-frame
			  * information bounds (fde) */
	char *aliases;	 /* the other names at lo, each ended by a NUL,
			  * the list by an empty one; NULL when none */
	int rank;	 /* the source: PLT stub 2, symbol table 1,
			  * entry point guess 0 */
	int fde;	 /* no symbol: an FDE of .eh_frame bounds it */
	uint64_t score;	 /* preference among aliases (sym_score()) */
	size_t order;	 /* the symbol's place in its table */
};

/* One object of the data file, opened lazily by sym_obj_load(). */
struct sym_obj {
	const char *path;    /* borrowed from the data file */
	const char *buildid; /* recorded build-id (hex) or NULL */
	uint64_t size;	     /* recorded size in bytes, 0 when unknown */
	int loaded;	     /* sym_obj_load() ran */
	int readable;	     /* names came from some file */
	int mismatch;	     /* the file is not the recorded one (build-id,
			      * or size where none was recorded) */
	struct sym_func *syms;
	size_t nsyms;
	char *textfile; /* the file whose code matches (for objdump), or NULL */
	char *dwfile;	/* the file the DWARF came from, or NULL */
	int dwfd;
	Elf *dwelf;
	Dwarf *dw; /* NULL until sym_obj_dwarf() */
	int dw_tried;
	struct {
		const char *raw; /* as libdw gives it */
		char *abs;	 /* joined to its compilation directory */
	} * paths;
	size_t npaths, lastpath;
	struct sym_scopes *units; /* by offset: each unit's functions */
	size_t nunits, lastunit;
	struct sym_cu *cus; /* sorted; built when aranges fail */
	size_t ncus;
	int cus_built;
	int ar_checked; /* aranges: 1 disjoint, -1 not, 0 not looked */
	/* names kept in the data file (sym_obj_keep()) */
	const struct hd_file *kd;
	uint32_t kobj;
	int prefer_file;	       /* the file first (annotate needs its code) */
	int from_kept;		       /* names and lines came from kd */
	const struct hd_line **klines; /* kd's lines of kobj, by address */
	size_t nklines;
};

void sym_obj_init(struct sym_obj *o, const char *path, const char *buildid, uint64_t size);
/* Names object obj of d from the names d kept at recording, when it kept
 * them (hwprof-data(5), "Names"): sym_obj_load() then reads no file, so a
 * rebuild or an uninstall since changes nothing. With prefer_file set
 * (annotate), the file is read when it is still the recorded one. */
void sym_obj_keep(struct sym_obj *o, const struct hd_file *d, uint32_t obj);
/* The kept line of addr (sym_obj_line() for a kept object). 0 or -1. */
int sym_obj_kept_line(const struct sym_obj *o, uint64_t addr, const char **file, int *line,
		      const char **func);
/*
 * hwprof record, before its last write: keeps in d the names of every
 * sampled address (samples and call-path nodes) of every object, as the
 * objects on disk give them now. 0, or -1 when out of memory (then d
 * keeps no name at all: hd_drop_names()).
 */
int sym_keep_names(struct hd_file *d);
/* Loads the symbols (and warns once on stderr about a rebuilt or unreadable
 * object); never fails: an object without names gives no symbols. */
void sym_obj_load(struct sym_obj *o);
void sym_obj_free(struct sym_obj *o);
/* 1 when path names the vDSO ([vdso], linux-vdso.so.1): sym_obj_load()
 * reads this process's own image for it. */
int sym_is_vdso(const char *path);
/* 1 when path is on disk as recorded (the same build-id; without one,
 * readable and of the recorded size, 0: any). */
int sym_file_is_recorded(const char *path, const char *buildid, uint64_t size);
/* The GNU build-id of an ELF file in hex (malloc'd), or NULL. */
char *sym_file_buildid(const char *path);
/* A regular file's size in bytes, 0 when unknown (hwprof-data(5): SIZE). */
uint64_t sym_file_size(const char *path);
/* The symbol covering addr, or NULL. */
const struct sym_func *sym_obj_sym(const struct sym_obj *o, uint64_t addr);
/* The next alias of f after a (NULL: the first), or NULL after the last. */
const char *sym_alias_next(const struct sym_func *f, const char *a);
/* The first symbol whose raw or demangled name is name, or NULL. */
const struct sym_func *sym_obj_find(const struct sym_obj *o, const char *name);
/* The source of addr from DWARF (libdw): 0 and file/line, the innermost
 * function (inlined or not, raw name) when func is not NULL; -1 when
 * there is no line information. The strings live as long as o. */
int sym_obj_line(struct sym_obj *o, uint64_t addr, const char **file, int *line,
		 const char **func);

/* The section of e named want (its header in *sh), or NULL. */
Elf_Scn *sym_scn_by_name(Elf *e, const char *want, GElf_Shdr *sh);

/* An object's FDEs, through .eh_frame_hdr's search table (symbols-fde.c). */
struct sym_fdes {
	const unsigned char *table; /* (start, FDE) pairs, sorted by start */
	size_t n;
	const unsigned char *frame; /* .eh_frame */
	size_t nframe;
	uint64_t hdr_addr, frame_addr; /* the sections' addresses */
	int is64;
	struct {
		size_t off; /* a CIE's offset in .eh_frame */
		int enc;    /* its FDEs' pointer encoding, -1: unreadable */
	} cie[16];	    /* the CIEs met so far */
	size_t ncie;
};
/* Opens e's table into f: the number of FDEs, 0 when e has none (of the
 * form that linkers write). f borrows e's data. */
size_t sym_fdes_open(Elf *e, struct sym_fdes *f);
/* FDE i's start (its initial location) and length (its address range;
 * 0 when it cannot be read). */
uint64_t sym_fde_start(const struct sym_fdes *f, size_t i);
uint64_t sym_fde_len(struct sym_fdes *f, size_t i);

/* The DWARF unit holding addr: 0, or -1 when none does. */
int sym_obj_cu(struct sym_obj *o, uint64_t addr, Dwarf_Die *cu);
/* For the name cache: the unit (its DIE offset) that holds addr by
 * .debug_aranges, when those map each address to one unit; 0, or -1. */
int sym_obj_unit(struct sym_obj *o, uint64_t addr, uint64_t *unit);
/* Every address range of unit (by its aranges) cut into the pieces over
 * which sym_obj_line() gives one answer, each handed to put in ascending
 * order with that answer (file NULL: no line; func NULL: none); the
 * strings live as long as o. 0, or -1. */
int sym_obj_unit_pieces(struct sym_obj *o, uint64_t unit,
			void (*put)(void *arg, uint64_t lo, uint64_t hi, const char *file,
				    int line, const char *func),
			void *arg);
/* The debug info of an object, read on first use; NULL when it has none. */
Dwarf *sym_obj_dwarf(struct sym_obj *o);
/* A source file name of unit cu made absolute with the unit's
 * compilation directory; lives as long as o. */
const char *sym_obj_abs(struct sym_obj *o, Dwarf_Die *cu, const char *file);

/* The warnings sym_obj_load() wrote on stderr so far ("warning: PATH:
 * ..."), for a report to put into its own output. */
extern char **sym_warnings;
extern size_t sym_nwarnings;

/* The GNU build-id of e in lower-case hex, or "" (out holds
 * HWP_ELF_BUILDID_HEX bytes). */
void sym_elf_buildid(Elf *e, char *out);

/*
 * The debug cache (debugcache.c; hwprof(1), "Debug cache"): uncompressed
 * copies of compressed debug files, by build-id, in the user's cache
 * directory. Used by sym_obj_dwarf() when sym_debug_cache is set (hwprof
 * record's naming and libhwprof-mpi's set it; report does not).
 */
extern int sym_debug_cache;
/* 1 when e has a compressed section (SHF_COMPRESSED, or .zdebug). */
int sym_debug_compressed(Elf *e);
/* The cache's copy of the debug file of build-id bid, checked, opened
 * (*fd its descriptor), or NULL. */
Elf *sym_debug_cached(const char *bid, int *fd);
/* Writes e, whose sections libdw has uncompressed in memory, as the copy
 * of build-id bid (a temp file renamed: never a partial copy). */
void sym_debug_store(Elf *e, const char *bid);

/* The cache directory shared by the debug and name caches: NULL when off
 * or unusable, with *why a line saying why (NULL: nothing to say). */
const char *sym_cache_dir(const char **why);
/* Waits (at most a few seconds) for BUILDID.lock in the cache directory,
 * so that of the recordings that lack the same copy or names at once
 * (the ranks of a job on a node) one makes them and the others read
 * them: a handle for sym_cache_unlock(), or -1 (no cache, or no lock to
 * be had: go on without it, the writes are atomic anyway). Taken again
 * for the same bid by this process, it is held once. */
int sym_cache_lock(const char *bid);
void sym_cache_unlock(int h);

/*
 * The name cache (namecache.c; hwprof(1), "Name cache"): per object, by
 * build-id, the lines and functions DWARF gave the addresses recordings
 * named. Used by sym_keep_names() when sym_debug_cache is set; says
 * nothing unless sym_cache_verbose is set.
 */
extern int sym_cache_verbose;
struct sym_ncache;
/* The cache of the object of build-id bid whose DWARF is in dwelf (not
 * yet read by libdw), or NULL when there is none to use. */
struct sym_ncache *sym_ncache_open(const char *bid, Elf *dwelf);
/* addr's entry: 1 and its line (fn NULL when none), 0 when DWARF gave it
 * no line, -1 when the cache does not have it. */
int sym_ncache_get(struct sym_ncache *c, uint64_t addr, const char **file, int *line,
		   const char **fn);
/* Before addresses a[0..n) are resolved: when the cache has no file of
 * the object or lacks a quarter of them or more, waits for the object's
 * lock (sym_cache_lock()), held until
 * sym_ncache_close(), and reads the file again when another recording
 * replaced it meanwhile. */
void sym_ncache_need(struct sym_ncache *c, const uint64_t *a, size_t n);
/* What DWARF gave addr, a miss, in object o (file NULL: no line): keeps
 * the whole unit of addr when sym_obj_unit() finds one, else addr alone.
 * The strings are o's: c is closed before o is freed. */
void sym_ncache_put(struct sym_ncache *c, struct sym_obj *o, uint64_t addr, const char *file,
		    int line, const char *fn);
/* Writes what was put (when keep is set) into the file, merged with what
 * it holds then, and frees c. */
void sym_ncache_close(struct sym_ncache *c, int keep);
/* With sym_cache_verbose: one line on stderr of what the cache did. */
void sym_ncache_report(void);

/* The debug file of build-id bid (hex) from a debuginfod server
 * (debuginfod.c): its path in libdebuginfod's cache into path, 0; -1 when
 * none (DEBUGINFOD_URLS unset, set-user-ID, not found, no library). */
int sym_debuginfod(const char *bid, char *path, size_t len);

/* Where debug files are looked for (default /usr/lib/debug). */
extern const char *sym_debug_dir;

#endif
