// SPDX-License-Identifier: MIT
/*
 * What to do about a finding, in one sentence, as DrGPUM's GUI phrases
 * it: "allocate it just before KERNEL k (stream s, #i)", "free it just
 * after ...", "remove this allocation", "reuse obj#1 ...".  Made on demand
 * from the finding's fields, so results stay small.
 */
#include <inttypes.h>
#include <stdio.h>

#include "gmprof/detect.h"

/*
 * The paper's Table 2: of the objects with unaccessed bytes, only those with
 * both a low share accessed and low fragmentation are worth the effort, and
 * those are the only ones reported (detector/intra.c).
 */
#define OVERALLOCATION_GUIDANCE "easy to optimize: shrinking or freeing the unaccessed memory saves a lot"

const char *gmp_result__suggestion(const struct gmp_result *r, const struct gmp_finding *f,
				   char *buf, size_t n)
{
	char a[160], b[160], o[160];
	const struct gmp_object *ob = &r->objects[f->object];
	const struct gmp_range *rg = f->range_n ? &r->ranges[f->range_off] : NULL;
	switch (f->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
		snprintf(buf, n, "allocate it just before %s",
			 gmp_result__api_label(r, f->ev_b, a, sizeof(a)));
		break;
	case GMP_PAT_LATE_DEALLOCATION:
		snprintf(buf, n, "free it just after %s",
			 gmp_result__api_label(r, f->ev_a, a, sizeof(a)));
		break;
	case GMP_PAT_UNUSED_ALLOCATION:
		snprintf(buf, n, "remove this allocation: no GPU API accesses it");
		break;
	case GMP_PAT_MEMORY_LEAK:
		if (ob->kind == GMP_MEM_DEVICE_HEAP)
			snprintf(buf, n, "free() it in a kernel once it is no longer needed: %s malloc()s it and no kernel frees it",
				 gmp_result__api_label(r, r->trace->ev[ob->alloc_ev].value, a, sizeof(a)));
		else if (ob->kind == GMP_MEM_ARRAY)
			snprintf(buf, n, "cudaFreeArray (cuArrayDestroy) it once no kernel reads it through a texture or "
				 "surface any more (its last use is not known: such reads are not recorded)");
		else if (ob->kind == GMP_MEM_MANAGED && f->ev_a == GMP_NO_EVENT && !r->opts.accesses_unknown && ob->naccess)
			snprintf(buf, n, "free it once neither the GPU nor the host uses it any more (the host's use of "
				 "managed memory is not seen; the GPU's last is %s)",
				 gmp_result__api_label(r, ob->last_ev, a, sizeof(a)));
		else if (ob->kind == GMP_MEM_MANAGED && f->ev_a == GMP_NO_EVENT && !r->opts.accesses_unknown)
			snprintf(buf, n, "free it once the host no longer uses it (no GPU API accesses it; the host's "
				 "use of managed memory is not seen)");
		else if (f->ev_a == GMP_NO_EVENT && gmp_object__shared(r, f->object) == GMP_SHARED_EXPORTED &&
			 !r->opts.accesses_unknown)
			snprintf(buf, n, "free it once the processes it was shared with no longer use it (their use is not "
				 "seen; this process's last is %s)", ob->naccess ? gmp_result__api_label(r, ob->last_ev, a, sizeof(a))
										 : "none: it never used it");
		else if (f->ev_a == GMP_NO_EVENT)
			snprintf(buf, n, "free it once no kernel uses it any more (its last use is not known: the "
				 "kernels' accesses were not recorded)");
		else if (ob->naccess)
			snprintf(buf, n, "free it just after %s, its last use",
				 gmp_result__api_label(r, f->ev_a, a, sizeof(a)));
		else
			snprintf(buf, n, "free it, or better remove it: it is never used");
		break;
	case GMP_PAT_TEMPORARY_IDLENESS:
		snprintf(buf, n, "free it (or move it to host memory) just after %s and reallocate it just before %s%s",
			 gmp_result__api_label(r, f->ev_a, a, sizeof(a)),
			 gmp_result__api_label(r, f->ev_b, b, sizeof(b)),
			 f->count > 1 ? "; likewise over its other idle ranges" : "");
		break;
	case GMP_PAT_DEAD_WRITE:
		snprintf(buf, n, "remove %s, or shrink it: %" PRIu64 " of the bytes it writes are overwritten by %s before any use",
			 gmp_result__api_label(r, f->ev_a, a, sizeof(a)), f->bytes,
			 gmp_result__api_label(r, f->ev_b, b, sizeof(b)));
		break;
	case GMP_PAT_REDUNDANT_ALLOCATION:
		snprintf(buf, n, "reuse the memory of %s instead of allocating this object: its last use, %s, comes before this object's first use, %s",
			 gmp_result__object_name(r, f->other, o, sizeof(o)),
			 gmp_result__api_label(r, f->ev_a, a, sizeof(a)),
			 gmp_result__api_label(r, f->ev_b, b, sizeof(b)));
		break;
	case GMP_PAT_OVERALLOCATION:
		snprintf(buf, n, "shrink it: only %.1f%% of its %" PRIu64 " bytes are ever accessed; the largest unaccessed chunk is %" PRIu64 " bytes at offset %" PRIu64 " (%s)",
			 (double)f->accessed_pct, ob->size, rg ? rg->len : 0, rg ? rg->off : 0,
			 OVERALLOCATION_GUIDANCE);
		break;
	case GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY:
		snprintf(buf, n, "keep its hot bytes in shared memory or cache: access counts vary by %.0f%% (coefficient of variation) in %s",
			 (double)f->cv_pct, gmp_result__api_label(r, f->ev_a, a, sizeof(a)));
		break;
	case GMP_PAT_STRUCTURED_ACCESS:
		snprintf(buf, n, "allocate one slice at a time: %u launches of kernel %s touch disjoint slices of it; the largest slice is %" PRIu64 " of %" PRIu64 " bytes",
			 f->count, gmp_trace__str(r->trace, f->kernel, NULL), ob->size - f->bytes,
			 ob->size);
		break;
	default:
		snprintf(buf, n, "?");
	}
	return buf;
}
