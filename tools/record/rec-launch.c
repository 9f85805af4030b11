/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's target: the command, forked and held until its events
 * are open, then let go to exec (a PIE with mem:FUNC:x breakpoints is
 * stopped at its exec with ptrace to place them); or a running process to
 * attach to. And the signals record passes on: a self-pipe the loop in
 * record.c polls.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "rec-cmd.h"

/* ------------------------------------------------------------------ */
/* Signals: a self-pipe the main loop polls                             */

static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int e = errno;
	unsigned char b[2] = { (unsigned char)sig, si->si_code == SI_KERNEL };

	(void)uc;
	if (write(sig_pipe[1], b, sizeof(b)) < 0) {
		/* the pipe is full: the loop has plenty to read already */
	}
	errno = e;
}

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
#define NSTOP (sizeof(stop_sigs) / sizeof(stop_sigs[0]))

/* what record was given (nohup's SIG_IGN for SIGHUP, a background job's
 * for SIGINT): the command gets the same */
static struct sigaction saved[NSTOP + 3];

int rec_signals_install(void)
{
	struct sigaction sa;

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &sa, &saved[i]);
	sa.sa_flags |= SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &saved[NSTOP]);
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, &saved[NSTOP + 1]);
	sigaction(SIGXFSZ, &sa,
		  &saved[NSTOP + 2]); /* a write past RLIMIT_FSIZE fails instead */
	return 0;
}

int rec_signals_fd(void)
{
	return sig_pipe[0];
}

/* in the child, before exec: the command gets the dispositions record had
 * (a handler is reset by the exec anyway) */
static void signals_reset(void)
{
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &saved[i], NULL);
	sigaction(SIGCHLD, &saved[NSTOP], NULL);
	sigaction(SIGPIPE, &saved[NSTOP + 1], NULL);
	sigaction(SIGXFSZ, &saved[NSTOP + 2], NULL);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */

/* The file execvp would run, or NULL (errno set). */
static char *find_cmd(const char *cmd)
{
	const char *p = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? NULL : strdup(cmd);
	for (p = p ? p : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, cmd);
		if (!access(buf, X_OK))
			return strdup(buf);
		p += n + (p[n] == ':');
	}
	errno = ENOENT;
	return NULL;
}

static char *join(char **argv)
{
	size_t n = 1;
	char *s, *p;

	for (char **a = argv; *a; a++)
		n += strlen(*a) + 1;
	s = p = malloc(n);
	if (!s)
		return NULL;
	*p = 0;
	for (char **a = argv; *a; a++)
		p += sprintf(p, "%s%s", a == argv ? "" : " ", *a);
	return s;
}

int rec_command_target(struct rec_run *run)
{
	const char *cmd = run->op.cmd[0];

	run->file = find_cmd(cmd);
	if (!run->file)
		die("%s: cannot run it: %s", cmd,
		    strchr(cmd, '/') ? strerror(errno) : "not found in PATH");
	return 0;
}

/* The load address of file in process pid: the start of its mapping at
 * file offset 0 (a PIE's first PT_LOAD has p_vaddr 0). */
int rec_load_base(pid_t pid, const char *file, uint64_t *base)
{
	char path[64], *line = NULL, *real = realpath(file, NULL);
	size_t cap = 0;
	int r = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	while (f && real && getline(&line, &cap, f) > 0) {
		unsigned long long lo, off;
		int at = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %n", &lo, &off, &at) >= 2 && at &&
		    !off && !strcmp(line + at, real)) {
			*base = lo;
			r = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	free(line);
	free(real);
	return r;
}

/* the child: waits for the events, then runs the command; an exec that
 * fails says its errno on ex (closed by a successful exec) */
static void child(int go, int ex, char **cmd, const char *file, int stop)
{
	char b;
	int e;

	signals_reset();
	if (read(go, &b, 1) != 1)
		_exit(127); /* record gave up: it says why */
	close(go);
	if (stop && ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
		fprintf(stderr, "hwprof: cannot place the breakpoint in a PIE: ptrace: %s\n",
			strerror(errno));
		_exit(127);
	}
	execv(file, cmd);
	e = errno;
	if (write(ex, &e, sizeof(e)) != (ssize_t)sizeof(e))
		fprintf(stderr, "hwprof: %s: cannot run it: %s\n", cmd[0], strerror(e));
	_exit(127);
}

/* After the events are open on the target: 0 when at least one is,
 * else 1 after one line (nothing would be sampled). */
static int check_opened(const struct rec_run *run)
{
	const struct hd_event *he = &run->r->d.events[run->r->ev[0].hd];

	if (rec_fds_of(run->r, UINT32_MAX))
		return 0;
	return cli_error("no event could be opened on %s (%s)%s",
			 run->op.pid ? "the process" : "the command",
			 he->missed_why ? he->missed_why : "no thread covered",
			 he->missed_why && strstr(he->missed_why, "descriptors") ?
				 ": raise ulimit -n" :
				 "");
}

/* Places the mem:FUNC:x breakpoints of a PIE, now loaded in the command
 * (stopped at its exec by ptrace), and opens them. */
static int place_bps(struct rec_run *run)
{
	struct rec *r = run->r;
	uint64_t base;
	int st, ret;

	if (waitpid(run->pid, &st, 0) != run->pid || !WIFSTOPPED(st))
		return cli_error("%s did not start", run->file);
	if (rec_load_base(run->pid, run->file, &base))
		return cli_error("cannot find %s in process %d", run->file, (int)run->pid);
	for (int i = 0; i < run->nbp; i++)
		r->ev[run->bps[i].ev].attr.bp_addr = base + run->bps[i].off;
	ret = rec_perf_open_late(r, run->pid, run->why, sizeof(run->why));
	if (ret)
		return cli_error("%s", run->why);
	if ((ret = check_opened(run)))
		return ret; /* killed, never run on */
	ptrace(PTRACE_DETACH, run->pid, NULL, NULL);
	return 0;
}

/* What each event records, and a PMU's event the skid level it opened
 * at (hwprof(1), "Skid"); on a hybrid CPU, which cores the events sample
 * on (said even with -q). */
static void say_events(const struct rec_run *run)
{
	const struct perf_event_attr *a[REC_MAX_EVENTS];
	const char *name[REC_MAX_EVENTS];
	char line[512];

	for (int e = 0; e < run->r->nev; e++) {
		a[e] = &run->r->ev[e].attr;
		name[e] = run->r->ev[e].name;
	}
	if (hwp_attr_hybrid_note(a, name, (size_t)run->r->nev, line, sizeof(line)))
		fprintf(stderr, "%s\n", line);
	for (int e = 0; e < run->r->nev && !run->op.quiet; e++) {
		const struct rec_event *re = &run->r->ev[e];

		if (re->precise >= 0)
			fprintf(stderr, "%s (precise_ip %d)\n", re->msg, re->precise);
		else
			fprintf(stderr, "%s\n", re->msg);
	}
}

/* --call-graph dwarf: the thread that empties the rings (rec-read.c)
 * reads before the command runs, not once record's loop begins: a burst
 * at the command's start fills the rings in a few milliseconds. */
static int start_reader(struct rec_run *run)
{
	int ret = rec_reader_start(run->r);

	if (ret == -EFBIG)
		return cli_error("--call-graph dwarf: the file size limit (ulimit -f) is under "
				 "the %u MiB its spool needs",
				 (unsigned)(REC_SPOOL_MIN >> 20));
	if (ret)
		return cli_error("cannot start the thread that reads the rings: %s",
				 strerror(-ret));
	return 0;
}

/* The fork: the child waits on go for the events. */
static int fork_command(struct rec_run *run)
{
	if (pipe2(run->go, O_CLOEXEC) || pipe2(run->ex, O_CLOEXEC))
		return cli_error("pipe: %s", strerror(errno));
	run->pid = fork();
	if (run->pid < 0)
		return cli_error("fork: %s", strerror(errno));
	if (!run->pid) {
		close(run->go[1]);
		close(run->ex[0]);
		child(run->go[0], run->ex[1], run->op.cmd, run->file, run->nbp > 0);
	}
	close(run->go[0]);
	run->go[0] = -1;
	close(run->ex[1]);
	run->ex[1] = -1;
	return 0;
}

/* Lets the child exec: 0 when it did (EOF on ex), else 127 after one line */
static int let_go(struct rec_run *run)
{
	int e = 0;
	ssize_t n;

	if (write(run->go[1], "g", 1) != 1)
		return cli_error("cannot start the command: %s", strerror(errno));
	close(run->go[1]);
	run->go[1] = -1;
	while ((n = read(run->ex[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(run->ex[0]);
	run->ex[0] = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(run->pid, NULL, 0);
		run->reaped = 1;
		cli_error("%s: cannot run it: %s", run->op.cmd[0], strerror(e));
		return 127;
	}
	return 0;
}

int rec_launch(struct rec_run *run)
{
	struct rec *r = run->r;
	char *cmdline = join(run->op.cmd);
	int ret;

	if (!cmdline || !(r->d.command = strdup(cmdline))) {
		free(cmdline);
		return cli_error("out of memory");
	}
	ret = fork_command(run);
	if (!ret && rec_add_root(r, run->pid, 0, cmdline, 0))
		ret = cli_error("out of memory");
	free(cmdline);
	if (ret)
		return ret;
	/* the breakpoints of a PIE are opened once it is loaded */
	for (int i = 0; i < run->nbp; i++)
		r->ev[run->bps[i].ev].late = 1;
	ret = rec_perf_open(r, run->pid, 0, run->why, sizeof(run->why));
	if (ret)
		return cli_error("%s", run->why);
	/* a PIE's breakpoints are checked once placed, the command stopped */
	if (!run->nbp && (ret = check_opened(run)))
		return ret;
	say_events(run);
	/* (a PIE's breakpoints map their rings once placed: the thread
	 * starts after them) */
	if (!run->nbp && (ret = start_reader(run)))
		return ret;
	ret = let_go(run);
	if (!ret && run->nbp && !(ret = place_bps(run)))
		ret = start_reader(run);
	return ret;
}

void rec_launch_abort(struct rec_run *run)
{
	if (run->pid <= 0 || run->op.pid || run->reaped)
		return;
	if (run->go[1] >= 0) {
		close(run->go[1]); /* the child ends without running anything */
		run->go[1] = -1;
	} else {
		kill(run->pid, SIGKILL);
	}
	waitpid(run->pid, NULL, 0);
	run->reaped = 1;
}

/* ------------------------------------------------------------------ */
/* Attach                                                               */

/* The process (thread group) of a thread id, 0 when it cannot be read */
static pid_t tgid_of(pid_t tid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	while (f && getline(&line, &cap, f) > 0)
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	free(line);
	if (f)
		fclose(f);
	return tgid;
}

/* -p of a thread that is not its process's leader records its process:
 * the events, the maps and the samples are the whole process's. */
int rec_attach_target(struct rec_run *run)
{
	pid_t tgid;
	char exe[64];

	if (kill(run->op.pid, 0) && errno == ESRCH)
		die("-p %d: no such process", (int)run->op.pid);
	tgid = tgid_of(run->op.pid);
	if (tgid > 0 && tgid != run->op.pid) {
		if (!run->op.quiet)
			fprintf(stderr,
				"hwprof: -p %d is a thread of process %d: recording process %d, all its threads\n",
				(int)run->op.pid, (int)tgid, (int)tgid);
		run->op.pid = tgid;
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)run->op.pid);
	run->file = realpath(exe, NULL);
	if (!run->file)
		run->file = strdup(exe);
	if (!run->file)
		die("out of memory");
	return 0;
}

/* The command line of pid (its arguments joined by spaces), or NULL */
static char *attach_cmdline(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	while (n > 0 && !buf[n - 1])
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return strdup(buf);
}

/* The parent of pid, 0 when unknown */
static int attach_ppid(pid_t pid)
{
	char path[64], *line = NULL, *rp;
	size_t cap = 0;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f && getline(&line, &cap, f) > 0 && (rp = strrchr(line, ')')))
		sscanf(rp + 1, " %*c %d", &ppid);
	free(line);
	if (f)
		fclose(f);
	return ppid;
}

/* The threads of pid and their names, from /proc/PID/task: 0, or -1 (out
 * of memory). */
static int attach_threads(struct rec *r, pid_t pid)
{
	char path[96], comm[64];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && !ret && (de = readdir(d))) {
		int tid = atoi(de->d_name), fd;
		ssize_t n;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue; /* it ended */
		comm[n - (comm[n - 1] == '\n')] = 0;
		ret = rec_on_comm(r, (int)pid, tid, 0, 0, comm);
	}
	if (d)
		closedir(d);
	return ret;
}

int rec_attach(struct rec_run *run)
{
	struct rec *r = run->r;
	pid_t pid = run->op.pid;
	char *cmd = attach_cmdline(pid);
	int ret;

	ret = rec_add_root(r, pid, attach_ppid(pid), cmd ? cmd : run->file, 0);
	free(cmd);
	if (ret || !(r->d.command = strdup(r->d.procs[0].command)))
		return cli_error("out of memory");
	ret = rec_perf_open(r, pid, 1, run->why, sizeof(run->why));
	if (ret)
		return cli_error("%s", run->why);
	if ((ret = check_opened(run)))
		return ret;
	say_events(run);
	if ((ret = start_reader(run)))
		return ret;
	/* the maps and thread names from before the attach; later ones
	 * come as records */
	if (rec_maps_read_proc(r, pid) == -ENOMEM || attach_threads(r, pid))
		return cli_error("out of memory");
	run->pid = pid;
	return 0;
}
