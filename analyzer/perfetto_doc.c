// SPDX-License-Identifier: MIT
/*
 * The Perfetto document around the inputs' trace events: its opening, its
 * metadata, and the one-input convenience (perfetto.c writes the events);
 * the names of the child slices.
 */
#include "perfetto.h"

#include <string.h>

void gmp_perfetto__begin(struct gmp_perfetto_doc *d, FILE *fp, int host_time)
{
	*d = (struct gmp_perfetto_doc){ .host = host_time };
	gmp_jw__init(&d->jw, fp, 0);
	static const char open[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
	gmp_jw__raw(&d->jw, open, sizeof(open) - 1);
	d->jw.depth = 1;
}

int gmp_perfetto__end(struct gmp_perfetto_doc *d, const char *const *inputs, size_t n)
{
	struct gmp_jw *jw = &d->jw;
	static const char close[] = "\n],\n\"metadata\":{";
	gmp_jw__raw(jw, close, sizeof(close) - 1);
	jw->depth = 1;
	jw->first[1] = 1;
	GMP_JW_KEY(jw, "producer");
	gmp_jw__str(jw, "gmprof");
	GMP_JW_KEY(jw, "time_axis");
	gmp_jw__str(jw, d->host ? "host" : "topo");
	if (n == 1) {
		GMP_JW_KEY(jw, "input");
		gmp_jw__str(jw, inputs[0]);
	} else {
		GMP_JW_KEY(jw, "inputs");
		gmp_jw__arr(jw);
		for (size_t i = 0; i < n; i++)
			gmp_jw__str(jw, inputs[i]);
		gmp_jw__arr_end(jw);
	}
	gmp_jw__raw(jw, "}}\n", 3);
	return gmp_jw__finish(jw);
}

/* "read obj#12", "write weights": without printf, for millions of them. */
size_t gmp_perfetto__child_name(const struct gmp_result *r, uint32_t obj, uint32_t kind, char *buf, size_t n)
{
	const char *verb = kind == GMP_DEP_RW ? "read+write " : kind == GMP_DEP_WRITE ? "write " : "read ";
	size_t len = strlen(verb);
	memcpy(buf, verb, len);
	const struct gmp_event *a = &r->trace->ev[r->objects[obj].alloc_ev];
	if (a->flags & GMP_EF_HAS_LABEL) {
		size_t ln;
		const char *l = gmp_trace__str(r->trace, a->name, &ln);
		if (ln > n - len - 1)
			ln = n - len - 1;
		memcpy(buf + len, l, ln);
		return len + ln;
	}
	char digits[16], *q = digits + sizeof(digits);
	uint32_t v = obj + 1;
	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf + len, "obj#", 4);
	len += 4;
	memcpy(buf + len, q, (size_t)(digits + sizeof(digits) - q));
	return len + (size_t)(digits + sizeof(digits) - q);
}
