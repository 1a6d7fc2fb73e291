// SPDX-License-Identifier: MIT
/*
 * A baseline's NVTX marks (version 7, baseline.h): for each mark name on
 * a device, the most live at one of its marks, how many, and how much more
 * was live at the last than at the first.  Read as strictly as the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_json.h"

static int cmp_mark(const void *x, const void *y)
{
	return strcmp(((const struct gmp_baseline_mark *)x)->mark, ((const struct gmp_baseline_mark *)y)->mark);
}

int gmp_baseline__sort_marks(struct gmp_baseline_peak *p)
{
	if (p->nmarks)
		qsort(p->marks, p->nmarks, sizeof(*p->marks), cmp_mark);
	for (size_t k = 1; k < p->nmarks; k++)
		if (!cmp_mark(&p->marks[k - 1], &p->marks[k]))
			return -EINVAL;
	return 0;
}

const struct gmp_baseline_mark *gmp_baseline__mark(const struct gmp_baseline_peak *p, const char *mark)
{
	struct gmp_baseline_mark key = { .mark = (char *)mark };
	return p->nmarks ? bsearch(&key, p->marks, p->nmarks, sizeof(*p->marks), cmp_mark) : NULL;
}

int gmp_baseline__parse_marks(const struct cJSON *ms, struct gmp_baseline_peak *p, char *err, size_t errn)
{
	static const char *const keys[] = { "mark", "max_bytes", "times", "grew_bytes" };
	if (!cJSON_IsArray(ms))
		return gmp_bj__bad(err, errn, "\"mark_peaks\" must be an array");
	size_t n = (size_t)cJSON_GetArraySize(ms);
	if (!(p->marks = calloc(n ? n : 1, sizeof(*p->marks))))
		return -ENOMEM;
	const cJSON *e;
	cJSON_ArrayForEach(e, ms) {
		if (!cJSON_IsObject(e))
			return gmp_bj__bad(err, errn, "every mark peak must be an object");
		int rc = gmp_bj__only_keys(e, keys, 4, err, errn);
		if (rc)
			return rc;
		const cJSON *mark = cJSON_GetObjectItemCaseSensitive(e, "mark");
		struct gmp_baseline_mark *x = &p->marks[p->nmarks];
		if (!cJSON_IsString(mark) || !*mark->valuestring || gmp_bj__u64(e, "max_bytes", &x->max_bytes) ||
		    gmp_bj__u64(e, "times", &x->times) || !x->times || gmp_bj__u64(e, "grew_bytes", &x->grew_bytes))
			return gmp_bj__bad(err, errn, "a mark peak needs a \"mark\" (a non-empty string), \"max_bytes\", \"times\" "
					      "(1 or more) and \"grew_bytes\" (non-negative integers)");
		if ((x->times == 1 && x->grew_bytes) || x->grew_bytes > x->max_bytes)
			return gmp_bj__bad(err, errn, "a mark peak's \"grew_bytes\" must be 0 for one mark, and at most its \"max_bytes\"");
		if (!(x->mark = strdup(mark->valuestring)))
			return -ENOMEM;
		p->nmarks++;
	}
	if (gmp_baseline__sort_marks(p))
		return gmp_bj__bad(err, errn, "a mark is in a peak's \"mark_peaks\" twice");
	return 0;
}
