// SPDX-License-Identifier: MIT
/*
 * Allocations that ran out of memory.  The Sanitizer's resource callbacks
 * report only the allocations that succeed; one that fails shows as an
 * allocation call returning out of memory.  Each becomes a FAILED_ALLOC
 * record (the size asked for, the device, the call path) at its place
 * among the events, and the first few are said on stderr at once: a
 * program often dies of them before its end, and the profile is what
 * tells what was live then.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "alloc_api.h"
#include "collector.h"
#include "findings_json.h"

#define SAID_MAX 3        /* failures said on stderr as they happen */
#define RECORDED_MAX 4096 /* failures recorded; a program retrying in a loop makes more */

/* Bytes and count of the live objects on a device (lock held). */
struct live_sum {
	uint32_t device;
	uint64_t bytes, count;
};

static int add_live(void *ctx, uint64_t start, uint64_t end, uint32_t device)
{
	struct live_sum *l = ctx;
	if (device == l->device) {
		l->bytes += end - start;
		l->count++;
	}
	return 0;
}

static uint64_t live_on(uint32_t device, uint64_t *count)
{
	struct live_sum l = { device, 0, 0 };
	rec_live_each(add_live, &l);
	*count = l.count;
	return l.bytes;
}

static void record(struct gmp_alloc_failure *f, const char *api)
{
	if (++gmp_col.fails > RECORDED_MAX) {
		gmp_col.fails_lost++;
		return;
	}
	f->thread = rec_tid();
	f->host_ns = rec_now();
	struct gmp_alloc_failure wf = *f;
	int64_t name = gmp_writer__string(gmp_col.w, api, strlen(api));
	int64_t stack = name < 0 ? -1 : rec_stack();
	if (name < 0 || stack < 0) {
		if (name < 0)
			rec_write_failed((int)name);
		return;
	}
	wf.api = (uint32_t)name;
	wf.stack = (uint32_t)stack;
	nvtx_sync_ranges();
	if (gmp_col.write_failed)
		return;
	int err = gmp_writer__failure(gmp_col.w, &wf);
	if (err) {
		rec_write_failed(err);
		return;
	}
	if (gmp_col.trace) {
		/* The online trace: the same place among its events, no call path. */
		struct gmp_alloc_failure tf = *f;
		tf.before = gmp_col.trace->nev;
		tf.api = gmp_trace__intern_cstr(gmp_col.trace, api);
		if (!tf.api || gmp_trace__add_failure(gmp_col.trace, &tf))
			rec_online_lost();
	}
	if (gmp_col.fails <= SAID_MAX) {
		char a[32], b[32], c[32], d[32], mem[80] = "";
		uint64_t n;
		uint64_t live = live_on(f->device, &n);
		if (f->dev_total)
			snprintf(mem, sizeof(mem), " (%s free of %s)", gmp_human_bytes(f->dev_free, c, sizeof(c)),
				 gmp_human_bytes(f->dev_total, d, sizeof(d)));
		rec_say("%s of %s on device %u ran out of memory%s, with %s live in %" PRIu64
			" object%s; the profile records what was live: gmprof report %s%s",
			api, gmp_human_bytes(f->size, a, sizeof(a)), f->device, mem,
			gmp_human_bytes(live, b, sizeof(b)), n, n == 1 ? "" : "s", gmp_col.path,
			gmp_col.fails == SAID_MAX ? " (later ones are recorded, not said)" : "");
	}
}

/* The device of ctx, whose pools are asked about with its free memory. */
static uint32_t oom_device(CUcontext ctx)
{
	pthread_mutex_lock(&gmp_col.lock);
	uint32_t d = rec_device(ctx);
	pthread_mutex_unlock(&gmp_col.lock);
	return d;
}

static void oom_failed(const struct gmp_alloc_api *a, const void *params, CUcontext ctx, uint64_t dev_free,
		       uint64_t dev_total, const struct gmp_pool_state *pools)
{
	struct gmp_alloc_failure f = { .kind = a->kind, .size = gmp_alloc_api__size(a, params),
				       .dev_free = dev_free, .dev_total = dev_total };
	if (!f.size) {
		static int said;
		if (!said++)
			rec_say("%s ran out of memory, asking for an amount gmprof cannot read from its parameters "
				"(an array format whose element size it does not know?): not recorded", a->name);
		return;
	}
	uint64_t stream = 0;
	if (a->stream_off)
		memcpy(&stream, (const char *)params + a->stream_off, sizeof(stream));
	pthread_mutex_lock(&gmp_col.lock);
	if (gmp_col.active && !gmp_col.closed && !gmp_col.write_failed) {
		f.device = rec_device(ctx);
		f.stream = a->stream_off ? rec_stream(stream) : 0;
		size_t before = gmp_col.fails;
		record(&f, a->name);
		if (pools && pools->device == f.device && gmp_col.fails == before + 1 && gmp_col.fails <= RECORDED_MAX)
			pools_record(pools, 1, 1); /* right after it: the reports read it as the failure's */
	}
	pthread_mutex_unlock(&gmp_col.lock);
}

/*
 * How much the current context's device has free, right after an
 * allocation failed (0, 0 unknown), asked with the re-entry guard set: the
 * driver's own API callbacks are not the program's.
 */
static void device_memory(uint64_t *free_bytes, uint64_t *total_bytes)
{
	*free_bytes = *total_bytes = 0;
	if (!gmp_col.opts.oom_meminfo)
		return;
	int was = cb_guard();
	if (drv_mem_info(free_bytes, total_bytes))
		*free_bytes = *total_bytes = 0;
	cb_unguard(was);
}

void oom_call(const char *fn, const void *params, CUcontext ctx)
{
	const struct gmp_alloc_api *a = gmp_alloc_api__find(fn);
	if (!a)
		return;
	uint64_t t0 = st_now(), free_bytes, total_bytes;
	device_memory(&free_bytes, &total_bytes);
	struct gmp_pool_state ps; /* what the device's pools hold, asked with its free memory */
	size_t nps = 0;
	if (pools_any()) {
		uint32_t device = oom_device(ctx);
		int was = cb_guard();
		nps = pools_sample(device, &ps, 1);
		cb_unguard(was);
	}
	oom_failed(a, params, ctx, free_bytes, total_bytes, nps ? &ps : NULL);
	pthread_mutex_lock(&gmp_col.lock);
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
}

void oom_close(void)
{
	if (!gmp_col.fails_lost || !gmp_col.w || gmp_col.write_failed)
		return;
	char n[32];
	snprintf(n, sizeof(n), "%" PRIu64, gmp_col.fails_lost);
	rec_meta("failed_allocations_unrecorded", n);
	rec_say("%s more allocations ran out of memory and were not recorded (the first %u were)", n,
		RECORDED_MAX);
}

void oom_summary(const struct gmp_result *r)
{
	char a[32], b[32], c[32];
	for (size_t i = 0; i < r->nfailures && i < SAID_MAX; i++) {
		const struct gmp_failure *g = &r->failures[i];
		const struct gmp_alloc_failure *f = &r->trace->fails[g->fail];
		fprintf(stderr, "==gmprof== OUT OF MEMORY: %s of %s on device %u",
			gmp_trace__str(r->trace, f->api, NULL), gmp_human_bytes(f->size, a, sizeof(a)),
			f->device);
		if (f->dev_total)
			fprintf(stderr, " (%s free of %s)", gmp_human_bytes(f->dev_free, b, sizeof(b)),
				gmp_human_bytes(f->dev_total, c, sizeof(c)));
		fprintf(stderr, " with %s live", gmp_human_bytes(g->live_bytes, b, sizeof(b)));
		uint64_t pc = gmp_trace__pool_cached(r->trace, f, g->live_bytes, NULL);
		if (pc)
			fprintf(stderr, " and %s cached by stream-ordered pools", gmp_human_bytes(pc, b, sizeof(b)));
		if (g->fix_n) {
			fprintf(stderr, "; fixing finding%s", g->fix_n == 1 ? "" : "s");
			for (uint32_t k = 0; k < g->fix_n && k < 5; k++)
				fprintf(stderr, "%s %u", k ? "," : "", r->fail_fixes[g->fix_off + k].finding + 1);
			fprintf(stderr, "%s frees %s then", g->fix_n > 5 ? " and more" : "",
				gmp_human_bytes(g->freeable, c, sizeof(c)));
		}
		fputc('\n', stderr);
	}
	if (r->nfails_total > SAID_MAX)
		fprintf(stderr, "==gmprof== and %zu more allocations ran out of memory\n",
			r->nfails_total - SAID_MAX);
}
