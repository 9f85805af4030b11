/* SPDX-License-Identifier: MIT */
/*
 * A buffer the program unmaps or makes read-only while profiling into it
 * runs: profiling of it stops with one line on stderr and the program
 * goes on, in every API that writes the caller's memory (profil(3),
 * sprofil(3), PAPI_profil(3) with and without PAPI_PROFIL_FORCE_SW,
 * pcsample(3), monitor(3), a caller's
 * histogram given to hwprof_session_add(3)). Each case runs in a child
 * whose stderr is kept: it must exit 0 and have said exactly one such line.
 * profil-free and sprofil-free: a buffer released with free(3) while
 * profiling into it runs is not detected (profil(3hwprof)): nothing is
 * said and the fold goes on writing into the memory malloc(3) hands out
 * again.
 * usage: test-buffault API-munmap|API-mprotect|profil-free|sprofil-free
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/profil.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwprof.h>
#include <hwprof/pcsample.h>
#include <papi.h>
#include "harness.h"
#include "tlib.h"

/* <hwprof/mon.h>'s AIX struct prof clashes with glibc's <sys/profil.h> */
typedef char *caddr_t_;
int monitor(caddr_t_ lowpc, ...);

/* glibc declares profil's buffer nonnull; NULL turns profiling off */
static int (*volatile profil_)(unsigned short *, size_t, size_t, unsigned int) = profil;

#if defined(__SANITIZE_THREAD__)
#define TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN 1
#endif
#endif

#define SAY "is no longer writable"
#define NPF 256

static long psz;
static int errfd = -1; /* the child's stderr, read back */
static struct t_pages pool;
static struct hwprof_session *ses;
static int papi_es;

/* Two pages of text from the one holding touch_a, and a buffer of its own
 * mapping that holds them at one byte of buffer per byte of text. */
static uintptr_t text_lo(void)
{
	return (uintptr_t)touch_a & ~(uintptr_t)(psz - 1);
}

static void *new_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(T_ERROR);
	}
	return p;
}

/* Whether the child's stderr holds the line yet. */
static int said(void)
{
	char buf[4096];
	ssize_t n = pread(errfd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strstr(buf, SAY) != NULL;
}

static int start(const char *api, void *buf, size_t len)
{
	uintptr_t lo = text_lo();

	if (!strcmp(api, "profil"))
		return profil_(buf, len, lo, 0x10000);
	if (!strcmp(api, "sprofil")) {
		struct prof p = { .pr_base = buf,
				  .pr_size = len,
				  .pr_off = lo,
				  .pr_scale = 0x10000 };

		return sprofil(&p, 1, NULL, 0);
	}
	if (!strcmp(api, "pcsample"))
		return pcsample(buf, (long)(len / sizeof(uintptr_t))) < 0;
	if (!strcmp(api, "monitor"))
		return monitor((caddr_t_)lo, (caddr_t_)(lo + len), (unsigned short *)buf,
			       (int)(len / 2), 0);
	if (!strcmp(api, "PAPI_profil") || !strcmp(api, "PAPI_profil_sw")) {
		int flags = PAPI_PROFIL_POSIX, code;

		/* FORCE_SW: folded in a signal handler on this thread */
		if (!strcmp(api, "PAPI_profil_sw"))
			flags |= PAPI_PROFIL_FORCE_SW;

		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
			return -1;
		papi_es = PAPI_NULL;
		if (PAPI_create_eventset(&papi_es) ||
		    PAPI_event_name_to_code("page-faults", &code) ||
		    PAPI_add_event(papi_es, code) ||
		    PAPI_profil(buf, (unsigned)len, (vptr_t)lo, 0x10000, papi_es, code, 1,
				flags))
			return -1;
		return PAPI_start(papi_es);
	}
	if (!strcmp(api, "hist")) {
		struct hwprof_region r = { .base = buf,
					   .size = len,
					   .offset = lo,
					   .scale = 0x10000,
					   .width = 16 };
		struct hwprof_hist_opts o = { .sz = sizeof(o),
					      .regions = &r,
					      .nregions = 1,
					      .index = HWPROF_INDEX_PROFIL };
		struct hwprof_session_opts so = { .sz = sizeof(so),
						  .mode = HWPROF_SESSION_PROCESS };
		struct hwprof_hist *h;

		/* the histogram is the caller's: never freed, as a program
		 * that lost track of it would */
		if (hwprof_hist_new(&o, &h) || hwprof_session_new(&so, &ses) ||
		    hwprof_session_add(ses, "page-faults", 1, h) < 0)
			return -1;
		return hwprof_session_start(ses);
	}
	return -1;
}

static int stop(const char *api)
{
	long long v;

	if (!strcmp(api, "profil"))
		return profil_(NULL, 0, 0, 0);
	if (!strcmp(api, "sprofil"))
		return sprofil(NULL, 0, NULL, 0);
	if (!strcmp(api, "pcsample"))
		return pcsample(NULL, 0) < 0;
	if (!strcmp(api, "monitor"))
		return monitor(0);
	if (!strcmp(api, "PAPI_profil") || !strcmp(api, "PAPI_profil_sw"))
		return PAPI_stop(papi_es, &v);
	hwprof_session_free(ses);
	return 0;
}

/* The child: profiles, takes the buffer away, makes the faults that fold
 * into it, waits for the drain thread to say so (monitor writes the
 * caller's buffer only when it stops), stops, goes on. */
static int child(const char *api, int unmap)
{
	size_t len = 2 * (size_t)psz;
	void *buf = new_buf(len);

	if (start(api, buf, len)) {
		printf("ERROR: %s could not start: %s\n", api, strerror(errno));
		return T_ERROR;
	}
	t_touch_n(touch_a, &pool, NPF);
	if (unmap ? munmap(buf, len) : mprotect(buf, len, PROT_READ)) {
		perror("munmap/mprotect");
		return T_ERROR;
	}
	t_touch_n(touch_a, &pool, NPF);
	for (int i = 0; i < 500 && strcmp(api, "monitor") && !said(); i++)
		usleep(10000);
	t_touch_n(touch_a, &pool, NPF);
	if (stop(api)) {
		printf("ERROR: %s could not stop\n", api);
		return T_ERROR;
	}
	t_touch_n(touch_a, &pool, NPF); /* and it goes on */
	return T_PASS;
}

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

/*
 * The child of the free cases: a malloc'd buffer (below the mmap
 * threshold: heap memory, which free() leaves mapped) profiled from a page
 * before touch_a's, so that its bins lie a page into the buffer, past
 * what malloc keeps in a free chunk; freed and handed out again by
 * malloc; the faults made then are counted into it. Exit 0 when the new
 * allocation holds at least NPF counts, 1 when not, T_SKIP when malloc
 * gave other memory.
 */
static int child_free(const char *api)
{
	size_t len = 3 * (size_t)psz, got = 0;
	uintptr_t lo = text_lo() - (uintptr_t)psz, was;
	unsigned short *buf = calloc(1, len), *again;
	struct prof p = { .pr_size = len, .pr_off = lo, .pr_scale = 0x10000 };

	if (!buf)
		return T_ERROR;
	p.pr_base = buf;
	if (!strcmp(api, "profil") ? profil_(buf, len, lo, 0x10000) :
				     sprofil(&p, 1, NULL, 0)) {
		printf("ERROR: %s could not start: %s\n", api, strerror(errno));
		return T_ERROR;
	}
	t_touch_n(touch_a, &pool, NPF);
	was = (uintptr_t)buf;
	free(buf); /* profiling still runs: the caller's error */
	again = malloc(len);
	if ((uintptr_t)again != was) {
		stop(api);
		printf("SKIP: malloc gave other memory than the freed buffer\n");
		return T_SKIP;
	}
	memset(again, 0, len);
	t_touch_n(touch_a, &pool, NPF);
	if (stop(api)) {
		printf("ERROR: %s could not stop\n", api);
		return T_ERROR;
	}
	for (size_t i = 0; i < len / sizeof(*again); i++)
		got += again[i];
	printf("the memory malloc handed out again holds %zu counts (%d faults made into it)\n",
	       got, NPF);
	return got >= NPF ? T_PASS : T_FAIL;
}

/* fn(api, arg) run in a child whose stderr is put in text (cap bytes,
 * printed): 0 and its wait status in *st, or T_ERROR */
static int in_child(int (*fn)(const char *, int), const char *api, int arg, char *text,
		    size_t cap, int *st)
{
	ssize_t got;
	pid_t pid;

	errfd = memfd_create("stderr", MFD_CLOEXEC);
	if (errfd < 0)
		return T_ERROR;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return T_ERROR;
	if (!pid) {
		dup2(errfd, STDERR_FILENO);
		_exit(fn(api, arg));
	}
	if (waitpid(pid, st, 0) != pid)
		return T_ERROR;
	got = pread(errfd, text, cap - 1, 0);
	text[got > 0 ? got : 0] = 0;
	printf("child's stderr:\n%s", text);
	return 0;
}

static int child_free_arg(const char *api, int unused)
{
	(void)unused;
	return child_free(api);
}

static int run_free(const char *api)
{
	char text[8192];
	int st;

#ifdef ASAN
	printf("SKIP: AddressSanitizer keeps freed memory from malloc and stops the fold's write "
	       "into it, which is what this case shows happening\n");
	return T_SKIP;
#endif
	if (in_child(child_free_arg, api, 0, text, sizeof(text), &st))
		return T_ERROR;
	if (WIFEXITED(st) && (WEXITSTATUS(st) == T_ERROR || WEXITSTATUS(st) == T_SKIP))
		return WEXITSTATUS(st);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"%s: the fold did not count into the memory handed out again (%s %d)", api,
		WIFSIGNALED(st) ? "killed by signal" : "exit status",
		WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	T_CHECK(!text[0], "%s: something was said of a freed buffer", api);
	return t_done(api);
}

/* Lines of text holding what, and the first of them. */
static int lines_with(const char *text, const char *what, char *first, size_t cap)
{
	int n = 0;

	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (memmem(p, l, what, strlen(what)) && n++ == 0)
			snprintf(first, cap, "%.*s", (int)l, p);
		p += l + (e != NULL);
	}
	return n;
}

static int run(const char *api, int unmap)
{
	char text[8192], first[512] = "", want[128];
	int st, n;

	if (in_child(child, api, unmap, text, sizeof(text), &st))
		return T_ERROR;
	if (WIFEXITED(st) && (WEXITSTATUS(st) == T_ERROR || WEXITSTATUS(st) == T_SKIP))
		return WEXITSTATUS(st);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: the program did not go on: %s %d",
		api, WIFSIGNALED(st) ? "killed by signal" : "exit status",
		WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	n = lines_with(text, SAY, first, sizeof(first));
	T_CHECK(n == 1, "%d lines say \"%s\", want 1", n, SAY);
	snprintf(want, sizeof(want), "hwprof: %s: ",
		 !strcmp(api, "hist")		? "hwprof_hist_new" :
		 !strcmp(api, "PAPI_profil_sw") ? "PAPI_profil" :
						  api);
	T_CHECK(!strncmp(first, want, strlen(want)) &&
			strstr(first, "profiling into it stopped"),
		"the line does not name %s and the stop: %s", api, first);
	return t_done(api);
}

int main(int argc, char **argv)
{
	static const char *const apis[] = {
		"profil",      "sprofil",	 "pcsample", "monitor",
		"PAPI_profil", "PAPI_profil_sw", "hist",
	};
	const char *c = argc > 1 ? argv[1] : "", *dash = strrchr(c, '-');
	char tmpl[] = "/tmp/hwprof-buffault-XXXXXX";
	int r;

	psz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!dash || (strcmp(dash, "-munmap") && strcmp(dash, "-mprotect") &&
		      strcmp(c, "profil-free") && strcmp(c, "sprofil-free")))
		goto usage;
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
		if (strlen(apis[i]) != (size_t)(dash - c) ||
		    strncmp(c, apis[i], (size_t)(dash - c)))
			continue;
		r = t_require_pf();
		if (r)
			return r;
#ifdef TSAN
		/* ThreadSanitizer keeps its own SIGSEGV handler in front:
		 * the drain thread then reads the maps before each batch,
		 * which a signal handler cannot (it allocates) */
		if (!strcmp(apis[i], "PAPI_profil_sw")) {
			printf("SKIP: a FORCE_SW fold is guarded by hwprof's fault handler, which ThreadSanitizer does not let stay\n");
			return T_SKIP;
		}
#endif
		setenv("HWPROF_EVENT", "page-faults", 1);
		setenv("HWPROF_PERIOD", "1", 1);
		/* monitor(0) writes its data file: in a directory of ours */
		if (!mkdtemp(tmpl))
			return T_ERROR;
		if (chdir(tmpl))
			return T_ERROR;
		if (t_pages_new(&pool, NPF))
			return T_ERROR;
		t_prefault_stack();
		r = !strcmp(dash, "-free") ? run_free(apis[i]) :
					     run(apis[i], !strcmp(dash, "-munmap"));
		unlink("gmon.out");
		if (!chdir("/"))
			rmdir(tmpl);
		return r;
	}
usage:
	fprintf(stderr,
		"usage: test-buffault API-munmap|API-mprotect|profil-free|sprofil-free\n");
	return T_ERROR;
}
