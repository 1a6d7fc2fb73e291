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
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' },
		{ "force", no_argument, 0, OPT_FORCE },
		{ "salvage", no_argument, 0, OPT_SALVAGE },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *output = "-";
	int force = 0, salvage = 0, c;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case OPT_FORCE: force = 1; break;
		case OPT_SALVAGE: salvage = 1; break;
		case 'h': fputs(usage, stdout); return GMP_EXIT_OK;
		case ':': return gmp_cli__usage_error("dump", "option '%s' needs a value", argv[optind - 1]);
		default: return gmp_cli__usage_error("dump", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return gmp_cli__usage_error("dump", "expected one INPUT, got %d", argc - optind);
	struct gmp_input in;
	if (gmp_input__load(argv[optind], salvage, &in))
		return GMP_EXIT_USAGE;
	struct gmp_outfile out;
	int rc = GMP_EXIT_USAGE;
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
