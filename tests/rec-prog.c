/* SPDX-License-Identifier: MIT */
/*
 * The programs tests/test-record.sh runs under hwprof record. Each known
 * amount of work happens in one function: rec_touch() stores once into a
 * fresh page (exactly one page fault there), rec_spin() burns CPU.
 *   faults N            N faults, exit 0
 *   exit K N | _exit K N | segv N   N faults, then that end
 *   threads T N         T threads, N faults each
 *   workers W N         W forked workers, N faults each, each ends by _exit
 *   spin FILE [T]       T threads (default 1) spin forever once FILE exists;
 *                       all but the main one are named rec-spin
 *   fsize N             RLIMIT_FSIZE lowered to 0, then N faults, exit 0
 *   gated DIR N         makes DIR/ready, waits for DIR/go, N faults, makes
 *                       DIR/done, then a fault every 10 ms until DIR/stop
 *   daemon FILE         a child in a session of its own writes its pid into
 *                       FILE and lives 60 s; exit 0 once FILE is there
 *   chdir DIR N         chdir(DIR), then N faults, exit 0
 *   dlopen DIR LIB N    chdir(DIR), dlopen("./LIB"), N faults in it,
 *                       dlclose, then another N faults here, exit 0
 *   dlopen2 A B LIB N   dlopen("A/LIB"), N faults in it, dlclose; the
 *                       same with B/LIB (a copy: mapped where the first
 *                       was, usually), exit 0; says "same address" when
 *                       the two were
 *   pgrp CMD ARGS...    runs CMD as the leader of a new process group,
 *                       SIGINT, SIGQUIT and SIGHUP at their defaults
 *   seccomp CMD ARGS... runs CMD under a seccomp filter that denies
 *                       perf_event_open with EPERM (77 if none can be set)
 *   phases DIR N        N faults in rec_touch, makes DIR/a and waits for
 *                       DIR/b; N in rec_touch_b, makes DIR/c and waits for
 *                       DIR/d; N in rec_touch_c, exit 0
 *   two A B             A faults in rec_touch, B in rec_touch_b, exit 0
 *   timed MS N          N faults in rec_touch, MS ms of sleep, N in
 *                       rec_touch_b, exit 0
 *   anon N              N faults made by code copied into anonymous
 *                       executable memory (JIT code: the kernel's
 *                       //anon), exit 0; 77 where that code is not x86-64
 *   sideband DIR K N    makes DIR/ready, waits for DIR/go; K children
 *                       blocked on a pipe, then 4 threads map and unmap an
 *                       executable page N times each (side-band records),
 *                       then the children exit and are reaped; makes
 *                       DIR/done, then maps a page on every CPU every
 *                       10 ms until DIR/stop
 *   probe EVENT         a raw perf_event_open of page-faults or task-clock
 *                       (bypassing hwprof): 0 if it opens, 77 and the
 *                       reason if this machine cannot sample it
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void rec_touch(volatile char *p);
void rec_touch_b(volatile char *p);
void rec_touch_c(volatile char *p);
uint64_t rec_spin(uint64_t n);

__attribute__((noinline, used, no_sanitize_address)) void rec_touch(volatile char *p)
{
	*p = 1;
}

/* the same in other functions, for phases told apart by function */
__attribute__((noinline, used, no_sanitize_address)) void rec_touch_b(volatile char *p)
{
	*p = 2;
}

__attribute__((noinline, used, no_sanitize_address)) void rec_touch_c(volatile char *p)
{
	*p = 3;
}

__attribute__((noinline, used)) uint64_t rec_spin(uint64_t n)
{
	uint64_t x = 88172645463325252ull;

	__asm__ volatile("" ::: "memory");
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static long pg;

/* N fresh pages, each stored to once in touch: N faults there. The
 * text of touch is read here first, so running it faults no more. */
static void faults_in(void (*touch)(volatile char *), long n)
{
	volatile char *text = (volatile char *)(uintptr_t)touch;
	char *p;

	(void)*text;
	if (n <= 0)
		return;
	p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(99);
	}
	madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		touch(p + i * pg);
	munmap(p, (size_t)(n * pg));
}

/* anon N: n faults, each by the one store of a loop that runs from
 * anonymous executable memory, one fresh page each time. */
static int anon_faults(long n)
{
#if defined(__x86_64__)
	static const unsigned char loop[] = {
		0xc6, 0x07, 0x01,			  /* 1: movb $1, (%rdi) */
		0x48, 0x81, 0xc7, 0x00, 0x10, 0x00, 0x00, /* add $4096, %rdi */
		0x48, 0xff, 0xce,			  /* dec %rsi */
		0x75, 0xf1,				  /* jnz 1b */
		0xc3,					  /* ret */
	};
	void (*fn)(char *, long);
	char *p;
	void *code;

	if (pg != 4096 || n <= 0)
		return 99;
	code = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (code == MAP_FAILED || p == MAP_FAILED)
		return 99;
	madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	memcpy(code, loop, sizeof(loop));
	(void)*(volatile char *)code; /* the code page faults now, not in the count */
	if (mprotect(code, (size_t)pg, PROT_READ | PROT_EXEC))
		return 99;
	fn = (void (*)(char *, long))code;
	fn(p, n);
	munmap(p, (size_t)(n * pg));
	return 0;
#else
	(void)n;
	printf("SKIP: anon: the copied code is x86-64\n");
	return 77;
#endif
}

static void faults(long n)
{
	faults_in(rec_touch, n);
}

/* Makes DIR/mark, then waits (up to 60 s) for DIR/next. */
static void handshake(const char *dir, const char *mark, const char *next)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, mark);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/%s", dir, next);
	for (int i = 0; i < 12000 && access(path, F_OK); i++)
		usleep(5000);
}

/* sideband: one executable page mapped and unmapped n times (an MMAP2
 * record each) */
static void *mapper(void *arg)
{
	long n = (long)(intptr_t)arg;

	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, (size_t)pg, PROT_READ | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, (size_t)pg);
	}
	return NULL;
}

/* A marker file DIR/NAME. */
static int mark(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	return fd < 0 ? -1 : close(fd);
}

/* Up to 60 s for DIR/NAME; while waiting, every 10 ms, each when set. */
static void await(const char *dir, const char *name, void (*each)(void))
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < 6000 && access(path, F_OK); i++) {
		if (each)
			each();
		usleep(10000);
	}
}

/* An executable page mapped n times on every CPU this process may run
 * on: the side-band ring of each CPU gets n records. */
static void map_on_each_cpu(long n)
{
	cpu_set_t all, one;

	if (sched_getaffinity(0, sizeof(all), &all))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (!sched_setaffinity(0, sizeof(one), &one))
			mapper((void *)(intptr_t)n);
	}
	sched_setaffinity(0, sizeof(all), &all);
}

/* The kernel reports a ring's drops with the next record it writes
 * there: one on every CPU. */
static void map_everywhere(void)
{
	map_on_each_cpu(1);
}

static int sideband(const char *dir, long kids, long n)
{
	pthread_t t[4];
	int gate[2];

	if (pipe(gate) || mark(dir, "ready"))
		return 99;
	await(dir, "go", NULL);
	for (long i = 0; i < kids; i++) {
		pid_t p = fork();
		char c;

		if (!p) { /* blocked until the pipe closes */
			close(gate[1]);
			_exit(read(gate[0], &c, 1) == 0 ? 0 : 1);
		}
		if (p < 0)
			return 99;
	}
	close(gate[0]);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, mapper, (void *)(intptr_t)n))
			return 99;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	/* every CPU's ring full, whichever CPUs the threads ran on */
	map_on_each_cpu(n);
	close(gate[1]); /* the children exit: their exit records come
			 * into rings that are full */
	while (wait(NULL) > 0)
		;
	if (mark(dir, "done"))
		return 99;
	await(dir, "stop", map_everywhere);
	return 0;
}

static long per_thread;
static pthread_barrier_t bar;

static void *thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&bar); /* all alive at once */
	faults(per_thread);
	return NULL;
}

static void *spinner(void *arg)
{
	volatile uint64_t sink;

	(void)arg;
	for (;;)
		sink = rec_spin(1000000);
	(void)sink;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;

	pg = sysconf(_SC_PAGESIZE);
	if (!strcmp(m, "faults")) {
		faults(a);
		return 0;
	}
	if (!strcmp(m, "phases") && argc > 3) {
		faults_in(rec_touch, b);
		handshake(argv[2], "a", "b");
		faults_in(rec_touch_b, b);
		handshake(argv[2], "c", "d");
		faults_in(rec_touch_c, b);
		return 0;
	}
	if (!strcmp(m, "two")) {
		faults_in(rec_touch, a);
		faults_in(rec_touch_b, b);
		return 0;
	}
	if (!strcmp(m, "timed")) {
		faults_in(rec_touch, b);
		usleep((useconds_t)a * 1000);
		faults_in(rec_touch_b, b);
		return 0;
	}
	if (!strcmp(m, "exit")) {
		faults(b);
		exit((int)a);
	}
	if (!strcmp(m, "_exit")) {
		faults(b);
		_exit((int)a);
	}
	if (!strcmp(m, "segv")) {
		/* a real fault: a page that cannot be written */
		volatile char *bad = mmap(NULL, (size_t)pg, PROT_NONE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		faults(a);
		*bad = 0;
		return 0;
	}
	if (!strcmp(m, "threads")) {
		pthread_t *t = calloc((size_t)a, sizeof(*t));
		pthread_attr_t at;

		per_thread = b;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 64 * 1024);
		pthread_barrier_init(&bar, NULL, (unsigned int)a);
		for (long i = 0; i < a; i++)
			if (pthread_create(&t[i], &at, thread, NULL)) {
				fprintf(stderr, "rec-prog: thread %ld not made\n", i);
				return 99;
			}
		for (long i = 0; i < a; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(m, "workers")) {
		for (long i = 0; i < a; i++) {
			pid_t p = fork();

			if (!p) {
				faults(b);
				_exit(0);
			}
			if (p < 0)
				return 99;
		}
		while (wait(NULL) > 0)
			;
		return 0;
	}
	if (!strcmp(m, "spin") && argc > 2) {
		long n = argc > 3 ? atol(argv[3]) : 1;
		pthread_t t;
		int fd;

		for (long i = 1; i < n; i++)
			if (!pthread_create(&t, NULL, spinner, NULL))
				pthread_setname_np(t, "rec-spin");
		fd = open(argv[2], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		spinner(NULL);
	}
	if (!strcmp(m, "seccomp") && argc > 2) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
			printf("SKIP: cannot install a seccomp filter: %s\n", strerror(errno));
			return 77;
		}
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 99;
	}
	if (!strcmp(m, "gated") && argc > 3) {
		char path[4096];
		int fd;

		snprintf(path, sizeof(path), "%s/ready", argv[2]);
		if ((fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) < 0)
			return 99;
		close(fd);
		snprintf(path, sizeof(path), "%s/go", argv[2]);
		for (int i = 0; i < 6000 && access(path, F_OK); i++)
			usleep(10000);
		faults(atol(argv[3]));
		snprintf(path, sizeof(path), "%s/done", argv[2]);
		if ((fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) < 0)
			return 99;
		close(fd);
		/* a fault every 10 ms: the kernel says what it lost with the
		 * next record it can write */
		snprintf(path, sizeof(path), "%s/stop", argv[2]);
		for (int i = 0; i < 6000 && access(path, F_OK); i++) {
			faults(1);
			usleep(10000);
		}
		return 0;
	}
	if (!strcmp(m, "sideband") && argc > 4)
		return sideband(argv[2], atol(argv[3]), atol(argv[4]));
	if (!strcmp(m, "daemon") && argc > 2) {
		char tmp[4096];
		pid_t p = fork();
		int fd;

		if (p < 0)
			return 99;
		if (!p) { /* its own session, its pid in FILE, 60 s */
			setsid();
			snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
			fd = open(tmp, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0 || close(fd) ||
			    rename(tmp, argv[2]))
				_exit(99);
			sleep(60);
			_exit(0);
		}
		for (int i = 0; i < 1000 && access(argv[2], F_OK); i++)
			usleep(10000);
		return access(argv[2], F_OK) ? 99 : 0;
	}
	if (!strcmp(m, "fsize")) {
		struct rlimit rl = { 0, 0 };

		setrlimit(RLIMIT_FSIZE, &rl);
		faults(a);
		return 0;
	}
	if (!strcmp(m, "chdir") && argc > 3) {
		if (chdir(argv[2]))
			return 99;
		faults(b);
		return 0;
	}
#ifndef REC_STATIC
	if (!strcmp(m, "dlopen") && argc > 4) {
		char rel[4096];
		void (*f)(long);
		void *h;

		snprintf(rel, sizeof(rel), "./%s", argv[3]);
		if (chdir(argv[2]) || !(h = dlopen(rel, RTLD_NOW))) {
			fprintf(stderr, "rec-prog: %s\n", dlerror());
			return 99;
		}
		*(void **)&f = dlsym(h, "rec_lib_faults");
		if (!f)
			return 99;
		f(atol(argv[4]));
		dlclose(h);
		faults(atol(argv[4]));
		return 0;
	}
	if (!strcmp(m, "dlopen2") && argc > 5) {
		void (*f)(long);
		void *at[2] = { NULL, NULL };

		for (int i = 0; i < 2; i++) {
			char path[4096];
			void *h;

			snprintf(path, sizeof(path), "%s/%s", argv[2 + i], argv[4]);
			if (!(h = dlopen(path, RTLD_NOW)) ||
			    !(*(void **)&f = dlsym(h, "rec_lib_faults"))) {
				fprintf(stderr, "rec-prog: %s\n", dlerror());
				return 99;
			}
			at[i] = *(void **)&f;
			f(atol(argv[5]));
			dlclose(h);
		}
		if (at[0] == at[1])
			fputs("same address\n", stderr);
		return 0;
	}
#endif
	if (!strcmp(m, "pgrp") && argc > 2) {
		/* as a shell's foreground job: a background job of a
		 * non-interactive shell starts with these ignored */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		/* and a test suite run under nohup starts with SIGHUP
		 * ignored, which record rightly passes on to the command
		 * (the nohup check of the cli case): sighup-record's
		 * command would ignore the SIGHUP record forwards and spin
		 * until meson's timeout */
		signal(SIGHUP, SIG_DFL);
		setpgid(0, 0);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 99;
	}
	if (!strcmp(m, "probe") && argc > 2) {
		struct perf_event_attr at = {
			.size = sizeof(at),
			.type = PERF_TYPE_SOFTWARE,
			.config = strcmp(argv[2], "page-faults") ? PERF_COUNT_SW_TASK_CLOCK :
								   PERF_COUNT_SW_PAGE_FAULTS,
			.sample_period = 1000000,
			.sample_type = PERF_SAMPLE_IP,
			.disabled = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};
		int fd = (int)syscall(SYS_perf_event_open, &at, 0, -1, -1, 0);

		if (fd >= 0)
			return 0;
		switch (errno) {
		case ENOENT:
		case ENODEV:
		case EOPNOTSUPP:
		case ENOSYS:
		case EACCES:
		case EPERM:
			printf("SKIP: %s cannot be sampled here: %s\n", argv[2],
			       strerror(errno));
			return 77;
		}
		printf("ERROR: probe %s: %s\n", argv[2], strerror(errno));
		return 99;
	}
	if (!strcmp(m, "anon"))
		return anon_faults(a);
	fprintf(stderr,
		"usage: rec-prog faults|exit|_exit|segv|threads|workers|spin|fsize|chdir ...\n");
	return 99;
}

/* Under ASan, LeakSanitizer's check at exit runs in a process of its own
 * (the tests count this program's processes), and ASan's SIGSEGV handler
 * would turn segv's fault into exit 1: both off here. */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void)
{
	return "detect_leaks=0:handle_segv=0";
}
