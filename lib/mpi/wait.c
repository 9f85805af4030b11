/* SPDX-License-Identifier: MIT */
/*
 * libhwprof-mpi's wall clock (libhwprof-mpi(7), "Time in MPI"): the MPI
 * calls a rank spends its time in, wrapped in C and in Fortran (mpif.h,
 * the mpi and mpi_f08 modules) and timed on CLOCK_MONOTONIC, per call
 * site: the wrapper's return address, which is the caller's. A call made
 * inside another timed call (an MPI library calling its own MPI_ entry
 * points) is part of the outer one and is not counted again.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <hwprof.h>
#include "../hist/sat.h"
#include "hwpmpi.h"

const char *const hwp_mpi_call_names[HWP_MPI_NCALLS] = {
#define X(C, l, U, N) "MPI_" #C,
	HWP_MPI_CALLS(X)
#undef X
};

#define SITES 4096 /* call sites a rank keeps (a power of 2) */
/* (a fixed table, not lib/hist/htab.h: an MPI call never allocates) */

struct wsite {
	uintptr_t ret; /* 0: a free slot */
	uint32_t fn;
	uint64_t n, tot, min, max;
};

static struct {
	pthread_mutex_t lock;
	int on; /* read without the lock: a call starting
		 * as it changes is timed or not */
	struct wsite tab[SITES];
	struct wsite over[HWP_MPI_NCALLS]; /* calls of sites past SITES */
	size_t nsites;
	uint64_t t0, paused_at, paused_ns, app_ns;
	uint64_t mpi_ns, calls;
} w = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread int depth; /* timed calls this thread is inside */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hwp_wait_start(void)
{
	pthread_mutex_lock(&w.lock);
	if (!w.t0) {
		w.t0 = now_ns();
		__atomic_store_n(&w.on, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&w.lock);
}

void hwp_wait_pause(int paused)
{
	pthread_mutex_lock(&w.lock);
	if (w.t0 && !w.app_ns) {
		if (paused && !w.paused_at) {
			w.paused_at = now_ns();
			__atomic_store_n(&w.on, 0, __ATOMIC_RELAXED);
		} else if (!paused && w.paused_at) {
			w.paused_ns += now_ns() - w.paused_at;
			w.paused_at = 0;
			__atomic_store_n(&w.on, 1, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&w.lock);
}

void hwp_wait_stop(void)
{
	uint64_t t = now_ns();

	pthread_mutex_lock(&w.lock);
	__atomic_store_n(&w.on, 0, __ATOMIC_RELAXED);
	if (w.t0 && !w.app_ns) {
		if (w.paused_at)
			w.paused_ns += t - w.paused_at;
		w.paused_at = 0;
		w.app_ns = t - w.t0 - w.paused_ns;
		if (!w.app_ns)
			w.app_ns = 1;
	}
	pthread_mutex_unlock(&w.lock);
}

void hwp_wait_totals(uint64_t *app_ns, uint64_t *mpi_ns, uint64_t *calls)
{
	pthread_mutex_lock(&w.lock);
	*app_ns = w.app_ns;
	*mpi_ns = w.mpi_ns;
	*calls = w.calls;
	pthread_mutex_unlock(&w.lock);
}

size_t hwp_wait_sites(struct hwp_wait_site *out, size_t cap)
{
	size_t n = 0;

	pthread_mutex_lock(&w.lock);
	for (size_t i = 0; i < SITES + HWP_MPI_NCALLS && n < cap; i++) {
		const struct wsite *s = i < SITES ? &w.tab[i] : &w.over[i - SITES];

		if (s->n)
			out[n++] = (struct hwp_wait_site){ s->ret, s->fn,  s->n,
							   s->tot, s->min, s->max };
	}
	pthread_mutex_unlock(&w.lock);
	return n;
}

static void add(struct wsite *s, uint64_t dt)
{
	if (!s->n || dt < s->min)
		s->min = dt;
	if (dt > s->max)
		s->max = dt;
	s->n++;
	s->tot = hwp_add_sat(s->tot, dt);
}

static void record(uint32_t fn, uintptr_t ret, uint64_t dt)
{
	size_t h = (size_t)((ret ^ fn) * 0x9e3779b97f4a7c15ull >> 40) & (SITES - 1);
	struct wsite *s = NULL;

	pthread_mutex_lock(&w.lock);
	w.calls++;
	w.mpi_ns = hwp_add_sat(w.mpi_ns, dt);
	for (size_t i = 0; i < SITES; i++, h = (h + 1) & (SITES - 1)) {
		struct wsite *x = &w.tab[h];

		if (x->ret == ret && x->fn == fn && x->n) {
			s = x;
			break;
		}
		if (!x->n) {
			/* a table three quarters full takes no more sites */
			if (w.nsites < SITES / 4 * 3) {
				s = x;
				s->ret = ret;
				s->fn = fn;
				w.nsites++;
			}
			break;
		}
	}
	if (!s) {
		s = &w.over[fn];
		s->fn = fn;
	}
	add(s, dt);
	pthread_mutex_unlock(&w.lock);
}

/* The start of a timed call: its time, or 0 when it is not timed. */
static inline uint64_t tbegin(void)
{
	if (depth++ || !__atomic_load_n(&w.on, __ATOMIC_RELAXED))
		return 0;
	return now_ns();
}

static inline void tend(uint64_t t0, uint32_t fn, void *ret)
{
	depth--;
	if (t0)
		record(fn, (uintptr_t)ret, now_ns() - t0);
}

/* ------------------------------------------------------------------ */
/* C                                                                    */

#define C_WRAP(N, PARAMS, ARGS)                                   \
	HWPROF_API int MPI_##N PARAMS                             \
	{                                                         \
		uint64_t t0 = tbegin();                           \
		int r = PMPI_##N ARGS;                            \
                                                                  \
		tend(t0, HWP_C_##N, __builtin_return_address(0)); \
		return r;                                         \
	}

#define P_SEND \
	(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
#define A_SEND (buf, count, type, dest, tag, comm)
C_WRAP(Send, P_SEND, A_SEND)
C_WRAP(Ssend, P_SEND, A_SEND)
C_WRAP(Bsend, P_SEND, A_SEND)
C_WRAP(Rsend, P_SEND, A_SEND)
C_WRAP(Recv,
       (void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
	MPI_Status *st),
       (buf, count, type, src, tag, comm, st))
C_WRAP(Sendrecv,
       (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
	int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st),
       (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st))
C_WRAP(Sendrecv_replace,
       (void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
	MPI_Comm comm, MPI_Status *st),
       (buf, count, type, dest, stag, src, rtag, comm, st))
C_WRAP(Isend,
       (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
	MPI_Request *req),
       (buf, count, type, dest, tag, comm, req))
C_WRAP(Irecv,
       (void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
	MPI_Request *req),
       (buf, count, type, src, tag, comm, req))
C_WRAP(Wait, (MPI_Request * req, MPI_Status *st), (req, st))
C_WRAP(Waitall, (int count, MPI_Request reqs[], MPI_Status *sts), (count, reqs, sts))
C_WRAP(Waitany, (int count, MPI_Request reqs[], int *index, MPI_Status *st),
       (count, reqs, index, st))
C_WRAP(Waitsome,
       (int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[]),
       (incount, reqs, outcount, indices, sts))
C_WRAP(Test, (MPI_Request * req, int *flag, MPI_Status *st), (req, flag, st))
C_WRAP(Testall, (int count, MPI_Request reqs[], int *flag, MPI_Status sts[]),
       (count, reqs, flag, sts))
C_WRAP(Testany, (int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *st),
       (count, reqs, index, flag, st))
C_WRAP(Testsome,
       (int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[]),
       (incount, reqs, outcount, indices, sts))
C_WRAP(Probe, (int src, int tag, MPI_Comm comm, MPI_Status *st), (src, tag, comm, st))
C_WRAP(Iprobe, (int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st),
       (src, tag, comm, flag, st))
C_WRAP(Start, (MPI_Request * req), (req))
C_WRAP(Startall, (int count, MPI_Request reqs[]), (count, reqs))
C_WRAP(Barrier, (MPI_Comm comm), (comm))
C_WRAP(Bcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm),
       (buf, count, type, root, comm))
C_WRAP(Reduce,
       (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
	MPI_Comm comm),
       (sbuf, rbuf, count, type, op, root, comm))
#define P_RED \
	(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
#define A_RED (sbuf, rbuf, count, type, op, comm)
C_WRAP(Allreduce, P_RED, A_RED)
C_WRAP(Reduce_scatter_block, P_RED, A_RED)
C_WRAP(Scan, P_RED, A_RED)
C_WRAP(Exscan, P_RED, A_RED)
C_WRAP(Reduce_scatter,
       (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
	MPI_Comm comm),
       (sbuf, rbuf, rcounts, type, op, comm))
#define P_ROOTED                                                                   \
	(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
	 MPI_Datatype rtype, int root, MPI_Comm comm)
#define A_ROOTED (sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
C_WRAP(Gather, P_ROOTED, A_ROOTED)
C_WRAP(Scatter, P_ROOTED, A_ROOTED)
C_WRAP(Gatherv,
       (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
	const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm),
       (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm))
C_WRAP(Scatterv,
       (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
	void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
       (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm))
#define P_ALL                                                                      \
	(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
	 MPI_Datatype rtype, MPI_Comm comm)
#define A_ALL (sbuf, scount, stype, rbuf, rcount, rtype, comm)
C_WRAP(Allgather, P_ALL, A_ALL)
C_WRAP(Alltoall, P_ALL, A_ALL)
C_WRAP(Allgatherv,
       (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
	const int displs[], MPI_Datatype rtype, MPI_Comm comm),
       (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
C_WRAP(Alltoallv,
       (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
	void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
	MPI_Comm comm),
       (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
C_WRAP(Alltoallw,
       (const void *sbuf, const int scounts[], const int sdispls[],
	const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[],
	const MPI_Datatype rtypes[], MPI_Comm comm),
       (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm))

/* ------------------------------------------------------------------ */
/* Fortran                                                              */

/*
 * Every argument of a Fortran MPI call is an address (the error argument
 * last, NULL where mpi_f08's OPTIONAL one is absent), so a wrapper of N
 * arguments passes them on as they came to the library's PMPI entry of
 * the same name.
 */
#define FP2  void *a1, void *a2
#define FP3  FP2, void *a3
#define FP4  FP3, void *a4
#define FP5  FP4, void *a5
#define FP6  FP5, void *a6
#define FP7  FP6, void *a7
#define FP8  FP7, void *a8
#define FP9  FP8, void *a9
#define FP10 FP9, void *a10
#define FP11 FP10, void *a11
#define FP12 FP11, void *a12
#define FP13 FP12, void *a13
#define FA2  a1, a2
#define FA3  FA2, a3
#define FA4  FA3, a4
#define FA5  FA4, a5
#define FA6  FA5, a6
#define FA7  FA6, a7
#define FA8  FA7, a8
#define FA9  FA8, a9
#define FA10 FA9, a10
#define FA11 FA10, a11
#define FA12 FA11, a12
#define FA13 FA12, a13

/* The MPI library's Fortran PMPI entry point, cached in *slot; NULL after
 * saying so once. */
static void *f_lookup(const char *name, void **slot)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f)
		__atomic_store_n(slot, f, __ATOMIC_RELAXED);
	else
		fprintf(stderr, "hwprof-mpi: %s: not in the MPI library\n", name);
	return f;
}

#define F_TIMED(NAME, PNAME, ID, N)                                 \
	HWPROF_API void NAME(FP##N);                                \
	HWPROF_API void NAME(FP##N)                                 \
	{                                                           \
		static void *real;                                  \
		void *f = __atomic_load_n(&real, __ATOMIC_RELAXED); \
		uint64_t t0;                                        \
                                                                    \
		if (!f && !(f = f_lookup(PNAME, &real))) {          \
			if (a##N)                                   \
				*(MPI_Fint *)a##N = MPI_ERR_OTHER;  \
			return;                                     \
		}                                                   \
		t0 = tbegin();                                      \
		((void (*)(FP##N))f)(FA##N);                        \
		tend(t0, ID, __builtin_return_address(0));          \
	}

/* mpif.h and the mpi module in each compiler's spelling; mpi_f08 */
#define F_ALL(low, UP, C, N)                          \
	F_TIMED(low##_, "p" #low "_", HWP_C_##C, N)   \
	F_TIMED(low##__, "p" #low "__", HWP_C_##C, N) \
	F_TIMED(low, "p" #low, HWP_C_##C, N)          \
	F_TIMED(UP, "P" #UP, HWP_C_##C, N)            \
	F_TIMED(low##_f08_, "p" #low "_f08_", HWP_C_##C, N)

#define X(C, l, U, N) F_ALL(mpi_##l, MPI_##U, C, N)
HWP_MPI_CALLS(X)
#undef X
