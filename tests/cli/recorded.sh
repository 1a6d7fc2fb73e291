# SPDX-License-Identifier: MIT
# Profiles recorded on a real GPU (tests/data/gpu/, an H100 on 2026-11-23,
# by make gpu-check and make gpu-record): each is analyzed without a GPU and
# must give exactly the findings its program's .expect file names, as it
# did on the GPU; every output is rendered and checked; the bundled binary
# resolves call paths to the program's source lines.
. tests/cli/lib.sh
T=$(dirname "$GMPROF")/tools
D=tests/data/gpu
G=$GMPROF
OUT_DIR=$TMPDIR
. tests/gpu/expect.sh
n=0
for p in "$D"/*.gmprof; do
	[ -e "$p" ] || continue # none: counted below
	name=$(basename "$p" .gmprof)
	exp=$(ls tests/gpu/"$name".expect benchmarks/cuda/"$name".expect 2>/dev/null | head -1)
	if [ -z "$exp" ]; then notok "$name: no .expect file for this recorded profile"; continue; fi
	n=$((n + 1))
	if check "$name" "$p" "$exp"; then ok "$name: findings as on the GPU"; else notok "$name: $(cat "$TMPDIR/$name.diff")"; fi
	if [ -f "tests/gpu/$name.touched" ]; then
		touched_of "$p" | diff -u "tests/gpu/$name.touched" - >"$TMPDIR/$name.touched.diff" &&
			ok "$name: the launches with intra touches as on the GPU" || notok "$name: touches: $(cat "$TMPDIR/$name.touched.diff")"
	fi
	if [ -f "tests/gpu/$name.launches" ]; then
		launches_check "$name" "$p" "tests/gpu/$name.launches" && ok "$name: each launch's accesses as on the GPU" ||
			notok "$name: launches' accesses: $(cat "$TMPDIR/$name.launches.diff")"
	fi
	if [ -f "tests/gpu/$name.waits" ]; then
		waits_check "$name" "$p" "tests/gpu/$name.waits" && ok "$name: waits as on the GPU" ||
			notok "$name: waits: $(cat "$TMPDIR/$name.waits.diff")"
	fi
	if [ -f "tests/gpu/$name.returned.waits" ]; then
		if "$GMPROF" dump "$p" | grep -q '"returned_ns"'; then
			waits_check "$name" "$p" "tests/gpu/$name.returned.waits" && ok "$name: waits bounded by its syncs' returns" ||
				notok "$name: waits by the returns: $(cat "$TMPDIR/$name.waits.diff")"
		else
			echo "# $name: recorded before the collector stamped syncs' returns: $name.returned.waits waits for a new recording"
		fi
	fi
	"$GMPROF" report "$p" >"$TMPDIR/r" 2>"$TMPDIR/err" && ! grep -q INCOMPLETE "$TMPDIR/r" &&
		ok "$name: report, complete" || notok "$name: report: $(cat "$TMPDIR/err")"
	if "$GMPROF" perfetto -o "$TMPDIR/$name.json" --force "$p" 2>"$TMPDIR/err" &&
		"$T/trace_check" "$TMPDIR/$name.json" >"$TMPDIR/tc" 2>&1; then
		ok "$name: Perfetto trace passes the trace checker"
	else
		notok "$name: Perfetto: $(cat "$TMPDIR/err" "$TMPDIR/tc")"
	fi
	"$GMPROF" html -o "$TMPDIR/$name.html" --force "$p" 2>"$TMPDIR/err" && grep -q '<svg' "$TMPDIR/$name.html" &&
		ok "$name: html" || notok "$name: html: $(cat "$TMPDIR/err")"
	"$GMPROF" check --fail-on all --sarif "$TMPDIR/$name.sarif" --junit "$TMPDIR/$name.xml" --force "$p" >/dev/null 2>"$TMPDIR/err"
	rc=$?
	nf=$(wc -l <"$TMPDIR/$name.got")
	if [ "$nf" -eq 0 ]; then want=0; else want=1; fi
	[ "$rc" -eq "$want" ] && ok "$name: check --fail-on all exits $want ($nf findings)" ||
		notok "$name: check exits $rc, want $want: $(cat "$TMPDIR/err")"
	if "$T/sarif_check" "$TMPDIR/$name.sarif" "$nf" >"$TMPDIR/sc" 2>&1; then ok "$name: SARIF checker"; else notok "$name: SARIF: $(cat "$TMPDIR/sc")"; fi
done
[ "$n" -ge 10 ] && ok "$n recorded profiles" || notok "only $n recorded profiles in $D"

# Symbols from the bundled binary: the launch and allocation lines of the source.
S=benchmarks/cuda/simple_multi_copy.cu
"$GMPROF" report --symbols "$D/bin" "$D/simple_multi_copy.gmprof" >"$TMPDIR/smc" 2>"$TMPDIR/err"
launch=$(grep -m1 -o 'KERNEL inc_kernel(int\*, int const\*, unsigned long, int) (stream 0, #1) at [^ ]*' "$TMPDIR/smc" | sed 's/.*:\([0-9]*\)$/\1/')
if [ -n "$launch" ] && sed -n "${launch}p" "$S" | grep -q 'inc_kernel<<<'; then
	ok "a kernel's site is its launch in the source (line $launch), not the toolkit's or nvcc's stub"
else
	notok "the first kernel's site (its name demangled): '$(grep -m1 'KERNEL ' "$TMPDIR/smc")'"
fi
grep -q 'main (.*/benchmarks/cuda/simple_multi_copy.cu:[0-9]*)$' "$TMPDIR/smc" &&
	ok "allocation call paths reach main's line through the inlined helper" ||
	notok "no call path reaches main in $S"
if grep ' at ' "$TMPDIR/smc" | grep -q 'device_functions.h\|cudafe1'; then
	notok "a site points into the toolkit"
else
	ok "no site points into the toolkit or nvcc's stub"
fi
grep -q 'libcudart_static_' "$TMPDIR/smc" && notok "call paths show the static CUDA runtime's internals" ||
	ok "call paths start at the CUDA API (cudaMalloc), not inside the static runtime"
# Eight host threads: each one's events on streams of its own.
threads=$("$GMPROF" dump "$D/multithread.gmprof" | grep '"op":"kernel"' | grep -o '"thread":[0-9]*' | sort -u | wc -l)
[ "$threads" -eq 8 ] && ok "multithread: kernels from 8 host threads" || notok "multithread: kernels from $threads host threads"
# An object-mode report says how to get the intra-object patterns; an intra-mode one does not.
"$GMPROF" report --top 0 "$D/three_mm.gmprof" | grep -qx "  next     intra mode also finds overallocation and access patterns; on the kernels at this profile's peaks: gmprof run --kernels-from $D/three_mm.gmprof -- build/gpu/three_mm" &&
	ok "object mode: the report names the intra run to do next (--kernels-from this profile, its command)" ||
	notok "object mode: the report names the intra run to do next"
"$GMPROF" report --top 0 "$D/intra.gmprof" | grep -q "^  next " && notok "intra mode: no such line" || ok "intra mode: no such line"
"$GMPROF" html -o "$TMPDIR/next.html" "$D/three_mm.gmprof" && grep -q "<dt>next</dt><dd>intra mode also finds .*<code>gmprof run --kernels-from $D/three_mm.gmprof -- build/gpu/three_mm</code>" "$TMPDIR/next.html" &&
	ok "object mode: the HTML report names it too" || notok "object mode: the HTML report names it too"
# A dump keeps the run's metadata ("meta" lines): converted back, the profile
# names the same command, host, pid and mode, and its dump is the same.
"$GMPROF" dump "$D/three_mm.gmprof" >"$TMPDIR/3mm.jsonl"
"$GMPROF" convert -o "$TMPDIR/3mm.gmprof" "$TMPDIR/3mm.jsonl" && "$GMPROF" dump "$TMPDIR/3mm.gmprof" >"$TMPDIR/3mm.again.jsonl"
[ "$(grep -c '^{"op":"meta",' "$TMPDIR/3mm.jsonl")" -ge 5 ] && cmp -s "$TMPDIR/3mm.jsonl" "$TMPDIR/3mm.again.jsonl" &&
	ok "dump -> convert -> dump keeps the run's metadata" || notok "dump -> convert -> dump keeps the run's metadata"
"$GMPROF" report --top 0 "$TMPDIR/3mm.gmprof" | grep -q '^  command  build/gpu/three_mm$' &&
	ok "  ... the report of the converted profile names its command" || notok "  ... the report names its command"

# gpu-check's BENCH_SCALE step (scaled, tests/gpu/expect.sh): a run whose
# kernels repeat their work 3 times must give the same touches, each counted
# 3 times as often.  Stood in for by each recorded intra profile with its
# counts tripled and its addresses moved (another run's allocations).
triple() { # script -> the same with every touch counted 3 times, at other addresses
	perl -pe 'if (/^\{"op":"kernel"/) { s/("addr":"0x[0-9a-f]+","size":\d+)(,"count":(\d+))?/$1 . ",\"count\":" . 3 * ($3 \/\/ 1)/ge } s/"0x7/"0x6/g' "$1"
}
for name in bicg gram_schmidt xsbench_lookup intra; do
	"$GMPROF" dump "$D/$name.gmprof" >"$TMPDIR/$name.x1.jsonl"
	triple "$TMPDIR/$name.x1.jsonl" >"$TMPDIR/$name.x3.jsonl"
	scaled "$TMPDIR/$name.x1.jsonl" "$TMPDIR/$name.x3.jsonl" 3 &&
		ok "$name: tripled counts at other addresses read as the same touches 3 times" ||
		notok "$name: scaled: $(head -5 "$TMPDIR/scaled.diff")"
	! scaled "$TMPDIR/$name.x1.jsonl" "$TMPDIR/$name.x1.jsonl" 3 &&
		ok "  ... counts not tripled: refused" || notok "  ... counts not tripled: accepted"
	# One touch of the last launch counted once more than it should.
	awk '/^\{"op":"kernel".*"count":/ { last = NR } { l[NR] = $0 }
	     END { for (i = 1; i <= NR; i++) { if (i == last) sub(/"count":[0-9]+/, "&1", l[i]); print l[i] } }' \
		"$TMPDIR/$name.x3.jsonl" >"$TMPDIR/$name.off.jsonl"
	! scaled "$TMPDIR/$name.x1.jsonl" "$TMPDIR/$name.off.jsonl" 3 &&
		ok "  ... one count off: refused" || notok "  ... one count off: accepted"
done
! scaled "$D/three_mm.gmprof" "$D/three_mm.gmprof" 1 &&
	ok "scaled: an object-mode profile (no touches) proves nothing, and is refused" ||
	notok "scaled: an object-mode profile was accepted"

# The README's first command, where there is no GPU: the bundled profile's
# report, with main's source lines, and the same as a page and a flame graph.
if sh tests/gpu/have-gpu.sh >/dev/null 2>&1; then
	echo "ok - skipped: make run profiles a program on this machine's GPU"
else
	B=${BUILD:-build}
	rm -f "$B/run/report.html" "$B/run/peak.svg"
	expect_exit 0 "make run without a GPU" -- make -s --no-print-directory BUILD="$B" run
	grep -q "^gmprof: no GPU here; analyzing the bundled $D/simple_multi_copy.gmprof$" "$TMPDIR/out" &&
		grep -q '^  device 0: 256.0 MiB at ALLOC (stream 0, #4) at .*simple_multi_copy.cu:42$' "$TMPDIR/out" &&
		grep -q '^Findings: 11, ranked by' "$TMPDIR/out" && ok "  ... the bundled profile's report, with source lines" ||
		notok "  ... the report: $(head -5 "$TMPDIR/out")"
	grep -q '<h2>Peaks</h2>' "$B/run/report.html" && grep -q '^<?xml ' "$B/run/peak.svg" &&
		grep -q 'cudaMalloc: 128.0 MiB' "$B/run/peak.svg" && ok "  ... and the page and the flame graph it says it wrote" ||
		notok "  ... the page and the flame graph"
fi
finish
