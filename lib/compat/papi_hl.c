/* SPDX-License-Identifier: MIT */
/*
 * PAPI 7's high-level API: each thread counts PAPI_EVENTS in an EventSet
 * of its own from its first PAPI_hl_region_begin(); each begin opens a
 * pass of a region (its id, its parent the pass open around it), each
 * read and its end keep what was counted since its begin, as PAPI 7.0
 * keeps them. At exit the measurements are written, in PAPI 7.0's JSON
 * schema (hl_write()), to
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

#include "../profile/outfile.h"
#include "papi_priv.h"

#define HL_MAX_EVENTS 16
#define HL_NVAL	      (HL_MAX_EVENTS + 2) /* cycles, real_time_nsec, events */
#define HL_MAX_DEPTH  64		  /* regions open at once in a thread */

/* A value's PAPI_hl_read()s: each what was counted since the begin. */
struct hl_reads {
	long long *v;
	size_t n, cap;
};

/* One pass of a region, from its begin to its end, as PAPI 7.0 keeps
 * them: the id is the thread's count of begins before it, the parent the
 * region open around it (-1: none). Values: [0] cycles, [1] real time in
 * ns, [2...] the events. */
struct hl_region {
	struct hl_region *next;
	char *name;
	unsigned int id;
	int parent;
	int ended;
	long long begin[HL_NVAL];
	long long value[HL_NVAL];
	struct hl_reads *reads; /* HL_NVAL of them, after a read */
};

struct hl_thread {
	struct hl_thread *next;
	pid_t tid;
	int es;
	int running;
	unsigned int begins;		      /* the next region's id */
	struct hl_region *regions, *last;     /* in the order begun */
	struct hl_region *open[HL_MAX_DEPTH]; /* the stack of open regions */
	int depth;
};

static pthread_mutex_t hl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t hl_once = PTHREAD_ONCE_INIT;
static char hl_names[HL_MAX_EVENTS][PAPI_2MAX_STR_LEN];
static int hl_n;
static int hl_failed;
static struct hl_thread *hl_threads; /* every thread's, for the report */
static __thread struct hl_thread *me;

static const char *const hl_default[] = {
	"perf::TASK-CLOCK", "PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_BR_MSP", "PAPI_L1_DCM",
};

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* PAPI 7.0's layout: a line break and two spaces per level. */
static void json_nl(FILE *f, int level)
{
	fputc('\n', f);
	for (int i = 0; i < level; i++)
		fputs("  ", f);
}

static const char *hl_value_name(int i)
{
	return i == 0 ? "cycles" : i == 1 ? "real_time_nsec" : hl_names[i - 2];
}

static void hl_write_region(FILE *f, const struct hl_region *r)
{
	json_nl(f, 4);
	fprintf(f, "\"%u\":{", r->id);
	json_nl(f, 5);
	fputs("\"name\":", f);
	json_str(f, r->name);
	fputc(',', f);
	json_nl(f, 5);
	fprintf(f, "\"parent_region_id\":\"%d\",", r->parent);
	for (int i = 0; i < hl_n + 2; i++) {
		json_nl(f, 5);
		json_str(f, hl_value_name(i));
		if (!r->reads || !r->reads[i].n) {
			fprintf(f, ":\"%lld\"", r->value[i]);
		} else {
			fprintf(f, ":{");
			json_nl(f, 6);
			fprintf(f, "\"region_value\":\"%lld\"", r->value[i]);
			for (size_t k = 0; k < r->reads[i].n; k++) {
				fputc(',', f);
				json_nl(f, 6);
				fprintf(f, "\"read_%zu\":\"%lld\"", k + 1, r->reads[i].v[k]);
			}
			json_nl(f, 5);
			fputc('}', f);
		}
		if (i < hl_n + 1)
			fputc(',', f);
	}
	json_nl(f, 4);
	fputc('}', f);
}

static int hl_tid_cmp(const void *a, const void *b)
{
	pid_t x = (*(struct hl_thread *const *)a)->tid,
	      y = (*(struct hl_thread *const *)b)->tid;

	return (x > y) - (x < y);
}

/*
 * PAPI 7.0's schema (what its papi_hl_output_writer.py reads):
 * papi_version, cpu_info, max_cpu_rate_mhz, min_cpu_rate_mhz,
 * event_definitions (each event's component and type), then threads,
 * numbered 0... in the order of their ids, each with its regions by id:
 * name, parent_region_id, cycles, real_time_nsec and the events, each a
 * count or, where the region was read, {region_value, read_1...}. Every
 * number is a string, as PAPI writes it. Regions not ended are left out
 * (*open counts them). The lock held.
 */
static void hl_write(FILE *f, unsigned long *open)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	struct hl_thread **ts;
	size_t nt = 0, k = 0;
	char model[PAPI_MAX_STR_LEN];

	for (struct hl_thread *t = hl_threads; t; t = t->next)
		nt++;
	ts = calloc(nt ? nt : 1, sizeof(*ts));
	for (struct hl_thread *t = hl_threads; ts && t; t = t->next)
		ts[k++] = t;
	if (ts)
		qsort(ts, nt, sizeof(*ts), hl_tid_cmp);
	fputc('{', f);
	json_nl(f, 1);
	fprintf(f, "\"papi_version\":\"%d.%d.%d.%d\",", PAPI_VERSION_MAJOR(PAPI_VERSION),
		PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
		PAPI_VERSION_INCREMENT(PAPI_VERSION));
	if (hw) {
		size_t j = 0;

		/* runs of spaces made one, as PAPI 7.0 writes it */
		for (const char *c = hw->model_string; *c && j < sizeof(model) - 1; c++)
			if (*c != ' ' || c[1] != ' ')
				model[j++] = *c;
		model[j] = 0;
		json_nl(f, 1);
		fputs("\"cpu_info\":", f);
		json_str(f, model);
		fputc(',', f);
		json_nl(f, 1);
		fprintf(f, "\"max_cpu_rate_mhz\":\"%d\",", hw->cpu_max_mhz);
		json_nl(f, 1);
		fprintf(f, "\"min_cpu_rate_mhz\":\"%d\",", hw->cpu_min_mhz);
	}
	json_nl(f, 1);
	fputs("\"event_definitions\":{", f);
	for (int i = 0; i < hl_n; i++) {
		json_nl(f, 2);
		json_str(f, hl_names[i]);
		fputs(":{", f);
		json_nl(f, 3);
		fputs("\"component\":\"perf_event\",", f); /* the one component */
		json_nl(f, 3);
		fputs("\"type\":\"delta\"", f); /* all count up */
		json_nl(f, 2);
		fputc('}', f);
		if (i < hl_n - 1)
			fputc(',', f);
	}
	json_nl(f, 1);
	fputs("},", f);
	json_nl(f, 1);
	fputs("\"threads\":{", f);
	k = 0;
	for (size_t i = 0; ts && i < nt; i++) {
		int first = 1;

		if (k)
			fputc(',', f);
		json_nl(f, 2);
		fprintf(f, "\"%zu\":{", k++);
		json_nl(f, 3);
		fputs("\"regions\":{", f);
		for (const struct hl_region *r = ts[i]->regions; r; r = r->next) {
			if (!r->ended) {
				(*open)++;
				continue;
			}
			if (!first)
				fputc(',', f);
			first = 0;
			hl_write_region(f, r);
		}
		json_nl(f, 3);
		fputc('}', f);
		json_nl(f, 2);
		fputc('}', f);
	}
	json_nl(f, 1);
	fputc('}', f);
	fputs("\n}\n", f);
	free(ts);
}

#define HL_DIR "papi_hl_output"

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
		"OMPI_COMM_WORLD_RANK",
		"ALPS_APP_PE",
		"PMI_RANK",
		"SLURM_PROCID",
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
		renameat(dir, HL_DIR, dir, name); /* no RENAME_NOREPLACE there */
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
		fprintf(stderr, "PAPI-HL: cannot create %s/" HL_DIR ": %s\n", pre,
			strerror(errno));
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
		fprintf(stderr,
			"PAPI-HL: %s/" HL_DIR ": owned by uid %u, not by this user "
			"(uid %u): no output written\n",
			pre, (unsigned int)st.st_uid, (unsigned int)geteuid());
		goto out;
	}
	for (int k = 0; k < 1000 && fd < 0 && err == EEXIST; k++) {
		snprintf(name, sizeof(name), "rank_%06d.json", id + k);
		fd = openat(dir, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			    0644);
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
	unsigned long open = 0, ignored = 0;
	FILE *f;

	pthread_mutex_lock(&hl_lock);
	if (!hl_threads)
		goto out;
	f = hl_create();
	if (f) {
		hl_write(f, &open);
		if (fclose(f))
			fprintf(stderr, "PAPI-HL: cannot write the output: %s\n",
				strerror(errno));
	}
	if (getenv("PAPI_REPORT")) {
		fputs("\n\nPAPI-HL Output:\n", stdout);
		hl_write(stdout, f ? &ignored : &open);
	}
	if (open) /* PAPI 7.0 then writes nothing at all */
		fprintf(stderr, "PAPI-HL: %lu region%s begun but not ended: left out\n", open,
			open == 1 ? "" : "s");
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
		t->tid = hwp_sys_gettid();
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

/* A new pass of @name, open inside the thread's innermost one. */
static struct hl_region *hl_new(const char *name)
{
	struct hl_region *r;

	if (me->depth == HL_MAX_DEPTH)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->name = strdup(name))) {
		free(r);
		return NULL;
	}
	r->id = me->begins++;
	r->parent = me->depth ? (int)me->open[me->depth - 1]->id : -1;
	pthread_mutex_lock(&hl_lock); /* hl_exit() walks the list */
	if (me->last)
		me->last->next = r;
	else
		me->regions = r;
	me->last = r;
	pthread_mutex_unlock(&hl_lock);
	me->open[me->depth++] = r;
	return r;
}

/* The counters now: cycles, real time, the events. */
static int hl_now(long long *v)
{
	int ret = PAPI_read(me->es, v + 2);

	v[0] = PAPI_get_real_cyc();
	v[1] = PAPI_get_real_nsec();
	return ret;
}

int hwp_papi_hl_running(void)
{
	return me && me->running;
}

HWPROF_API int PAPI_hl_region_begin(const char *region)
{
	struct hl_region *r;
	long long now[HL_NVAL];
	int ret;

	if (hwp_papi_rate_running()) { /* PAPI 7.0 stops a rate call's set */
		ret = PAPI_rate_stop();
		if (ret)
			return ret;
	}
	if (!region)
		return hwp_papi_err(PAPI_EINVAL);
	ret = hl_thread();
	if (ret)
		return hwp_papi_err(ret);
	ret = hl_now(now);
	if (ret)
		return ret;
	r = hl_new(region);
	if (!r)
		return hwp_papi_err(PAPI_ENOMEM);
	memcpy(r->begin, now, sizeof(now));
	return PAPI_OK;
}

static int hl_read_add(struct hl_reads *rd, long long v)
{
	if (rd->n == rd->cap) {
		size_t cap = rd->cap ? 2 * rd->cap : 4;
		long long *nv = realloc(rd->v, cap * sizeof(*nv));

		if (!nv)
			return PAPI_ENOMEM;
		rd->v = nv;
		rd->cap = cap;
	}
	rd->v[rd->n++] = v;
	return PAPI_OK;
}

/* What was counted since the begin of the thread's innermost open
 * region, which must be @region: kept as a read, or as the region's
 * value at its end (then it is closed). */
static int hl_take(const char *region, int end)
{
	long long now[HL_NVAL];
	struct hl_region *r;
	int ret;

	if (!region)
		return hwp_papi_err(PAPI_EINVAL);
	if (!me || !me->running)
		return hwp_papi_err(PAPI_ENOTRUN);
	r = me->depth ? me->open[me->depth - 1] : NULL;
	if (!r || strcmp(r->name, region))
		return hwp_papi_err(PAPI_EINVAL); /* not the innermost open one */
	ret = hl_now(now);
	if (ret)
		return ret;
	pthread_mutex_lock(&hl_lock);
	if (!end && !r->reads && !(r->reads = calloc(HL_NVAL, sizeof(*r->reads))))
		ret = PAPI_ENOMEM;
	for (int i = 0; !ret && i < hl_n + 2; i++) {
		if (end)
			r->value[i] = now[i] - r->begin[i];
		else
			ret = hl_read_add(&r->reads[i], now[i] - r->begin[i]);
	}
	if (!ret && end) {
		r->ended = 1;
		me->depth--;
	}
	pthread_mutex_unlock(&hl_lock);
	return hwp_papi_err(ret);
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
