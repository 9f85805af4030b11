/* SPDX-License-Identifier: MIT */
/*
 * The one parser of a PERF_RECORD_SAMPLE (lib/perf/sample.c), inline: every
 * field of every sample_type bit, in the order perf_event_open(2) gives
 * under PERF_RECORD_SAMPLE (the order the kernel writes: AUX comes last,
 * after the page sizes), each bounds-checked against header.size.
 *
 * hwp_sample_parse() (perf.h) is this function for any description. A
 * reader of a ring whose sample_type is fixed (the engine's rings in
 * ring.c, hwprof record's samples in tools/record/rec-read.c) calls it
 * with that type as a constant, and the compiler keeps only that type's
 * fields: the same parser, at the cost of a hand-written one. Private to
 * hwprof; never installed.
 */
#ifndef HWPROF_PERF_SAMPLE_H
#define HWPROF_PERF_SAMPLE_H

#include <errno.h>
#include <string.h>

#include "perf.h"

/* The bits whose fields are known here: sample_type's IP (1 << 0) to
 * WEIGHT_STRUCT (1 << 24), read_format's TOTAL_TIME_ENABLED to LOST. */
#define HWP_SAMPLE_KNOWN ((uint64_t)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1)
#define HWP_READ_KNOWN	 ((uint64_t)PERF_FORMAT_LOST * 2 - 1)
/* The fields that lead a sample, each 8 bytes */
#define HWP_SAMPLE_LEAD                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |  \
	 PERF_SAMPLE_PERIOD)

static inline uint64_t hwp_sample_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t hwp_sample_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Parses the sample h (8-byte aligned in memory where it has an array
 * field, as the kernel and hwp_ring_next() give records) as type says,
 * the rest of its shape from d. Sets s->type and every field of each bit
 * of type; leaves the fields of other bits as they were. 0, -EINVAL for a
 * record shorter than its fields say (nothing past header.size is read),
 * -EOPNOTSUPP for a bit of type or d->read_format this parser does not
 * know the layout of.
 */
static inline __attribute__((always_inline)) int
hwp_sample_parse_as(const struct perf_event_header *h, uint64_t type,
		    const struct hwp_sample_desc *d, struct hwp_sample *s)
{
	const unsigned char *p = (const unsigned char *)h;
	size_t off = sizeof(*h), end = h->size;
	uint64_t nr;

	/* the header and the leading fields, 8 bytes each, checked at once */
	if (end < off + 8 * (size_t)__builtin_popcountll(type & HWP_SAMPLE_LEAD))
		return -EINVAL;
	if (type & ~HWP_SAMPLE_KNOWN)
		return -EOPNOTSUPP;
	s->type = type;
/* n more bytes at off, or the record lies */
#define NEED(n)                         \
	do {                            \
		if ((n) > end - off)    \
			return -EINVAL; \
	} while (0)
#define TAKE(dst)                                \
	do {                                     \
		if (off + 8 > end)               \
			return -EINVAL;          \
		(dst) = hwp_sample_u64(p + off); \
		off += 8;                        \
	} while (0)
/* an array handed out as uint64_t *: 8-byte aligned, as the kernel writes */
#define ALIGNED()                             \
	do {                                  \
		if (((uintptr_t)p + off) & 7) \
			return -EINVAL;       \
	} while (0)
#define LEAD(dst)                                \
	do {                                     \
		(dst) = hwp_sample_u64(p + off); \
		off += 8;                        \
	} while (0)
	if (type & PERF_SAMPLE_IDENTIFIER)
		LEAD(s->id);
	if (type & PERF_SAMPLE_IP)
		LEAD(s->ip);
	if (type & PERF_SAMPLE_TID) {
		s->pid = hwp_sample_u32(p + off);
		s->tid = hwp_sample_u32(p + off + 4);
		off += 8;
	}
	if (type & PERF_SAMPLE_TIME)
		LEAD(s->time);
	if (type & PERF_SAMPLE_ADDR)
		LEAD(s->addr);
	if (type & PERF_SAMPLE_ID)
		LEAD(s->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		LEAD(s->stream_id);
	if (type & PERF_SAMPLE_CPU) {
		s->cpu = hwp_sample_u32(p + off);
		s->cpu_res = hwp_sample_u32(p + off + 4);
		off += 8;
	}
	if (type & PERF_SAMPLE_PERIOD)
		LEAD(s->period);
	if (type & PERF_SAMPLE_READ) {
		uint64_t rf = d->read_format;

		if (rf & ~HWP_READ_KNOWN)
			return -EOPNOTSUPP;
		memset(&s->read, 0, sizeof(s->read));
		if (rf & PERF_FORMAT_GROUP) {
			size_t stride = 8 * (1 + !!(rf & PERF_FORMAT_ID) +
					     !!(rf & PERF_FORMAT_LOST));

			TAKE(s->read.nr);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				TAKE(s->read.time_enabled);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				TAKE(s->read.time_running);
			ALIGNED();
			if (s->read.nr > (end - off) / stride)
				return -EINVAL;
			s->read.values = (const uint64_t *)(const void *)(p + off);
			s->read.stride = (unsigned int)(stride / 8);
			off += stride * (size_t)s->read.nr;
		} else {
			TAKE(s->read.value);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				TAKE(s->read.time_enabled);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				TAKE(s->read.time_running);
			if (rf & PERF_FORMAT_ID)
				TAKE(s->read.id);
			if (rf & PERF_FORMAT_LOST)
				TAKE(s->read.lost);
		}
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		TAKE(nr);
		ALIGNED();
		if (nr > (end - off) / 8)
			return -EINVAL;
		s->chain = (const uint64_t *)(const void *)(p + off);
		s->nchain = nr;
		off += 8 * (size_t)nr;
	}
	if (type & PERF_SAMPLE_RAW) {
		NEED(4);
		s->raw_size = hwp_sample_u32(p + off);
		off += 4;
		NEED(s->raw_size);
		s->raw = p + off;
		off += s->raw_size;
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		size_t each = sizeof(struct perf_branch_entry);

		TAKE(s->nbranch);
		s->branch_hw_index = 0;
		if (d->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			TAKE(s->branch_hw_index);
		if (d->branch_sample_type & HWP_SAMPLE_BRANCH_COUNTERS)
			each += 8;
		ALIGNED();
		if (s->nbranch > (end - off) / each)
			return -EINVAL;
		s->branch = (const struct perf_branch_entry *)(const void *)(p + off);
		off += sizeof(struct perf_branch_entry) * (size_t)s->nbranch;
		s->branch_counters = NULL;
		if (d->branch_sample_type & HWP_SAMPLE_BRANCH_COUNTERS) {
			s->branch_counters = (const uint64_t *)(const void *)(p + off);
			off += 8 * (size_t)s->nbranch;
		}
	}
	/* the registers only when abi is not PERF_SAMPLE_REGS_ABI_NONE */
	if (type & PERF_SAMPLE_REGS_USER) {
		TAKE(s->regs_user_abi);
		s->nregs_user = s->regs_user_abi ? d->nregs_user : 0;
		s->regs_user = NULL;
		if (s->nregs_user) {
			ALIGNED();
			NEED(8 * (size_t)s->nregs_user);
			s->regs_user = (const uint64_t *)(const void *)(p + off);
			off += 8 * (size_t)s->nregs_user;
		}
	}
	/* size, then (when size is not 0: a user thread) the copy and the
	 * bytes of it the kernel filled */
	if (type & PERF_SAMPLE_STACK_USER) {
		TAKE(s->stack_size);
		s->stack = NULL;
		s->stack_dyn_size = 0;
		if (s->stack_size) {
			NEED(s->stack_size);
			s->stack = p + off;
			off += (size_t)s->stack_size;
			TAKE(s->stack_dyn_size);
			if (s->stack_dyn_size > s->stack_size)
				return -EINVAL;
		}
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		TAKE(s->weight);
	if (type & PERF_SAMPLE_DATA_SRC)
		TAKE(s->data_src);
	if (type & PERF_SAMPLE_TRANSACTION)
		TAKE(s->transaction);
	if (type & PERF_SAMPLE_REGS_INTR) {
		TAKE(s->regs_intr_abi);
		s->nregs_intr = s->regs_intr_abi ? d->nregs_intr : 0;
		s->regs_intr = NULL;
		if (s->nregs_intr) {
			ALIGNED();
			NEED(8 * (size_t)s->nregs_intr);
			s->regs_intr = (const uint64_t *)(const void *)(p + off);
			off += 8 * (size_t)s->nregs_intr;
		}
	}
	if (type & PERF_SAMPLE_PHYS_ADDR)
		TAKE(s->phys_addr);
	if (type & PERF_SAMPLE_CGROUP)
		TAKE(s->cgroup);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		TAKE(s->data_page_size);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		TAKE(s->code_page_size);
	if (type & PERF_SAMPLE_AUX) {
		TAKE(s->aux_size);
		NEED(s->aux_size);
		s->aux = p + off;
		off += (size_t)s->aux_size;
	}
#undef NEED
#undef TAKE
#undef LEAD
#undef ALIGNED
	return 0;
}

#endif /* HWPROF_PERF_SAMPLE_H */
