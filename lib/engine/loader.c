/* SPDX-License-Identifier: MIT */
/*
 * The loader after fork (hwp_loader_*(), declared in lib/engine/internal.h
 * beside the objects they guard): whether dl_iterate_phdr() may be called
 * in a fork child. lib/engine/objects.c and mem:SYMBOL events
 * (lib/perf/event.c, through hwp_event_loader_check()) ask it.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>

#include "engine.h"

/*
 * dl_iterate_phdr() takes a lock of the loader's that fork() does not
 * reset in the child (glibc 2.36 resets its other loader locks): when
 * another thread of the parent was inside dl_iterate_phdr() at the fork,
 * the child inherits that lock held by a thread it does not have, and
 * every dl_iterate_phdr() in the child blocks forever. So a fork child
 * keeps the objects the parent knew and asks the loader again only after
 * a helper thread (hwprof-ldprobe, never sampled) got through one
 * dl_iterate_phdr(): a helper left blocked costs one sleeping thread,
 * never a hang of the drain thread, of a stop or of the exit path.
 */
enum {
	LDR_OK,
	LDR_DOUBT,
	LDR_PROBING
};
static int ldr_state = LDR_OK;
static pid_t probe_tid; /* -1 while its thread starts */

static int probe_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	(void)arg;
	return 1;
}

static void *probe_main(void *arg)
{
	__atomic_store_n(&probe_tid, hwp_sys_gettid(), __ATOMIC_RELEASE);
	prctl(PR_SET_NAME, "hwprof-ldprobe");
	dl_iterate_phdr(probe_cb, NULL);
	__atomic_store_n(&ldr_state, LDR_OK, __ATOMIC_RELEASE);
	return arg;
}

/* In a fork child, single-threaded: the loader's lock is in doubt. */
void hwp_loader_forked(void)
{
	ldr_state = LDR_DOUBT;
	probe_tid = 0;
}

/* The helper's tid (0 if none), for scans to leave out. */
pid_t hwp_loader_probe_tid(void)
{
	pid_t tid;

	while ((tid = __atomic_load_n(&probe_tid, __ATOMIC_ACQUIRE)) < 0)
		sched_yield();
	return tid;
}

/* 1 if dl_iterate_phdr() cannot block on a lock no thread will release;
 * starts the helper that finds out, and waits for it up to wait_ms. */
int hwp_loader_usable(unsigned int wait_ms)
{
	int st = LDR_DOUBT;

	if (__atomic_load_n(&ldr_state, __ATOMIC_ACQUIRE) == LDR_OK)
		return 1;
	if (__atomic_compare_exchange_n(&ldr_state, &st, LDR_PROBING, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		sigset_t all, old;
		pthread_t t;
		int ret;

		__atomic_store_n(&probe_tid, -1, __ATOMIC_RELEASE);
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		ret = hwp_spawn_untracked(&t, probe_main, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret) {
			__atomic_store_n(&probe_tid, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&ldr_state, LDR_DOUBT, __ATOMIC_RELEASE);
		} else {
			pthread_detach(t);
		}
	}
	while (wait_ms-- && __atomic_load_n(&ldr_state, __ATOMIC_ACQUIRE) != LDR_OK) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	return __atomic_load_n(&ldr_state, __ATOMIC_ACQUIRE) == LDR_OK;
}
