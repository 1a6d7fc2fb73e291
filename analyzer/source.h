/* SPDX-License-Identifier: MIT */
/*
 * Source lines for the reports: the text of "file:line" where the file can
 * be read, so that a finding on obj#2 shows the line that allocated it
 * (`CHECK(cudaMalloc(&d_out[i], bytes));`) and the line its fix moves to.
 *
 * A file is read only when its real path lies under one of the roots: the
 * working directory and each --source-dir (profiles and event scripts name
 * files; a report must not print lines of files outside the project).  A
 * path that does not exist as recorded, or lies outside the roots (a build
 * elsewhere, a container, another checkout), is looked for under each root
 * by its trailing components: at least its directory and name under the
 * working directory, the name alone under a --source-dir.  Files are read once, up to 8 MiB each and 64 MiB in all.
 * The cache owns what it reads; returned text lives until gmp_source__free.
 */
#ifndef GMPROF_SOURCE_H
#define GMPROF_SOURCE_H

#include <stddef.h>
#include <stdio.h>

#define GMP_MAX_SOURCE_DIRS 16

struct gmp_source;

/*
 * A cache reading under the working directory and dirs[0..n) (borrowed;
 * each must be a directory).  0, -ENOMEM, or -errno of a directory that
 * cannot be resolved (*bad names it).
 */
int gmp_source__new(const char *const *dirs, size_t n, struct gmp_source **out, const char **bad);
/*
 * The line a site ("path:LINE") names, without its indentation, cut to
 * about 100 columns, control characters shown as '?': into buf, or NULL
 * where the site names no line, the file cannot be read, or lies outside
 * every root, or the line is blank.  s may be NULL (no source lines).
 */
const char *gmp_source__line(struct gmp_source *s, const char *site, char *buf, size_t n);
/* -ENOMEM once an allocation failed (a line may be missing from what was written), else 0. */
int gmp_source__error(const struct gmp_source *s);
/* How many files existed but lay outside every root (and were not read). */
size_t gmp_source__outside(const struct gmp_source *s);
/* Says so, when there are some: "PREFIXnote: source lines of N files outside ... (--source-dir ...)". */
void gmp_source__note(const struct gmp_source *s, FILE *fp, const char *prefix);
void gmp_source__free(struct gmp_source *s);

#endif
