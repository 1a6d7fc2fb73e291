// SPDX-License-Identifier: MIT
/* The readable form of a detector result, as `gmprof replay` prints it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "source.h"
#include "findings_json.h"
#include "memtime.h"
#include "sites.h"
#include "jw.h"

const char *gmp_text__device(const struct gmp_trace *t, uint32_t dev, char *buf, size_t n)
{
	const char *name = gmp_trace__device_name(t, dev);
	uint64_t mem = gmp_trace__device_memory(t, dev);
	int cc = gmp_trace__device_cc(t, dev);
	char m[32], c[40] = "";
	if (!name && !mem)
		return NULL;
	if (cc)
		snprintf(c, sizeof(c), "%scompute capability %d.%d", name ? ", " : "", cc / 10, cc % 10);
	snprintf(buf, n, "%s%s%s%s%s", name ? name : "", c, (name || cc) && mem ? ", " : "",
		 mem ? gmp_human_bytes(mem, m, sizeof(m)) : "", mem ? " of memory" : "");
	return buf;
}

uint64_t gmp_text__columns(const struct gmp_result *r, uint32_t device, const struct gmp_curve_point *pts,
			   size_t npts, uint64_t *col, uint32_t ncols)
{
	uint64_t levels = (uint64_t)r->max_level + 1, peak = 0, live = 0;
	size_t k = 0;
	for (uint32_t c = 0; c < ncols; c++) {
		uint64_t end = levels * (c + 1) / ncols, mx = live;
		for (; k < npts && r->level[pts[k].ev] < end; k++) {
			if (pts[k].device != device)
				continue;
			live = pts[k].live;
			mx = live > mx ? live : mx;
		}
		col[c] = mx;
		peak = mx > peak ? mx : peak;
	}
	return peak;
}

const char *gmp_text__metric(const struct gmp_finding *f, char *buf, size_t n)
{
	switch (f->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
	case GMP_PAT_LATE_DEALLOCATION:
	case GMP_PAT_REDUNDANT_ALLOCATION:
		snprintf(buf, n, "distance %" PRId32 ", %" PRIu32 " API%s between", f->distance,
			 f->apis_between, f->apis_between == 1 ? "" : "s");
		break;
	case GMP_PAT_TEMPORARY_IDLENESS:
		snprintf(buf, n, "%u idle range%s, the longest with %" PRIu32 " API%s between",
			 f->count, f->count == 1 ? "" : "s", f->apis_between,
			 f->apis_between == 1 ? "" : "s");
		break;
	case GMP_PAT_DEAD_WRITE:
	{
		char h[32];
		snprintf(buf, n, "%s dead (%" PRIu64 " bytes)", gmp_human_bytes(f->bytes, h, sizeof(h)),
			 f->bytes);
		break;
	}
	case GMP_PAT_OVERALLOCATION:
		snprintf(buf, n, "%.1f%% accessed, fragmentation %.1f%%", (double)f->accessed_pct,
			 (double)f->frag_pct);
		break;
	case GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY:
		snprintf(buf, n, "coefficient of variation %.1f%% in %u of %u launches",
			 (double)f->cv_pct, f->count, f->total);
		break;
	case GMP_PAT_STRUCTURED_ACCESS:
		snprintf(buf, n, "%u launches on disjoint slices", f->count);
		break;
	case GMP_PAT_MEMORY_LEAK:
		snprintf(buf, n, "never freed");
		break;
	default:
		snprintf(buf, n, "never used");
	}
	return buf;
}

static void one(FILE *fp, const struct gmp_result *r, const struct gmp_finding *f, size_t i,
		struct gmp_sites *sites, const struct gmp_clock *clock, struct gmp_source *src)
{
	char nb[160], ob[200], a[160], b[160], e1[200], e2[200], sz[32], s1[32], s2[32], s3[32];
	const struct gmp_object *o = &r->objects[f->object];
	fprintf(fp, "%3zu. %s: %s (%s)", i + 1, gmp_pattern__name(f->pattern),
		gmp_oneline(gmp_result__object_name(r, f->object, nb, sizeof(nb)), ob, sizeof(ob)),
		gmp_human_bytes(o->size, sz, sizeof(sz)));
	char m[160], w[160];
	fprintf(fp, ", %s", gmp_text__metric(f, m, sizeof(m)));
	if (*gmp_findings__waited(r, clock, f, w, sizeof(w)))
		fprintf(fp, ", %s", w);
	fputc('\n', fp);
	const char *at = sites ? gmp_sites__event(sites, o->alloc_ev, NULL) : NULL;
	char line[512];
	if (at)
		fprintf(fp, "     allocated at %s\n", gmp_oneline(at, line, sizeof(line)));
	const char *code = gmp_source__line(src, at, line, sizeof(line));
	if (code)
		fprintf(fp, "       | %s\n", code);
	if (f->ev_a != GMP_NO_EVENT && f->ev_b != GMP_NO_EVENT)
		fprintf(fp, "     %s -> %s\n",
			gmp_oneline(gmp_result__api_label(r, f->ev_a, a, sizeof(a)), e1, sizeof(e1)),
			gmp_oneline(gmp_result__api_label(r, f->ev_b, b, sizeof(b)), e2, sizeof(e2)));
	else if (f->ev_a != GMP_NO_EVENT)
		fprintf(fp, "     %s\n",
			gmp_oneline(gmp_result__api_label(r, f->ev_a, a, sizeof(a)), e1, sizeof(e1)));
	if (f->saving)
		fprintf(fp, "     saves %s at the peak%s (%s -> %s)\n",
			gmp_human_bytes(f->saving, s1, sizeof(s1)), gmp_finding__in_use(r, f) ? " in use" : "",
			gmp_human_bytes(gmp_finding__peak_before(r, f), s2, sizeof(s2)),
			gmp_human_bytes(gmp_finding__peak_after(r, f), s3, sizeof(s3)));
	char sugg[768];
	char sone[900];
	fprintf(fp, "     suggestion: %s\n",
		gmp_oneline(gmp_result__suggestion(r, f, sugg, sizeof(sugg)), sone, sizeof(sone)));
}

#define PLOT_W 64
#define PLOT_H 10

uint64_t gmp_text__ceiling(const struct gmp_trace *t, uint32_t dev, uint64_t peak)
{
	uint64_t mem = gmp_trace__device_memory(t, dev);
	return mem && peak >= mem / 2 ? mem : 0;
}

void gmp_text__plot(FILE *fp, const struct gmp_result *r, uint32_t device, const struct gmp_curve_point *pts,
		    size_t npts, int inuse)
{
	if (!npts || !r->trace->nev)
		return;
	uint64_t col[PLOT_W] = { 0 };
	int mark[PLOT_W] = { 0 };
	uint64_t levels = (uint64_t)r->max_level + 1;
	uint64_t peak = gmp_text__columns(r, device, pts, npts, col, PLOT_W);
	for (size_t p = 0; p < r->npeaks && !inuse; p++)
		if (r->peaks[p].device == device)
			/* The column gmp_text__columns puts that level in. */
			mark[(((uint64_t)r->level[r->peaks[p].ev] + 1) * PLOT_W + levels - 1) / levels - 1] = 1;
	if (!peak)
		return;
	/* The device's memory as the scale's top and a row of '-', where the peak comes within half of it. */
	uint64_t mem = inuse ? 0 : gmp_text__ceiling(r->trace, device, peak);
	uint64_t top = mem > peak ? mem : peak;
	int ceiling = mem ? (int)((mem * PLOT_H + top / 2) / top) : 0;
	char a[32];
	if (inuse)
		fprintf(fp, "\nBytes in use on device %u (pools counted by their regions) over the topological order\n",
			device);
	else
		fprintf(fp, "\nLive bytes on device %u over the topological order ('#' marks a peak%s)\n", device,
			ceiling ? ", '-' the device's memory" : "");
	for (int row = PLOT_H; row >= 1; row--) {
		fprintf(fp, "%10s |", row == PLOT_H ? gmp_human_bytes(top, a, sizeof(a)) : "");
		for (int c = 0; c < PLOT_W; c++) {
			uint64_t h = (col[c] * PLOT_H + top - 1) / top;
			fputc(h >= (uint64_t)row ? (mark[c] ? '#' : ':') : row == ceiling ? '-' : ' ', fp);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "%10s +", "0");
	for (int c = 0; c < PLOT_W; c++)
		fputc('-', fp);
	fprintf(fp, "\n%12s0%*s%" PRIu64 " levels\n", "", PLOT_W - 8, "", levels - 1);
}

static void pattern_counts(FILE *fp, const struct gmp_result *r)
{
	size_t n[GMP_PAT_COUNT] = { 0 };
	for (size_t i = 0; i < r->nfindings; i++)
		n[r->findings[i].pattern]++;
	for (unsigned p = 0; p < GMP_PAT_COUNT; p++)
		if (n[p])
			fprintf(fp, "  %-30s %zu\n", gmp_pattern__name(p), n[p]);
}

const char *gmp_text__unrecorded(const struct gmp_result *r, char *buf, size_t n)
{
	if (!r->nfails_unrecorded || !n)
		return "";
	snprintf(buf, n, "; the collector recorded the first %zu", r->trace->nfails);
	return buf;
}

void gmp_text__failure(FILE *fp, const struct gmp_result *r, size_t i, struct gmp_sites *sites,
		       const char *indent)
{
	const struct gmp_failure *g = &r->failures[i];
	const struct gmp_alloc_failure *f = &r->trace->fails[g->fail];
	char a[32], b[32], c[32], name[160];
	const char *site = sites ? gmp_sites__failure(sites, g->fail, NULL)
				 : f->at ? gmp_trace__str(r->trace, f->at, NULL) : NULL;
	char rg[256];
	gmp_trace__range_text(r->trace, f->range, rg, sizeof(rg));
	fprintf(fp, "%s%s of %s on device %u%s%s%s%s ran out of memory", indent,
		f->api ? gmp_trace__str(r->trace, f->api, NULL) : "an allocation",
		gmp_human_bytes(f->size, a, sizeof(a)), f->device, site ? " at " : "", site ? site : "",
		*rg ? " in " : "", rg);
	if (f->dev_total)
		fprintf(fp, " (%s free of %s)", gmp_human_bytes(f->dev_free, a, sizeof(a)),
			gmp_human_bytes(f->dev_total, b, sizeof(b)));
	fputc('\n', fp);
	if (g->retry_ev != GMP_NO_EVENT) {
		char api[160];
		const struct gmp_event *e = &r->trace->ev[g->retry_ev];
		const char *at = sites ? gmp_sites__event(sites, g->retry_ev, NULL)
				       : e->at ? gmp_trace__str(r->trace, e->at, NULL) : NULL;
		fprintf(fp, "%s  then got by a retry: %s%s%s\n", indent,
			gmp_result__api_label(r, g->retry_ev, api, sizeof(api)), at ? " at " : "", at ? at : "");
	}
	fprintf(fp, "%s  live then: %s in %" PRIu64 " object%s", indent,
		gmp_human_bytes(g->live_bytes, a, sizeof(a)), g->live_objects,
		g->live_objects == 1 ? "" : "s");
	for (uint32_t k = 0; k < g->obj_n && k < 3; k++) {
		uint32_t obj = r->fail_objs[g->obj_off + k];
		fprintf(fp, "%s %s %s", k ? "," : ":", gmp_result__object_name(r, obj, name, sizeof(name)),
			gmp_human_bytes(r->objects[obj].size, b, sizeof(b)));
	}
	fprintf(fp, "%s\n", g->live_objects > 3 ? ", ..." : "");
	/* What the device held beside the program's objects: what an out-of-memory puzzle often is. */
	uint64_t held = gmp_trace__held_beside(f, g->live_bytes);
	if (held)
		fprintf(fp, "%s  held beside them: %s of the device's %s (the CUDA context, libraries' own memory, "
			"gmprof's, other processes)\n", indent, gmp_human_bytes(held, a, sizeof(a)),
			gmp_human_bytes(f->dev_total, b, sizeof(b)));
	gmp_text__pool_cache(fp, r->trace, f, g->live_bytes, indent);
	if (!g->fix_n) {
		fprintf(fp, "%s  no finding's fix frees memory at that moment\n", indent);
		return;
	}
	fprintf(fp, "%s  fixing finding%s", indent, g->fix_n == 1 ? "" : "s");
	for (uint32_t k = 0; k < g->fix_n && k < 5; k++) {
		const struct gmp_failure_fix *x = &r->fail_fixes[g->fix_off + k];
		const struct gmp_finding *fd = &r->findings[x->finding];
		fprintf(fp, "%s %u (%s of %s)", k ? "," : "", x->finding + 1,
			gmp_pattern__name(fd->pattern),
			gmp_result__object_name(r, fd->object, name, sizeof(name)));
	}
	fprintf(fp, "%s frees %s then", g->fix_n > 5 ? " and more" : "",
		gmp_human_bytes(g->freeable, a, sizeof(a)));
	uint64_t room = g->freeable + f->dev_free;
	if (f->dev_total)
		fprintf(fp, "; with the %s free, %s", gmp_human_bytes(f->dev_free, c, sizeof(c)),
			gmp_human_bytes(room, a, sizeof(a)));
	fprintf(fp, ", %s the %s asked for\n", room >= f->size ? "more than" : "less than",
		gmp_human_bytes(f->size, b, sizeof(b)));
}

int gmp_text__pool_words(const struct gmp_trace *t, uint32_t device, char *buf, size_t n)
{
	const struct gmp_pool_state *ps = gmp_trace__pool_state_last(t, device);
	if (!ps || !n)
		return 0;
	char a[32], b[32], c[32];
	int k = snprintf(buf, n, "device %u: stream-ordered memory pool%s reserved at most %s, of which at most %s in use",
			 device, ps->pools == 1 ? "" : "s", gmp_human_bytes(ps->reserved_high, a, sizeof(a)),
			 gmp_human_bytes(ps->used_high, b, sizeof(b)));
	if (ps->threshold && k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, "; release threshold %s (what a sync leaves them)",
			 gmp_human_bytes(ps->threshold, c, sizeof(c)));
	return 1;
}

void gmp_text__pools(FILE *fp, const struct gmp_trace *t, uint32_t device, const char *indent)
{
	char w[256];
	if (gmp_text__pool_words(t, device, w, sizeof(w)))
		fprintf(fp, "%s%s\n", indent, w);
}

void gmp_text__pool_cache(FILE *fp, const struct gmp_trace *t, const struct gmp_alloc_failure *f, uint64_t live,
			  const char *indent)
{
	const struct gmp_pool_state *ps = gmp_trace__pool_state_at(t, f->before, f->device);
	uint64_t stale, cached = gmp_trace__pool_cached(t, f, live, &stale);
	char a[32], b[32];
	if (stale)
		fprintf(fp, "%s  stream-ordered memory pools: their counters still said %s cached, but the device's free "
			"memory had it back (the driver gives their cache back when an allocation fails): not in the way\n",
			indent, gmp_human_bytes(stale, a, sizeof(a)));
	if (!cached)
		return;
	fprintf(fp, "%s  cached by stream-ordered memory pools: %s (reserved on the device, in no object)",
		indent, gmp_human_bytes(cached, a, sizeof(a)));
	if (ps->threshold >= ps->reserved)
		fprintf(fp, "; their release threshold, %s, keeps it past a sync: cudaMemPoolTrimTo or a lower "
			"threshold gives it back", gmp_human_bytes(ps->threshold, b, sizeof(b)));
	else
		fprintf(fp, "; the next sync gives back what is above their release threshold, %s",
			gmp_human_bytes(ps->threshold, b, sizeof(b)));
	fputc('\n', fp);
}

void gmp_text__findings(FILE *fp, const struct gmp_result *r, const char *source, uint32_t top,
			struct gmp_sites *sites, const struct gmp_clock *clock, struct gmp_source *src)
{
	char sz[32];
	const struct gmp_trace *t = r->trace;
	fprintf(fp, "gmprof: %s: %zu events, %" PRIu64 " GPU APIs, %zu objects, %u levels\n",
		source, t->nev, r->napis, r->nobjects, t->nev ? r->max_level + 1 : 0);
	for (size_t i = 0; i < r->ndevices; i++) {
		char share[80];
		gmp_trace__device_share(t, r->devices[i].device, r->devices[i].peak_bytes, share, sizeof(share));
		fprintf(fp, "device %u: peak %s (%" PRIu64 " bytes%s%s)", r->devices[i].device,
			gmp_human_bytes(r->devices[i].peak_bytes, sz, sizeof(sz)), r->devices[i].peak_bytes,
			*share ? ", " : "", share);
		if (r->devices[i].inuse_peak_bytes) /* pools with regions */
			fprintf(fp, "; in use at most %s", gmp_human_bytes(r->devices[i].inuse_peak_bytes, sz, sizeof(sz)));
		fputc('\n', fp);
		gmp_text__pools(fp, t, r->devices[i].device, "");
	}
	for (size_t i = 0; i < r->nfailures; i++)
		gmp_text__failure(fp, r, i, sites, "");
	char note[64];
	if (r->nfails_total > r->nfailures)
		fprintf(fp, "... and %zu more allocations ran out of memory%s\n", r->nfails_total - r->nfailures,
			gmp_text__unrecorded(r, note, sizeof(note)));
	if (r->nsmall) {
		char b[32];
		fprintf(fp, "%zu finding%s on objects under %s left out (--min-size)\n", r->nsmall,
			r->nsmall == 1 ? "" : "s", gmp_human_bytes(r->min_bytes, b, sizeof(b)));
	}
	if (r->nmanaged)
		fprintf(fp, "%zu finding%s on managed objects left out: the host's use of managed memory is not seen "
			"(--managed-gpu-only)\n", r->nmanaged, r->nmanaged == 1 ? "" : "s");
	if (r->nshared)
		fprintf(fp, "%zu finding%s on memory shared between processes left out: the other process's use of it is "
			"not seen\n", r->nshared, r->nshared == 1 ? "" : "s");
	if (!r->nfindings) {
		fprintf(fp, "no findings\n");
		return;
	}
	size_t n = top && top < r->nfindings ? top : r->nfindings;
	fprintf(fp, "%zu finding%s", r->nfindings, r->nfindings == 1 ? "" : "s");
	if (n < r->nfindings) {
		fprintf(fp, ":\n");
		pattern_counts(fp, r);
		fprintf(fp, "the top %zu, ranked by what fixing them saves at the peak:\n", n);
	} else {
		fprintf(fp, ", ranked by what fixing %s saves at the peak:\n",
			r->nfindings == 1 ? "it" : "them");
	}
	for (size_t i = 0; i < n; i++)
		one(fp, r, &r->findings[i], i, sites, clock, src);
}

void gmp_text__markup(FILE *fp, const char *s)
{
	for (size_t n = s ? strlen(s) : 0; s && *s; s++, n--) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default:
			if (c >= 0x80) {
				/* A name or a path from the program can hold any bytes; XML parsers refuse invalid UTF-8. */
				size_t k = gmp_utf8__len((const unsigned char *)s, n);
				if (k) {
					fwrite(s, 1, k, fp);
					s += k - 1;
					n -= k - 1;
				} else {
					fputs("\xef\xbf\xbd", fp); /* U+FFFD */
				}
			} else if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
				fputc('?', fp); /* XML 1.0 allows no other control character */
			} else {
				fputc(c, fp);
			}
		}
	}
}

char *gmp_text__cell(const char *s, size_t width, char *buf, size_t n)
{
	size_t len = 0, chars = 0;
	if (!n)
		return buf;
	for (const unsigned char *p = (const unsigned char *)s; *p && chars < width;) {
		size_t k = *p >= 0x80 ? gmp_utf8__len(p, strlen((const char *)p)) : 1;
		k = k ? k : 1; /* a byte that is not UTF-8: one character, as a terminal shows it */
		if (len + k >= n)
			break;
		memcpy(buf + len, p, k);
		len += k;
		p += k;
		chars++;
	}
	for (; chars < width && len + 1 < n; chars++)
		buf[len++] = ' ';
	buf[len] = 0;
	return buf;
}
