// SPDX-License-Identifier: MIT
/*
 * A layer set up in the shape of Darknet's: the weights are zeroed on the
 * GPU and then overwritten by the trained weights copied from the host
 * before anything reads them (dead write); a
 * workspace is allocated and never used (unused allocation); every buffer
 * is allocated at setup, long before the forward pass (early allocation).
 * Built with -DFIXED: no zeroing, no workspace, buffers allocated just
 * before use.  Expected findings: darknet_layer.expect, which is what the
 * detector finds in the program's event model (models/darknet_layer.jsonl).
 * Its run on an H100 (2026-11-23) gave them exactly: tests/data/gpu/darknet_layer.gmprof.
 */
#include <vector>
#include "bench.h"

#define IN 4096
#define OUT 4096
#define BATCH 256

__global__ void fill(float *p, size_t n, float v, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i < n; r++, bench_repeated())
		p[i] = v;
}

/* out[b][o] = bias[o] + sum_i w[o][i] * in[b][i] */
__global__ void forward(float *out, const float *w, const float *bias, const float *in, int scale)
{
	int o = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
	if (o >= OUT)
		return;
	for (int r = 0; r < scale; r++, bench_repeated()) {
		float s = bias[o];
		for (int i = 0; i < IN; i++)
			s += w[(size_t)o * IN + i] * in[(size_t)b * IN + i];
		out[(size_t)b * OUT + o] = s;
	}
}

static unsigned blocks(size_t n) { return (unsigned)((n + 255) / 256); }

int main()
{
	const size_t nw = (size_t)IN * OUT, nin = (size_t)BATCH * IN, nout = (size_t)BATCH * OUT;
	std::vector<float> trained(nw, 0.01f), input(nin, 1.0f), result(nout);
	float *w, *bias, *in, *out;
#ifndef FIXED
	float *workspace;
	CHECK(cudaMalloc(&w, nw * sizeof(float)));                 /* obj#1: dead write */
	CHECK(cudaMalloc(&bias, OUT * sizeof(float)));             /* obj#2 */
	CHECK(cudaMalloc(&workspace, nw * sizeof(float)));         /* obj#3: never used */
	CHECK(cudaMalloc(&in, nin * sizeof(float)));               /* obj#4: early */
	CHECK(cudaMalloc(&out, nout * sizeof(float)));             /* obj#5: early */
	CHECK(cudaMemset(w, 0, nw * sizeof(float)));               /* overwritten below, unread */
	fill<<<blocks(OUT), 256>>>(bias, OUT, 0.1f, bench_scale);
	CHECK(cudaMemcpy(w, trained.data(), nw * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(in, input.data(), nin * sizeof(float), cudaMemcpyHostToDevice));
	forward<<<dim3(OUT / 256, BATCH), 256>>>(out, w, bias, in, bench_scale);
	CHECK(cudaMemcpy(result.data(), out, nout * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(w));
	CHECK(cudaFree(bias));
	CHECK(cudaFree(workspace));
	CHECK(cudaFree(in));
	CHECK(cudaFree(out));
#else
	CHECK(cudaMalloc(&w, nw * sizeof(float)));
	CHECK(cudaMemcpy(w, trained.data(), nw * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&bias, OUT * sizeof(float)));
	fill<<<blocks(OUT), 256>>>(bias, OUT, 0.1f, bench_scale);
	CHECK(cudaMalloc(&in, nin * sizeof(float)));
	CHECK(cudaMemcpy(in, input.data(), nin * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&out, nout * sizeof(float)));
	forward<<<dim3(OUT / 256, BATCH), 256>>>(out, w, bias, in, bench_scale);
	CHECK(cudaFree(w));
	CHECK(cudaFree(bias));
	CHECK(cudaFree(in));
	CHECK(cudaMemcpy(result.data(), out, nout * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(out));
#endif
	std::printf("out[0] = %g\n", result[0]);
	return 0;
}
