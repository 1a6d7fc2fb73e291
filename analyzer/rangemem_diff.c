// SPDX-License-Identifier: MIT
/*
 * gmprof diff, by NVTX range: for each range path a device has calls in,
 * in either run, its peak, the bytes that outlived it and how much more
 * was live as its last time began than as its first, before and after
 * (rangemem.h says what they count).  Ranges are matched by their
 * path ("step > backward"), the names a program gives them, which are the
 * same in two runs of it; the largest change comes first (namediff.h).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "namediff.h"
#include "rangemem.h"

/* "peak 1.0 GiB, outlived it 4.0 KiB": a range of one run. */
static void one_run(const struct gmp_ndiff_row *e, int k, char *buf, size_t n)
{
	char a[32], b[32];
	snprintf(buf, n, "peak %s, outlived it %s", gmp_human_bytes(e->v[k][0], a, sizeof(a)),
		 gmp_human_bytes(e->v[k][1], b, sizeof(b)));
}

/* Run b's ranges, where a range's growth grew: what its times kept. */
struct kept_ctx {
	const struct gmp_result *b;
	const struct gmp_rmem *m;
	struct gmp_sites *sites;
	uint32_t device;
};

static int kept(void *ctx, const struct gmp_ndiff_row *e, struct gmp_rmem_kept *kp)
{
	const struct kept_ctx *c = ctx;
	return gmp_rmem__kept_sites(c->sites, c->b, c->m, (uint32_t)e->ref, gmp_result__device_index(c->b, c->device),
				    kp);
}

static const struct gmp_ndiff_kind kind = {
	.by = "NVTX range",
	.column = "range",
	.things = "ranges",
	.json_name = "path",
	.json_always = 1,
	.nvalues = 3,
	.nranked = 3,
	.grew = 2,
	.label = { "peak", "outlived it", "grew" },
	.json = { "peak", "outlived", "grew" },
	.pre = { "peak ", "outlived it ", "its last time began " },
	.post = { "", "", " above its first" },
	.kept_lead = "live as its last time began, allocated since its first",
	.one_run = one_run,
	.kept = kept,
};

/* Device's ranges of run k (m: r's ranges' memory) as rows of d, each with its node in m. */
static int rows(struct gmp_ndiff *d, int k, const struct gmp_result *r, const struct gmp_rmem *m, uint32_t device)
{
	size_t dv = gmp_result__device_index(r, device);
	int err = 0;
	for (size_t i = 0; !err && dv < m->ndev && i < m->ntree; i++) {
		const struct gmp_rmem_dev *x = gmp_rmem__at(m, m->tree[i], dv);
		char path[4096];
		uint64_t v[3] = { x->peak, x->outlive_bytes, gmp_rmem__growth(x) };
		if (x->calls)
			err = gmp_ndiff__add(d, k, gmp_rmem__path(m, r, m->tree[i], path, sizeof(path)), v, 3, m->tree[i]);
	}
	return err;
}

/* Device's rows of both runs into d; mb: run b's ranges (release both in every case). */
static int both(const struct gmp_result *a, const struct gmp_result *b, uint32_t device, struct gmp_ndiff *d,
		struct gmp_rmem *mb)
{
	struct gmp_rmem ma = { 0 };
	*d = (struct gmp_ndiff){ 0 };
	*mb = (struct gmp_rmem){ 0 };
	int err = gmp_rmem__build(a, &ma);
	if (!err)
		err = rows(d, 0, a, &ma, device);
	gmp_rmem__release(&ma);
	if (!err)
		err = gmp_rmem__build(b, mb);
	if (!err)
		err = rows(d, 1, b, mb, device);
	return err;
}

int gmp_rmem__deltas(const struct gmp_result *a, const struct gmp_result *b, uint32_t device, int changed_only,
		     struct gmp_ndiff *d)
{
	struct gmp_rmem mb;
	int err = both(a, b, device, d, &mb);
	gmp_rmem__release(&mb);
	if (err)
		gmp_ndiff__release(d);
	else
		gmp_ndiff__settle(d, &kind, changed_only);
	return err;
}

/* One of the three outputs (fp or jw in out) of device's ranges. */
static int output(enum gmp_ndiff_format f, void *out, const struct gmp_result *a, const struct gmp_result *b,
		  struct gmp_sites *sites_b, uint32_t device, size_t max)
{
	struct gmp_ndiff d;
	struct gmp_rmem mb;
	int err = both(a, b, device, &d, &mb);
	struct kept_ctx c = { .b = b, .m = &mb, .sites = sites_b, .device = device };
	if (!err)
		err = gmp_ndiff__write(f, out, &d, &kind, &c, device, max);
	gmp_ndiff__release(&d);
	gmp_rmem__release(&mb);
	return err;
}

int gmp_rmem__diff_text(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
			uint32_t device, size_t max)
{
	return output(GMP_NDIFF_TEXT, fp, a, b, sites_b, device, max);
}

int gmp_rmem__diff_md(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
		      uint32_t device, size_t max)
{
	return output(GMP_NDIFF_MARKDOWN, fp, a, b, sites_b, device, max);
}

int gmp_rmem__diff_json(struct gmp_jw *jw, const struct gmp_result *a, const struct gmp_result *b,
			struct gmp_sites *sites_b, uint32_t device)
{
	return output(GMP_NDIFF_JSON, jw, a, b, sites_b, device, SIZE_MAX);
}
