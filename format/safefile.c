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

int gmp_outfile__open(struct gmp_outfile *o, const char *path, int force)
{
	memset(o, 0, sizeof(*o));
	o->force = force;
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	if (!force && access(path, F_OK) == 0)
		return -EEXIST;
	o->path = strdup(path);
	o->tmp = temp_name(path);
	if (!o->path || !o->tmp) {
		gmp_outfile__abort(o);
		return -ENOMEM;
	}
	int fd = mkostemp(o->tmp, O_CLOEXEC);
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
	if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0)
		err = errno ? -errno : -EIO;
	if (fclose(o->fp) != 0 && !err)
		err = errno ? -errno : -EIO;
	o->fp = NULL;
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
