/* SPDX-License-Identifier: MIT */
/*
 * What every benchmark program shares: fail loudly on any CUDA error, and
 * measure the native peak.  Every cudaMalloc goes through bench_malloc,
 * which samples the device memory in use (cudaMemGetInfo: device-wide, in
 * the driver's page granularity) before and after the call; at exit the
 * program prints the highest use above the first sample on standard error:
 *   bench: native peak N bytes
 * `make bench-gpu` compares that line between the unfixed and the -DFIXED
 * build of each program.
 */
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

static size_t bench_base_, bench_peak_;
static int bench_sampled_;

static void bench_report_(void)
{
	std::fprintf(stderr, "bench: native peak %zu bytes\n", bench_peak_);
}

static void bench_sample_(void)
{
	size_t free_b = 0, total_b = 0;
	if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
		return;
	size_t used = total_b - free_b;
	if (!bench_sampled_) {
		bench_sampled_ = 1;
		bench_base_ = used;
		std::atexit(bench_report_);
	}
	if (used > bench_base_ && used - bench_base_ > bench_peak_)
		bench_peak_ = used - bench_base_;
}

template <typename T> static inline cudaError_t bench_malloc(T **p, size_t bytes)
{
	bench_sample_();
	cudaError_t e = cudaMalloc(reinterpret_cast<void **>(p), bytes);
	bench_sample_();
	return e;
}

#define cudaMalloc bench_malloc

/*
 * BENCH_SCALE=k in the environment (1 when unset): every kernel repeats its
 * memory work k times within its launch, bench_repeated() ending each
 * repetition.  The program makes the same CUDA calls on the same objects
 * and each launch touches the same bytes, so its findings stay those of
 * its .expect file (intra mode counts k times as many accesses, spread
 * alike), while its kernels take about k times as long.  `make bench-gpu
 * SCALE=k` measures gmprof on runs long enough that its fixed cost per run
 * (loading the Sanitizer, patching modules) weighs as it would in a real
 * program; `make gpu-check` checks that a scaled run gives the same
 * findings and k times the counts.
 */
static int bench_scale_from_env_(void)
{
	const char *s = std::getenv("BENCH_SCALE");
	if (s == nullptr || *s == '\0')
		return 1;
	char *end = nullptr;
	long k = std::strtol(s, &end, 10);
	if (*end != '\0' || k < 1 || k > 100000) {
		std::fprintf(stderr, "bench: BENCH_SCALE must be a whole number from 1 to 100000, not '%s'\n", s);
		std::exit(2);
	}
	return (int)k;
}

static const int bench_scale = bench_scale_from_env_();

/* The end of one repetition: a fence, so that each repetition's loads and
 * stores reach memory.  An empty asm with a memory clobber stopped only the
 * front end: ptxas still kept one of a loop's stores of the same value to
 * the same address (an H100's intra-mode counts of bicg's and
 * gram_schmidt's initializing kernels were the same at BENCH_SCALE=2). */
__device__ __forceinline__ void bench_repeated(void)
{
	__threadfence_block();
}

#endif
