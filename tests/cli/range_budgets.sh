# SPDX-License-Identifier: MIT
# Budgets for the memory of a program's phases: gmprof check holds each
# NVTX range's peak to --max-range-peak, and to its own peak in a baseline
# (version 4 keeps every range's peak on each device); a budget or a
# baseline whose ranges the run lacks fails rather than passing unchecked.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
S=tests/scripts/nvtx_ranges.jsonl

# What a loop's times may leave behind (check --max-range-growth GLOB=BYTES):
# each step keeps a 4 KiB buffer, so its third began with 8 KiB more live
# than its first.
cp tests/scripts/nvtx_loop.jsonl "$TMPDIR/loop.jsonl"
expect_exit 1 "check --max-range-growth: a loop that keeps memory each step" -- \
	"$GMPROF" check --max-range-growth 'step=4KiB' --sarif "$TMPDIR/g.sarif" --junit "$TMPDIR/g.xml" --force "$TMPDIR/loop.jsonl"
printf '%s\n' "FAIL max_range_growth: 1 NVTX range over its growth budget" \
	"  step on device 0: began the last of its 3 times with 8.0 KiB more live than the first > 4.0 KiB ('step' <= 4.0 KiB)" \
	"    live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from kept1 (4.0 KiB in 1), kept2 (4.0 KiB in 1)" >"$TMPDIR/g.want"
grep -A2 '^FAIL max_range_growth' "$TMPDIR/out" | diff -u "$TMPDIR/g.want" - >"$TMPDIR/diff" &&
	ok "  ... fails, saying by how much the last time began above the first, and what it kept" || { notok "  ... growth"; cat "$TMPDIR/diff"; }
grep -A1 'name="max_range_growth"' "$TMPDIR/g.xml" | grep -q '<failure' && "$B/tools/sarif_check" "$TMPDIR/g.sarif" >/dev/null &&
	! grep -q '"ruleId": "range_peak_over_budget"' "$TMPDIR/g.sarif" &&
	ok "  ... JUnit: a failed test case; SARIF: no result (what it kept has no source line)" || notok "  ... JUnit: $(grep -A2 max_range "$TMPDIR/g.xml")"
expect_exit 0 "check --max-range-growth within budget" -- "$GMPROF" check --max-range-growth 'step=8KiB' "$TMPDIR/loop.jsonl"
grep -qx "PASS max_range_growth: every NVTX range within its growth budget: 'step' <= 8.0 KiB: 1 matched (the largest 8.0 KiB)" "$TMPDIR/out" &&
	! grep -q max_range_peak "$TMPDIR/out" && ok "  ... one line, and no peak check asked for" || notok "  ... $(grep max_range "$TMPDIR/out")"
expect_exit 0 "  ... a phase entered once grew by nothing" -- "$GMPROF" check --max-range-growth 'step=0' "$S"
expect_exit 1 "check --max-range-growth with a budget that matches no range" -- "$GMPROF" check --max-range-growth 'epoch=0' "$TMPDIR/loop.jsonl"
grep -q "^FAIL max_range_growth: 1 budget matched no range$" "$TMPDIR/out" && ok "  ... fails, saying so" || notok "  ... $(grep -A1 max_range "$TMPDIR/out")"
expect_exit 2 "check --max-range-growth without a budget" -- "$GMPROF" check --max-range-growth 'step' "$TMPDIR/loop.jsonl"
expect_stderr_line "bad --max-range-growth 'step'" "  ... refused in one line"

# A budget per phase (check --max-range-peak GLOB=BYTES): every range matching GLOB on every device.
expect_exit 0 "check --max-range-peak within budget" -- "$GMPROF" check --max-range-peak 'step*=2GiB' --max-range-peak 'setup=768MiB' "$S"
grep -qx "PASS max_range_peak: every NVTX range within its budget: 'step\*' <= 2.0 GiB: 4 matched (the largest 1.2 GiB); 'setup' <= 768.0 MiB: 1 matched (the largest 768.0 MiB)" "$TMPDIR/out" &&
	ok "  ... one line: each budget, the ranges it matched, their largest peak" || notok "  ... $(grep max_range "$TMPDIR/out")"
expect_exit 1 "check --max-range-peak over budget" -- "$GMPROF" check --max-range-peak 'step > *=1GiB' --max-range-peak 'setup=1GiB' \
	--sarif "$TMPDIR/r.sarif" --junit "$TMPDIR/r.xml" --force "$S"
printf '%s\n' "FAIL max_range_peak: 1 NVTX range over budget" \
	"  step > backward on device 0: 1.2 GiB > 1.0 GiB ('step > *' <= 1.0 GiB), reached at ALLOC (stream 0, #6) at model.cu:30" >"$TMPDIR/rp.want"
grep -A1 '^FAIL max_range_peak' "$TMPDIR/out" | diff -u "$TMPDIR/rp.want" - >"$TMPDIR/diff" &&
	ok "  ... the range over its budget (forward, at exactly 1 GiB, is not), where its peak is reached" ||
	{ notok "  ... over budget"; cat "$TMPDIR/diff"; }
"$B/tools/sarif_check" "$TMPDIR/r.sarif" >/dev/null && [ "$(grep -c '"ruleId": "range_peak_over_budget"' "$TMPDIR/r.sarif")" -eq 1 ] &&
	grep -A12 '"ruleId": "range_peak_over_budget"' "$TMPDIR/r.sarif" | tr -d '\n' | grep -q '"level": "error".*NVTX range .step > backward. on device 0 is 1.2 GiB, over its budget of 1.0 GiB' &&
	ok "  ... SARIF: an error at the call that reaches the range's peak" || notok "  ... SARIF: $(grep -A12 range_peak "$TMPDIR/r.sarif")"
grep -A1 'name="max_range_peak"' "$TMPDIR/r.xml" | grep -q '<failure' &&
	ok "  ... JUnit: a failed test case" || notok "  ... JUnit: $(grep -A2 max_range "$TMPDIR/r.xml")"
expect_exit 1 "check --max-range-peak with a budget that matches no range" -- "$GMPROF" check --max-range-peak 'step > fwd=1GiB' "$S"
grep -q "^FAIL max_range_peak: 1 budget matched no range$" "$TMPDIR/out" &&
	grep -q "^  no NVTX range matches 'step > fwd' (does the program push it" "$TMPDIR/out" &&
	ok "  ... fails, saying so (no silent pass when the ranges are gone)" || notok "  ... $(grep -A1 max_range "$TMPDIR/out")"
expect_exit 1 "  ... a program without ranges fails it too" -- "$GMPROF" check --max-range-peak '*=1GiB' tests/scripts/figure2.jsonl
{ printf '{"op":"meta","key":"device.0.memory","value":"2147483648"}\n'; cat "$S"; } >"$TMPDIR/mem.jsonl"
expect_exit 1 "check --max-range-peak as a share of the device's memory" -- "$GMPROF" check --max-range-peak 'step > *=50%' "$TMPDIR/mem.jsonl"
grep -q "^  step > backward on device 0: 1.2 GiB > 1.0 GiB ('step > \*' <= 50% of each device's memory)" "$TMPDIR/out" &&
	ok "  ... 50% of 2 GiB" || notok "  ... $(grep -A2 max_range "$TMPDIR/out")"
expect_exit 2 "  ... refused where the profile does not record the device's memory" -- "$GMPROF" check --max-range-peak 'step=50%' "$S"
expect_stderr_line "does not record device 0's memory .*: give --max-range-peak in bytes" "  ... one sentence"
for bad in 'step' '=1GiB' 'step=lots' 'step=-1'; do
	expect_exit 2 "check --max-range-peak '$bad'" -- "$GMPROF" check --max-range-peak "$bad" "$S"
	expect_stderr_line "bad --max-range-peak '$bad' (like 'step > forward=6GiB' or 'step\*=50%'; at most 16 of them in all)" "  ... one sentence"
done
set --
i=0; while [ $i -lt 17 ]; do set -- "$@" --max-range-peak "r$i=1GiB"; i=$((i + 1)); done
expect_exit 2 "check with 17 range budgets" -- "$GMPROF" check "$@" "$S"

# Against a baseline: each range's peak, with the tolerance; version 4 only where the run had ranges.
expect_exit 0 "baseline of a run with ranges" -- "$GMPROF" baseline -o "$TMPDIR/b.json" "$S"
grep -q '"gmprof_baseline": 4,' "$TMPDIR/b.json" &&
	tr -d ' \n' <"$TMPDIR/b.json" | grep -q '"range_peaks":\[{"range":"setup","peak_bytes":805306368},{"range":"step","peak_bytes":1342177280},{"range":"step>backward","peak_bytes":1342177280},{"range":"step>forward","peak_bytes":1073741824},{"range":"step>optimizer","peak_bytes":1073741824}\]' &&
	ok "  ... version 4, each range's peak, by path" || notok "  ... $(cat "$TMPDIR/b.json")"
"$GMPROF" baseline tests/scripts/figure2.jsonl | grep -q '"gmprof_baseline": 3,' && ok "  ... version 3 without ranges" ||
	notok "  ... version 3 without ranges"
expect_exit 0 "check against it, the same run" -- "$GMPROF" check --baseline "$TMPDIR/b.json" "$S"
grep -qx "PASS baseline:range_peak: 5 NVTX ranges within the baseline's peaks" "$TMPDIR/out" && ok "  ... every range compared" ||
	notok "  ... $(grep range_peak "$TMPDIR/out")"
sed 's/"size":268435456,"label":"grads"/"size":536870912,"label":"grads"/' "$S" >"$TMPDIR/grads.jsonl"
expect_exit 1 "check a run whose backward phase grew" -- "$GMPROF" check --baseline "$TMPDIR/b.json" "$TMPDIR/grads.jsonl"
printf '%s\n' "FAIL baseline:range_peak: 3 of 5 NVTX ranges grew past the baseline" \
	"  step on device 0: 1.5 GiB, the baseline's 1.2 GiB (allowed up to 1.2 GiB)" \
	"  step > backward on device 0: 1.5 GiB, the baseline's 1.2 GiB (allowed up to 1.2 GiB)" \
	"  step > optimizer on device 0: 1.2 GiB, the baseline's 1.0 GiB (allowed up to 1.0 GiB)" >"$TMPDIR/bg.want"
grep -A3 '^FAIL baseline:range_peak' "$TMPDIR/out" | diff -u "$TMPDIR/bg.want" - >"$TMPDIR/diff" && ok "  ... the ranges that grew, each with its peaks" ||
	{ notok "  ... grew"; cat "$TMPDIR/diff"; }
expect_exit 1 "  ... within 20%: only the peak of step > optimizer (+25%) fails" -- "$GMPROF" check --baseline "$TMPDIR/b.json" --tolerance 20% "$TMPDIR/grads.jsonl"
grep -q '^FAIL baseline:range_peak: 1 of 5 NVTX ranges grew past the baseline$' "$TMPDIR/out" && grep -q '^  step > optimizer on device 0' "$TMPDIR/out" &&
	ok "  ... the tolerance applies to each range" || notok "  ... $(grep -A2 range_peak "$TMPDIR/out")"
expect_exit 0 "  ... within 25% all pass" -- "$GMPROF" check --baseline "$TMPDIR/b.json" --tolerance 25% "$TMPDIR/grads.jsonl"
# A run without the baseline's ranges: fails (say NVTX was not loaded); one with a new range: counted, passes.
expect_exit 1 "check a run without the baseline's ranges" -- "$GMPROF" check --baseline "$TMPDIR/b.json" tests/scripts/figure2.jsonl
grep -q "^FAIL baseline:range_peak: 1 device without the baseline's NVTX ranges (0 new in this run, 5 of the baseline's not in it)$" "$TMPDIR/out" &&
	grep -q "^  device 0: none of the baseline's 5 NVTX ranges is in this run" "$TMPDIR/out" && ok "  ... fails, saying so" ||
	notok "  ... $(grep -A1 range_peak "$TMPDIR/out")"
sed 's/"name":"optimizer"/"name":"adam"/' "$S" >"$TMPDIR/adam.jsonl"
expect_exit 0 "check a run with a range renamed" -- "$GMPROF" check --baseline "$TMPDIR/b.json" "$TMPDIR/adam.jsonl"
grep -qx "PASS baseline:range_peak: 4 NVTX ranges within the baseline's peaks (1 new in this run, 1 of the baseline's not in it)" "$TMPDIR/out" &&
	ok "  ... the new one and the missing one counted" || notok "  ... $(grep range_peak "$TMPDIR/out")"
"$GMPROF" baseline -o "$TMPDIR/b3.json" tests/scripts/figure2.jsonl
"$GMPROF" check --baseline "$TMPDIR/b3.json" "$S" | grep -q range_peak && notok "a baseline without ranges: no range check" ||
	ok "a baseline without ranges: no range check"
# A profile as the baseline (taken on the fly) has its ranges too.
expect_exit 1 "check --baseline RUN" -- "$GMPROF" check --baseline "$S" "$TMPDIR/grads.jsonl"
grep -q '^FAIL baseline:range_peak: 3 of 5 NVTX ranges grew past the baseline$' "$TMPDIR/out" && ok "  ... the run's ranges are the baseline's" ||
	notok "  ... $(grep range_peak "$TMPDIR/out")"
# Against a baseline, what a loop's times kept (baseline:range_growth): version 5 keeps each
# range entered more than once with its times and growth, version 6 also where what a range
# that grew kept was allocated.  fixed.jsonl is the loop with each step's buffer freed inside
# it (nvtx_loop_fixed.jsonl): its steps keep nothing.
"$GMPROF" baseline -o "$TMPDIR/bl.json" "$TMPDIR/loop.jsonl" && grep -q '"gmprof_baseline": 6,' "$TMPDIR/bl.json" &&
	tr -d ' \n' <"$TMPDIR/bl.json" | grep -q '"range_peaks":\[{"range":"step","peak_bytes":13312,"times":3,"grew_bytes":8192,"kept_sites":\[{"site":"kept1","bytes":4096},{"site":"kept2","bytes":4096}\]}\]' &&
	ok "baseline of a loop: version 6, the range's times, growth and what it kept (by label: no source line)" ||
	notok "baseline of a loop: $(cat "$TMPDIR/bl.json")"
grep -q '"times"' "$TMPDIR/b.json" && notok "  ... ranges entered once: no times" || ok "  ... ranges entered once: no times (version 4)"
cp tests/scripts/nvtx_loop_fixed.jsonl "$TMPDIR/fixed.jsonl"
"$GMPROF" baseline -o "$TMPDIR/bf.json" "$TMPDIR/fixed.jsonl" &&
	tr -d ' \n' <"$TMPDIR/bf.json" | grep -q '"range_peaks":\[{"range":"step","peak_bytes":5120,"times":3,"grew_bytes":0}\]' &&
	ok "  ... of the fixed loop: 3 times, grew by 0" || notok "  ... fixed: $(cat "$TMPDIR/bf.json")"
expect_exit 0 "check a loop against its own baseline" -- "$GMPROF" check --baseline "$TMPDIR/bl.json" "$TMPDIR/loop.jsonl"
grep -qx "PASS baseline:range_growth: 1 NVTX range entered more than once, none keeping more from its first time to its last than the baseline's" "$TMPDIR/out" &&
	grep -qx "PASS baseline:range_peak: 1 NVTX range within the baseline's peaks" "$TMPDIR/out" &&
	ok "  ... its growth compared" || notok "  ... $(grep range_ "$TMPDIR/out")"
expect_exit 1 "check the loop that keeps memory against the fixed one's baseline" -- \
	"$GMPROF" check --baseline "$TMPDIR/bf.json" --junit "$TMPDIR/bf.xml" --markdown "$TMPDIR/bf.md" "$TMPDIR/loop.jsonl"
printf '%s\n' "FAIL baseline:range_growth: 1 of 1 NVTX ranges entered more than once kept more from their first time to their last than the baseline's" \
	"  step on device 0: began the last of its 3 times with 8.0 KiB more live than the first; the baseline's, 0 B over 3 times (allowed up to 0 B)" \
	"    live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from kept1 (4.0 KiB in 1), kept2 (4.0 KiB in 1)" >"$TMPDIR/kg.want"
grep -A2 '^FAIL baseline:range_growth' "$TMPDIR/out" | diff -u "$TMPDIR/kg.want" - >"$TMPDIR/diff" &&
	grep -A1 'name="baseline:range_growth"' "$TMPDIR/bf.xml" | grep -q '<failure' && grep -q 'baseline:range_growth' "$TMPDIR/bf.md" &&
	ok "  ... fails: the range, its times, its growth and the baseline's, what it kept (log, JUnit, Markdown)" ||
	{ notok "  ... kept"; cat "$TMPDIR/diff"; }
expect_exit 0 "  ... within a tolerance of 8 KiB it passes" -- "$GMPROF" check --baseline "$TMPDIR/bf.json" --tolerance 8KiB "$TMPDIR/loop.jsonl"
expect_exit 1 "  ... within 7 KiB it fails" -- "$GMPROF" check --baseline "$TMPDIR/bf.json" --tolerance 7KiB "$TMPDIR/loop.jsonl"
grep -q "^FAIL baseline:range_growth.*" "$TMPDIR/out" && grep -q "(allowed up to 7.0 KiB)$" "$TMPDIR/out" &&
	ok "  ... the tolerance applies to the growth" || notok "  ... $(grep -A1 range_ "$TMPDIR/out")"
expect_exit 0 "check the fixed loop against the first one's baseline" -- "$GMPROF" check --baseline "$TMPDIR/bl.json" "$TMPDIR/fixed.jsonl"
expect_exit 1 "check the loop against a run as the baseline (the fixed one's)" -- "$GMPROF" check --baseline "$TMPDIR/fixed.jsonl" "$TMPDIR/loop.jsonl"
grep -q "^FAIL baseline:range_growth: 1 of 1" "$TMPDIR/out" && ok "  ... the run's times are the baseline's" || notok "  ... $(grep range_ "$TMPDIR/out")"
# SARIF: where what a range kept has a source line, a range_growth result there (one a range and
# device, whichever of the growth checks failed it), so code scanning marks the leaking allocation.
kept_at "$TMPDIR/loop.jsonl" "$TMPDIR/loop_at.jsonl"
kept_at "$TMPDIR/fixed.jsonl" "$TMPDIR/fixed_at.jsonl"
expect_exit 1 "check --max-range-growth and --baseline of a loop with sites, SARIF" -- "$GMPROF" check --max-range-growth 'step=0' \
	--baseline "$TMPDIR/fixed_at.jsonl" --sarif "$TMPDIR/kg.sarif" --annotations github "$TMPDIR/loop_at.jsonl"
"$B/tools/sarif_check" "$TMPDIR/kg.sarif" >/dev/null && [ "$(grep -c '"ruleId": "range_growth"' "$TMPDIR/kg.sarif")" -eq 1 ] &&
	grep -A30 '"ruleId": "range_growth"' "$TMPDIR/kg.sarif" | tr -d '\n' | grep -q '"level": "error".*NVTX range .step. on device 0 began the last of its 3 times with 8.0 KiB more GPU memory live than the first, over its growth budget of 0 B (--max-range-growth .step.); objects allocated here since its first time began hold 8.0 KiB.*"uri": "train.cu".*"startLine": 42.*"gmprofRangeGrowth/v1"' &&
	ok "  ... one range_growth result, at train.cu:42" || notok "  ... SARIF: $(grep -A30 '"ruleId": "range_growth"' "$TMPDIR/kg.sarif")"
grep -q '^::error file=train.cu,line=42,title=gmprof range_growth::' "$TMPDIR/out" && ok "  ... and a GitHub annotation there" ||
	notok "  ... annotations: $(grep '^::' "$TMPDIR/out")"
expect_exit 1 "  ... the baseline alone" -- "$GMPROF" check --baseline "$TMPDIR/fixed_at.jsonl" --sarif "$TMPDIR/kb.sarif" "$TMPDIR/loop_at.jsonl"
grep -A8 '"ruleId": "range_growth"' "$TMPDIR/kb.sarif" | grep -q "past the baseline's 0 B and the tolerance (baseline:range_growth)" &&
	ok "  ... says past the baseline's growth" || notok "  ... $(grep -A8 '"ruleId": "range_growth"' "$TMPDIR/kb.sarif")"
expect_exit 0 "  ... within the tolerance, no result" -- "$GMPROF" check --baseline "$TMPDIR/fixed_at.jsonl" --tolerance 16KiB \
	--sarif "$TMPDIR/kt.sarif" "$TMPDIR/loop_at.jsonl"
grep -q '"ruleId": "range_growth"' "$TMPDIR/kt.sarif" && notok "  ... a result: $(grep -c range_growth "$TMPDIR/kt.sarif")" ||
	ok "  ... none"
# Version 6: where the baseline's times kept what they kept, the failure says what they kept from
# each of the run's sites: the one site new since the baseline is told from the one it had.  The
# worse loop keeps its first step's 1 KiB buffer too (allocated at model.cu:7).
kept_at "$TMPDIR/loop.jsonl" "$TMPDIR/loop_at.jsonl"
"$GMPROF" baseline -o "$TMPDIR/bk.json" "$TMPDIR/loop_at.jsonl" &&
	tr -d ' \n' <"$TMPDIR/bk.json" | grep -q '"kept_sites":\[{"site":"train.cu:42","bytes":8192,"key":"[0-9a-f]\{16\}"}\]' &&
	ok "baseline of a loop with sites: kept sites with their keys" || notok "  ... $(cat "$TMPDIR/bk.json")"
awk '/"label":"tmp1"/ { sub(/"label":"tmp1"/, "\"label\":\"tmp1\",\"at\":\"model.cu:7\"") }
	/"op":"free","addr":73728/ { held = $0; next } { print } END { print held }' "$TMPDIR/loop_at.jsonl" >"$TMPDIR/worse.jsonl"
expect_exit 1 "check a loop that keeps more, at a new site, against a version 6 baseline" -- \
	"$GMPROF" check --baseline "$TMPDIR/bk.json" "$TMPDIR/worse.jsonl"
printf '%s\n' "  step on device 0: began the last of its 3 times with 9.0 KiB more live than the first; the baseline's, 8.0 KiB over 3 times (allowed up to 8.0 KiB)" \
	"    live as its last time began, allocated since its first: 9.0 KiB in 3 objects, from train.cu:42 (8.0 KiB in 2), model.cu:7 (1.0 KiB in 1)" \
	"    the baseline's times kept: 8.0 KiB from train.cu:42, none from model.cu:7" >"$TMPDIR/kk.want"
grep -A3 '^FAIL baseline:range_growth' "$TMPDIR/out" | tail -n 3 | diff -u "$TMPDIR/kk.want" - >"$TMPDIR/diff" &&
	ok "  ... what the baseline's times kept from each site: the new one said" || { notok "  ... kept"; cat "$TMPDIR/diff"; }
expect_exit 1 "  ... SARIF" -- "$GMPROF" check --baseline "$TMPDIR/bk.json" --sarif "$TMPDIR/kk.sarif" "$TMPDIR/worse.jsonl"
"$B/tools/sarif_check" "$TMPDIR/kk.sarif" >/dev/null && [ "$(grep -c '"ruleId": "range_growth"' "$TMPDIR/kk.sarif")" -eq 2 ] &&
	tr -d '\n' <"$TMPDIR/kk.sarif" | grep -q "The baseline's times kept none from here.*\"uri\": \"model.cu\".*\"baseline_kept_bytes\": 0" &&
	tr -d '\n' <"$TMPDIR/kk.sarif" | grep -q "The baseline's times kept 8.0 KiB from here.*\"uri\": \"train.cu\".*\"baseline_kept_bytes\": 8192" &&
	ok "  ... a result at each site, saying what the baseline's times kept there" ||
	notok "  ... $(grep -A30 '"ruleId": "range_growth"' "$TMPDIR/kk.sarif")"
expect_exit 1 "  ... a run as the baseline knows the same" -- "$GMPROF" check --baseline "$TMPDIR/loop_at.jsonl" "$TMPDIR/worse.jsonl"
grep -qx "    the baseline's times kept: 8.0 KiB from train.cu:42, none from model.cu:7" "$TMPDIR/out" && ok "  ... said" ||
	notok "  ... $(grep -A3 '^FAIL baseline:range_growth' "$TMPDIR/out")"
tr -d '\n' <"$TMPDIR/bk.json" | sed 's/"gmprof_baseline": 6/"gmprof_baseline": 5/; s/,[ ]*"kept_sites": \[[^]]*\]//' >"$TMPDIR/bk5.json"
expect_exit 1 "  ... a version 5 baseline, which lacks them, does not" -- "$GMPROF" check --baseline "$TMPDIR/bk5.json" "$TMPDIR/worse.jsonl"
grep -q "^FAIL baseline:range_growth" "$TMPDIR/out" && ! grep -q "the baseline's times kept" "$TMPDIR/out" && ok "  ... the growth alone" ||
	notok "  ... $(grep -A3 '^FAIL baseline:range_growth' "$TMPDIR/out")"
# refused NAME BASELINE SENTENCE: check of the loop refuses BASELINE, in one sentence matching SENTENCE.
refused() {
	expect_exit 2 "$1" -- "$GMPROF" check --baseline "$2" "$TMPDIR/loop.jsonl"
	expect_stderr_line "$3" "  ... one sentence"
}
# Read strictly: kept sites only in version 6, only where the range grew, each a site.
sed 's/"gmprof_baseline": 6/"gmprof_baseline": 5/' "$TMPDIR/bk.json" >"$TMPDIR/k5.json"
refused "a version 5 baseline with kept sites" "$TMPDIR/k5.json" "bad baseline '.*k5.json': unknown key 'kept_sites'"
sed 's/"grew_bytes": 8192/"grew_bytes": 0/' "$TMPDIR/bk.json" >"$TMPDIR/k0.json"
refused "kept sites of a range that did not grow" "$TMPDIR/k0.json" \
	"a range peak has \"kept_sites\" only where it grew (\"grew_bytes\" above 0)"
tr -d '\n' <"$TMPDIR/bk.json" | sed 's/"kept_sites": \[[^]]*\]/"kept_sites": [1]/' >"$TMPDIR/kx.json"
refused "a kept site that is no object" "$TMPDIR/kx.json" "every kept site must be an object"
tr -d '\n' <"$TMPDIR/bk.json" | sed 's/"key": "[0-9a-f]*"/"key": "xyz"/2' >"$TMPDIR/kh.json"
refused "a kept site with a bad key" "$TMPDIR/kh.json" "a kept site's \"key\" must be 16 lower-case hex digits"
# A loop entered once in the baseline (version 5 omits its times; its peaks made the loop's) and three
# times in the run: held to no growth.
tr -d '\n' <"$TMPDIR/bf.json" | sed 's/,[ ]*"times": 3,[ ]*"grew_bytes": 0//; s/": 5120/": 13312/g' >"$TMPDIR/b1.json"
grep -q '"gmprof_baseline": 5' "$TMPDIR/b1.json" && ! grep -q '"times"' "$TMPDIR/b1.json" || notok "b1.json: $(cat "$TMPDIR/b1.json")"
expect_exit 1 "check the loop against a version 5 baseline whose step ran once" -- "$GMPROF" check --baseline "$TMPDIR/b1.json" "$TMPDIR/loop.jsonl"
grep -q "^  step on device 0: began the last of its 3 times with 8.0 KiB more live than the first; the baseline's, 0 B over 1 time " "$TMPDIR/out" &&
	grep -q "^PASS baseline:range_peak" "$TMPDIR/out" && ok "  ... held to no growth" || notok "  ... $(grep -A1 range_ "$TMPDIR/out")"
# A version 4 baseline has no times: no growth compared.
sed 's/"gmprof_baseline": 5/"gmprof_baseline": 4/' "$TMPDIR/b1.json" >"$TMPDIR/b4.json"
expect_exit 0 "check the loop against a version 4 baseline" -- "$GMPROF" check --baseline "$TMPDIR/b4.json" "$TMPDIR/loop.jsonl"
grep -q range_growth "$TMPDIR/out" && notok "  ... compared growth: $(grep range_growth "$TMPDIR/out")" || ok "  ... no growth compared"
# Read strictly: times only in version 5, 2 or more, and with grew_bytes.
sed 's/"gmprof_baseline": 6/"gmprof_baseline": 4/' "$TMPDIR/bl.json" >"$TMPDIR/v4t.json"
refused "a version 4 baseline with times" "$TMPDIR/v4t.json" "bad baseline '.*v4t.json': unknown key 'times'"
sed 's/"times": 3/"times": 1/' "$TMPDIR/bl.json" >"$TMPDIR/t1.json"
refused "a baseline with a range entered once given its times" "$TMPDIR/t1.json" \
	"bad baseline '.*t1.json': a range peak's \"times\" (2 or more) and \"grew_bytes\" (a non-negative integer) go together"
tr -d '\n' <"$TMPDIR/bl.json" | sed 's/,[ ]*"grew_bytes": 8192//' >"$TMPDIR/ng.json"
refused "a baseline with times and no growth" "$TMPDIR/ng.json" \
	"\"times\" (2 or more) and \"grew_bytes\" (a non-negative integer) go together"

# A baseline of version 4 is read strictly: a range twice is refused in one sentence.
sed '0,/"range": "step",/s//"range": "setup",/' "$TMPDIR/b.json" >"$TMPDIR/twice.json"
expect_exit 2 "a baseline with a range twice" -- "$GMPROF" check --baseline "$TMPDIR/twice.json" "$S"
expect_stderr_line "bad baseline '.*twice.json': a range is in a peak's \"range_peaks\" twice" "  ... one sentence"
finish
