/* SPDX-License-Identifier: MIT */
/*
 * Call paths in the engine (HWPROF_SESSION_CALLCHAIN,
 * hwprof_session_paths(3)), exact on page faults: path_top() calls
 * path_mid_a() three times for each call of path_mid_b(), and both call
 * path_leaf() on a fresh page, so with threshold 1 every sample at
 * path_leaf's store has the path path_leaf < mid_a or mid_b < path_top, in
 * the ratio 3:1. Built with frame pointers, leaf functions included (the
 * kernel walks user stacks by them; tests/meson.build).
 * usage: test-session-paths CASE   (thread, process, deep, reset, errors)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof.h"
#include "harness.h"
#include "tlib.h"

void path_leaf(volatile char *p);
void path_mid_a(struct t_pages *p);
void path_mid_b(struct t_pages *p);
void path_top(struct t_pages *p, int n);
void path_deep(struct t_pages *p, int depth);

/*
 * The store, in a function with a frame of its own: GCC gives a leaf that
 * needs no stack no frame even under -fno-omit-frame-pointer (tlib.c's
 * touch_a is one), and the kernel's walk then goes from the leaf straight
 * to its caller's caller (hwprof_session_paths(3), BUGS). Not instrumented
 * by a sanitizer, as touch_a (tlib.h).
 */
__attribute__((noinline, used, no_sanitize_address, no_sanitize("thread"))) void
path_leaf(volatile char *p)
{
	__asm__ volatile("" ::"r"(__builtin_frame_address(0)));
	*p = 1;
}

/* Global and -rdynamic (tests/meson.build), so dladdr() names them. */
__attribute__((noinline)) void path_mid_a(struct t_pages *p)
{
	path_leaf(t_page(p));
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void path_mid_b(struct t_pages *p)
{
	path_leaf(t_page(p));
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void path_top(struct t_pages *p, int n)
{
	for (int i = 0; i < n; i++) {
		path_mid_a(p);
		path_mid_a(p);
		path_mid_a(p);
		path_mid_b(p);
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void path_deep(struct t_pages *p, int depth)
{
	if (depth > 1)
		path_deep(p, depth - 1);
	else
		path_leaf(t_page(p));
	__asm__ volatile("" ::: "memory");
}

static uint64_t store_pc;

/* The name of the function holding pc ("" when none). */
static const char *fn_name(uint64_t pc)
{
	Dl_info di;

	if (!dladdr((void *)(uintptr_t)pc, &di) || !di.dli_sname)
		return "";
	return di.dli_sname;
}

struct tally {
	uint64_t a, b;	/* samples at path_leaf's store by way of mid_a, mid_b */
	uint64_t store; /* samples at path_leaf's store */
	uint64_t sum;	/* samples of every node */
	uint64_t deep;	/* of path_leaf's, with 100 path_deep frames above it */
};

/* Checks the tree's shape (parents first, depths) and counts the paths. */
static struct tally tally(const struct hwprof_path_node *nd, size_t n)
{
	struct tally t = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct hwprof_path_node *x = &nd[i];

		if (x->parent == HWPROF_NO_NODE) {
			T_CHECK(x->depth == 1, "root %zu: depth %u", i, x->depth);
		} else {
			T_CHECK(x->parent < i, "node %zu: parent %u after it", i, x->parent);
			if (x->parent < i)
				T_CHECK(x->depth == nd[x->parent].depth + 1,
					"node %zu: depth %u under %u", i, x->depth,
					nd[x->parent].depth);
		}
		t.sum += x->samples;
		if (x->pc != store_pc || !x->samples)
			continue;
		t.store += x->samples;
		if (x->parent == HWPROF_NO_NODE || nd[x->parent].parent == HWPROF_NO_NODE)
			continue;
		/* a return address is the instruction after the call: its
		 * function is that of pc - 1 */
		const char *mid = fn_name(nd[x->parent].pc - 1);
		const char *top = fn_name(nd[nd[x->parent].parent].pc - 1);

		if (!strcmp(mid, "path_deep")) {
			uint32_t up = x->parent;
			int k = 0;

			while (up != HWPROF_NO_NODE &&
			       !strcmp(fn_name(nd[up].pc - 1), "path_deep")) {
				k++;
				up = nd[up].parent;
			}
			if (k >= 100)
				t.deep += x->samples;
			continue;
		}
		if (strcmp(top, "path_top"))
			continue;
		if (!strcmp(mid, "path_mid_a"))
			t.a += x->samples;
		else if (!strcmp(mid, "path_mid_b"))
			t.b += x->samples;
	}
	return t;
}

static struct hwprof_session *callchain_session(unsigned int mode)
{
	struct hwprof_session_opts o = {
		.sz = sizeof(o),
		.mode = mode,
		.flags = HWPROF_SESSION_CALLCHAIN,
	};
	struct hwprof_session *s = NULL;

	T_EQ(hwprof_session_new(&o, &s), 0);
	if (s)
		T_EQ(hwprof_session_add(s, "page-faults", 1, NULL), 0);
	return s;
}

static int need(void)
{
	int r = t_require_pf();

	if (r)
		return r;
	store_pc = t_store_pc(path_leaf);
	if (!store_pc)
		return T_ERROR;
	t_prefault_stack();
	return T_PASS;
}

static struct hwprof_session_stats stats_of(struct hwprof_session *s)
{
	struct hwprof_session_stats st = { .sz = sizeof(st) };

	T_EQ(hwprof_session_stats(s, 0, &st), 0);
	return st;
}

/* Every sample kept with its path, and the tree's counts add up to it. */
static struct tally check_tree(struct hwprof_session *s, const char *what)
{
	struct hwprof_session_stats st = stats_of(s);
	const struct hwprof_path_node *nd = NULL;
	struct tally t;
	size_t n = 0;

	T_EQ(hwprof_session_paths(s, 0, &nd, &n), 0);
	t = tally(nd, n);
	if (getenv("DUMP"))
		for (size_t i = 0; i < n; i++)
			printf("%zu: parent %u depth %u pc %#llx %s samples %llu\n", i,
			       nd[i].parent, nd[i].depth, (unsigned long long)nd[i].pc,
			       fn_name(nd[i].pc - 1), (unsigned long long)nd[i].samples);
	printf("%s: %zu nodes; %llu samples, %llu with paths, %llu cut, %llu lost; at path_leaf's store %llu: by mid_a %llu, by mid_b %llu\n",
	       what, n, (unsigned long long)st.samples, (unsigned long long)st.paths,
	       (unsigned long long)st.paths_cut, (unsigned long long)st.lost,
	       (unsigned long long)t.store, (unsigned long long)t.a, (unsigned long long)t.b);
	T_EQ(st.lost, 0);
	T_EQ(st.paths, st.samples);
	T_EQ(t.sum, st.paths);
	return t;
}

static int case_thread(void)
{
	struct hwprof_session *s;
	struct t_pages pool;
	struct tally t;
	int r = need();

	if (r || (r = t_pages_new(&pool, 400)))
		return r;
	s = callchain_session(HWPROF_SESSION_THREAD);
	T_EQ(hwprof_session_start(s), 0);
	path_top(&pool, 100);
	T_EQ(hwprof_session_stop(s), 0);
	t = check_tree(s, "thread");
	T_EQ(t.a, 300);
	T_EQ(t.b, 100);
	T_EQ(t.store, 400);
	T_EQ(stats_of(s).paths_cut, 0);
	hwprof_session_free(s);
	t_pages_free(&pool);
	return t_done("session-paths thread");
}

static pthread_barrier_t go;

static void *worker(void *arg)
{
	struct t_pages *pool = arg;

	t_prefault_stack();
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&go);
	path_top(pool, 50);
	return NULL;
}

/* A process-wide session (rings shared per CPU on a small machine): a
 * thread made before start and the main thread, both counted. */
static int case_process(void)
{
	struct hwprof_session *s;
	struct t_pages pool, wpool;
	struct tally t;
	pthread_t th;
	int r = need();

	if (r || (r = t_pages_new(&pool, 400)) || (r = t_pages_new(&wpool, 200)))
		return r;
	pthread_barrier_init(&go, NULL, 2);
	T_EQ(pthread_create(&th, NULL, worker, &wpool), 0);
	pthread_barrier_wait(&go);
	s = callchain_session(HWPROF_SESSION_PROCESS);
	T_EQ(hwprof_session_start(s), 0);
	pthread_barrier_wait(&go);
	path_top(&pool, 100);
	pthread_join(th, NULL);
	T_EQ(hwprof_session_stop(s), 0);
	t = check_tree(s, "process");
	T_EQ(t.a, 450);
	T_EQ(t.b, 150);
	T_EQ(t.store, 600);
	hwprof_session_free(s);
	t_pages_free(&pool);
	t_pages_free(&wpool);
	return t_done("session-paths process");
}

/* 200 frames of recursion: past the kernel's depth limit (at most 127
 * user frames, kernel.perf_event_max_stack), so every such path is cut,
 * and counted. */
static int case_deep(void)
{
	struct hwprof_session_stats st;
	struct hwprof_session *s;
	struct t_pages pool;
	struct tally t;
	int r = need();

	if (r || (r = t_pages_new(&pool, 100)))
		return r;
	t_prefault_stack();
	s = callchain_session(HWPROF_SESSION_THREAD);
	T_EQ(hwprof_session_start(s), 0);
	for (int i = 0; i < 50; i++)
		path_deep(&pool, 200);
	T_EQ(hwprof_session_stop(s), 0);
	t = check_tree(s, "deep");
	st = stats_of(s);
	T_EQ(t.deep, 50);
	T_CHECK(st.paths_cut >= 50, "cut %llu, want 50 or more",
		(unsigned long long)st.paths_cut);
	hwprof_session_free(s);
	t_pages_free(&pool);
	return t_done("session-paths deep");
}

/* reset forgets the paths; a second run counts from zero. */
static int case_reset(void)
{
	const struct hwprof_path_node *nd;
	struct hwprof_session *s;
	struct t_pages pool;
	struct tally t;
	size_t n = 1;
	int r = need();

	if (r || (r = t_pages_new(&pool, 400)))
		return r;
	s = callchain_session(HWPROF_SESSION_THREAD);
	T_EQ(hwprof_session_start(s), 0);
	path_top(&pool, 10);
	T_EQ(hwprof_session_stop(s), 0);
	T_EQ(hwprof_session_reset(s), 0);
	T_EQ(hwprof_session_paths(s, 0, &nd, &n), 0);
	T_EQ(n, 0);
	T_EQ(stats_of(s).paths, 0);
	t_pages_zap(&pool);
	T_EQ(hwprof_session_start(s), 0);
	path_top(&pool, 20);
	T_EQ(hwprof_session_stop(s), 0);
	t = check_tree(s, "after reset");
	T_EQ(t.a, 60);
	T_EQ(t.b, 20);
	hwprof_session_free(s);
	t_pages_free(&pool);
	return t_done("session-paths reset");
}

static int case_errors(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .flags = 1u << 7 };
	const struct hwprof_path_node *nd;
	struct hwprof_session *s = NULL;
	size_t n;

	T_EQ(hwprof_session_new(&o, &s), -EINVAL); /* an unknown flag */
	o.flags = 0;
	T_EQ(hwprof_session_new(&o, &s), 0);
	T_EQ(hwprof_session_add(s, "page-faults", 1, NULL), 0);
	T_EQ(hwprof_session_paths(s, 0, &nd, &n), -ENOENT); /* no CALLCHAIN */
	hwprof_session_free(s);
	s = callchain_session(HWPROF_SESSION_THREAD);
	T_EQ(hwprof_session_paths(s, 1, &nd, &n), -EINVAL);
	T_EQ(hwprof_session_paths(s, -1, &nd, &n), -EINVAL);
	T_EQ(hwprof_session_paths(s, 0, NULL, &n), -EINVAL);
	T_EQ(hwprof_session_paths(s, 0, &nd, NULL), -EINVAL);
	T_EQ(hwprof_session_paths(NULL, 0, &nd, &n), -EINVAL);
	T_EQ(hwprof_session_paths(s, 0, &nd, &n), 0); /* before start: empty */
	T_EQ(n, 0);
	hwprof_session_free(s);
	return t_done("session-paths errors");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "thread"))
		return case_thread();
	if (!strcmp(c, "process"))
		return case_process();
	if (!strcmp(c, "deep"))
		return case_deep();
	if (!strcmp(c, "reset"))
		return case_reset();
	if (!strcmp(c, "errors"))
		return case_errors();
	printf("usage: test-session-paths CASE\n");
	return T_ERROR;
}
