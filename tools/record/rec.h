/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's sampler, shared by its parts: the command side
 * (rec-cmd.h: record.c, rec-events.c, rec-launch.c, rec-write.c: the
 * options, the events, the command's life, signals, the output file),
 * rec-perf.c (per-CPU events and rings on the command's process tree)
 * and rec-maps.c (the
 * kernel's MMAP2/COMM/FORK/EXIT records as per-process map histories, and
 * samples resolved into (object, ELF address) in the data model).
 */
#ifndef HWPROF_TOOLS_REC_H
#define HWPROF_TOOLS_REC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/types.h>

#include "data.h"
#include "perf.h"

#define REC_MAX_EVENTS 64
#define REC_NO_OBJ     UINT32_MAX /* an anonymous executable mapping */

/* One -e event. */
struct rec_event {
	const char *name;
	struct perf_event_attr attr; /* resolved before the run */
	char src[96];		     /* where a PMU event's encoding came
				      * from (struct hwp_event), or "" */
	int clock;		     /* the period is in ns */
	int late;		     /* opened once the command is loaded */
	char msg[192];		     /* what record says it records */
	int precise;		     /* precise_ip of its first open; -1: none
				      * yet, or not a PMU's event */
	uint32_t hd;		     /* its index in the data file */
};

/* One object file, read once: its load segments map file offsets to ELF
 * virtual addresses. */
struct rec_seg {
	uint64_t off, filesz, vaddr;
};

struct rec_obj {
	char *path;
	char *buildid; /* hex, or NULL */
	uint32_t maj, min;
	uint64_t ino, ino_gen;
	uint64_t size; /* the mapped file's size, 0 when unknown */
	uint32_t hd;   /* its index in the data file */
	int nseg;      /* -1: the file could not be read */
	struct rec_seg seg[16];
};

struct rec_map {
	uint64_t time, start, end, pgoff;
	uint32_t obj; /* index into objs, or REC_NO_OBJ */
};

/* An address space: from an exec (or the start of an attach) on. A forked
 * process begins with a copy of its parent's: parent names that image as
 * it was at fork_time, until the child's first exec. */
struct rec_image {
	uint64_t start_time;
	long parent; /* image index, or -1 */
	uint64_t fork_time;
	struct rec_map *cur; /* sorted by start, no overlaps */
	size_t ncur, capcur;
	struct rec_map *old; /* replaced ones, kept for older samples */
	size_t nold, capold;
};

struct rec_proc {
	int pid;
	uint32_t hd; /* its index in the data file's procs */
	long *imgs;  /* image indices, in time order */
	size_t nimgs;
	int ended;
	uint64_t start; /* its start time when met (/proc/PID/stat), 0:
			 * unknown (gone by then) */
	uint32_t gen;	/* bumped when its history changes (rec-chains.c) */
};

/* int -> uint32 table (pids, tids) */
struct rec_imap {
	int *key;
	uint32_t *val;
	size_t n, cap;
};

struct rec_ring {
	int fd;		      /* the ring's owner, -1 before it is mapped */
	struct hwp_ring ring; /* lib/perf/ring.c: the one reader of records */
};

struct rec {
	struct hd_file d;
	struct rec_event ev[REC_MAX_EVENTS];
	int nev;

	/* rec-perf.c */
	int ncpu;
	int *cpus;
	struct rec_ring *rings; /* per CPU: samples (2c), side band (2c+1) */
	int nrings;
	int *fds; /* every event fd */
	size_t nfds, capfds;
	struct {
		uint64_t id;
		uint32_t ev;
	} * ids; /* one per fd: its -e index, UINT32_MAX for the side-band event (record.c
		    counts coverage here) */
	size_t nids, capids;
	unsigned int ring_pages; /* data pages per ring (-m), 0: from
				  * the locked-memory budget */
	int pages_asked;	 /* -m gave ring_pages */
	unsigned int side_pages; /* data pages per side-band ring */
	uint64_t side_lost;	 /* side-band records the kernel dropped */
	int bid_in_mmap;	 /* the kernel gives build-ids in MMAP2 */
	int paused;		 /* the sample events are off (--delay,
				  * --control): new ones open off too */
	uint32_t *fd_ev;	 /* per fd: its event, UINT32_MAX: side-band */
	uint64_t corrupt;
	int read_errno; /* why rec_read_drain() failed: 0, out of memory */
	/* --call-graph dwarf: records read back from the reader thread's
	 * spool, not yet handled: handled in time order, once a later round
	 * shows nothing older can still come (flat and -g handle the rings'
	 * records where they lie: merge_rings() in rec-read.c) */
	unsigned char *q; /* the records, 8-byte aligned */
	size_t qlen, qcap;
	size_t qdead; /* bytes of it already handled */
	struct rec_qent {
		uint64_t time;
		size_t off;
	} * qe;
	size_t nqe, capqe;
	size_t nsorted;		      /* qe[0..nsorted) in time order */
	uint64_t round_max, prev_max; /* latest time read this / last round */
	struct rec_front *front;      /* flat and -g: each ring's next record */
	size_t nfront;
	struct rec_reader *rd; /* dwarf: the thread that reads the rings */
	uint64_t dropped;      /* samples it could not keep (counted lost) */
	uint64_t last_id;      /* the last sample's id and -e index */
	uint32_t last_ev;
	int id_known;

	/* rec-maps.c */
	struct rec_obj *objs;
	size_t nobjs;
	struct rec_image *imgs;
	size_t nimgs;
	struct rec_proc *procs;
	size_t nprocs;
	struct rec_imap pid_proc;   /* pid -> current procs index */
	struct rec_imap tid_thread; /* tid -> current data threads index */
	int first_pid;		    /* the command, or the attached pid */

	/* call paths (-g, --call-graph) */
	int callgraph;	     /* HD_CG_NONE, HD_CG_FP or HD_CG_DWARF */
	int max_stack;	     /* the depth limit for them */
	uint32_t stack_size; /* dwarf: bytes of stack a sample copies */
	int leaf;	     /* -g: the leaf's caller patched (rec-leaf.c) */
	struct rec_leaf *lf; /* its CFI per object, rules per address */
	struct rec_uw *uw;   /* dwarf: an unwinder per image (rec-unwind.c) */
	size_t nuw;
	/* rec-chains.c: resolved chains, and what they were resolved against */
	struct rec_chain *chains;
	uint32_t chain_gen;   /* bumped by a record older than one handled */
	uint64_t handled_max; /* the latest time handled */
};

/* rec-perf.c: per-CPU events on pid's process tree, one ring per CPU. */
int rec_perf_open(struct rec *r, pid_t pid, int attach, char *why, size_t len);
/* Opens the late events (a PIE's breakpoints) on the loaded command. */
int rec_perf_open_late(struct rec *r, pid_t pid, char *why, size_t len);
/* rec-read.c: reads every ring to its head and handles its records (with
 * --call-graph dwarf those older than the latest of the round before;
 * all: every record). Returns the records read, or -1 (out of memory). */
long rec_read_drain(struct rec *r, int all);
/* Why it failed, in words */
const char *rec_read_why(const struct rec *r);
void rec_perf_close(struct rec *r);
/* --call-graph dwarf: a thread reads the rings from now on, and
 * rec_read_drain() handles what it copied out: 0 (nothing to do in other
 * modes) or -errno. rec_reader_fd(): the fd to poll for its records (-1:
 * none: poll the rings); rec_read_busy(): records are ready to be handled
 * (poll without waiting); rec_reader_stop(): ends it (rec_read_drain()
 * with all does): the records it handed over, or -1. */
int rec_reader_start(struct rec *r);
int rec_reader_fd(const struct rec *r);
int rec_read_busy(const struct rec *r);
long rec_reader_stop(struct rec *r);
/* dwarf: the bytes of records read and waiting to be unwound, at most */
#define REC_BURST_BYTES (256u << 20)
/* ... and the least file size limit (RLIMIT_FSIZE) its spool can work
 * under: rec_reader_start() is -EFBIG under it (rec-read.c) */
#define REC_SPOOL_MIN (12u << 20)
/* Record types of rec-read.c's own, above the kernel's */
#define REC_PASS    0x7f00u /* the reader thread's pass ended */
#define REC_DROPPED 0x7f01u /* a sample's leading fields: it was not kept */
/* What every event of record asks the kernel to put in a sample and in
 * the sample_id trailer of the other records (rec-perf.c opens, rec-read.c
 * reads). */
#define REC_SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
/* A sample event's, by call graph mode: -g adds the kernel's chain,
 * --call-graph dwarf the user registers (REC_UW_MASK) and a stack copy */
#define REC_SAMPLE_FP	 (REC_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN)
#define REC_SAMPLE_DWARF (REC_SAMPLE_TYPE | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* -g with the leaf patch (rec-leaf.c): the chain, REC_LEAF_MASK's
 * registers and the top of the stack */
#define REC_SAMPLE_LEAF (REC_SAMPLE_FP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* The -e index of an event id, UINT32_MAX for the side band's or none. */
uint32_t rec_ev_of(const struct rec *r, uint64_t id);
/* rec-read.c: disables every event (before the last drain); then checks the books:
 * kept + lost = overflows, a warning for each event where not. */
void rec_read_stop_events(struct rec *r);
int rec_read_account(struct rec *r);
/* Turns the sample events off (paused 1) or on, every thread and child
 * they were inherited by included; the side band stays on. 0 or -errno. */
int rec_perf_pause(struct rec *r, int paused);
/* The ring fds to poll */
size_t rec_perf_pollfds(const struct rec *r, int *fds, size_t cap);

/* rec-maps.c */
void rec_maps_init(struct rec *r);
void rec_maps_free(struct rec *r);
/* The first process: the command (ppid 0) or an attached one. */
int rec_add_root(struct rec *r, int pid, int ppid, const char *command, uint64_t time);
/* Reads /proc/PID/maps into the root's image (attach). */
int rec_maps_read_proc(struct rec *r, int pid);
/* Record handlers, called by rec-read.c in ring order. */
int rec_on_mmap(struct rec *r, int pid, uint64_t time, uint64_t start, uint64_t len,
		uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino, uint64_t ino_gen,
		const unsigned char *bid, size_t bidlen, const char *path);
int rec_on_comm(struct rec *r, int pid, int tid, uint64_t time, int exec, const char *comm);
int rec_on_fork(struct rec *r, int pid, int ppid, int tid, int ptid, uint64_t time);
int rec_on_exit(struct rec *r, int pid, int tid, uint64_t time);
/* A sample's fields: its pc and time, and where recorded its call path
 * (-g: the kernel's chain) or its user registers and stack copy (dwarf) */
struct rec_sample {
	uint64_t pc, time;
	const uint64_t *chain; /* PERF_SAMPLE_CALLCHAIN, or NULL */
	size_t nchain;
	const uint64_t *regs;	    /* REC_UW_REGS of them, or NULL */
	const unsigned char *stack; /* the copy of the user stack */
	uint64_t stack_size;	    /* bytes of it the kernel filled */
	const uint64_t *leaf_regs;  /* -g: REC_LEAF_REGS of them, or NULL */
};
int rec_on_sample(struct rec *r, uint32_t ev, int pid, int tid, const struct rec_sample *s);
/* rec-chains.c: the chain cache. What a sample's pc and chain resolved
 * to: its data-file thread, the pc's object and ELF address, the path's
 * innermost node, (-g) whether the kernel cut the chain, and the frames
 * dropped from the path (they cannot be code: each hit counts them again). */
/* -g with the leaf patch: what the patch read of a sample (rec-leaf.c),
 * all that makes two samples of one kernel chain patch alike */
struct rec_leaf_key {
	uint8_t made; /* with the leaf's registers and stack copy */
	uint8_t rule; /* the pc had a rule; else nothing was read */
	uint8_t have; /* the word was in the copy */
	int8_t reg;   /* the rule: the word at reg (6 BP, 7 SP) + off */
	int64_t off;
	uint64_t ip;   /* the sampled IP register */
	uint64_t word; /* the word there */
};
struct rec_resolved {
	uint32_t thread, obj, node, dropped;
	int cut;
	uint64_t addr;
	/* -g with the leaf patch: the entry's key is the kernel's chain,
	 * its node that of the patched one */
	struct rec_leaf_key leaf;
	/* where the last sample of it was counted: event ev's sample and
	 * path (indices into the data file's samples and paths) */
	uint32_t ev;
	size_t sample, path;
};
uint64_t rec_chain_hash(int pid, int tid, uint64_t pc, const uint64_t *chain, size_t n);
/* The entry of exactly this key still valid at time, or NULL */
struct rec_resolved *rec_chain_find(struct rec *r, uint64_t hash, int pid, int tid,
				    uint64_t pc, const uint64_t *chain, size_t n,
				    uint64_t time);
/* Keeps what the key resolved to in process proc (a sample no older than
 * r->handled_max); nothing when out of memory. */
void rec_chain_put(struct rec *r, uint64_t hash, int pid, int tid, uint64_t pc,
		   const uint64_t *chain, size_t n, uint32_t proc,
		   const struct rec_resolved *v);
void rec_chain_free(struct rec *r);
/* The ELF virtual address of file offset off of object o (rec-maps.c
 * and rec-unwind.c read it: here, below both). */
static inline uint64_t rec_obj_vaddr(const struct rec_obj *o, uint64_t off)
{
	for (int i = 0; i < o->nseg; i++)
		if (off >= o->seg[i].off && off - o->seg[i].off < o->seg[i].filesz)
			return off - o->seg[i].off + o->seg[i].vaddr;
	return off;
}

/* The fds opened for event e (UINT32_MAX: any event); record.c and
 * rec-launch.c count them. */
static inline size_t rec_fds_of(const struct rec *r, uint32_t e)
{
	size_t n = 0;

	/* ids: one per fd, with its event (UINT32_MAX: the side-band one) */
	for (size_t i = 0; i < r->nids; i++)
		n += e == UINT32_MAX ? r->ids[i].ev != UINT32_MAX : r->ids[i].ev == e;
	return n;
}

/* rec-unwind.c: --call-graph dwarf. The user registers a sample asks for
 * (asm/perf_regs.h: AX..IP, R8..R15) and their number. */
#define REC_UW_MASK   (0x1ffull | 0xffull << 16)
#define REC_UW_REGS   17
#define REC_DEF_STACK 8192  /* bytes of stack a sample copies */
#define REC_MAX_STACK 65528 /* the kernel's limit */
/* The pcs of the sample's frames, innermost (its pc) first, unwound from
 * its registers and stack copy in image im of process pid: their number
 * (0: none); *cut set when the unwind stopped at the end of the copy or
 * at cap frames. */
size_t rec_unwind(struct rec *r, long im, int pid, int tid, const uint64_t *regs,
		  const unsigned char *stack, uint64_t size, uint64_t *pcs, size_t cap,
		  int *cut);
void rec_unwind_free(struct rec *r);
/* Ends image im's unwinder (its process exited or exec'ed). */
void rec_unwind_forget(struct rec *r, long im);
int rec_unwind_supported(void);
/* At the end of the recording: every process still marked running that
 * is gone (or a zombie), or whose pid is now another process's, or that
 * was already gone when met, ended unseen (HD_UNSEEN): the kernel dropped
 * its exit record, or it ended after the events stopped. */
void rec_mark_unseen(struct rec *r);
/* The data-file process of a pid, or NULL */
struct hd_process *rec_process(struct rec *r, int pid);

/*
 * rec-leaf.c: -g's leaf patch. Each -g sample also carries the user BP,
 * SP and IP (REC_LEAF_MASK, in that order) and a copy of the top
 * REC_LEAF_STACK bytes of the user stack: the return address the
 * sampled frame's call-frame information locates there is its caller,
 * which the kernel's frame-pointer walk misses where that frame has no
 * frame pointer of its own (a leaf built without one, a prologue, an
 * epilogue). REC_LEAF_SUPPORTED is 0 where there is no such patch.
 */
#if defined(__x86_64__)
#define REC_LEAF_SUPPORTED 1
#else
#define REC_LEAF_SUPPORTED 0
#endif
#define REC_LEAF_MASK  (1ull << 6 | 1ull << 7 | 1ull << 8) /* BP, SP, IP */
#define REC_LEAF_REGS  3
#define REC_LEAF_STACK 512
/* The kernel's chain (user frames, innermost first, as
 * PERF_SAMPLE_CALLCHAIN gives them) of sample s of process p (procs
 * index), with the sampled frame's caller put after the pc where
 * the walk missed it: written to out (room for cap) and its length
 * returned; 0 when the chain stands as it is (the caller is already
 * there, or could not be found). A pc it has not seen in p is placed
 * with obj_at (rec-maps.c's rec_obj_at: the object holding pc in p at
 * time, REC_NO_OBJ for none, and its ELF address): rec-leaf.c knows the
 * CFI, not the maps. What it read is put in k (rec_leaf_same()). */
typedef uint32_t (*rec_obj_at_fn)(const struct rec *r, long p, uint64_t pc, uint64_t time,
				  uint64_t *addr);
size_t rec_leaf_patch(struct rec *r, long p, const struct rec_sample *s, rec_obj_at_fn obj_at,
		      uint64_t *out, size_t cap, struct rec_leaf_key *k);
/* Where the word at register reg (6 BP, 7 SP) + off is in the stack copy
 * of s: 0 and its offset there, or -1 when it is not in the copy (below
 * SP, or beyond what the kernel filled) */
static inline int rec_leaf_word_at(int reg, int64_t off, const struct rec_sample *s,
				   uint64_t *at)
{
	uint64_t bp = s->leaf_regs[0], sp = s->leaf_regs[1];
	uint64_t a = (reg == 6 ? bp : sp) + (uint64_t)off;

	if (a < sp || s->stack_size < 8 || a - sp > s->stack_size - 8)
		return -1;
	*at = a - sp;
	return 0;
}
/* Whether sample s, of the kernel chain that made an entry with key k
 * (and while its rule holds: the chain cache's conditions), is patched
 * as that entry's was: its registers and the word its rule reads. */
static inline int rec_leaf_same(const struct rec_leaf_key *k, const struct rec_sample *s)
{
	uint64_t at, w;

	if (!s->leaf_regs || !s->stack)
		return !k->made;
	if (!k->made || s->leaf_regs[2] != k->ip)
		return 0;
	if (!k->rule)
		return 1;
	if (rec_leaf_word_at(k->reg, k->off, s, &at))
		return !k->have;
	memcpy(&w, s->stack + at, sizeof(w));
	return k->have && w == k->word;
}
void rec_leaf_free(struct rec *r);
/* rec-maps.c: the object holding pc in process p at time (an index into
 * objs; REC_NO_OBJ: none, or no file) and its ELF address there. */
uint32_t rec_obj_at(const struct rec *r, long p, uint64_t pc, uint64_t time, uint64_t *addr);

/* the index of pid in m, or UINT32_MAX */

#endif
