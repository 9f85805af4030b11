/* SPDX-License-Identifier: MIT */
/*
 * PAPI 7's high-level API: each thread counts PAPI_EVENTS in an EventSet
 * of its own from its first PAPI_hl_region_begin(); regions add up the
 * differences between begin (or the last read) and end. At exit the
 * measurements are written as JSON to
 * $PAPI_OUTPUT_DIRECTORY/papi_hl_output/rank_<pid>.json, and printed
 * when PAPI_REPORT is set (PAPI_hl_region_begin(3hwprof)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "papi_priv.h"

#define HL_MAX_EVENTS	16

struct hl_region {
	struct hl_region *next;
	char *name;
	long long begin[HL_MAX_EVENTS];
	long long sum[HL_MAX_EVENTS];
	long long t_begin, t_sum;	/* real time, ns */
	unsigned long count;		/* ends */
	int open;
};

struct hl_thread {
	struct hl_thread *next;
	pid_t tid;
	int es;
	int running;
	struct hl_region *regions;
};

static pthread_mutex_t hl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t hl_once = PTHREAD_ONCE_INIT;
static char hl_names[HL_MAX_EVENTS][PAPI_2MAX_STR_LEN];
static int hl_n;
static int hl_failed;
static struct hl_thread *hl_threads;	/* every thread's, for the report */
static __thread struct hl_thread *me;

static const char *const hl_default[] = {
	"perf::TASK-CLOCK", "PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_BR_MSP", "PAPI_L1_DCM",
};

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

static void hl_write(FILE *f)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();

	fprintf(f, "{\n\"cpu in mhz\":\"%d\",\n\"threads\":{\n",
		hw ? hw->cpu_max_mhz : 0);
	for (struct hl_thread *t = hl_threads; t; t = t->next) {
		fprintf(f, "\"%d\":{\n\"regions\":{\n", (int)t->tid);
		for (struct hl_region *r = t->regions; r; r = r->next) {
			fputs("", f);
			json_str(f, r->name);
			fprintf(f, ":{\n\"region_count\":\"%lu\",\n\"real_time_nsec\":\"%lld\"",
				r->count, r->t_sum);
			for (int i = 0; i < hl_n; i++) {
				fputs(",\n", f);
				json_str(f, hl_names[i]);
				fprintf(f, ":\"%lld\"", r->sum[i]);
			}
			fprintf(f, "\n}%s\n", r->next ? "," : "");
		}
		fprintf(f, "}\n}%s\n", t->next ? "," : "");
	}
	fputs("}\n}\n", f);
}

static void hl_exit(void)
{
	const char *dir = getenv("PAPI_OUTPUT_DIRECTORY");
	char path[4096];
	FILE *f;

	pthread_mutex_lock(&hl_lock);
	if (!hl_threads)
		goto out;
	snprintf(path, sizeof(path), "%s/papi_hl_output", dir && *dir ? dir : ".");
	if (mkdir(path, 0777) && errno != EEXIST) {
		fprintf(stderr, "PAPI-HL: cannot create %s: %s\n", path, strerror(errno));
		goto out;
	}
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/rank_%06d.json",
		 (int)getpid());
	f = fopen(path, "we");
	if (f) {
		hl_write(f);
		fclose(f);
	} else {
		fprintf(stderr, "PAPI-HL: cannot write %s: %s\n", path, strerror(errno));
	}
	if (getenv("PAPI_REPORT"))
		hl_write(stdout);
out:
	pthread_mutex_unlock(&hl_lock);
}

/* Keeps @name if it can join the events kept so far in one EventSet
 * (@es, the trial set). */
static void hl_try(int es, const char *name, int warn)
{
	int r;

	if (hl_n == HL_MAX_EVENTS)
		return;
	r = PAPI_add_named_event(es, name);
	if (r == PAPI_OK) {
		snprintf(hl_names[hl_n++], sizeof(hl_names[0]), "%s", name);
		return;
	}
	if (warn && !getenv("PAPI_NO_WARNING"))
		fprintf(stderr, "PAPI-HL: event %s cannot be counted: %s\n", name,
			PAPI_strerror(r));
}

/* PAPI_EVENTS, or the defaults this machine can count together. */
static void hl_init(void)
{
	const char *env = getenv("PAPI_EVENTS");
	int r = PAPI_library_init(PAPI_VER_CURRENT), es = PAPI_NULL;

	if (r != PAPI_VER_CURRENT || PAPI_create_eventset(&es) != PAPI_OK) {
		hl_failed = 1;
		return;
	}
	if (env && *env) {
		char *copy = strdup(env), *save = NULL;

		for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
		     t = strtok_r(NULL, ",", &save))
			hl_try(es, t, 1);
		free(copy);
	} else {
		for (size_t i = 0; i < sizeof(hl_default) / sizeof(hl_default[0]); i++)
			hl_try(es, hl_default[i], 0);
	}
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	if (!hl_n)
		hl_failed = 1;
	else
		atexit(hl_exit);
}

/* This thread's EventSet, started on first use. */
static int hl_thread(void)
{
	struct hl_thread *t = me;
	int r;

	pthread_once(&hl_once, hl_init);
	if (hl_failed)
		return PAPI_EMISC;
	if (t && t->running)
		return PAPI_OK;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return PAPI_ENOMEM;
		t->tid = hwp_gettid();
		t->es = PAPI_NULL;
		r = PAPI_create_eventset(&t->es);
		for (int i = 0; !r && i < hl_n; i++)
			r = PAPI_add_named_event(t->es, hl_names[i]);
		if (r) {
			free(t);
			return r;
		}
		pthread_mutex_lock(&hl_lock);
		t->next = hl_threads;
		hl_threads = t;
		pthread_mutex_unlock(&hl_lock);
		me = t;
	}
	r = PAPI_start(t->es);
	if (r)
		return r;
	t->running = 1;
	return PAPI_OK;
}

static struct hl_region *hl_find(const char *name, int make)
{
	struct hl_region *r;

	for (r = me->regions; r; r = r->next)
		if (!strcmp(r->name, name))
			return r;
	if (!make)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->name = strdup(name))) {
		free(r);
		return NULL;
	}
	pthread_mutex_lock(&hl_lock);	/* hl_exit() walks the list */
	r->next = me->regions;
	me->regions = r;
	pthread_mutex_unlock(&hl_lock);
	return r;
}

HWPROF_API int PAPI_hl_region_begin(const char *region)
{
	struct hl_region *r;
	int ret;

	if (!region)
		return hwp_papi_err(PAPI_EINVAL);
	ret = hl_thread();
	if (ret)
		return hwp_papi_err(ret);
	r = hl_find(region, 1);
	if (!r)
		return hwp_papi_err(PAPI_ENOMEM);
	ret = PAPI_read(me->es, r->begin);
	if (ret)
		return ret;
	r->t_begin = PAPI_get_real_nsec();
	r->open = 1;
	return PAPI_OK;
}

/* Adds what was counted since begin (or the last read) to the region. */
static int hl_take(const char *region, int end)
{
	long long now[HL_MAX_EVENTS], t;
	struct hl_region *r;
	int ret;

	if (!region)
		return hwp_papi_err(PAPI_EINVAL);
	if (!me || !me->running)
		return hwp_papi_err(PAPI_ENOTRUN);
	r = hl_find(region, 0);
	if (!r || !r->open)
		return hwp_papi_err(PAPI_EINVAL);	/* no begin for it */
	ret = PAPI_read(me->es, now);
	if (ret)
		return ret;
	t = PAPI_get_real_nsec();
	pthread_mutex_lock(&hl_lock);
	for (int i = 0; i < hl_n; i++) {
		r->sum[i] += now[i] - r->begin[i];
		r->begin[i] = now[i];
	}
	r->t_sum += t - r->t_begin;
	r->t_begin = t;
	if (end) {
		r->count++;
		r->open = 0;
	}
	pthread_mutex_unlock(&hl_lock);
	return PAPI_OK;
}

HWPROF_API int PAPI_hl_read(const char *region)
{
	return hl_take(region, 0);
}

HWPROF_API int PAPI_hl_region_end(const char *region)
{
	return hl_take(region, 1);
}

HWPROF_API int PAPI_hl_stop(void)
{
	int ret;

	if (!me || !me->running)
		return hwp_papi_err(PAPI_ENOTRUN);
	ret = PAPI_stop(me->es, NULL);
	if (!ret)
		me->running = 0;
	return ret;
}
