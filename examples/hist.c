/* SPDX-License-Identifier: MIT */
/*
 * The histogram core on its own: two regions and an overflow bin, a batch
 * of pcs folded into them, the counts and statistics printed.
 * Build: cc hist.c $(pkg-config --cflags --libs hwprof)
 */
#include <stdio.h>
#include <string.h>

#include <hwprof.h>

int main(void)
{
	static uint16_t text[8], data[8]; /* 16-bit buckets */
	static uint32_t other;		  /* the overflow bin */
	const struct hwprof_region regions[] = {
		/* 16 bytes of "text" from 0x1000, 2 bytes a bucket (PAPI scale) */
		{ .base = text,
		  .size = sizeof(text),
		  .offset = 0x1000,
		  .scale = 0x10000,
		  .width = 16 },
		{ .base = data,
		  .size = sizeof(data),
		  .offset = 0x2000,
		  .scale = 0x10000,
		  .width = 16 },
		{ .base = &other, .size = sizeof(other), .offset = 0, .scale = 2, .width = 32 },
	};
	struct hwprof_hist_opts opts = {
		.sz = sizeof(opts),
		.regions = regions,
		.nregions = 3,
		.index = HWPROF_INDEX_PAPI,
		.fold = HWPROF_FOLD_POSIX,
	};
	const uint64_t pcs[] = { 0x1000, 0x1001, 0x1002, 0x100f, 0x2004, 0x2004, 0x3000, 0x10 };
	struct hwprof_hist_stats st = { .sz = sizeof(st) };
	struct hwprof_hist *h;
	int ret;

	ret = hwprof_hist_new(&opts, &h);
	if (ret) {
		fprintf(stderr, "hwprof_hist_new: %s\n", strerror(-ret));
		return 1;
	}
	hwprof_hist_fold(h, pcs, NULL, sizeof(pcs) / sizeof(pcs[0]), NULL);
	hwprof_hist_stats(h, &st);
	hwprof_hist_free(h);

	for (int i = 0; i < 8; i++)
		printf("text[%d] %u  data[%d] %u\n", i, text[i], i, data[i]);
	printf("overflow bin %u\n", other);
	printf("samples %llu folded %llu outside %llu saturated %llu\n",
	       (unsigned long long)st.samples, (unsigned long long)st.folded,
	       (unsigned long long)st.outside, (unsigned long long)st.saturated);
	/* 0x1000, 0x1001 -> text[0]; 0x1002 -> text[1]; 0x100f -> text[7];
	 * 0x2004 twice -> data[2]; 0x3000 and 0x10 -> the overflow bin */
	return !(text[0] == 2 && text[1] == 1 && text[7] == 1 && data[2] == 2 && other == 2 &&
		 st.folded == 8);
}
