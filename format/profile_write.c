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

int gmp_writer__error(const struct gmp_writer *w)
{
	return w->err;
}

int gmp_writer__fail(struct gmp_writer *w, int err)
{
	return fail(w, err);
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
