// SPDX-License-Identifier: MIT
/* Several inputs' summary: a line per input, their findings by fingerprint (across.h). */
#include "across.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cmds.h"
#include "findings_json.h"
#include "markdown.h"
#include "oneline.h"
#include "markmem.h"
#include "rangemem.h"
#include "session.h"
#include "sites.h"

#define ROWS_DEFAULT 20

struct group {
	uint64_t fp;
	char *site;             /* the first input's allocation site, or NULL */
	unsigned pattern;
	size_t inputs;          /* how many inputs have it */
	size_t last;            /* the last input counted, + 1 */
	size_t findings;
	uint64_t bytes;         /* the objects' sizes, summed over inputs */
	uint64_t saving;        /* the largest saving */
	size_t saving_input;    /* where it is */
};

struct gmp_across {
	size_t n;
	struct gmp_input_row *row;
	struct group *g;
	size_t ng, capg;
	uint32_t *slot;         /* hash of fingerprints: group index + 1, 0 free */
	size_t nslot;           /* a power of two, over twice ng */
};

int gmp_across__new(size_t n, struct gmp_across **out)
{
	struct gmp_across *a = calloc(1, sizeof(*a));
	if (!a || !(a->row = calloc(n ? n : 1, sizeof(*a->row))) || !(a->slot = calloc(64, sizeof(*a->slot)))) {
		gmp_across__free(a);
		return -ENOMEM;
	}
	a->n = n;
	a->nslot = 64;
	*out = a;
	return 0;
}

void gmp_across__free(struct gmp_across *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->ng; i++)
		free(a->g[i].site);
	free(a->g);
	free(a->slot);
	free(a->row);
	free(a);
}

static size_t hash(uint64_t fp, size_t mask)
{
	fp ^= fp >> 33;
	fp *= 0xff51afd7ed558ccdull;
	return (size_t)(fp ^ (fp >> 29)) & mask;
}

static int grow(struct gmp_across *a)
{
	size_t n = a->nslot * 2;
	uint32_t *slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < a->ng; i++) {
		size_t k = hash(a->g[i].fp, n - 1);
		while (slot[k])
			k = (k + 1) & (n - 1);
		slot[k] = (uint32_t)(i + 1);
	}
	free(a->slot);
	a->slot = slot;
	a->nslot = n;
	return 0;
}

/* The group of fingerprint fp, made (with site copied) when new; NULL: out of memory. */
static struct group *group_of(struct gmp_across *a, uint64_t fp, unsigned pattern, const char *site)
{
	size_t k = hash(fp, a->nslot - 1);
	for (; a->slot[k]; k = (k + 1) & (a->nslot - 1))
		if (a->g[a->slot[k] - 1].fp == fp)
			return &a->g[a->slot[k] - 1];
	if (a->ng == UINT32_MAX - 1)
		return NULL;
	if (a->ng == a->capg) {
		size_t cap = a->capg ? 2 * a->capg : 64;
		struct group *g = realloc(a->g, cap * sizeof(*g));
		if (!g)
			return NULL;
		a->g = g;
		a->capg = cap;
	}
	struct group *g = &a->g[a->ng];
	*g = (struct group){ .fp = fp, .pattern = pattern };
	if (site && !(g->site = strdup(site)))
		return NULL;
	a->slot[k] = (uint32_t)++a->ng;
	if (2 * a->ng >= a->nslot && grow(a))
		return NULL;
	return &a->g[a->ng - 1];
}

int gmp_across__add(struct gmp_across *a, size_t i, struct gmp_session *s)
{
	const struct gmp_result *r = s->r;
	a->row[i] = (struct gmp_input_row){ r->peak_bytes, gmp_leaked_bytes(r),
					    r->nfindings ? r->findings[0].saving : 0, r->nfindings, 0, "" };
	struct gmp_rmem m; /* the range that grew most: a loop that keeps memory, on some rank */
	struct gmp_rmem_grown *gv = NULL;
	size_t ng = 0;
	int err = gmp_rmem__build(r, &m);
	if (!err)
		err = gmp_rmem__grown(&m, &gv, &ng);
	if (!err && ng) {
		char path[1024], one[1024];
		a->row[i].grew = gv[0].growth;
		snprintf(a->row[i].grew_range, sizeof(a->row[i].grew_range), "%s",
			 gmp_oneline(gmp_rmem__path(&m, r, gv[0].node, path, sizeof(path)), one, sizeof(one)));
	}
	free(gv);
	gmp_rmem__release(&m);
	struct gmp_mmem mm; /* and the mark name that grew most: an epoch loop that keeps memory */
	struct gmp_mmem_grown *mg = NULL;
	size_t nmg = 0;
	if (!err)
		err = gmp_mmem__build(r, &mm);
	else
		memset(&mm, 0, sizeof(mm));
	if (!err)
		err = gmp_mmem__grown(&mm, &mg, &nmg);
	if (!err && nmg) {
		char one[1024];
		a->row[i].mark_grew = mg[0].growth;
		snprintf(a->row[i].grew_mark, sizeof(a->row[i].grew_mark), "%s",
			 gmp_oneline(gmp_trace__str(r->trace, mm.group[mg[0].g].name, NULL), one, sizeof(one)));
	}
	free(mg);
	gmp_mmem__release(&mm);
	if (err)
		return err;
	for (size_t k = 0; k < r->nfindings; k++) {
		const struct gmp_finding *f = &r->findings[k];
		const struct gmp_object *o = &r->objects[f->object];
		struct group *g = group_of(a, gmp_sites__fingerprint(&s->sites, f), f->pattern,
					   gmp_sites__event(&s->sites, o->alloc_ev, NULL));
		if (!g)
			return -ENOMEM;
		if (g->last != i + 1) {
			g->inputs++;
			g->last = i + 1;
		}
		g->findings++;
		g->bytes += o->size;
		if (f->saving > g->saving) {
			g->saving = f->saving;
			g->saving_input = i;
		}
	}
	return 0;
}

static int by_saving(const void *x, const void *y)
{
	const struct group *p = *(const struct group *const *)x, *q = *(const struct group *const *)y;
	if (p->saving != q->saving)
		return p->saving < q->saving ? 1 : -1;
	if (p->inputs != q->inputs)
		return p->inputs < q->inputs ? 1 : -1;
	if (p->bytes != q->bytes)
		return p->bytes < q->bytes ? 1 : -1;
	return (p->fp > q->fp) - (p->fp < q->fp);
}

/*
 * The groups, ranked (the largest saving, then the most inputs, then the
 * most bytes) into *out (the caller frees it; NULL when there are none),
 * and how many of them to show (max, or 20 when max is 0): 0 or -ENOMEM.
 */
static int ranked(const struct gmp_across *a, size_t max, const struct group ***out, size_t *shown)
{
	*out = NULL;
	*shown = 0;
	if (!a->ng)
		return 0;
	const struct group **v = malloc(a->ng * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < a->ng; i++)
		v[i] = &a->g[i];
	qsort(v, a->ng, sizeof(*v), by_saving);
	max = max ? max : ROWS_DEFAULT;
	*shown = a->ng < max ? a->ng : max;
	*out = v;
	return 0;
}

/*
 * Whether an input has an NVTX range (mark: a mark name) that grew: the
 * tables then say, for each, the one that grew most.
 */
static int any_grew(const struct gmp_across *a, int mark)
{
	for (size_t i = 0; i < a->n; i++)
		if (mark ? a->row[i].mark_grew : a->row[i].grew)
			return 1;
	return 0;
}

/* "8.0 KiB in step" (mark: "2.0 KiB at epoch"), or "-". */
static const char *grew_cell(const struct gmp_input_row *row, int mark, char *buf, size_t n)
{
	char b[32];
	uint64_t v = mark ? row->mark_grew : row->grew;
	if (!v)
		return "-";
	snprintf(buf, n, "%s %s %s", gmp_human_bytes(v, b, sizeof(b)), mark ? "at" : "in",
		 mark ? row->grew_mark : row->grew_range);
	return buf;
}

int gmp_across__text(FILE *fp, const struct gmp_across *a, const char *const *names, size_t max)
{
	char x[32], y[32], z[32], gc[96], mc[96];
	size_t w = 5;
	int grew = any_grew(a, 0), mgrew = any_grew(a, 1);
	for (size_t i = 0; i < a->n; i++)
		w = strlen(names[i]) > w ? strlen(names[i]) : w;
	fprintf(fp, "\nInputs: %zu\n  %-*s %12s %9s %14s %12s%s%s\n", a->n, (int)w, "input", "peak", "findings",
		"top saving", "leaked", grew ? "  range that grew most" : "", mgrew ? "  mark that grew most" : "");
	for (size_t i = 0; i < a->n; i++) {
		const char *rc = grew_cell(&a->row[i], 0, gc, sizeof(gc));
		fprintf(fp, "  %-*s %12s %9zu %14s %12s", (int)w, names[i], gmp_human_bytes(a->row[i].peak, x, sizeof(x)),
			a->row[i].findings, gmp_human_bytes(a->row[i].saving, y, sizeof(y)),
			gmp_human_bytes(a->row[i].leaked, z, sizeof(z)));
		if (grew)
			fprintf(fp, "  %-*s", mgrew ? 21 : 0, rc);
		if (mgrew)
			fprintf(fp, "  %s", grew_cell(&a->row[i], 1, mc, sizeof(mc)));
		fputc('\n', fp);
	}
	const struct group **v;
	size_t n;
	int err = ranked(a, max, &v, &n);
	if (err || !v)
		return err;
	fprintf(fp, "\nFindings across the %zu inputs, by fingerprint (as baselines and gmprof diff match them), "
		"the largest saving first:\n  %7s %8s %14s  %-*s  %-16s  %-28s %s\n", a->n, "inputs", "findings",
		"saving", (int)w, "largest in", "fingerprint", "pattern", "allocation site");
	for (size_t i = 0; i < n; i++) {
		const struct group *g = v[i];
		char in[32], one[600];
		snprintf(in, sizeof(in), "%zu/%zu", g->inputs, a->n);
		fprintf(fp, "  %7s %8zu %14s  %-*s  %016" PRIx64 "  %-28s %s\n", in, g->findings,
			g->saving ? gmp_human_bytes(g->saving, x, sizeof(x)) : "-", (int)w,
			g->saving ? names[g->saving_input] : "-", g->fp, gmp_pattern__name(g->pattern),
			g->site ? gmp_oneline(g->site, one, sizeof(one)) : "no site");
	}
	if (n < a->ng)
		fprintf(fp, "  ... and %zu more (--top N shows N)\n", a->ng - n);
	free(v);
	return 0;
}

int gmp_across__markdown(FILE *fp, const struct gmp_across *a, const char *const *names, size_t max)
{
	char x[32], y[32], z[32], gc[96];
	int grew = any_grew(a, 0), mgrew = any_grew(a, 1);
	fprintf(fp, "## Inputs: %zu\n\n| input | peak | findings | top saving | leaked |%s%s\n|---|---|---|---|---|%s%s\n",
		a->n, grew ? " range that grew most |" : "", mgrew ? " mark that grew most |" : "", grew ? "---|" : "",
		mgrew ? "---|" : "");
	for (size_t i = 0; i < a->n; i++) {
		fputs("| ", fp);
		gmp_md__code(fp, names[i], 1);
		fprintf(fp, " | %s | %zu | %s | %s |", gmp_human_bytes(a->row[i].peak, x, sizeof(x)),
			a->row[i].findings, gmp_human_bytes(a->row[i].saving, y, sizeof(y)),
			gmp_human_bytes(a->row[i].leaked, z, sizeof(z)));
		for (int mark = 0; mark < 2; mark++)
			if (mark ? mgrew : grew) {
				fputc(' ', fp);
				gmp_md__text(fp, grew_cell(&a->row[i], mark, gc, sizeof(gc)));
				fputs(" |", fp);
			}
		fputc('\n', fp);
	}
	const struct group **v;
	size_t n;
	int err = ranked(a, max, &v, &n);
	if (err || !v)
		return err;
	fprintf(fp, "\n### Findings across the inputs, by fingerprint\n\n"
		"| inputs | findings | saving | largest in | fingerprint | pattern | allocation site |\n"
		"|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		const struct group *g = v[i];
		fprintf(fp, "| %zu/%zu | %zu | %s | ", g->inputs, a->n, g->findings,
			g->saving ? gmp_human_bytes(g->saving, x, sizeof(x)) : "-");
		gmp_md__code(fp, g->saving ? names[g->saving_input] : NULL, 1);
		fprintf(fp, " | `%016" PRIx64 "` | %s | ", g->fp, gmp_pattern__name(g->pattern));
		gmp_md__code(fp, g->site ? g->site : "no site", 1);
		fputs(" |\n", fp);
	}
	if (n < a->ng)
		fprintf(fp, "\n... and %zu more (`--top N` shows N)\n", a->ng - n);
	free(v);
	return 0;
}
