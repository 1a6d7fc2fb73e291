/* SPDX-License-Identifier: MIT */
/*
 * Byte-level codecs of the profile format: LEB128 varints, little-endian
 * words and CRC-32C.  A decoder never reads past its end; it sets
 * its error flag instead and returns zeros from then on.
 */
#ifndef GMPROF_CODEC_H
#define GMPROF_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of buf, continuing crc (0 to start); hardware where available. */
uint32_t gmp_crc32(uint32_t crc, const void *buf, size_t len);
/* The same, always on the table-driven path (tests compare the two). */
uint32_t gmp_crc32_portable(uint32_t crc, const void *buf, size_t len);

/* Encodes v at p (at most 10 bytes) and returns the bytes used. */
static inline size_t gmp_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline void gmp_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t gmp_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

struct gmp_dec {
	const uint8_t *p, *end;
	int err;
};

static inline uint64_t gmp_dec_varint(struct gmp_dec *d)
{
	if (d->p < d->end && *d->p < 0x80)
		return *d->p++; /* most fields are small */
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (d->p >= d->end) {
			d->err = 1;
			return 0;
		}
		uint8_t b = *d->p++;
		if (shift == 63 && b > 1) {
			d->err = 1;
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	d->err = 1;
	return 0;
}

/* A varint that must fit in 32 bits. */
static inline uint32_t gmp_dec_u32(struct gmp_dec *d)
{
	uint64_t v = gmp_dec_varint(d);
	if (v > UINT32_MAX) {
		d->err = 1;
		return 0;
	}
	return (uint32_t)v;
}

static inline uint8_t gmp_dec_byte(struct gmp_dec *d)
{
	if (d->p >= d->end) {
		d->err = 1;
		return 0;
	}
	return *d->p++;
}

/* Borrows n bytes; NULL (and err) when fewer remain or an earlier read
 * failed.  A decoder over nothing has NULL pointers, which must not move. */
static inline const uint8_t *gmp_dec_bytes(struct gmp_dec *d, uint64_t n)
{
	if (d->err || (uint64_t)(d->end - d->p) < n) {
		d->err = 1;
		return NULL;
	}
	const uint8_t *r = d->p;
	d->p += n;
	return r;
}

#endif
