# SPDX-License-Identifier: MIT
# What can be checked of the GPU tests without a GPU: gmprof's Sanitizer
# declarations still give the layout recorded in tests/gpu/layout.expected
# (which gpu-check compares with the toolkit's), and every GPU test program
# compiles.
. tests/cli/lib.sh
G=$GMPROF OUT_DIR=$TMPDIR
. tests/gpu/expect.sh
cc -std=c11 -D_DEFAULT_SOURCE -Icollector -Itests/gpu -o "$TMPDIR/layout" tests/gpu/layout.c &&
	"$TMPDIR/layout" >"$TMPDIR/layout.txt" && diff -u tests/gpu/layout.expected "$TMPDIR/layout.txt" &&
	ok "declared layout matches tests/gpu/layout.expected" || notok "declared layout matches tests/gpu/layout.expected"
# make gpu-record keeps the profiles of programs with expected findings, not
# those gpu-check wrote under other settings (tests/cli/recorded.sh needs an
# .expect file for each).
mkdir -p "$TMPDIR/rb/gpu"
for n in three_mm three_mm.x2 intra.l1 leak.alloc unused; do
	cp tests/data/gpu/three_mm.gmprof "$TMPDIR/rb/gpu/$n.gmprof"
done
make -s --no-print-directory gpu-record BUILD="$TMPDIR/rb" RECORD_DIR="$TMPDIR/rec" RECORD_BINS= >"$TMPDIR/rec.out" 2>&1
[ "$(cd "$TMPDIR/rec" && ls *.gmprof | tr '\n' ' ')" = "three_mm.gmprof unused.gmprof " ] &&
	ok "gpu-record keeps three_mm and unused, not three_mm.x2, intra.l1, leak.alloc" ||
	notok "gpu-record kept: $(ls "$TMPDIR/rec") ($(cat "$TMPDIR/rec.out"))"
# A .launches file (gpu-check): launches whose accesses name its objects, counted in a recorded profile
# (graph_loop: fill writes x, add reads x and writes y, four launches of the graph).
printf 'obj#1 8\nobj#2 4\nobj#1,obj#2 4\nobj#3 0\nnone 0\n' >"$TMPDIR/loop.launches"
launches_check loop tests/data/gpu/graph_loop.gmprof "$TMPDIR/loop.launches" &&
	ok "launches_check: graph_loop's launches and the objects their accesses name" ||
	notok "launches_check: $(cat "$TMPDIR/loop.launches.diff")"
printf 'obj#2 4\nobj#1,obj#3 0\nnone 1\n' >"$TMPDIR/loop.launches"
! launches_check loop tests/data/gpu/graph_loop.gmprof "$TMPDIR/loop.launches" &&
	[ "$(cat "$TMPDIR/loop.launches.diff")" = "none: 0 launches, want 1" ] &&
	ok "launches_check: a count that differs fails, and says which" ||
	notok "launches_check passed a wrong count: $(cat "$TMPDIR/loop.launches.diff")"
if [ -z "${NVCC:-}" ]; then
	ok "no nvcc: the GPU programs are not compiled here"
	finish
fi
# "PATTERN OBJECT" lines of a script's findings, or "PATTERN *COUNT" where the expect file counts.
model_findings() { # SCRIPT EXPECT
	counts=0
	grep -q '\*' "$2" && counts=1
	"$GMPROF" replay --format json --pretty "$1" | awk -v counts=$counts '
		/"pattern": / { gsub(/[",]/, "", $2); p = $2; c[p]++ }
		/"object": / && p != "" { gsub(/[",]/, "", $2); if (!counts) print p, $2; p = "" }
		END { if (counts) for (k in c) print k, "*" c[k] }' | sort
}
for src in tests/gpu/*.cu; do
	name=$(basename "$src" .cu)
	# shellcheck disable=SC2046 # NAME.nvcc: the flags a program needs besides these (split on purpose)
	"$NVCC" -O0 -o "$TMPDIR/$name" "$src" -lpthread $(cat "tests/gpu/$name.nvcc" 2>/dev/null) >"$TMPDIR/$name.log" 2>&1 &&
		ok "tests/gpu/$name.cu compiles" || { notok "tests/gpu/$name.cu compiles"; cat "$TMPDIR/$name.log"; }
	[ -f "tests/gpu/$name.expect" ] && ok "$name has expected findings" || notok "$name has expected findings"
	# Its child process's model (ipc.cu): the child's expected findings and report lines.
	if [ -f "tests/gpu/$name.child.jsonl" ]; then
		model_findings "tests/gpu/$name.child.jsonl" "tests/gpu/$name.child.expect" |
			diff -u "tests/gpu/$name.child.expect" - >"$TMPDIR/$name.child.diff" &&
			ok "tests/gpu/$name.child.expect is what its child's event model gives" ||
			{ notok "tests/gpu/$name.child.expect:"; cat "$TMPDIR/$name.child.diff"; }
		"$GMPROF" report "tests/gpu/$name.child.jsonl" >"$TMPDIR/$name.child.rep" 2>&1
		missing=$(while IFS= read -r l; do grep -qF -- "$l" "$TMPDIR/$name.child.rep" || echo "$l"; done \
			<"tests/gpu/$name.child.report")
		[ -z "$missing" ] && ok "tests/gpu/$name.child.report is in its child's model's report" ||
			notok "tests/gpu/$name.child.report: the model's report lacks: $missing"
	fi
	# Where the program has an event model, its expected findings are what the model gives.
	[ -f "tests/gpu/$name.jsonl" ] || continue
	model_findings "tests/gpu/$name.jsonl" "tests/gpu/$name.expect" >"$TMPDIR/$name.model"
	diff -u "tests/gpu/$name.expect" "$TMPDIR/$name.model" >"$TMPDIR/$name.diff" &&
		ok "tests/gpu/$name.expect is what its event model gives" || { notok "tests/gpu/$name.expect is what its event model gives"; cat "$TMPDIR/$name.diff"; }
	# The waits gpu-check wants are the model's (its host times are what the program's sleeps give).
	for w in waits returned.waits; do
		[ -f "tests/gpu/$name.$w" ] || continue
		waits_check "$name" "tests/gpu/$name.jsonl" "tests/gpu/$name.$w" &&
			ok "tests/gpu/$name.$w holds in its event model" || { notok "tests/gpu/$name.$w:"; cat "$TMPDIR/$name.waits.diff"; }
	done
	# Bounded by the syncs' returns alone: without them the model misses them.
	if [ -f "tests/gpu/$name.returned.waits" ]; then
		sed -E 's/,"returned_ns":[0-9]+//' "tests/gpu/$name.jsonl" >"$TMPDIR/$name.noret.jsonl"
		! waits_check "$name" "$TMPDIR/$name.noret.jsonl" "tests/gpu/$name.returned.waits" &&
			ok "tests/gpu/$name.returned.waits fails without the returns" || notok "tests/gpu/$name.returned.waits holds without the returns"
	fi
	# The launches with intra touches gpu-check wants are the model's.
	if [ -f "tests/gpu/$name.touched" ]; then
		"$GMPROF" convert -o "$TMPDIR/$name.t.gmprof" "tests/gpu/$name.jsonl" 2>/dev/null
		touched_of "$TMPDIR/$name.t.gmprof" | diff -u "tests/gpu/$name.touched" - >"$TMPDIR/$name.touched.diff" &&
			ok "tests/gpu/$name.touched is its event model's" || { notok "tests/gpu/$name.touched:"; cat "$TMPDIR/$name.touched.diff"; }
	fi
	# The NVTX marks gpu-check wants are the model's.
	if [ -f "tests/gpu/$name.marks" ]; then
		"$GMPROF" convert -o "$TMPDIR/$name.m.gmprof" "tests/gpu/$name.jsonl" 2>/dev/null
		"$GMPROF" dump "$TMPDIR/$name.m.gmprof" 2>/dev/null | sed -n 's/^{"op":"mark","name":"\([^"]*\)".*/\1/p' |
			diff -u "tests/gpu/$name.marks" - >"$TMPDIR/$name.marks.diff" && ok "tests/gpu/$name.marks are its event model's" ||
			{ notok "tests/gpu/$name.marks:"; cat "$TMPDIR/$name.marks.diff"; }
	fi
	# The lines gpu-check looks for in the report are in the model's report.
	[ -f "tests/gpu/$name.report" ] || continue
	"$GMPROF" report "tests/gpu/$name.jsonl" >"$TMPDIR/$name.rep" 2>&1
	missing=$(while IFS= read -r l; do grep -qF -- "$l" "$TMPDIR/$name.rep" || echo "$l"; done <"tests/gpu/$name.report")
	[ -z "$missing" ] && ok "tests/gpu/$name.report is in its event model's report" || notok "tests/gpu/$name.report: the model's report lacks: $missing"
done
for src in benchmarks/micro/*.cu; do
	name=$(basename "$src" .cu)
	"$NVCC" -O2 -o "$TMPDIR/$name" "$src" >"$TMPDIR/$name.log" 2>&1 &&
		ok "benchmarks/micro/$name.cu compiles" || { notok "benchmarks/micro/$name.cu compiles"; cat "$TMPDIR/$name.log"; }
done
# The benchmark programs: both versions compile; the expected findings of the
# unfixed one are what the detector finds in its event model.
for src in benchmarks/cuda/*.cu; do
	name=$(basename "$src" .cu)
	variants="-DUNFIXED"
	grep -q "ifn*def FIXED" "$src" && variants="-DUNFIXED -DFIXED"
	for v in $variants; do
		"$NVCC" -O0 $v -o "$TMPDIR/$name" "$src" >"$TMPDIR/$name.log" 2>&1 &&
			ok "benchmarks/cuda/$name.cu compiles ($v)" || { notok "benchmarks/cuda/$name.cu compiles ($v)"; cat "$TMPDIR/$name.log"; }
	done
	# A BENCH_SCALE that is no whole number in range stops the program before CUDA starts.
	for k in 0 2x 100001 -3; do
		BENCH_SCALE=$k "$TMPDIR/$name" >/dev/null 2>"$TMPDIR/$name.err"
		rc=$?
		[ $rc = 2 ] && [ "$(cat "$TMPDIR/$name.err")" = "bench: BENCH_SCALE must be a whole number from 1 to 100000, not '$k'" ] ||
			{ notok "$name: BENCH_SCALE=$k: status $rc, $(cat "$TMPDIR/$name.err")"; continue 2; }
	done
	ok "$name: BENCH_SCALE=0, 2x, 100001, -3 refused in one line, status 2"
	model=benchmarks/cuda/models/$name.jsonl
	[ -f "$model" ] || continue
	model_findings "$model" "benchmarks/cuda/$name.expect" >"$TMPDIR/$name.model"
	diff -u "benchmarks/cuda/$name.expect" "$TMPDIR/$name.model" >"$TMPDIR/$name.diff" &&
		ok "$name.expect is what its event model gives" || { notok "$name.expect is what its event model gives"; cat "$TMPDIR/$name.diff"; }
done
finish
