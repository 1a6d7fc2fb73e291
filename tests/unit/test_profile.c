// SPDX-License-Identifier: MIT
/*
 * The profile writer and reader: a full round trip of every record type,
 * truncation at every byte offset, damaged records, unknown record types,
 * version and magic checks, and safe file creation (the reader's checks of
 * each record's content and the writer's stack index: test_profile_checks.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "gmprof/profile.h"
#include "gmprof/script.h"
#include "support.h"

struct sample {
	unsigned char *buf;
	size_t len;
	/* bound[i]: offset where record i starts (the last is the file size);
	 * events_at[i]: events complete by then; type[i]: record i's type */
	uint64_t bound[64];
	size_t events_at[64];
	unsigned type[64];
	size_t nbound;
};

/* Splits the file into records by the documented framing. */
static void frame(struct sample *s)
{
	size_t off = GMP_PROFILE_HEADER_LEN, events = 0;
	s->nbound = 0;
	while (off < s->len) {
		assert_true(s->nbound < 63);
		s->bound[s->nbound] = off;
		s->events_at[s->nbound] = events;
		s->type[s->nbound] = s->buf[off];
		struct gmp_dec d = { .p = s->buf + off + 1, .end = s->buf + s->len };
		uint64_t plen = gmp_dec_varint(&d);
		assert_false(d.err);
		events += s->buf[off] == GMP_REC_EVENT;
		off = (size_t)(d.p - s->buf) + plen + 4;
		s->nbound++;
	}
	assert_int_equal(off, s->len);
	s->bound[s->nbound] = off;
	s->events_at[s->nbound] = events;
	s->nbound++;
}

/* Writes a small profile with every record type; one flush per record. */
static void make_sample(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	char *path = ts_tmpfile("sample");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 1, &w), 0);
	assert_int_equal(gmp_writer__meta(w, "command", "./app --size 3"), 0);
	int64_t name = gmp_writer__string(w, "vecAdd", 6);
	int64_t label = gmp_writer__string(w, "d_a", 3);
	assert_true(name == 1 && label == 2);
	assert_int_equal(gmp_writer__string(w, "vecAdd", 6), 1); /* interned */
	uint64_t pcs[3] = { 0x401000, 0x401234, 0x7f0000001000 };
	int64_t st = gmp_writer__stack(w, pcs, 3);
	assert_int_equal(st, 1);
	assert_int_equal(gmp_writer__stack(w, pcs, 3), 1);
	assert_int_equal(gmp_writer__stack(w, pcs, 2), 2);
	struct gmp_module m = { .path = (uint32_t)gmp_writer__string(w, "/usr/bin/app", 12),
				.base = 0x400000, .size = 0x10000, .bias = 0 };
	assert_int_equal(gmp_writer__module(w, &m), 0);
	struct gmp_stream_info si = { .number = 1, .device = 0, .handle = 0x55550000, .flags = 1 };
	assert_int_equal(gmp_writer__stream(w, &si), 0);
	struct gmp_event e = { .op = GMP_OP_ALLOC, .addr = 0x7f0000000000, .size = 4096,
			       .name = (uint32_t)label, .flags = GMP_EF_HAS_LABEL, .stack = 1,
			       .thread = 77, .host_ns = 123456 };
	assert_int_equal(gmp_writer__event(w, &e), 0);
	struct gmp_event k = { .op = GMP_OP_KERNEL, .name = (uint32_t)name, .stream = 1,
			       .stack = 2 };
	assert_int_equal(gmp_writer__event(w, &k), 1);
	struct gmp_access acc[2] = { { 0x7f0000000000, GMP_RW_READ },
				     { 0x7f0000000010, GMP_RW_READ | GMP_RW_WRITE } };
	assert_int_equal(gmp_writer__accesses(w, 1, acc, 2), 0);
	struct gmp_touch tc = { 0x7f0000000000, 64, 3, GMP_RW_READ, 0 };
	assert_int_equal(gmp_writer__touches(w, 1, &tc, 1), 0);
	struct gmp_event f = { .op = GMP_OP_FREE, .addr = 0x7f0000000000, .device = 2 };
	assert_int_equal(gmp_writer__event(w, &f), 2);
	assert_int_equal(gmp_writer__findings(w, "{\"findings\":[]}", 15), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	s->buf = ts_slurp(path, &s->len);
	frame(s);
	assert_int_equal(s->events_at[s->nbound - 1], 3);
	unlink(path);
	free(path);
}

static void check_full(const struct gmp_trace *t)
{
	assert_int_equal(t->nev, 3);
	assert_true(t->ended);
	assert_false(t->truncated);
	assert_false(t->damaged);
	assert_string_equal(gmp_trace__meta(t, "command"), "./app --size 3");
	const struct gmp_event *a = &t->ev[0], *k = &t->ev[1], *f = &t->ev[2];
	assert_int_equal(a->op, GMP_OP_ALLOC);
	assert_int_equal(a->addr, 0x7f0000000000);
	assert_int_equal(a->size, 4096);
	assert_int_equal(a->thread, 77);
	assert_int_equal(a->host_ns, 123456);
	assert_string_equal(gmp_trace__str(t, a->name, NULL), "d_a");
	const uint64_t *pcs;
	assert_int_equal(gmp_trace__stack(t, a->stack, &pcs), 3);
	assert_int_equal(pcs[2], 0x7f0000001000);
	assert_int_equal(gmp_trace__stack(t, k->stack, &pcs), 2);
	assert_int_equal(k->op, GMP_OP_KERNEL);
	assert_int_equal(k->stream, 1);
	assert_true(k->flags & GMP_EF_ACCESS_KNOWN);
	assert_true(k->flags & GMP_EF_TOUCH_KNOWN);
	assert_int_equal(k->acc_n, 2);
	assert_int_equal(t->acc[k->acc_off + 1].rw, GMP_RW_READ | GMP_RW_WRITE);
	assert_int_equal(k->touch_n, 1);
	assert_int_equal(t->touch[k->touch_off].count, 3);
	assert_int_equal(f->device, 2);
	assert_int_equal(t->nmods, 1);
	assert_string_equal(gmp_trace__str(t, t->mods[0].path, NULL), "/usr/bin/app");
	assert_int_equal(t->nstreams, 1);
	assert_int_equal(t->streams[0].handle, 0x55550000);
	assert_string_equal(t->findings_json, "{\"findings\":[]}");
	assert_int_equal(t->unharvested, 0);
}

static void round_trip(void **state)
{
	(void)state;
	struct sample s;
	make_sample(&s);
	struct gmp_trace *t = NULL;
	assert_int_equal(gmp_profile__read_mem(s.buf, s.len, &t), 0);
	check_full(t);
	gmp_trace__free(t);
	/* The same through a file descriptor. */
	char *path = ts_tmpfile("rt");
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s.buf, s.len), (ssize_t)s.len);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(gmp_profile__read_fd(fd, &t), 0);
	check_full(t);
	assert_int_equal(t->bytes_read, s.len);
	gmp_trace__free(t);
	close(fd);
	unlink(path);
	free(path);
	free(s.buf);
}

static void truncation_at_every_byte(void **state)
{
	(void)state;
	struct sample s;
	make_sample(&s);
	for (size_t cut = 0; cut <= s.len; cut++) {
		struct gmp_trace *t = NULL;
		int err = gmp_profile__read_mem(s.buf, cut, &t);
		if (cut < GMP_PROFILE_HEADER_LEN) {
			assert_int_equal(err, -ENODATA);
			continue;
		}
		assert_int_equal(err, 0);
		size_t b = 0;
		while (b + 1 < s.nbound && s.bound[b + 1] <= cut)
			b++;
		if (cut < s.bound[0])
			b = 0;
		if (t->nev != s.events_at[b] || t->bytes_read != s.bound[b])
			fail_msg("cut at %zu: %zu events, %llu bytes; expected %zu and %llu", cut,
				 t->nev, (unsigned long long)t->bytes_read, s.events_at[b],
				 (unsigned long long)s.bound[b]);
		assert_int_equal(t->truncated, cut != s.bound[b]);
		assert_false(t->damaged);
		assert_int_equal(t->ended, cut == s.len);
		/* A kernel whose access record was cut off counts as unharvested. */
		if (t->nev >= 2 && !(t->ev[1].flags & GMP_EF_ACCESS_KNOWN))
			assert_int_equal(t->unharvested, 1);
		gmp_trace__free(t);
	}
	free(s.buf);
}

static void damaged_record(void **state)
{
	(void)state;
	struct sample s;
	make_sample(&s);
	/* Corrupt one byte inside the second event record (the kernel). */
	size_t k = 0, seen = 0;
	for (; k < s.nbound && seen < 2; k++)
		seen += s.type[k] == GMP_REC_EVENT;
	k--;
	s.buf[s.bound[k] + 3] ^= 0x5a;
	struct gmp_trace *t = NULL;
	assert_int_equal(gmp_profile__read_mem(s.buf, s.len, &t), 0);
	assert_true(t->damaged);
	assert_string_equal(t->damage, "record checksum mismatch");
	assert_int_equal(t->nev, 1);
	assert_int_equal(t->bytes_read, s.bound[k]);
	gmp_trace__free(t);
	free(s.buf);
}

static void unknown_record_is_skipped(void **state)
{
	(void)state;
	struct sample s;
	make_sample(&s);
	/* A record of a type from a future minor version, right after the header. */
	unsigned char rec[4 + 3 + 4] = { 200, 3, 'a', 'b', 'c' };
	size_t rl = 5;
	gmp_put_le32(rec + rl, gmp_crc32(0, rec, rl));
	rl += 4;
	unsigned char *b = malloc(s.len + rl);
	memcpy(b, s.buf, GMP_PROFILE_HEADER_LEN);
	memcpy(b + GMP_PROFILE_HEADER_LEN, rec, rl);
	memcpy(b + GMP_PROFILE_HEADER_LEN + rl, s.buf + GMP_PROFILE_HEADER_LEN,
	       s.len - GMP_PROFILE_HEADER_LEN);
	struct gmp_trace *t = NULL;
	assert_int_equal(gmp_profile__read_mem(b, s.len + rl, &t), 0);
	check_full(t);
	gmp_trace__free(t);
	free(b);
	free(s.buf);
}

static void header_checks(void **state)
{
	(void)state;
	struct sample s;
	make_sample(&s);
	struct gmp_trace *t = NULL;
	s.buf[8] = 2;
	assert_int_equal(gmp_profile__read_mem(s.buf, s.len, &t), -EPROTONOSUPPORT);
	s.buf[8] = 1;
	s.buf[1] = 'X';
	assert_int_equal(gmp_profile__read_mem(s.buf, s.len, &t), -EINVAL);
	assert_false(gmp_profile__is_profile(s.buf, s.len));
	assert_int_equal(gmp_profile__read_mem("{\"op\":\"end\"}", 12, &t), -EINVAL);
	free(s.buf);
}

static void safe_create(void **state)
{
	(void)state;
	char *path = ts_tmpfile("safe");
	char *link = ts_tmpfile("link");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 0, &w), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	/* No overwrite unless forced. */
	assert_int_equal(gmp_writer__create(path, 0, 0, &w), -EEXIST);
	assert_int_equal(gmp_writer__create(path, 1, 0, &w), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	/* Never through a symlink, forced or not. */
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(gmp_writer__create(link, 0, 0, &w), -EEXIST);
	assert_int_equal(gmp_writer__create(link, 1, 0, &w), -EEXIST);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(link);
	unlink(path);
	free(link);
	free(path);
}

/* t written as a profile by gmp_writer__write_trace and read back. */
static struct gmp_trace *reread(const struct gmp_trace *t, const char *tag)
{
	char *path = ts_tmpfile(tag);
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 0, &w), 0);
	assert_int_equal(gmp_writer__write_trace(w, t), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	struct gmp_trace *u = ts_read_profile(path);
	unlink(path);
	free(path);
	return u;
}

static void write_trace_round_trip(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("simple_multi_copy.jsonl");
	struct gmp_trace *u = reread(t, "wt");
	assert_int_equal(u->nev, t->nev);
	for (size_t i = 0; i < t->nev; i++) {
		assert_int_equal(u->ev[i].op, t->ev[i].op);
		assert_int_equal(u->ev[i].addr, t->ev[i].addr);
		assert_string_equal(gmp_trace__str(u, u->ev[i].at, NULL),
				    gmp_trace__str(t, t->ev[i].at, NULL));
	}
	gmp_trace__free(u);
	gmp_trace__free(t);
}

/* Failed allocations keep their place among the events, their size, kind, call and site. */
static void failures_round_trip(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("oom.jsonl");
	assert_int_equal(t->nfails, 3);
	struct gmp_trace *u = reread(t, "oom");
	assert_false(u->damaged);
	assert_int_equal(u->nev, t->nev);
	assert_int_equal(u->nfails, t->nfails);
	static const uint64_t before[3] = { 9, 13, 13 };
	for (size_t i = 0; i < t->nfails; i++) {
		const struct gmp_alloc_failure *x = &t->fails[i], *y = &u->fails[i];
		assert_int_equal(y->before, before[i]);
		assert_int_equal(y->before, x->before);
		assert_int_equal(y->size, x->size);
		assert_int_equal(y->kind, x->kind);
		assert_int_equal(y->stream, x->stream);
		assert_int_equal(y->device, x->device);
		assert_string_equal(gmp_trace__str(u, y->api, NULL), gmp_trace__str(t, x->api, NULL));
		assert_string_equal(gmp_trace__str(u, y->at, NULL), gmp_trace__str(t, x->at, NULL));
	}
	assert_int_equal(u->fails[2].kind, GMP_MEM_ASYNC);
	assert_int_equal(u->fails[2].stream, 1);
	assert_string_equal(gmp_trace__str(u, u->fails[1].api, NULL), "cuMemAlloc");
	gmp_trace__free(u);
	/* A failure naming a string that does not exist stops the reader: damaged. */
	char *path = ts_tmpfile("oom");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 1, 0, &w), 0);
	struct gmp_alloc_failure f = { .size = 64, .api = 5 };
	assert_int_equal(gmp_writer__failure(w, &f), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	u = ts_read_profile(path);
	assert_true(u->damaged);
	assert_int_equal(u->nfails, 0);
	gmp_trace__free(u);
	gmp_trace__free(t);
	unlink(path);
	free(path);
}

/* Stream-ordered pools' states: through a profile and back, found by moment and device; nonsense refused. */
static void pools_round_trip(void **state)
{
	(void)state;
	static const char script[] =
		"{\"op\":\"alloc\",\"addr\":4096,\"size\":64,\"kind\":\"async\"}\n"
		"{\"op\":\"pools\",\"reserved\":2097152,\"used\":64}\n"
		"{\"op\":\"pools\",\"reserved\":0,\"used\":0,\"reserved_high\":8,\"used_high\":4,\"device\":1,"
		"\"pools\":2,\"release_threshold\":9}\n"
		"{\"op\":\"free\",\"addr\":4096}\n"
		"{\"op\":\"alloc_failed\",\"size\":4096}\n"
		"{\"op\":\"pools\",\"reserved\":2097152,\"used\":0,\"used_high\":64}\n";
	struct gmp_trace *t = ts_script(script);
	struct gmp_trace *u = reread(t, "pools");
	const struct gmp_trace *both[2] = { t, u };
	for (int k = 0; k < 2; k++) {
		const struct gmp_trace *x = both[k];
		assert_int_equal(x->npools, 3);
		assert_int_equal(x->pools[0].before, 1);
		assert_int_equal(x->pools[0].reserved_high, 2097152); /* defaults: the current values */
		assert_int_equal(x->pools[0].used_high, 64);
		assert_int_equal(x->pools[1].device, 1);
		assert_int_equal(x->pools[1].pools, 2);
		assert_int_equal(x->pools[1].threshold, 9);
		assert_int_equal(x->pools[1].reserved_high, 8);
		assert_int_equal(x->pools[2].before, 2);
		/* The failure's state: the one taken at its moment, on its device. */
		const struct gmp_pool_state *at = gmp_trace__pool_state_at(x, x->fails[0].before, 0);
		assert_ptr_equal(at, &x->pools[2]);
		assert_null(gmp_trace__pool_state_at(x, 0, 0));
		assert_null(gmp_trace__pool_state_at(x, 2, 1));
		assert_ptr_equal(gmp_trace__pool_state_last(x, 0), &x->pools[2]);
		assert_ptr_equal(gmp_trace__pool_state_last(x, 1), &x->pools[1]);
		assert_null(gmp_trace__pool_state_last(x, 2));
	}
	gmp_trace__free(u);
	gmp_trace__free(t);
	/* A record whose bytes in use exceed the reserved ones stops the reader: damaged. */
	char *path = ts_tmpfile("pools");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 1, 0, &w), 0);
	struct gmp_pool_state bad = { .pools = 1, .reserved = 8, .used = 9, .reserved_high = 9, .used_high = 9 };
	assert_int_equal(gmp_writer__pools(w, &bad), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	u = ts_read_profile(path);
	assert_true(u->damaged);
	assert_int_equal(u->npools, 0);
	gmp_trace__free(u);
	unlink(path);
	free(path);
	/* In a script: each contradiction is refused. */
	static const char *const refused[] = {
		"{\"op\":\"pools\",\"reserved\":8,\"used\":9}",
		"{\"op\":\"pools\",\"reserved\":8,\"used\":1,\"reserved_high\":7}",
		"{\"op\":\"pools\",\"reserved\":8,\"used\":4,\"used_high\":3}",
		"{\"op\":\"pools\",\"reserved\":8,\"used\":1,\"pools\":0}",
		"{\"op\":\"pools\",\"used\":1}",
		"{\"op\":\"pools\",\"reserved\":8,\"used\":1,\"free\":3}",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct gmp_trace *r = NULL;
		struct gmp_script_error e;
		assert_int_equal(gmp_script__read_mem(refused[i], strlen(refused[i]), &r, &e), -EINVAL);
		assert_int_equal(e.line, 1);
		assert_null(r);
	}
}

/* Each event's NVTX ranges: per host thread, through a profile and back. */
static void ranges_round_trip(void **state)
{
	(void)state;
	static const char script[] =
		"{\"op\":\"range_push\",\"name\":\"step\",\"thread\":1}\n"
		"{\"op\":\"alloc\",\"addr\":4096,\"size\":64,\"thread\":1}\n"
		"{\"op\":\"range_push\",\"name\":\"io\",\"thread\":2}\n"
		"{\"op\":\"range_push\",\"name\":\"fwd\",\"thread\":1}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[4096],\"thread\":1}\n"
		"{\"op\":\"alloc\",\"addr\":8192,\"size\":64,\"kind\":\"device_heap\",\"thread\":9}\n"
		"{\"op\":\"memcpy\",\"src\":4096,\"size\":64,\"thread\":2}\n"
		"{\"op\":\"alloc_failed\",\"size\":4096,\"thread\":2}\n"
		"{\"op\":\"range_pop\",\"thread\":1}\n"
		"{\"op\":\"range_pop\",\"thread\":1}\n"
		"{\"op\":\"free\",\"addr\":4096,\"thread\":1}\n";
	/* step | step > fwd | the launch's, not thread 9's | io | none */
	static const char *const want[] = { "step", "step > fwd", "step > fwd", "io", "" };
	struct gmp_trace *t = ts_script(script);
	struct gmp_trace *u = reread(t, "ranges");
	const struct gmp_trace *both[2] = { t, u };
	char buf[128];
	for (int k = 0; k < 2; k++) {
		const struct gmp_trace *x = both[k];
		assert_int_equal(x->nev, 5);
		assert_non_null(x->ev_range);
		for (size_t i = 0; i < x->nev; i++)
			assert_string_equal(gmp_trace__range_text(x, x->ev_range[i], buf, sizeof(buf)), want[i]);
		assert_int_equal(x->nfails, 1);
		assert_string_equal(gmp_trace__range_text(x, x->fails[0].range, buf, sizeof(buf)), "io");
	}
	gmp_trace__free(u);
	gmp_trace__free(t);
	/* A profile without ranges has no per-event table. */
	t = ts_script_file("figure2.jsonl");
	assert_null(t->ev_range);
	gmp_trace__free(t);
}

/* The checksum is CRC-32C, the same in hardware and in software. */
static void checksum(void **state)
{
	(void)state;
	/* The standard check value of CRC-32C: "123456789" -> 0xE3069283. */
	assert_int_equal(gmp_crc32(0, "123456789", 9), 0xE3069283u);
	assert_int_equal(gmp_crc32_portable(0, "123456789", 9), 0xE3069283u);
	unsigned char buf[1000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (size_t n = 0; n < sizeof(buf); n += 37)
		assert_int_equal(gmp_crc32(0, buf, n), gmp_crc32_portable(0, buf, n));
	/* Continuing a checksum equals checksumming the whole. */
	assert_int_equal(gmp_crc32(gmp_crc32(0, buf, 300), buf + 300, 700), gmp_crc32(0, buf, 1000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checksum),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(truncation_at_every_byte),
		cmocka_unit_test(damaged_record),
		cmocka_unit_test(unknown_record_is_skipped),
		cmocka_unit_test(header_checks),
		cmocka_unit_test(safe_create),
		cmocka_unit_test(write_trace_round_trip),
		cmocka_unit_test(failures_round_trip),
		cmocka_unit_test(ranges_round_trip),
		cmocka_unit_test(pools_round_trip),
	};
	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
