// SPDX-License-Identifier: MIT
/*
 * Frameworks' caching allocators among the allocations' call paths
 * (analyzer/frameworks.c): an allocation with a frame in PyTorch's
 * libc10_cuda, CuPy's cupy/cuda/memory module, TensorFlow's or XLA's is
 * counted for that framework (after a hundred other modules too), and the
 * note names it, the largest block, and the setting that turns the pool
 * off; NVTX pool regions (the allocator shows its pieces) mean no note.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frameworks.h"
#include "input.h"
#include "support.h"
#include "symbolize.h"

#define TORCH 0x7f0000000000ull
#define CUDART 0x7f1000000000ull
#define CUPY 0x7f2000000000ull
#define OTHER_MEMORY 0x7f3000000000ull

static void module(struct gmp_trace *t, const char *path, uint64_t base)
{
	struct gmp_module m = { .path = gmp_trace__intern_cstr(t, path), .base = base, .size = 0x100000 };
	assert_int_equal(gmp_trace__add_module(t, &m), 0);
}

/* Gives the ALLOC of the n-th object (0-based) the call path pcs. */
static void path_of(struct gmp_trace *t, int n, const uint64_t *pcs, size_t npcs)
{
	uint32_t id = gmp_trace__add_stack(t, pcs, npcs);
	assert_true(id > 0);
	for (size_t i = 0; i < t->nev; i++)
		if (t->ev[i].op == GMP_OP_ALLOC && n-- == 0) {
			t->ev[i].stack = id;
			return;
		}
	fail_msg("no allocation %d", n);
}

/* Four allocations: through PyTorch's allocator (1 GiB, 2 MiB), the program's own, CuPy's pool. */
static struct gmp_trace *program(const char *extra)
{
	char text[1024];
	snprintf(text, sizeof(text),
		 "{\"op\":\"alloc\",\"addr\":\"0x100000000\",\"size\":1073741824}\n"
		 "{\"op\":\"alloc\",\"addr\":\"0x200000000\",\"size\":2097152}\n"
		 "{\"op\":\"alloc\",\"addr\":\"0x300000000\",\"size\":4096}\n"
		 "{\"op\":\"alloc\",\"addr\":\"0x400000000\",\"size\":8192}\n%s"
		 "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x100000000\"]}\n{\"op\":\"end\"}\n", extra);
	struct gmp_trace *t = ts_script(text);
	for (int k = 0; k < 100; k++) { /* a Python program maps hundreds of modules before it */
		char name[64];
		snprintf(name, sizeof(name), "/usr/lib/python3/lib-dynload/m%d.so", k);
		module(t, name, 0x7e0000000000ull + (uint64_t)k * 0x200000);
	}
	module(t, "/venv/lib/python3.11/site-packages/torch/lib/libc10_cuda.so", TORCH);
	module(t, "/usr/local/cuda/lib64/libcudart.so.12", CUDART);
	module(t, "/venv/lib/python3.11/site-packages/cupy/cuda/memory.cpython-311-x86_64-linux-gnu.so", CUPY);
	module(t, "/opt/app/memory.so", OTHER_MEMORY);
	const uint64_t torch[] = { CUDART + 0x100, TORCH + 0x2000, TORCH + 0x3000 };
	const uint64_t own[] = { CUDART + 0x100, OTHER_MEMORY + 0x40, 0x401000 };
	const uint64_t cupy[] = { CUDART + 0x100, 1ull << 63 | 7, CUPY + 0x500 };
	path_of(t, 0, torch, 3);
	path_of(t, 1, torch, 3);
	path_of(t, 2, own, 3);
	path_of(t, 3, cupy, 3);
	return t;
}

static char *printed(const struct gmp_symnotes *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	gmp_symnotes__print(n, fp, "> ");
	assert_int_equal(fclose(fp), 0);
	return buf;
}

static void counted_per_framework(void **state)
{
	(void)state;
	struct gmp_trace *t = program("");
	struct gmp_symnotes *n = calloc(1, sizeof(*n));
	assert_non_null(n);
	assert_false(gmp_symnotes__any(n));
	gmp_fwnotes__add(n, t);
	assert_true(gmp_symnotes__any(n));
	assert_int_equal(n->fw[0].allocations, 2);
	assert_int_equal(n->fw[0].largest, 1073741824);
	assert_int_equal(n->fw[1].allocations, 1); /* cupy/cuda/memory, not /opt/app/memory.so */
	assert_int_equal(n->fw[1].largest, 8192);
	assert_int_equal(n->fw[2].allocations + n->fw[3].allocations, 0);
	char *s = printed(n);
	assert_non_null(strstr(s, "> note: 2 allocations (the largest 1.0 GiB) came from PyTorch's caching allocator: "
				  "gmprof sees its blocks"));
	assert_non_null(strstr(s, "PYTORCH_NO_CUDA_MEMORY_CACHING=1"));
	assert_non_null(strstr(s, "> note: 1 allocation (the largest 8.0 KiB) came from CuPy's memory pool"));
	assert_non_null(strstr(s, "cupy.cuda.set_allocator(None)"));
	assert_null(strstr(s, "TensorFlow"));
	free(s);
	/* A second input's allocations add to the first's. */
	gmp_fwnotes__add(n, t);
	assert_int_equal(n->fw[0].allocations, 4);
	free(n);
	gmp_trace__free(t);
}

/* t gives no note; frees t. */
static void no_note(struct gmp_trace *t)
{
	struct gmp_symnotes *n = calloc(1, sizeof(*n));
	assert_non_null(n);
	gmp_fwnotes__add(n, t);
	assert_false(gmp_symnotes__any(n));
	free(n);
	gmp_trace__free(t);
}

static void none_with_pool_regions(void **state)
{
	(void)state;
	no_note(program("{\"op\":\"alloc\",\"addr\":\"0x100000000\",\"size\":4096,\"kind\":\"pool_region\"}\n"));
}

static void none_without_a_framework(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure2.jsonl");
	module(t, "/opt/app/bin/app", 0x400000);
	no_note(t);
}

/*
 * Kernel launches through cuBLAS or cuDNN on a device of compute capability
 * 9.0 or later (META device.N.cc) are counted for the TMA note; launches
 * elsewhere, on an older device, or where the capability is not known, not.
 */
#define CUBLASLT 0x7f4000000000ull
#define CUDNN 0x7f5000000000ull
static void tma_launches(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script("{\"op\":\"meta\",\"key\":\"device.0.cc\",\"value\":\"9.0\"}\n"
					"{\"op\":\"meta\",\"key\":\"device.1.cc\",\"value\":\"8.0\"}\n"
					"{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096}\n"
					"{\"op\":\"kernel\",\"name\":\"gemm\",\"read\":[\"0x1000\"]}\n"
					"{\"op\":\"kernel\",\"name\":\"conv\",\"read\":[\"0x1000\"]}\n"
					"{\"op\":\"kernel\",\"name\":\"own\",\"read\":[\"0x1000\"]}\n"
					"{\"op\":\"kernel\",\"name\":\"gemm\",\"device\":1}\n"
					"{\"op\":\"end\"}\n");
	module(t, "/usr/lib/x86_64-linux-gnu/libcublasLt.so.13", CUBLASLT);
	module(t, "/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9", CUDNN);
	module(t, "/opt/app/bin/app", 0x400000);
	const uint64_t gemm[] = { CUBLASLT + 0x100, 0x401000 }, conv[] = { 1ull << 63 | 3, CUDNN + 0x40 },
		       own[] = { 0x401000 };
	uint32_t ids[] = { gmp_trace__add_stack(t, gemm, 2), gmp_trace__add_stack(t, conv, 2),
			   gmp_trace__add_stack(t, own, 1), 0 };
	ids[3] = ids[0];
	for (size_t i = 0, k = 0; i < t->nev; i++)
		if (t->ev[i].op == GMP_OP_KERNEL)
			t->ev[i].stack = ids[k++];
	struct gmp_symnotes *n = calloc(1, sizeof(*n));
	assert_non_null(n);
	gmp_tmanotes__add(n, t);
	assert_int_equal(n->tma.launches, 2); /* gemm and conv on device 0; not own, not device 1's */
	assert_int_equal(n->tma.libraries, 3);
	assert_int_equal(n->tma.cc, 90);
	assert_true(gmp_symnotes__any(n));
	char *s = printed(n);
	assert_non_null(strstr(s, "> note: 2 kernel launches came from cuBLAS and cuDNN on a GPU of compute capability 9.0: "
				  "such kernels copy most of their operands through the tensor memory accelerator"));
	assert_null(strstr(s, "in this run")); /* the profile does not say what its tensor maps did */
	assert_non_null(strstr(s, "(docs/known-limits.md)\n"));
	free(s);
	free(n);
	/* The collector's count of the run's tensor maps (META tensor_maps), which says whether cuBLAS encoded its maps on the host. */
	struct gmp_tmaps m;
	gmp_trace__set_meta(t, "tensor_maps", "encoded=3 launches=7");
	assert_false(gmp_tmaps__of(t, &m));
	gmp_trace__set_meta(t, "tensor_maps", "encoded=3 launches=7 graph_nodes=2");
	assert_true(gmp_tmaps__of(t, &m));
	assert_true(m.encoded == 3 && m.launches == 7 && m.nodes == 2);
	n = calloc(1, sizeof(*n));
	assert_non_null(n);
	gmp_tmanotes__add(n, t);
	s = printed(n);
	assert_non_null(strstr(s, "(docs/known-limits.md); in this run the host encoded 3 tensor maps, and 7 launches read "
				  "objects through them\n"));
	free(s);
	free(n);
	/* The capability not known (no META): no note. */
	gmp_trace__set_meta(t, "device.0.cc", "");
	n = calloc(1, sizeof(*n));
	assert_non_null(n);
	gmp_tmanotes__add(n, t);
	assert_false(gmp_symnotes__any(n));
	free(n);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counted_per_framework),
		cmocka_unit_test(none_with_pool_regions),
		cmocka_unit_test(none_without_a_framework),
		cmocka_unit_test(tma_launches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
