// SPDX-License-Identifier: MIT
/*
 * What an NVTX range costs a program that pushes one per operator (as
 * PyTorch's emit_nvtx does): nanoseconds per push and pop, through NVTX's
 * own loader, with whatever tool NVTX_INJECTION64_PATH names (none: NVTX's
 * stubs; gmprof's collector, whose ranges reach the profile only around
 * GPU calls, so here only its bookkeeping is timed).  Three shapes:
 *   default  pairs in the default domain, 4 ranges deep;
 *   under    the same with a range of another domain open beneath them
 *            (each domain keeps its own stack: the levels are counted);
 *   domain   pairs in that other domain (left out where
 *            GMPROF_NVTX_DOMAIN_EXCLUDE names it).
 * Prints "SHAPE NS_PER_PAIR" lines, the least of 5 rounds.  Usage:
 * nvtx_cost [PAIRS]
 */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per push and pop of n pairs under 3 ranges of the default domain, in domain d (NULL: the default). */
static double pairs(nvtxDomainHandle_t d, long n)
{
	static const char *const names[] = { "aten::mm", "aten::add", "aten::relu", "aten::conv2d" };
	nvtxEventAttributes_t a = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				    .messageType = NVTX_MESSAGE_TYPE_ASCII };
	nvtxRangePushA("train");
	nvtxRangePushA("step");
	nvtxRangePushA("forward");
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (d) {
			a.message.ascii = names[i & 3];
			nvtxDomainRangePushEx(d, &a);
			nvtxDomainRangePop(d);
		} else {
			nvtxRangePushA(names[i & 3]);
			nvtxRangePop();
		}
	}
	double ns = (now_ns() - t0) / (double)n;
	nvtxRangePop();
	nvtxRangePop();
	nvtxRangePop();
	return ns;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	if (n <= 0) {
		fprintf(stderr, "nvtx_cost: PAIRS must be a positive number, not '%s'\n", argv[1]);
		return 2;
	}
	nvtxDomainHandle_t lib = nvtxDomainCreateA("library");
	double best[3] = { 1e30, 1e30, 1e30 };
	for (int round = 0; round < 5; round++) {
		double t = pairs(NULL, n);
		best[0] = t < best[0] ? t : best[0];
		nvtxEventAttributes_t a = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
					    .messageType = NVTX_MESSAGE_TYPE_ASCII, .message.ascii = "collective" };
		nvtxDomainRangePushEx(lib, &a);
		t = pairs(NULL, n);
		nvtxDomainRangePop(lib);
		best[1] = t < best[1] ? t : best[1];
		t = pairs(lib, n);
		best[2] = t < best[2] ? t : best[2];
	}
	printf("default %.1f\nunder %.1f\ndomain %.1f\n", best[0], best[1], best[2]);
	return 0;
}
