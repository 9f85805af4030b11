/* SPDX-License-Identifier: MIT */
/*
 * hwprof record: checks the command and the events here, where an error
 * can be said in one line, then runs the command with libhwprof preloaded
 * and HWPROF_RECORD set; the library samples it and writes the data file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwprof.h>
#include "cli.h"

#define MAX_EVENTS 8

/* The file execvp would run, or NULL. */
static char *find_cmd(const char *cmd)
{
	const char *p = getenv("PATH");
	static char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? NULL : strcpy(buf, cmd);
	for (p = p ? p : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, cmd);
		if (!access(buf, X_OK))
			return buf;
		p += n + (p[n] == ':');
	}
	return NULL;
}

/* 1 if an ELF program has an interpreter (dynamically linked), 0 if it is
 * static, -1 if not ELF (a script: its interpreter is dynamic). */
static int is_dynamic(const char *file)
{
	unsigned char h[64];
	int fd = open(file, O_RDONLY | O_CLOEXEC), dyn = 0;
	Elf64_Ehdr eh;

	if (fd < 0 || read(fd, h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    memcmp(h, ELFMAG, SELFMAG) || h[EI_CLASS] != ELFCLASS64) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	memcpy(&eh, h, sizeof(eh));
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
		    (ssize_t)sizeof(ph))
			break;
		dyn |= ph.p_type == PT_INTERP;
	}
	close(fd);
	return dyn;
}

/* The path of the libhwprof this command runs with: it is preloaded. */
static const char *lib_path(void)
{
	Dl_info di;

	if (dladdr((void *)hwprof_session_new, &di) && di.dli_fname)
		return di.dli_fname;
	return "libhwprof.so.0";
}

static double cpu_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	if (f)
		fclose(f);
	return mhz > 0 ? mhz : 2000;
}

static int usage(void)
{
	fputs("usage: hwprof record [-e EVENT]... [-c THRESHOLD | -F HZ] [-o FILE] -- CMD [ARGS...]\n",
	      stderr);
	return 2;
}

int cmd_record(int argc, char **argv)
{
	const char *ev[MAX_EVENTS], *out = "hwprof.data", *cmd;
	uint64_t thr = 0, hz = 0, period[MAX_EVENTS];
	char why[512], buf[64];
	int nev = 0, i, st;
	pid_t pid;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "-e") || !strcmp(a, "-c") || !strcmp(a, "-F") ||
		     !strcmp(a, "-o")) && i + 1 >= argc)
			return die("%s needs a value", a);
		if (!strcmp(a, "-e")) {
			if (nev == MAX_EVENTS)
				return die("at most %d events", MAX_EVENTS);
			ev[nev++] = argv[++i];
		} else if (!strcmp(a, "-c")) {
			char *end;

			thr = strtoull(argv[++i], &end, 0);
			if (*end || !thr || argv[i][0] == '-')
				return die("-c %s: not a positive whole number", argv[i]);
		} else if (!strcmp(a, "-F")) {
			char *end;

			hz = strtoull(argv[++i], &end, 0);
			if (*end || !hz || argv[i][0] == '-')
				return die("-F %s: not a positive whole number", argv[i]);
		} else if (!strcmp(a, "-o")) {
			out = argv[++i];
		} else if (a[0] != '-') {
			break;		/* the command, without "--" */
		} else {
			return usage();
		}
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc)
		return usage();
	if (thr && hz)
		return die("give -c or -F, not both");

	cmd = find_cmd(argv[i]);
	if (!cmd)
		return die("%s: cannot run it: %s", argv[i],
			   strchr(argv[i], '/') ? strerror(errno) : "not found in PATH");
	if (!is_dynamic(cmd))
		return die("%s is statically linked: LD_PRELOAD cannot reach it; link it with "
			   "-lhwprof and use the API (hwprof_session_new(3))", cmd);

	if (!nev) {		/* cycles where the PMU has it */
		ev[nev++] = hwprof_event_probe("cycles", NULL, 0) ? "task-clock" : "cycles";
		if (!thr && !hz)
			hz = 1000;
	}
	for (int e = 0; e < nev; e++) {
		/* mem:FUNC:x names the recorded program's function: it resolves
		 * there, at load (its failure is said by the library) */
		int sym = !strncmp(ev[e], "mem:", 4) && strncmp(ev[e], "mem:0x", 6);
		int r = sym ? 0 : hwprof_event_probe(ev[e], why, sizeof(why));
		int clock = !strcmp(ev[e], "task-clock") || !strcmp(ev[e], "cpu-clock") ||
			    !strcmp(ev[e], "perf::TASK-CLOCK") || !strcmp(ev[e], "perf::CPU-CLOCK");

		if (r == -EOPNOTSUPP)
			return die("%s; try -e task-clock, which every Linux has", why);
		if (r == -EACCES)
			return die("%s; lower it with: sysctl kernel.perf_event_paranoid=1", why);
		if (r)
			return die("%s", why);
		period[e] = thr;
		if (hz && clock)
			period[e] = 1000000000ull / hz;
		else if (hz && (!strcmp(ev[e], "cycles") || !strcmp(ev[e], "PAPI_TOT_CYC")))
			period[e] = (uint64_t)(cpu_mhz() * 1e6) / hz;
		else if (hz)
			return die("-F needs a clock or cycles event; give %s a threshold with -c", ev[e]);
	}

	/* the file must be writable before the run, not found unwritable after */
	st = open(out, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
	if (st < 0)
		return die("%s: %s", out, strerror(errno));
	close(st);

	for (int e = 0; e < nev; e++)
		fprintf(stderr, "hwprof: recording %s every %llu%s into %s\n", ev[e],
			(unsigned long long)period[e],
			period[e] ? "" : " (its default)", out);
	pid = fork();
	if (pid < 0)
		return die("fork: %s", strerror(errno));
	if (!pid) {
		const char *pre = getenv("LD_PRELOAD");
		char *both = NULL;

		if (pre && *pre && asprintf(&both, "%s:%s", lib_path(), pre) > 0)
			setenv("LD_PRELOAD", both, 1);
		else
			setenv("LD_PRELOAD", lib_path(), 1);
		setenv("HWPROF_RECORD", out, 1);
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		setenv("HWPROF_RECORD_PID", buf, 1);
		snprintf(buf, sizeof(buf), "%d", nev);
		setenv("HWPROF_RECORD_EVENTS", buf, 1);
		for (int e = 0; e < nev; e++) {
			char key[64], val[32];

			snprintf(key, sizeof(key), "HWPROF_RECORD_EVENT%d", e);
			setenv(key, ev[e], 1);
			snprintf(key, sizeof(key), "HWPROF_RECORD_PERIOD%d", e);
			snprintf(val, sizeof(val), "%llu", (unsigned long long)period[e]);
			setenv(key, val, 1);
		}
		unlink(out);	/* written at the command's exit */
		execv(cmd, argv + i);
		fprintf(stderr, "hwprof: %s: cannot run it: %s\n", cmd, strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return die("waitpid: %s", strerror(errno));
	if (access(out, R_OK))
		return die("%s was not written (the command ended with %s %d)", out,
			   WIFSIGNALED(st) ? "signal" : "status",
			   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	fprintf(stderr, "hwprof: wrote %s; see it with: hwprof report %s\n", out, out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
