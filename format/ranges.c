// SPDX-License-Identifier: MIT
/*
 * NVTX range paths: interned lists of names, the changes of each host
 * thread's path in issue order, and each event's path derived from them.
 */
#include "ranges.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void gmp_trace__free_ranges(struct gmp_trace *t)
{
	free(t->rchg);
	free(t->rnames);
	free(t->rpath_off);
	free(t->ev_range);
	if (t->rpath_ids)
		gmp_u64map__release(t->rpath_ids);
	free(t->rpath_ids);
}

static uint64_t hash(const uint32_t *names, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ names[i]) * 1099511628211ull;
	return h == UINT64_MAX ? 0 : h; /* UINT64_MAX is the map's empty key */
}

size_t gmp_trace__range_path(const struct gmp_trace *t, uint32_t id, const uint32_t **names)
{
	if (id == 0 || id > t->npaths) {
		*names = NULL;
		return 0;
	}
	*names = t->rnames + t->rpath_off[id - 1];
	return t->rpath_off[id] - t->rpath_off[id - 1];
}

int64_t gmp_trace__add_range_path(struct gmp_trace *t, const uint32_t *names, size_t n)
{
	if (!n)
		return 0;
	if (n > GMP_RANGE_DEPTH_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		if (!names[i] || names[i] > gmp_trace__nstrings(t))
			return -EINVAL;
	if (!t->rpath_ids) {
		if (!(t->rpath_ids = malloc(sizeof(*t->rpath_ids))))
			return -ENOMEM;
		gmp_u64map__init(t->rpath_ids);
	}
	int is_new = 0;
	uint32_t *slot = gmp_u64map__slot(t->rpath_ids, hash(names, n), 0, &is_new);
	if (!slot)
		return -ENOMEM;
	const uint32_t *have;
	if (!is_new && gmp_trace__range_path(t, *slot, &have) == n && !memcmp(have, names, n * sizeof(*names)))
		return *slot;
	/* New (or a hash shared with another path: kept apart, the map keeps the first). */
	if (t->nrnames + n > UINT32_MAX || t->npaths >= UINT32_MAX - 1 ||
	    GMP_GROW(t->rnames, t->rnames_cap, t->nrnames + n) ||
	    GMP_GROW(t->rpath_off, t->rpaths_cap, t->npaths + 2))
		return -ENOMEM;
	if (!t->npaths)
		t->rpath_off[0] = 0;
	memcpy(t->rnames + t->nrnames, names, n * sizeof(*names));
	t->nrnames += n;
	t->rpath_off[++t->npaths] = (uint32_t)t->nrnames;
	if (is_new)
		*slot = (uint32_t)t->npaths;
	return (int64_t)t->npaths;
}

int gmp_trace__add_range_change(struct gmp_trace *t, uint64_t before, uint32_t thread,
				uint32_t path)
{
	if (before > t->nev || (t->nrchg && before < t->rchg[t->nrchg - 1].before) || path > t->npaths)
		return -EINVAL;
	if (GMP_GROW(t->rchg, t->rchg_cap, t->nrchg + 1))
		return -ENOMEM;
	t->rchg[t->nrchg++] = (struct gmp_range_change){ before, thread, path };
	return 0;
}

int gmp_trace__settle_ranges(struct gmp_trace *t)
{
	free(t->ev_range);
	t->ev_range = NULL;
	for (size_t i = 0; i < t->nfails; i++)
		t->fails[i].range = 0;
	if (!t->nrchg)
		return 0;
	struct gmp_u64map cur; /* thread -> its path */
	gmp_u64map__init(&cur);
	t->ev_range = calloc(t->nev ? t->nev : 1, sizeof(*t->ev_range));
	if (!t->ev_range)
		return -ENOMEM;
	size_t c = 0, f = 0;
	int err = 0;
	for (size_t i = 0; i <= t->nev && !err; i++) {
		for (; c < t->nrchg && t->rchg[c].before <= i; c++) {
			uint32_t *p = gmp_u64map__slot(&cur, t->rchg[c].thread, 0, NULL);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			*p = t->rchg[c].path;
		}
		for (; !err && f < t->nfails && t->fails[f].before <= i; f++) {
			const uint32_t *p = gmp_u64map__get(&cur, t->fails[f].thread);
			t->fails[f].range = p ? *p : 0;
		}
		if (err || i == t->nev)
			break;
		const struct gmp_event *e = &t->ev[i];
		if (gmp_event__in_kernel(e) && e->value < i) {
			t->ev_range[i] = t->ev_range[e->value]; /* read back later, on another thread */
			continue;
		}
		const uint32_t *p = gmp_u64map__get(&cur, e->thread);
		t->ev_range[i] = p ? *p : 0;
	}
	gmp_u64map__release(&cur);
	if (err) {
		free(t->ev_range);
		t->ev_range = NULL;
	}
	return err;
}

const char *gmp_trace__range_text(const struct gmp_trace *t, uint32_t id, char *buf, size_t n)
{
	const uint32_t *names;
	size_t k = gmp_trace__range_path(t, id, &names), len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < k && len + 1 < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? " > " : "", gmp_trace__str(t, names[i], NULL));
		if (w < 0)
			break;
		len += (size_t)w < n - len ? (size_t)w : n - len - 1;
	}
	return buf;
}

void gmp_range_stacks__init(struct gmp_range_stacks *st)
{
	memset(st, 0, sizeof(*st));
	gmp_u64map__init(&st->of);
}

void gmp_range_stacks__release(struct gmp_range_stacks *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->s[i].names);
	free(st->s);
	gmp_u64map__release(&st->of);
}

int gmp_range_stacks__change(struct gmp_range_stacks *st, struct gmp_trace *t, uint32_t thread,
			     uint32_t name, uint64_t before)
{
	int is_new = 0;
	uint32_t *slot = gmp_u64map__slot(&st->of, thread, 0, &is_new);
	if (!slot)
		return -ENOMEM;
	if (is_new) {
		if (GMP_GROW(st->s, st->cap, st->n + 1))
			return -ENOMEM;
		st->s[st->n] = (struct stack){ 0 };
		*slot = (uint32_t)++st->n;
	}
	struct stack *s = &st->s[*slot - 1];
	if (!name) {
		if (!s->n)
			return -ENOENT;
		s->n--;
	} else {
		if (s->n == GMP_RANGE_DEPTH_MAX)
			return -E2BIG;
		if (GMP_GROW(s->names, s->cap, s->n + 1))
			return -ENOMEM;
		s->names[s->n++] = name;
	}
	int64_t path = gmp_trace__add_range_path(t, s->names, s->n);
	if (path < 0)
		return (int)path;
	return gmp_trace__add_range_change(t, before, thread, (uint32_t)path);
}

/* The path tables of a trace, set aside while new ones are made. */
struct paths {
	uint32_t *rnames, *rpath_off;
	size_t nrnames, rnames_cap, npaths, rpaths_cap;
	struct gmp_u64map *rpath_ids;
};

static void swap_paths(struct gmp_trace *t, struct paths *p)
{
	struct paths was = { t->rnames, t->rpath_off, t->nrnames, t->rnames_cap, t->npaths, t->rpaths_cap,
			     t->rpath_ids };
	t->rnames = p->rnames;
	t->rpath_off = p->rpath_off;
	t->nrnames = p->nrnames;
	t->rnames_cap = p->rnames_cap;
	t->npaths = p->npaths;
	t->rpaths_cap = p->rpaths_cap;
	t->rpath_ids = p->rpath_ids;
	*p = was;
}

static void free_paths(struct paths *p)
{
	free(p->rnames);
	free(p->rpath_off);
	if (p->rpath_ids)
		gmp_u64map__release(p->rpath_ids);
	free(p->rpath_ids);
}

static uint32_t renamed(const uint32_t *map, size_t nmap, uint32_t k)
{
	return k < nmap ? map[k] : k;
}

/*
 * The range changes (rchg, n of them, of the old paths) made of the new
 * paths (pmap) into t->rchg (room for 2n).  A change from a path to another
 * that leaves the ranges past their common names (a pop of "epoch 1" and a
 * push of "epoch 2" between two calls) enters those anew: where the new
 * names make more of the two paths alike, a change to the common part
 * comes first, so that they are still entered anew, as a pop and a push of
 * the same range are written.  0 or -ENOMEM.
 */
static int renamed_changes(struct gmp_trace *t, const struct paths *old, const struct gmp_range_change *rchg,
			   size_t n, const uint32_t *pmap)
{
	struct gmp_u64map cur; /* thread -> its old path */
	int err = 0;
	gmp_u64map__init(&cur);
	for (size_t i = 0; i < n && !err; i++) {
		uint32_t *was = gmp_u64map__slot(&cur, rchg[i].thread, 0, NULL);
		if (!was) {
			err = -ENOMEM;
			break;
		}
		uint32_t a = *was, b = rchg[i].path, common[GMP_RANGE_DEPTH_MAX];
		const uint32_t *x, *y, *oa = a ? old->rnames + old->rpath_off[a - 1] : NULL,
				      *ob = b ? old->rnames + old->rpath_off[b - 1] : NULL;
		size_t na = a ? old->rpath_off[a] - old->rpath_off[a - 1] : 0;
		size_t nb = b ? old->rpath_off[b] - old->rpath_off[b - 1] : 0;
		size_t nx = gmp_trace__range_path(t, pmap[a], &x), ny = gmp_trace__range_path(t, pmap[b], &y);
		size_t kept = 0, kept_now = 0;
		while (kept < na && kept < nb && oa[kept] == ob[kept])
			kept++;
		while (kept_now < nx && kept_now < ny && x[kept_now] == y[kept_now])
			kept_now++;
		if (kept_now > kept) { /* enters anew what it entered anew before */
			memcpy(common, y, kept * sizeof(*y)); /* adding a path may move y */
			int64_t id = gmp_trace__add_range_path(t, common, kept);
			if (id < 0) {
				err = (int)id;
				break;
			}
			t->rchg[t->nrchg++] = (struct gmp_range_change){ rchg[i].before, rchg[i].thread, (uint32_t)id };
		}
		t->rchg[t->nrchg++] = (struct gmp_range_change){ rchg[i].before, rchg[i].thread, pmap[b] };
		*was = b;
	}
	gmp_u64map__release(&cur);
	return err;
}

int gmp_trace__rename_nvtx(struct gmp_trace *t, const uint32_t *map, size_t nmap)
{
	size_t ns = gmp_trace__nstrings(t);
	for (size_t k = 0; k < nmap; k++)
		if (k && (!map[k] || map[k] > ns))
			return -EINVAL;
	struct paths old = { 0 };
	swap_paths(t, &old); /* t: no paths; old: its paths */
	uint32_t *pmap = malloc((old.npaths + 1) * sizeof(*pmap));
	int err = pmap ? 0 : -ENOMEM;
	if (pmap)
		pmap[0] = 0;
	for (size_t p = 1; p <= old.npaths && !err; p++) {
		uint32_t names[GMP_RANGE_DEPTH_MAX];
		size_t n = old.rpath_off[p] - old.rpath_off[p - 1];
		for (size_t i = 0; i < n; i++)
			names[i] = renamed(map, nmap, old.rnames[old.rpath_off[p - 1] + i]);
		int64_t id = gmp_trace__add_range_path(t, names, n);
		err = id < 0 ? (int)id : 0;
		pmap[p] = (uint32_t)id;
	}
	if (err) {
		swap_paths(t, &old); /* t: its own paths again; old: the new ones */
		free_paths(&old);
		free(pmap);
		return err;
	}
	/* What settling changes, kept until it has succeeded. */
	uint32_t *ev_range = t->ev_range, *fails = t->nfails ? malloc(t->nfails * sizeof(*fails)) : NULL;
	struct gmp_range_change *rchg = t->rchg;
	size_t nrchg = t->nrchg;
	t->ev_range = NULL;
	t->rchg = nrchg ? malloc(2 * nrchg * sizeof(*t->rchg)) : NULL;
	t->nrchg = 0;
	if ((nrchg && !t->rchg) || (t->nfails && !fails))
		err = -ENOMEM;
	for (size_t i = 0; i < t->nfails && !err; i++)
		fails[i] = t->fails[i].range;
	if (!err)
		err = renamed_changes(t, &old, rchg, nrchg, pmap);
	if (!err)
		err = gmp_trace__settle_ranges(t);
	if (err) { /* all as it was */
		for (size_t i = 0; i < t->nfails && fails; i++)
			t->fails[i].range = fails[i];
		free(t->rchg);
		t->rchg = rchg;
		t->nrchg = nrchg;
		free(t->ev_range);
		t->ev_range = ev_range;
		swap_paths(t, &old);
	} else {
		t->rchg_cap = 2 * nrchg;
		free(rchg);
		free(ev_range);
	}
	free_paths(&old);
	free(pmap);
	free(fails);
	if (err)
		return err;
	for (size_t i = 0; i < t->nmarks; i++)
		t->marks[i].name = renamed(map, nmap, t->marks[i].name);
	return 0;
}
