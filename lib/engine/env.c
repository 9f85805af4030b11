/* SPDX-License-Identifier: MIT */
/*
 * HWPROF_EVENT and HWPROF_PERIOD, which drive profil, sprofil, pcsample
 * and monitor, and libhwprof-mpi's ranks. A bad value of any HWPROF_* variable is reported on
 * stderr, once, with the reason (hwp_env_complain()), because these calls have no other way to
 * say it, and the call fails with EINVAL.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;
static char said[512];

/* Prints msg once: the same complaint about the same value is not repeated. */
void hwp_env_complain(const char *msg)
{
	pthread_mutex_lock(&said_lock);
	if (strcmp(said, msg)) {
		snprintf(said, sizeof(said), "%s", msg);
		fprintf(stderr, "%s\n", msg);
	}
	pthread_mutex_unlock(&said_lock);
}

/*
 * A period: decimal digits (a leading 0 is not octal), or 0x and hex
 * digits; nothing else, no sign, no space. 0, or -EINVAL.
 */
int hwp_env_parse_period(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
	} else if (!isdigit((unsigned char)*s)) {
		return -EINVAL;
	}
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno || *end || !*v || *v > INT64_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Reads both variables: the event (task-clock when unset) must resolve and
 * be something this thread can sample; the period is 0 when unset (the
 * caller's default). Returns 0, or -EINVAL with the variable, its value
 * and the reason in why ("HWPROF_EVENT=NAME: reason"); says nothing.
 * Like every HWPROF_* variable they are read with secure_getenv(): a
 * set-user-ID or set-group-ID program sees none (hwprof(7)). The classic
 * calls (hwp_env_get()) and libhwprof-mpi (lib/mpi/pmpi.c) read them here.
 */
int hwp_env_read(struct hwp_env *env, char *why, size_t len)
{
	const char *ev = secure_getenv("HWPROF_EVENT");
	const char *per = secure_getenv("HWPROF_PERIOD");
	char r[256];
	int ret;

	memset(env, 0, sizeof(*env));
	snprintf(env->event, sizeof(env->event), "%s", ev && *ev ? ev : "task-clock");
	if (strlen(env->event) >= sizeof(env->event) - 1) {
		snprintf(why, len, "HWPROF_EVENT: name too long");
		return -EINVAL;
	}
	ret = hwp_event_resolve(env->event, &env->ev, r, sizeof(r));
	if (!ret)
		ret = hwp_attr_check(&env->ev, r, sizeof(r));
	if (ret) {
		snprintf(why, len, "HWPROF_EVENT=%s: %s", env->event, r);
		return -EINVAL;
	}
	env->clock = env->ev.kind == HWP_EV_CLOCK;
	if (per && *per && hwp_env_parse_period(per, &env->period)) {
		snprintf(why, len,
			 "HWPROF_PERIOD=%s: not a whole number of events (ns for %s) from 1 to 2^63-1, decimal or 0x hex",
			 per, env->event);
		return -EINVAL;
	}
	return 0;
}

/*
 * The variables for the classic calls: hwp_env_read(), and when the period
 * is not set, the clock tick for the clocks (as glibc's profil samples),
 * else the event's default. Returns 0, or -EINVAL after one line on
 * stderr (hwp_env_complain()).
 */
int hwp_env_get(struct hwp_env *env)
{
	char why[600], msg[620];

	if (hwp_env_read(env, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "hwprof: %s", why);
		hwp_env_complain(msg);
		return -EINVAL;
	}
	if (env->period) {
		return 0;
	} else if (env->clock) {
		long tck = sysconf(_SC_CLK_TCK);

		/* the clock tick, as glibc's profil samples */
		env->period = 1000000000ull / (uint64_t)(tck > 0 ? tck : 100);
	} else {
		env->period = env->ev.default_period;
	}
	return 0;
}
