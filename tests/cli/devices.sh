# SPDX-License-Identifier: MIT
# What the driver says of each device: the collector asks it at a device's
# first context (the test double's driver answers FAKE_CUDA_NAME,
# FAKE_CUDA_TOTAL, FAKE_CUDA_CC and FAKE_CUDA_VERSION) and records it as META; reports
# give each peak as a share of the device's memory, and gmprof check
# --max-peak / --max-in-use take a share of it.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
S=tests/scripts/simple_multi_copy.jsonl
H100='NVIDIA H100 80GB HBM3'

rm -f "$TMPDIR/d.gmprof" "$TMPDIR/off.gmprof" "$TMPDIR/none.gmprof"
expect_exit 0 "a run whose driver describes its device" -- env GMPROF_OUTPUT="$TMPDIR/d.gmprof" \
	FAKE_CUDA_NAME="$H100" FAKE_CUDA_TOTAL=85520809984 FAKE_CUDA_CC=9.0 FAKE_CUDA_VERSION=13000 "$FAKE" "$S"
"$GMPROF" dump "$TMPDIR/d.gmprof" 2>/dev/null | grep -E '"key":"(device\.|cuda)' >"$TMPDIR/meta"
cat >"$TMPDIR/want" <<W
{"op":"meta","key":"cuda","value":"13.0"}
{"op":"meta","key":"device.0.name","value":"$H100"}
{"op":"meta","key":"device.0.cc","value":"9.0"}
{"op":"meta","key":"device.0.memory","value":"85520809984"}
W
diff -u "$TMPDIR/want" "$TMPDIR/meta" >"$TMPDIR/diff" && ok "META: the CUDA version, the device's name, compute capability and memory, once" ||
	{ notok "META records"; cat "$TMPDIR/diff"; }

"$GMPROF" report --top 0 "$TMPDIR/d.gmprof" >"$TMPDIR/rep" 2>/dev/null
grep -q "^  device 0 $H100, compute capability 9.0, 79.6 GiB of memory$" "$TMPDIR/rep" && grep -q '^  cuda     13.0$' "$TMPDIR/rep" &&
	ok "report: the device and CUDA version in the run's header" || notok "report header: $(head -8 "$TMPDIR/rep")"
grep -q '^  device 0: 16.0 MiB (<0.1% of its 79.6 GiB) at ALLOC' "$TMPDIR/rep" &&
	ok "report: the peak as a share of the device's memory" || notok "report peak: $(grep -A1 '^Peaks' "$TMPDIR/rep")"
"$GMPROF" replay --format json "$TMPDIR/d.gmprof" 2>/dev/null |
	grep -q "\"devices\":\[{\"device\":0,\"name\":\"$H100\",\"memory_bytes\":85520809984,\"peak_bytes\":16777216," &&
	ok "JSON: the device's name and memory" || notok "JSON: the device's name and memory"

# Asked nothing (GMPROF_DEVICE_INFO=0), or a driver that answers nothing: no META, the same findings.
expect_exit 0 "GMPROF_DEVICE_INFO=0" -- env GMPROF_DEVICE_INFO=0 GMPROF_OUTPUT="$TMPDIR/off.gmprof" \
	FAKE_CUDA_NAME=x FAKE_CUDA_TOTAL=1 FAKE_CUDA_VERSION=1 "$FAKE" "$S"
expect_exit 0 "a driver that describes nothing" -- env GMPROF_OUTPUT="$TMPDIR/none.gmprof" "$FAKE" "$S"
for p in off none; do
	if "$GMPROF" dump "$TMPDIR/$p.gmprof" 2>/dev/null | grep -q '"key":"\(device\.\|cuda\)'; then
		notok "$p: no device META"
	else
		ok "$p: no device META"
	fi
done
"$GMPROF" replay --format json "$TMPDIR/none.gmprof" >"$TMPDIR/none.json" 2>/dev/null
"$GMPROF" replay --format json "$TMPDIR/d.gmprof" | sed 's/"name":"[^"]*","memory_bytes":[0-9]*,//' >"$TMPDIR/d.json"
cmp -s "$TMPDIR/none.json" "$TMPDIR/d.json" && ok "the findings do not depend on it" || notok "the findings do not depend on it"
# Only the memory (a driver without cuDeviceGetName's answer): the header says it alone.
rm -f "$TMPDIR/mem.gmprof"
env GMPROF_OUTPUT="$TMPDIR/mem.gmprof" FAKE_CUDA_TOTAL=20000000 "$FAKE" "$S" 2>/dev/null
"$GMPROF" report --top 0 "$TMPDIR/mem.gmprof" 2>/dev/null | grep -q '^  device 0 19.1 MiB of memory$' &&
	ok "memory alone" || notok "memory alone"

# The collector's own summary at exit says the share too.
env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/sum.gmprof" FAKE_CUDA_TOTAL=20000000 "$FAKE" "$S" 2>"$TMPDIR/sum.err" >/dev/null
grep -q '^==gmprof== device 0 peak: 16.0 MiB (83.9% of its 19.1 MiB)$' "$TMPDIR/sum.err" &&
	ok "the exit summary: the peak as a share" || notok "the exit summary: $(grep 'peak' "$TMPDIR/sum.err")"

# The CI gate: budgets as shares of each device's memory.
expect_exit 0 "check --max-peak 90%" -- "$GMPROF" check --max-peak 90% "$TMPDIR/d.gmprof"
grep -q '^PASS max_peak: device 0: 16.0 MiB <= 90% of its 79.6 GiB (71.7 GiB)$' "$TMPDIR/out" &&
	ok "--max-peak 90%: passes, saying the share" || notok "--max-peak 90%: $(cat "$TMPDIR/out")"
expect_exit 1 "check --max-peak 80% on a 19.1 MiB device" -- "$GMPROF" check --max-peak 80% --max-in-use 90% "$TMPDIR/mem.gmprof"
grep -q '^FAIL max_peak: device 0: 16.0 MiB > 80% of its 19.1 MiB (15.3 MiB)$' "$TMPDIR/out" &&
	grep -q '^  reached on device 0 at ALLOC (stream 0, #4) at ' "$TMPDIR/out" &&
	grep -q '^PASS max_in_use: device 0: 16.0 MiB <= 90% of its 19.1 MiB (17.2 MiB)$' "$TMPDIR/out" &&
	ok "--max-peak 80%: fails where the peak was reached; --max-in-use 90% passes" || notok "shares: $(cat "$TMPDIR/out")"
# In SARIF, a peak over its budget is a peak_over_budget result (an error) at each site holding most of it.
expect_exit 1 "check --max-peak 80% --sarif" -- "$GMPROF" check --max-peak 80% --sarif "$TMPDIR/b.sarif" "$TMPDIR/mem.gmprof"
"$(dirname "$GMPROF")/tools/sarif_check" "$TMPDIR/b.sarif" 1 >"$TMPDIR/sc" 2>&1 && ok "SARIF checker: over budget" ||
	notok "SARIF checker: over budget: $(cat "$TMPDIR/sc")"
[ "$(grep -c '"ruleId": "peak_over_budget"' "$TMPDIR/b.sarif")" -eq 1 ] &&
	grep -A12 '"ruleId": "peak_over_budget"' "$TMPDIR/b.sarif" | tr -d ' \n' |
	grep -q '"level":"error","message":{"text":"TheGPUmemorypeakondevice0is16.0MiB,overitsbudgetof15.3MiB(80%ofits19.1MiB);objectsallocatedherehold16.0MiBofit."}' &&
	ok "  ... one result (every object at one site), saying the budget as a share" || notok "  ... peak_over_budget: $(grep -A14 peak_over_budget "$TMPDIR/b.sarif" | tail -14)"
expect_exit 0 "check --max-peak 90% --sarif" -- "$GMPROF" check --max-peak 90% --sarif "$TMPDIR/nb.sarif" "$TMPDIR/mem.gmprof"
grep -q '"ruleId": "peak_over_budget"' "$TMPDIR/nb.sarif" && notok "  ... none within the budget" || ok "  ... none within the budget"
expect_exit 1 "check --max-peak 8MiB --sarif" -- "$GMPROF" check --max-peak 8MiB --sarif "$TMPDIR/bb.sarif" "$TMPDIR/none.gmprof"
grep -A12 '"ruleId": "peak_over_budget"' "$TMPDIR/bb.sarif" | tr -d ' \n' | grep -q 'overitsbudgetof8.0MiB;objects' &&
	ok "  ... a budget in bytes too" || notok "  ... a budget in bytes: $(grep -A14 peak_over_budget "$TMPDIR/bb.sarif" | tail -14)"

# Two devices: a line each under one check.
cat >"$TMPDIR/two.jsonl" <<'J'
{"op":"meta","key":"device.0.memory","value":"20000000"}
{"op":"meta","key":"device.1.memory","value":"40000000"}
{"op":"alloc","addr":"0x1000000","size":16777216,"device":0}
{"op":"alloc","addr":"0x9000000","size":16777216,"device":1}
{"op":"memset","addr":"0x1000000","size":16777216,"value":0}
{"op":"memset","addr":"0x9000000","size":16777216,"value":0}
{"op":"free","addr":"0x1000000"}
{"op":"free","addr":"0x9000000"}
J
expect_exit 1 "two devices, one past 80%" -- "$GMPROF" check --max-peak 80% "$TMPDIR/two.jsonl"
grep -q '^FAIL max_peak: 1 of 2 devices past 80% of their memory$' "$TMPDIR/out" &&
	grep -q '^  FAIL device 0: 16.0 MiB > 80% of its 19.1 MiB (15.3 MiB)$' "$TMPDIR/out" &&
	grep -q '^  ok device 1: 16.0 MiB <= 80% of its 38.1 MiB (30.5 MiB)$' "$TMPDIR/out" &&
	ok "two devices: each against its own memory" || notok "two devices: $(cat "$TMPDIR/out")"
expect_exit 0 "two devices, neither past 90%" -- "$GMPROF" check --max-peak 90% "$TMPDIR/two.jsonl"
grep -q '^PASS max_peak: 2 devices, none past 90% of their memory$' "$TMPDIR/out" &&
	grep -q '^  ok device 0: 16.0 MiB <= 90% of its 19.1 MiB (17.2 MiB)$' "$TMPDIR/out" &&
	grep -q '^  ok device 1: 16.0 MiB <= 90% of its 38.1 MiB (34.3 MiB)$' "$TMPDIR/out" &&
	ok "  ... a line per device" || notok "  ... $(cat "$TMPDIR/out")"

# A share of a memory the input does not record, and bad shares: one sentence, status 2.
expect_exit 2 "a share without the device's memory" -- "$GMPROF" check --max-peak 90% "$TMPDIR/none.gmprof"
expect_stderr_line "does not record device 0's memory .*: give --max-peak in bytes$" "it says so, and what to give instead"
[ ! -s "$TMPDIR/out" ] && ok "and checks nothing" || notok "and checks nothing: $(cat "$TMPDIR/out")"
for bad in 0% 100.5% -5% 5%% x% 90 %; do
	case $bad in 90) continue ;; esac
	expect_exit 2 "--max-in-use $bad refused" -- "$GMPROF" check --max-in-use "$bad" "$TMPDIR/d.gmprof"
	expect_stderr_line "bad byte count or share '$bad' for --max-in-use" "--max-in-use $bad: one sentence"
done
# A script's memory META that is no decimal count is refused at its line (the reports would read it as none).
{ printf '{"op":"meta","key":"device.0.memory","value":"80GiB"}\n'; cat "$S"; } >"$TMPDIR/badmeta.jsonl"
for cmd in "check --max-peak 90%" "report --top 0"; do
	# shellcheck disable=SC2086
	expect_exit 2 "a memory META that is no decimal count: $cmd refuses the script" -- "$GMPROF" $cmd "$TMPDIR/badmeta.jsonl"
	expect_stderr_line "badmeta.jsonl:1: meta 'device.0.memory' is the device's memory in bytes: a whole number above 0, not '80GiB'$" \
		"  ... naming the line and the value"
done

# What to fix to fit in a share of the device's memory (the plan that --fit 1300MiB gives: README).
{ printf '{"op":"meta","key":"device.0.memory","value":"1500000000"}\n'; cat tests/scripts/oom.jsonl; } >"$TMPDIR/oomd.jsonl"
expect_exit 0 "report --fit 90%" -- "$GMPROF" report --fit 90% "$TMPDIR/oomd.jsonl"
grep -q '^  device 0: to fit in 1.3 GiB (90% of its 1.4 GiB), fix findings 3, 7, 10, 6: the peak is then 1.2 GiB$' "$TMPDIR/out" &&
	ok "--fit 90%: the findings that bring the peak under 90% of the device's memory" || notok "--fit 90%: $(grep -A3 '^Fixing' "$TMPDIR/out")"
"$GMPROF" report --format json --fit 90% "$TMPDIR/oomd.jsonl" 2>/dev/null |
	grep -q '"plans":\[{"device":0,"findings":10,"redundant_left_out":0,"peak_bytes":1543503872,"peak_all_fixed_bytes":1342177280,"fit_bytes":1350000000,"fit_findings":\[2,6,9,5\],' &&
	ok "--fit 90%: JSON, the target in bytes" || notok "--fit 90%: JSON"
expect_exit 2 "report --fit 90% without the device's memory" -- "$GMPROF" report --fit 90% -o "$TMPDIR/r.txt" tests/scripts/oom.jsonl
expect_stderr_line "^gmprof report: 'tests/scripts/oom.jsonl' does not record device 0's memory .*: give --fit in bytes$" "--fit 90%: one sentence"
[ ! -e "$TMPDIR/r.txt" ] && ok "--fit 90%: no report written" || notok "--fit 90%: no report written"
expect_exit 2 "--fit 0%" -- "$GMPROF" report --fit 0% "$TMPDIR/oomd.jsonl"

# Perfetto names each GPU's process by it.
"$GMPROF" perfetto --force -o "$TMPDIR/d.json" "$TMPDIR/d.gmprof" 2>/dev/null
grep -q "\"name\":\"process_name\".*\"name\":\"GPU 0 ($H100, compute capability 9.0, 79.6 GiB of memory)\"" "$TMPDIR/d.json" &&
	ok "Perfetto: the GPU's process named with it" || notok "Perfetto: $(grep -o '"name":"GPU[^"]*"' "$TMPDIR/d.json")"

# gmprof diff says when the runs' GPUs differ, and only then.
{ printf '{"op":"meta","key":"device.0.name","value":"NVIDIA A100-SXM4-40GB"}\n{"op":"meta","key":"device.0.memory","value":"42505273344"}\n'
  cat "$S"; } >"$TMPDIR/a100.jsonl"
"$GMPROF" diff "$TMPDIR/a100.jsonl" "$TMPDIR/d.gmprof" >"$TMPDIR/diff.txt" 2>&1
"$GMPROF" diff "$TMPDIR/d.gmprof" "$TMPDIR/d.gmprof" >"$TMPDIR/same.txt" 2>&1
grep -q "^    on another GPU: NVIDIA A100-SXM4-40GB, 39.6 GiB of memory -> $H100, compute capability 9.0, 79.6 GiB of memory$" "$TMPDIR/diff.txt" &&
	! grep -q 'another GPU' "$TMPDIR/same.txt" && ok "diff: another GPU said, the same one not" ||
	notok "diff: $(head -3 "$TMPDIR/diff.txt")"
"$GMPROF" diff --format markdown "$TMPDIR/a100.jsonl" "$TMPDIR/d.gmprof" 2>/dev/null |
	grep -q "^| GPU, device 0 | NVIDIA A100-SXM4-40GB, 39.6 GiB of memory | $H100, compute capability 9.0, 79.6 GiB of memory | another GPU |$" &&
	ok "diff markdown: a row for the other GPU" || notok "diff markdown: a row for the other GPU"
"$GMPROF" diff --format json "$TMPDIR/a100.jsonl" "$TMPDIR/d.gmprof" 2>/dev/null |
	grep -q "\"device\":0,\"gpu_before\":{\"name\":\"NVIDIA A100-SXM4-40GB\",\"memory_bytes\":42505273344},\"gpu_after\":{\"name\":\"$H100\",\"memory_bytes\":85520809984},\"peak_before\"" &&
	ok "diff JSON: each run's GPU" || notok "diff JSON: each run's GPU"

# The text report's plot likewise: the scale's top is the device's memory, a row of '-' (not where no peak is that close).
"$GMPROF" report --top 0 "$TMPDIR/mem.gmprof" 2>/dev/null >"$TMPDIR/memrep"
grep -q "^Live bytes on device 0 over the topological order ('#' marks a peak, '-' the device's memory)$" "$TMPDIR/memrep" &&
	grep -q '^  19.1 MiB |-\{64\}$' "$TMPDIR/memrep" && ! grep -q "'-' the device's memory" "$TMPDIR/rep" &&
	ok "text plot: the device's memory as its top row" || notok "text plot: $(grep -A2 '^Live bytes' "$TMPDIR/memrep")"
# HTML: where the peak comes within half the device's memory, the plot draws that memory as a line.
"$GMPROF" html --force -o "$TMPDIR/m.html" "$TMPDIR/mem.gmprof" 2>/dev/null
grep -q '<line class="ceiling" x1="70" x2="[0-9]*" y1="10.0" y2="10.0"><title>the device.s memory: 19.1 MiB</title></line>' "$TMPDIR/m.html" &&
	ok "HTML: the device's memory drawn above a peak of 84% of it" || notok "HTML: the device's memory line"

# Markdown and HTML say it too (HTML escaped).
"$GMPROF" report --format markdown "$TMPDIR/d.gmprof" 2>/dev/null >"$TMPDIR/md"
grep -q "^| device 0 | $H100, compute capability 9.0, 79.6 GiB of memory |$" "$TMPDIR/md" && grep -q '^| 0 | 16.0 MiB (<0.1% of its 79.6 GiB) | ' "$TMPDIR/md" &&
	ok "markdown: the device and the share" || notok "markdown: the device and the share"
"$GMPROF" html --force -o "$TMPDIR/d.html" "$TMPDIR/d.gmprof" 2>/dev/null
grep -q "<dt>device 0</dt><dd>$H100, compute capability 9.0, 79.6 GiB of memory</dd>" "$TMPDIR/d.html" &&
	grep -q '<p>Device 0: 16.0 MiB (&lt;0.1% of its 79.6 GiB) at ' "$TMPDIR/d.html" && ! grep -q 'class="ceiling"' "$TMPDIR/d.html" &&
	ok "HTML: the device and the share, escaped" || notok "HTML: the device and the share"

# Kernels launched through cuBLAS on compute capability 9.0: the program
# itself, under the name of cuBLASLt's library, launches them.  The report
# says such kernels' copies through the tensor memory accelerator are unseen.
mkdir -p "$TMPDIR/lib" && cp "$FAKE" "$TMPDIR/lib/libcublasLt.so.13"
for cc in 9.0 8.0; do
	rm -f "$TMPDIR/blas$cc.gmprof"
	env GMPROF_OUTPUT="$TMPDIR/blas$cc.gmprof" FAKE_CUDA_NAME="$H100" FAKE_CUDA_TOTAL=85520809984 FAKE_CUDA_CC=$cc \
		"$TMPDIR/lib/libcublasLt.so.13" "$S" 2>/dev/null
	"$GMPROF" report --top 1 "$TMPDIR/blas$cc.gmprof" >"$TMPDIR/blas$cc.txt" 2>&1
done
n=$(grep -c '"op":"kernel"' "$S")
grep -q "^note: $n kernel launches came from cuBLAS on a GPU of compute capability 9.0: such kernels copy most of their operands through the tensor memory accelerator" \
	"$TMPDIR/blas9.0.txt" && ok "cuBLAS's launches on compute capability 9.0: the report says their TMA copies are unseen" ||
	notok "TMA note: $(grep note "$TMPDIR/blas9.0.txt")"
grep -q "tensor memory accelerator" "$TMPDIR/blas8.0.txt" && notok "  ... on 8.0 too" || ok "  ... not on 8.0"
finish
