/* SPDX-License-Identifier: MIT */
/*
 * Hostile programs and hostile inputs: each case reproduces one
 * defect. Linked with the whole static library, so its constructors are
 * in the program as they are in every program that loads libhwprof, and
 * a setuid-root copy of this program is self-contained. (hwprof record
 * writes its file from its own process: tests/test-record.sh.)
 * usage: test-harden CASE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/profil.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwprof.h>
#include <hwprof/pcsample.h>
#include "../lib/engine/internal.h"
#include "harness.h"
#include "tlib.h"

/* <hwprof/mon.h>'s AIX struct prof clashes with glibc's <sys/profil.h>:
 * its declarations here, under another name, the same layout. */
typedef char *caddr_t_;
typedef unsigned short HISTCOUNTER;
struct aix_prof {
	caddr_t_ p_low, p_high;
	HISTCOUNTER *p_buff;
	int p_bufsize;
	unsigned int p_scale;
};
int monitor(caddr_t_ lowpc, ...);
int monstartup(caddr_t_ lowpc, caddr_t_ highpc);

/* glibc declares profil's buffer nonnull; NULL turns profiling off */
static int (*volatile profil_)(unsigned short *, size_t, size_t, unsigned int) = profil;

static volatile uint64_t sink;
static long psz;

/* Two pages, the second unmapped: returns the end of the first. */
static char *edge(void)
{
	char *p = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(T_ERROR);
	}
	munmap(p + psz, psz);
	memset(p, 0, psz);
	return p + psz;
}

/* Runs fn in a child: its exit status, or 128 + the signal that killed it. */
static int in_child(int (*fn)(void), unsigned int secs)
{
	int st;
	pid_t pid = fork();

	if (!pid) {
		alarm(secs);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return T_ERROR;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *slurp(const char *path, size_t *len)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	if (len)
		*len = (size_t)n;
	return buf;
}

/* A fresh directory nobody may use (mode given). */
static void tmpdir(char *dir, size_t len, mode_t mode)
{
	snprintf(dir, len, "/tmp/hwprof-harden-XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, mode)) {
		perror("mkdtemp");
		exit(T_ERROR);
	}
}

/* ------------------------------------------------------------------ */
/* 1: setuid programs take no HWPROF_* variable                         */

/* What the setuid copy runs: monitor writes its data file at monitor(0). */
static int setuid_child(void)
{
	if (geteuid() != 0 || getuid() == 0)
		return 3; /* not the set-user-ID situation we meant */
	setenv("HWPROF_EVENT", "task-clock", 1);
	if (monstartup((caddr_t_)-1, 0))
		return 4;
	sink = spin_hot(1000000);
	monitor(0);
	return 0;
}

static int case_setuid(const char *self)
{
	char priv[64], pub[64], victim[128], victim2[128], prog[128], cmd[5000];
	const char *text;
	int fd, st;
	pid_t pid;

	if (geteuid() != 0) {
		printf("SKIP: setting up a setuid-root program needs root\n");
		return T_SKIP;
	}
	tmpdir(priv, sizeof(priv), 0700); /* root's */
	tmpdir(pub, sizeof(pub), 0777);	  /* nobody's cwd and program */
	snprintf(victim, sizeof(victim), "%s/secret", priv);
	snprintf(victim2, sizeof(victim2), "%s/secret2", priv);
	snprintf(prog, sizeof(prog), "%s/test-harden", pub);
	for (int i = 0; i < 2; i++) {
		fd = open(i ? victim2 : victim, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		if (fd < 0 || write(fd, "root's data\n", 12) != 12) {
			perror("victim");
			return T_ERROR;
		}
		close(fd);
	}
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chown 0:0 '%s' && chmod 4755 '%s'", self,
		 prog, prog, prog);
	if (system(cmd)) {
		printf("ERROR: %s failed\n", cmd);
		return T_ERROR;
	}
	pid = fork();
	if (!pid) {
		if (chdir(pub) || setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(5);
		setenv("HWPROF_GMON_OUT", victim, 1);
		setenv("HWPROF_PERIOD", "010", 1);
		execl(prog, prog, "setuid-child", (char *)NULL);
		_exit(6);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return T_ERROR;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
		printf("SKIP: the set-user-ID bit has no effect in %s (a nosuid mount)\n",
		       pub);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", priv, pub);
		return system(cmd) ? T_ERROR : T_SKIP;
	}
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"the setuid program as nobody: status %#x", st);
	for (int i = 0; i < 2; i++) {
		struct stat sb;
		const char *v = i ? victim2 : victim;

		text = slurp(v, NULL);
		T_CHECK(text && !strcmp(text, "root's data\n"), "%s was changed", v);
		T_CHECK(!stat(v, &sb) && sb.st_uid == 0 && (sb.st_mode & 07777) == 0600,
			"%s: owner or mode changed", v);
	}
	snprintf(cmd, sizeof(cmd), "ls -la '%s' '%s'; rm -rf '%s' '%s'", priv, pub, priv, pub);
	T_EQ(system(cmd), 0);
	return t_done("setuid");
}

/* ------------------------------------------------------------------ */
/* 6: bad buffers are EFAULT, never SIGSEGV or a crash in the drain     */

static int opts_edge(void);

static int sprofil_edge(void)
{
	struct prof *pr = (struct prof *)(void *)(edge() - sizeof(struct prof));
	static uint32_t buf[64];
	int ret;

	/* entry 0 is the last thing on the page; entry 1 is not mapped */
	*pr = (struct prof){ .pr_base = buf,
			     .pr_size = sizeof(buf),
			     .pr_off = 0x1000,
			     .pr_scale = 0x10000 };
	errno = 0;
	ret = sprofil(pr, 2, NULL, PROF_UINT);
	printf("sprofil(array into an unmapped page): %d %s\n", ret, strerror(errno));
	return ret == -1 && errno == EFAULT ? 0 : 1;
}

/* Where process_vm_readv() is refused (Docker's default seccomp profile
 * without CAP_SYS_PTRACE), the maps decide: a filter in the test makes it
 * fail with EPERM. */
static int no_vm_readv(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	static uint32_t buf[64];
	struct prof good = { .pr_base = buf,
			     .pr_size = sizeof(buf),
			     .pr_off = 0x1000,
			     .pr_scale = 0x10000 };
	struct iovec l = { .iov_base = buf, .iov_len = 4 }, r = l;
	int bad = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 2;
	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != -1 || errno != EPERM)
		return 3; /* the filter is not in force */
	bad += sprofil_edge();
	if (sprofil(&good, 1, NULL, PROF_UINT)) {
		printf("FAIL: sprofil of a good array: %s\n", strerror(errno));
		bad++;
	}
	sprofil(NULL, 0, NULL, 0);
	bad += opts_edge();
	return bad ? 1 : 0;
}

static int case_no_vm_readv(void)
{
	int st;

	setenv("HWPROF_EVENT", "task-clock", 1);
	st = in_child(no_vm_readv, 30);
	T_CHECK(st == 0, "without process_vm_readv: status %d (%s)", st,
		st == 128 + SIGSEGV ? "SIGSEGV" :
		st == 2 || st == 3  ? "no filter" :
				      "failures above");
	return t_done("no-vm-readv");
}

static int case_sprofil_unmapped(void)
{
	int st;

	setenv("HWPROF_EVENT", "task-clock", 1);
	st = in_child(sprofil_edge, 20);
	T_CHECK(st == 0, "sprofil: status %d (%s)", st,
		st == 128 + SIGSEGV ? "SIGSEGV" :
		st == 1		    ? "not EFAULT" :
				      "?");
	return t_done("sprofil-unmapped");
}

static int case_hist_readonly(void)
{
	char *ro = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *gone = edge();
	static uint16_t ok[64];
	struct hwprof_region r = { .size = 128,
				   .offset = 0x1000,
				   .scale = 0x10000,
				   .width = 16 };
	struct hwprof_hist_opts o = { .sz = sizeof(o),
				      .regions = &r,
				      .nregions = 1,
				      .index = HWPROF_INDEX_PAPI };
	struct hwprof_region two[2] = {
		{ .base = ok,
		  .size = sizeof(ok),
		  .offset = 0x1000,
		  .scale = 0x10000,
		  .width = 16 },
		{ .base = ro, .size = 2, .offset = 0, .scale = 2, .width = 16 }, /* bin */
	};
	struct hwprof_hist *h = NULL;

	r.base = ro;
	T_EQ(hwprof_hist_new(&o, &h), -EFAULT);
	T_CHECK(!h, "a histogram was returned");
	r.base = gone; /* unmapped */
	T_EQ(hwprof_hist_new(&o, &h), -EFAULT);
	r.base = gone - 64; /* runs off the end of the mapping */
	T_EQ(hwprof_hist_new(&o, &h), -EFAULT);
	o.regions = two; /* a read-only overflow bin */
	o.nregions = 2;
	T_EQ(hwprof_hist_new(&o, &h), -EFAULT);
	two[1].base = ok; /* the same writable buffer: fine */
	two[1].offset = 0;
	T_EQ(hwprof_hist_new(&o, &h), 0);
	hwprof_hist_free(h);
	/* the shape check comes first: a bad table is -EINVAL, checked alone */
	two[0].width = 12;
	two[1].base = ro;
	T_EQ(hwprof_hist_new(&o, &h), -EINVAL);
	/* the table check does not look at memory: hwprof_hist_check(3) */
	two[0].width = 16;
	T_EQ(hwprof_hist_check(&o, NULL), HWPROF_HIST_OK);
	return t_done("hist-readonly");
}

/* ------------------------------------------------------------------ */
/* 7: pcsample's size check cannot wrap                                 */

static int case_pcsample_overflow(void)
{
	static struct {
		uintptr_t a[16];
		uintptr_t canary[4096];
	} s;
	long ret;

	setenv("HWPROF_EVENT", "task-clock", 1);
	setenv("HWPROF_PERIOD", "100000", 1); /* 100 us */
	errno = 0;
	ret = pcsample(s.a, (1L << 61) + 16); /* 16 * 8 bytes once wrapped */
	T_CHECK(ret == -1 && errno == EFAULT, "pcsample(16 entries, 2^61 + 16): %ld %s", ret,
		strerror(errno));
	sink = spin_hot(100000000);
	pcsample(NULL, 0);
	for (size_t i = 0; i < sizeof(s.canary) / sizeof(s.canary[0]); i++)
		if (s.canary[i]) {
			T_CHECK(0, "written past the array at entry %zu", 16 + i);
			break;
		}
	errno = 0;
	T_EQ(pcsample(s.a, LONG_MAX), -1);
	T_EQ(errno, EFAULT);
	return t_done("pcsample-overflow");
}

/* ------------------------------------------------------------------ */
/* 13: HWPROF_PERIOD is decimal; every %p of HWPROF_GMON_OUT; FIFOs     */

static int case_period(void)
{
	static const struct {
		const char *s;
		uint64_t want; /* 0: refused */
	} t[] = {
		{ "010", 10 },
		{ "10", 10 },
		{ "0x10", 16 },
		{ "0X1f", 31 },
		{ "007", 7 },
		{ "08", 8 },
		{ "9223372036854775807", INT64_MAX },
		{ "9223372036854775808", 0 },
		{ "0", 0 },
		{ "-1", 0 },
		{ " 5", 0 },
		{ "+5", 0 },
		{ "5 ", 0 },
		{ "1e3", 0 },
		{ "0x", 0 },
		{ "x10", 0 },
		{ "0x-1", 0 },
		{ "0x 1", 0 },
		{ "18446744073709551617", 0 },
	};
	struct hwp_env env;

	setenv("HWPROF_EVENT", "page-faults", 1);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret;

		setenv("HWPROF_PERIOD", t[i].s, 1);
		ret = hwp_env_get(&env);
		if (t[i].want)
			T_CHECK(!ret && env.period == t[i].want,
				"HWPROF_PERIOD=\"%s\": %d, %llu (want %llu)", t[i].s, ret,
				(unsigned long long)env.period, (unsigned long long)t[i].want);
		else
			T_CHECK(ret == -EINVAL, "HWPROF_PERIOD=\"%s\" accepted: %llu", t[i].s,
				(unsigned long long)env.period);
	}
	return t_done("period");
}

static char gdir[64];

static int gmon_run(void)
{
	setenv("HWPROF_EVENT", "task-clock", 1);
	if (monstartup((caddr_t_)-1, 0))
		return 2;
	sink = spin_hot(1000000);
	return monitor(0) ? 1 : 0;
}

static int case_gmon_pct(void)
{
	char path[256], want[256];
	struct stat sb;
	int pid = (int)getpid(), st;

	tmpdir(gdir, sizeof(gdir), 0700);
	snprintf(path, sizeof(path), "%s/g.%%p.%%p-%%p", gdir);
	setenv("HWPROF_GMON_OUT", path, 1);
	/* in this process: the pid is ours */
	st = gmon_run();
	T_EQ(st, 0);
	snprintf(want, sizeof(want), "%s/g.%d.%d-%d", gdir, pid, pid, pid);
	T_CHECK(!stat(want, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 20, "no data file %s",
		want);
	/* a lone % and %% are kept as they are */
	snprintf(path, sizeof(path), "%s/h%%%%q%%", gdir);
	setenv("HWPROF_GMON_OUT", path, 1);
	T_EQ(gmon_run(), 0);
	snprintf(want, sizeof(want), "%s/h%%%%q%%", gdir);
	T_CHECK(!stat(want, &sb) && S_ISREG(sb.st_mode), "no data file %s", want);
	snprintf(path, sizeof(path), "rm -rf '%s'", gdir);
	T_EQ(system(path), 0);
	return t_done("gmon-pct");
}

static int case_gmon_fifo(void)
{
	char fifo[256], link[256], target[256], cmd[300];
	struct stat sb;
	int st;

	tmpdir(gdir, sizeof(gdir), 0700);
	snprintf(fifo, sizeof(fifo), "%s/fifo", gdir);
	if (mkfifo(fifo, 0600)) {
		perror("mkfifo");
		return T_ERROR;
	}
	setenv("HWPROF_GMON_OUT", fifo, 1);
	/* no reader: an open for writing would wait forever */
	st = in_child(gmon_run, 10);
	T_CHECK(st == 1, "monitor(0) on a FIFO: status %d (%s)", st,
		st == 128 + SIGALRM ? "blocked" : "?");
	T_CHECK(!stat(fifo, &sb) && S_ISFIFO(sb.st_mode), "the FIFO is gone");
	/* a symbolic link is not followed */
	snprintf(target, sizeof(target), "%s/target", gdir);
	snprintf(link, sizeof(link), "%s/link", gdir);
	if (close(open(target, O_CREAT | O_WRONLY, 0600)) || symlink(target, link))
		return T_ERROR;
	setenv("HWPROF_GMON_OUT", link, 1);
	st = in_child(gmon_run, 10);
	T_EQ(st, 1);
	T_CHECK(!stat(target, &sb) && sb.st_size == 0, "written through a symlink");
	/* /dev/null is not a regular file: refused, left as it is */
	setenv("HWPROF_GMON_OUT", "/dev/null", 1);
	st = in_child(gmon_run, 10);
	T_EQ(st, 1);
	T_CHECK(!stat("/dev/null", &sb) && S_ISCHR(sb.st_mode), "/dev/null changed");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", gdir);
	T_EQ(system(cmd), 0);
	return t_done("gmon-fifo");
}

/* ------------------------------------------------------------------ */
/* 14: an options struct is read no further than the library knows     */

static int opts_edge(void)
{
	/* the struct is the last thing on its page */
	struct hwprof_hist_opts *o = (void *)(edge() - sizeof(*o));
	struct hwprof_session_opts *so = (void *)((char *)o + sizeof(*o) - sizeof(*so));
	struct hwprof_session *s = NULL;
	struct hwprof_hist *h = NULL;
	size_t where;
	int bad = 0;

	memset(o, 0, sizeof(*o));
	o->index = HWPROF_INDEX_PAPI;
	for (int k = 0; k < 4; k++) {
		const size_t sz[] = { sizeof(*o) + 8, sizeof(*o) + 4096, 1u << 20, SIZE_MAX };

		o->sz = sz[k];
		if (hwprof_hist_check(o, &where) != HWPROF_HIST_EOPTS ||
		    hwprof_hist_new(o, &h) != -EINVAL) {
			printf("FAIL: hwprof_hist_opts of sz %zu accepted\n", o->sz);
			bad++;
		}
	}
	memset(so, 0, sizeof(*so));
	for (int k = 0; k < 3; k++) {
		const size_t sz[] = { sizeof(*so) + 8, 1u << 20, SIZE_MAX };

		so->sz = sz[k];
		if (hwprof_session_new(so, &s) != -EINVAL) {
			printf("FAIL: hwprof_session_opts of sz %zu accepted\n", so->sz);
			bad++;
		}
	}
	return bad;
}

static int case_opts_size(void)
{
	struct {
		struct hwprof_hist_opts o;
		char tail[64];
	} big;
	struct hwprof_hist *h = NULL;
	int st;

	st = in_child(opts_edge, 20);
	T_CHECK(st == 0, "huge sz: status %d (%s)", st,
		st == 128 + SIGSEGV ? "SIGSEGV: read past the struct" : "accepted");
	/* a larger struct whose extra bytes are zero is fine; non-zero is not */
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.index = HWPROF_INDEX_PAPI;
	T_EQ(hwprof_hist_new(&big.o, &h), 0);
	hwprof_hist_free(h);
	big.tail[63] = 1;
	T_EQ(hwprof_hist_new(&big.o, &h), -EINVAL);
	T_EQ(hwprof_hist_check(&big.o, NULL), HWPROF_HIST_EOPTS);
	/* the most the library looks at */
	T_CHECK(!hwp_user_opts_ok(&big, HWP_OPTS_MAX + 1, sizeof(big.o)), "HWP_OPTS_MAX + 1");
	return t_done("opts-size");
}

/* ------------------------------------------------------------------ */
/* 16: monitor and monstartup: bad prof arrays and huge ranges          */

static char errbuf[8192];

/* Runs fn with stderr into errbuf. */
static int catch_err(int (*fn)(void))
{
	char path[] = "/tmp/hwprof-harden-err-XXXXXX";
	int fd = mkstemp(path), saved = dup(2), ret;
	size_t n = 0;

	unlink(path);
	fflush(stderr);
	dup2(fd, 2);
	ret = fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = (size_t)read(fd, errbuf, sizeof(errbuf) - 1);
	close(fd);
	errbuf[n < sizeof(errbuf) ? n : 0] = 0;
	printf("stderr: %s", errbuf);
	return ret;
}

static HISTCOUNTER mbuf[1024];

static int mon_huge_range(void)
{
	return monitor((caddr_t_)0x1000, (caddr_t_)(uintptr_t)(UINTPTR_MAX - 0x1000), mbuf,
		       1024, 0);
}

static int mon_huge_start(void)
{
	return monstartup((caddr_t_)0x1000, (caddr_t_)(uintptr_t)(UINTPTR_MAX - 0x1000));
}

static int mon_bad_array(void)
{
	return monitor((caddr_t_)1, NULL, (HISTCOUNTER *)(void *)edge(), -1, 0);
}

static int mon_edge_array(void)
{
	struct aix_prof *pr = (struct aix_prof *)(void *)(edge() - sizeof(struct aix_prof));

	*pr = (struct aix_prof){ .p_low = (caddr_t_)0x1000,
				 .p_high = (caddr_t_)0x2000,
				 .p_buff = mbuf,
				 .p_bufsize = 1024 };
	return monitor((caddr_t_)1, NULL, (HISTCOUNTER *)(void *)pr, -1, 0);
}

static int mon_bad_frag(void)
{
	return monstartup((caddr_t_)-1, edge());
}

static int mon_edge_frag(void)
{
	caddr_t_(*frag)[2] = (void *)(edge() - sizeof(*frag));

	frag[0][0] = (caddr_t_)0x1000;
	frag[0][1] = (caddr_t_)0x2000;
	return monstartup((caddr_t_)-1, (caddr_t_)(void *)frag);
}

static int mon_cases(void)
{
	static const struct {
		int (*fn)(void);
		const char *name, *want;
	} t[] = {
		{ mon_huge_range, "monitor, huge range", "too large" },
		{ mon_huge_start, "monstartup, huge range", "too large" },
		{ mon_bad_array, "monitor, unmapped prof array", "not readable" },
		{ mon_edge_array, "monitor, prof array into an unmapped page",
		  "not readable" },
		{ mon_bad_frag, "monstartup, unmapped pair array", "not readable" },
		{ mon_edge_frag, "monstartup, pair array into an unmapped page",
		  "not readable" },
	};
	int bad = 0;

	setenv("HWPROF_EVENT", "task-clock", 1);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret = catch_err(t[i].fn);

		if (ret != -1 || !strstr(errbuf, t[i].want) ||
		    strstr(errbuf, "out of memory")) {
			printf("FAIL: %s: %d, want -1 and \"%s\"\n", t[i].name, ret,
			       t[i].want);
			bad++;
		}
	}
	return bad;
}

static int case_monitor_bad(void)
{
	int st = in_child(mon_cases, 60);

	T_CHECK(st == 0, "status %d (%s)", st,
		st == 128 + SIGSEGV ? "SIGSEGV" : "failures above");
	return t_done("monitor-bad");
}

/* ------------------------------------------------------------------ */
/* 17: a failed profil/sprofil call leaves the previous profile running */

/*
 * The first profile counts spin_cold's text (and an overflow bin); the
 * test runs only spin_hot before the call that fails and only spin_cold
 * after it, then stops and reads: counts in spin_cold's range were taken
 * after the failure. (Nothing reads the buffers while they are live.)
 */
static uint32_t cold[64], cold_bin;

static void first_profile(struct prof *a)
{
	memset(cold, 0, sizeof(cold));
	cold_bin = 0;
	a[0] = (struct prof){ .pr_base = cold,
			      .pr_size = sizeof(cold),
			      .pr_off = (size_t)(uintptr_t)spin_cold,
			      .pr_scale = 0x10000 };
	a[1] = (struct prof){ .pr_base = &cold_bin, .pr_size = 4, .pr_off = 0, .pr_scale = 2 };
	T_EQ(sprofil(a, 2, NULL, PROF_UINT), 0);
	sink = spin_hot(30000000);
}

/* After the failed call: spin_cold, stop, and its range must have counts. */
static void still_running(const char *what)
{
	uint64_t n = 0;

	sink = spin_cold(100000000);
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
	for (size_t i = 0; i < sizeof(cold) / sizeof(cold[0]); i++)
		n += cold[i];
	printf("after %s: %llu samples in spin_cold, %u elsewhere\n", what,
	       (unsigned long long)n, cold_bin);
	T_CHECK(n > 0, "the first profile stopped at %s", what);
}

static int case_failed_keeps(void)
{
	static uint32_t bin_b;
	static unsigned short pbin[1];
	struct prof a[2], b = { .pr_base = &bin_b, .pr_size = 4, .pr_off = 0, .pr_scale = 2 };
	struct rlimit old, none;
	int ret, e, top;

	if (t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock") != T_PASS)
		return T_SKIP;
	setenv("HWPROF_EVENT", "task-clock", 1);
	setenv("HWPROF_PERIOD", "1000000", 1); /* 1 ms */
	/* the first profile's descriptors are the lowest free ones, top and
	 * up: with the limit at top + 1, a call can open one (the event's
	 * probe does) but not a profile's */
	top = dup(0);
	close(top);
	first_profile(a);
	getrlimit(RLIMIT_NOFILE, &old);
	none = old;
	none.rlim_cur = (rlim_t)top + 1;
	setrlimit(RLIMIT_NOFILE, &none);
	errno = 0;
	ret = sprofil(&b, 1, NULL, PROF_UINT);
	e = errno;
	setrlimit(RLIMIT_NOFILE, &old);
	T_CHECK(ret == -1, "sprofil without a descriptor to spare: %d", ret);
	printf("failed sprofil: %s\n", strerror(e));
	still_running("a sprofil that could not open its event");
	T_EQ(bin_b, 0);

	/* profil likewise */
	first_profile(a);
	setrlimit(RLIMIT_NOFILE, &none);
	ret = profil_(pbin, sizeof(pbin), 0, 2);
	setrlimit(RLIMIT_NOFILE, &old);
	T_EQ(ret, -1);
	still_running("a profil that could not open its event");
	T_EQ(pbin[0], 0);

	/* a bad buffer (EFAULT) and bad flags (EINVAL) leave it running too */
	first_profile(a);
	b.pr_base = (void *)(uintptr_t)case_failed_keeps; /* text: read-only */
	errno = 0;
	T_EQ(sprofil(&b, 1, NULL, PROF_UINT), -1);
	T_EQ(errno, EFAULT);
	errno = 0;
	T_EQ(sprofil(a, 2, NULL, 0x100), -1);
	T_EQ(errno, EINVAL);
	still_running("sprofil calls refused with EFAULT and EINVAL");
	return t_done("failed-keeps");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	psz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "setuid-child"))
		return setuid_child();
	/* the classic calls under test need the default event; period
	 * probes page-faults */
	if (strcmp(c, "hist-readonly") && strcmp(c, "opts-size")) {
		int t = strcmp(c, "period") ?
				t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
					  "task-clock") :
				t_require(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
					  "page-faults");

		if (t != T_PASS)
			return t;
	}
	if (!strcmp(c, "setuid")) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			return T_ERROR;
		self[n] = 0;
		return case_setuid(self);
	}
	if (!strcmp(c, "sprofil-unmapped"))
		return case_sprofil_unmapped();
	if (!strcmp(c, "no-vm-readv"))
		return case_no_vm_readv();
	if (!strcmp(c, "hist-readonly"))
		return case_hist_readonly();
	if (!strcmp(c, "pcsample-overflow"))
		return case_pcsample_overflow();
	if (!strcmp(c, "period"))
		return case_period();
	if (!strcmp(c, "gmon-pct"))
		return case_gmon_pct();
	if (!strcmp(c, "gmon-fifo"))
		return case_gmon_fifo();
	if (!strcmp(c, "opts-size"))
		return case_opts_size();
	if (!strcmp(c, "monitor-bad"))
		return case_monitor_bad();
	if (!strcmp(c, "failed-keeps"))
		return case_failed_keeps();
	fprintf(stderr, "usage: test-harden CASE\n");
	return T_ERROR;
}
