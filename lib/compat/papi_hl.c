/* SPDX-License-Identifier: MIT */
/*
 * PAPI 7's high-level API: each thread counts PAPI_EVENTS in an EventSet
 * of its own from its first PAPI_hl_region_begin(); regions add up the
 * differences between begin (or the last read) and end. At exit the
 * measurements are written as JSON to
 * $PAPI_OUTPUT_DIRECTORY/papi_hl_output/rank_NNNNNN.json (the MPI rank, or
 * the pid), and printed when PAPI_REPORT is set
 * (PAPI_hl_region_begin(3hwprof)). The directory is PAPI 7.0's, made and
 * used safely: only one this user owns is written into, and a file is
 * only ever created there, never opened through what is already there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../outfile.h"
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

#define HL_DIR	"papi_hl_output"

/* PAPI_OUTPUT_DIRECTORY, read with secure_getenv(): a set-user-ID
 * program writes where it was started. */
static const char *hl_prefix(void)
{
	const char *d = secure_getenv("PAPI_OUTPUT_DIRECTORY");

	return d && *d ? d : ".";
}

/*
 * The number in the file's name, as PAPI 7.0 finds it: the rank from the
 * first of its launchers' variables that is set (Open MPI, Cray ALPS,
 * MPICH's and Intel MPI's Hydra, Slurm), else (where PAPI 7.0 draws a
 * random number) the pid.
 */
static int hl_file_id(void)
{
	static const char *const rank_vars[] = {
		"OMPI_COMM_WORLD_RANK", "ALPS_APP_PE", "PMI_RANK", "SLURM_PROCID",
	};

	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++) {
		const char *v = getenv(rank_vars[i]);
		char *end;
		long r;

		if (!v)
			continue;
		errno = 0;
		r = strtol(v, &end, 10);
		if (*v >= '0' && *v <= '9' && !*end && !errno && r < 1000000000)
			return (int)r;
	}
	return (int)getpid();
}

/*
 * PAPI 7.0, at the first region: a papi_hl_output an earlier run left is
 * renamed papi_hl_output-YYYYMMDD-HHMMSS (its time of the run, local
 * time) unless it was changed this second (another rank of this job made
 * it). Only a directory this user owns is moved, never onto anything that
 * is there; none is moved in a set-user-ID program.
 */
static void hl_rotate(void)
{
	char name[64];
	time_t now = time(NULL);
	struct stat st;
	struct tm tm;
	int dir;

	if (getauxval(AT_SECURE))
		return;
	dir = open(hl_prefix(), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	if (!fstatat(dir, HL_DIR, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && st.st_mtime < now && localtime_r(&now, &tm) &&
	    strftime(name, sizeof(name), HL_DIR "-%Y%m%d-%H%M%S", &tm) &&
	    renameat2(dir, HL_DIR, dir, name, RENAME_NOREPLACE) && errno == EINVAL)
		renameat(dir, HL_DIR, dir, name);	/* no RENAME_NOREPLACE there */
	close(dir);
}

/* The directory path, made (each missing part 0700, as PAPI 7.0 makes
 * them) when it is not there; a descriptor or -errno. */
static int hl_open_prefix(const char *path)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *p, *tmp;

	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd : -errno;
	tmp = strdup(path);
	if (!tmp)
		return -ENOMEM;
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0700);
			*p = '/';
		}
	free(tmp);
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/*
 * The JSON file, new: papi_hl_output made 0700, or one there already that
 * this user owns (a link there is not followed; another user's directory
 * is refused); rank_NNNNNN.json opened O_CREAT | O_EXCL | O_NOFOLLOW, so
 * nothing there is written through or appended to: where the name is
 * taken, the next number is (PAPI 7.0 does so where the file is locked).
 * A FILE, or NULL after one line on stderr.
 */
static FILE *hl_create(void)
{
	const char *pre = hl_prefix();
	int top = hl_open_prefix(pre), dir = -1, fd = -1, id = hl_file_id(), err = EEXIST;
	char name[32];
	struct stat st;
	FILE *f;

	if (top < 0) {
		fprintf(stderr, "PAPI-HL: %s: %s: no output written\n", pre, strerror(-top));
		return NULL;
	}
	if (mkdirat(top, HL_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "PAPI-HL: cannot create %s/" HL_DIR ": %s\n", pre, strerror(errno));
		goto out;
	}
	dir = openat(top, HL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0) {
		int e = errno;

		/* a link there fails with ENOTDIR (O_DIRECTORY) or ELOOP */
		if ((e == ENOTDIR || e == ELOOP) &&
		    !fstatat(top, HL_DIR, &st, AT_SYMLINK_NOFOLLOW) && !S_ISDIR(st.st_mode))
			fprintf(stderr, "PAPI-HL: %s/" HL_DIR ": %s: no output written\n", pre,
				hwp_out_what(st.st_mode));
		else
			fprintf(stderr, "PAPI-HL: %s/" HL_DIR ": %s: no output written\n", pre,
				strerror(e));
		goto out;
	}
	if (fstat(dir, &st)) {
		fprintf(stderr, "PAPI-HL: %s/" HL_DIR ": %s\n", pre, strerror(errno));
		goto out;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr, "PAPI-HL: %s/" HL_DIR ": owned by uid %u, not by this user "
			"(uid %u): no output written\n", pre, (unsigned int)st.st_uid,
			(unsigned int)geteuid());
		goto out;
	}
	for (int k = 0; k < 1000 && fd < 0 && err == EEXIST; k++) {
		snprintf(name, sizeof(name), "rank_%06d.json", id + k);
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
			    O_CLOEXEC, 0644);
		err = fd < 0 ? errno : 0;
	}
	if (fd < 0)
		fprintf(stderr, "PAPI-HL: cannot create %s/" HL_DIR "/%s: %s\n", pre, name,
			strerror(err));
out:
	close(top);
	if (dir >= 0)
		close(dir);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

static void hl_exit(void)
{
	FILE *f;

	pthread_mutex_lock(&hl_lock);
	if (!hl_threads)
		goto out;
	f = hl_create();
	if (f) {
		hl_write(f);
		if (fclose(f))
			fprintf(stderr, "PAPI-HL: cannot write the output: %s\n", strerror(errno));
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
	if (!hl_n) {
		hl_failed = 1;
	} else {
		hl_rotate();
		atexit(hl_exit);
	}
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

int hwp_papi_hl_running(void)
{
	return me && me->running;
}

HWPROF_API int PAPI_hl_region_begin(const char *region)
{
	struct hl_region *r;
	int ret;

	if (hwp_papi_rate_running()) {	/* PAPI 7.0 stops a rate call's set */
		ret = PAPI_rate_stop();
		if (ret)
			return ret;
	}
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
