// SPDX-License-Identifier: MIT
/*
 * gmprof run's list of the profiles a run wrote (run_env.h): a directory
 * where every collector of the run leaves a file naming its profile.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_env.h"
#include "util.h"

/* The directory part of an output pattern ("." when none). */
void gmp_run__output_dir(const char *pattern, char *dir, size_t n)
{
	const char *slash = strrchr(pattern, '/');
	if (!slash)
		snprintf(dir, n, ".");
	else if (slash == pattern)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - pattern), pattern);
}

/*
 * The list of the profiles the run wrote (GMPROF_RUN_MANIFEST): a
 * directory where every collector of the run leaves a file naming its
 * profile, so a program that starts others (mpirun, a script) has all of
 * theirs reported.  It lives beside the profiles when their directory is
 * known (shared by the ranks of a job on a cluster's file system), else in
 * TMPDIR.
 */
int gmp_run__make_manifest(const char *pattern, char *out, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	gmp_run__output_dir(pattern, dir, sizeof(dir));
	if (strchr(dir, '%'))
		snprintf(dir, sizeof(dir), "%s", tmp && *tmp ? tmp : "/tmp");
	if (snprintf(out, n, "%s/.gmprof-run.XXXXXX", dir) >= (int)n) {
		fprintf(stderr, "gmprof: the profile directory '%s' is too long a path\n", dir);
		return -1;
	}
	if (!mkdtemp(out)) {
		fprintf(stderr, "gmprof: cannot create the run's list of profiles in '%s': %s\n", dir,
			strerror(errno));
		return -1;
	}
	char abs[PATH_MAX];
	if (realpath(out, abs) && strlen(abs) < n)
		snprintf(out, n, "%s", abs); /* the program may change directory */
	return 0;
}

/* Removes the run's list and what is in it. */
void gmp_run__drop_manifest(const char *manifest)
{
	DIR *d = opendir(manifest);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(manifest);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The listed profiles, sorted, each once; the list is removed.  NULL (and *n 0) when none. */
char **gmp_run__listed(const char *manifest, size_t *n)
{
	*n = 0;
	DIR *d = opendir(manifest);
	struct dirent *de;
	char **v = NULL, *line = NULL;
	size_t cap = 0, lcap = 0;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
		ssize_t len = fp ? getline(&line, &lcap, fp) : -1;
		if (fp)
			fclose(fp);
		else if (fd >= 0)
			close(fd);
		if (len <= 1 || line[len - 1] != '\n')
			continue; /* empty, or still being written by a process that outlived the program */
		line[len - 1] = 0;
		if (GMP_GROW(v, cap, *n + 1) || !(v[*n] = strdup(line))) {
			fprintf(stderr, "gmprof: out of memory reading the run's list of profiles; "
				"'%s' and those after it are not reported\n", line);
			break;
		}
		(*n)++;
	}
	free(line);
	if (d)
		closedir(d);
	gmp_run__drop_manifest(manifest);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		if (k && !strcmp(v[k - 1], v[i]))
			free(v[i]);
		else
			v[k++] = v[i];
	}
	*n = k;
	return v;
}

