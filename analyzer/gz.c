// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "gz.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct gz {
	z_stream z;
	FILE *under;
	int failed;
	unsigned char out[1 << 16];
};

static int drain(struct gz *g, int flush)
{
	int rc;
	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -1;
		size_t have = sizeof(g->out) - g->z.avail_out;
		if (have && fwrite(g->out, 1, have, g->under) != have)
			return -1;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
	struct gz *g = cookie;
	if (g->failed)
		return -1;
	g->z.next_in = (unsigned char *)(uintptr_t)buf;
	g->z.avail_in = (uInt)n;
	if (drain(g, Z_NO_FLUSH)) {
		g->failed = 1;
		errno = EIO;
		return -1;
	}
	return (ssize_t)n;
}

static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int bad = g->failed;
	if (!bad) {
		g->z.next_in = NULL;
		g->z.avail_in = 0;
		bad = drain(g, Z_FINISH) != 0;
	}
	deflateEnd(&g->z);
	free(g);
	return bad ? -1 : 0;
}

FILE *gmp_gz__open(FILE *under)
{
	struct gz *g = malloc(sizeof(*g));
	if (!g)
		return NULL;
	memset(&g->z, 0, sizeof(g->z));
	g->under = under;
	g->failed = 0;
	/* 15 + 16: a gzip header; level 6 is zlib's default trade-off. */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	cookie_io_functions_t io = { .write = gz_write, .close = gz_close };
	FILE *fp = fopencookie(g, "w", io);
	if (!fp) {
		deflateEnd(&g->z);
		free(g);
	}
	return fp;
}

int gmp_gz__wanted(const char *path)
{
	size_t n = strlen(path);
	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}
