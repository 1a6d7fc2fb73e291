# SPDX-License-Identifier: MIT
# Pool regions announced with the NVTX memory API, through the real NVTX
# loader (the test double calls nvtxMem* as a caching allocator would):
# whatever order the calls come in, the profile stays consistent.  The
# script-equals-profile checks of tests/scripts/pool_regions*.jsonl are
# in collector.sh.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"
if [ ! -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExtMem.h" ]; then
	echo "ok - skipped: no nvtx3 headers in ${CUDA_HOME:-/usr/local/cuda}/include (the test double has no NVTX)"
	finish
fi

# collect NAME SCRIPT [ENV...]: the profile, its events as "op addr [kind]", and the replay.
collect() {
	name=$1 script=$2
	shift 2
	rm -f "$TMPDIR/$name.gmprof"
	env "$@" GMPROF_OUTPUT="$TMPDIR/$name.gmprof" "$FAKE" "$script" >/dev/null 2>"$TMPDIR/$name.err"
	"$GMPROF" dump "$TMPDIR/$name.gmprof" | awk '/^\{"op":"(alloc|free)"/ {
		split($0, f, "\""); kind = ""
		if (match($0, /"kind":"[a-z_]*"/)) kind = " " substr($0, RSTART + 8, RLENGTH - 9)
		print f[4], f[8] kind }' >"$TMPDIR/$name.ops"
	"$GMPROF" replay "$TMPDIR/$name.gmprof" >"$TMPDIR/$name.replay" 2>&1 &&
		ok "$name: the profile replays" || notok "$name: the profile replays: $(cat "$TMPDIR/$name.replay")"
}
same_ops() { # NAME EXPECTED
	if printf '%s\n' "$2" | diff -u - "$TMPDIR/$1.ops" >"$TMPDIR/diff"; then ok "$1: events"; else
		notok "$1: events"; cat "$TMPDIR/diff"; fi
}

# A pool freed while regions are still registered in it: they end first (from the top).
cat >"$TMPDIR/live.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":65536}
{"op":"alloc","addr":"0x101000","size":4096,"kind":"pool_region"}
{"op":"alloc","addr":"0x102000","size":4096,"kind":"pool_region"}
{"op":"kernel","name":"k","write":["0x102000"]}
{"op":"free","addr":"0x100000"}
{"op":"end"}
J
collect live "$TMPDIR/live.jsonl"
same_ops live "alloc 0x100000
alloc 0x101000 pool_region
alloc 0x102000 pool_region
free 0x102000
free 0x101000
free 0x100000"
# The collector's NVTX calls count among its callbacks in its record of its own
# time: at least one more per region registered than without NVTX.
callbacks_n() { "$GMPROF" dump "$1" | sed -n 's/.*"collector_time".* callbacks=[0-9]*\/\([0-9]*\) .*/\1/p'; }
collect live-no-nvtx "$TMPDIR/live.jsonl" NVTX_INJECTION64_PATH=
with=$(callbacks_n "$TMPDIR/live.gmprof") without=$(callbacks_n "$TMPDIR/live-no-nvtx.gmprof")
[ -n "$with" ] && [ -n "$without" ] && [ "$with" -ge $((without + 2)) ] &&
	ok "live: NVTX calls counted among the collector's callbacks ($with, $without without NVTX)" ||
	notok "live: callbacks with NVTX '$with', without '$without'"
# The same with the allocator resetting its heap before the cudaFree.
collect reset "$TMPDIR/live.jsonl" GMP_DOUBLE_NVTX=reset
same_ops reset "alloc 0x100000
alloc 0x101000 pool_region
alloc 0x102000 pool_region
free 0x101000
free 0x102000
free 0x100000"
[ ! -s "$TMPDIR/reset.err" ] && ok "reset: nothing said" || notok "reset: $(cat "$TMPDIR/reset.err")"

# A region registered over a live one (its unregister was never made): the old one ends, one line says so.
cat >"$TMPDIR/over.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":65536}
{"op":"alloc","addr":"0x100800","size":8192,"kind":"pool_region"}
{"op":"alloc","addr":"0x101000","size":8192,"kind":"pool_region"}
{"op":"kernel","name":"k","write":["0x101000"]}
{"op":"free","addr":"0x101000"}
{"op":"free","addr":"0x100000"}
{"op":"end"}
J
collect over "$TMPDIR/over.jsonl"
same_ops over "alloc 0x100000
alloc 0x100800 pool_region
free 0x100800
alloc 0x101000 pool_region
free 0x101000
free 0x100000"
cp "$TMPDIR/over.err" "$TMPDIR/err"
expect_stderr_line "NVTX region at 0x101000 was registered over a live one" "over: one line says so"

# Regions outside every device allocation are ignored, with one line.
cat >"$TMPDIR/outside.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":4096}
{"op":"alloc","addr":"0x900000","size":4096,"kind":"pool_region"}
{"op":"alloc","addr":"0x100800","size":4096,"kind":"pool_region"}
{"op":"kernel","name":"k","write":["0x100000"]}
{"op":"free","addr":"0x100000"}
{"op":"end"}
J
collect outside "$TMPDIR/outside.jsonl"
same_ops outside "alloc 0x100000
free 0x100000"
cp "$TMPDIR/outside.err" "$TMPDIR/err"
expect_stderr_line "NVTX region \[0x900000, +4096) lies outside every live device allocation" "outside: one line says so"

# A resized region ends and begins again (an object cannot change its size in the profile).
collect resize tests/scripts/pool_regions_intra.jsonl GMP_DOUBLE_NVTX=resize
same_ops resize "alloc 0x400000
alloc 0x400000 pool_region
free 0x400000
alloc 0x400000 pool_region
alloc 0x420000 pool_region
free 0x420000
alloc 0x420000 pool_region
free 0x420000
free 0x400000
free 0x400000"

# Kernels see regions as objects of their own: a launch's accesses name the
# region, or the pool for the gaps between regions (object tables split
# pools), in object and in intra mode.
collect split tests/scripts/pool_regions.jsonl
"$GMPROF" dump "$TMPDIR/split.gmprof" | grep '"name":"gemm"' | grep -q '"read":\["0x110000"\],"write":\["0x121000"\]' &&
	ok "split: a kernel reads a region and writes the pool's gap" || notok "split: $("$GMPROF" dump "$TMPDIR/split.gmprof" | grep gemm)"

# Regions named with nvtxMemRegionsName (by handle with a char string, by
# pointer with a wchar_t string, in turn) take the name as their label: in
# the profile (LABEL records), in the online summary and in every report.
cat >"$TMPDIR/named.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":65536}
{"op":"alloc","addr":"0x101000","size":4096,"kind":"pool_region","label":"weights"}
{"op":"alloc","addr":"0x102000","size":4096,"kind":"pool_region","label":"naïve € 𝛑"}
{"op":"alloc","addr":"0x103000","size":4096,"kind":"pool_region","label":"scratch"}
{"op":"kernel","name":"k","read":["0x101000"],"write":["0x102000"]}
{"op":"sync"}
{"op":"free","addr":"0x103000"}
{"op":"free","addr":"0x102000"}
{"op":"free","addr":"0x101000"}
{"op":"free","addr":"0x100000"}
{"op":"end"}
J
collect named "$TMPDIR/named.jsonl" GMPROF_SUMMARY=1
"$GMPROF" replay --format json "$TMPDIR/named.gmprof" | grep -v '"at": ' >"$TMPDIR/named.got"
"$GMPROF" replay --format json "$TMPDIR/named.jsonl" | grep -v '"at": ' >"$TMPDIR/named.want"
grep -q '"object":"scratch"' "$TMPDIR/named.want" && grep -q '"object":"naïve € 𝛑"' "$TMPDIR/named.want" &&
	cmp -s "$TMPDIR/named.got" "$TMPDIR/named.want" && ok "named regions: the profile's findings name them as the script does" ||
	notok "named regions: $(diff "$TMPDIR/named.want" "$TMPDIR/named.got" | head -5)"
grep -q 'unused_allocation.*scratch' "$TMPDIR/named.err" && ok "named regions: the online summary names them" ||
	notok "named regions, summary: $(cat "$TMPDIR/named.err")"
"$GMPROF" dump "$TMPDIR/named.gmprof" >"$TMPDIR/named.dump" 2>&1 &&
	grep -q '"label":"weights"' "$TMPDIR/named.dump" && ok "named regions: the profile's dump shows the names" ||
	notok "named regions: dump: $(grep 0x101000 "$TMPDIR/named.dump")"

# A heap's name (nvtxMemHeapRegister's message) names its block, the pool.
collect heapname tests/scripts/pool_regions.jsonl GMP_DOUBLE_NVTX=heapnames
"$GMPROF" replay --format json "$TMPDIR/heapname.gmprof" >"$TMPDIR/heapname.json"
grep -q '"object":"pool"' "$TMPDIR/heapname.json" && grep -q '"object":"scratch"' "$TMPDIR/heapname.json" &&
	ok "a heap's name names its pool" || notok "heap name: $(grep -o '"object":"[^"]*"' "$TMPDIR/heapname.json" | sort -u)"
# Heaps and regions named by registered strings (nvtx3's C++ API names them so).
collect regname tests/scripts/pool_regions.jsonl GMP_DOUBLE_NVTX=regnames
"$GMPROF" replay --format json "$TMPDIR/regname.gmprof" >"$TMPDIR/regname.json"
grep -q '"object":"pool"' "$TMPDIR/regname.json" && grep -q '"object":"scratch"' "$TMPDIR/regname.json" &&
	[ ! -s "$TMPDIR/regname.err" ] && ok "  ... and by registered strings, nothing said" ||
	notok "registered names: $(grep -o '"object":"[^"]*"' "$TMPDIR/regname.json" | sort -u) $(cat "$TMPDIR/regname.err")"
collect noheapname tests/scripts/pool_regions.jsonl
"$GMPROF" replay --format json "$TMPDIR/noheapname.gmprof" | grep -q '"object":"pool"' &&
	notok "  ... a heap without a name leaves its pool unnamed" || ok "  ... a heap without a name leaves its pool unnamed"
# Names with control characters (by handle with char, by pointer with wchar_t): each becomes U+FFFD.
cat >"$TMPDIR/ctrl.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":65536}
{"op":"alloc","addr":"0x101000","size":4096,"kind":"pool_region","label":"tab\there"}
{"op":"alloc","addr":"0x102000","size":4096,"kind":"pool_region","label":"bell\u0007"}
{"op":"free","addr":"0x102000"}
{"op":"free","addr":"0x101000"}
{"op":"free","addr":"0x100000"}
{"op":"end"}
J
collect ctrl "$TMPDIR/ctrl.jsonl"
"$GMPROF" replay --format json "$TMPDIR/ctrl.gmprof" >"$TMPDIR/ctrl.json"
grep -q '"object":"tab�here"' "$TMPDIR/ctrl.json" && grep -q '"object":"bell�"' "$TMPDIR/ctrl.json" &&
	ok "named regions: control characters in names become U+FFFD" || notok "control characters: $(cat "$TMPDIR/ctrl.json")"

# The exit summary (when the program runs without gmprof run) says the peak in use too.
env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/sum.gmprof" "$FAKE" tests/scripts/pool_regions.jsonl 2>"$TMPDIR/sum.err" >/dev/null
grep -q '^==gmprof== device 0 peak: 1.0 MiB; in use at most 132.0 KiB$' "$TMPDIR/sum.err" &&
	grep -q '^==gmprof== gmprof held at most .* of device memory itself (not in the peaks)$' "$TMPDIR/sum.err" &&
	grep -q 'saves 4.0 KiB at the peak in use' "$TMPDIR/sum.err" && ok "summary: the peak in use, and a region's saving against it" ||
	notok "summary: $(head -4 "$TMPDIR/sum.err")"

# Preloaded (LD_PRELOAD) instead of injected: NVTX's dlopen of the same path finds the same collector.
ASAN_RT=$(${CC:-cc} -print-file-name=libasan.so)
rm -f "$TMPDIR/pre.gmprof"
expect_exit 0 "preloaded: runs" -- env LD_PRELOAD="$ASAN_RT $GMPROF_COLLECTOR" \
	GMPROF_OUTPUT="$TMPDIR/pre.gmprof" "$FAKE" --preloaded tests/scripts/pool_regions.jsonl
n=$("$GMPROF" dump "$TMPDIR/pre.gmprof" | grep -c '"kind":"pool_region"')
[ "$n" -eq 3 ] && ok "preloaded: the regions are recorded" || notok "preloaded: $n regions"

# Without NVTX_INJECTION64_PATH the program's NVTX calls go nowhere: pools alone.
collect nonvtx tests/scripts/pool_regions.jsonl NVTX_INJECTION64_PATH=
grep -q pool_region "$TMPDIR/nonvtx.ops" && notok "no NVTX tool: no regions" || ok "no NVTX tool: no regions"
finish
