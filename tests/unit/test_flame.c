// SPDX-License-Identifier: MIT
/*
 * Bytes by call path (analyzer/flame.c): paths merge into one tree; the
 * folded stacks hold, per path, exactly the bytes added at it, in the
 * order of their frames; the SVG draws each frame inside its caller, as
 * wide as its share, on random trees against sums made the slow way.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "support.h"

/* Adds bytes at the path of frames given as "a;b;c". */
static void add_path(struct gmp_flame *f, const char *path, uint64_t bytes)
{
	int64_t v = GMP_FLAME_ROOT;
	char *copy = strdup(path), *save = NULL;
	assert_non_null(copy);
	for (char *fr = strtok_r(copy, ";", &save); fr; fr = strtok_r(NULL, ";", &save)) {
		v = gmp_flame__child(f, (uint32_t)v, fr, strlen(fr));
		assert_true(v > 0);
	}
	free(copy);
	gmp_flame__add(f, (uint32_t)v, bytes);
}

/* What fn writes of f (svg 2: the text tree, width its threshold), as a malloc'd string. */
static char *written(struct gmp_flame *f, int svg, unsigned width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	struct gmp_flame_svg o = { .title = "t <&> \"q\"", .width = width, .standalone = 1 };
	int err = svg == 2 ? gmp_flame__text(f, fp, width) : svg ? gmp_flame__svg(f, fp, &o) : gmp_flame__folded(f, fp);
	assert_int_equal(err, 0);
	assert_int_equal(fclose(fp), 0);
	return buf;
}

static void folded_merges_and_orders(void **state)
{
	(void)state;
	struct gmp_flame *f;
	assert_int_equal(gmp_flame__new(&f), 0);
	add_path(f, "main;b;c", 5);
	add_path(f, "main;b", 3);
	add_path(f, "main;x", 2);
	add_path(f, "alpha", 1);
	add_path(f, "main;b;c", 4);
	add_path(f, "semi;colon;here", 0); /* no bytes: no line, but a node */
	assert_int_equal(gmp_flame__total(f, 0), 15);
	assert_int_equal(gmp_flame__total(f, 1), 0);
	char *out = written(f, 0, 0);
	assert_string_equal(out, "alpha 1\nmain;b 3\nmain;b;c 9\nmain;x 2\n");
	free(out);
	/* A frame's ';' and line breaks would split or end its line. */
	int64_t v = gmp_flame__child(f, GMP_FLAME_ROOT, "f(a;b)\nx", 8);
	assert_true(v > 0);
	assert_int_equal(gmp_flame__child(f, GMP_FLAME_ROOT, "f(a;b)\nx", 8), v);
	gmp_flame__add(f, (uint32_t)v, 7);
	out = written(f, 0, 0);
	assert_non_null(strstr(out, "\nf(a:b) x 7\n"));
	free(out);
	gmp_flame__free(f);
	gmp_flame__free(NULL);
}

/* A random path of 1 to 6 frames over a small alphabet, so that paths share prefixes. */
static void random_path(uint64_t *seed, char *buf)
{
	static const char *const names[] = { "main", "a", "ab", "b", "run(int)", "k<T>", "zz" };
	size_t depth = 1 + ts_rnd(seed) % 6, at = 0;
	for (size_t d = 0; d < depth; d++)
		at += (size_t)sprintf(buf + at, "%s%s", d ? ";" : "", names[ts_rnd(seed) % 7]);
}

struct want {
	char path[64];
	uint64_t bytes;
};

static int cmp_want(const void *a, const void *b)
{
	return strcmp(((const struct want *)a)->path, ((const struct want *)b)->path);
}

static void folded_random(void **state)
{
	(void)state;
	uint64_t seed = 0x5eed;
	for (int round = 0; round < 200; round++) {
		struct gmp_flame *f;
		struct want w[64];
		size_t nw = 0, adds = 1 + ts_rnd(&seed) % 60;
		uint64_t total = 0;
		assert_int_equal(gmp_flame__new(&f), 0);
		for (size_t i = 0; i < adds; i++) {
			char p[64];
			uint64_t bytes = 1 + ts_rnd(&seed) % 1000;
			random_path(&seed, p);
			add_path(f, p, bytes);
			total += bytes;
			size_t k = 0;
			while (k < nw && strcmp(w[k].path, p))
				k++;
			if (k == nw) {
				strcpy(w[nw].path, p);
				w[nw++].bytes = 0;
			}
			w[k].bytes += bytes;
		}
		/* ';' sorts before every letter used, so the joined paths sort as their frames do. */
		qsort(w, nw, sizeof(w[0]), cmp_want);
		char *want = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&want, &len);
		assert_non_null(fp);
		for (size_t k = 0; k < nw; k++)
			fprintf(fp, "%s %llu\n", w[k].path, (unsigned long long)w[k].bytes);
		assert_int_equal(fclose(fp), 0);
		char *got = written(f, 0, 0);
		assert_string_equal(got, want);
		assert_int_equal(gmp_flame__total(f, 0), total);
		free(got);
		free(want);
		gmp_flame__free(f);
	}
}

struct box {
	double x, y, w;
};

/* The rects of an SVG (one per line, as flame.c writes them). */
static size_t rects(const char *svg, struct box *b, size_t max)
{
	size_t n = 0;
	for (const char *p = strstr(svg, "<rect "); p && n < max; p = strstr(p + 1, "<rect ")) {
		assert_int_equal(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", &b[n].x, &b[n].y, &b[n].w), 3);
		n++;
	}
	return n;
}

static void svg_geometry(void **state)
{
	(void)state;
	uint64_t seed = 0xf1a3e;
	for (int round = 0; round < 100; round++) {
		struct gmp_flame *f;
		assert_int_equal(gmp_flame__new(&f), 0);
		size_t adds = 1 + ts_rnd(&seed) % 40, frames = 0;
		for (size_t i = 0; i < adds; i++) {
			char p[64];
			random_path(&seed, p);
			add_path(f, p, 1 + ts_rnd(&seed) % (round % 2 ? 1000000 : 100));
		}
		unsigned width = 200 + (unsigned)(ts_rnd(&seed) % 1200);
		char *svg = written(f, 1, width);
		assert_non_null(strstr(svg, "<title>t &lt;&amp;&gt; &quot;q&quot;</title>"));
		assert_null(strstr(svg, "t <&>"));
		struct box b[512];
		size_t n = rects(svg, b, 512);
		assert_true(n >= 2);
		/*
		 * The root spans the width; every frame lies inside one frame of the
		 * row above: its span does, which ends at most half a pixel (the gap
		 * drawn after each frame) past the rect, give or take the rounding.
		 */
		assert_true(b[0].x == 1 && b[0].w == width - 2);
		for (size_t i = 1; i < n; i++) {
			assert_true(b[i].x >= 1 && b[i].x + b[i].w <= width - 1 + 0.11);
			int inside = 0;
			for (size_t k = 0; k < n && !inside; k++)
				inside = b[k].y == b[i].y - 17 && b[i].x >= b[k].x - 0.11 &&
					 b[i].x + b[i].w <= b[k].x + b[k].w + 0.5 + 0.11;
			assert_true(inside);
			frames++;
		}
		/* Each row's frames do not overlap. */
		for (size_t i = 1; i < n; i++)
			for (size_t k = i + 1; k < n; k++)
				if (b[i].y == b[k].y)
					assert_true(b[i].x + b[i].w <= b[k].x + 0.11 || b[k].x + b[k].w <= b[i].x + 0.11);
		assert_true(frames > 0);
		free(svg);
		gmp_flame__free(f);
	}
}

static void svg_cuts_labels(void **state)
{
	(void)state;
	struct gmp_flame *f;
	assert_int_equal(gmp_flame__new(&f), 0);
	/* Two frames side by side: a long UTF-8 name in a narrow frame is cut on a character. */
	const char *name = "\xc3\xa9t\xc3\xa9_kernel_with_a_rather_long_name(float*, float const*, int)";
	add_path(f, name, 1);
	add_path(f, "wide", 3);
	char *svg = written(f, 1, 200);
	/* The narrow frame is 49.5 pixels: 6 characters of text, the last two "..". */
	assert_non_null(strstr(svg, ">\xc3\xa9t\xc3\xa9_..</text>"));
	/* Its tooltip keeps the whole name, escaped, with the bytes. */
	assert_non_null(strstr(svg, "long_name(float*, float const*, int): 1 B (1 bytes), 25.0%</title>"));
	free(svg);
	gmp_flame__free(f);
	/* Frames under half a pixel are not drawn, but counted. */
	assert_int_equal(gmp_flame__new(&f), 0);
	add_path(f, "big", 1000000);
	add_path(f, "tiny", 1);
	svg = written(f, 1, 1200);
	assert_null(strstr(svg, ">tiny<"));
	assert_null(strstr(svg, "<title>tiny"));
	assert_non_null(strstr(svg, "all: 976.6 KiB (1000001 bytes)"));
	free(svg);
	gmp_flame__free(f);
}

/* Two sides: folded lines carry both, the drawing follows side 1 and colours the change. */
static void differential(void **state)
{
	(void)state;
	struct gmp_flame *f;
	assert_int_equal(gmp_flame__new(&f), 0);
	add_path(f, "main;grows", 100);
	add_path(f, "main;same", 50);
	add_path(f, "main;shrinks", 400);
	add_path(f, "gone", 10);
	gmp_flame__side(f, 1);
	add_path(f, "main;grows", 300);
	add_path(f, "main;same", 50);
	add_path(f, "main;shrinks", 100);
	add_path(f, "new", 100);
	assert_int_equal(gmp_flame__total(f, 0), 560);
	assert_int_equal(gmp_flame__total(f, 1), 550);
	char *out = written(f, 0, 0);
	assert_string_equal(out, "gone 10 0\nmain;grows 100 300\nmain;same 50 50\nmain;shrinks 400 100\nnew 0 100\n");
	free(out);
	out = written(f, 1, 1000);
	/* Widths follow side 1: main holds 450 of 550 bytes, 816.5 of 998 pixels (a half-pixel gap after it). */
	assert_non_null(strstr(out, "<title>main: 550 B before, 450 B after (-100 B, -18.2%)</title><rect x=\"1.0\" y=\"41\" "
				    "width=\"816.0\""));
	/* Colour fades from 225 by 185 times the change over the larger side: grew by 2/3 of 300, red;
	   shrank by 3/4 of 400, blue; unchanged, grey; new, the full red. */
	assert_non_null(strstr(out, "<title>grows: 100 B before, 300 B after (+200 B, +200.0%)</title>"));
	assert_non_null(strstr(out, "fill=\"rgb(255,102,102)\""));
	assert_non_null(strstr(out, "<title>shrinks: 400 B before, 100 B after (-300 B, -75.0%)</title>"));
	assert_non_null(strstr(out, "fill=\"rgb(87,87,255)\""));
	assert_non_null(strstr(out, "<title>same: 50 B before, 50 B after (+0 B, +0.0%)</title>"));
	assert_non_null(strstr(out, "fill=\"rgb(225,225,225)\""));
	assert_non_null(strstr(out, "<title>new: 0 B before, 100 B after (+100 B)</title>"));
	assert_non_null(strstr(out, "fill=\"rgb(255,40,40)\""));
	/* What is gone has no width after: not drawn. */
	assert_null(strstr(out, "<title>gone"));
	free(out);
	gmp_flame__free(f);
}

/* The tree as text: widest first, indented by depth; frames under the threshold counted per caller. */
static void text_tree(void **state)
{
	(void)state;
	struct gmp_flame *f;
	assert_int_equal(gmp_flame__new(&f), 0);
	add_path(f, "main;a", 600);
	add_path(f, "main;b", 300);
	add_path(f, "main;c", 60);
	add_path(f, "main;d", 40);
	char *out = written(f, 2, 1);
	assert_string_equal(out, " 100.0%      1000 B  all\n"
				 " 100.0%      1000 B    main\n"
				 "  60.0%       600 B      a\n"
				 "  30.0%       300 B      b\n"
				 "   6.0%        60 B      c\n"
				 "   4.0%        40 B      d\n");
	free(out);
	out = written(f, 2, 10);
	assert_string_equal(out, " 100.0%      1000 B  all\n"
				 " 100.0%      1000 B    main\n"
				 "  60.0%       600 B      a\n"
				 "  30.0%       300 B      b\n"
				 "  10.0%       100 B      (2 more, each under the threshold)\n");
	free(out);
	/* Differential: before, after, the change; a path gone since is still listed. */
	gmp_flame__side(f, 1);
	add_path(f, "main;a", 200);
	add_path(f, "main;b", 300);
	out = written(f, 2, 1);
	assert_string_equal(out, " 100.0%      1000 B      500 B  -500 B      all\n"
				 " 100.0%      1000 B      500 B  -500 B        main\n"
				 "  60.0%       300 B      300 B  +0 B            b\n"
				 "  40.0%       600 B      200 B  -400 B          a\n"
				 "   0.0%        60 B        0 B  -60 B           c\n"
				 "   0.0%        40 B        0 B  -40 B           d\n");
	free(out);
	gmp_flame__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(folded_merges_and_orders),
		cmocka_unit_test(folded_random),
		cmocka_unit_test(svg_geometry),
		cmocka_unit_test(svg_cuts_labels),
		cmocka_unit_test(differential),
		cmocka_unit_test(text_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
