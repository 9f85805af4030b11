/* SPDX-License-Identifier: MIT */
/*
 * The row tables of hwprof report (tools/report/rows.h): rows found by
 * their key (a, b) through a hash index (lib/hist/htab.h), so that
 * building a view stays linear in the samples.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* Makes room for n rows, and in the index: made again from the rows
 * where view_sort() dropped it. 0 or -1. */
static int reserve(struct rows_table *t, size_t n)
{
	int again = !t->index.slot;

	if (n > t->cap) {
		struct view_row *nr = realloc(t->rows, n * sizeof(*nr));

		if (!nr)
			return -1;
		t->rows = nr;
		t->cap = n;
	}
	if (hwp_htab_reserve(&t->index, n))
		return -1;
	for (size_t i = 0; again && i < t->n; i++)
		hwp_htab_add(&t->index, mix(t->rows[i].a, t->rows[i].b), i);
	return 0;
}

int rows_reserve(struct rows_table *t, size_t n)
{
	return reserve(t, n < t->n ? t->n : n);
}

/* The row of key (a, b), made when new; its index, or -1 (out of memory). */
long rows_get(struct rows_table *t, uint64_t a, uint64_t b)
{
	uint64_t h = mix(a, b);
	size_t k;
	long i;

	if ((!t->index.slot || t->n + 1 > t->index.room) && reserve(t, t->n + 1))
		return -1;
	for (k = hwp_htab_start(&t->index, h); (i = hwp_htab_find(&t->index, &k, h)) >= 0;
	     k = hwp_htab_step(&t->index, k)) {
		struct view_row *r = &t->rows[i];

		if (r->a == a && r->b == b)
			return i;
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
	hwp_htab_put(&t->index, k, h, t->n);
	return (long)t->n++;
}

void rows_free(struct rows_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].name);
		free(t->rows[i].top);
	}
	free(t->rows);
	hwp_htab_free(&t->index);
	memset(t, 0, sizeof(*t));
}
