// SPDX-License-Identifier: MIT
/*
 * The hit list of the device patches' per-access logic (gpu_patch/patch_logic.h)
 * built for the CPU: one item per hit bit when it is first set, past its
 * room counted and not written, and in pinned host memory (list_host).
 */
#include <stdlib.h>
#include <string.h>

#include "patch_logic.h"
#include "patch_tables.h"
#include "support.h"

static void hit_list(void **state)
{
	(void)state;
	struct gmp_patch_table *t = table(4, 0x1000, 0x100, 0x100);
	uint32_t hits[4] = { 0 };
	struct gmp_patch_launch *l = with_list(8);
	uint32_t *list = gmp_patch_list(l);
	l->table = (uintptr_t)t;
	l->base_n = (uint32_t)t->n;
	l->hits = (uintptr_t)hits;
	/* Object 2 read, read again, then written: one item per bit, when it was first set. */
	gmp_patch_access(l, 0, 0x1200, 4, GMP_SAN_ACCESS_READ);
	gmp_patch_access(l, 0, 0x1210, 4, GMP_SAN_ACCESS_READ);
	gmp_patch_access(l, 0, 0x1220, 4, GMP_SAN_ACCESS_WRITE);
	assert_int_equal(l->list_count, 2);
	assert_int_equal(list[0], 2u << GMP_LIST_SHIFT | GMP_HIT_READ);
	assert_int_equal(list[1], 2u << GMP_LIST_SHIFT | GMP_HIT_WRITE);
	/* An atomic sets both bits at once: one item. */
	gmp_patch_access(l, 0, 0x1000, 4, GMP_SAN_ACCESS_READ | GMP_SAN_ACCESS_WRITE | GMP_SAN_ACCESS_ATOMSYS);
	assert_int_equal(l->list_count, 3);
	assert_int_equal(list[2], 0u << GMP_LIST_SHIFT | GMP_HIT_READ | GMP_HIT_WRITE);
	/* Straddling objects 0 and 1: object 1's bit is new, object 0's is not. */
	gmp_patch_access(l, 0, 0x10fc, 8, GMP_SAN_ACCESS_READ);
	assert_int_equal(l->list_count, 4);
	assert_int_equal(list[3], 1u << GMP_LIST_SHIFT | GMP_HIT_READ);
	/* A prefetch and an access in no object list nothing. */
	gmp_patch_access(l, 0, 0x1300, 4, GMP_SAN_ACCESS_PREFETCH | GMP_SAN_ACCESS_READ);
	gmp_patch_access(l, 0, 0x2000, 4, GMP_SAN_ACCESS_WRITE);
	assert_int_equal(l->list_count, 4);
	/* A bit set by another (the first atomic elsewhere) is not listed again here. */
	hits[3] = GMP_HIT_STAMP(l->epoch) << 2 | GMP_HIT_READ;
	gmp_patch_mark(l, hits, 3, GMP_HIT_READ | GMP_HIT_WRITE, l->mode);
	assert_int_equal(l->list_count, 5);
	assert_int_equal(list[4], 3u << GMP_LIST_SHIFT | GMP_HIT_WRITE);
	/* Every bit of every entry listed: the items are exactly the hit words' bits. */
	uint32_t seen[4] = { 0 };
	for (uint32_t k = 0; k < l->list_count; k++) {
		assert_int_equal(seen[list[k] >> GMP_LIST_SHIFT] & list[k] & 3u, 0); /* each bit once */
		seen[list[k] >> GMP_LIST_SHIFT] |= list[k] & 3u;
	}
	assert_int_equal(seen[0], bits_of(l, hits[0]));
	assert_int_equal(seen[1], bits_of(l, hits[1]));
	assert_int_equal(seen[2], bits_of(l, hits[2]));
	assert_int_equal(seen[3] | GMP_HIT_READ, bits_of(l, hits[3]));
	free(l);
	free(t);
}

static void hit_list_overflow(void **state)
{
	(void)state;
	/* Room for 3 items, 4 objects read: the count goes on, nothing is written past the room. */
	struct gmp_patch_table *t = table(4, 0x1000, 0x100, 0x100);
	uint32_t hits[4] = { 0 };
	struct gmp_patch_launch *l = with_list(3);
	l->table = (uintptr_t)t;
	l->base_n = (uint32_t)t->n;
	l->hits = (uintptr_t)hits;
	for (uint64_t k = 0; k < 4; k++)
		gmp_patch_access(l, 0, 0x1000 + k * 0x100, 4, GMP_SAN_ACCESS_READ);
	assert_int_equal(l->list_count, 4);
	for (uint64_t k = 0; k < 4; k++)
		assert_int_equal(bits_of(l, hits[k]), GMP_HIT_READ); /* the hit words say it all */
	/* No room at all (list_cap 0): counted, never written. */
	memset(hits, 0, sizeof(hits));
	l->list_cap = 0;
	l->list_count = 0;
	gmp_patch_access(l, 0, 0x1000, 4, GMP_SAN_ACCESS_READ);
	assert_int_equal(l->list_count, 1);
	assert_int_equal(gmp_patch_list(l)[0], 0u << GMP_LIST_SHIFT | GMP_HIT_READ); /* from before */
	free(l);
	free(t);
}

/*
 * The hit list in pinned host memory (list_host): the same items and count
 * there, nothing in the launch struct or after it; past its room the count
 * goes on and nothing is written past it.
 */
static void hit_list_host(void **state)
{
	(void)state;
	struct gmp_patch_table *t = table(4, 0x1000, 0x100, 0x100);
	uint32_t hits[4] = { 0 };
	struct gmp_patch_launch *l = with_list(8);
	struct gmp_patch_host_list *h = malloc(sizeof(*h) + 4 * sizeof(uint32_t));
	assert_non_null(h);
	memset(h, 0xff, sizeof(*h) + 4 * sizeof(uint32_t));
	h->count = 0;
	l->table = (uintptr_t)t;
	l->base_n = (uint32_t)t->n;
	l->hits = (uintptr_t)hits;
	l->list_cap = 3;
	l->list_host = (uintptr_t)h;
	uint32_t *items = (uint32_t *)(h + 1);
	assert_ptr_equal(gmp_patch_list(l), items);
	assert_ptr_equal(gmp_patch_list_count(l), &h->count);
	gmp_patch_access(l, 0, 0x1200, 4, GMP_SAN_ACCESS_READ);
	gmp_patch_access(l, 0, 0x1210, 4, GMP_SAN_ACCESS_READ);
	gmp_patch_access(l, 0, 0x1220, 4, GMP_SAN_ACCESS_WRITE);
	assert_int_equal(h->count, 2);
	assert_int_equal(items[0], 2u << GMP_LIST_SHIFT | GMP_HIT_READ);
	assert_int_equal(items[1], 2u << GMP_LIST_SHIFT | GMP_HIT_WRITE);
	gmp_patch_access(l, 0, 0x1000, 4, GMP_SAN_ACCESS_READ);
	gmp_patch_access(l, 0, 0x1100, 4, GMP_SAN_ACCESS_READ); /* past the room of 3 */
	assert_int_equal(h->count, 4);
	assert_int_equal(items[2], 0u << GMP_LIST_SHIFT | GMP_HIT_READ);
	assert_int_equal(items[3], 0xffffffffu); /* not written */
	assert_int_equal(l->list_count, 0);
	for (uint32_t k = 0; k < 8; k++)
		assert_int_equal(((uint32_t *)(l + 1))[k], 0); /* the device list untouched */
	assert_int_equal(bits_of(l, hits[1]), GMP_HIT_READ); /* the hit words say it all */
	free(h);
	free(l);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hit_list),
		cmocka_unit_test(hit_list_overflow),
		cmocka_unit_test(hit_list_host),
	};
	return cmocka_run_group_tests_name("hit_list", tests, NULL, NULL);
}
