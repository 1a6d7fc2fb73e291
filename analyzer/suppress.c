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
		} else if (strcmp(s, "out_of_memory") == 0) {
			mask = 1u << GMP_PAT_COUNT;
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

/* The strings a finding's rules are matched against, made once per finding. */
struct names {
	const char *s[FRAMES * 5 + 3];
	size_t n;
	char buf[FRAMES][512];         /* "file:line" per frame; a script's file */
	char ranges[512];              /* the NVTX ranges, "outer > inner" */
};

static void add_name(struct names *nm, const char *s)
{
	if (s && *s)
		nm->s[nm->n++] = s;
}

/* The names of a call: a script's `at` and its file, or each symbolized frame's. */
static void names_of_call(struct names *nm, const struct gmp_trace *t, struct gmp_sites *sites,
			  uint32_t at_id, uint32_t stack)
{
	nm->n = 0;
	if (at_id) { /* an event script: its `at`, and the file alone */
		const char *at = gmp_trace__str(t, at_id, NULL);
		snprintf(nm->buf[0], sizeof(nm->buf[0]), "%s", at);
		char *c = strrchr(nm->buf[0], ':');
		if (c)
			*c = 0;
		add_name(nm, at);
		add_name(nm, nm->buf[0]);
	} else if (stack && sites->sym) {
		struct gmp_frame frames[FRAMES];
		size_t n = gmp_symbolizer__stack(sites->sym, stack, frames, FRAMES);
		for (size_t k = 0; k < n; k++) {
			const struct gmp_frame *fr = &frames[k];
			add_name(nm, fr->function);
			add_name(nm, fr->file);
			add_name(nm, fr->module);
			if (fr->module && strrchr(fr->module, '/'))
				add_name(nm, strrchr(fr->module, '/') + 1);
			if (fr->file) {
				snprintf(nm->buf[k], sizeof(nm->buf[k]), "%s:%u", fr->file, fr->line);
				add_name(nm, nm->buf[k]);
			}
		}
	}
}

static void names_of(struct names *nm, const struct gmp_result *r, struct gmp_sites *sites,
		     const struct gmp_finding *f)
{
	const struct gmp_trace *t = r->trace;
	const struct gmp_event *a = &t->ev[r->objects[f->object].alloc_ev];
	names_of_call(nm, t, sites, a->at, a->stack);
	if (f->kernel)
		add_name(nm, gmp_trace__str(t, f->kernel, NULL));
	/* the NVTX ranges it was allocated in ("" adds nothing) */
	add_name(nm, gmp_trace__event_range_text(t, r->objects[f->object].alloc_ev, nm->ranges,
						 sizeof(nm->ranges)));
}

/* The first rule of the patterns in mask that matches one of nm's names, or NULL. */
static struct gmp_suppress_rule *matching(struct gmp_suppress *sp, const struct names *nm,
					  uint32_t mask)
{
	for (size_t i = 0; i < sp->n; i++) {
		struct gmp_suppress_rule *ru = &sp->rules[i];
		if (!(ru->patterns & mask))
			continue;
		for (size_t k = 0; k < nm->n; k++)
			if (fnmatch(ru->glob, nm->s[k], 0) == 0)
				return ru;
	}
	return NULL;
}

/* Leaves out the failed allocations an out_of_memory rule matches. */
static int failures(struct gmp_suppress *sp, struct gmp_result *r, struct gmp_sites *sites)
{
	const struct gmp_trace *t = r->trace;
	uint8_t *skip = NULL;
	int any_rule = 0;
	for (size_t i = 0; i < sp->n; i++)
		any_rule |= !!(sp->rules[i].patterns & (1u << GMP_PAT_COUNT));
	if (any_rule && t->nfails && !(skip = calloc(t->nfails, 1)))
		return -ENOMEM;
	struct names nm;
	for (size_t i = 0; skip && i < t->nfails; i++) {
		names_of_call(&nm, t, sites, t->fails[i].at, t->fails[i].stack);
		struct gmp_suppress_rule *ru = matching(sp, &nm, 1u << GMP_PAT_COUNT);
		if (ru) {
			ru->hits++;
			sp->suppressed_failures++;
			skip[i] = 1;
		}
	}
	int err = gmp_result__failures(r, skip);
	free(skip);
	return err;
}

int gmp_suppress__apply(struct gmp_suppress *sp, struct gmp_result *r, struct gmp_sites *sites)
{
	if (!sp->n)
		return 0;
	/* Decide first, then compact: r stays whole if memory runs out. */
	struct gmp_suppress_rule **by = malloc((r->nfindings ? r->nfindings : 1) * sizeof(*by));
	if (!by)
		return -ENOMEM;
	struct names nm;
	for (size_t i = 0; i < r->nfindings; i++) {
		names_of(&nm, r, sites, &r->findings[i]);
		by[i] = matching(sp, &nm, 1u << r->findings[i].pattern);
	}
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
	/* Failures name findings by index: remade over what is left. */
	return r->trace->nfails ? failures(sp, r, sites) : 0;
}
