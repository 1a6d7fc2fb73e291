/* SPDX-License-Identifier: MIT */
/*
 * Directed graphs in compressed sparse rows, and Kahn's algorithm with
 * levels as timestamps (the paper's section 5.3): a vertex's level is the
 * largest of (level(u) + weight(u)) over its predecessors u, 0 for
 * sources.  O(V + E).  A cycle is an error that names its vertices.
 */
#ifndef GMPROF_GRAPH_H
#define GMPROF_GRAPH_H

#include <stddef.h>
#include <stdint.h>

/* Adjacency: the neighbours of v are adj[off[v] .. off[v+1]). */
struct gmp_csr {
	uint32_t n;
	uint32_t *off; /* n + 1 entries */
	uint32_t *adj;
	size_t nadj, adj_cap;
	size_t off_cap;  /* while building incrementally */
	size_t cur;      /* first source of the vertex being built */
};

/* Builds a CSR of in-edges from (src, dst) pairs in any order. */
int gmp_csr__from_pairs(struct gmp_csr *in, uint32_t n, const uint32_t (*pairs)[2],
			size_t npairs);
void gmp_csr__release(struct gmp_csr *g);

/*
 * Incremental in-edge builder for graphs whose edges into v are all known
 * when v is added (vertices added in order): begin vertex, add sources,
 * repeat; duplicates of the last few sources are dropped.
 */
int gmp_csr__begin_vertex(struct gmp_csr *in, uint32_t v);
int gmp_csr__add_src(struct gmp_csr *in, uint32_t src);
int gmp_csr__finish(struct gmp_csr *in, uint32_t n);

#define GMP_CYCLE_MAX 16

struct gmp_cycle {
	uint32_t len;                   /* vertices in the cycle */
	uint32_t v[GMP_CYCLE_MAX];      /* the first GMP_CYCLE_MAX of them, in order */
};

/*
 * Computes level[v] for every vertex from the in-edge CSR.  weight may be
 * NULL (all 1).  Returns 0, -ENOMEM, or -ELOOP with *cycle filled.
 */
int gmp_graph__levels(const struct gmp_csr *in, const uint8_t *weight, uint32_t *level,
		      struct gmp_cycle *cycle);
/* The same, releasing *in as soon as it is no longer needed (less memory at peak). */
int gmp_graph__levels_consume(struct gmp_csr *in, const uint8_t *weight, uint32_t *level,
			      struct gmp_cycle *cycle);

#endif
