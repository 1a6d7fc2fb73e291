// SPDX-License-Identifier: MIT
/* Suppressions: reading the rules and taking matching findings out (suppress.h). */
#define _GNU_SOURCE
#include "suppress.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define FRAMES 64

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
}

static int bad(const char *path, unsigned line, const char *what, const char *text)
{
	fprintf(stderr, "gmprof: %s:%u: %s '%s'\n", path, line, what, text);
	return -1;
}

int gmp_suppress__load(const char *path, struct gmp_suppress *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->path = path;
	FILE *fp = fopen(path, "r");
	if (!fp) {
		fprintf(stderr, "gmprof: cannot open suppressions '%s': %s\n", path, strerror(errno));
		return -1;
	}
	char *buf = NULL;
	size_t cap = 0, rcap = 0;
	unsigned line = 0;
	int rc = 0;
	while (getline(&buf, &cap, fp) >= 0) {
		line++;
		for (char *h = strchr(buf, '#'); h; h = strchr(h + 1, '#'))
			if (h > buf && (h[-1] == ' ' || h[-1] == '\t')) { /* a comment after the rule */
				*h = 0;
				break;
			}
		trim(buf);
		char *s = buf + strspn(buf, " \t");
		if (!*s || *s == '#')
			continue;
		char *colon = strchr(s, ':');
		if (!colon || colon == s || !colon[1]) {
			rc = bad(path, line, "expected PATTERN:GLOB, got", s);
			break;
		}
		*colon = 0;
		uint32_t mask = 0;
		if (strcmp(s, "*") == 0) {
			mask = (1u << GMP_PAT_COUNT) - 1;
		} else {
			int p = gmp_pattern__parse(s);
			if (p < 0) {
				rc = bad(path, line, "unknown pattern", s);
				break;
			}
			mask = 1u << p;
		}
		if (GMP_GROW(sp->rules, rcap, sp->n + 1) || !(sp->rules[sp->n].glob = strdup(colon + 1))) {
			fprintf(stderr, "gmprof: out of memory\n");
			rc = -1;
			break;
		}
		sp->rules[sp->n].patterns = mask;
		sp->rules[sp->n].line = line;
		sp->rules[sp->n++].hits = 0;
	}
	if (!rc && ferror(fp)) {
		fprintf(stderr, "gmprof: cannot read suppressions '%s': %s\n", path, strerror(errno));
		rc = -1;
	}
	free(buf);
	fclose(fp);
	if (rc)
		gmp_suppress__release(sp);
	return rc;
}

void gmp_suppress__release(struct gmp_suppress *sp)
{
	for (size_t i = 0; i < sp->n; i++)
		free(sp->rules[i].glob);
	free(sp->rules);
	sp->rules = NULL;
	sp->n = 0;
}

static int match(const char *glob, const char *s)
{
	return s && *s && fnmatch(glob, s, 0) == 0;
}

/* The strings a rule may match for one frame. */
static int frame_matches(const char *glob, const struct gmp_frame *f)
{
	char fl[1024];
	if (match(glob, f->function) || match(glob, f->file) || match(glob, f->module))
		return 1;
	if (f->module) {
		const char *b = strrchr(f->module, '/');
		if (b && match(glob, b + 1))
			return 1;
	}
	if (f->file) {
		snprintf(fl, sizeof(fl), "%s:%u", f->file, f->line);
		if (match(glob, fl))
			return 1;
	}
	return 0;
}

/* The first rule that suppresses f, or NULL. */
static struct gmp_suppress_rule *rule_for(struct gmp_suppress *sp, const struct gmp_result *r,
					  struct gmp_sites *sites, const struct gmp_finding *f)
{
	const struct gmp_trace *t = r->trace;
	const struct gmp_event *a = &t->ev[r->objects[f->object].alloc_ev];
	struct gmp_frame frames[FRAMES + 1];
	char file[1024];
	size_t n = 0;
	if (a->at) { /* an event script: its `at`, and the file alone */
		const char *at = gmp_trace__str(t, a->at, NULL);
		snprintf(file, sizeof(file), "%s", at);
		char *c = strrchr(file, ':');
		if (c)
			*c = 0;
		frames[n++] = (struct gmp_frame){ .file = file, .function = at };
	} else if (a->stack && sites->sym) {
		n = gmp_symbolizer__stack(sites->sym, a->stack, frames, FRAMES);
	}
	const char *kernel = f->kernel ? gmp_trace__str(t, f->kernel, NULL) : NULL;
	for (size_t i = 0; i < sp->n; i++) {
		struct gmp_suppress_rule *ru = &sp->rules[i];
		if (!(ru->patterns & (1u << f->pattern)))
			continue;
		if (match(ru->glob, kernel))
			return ru;
		for (size_t k = 0; k < n; k++)
			if (frame_matches(ru->glob, &frames[k]))
				return ru;
	}
	return NULL;
}

int gmp_suppress__apply(struct gmp_suppress *sp, struct gmp_result *r, struct gmp_sites *sites)
{
	if (!sp->n || !r->nfindings)
		return 0;
	/* Decide first, then compact: r stays whole if memory runs out. */
	struct gmp_suppress_rule **by = malloc(r->nfindings * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < r->nfindings; i++)
		by[i] = rule_for(sp, r, sites, &r->findings[i]);
	size_t k = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		if (by[i]) {
			by[i]->hits++;
			sp->suppressed++;
		} else {
			r->findings[k++] = r->findings[i];
		}
	}
	r->nfindings = k;
	free(by);
	return 0;
}
