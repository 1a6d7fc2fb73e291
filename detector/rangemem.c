// SPDX-License-Identifier: MIT
/*
 * Memory by NVTX range (rangemem_core.h): one walk over the events in the
 * topological order, following the live-bytes curve, charges each call's
 * device's live bytes to the range it was made in and to every range
 * around it; each object's allocation and free say which ranges it was
 * allocated in and which of those it outlived.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "oneline.h"
#include "rangemem_core.h"
#include "u64map.h"
#include "util.h"

void gmp_rmem__release(struct gmp_rmem *m)
{
	free(m->node);
	free(m->dev);
	free(m->tree);
	free(m->by_alloc);
	memset(m, 0, sizeof(*m));
}

/* Nodes for every prefix of every range path; path_node[p] the deepest of path p. */
static int make_nodes(struct gmp_rmem *m, const struct gmp_trace *t, uint32_t *path_node)
{
	struct gmp_u64map ids; /* (parent + 1) << 32 | name -> node */
	gmp_u64map__init(&ids);
	size_t cap = t->nrnames ? t->nrnames : 1; /* at most one node per name in a path */
	m->node = malloc(cap * sizeof(*m->node));
	if (!m->node)
		return -ENOMEM;
	path_node[0] = GMP_RMEM_ROOT;
	for (uint32_t p = 1; p <= t->npaths; p++) {
		const uint32_t *names;
		size_t k = gmp_trace__range_path(t, p, &names);
		uint32_t at = GMP_RMEM_ROOT;
		for (size_t i = 0; i < k; i++) {
			int is_new = 0;
			uint64_t key = ((uint64_t)(at + 1u) << 32) | names[i];
			uint32_t *slot = gmp_u64map__slot(&ids, key, (uint32_t)m->n, &is_new);
			if (!slot) {
				gmp_u64map__release(&ids);
				return -ENOMEM;
			}
			if (is_new)
				m->node[m->n++] = (struct gmp_rmem_node){
					.parent = at, .name = names[i], .depth = (uint32_t)i, .first = UINT32_MAX };
			at = *slot;
		}
		path_node[p] = at;
	}
	gmp_u64map__release(&ids);
	return 0;
}

size_t gmp_rmem__chain(const struct gmp_rmem *m, uint32_t k, uint32_t *out)
{
	size_t n = k == GMP_RMEM_ROOT ? 0 : m->node[k].depth + 1;
	for (size_t i = n; i > 0; i--, k = m->node[k].parent)
		out[i - 1] = k;
	return n;
}

/* Charges every object to the ranges of its allocation, and as outliving those its free is not in. */
static void charge_objects(struct gmp_rmem *m, const struct gmp_result *r, const uint32_t *path_node,
			   const uint8_t *counted)
{
	const struct gmp_trace *t = r->trace;
	uint32_t a[GMP_RANGE_DEPTH_MAX], f[GMP_RANGE_DEPTH_MAX];
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		size_t d = gmp_result__device_index(r, ob->device);
		if (!counted[ob->alloc_ev] || d == SIZE_MAX)
			continue;
		size_t na = gmp_rmem__chain(m, path_node[t->ev_range[ob->alloc_ev]], a), nf = 0;
		if (ob->free_ev != GMP_NO_EVENT)
			nf = gmp_rmem__chain(m, path_node[t->ev_range[ob->free_ev]], f);
		size_t common = 0;
		while (common < na && common < nf && a[common] == f[common])
			common++;
		for (size_t i = 0; i < na; i++) {
			struct gmp_rmem_dev *x = &m->dev[(size_t)a[i] * m->ndev + d];
			x->alloc_bytes += ob->size;
			x->alloc_objects++;
			if (i >= common) {
				x->outlive_bytes += ob->size;
				x->outlive_objects++;
			}
		}
	}
}

/*
 * The times ranges were entered: a thread's range change enters anew the
 * ranges past those its path kept (its names in common with the thread's
 * path before it: a pop and a push of the same name between two calls come
 * as two changes, the first without it).  Each time is a node and the time
 * around it; ev_time[i] is the innermost time event i was made in.
 */
struct times {
	struct rtime {
		uint32_t node, parent; /* parent: the time around it, UINT32_MAX at the top */
	} *v;
	size_t n, cap;
	uint32_t *ev_time;
};

struct thread_times {
	uint32_t path, depth;                 /* the thread's current path, and its length */
	uint32_t time[GMP_RANGE_DEPTH_MAX];   /* its times, outermost first */
};

static int find_times(const struct gmp_rmem *m, const struct gmp_trace *t, const uint32_t *path_node,
		      struct times *tm)
{
	struct gmp_u64map of; /* thread -> 1 + its index in th */
	struct thread_times *th = NULL;
	size_t nth = 0, thcap = 0, c = 0;
	int err = 0;
	gmp_u64map__init(&of);
	tm->ev_time = malloc((t->nev ? t->nev : 1) * sizeof(*tm->ev_time));
	if (!tm->ev_time)
		err = -ENOMEM;
	for (size_t i = 0; i <= t->nev && !err; i++) {
		for (; c < t->nrchg && t->rchg[c].before <= i && !err; c++) {
			int is_new = 0;
			uint32_t *slot = gmp_u64map__slot(&of, t->rchg[c].thread, 0, &is_new);
			if (!slot || (is_new && GMP_GROW(th, thcap, nth + 1))) {
				err = -ENOMEM;
				break;
			}
			if (is_new) {
				th[nth] = (struct thread_times){ 0 };
				*slot = (uint32_t)++nth;
			}
			struct thread_times *h = &th[*slot - 1];
			const uint32_t *a, *b;
			size_t na = gmp_trace__range_path(t, h->path, &a), nb = gmp_trace__range_path(t, t->rchg[c].path, &b);
			size_t kept = 0;
			while (kept < na && kept < nb && a[kept] == b[kept])
				kept++;
			uint32_t nodes[GMP_RANGE_DEPTH_MAX];
			gmp_rmem__chain(m, path_node[t->rchg[c].path], nodes);
			for (size_t j = kept; j < nb; j++) {
				if (GMP_GROW(tm->v, tm->cap, tm->n + 1)) {
					err = -ENOMEM;
					break;
				}
				tm->v[tm->n] = (struct rtime){ nodes[j], j ? h->time[j - 1] : UINT32_MAX };
				h->time[j] = (uint32_t)tm->n++;
			}
			h->path = t->rchg[c].path;
			h->depth = (uint32_t)nb;
		}
		if (err || i == t->nev)
			break;
		const struct gmp_event *e = &t->ev[i];
		if (gmp_event__in_kernel(e) && e->value < i) {
			tm->ev_time[i] = tm->ev_time[e->value]; /* as its launch (gmp_trace__settle_ranges) */
			continue;
		}
		const uint32_t *slot = gmp_u64map__get(&of, e->thread);
		const struct thread_times *h = slot ? &th[*slot - 1] : NULL;
		tm->ev_time[i] = h && h->depth ? h->time[h->depth - 1] : UINT32_MAX;
	}
	gmp_u64map__release(&of);
	free(th);
	return err;
}

/* A time on a device: its peak and the live bytes before its first call (seen: it has one). */
struct time_dev {
	uint64_t peak, entry;
	uint32_t first, seen;
};

/* Each node's times on each device, from each time's own numbers. */
static void sum_times(struct gmp_rmem *m, const struct times *tm, const struct time_dev *td)
{
	for (size_t i = 0; i < tm->n; i++)
		for (size_t d = 0; d < m->ndev; d++) {
			const struct time_dev *y = &td[i * m->ndev + d];
			if (!y->seen)
				continue;
			struct gmp_rmem_dev *x = &m->dev[(size_t)tm->v[i].node * m->ndev + d];
			if (!x->times || y->peak < x->time_peak_min)
				x->time_peak_min = y->peak;
			if (!x->times || y->first < x->first_pos) {
				x->first_pos = y->first;
				x->entry_first = y->entry;
			}
			if (!x->times || y->first > x->last_pos) {
				x->last_pos = y->first;
				x->entry_last = y->entry;
			}
			x->times++;
		}
}

/* The walk: each call's device's live bytes (and bytes in use) to its ranges, and to their times. */
static int charge_calls(struct gmp_rmem *m, const struct gmp_result *r, const uint32_t *path_node)
{
	const struct gmp_trace *t = r->trace;
	uint64_t *live = calloc(2 * m->ndev, sizeof(*live)), *inuse = live + m->ndev;
	size_t c = 0, u = 0;
	struct times tm = { 0 };
	int err = live ? find_times(m, t, path_node, &tm) : -ENOMEM;
	struct time_dev *td = err ? NULL : calloc(tm.n ? tm.n * m->ndev : 1, sizeof(*td));
	if (!td) {
		free(live);
		free(tm.v);
		free(tm.ev_time);
		return -ENOMEM;
	}
	for (size_t p = 0; p < t->nev; p++) {
		uint32_t ev = r->order[p];
		size_t d = gmp_result__device_index(r, t->ev[ev].device);
		uint64_t before = d < m->ndev ? live[d] : 0;
		for (; c < r->ncurve && r->curve[c].ev == ev; c++) {
			size_t cd = gmp_result__device_index(r, r->curve[c].device);
			if (cd < m->ndev)
				live[cd] = r->curve[c].live;
		}
		for (; u < r->ninuse_curve && r->inuse_curve[u].ev == ev; u++) {
			size_t cd = gmp_result__device_index(r, r->inuse_curve[u].device);
			if (cd < m->ndev)
				inuse[cd] = r->inuse_curve[u].live;
		}
		uint32_t k = path_node[t->ev_range[ev]];
		if (k == GMP_RMEM_ROOT || d >= m->ndev)
			continue;
		for (uint32_t i = tm.ev_time[ev]; i != UINT32_MAX; i = tm.v[i].parent) {
			struct time_dev *y = &td[(size_t)i * m->ndev + d];
			if (!y->seen) {
				y->seen = 1;
				y->first = (uint32_t)p;
				y->entry = before;
			}
			if (live[d] > y->peak)
				y->peak = live[d];
		}
		for (; k != GMP_RMEM_ROOT; k = m->node[k].parent) {
			struct gmp_rmem_dev *x = &m->dev[(size_t)k * m->ndev + d];
			if (m->node[k].first == UINT32_MAX)
				m->node[k].first = (uint32_t)p;
			x->calls++;
			if (x->peak_ev == GMP_NO_EVENT || live[d] > x->peak) {
				x->peak = live[d];
				x->peak_ev = ev;
			}
			if (inuse[d] > x->inuse_peak)
				x->inuse_peak = inuse[d];
		}
	}
	sum_times(m, &tm, td);
	free(td);
	free(tm.v);
	free(tm.ev_time);
	free(live);
	return 0;
}

static int cmp_first(const void *a, const void *b, void *ctx)
{
	const struct gmp_rmem *m = ctx;
	uint32_t x = m->node[*(const uint32_t *)a].first, y = m->node[*(const uint32_t *)b].first;
	return (x > y) - (x < y);
}

/* The nodes with calls, each after its parent, siblings by their first call: a depth-first walk. */
static int tree_order(struct gmp_rmem *m)
{
	uint32_t *kids = malloc((m->n ? m->n : 1) * sizeof(*kids));
	uint32_t *off = calloc(m->n + 2, sizeof(*off));
	uint32_t *stack = malloc((m->n ? m->n : 1) * sizeof(*stack));
	m->tree = malloc((m->n ? m->n : 1) * sizeof(*m->tree));
	if (!kids || !off || !stack || !m->tree) {
		free(kids);
		free(off);
		free(stack);
		return -ENOMEM;
	}
	/* Children lists by parent (the top as parent index m->n), sorted by first call. */
	for (size_t k = 0; k < m->n; k++)
		if (m->node[k].first != UINT32_MAX)
			off[(m->node[k].parent == GMP_RMEM_ROOT ? m->n : m->node[k].parent) + 1]++;
	for (size_t i = 1; i <= m->n + 1; i++)
		off[i] += off[i - 1];
	uint32_t *fill = stack; /* borrowed as a cursor per parent for the moment */
	for (size_t k = 0; k < m->n; k++)
		fill[k] = off[k];
	uint32_t top_fill = off[m->n];
	for (size_t k = 0; k < m->n; k++) {
		if (m->node[k].first == UINT32_MAX)
			continue;
		uint32_t p = m->node[k].parent;
		kids[p == GMP_RMEM_ROOT ? top_fill++ : fill[p]++] = (uint32_t)k;
	}
	for (size_t i = 0; i <= m->n; i++)
		qsort_r(kids + off[i], off[i + 1] - off[i], sizeof(*kids), cmp_first, m);
	size_t sp = 0;
	for (uint32_t i = off[m->n + 1]; i > off[m->n]; i--)
		stack[sp++] = kids[i - 1];
	while (sp) {
		uint32_t k = stack[--sp];
		m->tree[m->ntree++] = k;
		for (uint32_t i = off[k + 1]; i > off[k]; i--)
			stack[sp++] = kids[i - 1];
	}
	free(kids);
	free(off);
	free(stack);
	return 0;
}

/* The object allocated by event ev (objects are made in event order), or GMP_NO_OBJECT. */
static uint32_t object_of_alloc(const struct gmp_result *r, uint32_t ev)
{
	size_t lo = 0, hi = r->nobjects;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->objects[mid].alloc_ev < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nobjects && r->objects[lo].alloc_ev == ev ? (uint32_t)lo : GMP_NO_OBJECT;
}

/* Where a range was entered more than once: the counted objects in the order of their allocations (m->by_alloc). */
static int order_allocs(struct gmp_rmem *m, const struct gmp_result *r)
{
	int loops = 0;
	for (size_t i = 0; i < m->n * m->ndev && !loops; i++)
		loops = m->dev[i].times > 1;
	if (!loops)
		return 0;
	if (!(m->by_alloc = malloc((r->ncurve ? r->ncurve : 1) * sizeof(*m->by_alloc))))
		return -ENOMEM;
	for (size_t c = 0; c < r->ncurve; c++) { /* topological order: each alloc and free */
		uint32_t o = object_of_alloc(r, r->curve[c].ev);
		if (o != GMP_NO_OBJECT)
			m->by_alloc[m->nby_alloc++] = o;
	}
	return 0;
}

int gmp_rmem__build(const struct gmp_result *r, struct gmp_rmem *m)
{
	const struct gmp_trace *t = r->trace;
	memset(m, 0, sizeof(*m));
	if (!t->ev_range || !t->npaths || !r->ndevices)
		return 0;
	uint32_t *path_node = malloc((t->npaths + 1) * sizeof(*path_node));
	uint8_t *counted = calloc(t->nev ? t->nev : 1, 1);
	int err = path_node && counted ? make_nodes(m, t, path_node) : -ENOMEM;
	m->ndev = r->ndevices;
	if (!err && !(m->dev = calloc(m->n ? m->n * m->ndev : 1, sizeof(*m->dev))))
		err = -ENOMEM;
	if (!err) {
		for (size_t i = 0; i < m->n * m->ndev; i++)
			m->dev[i].peak_ev = GMP_NO_EVENT;
		for (size_t c = 0; c < r->ncurve; c++) /* the objects the peaks count: those on the curve */
			counted[r->curve[c].ev] = 1;
		charge_objects(m, r, path_node, counted);
		err = charge_calls(m, r, path_node);
		if (!err)
			err = tree_order(m);
		if (!err)
			err = order_allocs(m, r);
	}
	free(path_node);
	free(counted);
	return err;
}

const char *gmp_rmem__path(const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, char *buf, size_t n)
{
	uint32_t c[GMP_RANGE_DEPTH_MAX];
	size_t nc = gmp_rmem__chain(m, k, c), len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < nc && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? " > " : "", gmp_trace__str(r->trace, m->node[c[i]].name, NULL));
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

void gmp_rmem__grew_text(const struct gmp_rmem_dev *x, char *buf, size_t n)
{
	char a[32], b[32], c[32];
	snprintf(buf, n, "live bytes as it began grew from %s (the first of its %llu times) to %s (the last), "
		 "%s more each time", gmp_human_bytes(x->entry_first, a, sizeof(a)), (unsigned long long)x->times,
		 gmp_human_bytes(x->entry_last, b, sizeof(b)),
		 gmp_human_bytes(gmp_rmem__growth(x) / (x->times > 1 ? x->times - 1 : 1), c, sizeof(c)));
}

static int cmp_grown(const void *a, const void *b, void *ctx)
{
	const struct gmp_rmem *m = ctx;
	const struct gmp_rmem_grown *x = a, *y = b;
	if (x->growth != y->growth)
		return x->growth > y->growth ? -1 : 1;
	uint32_t px = gmp_rmem__at(m, x->node, x->d)->first_pos, py = gmp_rmem__at(m, y->node, y->d)->first_pos;
	if (px != py)
		return px > py ? 1 : -1;
	return (x->d > y->d) - (x->d < y->d);
}

int gmp_rmem__grown(const struct gmp_rmem *m, struct gmp_rmem_grown **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t k = 0;
	for (size_t i = 0; i < m->ntree; i++)
		for (size_t d = 0; d < m->ndev; d++)
			k += gmp_rmem__growth(gmp_rmem__at(m, m->tree[i], d)) != 0;
	if (!k)
		return 0;
	struct gmp_rmem_grown *v = malloc(k * sizeof(*v));
	if (!v)
		return -ENOMEM;
	k = 0;
	for (size_t i = 0; i < m->ntree; i++)
		for (size_t d = 0; d < m->ndev; d++) {
			uint64_t g = gmp_rmem__growth(gmp_rmem__at(m, m->tree[i], d));
			if (g)
				v[k++] = (struct gmp_rmem_grown){ m->tree[i], (uint32_t)d, g };
		}
	qsort_r(v, k, sizeof(*v), cmp_grown, (void *)m);
	*out = v;
	*n = k;
	return 0;
}

/* Whether event a comes before event b in the topological order (level, then index). */
static int before(const struct gmp_result *r, uint32_t a, uint32_t b)
{
	return r->level[a] < r->level[b] || (r->level[a] == r->level[b] && a < b);
}

int gmp_rmem__kept(const struct gmp_rmem *m, const struct gmp_result *r, uint32_t node, size_t d, uint32_t **out,
		   size_t *n)
{
	*out = NULL;
	*n = 0;
	const struct gmp_rmem_dev *x = gmp_rmem__at(m, node, d);
	if (x->times < 2 || x->first_pos >= x->last_pos || !m->by_alloc)
		return 0;
	uint32_t first = r->order[x->first_pos], last = r->order[x->last_pos];
	size_t lo = 0, hi = m->nby_alloc, cap = 0; /* the first allocation at or after the earliest time's first call */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(r, r->objects[m->by_alloc[mid]].alloc_ev, first))
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t *v = NULL;
	for (size_t i = lo; i < m->nby_alloc && before(r, r->objects[m->by_alloc[i]].alloc_ev, last); i++) {
		uint32_t o = m->by_alloc[i];
		const struct gmp_object *ob = &r->objects[o];
		if (ob->device != r->devices[d].device || (ob->free_ev != GMP_NO_EVENT && before(r, ob->free_ev, last)))
			continue; /* another device's, or freed before the latest time's first call */
		if (GMP_GROW(v, cap, *n + 1)) {
			free(v);
			*n = 0;
			return -ENOMEM;
		}
		v[(*n)++] = o;
	}
	*out = v;
	return 0;
}

const char *gmp_rmem__grown_line(const struct gmp_rmem *m, const struct gmp_result *r, const struct gmp_rmem_grown *g,
				 char *buf, size_t n)
{
	char path[1024], one[1024], what[256];
	gmp_rmem__grew_text(gmp_rmem__at(m, g->node, g->d), what, sizeof(what));
	const char *name = gmp_oneline(gmp_rmem__path(m, r, g->node, path, sizeof(path)), one, sizeof(one));
	snprintf(buf, n, "%s on device %u: %s", name, r->devices[g->d].device, what);
	return buf;
}
