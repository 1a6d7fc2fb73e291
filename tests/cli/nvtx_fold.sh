#!/bin/sh
# SPDX-License-Identifier: MIT
# NVTX names that carry a counter, read as one name: --nvtx-numbers and
# --nvtx-strip on the analyzing commands (report, check, baseline, diff,
# perfetto), on a loop whose ranges ("epoch K") and marks ("epoch K done")
# carry the epoch, and that keeps a 1 KiB buffer each epoch.
. "$(dirname "$0")/lib.sh"

# loop N FILE: N epochs.
loop() {
	awk -v n="$1" 'BEGIN { for (k = 1; k <= n; k++) {
		printf "{\"op\":\"range_push\",\"name\":\"epoch %d\"}\n{\"op\":\"range_push\",\"name\":\"conv2d\"}\n", k
		printf "{\"op\":\"alloc\",\"addr\":%d,\"size\":1024,\"label\":\"kept%d\",\"at\":\"train.cu:42\"}\n", k * 65536, k
		printf "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[%d]}\n", k * 65536
		printf "{\"op\":\"range_pop\"}\n{\"op\":\"range_pop\"}\n{\"op\":\"mark\",\"name\":\"epoch %d done\"}\n", k } }' >"$2"
}
loop 3 "$TMPDIR/three.jsonl"
loop 4 "$TMPDIR/four.jsonl"
S=$TMPDIR/three.jsonl

expect_exit 0 "report --help names the options" -- "$GMPROF" report --help
grep -q -- "--nvtx-numbers" "$TMPDIR/out" && grep -q -- "--nvtx-strip REGEX" "$TMPDIR/out" &&
	ok "  ... both" || notok "  ... $(grep nvtx "$TMPDIR/out")"

# Without: three ranges and three marks, none entered twice.
expect_exit 0 "report without" -- "$GMPROF" report "$S"
grep -q "^  epoch 2 " "$TMPDIR/out" && grep -q "^  epoch 3 done  *1 " "$TMPDIR/out" &&
	ok "  ... an epoch's range and mark each" || notok "  ... $(sed -n '/Memory by NVTX range/,$p' "$TMPDIR/out")"
grep -qx "  --nvtx-numbers reads these 4 range names as 2 ('epoch 1' and 2 more as 'epoch N')" "$TMPDIR/out" &&
	grep -qx "  --nvtx-numbers reads these 3 mark names as 1 ('epoch 1 done' and 2 more as 'epoch N done')" "$TMPDIR/out" &&
	ok "  ... each section says what --nvtx-numbers would make of its names" || notok "  ... $(grep nvtx "$TMPDIR/out")"
expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown "$S"
[ "$(grep -c "^--nvtx-numbers reads these [43] \(range\|mark\) names as [21] ('epoch 1" "$TMPDIR/out")" -eq 2 ] &&
	ok "  ... the same two notes" || notok "  ... $(grep nvtx "$TMPDIR/out")"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/page.html" "$S"
[ "$(grep -c '<tr><td colspan="[69]">&nbsp;&nbsp;--nvtx-numbers reads these' "$TMPDIR/page.html")" -eq 2 ] &&
	ok "  ... the same two notes, in their tables" || notok "  ... $(grep -o 'nvtx-numbers reads[^<]*' "$TMPDIR/page.html")"

# With: one range entered three times, one mark series, each grew by the kept buffers; conv2d is a word.
expect_exit 0 "report --nvtx-numbers" -- "$GMPROF" report --nvtx-numbers "$S"
grep -q "^  epoch N  .*  3  3.0 KiB in 3 " "$TMPDIR/out" && grep -q "^    conv2d " "$TMPDIR/out" &&
	ok "  ... one range, 3 times, conv2d inside" || notok "  ... $(sed -n '/Memory by NVTX range/,/^$/p' "$TMPDIR/out")"
grep -qx "  epoch N: live bytes as it began grew from 0 B (the first of its 3 times) to 2.0 KiB (the last), 1.0 KiB more each time" \
	"$TMPDIR/out" && ok "  ... the range grew" || notok "  ... $(grep 'grew' "$TMPDIR/out")"
grep -qx "  epoch N done: live bytes grew from 1.0 KiB (the first of its 3 marks) to 3.0 KiB (the last), 1.0 KiB more each time" \
	"$TMPDIR/out" && ok "  ... the marks grew" || notok "  ... $(sed -n '/Memory at NVTX marks/,/^$/p' "$TMPDIR/out")"
! grep -q "epoch [0-9]" "$TMPDIR/out" && ok "  ... no name with its number left" || notok "  ... $(grep 'epoch [0-9]' "$TMPDIR/out")"
! grep -q "reads these" "$TMPDIR/out" && ok "  ... and no note" || notok "  ... $(grep 'reads these' "$TMPDIR/out")"

expect_exit 0 "report --format json --nvtx-numbers" -- "$GMPROF" report --format json --nvtx-numbers "$S"
python3 - "$TMPDIR/out" <<'PY' && ok "  ... memory_at_marks and memory_by_range" || notok "  ... JSON"
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["memory_at_marks"] if x["mark"] == "epoch N done"]
assert len(d["memory_at_marks"]) == 1 and m[0]["times"] == 3 and m[0]["growth_bytes"] == 2048, d["memory_at_marks"]
paths = sorted(" > ".join(x["ranges"]) for x in d["memory_by_range"])
assert paths == ["epoch N", "epoch N > conv2d"], paths
assert d["nvtx_names"] == {"numbers": True}, d.get("nvtx_names")
PY

# --ranges matches the folded names.
expect_exit 0 "replay --nvtx-numbers --ranges 'epoch N*'" -- "$GMPROF" replay --nvtx-numbers --ranges 'epoch N*' "$S"
n_with=$(grep -c "^  *[0-9]*\. \|^[a-z_]*:" "$TMPDIR/out")
expect_exit 0 "replay --ranges 'epoch N*' without" -- "$GMPROF" replay --ranges 'epoch N*' "$S"
grep -q "epoch N" "$TMPDIR/out" && notok "  ... $(cat "$TMPDIR/out")" || ok "  ... without, no finding is in such a range"
[ "$(grep -c "epoch N" "$TMPDIR/out")" -eq 0 ] && [ "$n_with" -gt 0 ] && ok "  ... with, findings are" ||
	notok "  ... with: $n_with lines"

# --nvtx-strip: the matches removed; both together: stripped first.
expect_exit 0 "report --nvtx-strip ' [0-9]+'" -- "$GMPROF" report --nvtx-strip ' [0-9]+' "$S"
grep -q "^  epoch  .*  3  3.0 KiB in 3 " "$TMPDIR/out" && grep -q "^  epoch done  *3 " "$TMPDIR/out" &&
	ok "  ... 'epoch' and 'epoch done'" || notok "  ... $(sed -n '/Memory by NVTX range/,$p' "$TMPDIR/out")"
expect_exit 0 "report --nvtx-strip 'epoch' --nvtx-numbers" -- "$GMPROF" report --nvtx-strip '^epoch ' --nvtx-numbers "$S"
grep -q "^  N done  *3 " "$TMPDIR/out" && ok "  ... 'N done'" || notok "  ... $(sed -n '/Memory at NVTX marks/,/^$/p' "$TMPDIR/out")"

# PyTorch's emit_nvtx: every operator call a range of its own ("aten::mm, seq = 7, sizes = [...]").
# Stripped of its sequence number and shapes, memory by operator: each op entered once per step.
awk 'BEGIN { seq = 0; a = 65536; for (step = 1; step <= 3; step++) {
	printf "{\"op\":\"range_push\",\"name\":\"aten::linear, seq = %d, sizes = [[64, 512], [1024, 512]]\"}\n", seq++
	printf "{\"op\":\"alloc\",\"addr\":%d,\"size\":4096}\n{\"op\":\"kernel\",\"name\":\"gemm\",\"write\":[%d]}\n", a, a
	printf "{\"op\":\"range_pop\"}\n{\"op\":\"range_push\",\"name\":\"aten::relu, seq = %d, sizes = [[64, 1024]]\"}\n", seq++
	printf "{\"op\":\"kernel\",\"name\":\"relu\",\"read\":[%d],\"write\":[%d]}\n{\"op\":\"range_pop\"}\n", a, a
	printf "{\"op\":\"free\",\"addr\":%d}\n", a; a += 65536 } }' >"$TMPDIR/torch.jsonl"
expect_exit 0 "report --nvtx-strip ', seq = .*' of emit_nvtx's ranges" -- \
	"$GMPROF" report --format json --nvtx-strip ', seq = .*' "$TMPDIR/torch.jsonl"
python3 - "$TMPDIR/out" <<'PY' && ok "  ... memory by operator: aten::linear and aten::relu, 3 times each" || notok "  ... JSON"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((" > ".join(x["ranges"]), x["times"], x["peak_bytes"]) for x in d["memory_by_range"])
assert got == [("aten::linear", 3, 4096), ("aten::relu", 3, 4096)], got
assert d["nvtx_names"] == {"numbers": False, "strip": ", seq = .*"}, d.get("nvtx_names")
PY
expect_exit 0 "  ... without, a range per call" -- "$GMPROF" report --format json "$TMPDIR/torch.jsonl"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["memory_by_range"]) == 6 and "nvtx_names" not in d' \
	"$TMPDIR/out" && ok "  ... six, and no folding said" || notok "  ... $(head -c 600 "$TMPDIR/out")"

# A bad expression: one line naming it, exit 2, before any input is read.
expect_exit 2 "--nvtx-strip '('" -- "$GMPROF" report --nvtx-strip '(' "$TMPDIR/none.jsonl"
expect_stderr_line "^gmprof report: --nvtx-strip '(' is not a regular expression: " "  ... one line naming it"
for cmd in check baseline diff perfetto html flamegraph replay; do
	expect_exit 2 "$cmd --nvtx-strip '[': refused" -- "$GMPROF" $cmd --nvtx-strip '[' "$S" "$S"
	expect_stderr_line "^gmprof $cmd: --nvtx-strip '\[' is not a regular expression: " "  ... said"
done

# The CI gate: a budget on the folded series; without the option the name matches no mark.
expect_exit 1 "check --nvtx-numbers --max-mark-growth 'epoch N done=1KiB'" -- \
	"$GMPROF" check --nvtx-numbers --max-mark-growth 'epoch N done=1KiB' "$S"
grep -q "^  epoch N done on device 0: 2.0 KiB more live at the last of its 3 marks than at the first" "$TMPDIR/out" &&
	ok "  ... over its budget, named" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "  ... within 4 KiB" -- "$GMPROF" check --nvtx-numbers --max-mark-growth 'epoch N done=4KiB' "$S"
expect_exit 1 "  ... without --nvtx-numbers: no such mark" -- "$GMPROF" check --max-mark-growth 'epoch N done=4KiB' "$S"
grep -qx "  no NVTX mark matches 'epoch N done': its names carry numbers, which --nvtx-numbers folds ('epoch 1 done' reads 'epoch N done')" \
	"$TMPDIR/out" && ok "  ... said, with what --nvtx-numbers would make of a name" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 1 "  ... a range budget, the same" -- "$GMPROF" check --max-range-peak 'epoch N > conv*=1GiB' "$S"
grep -qx "  no NVTX range matches 'epoch N > conv\*': its names carry numbers, which --nvtx-numbers folds ('epoch 1 > conv2d' reads 'epoch N > conv2d')" \
	"$TMPDIR/out" && ok "  ... said" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 1 "  ... a glob no folded name matches" -- "$GMPROF" check --max-mark 'warmup N=1GiB' "$S"
grep -q "no NVTX mark matches 'warmup N' (does the program mark it" "$TMPDIR/out" && ok "  ... no hint" ||
	notok "  ... $(cat "$TMPDIR/out")"
expect_exit 1 "check --nvtx-numbers --max-range-growth" -- \
	"$GMPROF" check --nvtx-numbers --max-range-growth 'epoch N=1KiB' "$S"

# A baseline of three epochs against a run of four: the same names, the growth grew.
expect_exit 0 "baseline --nvtx-numbers" -- "$GMPROF" baseline --nvtx-numbers -o "$TMPDIR/b.json" "$S"
grep -q '"epoch N done"' "$TMPDIR/b.json" && ! grep -q '"epoch 1' "$TMPDIR/b.json" &&
	ok "  ... keeps the folded names" || notok "  ... $(cat "$TMPDIR/b.json")"
expect_exit 1 "check --nvtx-numbers --baseline, a fourth epoch" -- \
	"$GMPROF" check --nvtx-numbers --baseline "$TMPDIR/b.json" "$TMPDIR/four.jsonl"
grep -q "^FAIL baseline:mark_growth" "$TMPDIR/out" && grep -q "^FAIL baseline:range_growth" "$TMPDIR/out" &&
	ok "  ... the marks' and the range's growth grew" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "  ... the same three epochs pass" -- "$GMPROF" check --nvtx-numbers --baseline "$TMPDIR/b.json" "$S"
grep -q '"gmprof_baseline": 8' "$TMPDIR/b.json" && grep -A2 '"nvtx_names"' "$TMPDIR/b.json" | grep -q '"numbers": true' &&
	ok "  ... a baseline of version 8 says how the names were folded" || notok "  ... $(head -12 "$TMPDIR/b.json")"
# A check that folds otherwise would compare nothing by name: refused, one line, exit 2.
expect_exit 2 "check --baseline of folded names, not folding" -- "$GMPROF" check --baseline "$TMPDIR/b.json" "$S"
expect_stderr_line "^gmprof check: the baseline '.*b.json' cannot be compared: its run's NVTX names were folded (--nvtx-numbers), and this check does not fold them, so that its NVTX ranges and marks would not match the run's; give check the options gmprof baseline was given, or write the baseline again with check's\$" \
	"  ... said"
expect_exit 2 "  ... folding by another expression" -- \
	"$GMPROF" check --nvtx-numbers --nvtx-strip x --baseline "$TMPDIR/b.json" "$S"
expect_stderr_line "were folded by --nvtx-numbers, and this check folds them by --nvtx-numbers --nvtx-strip 'x'," "  ... said"
expect_exit 0 "baseline without" -- "$GMPROF" baseline -o "$TMPDIR/b7.json" "$S"
# Names new in a run are not compared: the check says where they carry numbers (a fourth epoch passes).
expect_exit 1 "check --baseline of names as given, a fourth epoch (the peak grew)" -- "$GMPROF" check \
	--baseline "$TMPDIR/b7.json" "$TMPDIR/four.jsonl"
grep -q "^PASS baseline:range_peak: .*(2 new in this run" "$TMPDIR/out" && grep -q "^PASS baseline:mark_peak: .*(1 new in this run" \
	"$TMPDIR/out" && ok "  ... its ranges and marks pass: the fourth epoch's are new" || notok "  ... $(cat "$TMPDIR/out")"
grep -qx "  names new in this run are not compared, and these carry numbers: --nvtx-numbers reads these 5 range names as 2 ('epoch 1' and 3 more as 'epoch N'), given to gmprof baseline and check alike" \
	"$TMPDIR/out" && grep -q "^  names new in this run are not compared, .* these 4 mark names as 1 ('epoch 1 done' and 3 more" \
	"$TMPDIR/out" && ok "  ... and says why" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "  ... the same three epochs: nothing new, no such line" -- "$GMPROF" check --baseline "$TMPDIR/b7.json" "$S"
! grep -q "names new in this run" "$TMPDIR/out" && ok "  ... none" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 2 "check --nvtx-numbers against it" -- "$GMPROF" check --nvtx-numbers --baseline "$TMPDIR/b7.json" "$S"
expect_stderr_line "its run's NVTX names were not folded, and this check folds them (--nvtx-numbers)," "  ... said"
# Without ranges or marks the names do not matter: version 3, and any check compares it.
expect_exit 0 "baseline --nvtx-numbers of a run without NVTX" -- \
	"$GMPROF" baseline --nvtx-numbers -o "$TMPDIR/b3.json" tests/scripts/figure2.jsonl
grep -q '"gmprof_baseline": 3' "$TMPDIR/b3.json" && ! grep -q nvtx_names "$TMPDIR/b3.json" && ok "  ... version 3" ||
	notok "  ... $(head -3 "$TMPDIR/b3.json")"
expect_exit 0 "  ... checked without the option" -- "$GMPROF" check --baseline "$TMPDIR/b3.json" tests/scripts/figure2.jsonl

# diff: matched across runs with four and three epochs.
expect_exit 0 "diff --nvtx-numbers" -- "$GMPROF" diff --nvtx-numbers "$S" "$TMPDIR/four.jsonl"
grep -q "^      +1.0 KiB    epoch N: peak 3.0 KiB -> 4.0 KiB" "$TMPDIR/out" &&
	grep -q "^      +1.0 KiB    epoch N done: most 3.0 KiB -> 4.0 KiB" "$TMPDIR/out" && ! grep -q "new:" "$TMPDIR/out" &&
	ok "  ... the range and the marks matched" || notok "  ... $(grep -A12 'by NVTX' "$TMPDIR/out")"
expect_exit 0 "diff without" -- "$GMPROF" diff "$S" "$TMPDIR/four.jsonl"
grep -q "epoch 4: new: " "$TMPDIR/out" && grep -q "epoch 4 done: new: " "$TMPDIR/out" &&
	ok "  ... the fourth epoch is new" || notok "  ... $(grep -A12 'by NVTX' "$TMPDIR/out")"

# flamegraph --at mark:NAME finds the folded name: the mark of it that found the most.
expect_exit 0 "flamegraph --nvtx-numbers --at 'mark:epoch N done'" -- \
	"$GMPROF" flamegraph --nvtx-numbers --at 'mark:epoch N done' "$S"
grep -qx "train.cu:42 3072" "$TMPDIR/out" && ok "  ... the 3 buffers live at the last" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 2 "  ... without, no such mark" -- "$GMPROF" flamegraph --at 'mark:epoch N done' "$S"

# Perfetto: the slices and instants carry the folded names.
expect_exit 0 "perfetto --nvtx-numbers --time host" -- "$GMPROF" perfetto --nvtx-numbers -o "$TMPDIR/t.json" "$S"
grep -q '"epoch N"' "$TMPDIR/t.json" && ! grep -q '"epoch 1"' "$TMPDIR/t.json" &&
	ok "  ... folded names" || notok "  ... $(grep -o '"epoch[^"]*"' "$TMPDIR/t.json" | sort -u)"

# gmprof run's summary, through the collector (NVTX's tool) and the test double.
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExt.h" ]; then
	B=$(cd "$(dirname "$GMPROF")" && pwd)
	expect_exit 2 "run --nvtx-strip '(': refused before the program runs" -- \
		"$GMPROF" run --nvtx-strip '(' -o "$TMPDIR/never.gmprof" -- "$B/double/fake_app" "$S"
	expect_stderr_line "^gmprof run: --nvtx-strip '(' is not a regular expression: " "  ... said"
	[ ! -e "$TMPDIR/never.gmprof" ] && ok "  ... no profile" || notok "  ... a profile was written"
	( use_double "$B"; GMPROF_CUDA_DRIVER=$B/double/libcuda-fake.so; export GMPROF_CUDA_DRIVER
	expect_exit 0 "run --nvtx-numbers" -- "$GMPROF" run --top 1 --nvtx-numbers --force -o "$TMPDIR/run.gmprof" -- \
		"$B/double/fake_app" "$S"
	grep -q "^  ranges   epoch N on device 0: live bytes as it began grew from 0 B (the first of its 3 times)" "$TMPDIR/out" &&
		grep -q "^  marks    epoch N done on device 0: live bytes grew from 1.0 KiB (the first of its 3 marks)" "$TMPDIR/out" &&
		ok "  ... the summary names the folded range and marks" || notok "  ... $(cat "$TMPDIR/out")"
	expect_exit 0 "run without" -- "$GMPROF" run --top 1 --force -o "$TMPDIR/run.gmprof" -- "$B/double/fake_app" "$S"
	! grep -q "^  ranges\|^  marks" "$TMPDIR/out" && ok "  ... no name grew" || notok "  ... $(cat "$TMPDIR/out")"
	grep -qx "  names    --nvtx-numbers reads these 4 range names as 2 ('epoch 1' and 2 more as 'epoch N')" "$TMPDIR/out" &&
		grep -qx "           --nvtx-numbers reads these 3 mark names as 1 ('epoch 1 done' and 2 more as 'epoch N done')" \
		"$TMPDIR/out" && ok "  ... but what --nvtx-numbers would make of the names" || notok "  ... $(cat "$TMPDIR/out")"
	expect_exit 0 "run --nvtx-numbers: no such note" -- "$GMPROF" run --top 1 --nvtx-numbers --force -o "$TMPDIR/run.gmprof" -- \
		"$B/double/fake_app" "$S"
	! grep -q "reads these" "$TMPDIR/out" && ok "  ... none" || notok "  ... $(cat "$TMPDIR/out")"
	# The collector's own summary folds them with GMPROF_NVTX_NUMBERS; the profile keeps them as given.
	expect_exit 0 "the collector's summary, GMPROF_NVTX_NUMBERS=1" -- env GMPROF_SUMMARY=1 GMPROF_NVTX_NUMBERS=1 \
		GMPROF_OUTPUT="$TMPDIR/c.gmprof" "$B/double/fake_app" "$S"
	grep -q "^==gmprof== NVTX range epoch N on device 0: live bytes as it began grew from 0 B (the first of its 3 times)" \
		"$TMPDIR/err" && grep -q "^==gmprof== NVTX mark epoch N done on device 0: live bytes grew from 1.0 KiB" "$TMPDIR/err" &&
		ok "  ... names the folded range and marks" || notok "  ... $(grep '==gmprof==' "$TMPDIR/err")"
	"$GMPROF" dump "$TMPDIR/c.gmprof" | grep -q '"name":"epoch 2 done"' && ok "  ... the profile has the names as given" ||
		notok "  ... $("$GMPROF" dump "$TMPDIR/c.gmprof" | grep mark)"
	expect_exit 0 "  ... GMPROF_NVTX_STRIP='(': said, unprofiled" -- env GMPROF_NVTX_STRIP='(' \
		GMPROF_OUTPUT="$TMPDIR/c2.gmprof" "$B/double/fake_app" "$S"
	grep -q "^gmprof: GMPROF_NVTX_STRIP='(' is not valid: .*; the program runs unprofiled" "$TMPDIR/err" &&
		[ ! -e "$TMPDIR/c2.gmprof" ] && ok "  ... one line" || notok "  ... $(cat "$TMPDIR/err")"
	finish ) || failed=1
fi

finish
