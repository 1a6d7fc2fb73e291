// SPDX-License-Identifier: MIT
/* `gmprof perfetto`: the run as a Perfetto trace (see perfetto.c for its shape). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "perfetto.h"
#include "session.h"

static const char usage[] =
	"Usage: gmprof perfetto [options] INPUT\n"
	"\n"
	"Write a profile or an event script as a trace for the Perfetto UI\n"
	"(ui.perfetto.dev) or chrome://tracing: a track per stream with every API,\n"
	"object lifetimes grouped by allocation site, live bytes per device, flows\n"
	"from each object to the APIs that touch it, and every finding.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE        write to FILE (a name ending in .gz is gzipped);\n"
	"                           standard output by default\n"
	"      --time topo|host     time axis: the topological order, one level per\n"
	"                           microsecond (topo), or the host clock (host)\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	"      --force              replace FILE if it exists\n"
	"      --stats              print the writer's speed on standard error\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"EXAMPLES\n"
	"  gmprof perfetto -o trace.json app.gmprof\n"
	"  gmprof perfetto --time host -o trace.json.gz app.gmprof\n";

struct job {
	struct gmp_session *s;
	int host;
	uint64_t written;
};

static int write_trace(FILE *fp, void *ctx)
{
	struct job *j = ctx;
	return gmp_perfetto__write(fp, j->s, j->host, &j->written);
}

int cmd_perfetto(int argc, char **argv)
{
	enum { O_TIME = OPT_CMD_BASE, O_STATS };
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "time", required_argument, 0, O_TIME },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "force", no_argument, 0, OPT_FORCE },
		{ "stats", no_argument, 0, O_STATS }, { "help", no_argument, 0, 'h' },
		GMP_DETECT_LONGOPTS, { 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	cm.o.keep_deps = 1;
	int stats = 0, c, ex;
	struct job j = { 0 };
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (c == O_TIME) {
			if (strcmp(optarg, "topo") && strcmp(optarg, "host"))
				return gmp_cli__usage_error("perfetto", "unknown time axis '%s' (topo or host)", optarg);
			j.host = strcmp(optarg, "host") == 0;
		} else if (c == O_STATS) {
			stats = 1;
		} else if (gmp_cli__common("perfetto", usage, c, argv, &cm, &ex) < 0) {
			return ex;
		}
	}
	if (optind != argc - 1)
		return gmp_cli__usage_error("perfetto", "expected one INPUT, got %d", argc - optind);
	struct gmp_session s;
	struct gmp_session_opts so;
	gmp_cli__session_opts(&cm, &so);
	if (gmp_session__open(&s, argv[optind], &so))
		return GMP_EXIT_USAGE;
	j.s = &s;
	if (j.host) {
		int any = 0;
		for (size_t i = 0; i < s.in.trace->nev && !any; i++)
			any = s.in.trace->ev[i].host_ns != 0;
		if (s.in.trace->nev && !any) {
			fprintf(stderr, "gmprof perfetto: %s has no host times (event scripts never do); use --time topo\n",
				s.name);
			gmp_session__close(&s);
			return GMP_EXIT_USAGE;
		}
	}
	double t0 = gmp_cli__seconds();
	int rc = gmp_output__write(cm.output, cm.force, write_trace, &j);
	double dt = gmp_cli__seconds() - t0;
	if (!rc && stats)
		fprintf(stderr, "gmprof perfetto: %zu API events, %" PRIu64 " trace events in %.3f s: %.0f API events/s\n",
			s.in.trace->nev, j.written, dt, dt > 0 ? (double)s.in.trace->nev / dt : 0.0);
	gmp_session__close(&s);
	return rc ? GMP_EXIT_USAGE : GMP_EXIT_OK;
}
