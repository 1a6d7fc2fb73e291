// SPDX-License-Identifier: MIT
/*
 * Which callback data a launch's patches get: its own, per launch
 * (sanitizerSetLaunchCallbackData), or for a graph's kernel node under
 * GMPROF_GRAPH_NODE_DATA=function its function's (sanitizerSetCallbackData),
 * held until the graph launch ends.  On an H100 and an H200 two kernel nodes
 * of one graph launch given their buffers per launch both wrote into the
 * second one's; per function they kept apart (docs/sanitizer-api.md).
 *
 * A function's data is the process's, not the thread's.  So a graph node
 * takes it only when no other thread's graph launch holds it and no other
 * thread is issuing a launch of that function; otherwise the node gets its
 * buffer per launch, as under GMPROF_GRAPH_NODE_DATA=launch (a graph
 * launch with two or more such nodes counts in graph_shared_launches).  A
 * launch that another thread begins while a graph launch holds its
 * function's data is counted (META graph_data_crossed;
 * graph_data_crossed_bare: those with no data of their own, outside a
 * capture range or not set up), since whether the
 * Sanitizer gives such a launch its own data or the function's is not
 * known yet (docs/known-limits.md).  All of it with gmp_col.lock held,
 * except the Sanitizer's calls.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>

#include "device.h"

#define GRAPH_FNS 64   /* functions whose data one graph launch holds */
#define FN_USES 256    /* functions held or being issued, all threads */

static __thread CUfunction graph_fns[GRAPH_FNS]; /* this thread's graph launch set their data */
static __thread size_t ngraph_fns;
static __thread uint32_t launch_nodes;           /* its kernel nodes given their buffers per launch */
static __thread char self;                       /* its address names this thread */

/* A function whose data a thread's graph launch holds (held), or of which it issues n launches. */
static struct fn_use {
	CUfunction fn;
	const void *thread;
	uint32_t n;
	int held;
} uses[FN_USES];
static size_t nuses;
static uint64_t shared_launches, crossed, crossed_bare;

static int fn_mode(void)
{
	return gmp_col.opts.graph_fn_data && gmp_col.san.SetCallbackData;
}

/* Whether another thread holds fn's data (held) or issues a launch of it (!held). */
static int used_elsewhere(CUfunction fn, int held)
{
	for (size_t i = 0; i < nuses; i++)
		if (uses[i].fn == fn && uses[i].thread != &self && (held ? uses[i].held : uses[i].n > 0))
			return 1;
	return 0;
}

/* This thread's entry for fn, or NULL. */
static struct fn_use *own_use(CUfunction fn)
{
	for (size_t i = 0; i < nuses; i++)
		if (uses[i].fn == fn && uses[i].thread == &self)
			return &uses[i];
	return NULL;
}

/* This thread's entry for fn, made when new (NULL: the table is full). */
static struct fn_use *use_of(CUfunction fn)
{
	struct fn_use *u = own_use(fn);
	if (u || nuses == FN_USES)
		return u;
	uses[nuses] = (struct fn_use){ .fn = fn, .thread = &self };
	return &uses[nuses++];
}

static void drop_unused(void)
{
	size_t k = 0;
	for (size_t i = 0; i < nuses; i++)
		if (uses[i].held || uses[i].n)
			uses[k++] = uses[i];
	nuses = k;
}

void dev_graph_issuing(CUfunction fn, int begins)
{
	if (!fn_mode())
		return;
	struct fn_use *u = begins ? use_of(fn) : own_use(fn);
	if (!u || (!begins && !u->n))
		return; /* the table full at its begin: not counted then either */
	u->n = begins ? u->n + 1 : u->n - 1;
	if (!u->n && !u->held)
		drop_unused();
}

void dev_graph_launch_begins(struct gmp_launch_info *li)
{
	li->crossed = fn_mode() && nuses && used_elsewhere(li->function, 1);
	dev_graph_issuing(li->function, 1); /* in the same hold of the lock: no claim comes between */
}

void dev_graph_recorded(const struct gmp_launch_info *li, int monitored)
{
	crossed += li->crossed;
	crossed_bare += li->crossed && !monitored;
}

void dev_graph_choose_data(struct gmp_launch_info *li)
{
	li->fn_data = 0;
	if (!li->graph_node)
		return;
	if (fn_mode() && !li->crossed && !used_elsewhere(li->function, 0)) {
		size_t i = 0;
		while (i < ngraph_fns && graph_fns[i] != li->function)
			i++;
		struct fn_use *u = i < GRAPH_FNS ? use_of(li->function) : NULL;
		if (u) {
			u->held = 1;
			graph_fns[i] = li->function;
			ngraph_fns += i == ngraph_fns;
			li->fn_data = 1;
			return;
		}
	}
	launch_nodes++;
}

int dev_set_data(const struct gmp_launch_info *li, void *buf)
{
	if (li->fn_data)
		return dev_check(gmp_col.san.SetCallbackData(li->function, buf), "sanitizerSetCallbackData");
	return dev_check(gmp_col.san.SetLaunchCallbackData(li->hlaunch, li->function, li->hstream, buf),
			 "sanitizerSetLaunchCallbackData");
}

void dev_graph_launch_end(void)
{
	/* Kernel nodes launched together, each given its buffer per launch: their accesses may mix. */
	shared_launches += launch_nodes >= 2;
	launch_nodes = 0;
	if (!ngraph_fns)
		return;
	/* Taken back before they are let go: no other thread sets one meanwhile. */
	dev_unlock();
	for (size_t i = 0; i < ngraph_fns; i++)
		dev_check(gmp_col.san.SetCallbackData(graph_fns[i], NULL), "sanitizerSetCallbackData");
	dev_lock();
	for (size_t i = 0; i < ngraph_fns; i++) {
		struct fn_use *u = own_use(graph_fns[i]);
		if (u)
			u->held = 0;
	}
	ngraph_fns = 0;
	drop_unused();
}

static void meta(const char *key, uint64_t v)
{
	char n[24];
	if (!v)
		return;
	snprintf(n, sizeof(n), "%" PRIu64, v);
	rec_meta(key, n);
}

void dev_graph_meta(void)
{
	meta("graph_shared_launches", shared_launches);
	meta("graph_data_crossed", crossed);
	meta("graph_data_crossed_bare", crossed_bare);
}
