/* SPDX-License-Identifier: MIT */
/*
 * lib/perf/elfsym.c and lib/hist/sat.h: a function's value by name in an ELF file
 * (this program's own), the GNU build-id among a set of notes, and the
 * saturating add.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/perf/elfsym.h"
#include "../lib/hist/sat.h"
#include "harness.h"

int elfsym_probe_target(int x);

__attribute__((noinline, used)) int elfsym_probe_target(int x)
{
	return x * 3 + 1;
}

static int main_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr; /* the first one: the program */
	return 1;
}

static void check_func(void)
{
	char tmp[] = "/tmp/hwprof-elfsym-XXXXXX";
	uint64_t v = 0, base = 0;
	Elf64_Ehdr eh;
	int type = -1, fd, ret;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	T_CHECK(fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh),
		"read this program's ELF header");
	if (fd >= 0)
		close(fd);
	dl_iterate_phdr(main_base, &base);
	ret = hwp_elf_func("/proc/self/exe", "elfsym_probe_target", &v, &type);
	T_EQ(ret, 0);
	T_EQ(v + base, (uintptr_t)&elfsym_probe_target);
	T_EQ(type, eh.e_type);
	v = 7;
	T_EQ(hwp_elf_func("/proc/self/exe", "no_such_function_here", &v, NULL), -ENOENT);
	T_EQ(v, 7);
	T_EQ(hwp_elf_func("/nonexistent/elfsym", "main", &v, NULL), -ENOENT);
	fd = mkstemp(tmp);
	T_CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd >= 0) {
		T_CHECK(write(fd, "not an ELF file\n", 16) == 16, "write");
		close(fd);
		T_EQ(hwp_elf_func(tmp, "main", &v, NULL), -ENOEXEC);
		unlink(tmp);
	}
}

/* Appends one note: name "GNU" or "XYZ", type, desc of dsz bytes 0x10.. */
static size_t note(unsigned char *p, const char *name, uint32_t type, uint32_t dsz)
{
	uint32_t nsz = 4;

	memcpy(p, &nsz, 4);
	memcpy(p + 4, &dsz, 4);
	memcpy(p + 8, &type, 4);
	memcpy(p + 12, name, 4);
	for (uint32_t i = 0; i < dsz; i++)
		p[16 + i] = (unsigned char)(0x10 + i);
	return 16 + ((dsz + 3u) & ~3u);
}

static void check_buildid(void)
{
	unsigned char buf[256];
	char out[HWP_ELF_BUILDID_HEX];
	size_t n = 0;

	/* an ABI tag note first, then the build-id (3 bytes: padded) */
	n += note(buf + n, "GNU", NT_GNU_ABI_TAG, 16);
	n += note(buf + n, "GNU", NT_GNU_BUILD_ID, 3);
	T_EQ(hwp_elf_note_buildid(buf, n, out), 0);
	T_CHECK(!strcmp(out, "101112"), "build-id %s", out);

	/* another owner's note of type 3 is not a build-id */
	n = note(buf, "XYZ", NT_GNU_BUILD_ID, 8);
	T_EQ(hwp_elf_note_buildid(buf, n, out), -1);
	T_CHECK(!*out, "no build-id: \"%s\"", out);

	/* the longest build-id read, and one byte more */
	n = note(buf, "GNU", NT_GNU_BUILD_ID, 64);
	T_EQ(hwp_elf_note_buildid(buf, n, out), 0);
	T_EQ(strlen(out), 128);
	n = note(buf, "GNU", NT_GNU_BUILD_ID, 65);
	T_EQ(hwp_elf_note_buildid(buf, n, out), -1);

	/* a descriptor running past the end is malformed */
	n = note(buf, "GNU", NT_GNU_BUILD_ID, 20);
	T_EQ(hwp_elf_note_buildid(buf, n - 4, out), -1);
	T_EQ(hwp_elf_note_buildid(buf, 0, out), -1);
}

static void check_sat(void)
{
	T_EQ(hwp_add_sat(1, 2), 3);
	T_EQ(hwp_add_sat(UINT64_MAX - 1, 1), UINT64_MAX);
	T_EQ(hwp_add_sat(UINT64_MAX - 1, 5), UINT64_MAX);
	T_EQ(hwp_add_sat(UINT64_MAX, UINT64_MAX), UINT64_MAX);
}

int main(void)
{
	check_func();
	check_buildid();
	check_sat();
	return t_done("elfsym");
}
