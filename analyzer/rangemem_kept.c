// SPDX-License-Identifier: MIT
/*
 * What a range's times kept (gmp_rmem__kept), by allocation site: the
 * objects allocated since its earliest time began and live as its latest
 * began, grouped by the source line that allocated them (where it has
 * none, the object's label, or with none "no site"), the most bytes first.
 * It says where the memory
 * a training step keeps from one iteration to the next comes from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "oneline.h"
#include "rangemem.h"
#include "sites.h"

void gmp_rmem_kept__release(struct gmp_rmem_kept *k)
{
	for (size_t i = 0; i < k->nsites; i++)
		free(k->sites[i].site);
	free(k->sites);
	memset(k, 0, sizeof(*k));
}

static int by_name(const void *a, const void *b)
{
	const struct gmp_rmem_kept_site *x = a, *y = b;
	int c = strcmp(x->site, y->site);
	return c ? c : x->named - y->named;
}

static int by_bytes(const void *a, const void *b)
{
	const struct gmp_rmem_kept_site *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->site, y->site);
}

/* A kept object by what names its site: the call's "at" and stack, or its label (string ids; 0: none). */
struct keyed {
	uint32_t at, stack, label, obj;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	if (x->label != y->label)
		return x->label < y->label ? -1 : 1;
	return (x->obj > y->obj) - (x->obj < y->obj);
}

/*
 * The sites of the n kept objects of kv (sorted by key) into out: an entry
 * for each run of one key, its site named (and call path symbolized) once.
 */
static int group_keys(struct gmp_sites *sites, const struct gmp_result *r, const struct keyed *kv, size_t n,
		      struct gmp_rmem_kept *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct gmp_object *ob = &r->objects[kv[i].obj];
		const struct keyed *p = i ? &kv[i - 1] : NULL;
		if (!p || p->at != kv[i].at || p->stack != kv[i].stack || p->label != kv[i].label) { /* a new key */
			char name[160];
			const char *site = sites ? gmp_sites__event(sites, ob->alloc_ev, NULL) : NULL;
			struct gmp_rmem_kept_site *e = &out->sites[out->nsites];
			e->named = !site && kv[i].label;
			if (!site) /* its label; the unnamed ones together, as the reports' "no site" */
				site = kv[i].label ? gmp_result__object_name(r, kv[i].obj, name, sizeof(name)) : "no site";
			if (!(e->site = strdup(site)))
				return -ENOMEM;
			e->alloc_ev = ob->alloc_ev;
			out->nsites++;
		}
		struct gmp_rmem_kept_site *e = &out->sites[out->nsites - 1];
		e->bytes += ob->size;
		e->objects++;
		e->alloc_ev = ob->alloc_ev < e->alloc_ev ? ob->alloc_ev : e->alloc_ev;
		out->bytes += ob->size;
		out->objects++;
	}
	return 0;
}

int gmp_rmem__kept_sites(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_rmem *m, uint32_t node,
			 size_t d, struct gmp_rmem_kept *out)
{
	uint32_t *objs;
	size_t n;
	memset(out, 0, sizeof(*out));
	int err = gmp_rmem__kept(m, r, node, d, &objs, &n);
	if (!err)
		err = gmp_kept__sites(sites, r, objs, n, out);
	free(objs);
	return err;
}

int gmp_kept__sites(struct gmp_sites *sites, const struct gmp_result *r, const uint32_t *objs, size_t n,
		    struct gmp_rmem_kept *out)
{
	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	int err = 0;
	/* By key first, so that each call path is symbolized once however many objects it made. */
	struct keyed *kv = malloc(n * sizeof(*kv));
	if (kv && !(out->sites = calloc(n, sizeof(*out->sites))))
		err = -ENOMEM;
	for (size_t i = 0; kv && !err && i < n; i++) {
		const struct gmp_event *e = &r->trace->ev[r->objects[objs[i]].alloc_ev];
		kv[i] = (struct keyed){ e->at, e->stack, (e->flags & GMP_EF_HAS_LABEL) ? e->name : 0, objs[i] };
	}
	if (!kv || err) {
		free(kv);
		return -ENOMEM;
	}
	qsort(kv, n, sizeof(*kv), by_key);
	err = group_keys(sites, r, kv, n, out);
	free(kv);
	if (err)
		return err;
	/* Keys that name one site (two call paths to one line): merged; then the most bytes first. */
	qsort(out->sites, out->nsites, sizeof(*out->sites), by_name);
	size_t u = 0;
	for (size_t i = 0; i < out->nsites; i++) {
		if (u && !by_name(&out->sites[u - 1], &out->sites[i])) {
			out->sites[u - 1].bytes += out->sites[i].bytes;
			out->sites[u - 1].objects += out->sites[i].objects;
			if (out->sites[i].alloc_ev < out->sites[u - 1].alloc_ev)
				out->sites[u - 1].alloc_ev = out->sites[i].alloc_ev;
			free(out->sites[i].site);
			continue;
		}
		out->sites[u++] = out->sites[i];
	}
	out->nsites = u;
	qsort(out->sites, u, sizeof(*out->sites), by_bytes);
	return 0;
}

const char *gmp_rmem_kept__text(const struct gmp_rmem_kept *k, size_t max, char *buf, size_t n)
{
	return gmp_kept__text("live as its last time began, allocated since its first", k, max, buf, n);
}

const char *gmp_kept__text(const char *lead, const struct gmp_rmem_kept *k, size_t max, char *buf, size_t n)
{
	char a[32], one[256];
	size_t len = 0;
	int w = snprintf(buf, n, "%s: %s in %llu object%s, from ", lead, gmp_human_bytes(k->bytes, a, sizeof(a)),
			 (unsigned long long)k->objects, k->objects == 1 ? "" : "s");
	len = w > 0 ? (size_t)w : 0;
	for (size_t i = 0; i < k->nsites && i < max && len < n; i++) {
		int none = !k->sites[i].named && !strcmp(k->sites[i].site, "no site");
		w = snprintf(buf + len, n - len, "%s%s (%s in %llu)", i ? ", " : "",
			     none ? "objects with no source line" : gmp_oneline(k->sites[i].site, one, sizeof(one)),
			     gmp_human_bytes(k->sites[i].bytes, a, sizeof(a)), (unsigned long long)k->sites[i].objects);
		len += w > 0 ? (size_t)w : 0;
	}
	if (k->nsites > max && len < n)
		snprintf(buf + len, n - len, " and %zu more site%s", k->nsites - max, k->nsites - max == 1 ? "" : "s");
	return buf;
}

void gmp_rmem_kept__json(struct gmp_jw *jw, const char *key, const struct gmp_rmem_kept *k)
{
	gmp_jw__key(jw, key);
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "bytes", k->bytes);
	gmp_jw__ku64(jw, "objects", k->objects);
	gmp_jw__key(jw, "sites");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < k->nsites; i++) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, k->sites[i].named ? "object" : "site", k->sites[i].site);
		gmp_jw__ku64(jw, "bytes", k->sites[i].bytes);
		gmp_jw__ku64(jw, "objects", k->sites[i].objects);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	gmp_jw__obj_end(jw);
}
