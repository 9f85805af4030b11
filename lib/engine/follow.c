/* SPDX-License-Identifier: MIT */
/*
 * The process followed: a thread the program makes joins the running
 * process-wide sessions before its start routine (the hook lib/engine/spawn.c
 * runs), and a fork child profiles on, into its own copy of the buffers.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

#include "engine.h"

/* Runs first in every thread made through pthread_create(): attaches it
 * to the running process-wide sessions. */
static void thread_born(void)
{
	pid_t tid;

	if (!__atomic_load_n(&hwp_nprocess, __ATOMIC_ACQUIRE))
		return;
	tid = hwp_sys_gettid();
	hwp_lock_engine();
	for (struct hwprof_session *s = hwp_running; s; s = s->next) {
		if (s->mode != HWPROF_SESSION_PROCESS)
			continue;
		/* a scan may have tried it first (and counted it) */
		hwp_threads_attach_new(s, tid);
	}
	hwp_drainer_wake();
	hwp_unlock_engine();
}

static pid_t fork_tid;

/* Drains first, so the copy of the buffers the child gets is current.
 * Sinks are not run here (they are the user's code, and fork holds the
 * lock): pcs still pending stay with the parent. */
static void fork_prepare(void)
{
	hwp_lock_engine();
	/* a drain thread made a moment ago may still be in its start-up
	 * (allocating, under a sanitizer's allocator lock): wait until it
	 * runs its own code, where it allocates only under hwp_eng */
	(void)hwp_drainer_tid();
	fork_tid = hwp_sys_gettid();
	for (struct hwprof_session *s = hwp_running; s; s = s->next)
		hwp_drain(s);
}

static void fork_parent(void)
{
	hwp_unlock_engine();
}

/* Whether a fork child samples on with s (see fork_child()). */
static int fork_keeps(const struct hwprof_session *s)
{
	return s->mode == HWPROF_SESSION_PROCESS || (s->owner == fork_tid && !s->inherit);
}

/*
 * In the child the fds still name the parent's events (disabling one would
 * stop the parent) and the rings are not mapped (perf mappings are not
 * copied). Close them without touching the events, then open fresh ones
 * for the one thread the child has: the one that forked, enabled after the
 * child's drain thread exists. Sessions that sampled another thread stop,
 * and so do inherit sessions: the child inherited their events, whose
 * samples the kernel writes into the parent's rings, as it adds the
 * child's counts to the parent's inherited counters. hwprof's threads
 * are made in the child only for the sessions it keeps: in one that
 * inherited events, they would be sampled and counted as the program's.
 */
static void fork_child(void)
{
	struct hwprof_session **pp = &hwp_running;
	pid_t me = hwp_sys_gettid();
	int any = 0;

	/* hwp_eng is still held: the thread that forked took it in prepare,
	 * and that is the thread running here */
	hwp_drainer_forget(); /* its thread did not come along */
	hwp_loader_forked();
	for (struct hwprof_session *s = hwp_running; s; s = s->next)
		any |= fork_keeps(s);
	if (any) { /* made before any fd is enabled */
		hwp_drainer_start();
		hwp_loader_usable(0);
	}
	while (*pp) {
		struct hwprof_session *s = *pp;
		int keep = fork_keeps(s);

		for (size_t i = 0; i < s->nslot; i++) {
			struct hwp_sev *e = &s->ev[s->slot[i].ev];

			e->st.lost += s->slot[i].ring.stats.lost;
			e->st.throttled += s->slot[i].ring.stats.throttled;
			if (hwp_threads_slot_ours(&s->slot[i]))
				close(s->slot[i].fd);
		}
		hwp_crings_forget(s);
		for (size_t i = 0; i < s->nev; i++)
			s->ev[i].npend = 0; /* the parent's to deliver */
		s->nslot = 0;
		s->threads = 0;
		s->missed = 0;
		s->nmissed_tid = 0;
		s->delivering = 0;
		if (keep && !hwp_threads_attach(s, me, 1)) {
			s->owner = me;
			pp = &s->next;
			continue;
		}
		s->running = 0;
		if (s->mode == HWPROF_SESSION_PROCESS)
			hwp_nprocess--;
		*pp = s->next;
	}
	hwp_drainer_stop(); /* if no session survived */
	hwp_unlock_engine();
}

/* Once, when the library is loaded (lib/engine/session.c). */
void hwp_follow_init(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	hwp_spawn_hook(thread_born);
}
