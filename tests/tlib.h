/* SPDX-License-Identifier: MIT */
/*
 * What the end-to-end tests share: the functions they profile (compiled
 * into each test program, so mem:NAME:x finds them), pools of fresh pages
 * for exact page-fault profiles, and raw probes that decide a SKIP without
 * going through hwprof.
 */
#ifndef HWPROF_TEST_TLIB_H
#define HWPROF_TEST_TLIB_H

#include <stddef.h>
#include <stdint.h>

/* Breakpoint targets: tiny, never inlined or merged. */
void fn_a(void);
void fn_b(void);
void call_n(void (*f)(void), int n);

/* CPU-bound loops; each call really runs (a compiler barrier keeps GCC
 * from reusing an earlier call's result). */
uint64_t spin_hot(uint64_t n);
uint64_t spin_cold(uint64_t n);

/* One store: one page fault on a fresh page, inside the function, at the
 * one storing instruction (t_store_pc()). Not instrumented by a sanitizer,
 * whose shadow accesses would fault too. */
void touch_a(volatile char *p);
void touch_b(volatile char *p);
void touch_pages(volatile char *p, size_t k, size_t psz);

/*
 * A pool of anonymous pages, MADV_NOHUGEPAGE (no THP of any size: one
 * fault per 4 KiB page). t_page() hands out the next fresh page; after the
 * last one it zaps the whole pool with MADV_DONTNEED, so pages fault again
 * and a small pool serves any number of "calls". The zap is a syscall:
 * it makes no page fault in user space.
 */
struct t_pages {
	char *base;
	size_t n, psz, next;
};

int t_pages_new(struct t_pages *tp, size_t n); /* T_PASS or T_ERROR */
char *t_page(struct t_pages *tp);
void t_pages_zap(struct t_pages *tp); /* every page fresh again */
void t_pages_free(struct t_pages *tp);

/* n calls of touch, each on a fresh page of tp: exactly n faults, all at
 * touch's store. */
void t_touch_n(void (*touch)(volatile char *), struct t_pages *tp, size_t n);

/* Faults in this thread's stack pages below the caller (256 KiB), so a
 * deeper call made while profiling does not fault. */
void t_prefault_stack(void);

/*
 * A raw page-fault counter on this thread (no hwprof): opened disabled,
 * t_faults_start() zeroes and enables it, t_faults_stop() disables it and
 * returns the count. -1 on any failure.
 */
int t_faults_open(void);
void t_faults_start(int fd);
long long t_faults_stop(int fd);

/* perf_event fds open in this process. */
int t_count_tasks(void);
char *t_fresh(size_t n);
int t_count_perf_fds(void);

/* Run as root, re-runs this test program with argv[1] as nobody
 * (setpriv, with a user's RLIMIT_NOFILE 1024/4096, or
 * HWPROF_TEST_NOFILE_HARD for both, and RLIMIT_MEMLOCK 8 MiB; the uid
 * is T_NOBODY_UID where that is set, another unprivileged one) and returns
 * its status; as another user returns -1 (go on here). */
int t_as_nobody(char **argv);

/* Raw probes (no hwprof): T_PASS, or T_SKIP with the reason printed, or
 * T_ERROR for an errno that says nothing about the machine. */
int t_require(uint32_t type, uint64_t config, const char *what);

/* Page-fault sampling, probed by sampling one fault of touch_a. */
int t_require_pf(void);

/*
 * Execute breakpoints that fire: a counting breakpoint on fn_a must count
 * exactly one call. One that opens but counts 0 (a hypervisor that does
 * not deliver debug exceptions) is a SKIP, as is HWPROF_TEST_BP_BROKEN=1
 * in the environment (the test-only switch that forces this path).
 */
int t_require_bp(void);

/* Where touch's store is: the pc of the one page-fault sample that a call
 * of touch on a fresh page gives, taken by a raw perf_event ring. 0 if it
 * cannot be found (the caller fails). */
uint64_t t_store_pc(void (*touch)(volatile char *));

/* Built with a sanitizer, whose runtime may fault in its shadow memory on
 * the test's thread at any time: a count of page faults is then a lower
 * bound, and the plain and clang builds check it exactly. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define T_SANITIZED 1
#endif
#endif
#ifndef T_SANITIZED
#define T_SANITIZED 0
#endif
/* Equal, or at least b under a sanitizer (see above). */
#define T_FAULTS(a, b)                                                             \
	T_CHECK(T_SANITIZED ? (unsigned long long)(a) >= (unsigned long long)(b) : \
			      (unsigned long long)(a) == (unsigned long long)(b),  \
		"%llu, want %llu", (unsigned long long)(a), (unsigned long long)(b))
/* The faults a sanitizer's runtime added to a loop that should have made
 * exactly `made`: 0 in the plain and clang builds, where T_FAULTS(n, made)
 * has already checked n == made. */
#define T_EXTRA(n, made)                                     \
	(T_SANITIZED && (long long)(n) > (long long)(made) ? \
		 (long long)(n) - (long long)(made) :        \
		 0LL)
/* A sample count within `extra` of `want`: each fault the sanitizer added
 * to the loop shifts the threshold's phase by one event, so it moves at
 * most one sample into or out of a bucket (exact when extra is 0). */
#define T_NEAR(got, want, extra, fmt, ...)                                       \
	T_CHECK((long long)(got) >= (long long)(want) - (extra) &&               \
			(long long)(got) <= (long long)(want) + (extra),         \
		fmt ": %lld, want %lld (+-%lld)", __VA_ARGS__, (long long)(got), \
		(long long)(want), (long long)(extra))

#endif /* HWPROF_TEST_TLIB_H */
