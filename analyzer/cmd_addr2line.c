// SPDX-License-Identifier: MIT
/*
 * `gmprof addr2line -e BINARY [-f] [-C] [-i] [ADDR...]`: the same output as
 * binutils addr2line, from gmprof's own DWARF reader (which reports use).
 * Addresses are hexadecimal file addresses; without any, they are read
 * from standard input, one per line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "demangle.h"
#include "dwarf.h"
#include "symtab.h"
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
	/* The answers of one batch, in input order, as they will be printed. */
	char *text;
	size_t len, cap;
	int oom;                    /* memory ran out: the command fails */
	/* Kept from batch to batch: */
	struct gmp_srcloc *locs;    /* frames of addresses inside inlined code (-i) */
	size_t nlocs, locs_cap;
	struct item *tmp;           /* the sort's scratch */
	struct res *res;            /* per input position: what its address resolved to */
	size_t tmp_cap, res_cap;
};

/* One address of a batch and its place in the input. */
struct item {
	uint64_t addr;
	uint32_t idx;
};

/*
 * What an address resolved to: one frame here, more in a2l.locs.  Written
 * by input position while addresses are looked up in sorted order, so that
 * printing reads them in order.
 */
struct res {
	struct gmp_srcloc loc;      /* n == 1 */
	uint32_t n;                 /* frames; 0: nothing is known of it */
	uint32_t off;               /* n > 1: the first in a2l.locs */
};

/* Room for n more bytes of answers: where to write them, or NULL (out of memory). */
static char *reserve(struct a2l *a, size_t n)
{
	if (a->len + n + 1 > a->cap && GMP_GROW(a->text, a->cap, a->len + n + 1)) {
		a->oom = 1;
		return NULL;
	}
	return a->text + a->len;
}

static char *copy(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* Writes v in decimal at p; returns the end. */
static char *utoa(char *p, uint32_t v)
{
	char d[10];
	size_t n = 0;
	do
		d[sizeof(d) - ++n] = (char)('0' + v % 10);
	while ((v /= 10));
	return copy(p, d + sizeof(d) - n, n);
}

static void print_name(struct a2l *a, const char *name)
{
	char *plain = a->demangle && name && *name ? gmp_demangle(name) : NULL;
	const char *s = plain ? plain : name && *name ? name : "??";
	size_t n = strlen(s);
	char *p = reserve(a, n + 1);
	if (p) {
		p = copy(p, s, n);
		*p++ = '\n';
		a->len = (size_t)(p - a->text);
	}
	free(plain);
}

static void print_line(struct a2l *a, const struct gmp_srcloc *l)
{
	const char *f = l->file ? l->file : "??";
	size_t n = strlen(f);
	char *p = reserve(a, n + 48);
	if (!p)
		return;
	p = copy(p, f, n);
	if (!l->line) {
		p = copy(p, ":?\n", 3);
	} else {
		*p++ = ':';
		p = utoa(p, l->line);
		if (l->discriminator) {
			p = copy(p, " (discriminator ", 16);
			p = utoa(p, l->discriminator);
			*p++ = ')';
		}
		*p++ = '\n';
	}
	a->len = (size_t)(p - a->text);
}

static void puts_(struct a2l *a, const char *s)
{
	size_t n = strlen(s);
	char *p = reserve(a, n);
	if (p)
		a->len = (size_t)(copy(p, s, n) - a->text);
}

#define OUT_CHUNK (256u << 10)

/* Looks an address up. */
static void resolve(struct a2l *a, uint64_t addr, struct res *r)
{
	struct gmp_srcloc loc[16];
	int n = 0;
	if (gmp_symtab__mapped(a->st, addr) && a->dw)
		n = gmp_dwarf__lookup(a->dw, addr, loc, a->inlines ? 16 : 1);
	/* The symbol table only when DWARF names no function (or nothing). */
	const char *symfile = NULL, *sym = NULL;
	if (!n || !loc[0].function || !*loc[0].function)
		sym = gmp_symtab__find(a->st, addr, &symfile);
	r->n = 0;
	if (!n && !sym)
		return;
	if (!n) {
		memset(loc, 0, sizeof(loc[0]));
		loc[0].file = symfile;
		n = 1;
	}
	if (!loc[0].function)
		loc[0].function = sym;
	r->loc = loc[0];
	if (n > 1) {
		if (a->nlocs + (size_t)n > UINT32_MAX ||
		    GMP_GROW(a->locs, a->locs_cap, a->nlocs + (size_t)n)) {
			a->oom = 1;
			return;
		}
		memcpy(a->locs + a->nlocs, loc, (size_t)n * sizeof(*loc));
		r->off = (uint32_t)a->nlocs;
		a->nlocs += (size_t)n;
	}
	r->n = (uint32_t)n;
}

/* Prints an address's answer as binutils does. */
static void answer(struct a2l *a, const struct res *r)
{
	if (!r->n) {
		if (a->functions)
			puts_(a, "??\n");
		puts_(a, "??:0\n");
		return;
	}
	const struct gmp_srcloc *loc = r->n == 1 ? &r->loc : a->locs + r->off;
	for (uint32_t i = 0; i < r->n; i++) {
		if (a->functions)
			print_name(a, loc[i].function);
		/* binutils prints the address's discriminator on its callers' lines too */
		struct gmp_srcloc l = loc[i];
		l.discriminator = loc[0].discriminator;
		print_line(a, &l);
	}
}

/* Hex digit values + 1; 0 for other bytes. */
static const uint8_t hexval1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* A hexadecimal address in [s, end), 0x optional, blanks around it allowed. */
static int parse_addr(const char *s, const char *end, uint64_t *out)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t v = 0;
	const char *start = s;
	for (unsigned h; s < end && (h = hexval1[(unsigned char)*s]); s++) {
		if (v >> 60)
			return -1; /* more than 64 bits */
		v = v << 4 | (h - 1);
	}
	if (s == start)
		return -1;
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
		s++;
	if (s != end)
		return -1;
	*out = v;
	return 0;
}

/* Sorts items by address: LSD radix sort, 11 bits a pass, passes with one digit skipped. */
static int sort_items(struct a2l *a, struct item *it, size_t n)
{
	if (GMP_GROW(a->tmp, a->tmp_cap, n))
		return -ENOMEM;
	struct item *src = it, *dst = a->tmp;
	for (unsigned shift = 0; shift < 64; shift += 11) {
		size_t count[2048] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[(src[i].addr >> shift) & 2047]++;
		if (count[(src[0].addr >> shift) & 2047] == n)
			continue; /* every address has the same digit here */
		for (size_t d = 0, sum = 0; d < 2048; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].addr >> shift) & 2047]++] = src[i];
		struct item *t = src;
		src = dst;
		dst = t;
	}
	if (src != it)
		memcpy(it, src, n * sizeof(*it));
	return 0;
}

/*
 * Answers a batch: looked up in address order (nearby addresses share
 * cache lines in the tables, and a repeated address is looked up once),
 * printed in input order.
 */
static int batch(struct a2l *a, struct item *it, size_t n)
{
	if (!n)
		return 0;
	if (sort_items(a, it, n)) {
		a->oom = 1;
		return -ENOMEM;
	}
	a->nlocs = 0;
	if (a->dw)
		gmp_dwarf__preload(a->dw, &it[0].addr, n, sizeof(*it));
	if (GMP_GROW(a->res, a->res_cap, n)) {
		a->oom = 1;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct res *r = &a->res[it[i].idx];
		if (i && it[i].addr == it[i - 1].addr)
			*r = a->res[it[i - 1].idx];
		else
			resolve(a, it[i].addr, r);
	}
	/* Printed in input order, written a few hundred KiB at a time (memory touched costs). */
	a->len = 0;
	for (size_t k = 0; k < n; k++) {
		answer(a, &a->res[k]);
		if (a->len >= OUT_CHUNK || k + 1 == n) {
			if (a->oom)
				return -ENOMEM;
			if (fwrite(a->text, 1, a->len, a->out) != a->len)
				return -EIO;
			a->len = 0;
		}
	}
	return fflush(a->out) ? -EIO : 0;
}

#define BATCH (1u << 15)

/*
 * Addresses from standard input, one per line, answered a batch at a time:
 * whatever lines have arrived (up to BATCH), so a program that writes one
 * address and waits for its answer gets it.
 */
static int from_stdin(struct a2l *a)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 1);
	struct item *it = malloc(BATCH * sizeof(*it));
	int rc = GMP_EXIT_OK, eof = 0;
	if (!buf || !it) {
		free(buf);
		free(it);
		fprintf(stderr, "gmprof: out of memory\n");
		return GMP_EXIT_USAGE;
	}
	while (!eof && rc == GMP_EXIT_OK) {
		ssize_t got = read(STDIN_FILENO, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fprintf(stderr, "gmprof: cannot read standard input: %s\n", strerror(errno));
			rc = GMP_EXIT_USAGE;
			break;
		}
		eof = got == 0;
		len += (size_t)got;
		/* More is there already (a file, a fast writer): take it into this batch. */
		struct pollfd pf = { .fd = STDIN_FILENO, .events = POLLIN };
		if (!eof && len < cap && poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN))
			continue;
		if (eof && len && buf[len - 1] != '\n')
			buf[len++] = '\n'; /* the last line had no newline */
		size_t pos = 0, n = 0;
		int bad = 0, failed = 0;
		char *nl;
		while (!bad && !failed && (nl = memchr(buf + pos, '\n', len - pos))) {
			if (parse_addr(buf + pos, nl, &it[n].addr)) {
				*nl = '\0';
				bad = 1; /* the lines before it are answered first */
				break;
			}
			it[n].idx = (uint32_t)n;
			pos = (size_t)(nl - buf) + 1;
			if (++n == BATCH) {
				failed = batch(a, it, n) != 0;
				n = 0;
			}
		}
		if (!failed && batch(a, it, n))
			failed = 1;
		if (failed) {
			fprintf(stderr, "gmprof: %s\n", a->oom ? "out of memory" : "cannot write the answers");
			rc = GMP_EXIT_USAGE;
		} else if (bad) {
			fprintf(stderr, "gmprof: '%.40s%s' is not a hexadecimal address\n", buf + pos,
				strlen(buf + pos) > 40 ? "..." : ""); /* a line of any length: the sentence stays one */
			rc = GMP_EXIT_USAGE;
		}
		memmove(buf, buf + pos, len - pos);
		len -= pos;
		if (len == cap) {
			fprintf(stderr, "gmprof: an input line is longer than %zu bytes\n", cap);
			rc = GMP_EXIT_USAGE;
		}
	}
	free(buf);
	free(it);
	return rc;
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
		fprintf(stderr, "gmprof: cannot read the DWARF of '%s': %s\n", exe,
			err == -EIO ? "its debug information is damaged"
			: err == -ENOTSUP ? "gmprof's own reader does not read what it uses (split DWARF, dwz, .zdebug "
					    "sections), and GMPROF_DWARF_READER=gmprof leaves libdwarf out"
			: strerror(-err));
		gmp_symtab__close(a.st);
		return GMP_EXIT_USAGE;
	}
	int rc = GMP_EXIT_OK;
	if (optind < argc) {
		struct item *it = calloc((size_t)(argc - optind), sizeof(*it));
		size_t n = 0;
		for (int i = optind; it && i < argc; i++, n++) {
			if (parse_addr(argv[i], argv[i] + strlen(argv[i]), &it[n].addr)) {
				rc = gmp_cli__usage_error("addr2line", "'%.40s%s' is not a hexadecimal address", argv[i],
							  strlen(argv[i]) > 40 ? "..." : "");
				break;
			}
			it[n].idx = (uint32_t)n;
		}
		if (!it || batch(&a, it, n)) {
			fprintf(stderr, "gmprof: %s\n", !it || a.oom ? "out of memory" : "cannot write the answers");
			rc = GMP_EXIT_USAGE;
		}
		free(it);
	} else {
		rc = from_stdin(&a);
	}
	if (fflush(stdout) != 0)
		rc = GMP_EXIT_USAGE;
	free(a.text);
	free(a.locs);
	free(a.tmp);
	free(a.res);
	gmp_dwarf__close(a.dw);
	gmp_symtab__close(a.st);
	return rc;
}
