// SPDX-License-Identifier: MIT
/*
 * A capture range by NVTX name, a glob (gmprof run --capture 'nvtx:epoch
 * [23]', from capture_nvtx.capture): a "warmup" range, then a loop of
 * three epochs, each an NVTX range named by its number, as a training loop
 * names them.  Only the launches made inside "epoch 2" and "epoch 3" are
 * monitored (3 of the 5: the report's capture line, capture_nvtx.report):
 * fill w (warmup) and scale cold (epoch 1) are recorded with their
 * accesses unknown and count as a use of every object live when they were
 * issued.  x, allocated in epoch 1, could take cold's memory (a redundant
 * allocation): cold's last use is epoch 1's scale, which only the exact
 * accesses of epochs 2 and 3 show (launches outside the capture would
 * count as using cold too).  The findings are capture_nvtx.expect, what
 * the event model capture_nvtx.jsonl gives.
 */
#include <nvtx3/nvToolsExt.h>

#include "common.h"

int main()
{
	const size_t n = 4u << 20; /* 16 MiB of floats */
	const size_t bytes = n * sizeof(float);
	float *w, *x, *cold;
	CHECK(cudaMalloc(&w, bytes));
	CHECK(cudaMalloc(&cold, bytes));
	nvtxRangePushA("warmup");
	fill<<<blocks(n), 256>>>(w, n, 1.0f); /* not monitored */
	nvtxRangePop();
	for (int e = 1; e <= 3; e++) {
		char name[16];
		std::snprintf(name, sizeof(name), "epoch %d", e);
		nvtxRangePushA(name);
		if (e == 1) {
			scale<<<blocks(n), 256>>>(cold, n, 0.5f); /* not monitored */
			CHECK(cudaMalloc(&x, bytes));
		} else if (e == 2) {
			fill<<<blocks(n), 256>>>(x, n, 2.0f);
		} else {
			fill<<<blocks(n), 256>>>(x, n, 3.0f);
			add<<<blocks(n), 256>>>(x, x, w, n);
		}
		nvtxRangePop();
	}
	CHECK(cudaGetLastError());
	CHECK(cudaFree(x));
	CHECK(cudaFree(cold));
	CHECK(cudaFree(w));
	CHECK(cudaDeviceSynchronize());
	return 0;
}
