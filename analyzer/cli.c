// SPDX-License-Identifier: MIT
/* Shared command-line parsing for the gmprof subcommands. */
#include "cli.h"
#include "nvtx_fold.h"
#include "session.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "demangle.h"

int gmp_cli__usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "gmprof %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'gmprof %s --help')\n", cmd);
	return GMP_EXIT_USAGE;
}

void gmp_cli__reset_getopt(void)
{
	optind = 0; /* glibc: 0 also resets its internal state */
	opterr = 0;
}

int gmp_cli__u32(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int gmp_cli__pct(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 100000)
		return -1;
	*out = v;
	return 0;
}

int gmp_cli__bytes(const char *s, uint64_t *out)
{
	static const struct { const char *suf; uint64_t mul; } units[] = {
		{ "", 1 }, { "B", 1 }, { "K", 1000ull }, { "KB", 1000ull }, { "KiB", 1ull << 10 },
		{ "M", 1000000ull }, { "MB", 1000000ull }, { "MiB", 1ull << 20 },
		{ "G", 1000000000ull }, { "GB", 1000000000ull }, { "GiB", 1ull << 30 },
		{ "T", 1000000000000ull }, { "TB", 1000000000000ull }, { "TiB", 1ull << 40 },
	};
	char *end;
	errno = 0;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suf) == 0) {
			long double b = (long double)v * (long double)units[i].mul;
			if (b > 18446744073709551615.0L || b != floorl(b))
				return -1;
			*out = (uint64_t)b;
			return 0;
		}
	}
	return -1;
}

int gmp_cli__budget(const char *s, uint64_t *bytes, double *pct)
{
	size_t n = strlen(s);
	*bytes = 0;
	*pct = 0;
	if (!n || s[n - 1] != '%')
		return gmp_cli__bytes(s, bytes);
	char *end;
	errno = 0;
	double v = *s == '-' || *s == '+' ? -1 : strtod(s, &end);
	if (errno || v <= 0 || v > 100 || !isfinite(v) || end != s + n - 1)
		return -1;
	*pct = v;
	return 0;
}

int gmp_cli__detect_opt(const char *cmd, int c, const char *arg, struct gmp_detect_opts *o,
			int *salvage)
{
	int bad = 0;
	switch (c) {
	case OPT_EARLY: bad = gmp_cli__u32(arg, &o->early_apis); break;
	case OPT_LATE: bad = gmp_cli__u32(arg, &o->late_apis); break;
	case OPT_IDLE: bad = gmp_cli__u32(arg, &o->idle_apis); break;
	case OPT_PEAKS: bad = gmp_cli__u32(arg, &o->peaks); break;
	case OPT_REDUNDANT: bad = gmp_cli__pct(arg, &o->redundant_pct); break;
	case OPT_OVERALLOC: bad = gmp_cli__pct(arg, &o->overalloc_pct); break;
	case OPT_FRAG: bad = gmp_cli__pct(arg, &o->frag_pct); break;
	case OPT_CV: bad = gmp_cli__pct(arg, &o->cv_pct); break;
	case OPT_MIN_SIZE: bad = gmp_cli__bytes(arg, &o->min_bytes); break;
	case OPT_PATTERNS:
		if (gmp_pattern__parse_list(arg, &o->patterns)) {
			gmp_cli__usage_error(cmd, "'--patterns %s' names no known pattern list (e.g. early_allocation,memory_leak or all)",
					     arg);
			return -1;
		}
		return 1;
	case OPT_SALVAGE:
		*salvage = 1;
		return 1;
	case OPT_MANAGED:
		o->managed_gpu_only = 1;
		return 1;
	default:
		return 0;
	}
	if (bad) {
		static const struct option opts[] = { GMP_DETECT_LONGOPTS };
		const char *name = "a threshold option";
		for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
			if (opts[i].val == c)
				name = opts[i].name;
		gmp_cli__usage_error(cmd, "bad value '%s' for --%s (%s)", arg, name,
				     c == OPT_MIN_SIZE ? "a size such as 4096, 64KiB or 1MB" :
				     c >= OPT_REDUNDANT && c <= OPT_CV ? "a percentage from 0 to 100000" :
									  "a whole number");
		return -1;
	}
	return 1;
}

int gmp_cli__nvtx_strip(const char *cmd, const char *re)
{
	struct gmp_nvtx_fold f;
	char why[256];
	if (gmp_nvtx_fold__init(&f, re, 0, why, sizeof(why)))
		return gmp_cli__usage_error(cmd, "--nvtx-strip '%s' is not a regular expression: %s", re, why);
	gmp_nvtx_fold__release(&f);
	return 0;
}

int gmp_cli__alloc_fn(const char *cmd, const char *glob, const char **fns, size_t *n)
{
	if (*n == GMP_MAX_ALLOC_FNS)
		return gmp_cli__usage_error(cmd, "at most %d --alloc-fn options", GMP_MAX_ALLOC_FNS);
	if (!*glob)
		return gmp_cli__usage_error(cmd, "--alloc-fn needs a function's name or a glob (like 'my_malloc*')");
	fns[(*n)++] = glob;
	return 0;
}

void gmp_cli__session_opts(const struct gmp_cli_common *cm, struct gmp_session_opts *so)
{
	*so = (struct gmp_session_opts){ .salvage = cm->salvage, .detect = &cm->o, .symdir = cm->symdir,
					 .suppress = cm->suppress, .ranges = cm->ranges, .nvtx_strip = cm->nvtx_strip,
					 .nvtx_numbers = cm->nvtx_numbers, .alloc_fns = cm->alloc_fns,
					 .nalloc_fns = cm->nalloc_fns, .notes = cm->notes };
}

int gmp_cli__finish(const struct gmp_cli_common *cm, int failed, const char *cmd)
{
	if (failed)
		return GMP_EXIT_USAGE;
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "gmprof %s: ", cmd);
	gmp_symnotes__print(cm->notes, stderr, prefix);
	return GMP_EXIT_OK;
}

int gmp_cli__inputs(const char *cmd, int argc, char **argv, const struct gmp_cli_common *cm,
		    struct gmp_inputs *in)
{
	if (optind >= argc)
		return gmp_cli__usage_error(cmd, "expected an INPUT");
	in->v = argv + optind;
	in->n = (size_t)(argc - optind);
	gmp_cli__session_opts(cm, &in->so);
	return 0;
}

void gmp_cli__common_init(struct gmp_cli_common *cm)
{
	memset(cm, 0, sizeof(*cm));
	gmp_detect_opts__defaults(&cm->o);
	cm->o.demangle = gmp_demangle; /* KERNEL labels read as C++, not as symbols */
	cm->output = "-";
	cm->notes = &cm->symnotes;
	cm->symnotes.wrappers = 1; /* sites name allocations: say where a wrapper hides them */
}

int gmp_cli__common(const char *cmd, const char *usage, int c, char **argv,
		    struct gmp_cli_common *cm, int *exit_code)
{
	switch (c) {
	case 'o': cm->output = optarg; return 1;
	case OPT_FORCE: cm->force = 1; return 1;
	case OPT_SYMBOLS: {
		/* A mistyped directory would read as every binary "not found" there. */
		struct stat st;
		const char *why = stat(optarg, &st) ? strerror(errno) : !S_ISDIR(st.st_mode) ? "not a directory" : NULL;
		if (why) {
			*exit_code = gmp_cli__usage_error(cmd, "--symbols '%s': %s", optarg, why);
			return -1;
		}
		cm->symdir = optarg;
		return 1;
	}
	case OPT_SUPPRESS: cm->suppress = optarg; return 1;
	case OPT_RANGES: cm->ranges = optarg; return 1;
	case OPT_NVTX_NUMBERS: cm->nvtx_numbers = 1; return 1;
	case OPT_NVTX_STRIP:
		cm->nvtx_strip = optarg;
		*exit_code = gmp_cli__nvtx_strip(cmd, optarg);
		return *exit_code ? -1 : 1;
	case OPT_NO_SOURCE: cm->no_source = 1; return 1;
	case OPT_SOURCE_DIR:
		if (cm->nsrcdirs == GMP_MAX_SOURCE_DIRS) {
			*exit_code = gmp_cli__usage_error(cmd, "at most %d --source-dir options", GMP_MAX_SOURCE_DIRS);
			return -1;
		}
		cm->srcdirs[cm->nsrcdirs++] = optarg;
		return 1;
	case OPT_ALLOC_FN:
		*exit_code = gmp_cli__alloc_fn(cmd, optarg, cm->alloc_fns, &cm->nalloc_fns);
		return *exit_code ? -1 : 1;
	case 'h':
		fputs(usage, stdout);
		*exit_code = GMP_EXIT_OK;
		return -1;
	case ':':
		*exit_code = gmp_cli__usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		return -1;
	case '?':
		*exit_code = gmp_cli__usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		return -1;
	default: {
		int r = gmp_cli__detect_opt(cmd, c, optarg, &cm->o, &cm->salvage);
		if (r < 0)
			*exit_code = GMP_EXIT_USAGE;
		return r;
	}
	}
}

int gmp_cli__source(const char *cmd, const struct gmp_cli_common *cm, struct gmp_source **out)
{
	*out = NULL;
	if (cm->no_source)
		return 0;
	const char *bad;
	int err = gmp_source__new(cm->srcdirs, cm->nsrcdirs, out, &bad);
	if (err == -ENOMEM) {
		fprintf(stderr, "gmprof %s: out of memory\n", cmd);
		return GMP_EXIT_USAGE;
	}
	if (err)
		return gmp_cli__usage_error(cmd, "--source-dir '%s': %s", bad ? bad : "?",
					    err == -ENOTDIR ? "not a directory" : strerror(-err));
	return 0;
}

double gmp_cli__seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gmp_cli__io_opts(const char *cmd, const char *usage, int argc, char **argv, const char **output,
		     int *force, int *salvage, const char **input)
{
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' },
		{ "force", no_argument, 0, OPT_FORCE },
		{ "salvage", no_argument, 0, OPT_SALVAGE },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	*force = *salvage = 0;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': *output = optarg; break;
		case OPT_FORCE: *force = 1; break;
		case OPT_SALVAGE: *salvage = 1; break;
		case 'h': fputs(usage, stdout); return GMP_EXIT_OK;
		case ':': return gmp_cli__usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default: return gmp_cli__usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	*input = optind < argc ? argv[optind] : NULL;
	if (*output && optind == argc - 1)
		return -1;
	if (!*output)
		return gmp_cli__usage_error(cmd, "-o PROFILE is required");
	return gmp_cli__usage_error(cmd, "expected one INPUT, got %d", argc - optind);
}
