/* SPDX-License-Identifier: MIT */
/* The baseline reader's JSON helpers (baseline.c, baseline_marks.c): strict, each error one reason in err. */
#ifndef GMPROF_BASELINE_JSON_H
#define GMPROF_BASELINE_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* msg into err (n bytes); returns -EINVAL. */
int gmp_bj__bad(char *err, size_t n, const char *msg);
/* o's key as a JSON number that is a non-negative integer below 2^53, into *v: 0, or -1. */
int gmp_bj__u64(const cJSON *o, const char *key, uint64_t *v);
/* 0, or -EINVAL naming (in err) the first key of o that keys[0..n) lacks. */
int gmp_bj__only_keys(const cJSON *o, const char *const *keys, size_t n, char *err, size_t errn);

#endif
