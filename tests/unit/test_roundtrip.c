// SPDX-License-Identifier: MIT
/*
 * Script -> profile (the collector's writer) -> reader -> dump -> script:
 * the same events come back, and the same findings.  Run on a script that
 * uses every op and field, and on every script in tests/scripts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "findings_json.h"
#include "jw.h"
#include "gmprof/profile.h"
#include "support.h"

static const char rich[] =
	"{\"op\":\"stream\",\"stream\":1,\"blocking\":true}\n"
	"{\"op\":\"stream\",\"stream\":3,\"blocking\":false}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x7f0000000000\",\"size\":65536,\"label\":\"pool\",\"at\":\"r.cu:1\",\"thread\":11,\"time_ns\":5}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x7f0000000100\",\"size\":256,\"kind\":\"pool_region\",\"label\":\"t0\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x7f0000100000\",\"size\":4096,\"kind\":\"managed\",\"stream\":2,\"device\":1}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x7f0000200000\",\"size\":4096,\"kind\":\"async\",\"stream\":1}\n"
	"{\"op\":\"memset\",\"addr\":\"0x7f0000100000\",\"size\":4096,\"value\":7,\"stream\":2,\"device\":1}\n"
	"{\"op\":\"memset\",\"addr\":\"0x7f0000200000\",\"size\":16,\"stream\":1}\n"
	"{\"op\":\"memcpy\",\"dst\":\"0x7f0000200000\",\"size\":64,\"stream\":1}\n"
	"{\"op\":\"memcpy\",\"src\":\"0x7f0000200000\",\"size\":64}\n"
	"{\"op\":\"memcpy\",\"dst\":\"0x7f0000000100\",\"src\":\"0x7f0000200000\",\"size\":64}\n"
	"{\"op\":\"event_record\",\"event\":\"ready\",\"stream\":1}\n"
	"{\"op\":\"event_wait\",\"event\":\"ready\",\"stream\":3}\n"
	"{\"op\":\"event_record\",\"event\":42,\"stream\":3}\n"
	"{\"op\":\"kernel\",\"name\":\"_Z3fooPfi\",\"stream\":3,\"read\":[\"0x7f0000000100\"],\"write\":[\"0x7f0000200010\",\"0x7f0000000100\"],"
	"\"touch\":[{\"addr\":\"0x7f0000000100\",\"size\":128,\"count\":3,\"rw\":\"r\"},{\"addr\":\"0x7f0000200000\",\"size\":4,\"rw\":\"w\"}]}\n"
	"{\"op\":\"kernel\",\"name\":\"empty\",\"stream\":3}\n"
	"{\"op\":\"sync\",\"event\":42}\n"
	"{\"op\":\"sync\",\"stream\":3,\"time_ns\":7,\"returned_ns\":30}\n"
	"{\"op\":\"sync\",\"stream\":0}\n"
	"{\"op\":\"sync\",\"device\":1}\n"
	"{\"op\":\"free\",\"addr\":\"0x7f0000000100\"}\n"
	"{\"op\":\"free\",\"addr\":\"0x7f0000200000\",\"stream\":1,\"at\":\"r.cu:99\"}\n"
	"{\"op\":\"end\"}\n";

static void same_events(const struct gmp_trace *a, const struct gmp_trace *b)
{
	assert_int_equal(a->nev, b->nev);
	assert_int_equal(a->ended, b->ended);
	assert_int_equal(a->nstreams, b->nstreams); /* streams whose creation flags are known */
	for (size_t i = 0; i < a->nstreams; i++)
		if (a->streams[i].number != b->streams[i].number || a->streams[i].flags != b->streams[i].flags)
			fail_msg("stream %zu differs", i);
	assert_int_equal(a->nrets, b->nrets); /* when blocking calls returned */
	for (size_t i = 0; i < a->nrets; i++)
		if (a->rets[i].ev != b->rets[i].ev || a->rets[i].host_ns != b->rets[i].host_ns ||
		    a->rets[i].before != b->rets[i].before)
			fail_msg("return %zu differs", i);
	for (size_t i = 0; i < a->nev; i++) {
		const struct gmp_event *x = &a->ev[i], *y = &b->ev[i];
		if (x->op != y->op || x->kind != y->kind || x->flags != y->flags ||
		    x->device != y->device || x->stream != y->stream || x->thread != y->thread ||
		    x->host_ns != y->host_ns)
			fail_msg("event %zu differs", i);
		assert_string_equal(gmp_trace__str(a, x->name, NULL), gmp_trace__str(b, y->name, NULL));
		assert_string_equal(gmp_trace__str(a, x->at, NULL), gmp_trace__str(b, y->at, NULL));
		if (x->op != GMP_OP_KERNEL) {
			/* Fields by op: an event's fields share storage with other ops'. */
			if (x->addr != y->addr || x->size != y->size)
				fail_msg("event %zu: address or size differs", i);
			if (x->op == GMP_OP_MEMCPY) {
				if (x->src != y->src)
					fail_msg("memcpy %zu: source differs", i);
			} else if ((x->value & GMP_EVENT_NAMED) != (y->value & GMP_EVENT_NAMED)) {
				fail_msg("event %zu: event id kind differs", i);
			} else if (x->value & GMP_EVENT_NAMED) {
				assert_string_equal(gmp_trace__str(a, (uint32_t)x->value, NULL),
						    gmp_trace__str(b, (uint32_t)y->value, NULL));
			} else {
				assert_int_equal(x->value, y->value);
			}
			continue;
		}
		if (x->acc_n != y->acc_n || x->touch_n != y->touch_n)
			fail_msg("kernel %zu: accesses differ", i);
		/* The dump lists reads, then writes: compare as sets of (addr, rw). */
		for (uint32_t k = 0; k < x->acc_n; k++) {
			const struct gmp_access *p = &a->acc[x->acc_off + k];
			uint32_t rw = 0;
			for (uint32_t j = 0; j < y->acc_n; j++)
				if (b->acc[y->acc_off + j].addr == p->addr)
					rw |= b->acc[y->acc_off + j].rw;
			if (!(rw & p->rw))
				fail_msg("event %zu: access 0x%llx lost", i, (unsigned long long)p->addr);
		}
		for (uint32_t k = 0; k < x->touch_n; k++) {
			const struct gmp_touch *p = &a->touch[x->touch_off + k];
			const struct gmp_touch *q = &b->touch[y->touch_off + k];
			assert_memory_equal(p, q, sizeof(*p));
		}
	}
}

static struct gmp_trace *via_profile(const struct gmp_trace *t)
{
	char *path = ts_tmpfile("rt");
	struct gmp_writer *w;
	assert_int_equal(gmp_writer__create(path, 0, 0, &w), 0);
	assert_int_equal(gmp_writer__write_trace(w, t), 0);
	assert_int_equal(gmp_writer__close(w, t->ended), 0);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	struct gmp_trace *u = NULL;
	assert_int_equal(gmp_profile__read_fd(fileno(fp), &u), 0);
	fclose(fp);
	unlink(path);
	free(path);
	return u;
}

static struct gmp_trace *via_dump(const struct gmp_trace *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(gmp_script__write(fp, t, NULL, NULL), 0);
	fclose(fp);
	struct gmp_trace *u = NULL;
	struct gmp_script_error e;
	if (gmp_script__read_mem(buf, len, &u, &e))
		fail_msg("dump does not read back: line %u: %s\n%s", e.line, e.msg, buf);
	free(buf);
	return u;
}

static char *findings(const struct gmp_trace *t)
{
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_jw jw;
	gmp_jw__init(&jw, NULL, 0);
	gmp_findings__json(&jw, r, NULL);
	assert_int_equal(jw.err, 0);
	gmp_result__free(r);
	return jw.buf;
}

static void check(struct gmp_trace *t)
{
	struct gmp_trace *p = via_profile(t);
	same_events(t, p);
	struct gmp_trace *d = via_dump(p);
	same_events(t, d);
	char *f1 = findings(t), *f2 = findings(d);
	assert_string_equal(f1, f2);
	free(f1);
	free(f2);
	gmp_trace__free(d);
	gmp_trace__free(p);
	gmp_trace__free(t);
}

/* JSON strings: escapes, valid UTF-8 kept, every byte of an invalid sequence as U+FFFD. */
static void json_strings(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "a\"b\\c\n\t", "\"a\\\"b\\\\c\\n\\t\"" },
		{ "na\xc3\xafve \xe2\x82\xac \xf0\x9d\x9b\x91", "\"na\xc3\xafve \xe2\x82\xac \xf0\x9d\x9b\x91\"" },
		{ "\x01\x7f", "\"\\u0001\\u007f\"" },
		{ "x\xffy", "\"x\\ufffdy\"" },
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },              /* cut short */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },    /* a surrogate */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },              /* overlong */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* past U+10FFFF */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gmp_jw jw;
		gmp_jw__init(&jw, NULL, 0);
		gmp_jw__str(&jw, cases[i].in);
		assert_int_equal(jw.err, 0);
		if (jw.len != strlen(cases[i].out) || memcmp(jw.buf, cases[i].out, jw.len))
			fail_msg("case %zu: got %.*s, want %s", i, (int)jw.len, jw.buf, cases[i].out);
		gmp_jw__release(&jw);
	}
}

static void every_field(void **state)
{
	(void)state;
	check(ts_script(rich));
}

static void every_test_script(void **state)
{
	(void)state;
	char dir[512];
	const char *src = getenv("GMPROF_SRC");
	snprintf(dir, sizeof(dir), "%s/tests/scripts", src ? src : ".");
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 7 || strcmp(de->d_name + len - 6, ".jsonl") != 0)
			continue;
		check(ts_script_file(de->d_name));
		n++;
	}
	closedir(d);
	assert_true(n >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_strings),
		cmocka_unit_test(every_field),
		cmocka_unit_test(every_test_script),
	};
	return cmocka_run_group_tests_name("roundtrip", tests, NULL, NULL);
}
