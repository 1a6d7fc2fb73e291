// SPDX-License-Identifier: MIT
/* `gmprof dump`: writes a profile (or a script) as an event script. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "gmprof/script.h"
#include "input.h"
#include "safefile.h"

static const char usage[] =
	"Usage: gmprof dump [options] INPUT\n"
	"\n"
	"Write a profile as an event script (JSON Lines, see docs/event-script.md).\n"
	"Replaying the dump gives the same findings as analyzing the profile.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   write to FILE instead of standard output\n"
	"      --force         replace FILE if it exists\n"
	"      --salvage       dump the intact part of a damaged profile\n"
	"  -h, --help          show this help\n"
	"\n"
	"EXAMPLES\n"
	"  gmprof dump app.gmprof > app.jsonl\n"
	"  gmprof dump -o app.jsonl app.gmprof\n";

int cmd_dump(int argc, char **argv)
{
	const char *output = "-", *input;
	int force, salvage;
	int rc = gmp_cli__io_opts("dump", usage, argc, argv, &output, &force, &salvage, &input);
	if (rc >= 0)
		return rc;
	struct gmp_input in;
	if (gmp_input__load(input, salvage, &in))
		return GMP_EXIT_USAGE;
	struct gmp_outfile out;
	rc = GMP_EXIT_USAGE;
	int err = gmp_outfile__open(&out, output, force);
	if (err) {
		gmp_output__perror(output, err);
		goto done;
	}
	err = gmp_script__write(out.fp, in.trace, NULL, NULL);
	if (err) {
		gmp_outfile__abort(&out);
		gmp_output__write_error(output, err);
		goto done;
	}
	if ((err = gmp_outfile__commit(&out))) {
		gmp_output__write_error(output, err);
		goto done;
	}
	rc = GMP_EXIT_OK;
done:
	gmp_input__release(&in);
	return rc;
}
