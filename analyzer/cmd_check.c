// SPDX-License-Identifier: MIT
/*
 * `gmprof check`, the CI gate.  Each check passes or fails on its own;
 * the command prints one line per check, writes SARIF, JUnit, Markdown,
 * GitHub annotations and GitLab Code Quality on request (the last two made
 * from the SARIF log: ci_formats.c), and exits 0 when all pass, 1 when one
 * fails, 2 on bad input.  The checks against a baseline are in check_gate.c,
 * the budgets of NVTX ranges in check_ranges.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "check.h"
#include "ci_formats.h"
#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "input.h"
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
	"      --max-peak BYTES     fail when a device's peak exceeds BYTES (K, M, G, KiB, MiB, GiB),\n"
	"                           or P% of the device's memory as the profile records it (90%)\n"
	"      --max-in-use BYTES   fail when a device's peak of bytes in use exceeds BYTES or P%\n"
	"                           (pools with NVTX regions counted by their regions; else its peak)\n"
	"      --max-range-peak GLOB=BYTES\n"
	"                           fail when an NVTX range matching GLOB (\"outer > inner\",\n"
	"                           fnmatch) reaches more than BYTES or P% on a device, or\n"
	"                           when no range matches (repeatable)\n"
	"      --max-range-growth GLOB=BYTES\n"
	"                           fail when an NVTX range matching GLOB began the last of its\n"
	"                           times (a loop's iterations) with more than BYTES (or P%)\n"
	"                           more live on a device than its first, or when no range\n"
	"                           matches (repeatable)\n"
	"      --max-mark GLOB=BYTES\n"
	"                           fail when more than BYTES (or P%) is live on a device at\n"
	"                           an NVTX mark whose name matches GLOB, or when none does\n"
	"      --max-mark-growth GLOB=BYTES\n"
	"                           fail when more than BYTES (or P%) more is live at the\n"
	"                           last mark of such a name than at its first\n"
	"      --max-leak BYTES     fail when more than BYTES are leaked\n"
	"      --baseline FILE      fail on findings whose fingerprint FILE lacks, and on\n"
	"                           a device's peak (and each NVTX range's peak, and what\n"
	"                           a range entered more than once kept from its first\n"
	"                           time to its last, and the live bytes at each NVTX mark\n"
	"                           name and their growth) grown past its own in FILE by\n"
	"                           more than the tolerance (FILE: gmprof baseline, or the\n"
	"                           profile or event script of the run to compare with)\n"
	"      --tolerance T        peak growth allowed over the baseline: a percentage,\n"
	"                           bytes, or both as 5%,1MiB (the larger applies; default 0)\n"
	"      --allow-incomplete   pass a profile whose program crashed or was cut off, or\n"
	"                           some of whose launches' accesses were not recorded\n"
	"      --allow-oom          pass a program whose allocations ran out of memory (it\n"
	"                           retries smaller, or probes how much fits)\n"
	"\n"
	"Outputs:\n"
	"      --sarif FILE         SARIF 2.1.0 for code scanning (GitHub, GitLab...)\n"
	"      --junit FILE         JUnit XML, one test case per check\n"
	"      --markdown FILE      Markdown: a table of the checks, the findings folded below\n"
	"                           (for $GITHUB_STEP_SUMMARY or a pull request comment)\n"
	"      --annotations github GitHub Actions annotations on the pull request's lines\n"
	"                           (workflow commands, printed after the checks: errors first,\n"
	"                           10 of each kind as GitHub shows, none the baseline has)\n"
	"      --codequality FILE   a GitLab Code Quality report (artifacts:reports:codequality)\n"
	"      --source-root DIR    paths relative to DIR (the current directory: for GitHub\n"
	"                           and GitLab, the repository's root)\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	GMP_SOURCE_HELP
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
	"  gmprof check --max-peak 90% app.gmprof     # leave a tenth of each GPU's memory free\n"
	"  gmprof check --max-range-peak 'step > forward=4GiB' --max-range-peak 'step > backward=6GiB' app.gmprof\n"
	"  gmprof check --max-range-growth 'step=0' app.gmprof   # no memory kept from one step to the next\n"
	"  gmprof check --max-mark 'model loaded=12GiB' --max-mark-growth 'epoch=0' app.gmprof\n"
	"  gmprof check --baseline main.baseline.json --markdown \"$GITHUB_STEP_SUMMARY\" --force app.gmprof\n"
	"  gmprof check --fail-on all --min-size 1MiB --annotations github app.gmprof  # no code scanning\n"
	"  gmprof check --baseline main.baseline.json --codequality gl-code-quality.json app.gmprof  # GitLab\n";

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
		struct gmp_check *c = gmp_gate__add(g, name, n > 0, "%zu finding%s", n, n == 1 ? "" : "s");
		for (size_t i = 0, shown = 0; i < r->nfindings && shown < 20; i++) {
			if (r->findings[i].pattern != p)
				continue;
			gmp_gate__finding(g, c, &r->findings[i]);
			shown++;
		}
		if (n > 20) {
			snprintf(line, sizeof(line), "  ... and %zu more", n - 20);
			gmp_check__more(c, line);
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
	struct gmp_check *c = gmp_gate__add(g, "suppressions", 0, "%zu finding%s%s suppressed by %s", sp->suppressed,
			      sp->suppressed == 1 ? "" : "s", fails, sp->path);
	char line[900];
	for (size_t i = 0; i < sp->n; i++) {
		snprintf(line, sizeof(line), "  %s:%u: %s: %zu", sp->path, sp->rules[i].line, sp->rules[i].glob,
			 sp->rules[i].hits);
		gmp_check__more(c, line);
	}
}

static struct gmp_check *check_budget(struct gmp_gate *g, const char *name, uint64_t value, uint64_t max)
{
	char a[64], b[64];
	gmp_gate__two_sizes(value, max, a, b, sizeof(a));
	return gmp_gate__add(g, name, value > max, "%s %s %s", a, value > max ? ">" : "<=", b);
}

/* What a check run was asked for. */
/* Always on: no allocation ran out of memory (the first one named). */
static void check_oom(struct gmp_gate *g, int allow)
{
	const struct gmp_result *r = g->s->r;
	const struct gmp_trace *t = r->trace;
	if (!r->nfailures) {
		gmp_gate__add(g, "out_of_memory", 0, "no allocation ran out of memory");
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
	char cached[80] = ""; /* what stream-ordered pools held then, in no object */
	uint64_t pc = gmp_trace__pool_cached(t, f, f0->live_bytes, NULL);
	if (pc)
		snprintf(cached, sizeof(cached), " and %s cached by stream-ordered pools", gmp_human_bytes(pc, e, sizeof(e)));
	gmp_gate__add(g, "out_of_memory", !allow,
	    "%zu allocation%s ran out of memory%s; the first, %s of %s on device %u%s%s%s, with %s live%s; "
	    "fixing findings frees %s then (gmprof report shows which)",
	    r->nfails_total, r->nfails_total == 1 ? "" : "s", rt, f->api ? gmp_trace__str(t, f->api, NULL) : "an allocation",
	    gmp_human_bytes(f->size, a, sizeof(a)), f->device, at ? " at " : "", at ? at : "", mem,
	    gmp_human_bytes(f0->live_bytes, b, sizeof(b)), cached, gmp_human_bytes(f0->freeable, c, sizeof(c)));
}

/* A device's peak, or its peak of bytes in use. */
static uint64_t device_peak(const struct gmp_device_summary *d, int inuse)
{
	return inuse ? gmp_device__in_use_peak(d) : d->peak_bytes;
}

/*
 * A budget as a share of each device's memory (--max-peak 90%): one check,
 * a line per device when there are several.
 */
static void check_share(struct gmp_gate *g, const char *name, double pct, int inuse)
{
	const struct gmp_result *r = g->s->r;
	const struct gmp_trace *t = r->trace;
	char line[300], a[64], b[64], m[32];
	size_t failed = 0;
	for (size_t i = 0; i < r->ndevices; i++)
		failed += device_peak(&r->devices[i], inuse) > gmp_trace__device_share_bytes(t, r->devices[i].device, pct);
	struct gmp_check *c = NULL;
	for (size_t i = 0; i < r->ndevices; i++) {
		const struct gmp_device_summary *d = &r->devices[i];
		uint64_t mem = gmp_trace__device_memory(t, d->device), v = device_peak(d, inuse);
		uint64_t max = gmp_trace__device_share_bytes(t, d->device, pct);
		gmp_gate__two_sizes(v, max, a, b, sizeof(a));
		snprintf(line, sizeof(line), "device %u: %s %s %g%% of its %s (%s)", d->device, a, v > max ? ">" : "<=",
			 pct, gmp_human_bytes(mem, m, sizeof(m)), b);
		if (r->ndevices == 1) {
			c = gmp_gate__add(g, name, failed > 0, "%s", line);
		} else {
			if (!c)
				c = failed ? gmp_gate__add(g, name, 1, "%zu of %zu devices past %g%% of their memory",
							   failed, r->ndevices, pct)
					   : gmp_gate__add(g, name, 0, "%zu devices, none past %g%% of their memory",
							   r->ndevices, pct);
			char more[340];
			snprintf(more, sizeof(more), "  %s %s", v > max ? "FAIL" : "ok", line);
			gmp_check__more(c, more);
		}
		if (v > max && !inuse)
			gmp_gate__peak_where(g, c, d->device);
	}
	if (!r->ndevices)
		gmp_gate__add(g, name, 0, "no device memory was allocated");
}

/*
 * Launches whose accesses the collector failed to record (its patches did not
 * load, a read-back failed: it said so when the program ran), where the gate
 * checks patterns that need them: each counts as a use of every live object,
 * so a pattern check may miss findings there and pass a run it would fail.
 * Fails unless --allow-incomplete.  Launches left unmonitored by design (alloc
 * mode, outside a capture range) are no failure: they are what was asked for.
 */
static void check_monitored(struct gmp_gate *g, const struct gmp_budgets *bu)
{
	const struct gmp_trace *t = g->s->in.trace;
	uint64_t untouched, lost = gmp_input__unmonitored(t, bu->base ? GMP_PAT_ALL : bu->fail_on, &untouched);
	if (!lost && !untouched)
		return;
	char what[200];
	if (lost)
		snprintf(what, sizeof(what), "%" PRIu64 " of %" PRIu64 " kernel launches have no recorded accesses%s",
			 lost, gmp_input__launches(t), untouched ? ", and some intra-mode launches no touches" : "");
	else
		snprintf(what, sizeof(what), "%" PRIu64 " intra-mode kernel launches have no recorded touches", untouched);
	gmp_gate__add(g, "monitored", !bu->allow_incomplete,
		      "%s (the collector said why as the program ran): a pattern check may miss findings there", what);
}

/* Runs every check asked for, prints a line each (naming the input when named); how many failed. */
static size_t run_checks(struct gmp_gate *g, const struct gmp_budgets *bu, const struct gmp_peak_cmp *cmps, size_t ncmps,
			 int named)
{
	const struct gmp_session *s = g->s;
	const struct gmp_trace *t = s->in.trace;
	int incomplete = t->truncated || t->damaged || (s->in.is_profile && !t->ended);
	gmp_gate__add(g, "complete", incomplete && !bu->allow_incomplete, "%s",
	    !incomplete ? "the program ran to its end"
	    : t->truncated || t->damaged ? "the profile is cut off or damaged: findings cover only its intact part"
	    : "the program did not reach its end (crashed or killed)");
	check_monitored(g, bu);
	check_oom(g, bu->allow_oom);
	check_suppressions(g);
	gmp_gate__notes(g);
	check_patterns(g, bu->fail_on);
	if (bu->have_peak && bu->peak_pct)
		check_share(g, "max_peak", bu->peak_pct, 0);
	else if (bu->have_peak)
		gmp_gate__peak_where(g, check_budget(g, "max_peak", s->r->peak_bytes, bu->max_peak), GMP_ANY_DEVICE);
	if (bu->have_inuse && bu->inuse_pct) {
		check_share(g, "max_in_use", bu->inuse_pct, 1);
	} else if (bu->have_inuse) {
		uint64_t most = 0;
		for (size_t i = 0; i < s->r->ndevices; i++) {
			uint64_t v = gmp_device__in_use_peak(&s->r->devices[i]);
			most = v > most ? v : most;
		}
		check_budget(g, "max_in_use", most, bu->max_inuse);
	}
	if (bu->nrange)
		gmp_gate__range_peaks(g, bu->range, bu->nrange);
	if (bu->nmark)
		gmp_gate__marks(g, bu->mark, bu->nmark);
	if (bu->have_leak)
		check_budget(g, "max_leak", gmp_leaked_bytes(s->r), bu->max_leak);
	if (bu->base) {
		gmp_gate__baseline(g, bu->base, cmps, ncmps);
		gmp_gate__baseline_ranges(g, cmps, ncmps, bu->tol_pct, bu->tol_abs);
		gmp_gate__baseline_marks(g, cmps, ncmps, bu->tol_pct, bu->tol_abs);
	}
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
	const struct gmp_budgets *bu;
	struct gmp_sarif *sf;      /* its root, mask and baseline; s set per input */
	struct gmp_source *src;        /* source lines under findings, or NULL */
	struct gmp_gate *gates;        /* one per input checked so far */
	struct gmp_sarif_input *props; /* and what the SARIF run says of each */
	size_t ngates;
	int keep;                      /* keep the SARIF log's text (for the formats made from it) */
	char *text;                    /* that text, once written (owned) */
	size_t len;
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
	if (gmp_input__findable(s->name, s->in.trace, a->bu->fail_on, "--fail-on") ||
	    !gmp_report__shares_known("check", s->name, s->r, a->bu->peak_pct ? "--max-peak" : "--max-in-use",
				      a->bu->peak_pct ? a->bu->peak_pct : a->bu->inuse_pct))
		return GMP_OUTPUT_ABANDON;
	for (size_t k = 0; k < a->bu->nrange; k++)
		if (!gmp_report__shares_known("check", s->name, s->r,
					      a->bu->range[k].growth ? "--max-range-growth" : "--max-range-peak",
					      a->bu->range[k].pct))
			return GMP_OUTPUT_ABANDON;
	for (size_t k = 0; k < a->bu->nmark; k++)
		if (!gmp_report__shares_known("check", s->name, s->r,
					      a->bu->mark[k].growth ? "--max-mark-growth" : "--max-mark", a->bu->mark[k].pct))
			return GMP_OUTPUT_ABANDON;
	struct gmp_gate *g = &a->gates[a->ngates];
	*g = (struct gmp_gate){ .s = s, .name = strdup(s->name) };
	s->src = a->src;
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

/* The SARIF log into fp (NULL: none), and its text into a->text when a->keep. */
static int write_sarif(FILE *fp, void *ctx)
{
	struct all *a = ctx;
	struct gmp_jw jw;
	FILE *to = a->keep ? open_memstream(&a->text, &a->len) : fp;
	if (!to)
		return -ENOMEM;
	gmp_sarif__begin(a->sf, &jw, to);
	int rc = check_all(a, &jw);
	if (rc) {
		gmp_jw__release(&jw); /* a bad input: nothing is written */
	} else {
		gmp_sarif__end(&jw, a->props, a->ngates);
		rc = gmp_jw__finish(&jw);
	}
	if (a->keep && fclose(to) && !rc)
		rc = -ENOMEM;
	if (!rc && a->keep && fp && fwrite(a->text, 1, a->len, fp) != a->len)
		rc = -EIO;
	return rc;
}

static int write_codequality(FILE *fp, void *ctx)
{
	return gmp_ci__codequality(ctx, fp);
}

/* GitHub annotations on standard output, and the GitLab Code Quality report, from the SARIF log's text. */
static int ci_formats(struct all *a, int annotations, const char *cq, int force)
{
	struct gmp_ci_log log;
	int err = gmp_ci__parse(a->text, a->len, &log);
	if (err) {
		fprintf(stderr, "gmprof check: %s\n", err == -ENOMEM ? "out of memory" :
			"the SARIF log it wrote did not read back (a bug: please report it)");
		return -1;
	}
	int rc = 0;
	if (annotations && gmp_ci__github(&log, stdout) < 0) {
		fprintf(stderr, "gmprof check: cannot write the annotations to standard output\n");
		rc = -1;
	}
	if (!rc && cq && gmp_output__write(cq, force, write_codequality, &log))
		rc = -1;
	gmp_ci__release(&log);
	return rc;
}


/* --source-root (or the current directory) as SARIF's %SRCROOT%, into root: 0, or -1 said. */
static int source_root(const char *arg, char *root, size_t n)
{
	/* An absolute root is taken as written: the sources may live elsewhere (CI). */
	if (arg && arg[0] == '/' && strlen(arg) < n) {
		snprintf(root, n, "%s", arg);
		size_t rl = strlen(root);
		while (rl > 1 && root[rl - 1] == '/')
			root[--rl] = 0;
	} else if (arg ? !realpath(arg, root) : !getcwd(root, n)) {
		gmp_input__perror(arg ? arg : ".", "cannot resolve the source root", errno);
		return -1;
	}
	if (!strcmp(root, "/"))
		root[0] = 0;
	return 0;
}

/* Checks every input, then writes what was asked: 0, or -1 with the problem said. */
static int check_and_write(struct all *a, const struct gmp_check_args *ar)
{
	a->gates = calloc(a->in.n, sizeof(*a->gates));
	a->props = calloc(a->in.n, sizeof(*a->props));
	int rc = a->gates && a->props ? 0 : -1;
	if (rc)
		fprintf(stderr, "gmprof check: out of memory\n");
	else if (ar->sarif)
		rc = gmp_output__write(ar->sarif, ar->cm.force, write_sarif, a);
	else if (a->keep && (rc = write_sarif(NULL, a)))
		rc = rc == GMP_OUTPUT_ABANDON ? -1 : (fprintf(stderr, "gmprof check: out of memory\n"), -1);
	else if (!a->keep)
		rc = check_all(a, NULL) ? -1 : 0;
	if (!rc && a->keep)
		rc = ci_formats(a, ar->annotations, ar->cq, ar->cm.force);
	if (!rc && gmp_source__error(a->src)) /* a source line left out: no JUnit or Markdown without it */
		rc = (fprintf(stderr, "gmprof check: out of memory\n"), -1);
	if (!rc && (fflush(stdout) != 0 || ferror(stdout))) /* the log: what a CI job shows of the gate */
		rc = (fprintf(stderr, "gmprof check: cannot write the log to standard output: %s\n", strerror(errno)), -1);
	struct gmp_gates gs = { a->gates, a->ngates, a->checks, a->failed };
	if (!rc && ar->junit && gmp_output__write(ar->junit, ar->cm.force, gmp_gates__junit, &gs))
		rc = -1;
	if (!rc && ar->md && gmp_output__write(ar->md, ar->cm.force, gmp_gates__markdown, &gs))
		rc = -1;
	for (size_t i = 0; i < a->ngates; i++)
		gate_release(&a->gates[i]);
	free(a->gates);
	free(a->props);
	free(a->text);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct gmp_check_args ar = { 0 };
	struct gmp_budgets *bu = &ar.bu;
	int ex;
	if (gmp_check__args(argc, argv, usage, &ar, &ex))
		return ex;
	struct gmp_inputs in;
	if ((ex = gmp_cli__inputs("check", argc, argv, &ar.cm, &in)))
		return ex;
	struct gmp_sarif sf = { .error_mask = bu->fail_on | (bu->allow_oom ? 0 : 1u << GMP_PAT_COUNT) |
					      31u << (GMP_PAT_COUNT + 1),
				.has_max_peak = bu->have_peak, .max_peak = bu->max_peak, .max_peak_pct = bu->peak_pct,
				.range = ar.ranges, .nrange = bu->nrange, .mark = ar.marks, .nmark = bu->nmark,
				.tol_pct = bu->tol_pct, .tol_abs = bu->tol_abs };
	if (source_root(ar.root, sf.root, sizeof(sf.root)))
		return GMP_EXIT_USAGE;
	struct gmp_baseline base = { 0 };
	if (ar.basefile && gmp_check__load_baseline(ar.basefile, &ar.cm, &base))
		return GMP_EXIT_USAGE;
	bu->base = sf.baseline = ar.basefile ? &base : NULL;
	struct all a = { .in = in, .bu = bu, .sf = &sf, .keep = ar.annotations || ar.cq };
	if ((ex = gmp_cli__source("check", &ar.cm, &a.src))) {
		gmp_baseline__release(&base);
		return ex;
	}
	int rc = check_and_write(&a, &ar);
	gmp_baseline__release(&base);
	if (!rc)
		gmp_source__note(a.src, stderr, "gmprof check: ");
	gmp_source__free(a.src);
	return gmp_cli__finish(&ar.cm, rc, "check") ? GMP_EXIT_USAGE : a.failed ? GMP_EXIT_GATE : GMP_EXIT_OK;
}
