/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the sample parser of lib/perf/sample.c (and sample.h,
 * inline) on any record bytes with any description. The input's first 20
 * bytes describe the event (sample_type, read_format, the branch stack's
 * HW_INDEX and COUNTERS, the number of user and interrupt registers, a
 * misaligned record, bits of a later kernel left in or masked out), the
 * rest is the record, its header.size set to its length (one shorter than
 * a header says less than the header holds). The record is copied into a
 * block of exactly that many bytes, so AddressSanitizer reports any read
 * past it. Checked: the parser answers 0, -EINVAL or -EOPNOTSUPP (this
 * one only for bits it does not know); every field it gives lies inside
 * the record (each array is read whole here, and is 8-byte aligned), the
 * fields' bytes add up to no more than header.size; the inline parser
 * specialised for the engine's and hwprof record's types gives the same
 * fields; the sample_id trailer parser and hwp_sample_id() answer 0 or
 * -EINVAL and stay inside the record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/perf/sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PREFIX 20
#define ID_BITS                                                                        \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static volatile uint64_t sink;

/* n bytes at p lie in [lo, hi), and are read (ASan checks each) */
static void inside(const void *p, uint64_t n, const unsigned char *lo, const unsigned char *hi)
{
	const unsigned char *c = p;

	if (!n)
		return;
	if (!c || c < lo || c > hi || n > (uint64_t)(hi - c))
		abort();
	for (uint64_t i = 0; i < n; i++)
		sink += c[i];
}

/* the same for an array of n u64: aligned, read as u64 (UBSan checks) */
static void words(const uint64_t *p, uint64_t n, const unsigned char *lo,
		  const unsigned char *hi)
{
	if (!n)
		return;
	if (n > (uint64_t)(hi - lo) / 8 || ((uintptr_t)p & 7))
		abort();
	inside(p, 8 * n, lo, hi);
	for (uint64_t i = 0; i < n; i++)
		sink += p[i];
}

/* The bytes the parsed fields take, header included. */
static uint64_t fields_len(const struct hwp_sample *s, const struct hwp_sample_desc *d)
{
	uint64_t t = s->type, rf = d->read_format, n = 8;

	n += 8 * (uint64_t)__builtin_popcountll(t & HWP_SAMPLE_LEAD);
	if (t & PERF_SAMPLE_READ) {
		if (rf & PERF_FORMAT_GROUP)
			n += 8 + 8 * s->read.stride * s->read.nr;
		else
			n += 8 + 8 * !!(rf & PERF_FORMAT_ID) + 8 * !!(rf & PERF_FORMAT_LOST);
		n += 8 * !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		     8 * !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	}
	if (t & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * s->nchain;
	if (t & PERF_SAMPLE_RAW)
		n += 4 + (uint64_t)s->raw_size;
	if (t & PERF_SAMPLE_BRANCH_STACK)
		n += 8 + 8 * !!(d->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) +
		     s->nbranch * (sizeof(struct perf_branch_entry) +
				   8 * !!(d->branch_sample_type & HWP_SAMPLE_BRANCH_COUNTERS));
	if (t & PERF_SAMPLE_REGS_USER)
		n += 8 + 8 * (uint64_t)s->nregs_user;
	if (t & PERF_SAMPLE_STACK_USER)
		n += 8 + (s->stack_size ? s->stack_size + 8 : 0);
	n += 8 * !!(t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));
	n += 8 * (uint64_t)__builtin_popcountll(
			 t & (PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
			      PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			      PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE));
	if (t & PERF_SAMPLE_REGS_INTR)
		n += 8 + 8 * (uint64_t)s->nregs_intr;
	if (t & PERF_SAMPLE_AUX)
		n += 8 + s->aux_size;
	return n;
}

static void check_sample(const struct perf_event_header *h, const struct hwp_sample_desc *d)
{
	const unsigned char *lo = (const unsigned char *)h, *hi = lo + h->size;
	struct hwp_sample s;
	int ret = hwp_sample_parse(h, d, &s);

	if (ret == -EOPNOTSUPP) {
		if (!(d->sample_type & ~HWP_SAMPLE_KNOWN) &&
		    !((d->sample_type & PERF_SAMPLE_READ) &&
		      (d->read_format & ~HWP_READ_KNOWN)))
			abort(); /* refused a layout it knows */
		return;
	}
	if (ret == -EINVAL)
		return;
	if (ret || s.type != d->sample_type)
		abort();
	if (h->size < sizeof(*h) || fields_len(&s, d) > h->size)
		abort(); /* fields past the record */
	if (s.read.values)
		words(s.read.values, s.read.stride * s.read.nr, lo, hi);
	words(s.chain, s.nchain, lo, hi);
	inside(s.raw, s.raw_size, lo, hi);
	if (s.nbranch) {
		inside(s.branch, s.nbranch * sizeof(*s.branch), lo, hi);
		if ((uintptr_t)s.branch & 7)
			abort();
		for (uint64_t i = 0; i < s.nbranch; i++)
			sink += s.branch[i].from + s.branch[i].to;
	}
	if (s.branch_counters)
		words(s.branch_counters, s.nbranch, lo, hi);
	words(s.regs_user, s.nregs_user, lo, hi);
	if (!!s.regs_user != !!s.nregs_user || s.nregs_user > d->nregs_user)
		abort();
	words(s.regs_intr, s.nregs_intr, lo, hi);
	inside(s.stack, s.stack_size, lo, hi);
	if (s.stack_dyn_size > s.stack_size || !!s.stack != !!s.stack_size)
		abort();
	inside(s.aux, s.aux_size, lo, hi);
}

/* The inline parser, specialised as ring.c and rec-read.c use it, against
 * the out-of-line one with the same description. */
#define SAME_AS(type, nregs)                                                                 \
	do {                                                                                 \
		struct hwp_sample_desc e = { .sample_type = (type), .nregs_user = (nregs) }; \
		struct hwp_sample a, b;                                                      \
		int ra = hwp_sample_parse(h, &e, &a), rb;                                    \
                                                                                             \
		memset(&b, 0, sizeof(b));                                                    \
		rb = hwp_sample_parse_as(h, (type), &e, &b);                                 \
		if (ra != rb || (!ra && memcmp(&a, &b, sizeof(a))))                          \
			abort();                                                             \
	} while (0)

static void check_inline(const struct perf_event_header *h)
{
	const uint64_t rec = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME;

	SAME_AS(PERF_SAMPLE_IP, 0);
	SAME_AS(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 0);
	SAME_AS(rec, 0);
	SAME_AS(rec | PERF_SAMPLE_CALLCHAIN, 0);
	SAME_AS(rec | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 17);
}

static void check_trailer(const struct perf_event_header *h, uint64_t type, int id_all)
{
	struct hwp_sample s;
	struct hwp_sample_id id;
	int ret = hwp_sample_id_parse(h, type, &s);

	if (ret && ret != -EINVAL)
		abort();
	if (!ret &&
	    (s.type != (type & ID_BITS) || h->size < sizeof(*h) + hwp_sample_trailer(type, 1)))
		abort();
	ret = hwp_sample_id(h, type, id_all, &id);
	if (ret && ret != -EINVAL && ret != -EOPNOTSUPP)
		abort();
	sink += id.id + id.ip + id.time + id.pid + id.tid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwp_sample_desc d;
	struct perf_event_header h;
	unsigned char *block, *rec;
	size_t n, skew, room;
	uint8_t flags;

	if (size < PREFIX)
		return 0;
	memset(&d, 0, sizeof(d));
	memcpy(&d.sample_type, data, 8);
	memcpy(&d.read_format, data + 8, 8);
	flags = data[16];
	d.branch_sample_type = (flags & 1 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0) |
			       (flags & 2 ? HWP_SAMPLE_BRANCH_COUNTERS : 0);
	d.nregs_user = data[17] % 65u;
	d.nregs_intr = data[18] % 65u;
	if (!(data[19] & 1)) { /* mostly the layouts the parser knows */
		d.sample_type &= HWP_SAMPLE_KNOWN;
		d.read_format &= HWP_READ_KNOWN;
	}
	data += PREFIX;
	size -= PREFIX;
	n = size > 65535 ? 65535 : size;
	/* a record at an odd address: its arrays are refused */
	skew = flags & 4 ? 4 : 0;
	room = n < sizeof(h) ? sizeof(h) : n;
	block = malloc(skew + room);
	rec = block + skew;
	memset(rec, 0, room);
	memcpy(rec, data, n);
	memcpy(&h, rec, sizeof(h));
	h.size = (uint16_t)n; /* below 8: a header that says less than it is */
	memcpy(rec, &h, sizeof(h));
	if (n >= sizeof(h)) {
		check_sample((const void *)rec, &d);
		if (!skew)
			check_inline((const void *)rec);
		check_trailer((const void *)rec, d.sample_type, flags & 8);
	} else {
		struct hwp_sample s;

		if (hwp_sample_parse((const void *)rec, &d, &s) != -EINVAL &&
		    hwp_sample_parse((const void *)rec, &d, &s) != -EOPNOTSUPP)
			abort();
	}
	free(block);
	return 0;
}
