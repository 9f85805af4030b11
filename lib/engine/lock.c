/* SPDX-License-Identifier: MIT */
/*
 * The engine's one lock (lib/engine/engine.h, "Locking"), the condition
 * that says a delivery ended, and the list of running sessions it guards.
 * Log messages raised while it is held wait and are sent when it is
 * dropped: no user callback runs under it.
 */
#include <pthread.h>

#include "engine.h"

pthread_mutex_t hwp_eng = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t hwp_eng_cond = PTHREAD_COND_INITIALIZER;
struct hwprof_session *hwp_running;
int hwp_nprocess;

void hwp_lock_engine(void)
{
	pthread_mutex_lock(&hwp_eng);
	hwp_log_hold();
}

void hwp_unlock_engine(void)
{
	pthread_mutex_unlock(&hwp_eng);
	hwp_log_release();
}
