// SPDX-License-Identifier: MIT
/* Source lines of "file:line" sites, read from the project's files only (source.h). */
#define _GNU_SOURCE
#include "source.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"

#define FILE_MAX (8u << 20)
#define TOTAL_MAX (64u << 20)
#define FILES_MAX 512
#define COLUMNS 100

enum state { LOADED, MISSING, OUTSIDE };

struct file {
	char *name;          /* as the site names it */
	size_t len;          /* strlen(name) */
	enum state state;
	char *text;          /* LOADED: the file, NUL-terminated */
	uint32_t *line;      /* LOADED: offsets of lines 1..nlines, at line[0..nlines) */
	uint32_t nlines;
};

struct gmp_source {
	char *root[GMP_MAX_SOURCE_DIRS + 1]; /* real paths: the working directory, then --source-dir */
	size_t nroot;
	struct file *f;
	size_t nf;
	size_t total;        /* bytes read */
	size_t outside;
	size_t last;         /* the file asked for last, + 1 (reports ask for one file many times in a row) */
	int err;             /* -ENOMEM once an allocation failed: lines may be missing */
};

int gmp_source__new(const char *const *dirs, size_t n, struct gmp_source **out, const char **bad)
{
	*out = NULL;
	*bad = NULL;
	if (n > GMP_MAX_SOURCE_DIRS)
		return -E2BIG;
	struct gmp_source *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	int err = 0;
	for (size_t i = 0; i <= n && !err; i++) {
		const char *d = i ? dirs[i - 1] : ".";
		struct stat st;
		char *rp = realpath(d, NULL);
		if (!rp)
			err = errno == ENOMEM ? -ENOMEM : -errno;
		else if (stat(rp, &st) || !S_ISDIR(st.st_mode))
			err = -ENOTDIR;
		if (err && i)
			*bad = d;
		if (err && !i && err != -ENOMEM) { /* no working directory: sources under --source-dir alone */
			err = 0;
			free(rp);
			continue;
		}
		if (err)
			free(rp);
		else
			s->root[s->nroot++] = rp;
	}
	if (err) {
		gmp_source__free(s);
		return err;
	}
	*out = s;
	return 0;
}

void gmp_source__free(struct gmp_source *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nroot; i++)
		free(s->root[i]);
	for (size_t i = 0; i < s->nf; i++) {
		free(s->f[i].name);
		free(s->f[i].text);
		free(s->f[i].line);
	}
	free(s->f);
	free(s);
}

size_t gmp_source__outside(const struct gmp_source *s)
{
	return s ? s->outside : 0;
}

void gmp_source__note(const struct gmp_source *s, FILE *fp, const char *prefix)
{
	size_t n = gmp_source__outside(s);
	if (n)
		fprintf(fp, "%snote: source lines of %zu file%s outside the working directory are not shown "
			"(--source-dir DIR shows those under DIR)\n", prefix, n, n == 1 ? "" : "s");
}
int gmp_source__error(const struct gmp_source *s)
{
	return s ? s->err : 0;
}

/* Whether real path p lies under some root. */
static int inside(const struct gmp_source *s, const char *p)
{
	for (size_t i = 0; i < s->nroot; i++) {
		size_t k = strlen(s->root[i]);
		if (!strncmp(p, s->root[i], k) && (p[k] == '/' || (k == 1 && s->root[i][0] == '/')))
			return 1;
	}
	return 0;
}

/* Reads real path p into f; 0 or -errno. */
static int load(struct gmp_source *s, struct file *f, const char *p)
{
	int fd = gmp_file__open_regular(p); /* a FIFO named like a source must not block */
	if (fd < 0)
		return fd == -EINVAL ? -EFBIG : fd;
	struct stat st;
	int err = 0;
	if (fstat(fd, &st) || st.st_size > FILE_MAX ||
	    s->total + (size_t)st.st_size > TOTAL_MAX)
		err = -EFBIG;
	size_t len = 0, cap = err ? 0 : (size_t)st.st_size + 1;
	char *t = err ? NULL : malloc(cap);
	if (!err && !t)
		err = -ENOMEM;
	while (!err && len + 1 < cap) { /* a file that grows while read is cut where it was */
		ssize_t k = read(fd, t + len, cap - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			err = -errno;
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	uint32_t n = 0;
	for (size_t i = 0; !err && i < len; i++)
		n += t[i] == '\n';
	uint32_t *line = err ? NULL : malloc(((size_t)n + 1) * sizeof(*line));
	if (!err && !line)
		err = -ENOMEM;
	if (err) {
		free(t);
		return err;
	}
	t[len] = '\0';
	uint32_t k = 0;
	line[k++] = 0;
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n' && i + 1 < len)
			line[k++] = (uint32_t)(i + 1);
	f->text = t;
	f->line = line;
	f->nlines = k;
	f->state = LOADED;
	s->total += len;
	return 0;
}

/*
 * Tries path p for f: 1 when f was read from it, 0 when p is no file that
 * can be read (*outside set where it lies outside every root), -ENOMEM.
 */
static int try_path(struct gmp_source *s, struct file *f, const char *p, int *outside)
{
	char *rp = realpath(p, NULL);
	if (!rp)
		return errno == ENOMEM ? -ENOMEM : 0;
	int r = 0;
	if (!inside(s, rp))
		*outside = 1;
	else if ((r = load(s, f, rp)))
		r = r == -ENOMEM ? r : 0;
	else
		r = 1;
	free(rp);
	return r;
}

/*
 * The candidates for name under root: name itself when relative, then its
 * trailing components, the longest first, at least min of them.  Tries each
 * in turn: 1 when f was read, 0 when none could be (*outside set where one
 * lay outside every root, through a link), -ENOMEM.
 */
static int under(struct gmp_source *s, struct file *f, const char *root, const char *name, int min, int *outside)
{
	const char *tail = name;
	while (*tail == '/')
		tail++;
	for (const char *p = name[0] == '/' ? tail : name; p && *p;) {
		int comps = 1;
		for (const char *q = p; *q; q++)
			comps += *q == '/' && q[1];
		if (comps < min)
			break;
		char cand[PATH_MAX];
		int r = snprintf(cand, sizeof(cand), "%s/%s", root, p) < (int)sizeof(cand) ? try_path(s, f, cand, outside) : 0;
		if (r)
			return r;
		p = strchr(p, '/');
		while (p && *p == '/')
			p++;
	}
	return 0;
}

/* Finds and reads the file a site names (name[0..len)), once; NULL when out of memory or past FILES_MAX. */
static struct file *file_of(struct gmp_source *s, const char *site, size_t len)
{
	if (s->last && s->f[s->last - 1].len == len && !memcmp(s->f[s->last - 1].name, site, len))
		return &s->f[s->last - 1];
	for (size_t i = 0; i < s->nf; i++)
		if (s->f[i].len == len && !memcmp(s->f[i].name, site, len)) {
			s->last = i + 1;
			return &s->f[i];
		}
	char name[PATH_MAX];
	memcpy(name, site, len);
	name[len] = '\0';
	if (s->nf == FILES_MAX) /* a limit, not a failure: later files show no lines */
		return NULL;
	struct file *v = realloc(s->f, (s->nf + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	s->f = v;
	struct file *f = &s->f[s->nf];
	*f = (struct file){ .name = strdup(name), .len = len, .state = MISSING };
	if (!f->name)
		goto nomem;
	s->nf++;
	/* As recorded, else under each root (the working directory wants a directory and a name): a
	   file outside the roots is passed over for one inside them that the path's tail names. */
	int outside = 0, r = name[0] == '/' ? try_path(s, f, name, &outside) : 0;
	for (size_t i = 0; i < s->nroot && !r; i++)
		r = under(s, f, s->root[i], name, i ? 1 : 2, &outside);
	if (r == -ENOMEM)
		goto nomem;
	if (!r && outside) {
		f->state = OUTSIDE;
		s->outside++;
	}
	s->last = s->nf;
	return f;
nomem:
	s->err = -ENOMEM;
	return NULL;
}

/* Copies the line at p into buf: no indentation, '?' for control bytes, cut past COLUMNS. */
static const char *clean(const char *p, char *buf, size_t n)
{
	while (*p == ' ' || *p == '\t')
		p++;
	size_t k = 0, cols = 0;
	for (; *p && *p != '\n' && *p != '\r' && k + 4 < n; p++) {
		unsigned char c = (unsigned char)*p;
		if (cols >= COLUMNS && (c & 0xc0) != 0x80) {
			memcpy(buf + k, "...", 3);
			k += 3;
			break;
		}
		buf[k++] = c == '\t' ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
		cols += (c & 0xc0) != 0x80;
	}
	while (k && buf[k - 1] == ' ')
		k--;
	buf[k] = '\0';
	return k ? buf : NULL;
}

const char *gmp_source__line(struct gmp_source *s, const char *site, char *buf, size_t n)
{
	if (!s || !site || n < 8)
		return NULL;
	const char *colon = strrchr(site, ':');
	if (!colon || colon == site || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    (size_t)(colon - site) >= PATH_MAX)
		return NULL;
	unsigned long line = strtoul(colon + 1, NULL, 10);
	struct file *f = file_of(s, site, (size_t)(colon - site));
	if (!f || f->state != LOADED || line < 1 || line > f->nlines)
		return NULL;
	return clean(f->text + f->line[line - 1], buf, n);
}
