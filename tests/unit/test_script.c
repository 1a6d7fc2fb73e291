// SPDX-License-Identifier: MIT
/*
 * The event-script reader against the contract (shared/spec/event-script.md):
 * accepted forms, and every error rule with its line number and reason.
 */
#include <string.h>

#include "support.h"

#define ALLOC "{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096}\n"

static void expect_error(const char *text, unsigned line, const char *reason)
{
	struct gmp_script_error e = ts_script_error(text);
	assert_int_equal(e.line, line);
	if (!strstr(e.msg, reason))
		fail_msg("line %u: '%s' does not mention '%s'", e.line, e.msg, reason);
}

static void expect_replay_error(const char *text, unsigned line, const char *reason)
{
	struct gmp_trace *t = ts_script(text);
	struct gmp_detect_error e = ts_detect_error(t);
	assert_int_equal(e.line, line);
	if (!strstr(e.msg, reason))
		fail_msg("line %u: '%s' does not mention '%s'", e.line, e.msg, reason);
	gmp_trace__free(t);
}

static void accepted_forms(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(
		"# a comment\n"
		"\n"
		"   # an indented comment\n"
		"{\"op\":\"alloc\",\"addr\":4096,\"size\":\"0x1000\",\"label\":\"x\",\"kind\":\"managed\",\"stream\":3,\"thread\":9,\"at\":\"a.cu:1\"}\r\n"
		"{\"op\":\"memset\",\"addr\":\"0x1000\",\"size\":16,\"value\":255}\n"
		"{\"op\":\"memcpy\",\"dst\":\"0x1\",\"size\":1}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x1000\",4097],\"write\":[\"0x1fff\"],"
		"\"touch\":[{\"addr\":\"0x1000\",\"size\":8,\"rw\":\"rw\"},{\"addr\":4104,\"size\":8,\"count\":5,\"rw\":\"r\"}]}\n"
		"{\"op\":\"event_record\",\"event\":\"e1\",\"stream\":1}\n"
		"{\"op\":\"event_wait\",\"event\":7,\"stream\":2}\n"
		"{\"op\":\"sync\"}\n"
		"{\"op\":\"sync\",\"stream\":0}\n"
		"{\"op\":\"sync\",\"event\":\"e1\"}\n"
		"{\"op\":\"free\",\"addr\":\"0x1000\"}\n"
		"{\"op\":\"end\"}\n"
		"# comments may follow the end\n");
	assert_int_equal(t->nev, 10);
	assert_true(t->ended);
	const struct gmp_event *a = &t->ev[0];
	assert_int_equal(a->addr, 4096);
	assert_int_equal(a->size, 4096);
	assert_int_equal(a->kind, GMP_MEM_MANAGED);
	assert_int_equal(a->stream, 3);
	assert_int_equal(a->thread, 9);
	assert_int_equal(a->line, 4);
	assert_string_equal(gmp_trace__str(t, a->at, NULL), "a.cu:1");
	assert_string_equal(gmp_trace__str(t, a->name, NULL), "x");
	assert_int_equal(t->ev[1].value, 255);
	assert_int_equal(t->ev[2].addr, 1);
	const struct gmp_event *k = &t->ev[3];
	assert_int_equal(k->acc_n, 3);
	assert_int_equal(t->acc[k->acc_off + 1].addr, 4097);
	assert_int_equal(t->acc[k->acc_off + 2].rw, GMP_RW_WRITE);
	assert_int_equal(k->touch_n, 2);
	assert_int_equal(t->touch[k->touch_off].count, 1);   /* the default */
	assert_int_equal(t->touch[k->touch_off].rw, GMP_RW_READ | GMP_RW_WRITE);
	assert_int_equal(t->touch[k->touch_off + 1].count, 5);
	assert_true(t->ev[4].value & GMP_EVENT_NAMED);
	assert_int_equal(t->ev[5].value, 7);
	assert_false(t->ev[6].flags & GMP_EF_SYNC_STREAM);
	assert_true(t->ev[7].flags & GMP_EF_SYNC_STREAM);
	assert_true(t->ev[8].flags & GMP_EF_SYNC_EVENT);
	assert_int_equal(t->ev[8].value, t->ev[4].value);
	gmp_trace__free(t);
	/* End of file means the same as `end`... but is not an explicit end. */
	t = ts_script(ALLOC);
	assert_int_equal(t->nev, 1);
	assert_false(t->ended);
	gmp_trace__free(t);
	/* An empty script is valid. */
	t = ts_script("");
	assert_int_equal(t->nev, 0);
	gmp_trace__free(t);
}

/* Rule: a line that is not valid JSON. */
static void not_json(void **state)
{
	(void)state;
	expect_error("# header\n" ALLOC "{\"op\":\"free\",\n", 3, "not valid JSON");
	expect_error("{op:free}\n", 1, "not valid JSON");
	expect_error("\n\n[1,2]\n", 3, "not a JSON object");
	expect_error("{\"op\":\"end\"} x\n", 1, "text after the JSON object");
	/* Text that never was a script: said so, where a line that tried to be JSON is not. */
	expect_error("hello world\n", 1, "not JSON: the file is neither a gmprof profile nor an event script");
	expect_error("# notes\n\nhello\n", 3, "neither a gmprof profile nor an event script");
	struct gmp_script_error e = ts_script_error(ALLOC "hello\n");
	assert_int_equal(e.line, 2);
	assert_string_equal(e.msg, "not valid JSON");
	e = ts_script_error("{op:free}\n");
	assert_string_equal(e.msg, "not valid JSON");
}

/* Rule: an unknown op. */
static void unknown_op(void **state)
{
	(void)state;
	expect_error(ALLOC "{\"op\":\"malloc\",\"addr\":1,\"size\":1}\n", 2, "unknown op 'malloc'");
	expect_error("{\"op\":7}\n", 1, "field 'op' must be a string");
}

/* Rule: a missing required field, for every op. */
static void missing_field(void **state)
{
	(void)state;
	expect_error("{\"addr\":1}\n", 1, "missing required field 'op'");
	expect_error("{\"op\":\"alloc\",\"size\":1}\n", 1, "missing required field 'addr'");
	expect_error("{\"op\":\"alloc\",\"addr\":1}\n", 1, "missing required field 'size'");
	expect_error("{\"op\":\"free\"}\n", 1, "missing required field 'addr'");
	expect_error("{\"op\":\"memcpy\",\"dst\":1}\n", 1, "missing required field 'size'");
	expect_error("{\"op\":\"memcpy\",\"size\":1}\n", 1, "at least one of 'dst' and 'src'");
	expect_error("{\"op\":\"memset\",\"size\":1}\n", 1, "missing required field 'addr'");
	expect_error("{\"op\":\"memset\",\"addr\":1}\n", 1, "missing required field 'size'");
	expect_error("{\"op\":\"kernel\",\"read\":[]}\n", 1, "missing required field 'name'");
	expect_error("{\"op\":\"event_record\",\"stream\":1}\n", 1, "missing required field 'event'");
	expect_error("{\"op\":\"event_wait\"}\n", 1, "missing required field 'event'");
	expect_error("{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":1,\"size\":1}]}\n", 1,
		     "missing required field 'rw'");
	expect_error("{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"size\":1,\"rw\":\"r\"}]}\n", 1,
		     "missing required field 'addr'");
}

/* Rule: a free of an address that belongs to no live object. */
static void free_of_no_object(void **state)
{
	(void)state;
	expect_replay_error(ALLOC "{\"op\":\"free\",\"addr\":\"0x9000\"}\n", 2,
			    "belongs to no live object");
	expect_replay_error(ALLOC "{\"op\":\"free\",\"addr\":\"0x1008\"}\n", 2, "not its start");
	expect_replay_error(ALLOC "{\"op\":\"free\",\"addr\":\"0x1000\"}\n"
				  "{\"op\":\"free\",\"addr\":\"0x1000\"}\n",
			    3, "belongs to no live object");
}

/* Rule: an access of an address that belongs to no live object. */
static void access_of_no_object(void **state)
{
	(void)state;
	expect_replay_error(ALLOC "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x2000\"]}\n", 2,
			    "kernel 'k' reads 0x2000, which belongs to no live object");
	expect_replay_error(ALLOC "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"0xfff\"]}\n", 2,
			    "writes 0xfff");
	expect_replay_error(ALLOC "{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":\"0x1ff0\",\"size\":32,\"rw\":\"r\"}]}\n",
			    2, "runs past the end");
	expect_replay_error(ALLOC "{\"op\":\"memcpy\",\"dst\":\"0x5000\",\"size\":4}\n", 2,
			    "memcpy destination");
	expect_replay_error(ALLOC "{\"op\":\"memcpy\",\"src\":\"0x1000\",\"size\":4097}\n", 2,
			    "runs past the end");
	expect_replay_error(ALLOC "{\"op\":\"memset\",\"addr\":\"0x800\",\"size\":4}\n", 2,
			    "memset of");
	/* After a free, the address is dead. */
	expect_replay_error(ALLOC "{\"op\":\"free\",\"addr\":\"0x1000\"}\n"
				  "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x1000\"]}\n",
			    3, "belongs to no live object");
	/* Overlapping allocations are inconsistent too. */
	expect_replay_error(ALLOC "{\"op\":\"alloc\",\"addr\":\"0x1800\",\"size\":16}\n", 2,
			    "overlaps live object obj#1");
	/* A pool region lies inside a live allocation, and no two live regions overlap. */
	expect_replay_error(ALLOC "{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":16,\"kind\":\"pool_region\"}\n", 2,
			    "pool_region [0x9000, 0x9010) is not inside a live allocation");
	expect_replay_error(ALLOC "{\"op\":\"alloc\",\"addr\":\"0x1ff0\",\"size\":32,\"kind\":\"pool_region\"}\n", 2,
			    "pool_region [0x1ff0, 0x2010) is not inside a live allocation");
	expect_replay_error(ALLOC "{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":16,\"kind\":\"pool_region\"}\n"
				  "{\"op\":\"alloc\",\"addr\":\"0x1008\",\"size\":16,\"kind\":\"pool_region\"}\n",
			    3, "alloc of [0x1008, 0x1018) overlaps live object obj#2 [0x1000, 0x1010)");
}

/* Values of the wrong type or range: nothing is guessed. */
static void bad_values(void **state)
{
	(void)state;
	expect_error("{\"op\":\"alloc\",\"addr\":\"4096\",\"size\":1}\n", 1, "field 'addr'");
	expect_error("{\"op\":\"alloc\",\"addr\":-1,\"size\":1}\n", 1, "non-negative");
	expect_error("{\"op\":\"alloc\",\"addr\":1.5,\"size\":1}\n", 1, "non-negative integer");
	expect_error("{\"op\":\"alloc\",\"addr\":18446744073709551615,\"size\":1}\n", 1,
		     "hex string");
	expect_error("{\"op\":\"alloc\",\"addr\":\"0x10000000000000000\",\"size\":1}\n", 1,
		     "field 'addr'");
	expect_error("{\"op\":\"alloc\",\"addr\":\"0xzz\",\"size\":1}\n", 1, "field 'addr'");
	expect_error("{\"op\":\"alloc\",\"addr\":\"0X10\",\"size\":1}\n", 1, "field 'addr'");
	expect_error("{\"op\":\"alloc\",\"addr\":\"0x\",\"size\":1}\n", 1, "field 'addr'");
	expect_error("{\"op\":\"alloc\",\"addr\":1,\"size\":0}\n", 1, "positive size");
	expect_error("{\"op\":\"alloc\",\"addr\":1,\"size\":1,\"kind\":\"pinned\"}\n", 1,
		     "field 'kind'");
	expect_error("{\"op\":\"alloc\",\"addr\":1,\"size\":1,\"sise\":1}\n", 1,
		     "unknown field 'sise'");
	expect_error("{\"op\":\"memset\",\"addr\":1,\"size\":1,\"value\":256}\n", 1, "byte");
	expect_error("{\"op\":\"kernel\",\"name\":\"k\",\"read\":\"0x1\"}\n", 1, "list of addresses");
	expect_error("{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":1,\"size\":1,\"rw\":\"x\"}]}\n",
		     1, "field 'rw'");
	expect_error("{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":1,\"size\":0,\"rw\":\"r\"}]}\n",
		     1, "positive size");
	expect_error("{\"op\":\"sync\",\"stream\":1,\"event\":2}\n", 1, "not both");
	expect_error("{\"op\":\"alloc\",\"addr\":1,\"size\":1,\"stream\":4294967296}\n", 1,
		     "below 2^32");
	expect_error("{\"op\":\"alloc\",\"addr\":\"0xffffffffffffffff\",\"size\":2}\n", 1,
		     "past the end of the address space");
	expect_error("{\"op\":\"kernel\",\"name\":7}\n", 1, "must be a string");
	expect_error("{\"op\":\"end\"}\n" ALLOC, 2, "nothing may follow");
	expect_error("{\"op\":\"end\",\"addr\":1}\n", 1, "unknown field 'addr'");
}

/* "returned_ns": when an op's call returned, a RETURNED record of its event; only on ops that are events. */
static void returned_lines(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(ALLOC "{\"op\":\"sync\",\"time_ns\":40,\"returned_ns\":90}\n"
					"{\"op\":\"memcpy\",\"dst\":1,\"size\":1,\"time_ns\":95,\"returned_ns\":95}\n");
	assert_int_equal(t->nrets, 2);
	assert_int_equal(t->rets[0].ev, 1);
	assert_int_equal(t->rets[0].before, 2);
	assert_int_equal(t->rets[0].host_ns, 90);
	assert_int_equal(t->rets[1].ev, 2);
	assert_int_equal(t->rets[1].host_ns, 95);
	gmp_trace__free(t);
	/* An op without a time may still have returned at one (a profile's event stamped 0 reads back). */
	t = ts_script(ALLOC "{\"op\":\"sync\",\"returned_ns\":90}\n");
	assert_int_equal(t->nrets, 1);
	assert_int_equal(t->rets[0].host_ns, 90);
	gmp_trace__free(t);
	expect_error(ALLOC "{\"op\":\"sync\",\"returned_ns\":0}\n", 2, "field 'returned_ns' must be above 0");
	expect_error(ALLOC "{\"op\":\"sync\",\"time_ns\":100,\"returned_ns\":90}\n", 2,
		     "field 'returned_ns' is before the op's 'time_ns'");
	expect_error(ALLOC "{\"op\":\"sync\",\"time_ns\":100,\"returned_ns\":\"soon\"}\n", 2, "field 'returned_ns'");
	expect_error("{\"op\":\"pools\",\"reserved\":1,\"used\":1,\"returned_ns\":9}\n", 1,
		     "unknown field 'returned_ns' for op 'pools'");
	expect_error("{\"op\":\"end\",\"returned_ns\":9}\n", 1, "unknown field 'returned_ns' for op 'end'");
}

/* The run's metadata: "meta" lines (not events), as a dump writes them; each needs a key and a value. */
static void meta_lines(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script("{\"op\":\"meta\",\"key\":\"mode\",\"value\":\"alloc\"}\n" ALLOC
					"{\"op\":\"meta\",\"key\":\"command\",\"value\":\"./app --x \\\"y\\\"\"}\n");
	assert_int_equal(t->nev, 1);
	assert_string_equal(gmp_trace__meta(t, "mode"), "alloc");
	assert_string_equal(gmp_trace__meta(t, "command"), "./app --x \"y\"");
	gmp_trace__free(t);
	expect_error(ALLOC "{\"op\":\"meta\",\"key\":\"mode\"}\n", 2, "a meta line needs a non-empty string 'key' and a string 'value'");
	expect_error("{\"op\":\"meta\",\"key\":\"\",\"value\":\"x\"}\n", 1, "non-empty string 'key'");
	expect_error("{\"op\":\"meta\",\"key\":\"k\",\"value\":3}\n", 1, "a string 'value'");
	expect_error("{\"op\":\"meta\",\"key\":\"k\",\"value\":\"v\",\"size\":1}\n", 1, "unknown field 'size'");
	/* A device's memory is bytes, read as the reports read it: a value they would take as none is refused. */
	t = ts_script("{\"op\":\"meta\",\"key\":\"device.3.memory\",\"value\":\"85899345920\"}\n" ALLOC);
	assert_int_equal(gmp_trace__device_memory(t, 3), 85899345920ull);
	gmp_trace__free(t);
	expect_error("{\"op\":\"meta\",\"key\":\"device.0.memory\",\"value\":\"80GiB\"}\n", 1,
		     "meta 'device.0.memory' is the device's memory in bytes: a whole number above 0, not '80GiB'");
	expect_error("{\"op\":\"meta\",\"key\":\"device.12.memory\",\"value\":\"0\"}\n", 1, "not '0'");
	expect_error("{\"op\":\"meta\",\"key\":\"device.0.memory\",\"value\":\"\"}\n", 1, "not ''");
	expect_error("{\"op\":\"meta\",\"key\":\"device.0.memory\",\"value\":\"18446744073709551616\"}\n", 1,
		     "a whole number above 0");
	t = ts_script("{\"op\":\"meta\",\"key\":\"device.0.memoryx\",\"value\":\"lots\"}\n"); /* another key */
	assert_string_equal(gmp_trace__meta(t, "device.0.memoryx"), "lots");
	gmp_trace__free(t);
}

static void line_numbers_count_everything(void **state)
{
	(void)state;
	expect_error("\n#\n\n  \n" ALLOC "\n{\"op\":\"oops\"}\n", 7, "unknown op");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepted_forms),
		cmocka_unit_test(not_json),
		cmocka_unit_test(unknown_op),
		cmocka_unit_test(missing_field),
		cmocka_unit_test(free_of_no_object),
		cmocka_unit_test(access_of_no_object),
		cmocka_unit_test(bad_values),
		cmocka_unit_test(meta_lines),
		cmocka_unit_test(returned_lines),
		cmocka_unit_test(line_numbers_count_everything),
	};
	return cmocka_run_group_tests_name("script", tests, NULL, NULL);
}
