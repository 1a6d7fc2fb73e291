# SPDX-License-Identifier: MIT
# The collector, driven through the Sanitizer test double: every script
# replayed as Sanitizer callbacks gives the same findings as the script
# itself; both ways of loading; path patterns, no overwrite, no symlink,
# flush on exit, and one-sentence failures.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B" # pool regions reach the collector through NVTX too
# Labels and source locations do not travel through Sanitizer callbacks;
# a pool region's label does, through NVTX (nvtxMemRegionsName).
strip_script() { sed -E '/"kind":"pool_region"/!s/,"label":"[^"]*"//; s/,"at":"[^"]*"//' "$1"; }
strip_json() { grep -v '"at": ' "$1"; }

for s in tests/scripts/*.jsonl; do
	name=$(basename "$s" .jsonl)
	mode=object
	grep -q '"touch"' "$s" && mode=intra
	strip_script "$s" >"$TMPDIR/$name.plain.jsonl"
	"$GMPROF" replay --format json --pretty "$TMPDIR/$name.plain.jsonl" >"$TMPDIR/want.json"
	rm -f "$TMPDIR/$name.gmprof"
	expect_exit 0 "collect $name ($mode mode)" -- env GMPROF_MODE=$mode \
		GMPROF_OUTPUT="$TMPDIR/$name.gmprof" "$FAKE" "$s"
	"$GMPROF" replay --format json --pretty "$TMPDIR/$name.gmprof" >"$TMPDIR/got.json" 2>"$TMPDIR/err"
	strip_json "$TMPDIR/got.json" >"$TMPDIR/got.stripped"
	strip_json "$TMPDIR/want.json" >"$TMPDIR/want.stripped"
	if diff -u "$TMPDIR/want.stripped" "$TMPDIR/got.stripped" >"$TMPDIR/diff"; then
		ok "$name: collected findings equal the script's"
	else
		notok "$name: collected findings equal the script's"; head -40 "$TMPDIR/diff"
	fi
	[ ! -s "$TMPDIR/err" ] && ok "$name: the profile is complete" || notok "$name: the profile is complete: $(cat "$TMPDIR/err")"
done

# An allocation over an object whose free gmprof missed: that object (only
# it) gets a free just before the new allocation, and one line says so.
cat >"$TMPDIR/missed.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"alloc","addr":"0x20000","size":4096}
{"op":"alloc","addr":"0x10800","size":8192}
{"op":"kernel","name":"k","write":["0x10800"]}
{"op":"free","addr":"0x10800"}
{"op":"free","addr":"0x20000"}
{"op":"end"}
J
rm -f "$TMPDIR/missed.gmprof"
expect_exit 0 "a missed free: the program runs" -- env GMPROF_OUTPUT="$TMPDIR/missed.gmprof" "$FAKE" "$TMPDIR/missed.jsonl"
expect_stderr_line "overlaps an object gmprof thought live" "a missed free: one line says so"
"$GMPROF" dump "$TMPDIR/missed.gmprof" | sed -n 's/^{"op":"\([a-z]*\)","addr":"\(0x[0-9a-f]*\)".*/\1 \2/p' >"$TMPDIR/missed.ops"
printf 'alloc 0x10000\nalloc 0x20000\nfree 0x10000\nalloc 0x10800\nfree 0x10800\nfree 0x20000\n' |
	diff -u - "$TMPDIR/missed.ops" >"$TMPDIR/missed.diff" &&
	ok "a missed free: the stale object alone is freed first" || { notok "a missed free"; cat "$TMPDIR/missed.diff"; }

# In-kernel malloc()/free() beyond GMPROF_HEAP_RECORDS per launch: the
# calls that did not fit are counted and said in one line; a free whose
# malloc was lost is skipped, and a malloc over a heap object whose free
# was lost ends that object first, so the profile stays consistent.
cat >"$TMPDIR/heaplost.jsonl" <<'J'
{"op":"kernel","name":"a","stream":1}
{"op":"alloc","addr":"0x900000","size":256,"kind":"device_heap","stream":1}
{"op":"free","addr":"0x900000","stream":1}
{"op":"alloc","addr":"0x910000","size":256,"kind":"device_heap","stream":1}
{"op":"kernel","name":"b","stream":1}
{"op":"alloc","addr":"0x900080","size":64,"kind":"device_heap","stream":1}
{"op":"free","addr":"0x910000","stream":1}
{"op":"sync"}
{"op":"end"}
J
rm -f "$TMPDIR/heaplost.gmprof"
expect_exit 0 "heap records that do not fit: the program runs" -- env GMPROF_HEAP_RECORDS=1 \
	GMPROF_OUTPUT="$TMPDIR/heaplost.gmprof" "$FAKE" "$TMPDIR/heaplost.jsonl"
expect_stderr_line "^gmprof: 3 malloc()/free() calls inside kernels were not recorded (a launch made more than GMPROF_HEAP_RECORDS=1)" \
	"heap records that do not fit: one line counts them"
"$GMPROF" dump "$TMPDIR/heaplost.gmprof" | sed -n 's/^{"op":"\([a-z]*\)","addr":"\(0x[0-9a-f]*\)".*/\1 \2/p' >"$TMPDIR/heaplost.ops"
printf 'alloc 0x900000\nfree 0x900000\nalloc 0x900080\n' | diff -u - "$TMPDIR/heaplost.ops" >"$TMPDIR/heaplost.diff" &&
	ok "heap records that do not fit: the stale object is ended, the unknown free skipped" ||
	{ notok "heap records that do not fit"; cat "$TMPDIR/heaplost.diff"; }
"$GMPROF" dump "$TMPDIR/heaplost.gmprof" | grep -q '^{"op":"meta","key":"device_heap_lost","value":"3"}$' &&
	ok "heap records that do not fit: the profile says how many" || notok "heap records that do not fit: device_heap_lost in the profile"
expect_exit 0 "heap records that do not fit: the profile analyzes" -- "$GMPROF" replay --format json "$TMPDIR/heaplost.gmprof"
expect_stderr_line "^gmprof: warning: 3 malloc()/free() calls inside kernels in '.*heaplost.gmprof' were not recorded (more in a launch than GMPROF_HEAP_RECORDS): a device-heap object may be reported leaked" \
	"heap records that do not fit: the analysis warns that heap objects may be incomplete"
grep -q '"pattern":"memory_leak","object":"obj#2"' "$TMPDIR/out" &&
	ok "heap records that do not fit: the last object is a leak" || notok "heap records that do not fit: $(cat "$TMPDIR/out")"
# GMPROF_HEAP_RECORDS=0: heap calls are not patched, so none are recorded.
rm -f "$TMPDIR/heapoff.gmprof"
expect_exit 0 "heap tracking off" -- env GMPROF_HEAP_RECORDS=0 GMPROF_OUTPUT="$TMPDIR/heapoff.gmprof" "$FAKE" tests/scripts/device_heap.jsonl
"$GMPROF" dump "$TMPDIR/heapoff.gmprof" | grep -q '"kind":"device_heap"' && notok "heap tracking off: no device_heap objects" ||
	ok "heap tracking off: no device_heap objects"

# Object tables cost no host waits: a table changed before each of 20
# launches on stream 1, each table also used by a launch on stream 2, and
# the collector never synchronizes a stream (the program's own sync
# harvests): each stream gets its own copy of each table, uploaded in order.
awk 'BEGIN { print "{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":4096}"
	for (i = 0; i < 20; i++) { a = sprintf("0x%x", 2097152 + i * 65536)
		print "{\"op\":\"alloc\",\"addr\":\"" a "\",\"size\":4096,\"stream\":1}"
		print "{\"op\":\"kernel\",\"name\":\"k\",\"stream\":1,\"write\":[\"" a "\"],\"read\":[\"0x100000\"]}"
		print "{\"op\":\"kernel\",\"name\":\"k2\",\"stream\":2,\"read\":[\"" a "\"]}" }
	print "{\"op\":\"sync\"}" }' >"$TMPDIR/tables.jsonl"
rm -f "$TMPDIR/tables.gmprof"
expect_exit 0 "table per version and stream: the program runs" -- env GMP_DOUBLE_STATS=1 \
	GMPROF_OUTPUT="$TMPDIR/tables.gmprof" "$FAKE" "$TMPDIR/tables.jsonl"
expect_stderr_line "^double: 0 stream syncs, 80 host-to-device copies of [0-9]* bytes, [0-9]* device-to-host copies of [0-9]* bytes, [0-9]* allocations, 0 kernels testing through the L1, [0-9]* bytes held at most, 0 at exit$" \
	"table per version and stream: no stream sync; 40 launch buffers and 20 tables on 2 streams uploaded"
"$GMPROF" replay --format json --pretty "$TMPDIR/tables.gmprof" | grep -v '"at": ' >"$TMPDIR/tables.got"
"$GMPROF" replay --format json --pretty "$TMPDIR/tables.jsonl" | grep -v '"at": ' >"$TMPDIR/tables.want"
[ "$(grep -c '"pattern"' "$TMPDIR/tables.want")" -gt 10 ] && cmp -s "$TMPDIR/tables.got" "$TMPDIR/tables.want" && ok "table per version and stream: the same findings as the script" ||
	notok "table per version and stream: the same findings as the script"
# Table blocks are reused: a program that allocates a buffer, launches
# on it, syncs and frees it, 20 times, gets 20 table versions but
# allocates two table blocks (and one launch buffer): the base, built at
# the first launch, and one for the recent tables (each version's
# becomes a spare for the next one uploaded on its stream, once no launch
# needs it).  The first free is of an object of the base: a tombstone,
# one more copy.  The 20 launches' headers take 4 uploads (a ring of 8 a
# time, the first launch's without a recent table: tests/cli/launch_headers.sh).
awk 'BEGIN { print "{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":4096}"
	for (i = 0; i < 20; i++) { a = sprintf("0x%x", 2097152 + i * 65536)
		print "{\"op\":\"alloc\",\"addr\":\"" a "\",\"size\":4096}"
		print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x100000\"],\"write\":[\"" a "\"]}"
		print "{\"op\":\"sync\"}"
		print "{\"op\":\"free\",\"addr\":\"" a "\"}" } }' >"$TMPDIR/reuse.jsonl"
rm -f "$TMPDIR/reuse.gmprof"
expect_exit 0 "table blocks reused: the program runs" -- env GMP_DOUBLE_STATS=1 \
	GMPROF_OUTPUT="$TMPDIR/reuse.gmprof" "$FAKE" "$TMPDIR/reuse.jsonl"
expect_stderr_line "^double: 0 stream syncs, 25 host-to-device copies of [0-9]* bytes, [0-9]* device-to-host copies of [0-9]* bytes, 3 allocations, .*, 0 at exit$" \
	"table blocks reused: a base, a tombstone, 19 recent tables in 1 block; 3 allocations in all, all freed"
"$GMPROF" replay --format json "$TMPDIR/reuse.gmprof" | grep -v '"at": ' >"$TMPDIR/reuse.got"
"$GMPROF" replay --format json "$TMPDIR/reuse.jsonl" | grep -v '"at": ' >"$TMPDIR/reuse.want"
cmp -s "$TMPDIR/reuse.got" "$TMPDIR/reuse.want" && ok "table blocks reused: the same findings as the script" ||
	notok "table blocks reused: the same findings as the script"
# Two tables (patch_abi.h): with 2000 live objects, a version of the live
# set costs its changes, not a copy of every live object.  80 rounds on two
# streams: a buffer allocated and launched on (most freed again), an object
# of the base freed every even round (a tombstone; past 32 of them the
# base is rebuilt once), and in the next round a buffer allocated inside
# what it was (found in the recent table only if the tombstone was set
# on both streams: else the base's entry would claim it).  Uploaded in all: the base twice per stream (32 KB
# each), small recent tables, tombstones and launch headers (a ring of 8
# per launch here, 896 bytes: the live set changes between launches), under 350 KB,
# where a table of every live object per version and stream would be 160
# of 32 KB (5 MB).  Every launch's reads and writes are the script's, and
# in intra mode every launch's touches.
two='function b(k) { return sprintf("\"0x%x\"", 268435456 + k * 8192) }
	function t(i) { return i % 2 ? sprintf("\"0x%x\"", 268435456 + (3 * i - 2) * 8192 + 1024) : sprintf("\"0x%x\"", 1073741824 + i * 65536) }
	function acc(a, size, rw) { return "{\"addr\":" a ",\"size\":" size ",\"rw\":\"" rw "\"}" }
	BEGIN { for (k = 0; k < 2000; k++) print "{\"op\":\"alloc\",\"addr\":" b(k) ",\"size\":4096}"
		for (i = 0; i < 80; i++) {
			print "{\"op\":\"alloc\",\"addr\":" t(i) ",\"size\":2048}"
			if (touch) {
				x = acc(b(3 * i), 1024, "r"); y = acc(t(i), 2048, "w")
				print "{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[" (i % 2 ? y "," x : x "," y) "],\"stream\":1}"
				x = acc(b(3 * i + 1), 64, "r"); y = acc(t(i), 2048, "r")
				print "{\"op\":\"kernel\",\"name\":\"k2\",\"touch\":[" (i % 2 ? y "," x : x "," y) "],\"stream\":2}"
			} else {
				print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[" b(3 * i) "],\"write\":[" t(i) "],\"stream\":1}"
				print "{\"op\":\"kernel\",\"name\":\"k2\",\"read\":[" (i % 2 ? t(i) "," b(3 * i + 1) : b(3 * i + 1) "," t(i)) "],\"stream\":2}"
			}
			if (i % 2 == 0) print "{\"op\":\"free\",\"addr\":" b(3 * i + 1) "}"
			if (i % 3 || i % 2) print "{\"op\":\"free\",\"addr\":" t(i) "}"
			if (i % 10 == 9) print "{\"op\":\"sync\"}" }
		print "{\"op\":\"sync\"}" }'
awk -v touch=0 "$two" >"$TMPDIR/two.jsonl"
awk -v touch=1 "$two" >"$TMPDIR/twot.jsonl"
rm -f "$TMPDIR/two.gmprof"
expect_exit 0 "two tables: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_OUTPUT="$TMPDIR/two.gmprof" "$FAKE" "$TMPDIR/two.jsonl"
bytes=$(sed -n 's/^double: .* host-to-device copies of \([0-9]*\) bytes.*/\1/p' "$TMPDIR/err")
[ -n "$bytes" ] && [ "$bytes" -gt 64000 ] && [ "$bytes" -lt 350000 ] &&
	ok "two tables: $bytes bytes uploaded for 160 launches over 2000 live objects" ||
	notok "two tables: uploaded bytes: $(cat "$TMPDIR/err")"
same_kernels "two tables: every launch's reads and writes as the script has them" "$TMPDIR/two.gmprof" "$TMPDIR/two.jsonl" 160
rm -f "$TMPDIR/twot.gmprof"
expect_exit 0 "two tables, intra mode: the program runs" -- env GMPROF_MODE=intra GMPROF_OUTPUT="$TMPDIR/twot.gmprof" "$FAKE" "$TMPDIR/twot.jsonl"
same_kernels "two tables, intra mode: every launch's touches as the script has them" "$TMPDIR/twot.gmprof" \
	"$TMPDIR/twot.jsonl" 160 touches
# Launch buffers in flight are bounded: each has a hit word per live
# object (400 KB with 80000), and 250 launches before the program's one
# sync would hold 100 MB of device memory; past 32 MiB the oldest launches
# are collected first (a stream wait), and every launch's reads are still
# the script's.
awk 'BEGIN { for (k = 0; k < 80000; k++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":256}\n", 268435456 + k * 512
	for (i = 0; i < 250; i++) printf "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x%x\"]}\n", 268435456 + i * 512
	print "{\"op\":\"sync\"}" }' >"$TMPDIR/bufs.jsonl"
rm -f "$TMPDIR/bufs.gmprof"
expect_exit 0 "launch buffers bounded: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_OUTPUT="$TMPDIR/bufs.gmprof" "$FAKE" "$TMPDIR/bufs.jsonl"
held=$(sed -n 's/^double: \([0-9]*\) stream syncs, .* \([0-9]*\) bytes held at most.*/\1 \2/p' "$TMPDIR/err")
[ -n "$held" ] && [ "${held% *}" -ge 1 ] && [ "${held#* }" -lt 40000000 ] &&
	ok "launch buffers bounded: ${held% *} stream waits, ${held#* } bytes held at most" ||
	notok "launch buffers bounded: $(cat "$TMPDIR/err")"
same_kernels "launch buffers bounded: every launch's reads as the script has them" "$TMPDIR/bufs.gmprof" \
	"$TMPDIR/bufs.jsonl" 250
# GMPROF_PATCH_HINTS=1: launch buffers carry per-instruction records (the
# double's patches use them lane by lane, an instruction per access of the
# script; tests/unit/test_warp.cpp checks the device code with them, and
# the device function for them): the same findings, in object and intra
# mode, and global accesses patched to the records' own device function.
for m in object intra; do
	rm -f "$TMPDIR/hints.gmprof" "$TMPDIR/plain.gmprof"
	env GMPROF_PATCH_HINTS=1 GMP_DOUBLE_PATCHES=1 GMPROF_MODE=$m GMPROF_OUTPUT="$TMPDIR/hints.gmprof" "$FAKE" \
		tests/scripts/intra_patterns.jsonl 2>"$TMPDIR/hints.err"
	plain=gmp_patch_global_access
	[ "$m" = object ] && plain=gmp_patch_global_access_object # object mode's own
	grep -q "^double: instruction [0-9]* patched to gmp_patch_global_access_records$" "$TMPDIR/hints.err" &&
		env GMP_DOUBLE_PATCHES=1 GMPROF_MODE=$m GMPROF_OUTPUT="$TMPDIR/plain.gmprof" "$FAKE" tests/scripts/intra_patterns.jsonl 2>&1 |
		grep -q "^double: instruction [0-9]* patched to $plain$" &&
		ok "GMPROF_PATCH_HINTS=1 ($m mode): global accesses call gmp_patch_global_access_records, else $plain" ||
		notok "GMPROF_PATCH_HINTS=1 ($m mode): $(grep patched "$TMPDIR/hints.err")"
	"$GMPROF" replay --format json "$TMPDIR/hints.gmprof" >"$TMPDIR/hints.got" 2>&1
	rm -f "$TMPDIR/nohints.gmprof"
	env GMPROF_MODE=$m GMPROF_OUTPUT="$TMPDIR/nohints.gmprof" "$FAKE" tests/scripts/intra_patterns.jsonl
	"$GMPROF" replay --format json "$TMPDIR/nohints.gmprof" >"$TMPDIR/nohints.got" 2>&1
	cmp -s "$TMPDIR/hints.got" "$TMPDIR/nohints.got" && grep -q '"pattern"' "$TMPDIR/hints.got" &&
		ok "GMPROF_PATCH_HINTS=1 ($m mode): the same findings" || notok "GMPROF_PATCH_HINTS=1 ($m mode): the same findings"
done
# Bulk copies (cp.async.bulk) call functions of their own.
for cb in "30 gmp_patch_bulk_load" "35 gmp_patch_bulk_store" "37 gmp_patch_bulk_reduce"; do
	grep -q "^double: instruction ${cb% *} patched to ${cb#* }$" "$TMPDIR/hints.err" &&
		ok "bulk copies: instruction ${cb% *} calls ${cb#* }" || notok "bulk copies: $(grep patched "$TMPDIR/hints.err")"
done
# GMPROF_FALLBACK=object-callback: object mode patches the function for every mode, with the same findings.
rm -f "$TMPDIR/objcb.gmprof" "$TMPDIR/obj.gmprof"
env GMPROF_FALLBACK=object-callback GMP_DOUBLE_PATCHES=1 GMPROF_OUTPUT="$TMPDIR/objcb.gmprof" "$FAKE" \
	tests/scripts/intra_patterns.jsonl 2>"$TMPDIR/objcb.err"
env GMP_DOUBLE_PATCHES=1 GMPROF_OUTPUT="$TMPDIR/obj.gmprof" "$FAKE" tests/scripts/intra_patterns.jsonl 2>"$TMPDIR/obj.err"
"$GMPROF" replay --format json "$TMPDIR/objcb.gmprof" >"$TMPDIR/objcb.got" 2>&1
grep -q "^double: instruction [0-9]* patched to gmp_patch_memcpy_async_object$" "$TMPDIR/obj.err" &&
	grep -q "^double: instruction [0-9]* patched to gmp_patch_memcpy_async$" "$TMPDIR/objcb.err" &&
	ok "object mode: cp.async calls gmp_patch_memcpy_async_object; under the fallback, the plain one" ||
	notok "cp.async callbacks: $(grep memcpy "$TMPDIR/obj.err" "$TMPDIR/objcb.err")"
grep -q "^double: instruction [0-9]* patched to gmp_patch_global_access$" "$TMPDIR/objcb.err" &&
	"$GMPROF" replay --format json "$TMPDIR/obj.gmprof" 2>&1 | cmp -s - "$TMPDIR/objcb.got" &&
	grep -q '"pattern"' "$TMPDIR/objcb.got" &&
	ok "GMPROF_FALLBACK=object-callback: object mode calls gmp_patch_global_access, the same findings" ||
	notok "GMPROF_FALLBACK=object-callback: $(grep patched "$TMPDIR/objcb.err")"
# The hit list: what a launch touched is read from its list of first
# touches, not from every live object's hit word.  700 live objects; "few"
# lists 3, "some" 150, "most" 1200, more than the list holds (1024 for
# 700 objects): its 700 hit words are read instead.  The lists, and the
# count of the heap records their kernels made, are in pinned host memory,
# read after the sync with no copy: one copy in all, of 700 x 4 bytes,
# where reading every hit word would take 3 x 700 x 4 and more.  Under
# GMPROF_FALLBACK=device-lists the lists are on the device, read with the
# header: "few" in one copy, "some" in two (the items past the first 64),
# five copies of 3 x (112 + 64 x 4) + (150 - 64) x 4 + 700 x 4 bytes; the
# same without sanitizerAllocHost (an older Sanitizer), said once.
awk 'function a(k) { return sprintf("\"0x%x\"", 65536 + k * 4096) }
	function ids(from, to, step,   k, s) { for (k = from; k < to; k += step) s = s (s == "" ? "" : ",") a(k); return s }
	BEGIN { for (k = 0; k < 700; k++) print "{\"op\":\"alloc\",\"addr\":" a(k) ",\"size\":4096}"
		print "{\"op\":\"kernel\",\"name\":\"few\",\"read\":[" ids(10, 13, 1) "]}"
		print "{\"op\":\"kernel\",\"name\":\"some\",\"read\":[" ids(0, 200, 2) "],\"write\":[" ids(1, 100, 2) "]}"
		print "{\"op\":\"kernel\",\"name\":\"most\",\"read\":[" ids(0, 600, 1) "],\"write\":[" ids(100, 700, 1) "]}"
		print "{\"op\":\"sync\"}"
		for (k = 0; k < 700; k++) print "{\"op\":\"free\",\"addr\":" a(k) "}" }' >"$TMPDIR/list.jsonl"
rm -f "$TMPDIR/list.gmprof"
expect_exit 0 "hit list: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_OUTPUT="$TMPDIR/list.gmprof" "$FAKE" "$TMPDIR/list.jsonl"
expect_stderr_line "^double: 0 stream syncs, [0-9]* host-to-device copies of [0-9]* bytes, 1 device-to-host copies of 2800 bytes, " \
	"hit list: 1 read-back of 2800 bytes for 3 launches over 700 objects"
same_kernels "hit list: every launch's reads and writes as the script has them (listed, overflowed)" \
	"$TMPDIR/list.gmprof" "$TMPDIR/list.jsonl" 3
for v in "GMPROF_FALLBACK=device-lists" "GMP_DOUBLE_NO_ALLOC_HOST=1"; do
	rm -f "$TMPDIR/list.dev.gmprof"
	expect_exit 0 "hit list, $v: the program runs" -- env GMP_DOUBLE_STATS=4 "$v" GMPROF_OUTPUT="$TMPDIR/list.dev.gmprof" \
		"$FAKE" "$TMPDIR/list.jsonl"
	grep -q "^double: 0 stream syncs, [0-9]* host-to-device copies of [0-9]* bytes, 5 device-to-host copies of 4248 bytes, .*, 0 pinned host blocks, 0 freed$" "$TMPDIR/err" &&
		ok "hit list, $v: on the device, 5 read-backs of 4248 bytes" || notok "hit list, $v: $(cat "$TMPDIR/err")"
	n=$(grep -c 'cannot allocate pinned host memory for a launch.s hit list (out of memory): hit lists are read back from the device' "$TMPDIR/err")
	[ "$n" = "$([ "$v" = GMP_DOUBLE_NO_ALLOC_HOST=1 ] && echo 1 || echo 0)" ] && ok "hit list, $v: said once where it failed" ||
		notok "hit list, $v: said $n times"
	same_kernels "hit list, $v: every launch's reads and writes as the script has them (listed, listed past the first copy, overflowed)" \
		"$TMPDIR/list.dev.gmprof" "$TMPDIR/list.jsonl" 3
done
rm -f "$TMPDIR/list.gmprof"
env GMP_DOUBLE_STATS=4 GMPROF_OUTPUT="$TMPDIR/list.gmprof" "$FAKE" "$TMPDIR/list.jsonl" 2>"$TMPDIR/err" >/dev/null
grep -q ", 0 at exit, \([1-9][0-9]*\) pinned host blocks, \1 freed$" "$TMPDIR/err" &&
	ok "hit list: every pinned host block freed" || notok "hit list: pinned host blocks: $(cat "$TMPDIR/err")"
# GMPROF_FALLBACK: each mechanism not yet run on a GPU gives way to the
# simpler one before it, with the same results (what gpu-check tries when
# a program's findings differ).  hit-list: every launch's 700 hit words are
# read, 3 x 700 x 4 bytes in 3 copies (no header: the counts are in host memory).
rm -f "$TMPDIR/list.fb.gmprof"
expect_exit 0 "GMPROF_FALLBACK=hit-list: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_FALLBACK=hit-list \
	GMPROF_OUTPUT="$TMPDIR/list.fb.gmprof" "$FAKE" "$TMPDIR/list.jsonl"
expect_stderr_line "^double: 0 stream syncs, [0-9]* host-to-device copies of [0-9]* bytes, 3 device-to-host copies of 8400 bytes, " \
	"  ... every launch's hit words read: 3 read-backs of 8400 bytes"
same_kernels "  ... every launch's reads and writes as the script has them" "$TMPDIR/list.fb.gmprof" "$TMPDIR/list.jsonl" 3
"$GMPROF" report "$TMPDIR/list.fb.gmprof" | grep -q '^  fallback hit-list$' && ok "  ... the report says how it was collected" ||
	notok "  ... the report says how it was collected"
# reuse_under FB COPIES ALLOCATIONS WHAT: the table-reuse script under
# GMPROF_FALLBACK=FB makes COPIES uploads and ALLOCATIONS device
# allocations, all freed, and every launch's reads and writes are the script's.
reuse_under() {
	rm -f "$TMPDIR/reuse.fb.gmprof"
	expect_exit 0 "GMPROF_FALLBACK=$1: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_FALLBACK="$1" \
		GMPROF_OUTPUT="$TMPDIR/reuse.fb.gmprof" "$FAKE" "$TMPDIR/reuse.jsonl"
	expect_stderr_line "^double: 0 stream syncs, $2 host-to-device copies of [0-9]* bytes, [0-9]* device-to-host copies of [0-9]* bytes, $3 allocations, .*, 0 at exit$" \
		"  ... $4"
	same_kernels "  ... every launch's reads and writes as the script has them" "$TMPDIR/reuse.fb.gmprof" "$TMPDIR/reuse.jsonl" 20
}
# table-reuse: a table block per version, each freed.
reuse_under table-reuse 41 21 "a base, a tombstone, 19 recent tables in 19 blocks; 21 allocations in all, all freed"
"$GMPROF" replay --format json "$TMPDIR/reuse.fb.gmprof" | grep -v '"at": ' >"$TMPDIR/reuse.fb.got"
cmp -s "$TMPDIR/reuse.fb.got" "$TMPDIR/reuse.want" && ok "  ... the same findings as the script" || notok "  ... the same findings as the script"
# launch-headers: each launch's header uploaded (20), not 8 at a time (4 uploads by default, above).
reuse_under launch-headers 41 3 "21 copies of tables and 20 of headers; 3 allocations, all freed"
# two-tables: a whole table of the live set per version and stream.
rm -f "$TMPDIR/two.fb.gmprof"
expect_exit 0 "GMPROF_FALLBACK=two-tables: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_FALLBACK=two-tables \
	GMPROF_OUTPUT="$TMPDIR/two.fb.gmprof" "$FAKE" "$TMPDIR/two.jsonl"
bytes=$(sed -n 's/^double: .* host-to-device copies of \([0-9]*\) bytes.*/\1/p' "$TMPDIR/err")
[ -n "$bytes" ] && [ "$bytes" -gt 4000000 ] && ok "  ... a whole table per version and stream: $bytes bytes uploaded" ||
	notok "  ... uploaded bytes: $(cat "$TMPDIR/err")"
same_kernels "  ... every launch's reads and writes as the script has them" "$TMPDIR/two.fb.gmprof" "$TMPDIR/two.jsonl" 160
rm -f "$TMPDIR/twot.fb.gmprof"
expect_exit 0 "GMPROF_FALLBACK=all, intra mode: the program runs" -- env GMPROF_FALLBACK=all GMPROF_MODE=intra \
	GMPROF_OUTPUT="$TMPDIR/twot.fb.gmprof" "$FAKE" "$TMPDIR/twot.jsonl"
same_kernels "  ... every launch's touches as the script has them" "$TMPDIR/twot.fb.gmprof" "$TMPDIR/twot.jsonl" 160 touches
"$GMPROF" report "$TMPDIR/twot.fb.gmprof" | grep -q '^  fallback hit-list,two-tables,table-reuse,hit-epochs,object-callback,device-lists,launch-headers,pinned-reads$' &&
	ok "  ... the report names all eight" || notok "  ... the report names all eight"
# Intra mode: launches keep their maps until the program's own syncs (no
# stream wait per launch), and maps blocks come back for later launches: 30
# launches on two streams with a sync every 10 allocate 10 maps blocks and
# 10 launch buffers, then reuse them.
awk 'BEGIN { print "{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":65536}"
	print "{\"op\":\"alloc\",\"addr\":\"0x200000\",\"size\":65536}"
	for (i = 0; i < 30; i++) {
		print "{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":\"0x" (i % 2 ? "1" : "2") \
			"00000\",\"size\":" 1024 * (1 + i % 8) ",\"rw\":\"rw\"}],\"stream\":" 1 + i % 2 "}"
		if (i % 10 == 9) print "{\"op\":\"sync\"}"
	}
	print "{\"op\":\"free\",\"addr\":\"0x100000\"}"; print "{\"op\":\"free\",\"addr\":\"0x200000\"}" }' >"$TMPDIR/maps.jsonl"
rm -f "$TMPDIR/maps.gmprof"
expect_exit 0 "intra maps reused: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=intra \
	GMPROF_OUTPUT="$TMPDIR/maps.gmprof" "$FAKE" "$TMPDIR/maps.jsonl"
expect_stderr_line "^double: 0 stream syncs, [0-9]* host-to-device copies of [0-9]* bytes, [0-9]* device-to-host copies of [0-9]* bytes, 22 allocations, 0 kernels testing through the L1, [0-9]* bytes held at most, 0 at exit$" \
	"intra maps: no stream wait; 22 allocations for 30 launches (2 tables, 10 launch buffers, 10 maps blocks)"
# With no room for maps (GMPROF_MAPS_MB=0), a kernel's launches before its
# first one collected get no maps (khist.c: the first sync's 10, their
# touches unknown), and the later ones maps for what the kernel touched,
# each collecting the one before it (a stream wait); one line says so, and
# replay counts the launches without touches.  The kernel
# touches both objects in the other 20 launches: the findings are still
# the script's.
rm -f "$TMPDIR/maps0.gmprof"
expect_exit 0 "GMPROF_MAPS_MB=0: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=intra GMPROF_MAPS_MB=0 \
	GMPROF_OUTPUT="$TMPDIR/maps0.gmprof" "$FAKE" "$TMPDIR/maps.jsonl"
[ "$(wc -l <"$TMPDIR/err")" -eq 2 ] && grep -q "^double: 1[0-9] stream syncs, " "$TMPDIR/err" &&
	grep -q "^gmprof: intra maps of every live object would take 12.1 KiB per launch: " "$TMPDIR/err" &&
	ok "GMPROF_MAPS_MB=0: a stream wait before most launches with maps; one line on maps" ||
	notok "GMPROF_MAPS_MB=0: stream waits: $(cat "$TMPDIR/err")"
"$GMPROF" replay --format json "$TMPDIR/maps0.gmprof" >"$TMPDIR/maps0.got" 2>"$TMPDIR/err"
expect_stderr_line "^gmprof: warning: 10 intra-mode kernel launches in .* have no recorded touches$" \
	"GMPROF_MAPS_MB=0: the 10 launches before the first sync have no touches"
"$GMPROF" replay --format json "$TMPDIR/maps.gmprof" >"$TMPDIR/maps.got"
"$GMPROF" replay --format json "$TMPDIR/maps.jsonl" >"$TMPDIR/maps.want"
cmp -s "$TMPDIR/maps0.got" "$TMPDIR/maps.want" && ok "GMPROF_MAPS_MB=0: the same findings as the script" ||
	notok "GMPROF_MAPS_MB=0: the same findings as the script"
cmp -s "$TMPDIR/maps.got" "$TMPDIR/maps.want" && ok "intra maps reused: the same findings as the script" ||
	notok "intra maps reused: the same findings as the script"
same_kernels "intra maps reused: every launch's touches as the script has them" "$TMPDIR/maps.gmprof" "$TMPDIR/maps.jsonl" 30 touches
# A reused block keeps its table of maps (an intra_obj per entry) while the
# live set stays: 42 uploads, the 30 launches' headers, the two streams'
# object tables and one table of maps per block (10), not one per launch (62).
expect_exit 0 "intra maps reused, their tables kept: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=intra \
	GMPROF_FORCE=1 GMPROF_OUTPUT="$TMPDIR/maps.gmprof" "$FAKE" "$TMPDIR/maps.jsonl"
expect_stderr_line "^double: 0 stream syncs, 42 host-to-device copies of " "  ... 42 uploads: a table of maps per block, not per launch"
# A block reused after the live set changed gets the new table: the 2nd
# launch's block is the 1st's (smaller maps: C freed), its table has D.
cat >"$TMPDIR/iosnap.jsonl" <<'J'
{"op":"alloc","addr":"0x1000000","size":65536}
{"op":"alloc","addr":"0x2000000","size":65536}
{"op":"alloc","addr":"0x3000000","size":65536}
{"op":"kernel","name":"k","touch":[{"addr":"0x1000000","size":64,"rw":"w"}]}
{"op":"sync"}
{"op":"free","addr":"0x3000000"}
{"op":"alloc","addr":"0x4000000","size":4096}
{"op":"kernel","name":"k","touch":[{"addr":"0x4000000","size":128,"count":2,"rw":"rw"}]}
{"op":"sync"}
{"op":"free","addr":"0x1000000"}
{"op":"free","addr":"0x2000000"}
{"op":"free","addr":"0x4000000"}
J
rm -f "$TMPDIR/iosnap.gmprof"
expect_exit 0 "intra maps reused after the live set changed: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=intra \
	GMPROF_OUTPUT="$TMPDIR/iosnap.gmprof" "$FAKE" "$TMPDIR/iosnap.jsonl"
grep -q "^double: .*, [0-9]* allocations," "$TMPDIR/err" && [ "$(sed -n 's/^double: .*, \([0-9]*\) allocations,.*/\1/p' "$TMPDIR/err")" -le 4 ] &&
	ok "  ... the block reused (at most 4 allocations: a table, a launch buffer, a maps block, the recent table)" ||
	notok "  ... allocations: $(cat "$TMPDIR/err")"
same_kernels "  ... both launches' touches as the script has them" "$TMPDIR/iosnap.gmprof" "$TMPDIR/iosnap.jsonl" 2 touches
# Where maps of every live object would take more than an eighth of
# GMPROF_MAPS_MB (1 MiB here: three objects of 1 MiB take 288 KiB), a
# kernel's launch gets maps only for the objects it touched in launches
# collected before, and those allocated since: k's 2nd launch has maps for
# A only (its touches are exact), its 3rd touches B without maps (its
# touches unknown, its reads known), its 4th has B's, its 5th D's (allocated
# since), and j's first launch every object's.  Every other launch's
# touches are the script's.
cat >"$TMPDIR/khist.jsonl" <<'J'
{"op":"alloc","addr":"0x1000000","size":1048576}
{"op":"alloc","addr":"0x2000000","size":1048576}
{"op":"alloc","addr":"0x3000000","size":1048576}
{"op":"kernel","name":"k","touch":[{"addr":"0x1000000","size":4096,"rw":"r"}]}
{"op":"sync"}
{"op":"kernel","name":"k","touch":[{"addr":"0x1000000","size":4096,"rw":"w"}]}
{"op":"kernel","name":"k","touch":[{"addr":"0x2000000","size":8192,"rw":"r"}]}
{"op":"sync"}
{"op":"kernel","name":"k","touch":[{"addr":"0x2000000","size":8192,"rw":"r"}]}
{"op":"alloc","addr":"0x4000000","size":1048576}
{"op":"kernel","name":"k","touch":[{"addr":"0x4000000","size":1024,"rw":"w"}]}
{"op":"kernel","name":"j","touch":[{"addr":"0x3000000","size":2048,"rw":"r"}]}
{"op":"sync"}
{"op":"free","addr":"0x1000000"}
{"op":"free","addr":"0x2000000"}
{"op":"free","addr":"0x3000000"}
{"op":"free","addr":"0x4000000"}
J
rm -f "$TMPDIR/khist.gmprof"
expect_exit 0 "maps for what kernels touched: the program runs" -- env GMPROF_MODE=intra GMPROF_MAPS_MB=1 \
	GMPROF_OUTPUT="$TMPDIR/khist.gmprof" "$FAKE" "$TMPDIR/khist.jsonl"
expect_stderr_line "^gmprof: intra maps of every live object would take 288.1 KiB per launch: a kernel's launches get maps for the objects it touched before and those allocated since" \
	"maps for what kernels touched: one line says so, with the bytes"
# (The 3rd launch's touches unknown: its reads only.)
sed '7s/.*/{"op":"kernel","name":"k","read":["0x2000000"]}/' "$TMPDIR/khist.jsonl" >"$TMPDIR/khist.want.jsonl"
same_kernels "maps for what kernels touched: every launch's touches as the script has them, but the 3rd's (unknown)" \
	"$TMPDIR/khist.gmprof" "$TMPDIR/khist.want.jsonl" 6 touches
rm -f "$TMPDIR/khist512.gmprof"
env GMPROF_MODE=intra GMPROF_OUTPUT="$TMPDIR/khist512.gmprof" "$FAKE" "$TMPDIR/khist.jsonl" 2>"$TMPDIR/err"
"$GMPROF" dump "$TMPDIR/khist512.gmprof" | grep -c '"touch"' | grep -qx 6 && [ ! -s "$TMPDIR/err" ] &&
	ok "maps for what kernels touched: under an eighth of GMPROF_MAPS_MB (512), every launch has maps for every object" ||
	notok "maps for what kernels touched: under an eighth of GMPROF_MAPS_MB: $(cat "$TMPDIR/err")"
# Maps in flight are bounded by room for 8 launches' maps, at least 64 MiB
# (and at most GMPROF_MAPS_MB): a 96 MiB object's maps take 9 MiB (a bit
# per 4 bytes, a counter per 64), so of 20 launches before a sync the 9th
# and the 17th wait for the ones before them (2 stream syncs); a 1 MiB
# object's take 96 KiB, and 100 launches fit in 64 MiB (none).
for shape in "big 100663296 20 2" "small 1048576 100 0"; do
	set -- $shape
	awk -v size="$2" -v n="$3" 'BEGIN { print "{\"op\":\"alloc\",\"addr\":\"0x10000000\",\"size\":" size "}"
		for (i = 0; i < n; i++) print "{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":\"0x10000000\",\"size\":4096,\"rw\":\"r\"}]}"
		print "{\"op\":\"sync\"}"; print "{\"op\":\"free\",\"addr\":\"0x10000000\"}" }' >"$TMPDIR/bound-$1.jsonl"
	rm -f "$TMPDIR/bound-$1.gmprof"
	expect_exit 0 "maps bound, $1 object: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=intra \
		GMPROF_OUTPUT="$TMPDIR/bound-$1.gmprof" "$FAKE" "$TMPDIR/bound-$1.jsonl"
	expect_stderr_line "^double: $4 stream syncs, " "maps bound, $1 object: $4 stream syncs for $3 launches"
	"$GMPROF" replay --format json "$TMPDIR/bound-$1.gmprof" >"$TMPDIR/bound.got"
	"$GMPROF" replay --format json "$TMPDIR/bound-$1.jsonl" >"$TMPDIR/bound.want"
	cmp -s "$TMPDIR/bound.got" "$TMPDIR/bound.want" && ok "maps bound, $1 object: the same findings as the script" ||
		notok "maps bound, $1 object: the same findings as the script"
done
# The device memory gmprof itself holds: what the profile says it held at
# most (META collector_device_peak, the report's header) is what the double
# counted, and it gives all of it back.
for m in object intra; do
	for sc in tests/scripts/figure3.jsonl "$TMPDIR/maps.jsonl"; do
		rm -f "$TMPDIR/own.gmprof"
		GMP_DOUBLE_STATS=1 GMPROF_MODE=$m GMPROF_SUMMARY=0 GMPROF_OUTPUT="$TMPDIR/own.gmprof" "$FAKE" "$sc" \
			>/dev/null 2>"$TMPDIR/own.err"
		held=$(sed -n 's/^double: .*, \([0-9]*\) bytes held at most, 0 at exit$/\1/p' "$TMPDIR/own.err")
		meta=$("$GMPROF" dump "$TMPDIR/own.gmprof" | sed -n 's/^{"op":"meta","key":"collector_device_peak","value":"\([0-9]*\)"}$/\1/p')
		[ -n "$held" ] && [ "$held" -gt 0 ] && [ "$held" = "$meta" ] &&
			"$GMPROF" report "$TMPDIR/own.gmprof" | grep -q '^  gmprof   held at most .* of device memory itself' &&
			"$GMPROF" report --format json "$TMPDIR/own.gmprof" | grep -q "\"gmprof_device_peak_bytes\":$held[,}]" &&
			ok "$m mode, $(basename "$sc"): the device memory gmprof held, all given back" ||
			notok "$m, $(basename "$sc"): held '$held', META '$meta': $(cat "$TMPDIR/own.err")"
	done
done
# gmprof run's list of profiles (GMPROF_RUN_MANIFEST): a file per profile,
# naming it; a list that cannot be written is said in one sentence, and the
# profile is written all the same.
mkdir -p "$TMPDIR/list"
rm -f "$TMPDIR/listed.gmprof"
expect_exit 0 "a profile put on gmprof run's list" -- env GMPROF_RUN_MANIFEST="$TMPDIR/list" GMPROF_SUMMARY=0 \
	GMPROF_OUTPUT="$TMPDIR/listed.gmprof" "$FAKE" tests/scripts/figure2.jsonl
[ "$(cat "$TMPDIR"/list/*)" = "$(cd "$TMPDIR" && pwd -P)/listed.gmprof" ] && ok "  ... its absolute path, in a file of its own" ||
	notok "  ... list: $(ls "$TMPDIR/list"): $(cat "$TMPDIR"/list/* 2>/dev/null)"
rm -f "$TMPDIR/listed.gmprof"
expect_exit 0 "a list that cannot be written" -- env GMPROF_RUN_MANIFEST="$TMPDIR/no/such/list" GMPROF_SUMMARY=0 \
	GMPROF_OUTPUT="$TMPDIR/listed.gmprof" "$FAKE" tests/scripts/figure2.jsonl
expect_stderr_line "cannot add the profile .* to gmprof run's list" "  ... one sentence"
[ -s "$TMPDIR/listed.gmprof" ] && ok "  ... and the profile written" || notok "  ... no profile"
# Intra maps that do not fit on the device: the launch streams its accesses
# (said once); records past GMPROF_RECORDS lose the launch's touches (said
# once), and the report counts such launches.
printf '%s\n' '{"op":"alloc","addr":"0x100000","size":65536}' \
	'{"op":"kernel","name":"k","touch":[{"addr":"0x100000","size":256,"count":3,"rw":"r"}]}' \
	'{"op":"kernel","name":"k","touch":[{"addr":"0x100100","size":256,"count":1,"rw":"w"}]}' \
	'{"op":"sync"}' '{"op":"free","addr":"0x100000"}' '{"op":"end"}' >"$TMPDIR/ovf.jsonl"
rm -f "$TMPDIR/ovf.gmprof"
env GMPROF_MODE=intra GMPROF_RECORDS=2 GMPROF_HEAP_RECORDS=0 GMPROF_SUMMARY=0 GMPROF_OUTPUT="$TMPDIR/ovf.gmprof" \
	"$FAKE" --oom-above 4096 "$TMPDIR/ovf.jsonl" 2>"$TMPDIR/ovf.err"
grep -q "intra maps (.*) do not fit on the device: such launches stream" "$TMPDIR/ovf.err" &&
	grep -q "a launch made 3 accesses, more than GMPROF_RECORDS=2" "$TMPDIR/ovf.err" && [ "$(wc -l <"$TMPDIR/ovf.err")" -eq 2 ] &&
	ok "intra maps that do not fit, records that overflow: each said once" || notok "overflow: $(cat "$TMPDIR/ovf.err")"
"$GMPROF" report "$TMPDIR/ovf.gmprof" | grep -q "^  note     1 intra-mode kernel launches have no recorded touches" &&
	ok "  ... and the report counts the launch without touches" || notok "  ... report: $("$GMPROF" report "$TMPDIR/ovf.gmprof" | head -9)"
"$GMPROF" report --format json "$TMPDIR/ovf.gmprof" 2>/dev/null | grep -q '"intra_launches_without_touches":1[,}]' &&
	ok "  ... in JSON too" || notok "  ... JSON: $("$GMPROF" report --format json "$TMPDIR/ovf.gmprof" 2>/dev/null | head -c 300)"
# GMPROF_LOG_CALLBACKS=1: a line per callback outside the API domains, with
# the API it came from and its memory data (and a launch's stream).
printf '{"op":"alloc","addr":"0x100000","size":4096}\n{"op":"kernel","name":"k","write":["0x100000"]}\n{"op":"end"}\n' \
	>"$TMPDIR/logcb.jsonl"
rm -f "$TMPDIR/logcb.gmprof"
GMPROF_LOG_CALLBACKS=1 GMPROF_SUMMARY=0 GMPROF_OUTPUT="$TMPDIR/logcb.gmprof" "$FAKE" "$TMPDIR/logcb.jsonl" 2>"$TMPDIR/logcb.err"
grep -q '^gmprof: callback 3/11 in cudaMalloc address 0x100000 size 4096 flags 0x0$' "$TMPDIR/logcb.err" &&
	grep -q '^gmprof: callback 5/1 in cudaLaunchKernel stream (nil)$' "$TMPDIR/logcb.err" &&
	! grep -v '^gmprof: callback ' "$TMPDIR/logcb.err" | grep -q . &&
	ok "GMPROF_LOG_CALLBACKS=1: the allocation and the launch, with their API" || notok "GMPROF_LOG_CALLBACKS: $(cat "$TMPDIR/logcb.err")"
GMPROF_SUMMARY=0 GMPROF_FORCE=1 GMPROF_OUTPUT="$TMPDIR/logcb.gmprof" "$FAKE" "$TMPDIR/logcb.jsonl" 2>"$TMPDIR/logcb.err"
! grep -q 'callback' "$TMPDIR/logcb.err" && ok "without it, no callback lines" || notok "without GMPROF_LOG_CALLBACKS: $(cat "$TMPDIR/logcb.err")"
# GMPROF_PATCH_LOADS=l1: every monitored launch asks the patches to test
# words through the L1 (object and intra mode alike); what is found is the same.
for m in object intra; do
	rm -f "$TMPDIR/l1.$m.gmprof"
	expect_exit 0 "GMPROF_PATCH_LOADS=l1 ($m): the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=$m \
		GMPROF_PATCH_LOADS=l1 GMPROF_OUTPUT="$TMPDIR/l1.$m.gmprof" "$FAKE" "$TMPDIR/maps.jsonl"
	expect_stderr_line ", 30 kernels testing through the L1, [0-9]* bytes held at most, 0 at exit$" "GMPROF_PATCH_LOADS=l1 ($m): all 30 kernels test through the L1"
	"$GMPROF" replay --format json "$TMPDIR/l1.$m.gmprof" >"$TMPDIR/l1.$m.got"
done
cmp -s "$TMPDIR/l1.intra.got" "$TMPDIR/maps.want" && ok "GMPROF_PATCH_LOADS=l1 (intra): the same findings as the script" ||
	notok "GMPROF_PATCH_LOADS=l1 (intra): the same findings as the script"

# Intra mode with no room for the maps on the "GPU": access records streamed instead.
rm -f "$TMPDIR/oom.gmprof"
expect_exit 0 "intra mode, maps do not fit" -- env GMPROF_MODE=intra GMPROF_RECORDS=1000 GMPROF_OUTPUT="$TMPDIR/oom.gmprof" \
	"$FAKE" --oom-above 65536 tests/scripts/intra_patterns.jsonl
"$GMPROF" replay --format json --pretty "$TMPDIR/oom.gmprof" | strip_json /dev/stdin >"$TMPDIR/got.stripped"
strip_script tests/scripts/intra_patterns.jsonl >"$TMPDIR/p.jsonl"
"$GMPROF" replay --format json --pretty "$TMPDIR/p.jsonl" | strip_json /dev/stdin >"$TMPDIR/want.stripped"
cmp -s "$TMPDIR/got.stripped" "$TMPDIR/want.stripped" && ok "streamed records give the same findings" || notok "streamed records give the same findings"
"$GMPROF" dump "$TMPDIR/oom.gmprof" | grep -q '"touch"' && ok "streamed launches have touches" || notok "streamed launches have touches"

# Object mode: touches are not collected, so intra patterns cannot appear.
rm -f "$TMPDIR/obj.gmprof"
env GMPROF_OUTPUT="$TMPDIR/obj.gmprof" "$FAKE" tests/scripts/intra_patterns.jsonl
"$GMPROF" dump "$TMPDIR/obj.gmprof" | grep -q '"touch"' && notok "object mode records no touches" || ok "object mode records no touches"

# GMPROF_HARVEST=launch (DrGPUM's per-launch serialization) finds the same.
rm -f "$TMPDIR/h.gmprof"
env GMPROF_HARVEST=launch GMPROF_OUTPUT="$TMPDIR/h.gmprof" "$FAKE" tests/scripts/figure3.jsonl
"$GMPROF" replay --format json "$TMPDIR/h.gmprof" >"$TMPDIR/a.json"
"$GMPROF" replay --format json "$TMPDIR/figure3.gmprof" >"$TMPDIR/b.json"
cmp -s "$TMPDIR/a.json" "$TMPDIR/b.json" && ok "per-launch harvest finds the same" || notok "per-launch harvest finds the same"

# LD_PRELOAD loads it too, and it subscribes once.
ASAN_RT=$(${CC:-cc} -print-file-name=libasan.so)
rm -f "$TMPDIR/pre.gmprof"
expect_exit 0 "LD_PRELOAD" -- env LD_PRELOAD="$ASAN_RT $GMPROF_COLLECTOR" \
	GMPROF_OUTPUT="$TMPDIR/pre.gmprof" "$FAKE" --preloaded tests/scripts/figure2.jsonl
"$GMPROF" replay --format json "$TMPDIR/pre.gmprof" >"$TMPDIR/a.json"
"$GMPROF" replay --format json "$TMPDIR/figure2.gmprof" >"$TMPDIR/b.json"
cmp -s "$TMPDIR/a.json" "$TMPDIR/b.json" && ok "preloaded: same findings" || notok "preloaded: same findings"
rm -f "$TMPDIR/both.gmprof"
expect_exit 0 "preloaded and injected: one subscriber" -- env LD_PRELOAD="$ASAN_RT $GMPROF_COLLECTOR" \
	GMPROF_OUTPUT="$TMPDIR/both.gmprof" "$FAKE" tests/scripts/figure2.jsonl
[ -z "$err" ] && ok "no second subscription attempt" || notok "no second subscription attempt: $err"

# Path patterns.
rm -rf "$TMPDIR/pp" && mkdir "$TMPDIR/pp"
env GMPROF_OUTPUT="$TMPDIR/pp/run.%q{JOB}.r%r.%h.%p.gmprof" JOB=nightly SLURM_PROCID=3 \
	"$FAKE" tests/scripts/figure4.jsonl
f=$(ls "$TMPDIR/pp")
case "$f" in run.nightly.r3.$(hostname).[0-9]*.gmprof) ok "pattern %q %r %h %p: $f";; *) notok "pattern %q %r %h %p: $f";; esac
expect_exit 0 "a pattern escaping its directory" -- env GMPROF_OUTPUT="$TMPDIR/pp/%q{X}" X=../evil "$FAKE" tests/scripts/figure4.jsonl
expect_stderr_line "would change the directory" "escape refused in one sentence"
[ ! -e "$TMPDIR/evil" ] && ok "nothing written outside" || notok "nothing written outside"

# No overwrite, no symlink; the program runs on unless told to fail.
cp "$TMPDIR/figure4.gmprof" "$TMPDIR/keep.gmprof"
expect_exit 0 "existing profile: program runs on" -- env GMPROF_OUTPUT="$TMPDIR/keep.gmprof" "$FAKE" tests/scripts/figure2.jsonl
expect_stderr_line "refusing to overwrite" "existing profile: one sentence"
cmp -s "$TMPDIR/keep.gmprof" "$TMPDIR/figure4.gmprof" && ok "existing profile untouched" || notok "existing profile untouched"
expect_exit 2 "existing profile with GMPROF_ON_ERROR=fail" -- env GMPROF_ON_ERROR=fail GMPROF_OUTPUT="$TMPDIR/keep.gmprof" "$FAKE" tests/scripts/figure2.jsonl
expect_exit 0 "GMPROF_FORCE=1 replaces it" -- env GMPROF_FORCE=1 GMPROF_OUTPUT="$TMPDIR/keep.gmprof" "$FAKE" tests/scripts/figure2.jsonl
ln -sf "$TMPDIR/target" "$TMPDIR/link.gmprof"
expect_exit 0 "symlink: program runs on" -- env GMPROF_FORCE=1 GMPROF_OUTPUT="$TMPDIR/link.gmprof" "$FAKE" tests/scripts/figure2.jsonl
expect_stderr_line "refusing to overwrite .* or to follow a symlink" "symlink refused in one sentence"
[ ! -e "$TMPDIR/target" ] && ok "nothing written through the symlink" || notok "nothing written through the symlink"

# Flush on exit, with or without CUDA teardown.
rm -f "$TMPDIR/x.gmprof"
expect_exit 0 "no teardown" -- env GMPROF_OUTPUT="$TMPDIR/x.gmprof" "$FAKE" --no-teardown tests/scripts/simple_multi_copy.jsonl
"$GMPROF" replay "$TMPDIR/x.gmprof" >/dev/null 2>"$TMPDIR/err"
[ ! -s "$TMPDIR/err" ] && ok "exit without teardown: complete profile" || notok "exit without teardown: $(cat "$TMPDIR/err")"
rm -f "$TMPDIR/x.gmprof"
expect_exit 3 "exit() in the middle" -- env GMPROF_OUTPUT="$TMPDIR/x.gmprof" "$FAKE" --die-after 20 exit tests/scripts/simple_multi_copy.jsonl
n=$("$GMPROF" dump "$TMPDIR/x.gmprof" 2>/dev/null | grep -v '"op":"end"\|"op":"meta"' | grep -c '"op"')
[ "$n" -eq 20 ] && ok "exit(): all 20 events written" || notok "exit(): all 20 events written (got $n)"
"$GMPROF" dump "$TMPDIR/x.gmprof" 2>/dev/null | grep -q '"op":"end"' && ok "exit(): the profile is complete" || notok "exit(): the profile is complete"

# Failures: one sentence each.
expect_exit 0 "no Sanitizer library: runs unprofiled" -- env GMPROF_SANITIZER_LIB=/nonexistent/libsanitizer-public.so \
	GMPROF_OUTPUT="$TMPDIR/none.gmprof" "$FAKE" tests/scripts/figure2.jsonl
expect_stderr_line "the Compute Sanitizer library '/nonexistent/libsanitizer-public.so' does not exist; the program runs unprofiled" "no Sanitizer library: one sentence"
[ ! -e "$TMPDIR/none.gmprof" ] && ok "no profile without a library" || notok "no profile without a library"
expect_exit 2 "no Sanitizer library with GMPROF_ON_ERROR=fail" -- env GMPROF_ON_ERROR=fail \
	GMPROF_SANITIZER_LIB=/nonexistent/libsanitizer-public.so "$FAKE" tests/scripts/figure2.jsonl
for bad in GMPROF_MODE=fast GMPROF_DEPTH=0 GMPROF_FLUSH_MS=-1 GMPROF_GRANULARITY=3 GMPROF_KERNELS='(' GMPROF_FORCE=maybe GMPROF_MAPS_MB=lots \
	GMPROF_PATCH_HINTS=maybe GMPROF_PATCH_AT=later GMPROF_API_CALLBACKS=some; do
	var=${bad%%=*}
	expect_exit 0 "bad $var: runs unprofiled" -- env "$bad" GMPROF_OUTPUT="$TMPDIR/bad.gmprof" "$FAKE" tests/scripts/figure2.jsonl
	expect_stderr_line "$var" "bad $var: one sentence naming it"
done
# The exit summary names a C++ kernel as its source does, demangled.
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":4096}' '{"op":"alloc","addr":"0x9000","size":4096}' \
	'{"op":"kernel","name":"_Z10inc_kernelPiPKimi","write":["0x1000"]}' '{"op":"free","addr":"0x1000"}' \
	'{"op":"kernel","name":"_Z10inc_kernelPiPKimi","write":["0x9000"]}' '{"op":"free","addr":"0x9000"}' >"$TMPDIR/cxx.jsonl"
env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/cxx.gmprof" "$FAKE" "$TMPDIR/cxx.jsonl" 2>"$TMPDIR/cxx.err" >/dev/null
grep -q '==gmprof==.*KERNEL inc_kernel(int\*, int const\*, unsigned long, int)' "$TMPDIR/cxx.err" &&
	ok "exit summary: kernel names demangled" || notok "exit summary: $(grep KERNEL "$TMPDIR/cxx.err" | head -1)"
# A framework's caching allocator in the allocations' call paths: the
# program itself, under the name of PyTorch's allocator library, allocates.
mkdir -p "$TMPDIR/torch/lib" && cp "$FAKE" "$TMPDIR/torch/lib/libc10_cuda.so"
GMPROF_OUTPUT="$TMPDIR/torch.gmprof" "$TMPDIR/torch/lib/libc10_cuda.so" tests/scripts/figure2.jsonl 2>/dev/null
"$GMPROF" report --top 1 "$TMPDIR/torch.gmprof" >"$TMPDIR/torch.txt" 2>&1
grep -q "^note: 3 allocations (the largest 1.0 MiB) came from PyTorch's caching allocator: gmprof sees its blocks, .*PYTORCH_NO_CUDA_MEMORY_CACHING=1" "$TMPDIR/torch.txt" &&
	ok "allocations through PyTorch's allocator: the report says what gmprof sees and how to see tensors" ||
	notok "PyTorch's allocator: $(grep -i note "$TMPDIR/torch.txt")"
expect_exit 0 "  ... html" -- "$GMPROF" html -o "$TMPDIR/torch.html" "$TMPDIR/torch.gmprof"
grep -q "PyTorch&#39;s caching allocator\|PyTorch's caching allocator" "$TMPDIR/torch.html" && ok "  ... the page's notes say it" || notok "  ... the page's notes"
GMPROF_OUTPUT="$TMPDIR/app.gmprof" "$FAKE" tests/scripts/figure2.jsonl 2>/dev/null
"$GMPROF" report --top 1 "$TMPDIR/app.gmprof" 2>&1 | grep -q 'caching allocator' && notok "  ... not for the program under its own name" ||
	ok "  ... not for the program under its own name"
finish
