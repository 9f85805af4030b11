/* SPDX-License-Identifier: MIT */
/*
 * ELF files: a function's value by name (libelf) and the GNU build-id of
 * a set of notes. Knows nothing of the engine; see elfsym.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"

/* A defined function symbol named name in one symbol table section. */
static int table_find(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
		      uint64_t *value)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	for (size_t i = 0; d && i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Sym s;
		const char *n;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value ||
		    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
			continue;
		n = elf_strptr(e, sh->sh_link, s.st_name);
		if (n && !strcmp(n, name)) {
			*value = s.st_value;
			return 1;
		}
	}
	return 0;
}

int hwp_elf_func(const char *path, const char *name, uint64_t *value, int *type)
{
	Elf_Scn *scn = NULL;
	int fd, found = 0;
	GElf_Ehdr eh;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh)) {
		if (e)
			elf_end(e);
		close(fd);
		return -ENOEXEC;
	}
	if (type)
		*type = eh.e_type;
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		found = table_find(e, scn, &sh, name, value);
	}
	elf_end(e);
	close(fd);
	return found ? 0 : -ENOENT;
}

int hwp_elf_note_buildid(const void *notes, size_t n, char *out)
{
	const unsigned char *p = notes;
	size_t i = 0;

	out[0] = 0;
	while (i + 12 <= n) {
		uint32_t nsz, dsz, type;
		size_t d;

		memcpy(&nsz, p + i, 4);
		memcpy(&dsz, p + i + 4, 4);
		memcpy(&type, p + i + 8, 4);
		d = i + 12 + ((nsz + 3ull) & ~3ull);
		if (d > n || dsz > n - d)
			return -1;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(p + i + 12, "GNU", 4) &&
		    dsz && dsz <= 64) {
			for (size_t k = 0; k < dsz; k++)
				sprintf(out + 2 * k, "%02x", p[d + k]);
			return 0;
		}
		i = d + ((dsz + 3ull) & ~3ull);
	}
	return -1;
}
