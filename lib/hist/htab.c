/* SPDX-License-Identifier: MIT */
/* Growing a hash index (htab.h): out of line, so that the inline
 * look-ups stay small where they are used. */
#include "htab.h"

/* hwp_htab_reserve() where n entries do not fit. */
int hwp_htab_grow(struct hwp_htab *t, size_t n)
{
	size_t ns = t->nslot ? t->nslot : HWP_HTAB_MIN;
	uint64_t *slot;

	if (n <= t->room)
		return 0;
	if (n > (size_t)1 << 31)
		return -1;
	while (ns / 2 < n)
		ns *= 2;
	slot = calloc(ns, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < t->nslot; i++) {
		size_t k;

		if (!t->slot[i])
			continue;
		for (k = (size_t)(t->slot[i] >> 32) & (ns - 1); slot[k];
		     k = (k + 1) & (ns - 1))
			;
		slot[k] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	t->mask = ns - 1;
	t->room = ns / 2;
	return 0;
}
