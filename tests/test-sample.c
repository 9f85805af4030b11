/* SPDX-License-Identifier: MIT */
/*
 * lib/perf/sample.c, the one parser of a sample's fields, on records built
 * by hand the way perf_event_open(2) lays them out: the engine's types (IP,
 * IP | CALLCHAIN), hwprof record's three (flat, -g, --call-graph dwarf,
 * with and without user registers), every sample_type bit at once with a
 * group read, a branch stack with its hardware index and counters, and a
 * read of one event with every read_format bit; then each of these cut
 * short at every length (copied into a block of exactly that many bytes,
 * so that a sanitizer build sees any read past the record), counts that
 * lie, a stack copy filled past its size, bits of a later kernel, an
 * array that would not be aligned; the sample_id trailer of other records.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/perf/sample.h"
#include "../tools/record/rec.h"
#include "harness.h"

/* A record being built: 8-byte aligned, as the kernel writes them. */
static union {
	uint64_t w[2048];
	unsigned char b[16384];
} rec;
static size_t len;

static void begin(void)
{
	memset(&rec, 0xee, sizeof(rec));
	len = sizeof(struct perf_event_header);
}

static void put(const void *p, size_t n)
{
	memcpy(rec.b + len, p, n);
	len += n;
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

static void put32x2(uint32_t a, uint32_t b)
{
	put(&a, 4);
	put(&b, 4);
}

static const struct perf_event_header *end(void)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)len };

	memcpy(rec.b, &h, sizeof(h));
	return (const void *)rec.b;
}

static struct hwp_sample_desc desc(uint64_t type)
{
	struct hwp_sample_desc d = { .sample_type = type };

	return d;
}

/* Every shorter header.size of the record built is refused, reading only
 * within it (an exact copy); the record itself parses. */
static void cut_short(const struct hwp_sample_desc *d, const char *what)
{
	struct hwp_sample s;
	int bad = 0;

	T_EQ(hwp_sample_parse(end(), d, &s), 0);
	for (size_t n = 0; n < len; n++) {
		/* malloc's blocks are 16-byte aligned: the arrays stay aligned */
		unsigned char *copy = malloc(n < sizeof(struct perf_event_header) ?
						     sizeof(struct perf_event_header) :
						     n);
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)n };

		memcpy(copy, rec.b, n < sizeof(h) ? sizeof(h) : n);
		memcpy(copy, &h, sizeof(h));
		bad += hwp_sample_parse((const void *)copy, d, &s) != -EINVAL;
		free(copy);
	}
	T_CHECK(!bad, "%s: %d shorter sizes not refused", what, bad);
}

static void test_engine(void)
{
	struct hwp_sample_desc d = desc(PERF_SAMPLE_IP);
	const uint64_t chain[3] = { PERF_CONTEXT_USER, 0x401010, 0x401020 };
	struct hwp_sample s;

	begin();
	put64(0x401000);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.type, PERF_SAMPLE_IP);
	T_EQ(s.ip, 0x401000);
	T_EQ(s.nchain, 0);
	T_CHECK(!s.chain, "no chain without CALLCHAIN");
	cut_short(&d, "IP");

	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	begin();
	put64(0x401000);
	put64(3);
	put(chain, sizeof(chain));
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.ip, 0x401000);
	T_EQ(s.nchain, 3);
	T_CHECK(s.chain == (const uint64_t *)(const void *)(rec.b + 24), "chain in place");
	T_EQ(s.chain[2], 0x401020);
	cut_short(&d, "IP|CALLCHAIN");
	/* an empty chain */
	begin();
	put64(0x401000);
	put64(0);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.nchain, 0);
	/* a chain longer than the record: nr 2^61 would wrap 8 * nr */
	begin();
	put64(0x401000);
	put64(1ull << 61);
	put64(1);
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
}

/* hwprof record's samples (tools/record/rec.h), through the out-of-line
 * parser and the inline one specialised for the type, as rec-read.c
 * calls it. */
static void test_record(void)
{
	struct hwp_sample_desc d = desc(REC_SAMPLE_TYPE);
	struct hwp_sample s, t;
	uint64_t regs[REC_UW_REGS];
	unsigned char stack[64];

	begin();
	put64(0xabc);	  /* IDENTIFIER */
	put64(0x401000);  /* IP */
	put32x2(7, 8);	  /* pid, tid */
	put64(123456789); /* TIME */
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.id, 0xabc);
	T_EQ(s.ip, 0x401000);
	T_EQ(s.pid, 7);
	T_EQ(s.tid, 8);
	T_EQ(s.time, 123456789);
	cut_short(&d, "record flat");

	/* -g */
	d = desc(REC_SAMPLE_FP);
	begin();
	put64(0xabc);
	put64(0x401000);
	put32x2(7, 8);
	put64(5);
	put64(2);
	put64(PERF_CONTEXT_USER);
	put64(0x401234);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	memset(&t, 0, sizeof(t));
	T_EQ(hwp_sample_parse_as(end(), REC_SAMPLE_FP, &d, &t), 0);
	T_CHECK(!memcmp(&s, &t, sizeof(s)), "the inline parser gives the same fields");
	T_EQ(s.time, 5);
	T_EQ(s.nchain, 2);
	T_EQ(s.chain[1], 0x401234);
	cut_short(&d, "record -g");

	/* --call-graph dwarf: registers, 64 bytes of stack, 40 filled */
	d = desc(REC_SAMPLE_DWARF);
	d.nregs_user = (uint32_t)__builtin_popcountll(REC_UW_MASK);
	T_EQ(d.nregs_user, REC_UW_REGS);
	for (int i = 0; i < REC_UW_REGS; i++)
		regs[i] = 0x1000 + (uint64_t)i;
	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (unsigned char)i;
	begin();
	put64(0xabc);
	put64(0x401000);
	put32x2(7, 8);
	put64(6);
	put64(PERF_SAMPLE_REGS_ABI_64);
	put(regs, sizeof(regs));
	put64(sizeof(stack));
	put(stack, sizeof(stack));
	put64(40);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	memset(&t, 0, sizeof(t));
	T_EQ(hwp_sample_parse_as(end(), REC_SAMPLE_DWARF, &d, &t), 0);
	T_CHECK(!memcmp(&s, &t, sizeof(s)), "the inline parser gives the same fields");
	T_EQ(s.regs_user_abi, PERF_SAMPLE_REGS_ABI_64);
	T_EQ(s.nregs_user, REC_UW_REGS);
	T_CHECK(s.regs_user && s.regs_user[REC_UW_REGS - 1] == 0x1000 + REC_UW_REGS - 1,
		"registers");
	T_EQ(s.stack_size, 64);
	T_EQ(s.stack_dyn_size, 40);
	T_CHECK(s.stack && s.stack[63] == 63, "stack copy");
	cut_short(&d, "record dwarf");
	/* the kernel filling more than the copy holds */
	rec.w[len / 8 - 1] = 72;
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);

	/* a kernel thread's: abi 0, no registers, a stack size of 0 */
	begin();
	put64(0xabc);
	put64(0xffffffff81000000ull);
	put32x2(0, 0);
	put64(7);
	put64(PERF_SAMPLE_REGS_ABI_NONE);
	put64(0);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.nregs_user, 0);
	T_CHECK(!s.regs_user && !s.stack, "no registers, no stack");
	T_EQ(s.stack_size, 0);
	T_EQ(len, 8 + 4 * 8 + 16);
	cut_short(&d, "record dwarf, kernel thread");
}

/* Every bit at once: each field where the kernel puts it. */
static void build_all(struct hwp_sample_desc *d)
{
	struct perf_branch_entry br[2];

	memset(d, 0, sizeof(*d));
	d->sample_type = HWP_SAMPLE_KNOWN & ~(uint64_t)PERF_SAMPLE_WEIGHT;
	d->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	d->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_HW_INDEX |
				HWP_SAMPLE_BRANCH_COUNTERS;
	d->nregs_user = 3;
	d->nregs_intr = 2;
	begin();
	put64(0x11);			  /* IDENTIFIER */
	put64(0x401000);		  /* IP */
	put32x2(100, 101);		  /* TID */
	put64(1000);			  /* TIME */
	put64(0xdead0000);		  /* ADDR */
	put64(0x11);			  /* ID */
	put64(0x22);			  /* STREAM_ID */
	put32x2(3, 0);			  /* CPU */
	put64(4000);			  /* PERIOD */
	put64(2);			  /* READ: nr */
	put64(500);			  /*   time_enabled */
	put64(400);			  /*   time_running */
	put64(10), put64(0x11), put64(0); /*   value, id, lost */
	put64(20), put64(0x12), put64(1);
	put64(2); /* CALLCHAIN */
	put64(PERF_CONTEXT_USER);
	put64(0x401100);
	put32x2(12, 0x61626364); /* RAW: size 12 (4 + 12 = 16) */
	put64(0x6566676869707172ull);
	put64(2); /* BRANCH_STACK: nr */
	put64(7); /*   hw_idx */
	memset(br, 0, sizeof(br));
	br[0].from = 0x401200, br[0].to = 0x401300;
	br[1].from = 0x401400, br[1].to = 0x401500;
	put(br, sizeof(br));
	put64(0x31), put64(0x32);	/*   counters */
	put64(PERF_SAMPLE_REGS_ABI_64); /* REGS_USER */
	put64(0x51), put64(0x52), put64(0x53);
	put64(16); /* STACK_USER */
	put64(0x0101010101010101ull), put64(0x0202020202020202ull);
	put64(16);			/*   dyn_size */
	put64(0x0003000200000001ull);	/* WEIGHT_STRUCT */
	put64(0x44);			/* DATA_SRC */
	put64(0x55);			/* TRANSACTION */
	put64(PERF_SAMPLE_REGS_ABI_64); /* REGS_INTR */
	put64(0x61), put64(0x62);
	put64(0x7000);	/* PHYS_ADDR */
	put64(0x77);	/* CGROUP */
	put64(4096);	/* DATA_PAGE_SIZE */
	put64(2 << 20); /* CODE_PAGE_SIZE */
	put64(8);	/* AUX */
	put64(0x8888888888888888ull);
}

static void test_every_bit(void)
{
	struct hwp_sample_desc d;
	struct hwp_sample s;

	build_all(&d);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.type, d.sample_type);
	T_EQ(s.id, 0x11);
	T_EQ(s.ip, 0x401000);
	T_EQ(s.pid, 100);
	T_EQ(s.tid, 101);
	T_EQ(s.time, 1000);
	T_EQ(s.addr, 0xdead0000);
	T_EQ(s.stream_id, 0x22);
	T_EQ(s.cpu, 3);
	T_EQ(s.period, 4000);
	T_EQ(s.read.nr, 2);
	T_EQ(s.read.time_enabled, 500);
	T_EQ(s.read.time_running, 400);
	T_EQ(s.read.stride, 3);
	T_CHECK(s.read.values && s.read.values[3] == 20 && s.read.values[4] == 0x12 &&
			s.read.values[5] == 1,
		"group values");
	T_EQ(s.nchain, 2);
	T_EQ(s.chain[1], 0x401100);
	T_EQ(s.raw_size, 12);
	T_CHECK(s.raw && !memcmp(s.raw, "dcba", 4), "raw data");
	T_EQ(s.nbranch, 2);
	T_EQ(s.branch_hw_index, 7);
	T_EQ(s.branch[1].to, 0x401500);
	T_CHECK(s.branch_counters && s.branch_counters[1] == 0x32, "branch counters");
	T_EQ(s.regs_user_abi, PERF_SAMPLE_REGS_ABI_64);
	T_EQ(s.nregs_user, 3);
	T_EQ(s.regs_user[2], 0x53);
	T_EQ(s.stack_size, 16);
	T_EQ(s.stack_dyn_size, 16);
	T_EQ(s.stack[8], 2);
	T_EQ(s.weight & 0xffffffff, 1); /* var1_dw */
	T_EQ(s.weight >> 48, 3);	/* var3_w */
	T_EQ(s.data_src, 0x44);
	T_EQ(s.transaction, 0x55);
	T_EQ(s.nregs_intr, 2);
	T_EQ(s.regs_intr[1], 0x62);
	T_EQ(s.phys_addr, 0x7000);
	T_EQ(s.cgroup, 0x77);
	T_EQ(s.data_page_size, 4096);
	T_EQ(s.code_page_size, 2 << 20);
	T_EQ(s.aux_size, 8);
	T_CHECK(s.aux == rec.b + len - 8, "aux data last");
	cut_short(&d, "every bit");
}

/* One event's read (no GROUP) with every read_format bit. */
static void test_read_one(void)
{
	struct hwp_sample_desc d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_READ);
	struct hwp_sample s;

	d.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			PERF_FORMAT_ID | PERF_FORMAT_LOST;
	begin();
	put64(0x401000);
	put64(99), put64(50), put64(40), put64(0x123), put64(2);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.read.value, 99);
	T_EQ(s.read.time_enabled, 50);
	T_EQ(s.read.time_running, 40);
	T_EQ(s.read.id, 0x123);
	T_EQ(s.read.lost, 2);
	T_CHECK(!s.read.values, "no group");
	cut_short(&d, "read one");
}

/* Counts that lie, bits of a later kernel, arrays out of alignment. */
static void test_refused(void)
{
	struct hwp_sample_desc d;
	struct hwp_sample s;
	size_t at;

	/* each count of the every-bit record set past the record */
	static const struct {
		size_t word; /* u64 index in rec.w, after the header */
		uint64_t v;
	} lie[] = {
		{ 10, 1000 },		/* READ nr: entries of 3 words */
		{ 10, UINT64_MAX / 8 }, /* ... 24 * nr wraps */
		{ 19, 100 },		/* CALLCHAIN nr */
		{ 19, 1ull << 61 },	/* ... 8 * nr wraps */
		{ 24, 100 },		/* BRANCH_STACK nr */
		{ 24, UINT64_MAX / 16 },
	};
	for (size_t i = 0; i < sizeof(lie) / sizeof(lie[0]); i++) {
		build_all(&d);
		rec.w[lie[i].word] = lie[i].v;
		T_CHECK(hwp_sample_parse(end(), &d, &s) == -EINVAL, "lie %zu", i);
	}
	/* RAW's size past the end, STACK_USER's, AUX's */
	build_all(&d);
	memcpy(rec.b + 8 * 22, &(uint32_t){ 0xfffffff0 }, 4);
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	build_all(&d);
	at = len - 8 - 8; /* AUX size */
	rec.w[at / 8] = 16;
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	rec.w[at / 8] = UINT64_MAX;
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);

	/* bits this parser does not know the layout of */
	build_all(&d);
	d.sample_type |= (uint64_t)PERF_SAMPLE_WEIGHT_STRUCT << 1;
	T_EQ(hwp_sample_parse(end(), &d, &s), -EOPNOTSUPP);
	build_all(&d);
	d.read_format |= (uint64_t)PERF_FORMAT_LOST << 1;
	T_EQ(hwp_sample_parse(end(), &d, &s), -EOPNOTSUPP);

	/* a RAW of 4 + 3 bytes puts the branch stack off alignment (the
	 * kernel pads RAW to 8): refused, not read through a bad pointer */
	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK);
	begin();
	put64(0x401000);
	put32x2(3, 0x616263);
	put64(0);
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	/* RAW last: its bytes need no alignment */
	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_RAW);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	T_EQ(s.raw_size, 3);
	/* a record 4 bytes off 8-byte alignment (a header's own is 4):
	 * its chain would be too */
	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	begin();
	put64(0x401000);
	put64(0);
	{
		unsigned char *block = malloc(len + 4), *skew = block + 4;
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)len };

		memcpy(skew, rec.b, len);
		memcpy(skew, &h, sizeof(h));
		T_EQ(hwp_sample_parse((const void *)skew, &d, &s), -EINVAL);
		d = desc(PERF_SAMPLE_IP); /* no array: read in place */
		T_EQ(hwp_sample_parse((const void *)skew, &d, &s), 0);
		T_EQ(s.ip, 0x401000);
		free(block);
		d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	}
	/* a longer record's rest is not looked at */
	put64(0x5555);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
}

/* Each counted field last in its record, its count past the end: nothing
 * after it would catch the lie. */
static void test_last_lies(void)
{
	struct hwp_sample_desc d;
	struct hwp_sample s;

	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_READ);
	d.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	begin();
	put64(0x401000);
	put64(2), put64(1), put64(0x11); /* nr 2, one entry */
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	rec.w[2] = 1;
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);

	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK);
	begin();
	put64(0x401000);
	put64(2), put64(1), put64(2), put64(3); /* nr 2, one entry */
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	rec.w[2] = 1;
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
	d.branch_sample_type = HWP_SAMPLE_BRANCH_COUNTERS; /* and its counter */
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);

	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_RAW);
	begin();
	put64(0x401000);
	put32x2(5, 0); /* 4 bytes of 5 */
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);

	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER);
	begin();
	put64(0x401000);
	put64(16), put64(0); /* 8 bytes of 16, no dyn_size */
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	put64(0); /* 16 bytes, no dyn_size */
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	put64(16);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);

	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER);
	d.nregs_user = 3;
	begin();
	put64(0x401000);
	put64(PERF_SAMPLE_REGS_ABI_64), put64(1), put64(2);
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	put64(3);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);

	d = desc(PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR);
	d.nregs_intr = 3;
	begin();
	put64(0x401000);
	put64(PERF_SAMPLE_REGS_ABI_64), put64(1), put64(2);
	T_EQ(hwp_sample_parse(end(), &d, &s), -EINVAL);
	put64(3);
	T_EQ(hwp_sample_parse(end(), &d, &s), 0);
}

/* The sample_id trailer of another record, and hwp_sample_id() over it. */
static void test_trailer(void)
{
	const uint64_t all = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER |
			     PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 0 };
	struct hwp_sample s;
	struct hwp_sample_id id;

	begin();
	put64(0x999), put64(42); /* LOST body: id, lost */
	put32x2(7, 9);		 /* TID */
	put64(1001);		 /* TIME */
	put64(0x998);		 /* ID */
	put64(0x33);		 /* STREAM_ID */
	put32x2(2, 0);		 /* CPU */
	put64(0xabc);		 /* IDENTIFIER */
	h.size = (uint16_t)len;
	memcpy(rec.b, &h, sizeof(h));
	T_EQ(hwp_sample_id_parse((const void *)rec.b, all, &s), 0);
	T_EQ(s.type, all & ~(uint64_t)(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN));
	T_EQ(s.pid, 7);
	T_EQ(s.tid, 9);
	T_EQ(s.time, 1001);
	T_EQ(s.stream_id, 0x33);
	T_EQ(s.cpu, 2);
	T_EQ(s.id, 0xabc); /* IDENTIFIER's, written last */
	T_EQ(hwp_sample_trailer(all, 1), 48);
	T_EQ(hwp_sample_id((const void *)rec.b, all, 1, &id), 0);
	T_EQ(id.id, 0xabc);
	T_EQ(id.tid, 9);
	T_EQ(id.has_ip, 0);
	/* a record shorter than its trailer */
	h.size = 8 + 40;
	memcpy(rec.b, &h, sizeof(h));
	T_EQ(hwp_sample_id_parse((const void *)rec.b, all, &s), -EINVAL);
	T_CHECK(hwp_sample_id((const void *)rec.b, all, 1, &id) != 0, "short trailer");
}

static void test_desc_attr(void)
{
	struct perf_event_attr a;
	struct hwp_sample_desc d;

	memset(&a, 0, sizeof(a));
	a.sample_type = REC_SAMPLE_DWARF;
	a.read_format = PERF_FORMAT_ID;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = REC_UW_MASK;
	a.sample_regs_intr = 0x5;
	hwp_sample_desc_attr(&a, &d);
	T_EQ(d.sample_type, REC_SAMPLE_DWARF);
	T_EQ(d.read_format, PERF_FORMAT_ID);
	T_EQ(d.branch_sample_type, PERF_SAMPLE_BRANCH_HW_INDEX);
	T_EQ(d.nregs_user, REC_UW_REGS);
	T_EQ(d.nregs_intr, 2);
}

int main(void)
{
	test_engine();
	test_record();
	test_every_bit();
	test_read_one();
	test_refused();
	test_last_lies();
	test_trailer();
	test_desc_attr();
	return t_done("test-sample");
}
