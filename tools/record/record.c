/* SPDX-License-Identifier: MIT */
/*
 * hwprof record: checks the events, the periods and the output file, then
 * samples the command's whole process tree from this process (rec-perf.c)
 * until the command ends, whatever ends it, and writes one data file
 * (hwprof-data(5)) atomically. A signal to record is passed on to the
 * command, and record goes on until the command has ended; -p attaches to
 * a running process until it ends or record is interrupted.
 *
 * The run, in named steps: options, target (the command or -p's process),
 * output (rec-write.c), events (rec-events.c), launch (rec-launch.c: the
 * fork/exec handshake, or the attach), loop (poll, signals, checkpoints),
 * finish (final drain, write, exit status).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "rec-cmd.h"
#include "symbols.h"

static const char help[] =
	"usage: hwprof record [OPTIONS] [--] CMD [ARGS...]\n"
	"       hwprof record [OPTIONS] -p PID\n"
	"Samples CMD and every thread and process it starts (or the running\n"
	"process PID) and writes one data file for all of them.\n"
	"\n"
	"  -e, --event EVENT     the event to sample (repeat for several); see\n"
	"                        hwprof list. Default: cycles where the machine has\n"
	"                        them, else task-clock, at about 1 kHz\n"
	"  -c, --count N         one sample every N events (ns for the clocks)\n"
	"  -F, --freq HZ         N samples a second (clocks and hardware events)\n"
	"  -o, --output FILE     the data file (default: hwprof.data, and under an\n"
	"                        MPI launcher hwprof.RANK.data); a regular file,\n"
	"                        replaced atomically at the end. %r is the MPI\n"
	"                        rank, %h the host, %p record's pid, %% a %\n"
	"  -p, --pid PID         attach to a running process and all its threads\n"
	"                        until it ends or until Ctrl-C\n"
	"      --checkpoint SEC  also write the file every SEC seconds while the\n"
	"                        command runs (at most SEC lost if record is killed)\n"
	"  -g                    record each sample's call path (user space, frame\n"
	"                        pointers: build with -fno-omit-frame-pointer); the\n"
	"                        sampled function's caller is found from its CFI and\n"
	"                        a 512-byte stack copy where it has no frame pointer\n"
	"      --call-graph fp   the same as -g\n"
	"      --call-graph fp,noleaf\n"
	"                        the kernel's frame-pointer walk alone, as perf's fp\n"
	"      --call-graph dwarf[,SIZE]\n"
	"                        record each sample's user registers and SIZE bytes\n"
	"                        of its stack (default 8192, at most 65528) and\n"
	"                        unwind them here with the DWARF call-frame info:\n"
	"                        needs no frame pointers; x86-64\n"
	"  -D, --delay MS        sample only from MS milliseconds after the command\n"
	"                        starts (-1: not until --control says enable)\n"
	"      --control fifo:CTL[,ACK]\n"
	"                        read enable, disable and ping, one a line, from the\n"
	"                        FIFO CTL while recording; each is answered ack\\n\n"
	"                        on the FIFO ACK (perf record's --control)\n"
	"  -m, --mmap-pages PAGES\n"
	"                        data pages of each CPU's ring: a power of two, at\n"
	"                        least 2 (bigger rings lose fewer samples)\n"
	"  -q, --quiet           no messages but warnings and errors\n"
	"  -v, --verbose         also one line of what the name cache did (and of\n"
	"                        the first thing wrong with it): see hwprof(1)\n"
	"  -h, --help            this help\n"
	"\n"
	"Exit status: the command's (128+N when signal N ended it); 0 after -p;\n"
	"1 on an error of hwprof's (one line on stderr); 2 on a usage error.\n"
	"See hwprof(1).\n";

/* ------------------------------------------------------------------ */
/* Options: every error in them is a usage error, exit status 2         */

/* one line (usage_error()) and 2 when s is not a whole number from 1 to max */
static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+' || *s == ' ')
		return usage_error("%s %s: not a positive whole number", opt, s);
	*v = strtoull(s, &end, 10);
	if (*end || end == s || !*v)
		return usage_error("%s %s: not a positive whole number", opt, s);
	if (errno || *v > max)
		return usage_error("%s %s: too large (at most %llu)", opt, s,
				   (unsigned long long)max);
	return 0;
}

static int usage(void)
{
	fputs("usage: hwprof record [-e EVENT]... [-c N | -F HZ] [-o FILE] [--] CMD [ARGS...]\n"
	      "       hwprof record [-e EVENT]... [-c N | -F HZ] [-o FILE] -p PID\n"
	      "see hwprof record --help\n",
	      stderr);
	return 2;
}

static int is_opt(const char *a, const char *s, const char *l)
{
	return (s && !strcmp(a, s)) || !strcmp(a, l);
}

static int takes_value(const char *a)
{
	return is_opt(a, "-e", "--event") || is_opt(a, "-c", "--count") ||
	       is_opt(a, "-F", "--freq") || is_opt(a, "-o", "--output") ||
	       is_opt(a, "-p", "--pid") || is_opt(a, NULL, "--checkpoint") ||
	       is_opt(a, "-m", "--mmap-pages") || is_opt(a, NULL, "--call-graph") ||
	       is_opt(a, "-D", "--delay") || is_opt(a, NULL, "--control");
}

/* One option with its value v: 0, or the exit status after one line. */
static int parse_value(struct rec_opts *op, const char *a, const char *v)
{
	uint64_t x;

	if (is_opt(a, "-e", "--event")) {
		if (op->nev == REC_MAX_EVENTS)
			return usage_error("at most %d events", REC_MAX_EVENTS);
		if (!*v)
			return usage_error("%s: an empty event name", a);
		op->ev[op->nev++] = v;
	} else if (is_opt(a, "-c", "--count")) {
		return parse_u64(a, v, INT64_MAX, &op->count);
	} else if (is_opt(a, "-F", "--freq")) {
		long rate = rec_max_rate();
		uint64_t max = rate > 0 && rate < 1000000000 ? (uint64_t)rate : 1000000000;

		if (parse_u64(a, v, UINT64_MAX, &op->hz))
			return 2;
		if (op->hz > max)
			return usage_error(
				"-F %s: above the kernel's limit of %llu samples a second (kernel.perf_event_max_sample_rate)",
				v, (unsigned long long)max);
	} else if (is_opt(a, "-o", "--output")) {
		op->out = v;
	} else if (is_opt(a, "-p", "--pid")) {
		if (parse_u64(a, v, INT32_MAX, &x))
			return 2;
		op->pid = (pid_t)x;
	} else if (is_opt(a, NULL, "--checkpoint")) {
		if (parse_u64(a, v, 86400, &x))
			return 2;
		op->checkpoint = (unsigned int)x;
	} else if (is_opt(a, NULL, "--call-graph")) {
		if (!strcmp(v, "fp") || !strcmp(v, "fp,noleaf")) {
			op->callgraph = HD_CG_FP;
			op->noleaf = v[2] != 0;
		} else if (!strncmp(v, "dwarf", 5) && (!v[5] || v[5] == ',')) {
			if (!rec_unwind_supported())
				return usage_error("--call-graph dwarf: x86-64 only (use fp)");
			op->callgraph = HD_CG_DWARF;
			op->stack_size = REC_DEF_STACK;
			if (v[5] == ',') {
				if (parse_u64("--call-graph dwarf size", v + 6, REC_MAX_STACK,
					      &x))
					return 2;
				if (x % 8)
					return usage_error("--call-graph %s: the stack copy is whole "
							   "8-byte words",
							   v);
				op->stack_size = (uint32_t)x;
			}
		} else {
			return usage_error("--call-graph %s: the call-graph modes are fp[,noleaf] "
					   "and dwarf[,SIZE]",
					   v);
		}
	} else if (is_opt(a, "-D", "--delay")) {
		if (!strcmp(v, "-1")) {
			op->delay = -1;
		} else if (strcmp(v, "0")) {
			if (parse_u64(a, v, 86400000, &x))
				return 2;
			op->delay = (long)x;
		}
	} else if (is_opt(a, NULL, "--control")) {
		char *comma;
		static char buf[4096];

		if (strncmp(v, "fifo:", 5) || !v[5] || strlen(v) >= sizeof(buf))
			return usage_error("--control %s: fifo:CTL[,ACK] (FIFOs made with mkfifo)",
					   v);
		strcpy(buf, v + 5);
		comma = strchr(buf, ',');
		if (comma)
			*comma++ = 0;
		if (!*buf || (comma && !*comma))
			return usage_error("--control %s: fifo:CTL[,ACK] (FIFOs made with mkfifo)",
					   v);
		if (comma && !strcmp(buf, comma))
			return usage_error("--control %s: CTL and ACK are two FIFOs", v);
		op->ctl = buf;
		op->ack = comma;
	} else if (is_opt(a, "-m", "--mmap-pages")) {
		if (parse_u64(a, v, REC_MAX_RING_PAGES, &x))
			return 2;
		if (x < 2 || (x & (x - 1)))
			return usage_error("-m %s: not a power of two of at least 2 pages", v);
		op->ring_pages = (unsigned int)x;
	}
	return 0;
}

/*
 * An option with its value in the same word, as getopt_long takes them:
 * --opt=VALUE and -XVALUE. 0 when a was one (parsed), -1 when a is not,
 * or the exit status after one line.
 */
static int attached_value(struct rec_opts *op, const char *a)
{
	char opt[32];
	const char *eq = strchr(a, '=');

	if (a[1] == '-' && eq && (size_t)(eq - a) < sizeof(opt)) {
		memcpy(opt, a, (size_t)(eq - a));
		opt[eq - a] = 0;
		if (takes_value(opt))
			return parse_value(op, opt, eq + 1);
		if (is_opt(opt, NULL, "--help") || is_opt(opt, NULL, "--quiet") ||
		    is_opt(opt, NULL, "--verbose"))
			return usage_error("%s takes no value (see hwprof record --help)",
					   opt);
		return -1;
	}
	if (a[1] != '-' && a[2]) {
		opt[0] = '-', opt[1] = a[1], opt[2] = 0;
		if (takes_value(opt))
			return parse_value(op, opt, a + 2);
	}
	return -1;
}

/* The options: 0, -1 after --help, or the exit status after one line. */
static int parse(int argc, char **argv, struct rec_opts *op)
{
	int i, ret;

	memset(op, 0, sizeof(*op));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break; /* the command */
		ret = attached_value(op, a);
		if (ret > 0)
			return ret;
		if (!ret)
			continue;
		if (takes_value(a)) {
			if (i + 1 >= argc)
				return usage_error("%s needs a value", a);
			ret = parse_value(op, a, argv[++i]);
			if (ret)
				return ret;
		} else if (is_opt(a, "-h", "--help")) {
			fputs(help, stdout);
			return -1;
		} else if (is_opt(a, "-q", "--quiet")) {
			op->quiet = 1;
		} else if (is_opt(a, "-v", "--verbose")) {
			op->verbose = 1;
		} else if (!strcmp(a, "-g")) {
			op->callgraph = HD_CG_FP;
			op->noleaf = 0;
		} else {
			return usage_error("unknown option %s (see hwprof record --help)", a);
		}
	}
	if (op->count && op->hz)
		return usage_error("give -c or -F, not both");
	if (op->delay < 0 && !op->ctl)
		return usage_error("--delay -1: nothing would ever turn the events on without "
				   "--control");
	if (op->pid && i < argc)
		return usage_error("give -p PID or a command, not both");
	if (!op->pid && i >= argc)
		return usage();
	op->cmd = argv + i;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The loop                                                             */

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* A signal to record: -p stops; else it is passed on to the command, and
 * the first one writes a file at once (a walltime kill: SIGKILL may
 * follow before the command ends). */
static void on_signal(struct rec_run *run, int sig, int from_tty)
{
	if (sig == SIGCHLD)
		return;
	if (run->op.pid) {
		run->stopping = sig;
		return;
	}
	if (!from_tty)
		kill(run->pid, sig); /* the terminal sent it the group */
	if (!run->stopping) {
		run->stopping = sig;
		if (rec_read_drain(run->r, 0) >= 0) {
			/* the command still runs: partial, as a checkpoint */
			run->r->d.checkpoint = 1;
			rec_out_write(&run->out, &run->r->d);
			run->r->d.checkpoint = 0;
		}
	}
}

static void read_signals(struct rec_run *run)
{
	unsigned char sb[64];
	ssize_t k;

	while ((k = read(rec_signals_fd(), sb, sizeof(sb))) > 0)
		for (ssize_t i = 0; i + 1 < k; i += 2)
			on_signal(run, sb[i], sb[i + 1]);
}

/* 1 once the command has ended (or -p's process, or -p is stopped) */
static int ended(struct rec_run *run)
{
	if (run->op.pid)
		return run->stopping || (kill(run->pid, 0) && errno == ESRCH);
	if (waitpid(run->pid, &run->st, WNOHANG) != run->pid)
		return 0;
	run->reaped = 1;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Regions: --delay and --control                                       */

/* The control FIFOs, opened without blocking (O_RDWR: neither waits for
 * the other end, and CTL never reads end-of-file when a writer closes):
 * 0, or the exit status after one line. What the name leads to is
 * looked at first (O_PATH) and opened for reading and writing only when
 * it is a FIFO, that very one: a link another user put there to a file
 * or a device (which an open alone may set going) is never opened. */
static int control_open(struct rec_run *run)
{
	const char *p[2] = { run->op.ctl, run->op.ack };
	int *fd[2] = { &run->ctl_fd, &run->ack_fd };

	for (int i = 0; i < 2; i++) {
		char self[64];
		struct stat st;
		int at;

		if (!p[i])
			continue;
		at = open(p[i], O_PATH | O_CLOEXEC);
		if (at < 0)
			return cli_error("--control: %s: %s", p[i], strerror(errno));
		if (fstat(at, &st) || !S_ISFIFO(st.st_mode)) {
			close(at);
			return cli_error("--control: %s: not a FIFO (make one with mkfifo)",
					 p[i]);
		}
		snprintf(self, sizeof(self), "/proc/self/fd/%d", at);
		*fd[i] = open(self, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		close(at);
		if (*fd[i] < 0)
			return cli_error("--control: %s: %s", p[i], strerror(errno));
	}
	return 0;
}

static void control_say(struct rec_run *run, const char *what)
{
	if (run->ack_fd >= 0 && write(run->ack_fd, what, strlen(what)) < 0)
		fprintf(stderr, "hwprof: warning: --control: %s: %s\n", run->op.ack,
			strerror(errno));
}

/* 0, or -errno after a warning */
static int set_paused(struct rec_run *run, int paused, const char *why)
{
	int ret = rec_perf_pause(run->r, paused);

	if (ret)
		fprintf(stderr, "hwprof: warning: events not turned %s: %s\n",
			paused ? "off" : "on", strerror(-ret));
	else if (!run->op.quiet)
		fprintf(stderr, "hwprof: events %s (%s)\n", paused ? "off" : "on", why);
	return ret;
}

/* Obeys one command line (NUL-terminated, its newline gone). */
static void control_line(struct rec_run *run, char *cmd)
{
	size_t n = strlen(cmd);

	if (n && cmd[n - 1] == '\r')
		cmd[n - 1] = 0;
	if (!strcmp(cmd, "enable"))
		control_say(run, set_paused(run, 0, "--control enable") ? "err\n" : "ack\n");
	else if (!strcmp(cmd, "disable"))
		control_say(run, set_paused(run, 1, "--control disable") ? "err\n" : "ack\n");
	else if (!strcmp(cmd, "ping"))
		control_say(run, "ack\n");
	else if (cmd[0]) {
		fputs("hwprof: warning: --control: unknown command ", stderr);
		nm_put(stderr, cmd, NM_TEXT);
		fputs(" (enable, disable, ping)\n", stderr);
		control_say(run, "err\n");
	}
}

/* Reads what the control FIFO holds and obeys each whole line; a line
 * longer than the buffer is dropped up to its newline. */
static void control_read(struct rec_run *run)
{
	char *nl;
	ssize_t k;

	while ((k = read(run->ctl_fd, run->ctl_buf + run->ctl_len,
			 sizeof(run->ctl_buf) - 1 - run->ctl_len)) > 0) {
		run->ctl_len += (size_t)k;
		while ((nl = memchr(run->ctl_buf, '\n', run->ctl_len))) {
			*nl = 0;
			if (!run->ctl_skip &&
			    !memchr(run->ctl_buf, 0, (size_t)(nl - run->ctl_buf)))
				control_line(run, run->ctl_buf);
			else if (!run->ctl_skip)
				control_say(run, "err\n"); /* a NUL byte in it */
			run->ctl_skip = 0;
			run->ctl_len -= (size_t)(nl + 1 - run->ctl_buf);
			memmove(run->ctl_buf, nl + 1, run->ctl_len);
		}
		if (run->ctl_len == sizeof(run->ctl_buf) - 1) {
			if (!run->ctl_skip)
				control_say(run, "err\n");
			run->ctl_len = 0; /* too long: dropped to its newline */
			run->ctl_skip = 1;
		}
	}
}

/* Drains every ring until the command ends: 0, or the exit status. */
static int loop(struct rec_run *run)
{
	uint64_t last_ckpt = now_ms();
	int delayed = run->op.delay > 0, ret;

	/* --call-graph dwarf: a thread empties the rings while this one
	 * unwinds (rec-read.c); rec-launch.c started it before the command
	 * ran (this is then nothing) */
	if ((ret = rec_reader_start(run->r)))
		return cli_error("cannot start the thread that reads the rings: %s",
				 strerror(-ret));
	for (;;) {
		struct pollfd pf[2 + 256];
		int fds[256], timeout = rec_read_busy(run->r) ? 0 : 100;
		int nctl = run->ctl_fd >= 0;
		size_t n = rec_reader_fd(run->r) >= 0 ? (fds[0] = rec_reader_fd(run->r), 1) :
							rec_perf_pollfds(run->r, fds, 256);

		pf[0] = (struct pollfd){ .fd = rec_signals_fd(), .events = POLLIN };
		if (nctl)
			pf[1] = (struct pollfd){ .fd = run->ctl_fd, .events = POLLIN };
		for (size_t i = 0; i < n; i++)
			pf[1 + nctl + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (delayed) {
			uint64_t at = run->t0 + (uint64_t)run->op.delay, t = now_ms();

			if (t >= at) {
				set_paused(run, 0, "--delay");
				delayed = 0;
			} else if (at - t < (uint64_t)timeout) {
				timeout = (int)(at - t);
			}
		}
		poll(pf, 1 + (nfds_t)nctl + n, timeout);
		if (nctl)
			control_read(run);
		if (rec_read_drain(run->r, 0) < 0)
			return cli_error("%s", rec_read_why(run->r));
		read_signals(run);
		if (ended(run))
			return 0;
		if (run->op.checkpoint &&
		    now_ms() - last_ckpt >= run->op.checkpoint * 1000ull) {
			/* a checkpoint says it is one: a report of it warns
			 * that the profile is partial (hwprof-data(5)) */
			run->r->d.checkpoint = 1;
			rec_out_write(&run->out, &run->r->d);
			run->r->d.checkpoint = 0;
			last_ckpt = now_ms();
		}
	}
}

/* ------------------------------------------------------------------ */
/* What the file lacks, said when it is written (even with -q)         */

/* An event that covered no thread, or not every thread. */
static void warn_coverage(const struct rec_run *run)
{
	const struct rec *r = run->r;

	for (int e = 0; e < r->nev; e++) {
		const struct hd_event *he = &r->d.events[r->ev[e].hd];
		const char *why = he->missed_why ? he->missed_why : "?";

		if (!run->ncovered[e])
			fprintf(stderr,
				"hwprof: warning: %s was opened on no thread (%s): %s holds none of its samples\n",
				r->ev[e].name, why, run->op.out);
		else if (he->missed)
			fprintf(stderr,
				"hwprof: warning: %s: %llu thread%s not covered on every CPU (%s): %s lacks their samples there%s\n",
				r->ev[e].name, (unsigned long long)he->missed,
				he->missed == 1 ? "" : "s", why, run->op.out,
				strstr(why, "descriptors") ? "; raise ulimit -n" : "");
	}
}

/* Samples the kernel could not write: the rings were full. */
static void warn_lost(const struct rec_run *run)
{
	const struct rec *r = run->r;

	for (int e = 0; e < r->nev; e++) {
		const struct hd_event *he = &r->d.events[r->ev[e].hd];

		if (he->lost)
			fprintf(stderr,
				"hwprof: warning: lost %llu samples of %s (rings full): use -m PAGES for bigger rings (these had %u pages), or a longer period\n",
				(unsigned long long)he->lost, r->ev[e].name, run->ring_pages);
	}
	if (r->dropped)
		fprintf(stderr,
			"hwprof: warning: %llu of the samples lost were read but not kept: unwinding fell %u MiB behind (--call-graph dwarf); a smaller stack copy (--call-graph dwarf,SIZE) or a longer period keeps more\n",
			(unsigned long long)r->dropped, REC_BURST_BYTES >> 20);
}

/* Processes of the command that still run: followed no further. */
static void warn_running(const struct rec_run *run)
{
	const struct hd_file *d = &run->r->d;
	char pids[96] = "";
	size_t n = 0, at = 0;

	for (size_t i = 0; i < d->nprocs && !run->op.pid; i++) {
		const struct hd_process *p = &d->procs[i];

		if (p->how != HD_RUNNING || p->pid == run->pid ||
		    (kill(p->pid, 0) && errno == ESRCH))
			continue;
		if (n++ < 4 && at < sizeof(pids))
			at += (size_t)snprintf(pids + at, sizeof(pids) - at, "%s%d",
					       at ? ", " : "", p->pid);
	}
	if (n)
		fprintf(stderr,
			"hwprof: warning: %zu process%s of the command still run%s (pid %s%s): %s holds %s samples up to the command's end only\n",
			n, n == 1 ? "" : "es", n == 1 ? "s" : "", pids, n > 4 ? ", ..." : "",
			run->op.out, n == 1 ? "its" : "their");
}

/*
 * Why the command's exec makes the kernel stop monitoring it, or NULL: an
 * exec that changes the process's user or group (set-user-ID or
 * set-group-ID, not on a nosuid mount), raises its capabilities (file
 * capabilities) or runs a file it may not read makes it non-dumpable, and
 * the kernel then ends every perf event on it (fs/exec.c: "Disable
 * monitoring for regular users when executing setuid binaries").
 */
static const char *setid_exec(const char *file)
{
	struct statvfs sv;
	struct stat st;
	char hb[2] = "";
	int fd;

	if (!file || stat(file, &st) || !S_ISREG(st.st_mode))
		return NULL;
	/* a script's set-ID bits are ignored: its interpreter runs */
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, hb, sizeof(hb));

		close(fd);
		if (n == 2 && hb[0] == '#' && hb[1] == '!')
			return NULL;
	} else if (errno == EACCES) {
		return "it is a program this user may run but not read";
	}
	if (!statvfs(file, &sv) && (sv.f_flag & ST_NOSUID))
		return NULL;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		return "it is set-user-ID: its exec changes the process's user";
	if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid())
		return "it is set-group-ID: its exec changes the process's group";
	if (geteuid() && getxattr(file, "security.capability", NULL, 0) > 0)
		return "it has file capabilities: its exec raises the process's";
	return NULL;
}

/* A command whose exec ends the kernel's monitoring: the one line that
 * says why it has no samples. */
static void warn_setid(const struct rec_run *run)
{
	const char *why = run->op.pid ? NULL : setid_exec(run->file);

	if (why)
		fprintf(stderr,
			"hwprof: warning: %s holds no samples of %s after its exec: %s, so the kernel stops monitoring it (it is not dumpable); record it as the user it runs as\n",
			run->op.out, run->file, why);
}

/* Processes whose end was not seen (rec_mark_unseen()). */
static void warn_unseen(const struct rec_run *run)
{
	const struct hd_file *d = &run->r->d;
	size_t n = 0;

	for (size_t i = 0; i < d->nprocs; i++)
		n += d->procs[i].how == HD_UNSEEN;
	if (n)
		fprintf(stderr,
			"hwprof: warning: %zu process%s ended unseen (%s): %s marks %s so, not running\n",
			n, n == 1 ? "" : "es",
			run->r->side_lost ? "the kernel dropped exit records" :
					    "after the events stopped",
			run->op.out, n == 1 ? "it" : "them");
}

/* ------------------------------------------------------------------ */
/* The finish                                                           */

static void say_status(const struct rec_run *run)
{
	const struct hd_file *d = &run->r->d;
	int st = run->op.pid ? -1 : run->st;
	size_t n = 0;

	if (run->op.quiet)
		return;
	for (size_t e = 0; e < d->nevents; e++)
		n += d->events[e].samples;
	fprintf(stderr,
		"hwprof: wrote %s (%zu sample%s, %zu process%s)%s%s; see it with: hwprof report %s\n",
		run->op.out, n, n == 1 ? "" : "s", d->nprocs, d->nprocs == 1 ? "" : "es",
		st < 0		? "" :
		WIFSIGNALED(st) ? "; the command died of " :
				  "",
		st >= 0 && WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "", run->op.out);
}

/* How the command (or -p's process) ended, in the file; the exit status. */
static int end_status(struct rec_run *run)
{
	struct hd_process *p = rec_process(run->r, run->pid);
	int st = run->st;

	if (run->op.pid) {
		if (p && p->how == HD_RUNNING && kill(run->pid, 0) && errno == ESRCH)
			p->how = HD_ENDED;
		return 0;
	}
	if (p && WIFEXITED(st)) {
		p->how = HD_EXITED;
		p->status = WEXITSTATUS(st);
	} else if (p && WIFSIGNALED(st)) {
		p->how = HD_SIGNALED;
		p->status = WTERMSIG(st);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The rest of the rings, the file, the exit status. */
static int finish(struct rec_run *run)
{
	struct rec *r = run->r;
	int status, ret;

	/* the command has ended (or, attached, the events are stopped here):
	 * nothing more comes */
	rec_read_stop_events(r);
	for (int i = 0; i < 1000; i++) {
		long n = rec_read_drain(r, 1);

		if (n < 0)
			return cli_error("%s", rec_read_why(r));
		if (!n)
			break;
	}
	rec_read_account(r); /* kept + lost = overflows, or a warning */
	status = end_status(run);
	rec_mark_unseen(r);
	for (int e = 0; e < r->nev; e++)
		run->ncovered[e] = rec_fds_of(r, (uint32_t)e);
	run->ring_pages = r->ring_pages;
	rec_perf_close(r);
	/* The whole profile is written first (a SIGKILL may come: a
	 * walltime's after its SIGTERM, mpirun's to the other ranks, the
	 * OOM killer); the names, which take reading every sampled object,
	 * come in a second write (hwprof-data(5), "Names"), and a file
	 * without them is kept when they cannot be had. */
	rec_mpi_fold(run);
	ret = rec_out_write(&run->out, &r->d);
	if (ret)
		return cli_error("%s: %s", run->op.out, rec_out_strerror(ret));
	sym_cache_verbose = run->op.verbose;
	if (sym_keep_names(&r->d))
		fprintf(stderr, "hwprof: warning: out of memory: the file keeps no names "
				"(they come from the objects when reported)\n");
	else
		ret = rec_out_write(&run->out, &r->d);
	if (ret)
		return cli_error("%s: %s: the file is kept without the names (report reads them "
				 "from the objects)",
				 run->op.out, rec_out_strerror(ret));
	warn_lost(run);
	warn_coverage(run);
	warn_running(run);
	warn_unseen(run);
	warn_setid(run);
	say_status(run);
	/*
	 * A rank whose command died of a signal (a job killed at its walltime,
	 * or by its own error) is the launcher's cue to SIGKILL every other
	 * rank at once (Open MPI's mpirun does): this rank's file is written,
	 * but a rank still draining would lose its own. Its exit waits a
	 * second for them, about what mpirun gives a signalled rank before
	 * its SIGKILL anyway.
	 */
	if (r->d.rank >= 0 && !run->op.pid && (run->stopping || WIFSIGNALED(run->st)))
		sleep(1);
	return status;
}

/* ------------------------------------------------------------------ */
/* The run                                                              */

static void run_free(struct rec_run *run)
{
	rec_launch_abort(run);
	rec_mpi_drop();
	for (int i = 0; i < 2; i++) {
		if (run->go[i] >= 0)
			close(run->go[i]);
		if (run->ex[i] >= 0)
			close(run->ex[i]);
	}
	if (run->r) {
		rec_reader_stop(run->r);
		rec_perf_close(run->r);
		rec_maps_free(run->r);
		free(run->r);
	}
	rec_out_free(&run->out);
	free(run->file);
	free(run->outname);
	if (run->ctl_fd >= 0)
		close(run->ctl_fd);
	if (run->ack_fd >= 0)
		close(run->ack_fd);
}

/* Everything before the command runs: target, output, events, signals. */
static int prepare(struct rec_run *run)
{
	int ret;

	ret = run->op.pid ? rec_attach_target(run) : rec_command_target(run);
	if (!ret)
		ret = rec_out_setup(run);
	if (!ret)
		ret = rec_events_setup(run);
	if (!ret)
		ret = rec_mpi_setup(run);
	if (!ret && (ret = rec_signals_install()))
		ret = cli_error("pipe: %s", strerror(-ret));
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct rec_run run = {
		.out = { .f = { .dir = -1, .fd = -1 } },
		.go = { -1, -1 },
		.ex = { -1, -1 },
		.st = -1,
	};
	int ret = parse(argc, argv, &run.op);

	if (ret)
		return ret < 0 ? 0 : ret;
	run.r = calloc(1, sizeof(*run.r));
	if (!run.r)
		die("out of memory");
	rec_maps_init(run.r);
	run.r->ring_pages = run.op.ring_pages; /* 0: rec-perf.c sizes them */
	run.r->callgraph = run.op.callgraph;
	run.r->stack_size = run.op.stack_size;
	run.r->leaf = REC_LEAF_SUPPORTED && run.op.callgraph == HD_CG_FP && !run.op.noleaf;
	run.ctl_fd = run.ack_fd = -1;
	/* --delay: off from the start (not on at the exec) */
	run.r->paused = run.op.delay != 0;
	ret = prepare(&run);
	if (!ret)
		ret = control_open(&run);
	if (!ret)
		ret = run.op.pid ? rec_attach(&run) : rec_launch(&run);
	run.t0 = now_ms(); /* the command has exec'd (or is attached) */
	if (!ret)
		ret = loop(&run);
	if (!ret)
		ret = finish(&run);
	run_free(&run);
	return ret;
}
