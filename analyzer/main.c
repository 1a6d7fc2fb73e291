// SPDX-License-Identifier: MIT
/*
 * gmprof: the command-line front end, git-style.  Each subcommand lives in
 * its own cmd_*.c; this file dispatches and prints the top-level help.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "gmprof/version.h"

static const char usage[] =
	"Usage: gmprof COMMAND [options] [args]\n"
	"\n"
	"A GPU memory profiler: finds early and late allocations, leaks, idle,\n"
	"unused, redundant and overallocated objects, dead writes and access\n"
	"patterns in CUDA programs, and what fixing each would save at the peak.\n"
	"\n"
	"Commands:\n"
	"  run         run a CUDA program under the collector and report what it found\n"
	"  report      the full report: run, peaks, a plot of live bytes, ranked findings\n"
	"  perfetto    write a Perfetto trace: streams, lifetimes, live bytes, flows, findings\n"
	"  html        a self-contained HTML report: plots, lifetimes, findings, histograms\n"
	"  check       the CI gate: patterns, peak and leak budgets, a baseline; SARIF, JUnit\n"
	"  baseline    write the baseline that check --baseline compares against\n"
	"  diff        compare two runs: peaks, findings fixed and new\n"
	"  flamegraph  the bytes at the peak (or leaked) by call path: folded stacks, SVG\n"
	"  replay      analyze a profile or an event script and print the findings\n"
	"  dump        write a profile as an event script\n"
	"  convert     write an event script as a profile\n"
	"  addr2line   print source lines of addresses, as binutils addr2line\n"
	"\n"
	"  gmprof COMMAND --help   describes each command\n"
	"  gmprof --version        prints the version\n"
	"\n"
	"Exit status: 0 ok, 1 a gate failed, 2 bad usage or input.\n"
	"\n"
	"EXAMPLES\n"
	"  gmprof run -- ./my_cuda_app\n"
	"  gmprof replay tests/scripts/figure2.jsonl\n"
	"  gmprof dump app.gmprof | less\n";

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "run", cmd_run },
	{ "report", cmd_report },
	{ "perfetto", cmd_perfetto },
	{ "check", cmd_check },
	{ "html", cmd_html },
	{ "baseline", cmd_baseline },
	{ "diff", cmd_diff },
	{ "flamegraph", cmd_flamegraph },
	{ "replay", cmd_replay },
	{ "dump", cmd_dump },
	{ "convert", cmd_convert },
	{ "addr2line", cmd_addr2line },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return GMP_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage, stdout);
		return GMP_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("gmprof %s (profile format %d.%d)\n", GMPROF_VERSION, 1, 0);
		return GMP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(cmd, commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "gmprof: unknown command '%s' (see 'gmprof --help')\n", cmd);
	return GMP_EXIT_USAGE;
}
