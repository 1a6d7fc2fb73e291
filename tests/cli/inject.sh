# SPDX-License-Identifier: MIT
# Failure injection (tests/tools/inject_errors.c, LD_PRELOAD): open, write,
# fsync, rename and malloc fail on demand in the analyzer and in the
# collector.  The analyzer must exit 2 with one sentence (or succeed when
# the failure did not matter) and never crash, leaving no partial output;
# the profiled program must keep running, with at most one sentence from
# the collector, and a profile that is right whenever the collector said
# nothing.  Uninstrumented builds are used: a shim cannot replace malloc
# under AddressSanitizer.  Allocations inside libdwarf are not failed: its
# error paths crash on a failed allocation (seen with 20210528), so the
# malloc sweeps count only allocations made by gmprof's own code.
. tests/cli/lib.sh
R=$(cd "$(dirname "$GMPROF")/../rel" && pwd)
SHIM=$R/tools/inject_errors.so
G=$R/gmprof
if [ ! -x "$G" ] || [ ! -f "$SHIM" ] || [ ! -x "$R/double/fake_app" ]; then
	notok "uninstrumented builds missing (make test builds them)"; finish
fi
inj() { LD_PRELOAD=$SHIM "$@"; }
S=tests/scripts/simple_multi_copy.jsonl

# ---- analyzer: output files --------------------------------------------------------
for f in open:1 write:1 fsync:1 rename:1; do
	rm -f "$TMPDIR/out.txt"
	expect_exit 2 "report -o: $f fails" -- env GMP_INJECT=$f GMP_INJECT_PATH=out.txt LD_PRELOAD="$SHIM" "$G" report -o "$TMPDIR/out.txt" "$S"
	expect_stderr_line "out.txt" "  ... one sentence naming the file"
	if ls -A "$TMPDIR" | grep -q "out.txt"; then notok "  ... no partial file left"; else ok "  ... no partial file left"; fi
done
echo "keep me" >"$TMPDIR/keep.txt"
expect_exit 2 "report -o --force: write fails" -- env GMP_INJECT=write:1 GMP_INJECT_PATH=keep.txt LD_PRELOAD="$SHIM" "$G" report --force -o "$TMPDIR/keep.txt" "$S"
[ "$(cat "$TMPDIR/keep.txt")" = "keep me" ] && ok "  ... the existing file is untouched" || notok "  ... the existing file is untouched"
expect_exit 2 "input cannot be opened" -- env GMP_INJECT=open:1 GMP_INJECT_PATH=simple_multi LD_PRELOAD="$SHIM" "$G" replay "$S"
expect_stderr_line "cannot open" "  ... one sentence"
for cmd in "perfetto -o $TMPDIR/t.json" "html -o $TMPDIR/t.html" "check --sarif $TMPDIR/t.sarif" "baseline -o $TMPDIR/t.base" \
	"flamegraph -o $TMPDIR/t.svg"; do
	rm -f "$TMPDIR"/t.*
	expect_exit 2 "${cmd%% *}: write fails" -- env GMP_INJECT=write:1 GMP_INJECT_PATH="$TMPDIR" LD_PRELOAD="$SHIM" $G $cmd "$S"
	expect_stderr_line "cannot write" "  ... one sentence"
done

# ---- analyzer: every allocation of a run, failed in turn -------------------------------
# 0 when FILE holds one sentence: one printable line from gmprof giving a reason.
one_sentence() {
	[ "$(wc -l <"$1")" -eq 1 ] && LC_ALL=C grep -q "^gmprof[a-z ]*: [A-Za-z'][[:print:]]*\$" "$1"
}
# The inputs are sound: a failed allocation must never be blamed on them.
sweep() { # NAME STEP MAX CALLER -- CMD...: exit 0/1, or 2 with one line; never a crash
	name=$1 step=$2 max=$3 caller=$4; shift 5
	n=1 bad=0 clean=0
	while [ "$n" -le "$max" ]; do
		env GMP_INJECT="malloc:$n" GMP_INJECT_CALLER="$caller" LD_PRELOAD="$SHIM" "$@" >/dev/null 2>"$TMPDIR/err"
		rc=$?
		[ "$rc" -eq 2 ] && clean=$((clean + 1))
		if [ "$rc" -gt 2 ] || { [ "$rc" -eq 2 ] && { ! one_sentence "$TMPDIR/err" ||
			grep -qi "not valid\|corrupt\|malformed\|bad record\|checksum" "$TMPDIR/err"; }; }; then
			[ "$bad" -lt 3 ] && echo "# $name: allocation $n: exit $rc: $(head -2 "$TMPDIR/err")"
			bad=$((bad + 1))
		fi
		n=$((n + step))
	done
	[ "$bad" -eq 0 ] && ok "$name: no crash, one sentence ($clean clean failures)" || notok "$name: $bad bad outcomes"
}
sweep "replay, every allocation" 2 400 "" -- "$G" replay "$S"
# A profile recorded here, so that its call paths symbolize (DWARF of fake_app).
P=$TMPDIR/recorded.gmprof
echo "stands in for the device patches" >"$TMPDIR/patches.fatbin"
env GMPROF_COLLECTOR="$R/libgmprof.so" GMPROF_SANITIZER_LIB="$R/double/libsanitizer-public.so" \
	GMPROF_DOUBLE="$R/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
	GMPROF_OUTPUT="$P" "$R/double/fake_app" tests/scripts/figure3.jsonl >/dev/null 2>&1
"$G" report "$P" 2>/dev/null | grep -q "fake_app.c:" && ok "a recorded profile with source lines to sweep" || notok "a recorded profile with source lines to sweep"
sweep "report of a recorded profile" 7 700 "$R/gmprof" -- "$G" report "$P"
sweep "perfetto" 7 700 "$R/gmprof" -- "$G" perfetto -o - "$P"
sweep "check with SARIF, JUnit and Markdown" 7 700 "$R/gmprof" -- "$G" check --fail-on all --sarif "$TMPDIR/s.sarif" --junit "$TMPDIR/j.xml" \
	--markdown "$TMPDIR/c.md" --force "$P"
sweep "report as Markdown" 7 700 "$R/gmprof" -- "$G" report --format markdown "$P" "$P"
sweep "report --summary of two inputs" 3 300 "$R/gmprof" -- "$G" report --summary "$P" "$P"
sweep "diff as Markdown" 7 700 "$R/gmprof" -- "$G" diff --format markdown -o - "$P" "$P"
cp "$P" "$TMPDIR/rank1.gmprof"
"$G" baseline -o "$TMPDIR/ranks.base.json" "$P" "$TMPDIR/rank1.gmprof" 2>/dev/null
sweep "baseline of two inputs" 5 500 "$R/gmprof" -- "$G" baseline -o - "$P" "$TMPDIR/rank1.gmprof"
sweep "check against a baseline, SARIF" 7 700 "$R/gmprof" -- "$G" check --baseline "$TMPDIR/ranks.base.json" --tolerance 1% \
	--sarif "$TMPDIR/b.sarif" --force "$P" "$TMPDIR/rank1.gmprof"
sweep "check against a profile as its baseline" 7 700 "$R/gmprof" -- "$G" check --baseline "$P" "$P"
sweep "html" 7 700 "$R/gmprof" -- "$G" html -o - "$P"
sweep "flamegraph, SVG" 5 500 "$R/gmprof" -- "$G" flamegraph --format svg --nvtx --objects -o - "$P"
sweep "flamegraph, folded, two inputs" 5 500 "$R/gmprof" -- "$G" flamegraph --at allocated -o - "$P" "$P"
sweep "flamegraph --diff, SVG" 5 500 "$R/gmprof" -- "$G" flamegraph --diff --format svg -o - "$P" "$P"
# NVTX ranges: memory by range in every output, the range budgets and a baseline of version 4.
# (Run from $TMPDIR with relative names: a script reader's sentence starts with the file's name.)
sed 's/"size":268435456,"label":"grads"/"size":536870912,"label":"grads"/' tests/scripts/nvtx_ranges.jsonl >"$TMPDIR/grads.jsonl"
cp tests/scripts/nvtx_ranges.jsonl "$TMPDIR/nvtx.jsonl"
"$G" baseline -o "$TMPDIR/v4.base.json" "$TMPDIR/nvtx.jsonl" 2>/dev/null
cd "$TMPDIR" || exit 1
sweep "NVTX ranges: report, text and JSON" 3 600 "$R/gmprof" -- sh -c '"$1" report nvtx.jsonl && "$1" report --format json nvtx.jsonl' sh "$G"
sweep "NVTX ranges: check budgets and a baseline, SARIF" 3 600 "$R/gmprof" -- "$G" check --max-range-peak 'step*=1GiB' \
	--baseline v4.base.json --sarif n.sarif --force grads.jsonl
sweep "NVTX ranges: baseline" 3 600 "$R/gmprof" -- "$G" baseline -o - nvtx.jsonl
sweep "NVTX ranges: diff, text, JSON and Markdown" 3 900 "$R/gmprof" -- sh -c '"$1" diff nvtx.jsonl grads.jsonl &&
	"$1" diff --format json nvtx.jsonl grads.jsonl && "$1" diff --format markdown nvtx.jsonl grads.jsonl' sh "$G"
sweep "NVTX ranges: html, Markdown report" 3 600 "$R/gmprof" -- sh -c '"$1" html -o - nvtx.jsonl && "$1" report --format markdown nvtx.jsonl' sh "$G"
cd "$OLDPWD" || exit 1
# A loop that keeps memory: what its times kept, in a baseline (version 6) and a check against it.
kept_at tests/scripts/nvtx_loop.jsonl "$TMPDIR/loop.jsonl"
awk '/"label":"tmp1"/ { sub(/"label":"tmp1"/, "\"label\":\"tmp1\",\"at\":\"model.cu:7\"") }
	/"op":"free","addr":73728/ { held = $0; next } { print } END { print held }' "$TMPDIR/loop.jsonl" >"$TMPDIR/worse.jsonl"
"$G" baseline -o "$TMPDIR/v6.base.json" "$TMPDIR/loop.jsonl" 2>/dev/null
cd "$TMPDIR" || exit 1
sweep "a loop's kept sites: baseline" 2 400 "$R/gmprof" -- "$G" baseline -o - loop.jsonl
sweep "a loop's kept sites: check against version 6, SARIF" 2 600 "$R/gmprof" -- "$G" check --baseline v6.base.json \
	--sarif k.sarif --force worse.jsonl
sweep "a loop's kept sites: check against a run" 2 600 "$R/gmprof" -- "$G" check --baseline loop.jsonl worse.jsonl
cd "$OLDPWD" || exit 1
# Memory at NVTX marks: every allocation of the reports, the budgets and their SARIF, a baseline (version 7)
# and a check against it, a diff and the flame graphs, failed in turn (each sweep past the most its commands
# make: some runs end well).
cp tests/scripts/nvtx_marks.jsonl "$TMPDIR/marks.jsonl"
sed 's/"size":1024,"label":"kept\([23]\)"/"size":2048,"label":"kept\1"/' tests/scripts/nvtx_marks.jsonl >"$TMPDIR/marks2.jsonl"
"$G" baseline -o "$TMPDIR/v7.base.json" "$TMPDIR/marks.jsonl" 2>/dev/null
cd "$TMPDIR" || exit 1
sweep "NVTX marks: report as text, JSON and Markdown, html, perfetto" 2 540 "$R/gmprof" -- sh -c '"$1" report marks.jsonl &&
	"$1" report --format json marks.jsonl && "$1" report --format markdown marks.jsonl && "$1" html -o - marks.jsonl &&
	"$1" perfetto --time host -o - marks.jsonl' sh "$G"
sweep "NVTX marks: check budgets and a version 7 baseline, SARIF" 2 1040 "$R/gmprof" -- "$G" check --max-mark 'ep*=1KiB' \
	--max-mark-growth 'epoch=0' --baseline v7.base.json --sarif m.sarif --force marks2.jsonl
sweep "NVTX marks: baseline" 1 490 "$R/gmprof" -- "$G" baseline -o - marks.jsonl
sweep "NVTX marks: diff as text, JSON and Markdown, flame graphs" 2 980 "$R/gmprof" -- sh -c '"$1" diff marks.jsonl marks2.jsonl &&
	"$1" diff --format json marks.jsonl marks2.jsonl && "$1" diff --format markdown marks.jsonl marks2.jsonl &&
	"$1" flamegraph --at mark:epoch -o - marks.jsonl && "$1" flamegraph --at mark-kept:epoch -o - marks2.jsonl' sh "$G"
cd "$OLDPWD" || exit 1
# NVTX names that carry a counter: folded (--nvtx-numbers, --nvtx-strip) in a report, a check against a
# version 8 baseline and a diff, and the reports' notes where they are not; every allocation in turn.
awk -v n=3 'BEGIN { for (k = 1; k <= n; k++) {
	printf "{\"op\":\"range_push\",\"name\":\"epoch %d\"}\n{\"op\":\"alloc\",\"addr\":%d,\"size\":1024}\n", k, k * 65536
	printf "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[%d]}\n{\"op\":\"range_pop\"}\n", k * 65536
	printf "{\"op\":\"mark\",\"name\":\"epoch %d done\"}\n", k } }' >"$TMPDIR/epochs.jsonl"
sed 's/"size":1024}/"size":2048}/' "$TMPDIR/epochs.jsonl" >"$TMPDIR/epochs2.jsonl"
"$G" baseline --nvtx-numbers -o "$TMPDIR/v8.base.json" "$TMPDIR/epochs.jsonl" 2>/dev/null
cd "$TMPDIR" || exit 1
sweep "NVTX names folded: report, Markdown, notes" 2 700 "$R/gmprof" -- sh -c '"$1" report --nvtx-numbers epochs.jsonl &&
	"$1" report --format markdown --nvtx-strip " [0-9]+" epochs.jsonl && "$1" report epochs.jsonl' sh "$G"
sweep "NVTX names folded: check against version 8, diff" 2 900 "$R/gmprof" -- sh -c '"$1" check --nvtx-numbers \
	--max-mark-growth "epoch N done=1GiB" --baseline v8.base.json --sarif f.sarif --force epochs2.jsonl;
	[ $? -le 1 ] && "$1" diff --nvtx-numbers epochs.jsonl epochs2.jsonl' sh "$G"
cd "$OLDPWD" || exit 1
# Memory over time (host times): every allocation of the report in each format, in turn.
cp tests/scripts/figure2_timed.jsonl "$TMPDIR/timed.jsonl"
sed 's/"size":1048576,"label":"B"/"size":524288,"label":"B"/' tests/scripts/figure2_timed.jsonl >"$TMPDIR/half.jsonl"
cd "$TMPDIR" || exit 1
sweep "memory over time: report as text, JSON and Markdown, html" 1 400 "$R/gmprof" -- sh -c '"$1" report timed.jsonl &&
	"$1" report --format json timed.jsonl && "$1" report --format markdown timed.jsonl && "$1" html -o - timed.jsonl' sh "$G"
sweep "memory over time: diff as text, JSON and Markdown" 1 300 "$R/gmprof" -- sh -c '"$1" diff timed.jsonl half.jsonl &&
	"$1" diff --format json timed.jsonl half.jsonl && "$1" diff --format markdown timed.jsonl half.jsonl' sh "$G"
cd "$OLDPWD" || exit 1

# ---- collector: the program runs on ------------------------------------------------------
export GMPROF_COLLECTOR="$R/libgmprof.so" GMPROF_SANITIZER_LIB="$R/double/libsanitizer-public.so"
export GMPROF_DOUBLE="$GMPROF_SANITIZER_LIB" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0
for f in open:1 write:1 write:2+ write:3 fsync:1; do
	rm -f "$TMPDIR/p.gmprof"
	expect_exit 0 "collector: $f on the profile fails; the program runs on" -- env GMP_INJECT=$f GMP_INJECT_PATH=p.gmprof \
		GMPROF_OUTPUT="$TMPDIR/p.gmprof" LD_PRELOAD="$SHIM" "$R/double/fake_app" "$S"
	expect_stderr_line "gmprof: cannot .*p.gmprof" "  ... one sentence naming the profile"
	# Failed before the profile had the run's first record (the header's write, the start's
	# flush): no file to read as a run that died at its start; later, what was written stays.
	case $f in
	write:3 | fsync:1) [ -s "$TMPDIR/p.gmprof" ] && ok "  ... what was written stays" || notok "  ... no profile left" ;;
	*) [ ! -e "$TMPDIR/p.gmprof" ] && ok "  ... no profile left" || notok "  ... a profile of nothing was left" ;;
	esac
done
# collector_sweep NAME SCRIPT COUNT: each of the collector's first COUNT allocations fails in turn.
collector_sweep() {
	rm -f "$TMPDIR/full.gmprof"
	env GMPROF_OUTPUT="$TMPDIR/full.gmprof" "$R/double/fake_app" "$2" >/dev/null 2>&1
	"$G" replay --format json "$TMPDIR/full.gmprof" >"$TMPDIR/full.json" 2>/dev/null
	n=1 bad=0 said=0
	while [ "$n" -le "$3" ]; do
		rm -f "$TMPDIR/p.gmprof"
		env GMP_INJECT="malloc:$n" GMP_INJECT_CALLER=libgmprof GMPROF_OUTPUT="$TMPDIR/p.gmprof" LD_PRELOAD="$SHIM" \
			"$R/double/fake_app" "$2" >/dev/null 2>"$TMPDIR/err"
		rc=$?
		lines=$(wc -l <"$TMPDIR/err")
		if [ "$rc" -ne 0 ] || { [ "$lines" -gt 0 ] && ! one_sentence "$TMPDIR/err"; }; then
			[ "$bad" -lt 3 ] && echo "# $1: collector allocation $n: exit $rc: $(head -2 "$TMPDIR/err")"; bad=$((bad + 1))
		elif [ "$lines" -eq 0 ]; then
			# Nothing said: then nothing may be missing.
			"$G" replay --format json "$TMPDIR/p.gmprof" >"$TMPDIR/p.json" 2>/dev/null
			if ! cmp -s "$TMPDIR/p.json" "$TMPDIR/full.json"; then
				[ "$bad" -lt 3 ] && echo "# $1: collector allocation $n: silent, but the findings differ"; bad=$((bad + 1))
			fi
		else
			said=$((said + 1))
		fi
		n=$((n + 1))
	done
	[ "$bad" -eq 0 ] && ok "$1: $3 allocations failed in turn; the program always ran on, the collector said one sentence ($said times) or lost nothing" \
		|| notok "$1: collector allocation sweep: $bad bad outcomes"
}
collector_sweep "collector" "$S" 300
# Pool regions through NVTX (the NVTX entry points allocate too).
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExtMem.h" ]; then
	export NVTX_INJECTION64_PATH=$GMPROF_COLLECTOR
	collector_sweep "collector with NVTX regions" tests/scripts/pool_regions.jsonl 150
	# NVTX marks and streams named through NVTX (records of their own, META).
	awk 'NR % 4 == 0 { print "{\"op\":\"mark\",\"name\":\"m" NR "\"}" } { print }' "$S" >"$TMPDIR/marks.jsonl"
	GMP_DOUBLE_NVTX_STREAM_NAMES=1 collector_sweep "collector with NVTX marks and named streams" "$TMPDIR/marks.jsonl" 150
fi
finish
