/* SPDX-License-Identifier: MIT */
/*
 * Safe files.  gmp_file__create makes a new file without following
 * a symlink and, unless forced, without replacing anything;
 * gmp_file__open_regular opens an input that must be a regular file.  An outfile is
 * written to a hidden temporary beside its target and appears under its
 * name only when committed, so a failed run never leaves half a report
 * and never clobbers an existing file (unless forced).  A target that is
 * no file to replace is written in place, as a shell's '>' would: a FIFO
 * or a character device (/dev/null, a pipe another program reads), and
 * /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N, which name
 * descriptors this process holds.
 */
#ifndef GMPROF_SAFEFILE_H
#define GMPROF_SAFEFILE_H

#include <stdio.h>

/* Returns an fd opened for writing, or -errno (-EEXIST when it exists). */
int gmp_file__create(const char *path, int force);
/*
 * Opens a regular file for reading: an fd, or -errno (-EINVAL for anything
 * else).  A path that names a FIFO, a terminal or a device, as a profile
 * made elsewhere may, is refused without blocking on it or reading it.
 */
int gmp_file__open_regular(const char *path);

struct gmp_outfile {
	FILE *fp;       /* write here */
	char *path;     /* owned copy; NULL for standard output */
	char *tmp;      /* owned temporary path; NULL when written in place */
	int force;
};

/* path "-" means standard output.  Returns 0 or -errno. */
int gmp_outfile__open(struct gmp_outfile *o, const char *path, int force);
/* Flushes, syncs and moves the file into place; then releases o. */
int gmp_outfile__commit(struct gmp_outfile *o);
/* Removes the temporary and releases o. */
void gmp_outfile__abort(struct gmp_outfile *o);

#endif
