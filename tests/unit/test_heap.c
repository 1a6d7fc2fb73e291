// SPDX-License-Identifier: MIT
/*
 * malloc() and free() inside kernels (device_heap objects): the script
 * rules, placing ops that a profile holds late beside their launch, the
 * ordering they get in the dependency graph, what the detector reports
 * about them, and the inconsistent inputs it rejects.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gmprof/profile.h"
#include "support.h"

#define K1 "{\"op\":\"kernel\",\"name\":\"k1\",\"stream\":1}\n"
#define HEAP(a, s) "{\"op\":\"alloc\",\"addr\":\"" a "\",\"size\":" s ",\"kind\":\"device_heap\",\"stream\":1}\n"
#define FREE(a, st) "{\"op\":\"free\",\"addr\":\"" a "\",\"stream\":" st "}\n"

static void expect_script_error(const char *text, unsigned line, const char *reason)
{
	struct gmp_script_error e = ts_script_error(text);
	assert_int_equal(e.line, line);
	if (!strstr(e.msg, reason))
		fail_msg("line %u: '%s' does not mention '%s'", e.line, e.msg, reason);
}

/* A script's heap ops belong to the latest launch on their stream. */
static void script_rules(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(K1 "{\"op\":\"kernel\",\"name\":\"k0\",\"stream\":2}\n"
					 HEAP("0x9000", "64") FREE("0x9000", "1"));
	assert_int_equal(t->nev, 4);
	assert_true(t->ev[2].flags & GMP_EF_IN_KERNEL);
	assert_int_equal(t->ev[2].value, 0); /* k1, not k0 on stream 2 */
	assert_true(t->ev[3].flags & GMP_EF_IN_KERNEL);
	assert_int_equal(t->ev[3].value, 0);
	gmp_trace__free(t);
	/* A free of an ordinary object stays a host call. */
	t = ts_script("{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":64}\n" K1 FREE("0x9000", "1"));
	assert_false(t->ev[2].flags & GMP_EF_IN_KERNEL);
	gmp_trace__free(t);
	expect_script_error(HEAP("0x9000", "64"), 1, "needs an earlier kernel launch on its stream");
	expect_script_error(K1 HEAP("0x9000", "64") FREE("0x9000", "3"), 3,
			    "this free needs an earlier kernel launch");
}

/* Heap ops read back late (file order) move to just after their launch. */
static void placement(void **state)
{
	(void)state;
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	uint32_t n1 = gmp_trace__intern_cstr(t, "k1"), n2 = gmp_trace__intern_cstr(t, "k2");
	struct gmp_event k1 = { .op = GMP_OP_KERNEL, .stream = 1, .name = n1, .host_ns = 10 };
	struct gmp_event k2 = { .op = GMP_OP_KERNEL, .stream = 1, .name = n2 };
	struct gmp_event h = { .op = GMP_OP_ALLOC, .kind = GMP_MEM_DEVICE_HEAP, .stream = 1,
			       .flags = GMP_EF_IN_KERNEL, .addr = 0x9000, .size = 64, .value = 0 };
	struct gmp_event f = { .op = GMP_OP_FREE, .stream = 1, .flags = GMP_EF_IN_KERNEL,
			       .addr = 0x9000, .value = 1 };
	struct gmp_access acc = { 0x9000, GMP_RW_READ };
	assert_int_equal(gmp_trace__add_event(t, &k1, NULL, 0, NULL, 0), 0);
	/* Returns: of no event yet, with no time, before the event's own time; then k1's. */
	assert_int_equal(gmp_trace__add_return(t, 1, 15), -EINVAL);
	assert_int_equal(gmp_trace__add_return(t, 0, 0), -EINVAL);
	assert_int_equal(gmp_trace__add_return(t, 0, 9), -EINVAL);
	assert_int_equal(gmp_trace__add_return(t, 0, 15), 0);
	assert_int_equal(gmp_trace__add_event(t, &k2, &acc, 1, NULL, 0), 1);
	assert_int_equal(gmp_trace__add_event(t, &h, NULL, 0, NULL, 0), 2); /* k1's, read back late */
	assert_int_equal(gmp_trace__add_return(t, 1, 20), 0); /* k2's, recorded after h */
	assert_int_equal(gmp_trace__add_event(t, &f, NULL, 0, NULL, 0), 3); /* k2's */
	/* Failed allocations between them, in file order: after k1; after k1's late op; at the end. */
	struct gmp_alloc_failure fl = { .size = 1 };
	uint64_t at[3] = { 1, 3, 4 };
	for (size_t i = 0; i < 3; i++) {
		fl.before = at[i];
		assert_int_equal(gmp_trace__add_failure(t, &fl), 0);
	}
	fl.before = 2; /* before an earlier failure's */
	assert_int_equal(gmp_trace__add_failure(t, &fl), -EINVAL);
	fl.before = 5; /* past the events */
	assert_int_equal(gmp_trace__add_failure(t, &fl), -EINVAL);
	fl.before = 4;
	fl.api = 99; /* no such string */
	assert_int_equal(gmp_trace__add_failure(t, &fl), -EINVAL);
	/* Pool states likewise: after k1, and after k1's late op. */
	struct gmp_pool_state ps = { .before = 1, .pools = 1 };
	assert_int_equal(gmp_trace__add_pool_state(t, &ps), 0);
	ps.before = 3;
	assert_int_equal(gmp_trace__add_pool_state(t, &ps), 0);
	assert_int_equal(gmp_trace__place_heap_ops(t), 0);
	/* k1 | fail | h(k1) k2 | fail | f(k2) | fail: each comes after what was issued before it. */
	assert_int_equal(t->fails[0].before, 1);
	assert_int_equal(t->fails[1].before, 3);
	assert_int_equal(t->fails[2].before, 4);
	assert_int_equal(t->pools[0].before, 1);
	assert_int_equal(t->pools[1].before, 3);
	/* k1 | ret(k1) | h(k1) k2 | ret(k2) | f(k2): each return names its event where it now is. */
	assert_int_equal(t->nrets, 2);
	assert_int_equal(t->rets[0].ev, 0);
	assert_int_equal(t->rets[0].before, 1);
	assert_int_equal(t->rets[1].ev, 2);
	assert_int_equal(t->rets[1].before, 3);
	assert_int_equal(t->ev[0].name, n1);
	assert_int_equal(t->ev[1].op, GMP_OP_ALLOC);
	assert_int_equal(t->ev[1].value, 0);
	assert_int_equal(t->ev[2].name, n2);
	assert_int_equal(t->ev[2].acc_n, 1); /* k2 keeps its accesses */
	assert_int_equal(t->acc[t->ev[2].acc_off].addr, 0x9000);
	assert_int_equal(t->ev[3].op, GMP_OP_FREE);
	assert_int_equal(t->ev[3].value, 2); /* renumbered with k2 */
	/* Already in place: nothing moves. */
	struct gmp_event *before = t->ev;
	assert_int_equal(gmp_trace__place_heap_ops(t), 0);
	assert_ptr_equal(t->ev, before);
	/* An op that names no earlier launch. */
	struct gmp_event bad = f;
	bad.value = 3; /* the free itself */
	assert_int_equal(gmp_trace__add_event(t, &bad, NULL, 0, NULL, 0), 4);
	assert_int_equal(gmp_trace__place_heap_ops(t), -EINVAL);
	gmp_trace__free(t);
}

/* The profile reader places them too, and checks what they refer to. */
static void profile_reader(void **state)
{
	(void)state;
	char *path = ts_tmpfile("heap");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 1, &w), 0);
	int64_t name = gmp_writer__string(w, "k", 1);
	struct gmp_event k = { .op = GMP_OP_KERNEL, .stream = 1, .name = (uint32_t)name };
	struct gmp_event s = { .op = GMP_OP_SYNC };
	struct gmp_event h = { .op = GMP_OP_ALLOC, .kind = GMP_MEM_DEVICE_HEAP, .stream = 1,
			       .flags = GMP_EF_IN_KERNEL, .addr = 0x9000, .size = 64, .value = 0 };
	assert_int_equal(gmp_writer__event(w, &k), 0);
	assert_int_equal(gmp_writer__event(w, &k), 1);
	assert_int_equal(gmp_writer__event(w, &s), 2);
	assert_int_equal(gmp_writer__event(w, &h), 3); /* harvested at the sync */
	assert_int_equal(gmp_writer__close(w, 1), 0);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	struct gmp_trace *t = NULL;
	assert_int_equal(gmp_profile__read_fd(fileno(fp), &t), 0);
	fclose(fp);
	assert_int_equal(t->nev, 4);
	assert_int_equal(t->ev[1].op, GMP_OP_ALLOC);
	assert_int_equal(t->ev[1].value, 0);
	assert_int_equal(t->ev[3].op, GMP_OP_SYNC);
	gmp_trace__free(t);
	/* One that names a later event, or no kernel, is damage: reading stops before it. */
	assert_int_equal(gmp_writer__create(path, 1, 1, &w), 0);
	assert_int_equal(gmp_writer__event(w, &s), 0);
	h.value = 0; /* the sync */
	assert_int_equal(gmp_writer__event(w, &h), 1);
	assert_int_equal(gmp_writer__close(w, 1), 0);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(gmp_profile__read_fd(fileno(fp), &t), 0);
	fclose(fp);
	assert_true(t->damaged);
	assert_string_equal(t->damage, "in-kernel heap event refers to no earlier kernel launch");
	assert_int_equal(t->nev, 1);
	gmp_trace__free(t);
	unlink(path);
	free(path);
}

/*
 * Ordered after its launch alone: k1's malloc, read back after k2 on the
 * same stream, is not ordered after k2 and is not an API between others.
 */
static void ordering(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(K1 "{\"op\":\"kernel\",\"name\":\"k2\",\"stream\":1}\n"
					 "{\"op\":\"kernel\",\"name\":\"k3\",\"stream\":1}\n");
	struct gmp_event h = { .op = GMP_OP_ALLOC, .kind = GMP_MEM_DEVICE_HEAP, .stream = 1,
			       .flags = GMP_EF_IN_KERNEL, .addr = 0x9000, .size = 64, .value = 0 };
	assert_int_equal(gmp_trace__add_event(t, &h, NULL, 0, NULL, 0), 3);
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	o.verify_order = 1; /* the general Kahn's algorithm agrees */
	struct gmp_result *r = ts_detect(t, &o);
	assert_int_equal(r->level[0], 0);
	assert_int_equal(r->level[1], 1);
	assert_int_equal(r->level[3], 1); /* right after k1, beside k2 */
	assert_int_equal(r->napis, 3);    /* the malloc is part of k1 */
	assert_int_equal(r->ordinal[3], r->ordinal[0]);
	char buf[160];
	assert_string_equal(gmp_result__api_label(r, 3, buf, sizeof(buf)),
			    "malloc() in KERNEL k1 (stream 1, #1)");
	gmp_result__free(r);
	gmp_trace__free(t);
}

/*
 * What is reported: leaks and peaks; nothing that depends on accesses,
 * which the allocating launch cannot report.  The ordinary object beside
 * them still gets its findings.
 */
static void findings(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(
		"{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":100,\"label\":\"idle\",\"stream\":1}\n"
		K1 HEAP("0x9000", "4096") HEAP("0xa000", "1000") FREE("0xa000", "1")
		"{\"op\":\"kernel\",\"name\":\"k2\",\"stream\":1,\"read\":[\"0x9000\"],\"write\":[\"0x9010\"],"
		"\"touch\":[{\"addr\":\"0x9000\",\"size\":4,\"rw\":\"r\"}]}\n"
		"{\"op\":\"kernel\",\"name\":\"k3\",\"stream\":1}\n" HEAP("0xb000", "16")
		"{\"op\":\"kernel\",\"name\":\"k4\",\"stream\":1}\n" FREE("0xb000", "1")
		"{\"op\":\"kernel\",\"name\":\"k5\",\"stream\":1}\n" FREE("0x9000", "1")
		"{\"op\":\"sync\"}\n{\"op\":\"free\",\"addr\":\"0x1000\"}\n");
	struct gmp_result *r = ts_detect(t, NULL);
	/* Heap objects: no unused, early, late, idleness, dead write, redundancy, intra. */
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_object *o = &r->objects[r->findings[i].object];
		assert_int_not_equal(o->kind, GMP_MEM_DEVICE_HEAP);
	}
	assert_int_equal(ts_count(r, GMP_PAT_UNUSED_ALLOCATION, "idle"), 1);
	/* Peak: idle + the tree + the 1000-byte scratch inside k1. */
	assert_int_equal(r->devices[0].peak_bytes, 100 + 4096 + 1000);
	gmp_result__free(r);
	gmp_trace__free(t);
	/* A heap object nobody frees is a leak, with its kernel in the advice. */
	t = ts_script(K1 HEAP("0x9000", "4096"));
	r = ts_detect(t, NULL);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_MEMORY_LEAK, "obj#1");
	assert_int_equal(f->saving, 4096);
	char sugg[512];
	assert_non_null(strstr(gmp_result__suggestion(r, f, sugg, sizeof(sugg)),
			       "KERNEL k1 (stream 1, #1) malloc()s it and no kernel frees it"));
	assert_int_equal(r->nfindings, 1);
	gmp_result__free(r);
	gmp_trace__free(t);
}

static void detect_error(struct gmp_trace *t, const char *reason)
{
	struct gmp_detect_error e = ts_detect_error(t);
	if (!strstr(e.msg, reason))
		fail_msg("'%s' does not mention '%s'", e.msg, reason);
	gmp_trace__free(t);
}

/* Inconsistent traces (a damaged or hand-made profile): one sentence each. */
static void rejected(void **state)
{
	(void)state;
	struct gmp_event heap = { .op = GMP_OP_ALLOC, .kind = GMP_MEM_DEVICE_HEAP, .stream = 1,
				  .addr = 0x9000, .size = 64 };
	struct gmp_trace *t = ts_script(K1);
	assert_true(gmp_trace__add_event(t, &heap, NULL, 0, NULL, 0) > 0);
	detect_error(t, "a device_heap object is allocated by a host call");
	t = ts_script(K1);
	struct gmp_event dev = heap;
	dev.kind = GMP_MEM_DEVICE;
	dev.flags = GMP_EF_IN_KERNEL;
	assert_true(gmp_trace__add_event(t, &dev, NULL, 0, NULL, 0) > 0);
	detect_error(t, "a kernel allocates an object that is not on the device heap");
	t = ts_script(K1 HEAP("0x9000", "64") "{\"op\":\"sync\"}\n");
	struct gmp_event hostfree = { .op = GMP_OP_FREE, .addr = 0x9000 };
	assert_true(gmp_trace__add_event(t, &hostfree, NULL, 0, NULL, 0) > 0);
	detect_error(t, "a device_heap object is freed by a host call");
	t = ts_script("{\"op\":\"sync\"}\n");
	heap.flags = GMP_EF_IN_KERNEL;
	heap.value = 0; /* the sync */
	assert_true(gmp_trace__add_event(t, &heap, NULL, 0, NULL, 0) > 0);
	detect_error(t, "names event #0, which is not an earlier kernel launch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_rules),
		cmocka_unit_test(placement),
		cmocka_unit_test(profile_reader),
		cmocka_unit_test(ordering),
		cmocka_unit_test(findings),
		cmocka_unit_test(rejected),
	};
	return cmocka_run_group_tests_name("heap", tests, NULL, NULL);
}
