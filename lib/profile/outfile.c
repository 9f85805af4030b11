/* SPDX-License-Identifier: MIT */
/*
 * The one way hwprof makes a file (outfile.h): the name's directory held
 * open, a temp file made beside the name with O_EXCL | O_NOFOLLOW, and
 * rename(2) over the name, so that no link, FIFO, device or file another
 * user put there is ever opened for writing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

const char *hwp_out_what(mode_t m)
{
	return S_ISLNK(m)  ? "a symbolic link" :
	       S_ISDIR(m)  ? "a directory" :
	       S_ISCHR(m)  ? "a character device" :
	       S_ISBLK(m)  ? "a block device" :
	       S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" :
	       S_ISREG(m)  ? "a regular file" :
			     "not a regular file";
}

int hwp_out_open(struct hwp_out *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct stat st;
	char *dir;

	*o = (struct hwp_out){ .dir = -1, .fd = -1, .perm = 0777 };
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EISDIR;
	o->name = strdup(base);
	dir = !slash	    ? strdup(".") :
	      slash == path ? strdup("/") :
			      strndup(path, (size_t)(slash - path));
	if (!o->name || !dir) {
		free(dir);
		return -ENOMEM;
	}
	o->dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (o->dir < 0) {
		o->dir = -1;
		return -errno;
	}
	if (fstatat(o->dir, o->name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	o->found = st.st_mode & S_IFMT;
	if (!S_ISREG(st.st_mode))
		return HWP_OUT_NOTREG;
	o->perm &= st.st_mode;
	return 0;
}

/* Six characters no other process is likely to pick. */
static void suffix(char *s)
{
	static const char abc[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned int seq;
	unsigned char r[6];

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32 ^
		    __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
		for (size_t i = 0; i < sizeof(r); i++, x >>= 8)
			r[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		s[i] = abc[r[i] % (sizeof(abc) - 1)];
	s[sizeof(r)] = 0;
}

int hwp_out_temp(struct hwp_out *o)
{
	char sfx[7];
	int err = EEXIST;

	hwp_out_discard(o);
	for (int tries = 0; tries < 100 && err == EEXIST; tries++) {
		suffix(sfx);
		/* NAME_MAX stays in reach: the name is cut to 200 bytes */
		if (asprintf(&o->tmp, ".%.200s.%s", o->name, sfx) < 0) {
			o->tmp = NULL;
			return -ENOMEM;
		}
		o->fd = openat(o->dir, o->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			       0666);
		if (o->fd >= 0)
			return 0;
		err = errno;
		o->fd = -1;
		free(o->tmp);
		o->tmp = NULL;
	}
	return -err;
}

FILE *hwp_out_stream(struct hwp_out *o)
{
	int fd = o->fd >= 0 ? dup(o->fd) : -1;
	FILE *f;

	if (o->fd < 0)
		errno = EBADF;
	if (fd < 0)
		return NULL;
	/* it closes its own descriptor: the commit still has o->fd */
	f = fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* renameat2(RENAME_NOREPLACE), or where the file system has no such
 * flag, link(2), which never replaces either. */
static int rename_noreplace(struct hwp_out *o)
{
	if (!renameat2(o->dir, o->tmp, o->dir, o->name, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(o->dir, o->tmp, o->dir, o->name, 0))
		return -errno;
	unlinkat(o->dir, o->tmp, 0);
	return 0;
}

int hwp_out_commit(struct hwp_out *o, int flags)
{
	struct stat old, mine;
	int r = 0;

	if (o->fd < 0)
		return -EBADF;
	/* never more open than the file it replaces, nor than the one
	 * hwp_out_open() found */
	if (!fstatat(o->dir, o->name, &old, AT_SYMLINK_NOFOLLOW) && S_ISREG(old.st_mode))
		o->perm &= old.st_mode;
	if (fstat(o->fd, &mine))
		r = -errno;
	else if ((mine.st_mode & 0777 & ~o->perm) &&
		 fchmod(o->fd, mine.st_mode & o->perm & 0777))
		r = -errno;
	if (!r)
		r = flags & HWP_OUT_NOREPLACE		      ? rename_noreplace(o) :
		    renameat(o->dir, o->tmp, o->dir, o->name) ? -errno :
								0;
	if (r) {
		hwp_out_discard(o);
		return r;
	}
	free(o->tmp);
	o->tmp = NULL;
	close(o->fd);
	o->fd = -1;
	return 0;
}

void hwp_out_discard(struct hwp_out *o)
{
	if (o->tmp)
		unlinkat(o->dir, o->tmp, 0);
	free(o->tmp);
	o->tmp = NULL;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

void hwp_out_close(struct hwp_out *o)
{
	hwp_out_discard(o);
	if (o->dir >= 0)
		close(o->dir);
	o->dir = -1;
	free(o->name);
	o->name = NULL;
}
