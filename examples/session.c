/* SPDX-License-Identifier: MIT */
/*
 * Sample every thread of this program on task-clock every 100 us, into
 * per-object buckets, and print where the samples landed.
 * Build: cc session.c $(pkg-config --cflags --libs hwprof) -lpthread
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <hwprof.h>

static void *busy(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg | 1;

	for (long i = 0; i < 100000000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return (void *)(uintptr_t)x;
}

static void log_stderr(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

int main(void)
{
	struct hwprof_session_opts o = {
		.sz = sizeof(o),
		.mode = HWPROF_SESSION_PROCESS,
	};
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	const struct hwprof_object *objs;
	struct hwprof_session *s;
	pthread_t t;
	void *r1, *r2;
	size_t n;
	int ret;

	hwprof_set_log(log_stderr, NULL, HWPROF_LOG_WARN);
	ret = hwprof_session_new(&o, &s);
	if (!ret)
		ret = hwprof_session_add(s, "task-clock", 100000, NULL);
	if (ret >= 0)
		ret = hwprof_session_start(s);
	if (ret < 0) {
		fprintf(stderr, "session: %s\n", strerror(-ret));
		hwprof_session_free(s);
		return 1;
	}
	pthread_create(&t, NULL, busy, (void *)1); /* sampled too */
	r2 = busy((void *)2);
	pthread_join(t, &r1);
	hwprof_session_stop(s);

	hwprof_session_stats(s, 0, &st);
	printf("%llu samples (%llu lost, %llu outside every object) from %u threads (%d)\n",
	       (unsigned long long)st.samples, (unsigned long long)st.lost,
	       (unsigned long long)st.outside, st.threads, r1 != r2);
	hwprof_session_objects(s, 0, &objs, &n);
	for (size_t i = 0; i < n; i++) {
		uint64_t sum = 0, best = 0;
		size_t at = 0;

		for (size_t b = 0; b < objs[i].nbuckets; b++) {
			sum += objs[i].counts[b];
			if (objs[i].counts[b] > best) {
				best = objs[i].counts[b];
				at = b;
			}
		}
		if (sum)
			printf("%8llu  %s (hottest: +%#llx)\n", (unsigned long long)sum,
			       objs[i].path,
			       (unsigned long long)(objs[i].start - objs[i].base +
						    at * HWPROF_OBJECT_BYTES));
	}
	hwprof_session_free(s);
	return st.samples ? 0 : 1;
}
