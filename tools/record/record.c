/* SPDX-License-Identifier: MIT */
/*
 * hwprof record: checks the events, the periods and the output file, then
 * samples the command's whole process tree from this process (rec-perf.c)
 * until the command ends, whatever ends it, and writes one data file
 * (hwprof-data(5)) atomically. A signal to record is passed on to the
 * command, and record goes on until the command has ended; -p attaches to
 * a running process until it ends or record is interrupted.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include <hwprof.h>
#include "elfsym.h"
#include "internal.h"
#include "cli.h"
#include "rec.h"
#include "symbols.h"

#define DEFAULT_HZ	1000

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
"  -q, --quiet           no messages but errors\n"
"  -h, --help            this help\n"
"\n"
"Exit status: the command's (128+N when signal N ended it); 0 after -p;\n"
"1 on an error of hwprof's (one line on stderr); 2 on a usage error.\n"
"See hwprof(1).\n";

struct opts {
	const char *ev[REC_MAX_EVENTS];
	int nev;
	uint64_t count;		/* -c, 0: none */
	uint64_t hz;		/* -F, 0: none */
	const char *out;
	pid_t pid;		/* -p, 0: none */
	unsigned int checkpoint;
	int quiet;
	char **cmd;
};

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

static int signals_install(void)
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
	sigaction(SIGXFSZ, &sa, &saved[NSTOP + 2]);	/* a write past RLIMIT_FSIZE fails instead */
	return 0;
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
/* MPI launchers                                                        */

/*
 * The rank a launcher gave this process: the first of these variables
 * that is set (Open MPI's mpirun, a PMIx launcher, MPICH's and Intel MPI's
 * Hydra, Slurm's srun). The world size comes from the first size variable
 * set, -1 when none is (a PMIx launcher alone names no size).
 */
static const char *const rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID",
};
static const char *const size_vars[] = {
	"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
};

static int env_int(const char *name, long max)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	x = strtol(v, &end, 10);
	return errno || *end || x > max ? -1 : (int)x;
}

static void launcher_rank(int *rank, int *size)
{
	*rank = *size = -1;
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && *rank < 0; i++) {
		/* a batch script runs as task 0 of its Slurm job too: only a
		 * step srun started (SLURM_STEP_ID) has ranks */
		if (!strcmp(rank_vars[i], "SLURM_PROCID") && !getenv("SLURM_STEP_ID"))
			continue;
		*rank = env_int(rank_vars[i], 1 << 30);
	}
	for (size_t i = 0; i < sizeof(size_vars) / sizeof(size_vars[0]) && *size < 0; i++)
		*size = env_int(size_vars[i], 1 << 30);
	if (*size <= *rank)
		*size = -1;	/* not a size this rank fits in */
}

/*
 * -o with %r (rank), %h (host), %p (hwprof record's pid) and %% put in:
 * the name, malloc'd, or NULL after one line on stderr (*usage set when
 * the pattern itself is wrong).
 */
static char *out_expand(const char *arg, int rank, const char *host, int *usage)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	*usage = 0;
	if (!m) {
		die("out of memory");
		return NULL;
	}
	for (const char *p = arg; *p; p++) {
		if (*p != '%') {
			fputc(*p, m);
			continue;
		}
		switch (*++p) {
		case '%':
			fputc('%', m);
			break;
		case 'p':
			fprintf(m, "%d", (int)getpid());
			break;
		case 'h':
			fputs(host, m);
			break;
		case 'r':
			if (rank < 0) {
				fclose(m);
				free(buf);
				die("-o %s: %%r, but no MPI launcher gave a rank (none of "
				    "OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID is set)",
				    arg);
				return NULL;
			}
			fprintf(m, "%d", rank);
			break;
		default:
			fclose(m);
			free(buf);
			*usage = 1;
			die("-o %s: %%%s is not one of %%r (rank), %%h (host), %%p (pid), %%%%",
			    arg, *p ? (char[]){ *p, 0 } : "");
			return NULL;
		}
	}
	if (fclose(m)) {
		free(buf);
		die("out of memory");
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------------ */
/* The output file                                                      */

struct out {
	char *path;		/* absolute, symlinks resolved */
	char *tmp;		/* the temp file being written, or NULL */
	int fd;
};

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* A temp file in the output's directory: rename() then replaces the old
 * file at once, and a reader never sees half a file. */
static int out_temp(struct out *o)
{
	char *slash = strrchr(o->path, '/');
	int fd;

	free(o->tmp);
	if (asprintf(&o->tmp, "%.*s/.%s.XXXXXX", (int)(slash - o->path), o->path,
		     slash + 1) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;

		free(o->tmp);
		o->tmp = NULL;
		return e;
	}
	o->fd = fd;
	return 0;
}

/*
 * Checks -o before anything runs: what is there must be a regular file
 * (a symlink is followed), never a device, FIFO or directory, and not in
 * a kernel file system; its directory must take a new file.
 */
static int out_prepare(struct out *o, const char *arg)
{
	char cwd[PATH_MAX], *abs = NULL, *real;
	struct statfs sf;
	struct stat st;
	int r;

	o->fd = -1;
	if (arg[0] == '/') {
		abs = strdup(arg);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return die("-o %s: cannot name the current directory: %s", arg,
				   strerror(errno));
		if (asprintf(&abs, "%s/%s", strcmp(cwd, "/") ? cwd : "", arg) < 0)
			abs = NULL;
	}
	if (!abs)
		return die("out of memory");
	if (!*arg || arg[strlen(arg) - 1] == '/') {
		free(abs);
		return die("-o %s: not a file name", arg);
	}
	if (!stat(abs, &st)) {
		if (!S_ISREG(st.st_mode)) {
			free(abs);
			return die("-o %s: %s; hwprof record writes only regular files", arg,
				   kind_of(st.st_mode));
		}
		real = realpath(abs, NULL);	/* write where the link points */
		if (real) {
			free(abs);
			abs = real;
		}
	} else if (errno != ENOENT) {
		r = errno;
		free(abs);
		return die("-o %s: %s", arg, strerror(r));
	}
	o->path = abs;
	{
		char *slash = strrchr(abs, '/');
		char *dir = strndup(abs, slash == abs ? 1 : (size_t)(slash - abs));

		if (!dir)
			return die("out of memory");
		r = statfs(dir, &sf);
		free(dir);
	}
	if (!r && (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC ||
		   sf.f_type == DEBUGFS_MAGIC || sf.f_type == CGROUP_SUPER_MAGIC ||
		   sf.f_type == CGROUP2_SUPER_MAGIC))
		return die("-o %s: a kernel file system; hwprof record writes only regular files",
			   arg);
	/* the directory takes a new file: checked now, made at the write (a
	 * SIGKILL of record leaves no empty temp file behind) */
	r = out_temp(o);
	if (r)
		return die("-o %s: cannot create a file beside it: %s", arg, strerror(-r));
	unlink(o->tmp);
	close(o->fd);
	o->fd = -1;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

/* Writes d into the temp file and renames it over the output. */
static int out_write(struct out *o, const struct hd_file *d)
{
	mode_t um = umask(0);
	FILE *f;
	int r, fd;

	umask(um);
	if (!o->tmp && (r = out_temp(o)))
		return r;
	fd = dup(o->fd);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (ftruncate(o->fd, 0) || lseek(fd, 0, SEEK_SET)) {
		r = -errno;
		fclose(f);
		return r;
	}
	r = hd_write(f, d);
	if (fclose(f) && !r)
		r = -errno;
	if (!r && fchmod(o->fd, 0666 & ~um))
		r = -errno;
	if (!r && rename(o->tmp, o->path))
		r = -errno;
	if (r)
		return r == -EIO && errno ? -errno : r;
	close(o->fd);
	o->fd = -1;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

static void out_free(struct out *o)
{
	if (o->tmp)
		unlink(o->tmp);
	if (o->fd >= 0)
		close(o->fd);
	free(o->tmp);
	free(o->path);
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

/* The load address of file in process pid: the start of its mapping at
 * file offset 0 (a PIE's first PT_LOAD has p_vaddr 0). */
static int load_base(pid_t pid, const char *file, uint64_t *base)
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
		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %n", &lo, &off, &at) >= 2 &&
		    at && !off && !strcmp(line + at, real)) {
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

/* ------------------------------------------------------------------ */
/* Events                                                               */

static long max_rate(void)
{
	return hwp_read_long("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
}

/* "1 ms", "250 us", "1.5 s" */
static void human_ns(char *b, size_t n, uint64_t ns)
{
	if (ns >= 1000000000ull && ns % 1000000000ull == 0)
		snprintf(b, n, "%llu s", (unsigned long long)(ns / 1000000000ull));
	else if (ns >= 1000000000ull)
		snprintf(b, n, "%.3g s", (double)ns / 1e9);
	else if (ns >= 1000000 && ns % 1000000 == 0)
		snprintf(b, n, "%llu ms", (unsigned long long)(ns / 1000000));
	else if (ns >= 1000000)
		snprintf(b, n, "%.3g ms", (double)ns / 1e6);
	else if (ns >= 1000 && ns % 1000 == 0)
		snprintf(b, n, "%llu us", (unsigned long long)(ns / 1000));
	else if (ns >= 1000)
		snprintf(b, n, "%.3g us", (double)ns / 1e3);
	else
		snprintf(b, n, "%llu ns", (unsigned long long)ns);
}

struct bp {		/* a mem:FUNC:x of a PIE: placed after the exec */
	int ev;
	uint64_t off;
};

/*
 * Resolves every -e name and its period, before anything runs. Fills the
 * events of r and the data file, with the line that says what each
 * records. bps: the PIE breakpoints to place once the command is loaded.
 */
static int setup_events(struct rec *r, struct opts *op, const char *file,
			struct bp *bps, int *nbp, const char *out)
{
	int defaulted = !op->nev;
	char why[512];

	*nbp = 0;
	if (defaulted) {
		op->ev[op->nev++] = hwprof_event_probe("cycles", NULL, 0) ? "task-clock" : "cycles";
		if (!op->count && !op->hz)
			op->hz = DEFAULT_HZ;
	}
	for (int e = 0; e < op->nev; e++) {
		const char *name = op->ev[e];
		struct rec_event *re = &r->ev[e];
		struct hwp_event ev;
		char mem[64], msg[160], hn[32];
		int etype = 0, ret;
		uint64_t period;
		long h;

		re->name = name;
		if (!strncmp(name, "mem:", 4) && strncasecmp(name + 4, "0x", 2)) {
			/* mem:FUNC:x: a function of the command, found here. A
			 * PIE (ET_DYN) is placed by the kernel: its value is an
			 * offset from the load address, read once it is loaded */
			const char *colon = strrchr(name + 4, ':');
			char func[256];
			uint64_t a = 0;

			if (!colon || strcmp(colon, ":x") || colon == name + 4 ||
			    (size_t)(colon - name - 4) >= sizeof(func))
				return die("%s: only execute breakpoints (mem:FUNC:x, mem:0xADDR:x) are supported",
					   name);
			snprintf(func, sizeof(func), "%.*s", (int)(colon - name - 4), name + 4);
			ret = hwp_elf_func(file, func, &a, &etype);
			if (ret == -ENOENT)
				return die("%s: no function '%s' in %s", name, func, file);
			if (ret)
				return die("%s: cannot read %s: %s", name, file, strerror(-ret));
			if (etype == ET_DYN) {
				uint64_t base;

				if (!op->pid) {
					bps[(*nbp)++] = (struct bp){ e, a };
					a = 0x1000;	/* checked now, placed later */
				} else if (load_base(op->pid, file, &base)) {
					return die("%s: cannot find %s in process %d", name, file,
						   (int)op->pid);
				} else {
					a += base;
				}
			}
			snprintf(mem, sizeof(mem), "mem:%#llx:x", (unsigned long long)a);
			ret = hwp_event_resolve(mem, &ev, why, sizeof(why));
			if (ret) {
				char *colon2 = strstr(why, ": ");

				return die("%s: %s", name, colon2 ? colon2 + 2 : why);
			}
		} else {
			ret = hwp_event_resolve(name, &ev, why, sizeof(why));
			if (ret == -EOPNOTSUPP && !strstr(why, "task-clock"))
				return die("%s; try -e task-clock, which every Linux has", why);
			if (ret)
				return die("%s", why);
		}
		re->attr = ev.attr;
		re->clock = ev.kind == HWP_EV_CLOCK;
		period = op->count ? op->count : ev.default_period;
		if (op->hz) {
			if (re->clock) {
				period = 1000000000ull / op->hz;
				if (!period)
					period = 1;
			} else if (ev.kind == HWP_EV_HARDWARE) {
				period = 0;	/* the kernel adjusts it */
			} else {
				return die("-F needs a clock or cycles event; give %s a threshold with -c",
					   name);
			}
		}
		if (period) {
			uint64_t applied = re->clock ? hwp_applied_period(1, period) : period;

			re->attr.sample_period = applied;
			if (re->clock) {
				char hz[48] = "";

				human_ns(hn, sizeof(hn), applied);
				if (op->hz)
					snprintf(hz, sizeof(hz), ", %llu Hz",
						 (unsigned long long)op->hz);
				snprintf(msg, sizeof(msg), "every %llu ns (%s%s%s)",
					 (unsigned long long)applied, hn,
					 applied != period ? ", the kernel's minimum" : hz,
					 applied != period ? "" :
					 defaulted || (!op->count && !op->hz) ? ", its default" : "");
			} else {
				snprintf(msg, sizeof(msg), "every %llu event%s%s",
					 (unsigned long long)applied, applied == 1 ? "" : "s",
					 op->count ? "" : " (its default)");
			}
			period = applied;
		} else {
			re->attr.freq = 1;
			re->attr.sample_freq = op->hz;
			snprintf(msg, sizeof(msg), "at %llu Hz (the kernel adjusts the period)",
				 (unsigned long long)op->hz);
		}
		h = hd_add_event(&r->d, name, period);
		if (h < 0)
			return die("out of memory");
		re->hd = (uint32_t)h;
		snprintf(re->msg, sizeof(re->msg), "hwprof: recording %s %s into %s", name, msg, out);
	}
	r->nev = op->nev;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Options                                                              */

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+' || *s == ' ')
		return die("%s %s: not a positive whole number", opt, s);
	*v = strtoull(s, &end, 10);
	if (*end || end == s || !*v)
		return die("%s %s: not a positive whole number", opt, s);
	if (errno || *v > max)
		return die("%s %s: too large (at most %llu)", opt, s, (unsigned long long)max);
	return 0;
}

static int usage(void)
{
	fputs("usage: hwprof record [-e EVENT]... [-c N | -F HZ] [-o FILE] [--] CMD [ARGS...]\n"
	      "       hwprof record [-e EVENT]... [-c N | -F HZ] [-o FILE] -p PID\n"
	      "see hwprof record --help\n", stderr);
	return 2;
}

static int parse(int argc, char **argv, struct opts *op)
{
	int i;

	memset(op, 0, sizeof(*op));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int has_val = !strcmp(a, "-e") || !strcmp(a, "--event") || !strcmp(a, "-c") ||
			      !strcmp(a, "--count") || !strcmp(a, "-F") || !strcmp(a, "--freq") ||
			      !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "-p") ||
			      !strcmp(a, "--pid") || !strcmp(a, "--checkpoint");

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;		/* the command */
		if (has_val) {
			if (i + 1 >= argc)
				return die("%s needs a value", a);
			v = argv[++i];
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			return -1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			op->quiet = 1;
		} else if (!strcmp(a, "-e") || !strcmp(a, "--event")) {
			if (op->nev == REC_MAX_EVENTS)
				return die("at most %d events", REC_MAX_EVENTS);
			if (!*v)
				return die("%s: an empty event name", a);
			op->ev[op->nev++] = v;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--count")) {
			if (parse_u64("-c", v, INT64_MAX, &op->count))
				return 1;
		} else if (!strcmp(a, "-F") || !strcmp(a, "--freq")) {
			long rate = max_rate();
			uint64_t max = rate > 0 && rate < 1000000000 ? (uint64_t)rate : 1000000000;

			if (parse_u64("-F", v, UINT64_MAX, &op->hz))
				return 1;
			if (op->hz > max)
				return die("-F %s: above the kernel's limit of %llu samples a second (kernel.perf_event_max_sample_rate)",
					   v, (unsigned long long)max);
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			op->out = v;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			uint64_t p;

			if (parse_u64("-p", v, INT32_MAX, &p))
				return 1;
			op->pid = (pid_t)p;
		} else if (!strcmp(a, "--checkpoint")) {
			uint64_t s;

			if (parse_u64("--checkpoint", v, 86400, &s))
				return 1;
			op->checkpoint = (unsigned int)s;
		} else {
			return die("unknown option %s (see hwprof record --help)", a) + 1;
		}
	}
	if (op->count && op->hz)
		return die("give -c or -F, not both");
	if (op->pid && i < argc)
		return die("give -p PID or a command, not both");
	if (!op->pid && i >= argc)
		return usage();
	op->cmd = argv + i;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The run                                                              */

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* the child: waits for the events, then runs the command; an exec that
 * fails says its errno on ex (closed by a successful exec) */
static void child(int go, int ex, char **cmd, const char *file, int stop)
{
	char b;
	int e;

	signals_reset();
	if (read(go, &b, 1) != 1)
		_exit(127);	/* record gave up: it says why */
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

/* Places the mem:FUNC:x breakpoints of a PIE, now loaded in pid (stopped
 * at its exec by ptrace). */
static int place_bps(struct rec *r, pid_t pid, const char *file, struct bp *bps,
		     int nbp, char *why, size_t len)
{
	uint64_t base;
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		snprintf(why, len, "%s did not start", file);
		return -ECHILD;
	}
	if (load_base(pid, file, &base)) {
		snprintf(why, len, "cannot find %s in process %d", file, (int)pid);
		return -ENOENT;
	}
	for (int i = 0; i < nbp; i++)
		r->ev[bps[i].ev].attr.bp_addr = base + bps[i].off;
	return 0;
}

/* said once the events are open: nothing can fail before the run now */
static void say_events(const struct rec *r, int quiet)
{
	for (int e = 0; e < r->nev && !quiet; e++)
		fprintf(stderr, "%s\n", r->ev[e].msg);
}

static void say_status(const char *out, int st, const struct hd_file *d, int quiet)
{
	size_t n = 0;

	if (quiet)
		return;
	for (size_t e = 0; e < d->nevents; e++)
		n += d->events[e].samples;
	fprintf(stderr, "hwprof: wrote %s (%zu samples, %zu process%s)%s%s; see it with: hwprof report %s\n",
		out, n, d->nprocs, d->nprocs == 1 ? "" : "es",
		st < 0 ? "" : WIFSIGNALED(st) ? "; the command died of " : "",
		st >= 0 && WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "", out);
}

int cmd_record(int argc, char **argv)
{
	struct opts op;
	struct out out = { .fd = -1 };
	struct rec *r;
	struct bp bps[REC_MAX_EVENTS];
	char *file = NULL, *cmdline = NULL, *outname = NULL, why[512];
	int nbp = 0, go[2] = { -1, -1 }, ex[2] = { -1, -1 }, ret, st = -1, status = 1;
	int stopping = 0;
	uint64_t last_ckpt;
	pid_t pid = 0;

	ret = parse(argc, argv, &op);
	if (ret)
		return ret < 0 ? 0 : ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return die("out of memory");
	rec_maps_init(r);

	if (op.pid) {
		char exe[64];

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)op.pid);
		if (kill(op.pid, 0) && errno == ESRCH) {
			ret = die("-p %d: no such process", (int)op.pid);
			goto out;
		}
		file = realpath(exe, NULL);
		if (!file)
			file = strdup(exe);
	} else {
		file = find_cmd(op.cmd[0]);
		if (!file) {
			ret = die("%s: cannot run it: %s", op.cmd[0],
				  strchr(op.cmd[0], '/') ? strerror(errno) : "not found in PATH");
			goto out;
		}
	}
	{
		char host[HOST_NAME_MAX + 1] = "";
		int rank, size, bad;

		launcher_rank(&rank, &size);
		if (gethostname(host, sizeof(host) - 1))
			strcpy(host, "localhost");
		/* under a launcher, ranks never share the default name */
		outname = out_expand(op.out ? op.out : rank >= 0 ? "hwprof.%r.data" :
				     "hwprof.data", rank, host, &bad);
		if (!outname) {
			ret = bad ? 2 : 1;
			goto out;
		}
		op.out = outname;
		r->d.rank = rank;
		r->d.size = rank >= 0 ? size : -1;
		elf_version(EV_CURRENT);
		r->d.program = realpath(file, NULL);
		if (!r->d.program)
			r->d.program = strdup(file);
		r->d.program_id = rp_file_buildid(r->d.program ? r->d.program : file);
		if (r->d.program)
			r->d.program_size = sym_file_size(r->d.program);
		if (!(r->d.host = strdup(host)) || !r->d.program) {
			ret = die("out of memory");
			goto out;
		}
	}
	ret = out_prepare(&out, op.out);
	if (ret)
		goto out;
	ret = setup_events(r, &op, file, bps, &nbp, op.out);
	if (ret)
		goto out;
	ret = signals_install();
	if (ret) {
		ret = die("pipe: %s", strerror(-ret));
		goto out;
	}

	if (op.pid) {
		char *cmd = NULL;
		char path[64], buf[4096];
		int fd, ppid = 0;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)op.pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		while (n > 0 && !buf[n - 1])
			n--;
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		if (n > 0) {
			buf[n] = 0;
			cmd = strdup(buf);
		}
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)op.pid);
		{
			FILE *f = fopen(path, "re");
			char *line = NULL, *rp;
			size_t cap = 0;

			if (f && getline(&line, &cap, f) > 0 && (rp = strrchr(line, ')')))
				sscanf(rp + 1, " %*c %d", &ppid);
			free(line);
			if (f)
				fclose(f);
		}
		if (rec_add_root(r, op.pid, ppid, cmd ? cmd : file, 0)) {
			free(cmd);
			ret = die("out of memory");
			goto out;
		}
		free(cmd);
		r->d.command = strdup(r->d.procs[0].command);
		ret = rec_perf_open(r, op.pid, 1, why, sizeof(why));
		if (ret) {
			ret = die("%s", why);
			goto out;
		}
		say_events(r, op.quiet);
		/* the maps made before the attach; later ones come as records */
		if (rec_read_proc_maps(r, op.pid) == -ENOMEM) {
			ret = die("out of memory");
			goto out;
		}
		pid = op.pid;
	} else {
		cmdline = join(op.cmd);
		if (!cmdline || !(r->d.command = strdup(cmdline))) {
			ret = die("out of memory");
			goto out;
		}
		if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
			ret = die("pipe: %s", strerror(errno));
			goto out;
		}
		pid = fork();
		if (pid < 0) {
			ret = die("fork: %s", strerror(errno));
			goto out;
		}
		if (!pid) {
			close(go[1]);
			close(ex[0]);
			child(go[0], ex[1], op.cmd, file, nbp > 0);
		}
		close(go[0]);
		go[0] = -1;
		close(ex[1]);
		ex[1] = -1;
		if (rec_add_root(r, pid, 0, cmdline, 0)) {
			ret = die("out of memory");
			goto out_kill;
		}
		/* the breakpoints of a PIE are opened once it is loaded */
		for (int i = 0; i < nbp; i++)
			r->ev[bps[i].ev].late = 1;
		ret = rec_perf_open(r, pid, 0, why, sizeof(why));
		if (ret) {
			ret = die("%s", why);
			goto out_kill;
		}
		say_events(r, op.quiet);
		if (write(go[1], "g", 1) != 1) {
			ret = die("cannot start the command: %s", strerror(errno));
			goto out_kill;
		}
		close(go[1]);
		go[1] = -1;
		{	/* did the exec work? (EOF: yes) */
			int e = 0;
			ssize_t n;

			while ((n = read(ex[0], &e, sizeof(e))) < 0 && errno == EINTR)
				;
			close(ex[0]);
			ex[0] = -1;
			if (n == (ssize_t)sizeof(e)) {
				waitpid(pid, NULL, 0);
				die("%s: cannot run it: %s", op.cmd[0], strerror(e));
				ret = 127;
				goto out;
			}
		}
		if (nbp) {
			ret = place_bps(r, pid, file, bps, nbp, why, sizeof(why));
			if (!ret)
				ret = rec_perf_open_late(r, pid, why, sizeof(why));
			if (ret) {
				ret = die("%s", why);
				goto out_kill;
			}
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
		}
	}

	/* the loop: drain every ring until the command ends */
	last_ckpt = now_ms();
	for (;;) {
		struct pollfd pf[1 + 256];
		int fds[256];
		size_t n = rec_perf_pollfds(r, fds, 256);
		unsigned char sb[64];
		ssize_t k;

		pf[0] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
		for (size_t i = 0; i < n; i++)
			pf[1 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		poll(pf, 1 + n, 100);
		if (rec_perf_drain(r, 0) < 0) {
			ret = die("out of memory");
			goto out_kill;
		}
		while ((k = read(sig_pipe[0], sb, sizeof(sb))) > 0) {
			for (ssize_t i = 0; i + 1 < k; i += 2) {
				int sig = sb[i], from_tty = sb[i + 1];

				if (sig == SIGCHLD)
					continue;
				if (op.pid) {
					stopping = sig;
				} else if (!from_tty) {
					/* a signal sent to record alone reaches the
					 * command too; record goes on until it ends */
					kill(pid, sig);
				}
				if (!op.pid && !stopping) {
					stopping = sig;
					/* a walltime kill: have a file now, in case
					 * SIGKILL follows before the command ends */
					if (rec_perf_drain(r, 0) >= 0)
						out_write(&out, &r->d);
				}
			}
		}
		if (op.pid) {
			if (stopping || (kill(pid, 0) && errno == ESRCH))
				break;
		} else {
			pid_t w = waitpid(pid, &st, WNOHANG);

			if (w == pid)
				break;
		}
		if (op.checkpoint && now_ms() - last_ckpt >= op.checkpoint * 1000ull) {
			out_write(&out, &r->d);
			last_ckpt = now_ms();
		}
	}
	/* the rest of the rings: the command has ended (or, attached, the
	 * events are stopped), nothing more comes */
	rec_perf_stop(r);
	for (int i = 0; i < 1000; i++) {
		long n = rec_perf_drain(r, 1);

		if (n < 0) {
			ret = die("out of memory");
			goto out_kill;
		}
		if (!n)
			break;
	}
	rec_perf_account(r);
	if (op.pid) {
		struct hd_process *p = rec_process(r, pid);

		status = 0;
		if (p && p->how == HD_RUNNING && kill(pid, 0) && errno == ESRCH)
			p->how = HD_ENDED;
	} else {
		struct hd_process *p = rec_process(r, pid);

		if (p && WIFEXITED(st)) {
			p->how = HD_EXITED;
			p->status = WEXITSTATUS(st);
		} else if (p && WIFSIGNALED(st)) {
			p->how = HD_SIGNALED;
			p->status = WTERMSIG(st);
		}
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	rec_perf_close(r);
	ret = out_write(&out, &r->d);
	if (ret) {
		status = die("%s: %s", op.out, strerror(-ret));
		goto out;
	}
	say_status(op.out, op.pid ? -1 : st, &r->d, op.quiet);
	ret = status;
	/*
	 * A rank whose command died of a signal (a job killed at its walltime,
	 * or by its own error) is the launcher's cue to SIGKILL every other
	 * rank at once (Open MPI's mpirun does): this rank's file is written,
	 * but a rank still draining would lose its own. Its exit waits a
	 * second for them, about what mpirun gives a signalled rank before
	 * its SIGKILL anyway.
	 */
	if (r->d.rank >= 0 && !op.pid && (stopping || WIFSIGNALED(st)))
		sleep(1);
	goto out;

out_kill:
	if (pid > 0 && !op.pid) {
		if (go[1] >= 0) {
			close(go[1]);	/* the child ends without running anything */
			go[1] = -1;
		} else {
			kill(pid, SIGKILL);
		}
		waitpid(pid, NULL, 0);
	}
out:
	for (int i = 0; i < 2; i++)
		if (ex[i] >= 0)
			close(ex[i]);
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	rec_perf_close(r);
	rec_maps_free(r);
	free(r);
	out_free(&out);
	free(file);
	free(cmdline);
	free(outname);
	return ret;
}
