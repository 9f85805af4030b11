/* SPDX-License-Identifier: MIT */
/*
 * The fields of a record: a PERF_RECORD_SAMPLE's, every sample_type bit
 * of them (the parser itself is sample.h's, inline, so that a reader of
 * one fixed sample_type gets it specialised), and the sample_id trailer
 * that ends every other record of an event with sample_id_all
 * (perf_event_open(2), "sample_id_all"). Every path that samples reads
 * its records through here: the engine's rings (ring.c), hwprof record
 * (tools/record/rec-read.c), and the fuzz target tests/fuzz/fuzz-sample.c.
 *
 * Side-band records are attributed to an event through their sample_id
 * trailer (attr.sample_id_all), never through an id in their body: for an
 * inherited event, a PERF_RECORD_LOST carries the child event's own id in
 * its body, and only the trailer carries the id that samples give
 * (perf_event_open(2), "sample_id_all"; PERF_SAMPLE_IDENTIFIER).
 */
#include <errno.h>
#include <string.h>

#include "perf.h"
#include "sample.h"

void hwp_sample_desc_attr(const struct perf_event_attr *a, struct hwp_sample_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->sample_type = a->sample_type;
	d->read_format = a->read_format;
	d->branch_sample_type = a->branch_sample_type;
	d->nregs_user = (uint32_t)__builtin_popcountll(a->sample_regs_user);
	d->nregs_intr = (uint32_t)__builtin_popcountll(a->sample_regs_intr);
}

int hwp_sample_parse(const struct perf_event_header *h, const struct hwp_sample_desc *d,
		     struct hwp_sample *out)
{
	memset(out, 0, sizeof(*out));
	return hwp_sample_parse_as(h, d->sample_type, d, out);
}

/* The fields of the sample_id trailer, in the order the kernel writes
 * them (perf_event_open(2)): a record of another type ends with one u64
 * per bit of these that sample_type has. */
#define ID_BITS                                                                        \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* Read from the record's end backwards: its body's length depends on its
 * type, the trailer's only on sample_type. */
int hwp_sample_id_parse(const struct perf_event_header *h, uint64_t sample_type,
			struct hwp_sample *out)
{
	uint64_t type = sample_type & ID_BITS;
	size_t n = 8 * (size_t)__builtin_popcountll(type), off;
	const unsigned char *p = (const unsigned char *)h;

	memset(out, 0, sizeof(*out));
	if (h->size < sizeof(*h) + n)
		return -EINVAL;
	out->type = type;
	off = h->size - n;
	if (type & PERF_SAMPLE_TID) {
		out->pid = hwp_sample_u32(p + off);
		out->tid = hwp_sample_u32(p + off + 4);
		off += 8;
	}
	if (type & PERF_SAMPLE_TIME) {
		out->time = hwp_sample_u64(p + off);
		off += 8;
	}
	if (type & PERF_SAMPLE_ID) {
		out->id = hwp_sample_u64(p + off);
		off += 8;
	}
	if (type & PERF_SAMPLE_STREAM_ID) {
		out->stream_id = hwp_sample_u64(p + off);
		off += 8;
	}
	if (type & PERF_SAMPLE_CPU) {
		out->cpu = hwp_sample_u32(p + off);
		out->cpu_res = hwp_sample_u32(p + off + 4);
		off += 8;
	}
	if (type & PERF_SAMPLE_IDENTIFIER)
		out->id = hwp_sample_u64(p + off);
	return 0;
}

size_t hwp_sample_trailer(uint64_t sample_type, int sample_id_all)
{
	return sample_id_all ? 8 * (size_t)__builtin_popcountll(sample_type & ID_BITS) : 0;
}

/* The fields that lead a sample, each 8 bytes: what hwp_sample_id() gives. */
#define HEAD_BITS                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID)

int hwp_sample_id(const struct perf_event_header *h, uint64_t sample_type, int sample_id_all,
		  struct hwp_sample_id *out)
{
	static const struct hwp_sample_desc none;
	struct hwp_sample s;
	int ret;

	memset(out, 0, sizeof(*out));
	if (h->type == PERF_RECORD_SAMPLE) {
		/* only its leading fields: what follows them may be of
		 * any length, and is not needed to name the event */
		memset(&s, 0, sizeof(s));
		ret = hwp_sample_parse_as(h, sample_type & HEAD_BITS, &none, &s);
	} else if (sample_id_all) {
		ret = hwp_sample_id_parse(h, sample_type, &s);
	} else {
		return 0; /* nothing to say which event */
	}
	if (ret)
		return ret;
	out->id = s.id;
	out->ip = s.ip;
	out->time = s.time;
	out->pid = s.pid;
	out->tid = s.tid;
	out->has_id = !!(s.type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER));
	out->has_ip = !!(s.type & PERF_SAMPLE_IP);
	out->has_tid = !!(s.type & PERF_SAMPLE_TID);
	out->has_time = !!(s.type & PERF_SAMPLE_TIME);
	return 0;
}
