// SPDX-License-Identifier: MIT
/* NVTX names with counters folded into one (nvtx_fold.h). */
#include "nvtx_fold.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmprof/trace.h"

int gmp_nvtx_fold__init(struct gmp_nvtx_fold *f, const char *strip, int numbers, char *why, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->numbers = numbers;
	if (!strip)
		return 0;
	int rc = regcomp(&f->re, strip, REG_EXTENDED);
	if (rc) {
		regerror(rc, &f->re, why, n);
		return -1;
	}
	f->strip = 1;
	return 0;
}

void gmp_nvtx_fold__release(struct gmp_nvtx_fold *f)
{
	if (f->strip)
		regfree(&f->re);
	memset(f, 0, sizeof(*f));
}

/* s with each of re's matches removed, into buf (n > 0). */
static void strip(const regex_t *re, const char *s, char *buf, size_t n)
{
	size_t len = 0;
	int flags = 0;
	regmatch_t m;
	while (*s && !regexec(re, s, 1, &m, flags)) {
		size_t keep = (size_t)m.rm_so, skip = (size_t)m.rm_eo;
		if (skip == keep) /* an empty match: keep one character and look past it */
			keep = skip = keep + 1;
		for (size_t i = 0; i < keep && s[i] && len + 1 < n; i++)
			buf[len++] = s[i];
		size_t left = strlen(s);
		s += skip < left ? skip : left;
		flags = REG_NOTBOL;
	}
	for (; *s && len + 1 < n; s++)
		buf[len++] = *s;
	buf[len] = 0;
}

/* Letters, digits, underscores and dots: what a word ("conv2d", "layer.3", "v1.2") is made of. */
static int word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/*
 * s with each number that stands alone written N, into buf (n > 0): a word
 * of digits with dots between them ("3", "0.001", "1.2.3"; trailing dots
 * stay).
 */
static void numbers(const char *s, char *buf, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; s[i] && len + 1 < n;) {
		if (!word_char(s[i])) {
			buf[len++] = s[i++];
			continue;
		}
		size_t end = i, num = i; /* the word s[i, end); a number s[i, num) */
		while (word_char(s[end]))
			end++;
		while (isdigit((unsigned char)s[num]) || (num > i && s[num] == '.' && isdigit((unsigned char)s[num + 1])))
			num++;
		size_t dots = num;
		while (dots < end && s[dots] == '.')
			dots++;
		if (num > i && dots == end) {
			buf[len++] = 'N';
			i = num;
		}
		for (; i < end && len + 1 < n; i++)
			buf[len++] = s[i];
	}
	buf[len] = 0;
}

char *gmp_nvtx_fold__dup(const struct gmp_nvtx_fold *f, const char *name)
{
	size_t n = strlen(name) + sizeof("(unnamed)"); /* folding never lengthens a name */
	char *tmp = malloc(n), *out = malloc(n);
	if (tmp && out) {
		if (f->strip)
			strip(&f->re, name, tmp, n);
		else
			memcpy(tmp, name, strlen(name) + 1);
		if (f->numbers)
			numbers(tmp, out, n);
		else
			memcpy(out, tmp, strlen(tmp) + 1);
		if (!*out)
			memcpy(out, "(unnamed)", sizeof("(unnamed)"));
	} else {
		free(out);
		out = NULL;
	}
	free(tmp);
	return out;
}

const char *gmp_nvtx_fold__hint(const struct gmp_trace *t, int ranges, const char *glob, char *buf, size_t n)
{
	const struct gmp_nvtx_fold f = { .numbers = 1 };
	size_t count = ranges ? t->npaths : t->nmarks;
	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < count && n && !*buf; i++) {
		char path[4096];
		const char *name = ranges ? gmp_trace__range_text(t, (uint32_t)(i + 1), path, sizeof(path))
					  : gmp_trace__str(t, t->marks[i].name, NULL);
		char *now = gmp_nvtx_fold__dup(&f, name); /* NULL: no hint, for want of memory */
		if (now && strcmp(name, now) && !fnmatch(glob, now, 0))
			snprintf(buf, n, "'%s' reads '%s'", name, now);
		free(now);
	}
	return buf;
}

/* A name and the same with its numbers folded, for gmp_nvtx_fold__note. */
struct folded {
	char *now;
	uint32_t id;
};

static int by_folded(const void *x, const void *y)
{
	const struct folded *a = x, *b = y;
	int c = strcmp(a->now, b->now);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

int gmp_nvtx_fold__note(const struct gmp_trace *t, int ranges, char *buf, size_t n)
{
	const struct gmp_nvtx_fold f = { .numbers = 1 };
	size_t ns = gmp_trace__nstrings(t) + 1, count = 0, distinct = 0, most = 0, at = 0;
	uint8_t *used = calloc(ns, 1);
	struct folded *v = NULL;
	int err = used ? 0 : -ENOMEM;
	if (n)
		buf[0] = 0;
	int digits = 0; /* a name without digits folds to itself: none, nothing to say */
	for (size_t i = 0; !err && i < (ranges ? t->nrnames : t->nmarks); i++) {
		uint32_t id = ranges ? t->rnames[i] : t->marks[i].name;
		if (!used[id])
			digits |= strpbrk(gmp_trace__str(t, id, NULL), "0123456789") != NULL;
		count += !used[id];
		used[id] = 1;
	}
	if (!digits)
		count = 0;
	if (!err && count && !(v = malloc(count * sizeof(*v))))
		err = -ENOMEM;
	size_t k = 0;
	for (uint32_t id = 1; !err && count && id < ns; id++)
		if (used[id] && !(v[k++] = (struct folded){ gmp_nvtx_fold__dup(&f, gmp_trace__str(t, id, NULL)), id }).now)
			err = -ENOMEM;
	if (!err && count) {
		qsort(v, count, sizeof(*v), by_folded);
		for (size_t i = 0, run = 1; i < count; i++, run++) { /* the folded name most names share */
			if (i && strcmp(v[i].now, v[i - 1].now))
				run = 1;
			distinct += run == 1;
			if (run > most)
				most = run, at = i + 1 - run;
		}
	}
	if (!err && distinct < count)
		snprintf(buf, n, "--nvtx-numbers reads these %zu %s names as %zu ('%s' and %zu more as '%s')", count,
			 ranges ? "range" : "mark", distinct, gmp_trace__str(t, v[at].id, NULL), most - 1, v[at].now);
	for (size_t i = 0; i < k; i++)
		free(v[i].now);
	free(v);
	free(used);
	return err;
}

int gmp_nvtx_fold__trace(const struct gmp_nvtx_fold *f, struct gmp_trace *t)
{
	if (!f->numbers && !f->strip)
		return 0;
	size_t ns = gmp_trace__nstrings(t) + 1;
	uint32_t *map = malloc(ns * sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (size_t k = 0; k < ns; k++)
		map[k] = (uint32_t)k;
	uint8_t *named = calloc(ns, 1); /* the string ids ranges and marks use */
	int err = named ? 0 : -ENOMEM;
	for (size_t i = 0; !err && i < t->nrnames; i++)
		named[t->rnames[i]] = 1;
	for (size_t i = 0; !err && i < t->nmarks; i++)
		named[t->marks[i].name] = 1;
	for (size_t k = 1; !err && k < ns; k++) {
		if (!named[k])
			continue;
		char *now = gmp_nvtx_fold__dup(f, gmp_trace__str(t, (uint32_t)k, NULL)); /* before interning moves it */
		if (!now)
			err = -ENOMEM;
		else if (strcmp(gmp_trace__str(t, (uint32_t)k, NULL), now) && !(map[k] = gmp_trace__intern_cstr(t, now)))
			err = -ENOMEM;
		free(now);
	}
	if (!err)
		err = gmp_trace__rename_nvtx(t, map, ns);
	free(named);
	free(map);
	return err;
}
