// SPDX-License-Identifier: MIT
/*
 * Tensor maps in the test double (GMP_DOUBLE_TENSORMAP, double_calls.h):
 * the program encodes a map over an object through the driver API, and
 * passes it by value to a kernel whose copies through it (the tensor
 * memory accelerator's) call no patch.  The map's 128 bytes are made up:
 * only the driver reads them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "double_calls.h"

static struct {
	uint64_t at; /* 0: no map */
	const char *kernel, *api;
	int extra, cache;
	unsigned long others;
	int others_first;
} cfg;

/* The map, once encoded: its bytes (read by every launch that takes it). */
static _Alignas(128) uint64_t map[16];
static int made; /* atomic */

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

static void read_cfg_once(void)
{
	const char *v = getenv("GMP_DOUBLE_TENSORMAP"), *x = getenv("GMP_DOUBLE_TENSORMAP_EXTRA"),
		   *c = getenv("GMP_DOUBLE_TENSORMAP_CACHE"), *o = getenv("GMP_DOUBLE_TENSORMAP_OTHERS");
	cfg.at = v && *v ? strtoull(v, NULL, 0) : 0;
	cfg.kernel = getenv("GMP_DOUBLE_TENSORMAP_KERNEL");
	cfg.api = getenv("GMP_DOUBLE_TENSORMAP_API");
	cfg.extra = x && *x == '1';
	cfg.cache = c && *c == '1';
	cfg.others = o && *o ? strtoul(o, NULL, 0) : 0;
	o = getenv("GMP_DOUBLE_TENSORMAP_OTHERS_FIRST");
	cfg.others_first = o && *o == '1';
}

/* Every replaying thread of fake_app comes here: the first reads the environment, once. */
static void read_cfg(void)
{
	if (pthread_once(&cfg_once, read_cfg_once))
		abort();
}

static void encode_into(uint64_t m[16], uint64_t addr)
{
	m[0] = 0x70616d726f736e65ull; /* the made-up encoding: a tag, the address, a pattern of it */
	m[1] = addr;
	for (int i = 2; i < 16; i++)
		m[i] = addr * (uint64_t)(2 * i + 1);
}

static void encode(uint64_t addr)
{
	encode_into(map, addr);
}

/* GMP_DOUBLE_TENSORMAP_OTHERS=N: N maps more, each over its own address in no object, passed to no kernel. */
static void encode_others(void)
{
	static _Alignas(128) uint64_t other[16];
	for (unsigned long k = 0; k < cfg.others; k++) {
		struct { void *map; uint32_t type, rank; uint64_t addr, rest[8]; } enc = { other, 7, 1, 0, { 0 } };
		enc.addr = 0x7f0000000000ull + k * 4096;
		encode_into(other, enc.addr);
		double_api_call("cuTensorMapEncodeTiled", &enc, 0);
	}
}

void double_tensormap(uint64_t addr)
{
	read_cfg();
	if (!cfg.at || addr != cfg.at)
		return;
	if (cfg.cache && __atomic_load_n(&made, __ATOMIC_ACQUIRE))
		return; /* the program keeps the map it made over this address (cached by pointer and sizes) */
	if (cfg.others_first)
		encode_others();
	/* cuTensorMapEncodeTiled(map, type, rank, address, dims, strides, box, ...): the call writes the map. */
	struct { void *map; uint32_t type, rank; uint64_t addr, rest[8]; } enc = { map, 7, 1, addr, { 0 } };
	if (cfg.api && !strcmp(cfg.api, "replace")) {
		static char host[256];
		enc.addr = (uint64_t)(uintptr_t)host;
		encode(enc.addr);
		double_api_call("cuTensorMapEncodeTiled", &enc, 0);
		struct { void *map; uint64_t addr; } rep = { map, addr };
		encode(addr);
		double_api_call("cuTensorMapReplaceAddress", &rep, 0);
	} else {
		encode(addr);
		double_api_call("cuTensorMapEncodeTiled", &enc, 0);
	}
	if (!cfg.others_first)
		encode_others();
	__atomic_store_n(&made, 1, __ATOMIC_RELEASE);
}

void double_tensormap_params(const char *kernel, const char *name, void **params)
{
	read_cfg();
	if (!__atomic_load_n(&made, __ATOMIC_ACQUIRE) || (cfg.kernel && (!kernel || strcmp(cfg.kernel, kernel))))
		return;
	/* Two parameters: a pointer, then a struct with the map at offset 128 (fake_app's cuFuncGetParamInfo). */
	static __thread uint64_t first;
	static __thread _Alignas(128) unsigned char second[384];
	static __thread _Alignas(128) unsigned char packed[512]; /* both, packed: the struct at offset 128 */
	static __thread size_t packed_size;
	static __thread void *kp[2], *extra[5];
	memset(second, 0x5a, sizeof(second));
	memcpy(second + 128, map, sizeof(map));
	kp[0] = &first;
	kp[1] = second;
	const int ex = strstr(name, "Ex") != NULL, coop = strstr(name, "Cooperative") != NULL;
	if (cfg.extra && !coop) { /* cuLaunchCooperativeKernel takes no extra */
		memset(packed, 0, sizeof(packed));
		memcpy(packed + 128, second, sizeof(second));
		packed_size = sizeof(packed);
		extra[0] = (void *)1; /* CU_LAUNCH_PARAM_BUFFER_POINTER */
		extra[1] = packed;
		extra[2] = (void *)2; /* CU_LAUNCH_PARAM_BUFFER_SIZE */
		extra[3] = &packed_size;
		extra[4] = NULL;      /* CU_LAUNCH_PARAM_END */
		params[ex ? 3 : 7] = extra;
	} else {
		params[ex ? 2 : 6] = kp;
	}
}
