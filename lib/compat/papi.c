/* SPDX-License-Identifier: MIT */
/*
 * PAPI's counting and profiling interface on the engine. An EventSet
 * counts with one perf fd per event on the thread that starts it; its
 * profiled events sample through one thread-mode session into histograms
 * of the caller's buffers (or, with FORCE_SW, a CPU-time timer reads the
 * counter and folds the interrupted pc with its real excess). Validation
 * follows PAPI 7's order; where PAPI has a bug (SPEC section 2) hwprof
 * does the documented thing, and a failing call changes nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "hwprof/papi/papi.h"
#include "classic.h"
#include "papi_presets.h"

#define MAX_SETS	512
#define MAX_EVENTS	16
#define MAX_PROF	8	/* profiled events per EventSet */
#define MAX_NATIVE	1024
#define SW_SIGNAL	(SIGRTMIN + 6)
#define SW_TICK_NS	1000000	/* FORCE_SW: the counter is read every 1 ms */

struct pevent {
	int code;
	char name[PAPI_2MAX_STR_LEN];
	int fd;			/* counting fd while running */
	/* profiling */
	int threshold;		/* 0: not profiled */
	int flags;
	PAPI_sprofil_t one;	/* PAPI_profil's region: no malloc, no leak */
	struct hwprof_hist *hist;
	long long deadline;	/* FORCE_SW: next count that takes a sample */
	/* overflow */
	int ov_threshold;
	int ov_flags;
	PAPI_overflow_handler_t handler;
};

struct pset {
	int used;
	int state;
	int nev;
	struct pevent ev[MAX_EVENTS];
	long long saved[MAX_EVENTS];	/* counts while stopped */
	struct hwprof_session *s;
	int sw;				/* a FORCE_SW timer runs */
	timer_t timer;
	pid_t tid;
	int id;
};

static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static struct pset sets[MAX_SETS];
static char *natives[MAX_NATIVE];
static int nnative;
static int init_level;
static int last_error;
static PAPI_exe_info_t exe;
static __thread struct pset *sw_set;	/* the set whose timer signals here */

static int ret_err(int e)
{
	if (e < 0)
		last_error = e;
	return e;
}

static struct pset *set_of(int id)
{
	if (id < 0 || id >= MAX_SETS || !sets[id].used)
		return NULL;
	return &sets[id];
}

/* PAPI's first two checks: the EventSet exists, and it is stopped. */
static int stopped(int id, struct pset **s)
{
	*s = set_of(id);
	if (!*s)
		return PAPI_ENOEVST;
	return (*s)->state & PAPI_RUNNING ? PAPI_EISRUN : PAPI_OK;
}

static int index_of(const struct pset *s, int code)
{
	for (int i = 0; i < s->nev; i++)
		if (s->ev[i].code == code)
			return i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Names and codes                                                      */

static int preset_index(const char *name)
{
	for (size_t i = 0; i < sizeof(hwp_papi_preset_names) / sizeof(hwp_papi_preset_names[0]); i++)
		if (!strcmp(hwp_papi_preset_names[i], name))
			return (int)i;
	return -1;
}

/* The hwprof event name behind a code, or NULL. */
static const char *code_name(int code)
{
	if (code & PAPI_PRESET_MASK) {
		unsigned int i = (unsigned int)code & PAPI_PRESET_AND_MASK;

		if (i < sizeof(hwp_papi_preset_names) / sizeof(hwp_papi_preset_names[0]))
			return hwp_papi_preset_names[i];
		return NULL;
	}
	if (code & PAPI_NATIVE_MASK) {
		int i = code & ~PAPI_NATIVE_MASK;

		return i >= 0 && i < nnative ? natives[i] : NULL;
	}
	return NULL;
}

/* A code for any name hwprof can resolve: presets keep PAPI's code,
 * others (libpfm4 names, task-clock, mem:...) get a native code. */
static int name_code(const char *name, int *code)
{
	struct hwp_event ev;
	int i = preset_index(name);

	if (i >= 0) {
		*code = i | PAPI_PRESET_MASK;
		return PAPI_OK;
	}
	if (!strncmp(name, "PAPI_", 5))
		return PAPI_ENOTPRESET;
	for (i = 0; i < nnative; i++) {
		if (!strcmp(natives[i], name)) {
			*code = i | PAPI_NATIVE_MASK;
			return PAPI_OK;
		}
	}
	if (hwp_event_resolve(name, &ev, NULL, 0))
		return PAPI_ENOEVNT;
	if (nnative == MAX_NATIVE)
		return PAPI_ENOMEM;
	natives[nnative] = strdup(name);
	if (!natives[nnative])
		return PAPI_ENOMEM;
	*code = nnative++ | PAPI_NATIVE_MASK;
	return PAPI_OK;
}

/* Can this thread count/sample it: PAPI_OK, ENOEVNT or EPERM. */
static int probe(const char *name)
{
	switch (hwprof_event_probe(name, NULL, 0)) {
	case 0:
		return PAPI_OK;
	case -EACCES:
		return PAPI_EPERM;
	default:
		return PAPI_ENOEVNT;
	}
}

HWPROF_API int PAPI_event_name_to_code(const char *in, int *out)
{
	int ret;

	if (!init_level)
		return ret_err(PAPI_ENOINIT);
	if (!in || !out)
		return ret_err(PAPI_EINVAL);
	pthread_mutex_lock(&plock);
	ret = name_code(in, out);
	pthread_mutex_unlock(&plock);
	return ret_err(ret == PAPI_ENOTPRESET ? PAPI_ENOEVNT : ret);
}

HWPROF_API int PAPI_event_code_to_name(int code, char *out)
{
	const char *n;

	if (!init_level)
		return ret_err(PAPI_ENOINIT);
	if (!out)
		return ret_err(PAPI_EINVAL);
	pthread_mutex_lock(&plock);
	n = code_name(code);
	if (n)	/* PAPI writes the whole PAPI_MAX_STR_LEN buffer */
		snprintf(out, PAPI_MAX_STR_LEN, "%s", n);
	pthread_mutex_unlock(&plock);
	return n ? PAPI_OK : ret_err(PAPI_ENOEVNT);
}

HWPROF_API int PAPI_query_event(int code)
{
	const char *n;

	if (!init_level)
		return ret_err(PAPI_ENOINIT);
	if ((code & PAPI_PRESET_MASK) &&
	    ((unsigned int)code & PAPI_PRESET_AND_MASK) >=
	    sizeof(hwp_papi_preset_names) / sizeof(hwp_papi_preset_names[0]))
		return ret_err(PAPI_ENOTPRESET);
	pthread_mutex_lock(&plock);
	n = code_name(code);
	pthread_mutex_unlock(&plock);
	return ret_err(n ? probe(n) : PAPI_ENOEVNT);
}

HWPROF_API int PAPI_query_named_event(const char *name)
{
	int code, ret = PAPI_event_name_to_code(name, &code);

	return ret ? ret : PAPI_query_event(code);
}

/* ------------------------------------------------------------------ */
/* Library and threads                                                  */

static void exe_init(void)
{
	char line[4096 + 128];
	FILE *f;
	ssize_t n = readlink("/proc/self/exe", exe.fullname, sizeof(exe.fullname) - 1);
	const char *base;
	int after_exe = 0;

	if (n <= 0)
		return;
	exe.fullname[n] = 0;
	base = strrchr(exe.fullname, '/');
	snprintf(exe.address_info.name, sizeof(exe.address_info.name), "%s",
		 base ? base + 1 : exe.fullname);
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char perm[5], path[4096] = "";

		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %4095s", &a, &b, perm, path) < 3)
			continue;
		if (!strcmp(path, exe.fullname)) {
			if (perm[0] == 'r' && perm[2] == 'x') {
				exe.address_info.text_start = (vptr_t)a;
				exe.address_info.text_end = (vptr_t)b;
			}
			if (perm[1] == 'w') {
				exe.address_info.data_start = (vptr_t)a;
				exe.address_info.data_end = (vptr_t)b;
			}
			after_exe = 1;
		} else if (after_exe && !*path && perm[1] == 'w' && !exe.address_info.bss_start) {
			exe.address_info.bss_start = (vptr_t)a;
			exe.address_info.bss_end = (vptr_t)b;
			after_exe = 0;
		} else {
			after_exe = 0;
		}
	}
	if (f)
		fclose(f);
}

HWPROF_API int PAPI_library_init(int version)
{
	pthread_mutex_lock(&plock);
	if (version != PAPI_VER_CURRENT) {
		pthread_mutex_unlock(&plock);
		return ret_err(PAPI_EINVAL);
	}
	if (!init_level) {
		exe_init();
		init_level = PAPI_LOW_LEVEL_INITED;
	}
	pthread_mutex_unlock(&plock);
	return PAPI_VER_CURRENT;
}

HWPROF_API int PAPI_is_initialized(void)
{
	return init_level;
}

HWPROF_API int PAPI_thread_init(unsigned long (*id_fn)(void))
{
	if (!init_level)
		return ret_err(PAPI_ENOINIT);
	if (!id_fn)
		return ret_err(PAPI_EINVAL);
	init_level |= PAPI_THREAD_LEVEL_INITED;
	return PAPI_OK;
}

/* Threads need no registering here: an EventSet belongs to the thread
 * that starts it. Kept for the programs that call them. */
HWPROF_API int PAPI_register_thread(void)
{
	return init_level ? PAPI_OK : ret_err(PAPI_ENOINIT);
}

HWPROF_API int PAPI_unregister_thread(void)
{
	return init_level ? PAPI_OK : ret_err(PAPI_ENOINIT);
}

/* ------------------------------------------------------------------ */
/* EventSets                                                            */

HWPROF_API int PAPI_create_eventset(int *id)
{
	if (!init_level)
		return ret_err(PAPI_ENOINIT);
	if (!id || *id != PAPI_NULL)
		return ret_err(PAPI_EINVAL);
	pthread_mutex_lock(&plock);
	for (int i = 0; i < MAX_SETS; i++) {
		if (!sets[i].used) {
			memset(&sets[i], 0, sizeof(sets[i]));
			sets[i].used = 1;
			sets[i].state = PAPI_STOPPED;
			sets[i].id = i;
			*id = i;
			pthread_mutex_unlock(&plock);
			return PAPI_OK;
		}
	}
	pthread_mutex_unlock(&plock);
	return ret_err(PAPI_ENOMEM);
}

static int add_locked(struct pset *s, int code)
{
	const char *n = code_name(code);
	int r;

	if (!n)
		return PAPI_ENOEVNT;
	if (s->state & PAPI_RUNNING)
		return PAPI_EISRUN;
	if (index_of(s, code) >= 0)
		return PAPI_ECNFLCT;
	if (s->nev == MAX_EVENTS)
		return PAPI_ECOUNT;
	r = probe(n);
	if (r)
		return r;
	memset(&s->ev[s->nev], 0, sizeof(s->ev[0]));
	s->ev[s->nev].code = code;
	s->ev[s->nev].fd = -1;
	snprintf(s->ev[s->nev].name, sizeof(s->ev[0].name), "%s", n);
	s->saved[s->nev] = 0;
	s->nev++;
	return PAPI_OK;
}

HWPROF_API int PAPI_add_event(int id, int code)
{
	struct pset *s;
	int ret;

	pthread_mutex_lock(&plock);
	s = set_of(id);
	ret = s ? add_locked(s, code) : PAPI_ENOEVST;
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

HWPROF_API int PAPI_add_events(int id, int *codes, int number)
{
	if (!codes || number <= 0)
		return ret_err(PAPI_EINVAL);
	for (int i = 0; i < number; i++) {
		int r = PAPI_add_event(id, codes[i]);

		if (r)	/* PAPI: how many went in, as a positive count */
			return i ? i : r;
	}
	return PAPI_OK;
}

HWPROF_API int PAPI_add_named_event(int id, const char *name)
{
	int code, r;

	if (!init_level)
		return ret_err(PAPI_ENOINIT);
	if (!name)
		return ret_err(PAPI_EINVAL);
	r = PAPI_event_name_to_code(name, &code);
	return r ? r : PAPI_add_event(id, code);
}

static void unprofile(struct pevent *e)
{
	hwprof_hist_free(e->hist);
	e->hist = NULL;
	e->threshold = 0;
	e->flags = 0;
}

HWPROF_API int PAPI_remove_event(int id, int code)
{
	struct pset *s;
	int ret = PAPI_OK, i;

	pthread_mutex_lock(&plock);
	ret = stopped(id, &s);
	if (!ret && (i = index_of(s, code)) < 0)
		ret = PAPI_EINVAL;
	else if (!ret) {
		unprofile(&s->ev[i]);
		memmove(&s->ev[i], &s->ev[i + 1], (size_t)(s->nev - i - 1) * sizeof(s->ev[0]));
		memmove(&s->saved[i], &s->saved[i + 1], (size_t)(s->nev - i - 1) * sizeof(s->saved[0]));
		s->nev--;
	}
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

HWPROF_API int PAPI_num_events(int id)
{
	struct pset *s = set_of(id);

	return s ? s->nev : ret_err(PAPI_ENOEVST);
}

HWPROF_API int PAPI_state(int id, int *status)
{
	struct pset *s = set_of(id);

	if (!status)
		return ret_err(PAPI_EINVAL);
	if (!s)
		return ret_err(PAPI_ENOEVST);
	*status = s->state;
	return PAPI_OK;
}

HWPROF_API int PAPI_cleanup_eventset(int id)
{
	struct pset *s;
	int ret = PAPI_OK;

	pthread_mutex_lock(&plock);
	ret = stopped(id, &s);
	if (!ret) {
		for (int i = 0; i < s->nev; i++)
			unprofile(&s->ev[i]);
		s->nev = 0;
		s->state = PAPI_STOPPED;
	}
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

HWPROF_API int PAPI_destroy_eventset(int *id)
{
	struct pset *s;
	int ret = PAPI_OK;

	if (!id)
		return ret_err(PAPI_EINVAL);
	pthread_mutex_lock(&plock);
	ret = stopped(*id, &s);
	if (!ret && s->nev)
		ret = PAPI_EINVAL;	/* PAPI: clean it up first */
	else if (!ret) {
		s->used = 0;
		*id = PAPI_NULL;
	}
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

/* ------------------------------------------------------------------ */
/* FORCE_SW: a CPU-time timer of the thread reads the counters          */

static void sw_tick(int sig, siginfo_t *si, void *ctx)
{
	struct pset *s = sw_set;
	int saved = errno;

	(void)sig;
	(void)si;
	if (s && (s->state & PAPI_RUNNING)) {
#if defined(__x86_64__)
		uint64_t pc = (uint64_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
		uint64_t pc = (uint64_t)((ucontext_t *)ctx)->uc_mcontext.pc;
#else
		uint64_t pc = 0;	/* no pc: FORCE_SW samples land outside */
#endif

		for (int i = 0; i < s->nev; i++) {
			struct pevent *e = &s->ev[i];
			uint64_t v, excess;
			int thr = e->threshold && (e->flags & PAPI_PROFIL_FORCE_SW) ? e->threshold :
				  e->handler && (e->ov_flags & PAPI_OVERFLOW_FORCE_SW) ? e->ov_threshold : 0;

			if (!thr || hwp_perf_read(e->fd, &v, 1) || (long long)v < e->deadline)
				continue;
			/* at most one sample a tick, as PAPI's emulation */
			excess = v - (uint64_t)e->deadline;
			e->deadline = (long long)v + thr;
			if (e->hist && e->threshold)
				hwprof_hist_fold(e->hist, &pc, &excess, 1, NULL);
			if (e->handler && (e->ov_flags & PAPI_OVERFLOW_FORCE_SW))
				e->handler(s->id, (void *)(uintptr_t)pc, 1LL << i, ctx);
		}
	}
	errno = saved;
}

static int sw_start(struct pset *s)
{
	struct sigaction sa = { .sa_sigaction = sw_tick, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SW_SIGNAL };
	struct itimerspec its = { .it_interval = { 0, SW_TICK_NS }, .it_value = { 0, SW_TICK_NS } };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SW_SIGNAL, &sa, NULL))
		return PAPI_ESYS;
	sev._sigev_un._tid = hwp_gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &s->timer))
		return PAPI_ESYS;
	for (int i = 0; i < s->nev; i++)
		s->ev[i].deadline = s->ev[i].threshold ? s->ev[i].threshold : s->ev[i].ov_threshold;
	sw_set = s;
	s->sw = 1;
	timer_settime(s->timer, 0, &its, NULL);
	return PAPI_OK;
}

static void sw_stop(struct pset *s)
{
	if (!s->sw)
		return;
	timer_delete(s->timer);
	s->sw = 0;
	if (sw_set == s)
		sw_set = NULL;
}

/* ------------------------------------------------------------------ */
/* Counting and sampling                                                */

/* PAPI_overflow's handler, called from the drain with each sample. */
struct ov_arg {
	int set;
	int index;
	PAPI_overflow_handler_t fn;
};

static struct ov_arg ov_args[MAX_SETS][MAX_EVENTS];

static size_t ov_sink(void *arg, const uint64_t *ips, size_t n)
{
	const struct ov_arg *a = arg;

	for (size_t i = 0; i < n; i++)
		a->fn(a->set, (void *)(uintptr_t)ips[i], 1LL << a->index, NULL);
	return n;
}

static void close_fds(struct pset *s)
{
	for (int i = 0; i < s->nev; i++) {
		if (s->ev[i].fd >= 0)
			close(s->ev[i].fd);
		s->ev[i].fd = -1;
	}
}

HWPROF_API int PAPI_start(int id)
{
	struct pset *s;
	int ret = PAPI_OK, need_session = 0, need_sw = 0;

	pthread_mutex_lock(&plock);
	s = set_of(id);
	if (!s) {
		ret = PAPI_ENOEVST;
		goto out;
	}
	if (s->state & PAPI_RUNNING) {
		ret = PAPI_EISRUN;
		goto out;
	}
	if (!s->nev) {
		ret = PAPI_EINVAL;
		goto out;
	}
	for (int i = 0; i < s->nev; i++) {
		struct pevent *e = &s->ev[i];
		struct hwp_event ev;

		if (hwp_event_resolve(e->name, &ev, NULL, 0)) {
			ret = PAPI_ENOEVNT;
			break;
		}
		ev.attr.sample_period = 0;
		ev.attr.sample_type = 0;
		ev.attr.disabled = 1;
		ev.attr.exclude_kernel = 1;
		ev.attr.exclude_hv = 1;
		e->fd = hwp_perf_open(&ev.attr, 0, -1, -1);
		if (e->fd < 0) {
			ret = e->fd == -EACCES || e->fd == -EPERM ? PAPI_EPERM : PAPI_ECNFLCT;
			e->fd = -1;
			break;
		}
		if ((e->threshold && !(e->flags & PAPI_PROFIL_FORCE_SW)) ||
		    (e->handler && !(e->ov_flags & PAPI_OVERFLOW_FORCE_SW)))
			need_session = 1;
		if ((e->threshold && (e->flags & PAPI_PROFIL_FORCE_SW)) ||
		    (e->handler && (e->ov_flags & PAPI_OVERFLOW_FORCE_SW)))
			need_sw = 1;
	}
	if (!ret && need_session) {
		struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_THREAD };

		ret = hwprof_session_new(&o, &s->s) ? PAPI_ENOMEM : PAPI_OK;
		for (int i = 0; !ret && i < s->nev; i++) {
			struct pevent *e = &s->ev[i];
			int r = 0;

			if (e->threshold && !(e->flags & PAPI_PROFIL_FORCE_SW))
				r = hwprof_session_add(s->s, e->name, (uint64_t)e->threshold, e->hist);
			if (r >= 0 && e->handler && !(e->ov_flags & PAPI_OVERFLOW_FORCE_SW)) {
				struct ov_arg *a = &ov_args[id][i];

				*a = (struct ov_arg){ id, i, e->handler };
				r = hwp_session_add(s->s, e->name, (uint64_t)e->ov_threshold, NULL,
						    ov_sink, a);
			}
			if (r < 0)
				ret = PAPI_ECNFLCT;
		}
		if (!ret && hwprof_session_start(s->s))
			ret = PAPI_ECNFLCT;
	}
	if (!ret) {
		for (int i = 0; i < s->nev; i++) {
			hwp_perf_ioctl(s->ev[i].fd, PERF_EVENT_IOC_RESET, 0);
			hwp_perf_ioctl(s->ev[i].fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		if (need_sw)
			ret = sw_start(s);
	}
	if (ret) {		/* nothing stays open */
		hwprof_session_free(s->s);
		s->s = NULL;
		close_fds(s);
		goto out;
	}
	s->tid = hwp_gettid();
	s->state = PAPI_RUNNING | (need_session || need_sw ? PAPI_PROFILING : 0);
out:
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

static int read_locked(struct pset *s, long long *values)
{
	for (int i = 0; i < s->nev; i++) {
		uint64_t v = 0;

		if (s->state & PAPI_RUNNING) {
			if (hwp_perf_read(s->ev[i].fd, &v, 1))
				return PAPI_ESYS;
			values[i] = (long long)v;
		} else {
			values[i] = s->saved[i];
		}
	}
	return PAPI_OK;
}

HWPROF_API int PAPI_read(int id, long long *values)
{
	struct pset *s;
	int ret;

	if (!values)
		return ret_err(PAPI_EINVAL);
	pthread_mutex_lock(&plock);
	s = set_of(id);
	ret = s ? read_locked(s, values) : PAPI_ENOEVST;
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

HWPROF_API int PAPI_stop(int id, long long *values)
{
	struct pset *s;
	int ret = PAPI_OK;

	pthread_mutex_lock(&plock);
	s = set_of(id);
	if (!s) {
		ret = PAPI_ENOEVST;
		goto out;
	}
	if (!(s->state & PAPI_RUNNING)) {
		ret = PAPI_ENOTRUN;
		goto out;
	}
	sw_stop(s);
	for (int i = 0; i < s->nev; i++)
		hwp_perf_ioctl(s->ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	read_locked(s, s->saved);
	if (values)
		memcpy(values, s->saved, (size_t)s->nev * sizeof(*values));
	hwprof_session_free(s->s);	/* drains: the buffers are exact */
	s->s = NULL;
	close_fds(s);
	s->state = PAPI_STOPPED;
out:
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

HWPROF_API int PAPI_reset(int id)
{
	struct pset *s;

	pthread_mutex_lock(&plock);
	s = set_of(id);
	if (s) {
		for (int i = 0; i < s->nev; i++) {
			if (s->state & PAPI_RUNNING)
				hwp_perf_ioctl(s->ev[i].fd, PERF_EVENT_IOC_RESET, 0);
			s->saved[i] = 0;
			s->ev[i].deadline = s->ev[i].threshold ? s->ev[i].threshold :
					    s->ev[i].ov_threshold;
		}
	}
	pthread_mutex_unlock(&plock);
	return s ? PAPI_OK : ret_err(PAPI_ENOEVST);
}

HWPROF_API int PAPI_accum(int id, long long *values)
{
	long long v[MAX_EVENTS];
	struct pset *s;
	int ret;

	if (!values)
		return ret_err(PAPI_EINVAL);
	pthread_mutex_lock(&plock);
	s = set_of(id);
	ret = s ? read_locked(s, v) : PAPI_ENOEVST;
	if (!ret) {
		for (int i = 0; i < s->nev; i++) {
			values[i] += v[i];
			if (s->state & PAPI_RUNNING)
				hwp_perf_ioctl(s->ev[i].fd, PERF_EVENT_IOC_RESET, 0);
			s->saved[i] = 0;
		}
	}
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

/* ------------------------------------------------------------------ */
/* Profiling                                                            */

HWPROF_API int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int id, int code,
			    int threshold, int flags)
{
	const int known = PAPI_PROFIL_POSIX | PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED |
			  PAPI_PROFIL_COMPRESS | PAPI_PROFIL_BUCKETS | PAPI_PROFIL_FORCE_SW |
			  PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR;
	struct hwprof_region reg[64], *r = reg;
	struct hwprof_hist_opts o = { .sz = sizeof(o), .index = HWPROF_INDEX_PAPI,
		.flags = HWPROF_HIST_SORT | HWPROF_HIST_OVERLAP | HWPROF_HIST_PARTIAL };
	struct hwprof_hist *h = NULL;
	struct pevent *e;
	struct pset *s;
	int ret = PAPI_OK, i, nprof = 0, buckets, width;

	pthread_mutex_lock(&plock);
	ret = stopped(id, &s);			/* 1, 2 */
	if (ret)
		goto out;
	i = index_of(s, code);
	if (i < 0) {				/* 5 */
		ret = PAPI_ENOEVNT;
		goto out;
	}
	e = &s->ev[i];
	if (!prof)				/* 7 */
		profcnt = 0;
	for (int k = 0; k < profcnt; k++) {	/* 8 */
		unsigned sc = prof[k].pr_scale;

		if (sc != 0x20000 && (sc < 2 || sc > 0x10000)) {
			ret = PAPI_EINVAL;
			goto out;
		}
	}
	if (threshold < 0) {			/* 9 */
		ret = PAPI_EINVAL;
		goto out;
	}
	if (!threshold) {			/* 10, 12: turn off */
		if (!e->threshold)
			ret = PAPI_EINVAL;
		else
			unprofile(e);
		goto out;
	}
	for (int k = 0; k < s->nev; k++)
		nprof += s->ev[k].threshold && k != i;
	if (nprof >= MAX_PROF) {		/* 11 */
		ret = PAPI_ECNFLCT;
		goto out;
	}
	for (int k = 0; k < s->nev; k++)	/* 13 */
		if (k != i && s->ev[k].threshold &&
		    (s->ev[k].flags & PAPI_PROFIL_FORCE_SW) != (flags & PAPI_PROFIL_FORCE_SW)) {
			ret = PAPI_ECNFLCT;
			goto out;
		}
	if (flags & ~known) {			/* 15 */
		ret = PAPI_EINVAL;
		goto out;
	}
	buckets = flags & PAPI_PROFIL_BUCKETS;	/* 16 */
	if (!buckets)
		flags |= buckets = PAPI_PROFIL_BUCKET_16;
	if (buckets & (buckets - 1)) {
		ret = PAPI_EINVAL;
		goto out;
	}
	if (flags & (PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR)) {	/* 18 */
		ret = PAPI_ENOSUPP;
		goto out;
	}
	if (!profcnt) {
		ret = PAPI_EINVAL;	/* PAPI would dereference NULL at the first sample */
		goto out;
	}
	width = buckets == PAPI_PROFIL_BUCKET_64 ? 64 : buckets == PAPI_PROFIL_BUCKET_32 ? 32 : 16;
	if (profcnt > 64 && !(r = calloc((size_t)profcnt, sizeof(*r)))) {
		ret = PAPI_ENOMEM;
		goto out;
	}
	for (int k = 0; k < profcnt; k++)
		r[k] = (struct hwprof_region){
			.base = prof[k].pr_base, .size = prof[k].pr_size,
			.offset = (uint64_t)(uintptr_t)prof[k].pr_off,
			.scale = prof[k].pr_scale, .width = (uint32_t)width,
		};
	o.regions = r;
	o.nregions = (size_t)profcnt;
	o.fold = (unsigned int)(flags & (PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED |
					 PAPI_PROFIL_COMPRESS));
	o.threshold = (uint64_t)threshold;
	if (hwprof_hist_new(&o, &h))
		ret = PAPI_EINVAL;
	if (r != reg)
		free(r);
	if (ret)
		goto out;
	/* all checked: only now does the EventSet change */
	hwprof_hist_free(e->hist);
	e->hist = h;
	e->threshold = threshold;
	e->flags = flags;
out:
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

HWPROF_API int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset, unsigned scale,
			   int id, int code, int threshold, int flags)
{
	PAPI_sprofil_t one = { buf, bufsiz, offset, scale };
	struct pset *s;
	int i;

	if (threshold <= 0)	/* PAPI: a negative threshold turns off too */
		return PAPI_sprofil(NULL, 0, id, code, 0, flags);
	pthread_mutex_lock(&plock);
	s = set_of(id);
	i = s ? index_of(s, code) : -1;
	pthread_mutex_unlock(&plock);
	if (!s)
		return ret_err(PAPI_ENOEVST);
	if (i < 0)
		return ret_err(PAPI_ENOEVNT);
	return PAPI_sprofil(&one, 1, id, code, threshold, flags);
}

HWPROF_API int PAPI_overflow(int id, int code, int threshold, int flags,
			     PAPI_overflow_handler_t handler)
{
	struct pevent *e;
	struct pset *s;
	int ret, i;

	pthread_mutex_lock(&plock);
	ret = stopped(id, &s);
	if (ret)
		goto out;
	i = index_of(s, code);
	if (i < 0) {
		ret = PAPI_ENOEVNT;
		goto out;
	}
	e = &s->ev[i];
	if (threshold < 0 || (threshold && !handler) ||
	    (flags & ~(PAPI_OVERFLOW_FORCE_SW | PAPI_OVERFLOW_HARDWARE))) {
		ret = PAPI_EINVAL;
	} else if (!threshold) {	/* off: only what is on */
		ret = e->handler ? PAPI_OK : PAPI_EINVAL;
		e->handler = NULL;
		e->ov_threshold = 0;
	} else {
		e->handler = handler;
		e->ov_threshold = threshold;
		e->ov_flags = flags;
	}
out:
	pthread_mutex_unlock(&plock);
	return ret_err(ret);
}

/* ------------------------------------------------------------------ */
/* The rest                                                             */

HWPROF_API void PAPI_shutdown(void)
{
	for (int i = 0; i < MAX_SETS; i++) {
		int id = i;

		if (!sets[i].used)
			continue;
		PAPI_stop(i, NULL);
		PAPI_cleanup_eventset(i);
		PAPI_destroy_eventset(&id);
	}
	pthread_mutex_lock(&plock);
	for (int i = 0; i < nnative; i++)
		free(natives[i]);
	nnative = 0;
	init_level = 0;
	pthread_mutex_unlock(&plock);
}

HWPROF_API int PAPI_get_opt(int option, PAPI_option_t *ptr)
{
	if (!init_level)
		return ret_err(PAPI_ENOINIT);
	switch (option) {
	case PAPI_MAX_HWCTRS:
		return MAX_PROF;
	case PAPI_EXEINFO:
		if (!ptr)
			return ret_err(PAPI_EINVAL);
		ptr->exe_info = &exe;
		return PAPI_OK;
	default:
		return ret_err(PAPI_ENOSUPP);
	}
}

HWPROF_API const PAPI_exe_info_t *PAPI_get_executable_info(void)
{
	return init_level && exe.fullname[0] ? &exe : NULL;
}

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

HWPROF_API long long PAPI_get_real_nsec(void)
{
	return clock_ns(CLOCK_REALTIME);
}

HWPROF_API long long PAPI_get_real_usec(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000;
}

HWPROF_API long long PAPI_get_real_cyc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (long long)(((uint64_t)hi << 32) | lo);
#else
	return clock_ns(CLOCK_MONOTONIC);
#endif
}

HWPROF_API long long PAPI_get_virt_usec(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1000;
}

static char *const errstr[] = {
	"No error", "Invalid argument", "Insufficient memory",
	"A System/C library call failed", "Not supported by component",
	"Access to the counters was lost or interrupted",
	"Internal error, please send mail to the developers", "Event does not exist",
	"Event exists, but cannot be counted due to hardware resource limits",
	"EventSet is currently not running", "EventSet is currently counting",
	"No such EventSet available", "Event in argument is not a valid preset",
	"Hardware does not support performance counters", "Unknown error code",
	"Permission level does not permit operation", "PAPI hasn't been initialized yet",
	"Component Index isn't set", "Not supported", "Not implemented",
	"Buffer size exceeded", "EventSet domain is not supported for the operation",
	"Invalid or missing event attributes", "Too many events or attributes",
	"Bad combination of features", "Component containing event is disabled",
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
