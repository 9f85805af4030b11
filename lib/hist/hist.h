/* SPDX-License-Identifier: MIT */
/*
 * lib/hist: the histogram core (hist.c, saturating counts in sat.h), the
 * checks and guarded writes it makes into caller memory (usermem.c,
 * guard.c) and the library's log (log.c). It knows nothing of perf or of
 * the engine. Private to hwprof; never installed.
 */
#ifndef HWPROF_HIST_PRIV_H
#define HWPROF_HIST_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof.h"

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The largest options struct (sz) the library looks at. */
#define HWP_OPTS_MAX 4096

/* usermem.c: caller memory that may be bad, checked before it is touched */
int hwp_user_read(void *dst, const void *src, size_t len);
int hwp_user_writable(const void *p, size_t len);
int hwp_user_writable_all(void *const *p, const size_t *len, size_t n);
int hwp_user_opts_ok(const void *opts, size_t have, size_t know);

/* log.c: messages to the user's callback. Between hwp_log_hold() and
 * hwp_log_release() (a lock is held) they wait, and are sent on release. */
void hwp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hwp_log_hold(void);
void hwp_log_release(void);

/* guard.c: writes into caller buffers that may have gone (see there) */
typedef int (*hwp_owns_fn)(const void *ctx, uintptr_t addr);
int hwp_guard_arm(void);
int hwp_guard_run(void (*fn)(void *), void *arg, hwp_owns_fn owns, const void *ctx,
		  uintptr_t *addr);
int hwp_guard_write(void (*fn)(void *), void *arg, hwp_owns_fn owns, const void *ctx,
		    void *base, size_t len, uintptr_t *addr);
void hwp_guard_say(const char *api, const char *what, uintptr_t addr, int in_handler);

/* hist.c: a histogram whose caller buffers faulted is turned off */
void hwp_hist_set_api(struct hwprof_hist *h, const char *api);
const char *hwp_hist_api(const struct hwprof_hist *h);
int hwp_hist_owns(const void *h, uintptr_t addr);
void hwp_hist_describe(const struct hwprof_hist *h, uintptr_t addr, char *buf, size_t len);
int hwp_hist_writable(const struct hwprof_hist *h);
void hwp_hist_turn_off(struct hwprof_hist *h);
int hwp_hist_is_off(const struct hwprof_hist *h);

#endif /* HWPROF_HIST_PRIV_H */
