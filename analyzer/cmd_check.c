// SPDX-License-Identifier: MIT
/*
 * `gmprof check`, the CI gate.  Each check passes or fails on its own;
 * the command prints one line per check, writes SARIF and JUnit on
 * request, and exits 0 when all pass, 1 when one fails, 2 on bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "bysite.h"
#include "check.h"
#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "jw.h"
#include "sarif.h"
#include "session.h"
#include "util.h"

static const char usage[] =
	"Usage: gmprof check [options] INPUT...\n"
	"\n"
	"Gate a CI job on a profile or an event script.  Every check prints one line\n"
	"(PASS or FAIL); the exit status is 0 when all pass, 1 when one fails and 2\n"
	"on bad input.  With several inputs (the ranks of an MPI job, say) every\n"
	"check runs on each and its lines name the input; the SARIF log holds the\n"
	"results of all (one run, each result naming its input), the JUnit report\n"
	"a test suite per input.\n"
	"\n"
	"Checks:\n"
	"      --fail-on PATTERNS   fail when one of these patterns is found (comma list or all)\n"
	"      --max-peak BYTES     fail when a device's peak exceeds BYTES (K, M, G, KiB, MiB, GiB)\n"
	"      --max-in-use BYTES   fail when a device's peak of bytes in use exceeds BYTES (pools\n"
	"                           with NVTX regions counted by their regions; else its peak)\n"
	"      --max-leak BYTES     fail when more than BYTES are leaked\n"
	"      --baseline FILE      fail on findings whose fingerprint FILE lacks, and on\n"
	"                           a device's peak grown past its own in FILE by more\n"
	"                           than the tolerance (FILE: gmprof baseline)\n"
	"      --tolerance T        peak growth allowed over the baseline: a percentage,\n"
	"                           bytes, or both as 5%,1MiB (the larger applies; default 0)\n"
	"      --allow-incomplete   pass a profile whose program crashed or was cut off\n"
	"      --allow-oom          pass a program whose allocations ran out of memory (it\n"
	"                           retries smaller, or probes how much fits)\n"
	"\n"
	"Outputs:\n"
	"      --sarif FILE         SARIF 2.1.0 for code scanning (GitHub, GitLab...)\n"
	"      --junit FILE         JUnit XML, one test case per check\n"
	"      --markdown FILE      Markdown: a table of the checks, the findings folded below\n"
	"                           (for $GITHUB_STEP_SUMMARY or a pull request comment)\n"
	"      --source-root DIR    SARIF paths relative to DIR (the current directory)\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	"      --force              replace output files that exist\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"EXAMPLES\n"
	"  gmprof check --fail-on memory_leak,unused_allocation app.gmprof\n"
	"  gmprof check --max-peak 6GiB --baseline main.baseline.json --tolerance 5%,1MiB \\\n"
	"               --sarif gmprof.sarif --junit gmprof.xml app.gmprof\n"
	"  gmprof check --max-peak 10GiB --fail-on memory_leak prof.*.gmprof\n"
	"  gmprof check --baseline main.baseline.json --markdown \"$GITHUB_STEP_SUMMARY\" --force app.gmprof\n";

static struct gmp_check *add(struct gmp_gate *g, const char *name, int failed, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct gmp_check *add(struct gmp_gate *g, const char *name, int failed, const char *fmt, ...)
{
	struct gmp_check *c = &g->checks[g->n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->failed = failed;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&c->detail, fmt, ap) < 0)
		c->detail = NULL;
	va_end(ap);
	return c;
}

/* Appends a line to a check's detail. */
static void more(struct gmp_check *c, const char *line)
{
	char *d;
	if (asprintf(&d, "%s\n%s", c->detail ? c->detail : "", line) < 0)
		return;
	free(c->detail);
	c->detail = d;
}

static void finding_line(struct gmp_gate *g, const struct gmp_finding *f, char *buf, size_t n)
{
	char name[160], size[32], site[512] = "";
	const struct gmp_result *r = g->s->r;
	const char *at = gmp_sites__event(&g->s->sites, r->objects[f->object].alloc_ev, NULL);
	if (at)
		snprintf(site, sizeof(site), " allocated at %s", at);
	char hex[32];
	snprintf(buf, n, "  %s: %s (%s)%s [%s]", gmp_pattern__name(f->pattern),
		 gmp_result__object_name(r, f->object, name, sizeof(name)),
		 gmp_human_bytes(r->objects[f->object].size, size, sizeof(size)), site,
		 gmp_sites__fingerprint_hex(&g->s->sites, f, hex, sizeof(hex)));
}

static void check_patterns(struct gmp_gate *g, uint32_t mask)
{
	const struct gmp_result *r = g->s->r;
	if (gmp_input__alloc_mode(r->trace))
		mask &= GMP_PAT_WITHOUT_ACCESSES; /* all it can have (gmp_input__findable) */
	char line[900], name[64];
	for (unsigned p = 0; p < GMP_PAT_COUNT; p++) {
		if (!(mask & (1u << p)))
			continue;
		size_t n = 0;
		for (size_t i = 0; i < r->nfindings; i++)
			n += r->findings[i].pattern == p;
		snprintf(name, sizeof(name), "pattern:%s", gmp_pattern__name(p));
		struct gmp_check *c = add(g, name, n > 0, "%zu finding%s", n, n == 1 ? "" : "s");
		for (size_t i = 0, shown = 0; i < r->nfindings && shown < 20; i++) {
			if (r->findings[i].pattern != p)
				continue;
			finding_line(g, &r->findings[i], line, sizeof(line));
			more(c, line);
			shown++;
		}
		if (n > 20) {
			snprintf(line, sizeof(line), "  ... and %zu more", n - 20);
			more(c, line);
		}
	}
}

/* Never fails: says what was left out, rule by rule (a rule that matches nothing may be stale). */
static void check_suppressions(struct gmp_gate *g)
{
	const struct gmp_suppress *sp = &g->s->sup;
	if (!sp->path)
		return;
	char fails[64] = "";
	if (sp->suppressed_failures)
		snprintf(fails, sizeof(fails), " and %zu failed allocation%s", sp->suppressed_failures,
			 sp->suppressed_failures == 1 ? "" : "s");
	struct gmp_check *c = add(g, "suppressions", 0, "%zu finding%s%s suppressed by %s", sp->suppressed,
			      sp->suppressed == 1 ? "" : "s", fails, sp->path);
	char line[900];
	for (size_t i = 0; i < sp->n; i++) {
		snprintf(line, sizeof(line), "  %s:%u: %s: %zu", sp->path, sp->rules[i].line, sp->rules[i].glob,
			 sp->rules[i].hits);
		more(c, line);
	}
}

static struct gmp_check *check_budget(struct gmp_gate *g, const char *name, uint64_t value, uint64_t max)
{
	char a[64], b[64];
	gmp_human_bytes(value, a, sizeof(a));
	gmp_human_bytes(max, b, sizeof(b));
	if (value != max && strcmp(a, b) == 0) { /* "1.0 MiB > 1.0 MiB" says nothing: the bytes do */
		snprintf(a + strlen(a), sizeof(a) - strlen(a), " (%" PRIu64 " bytes)", value);
		snprintf(b + strlen(b), sizeof(b) - strlen(b), " (%" PRIu64 " bytes)", max);
	}
	return add(g, name, value > max, "%s %s %s", a, value > max ? ">" : "<=", b);
}

/* Over budget: where the largest peak on device (GMP_ANY_DEVICE: of them all) was reached. */
static void peak_where(struct gmp_gate *g, struct gmp_check *c, uint32_t device)
{
	const struct gmp_result *r = g->s->r;
	const struct gmp_peak *pk = gmp_result__top_peak(r, device);
	if (!c->failed || !pk)
		return;
	char api[160], rg[256], line[1024];
	const char *site = gmp_sites__event(&g->s->sites, pk->ev, NULL);
	const struct gmp_trace *t = r->trace;
	gmp_trace__event_range_text(t, pk->ev, rg, sizeof(rg));
	snprintf(line, sizeof(line), "  reached on device %u at %s%s%s%s%s", pk->device,
		 gmp_result__api_label(r, pk->ev, api, sizeof(api)), site ? " at " : "", site ? site : "",
		 *rg ? " in " : "", rg);
	more(c, line);
}

/* A peak over the baseline's: the allocation sites that grew the most there, up to five. */
static void peak_growth(struct gmp_gate *g, struct gmp_check *c, const struct gmp_peak_cmp *pc)
{
	struct gmp_bysite by;
	struct gmp_site_growth *v;
	size_t n;
	if (!pc->base->nsites)
		return; /* a baseline of version 1: no sites */
	if (!gmp_bysite__grown(&g->s->sites, g->s->r, pc->device, pc->base, &by, &v, &n))
		for (size_t k = 0; k < n && k < 5; k++) {
			char line[600], a[32], x[32], y[32];
			snprintf(line, sizeof(line), "  grew at %s: +%s (%s in the baseline, %s now)", v[k].site,
				 gmp_human_bytes(v[k].now - v[k].before, a, sizeof(a)),
				 gmp_human_bytes(v[k].before, x, sizeof(x)), gmp_human_bytes(v[k].now, y, sizeof(y)));
			more(c, line);
		}
	free(v);
	gmp_bysite__release(&by);
}

/* "3.0 MiB against 2.0 MiB in the baseline (allowed up to 2.1 MiB)", or why there is nothing to compare. */
static void cmp_text(const struct gmp_peak_cmp *pc, const char *input, char *buf, size_t n)
{
	char a[32], b[32], c[32];
	if (pc->base)
		snprintf(buf, n, "%s against %s in the baseline (allowed up to %s)", gmp_human_bytes(pc->now, a, sizeof(a)),
			 gmp_human_bytes(pc->base->peak_bytes, b, sizeof(b)), gmp_human_bytes(pc->allowed, c, sizeof(c)));
	else
		snprintf(buf, n, "%s, and the baseline has no peak of %s on device %u to compare", gmp_human_bytes(pc->now, a, sizeof(a)),
			 input, pc->device);
}

/*
 * New findings, and the peaks: the run's largest against a baseline of
 * version 1 or 2; each device's against its own in the baseline of
 * version 3 (a line each, then where each that grew was reached and the
 * sites that grew there).
 */
static void check_baseline(struct gmp_gate *g, const struct gmp_baseline *b, const struct gmp_peak_cmp *cmps,
			   size_t ncmps)
{
	const struct gmp_result *r = g->s->r;
	char line[900];
	size_t fresh = 0;
	for (size_t i = 0; i < r->nfindings; i++)
		fresh += !gmp_baseline__has(b, gmp_sites__fingerprint(&g->s->sites, &r->findings[i]));
	struct gmp_check *c = add(g, "baseline:new_findings", fresh > 0, "%zu finding%s not in the baseline",
				  fresh, fresh == 1 ? "" : "s");
	for (size_t i = 0, shown = 0; i < r->nfindings && shown < 20; i++) {
		if (gmp_baseline__has(b, gmp_sites__fingerprint(&g->s->sites, &r->findings[i])))
			continue;
		finding_line(g, &r->findings[i], line, sizeof(line));
		more(c, line);
		shown++;
	}
	const char *slash = strrchr(g->name, '/'), *input = slash ? slash + 1 : g->name;
	size_t failed = 0;
	for (size_t i = 0; i < ncmps; i++)
		failed += gmp_peak_cmp__failed(&cmps[i]) != 0;
	if (ncmps == 1) {
		cmp_text(&cmps[0], input, line, sizeof(line));
		c = add(g, "baseline:peak", failed > 0, "%s", line);
	} else if (failed) {
		c = add(g, "baseline:peak", 1, "%zu of %zu devices past the baseline", failed, ncmps);
	} else {
		c = add(g, "baseline:peak", 0, "%zu device%s, none past the baseline", ncmps, ncmps == 1 ? "" : "s");
	}
	for (size_t i = 0; i < ncmps; i++) {
		const struct gmp_peak_cmp *pc = &cmps[i];
		if (ncmps > 1) {
			char t[600];
			cmp_text(pc, input, t, sizeof(t));
			snprintf(line, sizeof(line), "  %s device %u: %s", gmp_peak_cmp__failed(pc) ? "FAIL" : "ok", pc->device, t);
			more(c, line);
		}
		if (pc->base && pc->now > pc->allowed) {
			peak_where(g, c, pc->device);
			peak_growth(g, c, pc);
		}
	}
}

/* What a check run was asked for. */
struct budgets {
	uint32_t fail_on;
	int have_peak;
	uint64_t max_peak;
	int have_inuse;
	uint64_t max_inuse;
	int have_leak;
	uint64_t max_leak;
	const struct gmp_baseline *base;   /* NULL: no baseline */
	double tol_pct;
	uint64_t tol_abs;
	int allow_incomplete;
	int allow_oom;
};

/* Always on: no allocation ran out of memory (the first one named). */
static void check_oom(struct gmp_gate *g, int allow)
{
	const struct gmp_result *r = g->s->r;
	const struct gmp_trace *t = r->trace;
	if (!r->nfailures) {
		add(g, "out_of_memory", 0, "no allocation ran out of memory");
		return;
	}
	const struct gmp_failure *f0 = &r->failures[0];
	const struct gmp_alloc_failure *f = &t->fails[f0->fail];
	const char *at = gmp_sites__failure(&g->s->sites, f0->fail, NULL);
	char a[32], b[32], c[32], d[32], e[32], mem[80] = "";
	if (f->dev_total)
		snprintf(mem, sizeof(mem), " (%s free of %s)", gmp_human_bytes(f->dev_free, d, sizeof(d)),
			 gmp_human_bytes(f->dev_total, e, sizeof(e)));
	size_t retried = 0;
	for (size_t i = 0; i < r->nfailures; i++)
		retried += r->failures[i].retry_ev != GMP_NO_EVENT;
	char rt[64] = "";
	if (retried)
		snprintf(rt, sizeof(rt), " (%zu got by a retry)", retried);
	add(g, "out_of_memory", !allow,
	    "%zu allocation%s ran out of memory%s; the first, %s of %s on device %u%s%s%s, with %s live; "
	    "fixing findings frees %s then (gmprof report shows which)",
	    r->nfails_total, r->nfails_total == 1 ? "" : "s", rt, f->api ? gmp_trace__str(t, f->api, NULL) : "an allocation",
	    gmp_human_bytes(f->size, a, sizeof(a)), f->device, at ? " at " : "", at ? at : "", mem,
	    gmp_human_bytes(f0->live_bytes, b, sizeof(b)), gmp_human_bytes(f0->freeable, c, sizeof(c)));
}

/* Runs every check asked for, prints a line each (naming the input when named); how many failed. */
static size_t run_checks(struct gmp_gate *g, const struct budgets *bu, const struct gmp_peak_cmp *cmps, size_t ncmps,
			 int named)
{
	const struct gmp_session *s = g->s;
	const struct gmp_trace *t = s->in.trace;
	int incomplete = t->truncated || t->damaged || (s->in.is_profile && !t->ended);
	add(g, "complete", incomplete && !bu->allow_incomplete, "%s",
	    !incomplete ? "the program ran to its end"
	    : t->truncated || t->damaged ? "the profile is cut off or damaged: findings cover only its intact part"
	    : "the program did not reach its end (crashed or killed)");
	check_oom(g, bu->allow_oom);
	check_suppressions(g);
	check_patterns(g, bu->fail_on);
	if (bu->have_peak)
		peak_where(g, check_budget(g, "max_peak", s->r->peak_bytes, bu->max_peak), GMP_ANY_DEVICE);
	if (bu->have_inuse) {
		uint64_t most = 0;
		for (size_t i = 0; i < s->r->ndevices; i++) {
			uint64_t v = gmp_device__in_use_peak(&s->r->devices[i]);
			most = v > most ? v : most;
		}
		check_budget(g, "max_in_use", most, bu->max_inuse);
	}
	if (bu->have_leak)
		check_budget(g, "max_leak", gmp_leaked_bytes(s->r), bu->max_leak);
	if (bu->base)
		check_baseline(g, bu->base, cmps, ncmps);
	for (size_t i = 0; i < g->n; i++) {
		const struct gmp_check *ck = &g->checks[i];
		printf("%s %s%s%s: %s\n", ck->failed ? "FAIL" : "PASS", named ? g->name : "", named ? ": " : "",
		       ck->name, ck->detail ? ck->detail : "");
	}
	return gmp_gate__failures(g);
}

/* Every input in turn: its session, its checks, its SARIF results; then the totals. */
struct all {
	struct gmp_inputs in;
	const struct budgets *bu;
	struct gmp_sarif *sf;      /* its root, mask and baseline; s set per input */
	struct gmp_gate *gates;        /* one per input checked so far */
	struct gmp_sarif_input *props; /* and what the SARIF run says of each */
	size_t ngates;
	size_t checks, failed;
};

static void gate_release(struct gmp_gate *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->checks[i].detail);
	free(g->name);
}

struct checking {
	struct all *a;
	struct gmp_jw *jw;        /* SARIF, or NULL */
};

static int check_one(struct gmp_session *s, size_t i, void *ctx)
{
	struct checking *c = ctx;
	struct all *a = c->a;
	if (gmp_input__findable(s->name, s->in.trace, a->bu->fail_on, "--fail-on"))
		return GMP_OUTPUT_ABANDON;
	struct gmp_gate *g = &a->gates[a->ngates];
	*g = (struct gmp_gate){ .s = s, .name = strdup(s->name) };
	if (!g->name) {
		fprintf(stderr, "gmprof check: out of memory\n");
		return GMP_OUTPUT_ABANDON;
	}
	a->ngates++;
	struct gmp_peak_cmp *cmps = NULL;
	size_t ncmps = 0;
	if (a->bu->base && gmp_baseline__compare(a->bu->base, s->r, s->name, a->in.n, a->bu->tol_pct, a->bu->tol_abs,
						  &cmps, &ncmps)) {
		free(cmps);
		fprintf(stderr, "gmprof check: out of memory\n");
		return GMP_OUTPUT_ABANDON;
	}
	a->failed += run_checks(g, a->bu, cmps, ncmps, a->in.n > 1);
	a->checks += g->n;
	const struct gmp_trace *t = s->in.trace;
	a->props[i] = (struct gmp_sarif_input){ g->name, s->r->peak_bytes, !t->truncated && !t->damaged };
	if (c->jw) {
		a->sf->s = s;
		a->sf->name_inputs = a->in.n > 1;
		a->sf->cmps = cmps;
		a->sf->ncmps = ncmps;
		gmp_sarif__results(a->sf, c->jw);
		a->sf->s = NULL;
		a->sf->cmps = NULL;
	}
	free(cmps);
	g->s = NULL;
	return 0;
}

/* Checks every input, adding its SARIF results when jw is set.  0, or GMP_OUTPUT_ABANDON on a bad input. */
static int check_all(struct all *a, struct gmp_jw *jw)
{
	struct checking c = { a, jw };
	int rc = gmp_session__each(&a->in, check_one, &c);
	if (rc)
		return rc;
	if (a->in.n > 1)
		printf("gmprof check: %zu inputs, %zu checks, %zu failed\n", a->in.n, a->checks, a->failed);
	else
		printf("gmprof check: %zu check%s, %zu failed\n", a->checks, a->checks == 1 ? "" : "s", a->failed);
	return 0;
}

static int write_sarif(FILE *fp, void *ctx)
{
	struct all *a = ctx;
	struct gmp_jw jw;
	gmp_sarif__begin(a->sf, &jw, fp);
	int rc = check_all(a, &jw);
	if (rc) {
		gmp_jw__release(&jw); /* a bad input: nothing is written */
		return rc;
	}
	gmp_sarif__end(&jw, a->props, a->ngates);
	return gmp_jw__finish(&jw);
}

/* "5%", "1MiB", "5%,1MiB" (either order). */
static int parse_tolerance(const char *s, double *pct, uint64_t *abs)
{
	char buf[64];
	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	*pct = 0;
	*abs = 0;
	char *save = NULL;
	int any = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(tok);
		if (n && tok[n - 1] == '%') {
			tok[n - 1] = 0;
			if (gmp_cli__pct(tok, pct))
				return -1;
		} else if (gmp_cli__bytes(tok, abs)) {
			return -1;
		}
		any = 1;
	}
	return any ? 0 : -1;
}

int cmd_check(int argc, char **argv)
{
	enum { O_FAILON = OPT_CMD_BASE, O_MAXPEAK, O_MAXINUSE, O_MAXLEAK, O_BASELINE, O_TOL, O_SARIF, O_JUNIT, O_MD,
	       O_ROOT, O_INCOMPLETE, O_OOM };
	static const struct option longopts[] = {
		{ "fail-on", required_argument, 0, O_FAILON }, { "max-peak", required_argument, 0, O_MAXPEAK },
		{ "max-in-use", required_argument, 0, O_MAXINUSE },
		{ "max-leak", required_argument, 0, O_MAXLEAK }, { "baseline", required_argument, 0, O_BASELINE },
		{ "tolerance", required_argument, 0, O_TOL }, { "sarif", required_argument, 0, O_SARIF },
		{ "junit", required_argument, 0, O_JUNIT }, { "markdown", required_argument, 0, O_MD }, { "source-root", required_argument, 0, O_ROOT },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "allow-incomplete", no_argument, 0, O_INCOMPLETE },
		{ "allow-oom", no_argument, 0, O_OOM },
		{ "force", no_argument, 0, OPT_FORCE }, { "help", no_argument, 0, 'h' },
		GMP_DETECT_LONGOPTS, { 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	const char *sarif = NULL, *junit = NULL, *md = NULL, *basefile = NULL, *root = NULL;
	uint32_t fail_on = 0;
	uint64_t max_peak = 0, max_inuse = 0, max_leak = 0, tol_abs = 0;
	double tol_pct = 0;
	int have_peak = 0, have_inuse = 0, have_leak = 0, allow_incomplete = 0, allow_oom = 0, c, ex;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case O_FAILON:
			if (gmp_pattern__parse_list(optarg, &fail_on))
				return gmp_cli__usage_error("check", "'--fail-on %s' names no known pattern list", optarg);
			break;
		case O_MAXPEAK:
			if (gmp_cli__bytes(optarg, &max_peak))
				return gmp_cli__usage_error("check", "bad byte count '%s' for --max-peak", optarg);
			have_peak = 1;
			break;
		case O_MAXINUSE:
			if (gmp_cli__bytes(optarg, &max_inuse))
				return gmp_cli__usage_error("check", "bad byte count '%s' for --max-in-use", optarg);
			have_inuse = 1;
			break;
		case O_MAXLEAK:
			if (gmp_cli__bytes(optarg, &max_leak))
				return gmp_cli__usage_error("check", "bad byte count '%s' for --max-leak", optarg);
			have_leak = 1;
			break;
		case O_BASELINE: basefile = optarg; break;
		case O_TOL:
			if (parse_tolerance(optarg, &tol_pct, &tol_abs))
				return gmp_cli__usage_error("check", "bad tolerance '%s' (like 5%%, 1MiB or 5%%,1MiB)", optarg);
			break;
		case O_SARIF: sarif = optarg; break;
		case O_JUNIT: junit = optarg; break;
		case O_MD: md = optarg; break;
		case O_ROOT: root = optarg; break;
		case O_INCOMPLETE: allow_incomplete = 1; break;
		case O_OOM: allow_oom = 1; break;
		default:
			if (gmp_cli__common("check", usage, c, argv, &cm, &ex) < 0)
				return ex;
		}
	}
	struct gmp_inputs in;
	if ((ex = gmp_cli__inputs("check", argc, argv, &cm, &in)))
		return ex;
	struct gmp_sarif sf = { .error_mask = fail_on | (allow_oom ? 0 : 1u << GMP_PAT_COUNT) | 1u << (GMP_PAT_COUNT + 1) };
	/* An absolute root is taken as written: the sources may live elsewhere (CI). */
	if (root && root[0] == '/' && strlen(root) < sizeof(sf.root)) {
		snprintf(sf.root, sizeof(sf.root), "%s", root);
		size_t rl = strlen(sf.root);
		while (rl > 1 && sf.root[rl - 1] == '/')
			sf.root[--rl] = 0;
	} else if (root ? !realpath(root, sf.root) : !getcwd(sf.root, sizeof(sf.root))) {
		gmp_input__perror(root ? root : ".", "cannot resolve the source root", errno);
		return GMP_EXIT_USAGE;
	}
	if (!strcmp(sf.root, "/"))
		sf.root[0] = 0;
	struct gmp_baseline base = { 0 };
	if (basefile && gmp_baseline__load(basefile, &base))
		return GMP_EXIT_USAGE;
	struct budgets bu = { fail_on, have_peak, max_peak, have_inuse, max_inuse, have_leak, max_leak,
			      basefile ? &base : NULL, tol_pct, tol_abs, allow_incomplete, allow_oom };
	sf.baseline = basefile ? &base : NULL;
	struct all a = { .in = in, .bu = &bu, .sf = &sf };
	a.gates = calloc(a.in.n, sizeof(*a.gates));
	a.props = calloc(a.in.n, sizeof(*a.props));
	int rc = a.gates && a.props ? 0 : -1;
	if (rc)
		fprintf(stderr, "gmprof check: out of memory\n");
	else if (sarif)
		rc = gmp_output__write(sarif, cm.force, write_sarif, &a);
	else
		rc = check_all(&a, NULL) ? -1 : 0;
	fflush(stdout);
	struct gmp_gates gs = { a.gates, a.ngates, a.checks, a.failed };
	if (!rc && junit && gmp_output__write(junit, cm.force, gmp_gates__junit, &gs))
		rc = -1;
	if (!rc && md && gmp_output__write(md, cm.force, gmp_gates__markdown, &gs))
		rc = -1;
	for (size_t i = 0; i < a.ngates; i++)
		gate_release(&a.gates[i]);
	free(a.gates);
	free(a.props);
	gmp_baseline__release(&base);
	if (rc)
		return GMP_EXIT_USAGE;
	return a.failed ? GMP_EXIT_GATE : GMP_EXIT_OK;
}
