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

enum { HWP_MPI_ADDR = 1, HWP_MPI_FUNC = 2 };

/*
 * One key of a profile: an object (by hwp_mpi_objhash()) and an ELF address,
 * either a sample's 8-byte bucket (HWP_MPI_ADDR: only sum is used) or a
 * function's start (HWP_MPI_FUNC: the spread over the ranks). Sent as bytes:
 * every rank of a job runs on one kind of machine.
 */
struct hwp_mpi_ent {
	uint64_t obj;		/* 0: no object (addr 0) */
	uint64_t addr;
	uint64_t sum, min, max;
	uint32_t kind;
	int32_t maxrank;	/* the lowest rank with max */
	uint32_t ranks;		/* ranks with a nonzero count */
	uint32_t pad;
};

/* An object as ranks name it to each other: its hash, build-id, path and
 * size. */
struct hwp_mpi_obj {
	uint64_t hash;
	char *bid;		/* or NULL */
	char *path;
	uint64_t size;		/* the file's size in bytes, 0 when unknown */
};

/* A profile: what one rank has, or what a subtree of ranks reduced to. */
struct hwp_mpi_prof {
	struct hwp_mpi_obj *objs;
	size_t nobjs;
	struct hwp_mpi_ent *ents;	/* sorted by (kind, obj, addr), keys unique */
	size_t nents;
};

/* FNV-1a of "b" + build-id, else "p" + path + size: the same object on
 * every rank, wherever it was loaded (a file without a build-id is its
 * path's file of that size, as hwprof report merges them). */
uint64_t hwp_mpi_objhash(const char *bid, const char *path, uint64_t size);

/* Sorts p's entries and folds equal keys (a rank's own: counts added). */
void hwp_mpi_sort(struct hwp_mpi_prof *p);
void hwp_mpi_free(struct hwp_mpi_prof *p);
/* The entry with this key, or NULL. */
const struct hwp_mpi_ent *hwp_mpi_find(const struct hwp_mpi_prof *p, uint32_t kind, uint64_t obj,
				 uint64_t addr);

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
