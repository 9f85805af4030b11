/* SPDX-License-Identifier: MIT */
/*
 * What the end-to-end tests share: the functions they profile (compiled
 * into each test program, so mem:NAME:x finds them) and raw probes that
 * decide a SKIP without going through hwprof.
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

/* One store: one page fault on a fresh page, inside the function. */
void touch_a(volatile char *p);
void touch_b(volatile char *p);
void touch_pages(volatile char *p, size_t k, size_t psz);

/* perf_event fds open in this process. */
int t_count_perf_fds(void);

/* Raw probes (no hwprof): T_PASS, or T_SKIP with the reason printed, or
 * T_ERROR for an errno that says nothing about the machine. */
int t_require(uint32_t type, uint64_t config, const char *what);
int t_require_bp(void);

#endif /* HWPROF_TEST_TLIB_H */
