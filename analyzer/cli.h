/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by the subcommands: the detection
 * thresholds every analyzing command takes, number parsing, and usage
 * errors (one line on stderr, exit status 2).
 */
#ifndef GMPROF_CLI_H
#define GMPROF_CLI_H

#include <getopt.h>
#include <stdint.h>

#include "gmprof/detect.h"
#include "source.h"
#include "symbolize.h"

#define GMP_EXIT_OK 0
#define GMP_EXIT_GATE 1
#define GMP_EXIT_USAGE 2
#define GMP_MAX_ALLOC_FNS 16     /* --alloc-fn options */

enum {
	OPT_EARLY = 1000, OPT_LATE, OPT_IDLE, OPT_REDUNDANT, OPT_OVERALLOC, OPT_FRAG, OPT_CV,
	OPT_PEAKS, OPT_PATTERNS, OPT_SALVAGE, OPT_FORCE, OPT_FORMAT, OPT_SYMBOLS, OPT_SUPPRESS,
	OPT_ALLOC_FN, OPT_RANGES, OPT_MIN_SIZE, OPT_SOURCE_DIR, OPT_NO_SOURCE, OPT_MANAGED,
	OPT_NVTX_NUMBERS, OPT_NVTX_STRIP,
	OPT_CMD_BASE = 1100,   /* subcommands number their own options from here */
};

/* The threshold options, for a subcommand's getopt_long table. */
#define GMP_DETECT_LONGOPTS                                                   \
	{ "early-apis", required_argument, 0, OPT_EARLY },                    \
	{ "late-apis", required_argument, 0, OPT_LATE },                      \
	{ "idle-apis", required_argument, 0, OPT_IDLE },                      \
	{ "redundant-pct", required_argument, 0, OPT_REDUNDANT },             \
	{ "overalloc-pct", required_argument, 0, OPT_OVERALLOC },             \
	{ "frag-pct", required_argument, 0, OPT_FRAG },                       \
	{ "cv-pct", required_argument, 0, OPT_CV },                           \
	{ "peaks", required_argument, 0, OPT_PEAKS },                         \
	{ "patterns", required_argument, 0, OPT_PATTERNS },                   \
	{ "min-size", required_argument, 0, OPT_MIN_SIZE },                   \
	{ "managed-gpu-only", no_argument, 0, OPT_MANAGED },                  \
	{ "salvage", no_argument, 0, OPT_SALVAGE },                           \
	{ "suppressions", required_argument, 0, OPT_SUPPRESS },               \
	{ "alloc-fn", required_argument, 0, OPT_ALLOC_FN },                   \
	{ "ranges", required_argument, 0, OPT_RANGES },                       \
	{ "nvtx-numbers", no_argument, 0, OPT_NVTX_NUMBERS },                 \
	{ "nvtx-strip", required_argument, 0, OPT_NVTX_STRIP }

#define GMP_DETECT_HELP                                                                \
	"Detection thresholds (the paper's defaults):\n"                               \
	"      --early-apis N     early allocation: N+ APIs between alloc and first use (1)\n" \
	"      --late-apis N      late deallocation: N+ APIs between last use and free (1)\n" \
	"      --idle-apis N      temporary idleness: N+ APIs between two uses (2)\n"     \
	"      --redundant-pct P  redundant allocation: sizes within P% (10)\n"          \
	"      --overalloc-pct P  overallocation: under P% of bytes accessed (80)\n"    \
	"      --frag-pct P       overallocation: fragmentation under P% (80)\n"        \
	"      --cv-pct P         non-uniform access: coefficient of variation over P% (20)\n" \
	"      --peaks N          memory peaks reported per device (2)\n"                \
	"      --patterns LIST    report only these patterns (comma list, or all)\n"     \
	"      --min-size BYTES   leave out findings on objects smaller than BYTES (0)\n" \
	"      --managed-gpu-only the host never reads or writes the program's managed\n" \
	"                         memory: every pattern on managed objects (by default\n" \
	"                         only leaks and access patterns: the host's use of\n"   \
	"                         managed memory is not seen)\n"                          \
	"      --salvage          analyze the intact part of a damaged profile\n"         \
	"      --suppressions FILE  leave out findings FILE's rules match: lines of\n"  \
	"                         PATTERN:GLOB, the glob matched against the frames of\n" \
	"                         the allocation's call path (README: Suppressions)\n"  \
	"      --alloc-fn GLOB    a function that wraps cudaMalloc: its callers are the\n" \
	"                         allocation sites (repeatable; as massif's --alloc-fn)\n" \
	"      --ranges GLOB      only the findings whose objects were allocated in NVTX\n" \
	"                         ranges matching GLOB, as \"outer > inner\" (fnmatch)\n" \
	"      --nvtx-numbers     NVTX range and mark names that carry a counter read as\n" \
	"                         one: each number that stands alone becomes N (\"epoch 3\"\n" \
	"                         and \"epoch 4\" are \"epoch N\"; \"conv2d\" stays)\n"        \
	"      --nvtx-strip REGEX remove what REGEX (POSIX extended) matches from NVTX\n"  \
	"                         range and mark names (', seq = [0-9]+.*': \"aten::mm\")\n"

/* Source lines beside findings (report, html): their options and help. */
#define GMP_SOURCE_LONGOPTS                                                   \
	{ "source-dir", required_argument, 0, OPT_SOURCE_DIR },               \
	{ "no-source", no_argument, 0, OPT_NO_SOURCE }

#define GMP_SOURCE_HELP                                                                \
	"      --source-dir DIR     where sources are, besides the working directory\n"   \
	"                           (repeatable): a finding shows the source lines of\n" \
	"                           its allocation and fix, from files under these only\n" \
	"      --no-source          show no source lines\n"

/*
 * Handles a threshold option; returns 1 when c was one, 0 when not, -1 on
 * a bad value (already reported).
 */
int gmp_cli__detect_opt(const char *cmd, int c, const char *arg, struct gmp_detect_opts *o,
			int *salvage);
/* What every analyzing command takes besides its own options. */
struct gmp_cli_common {
	struct gmp_detect_opts o;
	const char *output;      /* -o (standard output: "-") */
	const char *symdir;      /* --symbols */
	const char *suppress;    /* --suppressions */
	const char *ranges;      /* --ranges */
	const char *nvtx_strip;  /* --nvtx-strip */
	int nvtx_numbers;        /* --nvtx-numbers */
	const char *alloc_fns[GMP_MAX_ALLOC_FNS]; /* --alloc-fn, repeatable */
	size_t nalloc_fns;
	const char *srcdirs[GMP_MAX_SOURCE_DIRS]; /* --source-dir, repeatable */
	size_t nsrcdirs;
	int no_source;           /* --no-source */
	int force, salvage;
	struct gmp_symnotes symnotes; /* the sessions' modules without lines, wrappers (gmp_cli__finish) */
	struct gmp_symnotes *notes;   /* &symnotes: the sessions add to it through a const cm */
};

void gmp_cli__common_init(struct gmp_cli_common *cm);
/* --nvtx-strip's expression, checked before any input is read (or program run): 0, or the usage error's exit status. */
int gmp_cli__nvtx_strip(const char *cmd, const char *re);
/* Adds an --alloc-fn glob to fns (GMP_MAX_ALLOC_FNS of them); 0, or the usage error's exit status. */
int gmp_cli__alloc_fn(const char *cmd, const char *glob, const char **fns, size_t *n);
/*
 * A command's end: GMP_EXIT_USAGE when it failed (said already), else
 * GMP_EXIT_OK after saying on stderr which modules' frames had no source
 * line in its sessions, and which allocation wrappers hid sites ("gmprof
 * CMD: note: ...", a line each).
 */
int gmp_cli__finish(const struct gmp_cli_common *cm, int failed, const char *cmd);
/* The session options the common ones give. */
struct gmp_session_opts;
struct gmp_inputs;
void gmp_cli__session_opts(const struct gmp_cli_common *cm, struct gmp_session_opts *so);
/* The INPUT... left after the options (at least one): 0, or the usage error's exit status. */
int gmp_cli__inputs(const char *cmd, int argc, char **argv, const struct gmp_cli_common *cm,
		    struct gmp_inputs *in);

/*
 * The getopt cases every analyzing command shares: -o, --force, --symbols
 * (OPT_SYMBOLS), -h (prints usage), missing values, unknown options and the
 * thresholds.  Returns 1 when c was handled, 0 when it is the command's own,
 * or -1 with *exit_code set: the command returns it.
 */
int gmp_cli__common(const char *cmd, const char *usage, int c, char **argv,
		    struct gmp_cli_common *cm, int *exit_code);

/*
 * The source-line cache the options ask for (*out NULL with --no-source):
 * 0, or the exit status after one sentence naming the problem.
 */
int gmp_cli__source(const char *cmd, const struct gmp_cli_common *cm, struct gmp_source **out);

/* Parses a non-negative integer with optional K/M/G/KiB/MiB/GiB suffix. */
int gmp_cli__bytes(const char *s, uint64_t *out);
/*
 * A memory budget: bytes as gmp_cli__bytes reads them (*pct 0), or a share
 * of the device's memory, "90%" (*pct in (0, 100], *bytes 0).  0 or -1.
 */
int gmp_cli__budget(const char *s, uint64_t *bytes, double *pct);
int gmp_cli__u32(const char *s, uint32_t *out);
int gmp_cli__pct(const char *s, double *out);
/*
 * The options of the commands that copy one input to one output (dump,
 * convert): -o FILE, --force, --salvage, -h.  Sets *output (left as it was
 * when not given), *force and *salvage, and *input to the one INPUT.
 * Returns -1 to go on, or the exit status (help printed, or a usage error).
 */
int gmp_cli__io_opts(const char *cmd, const char *usage, int argc, char **argv, const char **output,
		     int *force, int *salvage, const char **input);
/* Prints "gmprof CMD: MSG" and a hint; returns GMP_EXIT_USAGE. */
int gmp_cli__usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Resets getopt for a subcommand's argv. */
void gmp_cli__reset_getopt(void);
/* A monotonic clock in seconds, for --stats. */
double gmp_cli__seconds(void);

#endif
