/* SPDX-License-Identifier: MIT */
/*
 * hwprof: program-counter histograms from perf_event samples.
 * The native API. Every call is described in its own man page; hwprof(7)
 * is the overview.
 */
#ifndef HWPROF_H
#define HWPROF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HWPROF_API
#define HWPROF_API __attribute__((visibility("default")))
#endif

/* The release these headers come from (hwprof(7), VERSIONS); the newest
 * node of the library's symbol versions is HWPROF_<MAJOR>.<MINOR>. */
#define HWPROF_VERSION_MAJOR 0
#define HWPROF_VERSION_MINOR 3
#define HWPROF_VERSION_PATCH 0

/* ------------------------------------------------------------------ */
/* The histogram core: regions of text folded into the caller's buckets */

/* How a pc becomes a bucket index, d = pc - offset (see hwprof_hist_new(3)). */
enum hwprof_index {
	HWPROF_INDEX_PAPI = 1,	  /* (d * scale) >> 17, any bucket width */
	HWPROF_INDEX_PROFIL = 2,  /* ((d / 2) * scale) >> 16 (glibc profil) */
	HWPROF_INDEX_SPROFIL = 3, /* ((d / E) * scale) >> 16, E = bucket bytes */
};

/* Fold modes (the values of PAPI_PROFIL_*). */
#define HWPROF_FOLD_POSIX    0x0u /* add 1 (or the sample's weight) */
#define HWPROF_FOLD_RANDOM   0x1u /* drop 1 sample in 4, PAPI's LCG */
#define HWPROF_FOLD_WEIGHTED 0x2u /* add 1..255 from the overflow excess */
#define HWPROF_FOLD_COMPRESS 0x4u /* keep with probability 1 - bucket/65536 */

/* Region-table policies; without them each case is an error. */
#define HWPROF_HIST_SORT     (1u << 0) /* regions may come in any order */
#define HWPROF_HIST_OVERLAP  (1u << 1) /* regions may overlap */
#define HWPROF_HIST_PARTIAL  (1u << 2) /* size need not be a bucket multiple */
#define HWPROF_HIST_SKIP_OFF (1u << 3) /* scale 0 or 1: region is ignored */

/* First state of the RANDOM/COMPRESS generator, as PAPI seeds it. */
#define HWPROF_LCG_SEED 0x0dedbeefu

/* The most regions one histogram takes. */
#define HWPROF_HIST_MAX_REGIONS (1u << 20)

/* One text range mapped onto a buffer of the caller's. A region with
 * offset 0 and scale 2 is the overflow bin: its first bucket counts every
 * pc that falls in no other region, wherever it stands in the table. */
struct hwprof_region {
	void *base;	 /* the buckets; written only by the fold */
	size_t size;	 /* bytes at base */
	uint64_t offset; /* lowest pc of the range */
	uint32_t scale;	 /* 16.16 fixed point, see the index formula */
	uint32_t width;	 /* bucket width in bits: 16, 32 or 64 */
};

struct hwprof_hist_opts {
	size_t sz;			     /* sizeof(struct hwprof_hist_opts) */
	const struct hwprof_region *regions; /* copied; caller keeps it */
	size_t nregions;
	unsigned int index; /* enum hwprof_index */
	unsigned int fold;  /* HWPROF_FOLD_* bits */
	unsigned int flags; /* HWPROF_HIST_* policies */
	uint64_t threshold; /* events per sample, for WEIGHTED */
};

struct hwprof_hist_stats {
	size_t sz;	    /* sizeof(struct hwprof_hist_stats) */
	uint64_t samples;   /* pcs given to the fold */
	uint64_t folded;    /* reached a bucket (the overflow bin included) */
	uint64_t outside;   /* in no region, and no overflow bin */
	uint64_t saturated; /* folded into a full bucket: increment clipped */
	uint64_t dropped;   /* dropped by RANDOM, or after a buffer fault */
	uint64_t refused;   /* refused by COMPRESS */
};

/* What is wrong with a region table (hwprof_hist_check()). */
enum hwprof_hist_fault {
	HWPROF_HIST_OK = 0,
	HWPROF_HIST_EOPTS,	/* bad sz, index, fold bits or flags */
	HWPROF_HIST_ETHRESHOLD, /* WEIGHTED without a threshold */
	HWPROF_HIST_ETOOMANY,	/* more than HWPROF_HIST_MAX_REGIONS */
	HWPROF_HIST_EWIDTH,	/* width not 16, 32 or 64 */
	HWPROF_HIST_ESCALE,	/* scale outside the formula's range */
	HWPROF_HIST_EZEROSIZE,	/* size 0 */
	HWPROF_HIST_EBASE,	/* NULL base, or base + size wraps */
	HWPROF_HIST_EPARTIAL,	/* size not a multiple of the bucket */
	HWPROF_HIST_EBIG,	/* more than 2^46 buckets */
	HWPROF_HIST_EUNSORTED,	/* offset below the previous region's */
	HWPROF_HIST_EOVERLAP,	/* text range overlaps the previous one */
	HWPROF_HIST_EBIN,	/* a second overflow bin */
};

struct hwprof_hist;

/* Checks a region table; returns HWPROF_HIST_OK or the first fault, and
 * sets *where (if not NULL) to the index of the region at fault. */
HWPROF_API int hwprof_hist_check(const struct hwprof_hist_opts *opts, size_t *where);

/* A short English phrase for a fault code; never NULL. */
HWPROF_API const char *hwprof_hist_strfault(int fault);

/* Compiles a region table. Returns 0 and sets *out, or -EINVAL (see
 * hwprof_hist_check()), -E2BIG or -ENOMEM. Free with hwprof_hist_free(). */
HWPROF_API int hwprof_hist_new(const struct hwprof_hist_opts *opts, struct hwprof_hist **out);

/* Frees a histogram (NULL is fine). The caller's buffers are untouched. */
HWPROF_API void hwprof_hist_free(struct hwprof_hist *h);

/* Folds n pcs into the buckets. weights (or NULL) gives each sample's
 * increment, or its overflow excess under WEIGHTED. lcg (or NULL: the
 * histogram's own) is the RANDOM/COMPRESS state of this sample stream.
 * Returns the number of samples that reached a bucket. No allocation, lock
 * or syscall; one caller at a time per histogram. */
HWPROF_API size_t hwprof_hist_fold(struct hwprof_hist *h, const uint64_t *ips,
				   const uint64_t *weights, size_t n, uint32_t *lcg);

/* Where pc would be folded: returns 1 and the caller's region index and
 * bucket, 2 for the overflow bin (bucket 0), 0 for outside. */
HWPROF_API int hwprof_hist_locate(const struct hwprof_hist *h, uint64_t pc, size_t *region,
				  uint64_t *bucket);

/* Copies the counters into *st (st->sz set by the caller); returns 0 or
 * -EINVAL. */
HWPROF_API int hwprof_hist_stats(const struct hwprof_hist *h, struct hwprof_hist_stats *st);

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */

#define HWPROF_LOG_ERR	 3
#define HWPROF_LOG_WARN	 4
#define HWPROF_LOG_INFO	 6
#define HWPROF_LOG_DEBUG 7

typedef void (*hwprof_log_fn)(int level, const char *msg, void *arg);

/* Sends messages up to level to fn (NULL: nowhere, the default). */
HWPROF_API void hwprof_set_log(hwprof_log_fn fn, void *arg, int level);

/* ------------------------------------------------------------------ */
/* Events                                                               */

/* Checks that an event name resolves and can be sampled by this thread:
 * 0, -ENOENT (no such event), -EOPNOTSUPP (this machine cannot sample it),
 * -EACCES (perf_event_paranoid forbids it) or another -errno; why (if not
 * NULL) receives one line saying why. */
HWPROF_API int hwprof_event_probe(const char *name, char *why, size_t len);

/* The i-th PAPI preset hwprof knows: 0, or -ENOENT past the last. */
HWPROF_API int hwprof_preset_info(unsigned int i, const char **name, unsigned int *code,
				  const char **desc);

/* ------------------------------------------------------------------ */
/* Sampling sessions                                                    */

#define HWPROF_SESSION_THREAD  0u /* the thread that starts it */
#define HWPROF_SESSION_PROCESS 1u /* every thread, present and future */

/* Session flags */
#define HWPROF_SESSION_NO_WAKEUP (1u << 0) /* drain on the interval only */
#define HWPROF_SESSION_CALLCHAIN (1u << 1) /* keep each sample's call path */

struct hwprof_session_opts {
	size_t sz;		 /* sizeof(struct hwprof_session_opts) */
	unsigned int mode;	 /* HWPROF_SESSION_THREAD or _PROCESS */
	unsigned int ring_pages; /* data pages per ring, power of 2; 0: 16
				  * (64 with CALLCHAIN; 256 shared) */
	unsigned int drain_ms;	 /* longest wait between drains; 0: 100 */
	unsigned int flags;	 /* HWPROF_SESSION_NO_WAKEUP */
};

struct hwprof_session_stats {
	size_t sz;	     /* sizeof(struct hwprof_session_stats) */
	uint64_t samples;    /* sample records read from the rings */
	uint64_t lost;	     /* samples the kernel dropped (ring full) */
	uint64_t throttled;  /* times the kernel throttled the event */
	uint64_t folded;     /* samples that reached a bucket */
	uint64_t outside;    /* samples in no region */
	uint64_t saturated;  /* samples whose bucket was full */
	uint64_t period;     /* the threshold the kernel applies */
	uint32_t precise;    /* precise_ip level in use (hardware events) */
	uint32_t threads;    /* threads covered so far */
	uint32_t missed;     /* threads that could not be covered */
	int32_t missed_err;  /* why the first of them: -EPERM locked memory,
			      * -EMFILE open files, or another -errno */
	uint32_t ring_pages; /* data pages of a ring now (a thread's or a CPU's) */
	/* HWPROF_SESSION_CALLCHAIN (0.3): */
	uint64_t paths;	    /* samples whose call path is kept */
	uint64_t paths_cut; /* of them, cut short (see hwprof_session_paths()) */
};

/* One loaded object's executable range and its buckets (see
 * hwprof_session_objects()). */
struct hwprof_object {
	const char *path;	/* "" for the main program's name unknown */
	uint64_t base;		/* load bias (dlpi_addr) */
	uint64_t start, end;	/* run-time text range [start, end) */
	const uint32_t *counts; /* one bucket per HWPROF_OBJECT_BYTES */
	size_t nbuckets;
	int loaded; /* 0 once dlclose'd: counts kept */
};

#define HWPROF_OBJECT_BYTES 8 /* bytes of text per object bucket */

struct hwprof_session;

HWPROF_API int hwprof_session_new(const struct hwprof_session_opts *opts,
				  struct hwprof_session **out);

/* Adds an event sampled every threshold events (0: its default) folded
 * into h, or into per-object buckets the session owns when h is NULL.
 * Returns the event's index, or -errno (see hwprof_event_probe()). */
HWPROF_API int hwprof_session_add(struct hwprof_session *s, const char *event,
				  uint64_t threshold, struct hwprof_hist *h);

HWPROF_API int hwprof_session_start(struct hwprof_session *s);
HWPROF_API int hwprof_session_stop(struct hwprof_session *s);

/* Drains every ring now; returns the samples folded, or -errno. */
HWPROF_API int hwprof_session_read(struct hwprof_session *s);

/* Drops samples not yet folded, zeroes the statistics and the buckets the
 * session owns (never the caller's). */
HWPROF_API int hwprof_session_reset(struct hwprof_session *s);

HWPROF_API int hwprof_session_stats(struct hwprof_session *s, int event,
				    struct hwprof_session_stats *st);

/* The per-object buckets of an event added with h NULL; borrowed until the
 * next call on the session. */
HWPROF_API int hwprof_session_objects(struct hwprof_session *s, int event,
				      const struct hwprof_object **objs, size_t *n);

/* One frame of a calling-context tree (hwprof_session_paths()). */
#define HWPROF_NO_NODE UINT32_MAX

struct hwprof_path_node {
	uint32_t parent;  /* the caller's node, or HWPROF_NO_NODE: outermost */
	uint32_t depth;	  /* frames from the outermost one: 1 for a root */
	uint64_t pc;	  /* the sampled pc where a path ends here, else
			   * the return address into this frame */
	uint64_t samples; /* samples whose path ends at this node */
};

/* The call paths of an event of a session made with
 * HWPROF_SESSION_CALLCHAIN, parents before children; borrowed until the
 * next call on the session. 0, -EINVAL or -ENOENT (no paths kept). */
HWPROF_API int hwprof_session_paths(struct hwprof_session *s, int event,
				    const struct hwprof_path_node **nodes, size_t *n);

/* Stops if running and frees everything (NULL is fine). */
HWPROF_API void hwprof_session_free(struct hwprof_session *s);

#ifdef __cplusplus
}
#endif

#endif /* HWPROF_H */
