// SPDX-License-Identifier: MIT
/* CSR graphs and Kahn's algorithm with levels and cycle reporting. */
#include "graph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void gmp_csr__release(struct gmp_csr *g)
{
	free(g->off);
	free(g->adj);
	memset(g, 0, sizeof(*g));
}

int gmp_csr__from_pairs(struct gmp_csr *in, uint32_t n, const uint32_t (*pairs)[2],
			size_t npairs)
{
	memset(in, 0, sizeof(*in));
	in->n = n;
	in->off = calloc((size_t)n + 1, sizeof(*in->off));
	in->adj = malloc((npairs ? npairs : 1) * sizeof(*in->adj));
	if (!in->off || !in->adj) {
		gmp_csr__release(in);
		return -ENOMEM;
	}
	for (size_t i = 0; i < npairs; i++) {
		if (pairs[i][0] >= n || pairs[i][1] >= n) {
			gmp_csr__release(in);
			return -EINVAL;
		}
		in->off[pairs[i][1] + 1]++;
	}
	for (uint32_t v = 0; v < n; v++)
		in->off[v + 1] += in->off[v];
	uint32_t *fill = malloc(((size_t)n + 1) * sizeof(*fill));
	if (!fill) {
		gmp_csr__release(in);
		return -ENOMEM;
	}
	memcpy(fill, in->off, ((size_t)n + 1) * sizeof(*fill));
	for (size_t i = 0; i < npairs; i++)
		in->adj[fill[pairs[i][1]]++] = pairs[i][0];
	free(fill);
	in->nadj = in->adj_cap = npairs;
	return 0;
}

int gmp_csr__begin_vertex(struct gmp_csr *in, uint32_t v)
{
	/* off[v] is the start of v's sources; off grows as vertices come. */
	if ((size_t)v + 2 > UINT32_MAX || GMP_GROW(in->off, in->off_cap, (size_t)v + 2))
		return -ENOMEM;
	if (in->nadj > UINT32_MAX)
		return -EOVERFLOW;
	in->off[v] = (uint32_t)in->nadj;
	in->cur = in->nadj;
	return 0;
}

int gmp_csr__add_src(struct gmp_csr *in, uint32_t src)
{
	/* Drop a repeat of the last three sources: stream and data edges often coincide. */
	size_t k = in->nadj;
	for (size_t back = 1; back <= 3 && k >= in->cur + back; back++) {
		if (in->adj[k - back] == src)
			return 0;
	}
	if (GMP_GROW(in->adj, in->adj_cap, in->nadj + 1))
		return -ENOMEM;
	in->adj[in->nadj++] = src;
	return 0;
}

int gmp_csr__finish(struct gmp_csr *in, uint32_t n)
{
	if (gmp_csr__begin_vertex(in, n))
		return -ENOMEM;
	in->n = n;
	return 0;
}

/* Finds one cycle among the vertices Kahn could not order (indeg > 0). */
static void find_cycle(const struct gmp_csr *in, const uint32_t *indeg, struct gmp_cycle *c)
{
	uint32_t n = in->n, start = 0;
	while (start < n && indeg[start] == 0)
		start++;
	uint32_t *seen = calloc(n, sizeof(*seen)); /* step at which v was visited, 0 = never */
	c->len = 0;
	if (!seen || start == n) {
		free(seen);
		return;
	}
	uint32_t v = start, step = 1;
	while (!seen[v]) {
		seen[v] = step++;
		/* Walk to a predecessor that is itself unordered: one always exists. */
		uint32_t next = v;
		for (uint32_t i = in->off[v]; i < in->off[v + 1]; i++) {
			if (indeg[in->adj[i]] > 0) {
				next = in->adj[i];
				break;
			}
		}
		v = next;
	}
	/* v is on the cycle; walking predecessors gives the cycle backwards. */
	uint32_t len = step - seen[v];
	c->len = len;
	uint32_t back[GMP_CYCLE_MAX];
	uint32_t k = 0, u = v;
	for (uint32_t s = 0; s < len; s++) {
		if (k < GMP_CYCLE_MAX)
			back[k++] = u;
		for (uint32_t i = in->off[u]; i < in->off[u + 1]; i++) {
			if (indeg[in->adj[i]] > 0) { /* the same choice as the first walk */
				u = in->adj[i];
				break;
			}
		}
	}
	/* Report in edge direction: each vertex has an edge to the next. */
	for (uint32_t i = 0; i < k; i++)
		c->v[i] = back[k - 1 - i];
	free(seen);
}

/* Builds the out-edge CSR of the in-edge CSR in. */
static int transpose(const struct gmp_csr *in, struct gmp_csr *out)
{
	uint32_t n = in->n;
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->off = calloc((size_t)n + 1, sizeof(*out->off));
	out->adj = malloc((in->nadj ? in->nadj : 1) * sizeof(*out->adj));
	if (!out->off || !out->adj) {
		gmp_csr__release(out);
		return -ENOMEM;
	}
	for (uint32_t v = 0; v < n; v++)
		for (uint32_t i = in->off[v]; i < in->off[v + 1]; i++)
			out->off[in->adj[i] + 1]++;
	for (uint32_t v = 0; v < n; v++)
		out->off[v + 1] += out->off[v];
	for (uint32_t v = 0; v < n; v++)
		for (uint32_t i = in->off[v]; i < in->off[v + 1]; i++)
			out->adj[out->off[in->adj[i]]++] = v;
	for (uint32_t v = n; v > 0; v--)
		out->off[v] = out->off[v - 1];
	out->off[0] = 0;
	out->nadj = out->adj_cap = in->nadj;
	return 0;
}

/*
 * Kahn's algorithm on out-edges; indeg holds in-degrees and is consumed.
 * Returns the number of vertices ordered.
 */
static uint32_t kahn(const struct gmp_csr *out, uint32_t *indeg, uint32_t *queue,
		     const uint8_t *weight, uint32_t *level)
{
	uint32_t n = out->n;
	size_t head = 0, tail = 0;
	for (uint32_t v = 0; v < n; v++) {
		level[v] = 0;
		if (indeg[v] == 0)
			queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		uint32_t lu = level[u] + (weight ? weight[u] : 1);
		for (uint32_t i = out->off[u]; i < out->off[u + 1]; i++) {
			uint32_t v = out->adj[i];
			if (level[v] < lu)
				level[v] = lu;
			if (--indeg[v] == 0)
				queue[tail++] = v;
		}
	}
	return (uint32_t)tail;
}

static int levels(struct gmp_csr *in, int consume, const uint8_t *weight, uint32_t *level,
		  struct gmp_cycle *cycle)
{
	uint32_t n = in->n;
	struct gmp_csr out;
	int err = transpose(in, &out);
	if (err)
		return err;
	uint32_t *indeg, *queue = malloc(((size_t)n + 1) * sizeof(*queue));
	if (consume) {
		/* The in-edges are spent: their offsets become the in-degrees. */
		free(in->adj);
		in->adj = NULL;
		in->nadj = in->adj_cap = 0;
		indeg = in->off;
		for (uint32_t v = 0; v < n; v++)
			indeg[v] = indeg[v + 1] - indeg[v];
	} else {
		indeg = malloc(((size_t)n + 1) * sizeof(*indeg));
		if (indeg)
			for (uint32_t v = 0; v < n; v++)
				indeg[v] = in->off[v + 1] - in->off[v];
	}
	if (!indeg || !queue) {
		err = -ENOMEM;
		goto out;
	}
	if (kahn(&out, indeg, queue, weight, level) < n) {
		err = -ELOOP;
		/* Name a cycle from the in-edges (rebuilt from the out-edges if spent). */
		struct gmp_csr back;
		const struct gmp_csr *preds = in;
		if (consume) {
			if (transpose(&out, &back)) {
				cycle->len = 0;
				goto out;
			}
			preds = &back;
		}
		find_cycle(preds, indeg, cycle);
		if (consume)
			gmp_csr__release(&back);
	}
out:
	if (!consume)
		free(indeg);
	free(queue);
	gmp_csr__release(&out);
	return err;
}

int gmp_graph__levels(const struct gmp_csr *in, const uint8_t *weight, uint32_t *level,
		      struct gmp_cycle *cycle)
{
	return levels((struct gmp_csr *)in, 0, weight, level, cycle);
}

int gmp_graph__levels_consume(struct gmp_csr *in, const uint8_t *weight, uint32_t *level,
			      struct gmp_cycle *cycle)
{
	return levels(in, 1, weight, level, cycle);
}
