// SPDX-License-Identifier: MIT
/*
 * `gmprof convert`: writes any input (an event script or a profile) as a
 * profile, with the same writer the collector uses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "gmprof/profile.h"
#include "input.h"

static const char usage[] =
	"Usage: gmprof convert [options] -o PROFILE INPUT\n"
	"\n"
	"Write an event script (or a profile) as a binary profile, exactly as the\n"
	"collector would have written it.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the profile to create (required)\n"
	"      --force         replace FILE if it exists\n"
	"      --salvage       convert the intact part of a damaged profile\n"
	"  -h, --help          show this help\n"
	"\n"
	"EXAMPLES\n"
	"  gmprof convert -o fig2.gmprof tests/scripts/figure2.jsonl\n";

int cmd_convert(int argc, char **argv)
{
	const char *output = NULL, *input;
	int force, salvage;
	int rc = gmp_cli__io_opts("convert", usage, argc, argv, &output, &force, &salvage, &input);
	if (rc >= 0)
		return rc;
	if (!strcmp(output, "-"))
		return gmp_cli__usage_error("convert", "a profile is written to a file, not to standard output: name one with -o");
	struct gmp_input in;
	if (gmp_input__load(input, salvage, &in))
		return GMP_EXIT_USAGE;
	struct gmp_writer *w;
	int err = gmp_writer__create(output, force, 0, &w);
	if (err) {
		if (err == -EEXIST)
			fprintf(stderr, "gmprof: refusing to overwrite '%s' or to follow a symlink there (use --force to replace a file)\n",
				output);
		else
			gmp_input__perror(output, "cannot create", err);
		gmp_input__release(&in);
		return GMP_EXIT_USAGE;
	}
	err = gmp_writer__write_trace(w, in.trace);
	int cerr = gmp_writer__close(w, in.trace->ended);
	gmp_input__release(&in);
	if (err || cerr) {
		gmp_output__write_error(output, err ? err : cerr);
		remove(output);
		return GMP_EXIT_USAGE;
	}
	return GMP_EXIT_OK;
}
