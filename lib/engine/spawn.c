/* SPDX-License-Identifier: MIT */
/*
 * pthread_create, interposed: every thread the program makes runs the
 * engine's hook (hwp_spawn_hook()) before its start routine, so that
 * process-wide sessions cover it from its first instruction. hwprof's own
 * threads (the drain thread, the loader probe) are made through the same
 * global pthread_create by hwp_spawn_untracked(), and skip the hook.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <threads.h>

#include "internal.h"

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				 void *);
static pthread_create_fn real_create;
static __thread int no_trampoline; /* set while making one of hwprof's own */

/*
 * A program linked statically (with libhwprof.a and libc.a) has no
 * dynamic symbols for dlsym() to find: there, libc's pthread_create is a
 * weak alias of __pthread_create, which ours overrides, and the weak
 * reference below finds the real one. Nothing else would make the static
 * linker bring that member of libc.a in (a weak reference does not), so
 * thrd_create is referenced too: its member calls __pthread_create. In a
 * dynamic link libc.so exports no __pthread_create and it stays NULL.
 */
extern int __pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)
	__attribute__((weak));
__attribute__((used)) static int (*const pull_libc_create)(thrd_t *, thrd_start_t,
							   void *) = thrd_create;

static pthread_create_fn create_fn(void)
{
	pthread_create_fn f = __atomic_load_n(&real_create, __ATOMIC_ACQUIRE);

	if (!f) {
		/* the next definition: libc's default version, or another
		 * interposer's (a sanitizer's) that comes after ours */
		if (__pthread_create)
			f = __pthread_create;
		else
			f = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
		__atomic_store_n(&real_create, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* pthread_create without the trampoline: for hwprof's own threads. */
int hwp_spawn_untracked(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int ret;

	no_trampoline = 1;
	ret = pthread_create(t, NULL, fn, arg);
	no_trampoline = 0;
	return ret;
}

struct tramp {
	void *(*fn)(void *);
	void *arg;
	struct tramp *next; /* on the spare list */
};

/*
 * Where a new thread finds its start routine: a slot of a static pool,
 * taken by the creating thread and given back by the new one as it
 * starts, or, when every slot is taken (a burst of threads not started
 * yet), a block the creating thread takes from the heap. The new thread
 * never calls free(): a first malloc call on a new thread sets up its
 * cache and arena, page faults that are hwprof's, not the program's (in
 * a profile of PAPI_INHERIT_ALL, whose threads are counted from their
 * first instruction, and in the counts), and how many depends on how
 * the threads are scheduled. It puts the block on a spare list that the
 * next burst takes from; the blocks stay (as many as the most threads
 * ever waiting to start at once beyond the pool).
 */
#define TRAMP_POOL 256

static struct tramp pool[TRAMP_POOL];
static int pool_used[TRAMP_POOL]; /* atomic: 1 while a thread owns it */
static unsigned int pool_next;	  /* atomic: where the search starts */
static struct tramp *spare;	  /* under spare_lock */
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tramp *tramp_get(void)
{
	struct tramp *t;

	for (int k = 0; k < TRAMP_POOL; k++) {
		unsigned int i = __atomic_fetch_add(&pool_next, 1, __ATOMIC_RELAXED) %
				 TRAMP_POOL;
		int free_slot = 0;

		if (__atomic_compare_exchange_n(&pool_used[i], &free_slot, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &pool[i];
	}
	pthread_mutex_lock(&spare_lock);
	if ((t = spare))
		spare = t->next;
	pthread_mutex_unlock(&spare_lock);
	return t ? t : malloc(sizeof(struct tramp));
}

static void tramp_put(struct tramp *t)
{
	if (t >= pool && t < pool + TRAMP_POOL) {
		__atomic_store_n(&pool_used[t - pool], 0, __ATOMIC_RELEASE);
		return;
	}
	pthread_mutex_lock(&spare_lock);
	t->next = spare;
	spare = t;
	pthread_mutex_unlock(&spare_lock);
}

static void (*born_hook)(void);

/* What every thread made through pthread_create() runs first (the engine
 * attaches it to the running process-wide sessions, lib/engine/follow.c). */
void hwp_spawn_hook(void (*fn)(void))
{
	__atomic_store_n(&born_hook, fn, __ATOMIC_RELEASE);
}

/* Runs first in every thread created through pthread_create(): the hook,
 * then the start routine. */
static void *trampoline(void *p)
{
	struct tramp t = *(struct tramp *)p;
	void (*hook)(void) = __atomic_load_n(&born_hook, __ATOMIC_ACQUIRE);

	tramp_put(p);
	if (hook)
		hook();
	return t.fn(t.arg);
}

/*
 * Interposes glibc's pthread_create (version GLIBC_2.34, lib/hwprof.map.in).
 * Always goes through the trampoline, so a session that starts while the
 * thread is being created still gets it: either the scan at start sees the
 * new tid or the trampoline sees the running session; both dedupe by tid.
 */
HWPROF_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			      void *(*fn)(void *), void *arg)
{
	pthread_create_fn real = create_fn();
	struct tramp *t;
	int ret;

	if (!real)
		return EAGAIN;
	if (no_trampoline)
		return real(thread, attr, fn, arg);
	t = tramp_get();
	if (!t)
		return real(thread, attr, fn, arg);
	t->fn = fn;
	t->arg = arg;
	ret = real(thread, attr, trampoline, t);
	if (ret)
		tramp_put(t);
	return ret;
}

__attribute__((constructor)) static void spawn_init(void)
{
	create_fn();
}
