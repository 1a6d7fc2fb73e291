// SPDX-License-Identifier: MIT
/*
 * gmprof diff BEFORE AFTER: did the change work?  The peaks of both runs
 * per device, and the findings matched by fingerprint (pattern, allocation
 * site, the sites of the APIs involved: what survives a rebuild), as a
 * multiset: a fingerprint BEFORE has more often than AFTER is fixed that
 * many times, and the other way round new.  At each device's largest
 * peak, what changed by allocation site (where a regression came from:
 * diff_sites.c), each NVTX range's peak and what outlived it
 * (rangemem_diff.c), and the live bytes at each NVTX mark name
 * (marks_diff.c).  Both inputs are analyzed with the same thresholds and suppressions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "diff.h"
#include "findings_json.h"
#include "jw.h"
#include "markdown.h"
#include "memtime.h"
#include "nvtx_domains.h"
#include "marks.h"
#include "rangemem.h"
#include "baseline.h"
#include "session.h"

static const char usage[] =
	"Usage: gmprof diff [options] BEFORE AFTER\n"
	"\n"
	"Compare two runs (profiles or event scripts), say of a program before and\n"
	"after a fix: the peak of each device and what changed there by allocation\n"
	"site (and by NVTX range: each range's peak and what outlived it; by NVTX\n"
	"mark: the most live at each name's marks and their growth), and the\n"
	"findings fixed (in BEFORE, not in AFTER) and new (the other way), matched\n"
	"by their fingerprints.\n"
	"\n"
	"Options:\n"
	"  -f, --format text|json|markdown\n"
	"                           output format (text); markdown for a pull request\n"
	"                           comment or a CI job's summary page\n"
	"      --pretty             indent the JSON\n"
	"      --symbols DIR        look for the profiles' binaries in DIR (by file name)\n"
	"  -o, --output FILE        write to FILE instead of standard output\n"
	"      --force              replace FILE if it exists\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"EXAMPLES\n"
	"  gmprof diff before.gmprof after.gmprof\n"
	"  gmprof diff --format json --pretty main.gmprof branch.gmprof > diff.json\n"
	"  gmprof diff --format markdown main.gmprof branch.gmprof >> \"$GITHUB_STEP_SUMMARY\"\n";

struct fp {
	uint64_t fp;
	uint32_t i;    /* the finding's index (its rank) */
};

struct diff {
	struct gmp_session a, b;   /* before, after */
	uint8_t *fixed, *fresh;    /* per finding of a / of b */
	size_t nfixed, nfresh;
	const char *format;
	int pretty;
};

static int cmp_fp(const void *x, const void *y)
{
	const struct fp *p = x, *q = y;
	if (p->fp != q->fp)
		return p->fp < q->fp ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

static struct fp *fingerprints(struct gmp_session *s)
{
	size_t n = s->r->nfindings;
	struct fp *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct fp){ gmp_sites__fingerprint(&s->sites, &s->r->findings[i]), (uint32_t)i };
	qsort(v, n, sizeof(*v), cmp_fp);
	return v;
}

/* Marks what only one side has: per fingerprint, the lowest-ranked extras. */
static int match(struct diff *d)
{
	size_t na = d->a.r->nfindings, nb = d->b.r->nfindings;
	struct fp *va = fingerprints(&d->a), *vb = fingerprints(&d->b);
	d->fixed = calloc(na ? na : 1, 1);
	d->fresh = calloc(nb ? nb : 1, 1);
	if (!va || !vb || !d->fixed || !d->fresh) {
		free(va);
		free(vb);
		return -ENOMEM;
	}
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		uint64_t f = i < na && (j >= nb || va[i].fp <= vb[j].fp) ? va[i].fp : vb[j].fp;
		size_t ia = i, jb = j;
		while (i < na && va[i].fp == f)
			i++;
		while (j < nb && vb[j].fp == f)
			j++;
		size_t ca = i - ia, cb = j - jb;
		for (size_t k = ia + (ca < cb ? ca : cb); k < i; k++, d->nfixed++)
			d->fixed[va[k].i] = 1;
		for (size_t k = jb + (ca < cb ? ca : cb); k < j; k++, d->nfresh++)
			d->fresh[vb[k].i] = 1;
	}
	free(va);
	free(vb);
	return 0;
}

/* A run's summary of a device, or NULL when it did not use it. */
static const struct gmp_device_summary *summary_of(const struct gmp_result *r, uint32_t device)
{
	size_t i = gmp_result__device_index(r, device);
	return i == SIZE_MAX ? NULL : &r->devices[i];
}

/* Either run's pools on the device have regions: its peak of bytes in use is worth showing. */
static int has_regions(const struct gmp_device_summary *a, const struct gmp_device_summary *b)
{
	return (a && a->inuse_peak_bytes) || (b && b->inuse_peak_bytes);
}

static uint64_t peak(const struct gmp_device_summary *ds, int inuse)
{
	return !ds ? 0 : inuse ? gmp_device__in_use_peak(ds) : ds->peak_bytes;
}

static void text_peak(FILE *fp, const char *what, uint32_t dev, const struct gmp_device_summary *a,
		      const struct gmp_device_summary *b, int inuse)
{
	char x[32], y[32], z[48];
	uint64_t pa = peak(a, inuse), pb = peak(b, inuse);
	fprintf(fp, "  %s, device %u: %s -> %s (%s)\n", what, dev, a ? gmp_human_bytes(pa, x, sizeof(x)) : "none",
		b ? gmp_human_bytes(pb, y, sizeof(y)) : "none", gmp_human_change(pa, pb, 1, z, sizeof(z)));
}

/* Devices of either run, in order, without repeats. */
static size_t devices(const struct diff *d, uint32_t *out, size_t max)
{
	size_t n = 0;
	const struct gmp_result *rs[2] = { d->a.r, d->b.r };
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < rs[k]->ndevices; i++) {
			uint32_t dev = rs[k]->devices[i].device;
			size_t j = 0;
			while (j < n && out[j] != dev)
				j++;
			if (j == n && n < max)
				out[n++] = dev;
		}
	for (size_t i = 1; i < n; i++) /* insertion sort: few devices */
		for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
			uint32_t t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static void text_finding(FILE *fp, struct gmp_session *s, const struct gmp_finding *f)
{
	char name[160], size[32], metric[160], hex[32], saving[32], one[200], at1[600];
	const struct gmp_result *r = s->r;
	const char *at = gmp_sites__event(&s->sites, r->objects[f->object].alloc_ev, NULL);
	fprintf(fp, "  %s: %s (%s), %s", gmp_pattern__name(f->pattern),
		gmp_oneline(gmp_result__object_name(r, f->object, name, sizeof(name)), one, sizeof(one)),
		gmp_human_bytes(r->objects[f->object].size, size, sizeof(size)),
		gmp_text__metric(f, metric, sizeof(metric)));
	if (f->saving)
		fprintf(fp, ", %s at the peak", gmp_human_bytes(f->saving, saving, sizeof(saving)));
	if (at)
		fprintf(fp, "\n    allocated at %s", gmp_oneline(at, at1, sizeof(at1)));
	fprintf(fp, " [%s]\n", gmp_sites__fingerprint_hex(&s->sites, f, hex, sizeof(hex)));
}

/* Device dev's GPU in each run, where both profiles record it and they differ (ga, gb: 160 bytes). */
static int other_gpu(const struct diff *d, uint32_t dev, char *ga, char *gb)
{
	return gmp_text__device(d->a.r->trace, dev, ga, 160) && gmp_text__device(d->b.r->trace, dev, gb, 160) &&
	       strcmp(ga, gb);
}

/* key: {"name": ..., "memory_bytes": N}, what the run's profile records of device dev (nothing: no key). */
static void json_gpu(struct gmp_jw *jw, const char *key, const struct gmp_trace *t, uint32_t dev)
{
	const char *name = gmp_trace__device_name(t, dev);
	uint64_t mem = gmp_trace__device_memory(t, dev);
	if (!name && !mem)
		return;
	gmp_jw__key(jw, key);
	gmp_jw__obj(jw);
	if (name)
		gmp_jw__kstr(jw, "name", name);
	if (mem)
		gmp_jw__ku64(jw, "memory_bytes", mem);
	gmp_jw__obj_end(jw);
}

/* The most device dev's stream-ordered pools reserved in each run (0: none recorded); 1 when either run has pools. */
static int pools_high(const struct diff *d, uint32_t dev, uint64_t *a, uint64_t *b)
{
	*a = gmp_trace__pool_high(d->a.r->trace, dev);
	*b = gmp_trace__pool_high(d->b.r->trace, dev);
	return gmp_trace__pool_state_last(d->a.r->trace, dev) || gmp_trace__pool_state_last(d->b.r->trace, dev);
}

static int text(FILE *fp, void *ctx)
{
	struct diff *d = ctx;
	const struct gmp_result *ra = d->a.r, *rb = d->b.r;
	char x[32], y[32], z[48];
	fprintf(fp, "gmprof diff: %s -> %s\n", d->a.name, d->b.name);
	char note[1024]; /* ranges and marks of a domain one run left out compare with none */
	if (*gmp_nvtx_domains__differ(ra->trace, rb->trace, note, sizeof(note)))
		fprintf(fp, "  note: %s; their ranges and marks compare with none\n", note);
	uint32_t dev[64];
	size_t nd = devices(d, dev, 64);
	for (size_t i = 0; i < nd; i++) {
		const struct gmp_device_summary *a = summary_of(ra, dev[i]), *b = summary_of(rb, dev[i]);
		text_peak(fp, "peak", dev[i], a, b, 0);
		char ga[160], gb[160];
		if (other_gpu(d, dev[i], ga, gb))
			fprintf(fp, "    on another GPU: %s -> %s\n", ga, gb);
		gmp_diff__sites_text(fp, &d->a, &d->b, dev[i]);
		if (gmp_rmem__diff_text(fp, ra, rb, &d->b.sites, dev[i], 10))
			fprintf(fp, "    (out of memory comparing the NVTX ranges)\n");
		if (gmp_mmem__diff_text(fp, ra, rb, &d->b.sites, dev[i], 10))
			fprintf(fp, "    (out of memory comparing the NVTX marks)\n");
		if (has_regions(a, b))
			text_peak(fp, "in use", dev[i], a, b, 1);
		uint64_t la, lb;
		int ka = gmp_memtime__average(&d->a, dev[i], &la), kb = gmp_memtime__average(&d->b, dev[i], &lb);
		if (ka < 0 || kb < 0)
			return -ENOMEM;
		if (ka && kb)
			fprintf(fp, "  live on average, device %u: %s -> %s (%s)\n", dev[i], gmp_human_bytes(la, x, sizeof(x)),
				gmp_human_bytes(lb, y, sizeof(y)), gmp_human_change(la, lb, 1, z, sizeof(z)));
		if (pools_high(d, dev[i], &la, &lb))
			fprintf(fp, "  stream-ordered pools reserved at most, device %u: %s -> %s (%s)\n", dev[i],
				gmp_human_bytes(la, x, sizeof(x)), gmp_human_bytes(lb, y, sizeof(y)),
				gmp_human_change(la, lb, 1, z, sizeof(z)));
	}
	fprintf(fp, "  leaked: %s -> %s\n", gmp_human_bytes(gmp_leaked_bytes(ra), x, sizeof(x)),
		gmp_human_bytes(gmp_leaked_bytes(rb), y, sizeof(y)));
	if (ra->nfails_total || rb->nfails_total)
		fprintf(fp, "  allocations that ran out of memory: %zu -> %zu\n", ra->nfails_total,
			rb->nfails_total);
	fprintf(fp, "  findings: %zu -> %zu (%zu fixed, %zu new, %zu in both)\n", ra->nfindings,
		rb->nfindings, d->nfixed, d->nfresh, ra->nfindings - d->nfixed);
	if (d->nfixed) {
		fprintf(fp, "\nFixed (in %s, not in %s):\n", d->a.name, d->b.name);
		for (size_t i = 0; i < ra->nfindings; i++)
			if (d->fixed[i])
				text_finding(fp, &d->a, &ra->findings[i]);
	}
	if (d->nfresh) {
		fprintf(fp, "\nNew (in %s, not in %s):\n", d->b.name, d->a.name);
		for (size_t i = 0; i < rb->nfindings; i++)
			if (d->fresh[i])
				text_finding(fp, &d->b, &rb->findings[i]);
	}
	return ferror(fp) ? -EIO : 0;
}

static void json_findings(struct gmp_jw *jw, const char *key, struct gmp_session *s, const uint8_t *pick)
{
	char hex[32], name[160];
	const struct gmp_result *r = s->r;
	gmp_jw__key(jw, key);
	gmp_jw__arr(jw);
	for (size_t i = 0; i < r->nfindings; i++) {
		if (!pick[i])
			continue;
		const struct gmp_finding *f = &r->findings[i];
		const char *at = gmp_sites__event(&s->sites, r->objects[f->object].alloc_ev, NULL);
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "fingerprint", gmp_sites__fingerprint_hex(&s->sites, f, hex, sizeof(hex)));
		gmp_jw__kstr(jw, "pattern", gmp_pattern__name(f->pattern));
		gmp_jw__kstr(jw, "object", gmp_result__object_name(r, f->object, name, sizeof(name)));
		gmp_jw__ku64(jw, "size", r->objects[f->object].size);
		gmp_jw__ku64(jw, "saving_bytes", f->saving);
		if (at)
			gmp_jw__kstr(jw, "allocated_at", at);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
}

static int json(FILE *fp, void *ctx)
{
	struct diff *d = ctx;
	const struct gmp_result *ra = d->a.r, *rb = d->b.r;
	struct gmp_jw jw;
	gmp_jw__init(&jw, fp, d->pretty);
	gmp_jw__obj(&jw);
	gmp_jw__ku64(&jw, "gmprof_diff", 1); /* docs/schema/diff.schema.json */
	gmp_jw__kstr(&jw, "before", d->a.name);
	gmp_jw__kstr(&jw, "after", d->b.name);
	gmp_jw__key(&jw, "devices");
	gmp_jw__arr(&jw);
	uint32_t dev[64];
	size_t nd = devices(d, dev, 64);
	for (size_t i = 0; i < nd; i++) {
		const struct gmp_device_summary *a = summary_of(ra, dev[i]), *b = summary_of(rb, dev[i]);
		gmp_jw__obj(&jw);
		gmp_jw__ku64(&jw, "device", dev[i]);
		json_gpu(&jw, "gpu_before", ra->trace, dev[i]);
		json_gpu(&jw, "gpu_after", rb->trace, dev[i]);
		gmp_jw__ku64(&jw, "peak_before", peak(a, 0));
		gmp_jw__ku64(&jw, "peak_after", peak(b, 0));
		uint64_t la, lb;
		int ka = gmp_memtime__average(&d->a, dev[i], &la), kb = gmp_memtime__average(&d->b, dev[i], &lb);
		if (ka < 0 || kb < 0)
			return -ENOMEM;
		if (ka && kb) { /* by the host's clock: where both runs have host times */
			gmp_jw__ku64(&jw, "average_live_before", la);
			gmp_jw__ku64(&jw, "average_live_after", lb);
		}
		if (has_regions(a, b)) {
			gmp_jw__ku64(&jw, "inuse_peak_before", peak(a, 1));
			gmp_jw__ku64(&jw, "inuse_peak_after", peak(b, 1));
		}
		if (pools_high(d, dev[i], &la, &lb)) {
			gmp_jw__ku64(&jw, "pool_reserved_high_before", la);
			gmp_jw__ku64(&jw, "pool_reserved_high_after", lb);
		}
		if (gmp_diff__sites_json(&jw, &d->a, &d->b, dev[i]) || gmp_rmem__diff_json(&jw, ra, rb, &d->b.sites, dev[i]) ||
		    gmp_mmem__diff_json(&jw, ra, rb, &d->b.sites, dev[i]))
			return -ENOMEM;
		gmp_jw__obj_end(&jw);
	}
	gmp_jw__arr_end(&jw);
	char note[1024]; /* where the runs left out different NVTX domains: each run's list */
	if (*gmp_nvtx_domains__differ(ra->trace, rb->trace, note, sizeof(note))) {
		gmp_jw__key(&jw, "nvtx_domains_left_out");
		gmp_jw__obj(&jw);
		for (int k = 0; k < 2; k++) {
			const char *names[GMP_NVTX_DOMAINS_MAX];
			size_t n = gmp_nvtx_domains__left_out_keys(k ? rb->trace : ra->trace, names, GMP_NVTX_DOMAINS_MAX);
			gmp_jw__key(&jw, k ? "after" : "before");
			gmp_jw__arr(&jw);
			for (size_t i = 0; i < n; i++)
				gmp_jw__str(&jw, names[i]);
			gmp_jw__arr_end(&jw);
		}
		gmp_jw__obj_end(&jw);
	}
	gmp_jw__ku64(&jw, "leaked_before", gmp_leaked_bytes(ra));
	gmp_jw__ku64(&jw, "leaked_after", gmp_leaked_bytes(rb));
	gmp_jw__ku64(&jw, "failed_allocations_before", ra->nfails_total);
	gmp_jw__ku64(&jw, "failed_allocations_after", rb->nfails_total);
	gmp_jw__ku64(&jw, "findings_before", ra->nfindings);
	gmp_jw__ku64(&jw, "findings_after", rb->nfindings);
	json_findings(&jw, "fixed", &d->a, d->fixed);
	json_findings(&jw, "new", &d->b, d->fresh);
	gmp_jw__obj_end(&jw);
	gmp_jw__raw(&jw, "\n", 1);
	return gmp_jw__finish(&jw);
}

/* Markdown: the lists of findings stop here (a pull request comment holds 64 KiB). */
#define MD_MAX_FINDINGS 50

static void md_row(FILE *fp, const char *what, uint32_t dev, uint64_t a, uint64_t b, int has_a, int has_b)
{
	char x[32], y[32], z[48];
	fprintf(fp, "| %s", what);
	if (dev != UINT32_MAX)
		fprintf(fp, ", device %u", dev);
	fprintf(fp, " | %s | %s | %s |\n", has_a ? gmp_human_bytes(a, x, sizeof(x)) : "none",
		has_b ? gmp_human_bytes(b, y, sizeof(y)) : "none", gmp_human_change(a, b, 1, z, sizeof(z)));
}

static void md_findings(FILE *fp, const char *title, struct gmp_session *s, struct gmp_session *other,
			const uint8_t *pick, size_t npick)
{
	if (!npick)
		return;
	const struct gmp_result *r = s->r;
	fprintf(fp, "### %s (in ", title);
	gmp_md__code(fp, s->name, 0);
	fputs(", not in ", fp);
	gmp_md__code(fp, other->name, 0);
	fputs(")\n\n| pattern | object | size | saving at the peak | allocated at | fingerprint |\n"
	      "|---|---|---|---|---|---|\n", fp);
	size_t shown = 0;
	for (size_t i = 0; i < r->nfindings && shown < MD_MAX_FINDINGS; i++) {
		if (!pick[i])
			continue;
		const struct gmp_finding *f = &r->findings[i];
		char name[160], size[32], saving[32], hex[32];
		fprintf(fp, "| %s | ", gmp_pattern__name(f->pattern));
		gmp_md__code(fp, gmp_result__object_name(r, f->object, name, sizeof(name)), 1);
		fprintf(fp, " | %s | %s | ", gmp_human_bytes(r->objects[f->object].size, size, sizeof(size)),
			f->saving ? gmp_human_bytes(f->saving, saving, sizeof(saving)) : "-");
		gmp_md__code(fp, gmp_sites__event(&s->sites, r->objects[f->object].alloc_ev, NULL), 1);
		fputs(" | ", fp);
		gmp_md__code(fp, gmp_sites__fingerprint_hex(&s->sites, f, hex, sizeof(hex)), 1);
		fputs(" |\n", fp);
		shown++;
	}
	if (npick > shown)
		fprintf(fp, "\n... and %zu more (`gmprof diff` without `--format markdown` lists all)\n", npick - shown);
	fputc('\n', fp);
}

static int md(FILE *fp, void *ctx)
{
	struct diff *d = ctx;
	const struct gmp_result *ra = d->a.r, *rb = d->b.r;
	fputs("## gmprof diff: ", fp);
	gmp_md__code(fp, d->a.name, 0);
	fputs(" -> ", fp);
	gmp_md__code(fp, d->b.name, 0);
	fputs("\n\n", fp);
	char note[1024]; /* as in the text */
	if (*gmp_nvtx_domains__differ(ra->trace, rb->trace, note, sizeof(note))) {
		gmp_md__text(fp, note);
		fputs("; their ranges and marks compare with none.\n\n", fp);
	}
	fputs("| | before | after | change |\n|---|---|---|---|\n", fp);
	uint32_t dev[64];
	size_t nd = devices(d, dev, 64);
	for (size_t i = 0; i < nd; i++) {
		const struct gmp_device_summary *a = summary_of(ra, dev[i]), *b = summary_of(rb, dev[i]);
		char ga[160], gb[160];
		if (other_gpu(d, dev[i], ga, gb)) {
			fprintf(fp, "| GPU, device %u | ", dev[i]);
			gmp_md__text(fp, ga);
			fputs(" | ", fp);
			gmp_md__text(fp, gb);
			fputs(" | another GPU |\n", fp);
		}
		md_row(fp, "peak", dev[i], peak(a, 0), peak(b, 0), a != NULL, b != NULL);
		uint64_t la, lb;
		int ka = gmp_memtime__average(&d->a, dev[i], &la), kb = gmp_memtime__average(&d->b, dev[i], &lb);
		if (ka < 0 || kb < 0)
			return -ENOMEM;
		if (ka && kb)
			md_row(fp, "live on average", dev[i], la, lb, 1, 1);
		if (has_regions(a, b))
			md_row(fp, "in use", dev[i], peak(a, 1), peak(b, 1), a != NULL, b != NULL);
	}
	md_row(fp, "leaked", UINT32_MAX, gmp_leaked_bytes(ra), gmp_leaked_bytes(rb), 1, 1);
	if (ra->nfails_total || rb->nfails_total)
		fprintf(fp, "| allocations that ran out of memory | %zu | %zu | |\n", ra->nfails_total, rb->nfails_total);
	fprintf(fp, "| findings | %zu | %zu | %zu fixed, %zu new, %zu in both |\n\n", ra->nfindings, rb->nfindings,
		d->nfixed, d->nfresh, ra->nfindings - d->nfixed);
	for (size_t i = 0; i < nd; i++)
		if (gmp_diff__sites_md(fp, &d->a, &d->b, dev[i]) || gmp_rmem__diff_md(fp, ra, rb, &d->b.sites, dev[i], 10) ||
		    gmp_mmem__diff_md(fp, ra, rb, &d->b.sites, dev[i], 10))
			return -ENOMEM;
	md_findings(fp, "Fixed", &d->a, &d->b, d->fixed, d->nfixed);
	md_findings(fp, "New", &d->b, &d->a, d->fresh, d->nfresh);
	return ferror(fp) ? -EIO : 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'f' }, { "pretty", no_argument, 0, OPT_CMD_BASE },
		{ "output", required_argument, 0, 'o' }, { "force", no_argument, 0, OPT_FORCE },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "help", no_argument, 0, 'h' },
		GMP_DETECT_LONGOPTS, { 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	struct diff d = { .format = "text" };
	int c, ex;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":f:o:h", longopts, NULL)) != -1) {
		if (c == 'f')
			d.format = optarg;
		else if (c == OPT_CMD_BASE)
			d.pretty = 1;
		else if (gmp_cli__common("diff", usage, c, argv, &cm, &ex) < 0)
			return ex;
	}
	int (*writer)(FILE *, void *) = !strcmp(d.format, "text") ? text : !strcmp(d.format, "json") ? json
				       : !strcmp(d.format, "markdown") ? md : NULL;
	if (!writer)
		return gmp_cli__usage_error("diff", "unknown format '%s' (text, json or markdown)", d.format);
	if (optind != argc - 2)
		return gmp_cli__usage_error("diff", "expected BEFORE and AFTER, got %d input%s", argc - optind,
					    argc - optind == 1 ? "" : "s");
	struct gmp_session_opts so;
	gmp_cli__session_opts(&cm, &so);
	if (gmp_session__open(&d.a, argv[optind], &so))
		return GMP_EXIT_USAGE;
	if (gmp_session__open(&d.b, argv[optind + 1], &so)) {
		gmp_session__close(&d.a);
		return GMP_EXIT_USAGE;
	}
	int rc = GMP_EXIT_USAGE;
	if (match(&d))
		fprintf(stderr, "gmprof: out of memory\n");
	else if (!gmp_output__write(cm.output, cm.force, writer, &d))
		rc = GMP_EXIT_OK;
	free(d.fixed);
	free(d.fresh);
	gmp_session__close(&d.a);
	gmp_session__close(&d.b);
	return gmp_cli__finish(&cm, rc, "diff");
}
