// SPDX-License-Identifier: MIT
/*
 * trace_check: verifies that a Chrome Trace Event JSON file is what
 * Perfetto's JSON importer needs, so that every trace the tests make opens
 * as intended:
 *   - every event has a string ph, a numeric pid and (but M) a numeric ts >= 0;
 *   - X slices have a numeric tid and dur >= 0, and slices on one
 *     (pid, tid) nest properly (a slice starting inside another ends inside it);
 *   - async b/e pair up by (pid, cat, id), each e after its b, none left open;
 *   - counters carry an args object of numbers only;
 *   - v2 flows: in time order each bind_id starts with flow_out, every
 *     flow_in continues an open flow, and every flow is closed at the end;
 *   - instants have scope t, p or g;
 *   - M events name processes and threads, and every pid (and every
 *     (pid, tid) with slices) is named.
 * Usage: trace_check FILE [--expect-flows] ; prints one summary line, exit 0 or 1.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

#define BAD(...)                                                  \
	do {                                                      \
		if (errors++ < 20) {                              \
			fprintf(stderr, "trace_check: " __VA_ARGS__); \
			fputc('\n', stderr);                      \
		}                                                 \
	} while (0)

struct slice {
	double pid, tid, ts, dur;
	size_t idx;
};

struct flow {
	double id, ts;
	int in, out;
	size_t idx;
};

struct async {
	double pid, ts;
	char key[200];
	int begin;
	size_t idx;
};

struct named {
	double pid, tid;
};

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* parents first */
	return x->idx < y->idx ? -1 : 1;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;
	if (x->id != y->id) return x->id < y->id ? -1 : 1;
	if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : 1;
}

static int cmp_async(const void *a, const void *b)
{
	const struct async *x = a, *y = b;
	if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
	int c = strcmp(x->key, y->key);
	if (c) return c;
	if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : 1;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
		len += got;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) { free(buf); buf = NULL; }
			buf = nb;
		}
	}
	fclose(fp);
	if (buf)
		buf[len] = 0;
	*n = len;
	return buf;
}

static int num(const cJSON *o, const char *k, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
		return 0;
	*v = x->valuedouble;
	return 1;
}

static int named_has(const struct named *v, size_t n, double pid, double tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].tid == tid)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: trace_check FILE [--expect-flows]\n");
		return 2;
	}
	int expect_flows = argc > 2 && !strcmp(argv[2], "--expect-flows");
	size_t len;
	char *text = slurp(argv[1], &len);
	if (!text) {
		fprintf(stderr, "trace_check: cannot read %s\n", argv[1]);
		return 2;
	}
	cJSON *root = cJSON_ParseWithLength(text, len);
	free(text);
	if (!root) {
		fprintf(stderr, "trace_check: %s is not JSON\n", argv[1]);
		return 1;
	}
	const cJSON *evs = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
	if (!cJSON_IsArray(evs)) {
		fprintf(stderr, "trace_check: no traceEvents array\n");
		cJSON_Delete(root);
		return 1;
	}
	size_t n = (size_t)cJSON_GetArraySize(evs);
	struct slice *sl = calloc(n + 1, sizeof(*sl));
	struct flow *fl = calloc(n + 1, sizeof(*fl));
	struct async *as = calloc(n + 1, sizeof(*as));
	struct named *pn = calloc(n + 1, sizeof(*pn)), *tn = calloc(n + 1, sizeof(*tn));
	struct named *pids = calloc(n + 1, sizeof(*pids));
	if (!sl || !fl || !as || !pn || !tn || !pids) {
		fprintf(stderr, "trace_check: out of memory\n");
		return 2;
	}
	size_t nsl = 0, nfl = 0, nas = 0, npn = 0, ntn = 0, npids = 0, ncounter = 0, ninst = 0;
	size_t idx = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, evs) {
		idx++;
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
		double pid, ts = 0, tid = 0, dur;
		if (!cJSON_IsString(ph) || !ph->valuestring[0]) {
			BAD("event %zu: no ph", idx);
			continue;
		}
		char p = ph->valuestring[0];
		if (!num(e, "pid", &pid)) {
			BAD("event %zu (%s): no numeric pid", idx, ph->valuestring);
			continue;
		}
		if (p != 'M' && (!num(e, "ts", &ts) || ts < 0)) {
			BAD("event %zu (%s): no numeric ts >= 0", idx, ph->valuestring);
			continue;
		}
		if (!named_has(pids, npids, pid, 0))
			pids[npids++] = (struct named){ pid, 0 };
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		double bind;
		if (num(e, "bind_id", &bind)) {
			int in = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "flow_in"));
			int out = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "flow_out"));
			if (!in && !out)
				BAD("event %zu: bind_id without flow_in or flow_out", idx);
			if (p != 'X' && p != 'B' && p != 'b')
				BAD("event %zu: flow bound to a %c event", idx, p);
			fl[nfl++] = (struct flow){ bind, ts, in, out, idx };
		}
		switch (p) {
		case 'X':
			if (!num(e, "tid", &tid) || !num(e, "dur", &dur) || dur < 0) {
				BAD("event %zu: X without numeric tid and dur >= 0", idx);
				break;
			}
			sl[nsl++] = (struct slice){ pid, tid, ts, dur, idx };
			break;
		case 'b':
		case 'e': {
			const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
			if (!cJSON_IsString(cat) || !(cJSON_IsString(id) || cJSON_IsNumber(id))) {
				BAD("event %zu: async %c without cat and id", idx, p);
				break;
			}
			struct async *a = &as[nas++];
			a->pid = pid;
			a->ts = ts;
			a->begin = p == 'b';
			a->idx = idx;
			if (cJSON_IsString(id))
				snprintf(a->key, sizeof(a->key), "%s/%s", cat->valuestring, id->valuestring);
			else
				snprintf(a->key, sizeof(a->key), "%s/#%.0f", cat->valuestring, id->valuedouble);
			break;
		}
		case 'C': {
			ncounter++;
			if (!cJSON_IsObject(args) || !args->child) {
				BAD("event %zu: counter without args", idx);
				break;
			}
			const cJSON *v;
			cJSON_ArrayForEach(v, args)
				if (!cJSON_IsNumber(v))
					BAD("event %zu: counter value '%s' is not a number", idx, v->string);
			break;
		}
		case 'i':
		case 'I': {
			ninst++;
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "s");
			if (s && (!cJSON_IsString(s) || !strchr("tpg", s->valuestring[0]) ||
				  s->valuestring[1]))
				BAD("event %zu: instant scope must be t, p or g", idx);
			break;
		}
		case 'M': {
			const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
			const char *what = cJSON_IsString(nm) ? nm->valuestring : "";
			if (!strcmp(what, "process_name") || !strcmp(what, "thread_name")) {
				const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "name");
				if (!cJSON_IsString(v))
					BAD("event %zu: %s without args.name", idx, what);
				if (what[0] == 'p')
					pn[npn++] = (struct named){ pid, 0 };
				else if (num(e, "tid", &tid))
					tn[ntn++] = (struct named){ pid, tid };
				else
					BAD("event %zu: thread_name without tid", idx);
			} else if (!strcmp(what, "process_sort_index") || !strcmp(what, "thread_sort_index")) {
				double si;
				if (!num(args, "sort_index", &si))
					BAD("event %zu: %s without a numeric sort_index", idx, what);
			} else {
				BAD("event %zu: unknown metadata '%s'", idx, what);
			}
			break;
		}
		default:
			BAD("event %zu: phase '%s' is not used by gmprof", idx, ph->valuestring);
		}
	}
	/* Slices nest on each track. */
	qsort(sl, nsl, sizeof(*sl), cmp_slice);
	struct slice *stack = calloc(nsl + 1, sizeof(*stack));
	size_t depth = 0;
	for (size_t i = 0; i < nsl; i++) {
		const struct slice *s = &sl[i];
		if (i && (sl[i - 1].pid != s->pid || sl[i - 1].tid != s->tid)) {
			depth = 0;
		}
		if (i == 0 || sl[i - 1].pid != s->pid || sl[i - 1].tid != s->tid)
			if (!named_has(tn, ntn, s->pid, s->tid))
				BAD("track pid %.0f tid %.0f has slices but no thread_name", s->pid, s->tid);
		while (depth && s->ts >= stack[depth - 1].ts + stack[depth - 1].dur - 1e-9)
			depth--;
		if (depth && s->ts + s->dur > stack[depth - 1].ts + stack[depth - 1].dur + 1e-9)
			BAD("event %zu: slice [%g, %g] overlaps event %zu [%g, %g] on pid %.0f tid %.0f without nesting",
			    s->idx, s->ts, s->ts + s->dur, stack[depth - 1].idx, stack[depth - 1].ts,
			    stack[depth - 1].ts + stack[depth - 1].dur, s->pid, s->tid);
		stack[depth++] = *s;
	}
	free(stack);
	/* Async pairs. */
	qsort(as, nas, sizeof(*as), cmp_async);
	size_t npairs = 0;
	for (size_t i = 0; i < nas;) {
		size_t j = i;
		int open = 0;
		for (; j < nas && as[j].pid == as[i].pid && !strcmp(as[j].key, as[i].key); j++) {
			if (as[j].begin) {
				if (open)
					BAD("event %zu: async %s begins again before it ends", as[j].idx, as[j].key);
				open = 1;
			} else {
				if (!open)
					BAD("event %zu: async %s ends without a begin", as[j].idx, as[j].key);
				open = 0;
				npairs++;
			}
		}
		if (open)
			BAD("async %s never ends", as[i].key);
		i = j;
	}
	/* Flows close. */
	qsort(fl, nfl, sizeof(*fl), cmp_flow);
	size_t nflows = 0;
	for (size_t i = 0; i < nfl;) {
		size_t j = i;
		int open = 0;
		for (; j < nfl && fl[j].id == fl[i].id; j++) {
			if (fl[j].in && !open)
				BAD("event %zu: flow_in on bind_id %.0f with no open flow", fl[j].idx, fl[j].id);
			if (fl[j].out && open && !fl[j].in)
				BAD("event %zu: flow_out on bind_id %.0f while it is open", fl[j].idx, fl[j].id);
			open = fl[j].out;
		}
		if (open)
			BAD("bind_id %.0f: flow never closes", fl[i].id);
		nflows++;
		i = j;
	}
	for (size_t i = 0; i < npids; i++)
		if (!named_has(pn, npn, pids[i].pid, 0))
			BAD("pid %.0f has no process_name", pids[i].pid);
	if (expect_flows && !nflows)
		BAD("no flows");
	if (!errors)
		printf("trace ok: %zu events, %zu slices, %zu lifetimes, %zu counters, %zu flows, %zu instants\n",
		       n, nsl, npairs, ncounter, nflows, ninst);
	free(sl);
	free(fl);
	free(as);
	free(pn);
	free(tn);
	free(pids);
	cJSON_Delete(root);
	return errors ? 1 : 0;
}
