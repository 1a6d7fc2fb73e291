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

int gmp_graph__levels(const struct gmp_csr *in, const uint8_t *weight, uint32_t *level,
		      struct gmp_cycle *cycle)
{
	uint32_t n = in->n;
	int err = -ENOMEM;
	uint32_t *indeg = calloc((size_t)n + 1, sizeof(*indeg));
	uint32_t *out_off = calloc((size_t)n + 1, sizeof(*out_off));
	uint32_t *out = malloc((in->nadj ? in->nadj : 1) * sizeof(*out));
	uint32_t *queue = malloc(((size_t)n + 1) * sizeof(*queue));
	if (!indeg || !out_off || !out || !queue)
		goto cleanup;
	/* Transpose in-edges into out-edges. */
	for (uint32_t v = 0; v < n; v++) {
		indeg[v] = in->off[v + 1] - in->off[v];
		for (uint32_t i = in->off[v]; i < in->off[v + 1]; i++)
			out_off[in->adj[i] + 1]++;
	}
	for (uint32_t v = 0; v < n; v++)
		out_off[v + 1] += out_off[v];
	for (uint32_t v = 0; v < n; v++)
		for (uint32_t i = in->off[v]; i < in->off[v + 1]; i++)
			out[out_off[in->adj[i]]++] = v;
	for (uint32_t v = n; v > 0; v--)
		out_off[v] = out_off[v - 1];
	out_off[0] = 0;

	size_t head = 0, tail = 0;
	for (uint32_t v = 0; v < n; v++) {
		level[v] = 0;
		if (indeg[v] == 0)
			queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		uint32_t lu = level[u] + (weight ? weight[u] : 1);
		for (uint32_t i = out_off[u]; i < out_off[u + 1]; i++) {
			uint32_t v = out[i];
			if (level[v] < lu)
				level[v] = lu;
			if (--indeg[v] == 0)
				queue[tail++] = v;
		}
	}
	if (tail < n) {
		find_cycle(in, indeg, cycle);
		err = -ELOOP;
	} else {
		err = 0;
	}
cleanup:
	free(indeg);
	free(out_off);
	free(out);
	free(queue);
	return err;
}
