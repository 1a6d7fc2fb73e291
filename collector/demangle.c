// SPDX-License-Identifier: MIT
/* C++ names made readable with the C++ runtime's demangler (see demangle.h). */
#define _GNU_SOURCE
#include "demangle.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

char *gmp_demangle(const char *mangled)
{
	static demangle_fn fn;
	static int tried;
	if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
		return NULL;
	if (!tried) {
		tried = 1;
		*(void **)&fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
		if (!fn) {
			void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
			if (h)
				*(void **)&fn = dlsym(h, "__cxa_demangle");
		}
	}
	int status = -1;
	char *r = fn ? fn(mangled, NULL, NULL, &status) : NULL;
	if (status != 0) {
		free(r);
		return NULL;
	}
	return r;
}
