// SPDX-License-Identifier: MIT
/*
 * CUDA graph launches whose kernel nodes' accesses mixed.  The collector
 * numbers each graph launch and gives its kernel nodes that number
 * (gmp_event.graph).  On an H100 (2026-11-27) two kernel nodes of one
 * graph launch, each given a launch buffer of its own, both reported into
 * the last one's: the first node came back with no access, the second with
 * both nodes' (docs/sanitizer-api.md, CUDA graphs).  Which node made which
 * access is then unknown, so where a graph launch has a monitored kernel
 * node that reported no access and another that reported some, each of its
 * monitored kernel nodes counts as making every access any of them made,
 * on the objects live when it was issued.  That adds uses, and the data
 * dependencies they make: a finding on those objects may be missed, and
 * the distances early and late allocation measure may count calls a node
 * now waits for (another object of its launch allocated after the first's:
 * tests/gpu/graph_loop.cu), but no object a kernel of the launch used is
 * said to be unused or idle.  A graph launch whose every node
 * reported accesses of its own is taken as reported; so is a node that
 * reported none but called malloc() or free() (what it did to the memory
 * it allocated is never reported).  A kernel that truly touches no global
 * memory, beside one that does, makes its launch merged: only uses added.
 * A graph launch none of whose monitored kernel nodes reported an access
 * reported them elsewhere, as its nodes' buffers may be replaced by a later
 * launch's before its kernels run: its kernel nodes count as launches
 * whose accesses are unknown (unmonitored.c: a use of every object live
 * when each was issued; r->graph_lost).
 * Where the collector gave each kernel node its buffer per function (META
 * graph_node_data function, the default since 2026-11-30: on an H200 that
 * kept different kernels apart), only nodes of one kernel can share a
 * buffer (a kernel that runs as two nodes of the launch).  Then a node that
 * reported nothing shares the accesses of its kernel's other nodes, and
 * the launch's nodes of other kernels keep their own; where none of that
 * kernel's nodes reported any, they share the whole launch's, as above.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

struct member {
	uint32_t graph, ev;      /* once plan has kept a merged launch's node: graph is its union's index */
	uint32_t kernel;         /* its kernel's name, where nodes got their buffers per function; else 0 */
	int empty;               /* it reported no access (nor heap work, which is never reported) */
};

static int by_graph(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	if (x->graph != y->graph)
		return x->graph < y->graph ? -1 : 1;
	if (x->kernel != y->kernel)
		return x->kernel < y->kernel ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int by_ev(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int by_addr(const void *a, const void *b)
{
	const struct gmp_access *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int monitored_node(const struct gmp_event *e)
{
	return e->op == GMP_OP_KERNEL && e->graph && (e->flags & GMP_EF_ACCESS_KNOWN);
}

static int by_u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/*
 * Kernel nodes that called malloc() or free(): their accesses to what they
 * allocate are never reported (resolve.c, heap()), so one may report none
 * and still have done something.  Sorted event indices into *out.
 */
static int heap_kernels(const struct gmp_trace *t, uint32_t **out, size_t *n)
{
	size_t k = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < t->nev; i++) {
		const struct gmp_event *e = &t->ev[i];
		if (!gmp_event__in_kernel(e) || e->value >= t->nev || !monitored_node(&t->ev[e->value]))
			continue;
		if (GMP_GROW(*out, cap, k + 1))
			return -ENOMEM;
		(*out)[k++] = (uint32_t)e->value;
	}
	if (k)
		qsort(*out, k, sizeof(**out), by_u32);
	*n = k;
	return 0;
}

/* The accesses and touches of members m[0..k) into g->u, sorted by address, one entry per address. */
static int add_union(const struct gmp_trace *t, const struct member *m, size_t k, struct det_graphs *g,
		     size_t *cap)
{
	size_t start = g->nu;
	for (size_t i = 0; i < k; i++) {
		const struct gmp_event *e = &t->ev[m[i].ev];
		if (GMP_GROW(g->u, *cap, g->nu + e->acc_n + e->touch_n))
			return -ENOMEM;
		for (uint32_t j = 0; j < e->acc_n; j++)
			g->u[g->nu++] = t->acc[e->acc_off + j];
		for (uint32_t j = 0; j < e->touch_n; j++) { /* its first byte names its object */
			const struct gmp_touch *tc = &t->touch[e->touch_off + j];
			g->u[g->nu++] = (struct gmp_access){ .addr = tc->addr, .rw = tc->rw };
		}
	}
	if (g->nu == start)
		return 0; /* no member made an access (only in-kernel heap work): g->u may be unallocated */
	qsort(g->u + start, g->nu - start, sizeof(*g->u), by_addr);
	size_t w = start;
	for (size_t i = start; i < g->nu; i++) {
		if (w > start && g->u[w - 1].addr == g->u[i].addr)
			g->u[w - 1].rw |= g->u[i].rw;
		else
			g->u[w++] = g->u[i];
	}
	g->nu = w;
	return 0;
}

/* A union of members m[0..k) as group g->ngroups (its members are the caller's to add). */
static int new_group(const struct gmp_trace *t, const struct member *m, size_t k, struct det_graphs *g,
		     size_t *ucap, size_t *offcap)
{
	if (GMP_GROW(g->uoff, *offcap, g->ngroups + 2))
		return -ENOMEM;
	g->uoff[g->ngroups] = (uint32_t)g->nu;
	if (add_union(t, m, k, g, ucap))
		return -ENOMEM;
	g->uoff[g->ngroups + 1] = (uint32_t)g->nu;
	g->ngroups++;
	return 0;
}

/*
 * The merged launches' members: (event, union) in g->ev and g->grp, from
 * m, sorted by launch and kernel (0 for every node but per function), n of
 * them, out room for as many.
 */
static int plan(const struct gmp_trace *t, const struct member *m, size_t n, struct member *out, struct det_graphs *g)
{
	size_t ucap = 0, kept = 0, offcap = 0, lostcap = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i, empty = 0;
		for (; j < n && m[j].graph == m[i].graph; j++)
			empty += m[j].empty;
		if (empty == j - i) { /* none reported anything: its kernels' accesses are unknown */
			if (GMP_GROW(g->lost, lostcap, g->nlost + empty))
				return -ENOMEM;
			for (size_t k = i; k < j; k++)
				g->lost[g->nlost++] = m[k].ev;
			g->nlost_launches++;
		} else if (empty) { /* some node reported nothing, another something */
			int whole = -1; /* the whole launch's union, made once if a kernel needs it */
			for (size_t a = i, b; a < j; a = b) {
				size_t e = 0;
				for (b = a; b < j && m[b].kernel == m[a].kernel; b++)
					e += m[b].empty;
				if (!e)
					continue; /* its nodes reported theirs (a kernel of its own buffer) */
				if (e < b - a || !m[a].kernel) { /* its nodes share their union */
					if (new_group(t, m + a, b - a, g, &ucap, &offcap))
						return -ENOMEM;
					for (size_t k = a; k < b; k++)
						out[kept++] = (struct member){ .graph = (uint32_t)g->ngroups - 1, .ev = m[k].ev };
					continue;
				}
				if (whole < 0) { /* none of its nodes reported: they share the launch's */
					if (new_group(t, m + i, j - i, g, &ucap, &offcap))
						return -ENOMEM;
					whole = (int)g->ngroups - 1;
				}
				for (size_t k = a; k < b; k++)
					out[kept++] = (struct member){ .graph = (uint32_t)whole, .ev = m[k].ev };
			}
			g->nmerged++;
		}
		i = j;
	}
	if (g->nlost)
		qsort(g->lost, g->nlost, sizeof(*g->lost), by_u32);
	if (!kept)
		return 0;
	qsort(out, kept, sizeof(*out), by_ev);
	g->ev = malloc(kept * sizeof(*g->ev));
	g->grp = malloc(kept * sizeof(*g->grp));
	if (!g->ev || !g->grp)
		return -ENOMEM;
	for (size_t k = 0; k < kept; k++) {
		g->ev[k] = out[k].ev;
		g->grp[k] = out[k].graph;
	}
	g->n = kept;
	return 0;
}

int det_graphs_plan(const struct gmp_trace *t, struct det_graphs *g)
{
	*g = (struct det_graphs){ 0 };
	size_t n = 0;
	for (size_t i = 0; i < t->nev; i++)
		n += monitored_node(&t->ev[i]);
	if (!n)
		return 0;
	struct member *m = malloc(2 * n * sizeof(*m)); /* the nodes, then room for those kept */
	if (!m)
		return -ENOMEM;
	uint32_t *heap = NULL; /* kernel nodes that called malloc() or free(): not empty though they report none */
	size_t nh = 0;
	int err = heap_kernels(t, &heap, &nh);
	const char *data = gmp_trace__meta(t, "graph_node_data");
	const int per_fn = data && !strcmp(data, "function");
	n = 0;
	for (uint32_t i = 0; !err && i < t->nev; i++) {
		const struct gmp_event *e = &t->ev[i];
		if (monitored_node(e))
			m[n++] = (struct member){ .graph = e->graph, .ev = i, .kernel = per_fn ? e->name : 0,
						  .empty = !e->acc_n && !e->touch_n &&
							   !(nh && bsearch(&i, heap, nh, sizeof(*heap), by_u32)) };
	}
	qsort(m, n, sizeof(*m), by_graph);
	if (!err)
		err = plan(t, m, n, m + n, g);
	free(heap);
	free(m);
	if (err)
		det_graphs_release(g);
	return err;
}

const struct gmp_access *det_graphs_union(struct det_graphs *g, uint32_t v, uint32_t *n)
{
	while (g->next < g->n && g->ev[g->next] < v)
		g->next++;
	if (g->next == g->n || g->ev[g->next] != v)
		return NULL;
	uint32_t k = g->grp[g->next++];
	*n = g->uoff[k + 1] - g->uoff[k];
	static const struct gmp_access none[1];
	return *n ? g->u + g->uoff[k] : none; /* an empty union: g->u may be unallocated */
}

int det_graph_lost(const struct gmp_result *r, uint32_t ev)
{
	return r->ngraph_lost && bsearch(&ev, r->graph_lost, r->ngraph_lost, sizeof(ev), by_u32) != NULL;
}

void det_graphs_release(struct det_graphs *g)
{
	free(g->lost);
	free(g->ev);
	free(g->grp);
	free(g->u);
	free(g->uoff);
	*g = (struct det_graphs){ 0 };
}
