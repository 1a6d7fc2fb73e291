// SPDX-License-Identifier: MIT
/*
 * The profile reader's checks of what each record says (a record with a
 * good checksum and bad content ends the profile there, named), and the
 * writer's index of the call paths it wrote.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "gmprof/profile.h"
#include "support.h"

static void semantic_damage(void **state)
{
	(void)state;
	/* An access record for an event that is not a kernel: valid CRC, bad content. */
	char *path = ts_tmpfile("sem");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 0, &w), 0);
	struct gmp_event e = { .op = GMP_OP_ALLOC, .addr = 0x1000, .size = 16 };
	assert_int_equal(gmp_writer__event(w, &e), 0);
	struct gmp_access a = { 0x1000, GMP_RW_READ };
	assert_int_equal(gmp_writer__accesses(w, 0, &a, 1), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	struct gmp_trace *t = ts_read_profile(path);
	assert_true(t->damaged);
	assert_int_equal(t->nev, 1);
	gmp_trace__free(t);
	unlink(path);
	free(path);
}

/*
 * Every sanity check of the reader names what it found: a record with a
 * good checksum and bad content ends the profile there, with the events
 * before it kept and the sentence the reader gives.  The prefix: string 1
 * ("x"), stack 1, an allocation (event 0) and a kernel launch (event 1).
 */
struct payload {
	uint8_t b[128];
	size_t n;
};

static void put(struct payload *p, uint64_t v)
{
	p->n += gmp_put_varint(p->b + p->n, v);
}

static void put_byte(struct payload *p, uint8_t v)
{
	p->b[p->n++] = v;
}

/* An event record's fields, in the order the format gives them. */
static void put_event(struct payload *p, uint8_t op, uint8_t kind, uint64_t flags, uint32_t stack, uint32_t name,
		      uint64_t value)
{
	put_byte(p, op);
	put_byte(p, kind);
	put(p, flags);
	for (int i = 0; i < 3; i++)
		put(p, 0); /* device, stream, thread */
	put(p, stack);
	put(p, 0); /* at */
	put(p, name);
	put(p, 1000); /* host_ns */
	put(p, 0x7f0000000000); /* addr */
	put(p, 0);              /* src */
	put(p, 64);             /* size */
	put(p, value);
}

static void expect_damage(const unsigned char *prefix, size_t plen, uint8_t type, const struct payload *p,
			  const char *why)
{
	unsigned char buf[512];
	memcpy(buf, prefix, plen);
	size_t n = plen, start = plen;
	buf[n++] = type;
	n += gmp_put_varint(buf + n, p->n);
	memcpy(buf + n, p->b, p->n);
	n += p->n;
	gmp_put_le32(buf + n, gmp_crc32(0, buf + start, n - start));
	n += 4;
	struct gmp_trace *t = NULL;
	assert_int_equal(gmp_profile__read_mem(buf, n, &t), 0);
	if (!t->damaged || !t->damage || strcmp(t->damage, why) != 0)
		fail_msg("record type %u: damage '%s', expected '%s'", type, t->damaged ? t->damage : "(none)", why);
	assert_int_equal(t->nev, 2);
	assert_int_equal(t->bytes_read, plen);
	gmp_trace__free(t);
}

static void every_damage_named(void **state)
{
	(void)state;
	char *path = ts_tmpfile("named");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 0, &w), 0);
	assert_int_equal(gmp_writer__string(w, "x", 1), 1);
	uint64_t pc = 0x401000;
	assert_int_equal(gmp_writer__stack(w, &pc, 1), 1);
	struct gmp_event a = { .op = GMP_OP_ALLOC, .addr = 0x7f0000000000, .size = 64, .stack = 1 };
	struct gmp_event k = { .op = GMP_OP_KERNEL, .name = 1, .stack = 1 };
	assert_int_equal(gmp_writer__event(w, &a), 0);
	assert_int_equal(gmp_writer__event(w, &k), 1);
	assert_int_equal(gmp_writer__close(w, 0), 0);
	size_t plen;
	unsigned char *prefix = ts_slurp(path, &plen);
	assert_true(plen < 256);
	struct payload p;
#define CASE(type, why, ...) do { memset(&p, 0, sizeof(p)); __VA_ARGS__; expect_damage(prefix, plen, type, &p, why); } while (0)
	CASE(GMP_REC_EVENT, "malformed event record", put_byte(&p, GMP_OP_ALLOC));
	CASE(GMP_REC_EVENT, "event of unknown kind", put_event(&p, 0, 0, 0, 1, 0, 0));
	CASE(GMP_REC_EVENT, "event of unknown kind", put_event(&p, GMP_OP_MAX + 1, 0, 0, 1, 0, 0));
	CASE(GMP_REC_EVENT, "event refers to an undefined string or stack", put_event(&p, GMP_OP_ALLOC, 0, 0, 2, 0, 0));
	CASE(GMP_REC_EVENT, "event refers to an undefined string or stack", put_event(&p, GMP_OP_ALLOC, 0, 0, 1, 2, 0));
	CASE(GMP_REC_EVENT, "only device-heap allocations and frees happen inside a kernel",
	     put_event(&p, GMP_OP_MEMSET, 0, GMP_EF_IN_KERNEL, 1, 0, 1));
	CASE(GMP_REC_EVENT, "in-kernel heap event refers to no earlier kernel launch",
	     put_event(&p, GMP_OP_ALLOC, GMP_MEM_DEVICE_HEAP, GMP_EF_IN_KERNEL, 1, 0, 0));
	CASE(GMP_REC_ACCESS, "malformed kernel access record", put(&p, 0); put(&p, 0)); /* event 0 is no kernel */
	CASE(GMP_REC_ACCESS, "malformed kernel access record", put(&p, 1); put(&p, 1); put(&p, 0x1000); put(&p, 4));
	CASE(GMP_REC_TOUCH, "malformed kernel touch record", put(&p, 0); put(&p, 0));
	CASE(GMP_REC_LABEL, "malformed label record", put(&p, 1); put(&p, 1)); /* a kernel gets no label */
	CASE(GMP_REC_LABEL, "malformed label record", put(&p, 0); put(&p, 2)); /* no string 2 */
	CASE(GMP_REC_EXPORTED, "malformed exported record", put(&p, 1)); /* a kernel is not exported */
	CASE(GMP_REC_EXPORTED, "malformed exported record", put(&p, 2)); /* no event 2 */
	CASE(GMP_REC_EXPORTED, "malformed exported record", put_byte(&p, 0x80)); /* a varint cut short */
	CASE(GMP_REC_FAILED_ALLOC, "malformed failed-allocation record",
	     for (int i = 0; i < 7; i++) put(&p, 0); put(&p, 64); put(&p, 0); put(&p, 9); put(&p, 8));
	CASE(GMP_REC_FAILED_ALLOC, "failed-allocation record refers to an undefined string or stack",
	     for (int i = 0; i < 4; i++) put(&p, 0); put(&p, 2); put(&p, 0); put(&p, 0); put(&p, 64);
	     put(&p, 0); put(&p, 0); put(&p, 0));
	CASE(GMP_REC_POOLS, "malformed pools record", put(&p, 0); put(&p, 1));
	CASE(GMP_REC_POOLS, "pools record with contradictory sizes (in use above reserved, or above the most)",
	     put(&p, 0); put(&p, 1); put(&p, 100); put(&p, 200); put(&p, 300); put(&p, 300); put(&p, 0));
	CASE(GMP_REC_RETURNED, "malformed returned record", put(&p, 1));
	CASE(GMP_REC_RETURNED, "returned record names no earlier event, or a time before that event's",
	     put(&p, 2); put(&p, 500)); /* events 0 and 1 only */
	CASE(GMP_REC_RETURNED, "returned record names no earlier event, or a time before that event's",
	     put(&p, 1); put(&p, 0)); /* no time */
	CASE(GMP_REC_RETURNED, "record has trailing bytes", put(&p, 1); put(&p, 500); put(&p, 0));
	CASE(GMP_REC_MARK, "malformed mark record", put(&p, 1); put(&p, 500));
	CASE(GMP_REC_MARK, "malformed mark record", put(&p, 1ull << 33); put(&p, 500); put(&p, 1)); /* thread past 32 bits */
	CASE(GMP_REC_MARK, "mark record refers to an undefined string", put(&p, 1); put(&p, 500); put(&p, 2));
	CASE(GMP_REC_MARK, "mark record refers to an undefined string", put(&p, 1); put(&p, 500); put(&p, 0));
	CASE(GMP_REC_MARK, "record has trailing bytes", put(&p, 1); put(&p, 500); put(&p, 1); put(&p, 0));
	CASE(GMP_REC_RANGES, "malformed ranges record", put(&p, 1); put(&p, GMP_RANGE_DEPTH_MAX + 1));
	CASE(GMP_REC_RANGES, "malformed ranges record", put(&p, 1); put(&p, 2); put(&p, 1));
	CASE(GMP_REC_RANGES, "ranges record refers to an undefined string", put(&p, 1); put(&p, 1); put(&p, 2));
	CASE(GMP_REC_STRING, "malformed string record", put(&p, 3); put(&p, 1); put_byte(&p, 'y'));
	CASE(GMP_REC_STRING, "string record repeats an earlier string", put(&p, 2); put(&p, 1); put_byte(&p, 'x'));
	CASE(GMP_REC_STACK, "malformed stack record", put(&p, 3); put(&p, 0));
	CASE(GMP_REC_STACK, "malformed stack record", put(&p, 2); put(&p, 2); put(&p, 0x401000));
	CASE(GMP_REC_META, "malformed metadata record", put(&p, 2); put_byte(&p, 'a'); put_byte(&p, 0); put(&p, 0));
	CASE(GMP_REC_MODULE, "malformed module record", put(&p, 2); put(&p, 0); put(&p, 0); put(&p, 1); put(&p, 0));
	CASE(GMP_REC_STREAM, "malformed stream record", put(&p, 1));
	CASE(GMP_REC_STREAM, "record has trailing bytes", put(&p, 1); put(&p, 0); put(&p, 0); put(&p, 0); put(&p, 0));
	CASE(GMP_REC_END, "end record disagrees with the event count", put(&p, 3));
#undef CASE
	free(prefix);
	unlink(path);
	free(path);
}

/*
 * Many call paths: the writer's index of the stacks it wrote grows (from
 * 256 slots, past three quarters full) and probes past colliding slots.
 * 5000 distinct stacks of 0 to 7 frames, prefixes of each other among
 * them, each asked for again after later ones: the same id, and the profile
 * read back holds every stack under its id, frame for frame.
 */
#define MANY_STACKS 5000
static void stack_frames(uint32_t k, uint64_t *pcs, size_t *n)
{
	*n = k == 0 ? 0 : 1 + k % 7;
	for (size_t f = 0; f < *n; f++)
		pcs[f] = 0x400000 + (uint64_t)(k / 7) * 0x40 + f; /* k and k+1 share frames: prefixes */
}

static void many_stacks_round_trip(void **state)
{
	(void)state;
	char *path = ts_tmpfile("stacks");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 1, &w), 0);
	uint64_t pcs[8];
	size_t n;
	for (uint32_t k = 0; k < MANY_STACKS; k++) {
		stack_frames(k, pcs, &n);
		assert_int_equal(gmp_writer__stack(w, pcs, n), (int64_t)k + 1);
		if (k % 3 == 0) { /* an earlier stack again, after the index grew past it */
			uint32_t j = k / 2;
			stack_frames(j, pcs, &n);
			assert_int_equal(gmp_writer__stack(w, pcs, n), (int64_t)j + 1);
		}
	}
	struct gmp_event e = { .op = GMP_OP_ALLOC, .addr = 0x7f0000000000, .size = 64, .stack = MANY_STACKS };
	assert_int_equal(gmp_writer__event(w, &e), 0);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	struct gmp_trace *t = ts_read_profile(path);
	assert_false(t->damaged);
	assert_int_equal(t->nstacks, MANY_STACKS);
	for (uint32_t k = 0; k < MANY_STACKS; k++) {
		const uint64_t *got;
		stack_frames(k, pcs, &n);
		assert_int_equal(gmp_trace__stack(t, k + 1, &got), n);
		for (size_t f = 0; f < n; f++)
			assert_int_equal(got[f], pcs[f]);
	}
	gmp_trace__free(t);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(semantic_damage),
		cmocka_unit_test(every_damage_named),
		cmocka_unit_test(many_stacks_round_trip),
	};
	return cmocka_run_group_tests_name("profile_checks", tests, NULL, NULL);
}
