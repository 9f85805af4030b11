/* SPDX-License-Identifier: MIT */
/*
 * Per-sample overhead on a CPU-bound loop. One process runs the workload
 * under one profiler and prints, on one line, the workload's wall time
 * (measured around the loop only, so tool start-up is excluded) and the
 * samples taken:
 *   none          nothing (the baseline; perf record wraps this one)
 *   floor         one bare perf_event task-clock fd whose ring is read only
 *                 at the end: the cost no implementation can go below
 *   hwprof        an hwprof session (thread mode, default ring and drain)
 *   papi          PAPI_profil on perf::TASK-CLOCK (when built with PAPI)
 * usage: overhead MODE PERIOD_NS ITERATIONS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hwprof.h>
#ifdef HAVE_PAPI
#include <papi.h>
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A dependent chain: no calls, no memory traffic. */
__attribute__((noinline)) static uint64_t work(uint64_t n)
{
	uint64_t x = 88172645463325252ull;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static volatile uint64_t sink;

static int run_floor(uint64_t period, uint64_t n, double *t, uint64_t *samples)
{
	const size_t pages = 1024; /* 4 MiB: holds every sample of a run */
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.watermark = 1,
		.wakeup_watermark = 1u << 30, /* never: read at the end */
		.read_format = PERF_FORMAT_LOST,
	};
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t head, pos = 0, rv[2] = { 0, 0 };
	double t0;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	pg = mmap(NULL, (pages + 1) * (size_t)psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED)
		return -errno;
	data = (unsigned char *)pg + psz;
	*samples = 0;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = now();
	sink = work(n);
	*t = now() - t0;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	/* a sample dropped because the ring was full still cost its
	 * interrupt: count it (PERF_FORMAT_LOST: {value, lost}) */
	if (read(fd, rv, sizeof(rv)) == sizeof(rv))
		*samples = rv[1];
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	while (pos < head) {
		struct perf_event_header h;

		memcpy(&h, data + (pos & (pages * (size_t)psz - 1)), sizeof(h));
		if (!h.size)
			break;
		*samples += h.type == PERF_RECORD_SAMPLE;
		pos += h.size;
	}
	munmap(pg, (pages + 1) * (size_t)psz);
	close(fd);
	return 0;
}

static int run_hwprof(uint64_t period, uint64_t n, double *t, uint64_t *samples,
		      uint64_t *lost)
{
	static uint32_t buf[4096];
	struct hwprof_region r = {
		.base = buf,
		.size = sizeof(buf),
		.offset = (uint64_t)(uintptr_t)work,
		.scale = 0x8000,
		.width = 32,
	};
	struct hwprof_hist_opts ho = {
		.sz = sizeof(ho),
		.regions = &r,
		.nregions = 1,
		.index = HWPROF_INDEX_PAPI,
	};
	struct hwprof_session_stats st = { .sz = sizeof(st) };
	struct hwprof_session *s;
	struct hwprof_hist *h;
	double t0;
	int ret;

	if ((ret = hwprof_hist_new(&ho, &h)) || (ret = hwprof_session_new(NULL, &s)))
		return ret;
	ret = hwprof_session_add(s, "task-clock", period, h);
	if (ret < 0 || (ret = hwprof_session_start(s)))
		return ret;
	t0 = now();
	sink = work(n);
	*t = now() - t0;
	hwprof_session_stop(s);
	hwprof_session_stats(s, 0, &st);
	*samples = st.samples;
	*lost = st.lost;
	hwprof_session_free(s);
	hwprof_hist_free(h);
	return 0;
}

#ifdef HAVE_PAPI
static int run_papi(uint64_t period, uint64_t n, double *t, uint64_t *samples)
{
	static unsigned short buf[1 << 16];
	int es = PAPI_NULL, code, ret;
	long long v;
	double t0;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return -1;
	if ((ret = PAPI_create_eventset(&es)) ||
	    (ret = PAPI_event_name_to_code("perf::TASK-CLOCK", &code)) ||
	    (ret = PAPI_add_event(es, code)) ||
	    (ret = PAPI_profil(buf, sizeof(buf), (vptr_t)work, 65536, es, code, (int)period,
			       PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_16)) ||
	    (ret = PAPI_start(es))) {
		fprintf(stderr, "papi: %s\n", PAPI_strerror(ret));
		return -1;
	}
	t0 = now();
	sink = work(n);
	*t = now() - t0;
	PAPI_stop(es, &v);
	*samples = 0;
	for (size_t i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
		*samples += buf[i];
	return 0;
}
#endif

int main(int argc, char **argv)
{
	uint64_t period, n, samples = 0, lost = 0;
	double t = 0, t0;
	int ret = 0;

	if (argc < 4) {
		fprintf(stderr,
			"usage: overhead none|floor|hwprof|papi PERIOD_NS ITERATIONS\n");
		return 2;
	}
	period = strtoull(argv[2], NULL, 0);
	n = strtoull(argv[3], NULL, 0);
	if (!strcmp(argv[1], "none")) {
		t0 = now();
		sink = work(n);
		t = now() - t0;
	} else if (!strcmp(argv[1], "floor")) {
		ret = run_floor(period, n, &t, &samples);
	} else if (!strcmp(argv[1], "hwprof")) {
		ret = run_hwprof(period, n, &t, &samples, &lost);
	} else if (!strcmp(argv[1], "papi")) {
#ifdef HAVE_PAPI
		ret = run_papi(period, n, &t, &samples);
#else
		fprintf(stderr, "overhead: built without PAPI\n");
		return 77;
#endif
	} else {
		return 2;
	}
	if (ret) {
		fprintf(stderr, "overhead: %s failed: %d\n", argv[1], ret);
		return 1;
	}
	printf("%s %.6f %llu %llu\n", argv[1], t, (unsigned long long)samples,
	       (unsigned long long)lost);
	return 0;
}
