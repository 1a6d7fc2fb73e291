// SPDX-License-Identifier: MIT
/* gmprof check's command line (gmp_check__args): its budgets, baseline (and reading it) and outputs. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "baseline.h"
#include "check.h"
#include "cli.h"
#include "cmds.h"
#include "session.h"

/* check's own options, after the common ones (OPT_CMD_BASE); check_option takes O_FAILON .. O_MARKGROWTH. */
enum { O_FAILON = OPT_CMD_BASE, O_MAXPEAK, O_MAXINUSE, O_MAXLEAK, O_BASELINE, O_TOL, O_SARIF, O_JUNIT, O_MD,
       O_ROOT, O_INCOMPLETE, O_OOM, O_ANNOT, O_CQ, O_RANGEPEAK, O_RANGEGROWTH, O_MARK, O_MARKGROWTH };

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

/* One option of check's own into ar: 0, or the exit status after one sentence naming the problem. */
static int check_option(int c, const char *arg, struct gmp_check_args *ar)
{
	struct gmp_budgets *bu = &ar->bu;
	switch (c) {
	case O_FAILON:
		if (gmp_pattern__parse_list(arg, &bu->fail_on))
			return gmp_cli__usage_error("check", "'--fail-on %s' names no known pattern list", arg);
		break;
	case O_MAXPEAK:
	case O_MAXINUSE: {
		const int peak = c == O_MAXPEAK;
		if (gmp_cli__budget(arg, peak ? &bu->max_peak : &bu->max_inuse, peak ? &bu->peak_pct : &bu->inuse_pct))
			return gmp_cli__usage_error("check", "bad byte count or share '%s' for %s "
						    "(like 6GiB, or 90%% of the device's memory)", arg,
						    peak ? "--max-peak" : "--max-in-use");
		*(peak ? &bu->have_peak : &bu->have_inuse) = 1;
		break;
	}
	case O_MAXLEAK:
		if (gmp_cli__bytes(arg, &bu->max_leak))
			return gmp_cli__usage_error("check", "bad byte count '%s' for --max-leak", arg);
		bu->have_leak = 1;
		break;
	case O_TOL:
		if (parse_tolerance(arg, &bu->tol_pct, &bu->tol_abs))
			return gmp_cli__usage_error("check", "bad tolerance '%s' (like 5%%, 1MiB or 5%%,1MiB)", arg);
		break;
	case O_ANNOT:
		if (strcmp(arg, "github"))
			return gmp_cli__usage_error("check", "'--annotations %s' names no annotation format "
						    "(github is the one there is)", arg);
		ar->annotations = 1;
		break;
	case O_RANGEPEAK:
	case O_RANGEGROWTH:
		if (bu->nrange == GMP_RANGE_BUDGETS ||
		    gmp_range_budget__parse(arg, c == O_RANGEGROWTH, &ar->ranges[bu->nrange++]))
			return gmp_cli__usage_error("check", "bad --max-range-%s '%s' (like 'step > forward=6GiB' "
						    "or 'step*=50%%'; at most %d of them in all)",
						    c == O_RANGEGROWTH ? "growth" : "peak", arg, GMP_RANGE_BUDGETS);
		break;
	case O_MARK:
	case O_MARKGROWTH:
		if (bu->nmark == GMP_RANGE_BUDGETS ||
		    gmp_range_budget__parse(arg, c == O_MARKGROWTH, &ar->marks[bu->nmark++]))
			return gmp_cli__usage_error("check", "bad --max-mark%s '%s' (like 'model loaded=6GiB' "
						    "or 'epoch*=50%%'; at most %d of them in all)",
						    c == O_MARKGROWTH ? "-growth" : "", arg, GMP_RANGE_BUDGETS);
		break;
	case O_BASELINE: ar->basefile = arg; break;
	case O_SARIF: ar->sarif = arg; break;
	case O_JUNIT: ar->junit = arg; break;
	case O_MD: ar->md = arg; break;
	case O_ROOT: ar->root = arg; break;
	case O_CQ: ar->cq = arg; break;
	case O_INCOMPLETE: bu->allow_incomplete = 1; break;
	case O_OOM: bu->allow_oom = 1; break;
	}
	return 0;
}

int gmp_check__args(int argc, char **argv, const char *usage, struct gmp_check_args *ar, int *ex)
{
	static const struct option longopts[] = {
		{ "fail-on", required_argument, 0, O_FAILON }, { "max-peak", required_argument, 0, O_MAXPEAK },
		{ "max-in-use", required_argument, 0, O_MAXINUSE },
		{ "max-leak", required_argument, 0, O_MAXLEAK }, { "baseline", required_argument, 0, O_BASELINE },
		{ "tolerance", required_argument, 0, O_TOL }, { "sarif", required_argument, 0, O_SARIF },
		{ "junit", required_argument, 0, O_JUNIT }, { "markdown", required_argument, 0, O_MD }, { "source-root", required_argument, 0, O_ROOT },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "allow-incomplete", no_argument, 0, O_INCOMPLETE },
		{ "allow-oom", no_argument, 0, O_OOM }, { "annotations", required_argument, 0, O_ANNOT },
		{ "codequality", required_argument, 0, O_CQ }, { "max-range-peak", required_argument, 0, O_RANGEPEAK },
		{ "max-range-growth", required_argument, 0, O_RANGEGROWTH }, { "max-mark", required_argument, 0, O_MARK },
		{ "max-mark-growth", required_argument, 0, O_MARKGROWTH },
		{ "force", no_argument, 0, OPT_FORCE }, { "help", no_argument, 0, 'h' },
		GMP_DETECT_LONGOPTS, GMP_SOURCE_LONGOPTS, { 0, 0, 0, 0 },
	};
	gmp_cli__common_init(&ar->cm);
	ar->bu.range = ar->ranges;
	ar->bu.mark = ar->marks;
	gmp_cli__reset_getopt();
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c < O_FAILON || c > O_MARKGROWTH) {
			if (gmp_cli__common("check", usage, c, argv, &ar->cm, ex) < 0)
				return 1;
		} else if ((*ex = check_option(c, optarg, ar))) {
			return 1;
		}
	}
	return 0;
}

/* --baseline: a baseline file, or a run (profile or event script) to take one from, analyzed alike. */
int gmp_check__load_baseline(const char *path, struct gmp_cli_common *cm, struct gmp_baseline *b)
{
	int is = gmp_baseline__sniff(path);
	char why[700];
	if (is < 0 || (is && gmp_baseline__load(path, b)))
		return -1;
	if (is && !gmp_baseline__same_names(b, cm->nvtx_numbers, cm->nvtx_strip, why, sizeof(why))) {
		fprintf(stderr, "gmprof check: the baseline '%s' cannot be compared: %s, so that its NVTX ranges and marks "
			"would not match the run's; give check the options gmprof baseline was given, or write the baseline "
			"again with check's\n", path, why);
		gmp_baseline__release(b);
		return -1;
	}
	if (is)
		return 0;
	struct gmp_session_opts so;
	struct gmp_session s;
	gmp_cli__session_opts(cm, &so);
	if (gmp_session__open(&s, path, &so))
		return -1;
	int err = gmp_baseline__of_session(&s, b);
	gmp_session__close(&s);
	if (err == -ENOMEM)
		fprintf(stderr, "gmprof check: out of memory\n");
	return err ? -1 : 0;
}
