// SPDX-License-Identifier: MIT
/*
 * gmprof diff, by NVTX mark: for each mark name shown on a device in either
 * run, the most live at its marks and how much more was live at its last
 * than at its first, before and after (markmem.h says what they count).
 * Names are matched as the program gives them, the largest change first
 * (namediff.h); where a name's growth grew, what run b's marks of it kept,
 * by site.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "marks.h"
#include "namediff.h"
#include "rangemem.h"

/* "most 4.0 KiB over 2 marks": a name of one run. */
static void one_run(const struct gmp_ndiff_row *e, int k, char *buf, size_t n)
{
	char a[32];
	snprintf(buf, n, "most %s over %llu mark%s", gmp_human_bytes(e->v[k][0], a, sizeof(a)),
		 (unsigned long long)e->v[k][2], e->v[k][2] == 1 ? "" : "s");
}

/* Run b's marks, where a name's growth grew: what its marks kept. */
struct kept_ctx {
	const struct gmp_result *b;
	const struct gmp_mmem *m;
	struct gmp_sites *sites;
	uint32_t device;
};

static int kept(void *ctx, const struct gmp_ndiff_row *e, struct gmp_rmem_kept *kp)
{
	const struct kept_ctx *c = ctx;
	return gmp_mmem__kept_sites(c->sites, c->b, c->m, e->ref, gmp_result__device_index(c->b, c->device), kp);
}

static const struct gmp_ndiff_kind kind = {
	.by = "NVTX mark",
	.column = "mark",
	.things = "marks",
	.json_name = "mark",
	.nvalues = 3,
	.nranked = 2, /* how many marks a name has changes no memory */
	.grew = 1,
	.label = { "most", "grew" },
	.json = { "max", "grew", "times" },
	.pre = { "most ", "its last mark " },
	.post = { "", " above its first" },
	.kept_lead = "live at its last mark, allocated since its first",
	.one_run = one_run,
	.kept = kept,
};

/* Run k's names shown on device (m: r's marks) as rows of d, each with its group in m. */
static int rows(struct gmp_ndiff *d, int k, const struct gmp_result *r, const struct gmp_mmem *m, uint32_t device)
{
	size_t dv = gmp_result__device_index(r, device);
	int err = 0;
	for (size_t g = 0; !err && dv < m->ndev && g < m->ngroups; g++) {
		const struct gmp_mmem_dev *x = gmp_mmem__at(m, g, dv);
		uint64_t v[3] = { x->max, gmp_mmem__growth(x), m->group[g].times };
		if (gmp_mmem__shown(m, g, dv))
			err = gmp_ndiff__add(d, k, gmp_trace__str(r->trace, m->group[g].name, NULL), v, 3, g);
	}
	return err;
}

/* One of the three outputs (fp or jw in out) of device's marks. */
static int output(enum gmp_ndiff_format f, void *out, const struct gmp_result *a, const struct gmp_result *b,
		  struct gmp_sites *sites_b, uint32_t device, size_t max)
{
	struct gmp_ndiff d = { 0 };
	struct gmp_mmem ma, mb = { 0 };
	int err = gmp_mmem__build(a, &ma);
	if (!err)
		err = rows(&d, 0, a, &ma, device);
	gmp_mmem__release(&ma);
	if (!err)
		err = gmp_mmem__build(b, &mb);
	if (!err)
		err = rows(&d, 1, b, &mb, device);
	struct kept_ctx c = { .b = b, .m = &mb, .sites = sites_b, .device = device };
	if (!err)
		err = gmp_ndiff__write(f, out, &d, &kind, &c, device, max);
	gmp_ndiff__release(&d);
	gmp_mmem__release(&mb);
	return err;
}

int gmp_mmem__diff_text(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
			uint32_t device, size_t max)
{
	return output(GMP_NDIFF_TEXT, fp, a, b, sites_b, device, max);
}

int gmp_mmem__diff_md(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
		      uint32_t device, size_t max)
{
	return output(GMP_NDIFF_MARKDOWN, fp, a, b, sites_b, device, max);
}

int gmp_mmem__diff_json(struct gmp_jw *jw, const struct gmp_result *a, const struct gmp_result *b,
			struct gmp_sites *sites_b, uint32_t device)
{
	return output(GMP_NDIFF_JSON, jw, a, b, sites_b, device, SIZE_MAX);
}
