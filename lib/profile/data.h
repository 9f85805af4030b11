/* SPDX-License-Identifier: MIT */
/*
 * The data file of hwprof record (hwprof-data(5)) in memory: what record
 * builds and writes, what report reads (versions 1 and 2) and merges.
 * Strings are owned by the struct; hd_free() releases everything.
 */
#ifndef HWPROF_PROFILE_DATA_H
#define HWPROF_PROFILE_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../hist/cct.h"
#include "../hist/htab.h"
#include "../hist/sat.h"

#define HD_VERSION 4 /* the version hd_write() writes */

struct hd_event {
	char *name;
	uint64_t period;    /* the period the kernel applied */
	uint64_t samples;   /* sample records read */
	uint64_t lost;	    /* samples the kernel dropped */
	uint64_t throttled; /* times the kernel throttled the event */
	uint64_t missed;    /* threads that could not be covered */
	char *missed_why;   /* a short reason when missed > 0, else NULL */
	/* call paths (version 4, hwprof record -g): */
	int callgraph;	  /* HD_CG_NONE, HD_CG_FP or HD_CG_DWARF */
	uint64_t chains;  /* samples that came with a call path */
	uint64_t cut;	  /* of them, cut short (the kernel's depth limit,
			   * a stack copy too small, an unwind that failed) */
	uint64_t dropped; /* frames dropped from the paths: they cannot
			   * be code (0, or not mapped executable at the
			   * sample's time) */
	/* the event's own count at the end (version 4 "count" line, hwprof
	 * record): HD_COUNT_NONE when unknown */
	int count_scope;	   /* HD_COUNT_USER: what was sampled (user space);
				    * HD_COUNT_ALL: the kernel's share included
				    * (task-clock, cpu-clock) */
	uint64_t count;		   /* summed over every fd of the event */
	uint64_t enabled, running; /* PERF_FORMAT_TOTAL_TIME_*, summed (ns) */
};

enum {
	HD_COUNT_NONE,
	HD_COUNT_USER,
	HD_COUNT_ALL
};

/*
 * The share of event e's count that its samples do not hold: 1 - (samples
 * + lost) x period / (count x enabled / running), at least 0. total gets
 * the scaled count, held the samples' part of it. 0 when known; -1 when it
 * cannot be said (no count line, no single period, a count of 0).
 */
int hd_unsampled(const struct hd_event *e, double *share, double *total, double *held);

enum {
	HD_CG_NONE,
	HD_CG_FP,
	HD_CG_DWARF
};

enum hd_how {
	HD_RUNNING = 0, /* not seen to end (attached, or still running) */
	HD_EXITED,	/* status: its exit code */
	HD_SIGNALED,	/* status: the signal that ended it */
	HD_ENDED,	/* seen to end; its status unknown (a process
			 * hwprof record did not start itself) */
	HD_UNSEEN,	/* its end was not seen: gone when the recording
			 * ended without an exit record (the kernel
			 * dropped it), or its state cannot be known */
};

struct hd_process {
	int pid, ppid; /* ppid 0: the first process of the run */
	int rank;      /* MPI rank, -1 when none */
	char *host;    /* NULL: the file's host */
	char *command; /* its command line, arguments space-separated */
	enum hd_how how;
	int status;
};

struct hd_thread {
	int tid;
	uint32_t proc; /* index into procs */
	char *comm;    /* the kernel's name of the thread, or NULL */
};

struct hd_object {
	char *path;	/* absolute path, or a [name] for the vDSO and such */
	char *buildid;	/* GNU build-id in hex, or NULL when unknown */
	uint64_t size;	/* the file's size in bytes, 0 when unknown */
	int kept;	/* its names were kept at recording (version 4) */
	char *kept_why; /* and what was wrong then, or NULL */
};

#define HD_NO_OBJECT UINT32_MAX
#define HD_NO_THREAD UINT32_MAX /* a job file's sample: summed over ranks */

struct hd_sample {
	uint32_t event;	 /* index into events */
	uint32_t thread; /* index into threads */
	uint32_t object; /* index into objects, or HD_NO_OBJECT */
	uint64_t addr;	 /* ELF virtual address in the object; the pc
			  * itself when object is HD_NO_OBJECT */
	uint64_t count;
};

/*
 * Call paths (version 4) as a calling-context tree: a node is one frame
 * under its caller's node, so a path is stored once however many samples
 * take it, and a file grows with the program's distinct paths, not with
 * the run's length.
 */
#define HD_NO_NODE HWP_CCT_ROOT

#define HD_MAX_DEPTH 1024 /* frames of a path at most */

/* struct hwp_cct_node (lib/hist/cct.h): parent, an index into cct.node or
 * HD_NO_NODE (the outermost frame); object, an index into objects or
 * HD_NO_OBJECT; depth, frames from the outermost one (1 for a root);
 * addr, an ELF address as in samples: the sampled pc where a path ends
 * here, the return address where it goes on to a callee. */

struct hd_path { /* samples whose call path ends at node */
	uint32_t event;
	uint32_t thread; /* index into threads (HD_NO_THREAD: job file) */
	uint32_t node;	 /* the path's innermost frame */
	uint64_t count;
};

/*
 * Names kept at recording (version 4, hwprof-data(5) "Names"): for every
 * object that was sampled, the functions and source lines of its sampled
 * addresses as the object had them then, so that a report names them
 * rightly after a rebuild, an uninstall or on another machine.
 */
/* Strings kept once each, by hash: the data file's source names, pprof's
 * string table. */
struct hd_strs {
	char **s;
	size_t n;
	struct hwp_htab index; /* of s, by hash */
};

/* The index of s in t, added (copied) when new; -1 when out of memory. */
long hd_str_id(struct hd_strs *t, const char *s);
void hd_strs_free(struct hd_strs *t);

struct hd_name { /* a function that holds a sampled address */
	uint32_t object;
	uint64_t lo, hi; /* ELF addresses [lo, hi) */
	char *name;	 /* raw (mangled) */
};

struct hd_line { /* the source of one sampled address */
	uint32_t object;
	uint32_t src; /* index into srcs */
	uint64_t addr;
	int line;
	char *func; /* innermost function (inlined or not, raw), or NULL */
};

/*
 * A job file (libhwprof-mpi(7)): the ranks of one MPI job reduced into one
 * file. Its processes are the ranks, its samples are summed over them
 * (thread HD_NO_THREAD), and the spread over the ranks is kept per
 * function: every function's sum, min, max and the rank of the max, and
 * for the job's top functions the count of each rank.
 */
struct hd_func {
	uint32_t event;
	uint32_t object;	/* index into objects, or HD_NO_OBJECT */
	uint64_t addr;		/* ELF address of the function's start (of
				 * the sample's bucket where no symbol covers it) */
	uint64_t sum, min, max; /* over the ranks; min 0 when a rank had none */
	int maxrank;		/* the lowest rank with max */
	uint32_t ranks;		/* ranks with a nonzero count */
};

struct hd_fcount {     /* one rank's count of a top function */
	uint32_t func; /* index into funcs */
	uint32_t proc; /* index into procs: the rank */
	uint64_t count;
};

struct hd_rtotal {     /* one rank's samples of an event */
	uint32_t proc; /* index into procs: the rank */
	uint32_t event;
	uint64_t samples; /* folded into its profile */
	uint64_t mpi;	  /* of them, in MPI objects (hd_object_is_mpi()) */
};

struct hd_ttotal {	 /* one thread's samples of an event (job file) */
	uint32_t thread; /* index into threads: a rank's thread, or its
			  * threads not kept (tid 0) */
	uint32_t event;
	uint64_t samples; /* sample records of the thread */
};

/*
 * A job file's wall clock in MPI (version 4, libhwprof-mpi(7) "Time in
 * MPI"), in nanoseconds: each rank's totals, the call sites kept, and
 * each rank's calls at a site.
 */
struct hd_mrank {
	uint32_t proc;	 /* index into procs: the rank */
	uint64_t app_ns; /* MPI_Init to MPI_Finalize, less MPI_Pcontrol(0)
			  * pauses; above 0 */
	uint64_t mpi_ns; /* in the timed MPI calls, every thread's */
	uint64_t calls;	 /* the timed calls */
};

struct hd_msite {	 /* a call site: one call of an MPI function */
	uint32_t object; /* index into objects, or HD_NO_OBJECT */
	uint64_t addr;	 /* ELF address of the return address (0 with
			  * no object: the calls of sites not kept) */
	char *call;	 /* "MPI_Barrier"... */
};

struct hd_msrank {			 /* one rank's calls at one site */
	uint32_t site;			 /* index into msites */
	uint32_t proc;			 /* index into procs: the rank */
	uint64_t calls, total, min, max; /* calls >= 1, min <= max <= total */
};

struct hd_file {
	int version;	       /* of the file read; HD_VERSION when built */
	char *host;	       /* where it was recorded, or NULL */
	int rank, size;	       /* MPI rank and world size, -1 when none */
	int job;	       /* 1: an MPI job file (size: its ranks) */
	uint32_t top;	       /* job file: functions with per-rank counts */
	char *command;	       /* the command hwprof record ran */
	char *program;	       /* the program's executable, or NULL */
	char *program_id;      /* its build-id in hex, or NULL */
	uint64_t program_size; /* its size in bytes, 0 when unknown */
	uint64_t side_lost;    /* side-band records (mmap, comm, fork, exit)
				* the kernel dropped (version 4) */
	int checkpoint;	       /* written while the recording ran: partial */
	struct hd_event *events;
	size_t nevents;
	struct hd_process *procs;
	size_t nprocs;
	struct hd_thread *threads;
	size_t nthreads;
	struct hd_object *objects;
	size_t nobjects;
	struct hd_sample *samples;
	size_t nsamples;
	struct hd_func *funcs; /* job file only */
	size_t nfuncs;
	struct hd_fcount *fcounts;
	size_t nfcounts;
	struct hd_rtotal *rtotals;
	size_t nrtotals;
	struct hd_ttotal *ttotals; /* version 4 job file: per thread */
	size_t nttotals;
	struct hd_mrank *mranks; /* version 4 job file: time in MPI */
	size_t nmranks;
	struct hd_msite *msites;
	size_t nmsites;
	struct hd_msrank *msranks;
	size_t nmsranks;
	struct hwp_cct cct; /* nodes: cct.node, cct.n, parents first */
	struct hd_path *paths;
	size_t npaths;
	struct hd_name *names; /* kept names (version 4) */
	size_t nnames;
	struct hd_line *lines;
	size_t nlines;
	struct hd_strs srcs; /* source file names of lines */
	/* private: the indexes that hd_count() and hd_count_path() keep */
	struct hwp_htab index;
	struct hwp_htab pindex;
};

/* An empty file: version HD_VERSION, rank and size -1. */
void hd_init(struct hd_file *d);
void hd_free(struct hd_file *d);

/*
 * Reads a data file of version 1 to 4. Returns 0, or -1 after writing one
 * line saying what is wrong (with the file name) into err.
 */
int hd_read(const char *path, struct hd_file *d, char *err, size_t len);

/* Writes d as version HD_VERSION when it holds call paths, else as 3
 * (which has every other line); returns 0 or -errno. */
int hd_write(FILE *f, const struct hd_file *d);

/* Appends one entry; returns its index, or -1 when out of memory. The
 * strings are copied (NULL stays NULL). */
long hd_add_event(struct hd_file *d, const char *name, uint64_t period);
long hd_add_process(struct hd_file *d, int pid, int ppid, const char *command);
long hd_add_thread(struct hd_file *d, int tid, uint32_t proc, const char *comm);
/*
 * Finds the object with this path, build-id and size (0: unknown), or adds
 * it. An object with a build-id is that build-id's; one without is its
 * path's file of that size, a size of 0 matching any (a version 1 or 2
 * file's, which has none) and taking the first known one.
 */
long hd_object(struct hd_file *d, const char *path, const char *buildid, uint64_t size);

/* Makes room for element n of an array *pp of n elements of sz bytes
 * (capacity 8, then doubling at each power of two). 0 or -1. */
int hd_grow(void *pp, size_t n, size_t sz);

/* Appends a job file's entries; 0 or -1 when out of memory. */
int hd_add_func(struct hd_file *d, const struct hd_func *f);
int hd_add_fcount(struct hd_file *d, uint32_t func, uint32_t proc, uint64_t count);
int hd_add_rtotal(struct hd_file *d, const struct hd_rtotal *t);
int hd_add_ttotal(struct hd_file *d, const struct hd_ttotal *t);
int hd_add_mrank(struct hd_file *d, const struct hd_mrank *m);
int hd_add_msrank(struct hd_file *d, const struct hd_msrank *m);
/* Appends a call site (call copied): its index, or -1. */
long hd_add_msite(struct hd_file *d, uint32_t object, uint64_t addr, const char *call);

/*
 * 1 when the object is part of an MPI implementation or its transport
 * (Open MPI, MPICH, PMIx, UCX, libfabric...), by its file name; the rule is
 * written in hwprof(1) under "Time in MPI".
 */
int hd_object_is_mpi(const char *path);

/* Adds n samples at (event, thread, object, addr), merging with an equal
 * key already there (hashed: linear in the number of calls). 0 or -1.
 * thread is HD_NO_THREAD only in a job file. */
int hd_count(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t object,
	     uint64_t addr, uint64_t n);
/* hd_count() that returns the key's index in samples (stable while d
 * only grows: a caller may add to its count there), or -1. */
long hd_count_at(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t object,
		 uint64_t addr, uint64_t n);

/*
 * Appends n samples whose keys (event, thread, object, addr) are in d
 * neither twice nor already (the threads of another file, in a merge),
 * without looking them up. This drops the index hd_count() keeps: call
 * hd_reindex() before hd_count() on d again. 0 or -1 (out of memory).
 */
int hd_add_samples(struct hd_file *d, const struct hd_sample *s, size_t n);
/* Rebuilds the index of hd_count(); 0 or -1. */
int hd_reindex(struct hd_file *d);

/* The node (parent, object, addr), added when new: its index, or -1 (out
 * of memory, or more nodes than an index holds), or -2 (deeper than
 * HD_MAX_DEPTH frames). parent is HD_NO_NODE or an earlier node. */
long hd_node(struct hd_file *d, uint32_t parent, uint32_t object, uint64_t addr);
/* Adds n samples whose call path ends at node, merging with an equal key
 * (event, thread, node). 0 or -1. */
int hd_count_path(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t node,
		  uint64_t n);
/* The same, returning the key's index in paths (stable while d only
 * grows), or -1. */
long hd_count_path_at(struct hd_file *d, uint32_t event, uint32_t thread, uint32_t node,
		      uint64_t n);
/* The frames of node's path, innermost first, into out (at most cap);
 * returns the path's depth (which may exceed cap). */
size_t hd_path_frames(const struct hd_file *d, uint32_t node, uint32_t *out, size_t cap);

/* Kept names: appends one (strings copied); the source file's index in
 * d->srcs, added when new. -1 when out of memory. */
int hd_add_name(struct hd_file *d, uint32_t object, uint64_t lo, uint64_t hi,
		const char *name);
int hd_add_line(struct hd_file *d, uint32_t object, uint32_t src, uint64_t addr, int line,
		const char *func);
long hd_src(struct hd_file *d, const char *path);
/* Forgets every kept name (the objects then named from their files). */
void hd_drop_names(struct hd_file *d);

/* Writes s with \\, \n, \t, \r and other control bytes (and, when token is
 * set, spaces) escaped, so it fits on one line (or in one field). */
void hd_put_escaped(FILE *f, const char *s, int token);

#endif
