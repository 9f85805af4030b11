/* SPDX-License-Identifier: MIT */
/*
 * The pieces the name cache keeps of a unit (sym_obj_unit_pieces(),
 * lib/profile/symbols-dwarf.c) give, at every byte of every piece, what
 * sym_obj_line() gives there: the same file, line and function, or none
 * where it gives none; the pieces ascend without overlap. Up to 40 units
 * an object, found from symbols spread over it.
 *
 *   test-unit-pieces OBJECT...
 *
 * Exit 77 when no OBJECT is there or none has a unit to cut.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "../lib/profile/symbols.h"

struct piece {
	uint64_t lo, hi;
	const char *file, *fn;
	int line;
};

static struct piece *v;
static size_t n, cap;

static void put(void *arg, uint64_t lo, uint64_t hi, const char *file, int line,
		const char *fn)
{
	(void)arg;
	if (n == cap) {
		cap = cap ? 2 * cap : 1024;
		v = realloc(v, cap * sizeof(*v));
		if (!v)
			exit(T_ERROR);
	}
	v[n++] = (struct piece){ lo, hi, file, fn && *fn ? fn : NULL, line };
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int main(int argc, char **argv)
{
	size_t total_units = 0;

	if (argc < 2 || elf_version(EV_CURRENT) == EV_NONE)
		return T_ERROR;
	for (int k = 1; k < argc; k++) {
		struct sym_obj o;
		uint64_t done[40];
		size_t nd = 0, addrs = 0, bad = 0, step;

		if (access(argv[k], R_OK)) {
			printf("%s: not there\n", argv[k]);
			continue;
		}
		sym_obj_init(&o, argv[k], NULL, 0);
		sym_obj_load(&o);
		step = o.nsyms / 40 + 1;
		for (size_t i = 0; i < o.nsyms && nd < 40; i += step) {
			uint64_t u;
			int seen = 0;

			if (sym_obj_unit(&o, o.syms[i].lo, &u))
				continue;
			for (size_t j = 0; j < nd; j++)
				seen |= done[j] == u;
			if (seen)
				continue;
			done[nd++] = u;
			n = 0;
			T_CHECK(!sym_obj_unit_pieces(&o, u, put, NULL),
				"%s: unit %llx not cut", argv[k], (unsigned long long)u);
			for (size_t p = 0; p < n; p++) {
				T_CHECK(v[p].lo < v[p].hi && (!p || v[p].lo >= v[p - 1].hi),
					"%s: piece %zu out of order", argv[k], p);
				for (uint64_t a = v[p].lo; a < v[p].hi; a++) {
					const char *file = NULL, *fn = NULL;
					int line = -1;

					if (sym_obj_line(&o, a, &file, &line, &fn) ||
					    line < 0 || !file || !*file)
						file = NULL;
					if (fn && !*fn)
						fn = NULL;
					addrs++;
					if (!same(file, v[p].file) ||
					    (file &&
					     (line != v[p].line || !same(fn, v[p].fn)))) {
						if (bad++ < 5)
							printf("%s: %#llx: piece %s:%d %s, line %s:%d %s\n",
							       argv[k], (unsigned long long)a,
							       v[p].file ? v[p].file : "-",
							       v[p].line,
							       v[p].fn ? v[p].fn : "-",
							       file ? file : "-", line,
							       fn ? fn : "-");
					}
				}
			}
		}
		printf("%s: %zu units, %zu addresses, %zu differ\n", argv[k], nd, addrs, bad);
		T_EQ(bad, 0);
		total_units += nd;
		sym_obj_free(&o);
	}
	free(v);
	if (!total_units) {
		printf("SKIP: no unit to cut in any object\n");
		return T_SKIP;
	}
	return t_done("unit-pieces");
}
