/* SPDX-License-Identifier: MIT */
/* What every benchmark program shares: fail loudly on any CUDA error. */
#ifndef GMPROF_BENCH_H
#define GMPROF_BENCH_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
	do {                                                                     \
		cudaError_t e_ = (call);                                         \
		if (e_ != cudaSuccess) {                                         \
			std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,  \
				     cudaGetErrorString(e_));                    \
			std::exit(1);                                            \
		}                                                                \
	} while (0)

#endif
