// SPDX-License-Identifier: MIT
/* Expansion of profile path patterns (no side effects). */
#include "pathpat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const gmp_rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK",
	"RANK", NULL,
};

static int append(char *out, size_t n, size_t *len, const char *s, size_t k)
{
	if (*len + k >= n)
		return -1;
	memcpy(out + *len, s, k);
	*len += k;
	out[*len] = '\0';
	return 0;
}

/* A value from outside may not steer the file into another directory. */
static int safe_component(const char *v)
{
	return *v && !strchr(v, '/') && strcmp(v, ".") != 0 && strcmp(v, "..") != 0;
}

int gmp_path__expand(const char *pattern, pid_t pid, const char *host, gmp_getenv_fn get,
		     char *out, size_t n, char *err, size_t errn)
{
	size_t len = 0;
	out[0] = '\0';
	char name[128]; /* a %q{NAME} being expanded */
	for (const char *p = pattern; *p; p++) {
		char buf[64];
		const char *val = NULL, *what = NULL;
		if (*p != '%') {
			if (append(out, n, &len, p, 1))
				goto too_long;
			continue;
		}
		switch (*++p) {
		case '%':
			val = "%";
			break;
		case 'p':
			snprintf(buf, sizeof(buf), "%ld", (long)pid);
			val = buf;
			break;
		case 'h':
			val = host;
			what = "the host name";
			break;
		case 'r':
			val = "0";
			for (int i = 0; gmp_rank_vars[i]; i++) {
				const char *r = get(gmp_rank_vars[i]);
				if (r && *r) {
					val = r;
					what = gmp_rank_vars[i];
					break;
				}
			}
			if (what && strspn(val, "0123456789") != strlen(val)) {
				snprintf(err, errn, "GMPROF_OUTPUT: the rank %s='%s' is not a number",
					 what, val);
				return -EINVAL;
			}
			break;
		case 'q': {
			const char *close = p[1] == '{' ? strchr(p + 2, '}') : NULL;
			if (!close || close == p + 2) {
				snprintf(err, errn, "GMPROF_OUTPUT='%s': %%q must be followed by {VARIABLE}",
					 pattern);
				return -EINVAL;
			}
			size_t k = (size_t)(close - (p + 2));
			if (k >= sizeof(name)) {
				snprintf(err, errn, "GMPROF_OUTPUT='%s': variable name too long", pattern);
				return -EINVAL;
			}
			memcpy(name, p + 2, k);
			name[k] = '\0';
			val = get(name);
			if (!val) {
				snprintf(err, errn, "GMPROF_OUTPUT='%s': %%q{%s} names an unset variable",
					 pattern, name);
				return -EINVAL;
			}
			what = name;
			p = close;
			break;
		}
		default:
			snprintf(err, errn, "GMPROF_OUTPUT='%s': unknown %%%c (use %%p, %%h, %%q{VAR}, %%r or %%%%)",
				 pattern, *p ? *p : ' ');
			return -EINVAL;
		}
		if (what && !safe_component(val)) {
			snprintf(err, errn, "GMPROF_OUTPUT='%s': the value of %s ('%s') would change the directory",
				 pattern, what, val);
			return -EINVAL;
		}
		if (append(out, n, &len, val, strlen(val)))
			goto too_long;
	}
	if (!len) {
		snprintf(err, errn, "GMPROF_OUTPUT is empty");
		return -EINVAL;
	}
	return 0;
too_long:
	snprintf(err, errn, "GMPROF_OUTPUT expands to a path that is too long (over %zu bytes)", n - 1);
	return -EINVAL;
}
