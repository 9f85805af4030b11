/* SPDX-License-Identifier: MIT */
/*
 * An index by hash of the caller's array of entries: open addressing,
 * linear probing, at most half full, doubled as it fills. A slot holds
 * the high half of an entry's 64-bit hash and the entry's number + 1
 * (0: an empty slot), so that growing needs neither the entries nor
 * their hashes again. The caller's hash must be mixed in its high half:
 * that half places an entry. At most 2^31 entries.
 *
 * A look-up, and an entry added where it is not found:
 *
 *	if (hwp_htab_reserve(&t, n + 1))
 *		return -1;
 *	for (k = hwp_htab_start(&t, h); (i = hwp_htab_find(&t, &k, h)) >= 0;
 *	     k = hwp_htab_step(&t, k))
 *		if (same(&entry[i], key))
 *			return i;
 *	hwp_htab_put(&t, k, h, n);	(k: the empty slot the search ended at)
 *
 * The engine's call paths, the profile library's data file and the
 * command's tables (tools/) use it; it needs nothing but the libc. The
 * look-ups are inline; growing is lib/hist/htab.c.
 */
#ifndef HWPROF_HTAB_H
#define HWPROF_HTAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HWP_HTAB_MIN 1024 /* slots of a table's first index */

struct hwp_htab {
	uint64_t *slot; /* hash >> 32 << 32 | entry + 1; 0 empty */
	size_t nslot;	/* a power of two, or 0 */
	size_t mask;	/* nslot - 1 */
	size_t room;	/* entries it takes before it grows: nslot / 2 */
};

/* The slot where a search for hash h begins. The table has slots. */
static inline size_t hwp_htab_start(const struct hwp_htab *t, uint64_t h)
{
	return (size_t)(h >> 32) & t->mask;
}

static inline size_t hwp_htab_step(const struct hwp_htab *t, size_t k)
{
	return (k + 1) & t->mask;
}

/* The entry at slot *k, or -1 where the slot is empty (a search ends
 * there). The hash a slot keeps only places its entry when the index
 * grows: comparing it here too costs more than the compares it saves. */
static inline long hwp_htab_find(const struct hwp_htab *t, size_t *k, uint64_t h)
{
	uint64_t s = t->slot[*k];

	(void)h;
	return s ? (long)(uint32_t)s - 1 : -1;
}

/* Entry i (hash h) at slot k: the empty one a search ended at, or the
 * slot of an entry it takes the place of. */
static inline void hwp_htab_put(struct hwp_htab *t, size_t k, uint64_t h, size_t i)
{
	t->slot[k] = (h >> 32 << 32) | (uint64_t)(i + 1);
}

/* Entry i (hash h) added without a search for an equal one: where the
 * caller knows there is none (an index made again). The table has room. */
static inline void hwp_htab_add(struct hwp_htab *t, uint64_t h, size_t i)
{
	size_t k = hwp_htab_start(t, h);

	while (t->slot[k])
		k = hwp_htab_step(t, k);
	hwp_htab_put(t, k, h, i);
}

int hwp_htab_grow(struct hwp_htab *t, size_t n);

/* Room for n entries: the index doubled (and refilled) when n would fill
 * more than half of it. 0, or -1 when memory is short or n is past what
 * a table holds (the index is then as it was). */
static inline int hwp_htab_reserve(struct hwp_htab *t, size_t n)
{
	return n <= t->room ? 0 : hwp_htab_grow(t, n);
}

/* Every entry forgotten; the slots are kept. */
static inline void hwp_htab_clear(struct hwp_htab *t)
{
	if (t->slot)
		memset(t->slot, 0, t->nslot * sizeof(*t->slot));
}

static inline void hwp_htab_free(struct hwp_htab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->nslot = t->mask = t->room = 0;
}

#endif /* HWPROF_HTAB_H */
