/* SPDX-License-Identifier: MIT */
/*
 * The sampling engine's private state, shared by its files, from the
 * bottom up: lock.c (the lock), paths.c (call paths), drain.c (folding,
 * sinks), crings.c (rings shared per CPU), threads.c (a thread's fds, and
 * their rings), drainer.c (the drain thread), follow.c (new threads, fork)
 * and session.c (the public calls).
 *
 * Locking: one mutex, hwp_eng, guards the list of running sessions and
 * every session's slots and counters. Draining and folding run under it.
 * Nothing of the user's runs under it: sinks (which may call a user's
 * overflow handler) are handed their pcs after it is dropped
 * (hwp_drain_deliver()), and log messages raised under it are sent on when it is
 * dropped (hwp_unlock_engine()).
 */
#ifndef HWPROF_ENGINE_H
#define HWPROF_ENGINE_H

#include <pthread.h>

#include "internal.h"
#include "../hist/cct.h"

#define HWP_BATCH	  512 /* IPs folded per step: 4 KiB on the stack */
#define HWP_DEF_PAGES	  16
#define HWP_DEF_DRAIN_MS  100
#define HWP_FIT_THREADS	  1024	     /* unprivileged rings are sized to fit these */
#define HWP_MAX_PENDING	  (1u << 20) /* pcs waiting for a sink, per event */
#define HWP_CPU_RINGS_MAX 8	     /* CPUs up to which rings are shared per CPU */
#define HWP_DEF_CPU_PAGES 256	     /* data pages of a shared ring by default */
#define HWP_CPU_IDS	  1024	     /* CPU ids a session keeps (HWPROF_RINGS=cpu) */
#define HWP_PATH_NODES	  (1u << 20) /* nodes of an event's call-path tree */

/*
 * Where a thread's samples go (hwprof_session_new(3), "Rings"): a ring of
 * its own per event, or, in a process-wide session on a machine of up to
 * HWP_CPU_RINGS_MAX CPUs, one ring per event and CPU that every thread's
 * fd for that CPU writes into (a fd per thread, event and CPU). Shared
 * rings are few, so they can be large within the locked-memory budget,
 * and a thread costs no mmap.
 */
struct hwp_cring { /* one event's ring on one CPU */
	struct hwp_ring ring;
	int fd;			/* the event it is mapped on, or -1 */
	struct hwp_perf_fd who; /* that fd's identity (hwp_cring_ours()) */
	uint32_t lcg;		/* RANDOM/COMPRESS state of this stream */
};

struct hwp_slot { /* one thread x one event (x one CPU) */
	int fd;
	int ev;
	int cr; /* index in s->cring, or -1: a ring of its own */
	pid_t tid;
	uint32_t lcg;		/* RANDOM/COMPRESS state of this stream */
	int fmt_lost;		/* read() gives {value, lost} */
	uint64_t lost_base;	/* lost count at the last reset */
	struct hwp_perf_fd who; /* fd's identity at open (hwp_threads_slot_ours()) */
	struct hwp_ring ring;
};

/* An event's call paths (lib/engine/paths.c): a calling-context tree
 * (lib/hist/cct.h) of pcs, object 0, and each node's samples. */
struct hwp_paths {
	struct hwp_cct cct;
	uint64_t *samples;  /* samples whose path ends at node i */
	size_t capsamples;  /* counts there, zero past cct.n */
	uint64_t chains;    /* samples whose path is in the tree */
	uint64_t cut;	    /* of them, cut short */
	uint64_t max_stack; /* the kernel's depth limit (user frames) */
};

struct hwp_counts {
	uint64_t samples, lost, throttled, folded, outside, saturated;
};

struct hwp_sev {	    /* one event of a session */
	struct hwp_event e; /* resolved once, at add */
	uint64_t period;
	uint32_t precise;
	struct hwprof_hist *hist; /* the caller's, or objs->hist */
	struct hwp_objects *objs; /* when the session owns the buckets */
	hwp_sink_fn sink;	  /* or raw pcs to a callback */
	void *sink_arg;
	uint64_t *pend; /* pcs read, not yet given to the sink */
	size_t npend, cappend;
	struct hwp_counts st;	 /* folded so far, and from closed rings */
	int percpu;		 /* its threads write into s->cring */
	struct hwp_paths *paths; /* HWPROF_SESSION_CALLCHAIN, else NULL */
	struct hwp_tids *tids;	 /* hwp_tids_enable(), else NULL */
};

struct hwprof_session {
	unsigned int mode;
	unsigned int flags;
	unsigned int pages;	 /* data pages a ring is given */
	int pages_set;		 /* chosen by the caller or HWPROF_MMAP_PAGES */
	unsigned int cpages;	 /* data pages of a shared ring */
	struct hwp_cring *cring; /* nev x ncpu, for events with percpu */
	size_t ncpu;		 /* CPUs a thread may run on, */
	int cpu_id[HWP_CPU_IDS]; /* their ids (lib/engine/crings.c) */
	int no_fdout;		 /* the kernel refused PERF_FLAG_FD_OUTPUT */
	unsigned int fit;	 /* 0, or the pages that fit HWP_FIT_THREADS */
	uint64_t surplus;	 /* budget pages beyond that, for bigger rings */
	unsigned int drain_ms;
	struct hwp_sev *ev;
	size_t nev;
	struct hwp_slot *slot;
	size_t nslot, capslot;
	int running;
	pid_t owner;	   /* thread mode: the thread sampled */
	int inherit;	   /* thread mode with attr.inherit (session.c) */
	int count_tids;	   /* hwp_tids_enable() (tids.c) */
	uint32_t threads;  /* threads covered */
	uint32_t missed;   /* threads that could not be covered */
	int missed_err;	   /* -errno of the first of them */
	pid_t *missed_tid; /* their tids, not tried again by scans */
	size_t nmissed_tid;
	uint32_t seen;			/* threads of the process at the last scan */
	int delivering;			/* a thread is running the sinks */
	int told_ebadf;			/* the lost-fds warning was logged */
	struct hwprof_session *next;	/* in the running list */
	struct hwprof_object *snap;	/* hwprof_session_objects() copy */
	struct hwprof_path_node *psnap; /* hwprof_session_paths() copy */
};

extern pthread_mutex_t hwp_eng;
extern pthread_cond_t hwp_eng_cond; /* signalled when delivering ends */
extern struct hwprof_session *hwp_running;
extern int hwp_nprocess; /* running process-mode sessions */

void hwp_lock_engine(void);
void hwp_unlock_engine(void);

/* crings.c */
void hwp_crings_plan(struct hwprof_session *s, uint64_t budget_pages);
/* HWPROF_RINGS: 0 thread, 1 cpu, -1 auto or unset, -2 a bad value (said) */
int hwp_crings_wanted(void);
int hwp_crings_alloc(struct hwprof_session *s);
struct hwp_cring *hwp_cring_of(struct hwprof_session *s, const struct hwp_slot *sl);
int hwp_cring_open(struct hwprof_session *s, size_t i, int cpu);
int hwp_cring_ours(const struct hwp_cring *cr);
void hwp_crings_close(struct hwprof_session *s);
void hwp_crings_forget(struct hwprof_session *s);
void hwp_crings_stats(const struct hwprof_session *s, int ev, uint64_t *lost,
		      uint64_t *throttled);

/* threads.c */
int hwp_threads_attach(struct hwprof_session *s, pid_t tid, int enable);
void hwp_threads_attach_new(struct hwprof_session *s, pid_t tid);
int hwp_threads_scan(struct hwprof_session *s, pid_t skip, pid_t last, int last_on);
void hwp_threads_reap(struct hwprof_session *s, int all);
void hwp_threads_reap_hung(struct hwprof_session *s, const int *fds, size_t n);
int hwp_threads_now(void);
void hwp_threads_enable(struct hwprof_session *s, pid_t tid, int on);
void hwp_threads_stop(struct hwprof_session *s, pid_t tid);
uint64_t hwp_threads_slot_lost(const struct hwp_slot *sl);
int hwp_threads_slot_ours(const struct hwp_slot *sl);
void hwp_threads_drop_foreign(struct hwprof_session *s, const int *fds, size_t n);
void hwp_threads_size_rings(struct hwprof_session *s);
const char *hwp_threads_missed_why(int err);

/* paths.c */
struct hwp_paths *hwp_paths_new(uint64_t max_stack);
void hwp_paths_add(struct hwp_paths *p, const uint64_t *chain, uint64_t n, uint64_t ip);
void hwp_paths_zero(struct hwp_paths *p);
void hwp_paths_free(struct hwp_paths *p);
void hwp_paths_copy(const struct hwp_paths *p, struct hwprof_path_node *out);

/* tids.c */
struct hwp_tids;
struct hwp_tids *hwp_tids_new(void);
void hwp_tids_add(struct hwp_tids *t, const uint32_t *tids, size_t n);
void hwp_tids_zero(struct hwp_tids *t);
void hwp_tids_free(struct hwp_tids *t);

/* drain.c */
void hwp_drain_ring(struct hwprof_session *s, int ev, struct hwp_ring *r, uint32_t *lcg);
void hwp_drain_slot(struct hwprof_session *s, struct hwp_slot *sl);
void hwp_drain(struct hwprof_session *s);
void hwp_drain_deliver(struct hwprof_session *s);
void hwp_drain_deliver_all(void);
void hwp_drain_wait_delivered(struct hwprof_session *s);

/* drainer.c: the drain thread */
int hwp_drainer_start(void);
void hwp_drainer_stop(void);
void hwp_drainer_forget(void);
pid_t hwp_drainer_tid(void);
void hwp_drainer_wake(void);

/* follow.c: new threads and fork */
void hwp_follow_init(void);

#endif /* HWPROF_ENGINE_H */
