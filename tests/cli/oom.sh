# SPDX-License-Identifier: MIT
# Allocations that run out of memory.  The collector sees them only as an
# allocation call returning out of memory (the test double delivers the
# API callbacks as the driver does: no resource callback, return value 2,
# the call's parameter block); it records each with the size asked for,
# says the first at once, and the reports say what was live then and
# which fixes free memory at that moment.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
S=tests/scripts/oom.jsonl

# The versioned and per-thread names the APIs may report are the same calls.
sed -e 's/"api":"cuMemAlloc"/"api":"cuMemAlloc_v2"/' \
    -e 's/"api":"cudaMallocAsync"/"api":"cudaMallocAsync_ptsz_v11020"/' "$S" >"$TMPDIR/suffixed.jsonl"
rm -f "$TMPDIR/oom.gmprof" "$TMPDIR/dies.gmprof"
# The driver says 384 MiB of 2 GiB were free (the collector asks it at each failure).
expect_exit 0 "a program whose allocations run out of memory" -- \
	env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/oom.gmprof" FAKE_CUDA_FREE=402653184 FAKE_CUDA_TOTAL=2147483648 \
	"$FAKE" "$TMPDIR/suffixed.jsonl"
grep -q '^gmprof: cudaMalloc of 1.0 GiB on device 0 ran out of memory (384.0 MiB free of 2.0 GiB), with 1.4 GiB live in 5 objects; the profile records what was live: gmprof report ' "$TMPDIR/err" &&
	ok "the first failure is said at once, with what was live" || notok "the first failure is said at once: $err"
[ "$(grep -c 'ran out of memory' "$TMPDIR/err")" -eq 3 ] && ok "each of the three is said" || notok "each of the three is said: $err"
grep -q '^==gmprof== OUT OF MEMORY: cudaMalloc of 1.0 GiB on device 0 (384.0 MiB free of 2.0 GiB) with 1.4 GiB live; fixing findings 3, 7, 10 frees 704.0 MiB then$' "$TMPDIR/err" &&
	ok "the exit summary says what fixes free at the failure" || notok "the exit summary: $err"

"$GMPROF" dump "$TMPDIR/oom.gmprof" >"$TMPDIR/dump.jsonl" 2>"$TMPDIR/err"
# Numbered among the events (the run's META lines, whichever the collector writes, left out).
failed_lines() { grep -v '^{"op":"meta"' "$1" | grep -n '"alloc_failed"' | sed -E 's/,"(thread|time_ns|at)":[^,}]*//g'; }
failed_lines "$TMPDIR/dump.jsonl" >"$TMPDIR/got"
cat >"$TMPDIR/want" <<'W'
11:{"op":"alloc_failed","size":1073741824,"api":"cudaMalloc","device_free":402653184,"device_total":2147483648}
16:{"op":"alloc_failed","size":4294967296,"api":"cuMemAlloc","device_free":402653184,"device_total":2147483648}
17:{"op":"alloc_failed","size":2147483648,"kind":"async","api":"cudaMallocAsync","device_free":402653184,"device_total":2147483648,"stream":1}
W
diff -u "$TMPDIR/want" "$TMPDIR/got" >"$TMPDIR/diff" &&
	ok "recorded: size, kind, stream, the call's plain name, the device's memory, in place among the events" ||
	{ notok "recorded failures"; cat "$TMPDIR/diff"; }
"$GMPROF" report "$TMPDIR/oom.gmprof" >"$TMPDIR/rep" 2>/dev/null
[ "$(grep -c '^  cu[a-zA-Z]* of .* on device 0 at .*fake_app.c:[0-9]* ran out of memory\( (.*)\)\?$' "$TMPDIR/rep")" -eq 3 ] &&
	[ "$(grep -A5 'ran out of memory' "$TMPDIR/rep" | grep -c '^      main (.*fake_app.c:[0-9]*)$')" -eq 3 ] &&
	ok "each has its call path, symbolized" || notok "each has its call path: $(grep -A5 'ran out' "$TMPDIR/rep")"

# The findings of the profile equal the script's, but for labels and source sites.
"$GMPROF" replay --format json --pretty "$TMPDIR/oom.gmprof" 2>/dev/null | grep -v '"device_\(free\|total\)_bytes"\|"memory_bytes"' >"$TMPDIR/got.json"
sed -E 's/,"label":"[^"]*"//; s/,"at":"[^"]*"//' "$S" >"$TMPDIR/plain.jsonl"
"$GMPROF" replay --format json --pretty "$TMPDIR/plain.jsonl" >"$TMPDIR/want.json"
grep -q '"failed_allocations"' "$TMPDIR/want.json" && diff -u "$TMPDIR/want.json" "$TMPDIR/got.json" >"$TMPDIR/diff" &&
	ok "the profile's failures and fixes equal the script's" ||
	{ notok "the profile's failures and fixes equal the script's"; head -30 "$TMPDIR/diff"; }

# The text report: what was live and what fixes free, per failure.
expect_exit 0 "report" -- "$GMPROF" report "$S"
grep -q '^Allocations that ran out of memory: 3$' "$TMPDIR/out" && ok "report: a section of failures" || notok "report: a section of failures"
grep -q '^    live then: 1.4 GiB in 5 objects: grad 512.0 MiB, act 512.0 MiB, weights 256.0 MiB, ...$' "$TMPDIR/out" &&
	ok "report: the largest objects live then" || notok "report: the largest objects live then"
grep -q '^    fixing findings 3 (early_allocation of grad), 7 (late_deallocation of input), 10 (temporary_idleness of init_buf) frees 704.0 MiB then, less than the 1.0 GiB asked for$' "$TMPDIR/out" &&
	ok "report: the fixes that free memory at the failure" || notok "report: the fixes that free memory at the failure"
expect_exit 0 "replay" -- "$GMPROF" replay "$S"
grep -q '^cuMemAlloc of 4.0 GiB on device 0 at train.cu:24 ran out of memory$' "$TMPDIR/out" && ok "replay: each failure" || notok "replay: each failure"

# Without asking the driver: the device's memory is unknown, the rest the same.
rm -f "$TMPDIR/nomem.gmprof"
expect_exit 0 "GMPROF_OOM_MEMINFO=0" -- env GMPROF_OOM_MEMINFO=0 GMPROF_OUTPUT="$TMPDIR/nomem.gmprof" \
	FAKE_CUDA_FREE=1 FAKE_CUDA_TOTAL=2 "$FAKE" "$S"
"$GMPROF" dump "$TMPDIR/nomem.gmprof" 2>/dev/null | grep '"alloc_failed"' >"$TMPDIR/nomem"
[ "$(wc -l <"$TMPDIR/nomem")" -eq 3 ] && ! grep -q device_free "$TMPDIR/nomem" &&
	ok "GMPROF_OOM_MEMINFO=0: the driver is not asked" || notok "GMPROF_OOM_MEMINFO=0: $(cat "$TMPDIR/nomem")"
# What was free and what the fixes free, together, against the request.
"$GMPROF" report "$TMPDIR/oom.gmprof" >"$TMPDIR/rep" 2>/dev/null
grep -q '^  cudaMalloc of 1.0 GiB on device 0 at .* ran out of memory (384.0 MiB free of 2.0 GiB)$' "$TMPDIR/rep" &&
	grep -q '^    fixing findings 3 (early_allocation of obj#3), 7 (late_deallocation of obj#4), 10 (temporary_idleness of obj#2) frees 704.0 MiB then; with the 384.0 MiB free, 1.1 GiB, more than the 1.0 GiB asked for$' "$TMPDIR/rep" &&
	ok "report: the free memory and the fixes, against the request" || notok "report: $(grep -A3 'ran out' "$TMPDIR/rep" | head -4)"
# What the device held beside the program's objects: 2 GiB - 384 MiB free - 1.4 GiB live; 704 MiB at the second.
grep -q "^    held beside them: 192.0 MiB of the device's 2.0 GiB (the CUDA context, " "$TMPDIR/rep" &&
	grep -q "^    held beside them: 704.0 MiB of the device's 2.0 GiB " "$TMPDIR/rep" &&
	ok "report: what the device held beside the live objects" || notok "report: held beside them: $(grep 'held beside' "$TMPDIR/rep")"
"$GMPROF" report tests/scripts/oom.jsonl 2>/dev/null | grep -q 'held beside' &&
	notok "report: nothing said of it where the device's memory is not known" ||
	ok "report: nothing said of it where the device's memory is not known"
"$GMPROF" replay --format json "$TMPDIR/oom.gmprof" 2>/dev/null | grep -q '"device_free_bytes":402653184,"device_total_bytes":2147483648,"live_bytes":1543503872' &&
	ok "JSON: the device's free and total memory" || notok "JSON: the device's free and total memory"

# Perfetto: an instant per failure on its device, with what was live and what fixes free.
expect_exit 0 "perfetto" -- "$GMPROF" perfetto -o "$TMPDIR/t.json" "$S"
[ "$(grep -c '"cat":"out_of_memory"' "$TMPDIR/t.json")" -eq 3 ] &&
	grep -q '{"ph":"i","name":"out of memory: cudaMalloc of 1.0 GiB","pid":1,"ts":9,"s":"p","cat":"out_of_memory","args":{"size":1073741824,"live_bytes":1543503872,"live_objects":5,"freeable_bytes":738197504,"at":"train.cu:19"}}' "$TMPDIR/t.json" &&
	ok "perfetto: an instant per failure" || notok "perfetto: an instant per failure: $(grep out_of_memory "$TMPDIR/t.json")"
"$B/tools/trace_check" "$TMPDIR/t.json" >/dev/null && ok "perfetto: the trace checks" || notok "perfetto: the trace checks"
expect_exit 0 "perfetto, host time" -- "$GMPROF" perfetto --time host -o "$TMPDIR/th.json" "$TMPDIR/oom.gmprof"
[ "$(grep -c '"cat":"out_of_memory"' "$TMPDIR/th.json")" -eq 3 ] && ok "perfetto, host time: each failure" || notok "perfetto, host time: each failure"
# HTML: a table of the failures.
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/o.html" "$S"
grep -q '<h2>Allocations that ran out of memory</h2>' "$TMPDIR/o.html" &&
	grep -q '<tr><td>cudaMalloc</td><td class="n">1.0 GiB</td><td class="n">0</td><td class="n">1.4 GiB in 5 objects</td>.*<td>3 early_allocation grad, 7 late_deallocation input, 10 temporary_idleness init_buf</td><td class="n">704.0 MiB</td><td><code>train.cu:19</code></td></tr>' "$TMPDIR/o.html" &&
	ok "html: a row per failure" || notok "html: a row per failure"

# The CI gate fails a run whose allocations ran out of memory, unless told not to.
expect_exit 1 "check: a failed allocation fails the gate" -- "$GMPROF" check "$S"
grep -q '^FAIL out_of_memory: 3 allocations ran out of memory; the first, cudaMalloc of 1.0 GiB on device 0 at train.cu:19, with 1.4 GiB live; fixing findings frees 704.0 MiB then (gmprof report shows which)$' "$TMPDIR/out" &&
	ok "check: the line names the first failure" || notok "check: $(cat "$TMPDIR/out")"
expect_exit 1 "check --sarif" -- "$GMPROF" check --sarif "$TMPDIR/o.sarif" "$S"
"$B/tools/sarif_check" "$TMPDIR/o.sarif" >/dev/null && [ "$(grep -c '"ruleId": "out_of_memory"' "$TMPDIR/o.sarif")" -eq 3 ] &&
	grep -A30 '"ruleId": "out_of_memory"' "$TMPDIR/o.sarif" | grep -q '"uri": "train.cu"' &&
	[ "$(grep -A3 '"ruleId": "out_of_memory"' "$TMPDIR/o.sarif" | grep -c '"level": "error"')" -eq 3 ] &&
	ok "SARIF: an error result per failure, at its call" || notok "SARIF: a result per failure"
expect_exit 0 "check --allow-oom passes it" -- "$GMPROF" check --allow-oom "$S"
"$GMPROF" check --allow-oom --sarif "$TMPDIR/w.sarif" "$S" >/dev/null
[ "$(grep -A3 '"ruleId": "out_of_memory"' "$TMPDIR/w.sarif" | grep -c '"level": "warning"')" -eq 3 ] &&
	ok "SARIF with --allow-oom: warnings" || notok "SARIF with --allow-oom: warnings"
expect_exit 0 "check: a run without failures passes" -- "$GMPROF" check tests/scripts/figure2.jsonl
grep -q '^PASS out_of_memory: no allocation ran out of memory$' "$TMPDIR/out" && ok "check: said so" || notok "check: said so"

# Did the fix work: gmprof diff counts them before and after.
expect_exit 0 "diff" -- "$GMPROF" diff "$S" tests/scripts/figure2.jsonl
grep -q '^  allocations that ran out of memory: 3 -> 0$' "$TMPDIR/out" && ok "diff: failures before and after" || notok "diff: $(cat "$TMPDIR/out")"
expect_exit 0 "diff --format json" -- "$GMPROF" diff --format json "$S" tests/scripts/figure2.jsonl
grep -q '"failed_allocations_before":3,"failed_allocations_after":0,' "$TMPDIR/out" && ok "diff --format json: failures before and after" || notok "diff --format json"
expect_exit 0 "diff without failures" -- "$GMPROF" diff tests/scripts/figure2.jsonl tests/scripts/figure3.jsonl
! grep -q 'ran out of memory' "$TMPDIR/out" && ok "diff: no line when neither had a failure" || notok "diff: no line when neither had a failure"

# Suppressions: findings taken out are no fixes of a failure (the others keep
# their numbers in the report); out_of_memory rules take failures out, '*' never does.
printf 'early_allocation:*\n' >"$TMPDIR/sup1"
expect_exit 0 "report --suppressions" -- "$GMPROF" report --suppressions "$TMPDIR/sup1" "$S"
grep -q '^    fixing findings 4 (late_deallocation of input), 7 (temporary_idleness of init_buf) frees 192.0 MiB then, less than the 1.0 GiB asked for$' "$TMPDIR/out" &&
	grep -q '^  4. late_deallocation: input (128.0 MiB)$' "$TMPDIR/out" && grep -q '^  7. temporary_idleness: init_buf (64.0 MiB)$' "$TMPDIR/out" &&
	ok "suppressed findings: the fixes renumbered with what is left" || notok "suppressed findings: $(grep -A3 'ran out' "$TMPDIR/out" | head -4)"
printf 'out_of_memory:train.cu:19\n*:train.cu:2*\n' >"$TMPDIR/sup2"
expect_exit 0 "check --suppressions with an out_of_memory rule" -- "$GMPROF" check --allow-oom --suppressions "$TMPDIR/sup2" "$S"
grep -q '^PASS out_of_memory: 2 allocations ran out of memory; the first, cuMemAlloc of 4.0 GiB' "$TMPDIR/out" &&
	grep -q '^PASS suppressions: 0 findings and 1 failed allocation suppressed by ' "$TMPDIR/out" &&
	grep -q 'sup2:2: train.cu:2\*: 0$' "$TMPDIR/out" &&
	ok "out_of_memory rules take failures out; '*' does not" || notok "out_of_memory rules: $(cat "$TMPDIR/out")"
"$GMPROF" report --suppressions "$TMPDIR/sup2" "$S" | grep -q '^Allocations that ran out of memory: 2 (1 more suppressed by ' &&
	ok "report: says how many failures were suppressed" || notok "report: says how many failures were suppressed"
printf 'out_of_memory:train.cu:*\n' >"$TMPDIR/sup3"
expect_exit 0 "every failure suppressed: the gate passes" -- "$GMPROF" check --suppressions "$TMPDIR/sup3" "$S"

# A caching allocator's retry: it gives its cache back and gets the memory.
cat >"$TMPDIR/retry.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096,"label":"cache"}
{"op":"kernel","name":"k","write":["0x10000"]}
{"op":"alloc_failed","size":8192,"api":"cudaMalloc","at":"alloc.cc:10"}
{"op":"free","addr":"0x10000","at":"alloc.cc:11"}
{"op":"alloc","addr":"0x20000","size":8192,"label":"big","at":"alloc.cc:12"}
{"op":"kernel","name":"k2","write":["0x20000"]}
{"op":"free","addr":"0x20000"}
J
expect_exit 0 "report of a retried failure" -- "$GMPROF" report "$TMPDIR/retry.jsonl"
grep -q '^    then got by a retry: ALLOC (stream 0, #2) at alloc.cc:12$' "$TMPDIR/out" && ok "report: the retry that got it" || notok "report: the retry: $(grep -A3 'ran out' "$TMPDIR/out")"
"$GMPROF" replay --format json "$TMPDIR/retry.jsonl" | grep -q '"retried_by":{"api":"ALLOC","stream":0,"ordinal":2,"level":3,"event":3,"at":"alloc.cc:12"}' &&
	ok "JSON: retried_by" || notok "JSON: retried_by"
expect_exit 1 "check: a retried failure still fails the gate" -- "$GMPROF" check "$TMPDIR/retry.jsonl"
grep -q '^FAIL out_of_memory: 1 allocation ran out of memory (1 got by a retry); ' "$TMPDIR/out" && ok "check: says it was retried" || notok "check: $(cat "$TMPDIR/out")"
"$GMPROF" report "$S" | grep -q 'got by a retry' && notok "no retry where none came" || ok "no retry where none came"

# A program that dies of it: the failure is in the profile all the same.
head -n 14 "$S" >"$TMPDIR/dies.jsonl"
expect_exit 3 "a program that exits at its failure" -- \
	env GMPROF_OUTPUT="$TMPDIR/dies.gmprof" "$FAKE" --die-after 10 exit "$TMPDIR/dies.jsonl"
"$GMPROF" report "$TMPDIR/dies.gmprof" >"$TMPDIR/out" 2>"$TMPDIR/err"
grep -q '^  cudaMalloc of 1.0 GiB on device 0 .*ran out of memory$' "$TMPDIR/out" && ok "a dying program's failure is reported" ||
	notok "a dying program's failure is reported: $(cat "$TMPDIR/err")"

# More failures than the collector records (4096): it counts the rest, and every report counts them too.
{ echo '{"op":"alloc","addr":"0x1000","size":4096}'
  awk 'BEGIN { for (i = 0; i < 4100; i++) print "{\"op\":\"alloc_failed\",\"size\":1048576,\"api\":\"cudaMalloc\"}" }'; } >"$TMPDIR/many.jsonl"
rm -f "$TMPDIR/many.gmprof"
expect_exit 0 "4100 failed allocations" -- env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/many.gmprof" "$FAKE" "$TMPDIR/many.jsonl"
grep -qx 'gmprof: 4 more allocations ran out of memory and were not recorded (the first 4096 were)' "$TMPDIR/err" &&
	grep -qx '==gmprof== and 4097 more allocations ran out of memory' "$TMPDIR/err" &&
	ok "  ... the collector says it kept 4096, and its summary counts all 4100" || notok "  ... the collector: $(grep -v 'cudaMalloc of' "$TMPDIR/err" | head -5)"
"$GMPROF" dump "$TMPDIR/many.gmprof" | grep -qx '{"op":"meta","key":"failed_allocations_unrecorded","value":"4"}' &&
	ok "  ... the profile counts the unrecorded ones (META)" || notok "  ... no META failed_allocations_unrecorded"
"$GMPROF" report "$TMPDIR/many.gmprof" >"$TMPDIR/out" 2>/dev/null
grep -qx 'Allocations that ran out of memory: 4100 (the first 64 shown; the collector recorded the first 4096)' "$TMPDIR/out" &&
	ok "  ... report: 4100, and that 4096 were recorded" || notok "  ... report: $(grep 'ran out of memory:' "$TMPDIR/out")"
"$GMPROF" report --format markdown "$TMPDIR/many.gmprof" 2>/dev/null |
	grep -qx '### Allocations that ran out of memory: 4100 (the first 64 shown; the collector recorded the first 4096)' &&
	ok "  ... markdown: the same" || notok "  ... markdown"
"$GMPROF" replay "$TMPDIR/many.gmprof" 2>/dev/null | grep -qx '... and 4036 more allocations ran out of memory; the collector recorded the first 4096' &&
	ok "  ... replay: the 4036 past the 64 shown" || notok "  ... replay"
"$GMPROF" replay --format json "$TMPDIR/many.gmprof" 2>/dev/null | grep -q '"failed_allocations_total":4100,"failed_allocations_unrecorded":4' &&
	ok "  ... JSON: the total and the unrecorded" || notok "  ... JSON"
expect_exit 1 "  ... check fails" -- "$GMPROF" check "$TMPDIR/many.gmprof"
grep -q '^FAIL out_of_memory: 4100 allocations ran out of memory; ' "$TMPDIR/out" && ok "  ... and counts all 4100" || notok "  ... check: $(grep out_of "$TMPDIR/out")"

# Bad lines: one sentence, the line number, status 2.
bad() { # NAME LINE PATTERN
	printf '{"op":"alloc","addr":4096,"size":64}\n%s\n' "$2" >"$TMPDIR/bad.jsonl"
	expect_exit 2 "bad line: $1" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
	expect_stderr_line "bad.jsonl:2: $3" "bad line: $1: one sentence"
}
bad "no size" '{"op":"alloc_failed"}' "missing required field 'size'"
bad "size 0" '{"op":"alloc_failed","size":0}' "a failed allocation must have a positive size"
bad "a region" '{"op":"alloc_failed","size":8,"kind":"pool_region"}' 'a failed allocation is of kind'
bad "an address" '{"op":"alloc_failed","size":8,"addr":4096}' "unknown field 'addr' for op 'alloc_failed'"
bad "a numeric api" '{"op":"alloc_failed","size":8,"api":3}' "field 'api' must be a string"
bad "more free than there is" '{"op":"alloc_failed","size":8,"device_free":9,"device_total":8}' "'device_free' must not exceed 'device_total'"
finish
