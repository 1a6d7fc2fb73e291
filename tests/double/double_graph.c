// SPDX-License-Identifier: MIT
/* The test double's CUDA graph launches (double_graph.h). */
#define _GNU_SOURCE
#include "double_graph.h"
#include "double_patch.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "double_calls.h"
#include "double_nvtx.h"
#include "gmprof/trace.h"

static int mode, mix;
enum { CROSS_PLAIN = 1, CROSS_GRAPH, CROSS_ISSUING };
static int cross;
static __thread uint32_t thread_no;

static void read_mode(void)
{
	const char *v = getenv("GMP_DOUBLE_GRAPH");
	mode = v && !strcmp(v, "1");
	v = getenv("GMP_DOUBLE_GRAPH_MIX");
	mix = mode && v && (!strcmp(v, "1") || !strcmp(v, "2")) ? *v - '0' : 0;
	v = getenv("GMP_DOUBLE_GRAPH_CROSS");
	cross = !mode || mix || !v ? 0 : !strcmp(v, "plain") ? CROSS_PLAIN : !strcmp(v, "graph") ? CROSS_GRAPH
		: !strcmp(v, "issuing") ? CROSS_ISSUING : 0;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

void double_graph_thread(uint32_t no)
{
	thread_no = no;
}

/* GMP_DOUBLE_GRAPH_CROSS: what the two threads' first kernels have reached (bits), under cross_lock. */
enum { HELD = 1, DONE = 2, RAN = 4, ISSUING = 8 };
static unsigned reached;
static pthread_mutex_t cross_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cross_cond = PTHREAD_COND_INITIALIZER;
static __thread int crossed; /* this thread's first kernel is past its meeting */

static void post(unsigned bit)
{
	pthread_mutex_lock(&cross_lock);
	reached |= bit;
	pthread_cond_broadcast(&cross_cond);
	pthread_mutex_unlock(&cross_lock);
}

/* Waits for the other thread to reach bit; aborts with a sentence after 10 s. */
static void wait_for(unsigned bit)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&cross_lock);
	int rc = 0;
	while (!(reached & bit) && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&cross_cond, &cross_lock, &until);
	pthread_mutex_unlock(&cross_lock);
	if (rc == ETIMEDOUT) {
		fprintf(stderr, "sanitizer double: GMP_DOUBLE_GRAPH_CROSS: thread %u waited 10 s for the other "
			"thread's first kernel\n", (unsigned)thread_no);
		abort();
	}
}

void double_graph_cross(int stage)
{
	pthread_once(&once, read_mode);
	if (!cross || crossed || (thread_no != 1 && thread_no != 2))
		return;
	const int first = thread_no == 1, issuing = cross == CROSS_ISSUING;
	switch (stage * 2 + !first) {
	case 0: /* thread 1, before its node begins */
		if (issuing)
			wait_for(ISSUING);
		break;
	case 1: /* thread 2, before its launch begins */
		if (!issuing)
			wait_for(HELD);
		break;
	case 2: /* thread 1's node began: its function's data set, not yet run */
		post(HELD);
		wait_for(DONE);
		break;
	case 3: /* thread 2's launch began */
		if (issuing) {
			post(ISSUING);
			wait_for(HELD);
		}
		break;
	case 4: /* thread 1's node ran */
		post(RAN);
		crossed = 1;
		break;
	default: /* thread 2's ran: thread 1's graph launch still holds the data until its node ran */
		post(DONE);
		if (!issuing)
			wait_for(RAN);
		crossed = 1;
	}
}

uint32_t double_graph_node_of(const struct gmp_trace *t, size_t i, const struct live *live, size_t nlive)
{
	pthread_once(&once, read_mode);
	const struct gmp_event *e = &t->ev[i];
	if (!mode || (e->flags & GMP_EF_IN_KERNEL) || (thread_no == 2 && (cross == CROSS_PLAIN || cross == CROSS_ISSUING)))
		return 0;
	int ok = e->op == GMP_OP_KERNEL || e->op == GMP_OP_MEMCPY || e->op == GMP_OP_MEMSET ||
		 (e->op == GMP_OP_ALLOC && e->kind == GMP_MEM_ASYNC);
	if (e->op == GMP_OP_FREE) { /* a stream-ordered allocation's, not a region's sharing its start */
		int async = 0, region = 0;
		for (size_t k = 0; k < nlive; k++)
			if (live[k].addr == e->addr) {
				async |= live[k].kind == GMP_MEM_ASYNC;
				region |= live[k].kind == GMP_MEM_POOL_REGION;
			}
		ok = async && !region;
	}
	return ok ? 1 + e->stream : 0;
}

static void bracket(Sanitizer_CallbackId cbid, CUstream stream, Sanitizer_StreamHandle hstream, int upload)
{
	Sanitizer_GraphLaunchData gl = { .context = DOUBLE_CTX, .stream = stream, .hStream = hstream,
					 .graphExec = (CUgraphExec)(uintptr_t)0x9000, .isGraphUpload = (uint32_t)upload };
	double_deliver(SANITIZER_CB_DOMAIN_GRAPHS, cbid, &gl);
}

static __thread CUstream open_stream;
static __thread Sanitizer_StreamHandle open_hstream;

void double_graph_switch(uint32_t *open, uint32_t want, CUstream stream, Sanitizer_StreamHandle hstream)
{
	if (*open == want)
		return;
	/* The runtime's call, and inside it the driver's, whose parameters are the graph and the stream. */
	if (*open) {
		const void *params[2] = { (void *)(uintptr_t)0x9000, open_stream };
		bracket(SANITIZER_CBID_GRAPHS_LAUNCH_END, open_stream, open_hstream, 0);
		double_api_params("cuGraphLaunch", params, SANITIZER_API_EXIT);
		double_api("cudaGraphLaunch", SANITIZER_API_EXIT);
		*open = 0;
	}
	if (!want)
		return;
	const void *params[2] = { (void *)(uintptr_t)0x9000, stream };
	bracket(SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN, stream, hstream, 1); /* cudaGraphUpload first */
	bracket(SANITIZER_CBID_GRAPHS_LAUNCH_END, stream, hstream, 1);
	double_api("cudaGraphLaunch", SANITIZER_API_ENTER);
	double_api_params("cuGraphLaunch", params, SANITIZER_API_ENTER);
	bracket(SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN, stream, hstream, 0);
	open_stream = stream;
	open_hstream = hstream;
	*open = want;
}

void double_graph_node(int type, Sanitizer_CallbackId cbid, const void *data, size_t n)
{
	Sanitizer_GraphNodeLaunchData gd = { .graphExec = (CUgraphExec)(uintptr_t)0x9000,
					     .node = (CUgraphNode)(uintptr_t)0xa000, .nodeType = type };
	if (n > sizeof(gd.launchData) && n > sizeof(gd.memcpyData))
		abort(); /* not a node's data */
	memcpy(&gd.launchData, data, n); /* the union's members share its start */
	if (cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) {
		gd.isGraphUpload = 1; /* what an upload delivers runs nothing */
		double_deliver(SANITIZER_CB_DOMAIN_GRAPHS, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN, &gd);
		double_deliver(SANITIZER_CB_DOMAIN_GRAPHS, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END, &gd);
		gd.isGraphUpload = 0;
	}
	double_launch_callback(type == DOUBLE_NODE_KERNEL); /* no patching in a kernel's callback */
	double_deliver(SANITIZER_CB_DOMAIN_GRAPHS, cbid, &gd);
	double_launch_callback(0);
}

/* GMP_DOUBLE_GRAPH_MIX: this thread's kernel nodes begun and not yet run (double_graph_hold). */
#define HELD 64
static __thread struct held {
	size_t i;
	Sanitizer_LaunchData ld;
} held[HELD];
static __thread size_t nheld;
static __thread uint32_t held_graph;

int double_graph_hold(const struct gmp_trace *t, size_t i, uint32_t graph, const Sanitizer_LaunchData *ld)
{
	if (!mix)
		return 0;
	if (nheld == HELD || (mix == 1 && nheld && held_graph != graph))
		double_graph_flush(t);
	held_graph = graph;
	held[nheld++] = (struct held){ i, *ld };
	if (mix == 2) /* it ends now; its kernel runs later */
		double_graph_node(DOUBLE_NODE_KERNEL, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END, ld, sizeof(*ld));
	return 1;
}

void double_graph_flush(const struct gmp_trace *t)
{
	for (size_t k = 0; k < nheld; k++)
		double_kernel_runs(t, held[k].i, &held[k].ld, k == 0);
	for (size_t k = 0; k < nheld && mix == 1; k++)
		double_graph_node(DOUBLE_NODE_KERNEL, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END, &held[k].ld,
				  sizeof(held[k].ld));
	nheld = 0;
}

int double_graph_holds_past(const struct gmp_trace *t, size_t i, uint32_t want, uint32_t open)
{
	if (!nheld || i >= t->nev)
		return 0;
	const struct gmp_event *e = &t->ev[i];
	if (mix == 1)
		return e->op == GMP_OP_KERNEL && want == open && held_graph == open;
	/* 2: past other graph launches' nodes and plain allocations, which wait for no kernel */
	return want || (e->op == GMP_OP_ALLOC && e->kind == GMP_MEM_DEVICE && !(e->flags & GMP_EF_IN_KERNEL));
}
