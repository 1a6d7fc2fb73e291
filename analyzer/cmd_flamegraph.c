// SPDX-License-Identifier: MIT
/*
 * `gmprof flamegraph`: where a run's device memory was allocated, by call
 * path -- the bytes live at each device's largest peak, leaked, or all
 * allocated -- as folded stacks (flamegraph.pl, inferno, speedscope) or an
 * SVG flame graph.  Several inputs make one graph, a frame naming each; two
 * with --diff, a differential one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "flame.h"
#include "session.h"

static const char usage[] =
	"Usage: gmprof flamegraph [options] INPUT...\n"
	"\n"
	"Write where a run's device memory was allocated, by call path: the bytes\n"
	"live at each device's largest peak (or in use, leaked, or all it\n"
	"allocated), as folded stacks (a line per call path: its frames from the\n"
	"outermost, joined by ';', then its bytes) for flamegraph.pl,\n"
	"inferno-flamegraph or speedscope, or as an SVG flame graph (no script;\n"
	"hover a frame for its bytes).  Pools count whole, as peaks do, except\n"
	"with --at in-use.  Several inputs (an MPI job's ranks) make one graph,\n"
	"each input's paths under a frame naming it; a run on several devices has\n"
	"a frame per device.  With --diff, two runs make a differential graph: as\n"
	"wide as AFTER, red where a call path grew since BEFORE, blue where it\n"
	"shrank (folded: both byte counts on each line, as difffolded.pl writes\n"
	"them, for flamegraph.pl).\n"
	"\n"
	"Options:\n"
	"      --at WHAT            peak: the bytes live at each device's largest peak;\n"
	"                           in-use: those in use at its peak of bytes in use,\n"
	"                           pools with NVTX regions by their regions;\n"
	"                           leaked: those never freed (as check --max-leak\n"
	"                           counts them); allocated: every byte; range:PATH:\n"
	"                           those live at the peak of the NVTX range PATH\n"
	"                           (\"outer > inner\", as gmprof report lists them) on\n"
	"                           each device; kept:PATH: those the times of NVTX range\n"
	"                           PATH kept (allocated since its first time began, live\n"
	"                           as its last began: what a loop keeps); mark:NAME:\n"
	"                           those live at the NVTX mark NAME that found the most\n"
	"                           on each device; mark-kept:NAME: those allocated since\n"
	"                           the first mark NAME and live at the last (peak)\n"
	"      --device N           only the objects of device N\n"
	"      --nvtx               the NVTX ranges each object was allocated in, as\n"
	"                           frames above its call path\n"
	"      --objects            each object's name, as a frame below its call path\n"
	"      --diff               BEFORE AFTER: where the bytes grew and shrank\n"
	"  -f, --format FMT         folded, svg (when FILE ends in .svg), or tree: the\n"
	"                           call tree as indented text, with each frame's share\n"
	"      --width PIXELS       the SVG's width (1200)\n"
	"      --threshold PCT      the tree: frames under PCT%% of the bytes are counted,\n"
	"                           not shown (1)\n"
	"  -o, --output FILE        write to FILE (standard output by default)\n"
	"      --force              replace FILE if it exists\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	"      --alloc-fn GLOB      a function that wraps cudaMalloc: it and what it calls\n"
	"                           are left out, so its callers end the paths (repeatable)\n"
	"      --ranges GLOB        only objects allocated in NVTX ranges matching GLOB,\n"
	"                           as \"outer > inner\" (fnmatch)\n"
	"      --suppressions FILE  leaks that FILE's rules match are not leaked bytes\n"
	"      --salvage            analyze the intact part of a damaged profile\n"
	"  -h, --help               show this help\n"
	"\n"
	"The detection thresholds of the other commands are taken too (--early-apis,\n"
	"..., --patterns: see gmprof report --help); of those, only --patterns can\n"
	"change what --at leaked finds.\n"
	"\n"
	"EXAMPLES\n"
	"  gmprof flamegraph -o peak.svg app.gmprof\n"
	"  gmprof flamegraph --alloc-fn 'my_malloc*' app.gmprof > peak.folded\n"
	"  flamegraph.pl --countname bytes peak.folded > peak.svg\n"
	"  gmprof flamegraph --at leaked --nvtx -o leaks.svg prof.*.gmprof\n"
	"  gmprof flamegraph --at 'range:step > forward' -o forward.svg app.gmprof\n"
	"  gmprof flamegraph --at kept:step -o kept.svg app.gmprof   # what each step keeps\n"
	"  gmprof flamegraph --at 'mark:model loaded' -o loaded.svg app.gmprof\n"
	"  gmprof flamegraph --diff -o grew.svg main.gmprof branch.gmprof\n"
	"  gmprof flamegraph --format tree --threshold 5 app.gmprof\n";

struct fg {
	struct gmp_inputs in;
	struct gmp_flame *f;
	struct gmp_flame_opts o;
	int svg, text;        /* --format svg, tree */
	double min_pct;       /* --threshold */
	int diff;             /* --diff: the two inputs are the sides of one tree */
	unsigned width;
	int seen;             /* a device was used, over the inputs */
	int several;          /* more than one device was */
	uint32_t dev;         /* the first */
};

/* Input i's objects into the tree: under a frame of its own, or (--diff) on side i. */
static int add_input(struct gmp_session *s, size_t i, void *ctx)
{
	struct fg *g = ctx;
	g->o.root = g->in.n > 1 && !g->diff ? s->name : NULL;
	gmp_flame__side(g->f, g->diff ? (int)i : 0);
	int64_t added = gmp_flame__session(g->f, s, &g->o);
	if (added == -ENOENT) {
		int mark = g->o.what == GMP_FLAME_MARK || g->o.what == GMP_FLAME_MARK_KEPT;
		fprintf(stderr, "gmprof flamegraph: '%s' has no NVTX %s '%s' (gmprof report lists its %s)\n", s->name,
			mark ? "mark" : "range", g->o.range, mark ? "marks" : "ranges");
		return GMP_OUTPUT_ABANDON;
	}
	if (added < 0) {
		fprintf(stderr, "gmprof flamegraph: out of memory\n");
		return GMP_OUTPUT_ABANDON;
	}
	for (size_t d = 0; d < s->r->ndevices; d++) {
		uint32_t dev = s->r->devices[d].device;
		if (g->o.device != GMP_ANY_DEVICE && dev != g->o.device)
			continue;
		if (g->seen && dev != g->dev)
			g->several = 1;
		if (!g->seen)
			g->dev = dev;
		g->seen = 1;
	}
	return 0;
}

/*
 * --diff: both runs open at once, so that a frame per device is above the
 * paths of both when either used several devices.
 */
static int add_both(struct fg *g)
{
	struct gmp_session s[2];
	if (gmp_session__open(&s[0], g->in.v[0], &g->in.so))
		return GMP_OUTPUT_ABANDON;
	if (gmp_session__open(&s[1], g->in.v[1], &g->in.so)) {
		gmp_session__close(&s[0]);
		return GMP_OUTPUT_ABANDON;
	}
	g->o.device_frames = s[0].r->ndevices > 1 || s[1].r->ndevices > 1;
	int err = add_input(&s[0], 0, g);
	if (!err)
		err = add_input(&s[1], 1, g);
	gmp_session__close(&s[0]);
	gmp_session__close(&s[1]);
	return err;
}

/* "256.0 MiB live at device 0's largest peak, by allocation call path", and so on. */
static void title(const struct fg *g, char *buf, size_t n)
{
	char what[160], dev[32] = "", inputs[32] = "", x[32], y[32], z[48];
	int one = g->seen && !g->several;
	if (g->in.n > 1 && !g->diff)
		snprintf(inputs, sizeof(inputs), " of %zu inputs", g->in.n);
	if (g->o.what == GMP_FLAME_RANGE || g->o.what == GMP_FLAME_KEPT) {
		if (one)
			snprintf(dev, sizeof(dev), " on device %u", g->dev);
		snprintf(what, sizeof(what), g->o.what == GMP_FLAME_RANGE ? "live at the peak of NVTX range '%.40s'%s%s" :
			 "kept from one time to the next by NVTX range '%.40s'%s%s", g->o.range, dev, inputs);
	} else if (g->o.what == GMP_FLAME_MARK || g->o.what == GMP_FLAME_MARK_KEPT) {
		if (one)
			snprintf(dev, sizeof(dev), " on device %u", g->dev);
		snprintf(what, sizeof(what), g->o.what == GMP_FLAME_MARK ? "live at the NVTX mark '%.40s' that found the most%s%s"
			 : "kept from the first NVTX mark '%.40s' to the last%s%s", g->o.range, dev, inputs);
	} else if (g->o.what == GMP_FLAME_PEAK || g->o.what == GMP_FLAME_IN_USE) {
		if (one && (g->in.n == 1 || g->diff))
			snprintf(dev, sizeof(dev), "device %u's", g->dev);
		snprintf(what, sizeof(what), g->o.what == GMP_FLAME_PEAK ? "live at %s largest peak%s" :
			 "in use at %s peak of bytes in use%s", *dev ? dev : "each device's", inputs);
	} else {
		if (one)
			snprintf(dev, sizeof(dev), " on device %u", g->dev);
		snprintf(what, sizeof(what), "%s%s%s", g->o.what == GMP_FLAME_LEAKED ? "leaked" : "allocated", dev,
			 inputs);
	}
	uint64_t before = gmp_flame__total(g->f, 0), after = gmp_flame__total(g->f, 1);
	if (!g->diff) {
		snprintf(buf, n, "%s %s, by allocation call path", gmp_human_bytes(before, x, sizeof(x)), what);
		return;
	}
	snprintf(buf, n, "Bytes %s, by allocation call path: %s before, %s after (%s)%s", what,
		 gmp_human_bytes(before, x, sizeof(x)), gmp_human_bytes(after, y, sizeof(y)),
		 gmp_human_change(before, after, 0, z, sizeof(z)), g->svg ? "; red grew, blue shrank" : "");
}

static int write_graph(FILE *fp, void *ctx)
{
	struct fg *g = ctx;
	int err = gmp_flame__new(&g->f);
	if (!err)
		err = g->diff ? add_both(g) : gmp_session__each(&g->in, add_input, g);
	if (!err && g->o.device != GMP_ANY_DEVICE && !g->seen) {
		fprintf(stderr, "gmprof flamegraph: no input allocated memory on device %u\n", g->o.device);
		err = GMP_OUTPUT_ABANDON;
	}
	if (!err && g->svg) {
		char t[320];
		title(g, t, sizeof(t));
		struct gmp_flame_svg so = { .title = t, .width = g->width, .standalone = 1 };
		err = gmp_flame__svg(g->f, fp, &so);
	} else if (!err && g->text) {
		char t[320];
		title(g, t, sizeof(t));
		fprintf(fp, "%s\n%7s  %10s", t, "share", g->diff ? "before" : "bytes");
		if (g->diff)
			fprintf(fp, " %10s  %-10s", "after", "change");
		fprintf(fp, "  call path\n");
		err = gmp_flame__text(g->f, fp, g->min_pct);
	} else if (!err) {
		err = gmp_flame__folded(g->f, fp);
	}
	gmp_flame__free(g->f);
	g->f = NULL;
	return err;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

int cmd_flamegraph(int argc, char **argv)
{
	enum { O_AT = OPT_CMD_BASE, O_DEVICE, O_NVTX, O_OBJECTS, O_WIDTH, O_DIFF, O_THRESHOLD };
	static const struct option longopts[] = {
		{ "at", required_argument, 0, O_AT }, { "device", required_argument, 0, O_DEVICE },
		{ "nvtx", no_argument, 0, O_NVTX }, { "objects", no_argument, 0, O_OBJECTS },
		{ "format", required_argument, 0, 'f' }, { "width", required_argument, 0, O_WIDTH },
		{ "diff", no_argument, 0, O_DIFF }, { "threshold", required_argument, 0, O_THRESHOLD },
		{ "output", required_argument, 0, 'o' }, { "force", no_argument, 0, OPT_FORCE },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "help", no_argument, 0, 'h' },
		GMP_DETECT_LONGOPTS, { 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	cm.symnotes.wrappers = 0; /* call paths, wrappers' frames in them: no site to name */
	struct fg g = { .o = { .what = GMP_FLAME_PEAK, .device = GMP_ANY_DEVICE }, .width = 1200, .min_pct = 1 };
	const char *format = NULL;
	uint32_t u;
	int c, ex;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":o:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_AT:
			if (!strcmp(optarg, "peak"))
				g.o.what = GMP_FLAME_PEAK;
			else if (!strcmp(optarg, "leaked"))
				g.o.what = GMP_FLAME_LEAKED;
			else if (!strcmp(optarg, "allocated"))
				g.o.what = GMP_FLAME_ALLOCATED;
			else if (!strcmp(optarg, "in-use"))
				g.o.what = GMP_FLAME_IN_USE;
			else if (!strncmp(optarg, "range:", 6) && optarg[6])
				g.o.what = GMP_FLAME_RANGE, g.o.range = optarg + 6;
			else if (!strncmp(optarg, "kept:", 5) && optarg[5])
				g.o.what = GMP_FLAME_KEPT, g.o.range = optarg + 5;
			else if (!strncmp(optarg, "mark:", 5) && optarg[5])
				g.o.what = GMP_FLAME_MARK, g.o.range = optarg + 5;
			else if (!strncmp(optarg, "mark-kept:", 10) && optarg[10])
				g.o.what = GMP_FLAME_MARK_KEPT, g.o.range = optarg + 10;
			else
				return gmp_cli__usage_error("flamegraph", "'--at %s': expected peak, in-use, leaked, allocated, "
							    "range:PATH, kept:PATH, mark:NAME or mark-kept:NAME", optarg);
			break;
		case O_DEVICE:
			if (gmp_cli__u32(optarg, &u) || u == GMP_ANY_DEVICE)
				return gmp_cli__usage_error("flamegraph", "bad device '%s' for --device", optarg);
			g.o.device = u;
			break;
		case O_NVTX: g.o.nvtx = 1; break;
		case O_DIFF: g.diff = 1; break;
		case O_THRESHOLD:
			if (gmp_cli__pct(optarg, &g.min_pct) || g.min_pct > 100)
				return gmp_cli__usage_error("flamegraph", "bad threshold '%s': a percentage from 0 to 100",
							    optarg);
			break;
		case O_OBJECTS: g.o.objects = 1; break;
		case 'f': format = optarg; break;
		case O_WIDTH:
			if (gmp_cli__u32(optarg, &u) || u < 200 || u > 100000)
				return gmp_cli__usage_error("flamegraph", "bad width '%s': from 200 to 100000 pixels", optarg);
			g.width = u;
			break;
		default:
			if (gmp_cli__common("flamegraph", usage, c, argv, &cm, &ex) < 0)
				return ex;
		}
	}
	if (format && strcmp(format, "folded") && strcmp(format, "svg") && strcmp(format, "tree"))
		return gmp_cli__usage_error("flamegraph", "unknown format '%s' (folded, svg or tree)", format);
	g.svg = format ? !strcmp(format, "svg") : ends_with(cm.output, ".svg") || ends_with(cm.output, ".svg.gz");
	g.text = format && !strcmp(format, "tree");
	g.o.ranges = cm.ranges;
	if ((ex = gmp_cli__inputs("flamegraph", argc, argv, &cm, &g.in)))
		return ex;
	if (g.diff && g.in.n != 2)
		return gmp_cli__usage_error("flamegraph", "--diff compares two inputs, BEFORE and AFTER (%zu given)",
					    g.in.n);
	return gmp_cli__finish(&cm, gmp_output__write(cm.output, cm.force, write_graph, &g), "flamegraph");
}
