// SPDX-License-Identifier: MIT
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
 * profile records.  x86-64 CPUs with SSE4.2 compute it in hardware; the
 * portable path is table-driven, slicing-by-8.  Both give the same values.
 */
#include <pthread.h>

#include "codec.h"

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static int have_hw;

static void init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int s = 1; s < 8; s++)
			table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xff];
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	have_hw = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t crc_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint32_t lo = gmp_get_le32(p) ^ crc, hi = gmp_get_le32(p + 4);
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p,
							 size_t len)
{
	uint64_t c = crc;
	while (len >= 8) {
		uint64_t w = (uint64_t)gmp_get_le32(p) | (uint64_t)gmp_get_le32(p + 4) << 32;
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	uint32_t c32 = (uint32_t)c;
	while (len--)
		c32 = __builtin_ia32_crc32qi(c32, *p++);
	return c32;
}
#endif

uint32_t gmp_crc32(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&table_once, init);
#if defined(__x86_64__) && defined(__GNUC__)
	if (have_hw)
		return ~crc_hw(~crc, buf, len);
#endif
	return ~crc_sw(~crc, buf, len);
}

uint32_t gmp_crc32_portable(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&table_once, init);
	return ~crc_sw(~crc, buf, len);
}
