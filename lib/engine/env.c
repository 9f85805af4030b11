/* SPDX-License-Identifier: MIT */
/*
 * HWPROF_EVENT and HWPROF_PERIOD, which drive profil, sprofil, pcsample
 * and monitor. A bad value of any HWPROF_* variable is reported on stderr,
 * once, with the reason (hwp_env_complain()), because these calls have no
 * other way to say it, and the call fails with EINVAL.
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
int hwp_parse_period(const char *s, uint64_t *v)
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
 * Reads both variables; the event must resolve and be something this
 * thread can sample. Returns 0, or -EINVAL after one line on stderr.
 * Like every HWPROF_* variable they are read with secure_getenv(): a
 * set-user-ID or set-group-ID program sees none (hwprof(7)).
 */
int hwp_env_get(struct hwp_env *env)
{
	const char *ev = secure_getenv("HWPROF_EVENT");
	const char *per = secure_getenv("HWPROF_PERIOD");
	char why[256], msg[512];
	struct hwp_event e;
	int ret;

	memset(env, 0, sizeof(*env));
	snprintf(env->event, sizeof(env->event), "%s", ev && *ev ? ev : "task-clock");
	if (strlen(env->event) >= sizeof(env->event) - 1) {
		hwp_env_complain("hwprof: HWPROF_EVENT: name too long");
		return -EINVAL;
	}
	ret = hwp_event_resolve(env->event, &env->ev, why, sizeof(why));
	if (!ret)
		ret = hwp_event_check(&env->ev, why, sizeof(why));
	if (ret) {
		snprintf(msg, sizeof(msg), "hwprof: HWPROF_EVENT=%s: %s", env->event, why);
		hwp_env_complain(msg);
		return -EINVAL;
	}
	e = env->ev;
	env->clock = e.kind == HWP_EV_CLOCK;
	if (per && *per) {
		if (hwp_parse_period(per, &env->period)) {
			snprintf(msg, sizeof(msg),
				 "hwprof: HWPROF_PERIOD=%s: not a whole number of events (ns for %s) from 1 to 2^63-1, decimal or 0x hex",
				 per, env->event);
			hwp_env_complain(msg);
			return -EINVAL;
		}
	} else if (env->clock) {
		long tck = sysconf(_SC_CLK_TCK);

		/* the clock tick, as glibc's profil samples */
		env->period = 1000000000ull / (uint64_t)(tck > 0 ? tck : 100);
	} else {
		env->period = e.default_period;
	}
	return 0;
}
