// SPDX-License-Identifier: MIT
/*
 * Which launches intra-object mode monitors: every Nth launch of each
 * kernel (GMPROF_KERNEL_SAMPLE), of the kernels whose demangled name, or
 * name as recorded (mangled), matches GMPROF_KERNELS (a POSIX extended
 * regex).  C++ names are demangled with the program's own __cxa_demangle
 * when it has one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "gmprof/trace.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct gmp_kfilter {
	uint32_t sample;
	int have_re;
	regex_t re;
	struct gmp_trace *names;   /* interning: kernel name -> id */
	uint32_t *count;           /* launches seen per id */
	int8_t *match;             /* per id: -1 unknown, 0 no, 1 yes */
	size_t cap;
	demangle_fn demangle;
};

int gmp_kfilter__new(struct gmp_kfilter **out, uint32_t sample, const char *regex, char *err,
		     size_t n)
{
	struct gmp_kfilter *kf = calloc(1, sizeof(*kf));
	if (!kf || !(kf->names = gmp_trace__new())) {
		free(kf);
		snprintf(err, n, "out of memory setting up the kernel filter");
		return -ENOMEM;
	}
	kf->sample = sample ? sample : 1;
	if (regex && *regex) {
		int rc = regcomp(&kf->re, regex, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[128];
			regerror(rc, &kf->re, msg, sizeof(msg));
			snprintf(err, n, "GMPROF_KERNELS='%s' is not a valid regular expression: %s",
				 regex, msg);
			gmp_trace__free(kf->names);
			free(kf);
			return -EINVAL;
		}
		kf->have_re = 1;
	}
	*(void **)&kf->demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	*out = kf;
	return 0;
}

static int matches(struct gmp_kfilter *kf, const char *mangled)
{
	if (!kf->have_re)
		return 1;
	char *plain = NULL;
	int status = -1;
	if (kf->demangle && mangled[0] == '_' && mangled[1] == 'Z')
		plain = kf->demangle(mangled, NULL, NULL, &status);
	/* The demangled name, or the name as recorded (what gmprof run --kernels-from gives). */
	int ok = (status == 0 && plain && regexec(&kf->re, plain, 0, NULL, 0) == 0) ||
		 regexec(&kf->re, mangled, 0, NULL, 0) == 0;
	free(plain);
	return ok;
}

int gmp_kfilter__take(struct gmp_kfilter *kf, const char *mangled)
{
	if (!kf || !mangled)
		return 0;
	uint32_t id = gmp_trace__intern_cstr(kf->names, mangled);
	if (!id)
		return 0;
	if (id >= kf->cap) {
		size_t cap = kf->cap ? kf->cap * 2 : 64;
		while (cap <= id)
			cap *= 2;
		uint32_t *c = realloc(kf->count, cap * sizeof(*c));
		if (!c)
			return 0;
		kf->count = c;
		int8_t *m = realloc(kf->match, cap);
		if (!m)
			return 0;
		kf->match = m;
		memset(kf->count + kf->cap, 0, (cap - kf->cap) * sizeof(*c));
		memset(kf->match + kf->cap, -1, cap - kf->cap);
		kf->cap = cap;
	}
	if (kf->match[id] < 0)
		kf->match[id] = (int8_t)matches(kf, mangled);
	if (!kf->match[id])
		return 0;
	return kf->count[id]++ % kf->sample == 0;
}
