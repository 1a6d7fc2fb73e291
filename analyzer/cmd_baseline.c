// SPDX-License-Identifier: MIT
/*
 * `gmprof baseline`: what a later `gmprof check --baseline` compares
 * against (format: baseline.h), of one input or of several.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "bysite.h"
#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "jw.h"
#include "session.h"
#include "u64map.h"
#include "util.h"

static const char usage_baseline[] =
	"Usage: gmprof baseline [options] INPUT...\n"
	"\n"
	"Write the baseline `gmprof check --baseline` compares against: the run's\n"
	"peak and leaked bytes, the peak's bytes by allocation site (which a check\n"
	"names when the peak grew) and the fingerprints of its findings.  Of\n"
	"several inputs (an MPI job's ranks): the largest peak (and its sites) and\n"
	"leak, and the findings of all, each fingerprint once.\n"
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

/* The baseline of one or more inputs (format: baseline.h): the largest peak and leak, every fingerprint. */
struct bl {
	char *inputs;   /* owned: the names, space-separated */
	uint64_t peak, leaked;
	struct gmp_baseline_site *sites; /* owned: the largest peak's bytes by allocation site */
	size_t nsites;
	struct bl_finding *f;
	size_t n, cap;
	struct gmp_u64map seen; /* fingerprints of the inputs before the current one (a set) */
};

static void bl_drop_sites(struct bl *b)
{
	for (size_t i = 0; i < b->nsites; i++)
		free(b->sites[i].site);
	free(b->sites);
	b->sites = NULL;
	b->nsites = 0;
}

/* The session's largest peak by allocation site becomes the baseline's (sites that name a place). */
static int bl_sites(struct bl *b, struct gmp_session *s)
{
	bl_drop_sites(b);
	const struct gmp_peak *pk = gmp_result__top_peak(s->r, GMP_ANY_DEVICE);
	struct gmp_bysite by;
	if (!pk)
		return 0;
	if (gmp_bysite__peak(&s->sites, s->r, pk, &by))
		return -ENOMEM;
	int err = 0;
	if (by.n && !(b->sites = calloc(by.n, sizeof(*b->sites))))
		err = -ENOMEM;
	for (size_t i = 0; i < by.n && !err; i++) {
		if (gmp_site__is_local(by.g[i].site))
			continue;
		if (!(b->sites[b->nsites].site = strdup(by.g[i].site)))
			err = -ENOMEM;
		else
			b->sites[b->nsites++].bytes = by.g[i].bytes;
	}
	gmp_bysite__release(&by);
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
	uint64_t leaked = gmp_leaked_bytes(r);
	if ((r->peak_bytes > b->peak || !b->inputs) && bl_sites(b, s))
		return -ENOMEM;
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
	if (!bl_add(ctx, s))
		return 0;
	fprintf(stderr, "gmprof baseline: out of memory\n");
	return GMP_OUTPUT_ABANDON;
}

static void bl_release(struct bl *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->f[i].object);
	free(b->f);
	gmp_u64map__release(&b->seen);
	free(b->inputs);
	bl_drop_sites(b);
}

static int write_baseline(FILE *fp, void *ctx)
{
	const struct bl *b = ctx;
	struct gmp_jw jw;
	gmp_jw__init(&jw, fp, 1);
	gmp_jw__obj(&jw);
	gmp_jw__ku64(&jw, "gmprof_baseline", 2);
	gmp_jw__kstr(&jw, "input", b->inputs);
	gmp_jw__ku64(&jw, "peak_bytes", b->peak);
	gmp_jw__ku64(&jw, "leaked_bytes", b->leaked);
	gmp_jw__key(&jw, "peak_sites");
	gmp_jw__arr(&jw);
	for (size_t i = 0; i < b->nsites; i++) {
		gmp_jw__obj(&jw);
		gmp_jw__kstr(&jw, "site", b->sites[i].site);
		gmp_jw__ku64(&jw, "bytes", b->sites[i].bytes);
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
	struct bl b = { 0 };
	int rc = gmp_session__each(&in, bl_one, &b) ? -1 : 0;
	if (!rc)
		rc = gmp_output__write(cm.output, cm.force, write_baseline, &b);
	bl_release(&b);
	return rc ? GMP_EXIT_USAGE : GMP_EXIT_OK;
}
