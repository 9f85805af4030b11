/* SPDX-License-Identifier: MIT */
/*
 * The FDEs of an object's .eh_frame, found through .eh_frame_hdr's
 * search table: each one's start and length, for symbols.c to name code
 * no symbol covers (hwprof(1), "Code without symbols"). Read from the
 * bytes with every offset checked: the objects are not the user's to
 * trust. The table is sorted by start (the unwinder searches it);
 * binutils ld, gold, lld and mold write it with 4-byte offsets from the
 * section (DW_EH_PE_datarel | DW_EH_PE_sdata4), the one form read here.
 * Little-endian (x86-64).
 */
#include <string.h>

#include "symbols.h"

/* The size of a value of DWARF pointer encoding enc in .eh_frame_hdr
 * (the low nibble), 0 when unknown. */
static size_t enc_size(unsigned enc, int is64)
{
	switch (enc & 0x0f) {
	case 0x00:
		return is64 ? 8 : 4; /* DW_EH_PE_absptr */
	case 0x02:
	case 0x0a:
		return 2;
	case 0x03:
	case 0x0b:
		return 4;
	case 0x04:
	case 0x0c:
		return 8;
	default:
		return 0;
	}
}

/* An unsigned LEB128 at *at (advanced), bounded by len; -1 when cut. */
static int uleb(const unsigned char *p, size_t len, size_t *at, uint64_t *v)
{
	*v = 0;
	for (int sh = 0; *at < len && sh < 64; sh += 7) {
		unsigned char b = p[(*at)++];

		*v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* A length field of .eh_frame at *at: the entry's bytes after it, the
 * 64-bit form in *wide. -1 when cut or a terminator. */
static int entry_len(const struct sym_fdes *f, size_t *at, uint64_t *n, int *wide)
{
	uint32_t l;

	if (*at + 4 > f->nframe)
		return -1;
	memcpy(&l, f->frame + *at, 4);
	*at += 4;
	*wide = l == 0xffffffffu;
	if (*wide) {
		if (*at + 8 > f->nframe)
			return -1;
		memcpy(n, f->frame + *at, 8);
		*at += 8;
	} else {
		*n = l;
	}
	return *n && *n <= f->nframe - *at ? 0 : -1;
}

/* The pointer encoding of the FDEs of the CIE at off (its augmentation
 * 'R'; DW_EH_PE_absptr without one), or -1. */
static int cie_read(const struct sym_fdes *f, size_t off)
{
	size_t at = off, end;
	uint64_t n, v;
	const unsigned char *p = f->frame;
	const char *aug;
	int wide, ver;

	if (entry_len(f, &at, &n, &wide))
		return -1;
	end = at + n;
	at += wide ? 8 : 4; /* the CIE id, 0 */
	if (at + 2 > end)
		return -1;
	ver = p[at++];
	aug = (const char *)p + at;
	if (!memchr(aug, 0, end - at))
		return -1;
	at += strlen(aug) + 1;
	if (strstr(aug, "eh"))
		at += f->is64 ? 8 : 4;			    /* an old gcc's eh pointer */
	if (uleb(p, end, &at, &v) || uleb(p, end, &at, &v)) /* code, data align */
		return -1;
	if (ver == 1)
		at++;
	else if (uleb(p, end, &at, &v))
		return -1;
	if (aug[0] != 'z')
		return 0;
	if (uleb(p, end, &at, &v))
		return -1;
	for (const char *a = aug + 1; *a && at < end; a++) {
		size_t sz;

		switch (*a) {
		case 'R':
			return p[at];
		case 'L':
			at++;
			break;
		case 'P':
			if ((p[at] & 0x70) == 0x50 || !(sz = enc_size(p[at], f->is64)))
				return -1; /* aligned: not seen on Linux */
			at += 1 + sz;
			break;
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			return -1;
		}
	}
	return 0;
}

/* The FDEs' pointer encoding of the CIE at off, cached; -1 when unknown. */
static int cie_enc(struct sym_fdes *f, size_t off)
{
	int enc;

	for (size_t i = 0; i < f->ncie; i++)
		if (f->cie[i].off == off)
			return f->cie[i].enc;
	enc = cie_read(f, off);
	if (f->ncie < sizeof(f->cie) / sizeof(f->cie[0])) {
		f->cie[f->ncie].off = off;
		f->cie[f->ncie++].enc = enc;
	}
	return enc;
}

/* The address range of the FDE at address fde (its pc_range), 0 when it
 * cannot be read. */
static uint64_t fde_range(struct sym_fdes *f, uint64_t fde)
{
	size_t at, q;
	uint64_t n, cie, r = 0;
	int wide, enc;
	size_t sz;

	if (fde < f->frame_addr || fde - f->frame_addr >= f->nframe)
		return 0;
	at = (size_t)(fde - f->frame_addr);
	if (entry_len(f, &at, &n, &wide) || n < (wide ? 8u : 4u))
		return 0;
	q = at; /* the CIE pointer: back from here */
	if (wide) {
		memcpy(&cie, f->frame + at, 8);
		at += 8;
	} else {
		uint32_t c;

		memcpy(&c, f->frame + at, 4);
		cie = c;
		at += 4;
	}
	if (!cie || cie > q || (enc = cie_enc(f, q - cie)) < 0 ||
	    !(sz = enc_size((unsigned)enc, f->is64)) || at + 2 * sz > q + n)
		return 0;
	memcpy(&r, f->frame + at + sz, sz); /* little-endian: x86-64 */
	return r;
}

size_t sym_fdes_open(Elf *e, struct sym_fdes *f)
{
	GElf_Shdr sh, fs;
	Elf_Scn *scn = sym_scn_by_name(e, ".eh_frame_hdr", &sh);
	Elf_Scn *fscn = sym_scn_by_name(e, ".eh_frame", &fs);
	Elf_Data *d = scn && sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
	Elf_Data *fd = fscn && fs.sh_type == SHT_PROGBITS ? elf_getdata(fscn, NULL) : NULL;
	const unsigned char *p;
	size_t at, sz, csz;
	uint64_t count = 0;

	memset(f, 0, sizeof(*f));
	if (!d || !d->d_buf || d->d_size < 4 || !fd || !fd->d_buf)
		return 0;
	f->is64 = gelf_getclass(e) == ELFCLASS64;
	p = d->d_buf;
	f->hdr_addr = sh.sh_addr;
	f->frame = fd->d_buf;
	f->nframe = fd->d_size;
	f->frame_addr = fs.sh_addr;
	/* version 1; the encodings of eh_frame_ptr, fde_count, the table */
	if (p[0] != 1 || p[3] != 0x3b || p[1] == 0xff || !(sz = enc_size(p[1], f->is64)))
		return 0;
	at = 4 + sz;
	csz = p[2] == 0xff ? 0 : enc_size(p[2], f->is64);
	if ((csz != 4 && csz != 8) || at + csz > d->d_size)
		return 0;
	memcpy(&count, p + at, csz); /* little-endian */
	at += csz;
	if (!count || count > (d->d_size - at) / 8)
		return 0;
	f->table = p + at;
	f->n = count;
	return f->n;
}

uint64_t sym_fde_start(const struct sym_fdes *f, size_t i)
{
	int32_t loc;

	memcpy(&loc, f->table + 8 * i, 4);
	return f->hdr_addr + (uint64_t)(int64_t)loc;
}

uint64_t sym_fde_len(struct sym_fdes *f, size_t i)
{
	int32_t off;

	memcpy(&off, f->table + 8 * i + 4, 4);
	return fde_range(f, f->hdr_addr + (uint64_t)(int64_t)off);
}
