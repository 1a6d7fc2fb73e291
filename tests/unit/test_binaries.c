// SPDX-License-Identifier: MIT
/*
 * The files a profile names as its binaries are opened only when they are
 * regular files (format/safefile.c's gmp_file__open_regular): a FIFO, a
 * directory or a device under that name is refused at once by the symbol
 * table and by both DWARF readers, where an open would wait for a writer
 * for ever or read a device.  An alarm fails a test that blocks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf.h"
#include "safefile.h"
#include "support.h"
#include "symtab.h"

static char dir[] = "/tmp/gmprof-binaries.XXXXXX";
static char fifo[64], reg[64];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(fifo, sizeof(fifo), "%s/app", dir);
	snprintf(reg, sizeof(reg), "%s/text", dir);
	FILE *f = fopen(reg, "w");
	if (mkfifo(fifo, 0600) || !f || fputs("not a program\n", f) < 0 || fclose(f))
		return -1;
	alarm(30); /* a blocking open fails the run instead of hanging it */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	unlink(fifo);
	unlink(reg);
	rmdir(dir);
	return 0;
}

static void open_regular(void **state)
{
	(void)state;
	int fd = gmp_file__open_regular(reg);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0); /* read as any file is */
	close(fd);
	assert_int_equal(gmp_file__open_regular(fifo), -EINVAL);
	assert_int_equal(gmp_file__open_regular(dir), -EINVAL);
	assert_int_equal(gmp_file__open_regular("/dev/null"), -EINVAL);
	char missing[80];
	snprintf(missing, sizeof(missing), "%s/none", dir);
	assert_int_equal(gmp_file__open_regular(missing), -ENOENT);
}

static void symtab_refuses(void **state)
{
	(void)state;
	struct gmp_symtab *st = NULL;
	assert_int_equal(gmp_symtab__open(fifo, &st), -EINVAL);
	assert_int_equal(gmp_symtab__open("/dev/zero", &st), -EINVAL);
	assert_int_equal(gmp_symtab__open(reg, &st), -EINVAL); /* regular, not ELF */
	assert_null(st);
}

static void dwarf_refuses(void **state)
{
	(void)state;
	static const char *readers[] = { "gmprof", "libdwarf", NULL };
	for (int i = 0; i < 3; i++) {
		if (readers[i])
			setenv("GMPROF_DWARF_READER", readers[i], 1);
		else
			unsetenv("GMPROF_DWARF_READER"); /* the own reader, libdwarf where it declines */
		struct gmp_dwarf *d = NULL;
		assert_int_equal(gmp_dwarf__open(fifo, &d), -EINVAL);
		assert_int_equal(gmp_dwarf__open("/dev/zero", &d), -EINVAL);
		assert_null(d);
	}
	unsetenv("GMPROF_DWARF_READER");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_regular),
		cmocka_unit_test(symtab_refuses),
		cmocka_unit_test(dwarf_refuses),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
