// SPDX-License-Identifier: MIT
/*
 * gmprof-gen: writes a synthetic but realistic event stream, as a profile
 * or as an event script, for the replay benchmarks and the scale tests.
 * The shape is a training loop on several streams: long-lived weights,
 * per-step temporaries (some stream-ordered), uploads, kernels reading and
 * writing two to four objects, cross-stream events and periodic syncs.
 * Deterministic for a given seed.  With --pool, temporaries come from a
 * fixed pool of buffers (as behind a caching allocator): few objects, few
 * findings; without it every temporary is a fresh allocation.  With
 * --ranges, each step is an NVTX range and each of its kernels a range
 * inside it ("step > layerK"), as a framework pushes a range per operator.
 * With --times, each call has a host time: 1 to 5 us after the one before,
 * and 2 ms after a sync (the host waited for the GPU).
 *
 *   gmprof-gen -n EVENTS [-s SEED] [--objects N] [--streams N] [--pool] [--ranges] [--times] [--legacy] -o FILE [--script]
 *
 * --legacy: the streams are made blocking (cudaStreamCreate), and each
 * step downloads its result with cudaMemcpy on the legacy default stream,
 * which then waits for every stream's earlier work (detector/build.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmprof/profile.h"
#include "gmprof/script.h"
#include "safefile.h"

struct gen {
	uint64_t rng;
	uint64_t n, made;
	unsigned streams;
	struct gmp_writer *w;   /* profile output, or */
	FILE *fp;               /* script output */
	uint64_t *weights;
	size_t nweights;
	uint64_t next_addr;
	uint32_t names[8];
	int pool;               /* temporaries come from a pool, as with a caching allocator */
	uint64_t pool_buf[4][6];
	int ranges;             /* --ranges */
	int depth;              /* ranges open now: 0, 1 (step) or 2 (step > layer) */
	uint32_t range_ids[6];  /* profile strings: "step", "layer1" .. "layer5" */
	int times;              /* --times */
	uint64_t now;           /* the host time of the last call */
	int synced;             /* the last call was a sync: the next comes after the GPU caught up */
	int legacy;             /* --legacy */
	int err;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static const char *const kernel_names[8] = {
	"gemm_kernel", "relu_fwd", "relu_bwd", "softmax", "layernorm", "adam_step",
	"reduce_sum", "elementwise_add",
};

static void emit(struct gen *g, const struct gmp_event *ev, const struct gmp_access *acc,
		 size_t nacc)
{
	if (g->err || g->made >= g->n)
		return;
	g->made++;
	struct gmp_event timed = *ev;
	const struct gmp_event *e = &timed;
	char head[48] = "{";
	if (g->times) {
		g->now += g->synced ? 2000000 : 1000 + rnd(g) % 4000;
		g->synced = e->op == GMP_OP_SYNC;
		timed.host_ns = g->now;
		snprintf(head, sizeof(head), "{\"time_ns\":%" PRIu64 ",", g->now);
	}
	if (g->w) {
		int64_t idx = gmp_writer__event(g->w, e);
		if (idx < 0) {
			g->err = (int)idx;
			return;
		}
		if (e->op == GMP_OP_KERNEL && gmp_writer__accesses(g->w, (uint64_t)idx, acc, nacc))
			g->err = -EIO;
		return;
	}
	FILE *fp = g->fp;
	switch (e->op) {
	case GMP_OP_ALLOC:
		fprintf(fp, "%s\"op\":\"alloc\",\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 "%s,\"stream\":%u}\n", head,
			e->addr, e->size, e->kind == GMP_MEM_ASYNC ? ",\"kind\":\"async\"" : "", e->stream);
		break;
	case GMP_OP_FREE:
		fprintf(fp, "%s\"op\":\"free\",\"addr\":\"0x%" PRIx64 "\",\"stream\":%u}\n", head, e->addr, e->stream);
		break;
	case GMP_OP_MEMCPY:
		fprintf(fp, "%s\"op\":\"memcpy\",\"%s\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"stream\":%u}\n", head,
			(e->flags & GMP_EF_HAS_DST) ? "dst" : "src",
			(e->flags & GMP_EF_HAS_DST) ? e->addr : e->src, e->size, e->stream);
		break;
	case GMP_OP_MEMSET:
		fprintf(fp, "%s\"op\":\"memset\",\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"stream\":%u}\n", head,
			e->addr, e->size, e->stream);
		break;
	case GMP_OP_KERNEL:
		fprintf(fp, "%s\"op\":\"kernel\",\"name\":\"%s\",\"stream\":%u,\"read\":[", head,
			kernel_names[e->name - 1], e->stream);
		for (size_t i = 0, k = 0; i < nacc; i++)
			if (acc[i].rw & GMP_RW_READ)
				fprintf(fp, "%s\"0x%" PRIx64 "\"", k++ ? "," : "", acc[i].addr);
		fprintf(fp, "],\"write\":[");
		for (size_t i = 0, k = 0; i < nacc; i++)
			if (acc[i].rw & GMP_RW_WRITE)
				fprintf(fp, "%s\"0x%" PRIx64 "\"", k++ ? "," : "", acc[i].addr);
		fprintf(fp, "]}\n");
		break;
	case GMP_OP_SYNC:
		fprintf(fp, "%s\"op\":\"sync\"}\n", head);
		break;
	case GMP_OP_EVENT_RECORD:
		fprintf(fp, "%s\"op\":\"event_record\",\"event\":%" PRIu64 ",\"stream\":%u}\n", head, e->value, e->stream);
		break;
	case GMP_OP_EVENT_WAIT:
		fprintf(fp, "%s\"op\":\"event_wait\",\"event\":%" PRIu64 ",\"stream\":%u}\n", head, e->value, e->stream);
		break;
	}
}

/* With --ranges: from the next event on, inside depth ranges (the step, then its layer). */
static void set_ranges(struct gen *g, int depth, int layer)
{
	if (!g->ranges || g->err || g->made >= g->n)
		return;
	if (g->w) {
		uint32_t ids[2] = { g->range_ids[0], g->range_ids[layer] };
		if (gmp_writer__ranges(g->w, 0, ids, (size_t)depth))
			g->err = -EIO;
	} else {
		for (; g->depth > depth; g->depth--)
			fprintf(g->fp, "{\"op\":\"range_pop\"}\n");
		for (; g->depth < depth; g->depth++)
			fprintf(g->fp, g->depth ? "{\"op\":\"range_push\",\"name\":\"layer%d\"}\n"
						: "{\"op\":\"range_push\",\"name\":\"step\"}\n", layer);
	}
	g->depth = depth;
}

static uint64_t new_addr(struct gen *g, uint64_t size)
{
	uint64_t a = g->next_addr;
	g->next_addr += (size + 0xfff) & ~0xfffull;
	return a;
}

static uint64_t alloc_temp(struct gen *g, unsigned s)
{
	if (g->pool)
		return 0; /* the caller takes a pool buffer */
	uint64_t size = 4096u << (rnd(g) % 10);
	uint64_t a = new_addr(g, size);
	struct gmp_event e = { .op = GMP_OP_ALLOC, .addr = a, .size = size, .stream = s,
			       .kind = (rnd(g) & 1) ? GMP_MEM_ASYNC : GMP_MEM_DEVICE };
	emit(g, &e, NULL, 0);
	return a;
}

static void free_addr(struct gen *g, uint64_t a, unsigned s)
{
	if (g->pool)
		return;
	struct gmp_event e = { .op = GMP_OP_FREE, .addr = a, .stream = s };
	emit(g, &e, NULL, 0);
}

static void kernel(struct gen *g, unsigned s, uint64_t out, const uint64_t *in, size_t nin)
{
	struct gmp_access acc[4];
	size_t n = 0;
	acc[n++] = (struct gmp_access){ .addr = out, .rw = GMP_RW_WRITE };
	for (size_t i = 0; i < nin && n < 4; i++)
		acc[n++] = (struct gmp_access){ .addr = in[i], .rw = GMP_RW_READ };
	struct gmp_event e = { .op = GMP_OP_KERNEL, .name = 1 + (uint32_t)(rnd(g) % 8),
			       .stream = s, .flags = GMP_EF_ACCESS_KNOWN };
	emit(g, &e, acc, n);
}

/*
 * One training step on stream s: upload a batch, a chain of kernels over
 * step-local temporaries and a few weights, download, free.  A few steps
 * carry an inefficiency: an unused temporary, a leaked one, one allocated
 * long before its use, a dead memset.
 */
static void step(struct gen *g, uint64_t it)
{
	unsigned s = 1 + (unsigned)(it % g->streams);
	uint64_t t[6];
	uint64_t early = 0;
	set_ranges(g, 1, 0);
	if (it % 50 == 7 && !g->pool)
		early = alloc_temp(g, s);
	t[0] = g->pool ? g->pool_buf[(s - 1) % 4][0] : alloc_temp(g, s);
	if (it % 40 == 3) {
		struct gmp_event ms = { .op = GMP_OP_MEMSET, .addr = t[0], .size = 4096, .stream = s };
		emit(g, &ms, NULL, 0);
	}
	struct gmp_event cp = { .op = GMP_OP_MEMCPY, .addr = t[0], .size = 4096, .stream = s,
				.flags = GMP_EF_HAS_DST };
	emit(g, &cp, NULL, 0);
	for (int k = 1; k < 6; k++) {
		t[k] = g->pool ? g->pool_buf[(s - 1) % 4][k] : alloc_temp(g, s);
		uint64_t in[3] = { t[k - 1], g->weights[rnd(g) % g->nweights],
				   k > 1 ? t[k - 2] : g->weights[rnd(g) % g->nweights] };
		set_ranges(g, 2, k);
		kernel(g, s, t[k], in, 3);
		set_ranges(g, 1, 0);
		if (k >= 2)
			free_addr(g, t[k - 2], s);
	}
	if (early)
		kernel(g, s, early, &t[5], 1);
	struct gmp_event back = { .op = GMP_OP_MEMCPY, .src = t[5], .size = 4096, .stream = g->legacy ? 0 : s,
				  .flags = GMP_EF_HAS_SRC };
	emit(g, &back, NULL, 0);
	free_addr(g, t[4], s);
	if (it % 97 != 11)
		free_addr(g, t[5], s); /* else leaked */
	if (early)
		free_addr(g, early, s);
	if (it % 60 == 13 && !g->pool)
		free_addr(g, alloc_temp(g, s), s); /* unused */
	struct gmp_event rec = { .op = GMP_OP_EVENT_RECORD, .value = it, .stream = s };
	struct gmp_event wait = { .op = GMP_OP_EVENT_WAIT, .value = it,
				  .stream = 1 + (unsigned)((it + 1) % g->streams) };
	emit(g, &rec, NULL, 0);
	emit(g, &wait, NULL, 0);
	set_ranges(g, 0, 0);
	if (it % 64 == 63) {
		struct gmp_event sy = { .op = GMP_OP_SYNC };
		emit(g, &sy, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "objects", required_argument, 0, 'w' },
		{ "streams", required_argument, 0, 't' },
		{ "script", no_argument, 0, 'S' },
		{ "pool", no_argument, 0, 'P' },
		{ "ranges", no_argument, 0, 'R' },
		{ "times", no_argument, 0, 'T' },
		{ "legacy", no_argument, 0, 'L' },
		{ 0, 0, 0, 0 },
	};
	struct gen g = { .rng = 88172645463325252ull, .streams = 4, .next_addr = 0x7f0000000000 };
	const char *out = NULL;
	int script = 0, c;
	unsigned long long seed = 0, weights = 1000;
	while ((c = getopt_long(argc, argv, "n:s:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': g.n = strtoull(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'o': out = optarg; break;
		case 'w': weights = strtoull(optarg, NULL, 10); break;
		case 't': g.streams = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'S': script = 1; break;
		case 'P': g.pool = 1; break;
		case 'R': g.ranges = 1; break;
		case 'T': g.times = 1; break;
		case 'L': g.legacy = 1; break;
		default:
			fprintf(stderr, "usage: gmprof-gen -n EVENTS [-s SEED] [--objects N] [--streams N] [--pool] [--ranges] "
				"[--times] [--legacy] -o FILE [--script]\n");
			return 2;
		}
	}
	if (!g.n || !out || !g.streams || !weights) {
		fprintf(stderr, "gmprof-gen: -n EVENTS and -o FILE are required\n");
		return 2;
	}
	g.rng ^= seed * 0x9e3779b97f4a7c15ull;
	int err;
	if (script) {
		int fd = gmp_file__create(out, 1);
		g.fp = fd >= 0 ? fdopen(fd, "w") : NULL;
		err = g.fp ? 0 : -errno;
	} else {
		err = gmp_writer__create(out, 1, 1 << 20, &g.w);
	}
	if (err) {
		fprintf(stderr, "gmprof-gen: cannot create '%s': %s\n", out, strerror(-err));
		return 2;
	}
	if (g.w) {
		for (int i = 0; i < 8; i++)
			gmp_writer__string(g.w, kernel_names[i], strlen(kernel_names[i]));
		gmp_writer__meta(g.w, "command", "gmprof-gen");
		for (int i = 0; i < 6; i++) {
			char name[16];
			snprintf(name, sizeof(name), i ? "layer%d" : "step", i);
			int64_t id = gmp_writer__string(g.w, name, strlen(name));
			g.range_ids[i] = id > 0 ? (uint32_t)id : 0;
		}
	}
	for (unsigned n = 1; n <= g.streams && g.legacy && !err; n++) { /* made blocking */
		struct gmp_stream_info si = { .number = n, .flags = GMP_STREAM_KNOWN };
		if (g.w)
			err = gmp_writer__stream(g.w, &si);
		else
			fprintf(g.fp, "{\"op\":\"stream\",\"stream\":%u,\"blocking\":true}\n", n);
	}
	g.err = err;
	g.weights = malloc(weights * sizeof(*g.weights));
	if (!g.weights)
		g.err = -ENOMEM;
	g.nweights = weights;
	for (size_t i = 0; i < weights && g.weights; i++) {
		uint64_t size = 65536u << (rnd(&g) % 6);
		g.weights[i] = new_addr(&g, size);
		struct gmp_event e = { .op = GMP_OP_ALLOC, .addr = g.weights[i], .size = size };
		emit(&g, &e, NULL, 0);
	}
	for (int s = 0; s < 4 && g.pool; s++)
		for (int k = 0; k < 6; k++) {
			uint64_t size = 4096u << k;
			g.pool_buf[s][k] = new_addr(&g, size);
			struct gmp_event e = { .op = GMP_OP_ALLOC, .addr = g.pool_buf[s][k], .size = size,
					       .stream = (unsigned)s + 1 };
			emit(&g, &e, NULL, 0);
		}
	for (uint64_t it = 0; g.made < g.n && !g.err; it++)
		step(&g, it);
	if (g.w)
		err = gmp_writer__close(g.w, 1);
	else
		err = (fflush(g.fp) || ferror(g.fp) || fclose(g.fp)) ? -EIO : 0;
	free(g.weights);
	if (g.err || err) {
		fprintf(stderr, "gmprof-gen: cannot write '%s': %s\n", out, strerror(-(g.err ? g.err : err)));
		return 2;
	}
	return 0;
}
