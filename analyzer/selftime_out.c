// SPDX-License-Identifier: MIT
/*
 * How the collector ran, as gmprof's reports show it: its own time (META
 * collector_time, format/selftime.h) in two lines of the text header, a
 * row of the HTML and Markdown reports' run tables, an object of the JSON
 * report (profiles written before the collector kept it show nothing); the
 * launches its capture range let it monitor (META capture); graph launches
 * whose kernel nodes' accesses may have mixed (META graph_shared_launches).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "findings_json.h"
#include "frameworks.h"
#include "input.h"
#include "jw.h"
#include "nvtx_domains.h"
#include "selftime.h"

static const char *ms(uint64_t ns, char *buf, size_t n)
{
	if (ns >= 10000000000ull)
		snprintf(buf, n, "%.2f s", (double)ns / 1e9);
	else
		snprintf(buf, n, "%.1f ms", (double)ns / 1e6);
	return buf;
}

const char *const gmp_report__self_time_malformed =
	"the collector's record of its own time (META " GMP_SELFTIME_META ") is malformed; not shown";

/* 1 and the parsed value, 0 when the profile has none, -1 when it is malformed. */
static int self_time(const struct gmp_trace *t, struct gmp_selftime *st)
{
	const char *v = gmp_trace__meta(t, GMP_SELFTIME_META);
	if (!v || !*v)
		return 0;
	return gmp_selftime__parse(v, st) || !(st->seen & (1u << GMP_ST_WALL)) ? -1 : 1;
}

int gmp_report__self_time_words(const struct gmp_trace *t, char *head, size_t hn, char *parts, size_t pn)
{
	struct gmp_selftime st;
	int have = self_time(t, &st);
	if (have <= 0)
		return have;
	char a[32], b[32], c[32], d[32], e[32];
	uint64_t host = st.ns[GMP_ST_START] + st.ns[GMP_ST_CALLBACKS] + st.ns[GMP_ST_EXIT];
	snprintf(head, hn, "gmprof on the host: %s of the %s it was loaded (starting %s, in %" PRIu64
		 " callbacks %s, at exit %s)", ms(host, a, sizeof(a)), ms(st.ns[GMP_ST_WALL], b, sizeof(b)),
		 ms(st.ns[GMP_ST_START], c, sizeof(c)), st.n[GMP_ST_CALLBACKS],
		 ms(st.ns[GMP_ST_CALLBACKS], d, sizeof(d)), ms(st.ns[GMP_ST_EXIT], e, sizeof(e)));
	static const struct {
		int part;
		const char *what, *unit;
	} named[] = {
		{ GMP_ST_PATCH, "patching", "module" },
		{ GMP_ST_WAIT, "waiting for streams", "sync" },
		{ GMP_ST_CALLS, "other Sanitizer calls", "time" },
		{ GMP_ST_STACK, "call paths", "path" },
		{ GMP_ST_LOCK, "waiting for its lock", "time" },
	};
	size_t len = 0;
	parts[0] = '\0';
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]) && len < pn; i++) {
		int p = named[i].part;
		if (!st.n[p])
			continue;
		int w = snprintf(parts + len, pn - len, "%s%s %s (%" PRIu64 " %s%s)", len ? ", " : "",
				 named[i].what, ms(st.ns[p], a, sizeof(a)), st.n[p], named[i].unit,
				 st.n[p] == 1 ? "" : "s");
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return 1;
}

void gmp_report__self_time(FILE *fp, const struct gmp_trace *t)
{
	char head[256], parts[512];
	int have = gmp_report__self_time_words(t, head, sizeof(head), parts, sizeof(parts));
	if (have < 0)
		fprintf(fp, "  note     %s\n", gmp_report__self_time_malformed);
	if (have <= 0)
		return;
	fprintf(fp, "  time     %s\n", head);
	if (*parts)
		fprintf(fp, "           of which %s\n", parts);
}

static void json_self_time(struct gmp_jw *jw, const struct gmp_trace *t)
{
	struct gmp_selftime st;
	if (self_time(t, &st) <= 0)
		return;
	gmp_jw__key(jw, "collector_time");
	gmp_jw__obj(jw);
	for (int i = 0; i < GMP_ST_N; i++) {
		if (!(st.seen & (1u << i)))
			continue;
		gmp_jw__key(jw, gmp_selftime__names[i]);
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "us", st.ns[i] / 1000);
		gmp_jw__ku64(jw, "count", st.n[i]);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__obj_end(jw);
}

/* A META count the collector wrote (module_unpatches, graph_shared_launches): 0 when absent or malformed. */
static uint64_t meta_count(const struct gmp_trace *t, const char *key)
{
	const char *v = gmp_trace__meta(t, key);
	char *end = NULL;
	unsigned long long k = v ? strtoull(v, &end, 10) : 0;
	return end && end != v && !*end ? (uint64_t)k : 0;
}

int gmp_report__capture_words(const struct gmp_trace *t, char *buf, size_t n)
{
	const char *cap = gmp_trace__meta(t, "capture");
	if (!cap)
		return 0;
	uint64_t all = gmp_input__launches(t), off = t->unharvested < all ? t->unharvested : all;
	if (off == all) {
		char why[160];
		if (!strncmp(cap, "nvtx:", 5))
			snprintf(why, sizeof(why), "none was made inside an NVTX range %s", cap + 5);
		else if (!strncmp(cap, "launches:", 9))
			snprintf(why, sizeof(why), "the program made fewer launches than the range's first");
		else
			snprintf(why, sizeof(why), "none was made between cudaProfilerStart and cudaProfilerStop");
		snprintf(buf, n, "none of the %" PRIu64 " kernel launches was monitored (GMPROF_CAPTURE=%s): %s, "
			 "so no finding rests on what a kernel accessed", all, cap, why);
	} else if (off)
		snprintf(buf, n, "%" PRIu64 " of %" PRIu64 " kernel launches monitored (GMPROF_CAPTURE=%s); "
			 "the %" PRIu64 " outside the range count as a use of every object live when they "
			 "were issued", all - off, all, cap, off);
	else
		snprintf(buf, n, "%" PRIu64 " of %" PRIu64 " kernel launches monitored (GMPROF_CAPTURE=%s)",
			 all, all, cap);
	/* GMPROF_PATCH_AT=range: modules unpatched after the range (the collector's count). */
	uint64_t un = meta_count(t, "module_unpatches");
	size_t len = strlen(buf);
	if (un && len < n)
		snprintf(buf + len, n - len, "; kernels ran unpatched after it (%" PRIu64 " module unpatches, GMPROF_PATCH_AT=range)",
			 un);
	return 1;
}

void gmp_report__capture(FILE *fp, const struct gmp_trace *t)
{
	char buf[400];
	if (gmp_report__capture_words(t, buf, sizeof(buf)))
		fprintf(fp, "  capture  %s\n", buf);
}

/*
 * Appends to buf what META graph_data_crossed says: launches begun while
 * another thread's graph launch held their kernel's buffer as the kernel's
 * data (collector/graphdata.c); whether there were any.
 */
static int crossed_words(const struct gmp_trace *t, char *buf, size_t n)
{
	uint64_t x = meta_count(t, "graph_data_crossed"), bare = meta_count(t, "graph_data_crossed_bare");
	size_t len = strlen(buf);
	if (!x || len >= n)
		return x != 0;
	int l = snprintf(buf + len, n - len, "%s%" PRIu64 " launch%s of a kernel began while another thread's graph "
			 "launch held the kernel's buffer as its data (GMPROF_GRAPH_NODE_DATA=function); ", len ? "; " : "", x,
			 x == 1 ? "" : "es");
	len += l > 0 ? (size_t)l : 0;
	if (len >= n)
		return 1;
	if (bare)
		snprintf(buf + len, n - len, "%" PRIu64 " of them had no buffer of %s own (unmonitored), so if the Sanitizer "
			 "gave %s that one, the graph's node counts %s accesses as its own (GMPROF_GRAPH_NODE_DATA=launch rules "
			 "that out, but merges a graph launch's kernel nodes; docs/known-limits.md, CUDA graphs)", bare,
			 bare == 1 ? "its" : "their", bare == 1 ? "it" : "them", bare == 1 ? "its" : "their");
	else
		snprintf(buf + len, n - len, "%s had a buffer of its own, taken to be the one the Sanitizer gives it (not yet "
			 "shown on a GPU)", x == 1 ? "it" : "each");
	return 1;
}

int gmp_report__graph_words(const struct gmp_result *r, char *buf, size_t n)
{
	uint64_t k = meta_count(r->trace, "graph_shared_launches");
	size_t m = r->graph_launches_merged, u = r->graph_launches_lost, len = 0;
	buf[0] = 0;
	const char *data = gmp_trace__meta(r->trace, "graph_node_data");
	if (m && data && !strcmp(data, "function")) /* buffers per function: a kernel's nodes share its (graphs.c) */
		len = (size_t)snprintf(buf, n, "%zu graph launch%s had a kernel node that reported no access while "
				       "another reported some (the nodes of one kernel share its buffer): such a node counts "
				       "as making every access its kernel's other nodes made, or where none reported any, "
				       "every access of its launch", m, m == 1 ? "" : "es");
	else if (m)
		len = (size_t)snprintf(buf, n, "%zu graph launch%s had a kernel node that reported no access while "
				       "another reported some (on an H100 kernel nodes launched together reported into one "
				       "node's buffer): each kernel node of %s counts as making every access any of them made",
				       m, m == 1 ? "" : "es", m == 1 ? "it" : "such a launch");
	if (u && len < n)
		len += (size_t)snprintf(buf + len, n - len, "%s%zu graph launch%s reported no access at all: %s kernel "
					"nodes count as a use of every object live when they were issued", len ? "; " : "",
					u, u == 1 ? "" : "es", u == 1 ? "its" : "their");
	if ((m || u) && len < n)
		snprintf(buf + len, n - len, "; so a finding on what they touched may be missed, or measured as if each node waited for all they touched "
			 "(docs/known-limits.md, CUDA graphs)");
	else if (k)
		snprintf(buf, n, "%" PRIu64 " graph launch%s ran two or more kernel nodes, each given its buffer per launch; "
			 "every one of them reported accesses of its own, taken as reported (docs/known-limits.md, CUDA graphs)",
			 k, k == 1 ? "" : "es");
	return crossed_words(r->trace, buf, n) || m || u || k;
}

/* The objects shared between processes: how many imported and their bytes, how many exported. */
static void shared_counts(const struct gmp_result *r, size_t *imp, uint64_t *bytes, size_t *exp)
{
	*imp = *exp = 0;
	*bytes = 0;
	for (uint32_t o = 0; o < r->nobjects; o++) {
		int sh = gmp_object__shared(r, o);
		*imp += sh == GMP_SHARED_IMPORTED;
		*bytes += sh == GMP_SHARED_IMPORTED ? r->objects[o].size : 0;
		*exp += sh == GMP_SHARED_EXPORTED;
	}
}

int gmp_report__shared_words(const struct gmp_result *r, char *buf, size_t n)
{
	size_t imp, exp, len = 0;
	uint64_t bytes;
	char b[32];
	shared_counts(r, &imp, &bytes, &exp);
	buf[0] = 0;
	if (imp)
		len = (size_t)snprintf(buf, n, "%zu object%s (%s) mapped from another process (CUDA IPC): %s bytes are "
				       "the exporter's, so not in the peaks; %s uses order the calls, and no finding is told "
				       "on %s", imp, imp == 1 ? "" : "s", gmp_human_bytes(bytes, b, sizeof(b)),
				       imp == 1 ? "its" : "their", imp == 1 ? "its" : "their", imp == 1 ? "it" : "them");
	if (exp && len < n)
		snprintf(buf + len, n - len, "%s%zu object%s shared with other processes (CUDA IPC): their use of %s is not "
			 "seen, so only leaks and access patterns are told on %s", len ? "; " : "", exp, exp == 1 ? "" : "s",
			 exp == 1 ? "it" : "them", exp == 1 ? "it" : "them");
	return imp || exp;
}

void gmp_report__graphs(FILE *fp, const struct gmp_result *r)
{
	char buf[1024];
	if (gmp_report__graph_words(r, buf, sizeof(buf)))
		fprintf(fp, "  graphs   %s\n", buf);
	if (gmp_tmaps__words(r->trace, buf, sizeof(buf)))
		fprintf(fp, "  note     %s\n", buf);
	if (gmp_report__shared_words(r, buf, sizeof(buf)))
		fprintf(fp, "  shared   %s\n", buf);
}

void gmp_report__json_run(struct gmp_jw *jw, const struct gmp_result *r)
{
	const struct gmp_trace *t = r->trace;
	const char *own = gmp_trace__meta(t, "collector_device_peak");
	if (own && *own)
		gmp_jw__ku64(jw, "gmprof_device_peak_bytes", strtoull(own, NULL, 10));
	json_self_time(jw, t);
	if (t->unharvested)
		gmp_jw__ku64(jw, "launches_without_access_sets", t->unharvested);
	const char *cap = gmp_trace__meta(t, "capture");
	if (cap) { /* the collector's capture range: the launches outside it are those without access sets */
		gmp_jw__kstr(jw, "capture", cap);
		gmp_jw__ku64(jw, "launches", gmp_input__launches(t));
	}
	if (t->untouched)
		gmp_jw__ku64(jw, "intra_launches_without_touches", t->untouched);
	uint64_t gs = meta_count(t, "graph_shared_launches");
	if (gs) /* graph launches whose kernel nodes' accesses may have mixed (the "graphs" line) */
		gmp_jw__ku64(jw, "graph_shared_launches", gs);
	if (r->graph_launches_merged) /* and those whose nodes' accesses were merged (the same line) */
		gmp_jw__ku64(jw, "graph_launches_merged", r->graph_launches_merged);
	if (r->graph_launches_lost) /* and those whose nodes reported nothing, counted as unknown */
		gmp_jw__ku64(jw, "graph_launches_unknown", r->graph_launches_lost);
	uint64_t x = meta_count(t, "graph_data_crossed"), bare = meta_count(t, "graph_data_crossed_bare");
	if (x) { /* launches begun while another thread's graph launch held their kernel's data (the same line) */
		gmp_jw__ku64(jw, "graph_data_crossed", x);
		gmp_jw__ku64(jw, "graph_data_crossed_unmonitored", bare);
	}
	struct gmp_nvtx_domain d;
	int def_out = gmp_nvtx_domains__default_left_out(t);
	if (def_out || gmp_nvtx_domains__get(t, 0, &d)) { /* which libraries' ranges and marks, which left out */
		gmp_jw__key(jw, "nvtx_domains");
		gmp_jw__obj(jw);
		gmp_jw__kbool(jw, "default_left_out", def_out);
		gmp_jw__key(jw, "domains");
		gmp_jw__arr(jw);
		for (size_t k = 0; gmp_nvtx_domains__get(t, k, &d); k++) {
			gmp_jw__obj(jw);
			gmp_jw__kstr(jw, "name", d.name);
			gmp_jw__ku64(jw, "ranges", d.ranges);
			gmp_jw__ku64(jw, "marks", d.marks);
			gmp_jw__kbool(jw, "left_out", d.left_out);
			gmp_jw__obj_end(jw);
		}
		gmp_jw__arr_end(jw);
		gmp_jw__obj_end(jw);
	}
	size_t imp, exp;
	uint64_t bytes;
	shared_counts(r, &imp, &bytes, &exp);
	if (imp || exp) { /* the "shared" line: objects of other processes, and shared with them */
		gmp_jw__key(jw, "shared_objects");
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "imported", imp);
		gmp_jw__ku64(jw, "imported_bytes", bytes);
		gmp_jw__ku64(jw, "exported", exp);
		gmp_jw__obj_end(jw);
	}
	struct gmp_tmaps m;
	if (gmp_tmaps__of(t, &m)) {
		gmp_jw__key(jw, "tensor_maps");
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "encoded", m.encoded);
		gmp_jw__ku64(jw, "launches", m.launches);
		gmp_jw__ku64(jw, "graph_nodes", m.nodes);
		if (m.forgotten)
			gmp_jw__ku64(jw, "forgotten", m.forgotten);
		gmp_jw__obj_end(jw);
	}
}
