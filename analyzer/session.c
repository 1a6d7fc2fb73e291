// SPDX-License-Identifier: MIT
/* Loading, detecting and symbolizing once for every command; safe outputs. */
#include "session.h"

#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "gz.h"
#include "safefile.h"
#include "frameworks.h"
#include "nvtx_fold.h"
#include "wrappers.h"

int gmp_session__load(struct gmp_session *s, const char *path, const struct gmp_session_opts *so)
{
	memset(s, 0, sizeof(*s));
	s->name = strcmp(path, "-") ? path : "<stdin>";
	s->notes = so->notes;
	/* A bad suppressions file is found before the input is read. */
	if (so->suppress && gmp_suppress__load(so->suppress, &s->sup))
		return -1;
	if (gmp_input__load(path, so->salvage, &s->in)) {
		gmp_suppress__release(&s->sup);
		return -1;
	}
	return 0;
}

/*
 * --ranges: keeps the findings whose objects were allocated in NVTX ranges
 * matching glob ("outer > inner"; none match without ranges), in their
 * order; failures name findings by index, so they are remade (by the
 * suppressions, when those follow).  0 or -ENOMEM.
 */
static int keep_ranges(struct gmp_result *r, const char *glob, int remake_failures)
{
	const struct gmp_trace *t = r->trace;
	char rg[512];
	size_t k = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		uint32_t ev = r->objects[r->findings[i].object].alloc_ev;
		gmp_trace__event_range_text(t, ev, rg, sizeof(rg));
		if (fnmatch(glob, rg, 0) == 0)
			r->findings[k++] = r->findings[i];
	}
	r->nfindings = k;
	return remake_failures ? gmp_result__failures(r, NULL) : 0;
}

/* --nvtx-strip, --nvtx-numbers: the trace's NVTX names folded before anything reads them.  0 or -1 (said). */
static int fold_names(struct gmp_trace *t, const struct gmp_session_opts *so)
{
	struct gmp_nvtx_fold f;
	char why[256];
	if (!so->nvtx_strip && !so->nvtx_numbers)
		return 0;
	if (gmp_nvtx_fold__init(&f, so->nvtx_strip, so->nvtx_numbers, why, sizeof(why))) {
		fprintf(stderr, "gmprof: --nvtx-strip '%s' is not a regular expression: %s\n", so->nvtx_strip, why);
		return -1;
	}
	int err = gmp_nvtx_fold__trace(&f, t);
	gmp_nvtx_fold__release(&f);
	if (err)
		fprintf(stderr, "gmprof: out of memory\n");
	return err ? -1 : 0;
}

int gmp_session__analyze(struct gmp_session *s, const struct gmp_session_opts *so)
{
	if (fold_names(s->in.trace, so) || gmp_input__detect(&s->in, so->detect, &s->r)) {
		gmp_session__close(s);
		return -1;
	}
	if (s->in.is_profile && gmp_symbolizer__new(s->in.trace, so->symdir, &s->sym)) {
		fprintf(stderr, "gmprof: out of memory\n");
		gmp_session__close(s);
		return -1;
	}
	if (s->sym)
		gmp_symbolizer__alloc_fns(s->sym, so->alloc_fns, so->nalloc_fns);
	s->sites = (struct gmp_sites){ .r = s->r, .sym = s->sym };
	if (!so->no_fingerprints && gmp_sites__index(&s->sites)) { /* fingerprints need it: out of memory here */
		fprintf(stderr, "gmprof: out of memory\n");
		gmp_session__close(s);
		return -1;
	}
	if (so->ranges && keep_ranges(s->r, so->ranges, !so->suppress)) {
		fprintf(stderr, "gmprof: out of memory\n");
		gmp_session__close(s);
		return -1;
	}
	if (so->suppress && gmp_suppress__apply(&s->sup, s->r, &s->sites)) {
		fprintf(stderr, "gmprof: out of memory\n");
		gmp_session__close(s);
		return -1;
	}
	return 0;
}

int gmp_session__open(struct gmp_session *s, const char *path, const struct gmp_session_opts *so)
{
	return gmp_session__load(s, path, so) || gmp_session__analyze(s, so) ? -1 : 0;
}

int gmp_session__each(const struct gmp_inputs *in,
		      int (*fn)(struct gmp_session *s, size_t i, void *ctx), void *ctx)
{
	for (size_t i = 0; i < in->n; i++) {
		struct gmp_session s;
		if (gmp_session__open(&s, in->v[i], &in->so))
			return GMP_OUTPUT_ABANDON;
		int rc = fn(&s, i, ctx);
		gmp_session__close(&s);
		if (rc)
			return rc;
	}
	return 0;
}

int gmp_session__clock(struct gmp_session *s, const struct gmp_clock **out)
{
	int err = 0;
	if (!s->clock_built) {
		err = gmp_clock__new(s->r, &s->clock);
		s->clock_built = !err;
	}
	*out = s->clock;
	return err;
}

void gmp_session__close(struct gmp_session *s)
{
	if (s->notes && s->r && s->sym) {
		gmp_symnotes__add(s->notes, s->sym);
		gmp_wrapnotes__add(s->notes, &s->sites); /* -ENOMEM: the notes say so */
		gmp_fwnotes__add(s->notes, s->in.trace);
		gmp_tmanotes__add(s->notes, s->in.trace);
	}
	gmp_clock__free(s->clock);
	gmp_sites__release(&s->sites);
	gmp_symbolizer__free(s->sym);
	gmp_result__free(s->r);
	gmp_input__release(&s->in);
	gmp_suppress__release(&s->sup);
	memset(s, 0, sizeof(*s));
}

int gmp_output__write(const char *path, int force, int (*fn)(FILE *fp, void *ctx), void *ctx)
{
	struct gmp_outfile out;
	int err = gmp_outfile__open(&out, path, force);
	if (err) {
		gmp_output__perror(path, err);
		return -1;
	}
	if (gmp_gz__wanted(path)) {
		FILE *gz = gmp_gz__open(out.fp);
		if (!gz)
			err = -ENOMEM;
		else {
			err = fn(gz, ctx);
			if (fclose(gz) && !err)
				err = -EIO;
		}
	} else {
		err = fn(out.fp, ctx);
	}
	if (err) {
		gmp_outfile__abort(&out);
		if (err != GMP_OUTPUT_ABANDON)
			gmp_output__write_error(path, err);
		return -1;
	}
	if ((err = gmp_outfile__commit(&out))) {
		gmp_output__write_error(path, err);
		return -1;
	}
	return 0;
}
