// SPDX-License-Identifier: MIT
/*
 * The profile reader.  It parses records in order and stops, without
 * error, at the first record that is cut short (truncated) or fails its
 * checksum or its sanity checks (damaged); everything before it is kept.
 */
#include "gmprof/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "gmprof/script.h"
#include "util.h"

int gmp_profile__is_profile(const void *buf, size_t len)
{
	return len >= GMP_PROFILE_MAGIC_LEN &&
	       memcmp(buf, GMP_PROFILE_MAGIC, GMP_PROFILE_MAGIC_LEN) == 0;
}

static int check_header(const uint8_t *p, size_t len)
{
	size_t n = len < GMP_PROFILE_MAGIC_LEN ? len : GMP_PROFILE_MAGIC_LEN;
	if (memcmp(p, GMP_PROFILE_MAGIC, n) != 0)
		return -EINVAL;
	if (len < GMP_PROFILE_HEADER_LEN)
		return -ENODATA;
	if (p[8] != GMP_PROFILE_VERSION_MAJOR || p[9] != 0)
		return -EPROTONOSUPPORT;
	return 0;
}

/* Parser state shared by the memory and the fd readers. */
struct parser {
	struct gmp_trace *t;
	struct gmp_access *acc;
	size_t acc_cap;
	struct gmp_touch *touch;
	size_t touch_cap;
};

#define BAD(msg) do { *why = (msg); return 1; } while (0)

static int parse_event(struct parser *ps, struct gmp_dec *d, const char **why)
{
	struct gmp_event e = { 0 };
	e.op = gmp_dec_byte(d);
	e.kind = gmp_dec_byte(d);
	uint64_t flags = gmp_dec_varint(d);
	e.device = gmp_dec_u32(d);
	e.stream = gmp_dec_u32(d);
	e.thread = gmp_dec_u32(d);
	e.stack = gmp_dec_u32(d);
	e.at = gmp_dec_u32(d);
	e.name = gmp_dec_u32(d);
	e.host_ns = gmp_dec_varint(d);
	uint64_t addr = gmp_dec_varint(d), src = gmp_dec_varint(d);
	uint64_t size = gmp_dec_varint(d), value = gmp_dec_varint(d);
	if (d->err || flags > 0xffff)
		BAD("malformed event record");
	if (e.op == GMP_OP_KERNEL) { /* its accesses come later; value: its graph launch */
		if (value > UINT32_MAX)
			BAD("malformed event record");
		e.graph = (uint32_t)value;
	} else {
		e.addr = addr;
		e.size = size;
		if (e.op == GMP_OP_MEMCPY)
			e.src = src;
		else
			e.value = value;
	}
	e.flags = (uint16_t)(flags & ~(uint64_t)(GMP_EF_ACCESS_KNOWN | GMP_EF_TOUCH_KNOWN));
	if (e.op == 0 || e.op > GMP_OP_MAX || e.kind > GMP_MEM_KIND_MAX)
		BAD("event of unknown kind");
	const struct gmp_trace *t = ps->t;
	if (e.stack > t->nstacks || e.at > gmp_trace__nstrings(t) ||
	    e.name > gmp_trace__nstrings(t))
		BAD("event refers to an undefined string or stack");
	if (gmp_event__named_id(&e) && ((e.value & ~GMP_EVENT_NAMED) == 0 ||
					(e.value & ~GMP_EVENT_NAMED) > gmp_trace__nstrings(t)))
		BAD("event refers to an undefined event name");
	if (e.flags & GMP_EF_IN_KERNEL) {
		/* malloc() or free() inside a launch, read back after it: the launch came first. */
		if (!((e.op == GMP_OP_ALLOC && e.kind == GMP_MEM_DEVICE_HEAP) || e.op == GMP_OP_FREE))
			BAD("only device-heap allocations and frees happen inside a kernel");
		if (e.value >= t->nev || t->ev[e.value].op != GMP_OP_KERNEL)
			BAD("in-kernel heap event refers to no earlier kernel launch");
	}
	if (gmp_trace__add_event(ps->t, &e, NULL, 0, NULL, 0) < 0)
		return -ENOMEM;
	return 0;
}

static struct gmp_event *kernel_at(struct gmp_trace *t, uint64_t idx)
{
	if (idx >= t->nev || t->ev[idx].op != GMP_OP_KERNEL)
		return NULL;
	return &t->ev[idx];
}

static int parse_access(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t idx = gmp_dec_varint(d), n = gmp_dec_varint(d);
	struct gmp_event *k = kernel_at(ps->t, idx);
	if (d->err || !k || (k->flags & GMP_EF_ACCESS_KNOWN) ||
	    n > (uint64_t)(d->end - d->p) / 2)
		BAD("malformed kernel access record");
	if (GMP_GROW(ps->acc, ps->acc_cap, n ? n : 1))
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		ps->acc[i].addr = gmp_dec_varint(d);
		ps->acc[i].rw = gmp_dec_u32(d);
		if (ps->acc[i].rw & ~(GMP_RW_READ | GMP_RW_WRITE))
			d->err = 1;
	}
	if (d->err)
		BAD("malformed kernel access record");
	return gmp_trace__set_accesses(ps->t, idx, ps->acc, n) ? -ENOMEM : 0;
}

/* EXPORTED (1.7): an earlier allocation was shared with other processes. */
static int parse_exported(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t idx = gmp_dec_varint(d);
	if (d->err || idx >= ps->t->nev || ps->t->ev[idx].op != GMP_OP_ALLOC ||
	    !gmp_mem_kind__device_bytes(ps->t->ev[idx].kind))
		BAD("malformed exported record");
	ps->t->ev[idx].flags |= GMP_EF_EXPORTED;
	return 0;
}

/* LABEL (1.1): an earlier allocation gets a name, replacing any it had. */
static int parse_label(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t idx = gmp_dec_varint(d), label = gmp_dec_varint(d);
	if (d->err || idx >= ps->t->nev || ps->t->ev[idx].op != GMP_OP_ALLOC || !label ||
	    label > gmp_trace__nstrings(ps->t))
		BAD("malformed label record");
	ps->t->ev[idx].name = (uint32_t)label;
	ps->t->ev[idx].flags |= GMP_EF_HAS_LABEL;
	return 0;
}

/* FAILED_ALLOC (1.2): an allocation that ran out of memory, after the events so far. */
static int parse_failure(struct parser *ps, struct gmp_dec *d, const char **why)
{
	struct gmp_alloc_failure f = { .before = ps->t->nev };
	f.kind = gmp_dec_u32(d);
	f.device = gmp_dec_u32(d);
	f.stream = gmp_dec_u32(d);
	f.thread = gmp_dec_u32(d);
	f.stack = gmp_dec_u32(d);
	f.at = gmp_dec_u32(d);
	f.api = gmp_dec_u32(d);
	f.size = gmp_dec_varint(d);
	f.host_ns = gmp_dec_varint(d);
	f.dev_free = gmp_dec_varint(d);
	f.dev_total = gmp_dec_varint(d);
	if (d->err || f.dev_free > f.dev_total)
		BAD("malformed failed-allocation record");
	int err = gmp_trace__add_failure(ps->t, &f);
	if (err == -EINVAL)
		BAD("failed-allocation record refers to an undefined string or stack");
	return err;
}

/* POOLS (1.3): a device's stream-ordered memory pools, after the events so far. */
static int parse_pools(struct parser *ps, struct gmp_dec *d, const char **why)
{
	struct gmp_pool_state s = { .before = ps->t->nev };
	s.device = gmp_dec_u32(d);
	s.pools = gmp_dec_u32(d);
	s.reserved = gmp_dec_varint(d);
	s.used = gmp_dec_varint(d);
	s.reserved_high = gmp_dec_varint(d);
	s.used_high = gmp_dec_varint(d);
	s.threshold = gmp_dec_varint(d);
	if (d->err)
		BAD("malformed pools record");
	int err = gmp_trace__add_pool_state(ps->t, &s);
	if (err == -EINVAL)
		BAD("pools record with contradictory sizes (in use above reserved, or above the most)");
	return err;
}

/* RETURNED (1.5): when an earlier event's call returned. */
static int parse_returned(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t ev = gmp_dec_varint(d), ns = gmp_dec_varint(d);
	if (d->err)
		BAD("malformed returned record");
	int err = ev < ps->t->nev ? gmp_trace__add_return(ps->t, (uint32_t)ev, ns) : -EINVAL;
	if (err == -EINVAL)
		BAD("returned record names no earlier event, or a time before that event's");
	return err;
}

/* MARK (1.6): an NVTX mark before the next event. */
static int parse_mark(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint32_t thread = gmp_dec_u32(d);
	uint64_t ns = gmp_dec_varint(d);
	uint32_t name = gmp_dec_u32(d);
	if (d->err)
		BAD("malformed mark record");
	int err = gmp_trace__add_mark(ps->t, thread, ns, name);
	if (err == -EINVAL)
		BAD("mark record refers to an undefined string");
	return err;
}

/* RANGES (1.2): a host thread's NVTX ranges from the next event on. */
static int parse_ranges(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint32_t thread = gmp_dec_u32(d);
	uint64_t n = gmp_dec_varint(d);
	uint32_t names[GMP_RANGE_DEPTH_MAX];
	if (d->err || n > GMP_RANGE_DEPTH_MAX)
		BAD("malformed ranges record");
	for (uint64_t i = 0; i < n; i++)
		names[i] = gmp_dec_u32(d);
	if (d->err)
		BAD("malformed ranges record");
	int64_t path = gmp_trace__add_range_path(ps->t, names, (size_t)n);
	if (path == -EINVAL)
		BAD("ranges record refers to an undefined string");
	if (path < 0)
		return (int)path;
	return gmp_trace__add_range_change(ps->t, ps->t->nev, thread, (uint32_t)path);
}

static int parse_touch(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t idx = gmp_dec_varint(d), n = gmp_dec_varint(d);
	struct gmp_event *k = kernel_at(ps->t, idx);
	if (d->err || !k || (k->flags & GMP_EF_TOUCH_KNOWN) ||
	    n > (uint64_t)(d->end - d->p) / 4)
		BAD("malformed kernel touch record");
	if (GMP_GROW(ps->touch, ps->touch_cap, n ? n : 1))
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		struct gmp_touch *tc = &ps->touch[i];
		tc->addr = gmp_dec_varint(d);
		tc->size = gmp_dec_varint(d);
		tc->count = gmp_dec_varint(d);
		tc->rw = gmp_dec_u32(d);
		tc->reserved = 0;
		if (tc->rw & ~(GMP_RW_READ | GMP_RW_WRITE) || tc->addr + tc->size < tc->addr)
			d->err = 1;
	}
	if (d->err)
		BAD("malformed kernel touch record");
	return gmp_trace__set_touches(ps->t, idx, ps->touch, n) ? -ENOMEM : 0;
}

static int parse_string(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t id = gmp_dec_varint(d), len = gmp_dec_varint(d);
	const uint8_t *s = gmp_dec_bytes(d, len);
	if (d->err || id != gmp_trace__nstrings(ps->t) + 1)
		BAD("malformed string record");
	uint32_t got = gmp_trace__intern(ps->t, (const char *)s, len);
	if (!got)
		return -ENOMEM;
	if (got != id)
		BAD("string record repeats an earlier string");
	return 0;
}

static int parse_stack(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t id = gmp_dec_varint(d), n = gmp_dec_varint(d);
	if (d->err || id != ps->t->nstacks + 1 || n > (uint64_t)(d->end - d->p))
		BAD("malformed stack record");
	uint64_t small[64] = { 0 };
	uint64_t *pcs = n <= 64 ? small : malloc(n * sizeof(*pcs));
	if (!pcs)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		pcs[i] = gmp_dec_varint(d);
	int bad = d->err;
	uint32_t got = bad ? 0 : gmp_trace__add_stack(ps->t, pcs, n);
	if (pcs != small)
		free(pcs);
	if (bad)
		BAD("malformed stack record");
	return got ? 0 : -ENOMEM;
}

static int parse_meta(struct parser *ps, struct gmp_dec *d, const char **why)
{
	uint64_t kl = gmp_dec_varint(d);
	const uint8_t *k = gmp_dec_bytes(d, kl);
	uint64_t vl = gmp_dec_varint(d);
	const uint8_t *v = gmp_dec_bytes(d, vl);
	if (d->err || memchr(k, 0, kl) || memchr(v, 0, vl))
		BAD("malformed metadata record");
	char *ks = strndup((const char *)k, kl), *vs = strndup((const char *)v, vl);
	int err = (!ks || !vs) ? -ENOMEM : gmp_trace__set_meta(ps->t, ks, vs);
	free(ks);
	free(vs);
	return err;
}

static int parse_module(struct parser *ps, struct gmp_dec *d, const char **why)
{
	struct gmp_module m;
	m.path = gmp_dec_u32(d);
	m.build_id = gmp_dec_u32(d);
	m.base = gmp_dec_varint(d);
	m.size = gmp_dec_varint(d);
	m.bias = gmp_dec_varint(d);
	size_t ns = gmp_trace__nstrings(ps->t);
	if (d->err || m.path > ns || m.build_id > ns)
		BAD("malformed module record");
	return gmp_trace__add_module(ps->t, &m);
}

static int parse_stream(struct parser *ps, struct gmp_dec *d, const char **why)
{
	struct gmp_stream_info s = { 0 };
	s.number = gmp_dec_u32(d);
	s.device = gmp_dec_u32(d);
	s.handle = gmp_dec_varint(d);
	s.flags = gmp_dec_u32(d);
	if (d->err)
		BAD("malformed stream record");
	return gmp_trace__add_stream(ps->t, &s);
}

/*
 * Parses one record's payload.  Returns 0, a negative errno (fatal), or 1
 * with *why set when the record makes no sense.
 */
static int parse_record(struct parser *ps, uint8_t type, const uint8_t *p, size_t n,
			const char **why)
{
	struct gmp_dec d = { .p = p, .end = p + n };
	int r;
	switch (type) {
	case GMP_REC_META: r = parse_meta(ps, &d, why); break;
	case GMP_REC_STRING: r = parse_string(ps, &d, why); break;
	case GMP_REC_STACK: r = parse_stack(ps, &d, why); break;
	case GMP_REC_MODULE: r = parse_module(ps, &d, why); break;
	case GMP_REC_STREAM: r = parse_stream(ps, &d, why); break;
	case GMP_REC_EVENT: r = parse_event(ps, &d, why); break;
	case GMP_REC_ACCESS: r = parse_access(ps, &d, why); break;
	case GMP_REC_TOUCH: r = parse_touch(ps, &d, why); break;
	case GMP_REC_LABEL: r = parse_label(ps, &d, why); break;
	case GMP_REC_FAILED_ALLOC: r = parse_failure(ps, &d, why); break;
	case GMP_REC_RANGES: r = parse_ranges(ps, &d, why); break;
	case GMP_REC_POOLS: r = parse_pools(ps, &d, why); break;
	case GMP_REC_RETURNED: r = parse_returned(ps, &d, why); break;
	case GMP_REC_MARK: r = parse_mark(ps, &d, why); break;
	case GMP_REC_EXPORTED: r = parse_exported(ps, &d, why); break;
	case GMP_REC_FINDINGS:
		r = gmp_trace__set_findings(ps->t, (const char *)p, n);
		d.p = d.end;
		break;
	case GMP_REC_END:
		if (gmp_dec_varint(&d) != ps->t->nev || d.err)
			BAD("end record disagrees with the event count");
		ps->t->ended = 1;
		r = 0;
		break;
	default:
		return 0; /* a record type from a newer minor version: skip it */
	}
	if (r == 0 && d.p != d.end)
		BAD("record has trailing bytes");
	return r;
}

/*
 * Parses as many whole records as buf[0..len) holds.  Returns the bytes
 * consumed; sets *stop when a record was damaged (parsing must end) and
 * *err on a fatal error.
 */
static size_t parse_records(struct parser *ps, const uint8_t *buf, size_t len,
			    int *stop, int *err)
{
	size_t off = 0;
	while (off < len && !*stop) {
		struct gmp_dec d = { .p = buf + off + 1, .end = buf + len };
		uint8_t type = buf[off];
		uint64_t plen = gmp_dec_varint(&d);
		if (d.err) {
			/* A varint that runs off the end is truncation only if short. */
			if (len - off < 11)
				break;
			ps->t->damaged = 1;
			ps->t->damage = "malformed record length";
			*stop = 1;
			break;
		}
		size_t hlen = (size_t)(d.p - (buf + off));
		if (plen > len - off - hlen || len - off - hlen - plen < 4)
			break; /* incomplete: need more bytes */
		size_t total = hlen + (size_t)plen + 4;
		uint32_t want = gmp_get_le32(buf + off + hlen + plen);
		if (type == 0 || gmp_crc32(0, buf + off, hlen + plen) != want) {
			ps->t->damaged = 1;
			ps->t->damage = "record checksum mismatch";
			*stop = 1;
			break;
		}
		const char *why = NULL;
		int r = parse_record(ps, type, buf + off + hlen, (size_t)plen, &why);
		if (r < 0) {
			*err = r;
			*stop = 1;
			break;
		}
		if (r > 0) {
			ps->t->damaged = 1;
			ps->t->damage = why;
			*stop = 1;
			break;
		}
		off += total;
		ps->t->bytes_read += total;
	}
	return off;
}

static void *fit(void *p, size_t n, size_t elem, size_t *cap)
{
	if (!p || !n)
		return p;
	void *q = realloc(p, n * elem);
	if (!q)
		return p;
	*cap = n;
	return q;
}

/*
 * Puts in-kernel heap ops beside their launches, counts unharvested
 * kernels (and intra-mode ones without touches) and gives back the arrays'
 * growth slack.
 */
static int finish(struct gmp_trace *t)
{
	int err = gmp_trace__place_heap_ops(t); /* -EINVAL: parse_event checked each */
	if (err || (err = gmp_trace__settle_ranges(t)))
		return err;
	t->ev = fit(t->ev, t->nev, sizeof(*t->ev), &t->ev_cap);
	t->acc = fit(t->acc, t->nacc, sizeof(*t->acc), &t->acc_cap);
	t->touch = fit(t->touch, t->ntouch, sizeof(*t->touch), &t->touch_cap);
	t->pcs = fit(t->pcs, t->npcs, sizeof(*t->pcs), &t->pcs_cap);
	uint64_t missing = 0, untouched = 0;
	for (size_t i = 0; i < t->nev; i++) {
		const struct gmp_event *e = &t->ev[i];
		if (e->op != GMP_OP_KERNEL)
			continue;
		if (!(e->flags & GMP_EF_ACCESS_KNOWN))
			missing++;
		else if (e->kind != GMP_KERNEL_OBJECT && !(e->flags & GMP_EF_TOUCH_KNOWN))
			untouched++; /* intra mode, but its maps or records were lost */
	}
	t->unharvested = missing;
	t->untouched = untouched;
	return 0;
}

static int parser_init(struct parser *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->t = gmp_trace__new();
	return ps->t ? 0 : -ENOMEM;
}

static void parser_done(struct parser *ps)
{
	free(ps->acc);
	free(ps->touch);
}

int gmp_profile__read_mem(const void *buf, size_t len, struct gmp_trace **out)
{
	int err = check_header(buf, len);
	if (err)
		return err;
	struct parser ps;
	if (parser_init(&ps))
		return -ENOMEM;
	const uint8_t *p = buf;
	int stop = 0;
	ps.t->bytes_read = GMP_PROFILE_HEADER_LEN;
	ps.t->bytes_total = len;
	size_t used = parse_records(&ps, p + GMP_PROFILE_HEADER_LEN,
				    len - GMP_PROFILE_HEADER_LEN, &stop, &err);
	if (!stop && GMP_PROFILE_HEADER_LEN + used < len)
		ps.t->truncated = 1;
	parser_done(&ps);
	if (err) {
		gmp_trace__free(ps.t);
		return err;
	}
	if ((err = finish(ps.t))) {
		gmp_trace__free(ps.t);
		return err;
	}
	*out = ps.t;
	return 0;
}

static ssize_t read_full(int fd, uint8_t *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int gmp_profile__read_fd(int fd, struct gmp_trace **out)
{
	uint8_t hdr[GMP_PROFILE_HEADER_LEN];
	ssize_t n = read_full(fd, hdr, sizeof(hdr));
	if (n < 0)
		return (int)n;
	int err = check_header(hdr, (size_t)n);
	if (err)
		return err;
	struct parser ps;
	if (parser_init(&ps))
		return -ENOMEM;
	ps.t->bytes_read = GMP_PROFILE_HEADER_LEN;
	uint64_t total = GMP_PROFILE_HEADER_LEN;
	size_t cap = 1 << 20, len = 0;
	uint8_t *buf = malloc(cap);
	int stop = 0, eof = 0;
	if (!buf)
		err = -ENOMEM;
	while (!err && !stop && !eof) {
		if (len == cap) {
			/* One record larger than the window: widen it. */
			if (GMP_GROW(buf, cap, cap + 1)) {
				err = -ENOMEM;
				break;
			}
		}
		ssize_t r = read_full(fd, buf + len, cap - len);
		if (r < 0) {
			err = (int)r;
			break;
		}
		eof = (size_t)r < cap - len;
		len += (size_t)r;
		total += (uint64_t)r;
		size_t used = parse_records(&ps, buf, len, &stop, &err);
		memmove(buf, buf + used, len - used);
		len -= used;
	}
	if (!err && stop) {
		/* Count the rest of the file so the caller can say how much was left. */
		uint8_t sink[65536];
		ssize_t r;
		while ((r = read_full(fd, sink, sizeof(sink))) > 0)
			total += (uint64_t)r;
	}
	free(buf);
	parser_done(&ps);
	if (err) {
		gmp_trace__free(ps.t);
		return err;
	}
	if (!stop && len > 0)
		ps.t->truncated = 1;
	ps.t->bytes_total = total;
	if ((err = finish(ps.t))) {
		gmp_trace__free(ps.t);
		return err;
	}
	*out = ps.t;
	return 0;
}
