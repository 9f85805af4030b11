/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the PAPI layer: the library's state (initialised or not,
 * default domain and granularity, debug level), the lock and the handler
 * calls it defers, threads and their storage, user locks, error
 * codes and strings. It calls no other PAPI file: PAPI_library_init(),
 * PAPI_shutdown() and the option calls, which reach every layer, are
 * papi_opts.c's; the component is papi_sysinfo.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papi_priv.h"

static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static __thread int depth; /* this thread holds plock */
static __thread int last_error;
static int init_level;		/* atomic */
static unsigned int generation; /* atomic: PAPI_shutdown()s so far */
static int debug_level;
static int defdom = PAPI_DOM_USER;
static int defgrn = PAPI_GRN_THR;
static unsigned long (*thread_id_fn)(void);

static pthread_mutex_t user_lock[PAPI_NUM_LOCK] = {
	PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER,
};

/* Thread-specific storage: one slot per tag per thread, and a list of
 * every thread that set one, for PAPI_TLS_ALL_THREADS. */
struct tls_node {
	struct tls_node *next;
	unsigned long id;
	void *data[PAPI_NUM_TLS];
};
static __thread struct tls_node *my_tls;
static struct tls_node *tls_all;
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static void thread_forget(void);

/* Handler calls a FORCE_SW signal could not make because it interrupted
 * this thread inside a PAPI call (holding the lock): made at unlock. */
#define MAX_DEFER 64
struct deferred {
	int set;
	void *pc;
	long long vec;
	PAPI_overflow_handler_t fn;
};
static __thread struct deferred dq[MAX_DEFER];
static __thread volatile sig_atomic_t dq_n;

/* From a signal handler of this thread, inside a PAPI call. */
void hwp_papi_defer(int set, void *pc, long long vec, PAPI_overflow_handler_t fn)
{
	if (dq_n < MAX_DEFER) {
		dq[dq_n] = (struct deferred){ set, pc, vec, fn };
		dq_n = dq_n + 1;
	}
}

static void run_deferred(void)
{
	while (dq_n > 0) {
		struct deferred d = dq[dq_n - 1];

		dq_n = dq_n - 1;
		d.fn(d.set, d.pc, d.vec, NULL);
	}
}

/* depth covers the whole of taking and dropping the lock: a FORCE_SW
 * signal handled anywhere in between (TSan runs deferred handlers inside
 * its mutex interceptors) sees it and defers the user's handler. */
void hwp_papi_lock(void)
{
	depth++;
	pthread_mutex_lock(&plock);
}

void hwp_papi_unlock(void)
{
	pthread_mutex_unlock(&plock);
	if (!--depth)
		run_deferred();
}

int hwp_papi_err(int e)
{
	if (e < 0)
		last_error = e;
	return e;
}

int hwp_papi_inited(void)
{
	return __atomic_load_n(&init_level, __ATOMIC_ACQUIRE);
}

int hwp_papi_defdom(void)
{
	return __atomic_load_n(&defdom, __ATOMIC_RELAXED);
}

int hwp_papi_defgrn(void)
{
	return __atomic_load_n(&defgrn, __ATOMIC_RELAXED);
}

/* PAPI_library_init() and PAPI_thread_init(): the lock held. */
void hwp_papi_set_inited(int level)
{
	__atomic_store_n(&init_level, level, __ATOMIC_RELEASE);
}

/* PAPI_shutdown(): the lock held. */
void hwp_papi_lib_reset(void)
{
	__atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
	thread_id_fn = NULL;
	__atomic_store_n(&init_level, 0, __ATOMIC_RELEASE);
}

unsigned int hwp_papi_generation(void)
{
	return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

int hwp_papi_debug(void)
{
	return __atomic_load_n(&debug_level, __ATOMIC_RELAXED);
}

/* Is a signal handler of this thread interrupting a PAPI call? */
int hwp_papi_in_call(void)
{
	return depth;
}

/* ------------------------------------------------------------------ */
/* Library and threads                                                  */

HWPROF_API int PAPI_is_initialized(void)
{
	return hwp_papi_inited();
}

HWPROF_API int PAPI_thread_init(unsigned long (*id_fn)(void))
{
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!id_fn)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	thread_id_fn = id_fn;
	for (struct tls_node *n = tls_all; n; n = n->next)
		if (n == my_tls) /* ids from now on are the function's */
			n->id = id_fn();
	__atomic_or_fetch(&init_level, PAPI_THREAD_LEVEL_INITED, __ATOMIC_RELEASE);
	hwp_papi_unlock();
	hwp_papi_thread_seen();
	return PAPI_OK;
}

HWPROF_API unsigned long PAPI_thread_id(void)
{
	unsigned long (*fn)(void);

	if (!(hwp_papi_inited() & PAPI_THREAD_LEVEL_INITED))
		return (unsigned long)hwp_papi_err(PAPI_EMISC);
	hwp_papi_lock();
	fn = thread_id_fn;
	hwp_papi_unlock();
	return fn ? fn() : (unsigned long)hwp_papi_err(PAPI_EMISC);
}

/* Threads need no registering here: an EventSet belongs to the thread
 * that starts it. Kept for the programs that call them. */
HWPROF_API int PAPI_register_thread(void)
{
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	return hwp_papi_err(hwp_papi_thread_seen());
}

/* Forgets the thread and its thread-specific data. */
HWPROF_API int PAPI_unregister_thread(void)
{
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	thread_forget();
	return PAPI_OK;
}

static void tls_gone(void *p)
{
	struct tls_node *n = p, **pp;

	pthread_mutex_lock(&plock);
	for (pp = &tls_all; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			break;
		}
	}
	pthread_mutex_unlock(&plock);
	free(n);
}

static void tls_key_make(void)
{
	pthread_key_create(&tls_key, tls_gone);
}

/* The id PAPI_TLS_ALL_THREADS reports: the PAPI_thread_init() function's,
 * else the kernel tid. */
static unsigned long self_id(void)
{
	return thread_id_fn ? thread_id_fn() : (unsigned long)hwp_sys_gettid();
}

/* Records the calling thread, as PAPI registers every thread that uses
 * it: PAPI_list_threads() and PAPI_TLS_ALL_THREADS report these. */
int hwp_papi_thread_seen(void)
{
	struct tls_node *n = my_tls;

	if (n)
		return PAPI_OK;
	pthread_once(&tls_once, tls_key_make);
	n = calloc(1, sizeof(*n));
	if (!n)
		return PAPI_ENOMEM;
	hwp_papi_lock();
	n->id = self_id();
	n->next = tls_all;
	tls_all = n;
	hwp_papi_unlock();
	pthread_setspecific(tls_key, n);
	my_tls = n;
	return PAPI_OK;
}

static void thread_forget(void)
{
	struct tls_node *n = my_tls;

	if (!n)
		return;
	pthread_setspecific(tls_key, NULL);
	my_tls = NULL;
	tls_gone(n);
}

HWPROF_API int PAPI_set_thr_specific(int tag, void *ptr)
{
	int r;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (tag < 0 || tag >= PAPI_NUM_TLS)
		return hwp_papi_err(PAPI_EINVAL);
	r = hwp_papi_thread_seen();
	if (r)
		return hwp_papi_err(r);
	my_tls->data[tag] = ptr;
	return PAPI_OK;
}

HWPROF_API int PAPI_get_thr_specific(int tag, void **ptr)
{
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!ptr)
		return hwp_papi_err(PAPI_EINVAL);
	if (tag & PAPI_TLS_ALL_THREADS) {
		/* PAPI's calling convention: ptr is the PAPI_all_thr_spec_t */
		PAPI_all_thr_spec_t *a = (PAPI_all_thr_spec_t *)ptr;
		int t = tag & ~PAPI_TLS_ALL_THREADS, i = 0;

		if (!a || t < 0 || t >= PAPI_NUM_TLS)
			return hwp_papi_err(PAPI_EINVAL);
		hwp_papi_lock();
		for (struct tls_node *n = tls_all; n && i < a->num; n = n->next, i++) {
			if (a->id)
				a->id[i] = n->id;
			if (a->data)
				a->data[i] = n->data[t];
		}
		a->num = i;
		hwp_papi_unlock();
		return PAPI_OK;
	}
	if (tag < 0 || tag >= PAPI_NUM_TLS)
		return hwp_papi_err(PAPI_EINVAL);
	*ptr = my_tls ? my_tls->data[tag] : NULL;
	return PAPI_OK;
}

HWPROF_API int PAPI_list_threads(unsigned long *tids, int *number)
{
	int i = 0;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!number || *number < 0 || (*number && !tids))
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	for (struct tls_node *n = tls_all; n; n = n->next, i++)
		if (i < *number)
			tids[i] = n->id;
	hwp_papi_unlock();
	*number = i;
	return PAPI_OK;
}

HWPROF_API int PAPI_lock(int lck)
{
	if (lck < 0 || lck >= PAPI_NUM_LOCK)
		return hwp_papi_err(PAPI_EINVAL);
	pthread_mutex_lock(&user_lock[lck]);
	return PAPI_OK;
}

HWPROF_API int PAPI_unlock(int lck)
{
	if (lck < 0 || lck >= PAPI_NUM_LOCK)
		return hwp_papi_err(PAPI_EINVAL);
	pthread_mutex_unlock(&user_lock[lck]);
	return PAPI_OK;
}

/* ------------------------------------------------------------------ */
/* Options                                                              */

static int valid_domain(int d)
{
	return d >= PAPI_DOM_MIN && !(d & ~PAPI_DOM_ALL);
}

HWPROF_API int PAPI_set_debug(int level)
{
	if (level != PAPI_QUIET && level != PAPI_VERB_ECONT && level != PAPI_VERB_ESTOP)
		return hwp_papi_err(PAPI_EINVAL);
	__atomic_store_n(&debug_level, level, __ATOMIC_RELAXED);
	return PAPI_OK;
}

HWPROF_API int PAPI_set_cmp_domain(int domain, int cidx)
{
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (cidx != 0)
		return hwp_papi_err(PAPI_ENOCMP);
	if (!valid_domain(domain))
		return hwp_papi_err(PAPI_EINVAL);
	__atomic_store_n(&defdom, domain, __ATOMIC_RELAXED);
	return PAPI_OK;
}

HWPROF_API int PAPI_set_domain(int domain)
{
	return PAPI_set_cmp_domain(domain, 0);
}

HWPROF_API int PAPI_set_cmp_granularity(int granularity, int cidx)
{
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (cidx != 0)
		return hwp_papi_err(PAPI_ENOCMP);
	if (granularity != PAPI_GRN_THR && granularity != PAPI_GRN_SYS)
		return hwp_papi_err(PAPI_EINVAL);
	__atomic_store_n(&defgrn, granularity, __ATOMIC_RELAXED);
	return PAPI_OK;
}

HWPROF_API int PAPI_set_granularity(int granularity)
{
	return PAPI_set_cmp_granularity(granularity, 0);
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

/*
 * The one -errno -> PAPI code table of every PAPI call, after PAPI 7's
 * perf_event component (map_perf_event_errors_to_papi()): EPERM and
 * EACCES are PAPI_EPERM, ENOENT PAPI_ENOEVNT, ENODEV and EOPNOTSUPP
 * PAPI_ENOSUPP, ENOMEM PAPI_ENOMEM, EMFILE PAPI_ECOUNT, EINVAL
 * PAPI_EINVAL, and ESRCH (no task to attach to), ENOSYS, EAGAIN, EBADF
 * PAPI_ESYS. hwprof's own choices: EBUSY and ENOSPC (a PMU or breakpoint
 * slot taken) are PAPI_ECNFLCT, which PAPI reserves for exactly that;
 * E2BIG (more sampled events than a session holds) and ENFILE are
 * PAPI_ECOUNT; an errno not listed is PAPI_ESYS (PAPI says PAPI_EINVAL,
 * which would blame an argument for a failed system call).
 *
 * Two columns, for the one context that legitimately differs: naming or
 * adding an event (HWP_PAPI_AT_QUERY) asks whether the event exists for
 * this thread, so whatever keeps it from being counted as named is
 * PAPI_ENOEVNT, as in PAPI, whose tables hold only the events the
 * machine has; permission and memory keep their codes. Every other call
 * (HWP_PAPI_AT_USE: counters, sessions, histograms) takes the rest.
 * PAPI_strerror(3hwprof) lists the table.
 */
static const struct papi_errno {
	int err;
	int code[HWP_PAPI_NAT]; /* by enum hwp_papi_at */
} errno_map[] = {
	{ EPERM, { PAPI_EPERM, PAPI_EPERM } },
	{ EACCES, { PAPI_EPERM, PAPI_EPERM } },
	{ ENOENT, { PAPI_ENOEVNT, PAPI_ENOEVNT } },
	{ ENODEV, { PAPI_ENOEVNT, PAPI_ENOSUPP } },
	{ EOPNOTSUPP, { PAPI_ENOEVNT, PAPI_ENOSUPP } },
	{ EINVAL, { PAPI_ENOEVNT, PAPI_EINVAL } },
	{ ENOMEM, { PAPI_ENOMEM, PAPI_ENOMEM } },
	{ EMFILE, { PAPI_ENOEVNT, PAPI_ECOUNT } },
	{ ENFILE, { PAPI_ENOEVNT, PAPI_ECOUNT } },
	{ E2BIG, { PAPI_ENOEVNT, PAPI_ECOUNT } },
	{ EBUSY, { PAPI_ENOEVNT, PAPI_ECNFLCT } },
	{ ENOSPC, { PAPI_ENOEVNT, PAPI_ECNFLCT } },
	{ ESRCH, { PAPI_ENOEVNT, PAPI_ESYS } },
	{ ENOSYS, { PAPI_ENOEVNT, PAPI_ESYS } },
	{ EAGAIN, { PAPI_ENOEVNT, PAPI_ESYS } },
	{ EBADF, { PAPI_ENOEVNT, PAPI_ESYS } },
};

int hwp_papi_errno(int ret, enum hwp_papi_at at)
{
	if (ret >= 0)
		return PAPI_OK;
	if ((unsigned)at >= HWP_PAPI_NAT)
		return PAPI_EBUG;
	for (size_t i = 0; i < sizeof(errno_map) / sizeof(errno_map[0]); i++)
		if (errno_map[i].err == -ret)
			return errno_map[i].code[at];
	return at == HWP_PAPI_AT_QUERY ? PAPI_ENOEVNT : PAPI_ESYS;
}

static char *const errstr[] = {
	"No error",
	"Invalid argument",
	"Insufficient memory",
	"A System/C library call failed",
	"Not supported by component",
	"Access to the counters was lost or interrupted",
	"Internal error, please send mail to the developers",
	"Event does not exist",
	"Event exists, but cannot be counted due to hardware resource limits",
	"EventSet is currently not running",
	"EventSet is currently counting",
	"No such EventSet available",
	"Event in argument is not a valid preset",
	"Hardware does not support performance counters",
	"Unknown error code",
	"Permission level does not permit operation",
	"PAPI hasn't been initialized yet",
	"Component Index isn't set",
	"Not supported",
	"Not implemented",
	"Buffer size exceeded",
	"EventSet domain is not supported for the operation",
	"Invalid or missing event attributes",
	"Too many events or attributes",
	"Bad combination of features",
	"Component containing event is disabled",
	"Delayed initialization component",
	"Event exists, but cannot be counted due to multiple passes required by hardware",
};

HWPROF_API char *PAPI_strerror(int code)
{
	if (code > 0 || -code >= PAPI_NUM_ERRORS)
		return NULL;
	return errstr[-code];
}

HWPROF_API void PAPI_perror(const char *msg)
{
	const char *s = PAPI_strerror(last_error);

	if (!s)
		return;
	if (msg && *msg)
		fprintf(stderr, "%s: %s\n", msg, s);
	else
		fprintf(stderr, "%s\n", s);
}
