/* SPDX-License-Identifier: MIT */
/*
 * The one -errno -> PAPI code table (lib/compat/papi_lib.c,
 * hwp_papi_errno()): every row in both columns, written out here a second
 * time so that a changed row fails; then the calls that use it, each fed
 * every errno of the table by a seccomp filter on perf_event_open(2) in a
 * child: PAPI_start() opening a counter (the use column),
 * PAPI_query_named_event() probing a name (the query column), and
 * PAPI_start() opening the profiling session of a PAPI_profil() set (the
 * use column again, after the engine's own translation).
 * usage: test-papi-errno table|calls|session [ARGS...] (the unit suite's
 * runner may pass more arguments, as .ci/run's valgrind pass does: ignored)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/compat/papi_priv.h"
#include "harness.h"

static const struct row {
	int err, query, use;
} rows[] = {
	{ EPERM, PAPI_EPERM, PAPI_EPERM },	    { EACCES, PAPI_EPERM, PAPI_EPERM },
	{ ENOENT, PAPI_ENOEVNT, PAPI_ENOEVNT },	    { ENODEV, PAPI_ENOEVNT, PAPI_ENOSUPP },
	{ EOPNOTSUPP, PAPI_ENOEVNT, PAPI_ENOSUPP }, { EINVAL, PAPI_ENOEVNT, PAPI_EINVAL },
	{ ENOMEM, PAPI_ENOMEM, PAPI_ENOMEM },	    { EMFILE, PAPI_ENOEVNT, PAPI_ECOUNT },
	{ ENFILE, PAPI_ENOEVNT, PAPI_ECOUNT },	    { E2BIG, PAPI_ENOEVNT, PAPI_ECOUNT },
	{ EBUSY, PAPI_ENOEVNT, PAPI_ECNFLCT },	    { ENOSPC, PAPI_ENOEVNT, PAPI_ECNFLCT },
	{ ESRCH, PAPI_ENOEVNT, PAPI_ESYS },	    { ENOSYS, PAPI_ENOEVNT, PAPI_ESYS },
	{ EAGAIN, PAPI_ENOEVNT, PAPI_ESYS },	    { EBADF, PAPI_ENOEVNT, PAPI_ESYS },
	{ EXDEV, PAPI_ENOEVNT, PAPI_ESYS }, /* not listed: the default */
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static int table(void)
{
	for (size_t i = 0; i < NROWS; i++) {
		T_CHECK(hwp_papi_errno(-rows[i].err, HWP_PAPI_AT_QUERY) == rows[i].query,
			"errno %d query: %d", rows[i].err,
			hwp_papi_errno(-rows[i].err, HWP_PAPI_AT_QUERY));
		T_CHECK(hwp_papi_errno(-rows[i].err, HWP_PAPI_AT_USE) == rows[i].use,
			"errno %d use: %d", rows[i].err,
			hwp_papi_errno(-rows[i].err, HWP_PAPI_AT_USE));
	}
	T_EQ(hwp_papi_errno(0, HWP_PAPI_AT_USE), PAPI_OK);
	T_EQ(hwp_papi_errno(7, HWP_PAPI_AT_QUERY), PAPI_OK); /* an fd */
	T_EQ(hwp_papi_errno(-EPERM, HWP_PAPI_NAT), PAPI_EBUG);
	return t_done("papi-errno table");
}

/* perf_event_open fails with err from now on in this process; with
 * not_self, only for a pid other than 0 (the engine's per-thread fds). */
static int deny_perf(int err, int not_self)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, (unsigned char)not_self, 0),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | (unsigned)(err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -errno;
	return 0;
}

/* In a child: a set counting (or profiling) task-clock, then the filter,
 * then the calls. Returns the child's exit status. */
static int one(const struct row *r, int session)
{
	static unsigned short buf[64];
	pid_t pid = fork();
	int st, es = PAPI_NULL, code, want;

	if (pid)
		return pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ?
			       T_ERROR :
			       WEXITSTATUS(st);
	t_failed = 0; /* the parent's count came along */
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    PAPI_create_eventset(&es) || PAPI_event_name_to_code("perf::TASK-CLOCK", &code))
		_exit(T_ERROR);
	if (PAPI_add_event(es, code)) {
		printf("SKIP: task-clock cannot be counted here\n");
		_exit(T_SKIP);
	}
	if (session &&
	    PAPI_profil(buf, sizeof(buf), 0, 65536, es, code, 1000000, PAPI_PROFIL_POSIX))
		_exit(T_ERROR);
	if (deny_perf(r->err, session)) {
		printf("SKIP: no seccomp filter here\n");
		_exit(T_SKIP);
	}
	/* the engine gives a kernel ENOENT at open as -EOPNOTSUPP
	 * (hwprof_session_start(3)): the event encodes, this machine cannot
	 * sample it */
	want = session && r->err == ENOENT ? PAPI_ENOSUPP : r->use;
	T_CHECK(PAPI_start(es) == want, "errno %d%s: PAPI_start %d", r->err,
		session ? " (session)" : "", PAPI_start(es));
	if (!session)
		T_CHECK(PAPI_query_named_event("perf::PAGE-FAULTS") == r->query,
			"errno %d: PAPI_query_named_event %d", r->err,
			PAPI_query_named_event("perf::PAGE-FAULTS"));
	T_EQ(PAPI_state(es, &st), PAPI_OK);
	T_CHECK(st & PAPI_STOPPED, "errno %d: state %#x after a failed start", r->err, st);
	fflush(stdout);
	_exit(t_failed ? T_FAIL : T_PASS);
}

static int calls(int session)
{
	for (size_t i = 0; i < NROWS; i++) {
		int ret = one(&rows[i], session);

		if (ret == T_SKIP || ret == T_ERROR)
			return ret;
		if (ret != T_PASS)
			printf("errno %d: child exit %d\n", rows[i].err, ret);
		t_failed += ret != T_PASS;
	}
	return t_done(session ? "papi-errno session" : "papi-errno calls");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "table"))
		return table();
	if (argc >= 2 && !strcmp(argv[1], "calls"))
		return calls(0);
	if (argc >= 2 && !strcmp(argv[1], "session"))
		return calls(1);
	fprintf(stderr, "usage: test-papi-errno table|calls|session\n");
	return T_ERROR;
}
