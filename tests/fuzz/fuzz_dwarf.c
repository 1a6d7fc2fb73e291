// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: gmprof's own DWARF reader (analyzer/dwarf_read.c and
 * the decoders beside it) and its ELF symbol tables (analyzer/symtab.c) on
 * an ELF file, as gmprof report reads a profile's binaries.  The input is
 * the file; it is opened through a memfd, every address below 0x800 (where
 * the seeds' code lies, tests/fuzz/seeds.sh) and a few taken from the
 * input's tail are looked up, and every location returned must be
 * complete: strings that end, an inline chain no longer than asked for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dwarf.h"
#include "symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("GMPROF_DWARF_READER", "gmprof", 1); /* the own reader alone: libdwarf is not ours to fuzz */
	return 0;
}

static void check(const struct gmp_srcloc *l, int n, int max)
{
	if (n < 0 || n > max)
		abort();
	for (int i = 0; i < n; i++) {
		if (l[i].function && strlen(l[i].function) > (1u << 20))
			abort();
		if (l[i].file && strlen(l[i].file) > (1u << 20))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_dwarf", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct gmp_dwarf *d = NULL;
	int rc = gmp_dwarf__open(path, &d);
	if (rc == 0) {
		struct gmp_srcloc l[8];
		/* Where the seeds' code lies, then addresses from the input's last bytes. */
		for (uint64_t a = 0; a < 0x800; a++)
			check(l, gmp_dwarf__lookup(d, a, l, 8), 8);
		for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
			uint64_t a;
			memcpy(&a, data + size - 8 - i, 8);
			check(l, gmp_dwarf__lookup(d, a, l, 8), 8);
			check(l, gmp_dwarf__lookup(d, a & 0xffffff, l, 1), 1);
		}
		gmp_dwarf__close(d);
	} else if (rc != -ENODATA && rc != -EIO && rc != -ENOMEM && rc != -ENOTSUP && rc != -EINVAL) {
		fprintf(stderr, "gmp_dwarf__open: unexpected %d\n", rc);
		abort();
	}
	struct gmp_symtab *st = NULL;
	rc = gmp_symtab__open(path, &st);
	if (rc == 0) {
		const char *file;
		for (uint64_t a = 0; a < 0x800; a += 3) {
			const char *fn = gmp_symtab__find(st, a, &file);
			if ((fn && strlen(fn) > (1u << 20)) || (file && strlen(file) > (1u << 20)))
				abort();
			(void)gmp_symtab__mapped(st, a);
		}
		const char *id = gmp_symtab__build_id(st);
		if (id[strspn(id, "0123456789abcdef")] != '\0' || strlen(id) % 2)
			abort(); /* hex, two digits a byte */
		uint64_t lo, hi;
		gmp_symtab__text(st, &lo, &hi);
		gmp_symtab__close(st);
	} else if (rc != -EINVAL && rc != -ENOMEM) {
		fprintf(stderr, "gmp_symtab__open: unexpected %d\n", rc);
		abort();
	}
	close(fd);
	return 0;
}
