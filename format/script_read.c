// SPDX-License-Identifier: MIT
/*
 * The event-script reader: one JSON object per line, parsed with cJSON and
 * checked field by field (the fields' parsers: script_fields.c).  The
 * first bad line stops the read with its line number and the reason;
 * nothing is guessed.
 */
#define _GNU_SOURCE
#include "gmprof/script.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_parse.h"
#include "script_reader.h"
#include "util.h"

/* Not an event: an allocation that failed for lack of memory (gmprof's addition). */
#define OP_ALLOC_FAILED 0x100u
#define OP_RANGE_PUSH 0x101u /* NVTX ranges (gmprof's addition) */
#define OP_RANGE_POP 0x102u
#define OP_META 0x103u /* run metadata: {"op":"meta","key":K,"value":V} */
#define OP_POOLS 0x104u /* a device's stream-ordered memory pools (gmprof's addition) */
#define OP_STREAM 0x105u /* a stream's creation flags: blocking or not (gmprof's addition) */
#define OP_MARK 0x106u /* an NVTX mark (gmprof's addition) */
#define OP_END 0u

static const char *const extra_ops[] = { "alloc_failed", "range_push", "range_pop", "meta", "pools", "stream",
					 "mark" };

static const char *op_name(unsigned op)
{
	return op == OP_END ? "end" : op >= OP_ALLOC_FAILED ? extra_ops[op - OP_ALLOC_FAILED] : gmp_op__name(op);
}

static const char *const common_fields[] = { "op", "at", "thread", "stream", "device",
					      "time_ns", NULL };

/* Fields each op accepts besides the common ones. */
static const char *const *op_fields(unsigned op)
{
	static const char *const alloc_f[] = { "addr", "size", "label", "kind", "exported", NULL };
	static const char *const free_f[] = { "addr", NULL };
	static const char *const memcpy_f[] = { "dst", "src", "size", "async", NULL };
	static const char *const memset_f[] = { "addr", "size", "value", "async", NULL };
	static const char *const kernel_f[] = { "name", "read", "write", "touch", "monitored", "graph",
						 NULL };
	static const char *const sync_f[] = { "event", NULL };
	static const char *const event_f[] = { "event", NULL };
	static const char *const none_f[] = { NULL };
	static const char *const failed_f[] = { "size", "kind", "api", "device_free", "device_total",
						NULL };
	static const char *const push_f[] = { "name", NULL };
	static const char *const meta_f[] = { "key", "value", NULL };
	static const char *const pools_f[] = { "reserved", "used", "reserved_high", "used_high",
						"release_threshold", "pools", NULL };
	static const char *const stream_f[] = { "blocking", NULL };
	switch (op) {
	case OP_STREAM: return stream_f;
	case OP_POOLS: return pools_f;
	case OP_ALLOC_FAILED: return failed_f;
	case OP_RANGE_PUSH:
	case OP_MARK: return push_f;
	case OP_META: return meta_f;
	case GMP_OP_ALLOC: return alloc_f;
	case GMP_OP_FREE: return free_f;
	case GMP_OP_MEMCPY: return memcpy_f;
	case GMP_OP_MEMSET: return memset_f;
	case GMP_OP_KERNEL: return kernel_f;
	case GMP_OP_SYNC: return sync_f;
	case GMP_OP_EVENT_RECORD:
	case GMP_OP_EVENT_WAIT: return event_f;
	default: return none_f;
	}
}

static int check_fields(struct reader *r, const cJSON *o, unsigned op)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, o) {
		if (!sr_in_list(common_fields, it->string) && !sr_in_list(op_fields(op), it->string) &&
		    !(op >= 1 && op <= GMP_OP_MAX && strcmp(it->string, "returned_ns") == 0))
			return sr_fail(r, "unknown field '%s' for op '%s'", it->string, op_name(op));
	}
	return 0;
}

static int parse_op(struct reader *r, const cJSON *o, unsigned *op)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "op");
	if (!it)
		return sr_fail(r, "missing required field 'op'");
	if (!cJSON_IsString(it))
		return sr_fail(r, "field 'op' must be a string");
	const char *s = it->valuestring;
	if (strcmp(s, "end") == 0) {
		*op = OP_END;
		return 0;
	}
	for (unsigned k = 0; k < sizeof(extra_ops) / sizeof(extra_ops[0]); k++)
		if (strcmp(s, extra_ops[k]) == 0) {
			*op = OP_ALLOC_FAILED + k;
			return 0;
		}
	for (unsigned k = 1; k <= GMP_OP_MAX; k++) {
		if (strcmp(s, gmp_op__name(k)) == 0) {
			*op = k;
			return 0;
		}
	}
	return sr_fail(r, "unknown op '%s'", s);
}

static int common(struct reader *r, const cJSON *o, struct gmp_event *e)
{
	uint64_t t = 0;
	if (sr_opt_u32(r, o, "stream", &e->stream) < 0 || sr_opt_u32(r, o, "thread", &e->thread) < 0 ||
	    sr_opt_u32(r, o, "device", &e->device) < 0 || sr_opt_num(r, o, "time_ns", &t) < 0 ||
	    sr_opt_str(r, o, "at", &e->at) < 0)
		return -EINVAL;
	e->host_ns = t;
	return 0;
}

static int ranged(struct reader *r, uint64_t addr, uint64_t size)
{
	if (addr + size < addr)
		return sr_fail(r, "the range runs past the end of the address space");
	return 0;
}

/* "async": true, a copy or set issued with cudaMemcpyAsync or cudaMemsetAsync (the host does not wait). */
static int async_flag(struct reader *r, const cJSON *o, struct gmp_event *e)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "async");
	if (a && !cJSON_IsBool(a))
		return sr_fail(r, "field 'async' must be true or false");
	if (a && cJSON_IsTrue(a))
		e->flags |= GMP_EF_ASYNC;
	return 0;
}

/* "exported": true, an allocation shared with other processes (cudaIpcGetMemHandle): its own memory. */
static int exported_flag(struct reader *r, const cJSON *o, struct gmp_event *e)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "exported");
	if (x && !cJSON_IsBool(x))
		return sr_fail(r, "field 'exported' must be true or false");
	if (!x || !cJSON_IsTrue(x))
		return 0;
	if (!gmp_mem_kind__device_bytes(e->kind))
		return sr_fail(r, "an allocation of kind \"%s\" cannot be exported: it is not this process's own memory",
			       gmp_mem_kind__name(e->kind));
	e->flags |= GMP_EF_EXPORTED;
	return 0;
}

static int op_fields_parse(struct reader *r, const cJSON *o, struct gmp_event *e,
			   int *touch_present)
{
	int rc;
	switch (e->op) {
	case GMP_OP_ALLOC:
		if (sr_req_num(r, o, "addr", &e->addr) || sr_req_num(r, o, "size", &e->size))
			return -EINVAL;
		if (e->size == 0)
			return sr_fail(r, "an allocation must have a positive size");
		if (ranged(r, e->addr, e->size))
			return -EINVAL;
		if ((rc = sr_opt_str(r, o, "label", &e->name)) < 0)
			return rc;
		if (rc == 0)
			e->flags |= GMP_EF_HAS_LABEL;
		return sr_parse_kind(r, o, &e->kind) || exported_flag(r, o, e) ? -EINVAL : 0;
	case GMP_OP_FREE:
		return sr_req_num(r, o, "addr", &e->addr);
	case GMP_OP_MEMCPY:
		if (sr_req_num(r, o, "size", &e->size))
			return -EINVAL;
		if ((rc = sr_opt_num(r, o, "dst", &e->addr)) < 0)
			return rc;
		if (rc == 0)
			e->flags |= GMP_EF_HAS_DST;
		if ((rc = sr_opt_num(r, o, "src", &e->src)) < 0)
			return rc;
		if (rc == 0)
			e->flags |= GMP_EF_HAS_SRC;
		if (!(e->flags & (GMP_EF_HAS_DST | GMP_EF_HAS_SRC)))
			return sr_fail(r, "a memcpy needs at least one of 'dst' and 'src'");
		if (ranged(r, e->addr, e->size) || ranged(r, e->src, e->size))
			return -EINVAL;
		return async_flag(r, o, e);
	case GMP_OP_MEMSET:
		if (sr_req_num(r, o, "addr", &e->addr) || sr_req_num(r, o, "size", &e->size) ||
		    ranged(r, e->addr, e->size))
			return -EINVAL;
		if ((rc = sr_opt_num(r, o, "value", &e->value)) < 0)
			return rc;
		if (rc == 0) {
			if (e->value > 255)
				return sr_fail(r, "field 'value' must be a byte (0 to 255)");
			e->flags |= GMP_EF_HAS_VALUE;
		}
		return async_flag(r, o, e);
	case GMP_OP_KERNEL:
		if ((rc = sr_opt_str(r, o, "name", &e->name)) < 0)
			return rc;
		if (rc > 0)
			return sr_fail(r, "missing required field 'name'");
		if ((rc = sr_opt_u32(r, o, "graph", &e->graph)) < 0)
			return rc;
		if (rc == 0 && !e->graph)
			return sr_fail(r, "field 'graph' numbers a graph launch from 1");
		const cJSON *mon = cJSON_GetObjectItemCaseSensitive(o, "monitored");
		if (mon && !cJSON_IsBool(mon))
			return sr_fail(r, "field 'monitored' must be true or false");
		if (mon && cJSON_IsFalse(mon)) {
			/* Its accesses are unknown: it may have used any live object. */
			if (cJSON_GetObjectItemCaseSensitive(o, "read") ||
			    cJSON_GetObjectItemCaseSensitive(o, "write") ||
			    cJSON_GetObjectItemCaseSensitive(o, "touch"))
				return sr_fail(r, "a kernel with 'monitored': false takes no 'read', 'write' or 'touch'");
			return 0;
		}
		if (sr_addr_list(r, o, "read", GMP_RW_READ) || sr_addr_list(r, o, "write", GMP_RW_WRITE) ||
		    sr_touch_list(r, o, touch_present))
			return -EINVAL;
		e->flags |= GMP_EF_ACCESS_KNOWN;
		if (*touch_present)
			e->flags |= GMP_EF_TOUCH_KNOWN;
		return 0;
	case GMP_OP_SYNC:
		if (cJSON_GetObjectItemCaseSensitive(o, "stream"))
			e->flags |= GMP_EF_SYNC_STREAM;
		if ((rc = sr_event_id(r, o, &e->value, 0)) < 0)
			return rc;
		if (rc == 0) {
			if (e->flags & GMP_EF_SYNC_STREAM)
				return sr_fail(r, "a sync takes 'stream' or 'event', not both");
			e->flags |= GMP_EF_SYNC_EVENT;
		}
		return 0;
	case GMP_OP_EVENT_RECORD:
	case GMP_OP_EVENT_WAIT:
		return sr_event_id(r, o, &e->value, 1);
	}
	return 0;
}

/*
 * A device_heap object is malloc()ed and free()d inside kernels: its alloc
 * and its free belong to the latest launch on their stream.
 */
static int in_kernel(struct reader *r, struct gmp_event *e)
{
	int heap_alloc = e->op == GMP_OP_ALLOC && e->kind == GMP_MEM_DEVICE_HEAP;
	uint32_t *live = NULL;
	if (e->op == GMP_OP_FREE && !((live = gmp_u64map__get(&r->heap, e->addr)) && *live))
		return 0;
	if (!heap_alloc && !live)
		return 0;
	uint32_t *k = gmp_u64map__get(&r->last_kernel, (uint64_t)e->device << 32 | e->stream);
	if (!k)
		return sr_fail(r, "a device_heap object is allocated and freed inside a kernel: "
			    "this %s needs an earlier kernel launch on its stream",
			    heap_alloc ? "alloc" : "free");
	e->flags |= GMP_EF_IN_KERNEL;
	e->value = *k - 1;
	if (live) {
		*live = 0;
		return 0;
	}
	uint32_t *slot = gmp_u64map__slot(&r->heap, e->addr, 1, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = 1;
	return 0;
}

/* alloc_failed: the program asked for `size` bytes and got out of memory. */
static int failed_alloc(struct reader *r, const cJSON *o, const struct gmp_event *e)
{
	struct gmp_alloc_failure f = { .before = r->t->nev, .device = e->device,
				       .stream = e->stream, .thread = e->thread, .at = e->at,
				       .host_ns = e->host_ns, .line = e->line };
	uint8_t kind = GMP_MEM_DEVICE;
	int rc;
	if (sr_req_num(r, o, "size", &f.size) || sr_parse_kind(r, o, &kind))
		return -EINVAL;
	if (f.size == 0)
		return sr_fail(r, "a failed allocation must have a positive size");
	if (kind == GMP_MEM_POOL_REGION || kind == GMP_MEM_DEVICE_HEAP || kind == GMP_MEM_IMPORTED)
		return sr_fail(r, "a failed allocation is of kind \"device\", \"managed\", \"async\" or \"cuda_array\"");
	f.kind = kind;
	if ((rc = sr_opt_str(r, o, "api", &f.api)) < 0 || sr_opt_num(r, o, "device_free", &f.dev_free) < 0 ||
	    sr_opt_num(r, o, "device_total", &f.dev_total) < 0)
		return -EINVAL;
	if (f.dev_free > f.dev_total)
		return sr_fail(r, "'device_free' must not exceed 'device_total'");
	return gmp_trace__add_failure(r->t, &f);
}

/*
 * pools: a device's stream-ordered memory pools, as the driver said: bytes
 * reserved and in use, then and at most so far (each at least what it is
 * then), the largest release threshold, how many pools.
 */
static int pools(struct reader *r, const cJSON *o, const struct gmp_event *e)
{
	struct gmp_pool_state s = { .before = r->t->nev, .device = e->device, .pools = 1, .line = e->line };
	int hr, hu;
	if (sr_req_num(r, o, "reserved", &s.reserved) || sr_req_num(r, o, "used", &s.used) ||
	    (hr = sr_opt_num(r, o, "reserved_high", &s.reserved_high)) < 0 ||
	    (hu = sr_opt_num(r, o, "used_high", &s.used_high)) < 0 ||
	    sr_opt_num(r, o, "release_threshold", &s.threshold) < 0 || sr_opt_u32(r, o, "pools", &s.pools) < 0)
		return -EINVAL;
	if (hr > 0)
		s.reserved_high = s.reserved;
	if (hu > 0)
		s.used_high = s.used;
	if (!s.pools)
		return sr_fail(r, "'pools' counts the device's pools: at least 1");
	if (s.used > s.reserved || s.used_high > s.reserved_high)
		return sr_fail(r, "a pool's bytes in use must not exceed its reserved bytes");
	if (s.reserved > s.reserved_high || s.used > s.used_high)
		return sr_fail(r, "'reserved_high' and 'used_high' are the most so far: not below 'reserved' and 'used'");
	return gmp_trace__add_pool_state(r->t, &s);
}

/*
 * stream: stream N was made blocking ("blocking": true; cudaStreamCreate)
 * or not (cudaStreamNonBlocking).  A blocking stream and the legacy
 * default stream (0) wait for each other's earlier work, on every device
 * the number is used on.  Before the stream's first op, once.
 */
static int stream_line(struct reader *r, const cJSON *o, const struct gmp_event *e)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "stream"), *b = cJSON_GetObjectItemCaseSensitive(o, "blocking");
	if (!s || !b)
		return sr_fail(r, "missing required field '%s'", s ? "blocking" : "stream");
	if (!cJSON_IsBool(b))
		return sr_fail(r, "field 'blocking' must be true or false");
	if (cJSON_GetObjectItemCaseSensitive(o, "device"))
		return sr_fail(r, "a stream line takes no 'device': it describes the stream number on every device");
	if (!e->stream)
		return sr_fail(r, "stream 0 is the legacy default stream: it cannot be declared");
	if (gmp_u64map__get(&r->used_streams, e->stream))
		return sr_fail(r, "stream %u is declared after %s", e->stream,
			       *gmp_u64map__get(&r->used_streams, e->stream) ? "an op on it" : "its first declaration");
	uint32_t *slot = gmp_u64map__slot(&r->used_streams, e->stream, 0, NULL);
	if (!slot)
		return -ENOMEM;
	struct gmp_stream_info si = { .number = e->stream,
				      .flags = GMP_STREAM_KNOWN | (cJSON_IsTrue(b) ? 0 : GMP_STREAM_NON_BLOCKING) };
	return gmp_trace__add_stream(r->t, &si);
}

/* A key of the run's metadata ("mode": "alloc" says the kernels' accesses were not recorded). */
/* "returned_ns": when the call returned (a sync's end: what it waited for had finished by then). */
static int returned(struct reader *r, const cJSON *o, const struct gmp_event *e, uint32_t idx)
{
	uint64_t ns = 0;
	int rc = sr_opt_num(r, o, "returned_ns", &ns);
	if (rc)
		return rc < 0 ? rc : 0;
	if (!ns)
		return sr_fail(r, "field 'returned_ns' must be above 0");
	if (ns < e->host_ns)
		return sr_fail(r, "field 'returned_ns' is before the op's 'time_ns'");
	return gmp_trace__add_return(r->t, idx, ns);
}

static int meta(struct reader *r, const cJSON *o)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "key"), *v = cJSON_GetObjectItemCaseSensitive(o, "value");
	if (!cJSON_IsString(k) || !*k->valuestring || !cJSON_IsString(v))
		return sr_fail(r, "a meta line needs a non-empty string 'key' and a string 'value'");
	int rc = gmp_trace__set_meta(r->t, k->valuestring, v->valuestring);
	/* A device's memory the reports read as none would make --max-peak P% say it was never recorded. */
	unsigned dev;
	char key[40];
	if (!rc && sscanf(k->valuestring, "device.%u.memory", &dev) == 1 &&
	    snprintf(key, sizeof(key), "device.%u.memory", dev) > 0 && !strcmp(key, k->valuestring) &&
	    !gmp_trace__device_memory(r->t, dev))
		return sr_fail(r, "meta '%s' is the device's memory in bytes: a whole number above 0, not '%.40s'",
			       k->valuestring, v->valuestring);
	return rc;
}

static int parse_line(struct reader *r, const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len || line[i] == '#')
		return 0;
	if (r->ended)
		return sr_fail(r, "nothing may follow the 'end' op");
	const char *endp = NULL;
	int oom;
	cJSON *o = gmp_json__parse(line, len, &endp, &oom);
	if (!o && oom)
		return -ENOMEM;
	if (!o && !r->objects && line[i] != '{')
		return sr_fail(r, "not JSON: the file is neither a gmprof profile nor an event script "
				  "(JSON objects, one per line)");
	if (!o)
		return sr_fail(r, "not valid JSON");
	r->objects++;
	int rc = 0;
	while (endp && endp < line + len && (*endp == ' ' || *endp == '\t' || *endp == '\r'))
		endp++;
	if (endp && endp < line + len && *endp) {
		rc = sr_fail(r, "text after the JSON object");
		goto out;
	}
	if (!cJSON_IsObject(o)) {
		rc = sr_fail(r, "not a JSON object");
		goto out;
	}
	unsigned op = 0;
	if ((rc = parse_op(r, o, &op)) || (rc = check_fields(r, o, op)))
		goto out;
	struct gmp_event e = { .op = op >= OP_ALLOC_FAILED ? 0 : (uint8_t)op, .line = r->line };
	if ((rc = common(r, o, &e)))
		goto out;
	if (op == OP_ALLOC_FAILED || op == OP_META || op == OP_POOLS || op == OP_STREAM) {
		rc = op == OP_META ? meta(r, o) : op == OP_POOLS ? pools(r, o, &e) :
		     op == OP_STREAM ? stream_line(r, o, &e) : failed_alloc(r, o, &e);
		goto out;
	}
	uint32_t name = 0;
	if ((op == OP_RANGE_PUSH || op == OP_MARK) && (rc = sr_opt_str(r, o, "name", &name)) != 0)
		rc = rc > 0 ? sr_fail(r, "missing required field 'name'") : rc;
	else if (op == OP_MARK)
		rc = gmp_trace__add_mark(r->t, e.thread, e.host_ns, name);
	else if (op == OP_RANGE_PUSH || op == OP_RANGE_POP)
		rc = gmp_range_stacks__change(&r->ranges, r->t, e.thread, name, r->t->nev);
	if (rc == -ENOENT || rc == -E2BIG)
		rc = sr_fail(r, rc == -ENOENT ? "a range_pop with no range open on its thread" : "ranges nest deeper than 64");
	if (rc || op == OP_RANGE_PUSH || op == OP_RANGE_POP || op == OP_MARK)
		goto out;
	if (op == OP_END) {
		r->ended = 1;
		r->t->ended = 1;
		goto out;
	}
	r->nacc = r->ntouch = 0;
	int touch_present = 0;
	if ((rc = op_fields_parse(r, o, &e, &touch_present)))
		goto out;
	if ((rc = in_kernel(r, &e)))
		goto out;
	if (e.stream && e.stream != r->last_stream) { /* a stream line must come before these */
		uint32_t *used = gmp_u64map__slot(&r->used_streams, e.stream, 1, NULL);
		if (!used) {
			rc = -ENOMEM;
			goto out;
		}
		*used = 1;
		r->last_stream = e.stream;
	}
	int64_t idx = gmp_trace__add_event(r->t, &e, r->acc, r->nacc, r->touch, r->ntouch);
	if (idx >= 0 && (rc = returned(r, o, &e, (uint32_t)idx)))
		goto out;
	uint32_t *k = idx < 0 || e.op != GMP_OP_KERNEL ? NULL
		: gmp_u64map__slot(&r->last_kernel, (uint64_t)e.device << 32 | e.stream, 0, NULL);
	if (idx < 0 || (e.op == GMP_OP_KERNEL && !k))
		rc = -ENOMEM;
	else if (k)
		*k = (uint32_t)idx + 1;
out:
	cJSON_Delete(o);
	return rc;
}

static int reader_init(struct reader *r, struct gmp_script_error *err)
{
	memset(r, 0, sizeof(*r));
	r->err = err;
	err->line = 0;
	err->msg[0] = '\0';
	gmp_u64map__init(&r->last_kernel);
	gmp_u64map__init(&r->heap);
	gmp_u64map__init(&r->used_streams);
	gmp_range_stacks__init(&r->ranges);
	r->t = gmp_trace__new();
	return r->t ? 0 : -ENOMEM;
}

static int reader_done(struct reader *r, int rc, struct gmp_trace **out)
{
	free(r->acc);
	free(r->touch);
	gmp_u64map__release(&r->last_kernel);
	gmp_u64map__release(&r->heap);
	gmp_u64map__release(&r->used_streams);
	gmp_range_stacks__release(&r->ranges);
	if (!rc)
		rc = gmp_trace__settle_ranges(r->t);
	if (rc) {
		if (rc == -ENOMEM && !r->err->msg[0]) {
			r->err->line = r->line;
			snprintf(r->err->msg, sizeof(r->err->msg), "out of memory");
		}
		gmp_trace__free(r->t);
		return rc;
	}
	for (size_t i = 0; i < r->t->nev; i++) /* kernels with "monitored": false, as a profile counts them */
		r->t->unharvested += r->t->ev[i].op == GMP_OP_KERNEL &&
				     !(r->t->ev[i].flags & GMP_EF_ACCESS_KNOWN);
	*out = r->t;
	return 0;
}

/* One line (without its newline) of the script. */
static int feed(struct reader *r, const char *line, size_t len)
{
	r->line++;
	return memchr(line, '\0', len) ? sr_fail(r, "line contains a NUL byte") : parse_line(r, line, len);
}

int gmp_script__read_mem(const char *buf, size_t len, struct gmp_trace **out,
			 struct gmp_script_error *err)
{
	struct reader r;
	if (reader_init(&r, err))
		return -ENOMEM;
	int rc = 0;
	size_t off = 0;
	while (off < len && !rc) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
		rc = feed(&r, buf + off, n);
		off += n + 1;
	}
	return reader_done(&r, rc, out);
}

int gmp_script__read_file(FILE *fp, struct gmp_trace **out, struct gmp_script_error *err)
{
	struct reader r;
	if (reader_init(&r, err))
		return -ENOMEM;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && (n = getline(&line, &cap, fp)) >= 0) {
		size_t len = (size_t)n;
		rc = feed(&r, line, len && line[len - 1] == '\n' ? len - 1 : len);
	}
	if (!rc && ferror(fp)) {
		rc = -EIO;
		snprintf(err->msg, sizeof(err->msg), "read error");
	}
	free(line);
	return reader_done(&r, rc, out);
}
