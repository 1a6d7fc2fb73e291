// SPDX-License-Identifier: MIT
/*
 * `gmprof baseline`: what a later `gmprof check --baseline` compares
 * against (format: baseline.h), of one input or of several.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "bysite.h"
#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "jw.h"
#include "markmem.h"
#include "rangemem.h"
#include "session.h"
#include "u64map.h"
#include "util.h"

static const char usage_baseline[] =
	"Usage: gmprof baseline [options] INPUT...\n"
	"\n"
	"Write the baseline `gmprof check --baseline` compares against: the peak of\n"
	"each device the run used, with its bytes by allocation site (which a check\n"
	"names when that peak grew), where pools have NVTX regions its peak of bytes\n"
	"in use, and where the program pushed NVTX ranges each range's peak (and of\n"
	"a range entered more than once, how much more was live as its last time\n"
	"began than as its first, which a check holds to the same), and where it\n"
	"made NVTX marks the most live at each mark name and its growth; the leaked\n"
	"bytes and the fingerprints of its findings.  Of several inputs (an MPI\n"
	"job's ranks): each input's peaks, under its file name (which a check\n"
	"matches), the largest leak, and the findings of all, each fingerprint once.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE        write to FILE (standard output by default)\n"
	"      --force              replace FILE if it exists\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"EXAMPLE\n"
	"  gmprof baseline -o main.baseline.json app.gmprof\n";

/* A baseline's finding, kept across inputs. */
struct bl_finding {
	uint64_t fp;
	char hex[32];
	unsigned pattern;
	char *object;   /* owned */
	uint64_t saving;
};

/* The baseline of one or more inputs (format: baseline.h): each one's peaks, the largest leak, every fingerprint. */
struct bl {
	char *inputs;   /* owned: the names, space-separated */
	uint64_t peak, leaked;
	struct gmp_baseline_peak *peaks; /* owned: per input and device, with their bytes by allocation site */
	size_t npeaks, peaks_cap;
	struct bl_finding *f;
	size_t n, cap;
	struct gmp_u64map seen; /* fingerprints of the inputs before the current one (a set) */
	int nvtx_numbers;       /* --nvtx-numbers */
	const char *nvtx_strip; /* --nvtx-strip, or NULL */
	struct gmp_baseline left; /* the NVTX domains any input left out (its domains_out alone) */
};

/* Device index d's largest peak, by allocation site (the sites that name a place): one more of b's peaks. */
static int one_peak(struct bl *b, struct gmp_session *s, const char *input, size_t d)
{
	const struct gmp_result *r = s->r;
	const struct gmp_peak *pk = gmp_result__top_peak(r, r->devices[d].device);
	struct gmp_baseline_peak *p = &b->peaks[b->npeaks];
	*p = (struct gmp_baseline_peak){ .input = strdup(input), .device = r->devices[d].device,
					 .peak_bytes = r->devices[d].peak_bytes,
					 .inuse_peak_bytes = r->devices[d].inuse_peak_bytes,
					 .pool_reserved_high = gmp_trace__pool_high(r->trace, r->devices[d].device) };
	if (!p->input)
		return -ENOMEM;
	b->npeaks++;
	struct gmp_bysite by;
	if (!pk)
		return 0;
	if (gmp_bysite__peak(&s->sites, r, pk, &by))
		return -ENOMEM;
	int err = 0;
	if (by.n && !(p->sites = calloc(by.n, sizeof(*p->sites))))
		err = -ENOMEM;
	for (size_t i = 0; i < by.n && !err; i++) {
		if (gmp_site__is_local(by.g[i].site))
			continue;
		char *name = strdup(by.g[i].site);
		if (!name)
			err = -ENOMEM;
		else
			p->sites[p->nsites++] = (struct gmp_baseline_site){
				name, by.g[i].bytes, gmp_sites__event_key(&s->sites, by.g[i].alloc_ev), 1 };
	}
	gmp_bysite__release(&by);
	return err;
}

#define BL_KEPT_SITES 8 /* of what a range's times kept, the sites holding most */

/* What range node's times kept on device index d, by allocation site (those that name a place), into y. */
static int bl_kept(struct gmp_baseline_range *y, struct gmp_session *s, const struct gmp_rmem *m, uint32_t node,
		   size_t d)
{
	struct gmp_rmem_kept kp;
	int err = gmp_rmem__kept_sites(&s->sites, s->r, m, node, d, &kp);
	size_t most = kp.nsites < BL_KEPT_SITES ? kp.nsites : BL_KEPT_SITES;
	if (!err && most && !(y->kept = calloc(most, sizeof(*y->kept))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < kp.nsites && y->nkept < most; i++) {
		const struct gmp_rmem_kept_site *k = &kp.sites[i];
		if (gmp_site__is_local(k->site))
			continue;
		/* a label's objects are matched by the label, a site's by its key */
		y->kept[y->nkept] = (struct gmp_baseline_site){
			.site = strdup(k->site), .bytes = k->bytes, .has_key = !k->named,
			.key = k->named ? 0 : gmp_sites__event_key(&s->sites, k->alloc_ev) };
		if (!y->kept[y->nkept].site)
			err = -ENOMEM;
		else
			y->nkept++;
	}
	gmp_rmem_kept__release(&kp);
	return err;
}

/* Device index d's NVTX ranges in m, with their peaks, times, growth and what they kept, into p. */
static int bl_ranges(struct gmp_baseline_peak *p, struct gmp_session *s, const struct gmp_rmem *m, size_t d)
{
	const struct gmp_result *r = s->r;
	if (!m->ntree)
		return 0;
	if (!(p->ranges = calloc(m->ntree, sizeof(*p->ranges))))
		return -ENOMEM;
	for (size_t i = 0; i < m->ntree; i++) {
		const struct gmp_rmem_dev *x = gmp_rmem__at(m, m->tree[i], d);
		char path[4096];
		if (!x->calls)
			continue;
		if (!(p->ranges[p->nranges].range = strdup(gmp_rmem__path(m, r, m->tree[i], path, sizeof(path)))))
			return -ENOMEM;
		struct gmp_baseline_range *y = &p->ranges[p->nranges++];
		y->peak_bytes = x->peak;
		y->times = x->times > 1 ? x->times : 1;
		y->grew_bytes = gmp_rmem__growth(x);
		int err = y->grew_bytes ? bl_kept(y, s, m, m->tree[i], d) : 0;
		if (err)
			return err;
	}
	p->growth = p->kept = 1;
	return gmp_baseline__sort_ranges(p, 1);
}

/* Device index d's NVTX mark names in mm (those shown there), with their most, times and growth, into p. */
static int bl_marks(struct gmp_baseline_peak *p, const struct gmp_result *r, const struct gmp_mmem *mm, size_t d)
{
	if (!mm->ngroups)
		return 0;
	if (!(p->marks = calloc(mm->ngroups, sizeof(*p->marks))))
		return -ENOMEM;
	for (size_t g = 0; g < mm->ngroups; g++) {
		if (!gmp_mmem__shown(mm, g, d))
			continue;
		const struct gmp_mmem_dev *v = gmp_mmem__at(mm, g, d);
		struct gmp_baseline_mark *y = &p->marks[p->nmarks];
		*y = (struct gmp_baseline_mark){ .mark = strdup(gmp_trace__str(r->trace, mm->group[g].name, NULL)),
						 .max_bytes = v->max, .times = mm->group[g].times,
						 .grew_bytes = gmp_mmem__growth(v) };
		if (!y->mark)
			return -ENOMEM;
		p->nmarks++;
	}
	return gmp_baseline__sort_marks(p); /* a group per name: none twice */
}

/* Each device's largest peak of the session, by allocation site (the sites that name a place), its ranges' and marks'. */
static int bl_peaks(struct bl *b, struct gmp_session *s, const char *input)
{
	const struct gmp_result *r = s->r;
	struct gmp_rmem m;
	struct gmp_mmem mm;
	int err = gmp_rmem__build(r, &m), merr = gmp_mmem__build(r, &mm);
	err = err ? err : merr;
	for (size_t d = 0; d < r->ndevices && !err; d++)
		if (GMP_GROW(b->peaks, b->peaks_cap, b->npeaks + 1))
			err = -ENOMEM;
		else if (!(err = one_peak(b, s, input, d)) && !(err = bl_ranges(&b->peaks[b->npeaks - 1], s, &m, d)))
			err = bl_marks(&b->peaks[b->npeaks - 1], r, &mm, d);
	gmp_rmem__release(&m);
	gmp_mmem__release(&mm);
	return err;
}

/* Adds one session's findings (those an earlier input already gave are not repeated). */
static int bl_add(struct bl *b, struct gmp_session *s)
{
	const struct gmp_result *r = s->r;
	char name[160];
	size_t first = b->n;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *f = &r->findings[i];
		uint64_t fp = gmp_sites__fingerprint(&s->sites, f);
		if (gmp_u64map__get(&b->seen, fp))
			continue;
		if (GMP_GROW(b->f, b->cap, b->n + 1))
			return -ENOMEM;
		struct bl_finding *e = &b->f[b->n];
		*e = (struct bl_finding){ .fp = fp, .pattern = f->pattern, .saving = f->saving,
					  .object = strdup(gmp_result__object_name(r, f->object, name, sizeof(name))) };
		if (!e->object)
			return -ENOMEM;
		gmp_sites__fingerprint_hex(&s->sites, f, e->hex, sizeof(e->hex));
		b->n++;
	}
	for (size_t i = first; i < b->n; i++)
		if (!gmp_u64map__slot(&b->seen, b->f[i].fp, 1, NULL))
			return -ENOMEM;
	const char *input = gmp_baseline__input_name(s->name);
	for (size_t i = 0; i < b->npeaks; i++)
		if (!strcmp(b->peaks[i].input, input)) {
			fprintf(stderr, "gmprof baseline: two inputs are named '%s': a check could not tell their peaks apart\n",
				input);
			return -EINVAL;
		}
	if (bl_peaks(b, s, input) || gmp_baseline__add_domains(&b->left, r->trace))
		return -ENOMEM;
	uint64_t leaked = gmp_leaked_bytes(r);
	b->peak = r->peak_bytes > b->peak ? r->peak_bytes : b->peak;
	b->leaked = leaked > b->leaked ? leaked : b->leaked;
	char *names;
	if (asprintf(&names, "%s%s%s", b->inputs ? b->inputs : "", b->inputs ? " " : "", s->name) < 0)
		return -ENOMEM;
	free(b->inputs);
	b->inputs = names;
	return 0;
}

static int bl_one(struct gmp_session *s, size_t i, void *ctx)
{
	(void)i;
	int err = bl_add(ctx, s);
	if (err == -ENOMEM)
		fprintf(stderr, "gmprof baseline: out of memory\n");
	return err ? GMP_OUTPUT_ABANDON : 0;
}

static void bl_release(struct bl *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->f[i].object);
	free(b->f);
	gmp_u64map__release(&b->seen);
	free(b->inputs);
	struct gmp_baseline bb = { .peaks = b->peaks, .npeaks = b->npeaks };
	gmp_baseline__release(&bb); /* the peaks, their inputs and sites */
	gmp_baseline__release(&b->left);
}

int gmp_baseline__of_session(struct gmp_session *s, struct gmp_baseline *out)
{
	struct bl b = { 0 };
	memset(out, 0, sizeof(*out));
	int err = bl_add(&b, s);
	if (!err && !(out->fingerprints = malloc((b.n ? b.n : 1) * sizeof(uint64_t))))
		err = -ENOMEM;
	if (!err) {
		for (size_t i = 0; i < b.n; i++)
			out->fingerprints[i] = b.f[i].fp;
		out->nfingerprints = b.n;
		out->peaks = b.peaks; /* moved */
		out->npeaks = b.npeaks;
		b.peaks = NULL;
		b.npeaks = 0;
		out->peak_bytes = b.peak;
		out->leaked_bytes = b.leaked;
		out->domains_out = b.left.domains_out; /* moved */
		out->ndomains_out = b.left.ndomains_out;
		b.left.domains_out = NULL;
		b.left.ndomains_out = 0;
		err = gmp_baseline__index(out);
	}
	bl_release(&b);
	if (err)
		gmp_baseline__release(out);
	return err;
}

/* key: [{"site", "bytes", "key" (where it has one)}] */
static void sites_json(struct gmp_jw *jw, const char *key, const struct gmp_baseline_site *s, size_t n)
{
	gmp_jw__key(jw, key);
	gmp_jw__arr(jw);
	for (size_t i = 0; i < n; i++) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "site", s[i].site);
		gmp_jw__ku64(jw, "bytes", s[i].bytes);
		if (s[i].has_key) {
			char hex[17];
			snprintf(hex, sizeof(hex), "%016" PRIx64, s[i].key);
			gmp_jw__kstr(jw, "key", hex);
		}
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
}

static int write_baseline(FILE *fp, void *ctx)
{
	const struct bl *b = ctx;
	struct gmp_jw jw;
	gmp_jw__init(&jw, fp, 1);
	gmp_jw__obj(&jw);
	int ranges = 0, loops = 0, kept = 0, marks = 0; /* version 4 (5, 6, 7) where it says more than 3 (4, 5, 6) */
	for (size_t k = 0; k < b->npeaks; k++) {
		for (size_t i = 0; i < b->peaks[k].nranges; i++)
			ranges = 1, loops |= b->peaks[k].ranges[i].times > 1, kept |= b->peaks[k].ranges[i].nkept > 0;
		marks |= b->peaks[k].nmarks > 0;
	}
	int folded = (b->nvtx_numbers || b->nvtx_strip) && (ranges || marks); /* version 8: a check must fold alike */
	/* version 9: a check says where its run left out other NVTX domains */
	gmp_jw__ku64(&jw, "gmprof_baseline",
		     b->left.ndomains_out ? 9 : folded ? 8 : marks ? 7 : kept ? 6 : loops ? 5 : ranges ? 4 : 3);
	gmp_jw__kstr(&jw, "input", b->inputs);
	gmp_jw__ku64(&jw, "peak_bytes", b->peak);
	gmp_jw__ku64(&jw, "leaked_bytes", b->leaked);
	if (folded) {
		gmp_jw__key(&jw, "nvtx_names");
		gmp_jw__obj(&jw);
		gmp_jw__kbool(&jw, "numbers", b->nvtx_numbers);
		if (b->nvtx_strip)
			gmp_jw__kstr(&jw, "strip", b->nvtx_strip);
		gmp_jw__obj_end(&jw);
	}
	if (b->left.ndomains_out) {
		gmp_jw__key(&jw, "nvtx_domains_left_out");
		gmp_jw__arr(&jw);
		for (size_t i = 0; i < b->left.ndomains_out; i++)
			gmp_jw__str(&jw, b->left.domains_out[i]);
		gmp_jw__arr_end(&jw);
	}
	gmp_jw__key(&jw, "peaks");
	gmp_jw__arr(&jw);
	for (size_t k = 0; k < b->npeaks; k++) {
		const struct gmp_baseline_peak *p = &b->peaks[k];
		gmp_jw__obj(&jw);
		gmp_jw__kstr(&jw, "input", p->input);
		gmp_jw__ku64(&jw, "device", p->device);
		gmp_jw__ku64(&jw, "peak_bytes", p->peak_bytes);
		if (p->inuse_peak_bytes)
			gmp_jw__ku64(&jw, "inuse_peak_bytes", p->inuse_peak_bytes);
		if (p->pool_reserved_high)
			gmp_jw__ku64(&jw, "pool_reserved_high_bytes", p->pool_reserved_high);
		sites_json(&jw, "peak_sites", p->sites, p->nsites);
		if (p->nranges) {
			gmp_jw__key(&jw, "range_peaks");
			gmp_jw__arr(&jw);
			for (size_t i = 0; i < p->nranges; i++) {
				gmp_jw__obj(&jw);
				gmp_jw__kstr(&jw, "range", p->ranges[i].range);
				gmp_jw__ku64(&jw, "peak_bytes", p->ranges[i].peak_bytes);
				if (p->ranges[i].times > 1) {
					gmp_jw__ku64(&jw, "times", p->ranges[i].times);
					gmp_jw__ku64(&jw, "grew_bytes", p->ranges[i].grew_bytes);
				}
				if (p->ranges[i].nkept)
					sites_json(&jw, "kept_sites", p->ranges[i].kept, p->ranges[i].nkept);
				gmp_jw__obj_end(&jw);
			}
			gmp_jw__arr_end(&jw);
		}
		if (p->nmarks) {
			gmp_jw__key(&jw, "mark_peaks");
			gmp_jw__arr(&jw);
			for (size_t i = 0; i < p->nmarks; i++) {
				gmp_jw__obj(&jw);
				gmp_jw__kstr(&jw, "mark", p->marks[i].mark);
				gmp_jw__ku64(&jw, "max_bytes", p->marks[i].max_bytes);
				gmp_jw__ku64(&jw, "times", p->marks[i].times);
				gmp_jw__ku64(&jw, "grew_bytes", p->marks[i].grew_bytes);
				gmp_jw__obj_end(&jw);
			}
			gmp_jw__arr_end(&jw);
		}
		gmp_jw__obj_end(&jw);
	}
	gmp_jw__arr_end(&jw);
	gmp_jw__key(&jw, "findings");
	gmp_jw__arr(&jw);
	for (size_t i = 0; i < b->n; i++) {
		gmp_jw__obj(&jw);
		gmp_jw__kstr(&jw, "fingerprint", b->f[i].hex);
		gmp_jw__kstr(&jw, "pattern", gmp_pattern__name(b->f[i].pattern));
		gmp_jw__kstr(&jw, "object", b->f[i].object);
		gmp_jw__ku64(&jw, "saving_bytes", b->f[i].saving);
		gmp_jw__obj_end(&jw);
	}
	gmp_jw__arr_end(&jw);
	gmp_jw__ku64(&jw, "fingerprints", GMP_FINGERPRINTS);
	gmp_jw__obj_end(&jw);
	gmp_jw__raw(&jw, "\n", 1);
	return gmp_jw__finish(&jw);
}

int cmd_baseline(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "force", no_argument, 0, OPT_FORCE },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "help", no_argument, 0, 'h' },
		GMP_DETECT_LONGOPTS, { 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	int c, ex;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1)
		if (gmp_cli__common("baseline", usage_baseline, c, argv, &cm, &ex) < 0)
			return ex;
	struct gmp_inputs in;
	if ((ex = gmp_cli__inputs("baseline", argc, argv, &cm, &in)))
		return ex;
	struct bl b = { .nvtx_numbers = cm.nvtx_numbers, .nvtx_strip = cm.nvtx_strip };
	int rc = gmp_session__each(&in, bl_one, &b) ? -1 : 0;
	if (!rc)
		rc = gmp_output__write(cm.output, cm.force, write_baseline, &b);
	bl_release(&b);
	return gmp_cli__finish(&cm, rc, "baseline");
}
