// SPDX-License-Identifier: MIT
/*
 * Memory over time in the reports (the numbers: detector/held.c): how
 * long each finding's memory waited, and per device the bytes live on
 * average over the run and the share of them that waited for a first
 * use, between uses, after the last use, or was never used.  A peak says
 * how much memory a program needs; this says how long it held memory it
 * was not using, which is what allocating buffers later, freeing them
 * sooner, or moving them to the host wins back.  Times are the host's:
 * where the GPU ran calls after the host issued them, each is a range,
 * the least and the most the profile allows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "findings_json.h"
#include "memtime.h"
#include "session.h"

static const char *const wait_words[GMP_WAIT_COUNT] = {
	[GMP_WAIT_BEFORE_FIRST_USE] = "before a first use",
	[GMP_WAIT_BETWEEN_USES] = "between uses",
	[GMP_WAIT_AFTER_LAST_USE] = "after the last use",
	[GMP_WAIT_NEVER_USED] = "never used",
};

static const char *const wait_keys[GMP_WAIT_COUNT] = {
	[GMP_WAIT_BEFORE_FIRST_USE] = "before_first_use",
	[GMP_WAIT_BETWEEN_USES] = "between_uses",
	[GMP_WAIT_AFTER_LAST_USE] = "after_last_use",
	[GMP_WAIT_NEVER_USED] = "never_used",
};

/* "12.0%", or "12.0% to 69.4%" where the two differ once rounded. */
static const char *range_pct(double lo, double hi, double whole, char *buf, size_t n)
{
	double a = whole > 0 ? 100.0 * lo / whole : 0, b = whole > 0 ? 100.0 * hi / whole : 0;
	char x[16], y[16];
	snprintf(x, sizeof(x), "%.1f%%", a);
	snprintf(y, sizeof(y), "%.1f%%", b);
	if (!strcmp(x, y))
		snprintf(buf, n, "%s", x);
	else
		snprintf(buf, n, "%s to %s", x, y);
	return buf;
}

/* Bytes live on average: bytes x ns over the run's ns. */
static uint64_t average(double byte_ns, uint64_t run_ns)
{
	return run_ns ? (uint64_t)(byte_ns / (double)run_ns + 0.5) : 0;
}

/* What a device's numbers leave out, in words ("" when nothing). */
static const char *left_out(const struct gmp_memtime *m, char *buf, size_t n)
{
	*buf = 0;
	if (m->untimed_objects)
		snprintf(buf, n, "%" PRIu64 " object%s with no host time left out", m->untimed_objects,
			 m->untimed_objects == 1 ? "" : "s");
	else if (m->unknown_waiting_objects)
		snprintf(buf, n, "what %" PRIu64 " object%s waited is not all known (a leak's last use, or a call "
			 "with no host time)", m->unknown_waiting_objects, m->unknown_waiting_objects == 1 ? "" : "s");
	return buf;
}

/* The numbers of every device and the run's length; none (nothing to write) without a clock. */
static const struct gmp_memtime *numbers(const struct gmp_clock *c, size_t *n, uint64_t *run)
{
	*n = 0;
	*run = c ? gmp_clock__run_ns(c) : 0;
	return c ? gmp_clock__memtime(c, n) : NULL;
}

int gmp_memtime__text(FILE *fp, const struct gmp_result *r, const struct gmp_clock *c)
{
	size_t n;
	uint64_t run;
	const struct gmp_memtime *m = numbers(c, &n, &run);
	char a[32], b[32], p[48], lo[160];
	if (n)
		fprintf(fp, "\nMemory over time (the host's clock: %s from the first call to the last; a range where "
			"the GPU ran calls later than the host issued them)\n", gmp_human_ns(run, a, sizeof(a)));
	for (size_t d = 0; d < n; d++) {
		fprintf(fp, "  device %u: %s live on average (peak %s); %s of it waiting", m[d].device,
			gmp_human_bytes(average(m[d].held, run), a, sizeof(a)),
			gmp_human_bytes(r->devices[d].peak_bytes, b, sizeof(b)),
			range_pct(m[d].lo_all, m[d].hi_all, m[d].held, p, sizeof(p)));
		const char *sep = ":\n    ";
		for (int k = 0; k < GMP_WAIT_COUNT; k++) {
			if (m[d].hi[k] <= 0)
				continue;
			fprintf(fp, "%s%s %s", sep, wait_words[k], range_pct(m[d].lo[k], m[d].hi[k], m[d].held, p, sizeof(p)));
			sep = ", ";
		}
		if (*left_out(&m[d], lo, sizeof(lo)))
			fprintf(fp, "\n    (%s)", lo);
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}

#define CELLS (5 + GMP_WAIT_COUNT) /* device, live on average, peak, waiting, each kind, left out */

/* A device's row of the Markdown and HTML tables, as words: cell[i] in the columns' order. */
struct row {
	char device[16], average[32], peak[32], waiting[48], kind[GMP_WAIT_COUNT][48], left_out[160];
	const char *cell[CELLS];
};

static void row_of(const struct gmp_result *r, const struct gmp_memtime *m, size_t d, uint64_t run, struct row *w)
{
	snprintf(w->device, sizeof(w->device), "%u", m[d].device);
	gmp_human_bytes(average(m[d].held, run), w->average, sizeof(w->average));
	gmp_human_bytes(r->devices[d].peak_bytes, w->peak, sizeof(w->peak));
	range_pct(m[d].lo_all, m[d].hi_all, m[d].held, w->waiting, sizeof(w->waiting));
	for (int k = 0; k < GMP_WAIT_COUNT; k++)
		range_pct(m[d].lo[k], m[d].hi[k], m[d].held, w->kind[k], sizeof(w->kind[k]));
	left_out(&m[d], w->left_out, sizeof(w->left_out));
	const char *first[] = { w->device, w->average, w->peak, w->waiting };
	for (int i = 0; i < CELLS; i++)
		w->cell[i] = i < 4 ? first[i] : i < 4 + GMP_WAIT_COUNT ? w->kind[i - 4] : w->left_out;
}

static const char *head(int i)
{
	static const char *const h[] = { "device", "live on average", "peak", "waiting" };
	return i < 4 ? h[i] : i < 4 + GMP_WAIT_COUNT ? wait_words[i - 4] : "left out";
}

int gmp_memtime__markdown(FILE *fp, const struct gmp_result *r, const struct gmp_clock *c)
{
	size_t n;
	uint64_t run;
	const struct gmp_memtime *m = numbers(c, &n, &run);
	char a[32];
	if (!n)
		return 0;
	fprintf(fp, "### Memory over time\n\nThe host's clock: %s from the first call to the last; a range where "
		"the GPU ran calls later than the host issued them.\n\n|", gmp_human_ns(run, a, sizeof(a)));
	/* The left-out counts go under the table, as sentences. */
	for (int i = 0; i < CELLS - 1; i++)
		fprintf(fp, " %s |", head(i));
	fputs("\n|", fp);
	for (int i = 0; i < CELLS - 1; i++)
		fputs("---:|", fp);
	fputc('\n', fp);
	struct row w;
	for (size_t d = 0; d < n; d++) {
		row_of(r, m, d, run, &w);
		fputc('|', fp);
		for (int i = 0; i < CELLS - 1; i++)
			fprintf(fp, " %s |", w.cell[i]);
		fputc('\n', fp);
	}
	fputc('\n', fp);
	for (size_t d = 0; d < n; d++)
		if (*left_out(&m[d], w.left_out, sizeof(w.left_out)))
			fprintf(fp, "Device %u: %s.\n\n", m[d].device, w.left_out);
	return ferror(fp) ? -EIO : 0;
}

int gmp_memtime__html(FILE *fp, const struct gmp_result *r, const struct gmp_clock *c)
{
	size_t n;
	uint64_t run;
	const struct gmp_memtime *m = numbers(c, &n, &run);
	char a[32];
	if (!n)
		return 0;
	fprintf(fp, "<h2>Memory over time</h2>\n<p>The host's clock: %s from the first call to the last; a range "
		"where the GPU ran calls later than the host issued them. Waiting: the share of the bytes "
		"live over the run that the findings say waited.</p>\n<table><thead><tr>", gmp_human_ns(run, a, sizeof(a)));
	for (int i = 0; i < CELLS; i++)
		fprintf(fp, "<th>%s</th>", head(i));
	fprintf(fp, "</tr></thead><tbody>\n");
	struct row w;
	for (size_t d = 0; d < n; d++) {
		row_of(r, m, d, run, &w);
		fputs("<tr>", fp);
		for (int i = 0; i < CELLS; i++)
			fprintf(fp, i < CELLS - 1 ? "<td class=\"n\">%s</td>" : "<td>%s</td>", w.cell[i]);
		fputs("</tr>\n", fp);
	}
	fprintf(fp, "</tbody></table>\n");
	return ferror(fp) ? -EIO : 0;
}

static void waiting_json(struct gmp_jw *jw, const char *key, const double *w)
{
	gmp_jw__key(jw, key);
	gmp_jw__obj(jw);
	for (int k = 0; k < GMP_WAIT_COUNT; k++)
		gmp_jw__kdbl(jw, wait_keys[k], w[k] / 1e9, 6);
	gmp_jw__obj_end(jw);
}

int gmp_memtime__json(struct gmp_jw *jw, const struct gmp_clock *c)
{
	size_t n;
	uint64_t run;
	const struct gmp_memtime *m = numbers(c, &n, &run);
	if (!n)
		return 0;
	gmp_jw__key(jw, "memory_over_time");
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "run_ns", run);
	gmp_jw__key(jw, "devices");
	gmp_jw__arr(jw);
	for (size_t d = 0; d < n; d++) {
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "device", m[d].device);
		gmp_jw__ku64(jw, "average_live_bytes", average(m[d].held, run));
		gmp_jw__kdbl(jw, "byte_seconds", m[d].held / 1e9, 6);
		gmp_jw__kdbl(jw, "waiting_min_byte_seconds", m[d].lo_all / 1e9, 6);
		gmp_jw__kdbl(jw, "waiting_max_byte_seconds", m[d].hi_all / 1e9, 6);
		waiting_json(jw, "kind_min_byte_seconds", m[d].lo);
		waiting_json(jw, "kind_max_byte_seconds", m[d].hi);
		gmp_jw__ku64(jw, "untimed_objects", m[d].untimed_objects);
		gmp_jw__ku64(jw, "unknown_waiting_objects", m[d].unknown_waiting_objects);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	gmp_jw__obj_end(jw);
	return 0;
}

int gmp_memtime__average(struct gmp_session *s, uint32_t device, uint64_t *avg)
{
	const struct gmp_clock *c;
	size_t n;
	uint64_t run;
	*avg = 0;
	if (gmp_session__clock(s, &c))
		return -ENOMEM;
	const struct gmp_memtime *m = numbers(c, &n, &run);
	int known = 0;
	for (size_t d = 0; d < n; d++)
		if (m[d].device == device && !m[d].untimed_objects) {
			*avg = average(m[d].held, run);
			known = 1;
		}
	return known;
}
