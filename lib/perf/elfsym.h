/* SPDX-License-Identifier: MIT */
/*
 * ELF files read in one place (elfsym.c): a function's value by name and
 * the GNU build-id, for the engine (mem:SYMBOL:x), the command (record
 * -e FILE:FUNC, the build-ids of the objects it saw) and the profile
 * library (the build-id check of report and annotate).
 */
#ifndef HWPROF_ELFSYM_H
#define HWPROF_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/* The longest build-id read (64 bytes) in hex, with its NUL. */
#define HWP_ELF_BUILDID_HEX 129

/*
 * The value (st_value) of the function (STT_FUNC or STT_GNU_IFUNC,
 * defined, nonzero) named name in the ELF file at path, from .symtab or
 * .dynsym; *type (if type is not NULL) gets the file's e_type (ET_DYN for
 * a shared object or a PIE). 0, -errno from open(2), -ENOEXEC (not an ELF
 * file), -ENOENT (no such function) or -ENOSYS (libelf unusable).
 */
int hwp_elf_func(const char *path, const char *name, uint64_t *value, int *type);

/*
 * The GNU build-id (NT_GNU_BUILD_ID, 1 to 64 bytes) among the ELF notes
 * in [notes, notes + n) (a PT_NOTE segment or an SHT_NOTE section, in
 * this host's byte order), as lower-case hex into out
 * (HWP_ELF_BUILDID_HEX bytes). 0, or -1 when there is none or the notes
 * are malformed (out is then "").
 */
int hwp_elf_note_buildid(const void *notes, size_t n, char *out);

#endif /* HWPROF_ELFSYM_H */
