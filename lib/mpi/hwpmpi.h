/* SPDX-License-Identifier: MIT */
/*
 * libhwprof-mpi (libhwprof-mpi(7)) inside: one rank's profile as a sorted
 * list of entries, and their reduction over the ranks with MPI.
 */
#ifndef HWPROF_MPI_HWPMPI_H
#define HWPROF_MPI_HWPMPI_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* HWP_MPI_SITE + call: a call site of that MPI call (wait.c);
 * HWP_MPI_NODE: a node of the call paths (HWPROF_MPI_PATHS) */
enum {
	HWP_MPI_ADDR = 1,
	HWP_MPI_FUNC = 2,
	HWP_MPI_NODE = 8,
	HWP_MPI_SITE = 16
};

/*
 * The MPI calls libhwprof-mpi times (wait.c, libhwprof-mpi(7) "Time in
 * MPI"): X(C name without MPI_, Fortran name, in capitals, Fortran
 * arguments with the error argument).
 */
#define HWP_MPI_CALLS(X)                                                       \
	X(Send, send, SEND, 7)                                                 \
	X(Ssend, ssend, SSEND, 7)                                              \
	X(Bsend, bsend, BSEND, 7)                                              \
	X(Rsend, rsend, RSEND, 7)                                              \
	X(Recv, recv, RECV, 8)                                                 \
	X(Sendrecv, sendrecv, SENDRECV, 13)                                    \
	X(Sendrecv_replace, sendrecv_replace, SENDRECV_REPLACE, 10)            \
	X(Isend, isend, ISEND, 8)                                              \
	X(Irecv, irecv, IRECV, 8)                                              \
	X(Wait, wait, WAIT, 3)                                                 \
	X(Waitall, waitall, WAITALL, 4)                                        \
	X(Waitany, waitany, WAITANY, 5)                                        \
	X(Waitsome, waitsome, WAITSOME, 6)                                     \
	X(Test, test, TEST, 4)                                                 \
	X(Testall, testall, TESTALL, 5)                                        \
	X(Testany, testany, TESTANY, 6)                                        \
	X(Testsome, testsome, TESTSOME, 6)                                     \
	X(Probe, probe, PROBE, 5)                                              \
	X(Iprobe, iprobe, IPROBE, 6)                                           \
	X(Start, start, START, 2)                                              \
	X(Startall, startall, STARTALL, 3)                                     \
	X(Barrier, barrier, BARRIER, 2)                                        \
	X(Bcast, bcast, BCAST, 6)                                              \
	X(Reduce, reduce, REDUCE, 8)                                           \
	X(Allreduce, allreduce, ALLREDUCE, 7)                                  \
	X(Reduce_scatter_block, reduce_scatter_block, REDUCE_SCATTER_BLOCK, 7) \
	X(Scan, scan, SCAN, 7)                                                 \
	X(Exscan, exscan, EXSCAN, 7)                                           \
	X(Reduce_scatter, reduce_scatter, REDUCE_SCATTER, 7)                   \
	X(Gather, gather, GATHER, 9)                                           \
	X(Scatter, scatter, SCATTER, 9)                                        \
	X(Gatherv, gatherv, GATHERV, 10)                                       \
	X(Scatterv, scatterv, SCATTERV, 10)                                    \
	X(Allgather, allgather, ALLGATHER, 8)                                  \
	X(Alltoall, alltoall, ALLTOALL, 8)                                     \
	X(Allgatherv, allgatherv, ALLGATHERV, 9)                               \
	X(Alltoallv, alltoallv, ALLTOALLV, 10)                                 \
	X(Alltoallw, alltoallw, ALLTOALLW, 10)

enum {
#define X(C, l, U, N) HWP_C_##C,
	HWP_MPI_CALLS(X)
#undef X
	HWP_MPI_NCALLS
};

/* "MPI_Send"... by call */
extern const char *const hwp_mpi_call_names[HWP_MPI_NCALLS];

/* One call site of one rank: calls and their nanoseconds. */
struct hwp_wait_site {
	uintptr_t ret; /* the caller's return address; 0: the calls
			* of sites past the table's room */
	uint32_t fn;   /* HWP_C_... */
	uint64_t n, tot, min, max;
};

/* The clock starts (after MPI_Init), pauses (MPI_Pcontrol(0)), goes on
 * and stops (at MPI_Finalize, before the reduction). */
void hwp_wait_start(void);
void hwp_wait_pause(int paused);
void hwp_wait_stop(void);
/* After hwp_wait_stop(): MPI_Init to MPI_Finalize less the pauses, the
 * time in timed calls, their number. */
void hwp_wait_totals(uint64_t *app_ns, uint64_t *mpi_ns, uint64_t *calls);
/* This rank's sites into out (at most cap); their number. */
size_t hwp_wait_sites(struct hwp_wait_site *out, size_t cap);
#define HWP_WAIT_MAXSITES (4096 + HWP_MPI_NCALLS)

/*
 * One key of a profile: an object (by hwp_mpi_objhash()) and an ELF address,
 * either a sample's 8-byte bucket (HWP_MPI_ADDR: only sum is used) or a
 * function's start (HWP_MPI_FUNC: the spread over the ranks). Sent as bytes:
 * every rank of a job runs on one kind of machine.
 *
 * A node of the call paths (HWP_MPI_NODE) is keyed by its path instead:
 * obj is hwp_mpi_nodehash() of the frames from the outermost one to it,
 * addr the frame's ELF address (its pc where no object holds it), sum the
 * samples whose path ends there, min the frame's object (hwp_mpi_objhash(),
 * 0: none) and max its parent's path hash (0: a root). Equal keys are one
 * path, so only sum adds when they meet.
 */
struct hwp_mpi_ent {
	uint64_t obj; /* 0: no object (addr 0) */
	uint64_t addr;
	uint64_t sum, min, max;
	uint32_t kind;
	int32_t maxrank; /* the lowest rank with max */
	uint32_t ranks;	 /* ranks with a nonzero count */
	uint32_t pad;
};

/* An object as ranks name it to each other: its hash, build-id, path and
 * size. */
struct hwp_mpi_obj {
	uint64_t hash;
	char *bid; /* or NULL */
	char *path;
	uint64_t size; /* the file's size in bytes, 0 when unknown */
};

/* A profile: what one rank has, or what a subtree of ranks reduced to. */
struct hwp_mpi_prof {
	struct hwp_mpi_obj *objs;
	size_t nobjs;
	struct hwp_mpi_ent *ents; /* sorted by (kind, obj, addr), keys unique */
	size_t nents;
};

/* FNV-1a of "b" + build-id, else "p" + path + size: the same object on
 * every rank, wherever it was loaded (a file without a build-id is its
 * path's file of that size, as hwprof report merges them). */
uint64_t hwp_mpi_objhash(const char *bid, const char *path, uint64_t size);

/* The path hash of a frame (object hash, address) under the parent's path
 * hash (0: a root); never 0. */
uint64_t hwp_mpi_nodehash(uint64_t parent, uint64_t obj, uint64_t addr);

/* Sorts p's entries and folds equal keys (a rank's own: counts added). */
void hwp_mpi_sort(struct hwp_mpi_prof *p);
void hwp_mpi_free(struct hwp_mpi_prof *p);
/* The entry with this key, or NULL. */
const struct hwp_mpi_ent *hwp_mpi_find(const struct hwp_mpi_prof *p, uint32_t kind,
				       uint64_t obj, uint64_t addr);

/*
 * Reduces every rank's p into rank 0's over a binomial tree: ceil(log2 P)
 * rounds, each message one subtree's union of keys. On rank 0, p becomes
 * the job's; elsewhere it is left empty. bad: this rank has nothing
 * trustworthy to send (it still takes its part). 0, or -1 when the result
 * is not the job's (out of memory or an MPI error somewhere below); every
 * rank has then still taken its part, and no rank waits for another.
 */
int hwp_mpi_reduce(MPI_Comm comm, struct hwp_mpi_prof *p, int bad);

#endif
