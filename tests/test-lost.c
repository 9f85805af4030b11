/* SPDX-License-Identifier: MIT */
/*
 * Lost samples reach the users of the classic and PAPI calls: one stderr
 * line when profiling stops, with the engine's count and the cure, and
 * none when nothing was lost. Losses are made deterministic by holding
 * the engine's lock (hwp_eng) while the program faults in far more fresh
 * pages than a ring holds, so the drain thread cannot empty the rings.
 * usage: test-lost stats|profil|quiet|exit|papi
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/compat/lost.h"
#include "../lib/engine/engine.h"
#include "hwprof/papi/papi.h"
#include "harness.h"
#include "tlib.h"

#define MANY 6000 /* faults: far more than a 16-page ring holds */
#define FEW  100

static int err_fd = -1, saved_fd = -1;

/* stderr into a file from here until said_lost(). */
static int catch_stderr(void)
{
	char path[] = "/tmp/hwprof-lost-XXXXXX";

	err_fd = mkstemp(path);
	if (err_fd < 0)
		return T_ERROR;
	unlink(path);
	fflush(stderr);
	saved_fd = dup(2);
	return saved_fd < 0 || dup2(err_fd, 2) < 0 ? T_ERROR : T_PASS;
}

/* What was caught: the lost count of the one line, 0 for none, -1 for
 * anything else (printed). */
static long long said_lost(void)
{
	char buf[1024], tail[256];
	unsigned long long n;
	ssize_t len;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	len = pread(err_fd, buf, sizeof(buf) - 1, 0);
	close(err_fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	if (sscanf(buf, "hwprof: %llu samples lost (ring full): %255[^\n]", &n, tail) == 2 &&
	    !strcmp(tail, "raise HWPROF_MMAP_PAGES or the period") &&
	    strchr(buf, '\n') == buf + len - 1)
		return (long long)n;
	printf("stderr: %s", buf);
	return -1;
}

/* Faults with the drain thread kept out of the rings. */
static void fault_locked(struct t_pages *pool, size_t n)
{
	pthread_mutex_lock(&hwp_eng);
	t_touch_n(touch_a, pool, n);
	pthread_mutex_unlock(&hwp_eng);
}

/* hwp_lost_tell(): the line holds the count hwprof_session_stats() gives. */
static int case_stats(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o),
					 .mode = HWPROF_SESSION_THREAD,
					 .ring_pages = 1 };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s;
	struct t_pages pool;
	int r = t_require_pf();

	if (r || (r = t_pages_new(&pool, MANY)))
		return r;
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_CHECK(hwprof_session_add(s, "page-faults", 1, NULL) >= 0, "add");
	T_EQ(hwprof_session_start(s), 0);
	fault_locked(&pool, MANY);
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	T_CHECK(st.lost > 0, "nothing lost with a 1-page ring and %d faults", MANY);
	if ((r = catch_stderr()))
		return r;
	T_EQ(hwp_lost_tell(s), st.lost);
	T_EQ(said_lost(), st.lost);
	printf("%llu lost, %llu samples\n", (unsigned long long)st.lost,
	       (unsigned long long)st.samples);
	hwprof_session_free(s);
	t_pages_free(&pool);
	return t_done("lost-stats");
}

/* profil: every fault of touch_a is in the buffer or in the line. */
static int case_profil(int many)
{
	static unsigned short buf[64];
	uint64_t off = t_store_pc(touch_a) - (uint64_t)(uintptr_t)touch_a;
	size_t n = many ? MANY : FEW;
	static unsigned short dummy[1]; /* scale 0 turns it off */
	struct t_pages pool;
	long long lost;
	int r = t_require_pf();

	if (r || (r = t_pages_new(&pool, n)))
		return r;
	setenv("HWPROF_EVENT", "page-faults", 1);
	setenv("HWPROF_PERIOD", "1", 1);
	/* one data page a ring (256 samples): a process-wide session's
	 * shared rings would hold the whole burst by default */
	if (many)
		setenv("HWPROF_MMAP_PAGES", "1", 1);
	T_EQ(profil(buf, sizeof(buf), (size_t)(uintptr_t)touch_a, 0x10000), 0);
	if (many)
		fault_locked(&pool, n);
	else
		t_touch_n(touch_a, &pool, n);
	if ((r = catch_stderr()))
		return r;
	T_EQ(profil(dummy, sizeof(dummy), 0, 0), 0);
	lost = said_lost();
	printf("%u in the buffer, %lld said lost, %zu faults\n", buf[off / 2], lost, n);
	if (many) {
		T_CHECK(lost > 0, "no line after %zu faults with the drain held", n);
		/* the line may count a few faults outside touch_a too */
		T_CHECK(buf[off / 2] + lost >= (long long)n &&
				buf[off / 2] + lost <= (long long)n + 64,
			"%u in the buffer + %lld lost, %zu faults", buf[off / 2], lost, n);
	} else {
		T_EQ(lost, 0);
		T_EQ(buf[off / 2], n);
	}
	t_pages_free(&pool);
	return t_done(many ? "lost-profil" : "lost-quiet");
}

/* A program that exits while profil runs: the line comes at exit. */
static int case_exit(void)
{
	static unsigned short buf[64];
	struct t_pages pool;
	long long lost;
	pid_t pid;
	int r = t_require_pf(), st;

	if (r || (r = t_pages_new(&pool, MANY)) || (r = catch_stderr()))
		return r;
	pid = fork();
	if (!pid) {
		setenv("HWPROF_EVENT", "page-faults", 1);
		setenv("HWPROF_PERIOD", "1", 1);
		setenv("HWPROF_MMAP_PAGES", "1", 1);
		if (profil(buf, sizeof(buf), (size_t)(uintptr_t)touch_a, 0x10000))
			_exit(T_ERROR);
		fault_locked(&pool, MANY);
		exit(0); /* profiling still on */
	}
	T_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			WEXITSTATUS(st) == 0,
		"child");
	lost = said_lost();
	printf("%lld said lost at exit\n", lost);
	T_CHECK(lost > 0, "no line at exit after %d faults with the drain held", MANY);
	t_pages_free(&pool);
	return t_done("lost-exit");
}

/* PAPI_stop says it too. */
static int case_papi(void)
{
	static unsigned short buf[64];
	struct t_pages pool;
	long long v[1], lost;
	int es = PAPI_NULL, code, r = t_require_pf();

	if (r || (r = t_pages_new(&pool, MANY)))
		return r;
	T_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	T_EQ(PAPI_create_eventset(&es), PAPI_OK);
	T_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &code), PAPI_OK);
	T_EQ(PAPI_add_event(es, code), PAPI_OK);
	T_EQ(PAPI_profil(buf, sizeof(buf), (vptr_t)touch_a, 65536, es, code, 1,
			 PAPI_PROFIL_POSIX),
	     PAPI_OK);
	T_EQ(PAPI_start(es), PAPI_OK);
	fault_locked(&pool, MANY);
	if ((r = catch_stderr()))
		return r;
	T_EQ(PAPI_stop(es, v), PAPI_OK);
	lost = said_lost();
	printf("%lld said lost, count %lld\n", lost, v[0]);
	T_CHECK(lost > 0, "no line after %d faults with the drain held", MANY);
	T_CHECK(v[0] >= MANY, "count %lld", v[0]);
	T_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	T_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	PAPI_shutdown();
	t_pages_free(&pool);
	return t_done("lost-papi");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "stats"))
		return case_stats();
	if (!strcmp(c, "profil"))
		return case_profil(1);
	if (!strcmp(c, "quiet"))
		return case_profil(0);
	if (!strcmp(c, "exit"))
		return case_exit();
	if (!strcmp(c, "papi"))
		return case_papi();
	printf("usage: test-lost stats|profil|quiet|exit|papi\n");
	return T_ERROR;
}
