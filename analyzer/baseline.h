/* SPDX-License-Identifier: MIT */
/*
 * Baselines for `gmprof check --baseline`, written by `gmprof baseline`:
 * the peak and leaked bytes of a run, the fingerprints of its findings,
 * and (version 3) each input's peak on each of its devices with its bytes
 * by allocation site, which a check names when the peak grew; version 4
 * also each NVTX range's peak on the device (written only where the run
 * had ranges, so a run without them keeps version 3); version 5 also, for
 * each range entered more than once, how many times and how many more
 * bytes were live as its last time began than as its first (written only
 * where a range was, so a run whose ranges were each entered once keeps
 * version 4); version 6 also, for such a range that grew, where what its
 * times kept was allocated (written only where a range grew: a run whose
 * loops kept nothing keeps version 5); version 7 also, for each NVTX mark
 * name shown on the device (markmem.h), the most live at one of its marks,
 * how many marks, and how many more bytes were live at its last than at
 * its first (written only where the run made marks, so a run without them
 * keeps version 6 or earlier); version 8 also how the NVTX names were
 * folded (--nvtx-numbers, --nvtx-strip: written only where they were and
 * the run had ranges or marks), which a check must fold alike; version 9
 * also which NVTX domains the collector left out (written only where it
 * left one out), which a check names where its run left out others.  Version 2
 * had one peak, the largest, with its sites; version 1 no sites.
 *
 *   {"gmprof_baseline": 4, "input": "...", "peak_bytes": N, "leaked_bytes": N,
 *    "peaks": [{"input": "app.gmprof", "device": N, "peak_bytes": N,
 *               "inuse_peak_bytes": N (where the device's pools have NVTX regions),
 *               "pool_reserved_high_bytes": N (where it had stream-ordered pools),
 *               "peak_sites": [{"site": "file:line", "bytes": N, "key": "16 hex digits"}, ...],
 *               "range_peaks": [{"range": "outer > inner", "peak_bytes": N,
 *                                "times": N, "grew_bytes": N (version 5, where times > 1),
 *                                "kept_sites": [{"site": ..., "bytes": N, "key": ...}, ...]
 *                                  (version 6, where grew_bytes > 0: the 8 holding most)}, ...]
 *                 (version 4),
 *               "mark_peaks": [{"mark": "epoch", "max_bytes": N, "times": N, "grew_bytes": N}, ...]
 *                 (version 7)}, ...],
 *    "nvtx_names": {"numbers": true, "strip": "REGEX"} (version 8, or 9; "strip" where given),
 *    "nvtx_domains_left_out": ["default", "NCCL"] (version 9),
 *    "findings": [{"fingerprint": "16 hex digits", "pattern": "...",
 *                  "object": "...", "saving_bytes": N}, ...],
 *    "fingerprints": 2}
 *
 * "fingerprints" names the scheme of the findings' fingerprints (sites.c):
 * a baseline without it has fingerprints of an earlier gmprof, which
 * keyed sites by path and line number, and is refused when it has
 * findings (every finding would read as new).  Peak sites' "key" is the
 * site as fingerprints know it, so that a check names the sites that grew
 * even where lines moved; without it they are matched by name.
 *
 * The reader is strict (unknown keys, wrong types, bad fingerprints are
 * errors) and pure: it takes bytes, so it can be fuzzed.
 */
#ifndef GMPROF_BASELINE_H
#define GMPROF_BASELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gmprof/detect.h"

#define GMP_FINGERPRINTS 2  /* the fingerprint scheme a baseline's findings are of */

struct gmp_baseline_site {
	char *site;
	uint64_t bytes;
	uint64_t key;      /* the site as runs match it (gmp_sites__event_key), where has_key */
	int has_key;
};

/*
 * An NVTX range's peak on a device (rangemem.h), version 4; its times and
 * growth, version 5; where what its times kept was allocated, version 6.
 */
struct gmp_baseline_range {
	char *range;       /* its path, "outer > inner" */
	uint64_t peak_bytes;
	uint64_t times;    /* how many times it was entered (1 where version 5 omits it; 0: not recorded) */
	uint64_t grew_bytes; /* how many more bytes were live as its last time began than as its first */
	struct gmp_baseline_site *kept; /* what its times kept, by allocation site, the most bytes first */
	size_t nkept;
};

/* An NVTX mark name's live bytes on a device (markmem.h), version 7. */
struct gmp_baseline_mark {
	char *mark;        /* its name */
	uint64_t max_bytes; /* the most live at one of its marks */
	uint64_t times;    /* how many marks (1 or more) */
	uint64_t grew_bytes; /* how many more bytes were live at its last mark than at its first */
};

/* A peak of the baseline run: of one input's device, or (version 1 or 2) the largest of all. */
struct gmp_baseline_peak {
	char *input;       /* the input's file name, without its directory; NULL: any (version 1 or 2) */
	uint32_t device;   /* GMP_ANY_DEVICE: the run's largest peak, whichever device (version 1 or 2) */
	uint64_t peak_bytes;
	uint64_t inuse_peak_bytes;  /* its peak of bytes in use (pools by their NVTX regions); 0: no regions */
	uint64_t pool_reserved_high; /* the most its stream-ordered pools reserved; 0: none recorded */
	struct gmp_baseline_site *sites;  /* its bytes by allocation site; none in version 1 */
	size_t nsites;
	struct gmp_baseline_range *ranges; /* version 4: the device's NVTX ranges, sorted by path */
	size_t nranges;
	int growth;        /* its ranges have their times and growth (version 5, or a run's own) */
	int kept;          /* and where what they kept was allocated (version 6, or a run's own) */
	struct gmp_baseline_mark *marks; /* version 7: the device's NVTX mark names, sorted by name */
	size_t nmarks;
};

struct gmp_baseline {
	uint64_t peak_bytes;      /* the largest of the peaks */
	uint64_t leaked_bytes;
	struct gmp_baseline_peak *peaks;  /* version 3: one per input and device, in that order; else one, of any device */
	size_t npeaks;
	size_t ninputs;           /* distinct inputs the peaks name (0: version 1 or 2) */
	uint64_t *fingerprints;   /* sorted, unique */
	size_t nfingerprints;
	int nvtx_numbers;         /* version 8: its NVTX names were folded by --nvtx-numbers */
	char *nvtx_strip;         /* version 8: and by --nvtx-strip's expression (owned; NULL: none) */
	char **domains_out;       /* version 9: the NVTX domains its run left out ("default": the default one) */
	size_t ndomains_out;      /* (owned, each name too; 0 before version 9: none could be) */
};

/* Parses a baseline; returns 0, or -EINVAL with a reason in err, or -ENOMEM. */
int gmp_baseline__parse(const char *text, size_t len, struct gmp_baseline *b, char *err,
			size_t errn);
/* Reads path; prints one line naming the problem and returns -1 on failure. */
int gmp_baseline__load(const char *path, struct gmp_baseline *b);
/*
 * Whether path holds a baseline (1; its first 4 KiB name "gmprof_baseline")
 * rather than a run to take one from (0); -1 when it cannot be read (said
 * in one line).
 */
int gmp_baseline__sniff(const char *path);
/*
 * The baseline of one analyzed run, as `gmprof baseline` of it would write
 * (cmd_baseline.c): 0, or -ENOMEM.
 */
struct gmp_session;
int gmp_baseline__of_session(struct gmp_session *s, struct gmp_baseline *b);
/*
 * Puts a baseline built in memory in the order the reader leaves one:
 * fingerprints sorted and unique, peaks by input and device, its inputs
 * counted.  0, or -EINVAL when two peaks share an input and device.
 */
int gmp_baseline__index(struct gmp_baseline *b);
void gmp_baseline__release(struct gmp_baseline *b);
int gmp_baseline__has(const struct gmp_baseline *b, uint64_t fingerprint);
/* The name an input's peaks go under in a baseline, and are looked up by: its file name. */
const char *gmp_baseline__input_name(const char *path);
/* Range path's entry at peak p, NULL when it has none. */
const struct gmp_baseline_range *gmp_baseline__range(const struct gmp_baseline_peak *p, const char *range);
/*
 * Sorts p's ranges by path for gmp_baseline__range.  A path there twice
 * (ranges whose names hold " > ") is -EINVAL, or with merge one entry
 * with the larger peak, times and growth.  0 or -EINVAL.
 */
int gmp_baseline__sort_ranges(struct gmp_baseline_peak *p, int merge);
/* The most a peak may grow to: the baseline's, plus the larger of pct percent of it and abs bytes. */
uint64_t gmp_baseline__allowed(uint64_t peak, double pct, uint64_t abs);
/*
 * The baseline's bytes at peak p from the site of key (named site): matched
 * by key where the baseline has the sites' keys (written since
 * "fingerprints": 2), else by name; 0 when none.
 */
uint64_t gmp_baseline__site_bytes(const struct gmp_baseline_peak *p, const char *site, uint64_t key);
/* The same of what range br's times kept (version 6). */
uint64_t gmp_baseline__kept_bytes(const struct gmp_baseline_range *br, const char *site, uint64_t key);
/* Mark name's entry at peak p, NULL when it has none. */
const struct gmp_baseline_mark *gmp_baseline__mark(const struct gmp_baseline_peak *p, const char *mark);
/* Sorts p's marks by name for gmp_baseline__mark: 0, or -EINVAL where a name is there twice. */
int gmp_baseline__sort_marks(struct gmp_baseline_peak *p);
/*
 * Version 7's "mark_peaks" (baseline_marks.c) into p, sorted by name:
 * 0, -EINVAL with a reason in err, or -ENOMEM.
 */
struct cJSON;
int gmp_baseline__parse_marks(const struct cJSON *ms, struct gmp_baseline_peak *p, char *err, size_t errn);
/* baseline_nvtx.c: version 8's "nvtx_names" and version 9's "nvtx_domains_left_out" (NULL where absent). */
int gmp_baseline__parse_names(const struct cJSON *names, uint64_t version, struct gmp_baseline *b, char *err,
			      size_t errn);
int gmp_baseline__parse_domains(const struct cJSON *domains, uint64_t version, struct gmp_baseline *b, char *err,
				size_t errn);
struct gmp_trace;
/* Adds the NVTX domains run t left out to b's (each once).  0 or -ENOMEM. */
int gmp_baseline__add_domains(struct gmp_baseline *b, const struct gmp_trace *t);
/*
 * Where run t left out other NVTX domains than the baseline's run: "NCCL
 * (this run only), the default domain (the baseline's run only)" into
 * buf; "" where alike.  Returns buf.
 */
const char *gmp_baseline__domains_differ(const struct gmp_baseline *b, const struct gmp_trace *t, char *buf, size_t n);
/*
 * Whether a check folds the NVTX names as the baseline's run did (numbers,
 * strip: the check's --nvtx-numbers and --nvtx-strip): 1 when alike, or
 * when the baseline has no ranges or marks for it to matter; else 0 with
 * how each folds into buf ("--nvtx-numbers", "no option").
 */
int gmp_baseline__same_names(const struct gmp_baseline *b, int numbers, const char *strip, char *buf, size_t n);
/* Frees a range's path and kept sites. */
void gmp_baseline__range_release(struct gmp_baseline_range *br);

/*
 * A peak of a checked run against the baseline's: one per device the run
 * used, or one in all (its largest peak) against a baseline of version 1
 * or 2.  A device's peak is the baseline's peak of the same input (its file
 * name) and device; of the same device alone when one input is checked
 * against a baseline of one input (the names may differ: main.gmprof
 * against pr.gmprof).
 */
struct gmp_peak_cmp {
	uint32_t device;                      /* GMP_ANY_DEVICE: the run's largest peak */
	uint64_t now;                         /* the run's peak there */
	const struct gmp_baseline_peak *base; /* borrowed from the baseline; NULL: it has none to compare */
	int by_device;                        /* matched by device alone (one input against one) */
	uint64_t allowed;                     /* base's peak plus the tolerance (0 without base) */
	int inuse;                            /* base has a peak of bytes in use: compare it too */
	uint64_t inuse_now, inuse_allowed;    /* the run's peak in use there (its peak where its pools
						 have no regions), and base's plus the tolerance */
	int pools;                            /* base recorded stream-ordered pools: compare their most too */
	uint64_t pools_now, pools_allowed;    /* the most the run's pools reserved there (0: none), base's
						 plus the tolerance */
};

/*
 * The comparisons for input (its name as given) of ninputs checked, the
 * tolerance the larger of pct percent of a peak and abs bytes, into *v
 * (malloc'd, the caller frees it), *n of them.  0 or -ENOMEM.
 */
int gmp_baseline__compare(const struct gmp_baseline *b, const struct gmp_result *r, const char *input,
			  size_t ninputs, double pct, uint64_t abs, struct gmp_peak_cmp **v, size_t *n);
/* Whether a comparison fails: no baseline peak to compare, or a peak past what it allows. */
int gmp_peak_cmp__failed(const struct gmp_peak_cmp *c);
/* Whether its peak of bytes in use grew past what the baseline allows (0 when it has none). */
int gmp_peak_cmp__inuse_failed(const struct gmp_peak_cmp *c);
/* Whether the most its stream-ordered pools reserved grew past what the baseline allows (0 when it has none). */
int gmp_peak_cmp__pools_failed(const struct gmp_peak_cmp *c);

/*
 * Device bytes the run's memory_leak findings leave allocated: a leaked
 * region of a pool that is itself leaked is part of the pool's bytes, so
 * only the pool counts (as peaks count pools, not their regions).
 */
uint64_t gmp_leaked_bytes(const struct gmp_result *r);
/* Whether f is a leak whose object's bytes gmp_leaked_bytes counts. */
int gmp_leak__counted(const struct gmp_result *r, const struct gmp_finding *f);

#endif
