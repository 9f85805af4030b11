/* SPDX-License-Identifier: MIT */
/* Private declarations shared by the files in lib/; never installed. */
#ifndef HWPROF_INTERNAL_H
#define HWPROF_INTERNAL_H

/* event.c includes libpfm4's copy of perf_event.h, which clashes with the
 * kernel's: it defines HWP_PFM_HEADERS and includes that copy first. */
#ifndef HWP_PFM_HEADERS
#include <linux/perf_event.h>
#endif
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "hwprof.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* The largest options struct (sz) the library looks at. */
#define HWP_OPTS_MAX	4096

/* usermem.c: caller memory that may be bad, checked before it is touched */
int hwp_user_read(void *dst, const void *src, size_t len);
int hwp_user_writable(const void *p, size_t len);
int hwp_user_writable_all(void *const *p, const size_t *len, size_t n);
int hwp_opts_ok(const void *opts, size_t have, size_t know);

/* spawn.c: the interposed pthread_create. The hook runs first in every
 * thread the program makes; hwprof's own threads skip it. */
void hwp_spawn_hook(void (*fn)(void));
int hwp_create_untracked(pthread_t *t, void *(*fn)(void *), void *arg);

/* log.c: messages to the user's callback. Between hwp_log_hold() and
 * hwp_log_release() (a lock is held) they wait, and are sent on release. */
void hwp_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hwp_log_hold(void);
void hwp_log_release(void);

/* sys.c: system calls, each returning -errno */
int hwp_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group);
/* The same with perf_event_open(2) flags besides PERF_FLAG_FD_CLOEXEC. */
int hwp_perf_open_flags(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			unsigned long flags);
int hwp_perf_ioctl(int fd, unsigned long req, unsigned long arg);
int hwp_perf_read(int fd, uint64_t *v, size_t n);
/* The opens HWPROF_TEST_PMU's seam has answered, and the precise_ip of the
 * last it let open (sys.c). */
unsigned long hwp_test_pmu_opens(int *last_ok);
pid_t hwp_gettid(void);
int hwp_paranoid(void);
int hwp_seccomp(void);
long hwp_read_long(const char *path, long dflt);

/* ring.c: one mmap'd perf ring and the one reader of its records */
struct hwp_ring {
	struct perf_event_mmap_page *page;
	unsigned char *data;
	uint64_t mask;		/* data bytes - 1 */
	size_t map_len;		/* 0: not ours to unmap (tests) */
	uint64_t head, pos;	/* the batch being read: [pos, head) */
	unsigned char *copy;	/* a record that straddles the end, whole */
	size_t copy_cap;
	struct {
		uint64_t lost;		/* LOST / LOST_SAMPLES records */
		uint64_t throttled;	/* PERF_RECORD_THROTTLE records */
		uint64_t corrupt;	/* batches cut short: unparsable */
		uint64_t nomem;		/* straddling records not copied */
	} stats;
};

int hwp_ring_map(struct hwp_ring *r, int fd, unsigned int pages);
void hwp_ring_unmap(struct hwp_ring *r);
/* A batch: begin (1 when there are records), next (each whole record, in
 * place or copied out when it straddles the end; NULL at the end of the
 * batch), end (hands what was read back to the kernel). Records given by
 * next stay valid until the next call of next or end. */
int hwp_ring_begin(struct hwp_ring *r);
const struct perf_event_header *hwp_ring_next(struct hwp_ring *r);
void hwp_ring_end(struct hwp_ring *r);
/* What a record says of its event and thread: a sample's leading fields,
 * or another record's sample_id trailer (only with sample_id_all). */
struct hwp_rec_id {
	uint64_t id, ip, time;
	uint32_t pid, tid;
	int has_id, has_ip, has_tid, has_time;
};
int hwp_rec_id(const struct perf_event_header *h, uint64_t sample_type,
	       int sample_id_all, struct hwp_rec_id *out);
/* The bytes of the sample_id trailer at the end of a non-sample record. */
size_t hwp_rec_trailer(uint64_t sample_type, int sample_id_all);
/* The samples a LOST or LOST_SAMPLES record reports, else 0. */
uint64_t hwp_rec_lost(const struct perf_event_header *h);
/* The engine's rings (sample_type IP, one event): up to cap IPs. */
size_t hwp_ring_read_ips(struct hwp_ring *r, uint64_t *ips, size_t cap);
/* The same with sample_type IP | CALLCHAIN: each sample's chain (the
 * kernel's entries, innermost first) goes to fn before its IP is stored. */
typedef void (*hwp_chain_fn)(void *arg, const uint64_t *chain, uint64_t n, uint64_t ip);
size_t hwp_ring_read_chains(struct hwp_ring *r, uint64_t *ips, size_t cap,
			    hwp_chain_fn fn, void *arg);
int hwp_ring_empty(const struct hwp_ring *r);

/* event.c: an event name to a perf_event_attr */
enum hwp_event_kind {
	HWP_EV_CLOCK,		/* task-clock, cpu-clock: period in ns */
	HWP_EV_SOFT,		/* other software events */
	HWP_EV_BREAKPOINT,	/* mem:ADDR:x */
	HWP_EV_HARDWARE,	/* a PMU event: precise_ip is tried */
};

struct hwp_event {
	struct perf_event_attr attr;
	enum hwp_event_kind kind;
	uint64_t default_period;
	char name[256];		/* as the user gave it */
	char src[96];		/* hardware: where the encoding came from */
};

/* A name to an event: 0, -ENOENT (no such event), -EOPNOTSUPP (this
 * machine cannot sample it: no PMU row, breakpoints that never fire) or
 * -EINVAL (malformed), with one line in why. */
int hwp_event_resolve(const char *name, struct hwp_event *ev, char *why,
		      size_t len);
/* The sampling attr of a resolved event, built in this one place. */
void hwp_event_sampling(struct hwp_event *ev, uint64_t period,
			uint64_t sample_type, int no_wakeup);
/* Opens ev for pid on cpu (-1: any), disabled; or, with out_fd >= 0 (an
 * event of the same cpu whose ring is mapped), enabled and writing into
 * out_fd's ring from its first sample (PERF_FLAG_FD_OUTPUT). */
int hwp_event_open(struct hwp_event *ev, pid_t pid, int cpu, int out_fd, int *precise,
		   char *why, size_t len);
int hwp_event_check(const struct hwp_event *ev, char *why, size_t len);
/* The precise_ip rule (event.c): the highest level tried for a (3 for a
 * PMU's events, else 0), and the one open that steps down from it. */
int hwp_precise_max(const struct perf_event_attr *a);
/* On a hybrid CPU, the one line that says on which core PMU each of n
 * events samples; 0 when the CPU is not hybrid or none is a PMU's. */
int hwp_hybrid_note(const struct perf_event_attr *const *attrs, const char *const *names,
		    size_t n, char *line, size_t len);
int hwp_attr_open(struct perf_event_attr *a, int from, pid_t pid, int cpu, int group,
		  unsigned long flags, int *level);
/* 1: execute breakpoints fire here; 0: they open but never count (or
 * HWPROF_TEST_BP_BROKEN says so); -1: they cannot be opened. */
int hwp_bp_fires(void);
struct hwp_preset_row;
const struct hwp_preset_row *hwp_preset_row(const char *preset, const char *core,
					    char *src, size_t len);
int hwp_preset_term(const struct hwp_preset_row *r, const char *core, int i,
		    char *buf, size_t len);
/* The core PMU of the present ones, in libpfm4's order (dfl: libpfm4's
 * is_dfl, a PMU for a whole family): the first model PMU, else the first. */
struct hwp_pmu_seen {
	const char *name;
	int dfl;
};
const char *hwp_core_pick(const struct hwp_pmu_seen *pmu, size_t n);
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
	char src[96];		/* which table, in words */
};
int hwp_preset_terms(const char *preset, struct hwp_preset_terms *t, char *why,
		     size_t len);

/* objects.c: loaded objects as regions with buckets of their own */
struct hwp_objid {		/* what was loaded: file and segment */
	uint64_t dev, ino;	/* 0, 0: unknown (vdso, file gone) */
	uint64_t off;		/* the segment's file offset */
};

struct hwp_objects {
	struct hwprof_object *obj;
	struct hwp_objid *id;	/* per object */
	unsigned char *seen;	/* per object: found by the last scan */
	size_t n, cap;
	unsigned long long adds, subs;	/* loader generation last seen */
	int changed;
	struct hwprof_hist *hist;	/* over the loaded ones */
};

int hwp_objects_refresh(struct hwp_objects *o);
void hwp_loader_forked(void);
pid_t hwp_loader_probe_tid(void);
int hwp_loader_usable(unsigned int wait_ms);
void hwp_objects_zero(struct hwp_objects *o);
void hwp_objects_free(struct hwp_objects *o);

/* session.c: a sink takes up to n pcs in order; returns how many it kept.
 * It runs with no hwprof lock held, one call at a time per session, from
 * the drain thread or from a caller's read/stop. */
typedef size_t (*hwp_sink_fn)(void *arg, const uint64_t *ips, size_t n);
int hwp_session_add(struct hwprof_session *s, const char *event,
		    uint64_t threshold, struct hwprof_hist *h,
		    hwp_sink_fn sink, void *sink_arg);
/* The same with an event already resolved (no name lookup again). */
int hwp_session_add_ev(struct hwprof_session *s, const struct hwp_event *ev,
		       uint64_t threshold, struct hwprof_hist *h,
		       hwp_sink_fn sink, void *sink_arg);
/* Start with the calling thread's fds off; hwp_session_arm() enables them
 * as the API's last step, so its own work after starting is not sampled. */
int hwp_session_start_quiet(struct hwprof_session *s);
void hwp_session_arm(struct hwprof_session *s);
void hwp_session_disarm(struct hwprof_session *s);
void hwp_session_halt(struct hwprof_session *s);	/* from a sink */
/* Before start, a thread-mode session: its fds carry attr.inherit, so it
 * samples the threads and processes its thread creates (session.c). */
int hwp_session_inherit(struct hwprof_session *s);
/* The period the kernel applies: hrtimer (clock) events no shorter than
 * 10 us. */
uint64_t hwp_applied_period(int clock, uint64_t period);

/* env.c: HWPROF_EVENT and HWPROF_PERIOD for the classic interfaces */
struct hwp_env {
	char event[256];
	struct hwp_event ev;	/* event, resolved */
	uint64_t period;	/* events per sample; ns for the clocks */
	int clock;		/* the period is time */
};
int hwp_env_get(struct hwp_env *env);
/* msg on stderr, once for the same msg: a bad HWPROF_* value (hwprof(7)) */
void hwp_env_complain(const char *msg);
/* A period as HWPROF_PERIOD takes it: decimal or 0x hex, 1 to 2^63-1. */
int hwp_parse_period(const char *s, uint64_t *v);

/* guard.c: writes into caller buffers that may have gone (see there) */
typedef int (*hwp_owns_fn)(const void *ctx, uintptr_t addr);
int hwp_guard_arm(void);
int hwp_guard_run(void (*fn)(void *), void *arg, hwp_owns_fn owns,
		  const void *ctx, uintptr_t *addr);
int hwp_guard_write(void (*fn)(void *), void *arg, hwp_owns_fn owns,
		    const void *ctx, void *base, size_t len, uintptr_t *addr);
void hwp_guard_say(const char *api, const char *what, uintptr_t addr,
		   int in_handler);

/* hist.c: a histogram whose caller buffers faulted is turned off */
void hwp_hist_set_api(struct hwprof_hist *h, const char *api);
const char *hwp_hist_api(const struct hwprof_hist *h);
int hwp_hist_owns(const void *h, uintptr_t addr);
void hwp_hist_describe(const struct hwprof_hist *h, uintptr_t addr,
		       char *buf, size_t len);
int hwp_hist_writable(const struct hwprof_hist *h);
void hwp_hist_turn_off(struct hwprof_hist *h);
int hwp_hist_is_off(const struct hwprof_hist *h);

#endif /* HWPROF_INTERNAL_H */
