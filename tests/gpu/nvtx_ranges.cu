// SPDX-License-Identifier: MIT
/*
 * NVTX ranges around the phases of a training step, pushed as frameworks
 * push them (nvtxRangePushA, nvtxRangePushEx, a domain's range named by a
 * registered string, as NVTX3_FUNC_RANGE names them), and one begun and
 * ended by id (nvtxRangeStartA, nvtxRangeEnd).  gmprof is
 * to name each call's ranges: the peak in "step > backward", the peak's
 * bytes by the ranges that allocated them (nvtx_ranges.report lists what
 * `gmprof report` must say), and no range for the calls outside every
 * range.  The findings are nvtx_ranges.expect, which is what the event
 * model nvtx_ranges.jsonl gives (make test checks that and the report's
 * lines).  `gmprof run` names the collector to NVTX (NVTX_INJECTION64_PATH).
 * The program names the legacy default stream (nvtxNameCudaStreamA), which
 * the profile must keep (nvtx_ranges.meta), and marks the step's start and
 * end (nvtxMarkA, and a domain's nvtxDomainMarkEx), which it must record
 * (nvtx_ranges.marks), with the 32 MiB of w and m live at each
 * (nvtx_ranges.report: "Memory at NVTX marks"), and two marks whose names
 * carry a counter, "epoch 1 done" and "epoch 2 done" (after m is freed: 16
 * MiB), of which the report says that --nvtx-numbers reads them as one.
 */
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "common.h"

static void push_ex(const char *name)
{
	nvtxEventAttributes_t a = {};
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = name;
	nvtxRangePushEx(&a);
}

int main()
{
	const size_t n = 4u << 20; /* 16 MiB of floats */
	const size_t bytes = n * sizeof(float);
	nvtxDomainHandle_t dom = nvtxDomainCreateA("trainer");
	nvtxNameCudaStreamA(0, "main"); /* META stream.0.name */
	nvtxRangePushA("setup");
	float *w, *m;
	CHECK(cudaMalloc(&w, bytes));
	CHECK(cudaMalloc(&m, bytes)); /* optimizer state: first used in step > optimizer */
	fill<<<blocks(n), 256>>>(w, n, 1.0f);
	nvtxRangePop();
	nvtxMarkA("step begins");
	nvtxRangePushA("step");
	push_ex("forward");
	float *act;
	CHECK(cudaMalloc(&act, bytes));
	add<<<blocks(n), 256>>>(act, w, w, n);
	nvtxRangePop();
	nvtxEventAttributes_t a = {};
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED; /* the collector's handle for the name */
	a.message.registered = nvtxDomainRegisterStringA(dom, "backward");
	/* Each domain keeps its own stack: the trainer's first range is its level 0, inside "step" (-2: no tool). */
	int level = nvtxDomainRangePushEx(dom, &a);
	if (level != 0 && level != NVTX_NO_PUSH_POP_TRACKING) {
		fprintf(stderr, "nvtx_ranges: the trainer domain's first range is not at its level 0\n");
		return 1;
	}
	float *g;
	CHECK(cudaMalloc(&g, bytes)); /* the peak: w, m, act and g */
	add<<<blocks(n), 256>>>(g, act, w, n);
	CHECK(cudaFree(act));
	nvtxDomainRangePop(dom);
	/* None of the trainer's open: -1, and "step" (the default domain's) stays open. */
	if ((level = nvtxDomainRangePop(dom)) != -1 && level != NVTX_NO_PUSH_POP_TRACKING) {
		fprintf(stderr, "nvtx_ranges: a pop of the trainer domain with none of its ranges open did not give -1\n");
		return 1;
	}
	nvtxRangeId_t optimizer = nvtxRangeStartA("optimizer"); /* the process's: ends by id */
	add<<<blocks(n), 256>>>(m, g, m, n);
	scale<<<blocks(n), 256>>>(w, n, 0.5f);
	CHECK(cudaFree(g));
	nvtxRangeEnd(optimizer);
	nvtxRangePop();
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "step ends";
	nvtxDomainMarkEx(dom, &a);
	nvtxMarkA("epoch 1 done"); /* names with a counter: the report says --nvtx-numbers folds them */
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(m));
	nvtxMarkA("epoch 2 done"); /* w alone live */
	CHECK(cudaFree(w));
	nvtxDomainDestroy(dom);
	return 0;
}
