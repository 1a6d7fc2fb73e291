/* SPDX-License-Identifier: MIT */
/* The gmprof subcommands: each takes its own argv (argv[0] is its name). */
#ifndef GMPROF_CMDS_H
#define GMPROF_CMDS_H

#include <stdint.h>
#include <stdio.h>

#include "gmprof/detect.h"
#include "oneline.h"

int cmd_replay(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_addr2line(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_perfetto(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);

/*
 * A device's curve (pts: r->curve or r->inuse_curve) in ncols columns over
 * the topological order: the largest value in each; returns the largest.
 */
uint64_t gmp_text__columns(const struct gmp_result *r, uint32_t device, const struct gmp_curve_point *pts,
			   size_t npts, uint64_t *col, uint32_t ncols);
/*
 * Live bytes (pts: r->curve) or bytes in use (r->inuse_curve) per column
 * over the topological order, ms_print-style, for gmprof report; where the
 * peak comes within half of the device's memory, that memory is a row of
 * '-' and the scale's top.
 */
/* Device dev's memory where a plot of peak should draw it (the peak within half of it), else 0. */
uint64_t gmp_text__ceiling(const struct gmp_trace *t, uint32_t dev, uint64_t peak);
void gmp_text__plot(FILE *fp, const struct gmp_result *r, uint32_t device, const struct gmp_curve_point *pts,
		    size_t npts, int inuse);
/* The finding's measure in words: "distance 3, 2 APIs between", "40.0% accessed, ...". */
const char *gmp_text__metric(const struct gmp_finding *f, char *buf, size_t n);
/*
 * What the profile records of device dev (docs/profile-format.md, META
 * device.N.*): "NVIDIA H100 80GB HBM3, 79.1 GiB of memory", its name or its memory
 * alone, into buf; NULL when it records neither.
 */
const char *gmp_text__device(const struct gmp_trace *t, uint32_t dev, char *buf, size_t n);
/* Writes s escaped for HTML and XML text and attribute values (JUnit, the HTML report). */
void gmp_text__markup(FILE *fp, const char *s);
/*
 * s in a column of width characters (not bytes: a name in UTF-8 is cut
 * between characters, never inside one), cut or padded with spaces, into
 * buf of n bytes; returns buf.
 */
char *gmp_text__cell(const char *s, size_t width, char *buf, size_t n);
/*
 * gmprof report's sections beside the findings (report_extra.c): fixes
 * combined per device, with fit the findings that reach that budget (0:
 * none); findings by the NVTX ranges that allocated their objects (nothing
 * without ranges).  0 or -ENOMEM.
 */
struct gmp_jw;
/* --fit: bytes for every device, or a share of each device's memory (pct > 0); neither: none. */
struct gmp_fit {
	uint64_t bytes;
	double pct;
};
int gmp_report__plans(FILE *fp, const struct gmp_result *r, const struct gmp_fit *fit);
int gmp_report__json_plans(struct gmp_jw *jw, const struct gmp_result *r, const struct gmp_fit *fit);
/*
 * With a share of device memory (pct > 0) asked for by option of command
 * cmd: whether input name records the memory of every device r allocated
 * on (META device.N.memory); one sentence on stderr when not.
 */
int gmp_report__shares_known(const char *cmd, const char *name, const struct gmp_result *r, const char *option,
			     double pct);
int gmp_report__by_range(FILE *fp, const struct gmp_result *r);
int gmp_report__json_by_range(struct gmp_jw *jw, const struct gmp_result *r);
/*
 * The report's closing notes: modules whose frames had no source line and
 * allocation wrappers (sn), files outside the roots whose lines were not
 * shown (src, may be NULL); on stderr for JSON, where only sn's are said.
 */
struct gmp_symnotes;
struct gmp_source;
void gmp_report__notes(FILE *fp, int json, const struct gmp_symnotes *sn, const struct gmp_source *src);
/* The same notes as a section of gmprof html's page (nothing when there are none); 0 or -ENOMEM. */
int gmp_report__notes_html(FILE *fp, const struct gmp_symnotes *sn, const struct gmp_source *src);
/* Both as HTML sections (gmprof html). */
int gmp_report__html(FILE *fp, const struct gmp_result *r);

/*
 * The collector's own time in the run (selftime_out.c): the text header's
 * lines (and "collector_time" in the JSON report, gmp_report__json_run);
 * nothing for profiles without it.
 */
void gmp_report__self_time(FILE *fp, const struct gmp_trace *t);
/*
 * The same in words for a row: head ("gmprof on the host: ... (starting
 * ...)") and parts ("patching ... (2 modules), ..."; "" when none).  1,
 * 0 for a profile without it, -1 for a malformed one (say
 * gmp_report__self_time_malformed).
 */
int gmp_report__self_time_words(const struct gmp_trace *t, char *head, size_t hn, char *parts, size_t pn);
extern const char *const gmp_report__self_time_malformed;
/*
 * Where the collector had a capture range (META capture): how many launches
 * it monitored, and how many modules it unpatched after the range (META
 * module_unpatches), into buf (returns 1), or 0 (none).  gmp_report__capture
 * prints it as the report's "capture" line.
 */
int gmp_report__capture_words(const struct gmp_trace *t, char *buf, size_t n);
void gmp_report__capture(FILE *fp, const struct gmp_trace *t);
/*
 * Where graph launches' kernel nodes had their accesses merged (the
 * detector's graph_launches_merged), or ran two or more kernel nodes given
 * their buffers per launch (META graph_shared_launches): what that means
 * for the findings, into buf (returns 1), or 0.  gmp_report__graphs prints
 * it as the "graphs" line.
 */
int gmp_report__graph_words(const struct gmp_result *r, char *buf, size_t n);
/*
 * Memory shared between processes (CUDA IPC): the objects mapped from
 * another process (kind imported) and those this one shared (exported),
 * and what the reports make of them, into buf (returns 1), or 0 (none).
 */
int gmp_report__shared_words(const struct gmp_result *r, char *buf, size_t n);
/*
 * The "graphs" line, a note on the run's tensor maps (gmp_tmaps__words)
 * and the "shared" line (gmp_report__shared_words), where there are.
 */
void gmp_report__graphs(FILE *fp, const struct gmp_result *r);
/*
 * The JSON report's fields of how the collector ran: its device memory and
 * time, launches without access sets or touches, the capture range, the
 * graph launches of gmp_report__graph_words, the tensor maps (META
 * tensor_maps), the objects shared between processes.
 */
void gmp_report__json_run(struct gmp_jw *jw, const struct gmp_result *r);

/* The profile's metadata a report shows about the run, in this order (NULL-terminated). */
extern const char *const gmp_report__run_keys[];
struct gmp_session;
/* The text report's header: the run, its devices, its events, and notes on how it was monitored. */
void gmp_report__header(FILE *fp, struct gmp_session *s);

/* One input's line of the closing table of several reports. */
struct gmp_input_row {
	uint64_t peak, leaked, saving;
	size_t findings;
	uint64_t grew;            /* the most an NVTX range's last time began above its first (0: none) */
	char grew_range[48];      /* that range's path, cut to fit */
	uint64_t mark_grew;       /* the most an NVTX mark name's last mark found above its first (0: none) */
	char grew_mark[48];       /* that name, cut to fit */
};
struct gmp_session;
/* gmprof report --format markdown (report_md.c): one input's report (top 0: at most 50 findings). */
int gmp_report__markdown(FILE *fp, struct gmp_session *s, uint32_t top);

struct gmp_sites;
/*
 * "; the collector recorded the first N" where some allocations that ran out
 * of memory were counted, not recorded (META failed_allocations_unrecorded),
 * else "": a note for a count of them, in buf (64 bytes are enough).
 */
const char *gmp_text__unrecorded(const struct gmp_result *r, char *buf, size_t n);
/* Failed allocation r->failures[i]: what was live, which fixes free memory then. */
void gmp_text__failure(FILE *fp, const struct gmp_result *r, size_t i, struct gmp_sites *sites,
		       const char *indent);
/* "device N: stream-ordered memory pool reserved at most ..." into buf, from device's last pool state: 1, or 0 for none. */
int gmp_text__pool_words(const struct gmp_trace *t, uint32_t device, char *buf, size_t n);
/* The same as a line after indent, if any. */
void gmp_text__pools(FILE *fp, const struct gmp_trace *t, uint32_t device, const char *indent);
/* Under failure f (live bytes then): what the device's pools cached (reserved, in no object), if anything. */
void gmp_text__pool_cache(FILE *fp, const struct gmp_trace *t, const struct gmp_alloc_failure *f, uint64_t live,
			  const char *indent);
/*
 * Prints the findings as readable text (replay's default format): counts,
 * peaks, failed allocations and the top findings (top 0: all; sites NULL:
 * no allocation sites; clock NULL: no waiting times; src NULL: no source lines).
 */
struct gmp_source;
void gmp_text__findings(FILE *fp, const struct gmp_result *r, const char *source, uint32_t top,
			struct gmp_sites *sites, const struct gmp_clock *clock, struct gmp_source *src);

#endif
