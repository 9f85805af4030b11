/* SPDX-License-Identifier: MIT */
/*
 * lib/perf: the one door to the kernel's perf interface (perf_event_open(2)),
 * for the in-process engine (lib/engine/), the hwprof command (tools/) and
 * the profile library (lib/profile/, build-ids). System calls and ioctls
 * (sys.c), the mmap ring and its records (ring.c), the fields of a sample
 * and of a record's sample_id trailer (sample.c, sample.h), event names to
 * a perf_event_attr (event.c), PAPI presets' rows and the core PMU
 * (presets.c), the sampling attr, its one open rule and why an open failed
 * (attr.c), the ELF of the running process (elfsym.c, elfsym.h). Nothing
 * here knows the engine. Private to hwprof; never installed.
 */
#ifndef HWPROF_PERF_H
#define HWPROF_PERF_H

/* event.c includes libpfm4's copy of perf_event.h, which clashes with the
 * kernel's: it defines HWP_PFM_HEADERS and includes that copy first. */
#ifndef HWP_PFM_HEADERS
#include <linux/perf_event.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* sys.c: system calls, each returning -errno */
int hwp_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group);
/* The same with perf_event_open(2) flags besides PERF_FLAG_FD_CLOEXEC. */
int hwp_perf_open_flags(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			unsigned long flags);
int hwp_perf_ioctl(int fd, unsigned long req, unsigned long arg);
int hwp_perf_read(int fd, uint64_t *v, size_t n);
/* The opens HWPROF_TEST_PMU's seam has answered, and the precise_ip of the
 * last it let open (sys.c). */
unsigned long hwp_sys_test_pmu_opens(int *last_ok);
/* An fd's identity at open (fstat()'s device and inode, the event's
 * PERF_EVENT_IOC_ID), and whether an fd number still holds that fd: the
 * program may have closed it and opened a file of its own under the same
 * number. hwp_perf_fd_note(): 0 or -errno; hwp_perf_fd_ours(): 1 or 0. */
struct hwp_perf_fd {
	uint64_t dev, ino, id;
};
int hwp_perf_fd_note(int fd, struct hwp_perf_fd *who);
int hwp_perf_fd_ours(int fd, const struct hwp_perf_fd *who);
pid_t hwp_sys_gettid(void);
int hwp_sys_paranoid(void);
int hwp_sys_seccomp(void);
long hwp_sys_read_long(const char *path, long dflt);
/* A small /proc or /sys file into buf, NUL-terminated: its length or -1. */
ssize_t hwp_sys_read_text(const char *path, char *buf, size_t len);

/* ring.c: one mmap'd perf ring and the one reader of its records */
struct hwp_ring {
	struct perf_event_mmap_page *page;
	unsigned char *data;
	uint64_t mask;	     /* data bytes - 1 */
	size_t map_len;	     /* 0: not ours to unmap (tests) */
	uint64_t head, pos;  /* the batch being read: [pos, head) */
	unsigned char *copy; /* a record that straddles the end, whole */
	size_t copy_cap;
	struct {
		uint64_t lost;	    /* LOST / LOST_SAMPLES records */
		uint64_t throttled; /* PERF_RECORD_THROTTLE records */
		uint64_t corrupt;   /* batches cut short: unparsable */
		uint64_t nomem;	    /* straddling records not copied */
	} stats;
};

int hwp_ring_map(struct hwp_ring *r, int fd, unsigned int pages);
void hwp_ring_unmap(struct hwp_ring *r);
/* A batch: begin (1 when there are records), next (each whole record, in
 * place or copied out when it straddles the end, 8-byte aligned; NULL at
 * the end of the batch), end (hands what was read back to the kernel). Records given by
 * next stay valid until the next call of next or end. */
int hwp_ring_begin(struct hwp_ring *r);
const struct perf_event_header *hwp_ring_next(struct hwp_ring *r);
void hwp_ring_end(struct hwp_ring *r);
/* Mid-batch, hands back what was read before last, the record next() gave
 * last and the reader still holds (NULL: everything read): a reader that
 * handles records where they lie gives their space back as it goes. */
void hwp_ring_give_back(struct hwp_ring *r, const struct perf_event_header *last);
/* The samples a LOST or LOST_SAMPLES record reports, else 0. */
uint64_t hwp_ring_lost(const struct perf_event_header *h);
/* The engine's rings (sample_type IP, one event): up to cap IPs. */
size_t hwp_ring_read_ips(struct hwp_ring *r, uint64_t *ips, size_t cap);
/* The same with sample_type IP | CALLCHAIN: each sample's chain (the
 * kernel's entries, innermost first) goes to fn with its IP. */
typedef void (*hwp_chain_fn)(void *arg, const uint64_t *chain, uint64_t n, uint64_t ip);
size_t hwp_ring_read_chains(struct hwp_ring *r, uint64_t *ips, size_t cap, hwp_chain_fn fn,
			    void *arg);
/* The same with sample_type IP | TID [| CALLCHAIN]: each sample's thread
 * id into tids[i] (0 where a record is too short to hold it). */
size_t hwp_ring_read_tids(struct hwp_ring *r, uint64_t *ips, uint32_t *tids, size_t cap,
			  hwp_chain_fn fn, void *arg);
int hwp_ring_empty(const struct hwp_ring *r);

/* sample.c: the one parser of a sample's fields (sample.h inlines it for
 * a fixed sample_type) and of another record's sample_id trailer. What
 * the kernel puts in a sample besides its sample_type: from the attr of
 * the event (hwp_sample_desc_attr()). */
struct hwp_sample_desc {
	uint64_t sample_type;
	uint64_t read_format;	     /* PERF_SAMPLE_READ */
	uint64_t branch_sample_type; /* PERF_SAMPLE_BRANCH_STACK: HW_INDEX, COUNTERS */
	uint32_t nregs_user;	     /* bits of sample_regs_user */
	uint32_t nregs_intr;	     /* bits of sample_regs_intr */
};
void hwp_sample_desc_attr(const struct perf_event_attr *a, struct hwp_sample_desc *d);
/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8: a counter word per branch after
 * the entries), which older linux/perf_event.h do not name */
#define HWP_SAMPLE_BRANCH_COUNTERS (1ull << 19)
/* A sample's fields. Those of a bit type lacks are 0; pointers point into
 * the record (valid while it is), each within header.size. */
struct hwp_sample {
	uint64_t type; /* the sample_type it was parsed as */
	uint64_t id;   /* IDENTIFIER, or ID */
	uint64_t ip, time, addr, stream_id, period;
	uint32_t pid, tid;
	uint32_t cpu, cpu_res;
	struct { /* READ, as the desc's read_format */
		uint64_t value, time_enabled, time_running, id, lost;
		uint64_t nr;		/* GROUP: nr entries of stride words */
		const uint64_t *values; /* each: value, then id, lost if asked */
		unsigned int stride;
	} read;
	uint64_t nchain; /* CALLCHAIN */
	const uint64_t *chain;
	uint32_t raw_size; /* RAW */
	const unsigned char *raw;
	uint64_t nbranch, branch_hw_index; /* BRANCH_STACK */
	const struct perf_branch_entry *branch;
	const uint64_t *branch_counters; /* nbranch of them, or NULL */
	uint64_t regs_user_abi;		 /* REGS_USER: 0 (no registers, a kernel thread) */
	const uint64_t *regs_user;	 /* nregs_user values, or NULL */
	uint32_t nregs_user, nregs_intr;
	uint64_t stack_size;	 /* STACK_USER: the copy's size (0: none) */
	uint64_t stack_dyn_size; /* the bytes of it the kernel filled */
	const unsigned char *stack;
	uint64_t weight; /* WEIGHT, or WEIGHT_STRUCT (var1_dw: low 32 bits) */
	uint64_t data_src, transaction;
	uint64_t regs_intr_abi; /* REGS_INTR */
	const uint64_t *regs_intr;
	uint64_t phys_addr, cgroup, data_page_size, code_page_size;
	uint64_t aux_size; /* AUX */
	const unsigned char *aux;
};
/* A PERF_RECORD_SAMPLE of an event d describes: 0, -EINVAL when it is
 * shorter than its fields say (nothing past header.size is read; a
 * longer one's rest is not looked at), or when an array field (chain,
 * branches, registers, group values) would not be 8-byte aligned in
 * memory, as the kernel never writes one; -EOPNOTSUPP for a sample_type
 * or read_format bit of a later kernel, whose layout is not known here. */
int hwp_sample_parse(const struct perf_event_header *h, const struct hwp_sample_desc *d,
		     struct hwp_sample *out);
/* The sample_id trailer of a record other than a sample (an event with
 * sample_id_all): its fields of TID, TIME, ID, STREAM_ID, CPU and
 * IDENTIFIER, out->type saying which. 0 or -EINVAL (too short). */
int hwp_sample_id_parse(const struct perf_event_header *h, uint64_t sample_type,
			struct hwp_sample *out);
/* What a record says of its event and thread: a sample's leading fields
 * (IDENTIFIER to ID; what follows them is not looked at), or another
 * record's sample_id trailer (only with sample_id_all). 0, or -EINVAL
 * for a record too short for them. */
struct hwp_sample_id {
	uint64_t id, ip, time;
	uint32_t pid, tid;
	int has_id, has_ip, has_tid, has_time;
};
int hwp_sample_id(const struct perf_event_header *h, uint64_t sample_type, int sample_id_all,
		  struct hwp_sample_id *out);
/* The bytes of the sample_id trailer at the end of a non-sample record. */
size_t hwp_sample_trailer(uint64_t sample_type, int sample_id_all);

/* event.c: an event name to a perf_event_attr */
enum hwp_event_kind {
	HWP_EV_CLOCK,	   /* task-clock, cpu-clock: period in ns */
	HWP_EV_SOFT,	   /* other software events */
	HWP_EV_BREAKPOINT, /* mem:ADDR:x */
	HWP_EV_HARDWARE,   /* a PMU event: precise_ip is tried */
};

struct hwp_event {
	struct perf_event_attr attr;
	enum hwp_event_kind kind;
	uint64_t default_period;
	char name[256]; /* as the user gave it */
	char src[96];	/* hardware: where the encoding came from */
};

/* A name to an event: 0, -ENOENT (no such event), -EOPNOTSUPP (this
 * machine cannot sample it: no PMU row, breakpoints that never fire) or
 * -EINVAL (malformed), with one line in why. */
int hwp_event_resolve(const char *name, struct hwp_event *ev, char *why, size_t len);
/* 1: execute breakpoints fire here; 0: they open but never count (or
 * HWPROF_TEST_BP_BROKEN says so); -1: they cannot be opened. */
int hwp_event_bp_fires(void);
/* mem:SYMBOL looks its symbol up with dl_iterate_phdr(): in a fork child of
 * a threaded process the loader's lock may be held by a thread that is
 * gone. The engine hands its check (lib/engine/objects.c) here; without
 * one the loader is taken to be usable, as it is in the command. */
void hwp_event_loader_check(int (*usable)(unsigned int wait_ms));

/* attr.c: the sampling attr, the precise_ip rule, the open and its
 * fallbacks, and why an open failed */
/* The sampling attr of a resolved event, built in this one place. */
void hwp_attr_sampling(struct hwp_event *ev, uint64_t period, uint64_t sample_type,
		       int no_wakeup);
/* The precise_ip rule: the highest level tried for a (3 for a PMU's
 * events, else 0), and the one open that steps down from it (from: the
 * level to start at, -1: hwp_attr_precise_max(a)), the only code that sets
 * precise_ip; the level opened at in *level. */
int hwp_attr_precise_max(const struct perf_event_attr *a);
/* 1 when a is a PMU's event (hardware, cache, raw or a dynamic PMU type):
 * the events precise_ip is tried on and the test seam answers (sys.c). */
int hwp_sys_pmu_event(const struct perf_event_attr *a);
int hwp_attr_open(struct perf_event_attr *a, int from, pid_t pid, int cpu, int group,
		  unsigned long flags, int *level);
/* Why perf_event_open(2) refused a for pid (-1: CPU-wide) with -errno err:
 * "NAME: reason" into why (src: where a PMU event's encoding came from, or
 * NULL). Returns -EOPNOTSUPP (cannot sample here), -EACCES (forbidden:
 * perf_event_paranoid, seccomp, the ptrace access check on another
 * user's task) or err. */
int hwp_attr_why(int err, const struct perf_event_attr *a, pid_t pid, const char *name,
		 const char *src, char *why, size_t len);
/* Opens ev for pid on cpu (-1: any), disabled; or, with out_fd >= 0 (an
 * event of the same cpu whose ring is mapped), enabled and writing into
 * out_fd's ring from its first sample (PERF_FLAG_FD_OUTPUT). The fd, or
 * hwp_attr_why()'s answer with the reason in why. */
int hwp_attr_event_open(struct hwp_event *ev, pid_t pid, int cpu, int out_fd, int *precise,
			char *why, size_t len);
int hwp_attr_check(const struct hwp_event *ev, char *why, size_t len);
/* Can name be sampled here: resolve and check (hwprof_event_probe(3)). */
int hwp_attr_probe(const char *name, char *why, size_t len);
/* On a hybrid CPU, the one line that says on which core PMU each of n
 * events samples; 0 when the CPU is not hybrid or none is a PMU's. */
int hwp_attr_hybrid_note(const struct perf_event_attr *const *attrs, const char *const *names,
			 size_t n, char *line, size_t len);
#define HWP_MIN_CLOCK_NS 10000 /* the kernel's floor for hrtimer events */
/* The period the kernel applies: hrtimer (clock) events no shorter than
 * 10 us. */
uint64_t hwp_attr_applied_period(int clock, uint64_t period);

/* presets.c: PAPI presets' rows of events/presets.h and the core PMU */
struct hwp_preset_row;
const struct hwp_preset_row *hwp_preset_row(const char *preset, const char *core, char *src,
					    size_t len);
int hwp_preset_term(const struct hwp_preset_row *r, const char *core, int i, char *buf,
		    size_t len);
/* The core PMU of the present ones, in libpfm4's order (dfl: libpfm4's
 * is_dfl, a PMU for a whole family): the first model PMU, else the first. */
struct hwp_pmu_seen {
	const char *name;
	int dfl;
};
const char *hwp_preset_core_pick(const struct hwp_pmu_seen *pmu, size_t n);
/* What a preset counts on this machine (the core PMU libpfm4 reports):
 * n libpfm4 event strings, combined as derived says (NULL: the one event;
 * PAPI's DERIVED_ADD, DERIVED_SUB, DERIVED_POSTFIX with postfix). 0, or
 * -EOPNOTSUPP with the reason when no row applies. */
#define HWP_PRESET_MAX_TERMS 8
struct hwp_preset_terms {
	int n;
	const char *derived;
	const char *postfix;
	char ev[HWP_PRESET_MAX_TERMS][256];
	char src[96]; /* which table, in words */
};
int hwp_preset_terms(const char *preset, struct hwp_preset_terms *t, char *why, size_t len);
/* The i-th preset of events/presets.h: -ENOENT past the last. */
int hwp_preset_info(unsigned int i, const char **name, unsigned int *code, const char **desc);

#endif /* HWPROF_PERF_H */
