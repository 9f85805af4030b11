/* SPDX-License-Identifier: MIT */
/*
 * The in-process engine's declarations for lib/engine/ and the layers on it
 * (lib/compat/, lib/mpi/), with lib/perf/perf.h and lib/hist/hist.h below
 * them. Private; never installed.
 */
#ifndef HWPROF_INTERNAL_H
#define HWPROF_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwprof.h"
#include "../hist/hist.h"
#include "../perf/perf.h"

/* spawn.c: the interposed pthread_create. The hook runs first in every
 * thread the program makes; hwprof's own threads skip it. */
void hwp_spawn_hook(void (*fn)(void));
int hwp_spawn_untracked(pthread_t *t, void *(*fn)(void *), void *arg);

/* objects.c: loaded objects as regions with buckets of their own */
struct hwp_objid {	   /* what was loaded: file and segment */
	uint64_t dev, ino; /* 0, 0: unknown (vdso, file gone) */
	uint64_t off;	   /* the segment's file offset */
};

struct hwp_objects {
	struct hwprof_object *obj;
	struct hwp_objid *id; /* per object */
	unsigned char *seen;  /* per object: found by the last scan */
	size_t n, cap;
	unsigned long long adds, subs; /* loader generation last seen */
	int changed;
	struct hwprof_hist *hist; /* over the loaded ones */
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
int hwp_session_add(struct hwprof_session *s, const char *event, uint64_t threshold,
		    struct hwprof_hist *h, hwp_sink_fn sink, void *sink_arg);
/* The same with an event already resolved (no name lookup again). */
int hwp_session_add_ev(struct hwprof_session *s, const struct hwp_event *ev,
		       uint64_t threshold, struct hwprof_hist *h, hwp_sink_fn sink,
		       void *sink_arg);
/* Start with the calling thread's fds off; hwp_session_arm() enables them
 * as the API's last step, so its own work after starting is not sampled. */
int hwp_session_start_quiet(struct hwprof_session *s);
void hwp_session_arm(struct hwprof_session *s);
void hwp_session_disarm(struct hwprof_session *s);
void hwp_session_halt(struct hwprof_session *s); /* from a sink */
/* Before start, a thread-mode session: its fds carry attr.inherit, so it
 * samples the threads and processes its thread creates (session.c). */
int hwp_session_inherit(struct hwprof_session *s);

/* tids.c: per-thread sample counts. Before the first hwprof_session_add():
 * every event's samples carry their thread id, counted per thread. 0 or
 * -EINVAL. */
int hwp_tids_enable(struct hwprof_session *s);
struct hwp_tid_count {
	pid_t tid;
	uint64_t samples; /* sample records read from the rings */
};
/* A copy of event's counts (malloc'd, in no order) into *out; *untold the
 * samples counted under no thread (a record without a thread id, out of
 * memory). 0, -EINVAL, -ENOENT (not asked for) or -ENOMEM. */
int hwp_tids_of(struct hwprof_session *s, int event, struct hwp_tid_count **out, size_t *n,
		uint64_t *untold);

/* env.c: HWPROF_EVENT and HWPROF_PERIOD for the classic interfaces */
struct hwp_env {
	char event[256];
	struct hwp_event ev; /* event, resolved */
	uint64_t period;     /* events per sample; ns for the clocks */
	int clock;	     /* the period is time */
};
/* The variables as given (period 0: unset), the event checked: 0, or
 * -EINVAL with the reason in why; nothing said. */
int hwp_env_read(struct hwp_env *env, char *why, size_t len);
/* The same with the classic calls' default period; a bad value said once
 * on stderr. */
int hwp_env_get(struct hwp_env *env);
/* msg on stderr, once for the same msg: a bad HWPROF_* value (hwprof(7)) */
void hwp_env_complain(const char *msg);
/* A period as HWPROF_PERIOD takes it: decimal or 0x hex, 1 to 2^63-1. */
int hwp_env_parse_period(const char *s, uint64_t *v);

#endif /* HWPROF_INTERNAL_H */
