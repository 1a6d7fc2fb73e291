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
	"Usage: gmprof perfetto [options] INPUT...\n"
	"\n"
	"Write a profile or an event script as a trace for the Perfetto UI\n"
	"(ui.perfetto.dev) or chrome://tracing: a track per stream with every API\n"
	"(named as the program named the stream through NVTX), object lifetimes\n"
	"grouped by allocation site, live bytes per device, flows from each object\n"
	"to the APIs that touch it, and every finding; on the host clock, each\n"
	"thread's NVTX ranges and marks too (each mark with the live bytes then).\n"
	"Several inputs (an MPI job's ranks) share one trace, each input's GPUs\n"
	"named by it.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE        write to FILE (a name ending in .gz is gzipped);\n"
	"                           standard output by default\n"
	"      --time topo|host     time axis: the topological order, one level per\n"
	"                           microsecond (topo), or the host clock (host)\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	"      --force              replace FILE if it exists\n"
	"      --lean               no child slice per object an API uses, and no flows:\n"
	"                           the objects are in each API's args (a third of the\n"
	"                           trace events and under half the bytes: large runs)\n"
	"      --stats              print the writer's speed on standard error\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"EXAMPLES\n"
	"  gmprof perfetto -o trace.json app.gmprof\n"
	"  gmprof perfetto --time host -o trace.json.gz app.gmprof\n"
	"  gmprof perfetto -o ranks.json.gz prof.*.gmprof\n";

struct job {
	struct gmp_inputs in;
	int host, lean;
	uint64_t written;
	size_t nev;        /* API events of all inputs */
	double write_s;    /* seconds spent writing (--stats), not loading */
};

/* "prof.0" of "dir/prof.0.gmprof": what names an input's processes. */
static const char *label_of(const char *path, char *buf, size_t n)
{
	const char *base = strrchr(path, '/');
	snprintf(buf, n, "%s", base ? base + 1 : path);
	char *dot = strrchr(buf, '.');
	if (dot && dot != buf && (!strcmp(dot, ".gmprof") || !strcmp(dot, ".jsonl")))
		*dot = 0;
	return buf;
}

struct adding {
	struct job *j;
	struct gmp_perfetto_doc *d;
};

static int add_one(struct gmp_session *s, size_t i, void *ctx)
{
	(void)i;
	struct adding *a = ctx;
	struct job *j = a->j;
	int any = 0;
	for (size_t k = 0; k < s->in.trace->nev && !any; k++)
		any = s->in.trace->ev[k].host_ns != 0;
	if (j->host && s->in.trace->nev && !any) {
		fprintf(stderr, "gmprof perfetto: %s has no host times (event scripts never do); use --time topo\n",
			s->name);
		return GMP_OUTPUT_ABANDON;
	}
	char label[128];
	j->nev += s->in.trace->nev;
	double t0 = gmp_cli__seconds();
	int rc = gmp_perfetto__add(a->d, s, j->in.n > 1 ? label_of(s->name, label, sizeof(label)) : NULL);
	j->write_s += gmp_cli__seconds() - t0;
	return rc;
}

/* Every input in turn, one session open at a time; a bad one abandons the trace after saying why. */
static int write_trace(FILE *fp, void *ctx)
{
	struct job *j = ctx;
	struct gmp_perfetto_doc d;
	gmp_perfetto__begin(&d, fp, j->host);
	d.lean = j->lean;
	struct adding a = { j, &d };
	int rc = gmp_session__each(&j->in, add_one, &a);
	j->written = d.written;
	if (rc) {
		gmp_jw__release(&d.jw);
		return rc;
	}
	double t0 = gmp_cli__seconds();
	rc = gmp_perfetto__end(&d, (const char *const *)j->in.v, j->in.n);
	j->write_s += gmp_cli__seconds() - t0;
	return rc;
}

int cmd_perfetto(int argc, char **argv)
{
	enum { O_TIME = OPT_CMD_BASE, O_STATS, O_LEAN };
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "time", required_argument, 0, O_TIME },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "force", no_argument, 0, OPT_FORCE },
		{ "stats", no_argument, 0, O_STATS }, { "lean", no_argument, 0, O_LEAN },
		{ "help", no_argument, 0, 'h' },
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
		} else if (c == O_LEAN) {
			j.lean = 1;
		} else if (gmp_cli__common("perfetto", usage, c, argv, &cm, &ex) < 0) {
			return ex;
		}
	}
	if ((ex = gmp_cli__inputs("perfetto", argc, argv, &cm, &j.in)))
		return ex;
	int rc = gmp_output__write(cm.output, cm.force, write_trace, &j);
	double dt = j.write_s;
	if (!rc && stats)
		fprintf(stderr, "gmprof perfetto: %zu API events, %" PRIu64 " trace events in %.3f s: %.0f API events/s\n",
			j.nev, j.written, dt, dt > 0 ? (double)j.nev / dt : 0.0);
	return gmp_cli__finish(&cm, rc, "perfetto");
}
