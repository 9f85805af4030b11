/* SPDX-License-Identifier: MIT */
/*
 * What the PAPI files share, never installed: the EventSet, the one lock
 * and the rules for user code. The files call downwards only, from the
 * top: papi_hl.c the high-level API; papi_rate.c the rate calls
 * (PAPI_ipc() and the others); papi_opts.c PAPI_library_init(),
 * PAPI_shutdown() and the options; papi_profil.c PAPI_profil(),
 * PAPI_sprofil() and PAPI_overflow(); papi_set.c the EventSets and
 * counting; papi_sample.c how profiled and overflowing events sample (a
 * kernel session, or the FORCE_SW signals); papi_sysinfo.c the component
 * and what PAPI tells about the machine and the process; papi_names.c
 * names and codes; papi_lib.c at the bottom, the library's state, the
 * lock, threads and error codes.
 *
 * Locking: hwp_papi_lock() guards the EventSet table, the native-name
 * table and every EventSet. No user code (overflow handlers) runs while it
 * is held, and the sampling engine is never called under it (its drain
 * calls the handlers): PAPI_start() and PAPI_stop() mark the set busy and
 * release it around the engine, and a FORCE_SW signal that
 * interrupts this thread inside a PAPI call defers the user's handler
 * until the call unlocks (hwp_papi_unlock() runs it).
 */
#ifndef HWPROF_COMPAT_PAPI_PRIV_H
#define HWPROF_COMPAT_PAPI_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include "../engine/internal.h"
#include "hwprof/papi/papi.h"

#define HWP_PAPI_MAX_EVENTS 64 /* per EventSet: PAPI_MAX_MPX_CTRS */
#define HWP_PAPI_MAX_OV	    63 /* overflow_vector has one bit each */

struct hwp_pset;

/* A drain's sample goes to PAPI_overflow()'s handler through this. */
struct hwp_ov_arg {
	int set;
	int index;
	PAPI_overflow_handler_t fn;
	const int *halted; /* the session's: no more calls once set */
};

/* A set's kernel sampling: the session and its sinks' arguments, which
 * live as long as it does (a session a handler stopped outlives its set). */
struct hwp_psess {
	struct hwprof_session *s;
	int halted;		/* atomic: stopped from a handler */
	struct hwp_psess *next; /* waiting to be freed (papi_sample.c) */
	struct hwp_ov_arg ov[]; /* one per event of the set */
};

struct hwp_pevent {
	int code;
	char name[PAPI_2MAX_STR_LEN];  /* what hwp_event_resolve() reads */
	int fd;			       /* counting fd while running, else -1:
					* the first term's */
	int nterm;		       /* counters: 1, or a derived preset's */
	int tfd[HWP_PRESET_MAX_TERMS]; /* each term's fd (tfd[0] is fd) */
	const char *derived, *postfix; /* events/presets.h's, or NULL */
	long long saved;	       /* the count while stopped */
	uint64_t en0[HWP_PRESET_MAX_TERMS], run0[HWP_PRESET_MAX_TERMS];
	/* times at the last reset: scaling */
	uint64_t base[HWP_PRESET_MAX_TERMS]; /* counts left by the last
					      * reset: the exited threads' of an
					      * inherited counter (papi_set.c) */
	/* profiling */
	int threshold; /* 0: not profiled */
	int flags;
	struct hwprof_hist *hist; /* NULL with threshold: bufsiz 0 */
	long long deadline;	  /* FORCE_SW: next count that samples */
	/* overflow */
	int ov_threshold;
	int ov_flags;
	PAPI_overflow_handler_t handler;
};

struct hwp_pset {
	int id;
	int state;
	int nev, cap;
	struct hwp_pevent *ev;
	struct hwp_psess *ps; /* kernel sampling while running */
	int sw;		      /* FORCE_SW signals armed */
	int sw_counted;	      /* holds the signal disposition */
	int draining;	      /* busy: PAPI_start()/PAPI_stop() run
			       * the engine without the lock */
	pid_t tid;	      /* the thread that started it */
	/* options (PAPI_set_opt) */
	int cidx; /* -1 until bound to the component */
	int domain;
	int granularity;
	int inherit;
	int multiplex;
	pid_t attach; /* 0: the starting thread */
	int cpu;      /* -1: any */
};

/* Where a -errno is turned into a PAPI code: hwp_papi_errno()'s column. */
enum hwp_papi_at {
	HWP_PAPI_AT_QUERY, /* naming or adding an event: does it exist here */
	HWP_PAPI_AT_USE,   /* anything else: counters, sessions, buffers */
	HWP_PAPI_NAT
};

/* papi_lib.c: the bottom */
int hwp_papi_errno(int ret, enum hwp_papi_at at); /* ret >= 0: PAPI_OK */
void hwp_papi_lock(void);
void hwp_papi_unlock(void); /* then runs the deferred handler calls */
void hwp_papi_defer(int set, void *pc, long long vec,
		    PAPI_overflow_handler_t fn); /* signal handler, in a call */
int hwp_papi_err(int e);			 /* records the thread's last error */
int hwp_papi_inited(void);
void hwp_papi_set_inited(int level);	/* lock held */
void hwp_papi_lib_reset(void);		/* lock held: PAPI_shutdown() */
unsigned int hwp_papi_generation(void); /* PAPI_shutdown()s so far */
int hwp_papi_debug(void);
int hwp_papi_defdom(void);
int hwp_papi_defgrn(void);
int hwp_papi_in_call(void);	/* this thread holds the lock */
int hwp_papi_thread_seen(void); /* lock not held */

/* papi_names.c */
const char *hwp_papi_code_name(int code); /* lock held */
int hwp_papi_probe(const char *name);
/* What name counts here: a derived preset's terms, else name alone. */
void hwp_papi_terms(const char *name, struct hwp_preset_terms *t);
long long hwp_papi_derive(const char *derived, const char *postfix, const long long *v, int n);
int hwp_papi_npresets(void);
int hwp_papi_num_cntrs(void);
void hwp_papi_names_free(void); /* lock held */

/* papi_sysinfo.c */
void hwp_papi_sysinfo_init(void); /* lock held */
void hwp_papi_sysinfo_free(void); /* lock held */
void hwp_papi_cmp_init(void);	  /* lock held */
void hwp_papi_cmp_reset(void);	  /* lock held */
int hwp_papi_cmp_disabled(void);  /* PAPI_disable_component() */
PAPI_hw_info_t *hwp_papi_hw(void);
PAPI_exe_info_t *hwp_papi_exe(void);
PAPI_shlib_info_t *hwp_papi_shlib(void);

/* papi_sample.c */
void hwp_papi_unprofile(struct hwp_pevent *e);
int hwp_papi_sw_attr(struct hwp_pset *s, const struct hwp_pevent *e,
		     struct perf_event_attr *a); /* lock held, at start */
int hwp_papi_sw_arm(struct hwp_pset *s);	 /* lock held, at start */
void hwp_papi_sw_disarm(struct hwp_pset *s);	 /* lock held, at stop */
int hwp_papi_session(struct hwp_pset *s);	 /* lock not held, set busy */
void hwp_papi_psess_free(struct hwp_psess *ps);	 /* lock not held */
int hwp_papi_in_handler(void);			 /* this thread runs an overflow handler */
void hwp_papi_halt(struct hwp_pset *s);		 /* lock held, in a handler */
void hwp_papi_reap(void);			 /* lock not held */

/* papi_hl.c and papi_rate.c: one stops the other's running EventSet
 * (lock not held) */
int hwp_papi_hl_running(void);	 /* this thread's high-level set */
int hwp_papi_rate_running(void); /* this thread's rate set */

/* papi_set.c (lock held) */
struct hwp_pset *hwp_papi_set(int id);
int hwp_papi_stopped(int id, struct hwp_pset **s);
int hwp_papi_index(const struct hwp_pset *s, int code);
int hwp_papi_state_bits(const struct hwp_pset *s); /* the option bits */
void hwp_papi_sets_free(void);
void hwp_papi_sets_stop_all(void); /* lock not held */

#endif /* HWPROF_COMPAT_PAPI_PRIV_H */
