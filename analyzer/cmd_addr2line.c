// SPDX-License-Identifier: MIT
/*
 * `gmprof addr2line -e BINARY [-f] [-C] [-i] [ADDR...]`: the same output as
 * binutils addr2line, from gmprof's own DWARF reader (which reports use).
 * Addresses are hexadecimal file addresses; without any, they are read
 * from standard input, one per line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "demangle.h"
#include "dwarf.h"
#include "symtab.h"
#include "u64map.h"
#include "util.h"

static const char usage[] =
	"Usage: gmprof addr2line -e BINARY [-f] [-C] [-i] [ADDR...]\n"
	"\n"
	"Print the source file and line of each address, as binutils addr2line does.\n"
	"Addresses are hexadecimal; without any, they are read from standard input.\n"
	"\n"
	"Options:\n"
	"  -e, --exe FILE       the ELF file the addresses belong to (a.out)\n"
	"  -f, --functions      print the function name first\n"
	"  -C, --demangle       demangle C++ names\n"
	"  -i, --inlines        also print the callers an address was inlined into\n"
	"  -h, --help           show this help\n"
	"\n"
	"EXAMPLES\n"
	"  gmprof addr2line -f -e ./app 0x401136\n"
	"  nm ./app | awk '{print $1}' | gmprof addr2line -e ./app\n";

struct a2l {
	struct gmp_dwarf *dw;       /* NULL: no DWARF */
	struct gmp_symtab *st;
	int functions, demangle, inlines;
	FILE *out;
	/* Each address's answer, once: programs repeat addresses. */
	struct gmp_u64map seen;     /* address -> offset in text + 1 */
	char *text;
	size_t len, cap;
};

static void put(struct a2l *a, const char *s, size_t n)
{
	if (GMP_GROW(a->text, a->cap, a->len + n + 1))
		return; /* out of memory: this answer is lost */
	memcpy(a->text + a->len, s, n);
	a->len += n;
}

static void puts_(struct a2l *a, const char *s)
{
	put(a, s, strlen(s));
}

static void print_name(struct a2l *a, const char *name)
{
	if (!name || !*name) {
		puts_(a, "??\n");
		return;
	}
	char *plain = a->demangle ? gmp_demangle(name) : NULL;
	puts_(a, plain ? plain : name);
	put(a, "\n", 1);
	free(plain);
}

static void print_line(struct a2l *a, const struct gmp_srcloc *l)
{
	char num[64];
	puts_(a, l->file ? l->file : "??");
	if (!l->line)
		puts_(a, ":?\n");
	else if (l->discriminator)
		put(a, num, (size_t)snprintf(num, sizeof(num), ":%u (discriminator %u)\n", l->line,
					     l->discriminator));
	else
		put(a, num, (size_t)snprintf(num, sizeof(num), ":%u\n", l->line));
}

static void answer(struct a2l *a, uint64_t addr);

/* Prints addr's answer; each distinct address is looked up once. */
static void one(struct a2l *a, uint64_t addr)
{
	uint32_t *hit = gmp_u64map__get(&a->seen, addr);
	if (hit) {
		fputs(a->text + *hit - 1, a->out);
		return;
	}
	size_t start = a->len;
	answer(a, addr);
	put(a, "", 1); /* the NUL that ends this answer in the pool */
	if (a->len > start) {
		fputs(a->text + start, a->out);
		if (start < UINT32_MAX - 1)
			gmp_u64map__slot(&a->seen, addr, (uint32_t)start + 1, NULL);
	}
}

static void answer(struct a2l *a, uint64_t addr)
{
	struct gmp_srcloc loc[16];
	int n = 0;
	if (gmp_symtab__mapped(a->st, addr) && a->dw)
		n = gmp_dwarf__lookup(a->dw, addr, loc, a->inlines ? 16 : 1);
	const char *symfile = NULL;
	const char *sym = gmp_symtab__find(a->st, addr, &symfile);
	if (!n && !sym) {
		if (a->functions)
			puts_(a, "??\n");
		puts_(a, "??:0\n");
		return;
	}
	if (!n) {
		memset(loc, 0, sizeof(loc[0]));
		loc[0].file = symfile;
		n = 1;
	}
	if (!loc[0].function)
		loc[0].function = sym;
	for (int i = 0; i < n; i++) {
		if (a->functions)
			print_name(a, loc[i].function);
		print_line(a, &loc[i]);
	}
}

static int parse_addr(const char *s, uint64_t *out)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 16);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	if (errno || *end || end == s)
		return -1;
	*out = v;
	return 0;
}

int cmd_addr2line(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exe", required_argument, 0, 'e' }, { "functions", no_argument, 0, 'f' },
		{ "demangle", no_argument, 0, 'C' }, { "inlines", no_argument, 0, 'i' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	struct a2l a = { .out = stdout };
	const char *exe = "a.out";
	int c;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":e:fCih", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': exe = optarg; break;
		case 'f': a.functions = 1; break;
		case 'C': a.demangle = 1; break;
		case 'i': a.inlines = 1; break;
		case 'h': fputs(usage, stdout); return GMP_EXIT_OK;
		case ':': return gmp_cli__usage_error("addr2line", "option '%s' needs a value", argv[optind - 1]);
		default: return gmp_cli__usage_error("addr2line", "unknown option '%s'", argv[optind - 1]);
		}
	}
	int err = gmp_symtab__open(exe, &a.st);
	if (err) {
		if (err == -EINVAL)
			fprintf(stderr, "gmprof: '%s' is not an ELF file\n", exe);
		else
			fprintf(stderr, "gmprof: cannot open '%s': %s\n", exe, strerror(-err));
		return GMP_EXIT_USAGE;
	}
	err = gmp_dwarf__open(exe, &a.dw);
	if (err && err != -ENODATA) {
		fprintf(stderr, "gmprof: cannot read the DWARF of '%s'\n", exe);
		gmp_symtab__close(a.st);
		return GMP_EXIT_USAGE;
	}
	int rc = GMP_EXIT_OK;
	uint64_t addr;
	if (optind < argc) {
		for (int i = optind; i < argc; i++) {
			if (parse_addr(argv[i], &addr)) {
				rc = gmp_cli__usage_error("addr2line", "'%s' is not a hexadecimal address", argv[i]);
				break;
			}
			one(&a, addr);
		}
	} else {
		char *line = NULL;
		size_t cap = 0;
		while (getline(&line, &cap, stdin) >= 0) {
			if (parse_addr(line, &addr)) {
				fprintf(stderr, "gmprof: '%s' is not a hexadecimal address\n", strtok(line, "\n"));
				rc = GMP_EXIT_USAGE;
				break;
			}
			one(&a, addr);
		}
		free(line);
	}
	if (fflush(stdout) != 0)
		rc = GMP_EXIT_USAGE;
	free(a.text);
	gmp_u64map__release(&a.seen);
	gmp_dwarf__close(a.dw);
	gmp_symtab__close(a.st);
	return rc;
}
