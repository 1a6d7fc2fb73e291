// SPDX-License-Identifier: MIT
/*
 * A solver in the shape of Laghos: the state of the Lagrangian phase
 * (velocity, energy, a work vector) is allocated before the time loop and
 * freed only at exit, although the remap and output phases that follow
 * never touch it (late deallocation); the output buffer is allocated at
 * setup too (early allocation).  Built with -DFIXED, the phase state is
 * freed as the phase ends and the output buffer allocated when needed.
 * Expected findings: laghos_state.expect, which is what the detector finds
 * in the program's event model (models/laghos_state.jsonl).  Not yet run
 * on a GPU.
 */
#include "bench.h"

#define N (1 << 24)
#define STEPS 4
#define REMAPS 4

__global__ void init(float *p, size_t n, float v, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i < n; r++, bench_repeated())
		p[i] = v;
}

/* One explicit step of the Lagrangian phase (BENCH_SCALE of them). */
__global__ void step(float *x, float *v, float *e, float *work, size_t n, float dt, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int r = 0; r < scale; r++, bench_repeated()) {
		float f = -0.5f * x[i] + 0.1f * e[i];
		work[i] = f;
		v[i] += dt * f;
		x[i] += dt * v[i];
		e[i] -= dt * f * v[i];
	}
}

/* Remap: smooth the positions only. */
__global__ void remap(float *x, size_t n, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i > 0 && i + 1 < n; r++, bench_repeated())
		x[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}

__global__ void output(float *out, const float *x, size_t n, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i < n; r++, bench_repeated())
		out[i] = x[i] * 2.0f;
}

int main()
{
	const size_t n = N, bytes = n * sizeof(float);
	const unsigned b = (unsigned)((n + 255) / 256);
	float *x, *v, *e, *work, *out;
	CHECK(cudaMalloc(&x, bytes));                      /* obj#1 */
	CHECK(cudaMalloc(&v, bytes));                      /* obj#2 */
	CHECK(cudaMalloc(&e, bytes));                      /* obj#3 */
	CHECK(cudaMalloc(&work, bytes));                   /* obj#4 */
#ifndef FIXED
	CHECK(cudaMalloc(&out, bytes));                    /* obj#5: early */
#endif
	init<<<b, 256>>>(x, n, 1.0f, bench_scale);
	init<<<b, 256>>>(v, n, 0.0f, bench_scale);
	init<<<b, 256>>>(e, n, 1.0f, bench_scale);
	for (int s = 0; s < STEPS; s++)
		step<<<b, 256>>>(x, v, e, work, n, 0.01f, bench_scale);
#ifdef FIXED
	CHECK(cudaFree(v));
	CHECK(cudaFree(e));
	CHECK(cudaFree(work));
#endif
	for (int r = 0; r < REMAPS; r++)
		remap<<<b, 256>>>(x, n, bench_scale);
#ifdef FIXED
	CHECK(cudaMalloc(&out, bytes));
#endif
	output<<<b, 256>>>(out, x, n, bench_scale);
	float first;
	CHECK(cudaMemcpy(&first, out, sizeof(first), cudaMemcpyDeviceToHost));
	std::printf("out[0] = %g\n", first);
	CHECK(cudaFree(out));
	CHECK(cudaFree(x));
#ifndef FIXED
	CHECK(cudaFree(v));                                /* late */
	CHECK(cudaFree(e));                                /* late */
	CHECK(cudaFree(work));                             /* late */
#endif
	return 0;
}
