// SPDX-License-Identifier: MIT
/*
 * `gmprof replay`: runs the whole analysis on a profile or an event script
 * and prints the findings, as text or as the findings JSON object.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "safefile.h"
#include "session.h"

static const char usage[] =
	"Usage: gmprof replay [options] INPUT\n"
	"\n"
	"Analyze a profile or an event script (told apart by content) and print the\n"
	"findings: the ten inefficiency patterns, the memory peaks, and what fixing\n"
	"each finding would save at the peak.  INPUT '-' reads standard input.\n"
	"\n"
	"Options:\n"
	"  -f, --format text|json   output format (text); JSON is one line unless --pretty\n"
	"      --pretty             indent the JSON\n"
	"  -n, --top N              print only the N findings that save the most (all)\n"
	"  -o, --output FILE        write to FILE instead of standard output\n"
	"      --force              replace FILE if it exists\n"
	"      --stats              print the time spent loading and in each pass on\n"
	"                           standard error\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"Exit status: 0 analyzed, 2 bad usage or input.\n"
	"\n"
	"EXAMPLES\n"
	"  gmprof replay tests/scripts/figure2.jsonl\n"
	"  gmprof replay --format json --idle-apis 4 app.gmprof\n"
	"  gmprof replay --top 10 app.gmprof\n";

/* One line: events, load time, each pass, rate (what `make bench` divides). */
static void print_stats(const struct gmp_trace *t, const struct gmp_result *r, double load,
			double detect)
{
	fprintf(stderr, "gmprof replay: %zu events: load %.3f s", t->nev, load);
	for (unsigned i = 0; i < GMP_PASSES; i++)
		fprintf(stderr, ", %s %.3f", gmp_pass__name(i), (double)r->pass_ns[i] / 1e9);
	double s = load + detect;
	fprintf(stderr, "; total %.3f s, %.0f events/s\n", s, s > 0 ? (double)t->nev / s : 0.0);
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'f' },
		{ "pretty", no_argument, 0, OPT_CMD_BASE },
		{ "stats", no_argument, 0, OPT_CMD_BASE + 1 },
		{ "top", required_argument, 0, 'n' },
		{ "output", required_argument, 0, 'o' },
		{ "force", no_argument, 0, OPT_FORCE },
		{ "help", no_argument, 0, 'h' },
		GMP_DETECT_LONGOPTS,
		{ 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	const char *format = "text";
	int pretty = 0, stats = 0, c, ex;
	uint32_t top = 0;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":f:o:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case OPT_CMD_BASE: pretty = 1; break;
		case OPT_CMD_BASE + 1: stats = 1; break;
		case 'n':
			if (gmp_cli__u32(optarg, &top))
				return gmp_cli__usage_error("replay", "bad value '%s' for --top", optarg);
			break;
		default:
			if (gmp_cli__common("replay", usage, c, argv, &cm, &ex) < 0)
				return ex;
		}
	}
	if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
		return gmp_cli__usage_error("replay", "unknown format '%s' (text or json)", format);
	if (optind != argc - 1)
		return gmp_cli__usage_error("replay", "expected one INPUT, got %d", argc - optind);
	const char *path = argv[optind];
	struct gmp_session s;
	struct gmp_session_opts so;
	gmp_cli__session_opts(&cm, &so);
	so.no_fingerprints = 1; /* its findings carry none: its time is the detector's */
	double t0 = gmp_cli__seconds();
	if (gmp_session__load(&s, path, &so))
		return GMP_EXIT_USAGE;
	double t1 = gmp_cli__seconds();
	if (gmp_session__analyze(&s, &so))
		return GMP_EXIT_USAGE;
	const struct gmp_result *r = s.r;
	int rc = GMP_EXIT_USAGE;
	struct gmp_outfile out;
	if (stats)
		print_stats(s.in.trace, r, t1 - t0, gmp_cli__seconds() - t1);
	int err = gmp_outfile__open(&out, cm.output, cm.force);
	if (err) {
		gmp_output__perror(cm.output, err);
		goto done;
	}
	if (strcmp(format, "json") == 0) {
		struct gmp_jw jw;
		struct gmp_findings_opts fo = { .max_findings = (int)(top > INT32_MAX ? INT32_MAX : top) };
		gmp_jw__init(&jw, out.fp, pretty);
		gmp_findings__json(&jw, r, &fo);
		gmp_jw__raw(&jw, "\n", 1);
		err = gmp_jw__finish(&jw);
	} else {
		gmp_text__findings(out.fp, r, strcmp(path, "-") ? path : "<stdin>", top, NULL, NULL, NULL);
	}
	if (err) {
		gmp_outfile__abort(&out);
		gmp_output__write_error(cm.output, err);
		goto done;
	}
	err = gmp_outfile__commit(&out);
	if (err) {
		gmp_output__write_error(cm.output, err);
		goto done;
	}
	rc = GMP_EXIT_OK;
done:
	gmp_session__close(&s);
	return rc;
}
