/* SPDX-License-Identifier: MIT */
/*
 * The engine at thread scale (bench/README.md, "Threads"): a process-wide
 * task-clock session over N spinning threads for a while, then what it
 * cost: memory locked for rings, perf fds, start and stop time, samples
 * and samples lost, and the drain thread's CPU time per sample.
 * usage: threads NTHREADS PERIOD_NS SECONDS [spin|parked|late]
 *   spin: the threads spin through start and stop; parked (the default):
 *   they wait on a condition variable while the session starts and stops
 *   and spin in between; late: they are made after start (each attaches
 *   itself) and parked for stop
 * Prints one line: threads period_ns uid ring_pages locked_kib fds
 * start_ms stop_ms samples lost missed drain_ns_per_sample mode
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hwprof.h>

static volatile int stop;
static pthread_barrier_t bar;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER, parked_cv = PTHREAD_COND_INITIALIZER;
static int go, parked;

/* Spins while go is set; parks on cv (counted in parked) while not. */
static void *spin(void *arg)
{
	uint64_t x = (uintptr_t)arg + 1;

	pthread_barrier_wait(&bar);
	while (!stop) {
		if (!__atomic_load_n(&go, __ATOMIC_RELAXED)) {
			pthread_mutex_lock(&mu);
			parked++;
			pthread_cond_broadcast(&parked_cv);
			while (!go && !stop)
				pthread_cond_wait(&cv, &mu);
			parked--;
			pthread_mutex_unlock(&mu);
			continue;
		}
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 1;
	}
	return (void *)(uintptr_t)x;
}

static void set_go(int v, int n)
{
	pthread_mutex_lock(&mu);
	go = v;
	pthread_cond_broadcast(&cv);
	while (!v && parked < n) /* wait until every thread is parked */
		pthread_cond_wait(&parked_cv, &mu);
	pthread_mutex_unlock(&mu);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Bytes of perf rings mapped, and perf fds open, in this process. */
static void perf_use(uint64_t *bytes, int *fds)
{
	char line[512], path[300], link[256];
	FILE *f = fopen("/proc/self/maps", "r");
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	*bytes = 0;
	*fds = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (strstr(line, "[perf_event]") && sscanf(line, "%lx-%lx", &a, &b) == 2)
			*bytes += b - a;
	}
	if (f)
		fclose(f);
	while (d && (de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			*fds += strstr(link, "perf_event") != NULL;
		}
	}
	if (d)
		closedir(d);
}

/* CPU time of the thread named hwprof-drain, in ns (schedstat). */
static uint64_t drain_cpu_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	uint64_t ns = 0;

	while (d && (de = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (strncmp(comm, "hwprof-drain", 12))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", de->d_name);
		f = fopen(path, "r");
		if (f) {
			unsigned long long v;

			if (fscanf(f, "%llu", &v) == 1)
				ns = v;
			fclose(f);
		}
	}
	if (d)
		closedir(d);
	return ns;
}

int main(int argc, char **argv)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s;
	int n = argc > 1 ? atoi(argv[1]) : 16, fds;
	uint64_t period = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000, bytes, drain;
	double secs = argc > 3 ? atof(argv[3]) : 2, t0, t_start, t_stop;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t pa;
	int ret;

	const char *mode = argc > 4 ? argv[4] : "parked";
	int late = !strcmp(mode, "late"), spinning = !strcmp(mode, "spin");

	pthread_barrier_init(&bar, NULL, (unsigned)n + 1);
	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, 64 * 1024);
	go = spinning;
	if (hwprof_session_new(&o, &s) ||
	    hwprof_session_add(s, "task-clock", period, NULL) < 0)
		return 1;
	for (int i = 0; !late && i < n; i++)
		if (pthread_create(&t[i], &pa, spin, (void *)(uintptr_t)i))
			return 1;
	if (!late) {
		pthread_barrier_wait(&bar);
		if (!spinning)
			set_go(0, n);
	}
	t0 = now_ms();
	ret = hwprof_session_start(s);
	t_start = now_ms() - t0;
	if (ret) {
		fprintf(stderr, "start: %s\n", strerror(-ret));
		return 1;
	}
	for (int i = 0; late && i < n; i++)
		if (pthread_create(&t[i], &pa, spin, (void *)(uintptr_t)i))
			return 1;
	if (late)
		pthread_barrier_wait(&bar);
	set_go(1, n);
	perf_use(&bytes, &fds);
	usleep((useconds_t)(secs * 1e6));
	drain = drain_cpu_ns();
	if (!spinning)
		set_go(0, n);
	t0 = now_ms();
	hwprof_session_stop(s);
	t_stop = now_ms() - t0;
	hwprof_session_stats(s, 0, &st);
	stop = 1;
	set_go(1, n);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%d %llu %d %u %llu %d %.2f %.2f %llu %llu %u %.0f %s\n", n,
	       (unsigned long long)period, (int)geteuid(), st.ring_pages,
	       (unsigned long long)(bytes / 1024), fds, t_start, t_stop,
	       (unsigned long long)st.samples, (unsigned long long)st.lost, st.missed,
	       st.samples ? (double)drain / (double)st.samples : 0.0, mode);
	hwprof_session_free(s);
	free(t);
	return 0;
}
