/* SPDX-License-Identifier: MIT */
/*
 * The row tables of hwprof report (tools/report/view.h): rows found by
 * their key (a, b) through an open-addressing hash, so that building a
 * view stays linear in the samples.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* Makes room for n rows without rehashing. 0 or -1. */
static int reserve(struct rows_table *t, size_t n, size_t ns)
{
	size_t *slot;

	if (n > t->cap) {
		struct view_row *nr = realloc(t->rows, n * sizeof(*nr));

		if (!nr)
			return -1;
		t->rows = nr;
		t->cap = n;
	}
	if (ns <= t->nslot)
		return 0;
	slot = malloc(ns * sizeof(*slot));
	if (!slot)
		return -1;
	memset(slot, 0xff, ns * sizeof(*slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t k = mix(t->rows[i].a, t->rows[i].b) & (ns - 1);

		while (slot[k] != SIZE_MAX)
			k = (k + 1) & (ns - 1);
		slot[k] = i;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

int rows_reserve(struct rows_table *t, size_t n)
{
	size_t ns = 1024;

	while (ns < 2 * n && ns < SIZE_MAX / 4)
		ns *= 2;
	return reserve(t, n, ns);
}

/* The row of key (a, b), made when new; its index, or -1 (out of memory). */
long rows_get(struct rows_table *t, uint64_t a, uint64_t b)
{
	size_t j;

	if (2 * (t->n + 1) > t->nslot) {
		/* from the rows there (an index dropped by view_sort() is
		 * made again for all of them) */
		size_t ns = t->nslot ? 2 * t->nslot : 1024;

		while (ns < 2 * (t->n + 1) && ns < SIZE_MAX / 4)
			ns *= 2;
		if (reserve(t, t->cap, ns))
			return -1;
	}
	j = mix(a, b) & (t->nslot - 1);
	for (; t->slot[j] != SIZE_MAX; j = (j + 1) & (t->nslot - 1)) {
		struct view_row *r = &t->rows[t->slot[j]];

		if (r->a == a && r->b == b)
			return (long)t->slot[j];
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct view_row *nr = realloc(t->rows, cap * sizeof(*nr));

		if (!nr)
			return -1;
		t->rows = nr;
		t->cap = cap;
	}
	memset(&t->rows[t->n], 0, sizeof(t->rows[0]));
	t->rows[t->n].a = a;
	t->rows[t->n].b = b;
	t->rows[t->n].parent = -1;
	t->slot[j] = t->n;
	return (long)t->n++;
}

void rows_free(struct rows_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].name);
		free(t->rows[i].top);
	}
	free(t->rows);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
