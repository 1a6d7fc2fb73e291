// SPDX-License-Identifier: MIT
/*
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), slicing-by-4.
 * The table is built once, thread-safely, on first use.
 */
#include <pthread.h>

#include "codec.h"

static uint32_t table[4][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int s = 1; s < 4; s++)
			table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xff];
}

uint32_t gmp_crc32(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&table_once, build_table);
	const uint8_t *p = buf;
	crc = ~crc;
	while (len >= 4) {
		crc ^= gmp_get_le32(p);
		crc = table[3][crc & 0xff] ^ table[2][(crc >> 8) & 0xff] ^
		      table[1][(crc >> 16) & 0xff] ^ table[0][crc >> 24];
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
