// SPDX-License-Identifier: MIT
/* Frameworks' caching allocators among the allocations' call paths, and TMA libraries' launches (frameworks.h). */
#define _GNU_SOURCE
#include "frameworks.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "findings_json.h"
#include "input.h"

/* Indexed as struct gmp_symnotes' fw counts (GMP_FWNOTES_MAX). */
static const struct framework {
	const char *name;     /* as the note names it */
	const char *module;   /* its allocator's module: a file name starting so ... */
	const char *dir;      /* ... in a directory whose path holds this (NULL: any) */
	const char *off;      /* what makes each of the program's allocations a call of its own */
} frameworks[GMP_FWNOTES_MAX] = {
	{ "PyTorch's caching allocator", "libc10_cuda", NULL,
	  "run with PYTORCH_NO_CUDA_MEMORY_CACHING=1 (gmprof run --no-caching) to see each tensor (slower)" },
	{ "CuPy's memory pool", "memory.", "/cupy/cuda/",
	  "call cupy.cuda.set_allocator(None) to see each array" },
	{ "TensorFlow's BFC allocator", "libtensorflow_framework", NULL,
	  "run with TF_GPU_ALLOCATOR=cuda_malloc_async (gmprof run --no-caching) to see each tensor" },
	{ "XLA's BFC allocator", "xla_extension", NULL,
	  "run with XLA_PYTHON_CLIENT_ALLOCATOR=platform (gmprof run --no-caching) to see each buffer (slower)" },
};

/* The framework whose allocator path is, or -1. */
static int framework_of(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (int k = 0; k < GMP_FWNOTES_MAX; k++) {
		const struct framework *f = &frameworks[k];
		if (!strncmp(base, f->module, strlen(f->module)) && (!f->dir || strstr(path, f->dir)))
			return k;
	}
	return -1;
}

/* A module of the ones looked for, and what tag_of said of its path. */
struct hit {
	const struct gmp_module *m;
	int tag;
};
#define HITS_MAX 8

/* The modules whose path tag_of tags (0 or more; -1: not one), of the program's hundreds: seldom any. */
static size_t find_modules(const struct gmp_trace *t, int (*tag_of)(const char *path), struct hit *hit)
{
	size_t nhit = 0;
	for (size_t m = 0; m < t->nmods && nhit < HITS_MAX; m++) {
		int tag = tag_of(gmp_trace__str(t, t->mods[m].path, NULL));
		if (tag >= 0)
			hit[nhit++] = (struct hit){ &t->mods[m], tag };
	}
	return nhit;
}

/* The tag of the first frame of call path stack that lies in one of hit's modules, or -1. */
static int frame_tag(const struct gmp_trace *t, uint32_t stack, const struct hit *hit, size_t nhit)
{
	const uint64_t *pcs;
	size_t n = gmp_trace__stack(t, stack, &pcs);
	for (size_t p = 0; p < n; p++) /* a Python frame (bit 63) lies in no module */
		for (size_t h = 0; h < nhit; h++)
			if (pcs[p] - hit[h].m->base < hit[h].m->size)
				return hit[h].tag;
	return -1;
}

void gmp_fwnotes__add(struct gmp_symnotes *notes, const struct gmp_trace *t)
{
	struct hit hit[HITS_MAX];
	size_t nhit = find_modules(t, framework_of, hit);
	struct gmp_fwnote seen[GMP_FWNOTES_MAX] = { { 0 } };
	for (size_t i = 0; nhit && i < t->nev; i++) {
		const struct gmp_event *e = &t->ev[i];
		if (e->op == GMP_OP_ALLOC && e->kind == GMP_MEM_POOL_REGION)
			return; /* the allocator shows its pieces (NVTX): its blocks are seen as pools */
		if (e->op != GMP_OP_ALLOC || (e->flags & GMP_EF_IN_KERNEL) || !e->stack)
			continue;
		int k = frame_tag(t, e->stack, hit, nhit);
		if (k < 0)
			continue;
		seen[k].allocations++;
		if (e->size > seen[k].largest)
			seen[k].largest = e->size;
	}
	for (int k = 0; k < GMP_FWNOTES_MAX; k++) {
		notes->fw[k].allocations += seen[k].allocations;
		if (seen[k].largest > notes->fw[k].largest)
			notes->fw[k].largest = seen[k].largest;
	}
}

void gmp_fwnotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix)
{
	for (int k = 0; k < GMP_FWNOTES_MAX; k++) {
		const struct gmp_fwnote *f = &notes->fw[k];
		if (!f->allocations)
			continue;
		char size[32];
		gmp_human_bytes(f->largest, size, sizeof(size));
		fprintf(fp, "%snote: %" PRIu64 " allocation%s (the largest %s) came from %s: gmprof sees its "
			"blocks, not the program's own buffers, and its findings are about the blocks; %s, or "
			"have the allocator name its pieces with the NVTX memory API\n",
			prefix, f->allocations, f->allocations == 1 ? "" : "s", size, frameworks[k].name,
			frameworks[k].off);
	}
}

/* Libraries whose kernels copy through the tensor memory accelerator on Hopper and later: a file name prefix. */
static const struct library {
	const char *prefix;
	unsigned bit; /* gmp_tmanote's libraries */
} tma_libraries[] = { { "libcublasLt", 1 }, { "libcublas", 1 }, { "libcudnn", 2 } };

/* The library's bit, or -1. */
static int tma_library(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t k = 0; k < sizeof(tma_libraries) / sizeof(tma_libraries[0]); k++)
		if (!strncmp(base, tma_libraries[k].prefix, strlen(tma_libraries[k].prefix)))
			return (int)tma_libraries[k].bit;
	return -1;
}

int gmp_tmaps__words(const struct gmp_trace *t, char *buf, size_t size)
{
	struct gmp_tmaps m;
	if (!gmp_tmaps__of(t, &m))
		return 0;
	int n = snprintf(buf, size, "the host encoded %" PRIu64 " tensor map%s, and %" PRIu64 " kernel launch%s read "
			 "objects through them (copies the device patches do not see)", m.encoded,
			 m.encoded == 1 ? "" : "s", m.launches, m.launches == 1 ? "" : "es");
	if (m.nodes && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "; %" PRIu64 " kernel node launch%s of CUDA graphs ran while "
			      "maps were known: what they read through maps is not seen", m.nodes,
			      m.nodes == 1 ? "" : "es");
	if (m.forgotten && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "; the collector dropped the %" PRIu64 " oldest map%s (it keeps the "
			 "latest): what launches read through them is not seen", m.forgotten, m.forgotten == 1 ? "" : "s");
	return 1;
}

void gmp_tmanotes__add(struct gmp_symnotes *notes, const struct gmp_trace *t)
{
	struct gmp_tmaps m;
	if (gmp_tmaps__of(t, &m)) {
		notes->tma.said = 1;
		notes->tma.maps += m.encoded;
		notes->tma.read += m.launches;
	}
	struct hit hit[HITS_MAX];
	size_t nhit = find_modules(t, tma_library, hit);
	for (size_t i = 0; nhit && i < t->nev; i++) {
		const struct gmp_event *e = &t->ev[i];
		int cc;
		if (e->op != GMP_OP_KERNEL || !e->stack || (cc = gmp_trace__device_cc(t, e->device)) < 90)
			continue;
		int bit = frame_tag(t, e->stack, hit, nhit);
		if (bit < 0)
			continue;
		notes->tma.libraries |= (unsigned)bit;
		notes->tma.launches++;
		if (cc > notes->tma.cc)
			notes->tma.cc = cc;
	}
}

void gmp_tmanotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix)
{
	const struct gmp_tmanote *n = &notes->tma;
	if (!n->launches)
		return;
	fprintf(fp, "%snote: %" PRIu64 " kernel launch%s came from %s on a GPU of compute capability %d.%d: such kernels "
		"copy most of their operands through the tensor memory accelerator, whose copies the Sanitizer "
		"does not let gmprof see: the collector counts a launch as reading the objects of the tensor maps "
		"among its parameters, not those of maps made on the device or kept in device memory, so findings "
		"on the objects they use may be wrong (docs/known-limits.md)",
		prefix, n->launches, n->launches == 1 ? "" : "es",
		n->libraries == 3 ? "cuBLAS and cuDNN" : n->libraries == 2 ? "cuDNN" : "cuBLAS", n->cc / 10, n->cc % 10);
	if (n->said)
		fprintf(fp, "; in this run the host encoded %" PRIu64 " tensor map%s, and %" PRIu64 " launch%s read objects "
			"through them", n->maps, n->maps == 1 ? "" : "s", n->read, n->read == 1 ? "" : "es");
	fputc('\n', fp);
}
