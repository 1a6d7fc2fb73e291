// SPDX-License-Identifier: MIT
/*
 * The profile writer.  Records are encoded into an in-memory buffer and
 * handed to the file whole, so the file is always a header followed by
 * complete records plus at most one partial record that a crash cut short.
 * Strings and stacks are interned: each is written once, before first use.
 */
#include "gmprof/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "gmprof/script.h"
#include "safefile.h"
#include "util.h"

#define MAX_HDR 16 /* type byte + length varint, rounded up */

struct gmp_writer {
	int fd;
	int err;              /* first error, sticky */
	uint8_t *buf;
	size_t len, cap;      /* buffered bytes */
	size_t flush_at;      /* flush when len reaches this */
	uint64_t nev;
	uint64_t flushed;
	struct gmp_trace *dict;  /* interned strings and stacks */
	uint32_t *stack_slots;   /* hash index over dict stacks */
	size_t nslots;
};

static int fail(struct gmp_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

/* Appends raw bytes to the buffer. */
static int put(struct gmp_writer *w, const void *p, size_t n)
{
	if (GMP_GROW(w->buf, w->cap, w->len + n))
		return fail(w, -ENOMEM);
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

/* Record under construction: payload is built in w->buf after a gap. */
struct rec {
	size_t start;  /* where the record begins */
	uint8_t type;
};

static int rec_begin(struct gmp_writer *w, struct rec *r, uint8_t type, size_t hint)
{
	if (w->err)
		return w->err;
	r->start = w->len;
	r->type = type;
	if (GMP_GROW(w->buf, w->cap, w->len + MAX_HDR + hint + 4))
		return fail(w, -ENOMEM);
	w->len += MAX_HDR; /* payload starts here; header is moved in at the end */
	return 0;
}

static int rec_varint(struct gmp_writer *w, uint64_t v)
{
	if (GMP_GROW(w->buf, w->cap, w->len + 10))
		return fail(w, -ENOMEM);
	w->len += gmp_put_varint(w->buf + w->len, v);
	return 0;
}

static int rec_end(struct gmp_writer *w, struct rec *r)
{
	if (w->err)
		return w->err;
	size_t pstart = r->start + MAX_HDR;
	size_t plen = w->len - pstart;
	uint8_t hdr[MAX_HDR];
	size_t hlen = 0;
	hdr[hlen++] = r->type;
	hlen += gmp_put_varint(hdr + hlen, plen);
	memmove(w->buf + r->start + hlen, w->buf + pstart, plen);
	memcpy(w->buf + r->start, hdr, hlen);
	w->len = r->start + hlen + plen;
	if (GMP_GROW(w->buf, w->cap, w->len + 4))
		return fail(w, -ENOMEM);
	uint32_t crc = gmp_crc32(0, w->buf + r->start, hlen + plen);
	gmp_put_le32(w->buf + w->len, crc);
	w->len += 4;
	if (w->len >= w->flush_at)
		return gmp_writer__flush(w);
	return 0;
}

int gmp_writer__flush(struct gmp_writer *w)
{
	if (w->err)
		return w->err;
	size_t off = 0;
	while (off < w->len) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return fail(w, -errno);
		}
		if (n == 0)
			return fail(w, -EIO);
		off += (size_t)n;
	}
	w->flushed += w->len;
	w->len = 0;
	return 0;
}

int gmp_writer__open_fd(int fd, size_t buffer_bytes, struct gmp_writer **out)
{
	struct gmp_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->flush_at = buffer_bytes ? buffer_bytes : 1 << 16;
	w->dict = gmp_trace__new();
	w->nslots = 256;
	w->stack_slots = calloc(w->nslots, sizeof(*w->stack_slots));
	if (!w->dict || !w->stack_slots) {
		gmp_writer__close(w, 0);
		return -ENOMEM;
	}
	uint8_t hdr[GMP_PROFILE_HEADER_LEN] = { 0 };
	memcpy(hdr, GMP_PROFILE_MAGIC, GMP_PROFILE_MAGIC_LEN);
	hdr[8] = GMP_PROFILE_VERSION_MAJOR;
	hdr[10] = GMP_PROFILE_VERSION_MINOR;
	int err = put(w, hdr, sizeof(hdr));
	if (!err)
		err = gmp_writer__flush(w);
	if (err) {
		gmp_writer__close(w, 0);
		return err;
	}
	*out = w;
	return 0;
}

int gmp_writer__create(const char *path, int force, size_t buffer_bytes,
		       struct gmp_writer **out)
{
	int fd = gmp_file__create(path, force);
	if (fd < 0)
		return fd;
	struct stat st;
	int regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
	int rc = gmp_writer__open_fd(fd, buffer_bytes, out);
	if (rc && regular)
		unlink(path); /* made or emptied here, and no header in it: not a profile (a device stays) */
	return rc;
}

static int rec_bytes(struct gmp_writer *w, const void *p, size_t n)
{
	if (rec_varint(w, n))
		return w->err;
	return put(w, p, n);
}

int gmp_writer__meta(struct gmp_writer *w, const char *key, const char *value)
{
	struct rec r;
	size_t kl = strlen(key), vl = strlen(value);
	if (rec_begin(w, &r, GMP_REC_META, kl + vl + 20) || rec_bytes(w, key, kl) ||
	    rec_bytes(w, value, vl))
		return w->err;
	return rec_end(w, &r);
}

int64_t gmp_writer__string(struct gmp_writer *w, const char *s, size_t len)
{
	if (w->err)
		return w->err;
	uint32_t id = gmp_trace__find_string(w->dict, s, len);
	if (id)
		return id;
	id = gmp_trace__intern(w->dict, s, len);
	if (!id)
		return fail(w, -ENOMEM);
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_STRING, len + 20) || rec_varint(w, id) ||
	    rec_bytes(w, s, len) || rec_end(w, &r))
		return w->err;
	return id;
}

static uint64_t hash_pcs(const uint64_t *pcs, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (size_t i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

static int same_stack(const struct gmp_trace *t, uint32_t id, const uint64_t *pcs, size_t n)
{
	const uint64_t *have;
	size_t m = gmp_trace__stack(t, id, &have);
	return m == n && (n == 0 || memcmp(have, pcs, n * sizeof(*pcs)) == 0);
}

static int grow_stack_index(struct gmp_writer *w)
{
	size_t nslots = w->nslots * 2;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (uint32_t id = 1; id <= w->dict->nstacks; id++) {
		const uint64_t *pcs;
		size_t n = gmp_trace__stack(w->dict, id, &pcs);
		size_t i = (size_t)hash_pcs(pcs, n) & (nslots - 1);
		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = id;
	}
	free(w->stack_slots);
	w->stack_slots = slots;
	w->nslots = nslots;
	return 0;
}

int64_t gmp_writer__stack(struct gmp_writer *w, const uint64_t *pcs, size_t n)
{
	if (w->err)
		return w->err;
	if ((w->dict->nstacks + 1) * 4 > w->nslots * 3 && grow_stack_index(w))
		return fail(w, -ENOMEM);
	size_t mask = w->nslots - 1;
	size_t i = (size_t)hash_pcs(pcs, n) & mask;
	while (w->stack_slots[i]) {
		if (same_stack(w->dict, w->stack_slots[i], pcs, n))
			return w->stack_slots[i];
		i = (i + 1) & mask;
	}
	uint32_t id = gmp_trace__add_stack(w->dict, pcs, n);
	if (!id)
		return fail(w, -ENOMEM);
	w->stack_slots[i] = id;
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_STACK, 10 * n + 20) || rec_varint(w, id) ||
	    rec_varint(w, n))
		return w->err;
	for (size_t k = 0; k < n; k++)
		if (rec_varint(w, pcs[k]))
			return w->err;
	if (rec_end(w, &r))
		return w->err;
	return id;
}

int gmp_writer__module(struct gmp_writer *w, const struct gmp_module *m)
{
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_MODULE, 60) || rec_varint(w, m->path) ||
	    rec_varint(w, m->build_id) || rec_varint(w, m->base) ||
	    rec_varint(w, m->size) || rec_varint(w, m->bias))
		return w->err;
	return rec_end(w, &r);
}

int gmp_writer__stream(struct gmp_writer *w, const struct gmp_stream_info *s)
{
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_STREAM, 40) || rec_varint(w, s->number) ||
	    rec_varint(w, s->device) || rec_varint(w, s->handle) ||
	    rec_varint(w, s->flags))
		return w->err;
	return rec_end(w, &r);
}

int64_t gmp_writer__event(struct gmp_writer *w, const struct gmp_event *ev)
{
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_EVENT, 100))
		return w->err;
	uint8_t head[2] = { ev->op, ev->kind };
	/* The record keeps every field; an op's fields share storage in memory. */
	int k = ev->op == GMP_OP_KERNEL, copy = ev->op == GMP_OP_MEMCPY;
	uint64_t addr = k ? 0 : ev->addr, size = k ? 0 : ev->size;
	uint64_t src = copy ? ev->src : 0, value = k ? ev->graph : copy ? 0 : ev->value;
	if (put(w, head, 2) || rec_varint(w, ev->flags) || rec_varint(w, ev->device) ||
	    rec_varint(w, ev->stream) || rec_varint(w, ev->thread) ||
	    rec_varint(w, ev->stack) || rec_varint(w, ev->at) || rec_varint(w, ev->name) ||
	    rec_varint(w, ev->host_ns) || rec_varint(w, addr) || rec_varint(w, src) ||
	    rec_varint(w, size) || rec_varint(w, value))
		return w->err;
	if (rec_end(w, &r))
		return w->err;
	return (int64_t)w->nev++;
}

int gmp_writer__accesses(struct gmp_writer *w, uint64_t event,
			 const struct gmp_access *acc, size_t n)
{
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_ACCESS, 12 * n + 20) || rec_varint(w, event) ||
	    rec_varint(w, n))
		return w->err;
	for (size_t i = 0; i < n; i++)
		if (rec_varint(w, acc[i].addr) || rec_varint(w, acc[i].rw))
			return w->err;
	return rec_end(w, &r);
}

int gmp_writer__touches(struct gmp_writer *w, uint64_t event,
			const struct gmp_touch *touch, size_t n)
{
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_TOUCH, 24 * n + 20) || rec_varint(w, event) ||
	    rec_varint(w, n))
		return w->err;
	for (size_t i = 0; i < n; i++)
		if (rec_varint(w, touch[i].addr) || rec_varint(w, touch[i].size) ||
		    rec_varint(w, touch[i].count) || rec_varint(w, touch[i].rw))
			return w->err;
	return rec_end(w, &r);
}

/* A record of n varints. */
static int varints(struct gmp_writer *w, uint8_t type, const uint64_t *v, size_t n)
{
	struct rec r;
	if (rec_begin(w, &r, type, 10 * n))
		return w->err;
	for (size_t i = 0; i < n; i++)
		if (rec_varint(w, v[i]))
			return w->err;
	return rec_end(w, &r);
}

int gmp_writer__label(struct gmp_writer *w, uint64_t event, uint32_t label)
{
	return varints(w, GMP_REC_LABEL, (const uint64_t[]){ event, label }, 2);
}

int gmp_writer__exported(struct gmp_writer *w, uint64_t event)
{
	return varints(w, GMP_REC_EXPORTED, &event, 1);
}

int gmp_writer__failure(struct gmp_writer *w, const struct gmp_alloc_failure *f)
{
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_FAILED_ALLOC, 80) || rec_varint(w, f->kind) ||
	    rec_varint(w, f->device) || rec_varint(w, f->stream) || rec_varint(w, f->thread) ||
	    rec_varint(w, f->stack) || rec_varint(w, f->at) || rec_varint(w, f->api) ||
	    rec_varint(w, f->size) || rec_varint(w, f->host_ns) || rec_varint(w, f->dev_free) ||
	    rec_varint(w, f->dev_total))
		return w->err;
	return rec_end(w, &r);
}

int gmp_writer__returned(struct gmp_writer *w, uint64_t event, uint64_t host_ns)
{
	return varints(w, GMP_REC_RETURNED, (const uint64_t[]){ event, host_ns }, 2);
}

int gmp_writer__mark(struct gmp_writer *w, uint32_t thread, uint64_t host_ns, uint32_t name)
{
	return varints(w, GMP_REC_MARK, (const uint64_t[]){ thread, host_ns, name }, 3);
}

int gmp_writer__pools(struct gmp_writer *w, const struct gmp_pool_state *s)
{
	return varints(w, GMP_REC_POOLS, (const uint64_t[]){ s->device, s->pools, s->reserved, s->used,
							     s->reserved_high, s->used_high, s->threshold }, 7);
}

int gmp_writer__ranges(struct gmp_writer *w, uint32_t thread, const uint32_t *names, size_t n)
{
	struct rec r;
	if (n > GMP_RANGE_DEPTH_MAX)
		return -E2BIG;
	if (rec_begin(w, &r, GMP_REC_RANGES, 5 * n + 20) || rec_varint(w, thread) || rec_varint(w, n))
		return w->err;
	for (size_t i = 0; i < n; i++)
		if (rec_varint(w, names[i]))
			return w->err;
	return rec_end(w, &r);
}

int gmp_writer__findings(struct gmp_writer *w, const char *json, size_t len)
{
	struct rec r;
	if (rec_begin(w, &r, GMP_REC_FINDINGS, len) || put(w, json, len))
		return w->err;
	return rec_end(w, &r);
}

uint64_t gmp_writer__events(const struct gmp_writer *w)
{
	return w->nev;
}

uint64_t gmp_writer__bytes_flushed(const struct gmp_writer *w)
{
	return w->flushed;
}

int gmp_writer__close(struct gmp_writer *w, int clean)
{
	if (!w)
		return 0;
	if (clean && !w->err) {
		struct rec r;
		if (!rec_begin(w, &r, GMP_REC_END, 10) && !rec_varint(w, w->nev))
			rec_end(w, &r);
	}
	if (!w->err)
		gmp_writer__flush(w);
	/* A clean close makes the profile durable (a pipe or tty cannot sync: fine). */
	if (clean && !w->err && w->fd >= 0 && fsync(w->fd) != 0 && errno != EINVAL &&
	    errno != EROFS)
		fail(w, -errno);
	if (w->fd >= 0 && close(w->fd) != 0)
		fail(w, -errno);
	int err = w->err;
	gmp_trace__free(w->dict);
	free(w->stack_slots);
	free(w->buf);
	free(w);
	return err;
}

void gmp_writer__abandon(struct gmp_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	gmp_trace__free(w->dict);
	free(w->stack_slots);
	free(w->buf);
	free(w);
}

/* Maps a string id of t to the writer's id (0 stays 0). */
static int64_t map_str(struct gmp_writer *w, const struct gmp_trace *t, uint32_t id)
{
	if (!id)
		return 0;
	size_t len;
	const char *s = gmp_trace__str(t, id, &len);
	return gmp_writer__string(w, s, len);
}

/* Maps a stack of t to the writer's id; its Python frames name strings, mapped too. */
static int64_t map_stack(struct gmp_writer *w, const struct gmp_trace *t, uint32_t id)
{
	if (!id)
		return 0;
	const uint64_t *pcs;
	size_t n = gmp_trace__stack(t, id, &pcs), py = 0;
	for (size_t i = 0; i < n; i++)
		py += pcs[i] >> 63;
	if (!py)
		return gmp_writer__stack(w, pcs, n);
	uint64_t *m = malloc(n * sizeof(*m));
	if (!m)
		return fail(w, -ENOMEM);
	int64_t rc = 0;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		rc = pcs[i] >> 63 ? map_str(w, t, (uint32_t)pcs[i]) : 0;
		m[i] = pcs[i] >> 63 ? (pcs[i] & ~(uint64_t)UINT32_MAX) | (uint64_t)rc : pcs[i];
	}
	if (rc >= 0)
		rc = gmp_writer__stack(w, m, n);
	free(m);
	return rc;
}

static int write_tables(struct gmp_writer *w, const struct gmp_trace *t)
{
	for (size_t i = 0; i < t->nmeta; i++) {
		int err = gmp_writer__meta(w, t->meta[i].key, t->meta[i].value);
		if (err)
			return err;
	}
	for (size_t i = 0; i < t->nmods; i++) {
		struct gmp_module m = t->mods[i];
		int64_t p = map_str(w, t, m.path), b = map_str(w, t, m.build_id);
		if (p < 0 || b < 0)
			return w->err;
		m.path = (uint32_t)p;
		m.build_id = (uint32_t)b;
		if (gmp_writer__module(w, &m))
			return w->err;
	}
	for (size_t i = 0; i < t->nstreams; i++)
		if (gmp_writer__stream(w, &t->streams[i]))
			return w->err;
	return 0;
}

/* Writes the range changes that came before event i (with ids remapped). */
static int write_ranges(struct gmp_writer *w, const struct gmp_trace *t, size_t *next, size_t i)
{
	for (; *next < t->nrchg && t->rchg[*next].before <= i; ++*next) {
		const uint32_t *names;
		size_t n = gmp_trace__range_path(t, t->rchg[*next].path, &names);
		uint32_t ids[GMP_RANGE_DEPTH_MAX];
		size_t k = 0;
		for (; k < n && k < GMP_RANGE_DEPTH_MAX; k++) {
			int64_t id = map_str(w, t, names[k]);
			if (id < 0)
				return w->err;
			ids[k] = (uint32_t)id;
		}
		if (gmp_writer__ranges(w, t->rchg[*next].thread, ids, k))
			return w->err;
	}
	return 0;
}

/* Writes the range changes, marks, failed allocations, pool states and returns that came before event i (ids remapped). */
static int write_failures(struct gmp_writer *w, const struct gmp_trace *t, size_t *next,
			  size_t i)
{
	if (write_ranges(w, t, &next[1], i))
		return w->err;
	for (; next[4] < t->nmarks && t->marks[next[4]].before <= i; next[4]++) {
		int64_t name = map_str(w, t, t->marks[next[4]].name);
		if (name < 0 || gmp_writer__mark(w, t->marks[next[4]].thread, t->marks[next[4]].host_ns, (uint32_t)name))
			return w->err;
	}
	for (; *next < t->nfails && t->fails[*next].before <= i; ++*next) {
		struct gmp_alloc_failure f = t->fails[*next];
		int64_t at = map_str(w, t, f.at), api = map_str(w, t, f.api);
		int64_t stack = map_stack(w, t, f.stack);
		if (at < 0 || api < 0 || stack < 0)
			return w->err;
		f.at = (uint32_t)at;
		f.api = (uint32_t)api;
		f.stack = (uint32_t)stack;
		if (gmp_writer__failure(w, &f))
			return w->err;
	}
	for (; next[2] < t->npools && t->pools[next[2]].before <= i; next[2]++)
		if (gmp_writer__pools(w, &t->pools[next[2]]))
			return w->err;
	for (; next[3] < t->nrets && t->rets[next[3]].before <= i; next[3]++)
		if (gmp_writer__returned(w, t->rets[next[3]].ev, t->rets[next[3]].host_ns))
			return w->err;
	return 0;
}

int gmp_writer__write_trace(struct gmp_writer *w, const struct gmp_trace *t)
{
	size_t nextf[5] = { 0 }; /* the next failure, range change, pool state, return and mark */
	if (write_tables(w, t))
		return w->err;
	for (size_t i = 0; i < t->nev; i++) {
		if (write_failures(w, t, nextf, i))
			return w->err;
		struct gmp_event e = t->ev[i];
		int64_t at = map_str(w, t, e.at), name = map_str(w, t, e.name);
		int64_t stack = map_stack(w, t, e.stack);
		if (at < 0 || name < 0 || stack < 0)
			return w->err;
		e.at = (uint32_t)at;
		e.name = (uint32_t)name;
		e.stack = (uint32_t)stack;
		e.flags &= (uint16_t) ~(GMP_EF_ACCESS_KNOWN | GMP_EF_TOUCH_KNOWN);
		if (gmp_event__named_id(&e)) {
			/* Event ids named by a string carry a string id: remap it too. */
			int64_t id = map_str(w, t, (uint32_t)e.value);
			if (id < 0)
				return w->err;
			e.value = GMP_EVENT_NAMED | (uint64_t)id;
		}
		int64_t idx = gmp_writer__event(w, &e);
		if (idx < 0)
			return (int)idx;
		const struct gmp_event *o = &t->ev[i];
		if (o->op == GMP_OP_KERNEL && (o->flags & GMP_EF_ACCESS_KNOWN) &&
		    gmp_writer__accesses(w, (uint64_t)idx, t->acc + o->acc_off, o->acc_n))
			return w->err;
		if (o->op == GMP_OP_KERNEL && (o->flags & GMP_EF_TOUCH_KNOWN) &&
		    gmp_writer__touches(w, (uint64_t)idx, t->touch + o->touch_off, o->touch_n))
			return w->err;
	}
	if (write_failures(w, t, nextf, t->nev))
		return w->err;
	if (t->findings_json &&
	    gmp_writer__findings(w, t->findings_json, strlen(t->findings_json)))
		return w->err;
	return 0;
}
