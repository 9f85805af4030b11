/* SPDX-License-Identifier: MIT */
/*
 * The recording side of `hwprof record`: when HWPROF_RECORD names a file,
 * a process that loads libhwprof (LD_PRELOAD) samples all its threads into
 * per-object buckets from its constructor on, and writes the data file
 * (hwprof-data(5)) at exit. A forked child records on into its own copy
 * and writes FILE.PID. Nothing here runs unless HWPROF_RECORD is set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define MAX_EVENTS	8

static struct hwprof_session *rec;
static int nev;
static char *names[MAX_EVENTS];
static char *path;
static pid_t first_pid;

/* The GNU build-id of a loaded object, from its notes in memory. */
struct bid {
	uint64_t start;
	char hex[2 * 64 + 1];
};

static int bid_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bid *b = arg;
	int holds = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && b->start >= a && b->start < a + ph->p_memsz)
			holds = 1;
	}
	if (!holds)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + 12 <= end) {
			uint32_t nsz, dsz, type;

			memcpy(&nsz, p, 4);
			memcpy(&dsz, p + 4, 4);
			memcpy(&type, p + 8, 4);
			p += 12;
			if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(p, "GNU", 4) &&
			    dsz <= 64 && p + 4 + dsz <= end) {
				for (uint32_t k = 0; k < dsz; k++)
					sprintf(b->hex + 2 * k, "%02x", p[4 + k]);
				return 1;
			}
			p += ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
		}
	}
	return 1;
}

static void cmdline(FILE *f)
{
	char buf[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i < n - 1; i++)
		if (!buf[i])
			buf[i] = ' ';
	if (n > 0)
		buf[n - 1] = 0;
	fprintf(f, "command %s\n", n > 0 ? buf : "?");
}

static int write_data(const char *file)
{
	struct stat sb;
	char tmp[4200];
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", file, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* what is at FILE is replaced only when it is a regular file */
	if (!lstat(file, &sb) && !S_ISREG(sb.st_mode))
		return -EEXIST;
	/* a new file of ours: nothing that was there (a link planted at the
	 * temporary name) is followed or written through */
	fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && !unlink(tmp))
		fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	fprintf(f, "hwprof-data 1\n");
	cmdline(f);
	fprintf(f, "pid %d\nbucket-bytes %d\n", (int)getpid(), HWPROF_OBJECT_BYTES);
	for (int e = 0; e < nev; e++) {
		struct hwprof_session_stats st = { .sz = sizeof(st) };

		hwprof_session_stats(rec, e, &st);
		fprintf(f, "event %d %llu %llu %llu %llu %llu %llu %llu %u %u %s\n", e,
			(unsigned long long)st.period, (unsigned long long)st.samples,
			(unsigned long long)st.lost, (unsigned long long)st.throttled,
			(unsigned long long)st.folded, (unsigned long long)st.outside,
			(unsigned long long)st.saturated, st.precise, st.threads, names[e]);
	}
	for (int e = 0; e < nev; e++) {
		const struct hwprof_object *o;
		size_t n = 0;

		if (hwprof_session_objects(rec, e, &o, &n))
			continue;
		for (size_t i = 0; i < n; i++) {
			struct bid b = { .start = o[i].start, .hex = "-" };
			size_t nz = 0;

			for (size_t k = 0; k < o[i].nbuckets; k++)
				nz += o[i].counts[k] != 0;
			if (!nz)
				continue;
			/* a fork child's loader may be locked for good
			 * (hwp_loader_usable()): the build-id is then "-" */
			if (o[i].loaded && hwp_loader_usable(100))
				dl_iterate_phdr(bid_cb, &b);
			fprintf(f, "object %d %#llx %#llx %#llx %s %d %zu %s\n", e,
				(unsigned long long)o[i].start, (unsigned long long)o[i].end,
				(unsigned long long)o[i].base, b.hex, o[i].loaded, nz,
				*o[i].path ? o[i].path : "?");
			for (size_t k = 0; k < o[i].nbuckets; k++)
				if (o[i].counts[k])
					fprintf(f, "%zu %u\n", k, o[i].counts[k]);
		}
	}
	fprintf(f, "end\n");
	if (fclose(f))
		return -errno;
	return rename(tmp, file) ? -errno : 0;
}

static void finish(void)
{
	char buf[4200];
	const char *file = path;
	int ret;

	if (!rec)
		return;
	hwprof_session_stop(rec);
	if (getpid() != first_pid) {
		if (snprintf(buf, sizeof(buf), "%s.%d", path, (int)getpid()) >= (int)sizeof(buf))
			return;
		file = buf;
	}
	ret = write_data(file);
	if (ret == -EEXIST)
		fprintf(stderr, "hwprof: %s: not a regular file: not replaced\n", file);
	else if (ret)
		fprintf(stderr, "hwprof: %s: %s\n", file, strerror(-ret));
	hwprof_session_free(rec);
	rec = NULL;
}

static void log_stderr(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

/*
 * HWPROF_RECORD=FILE, HWPROF_RECORD_PID (the pid whose data is FILE),
 * HWPROF_RECORD_EVENTS=N, HWPROF_RECORD_EVENT<i>=NAME and
 * HWPROF_RECORD_PERIOD<i>=P, set by hwprof record.
 */
__attribute__((constructor)) static void record_init(void)
{
	struct hwprof_session_opts o = { .sz = sizeof(o), .mode = HWPROF_SESSION_PROCESS };
	/* secure_getenv: a set-user-ID program records nothing (hwprof(7)) */
	const char *f = secure_getenv("HWPROF_RECORD");
	const char *pid = secure_getenv("HWPROF_RECORD_PID");
	const char *n = secure_getenv("HWPROF_RECORD_EVENTS");
	char key[64];

	if (!f || !*f || !n)
		return;
	hwprof_set_log(log_stderr, NULL, HWPROF_LOG_WARN);
	path = strdup(f);
	first_pid = pid ? (pid_t)atoi(pid) : getpid();
	nev = atoi(n);
	if (!path || nev < 1 || nev > MAX_EVENTS || hwprof_session_new(&o, &rec)) {
		fprintf(stderr, "hwprof: cannot record: bad HWPROF_RECORD settings\n");
		rec = NULL;
		return;
	}
	for (int e = 0; e < nev; e++) {
		const char *name, *per;
		uint64_t period = 0;

		snprintf(key, sizeof(key), "HWPROF_RECORD_EVENT%d", e);
		name = secure_getenv(key);
		snprintf(key, sizeof(key), "HWPROF_RECORD_PERIOD%d", e);
		per = secure_getenv(key);
		names[e] = strdup(name ? name : "task-clock");
		/* 0 or unset: the event's default; else as HWPROF_PERIOD */
		if (per && strcmp(per, "0") && hwp_parse_period(per, &period)) {
			fprintf(stderr, "hwprof: cannot record: HWPROF_RECORD_PERIOD%d=%s is not a period\n",
				e, per);
			hwprof_session_free(rec);
			rec = NULL;
			return;
		}
		if (!names[e] || hwprof_session_add(rec, names[e], period, NULL) < 0) {
			hwprof_session_free(rec);
			rec = NULL;
			return;
		}
	}
	if (hwprof_session_start(rec)) {
		hwprof_session_free(rec);
		rec = NULL;
		return;
	}
	atexit(finish);
}
