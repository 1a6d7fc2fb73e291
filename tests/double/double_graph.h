/* SPDX-License-Identifier: MIT */
/*
 * The test double's CUDA graphs (double_graph.c).  GMP_DOUBLE_GRAPH=1: a
 * replay's kernels, copies, sets and stream-ordered allocations and frees
 * come as the nodes of graph launches, as cudaGraphLaunch delivers them
 * (docs/sanitizer-api.md): one launch per run of them on one stream,
 * between GRAPHS LAUNCH_BEGIN and END callbacks naming that stream, each
 * node's own data naming a stream of the driver's that the program never
 * made (a kernel's and a copy's also name the launch's stream as their API
 * stream), and every launch and node first delivered as an upload
 * (isGraphUpload), which runs nothing.
 */
#ifndef GMPROF_DOUBLE_GRAPH_H
#define GMPROF_DOUBLE_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "sanitizer_api.h"

/* CUgraphNodeType values. */
enum { DOUBLE_NODE_KERNEL = 0, DOUBLE_NODE_MEMCPY = 1, DOUBLE_NODE_MEMSET = 2,
       DOUBLE_NODE_MEM_ALLOC = 10, DOUBLE_NODE_MEM_FREE = 11 };

struct gmp_trace;
struct live;

/*
 * 1 + its stream when event i of t comes as a graph's node, else 0: with
 * GMP_DOUBLE_GRAPH=1, a kernel, copy or set, or a stream-ordered allocation
 * or free (live: the objects live, for a free's kind).
 */
uint32_t double_graph_node_of(const struct gmp_trace *t, size_t i, const struct live *live, size_t nlive);
/*
 * The graph launch this replay has open: *open is 0 or 1 + its stream
 * number; want likewise.  Closes the open one when they differ, then opens
 * want's (an upload, then the launch), each with its stream's handles.
 */
void double_graph_switch(uint32_t *open, uint32_t want, CUstream stream, Sanitizer_StreamHandle hstream);
/*
 * Delivers n bytes of a node's data (a Sanitizer_LaunchData, MemcpyData,
 * MemsetData, ResourceMemoryData, or a freed address) as a node of type:
 * its upload, then (cbid NODE_LAUNCH_BEGIN or END) itself.
 */
void double_graph_node(int type, Sanitizer_CallbackId cbid, const void *data, size_t n);
/*
 * GMP_DOUBLE_GRAPH_MIX=1 (with GMP_DOUBLE_GRAPH=1), as an H100 did
 * (docs/sanitizer-api.md, CUDA graphs): consecutive kernel nodes of one
 * graph launch all begin before any runs, then all run into the callback
 * data set last (each one's own per-launch data replaced by the next
 * one's), then all end.  GMP_DOUBLE_GRAPH_MIX=2: each kernel node begins
 * and ends at once, but its kernel runs only when the program waits for
 * it (before a sync, a copy, a set or a free; past other graph launches
 * and plain allocations), into the data set last: a graph launch's nodes
 * may write into a later launch's buffers.  double_graph_hold keeps kernel
 * node i of graph (1 + its stream; begun) for double_graph_flush and
 * returns 1, or returns 0 without mixing; double_graph_flush runs the
 * nodes held (and, with 1, ends them); double_graph_holds_past says whether
 * they stay held past event i (want: the graph event i is a node of, or 0;
 * open: the graph launch open).
 */
int double_graph_hold(const struct gmp_trace *t, size_t i, uint32_t graph, const Sanitizer_LaunchData *ld);
void double_graph_flush(const struct gmp_trace *t);
int double_graph_holds_past(const struct gmp_trace *t, size_t i, uint32_t want, uint32_t open);
/*
 * Kernel i of t runs on its stream with the callback data the collector
 * set (sanitizer_double.c); first: the first kernel to run into that data
 * (which must hold no record of its launch yet).
 */
void double_kernel_runs(const struct gmp_trace *t, size_t i, const Sanitizer_LaunchData *ld, int first);

/*
 * GMP_DOUBLE_GRAPH_CROSS (with GMP_DOUBLE_GRAPH=1 and fake_app --threads 2):
 * the two threads' first kernels meet, as two threads of a program may.
 * plain: thread 2's work comes as plain calls, and its first launch begins
 * after thread 1's first kernel node began and before that node runs (its
 * function's callback data set by then); thread 2's kernel runs, then
 * thread 1's, then thread 2 goes on.  graph: the same with thread 2's work
 * as graphs too.  issuing: thread 2's plain launch begins first, thread 1's
 * node begins before thread 2's kernel runs, and runs after it.
 * double_graph_thread names the replaying thread (1, 2, ...);
 * double_graph_cross(stage) comes at each kernel's stages: 0 before its
 * launch begins, 1 after it began, 2 after it ran.
 */
void double_graph_thread(uint32_t no);
void double_graph_cross(int stage);

#endif
