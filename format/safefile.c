// SPDX-License-Identifier: MIT
/*
 * Safe output files: O_EXCL|O_NOFOLLOW creation, and reports written to a
 * temporary that is linked (no-replace) or renamed (forced) into place.
 */
#define _GNU_SOURCE
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gmp_file__create(const char *path, int force)
{
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	flags |= force ? O_TRUNC : O_EXCL;
	int fd = open(path, flags, 0644);
	if (fd < 0)
		return errno == ELOOP ? -EEXIST : -errno;
	return fd;
}

int gmp_file__open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO's open must not wait for a writer */
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	/* Reads of a regular file do not block anyway; clear the flag for libraries that check it. */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static void release(struct gmp_outfile *o);

static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (!tmp)
		return NULL;
	snprintf(tmp, n, "%.*s.%s.tmpXXXXXX", (int)dirlen, path, base);
	return tmp;
}

/*
 * The descriptor a path names that is no file to replace, opened for
 * writing; -ENOENT when path is a file (or nothing) to create or replace.
 * Renaming a temporary over /dev/null, or over the /dev/stdout link, would
 * replace the device or the link with a regular file, where root can.
 */
static int in_place(const char *path)
{
	static const char *const fds[] = { "/dev/fd/", "/proc/self/fd/" };
	int n = -1;
	if (!strcmp(path, "/dev/stdout"))
		n = STDOUT_FILENO;
	else if (!strcmp(path, "/dev/stderr"))
		n = STDERR_FILENO;
	for (size_t i = 0; n < 0 && i < sizeof(fds) / sizeof(fds[0]); i++) {
		size_t k = strlen(fds[i]);
		char *end;
		if (!strncmp(path, fds[i], k) && path[k] >= '0' && path[k] <= '9') {
			long v = strtol(path + k, &end, 10);
			if (!*end && v <= 1 << 20)
				n = (int)v;
		}
	}
	if (n >= 0) {
		int fd = fcntl(n, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	struct stat st;
	if (lstat(path, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
		return -ENOENT;
	/* Not created, not truncated, not a link followed: what lstat saw. */
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int gmp_outfile__open(struct gmp_outfile *o, const char *path, int force)
{
	memset(o, 0, sizeof(*o));
	o->force = force;
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	int fd = in_place(path);
	if (fd != -ENOENT) {
		if (fd < 0)
			return fd;
		o->path = strdup(path);
		o->fp = o->path ? fdopen(fd, "w") : NULL;
		if (!o->fp) {
			int err = o->path ? -errno : -ENOMEM;
			close(fd);
			release(o);
			return err;
		}
		return 0;
	}
	/* A directory is said as such, with --force too, before the caller does its work. */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!force && access(path, F_OK) == 0)
		return -EEXIST;
	o->path = strdup(path);
	o->tmp = temp_name(path);
	if (!o->path || !o->tmp) {
		gmp_outfile__abort(o);
		return -ENOMEM;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;
		free(o->tmp);
		o->tmp = NULL;
		gmp_outfile__abort(o);
		return err;
	}
	if (fchmod(fd, 0644) != 0) {
		int err = -errno;
		close(fd);
		gmp_outfile__abort(o);
		return err;
	}
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		int err = -errno;
		close(fd);
		gmp_outfile__abort(o);
		return err;
	}
	return 0;
}

static void release(struct gmp_outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	o->fp = NULL;
}

int gmp_outfile__commit(struct gmp_outfile *o)
{
	int err = 0;
	if (!o->path) {
		if (fflush(o->fp) != 0 || ferror(o->fp))
			err = errno ? -errno : -EIO;
		o->fp = NULL;
		return err;
	}
	if (fflush(o->fp) != 0 || ferror(o->fp) || (o->tmp && fsync(fileno(o->fp)) != 0))
		err = errno ? -errno : -EIO;
	if (fclose(o->fp) != 0 && !err)
		err = errno ? -errno : -EIO;
	o->fp = NULL;
	if (!o->tmp) { /* written in place */
		release(o);
		return err;
	}
	if (!err) {
		if (o->force) {
			if (rename(o->tmp, o->path) != 0)
				err = -errno;
		} else if (link(o->tmp, o->path) != 0) {
			err = -errno;
		}
	}
	if (err || !o->force)
		unlink(o->tmp);
	release(o);
	return err;
}

void gmp_outfile__abort(struct gmp_outfile *o)
{
	if (o->fp && o->path)
		fclose(o->fp);
	if (o->tmp && o->path)
		unlink(o->tmp);
	release(o);
}
