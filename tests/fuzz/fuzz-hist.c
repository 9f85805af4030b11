/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a region table built from the input goes through
 * hwprof_hist_check(), hwprof_hist_new() and hwprof_hist_fold() with pcs
 * from the input. Each region's buffer is allocated to its exact size, so
 * AddressSanitizer reports any write outside it; check and new must agree,
 * and hwprof_hist_locate() must name a bucket inside its region. Some
 * regions point into read-only memory: hwprof_hist_new() must refuse
 * them (-EFAULT), or the fold would crash.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hwprof.h"

#define MAXREG 8
#define MAXPC  512

struct in {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct in *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

/* Scales near the edges of what each formula takes, or any value. */
static uint32_t pick_scale(struct in *in)
{
	static const uint32_t edge[] = { 0,	  1,	   2,	    3,
					 0x8000,  0xffff,  0x10000, 0x10001,
					 0x1ffff, 0x20000, 0x20001, UINT32_MAX };
	uint8_t k = (uint8_t)take(in, 1);

	if (k < 2 * sizeof(edge) / sizeof(edge[0]))
		return edge[k % (sizeof(edge) / sizeof(edge[0]))];
	return (uint32_t)take(in, 4);
}

/* 64 KiB of read-only memory, mapped once: as large as any region here. */
static void *ro_page(void)
{
	static void *p;

	if (!p) {
		p = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			abort();
	}
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct hwprof_region reg[MAXREG];
	struct hwprof_hist_opts o = { .sz = sizeof(o), .regions = reg };
	struct hwprof_hist *h = NULL;
	uint64_t pcs[MAXPC], w[MAXPC], base;
	size_t npc = 0, where = 0, region;
	uint64_t bucket;
	uint32_t lcg = HWPROF_LCG_SEED;
	int fault, ret, weighted, any_ro = 0;
	unsigned char ro[MAXREG] = { 0 };

	memset(reg, 0, sizeof(reg));
	o.index = (unsigned int)take(&in, 1) % 4;    /* 0 is invalid */
	o.fold = (unsigned int)take(&in, 1) & 0xf;   /* 8 is unknown */
	o.flags = (unsigned int)take(&in, 1) & 0x1f; /* 16 is unknown */
	o.threshold = take(&in, 2);
	o.nregions = take(&in, 1) % (MAXREG + 1);
	weighted = (int)take(&in, 1) & 1;
	/* offsets near one base, so regions meet, nest and overlap */
	base = take(&in, 8);
	for (size_t i = 0; i < o.nregions; i++) {
		uint8_t shape = (uint8_t)take(&in, 1);
		size_t sz = (size_t)take(&in, 2);
		static const uint32_t widths[] = { 16, 32, 64, 8, 0, 48, 128, 17 };

		reg[i].size = sz;
		reg[i].width = widths[shape & 7];
		reg[i].offset = shape & 0x80 ? take(&in, 8) : base + take(&in, 2);
		if ((shape & 0x40) && i) /* an overflow bin */
			reg[i].offset = 0;
		reg[i].scale = shape & 0x40 ? 2 : pick_scale(&in);
		/* exact allocation; shape bit 0x20 leaves base NULL, 0x08
		 * points it into read-only memory */
		if ((shape & 0x08) && !(shape & 0x20)) {
			reg[i].base = ro_page();
			ro[i] = 1;
		} else if (!(shape & 0x20) && sz) {
			reg[i].base = calloc(1, sz);
		}
		if (shape & 0x10 && sz) /* a size that wraps the address space */
			reg[i].size = SIZE_MAX - 3;
	}
	while (in.n && npc < MAXPC) {
		uint8_t how = (uint8_t)take(&in, 1);

		if (how & 1) /* near a region's offset */
			pcs[npc] = reg[how / 2 % MAXREG].offset + take(&in, 2);
		else
			pcs[npc] = take(&in, 8);
		w[npc] = take(&in, 1);
		npc++;
	}

	fault = hwprof_hist_check(&o, &where);
	if (fault != HWPROF_HIST_OK && where >= (o.nregions ? o.nregions : 1))
		abort(); /* where must name a region */
	/* a wrapping size is a buffer that is not there: refused, unless
	 * the region is switched off (SKIP_OFF and scale 0 or 1) */
	for (size_t i = 0; i < o.nregions; i++)
		if (reg[i].size == SIZE_MAX - 3 && fault == HWPROF_HIST_OK &&
		    !((o.flags & HWPROF_HIST_SKIP_OFF) && reg[i].scale < 2))
			abort();
	ret = hwprof_hist_new(&o, &h);
	for (size_t i = 0; i < o.nregions; i++)
		any_ro |= ro[i];
	if (ret == -EFAULT && (fault != HWPROF_HIST_OK || !any_ro))
		abort(); /* EFAULT for writable buffers, or before the rules */
	if ((fault == HWPROF_HIST_OK) != (ret == 0) && ret != -ENOMEM && ret != -EFAULT)
		abort(); /* check and new disagree */
	/* a read-only buffer that new accepted would crash the fold below */
	if (!ret) {
		struct hwprof_hist_stats st = { .sz = sizeof(st) };

		hwprof_hist_fold(h, pcs, weighted ? w : NULL, npc, &lcg);
		hwprof_hist_fold(h, pcs, NULL, npc, NULL);
		for (size_t i = 0; i < npc; i++) {
			int r = hwprof_hist_locate(h, pcs[i], &region, &bucket);

			if (r == 1 &&
			    (region >= o.nregions ||
			     (bucket + 1) * (reg[region].width / 8) > reg[region].size))
				abort(); /* a bucket outside its region */
			if (r == 2 && (region >= o.nregions || reg[region].offset))
				abort();
		}
		if (hwprof_hist_stats(h, &st) || st.samples != 2 * npc ||
		    st.folded + st.outside + st.dropped + st.refused > 2 * npc)
			abort();
		hwprof_hist_free(h);
	}
	for (size_t i = 0; i < o.nregions; i++)
		if (!ro[i])
			free(reg[i].base);
	return 0;
}
