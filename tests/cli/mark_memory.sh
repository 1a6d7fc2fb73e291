# SPDX-License-Identifier: MIT
# Memory at NVTX marks: the live bytes at each moment a program names with
# nvtxMark ("loaded", "epoch"), by name in the text and JSON reports, on
# Perfetto's mark instants, in gmprof run's summary (a name whose live bytes
# grew, and what it kept by allocation site), and as CI budgets (gmprof
# check --max-mark, --max-mark-growth).  tests/scripts/nvtx_marks.jsonl: a
# loop marking "epoch" three times keeps 1 KiB each time.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
S=tests/scripts/nvtx_marks.jsonl

expect_exit 0 "report of a run with marks" -- "$GMPROF" report --no-source "$S"
printf '%s\n' "Memory at NVTX marks on device 0" \
	"  live: the bytes that the calls issued before the mark had allocated and not freed" \
	"  mark                                times      first       last      least       most" \
	"  start                                   1        0 B" \
	"  loaded                                  1    4.0 KiB" \
	"  epoch                                   3    5.0 KiB    7.0 KiB    5.0 KiB    7.0 KiB" \
	"  done                                    1    3.0 KiB" \
	"  epoch: live bytes grew from 5.0 KiB (the first of its 3 marks) to 7.0 KiB (the last), 1.0 KiB more each time" \
	"    live at its last mark, allocated since its first: 2.0 KiB in 2 objects, from train.cu:42 (2.0 KiB in 2)" >"$TMPDIR/want"
sed -n '/^Memory at NVTX marks/,/^$/p' "$TMPDIR/out" | sed '/^$/d' | diff -u "$TMPDIR/want" - >"$TMPDIR/diff" &&
	ok "  ... a table by name: the first, last, least and most live; the name that grew and what it kept" ||
	{ notok "  ... the marks' table"; cat "$TMPDIR/diff"; }
expect_exit 0 "Markdown report" -- "$GMPROF" report --format markdown "$S"
printf '%s\n' "### Memory at NVTX marks, device 0" "" \
	"Live: the bytes that the calls issued before the mark had allocated and not freed." "" \
	"| mark | times | first | last | least | most |" "|---|---|---|---|---|---|" \
	'| `start` | 1 | 0 B | | | |' '| `loaded` | 1 | 4.0 KiB | | | |' \
	'| `epoch` | 3 | 5.0 KiB | 7.0 KiB | 5.0 KiB | 7.0 KiB |' '| `done` | 1 | 3.0 KiB | | | |' "" \
	'`epoch`: live bytes grew from 5.0 KiB (the first of its 3 marks) to 7.0 KiB (the last), 1.0 KiB more each time' "" \
	"live at its last mark, allocated since its first: 2.0 KiB in 2 objects, from train.cu:42 (2.0 KiB in 2)" "" >"$TMPDIR/want"
sed -n '/^### Memory at NVTX marks/,/^### Findings/p' "$TMPDIR/out" | sed '$d' | diff -u "$TMPDIR/want" - >"$TMPDIR/diff" &&
	ok "  ... the same table, and the name that grew" || { notok "  ... Markdown"; cat "$TMPDIR/diff"; }
expect_exit 0 "HTML report" -- "$GMPROF" html -o "$TMPDIR/r.html" "$S"
sed -n '/<h2>Memory at NVTX marks, device 0<\/h2>/,/<\/table>/p' "$TMPDIR/r.html" | tr -d '\n' >"$TMPDIR/h"
grep -q '<tr><td>epoch</td><td class="n">3</td><td class="n">5.0 KiB</td><td class="n">7.0 KiB</td><td class="n">5.0 KiB</td><td class="n">7.0 KiB</td></tr>' "$TMPDIR/h" &&
	grep -q '<tr><td>loaded</td><td class="n">1</td><td class="n">4.0 KiB</td><td></td><td></td><td></td></tr>' "$TMPDIR/h" &&
	grep -q '<tr><td colspan="6">&nbsp;&nbsp;live at its last mark, allocated since its first: 2.0 KiB in 2 objects, from train.cu:42 (2.0 KiB in 2)</td></tr></tbody></table>' "$TMPDIR/h" &&
	ok "  ... the same table" || notok "  ... HTML: $(cat "$TMPDIR/h")"
expect_exit 0 "a report without marks" -- "$GMPROF" report --no-source tests/scripts/nvtx_loop.jsonl
! grep -q "NVTX marks" "$TMPDIR/out" && ok "  ... has no such table" || notok "  ... $(grep -A3 'NVTX marks' "$TMPDIR/out")"

expect_exit 0 "JSON report" -- "$GMPROF" report --format json "$S"
grep -q '"memory_at_marks":\[{"mark":"start","device":0,"times":1,"first_bytes":0,"last_bytes":0,"min_bytes":0,"max_bytes":0,"growth_bytes":0,"first_host_ns":100,"last_host_ns":100,"max_host_ns":100},{"mark":"loaded",' "$TMPDIR/out" &&
	grep -q '{"mark":"epoch","device":0,"times":3,"first_bytes":5120,"last_bytes":7168,"min_bytes":5120,"max_bytes":7168,"growth_bytes":2048,"first_host_ns":600,"last_host_ns":1200,"max_host_ns":1200,"kept":{"bytes":2048,"objects":2,"sites":\[{"site":"train.cu:42","bytes":2048,"objects":2}\]}}' "$TMPDIR/out" &&
	ok "  ... memory_at_marks: every name, what epoch kept by site" || notok "  ... $(grep -o '"memory_at_marks":.*' "$TMPDIR/out" | head -c 900)"

# Perfetto's host axis: each mark's instant carries the live bytes then.
expect_exit 0 "perfetto --time host" -- "$GMPROF" perfetto --time host -o "$TMPDIR/p.json" "$S"
grep -o '"ph":"i","name":"[a-z]*","pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"s":"t","cat":"nvtx_mark","args":{[^}]*}' "$TMPDIR/p.json" |
	sed 's/"pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,//' >"$TMPDIR/inst"
printf '%s\n' '"ph":"i","name":"start","s":"t","cat":"nvtx_mark","args":{"live on device 0":"0 B"}' \
	'"ph":"i","name":"loaded","s":"t","cat":"nvtx_mark","args":{"live on device 0":"4.0 KiB"}' \
	'"ph":"i","name":"epoch","s":"t","cat":"nvtx_mark","args":{"live on device 0":"5.0 KiB"}' \
	'"ph":"i","name":"epoch","s":"t","cat":"nvtx_mark","args":{"live on device 0":"6.0 KiB"}' \
	'"ph":"i","name":"epoch","s":"t","cat":"nvtx_mark","args":{"live on device 0":"7.0 KiB"}' \
	'"ph":"i","name":"done","s":"t","cat":"nvtx_mark","args":{"live on device 0":"3.0 KiB"}' | diff -u - "$TMPDIR/inst" >"$TMPDIR/diff" &&
	"$B/tools/trace_check" "$TMPDIR/p.json" >/dev/null 2>&1 &&
	ok "  ... each mark's instant says what was live on the device" || { notok "  ... instants"; cat "$TMPDIR/diff"; }

# Two devices: a name is told on the devices where something was live at one of its marks.
cat >"$TMPDIR/two.jsonl" <<'J'
{"op":"mark","name":"begin"}
{"op":"alloc","addr":"0x1000","size":4096,"device":1}
{"op":"mark","name":"on1"}
{"op":"alloc","addr":"0x9000","size":2048}
{"op":"kernel","name":"k","write":["0x1000"],"device":1}
{"op":"kernel","name":"k","write":["0x9000"]}
{"op":"mark","name":"both"}
J
expect_exit 0 "two devices" -- "$GMPROF" report --no-source "$TMPDIR/two.jsonl"
sed -n '/^Memory at NVTX marks on device 0/,/^$/p' "$TMPDIR/out" | grep -o '^  [a-z0-9]* ' | tr -d ' \n' >"$TMPDIR/d0"
sed -n '/^Memory at NVTX marks on device 1/,/^$/p' "$TMPDIR/out" | grep -o '^  [a-z0-9]* ' | tr -d ' \n' >"$TMPDIR/d1"
[ "$(cat "$TMPDIR/d0")" = "markboth" ] && [ "$(cat "$TMPDIR/d1")" = "markon1both" ] &&
	ok "  ... device 0 tells 'both', device 1 'on1' and 'both'; 'begin' found nothing on either" ||
	notok "  ... device 0: $(cat "$TMPDIR/d0"), device 1: $(cat "$TMPDIR/d1")"

# Many names ("step 1" .. "step 20"): the first eight and the last eight, the rest counted.
awk 'BEGIN { for (i = 1; i <= 20; i++) { printf "{\"op\":\"alloc\",\"addr\":%d,\"size\":1024}\n", 65536 * i
	printf "{\"op\":\"mark\",\"name\":\"step %d\"}\n", i } }' >"$TMPDIR/many.jsonl"
expect_exit 0 "twenty names" -- "$GMPROF" report --no-source "$TMPDIR/many.jsonl"
sed -n '/^Memory at NVTX marks/,/^$/p' "$TMPDIR/out" | awk '/^  step|^  \.\.\./ { printf "%s|", $1 == "..." ? $0 : $2 }' >"$TMPDIR/rows"
[ "$(cat "$TMPDIR/rows")" = "1|2|3|4|5|6|7|8|  ... 4 more marks (--format json lists every one)|13|14|15|16|17|18|19|20|" ] &&
	ok "  ... 16 rows: the first and last eight, the four between counted" || notok "  ... $(cat "$TMPDIR/rows")"

# Ten names that grow (g1 by 1 KiB .. g10 by 10 KiB): eight growth lines, the most first, and the rest counted.
awk 'BEGIN { a = 65536; for (r = 1; r <= 10; r++) for (t = 0; t < 2; t++) {
	printf "{\"op\":\"mark\",\"name\":\"g%d\"}\n", r
	printf "{\"op\":\"alloc\",\"addr\":%d,\"size\":%d,\"label\":\"b%d\"}\n", a, r * 1024, r; a += 65536 } }' >"$TMPDIR/ten.jsonl"
expect_exit 0 "ten names that grow" -- "$GMPROF" report --no-source "$TMPDIR/ten.jsonl"
sed -n '/^Memory at NVTX marks/,/^$/p' "$TMPDIR/out" | awk '/^  g[0-9]+: live bytes grew/ { sub(/:.*/, "", $1); printf "%s|", $1 }
	/^  \.\.\. and/ { printf "%s|", $0 }' >"$TMPDIR/grew"
[ "$(cat "$TMPDIR/grew")" = "g10|g9|g8|g7|g6|g5|g4|g3|  ... and 2 more marks grew (--format json lists every one)|" ] &&
	ok "  ... the eight that grew most, the two others counted" || notok "  ... $(cat "$TMPDIR/grew")"

# Several inputs (an MPI job's ranks): each one's line says the mark name that grew most.
expect_exit 0 "report --summary of a loop with ranges and one with marks" -- "$GMPROF" report --summary \
	tests/scripts/nvtx_loop.jsonl "$S"
grep -Eq '^  input +peak +findings +top saving +leaked  range that grew most  mark that grew most$' "$TMPDIR/out" &&
	grep -Eq '^  tests/scripts/nvtx_loop.jsonl .* 8.0 KiB in step +-$' "$TMPDIR/out" &&
	grep -Eq '^  tests/scripts/nvtx_marks.jsonl .*  -  +2.0 KiB at epoch$' "$TMPDIR/out" &&
	ok "  ... a column each: the range and the mark name that grew most" || notok "  ... $(sed -n '/^Inputs/,/^$/p' "$TMPDIR/out")"
expect_exit 0 "  ... as Markdown" -- "$GMPROF" report --summary --format markdown tests/scripts/nvtx_loop.jsonl "$S"
grep -qx '| `tests/scripts/nvtx_marks.jsonl` | 7.5 KiB | 13 | 1.0 KiB | 0 B | - | 2.0 KiB at epoch |' "$TMPDIR/out" &&
	ok "  ... the same columns" || notok "  ... $(grep '^|' "$TMPDIR/out" | head -4)"
expect_exit 0 "  ... inputs without marks" -- "$GMPROF" report --summary tests/scripts/nvtx_loop.jsonl tests/scripts/figure2.jsonl
! grep -q "mark that grew most" "$TMPDIR/out" && ok "  ... have no such column" || notok "  ... $(grep 'grew most' "$TMPDIR/out")"

# The CI gate: a budget at a mark, and on how much a name's marks may grow.
expect_exit 1 "check --max-mark, --max-mark-growth over budget" -- "$GMPROF" check --max-mark 'loaded=2KiB' \
	--max-mark 'ep*=5KiB' --max-mark-growth 'epoch=1KiB' --junit "$TMPDIR/g.xml" --force "$S"
printf '%s\n' "FAIL max_mark: 2 NVTX marks over budget" \
	"  loaded on device 0: 4.0 KiB live > 2.0 KiB ('loaded' <= 2.0 KiB)" \
	"  epoch on device 0: 7.0 KiB live > 5.0 KiB ('ep*' <= 5.0 KiB), at mark 3 of its 3" \
	"FAIL max_mark_growth: 1 NVTX mark over its growth budget" \
	"  epoch on device 0: 2.0 KiB more live at the last of its 3 marks than at the first > 1.0 KiB ('epoch' <= 1.0 KiB)" \
	"    live at its last mark, allocated since its first: 2.0 KiB in 2 objects, from train.cu:42 (2.0 KiB in 2)" \
	>"$TMPDIR/want"
sed -n '/^FAIL max_mark/,/^gmprof check/p' "$TMPDIR/out" | sed '$d' | diff -u "$TMPDIR/want" - >"$TMPDIR/diff" &&
	ok "  ... each name over its budget, the largest excess first; what the growing one kept" || { notok "  ... lines"; cat "$TMPDIR/diff"; }
grep -A1 'name="max_mark"' "$TMPDIR/g.xml" | grep -q '<failure' && grep -A1 'name="max_mark_growth"' "$TMPDIR/g.xml" | grep -q '<failure' &&
	ok "  ... JUnit: two failed test cases" || notok "  ... JUnit: $(grep -A2 max_mark "$TMPDIR/g.xml")"
# SARIF: a mark_growth error at the site of what the growing name kept (a mark has no source line of its own).
expect_exit 1 "check --max-mark-growth --sarif" -- "$GMPROF" check --max-mark 'loaded=2KiB' --max-mark-growth 'epoch=1KiB' \
	--sarif "$TMPDIR/g.sarif" --annotations github --force "$S"
"$B/tools/sarif_check" "$TMPDIR/g.sarif" >"$TMPDIR/sc" 2>&1 && [ "$(grep -c '"ruleId": "mark_growth"' "$TMPDIR/g.sarif")" -eq 1 ] &&
	grep -A40 '"ruleId": "mark_growth"' "$TMPDIR/g.sarif" | tr -d '\n ' |
	grep -q '"level":"error","message":{"text":"2.0KiBmoreGPUmemorywasliveondevice0atthelastofthe3NVTXmarks.epoch.thanatthefirst,overitsgrowthbudgetof1.0KiB(--max-mark-growth.epoch.);objectsallocatedheresincethefirstmarkhold2.0KiBofwhatwasliveatthelast."},"locations":\[{"physicalLocation":{"artifactLocation":{"uri":"train.cu","uriBaseId":"%SRCROOT%"},"region":{"startLine":42}}}\],"partialFingerprints":{"gmprofMarkGrowth/v1":"[0-9a-f]*"},"properties":{"mark":"epoch","device":0,"times":3,"grew_bytes":2048,"allowed_bytes":1024,"kept_bytes":2048,"kept_objects":2}' &&
	ok "  ... one mark_growth error, at train.cu:42" || notok "  ... SARIF: $(cat "$TMPDIR/sc") $(grep -A30 mark_growth "$TMPDIR/g.sarif")"
grep -q '^::error file=train.cu,line=42,title=gmprof mark_growth::2.0 KiB more GPU memory was live on device 0 at the last' "$TMPDIR/out" &&
	ok "  ... and a GitHub annotation there" || notok "  ... annotations: $(grep '^::' "$TMPDIR/out")"
grep -A3 '"id": "mark_growth"' "$TMPDIR/g.sarif" | grep -q '"name": "MarkGrowth"' && ok "  ... its rule declared" ||
	notok "  ... rule: $(grep -A3 mark_growth "$TMPDIR/g.sarif" | head -5)"
expect_exit 0 "check within budget" -- "$GMPROF" check --max-mark '*=7KiB' --max-mark-growth 'epoch=2KiB' "$S"
grep -qx "PASS max_mark: every NVTX mark within its budget: '\*' <= 7.0 KiB: 4 matched (the most 7.0 KiB)" "$TMPDIR/out" &&
	grep -qx "PASS max_mark_growth: every NVTX mark within its growth budget: 'epoch' <= 2.0 KiB: 1 matched (the largest growth 2.0 KiB)" "$TMPDIR/out" &&
	ok "  ... one line each: the budget, the names it matched, the most among them" || notok "  ... $(grep max_mark "$TMPDIR/out")"
expect_exit 1 "check --max-mark with a budget that matches no mark" -- "$GMPROF" check --max-mark 'epoch=1GiB' \
	--max-mark 'saved=1GiB' "$S"
grep -qx "FAIL max_mark: 1 budget matched no mark" "$TMPDIR/out" &&
	grep -q "^  no NVTX mark matches 'saved' (does the program mark it" "$TMPDIR/out" &&
	ok "  ... fails, saying so (no silent pass when the marks are gone)" || notok "  ... $(grep -A2 max_mark "$TMPDIR/out")"
expect_exit 1 "  ... a program without marks fails it too" -- "$GMPROF" check --max-mark-growth '*=1GiB' tests/scripts/nvtx_loop.jsonl
{ printf '{"op":"meta","key":"device.0.memory","value":"8192"}\n'; cat "$S"; } >"$TMPDIR/mem.jsonl"
expect_exit 1 "check --max-mark as a share of the device's memory" -- "$GMPROF" check --max-mark 'epoch=75%' "$TMPDIR/mem.jsonl"
grep -qx "  epoch on device 0: 7.0 KiB live > 6.0 KiB ('epoch' <= 75% of each device's memory), at mark 3 of its 3" "$TMPDIR/out" &&
	ok "  ... 75% of 8 KiB" || notok "  ... $(grep -A2 max_mark "$TMPDIR/out")"
expect_exit 2 "  ... refused where the profile does not record the device's memory" -- "$GMPROF" check --max-mark 'epoch=50%' "$S"
expect_stderr_line "does not record device 0's memory .*: give --max-mark in bytes" "  ... one sentence"
for bad in 'epoch' '=1GiB' 'epoch=lots'; do
	expect_exit 2 "check --max-mark '$bad' is refused" -- "$GMPROF" check --max-mark "$bad" "$S"
	expect_stderr_line "bad --max-mark '$bad'" "  ... in one line"
done
expect_exit 2 "check --max-mark-growth without a budget is refused" -- "$GMPROF" check --max-mark-growth 'epoch' "$S"
expect_stderr_line "bad --max-mark-growth 'epoch'" "  ... in one line"

# A baseline keeps each device's mark names (version 7): the most live at their marks, how many, their growth.
expect_exit 0 "baseline of a run with marks" -- "$GMPROF" baseline -o "$TMPDIR/b.json" "$S"
tr -d ' \n' <"$TMPDIR/b.json" >"$TMPDIR/b1"
grep -q '^{"gmprof_baseline":7,' "$TMPDIR/b1" &&
	grep -q '"mark_peaks":\[{"mark":"done","max_bytes":3072,"times":1,"grew_bytes":0},{"mark":"epoch","max_bytes":7168,"times":3,"grew_bytes":2048},{"mark":"loaded","max_bytes":4096,"times":1,"grew_bytes":0},{"mark":"start","max_bytes":0,"times":1,"grew_bytes":0}\]' "$TMPDIR/b1" &&
	ok "  ... version 7, every name by name" || notok "  ... $(cat "$TMPDIR/b1")"
expect_exit 0 "  ... a run without marks keeps version 6 or earlier" -- "$GMPROF" baseline -o "$TMPDIR/b6.json" tests/scripts/nvtx_loop.jsonl
grep -q '"gmprof_baseline": 6,' "$TMPDIR/b6.json" && ! grep -q mark_peaks "$TMPDIR/b6.json" && ok "  ... and no mark_peaks" ||
	notok "  ... $(head -3 "$TMPDIR/b6.json")"
expect_exit 0 "check the run against its baseline" -- "$GMPROF" check --baseline "$TMPDIR/b.json" "$S"
grep -qx "PASS baseline:mark_peak: 4 NVTX mark names within the baseline's most live" "$TMPDIR/out" &&
	grep -qx "PASS baseline:mark_growth: 1 NVTX mark name made more than once, none growing more from its first mark to its last than the baseline's" "$TMPDIR/out" &&
	ok "  ... both pass" || notok "  ... $(grep mark "$TMPDIR/out")"
# Each epoch keeps 2 KiB instead of 1: the most at epoch and done grows, and so does epoch's growth.
sed 's/"size":1024,"label":"kept\([23]\)"/"size":2048,"label":"kept\1"/' "$S" >"$TMPDIR/worse.jsonl"
expect_exit 1 "check a run whose epochs keep more against the baseline" -- "$GMPROF" check --baseline "$TMPDIR/b.json" \
	--sarif "$TMPDIR/w.sarif" --force "$TMPDIR/worse.jsonl"
printf '%s\n' "FAIL baseline:mark_peak: 2 of 4 NVTX mark names found more live than in the baseline" \
	"  epoch on device 0: 9.0 KiB live at the most, the baseline's 7.0 KiB (allowed up to 7.0 KiB)" \
	"  done on device 0: 5.0 KiB live at the most, the baseline's 3.0 KiB (allowed up to 3.0 KiB)" \
	"FAIL baseline:mark_growth: 1 of 1 NVTX mark names made more than once grew more from their first mark to their last than the baseline's" \
	"  epoch on device 0: 4.0 KiB more live at the last of its 3 marks than at the first; the baseline's, 2.0 KiB over 3 marks (allowed up to 2.0 KiB)" \
	"    live at its last mark, allocated since its first: 4.0 KiB in 2 objects, from train.cu:42 (4.0 KiB in 2)" >"$TMPDIR/want"
sed -n '/^FAIL baseline:mark_peak/,/^gmprof check/p' "$TMPDIR/out" | sed '$d' | diff -u "$TMPDIR/want" - >"$TMPDIR/diff" &&
	ok "  ... both fail: each name past the baseline's, and what epoch kept" || { notok "  ... lines"; cat "$TMPDIR/diff"; }
[ "$(grep -c '"ruleId": "mark_growth"' "$TMPDIR/w.sarif")" -eq 1 ] &&
	grep -q "past the baseline's 2.0 KiB and the tolerance (baseline:mark_growth)" "$TMPDIR/w.sarif" &&
	ok "  ... SARIF: a mark_growth result at train.cu:42" || notok "  ... SARIF: $(grep -A5 mark_growth "$TMPDIR/w.sarif")"
expect_exit 0 "  ... within a tolerance of 2 KiB" -- "$GMPROF" check --baseline "$TMPDIR/b.json" --tolerance 2KiB "$TMPDIR/worse.jsonl"
expect_exit 1 "check a run without marks against it" -- "$GMPROF" check --baseline "$TMPDIR/b.json" tests/scripts/nvtx_loop.jsonl
grep -qx "FAIL baseline:mark_peak: 1 device without the baseline's NVTX marks (0 new in this run, 4 of the baseline's not in it)" "$TMPDIR/out" &&
	! grep -q "baseline:mark_growth" "$TMPDIR/out" && ok "  ... fails: the marks are gone" || notok "  ... $(grep mark "$TMPDIR/out")"
sed 's/"gmprof_baseline":7/"gmprof_baseline":6/; s/,"mark_peaks":\[[^]]*\]//' "$TMPDIR/b1" >"$TMPDIR/nomarks.json"
expect_exit 0 "check a run with marks against its baseline without them (version 6)" -- \
	"$GMPROF" check --baseline "$TMPDIR/nomarks.json" "$S"
! grep -q "baseline:mark" "$TMPDIR/out" && ok "  ... no mark checks" || notok "  ... $(grep mark "$TMPDIR/out")"
# Read strictly.
refused() { # NAME SED: the baseline edited by SED is refused in one sentence naming REASON
	tr -d ' \n' <"$TMPDIR/b.json" | sed "$2" >"$TMPDIR/r.json"
	expect_exit 2 "a baseline with $1 is refused" -- "$GMPROF" check --baseline "$TMPDIR/r.json" "$S"
	expect_stderr_line "bad baseline '.*r.json': $3" "  ... one sentence"
}
refused "mark peaks in version 6" 's/"gmprof_baseline":7/"gmprof_baseline":6/' "unknown key 'mark_peaks'"
refused "a mark twice" 's/"mark":"loaded"/"mark":"epoch"/' "a mark is in a peak's \"mark_peaks\" twice"
refused "growth of one mark" 's/"times":1,"grew_bytes":0},{"mark":"epoch"/"times":1,"grew_bytes":5},{"mark":"epoch"/' \
	"a mark peak's \"grew_bytes\" must be 0 for one mark"
refused "no times" 's/"times":3,//' "a mark peak needs a \"mark\""
refused "an unknown key" 's/"grew_bytes":2048/"grew_bytes":2048,"x":1/' "unknown key 'x'"

# Flame graphs: what was live at the mark of a name that found the most, and what its marks kept.
expect_exit 0 "flamegraph --at mark:epoch" -- "$GMPROF" flamegraph --format folded --at mark:epoch "$S"
[ "$(cat "$TMPDIR/out" | tr '\n' '|')" = "model.cu:10 4096|train.cu:42 3072|" ] &&
	ok "  ... the 7 KiB live at the third epoch mark, by call path" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "flamegraph --at mark-kept:epoch" -- "$GMPROF" flamegraph --at mark-kept:epoch -o "$TMPDIR/k.svg" "$S"
grep -q "<title>2.0 KiB kept from the first NVTX mark &#39;epoch&#39; to the last on device 0, by allocation call path</title>" \
	"$TMPDIR/k.svg" && grep -q "<title>train.cu:42: 2.0 KiB (2048 bytes), 100.0%</title>" "$TMPDIR/k.svg" &&
	ok "  ... the 2 KiB the epochs kept, at train.cu:42" || notok "  ... $(grep -o '<title>[^<]*' "$TMPDIR/k.svg" | head -3)"
expect_exit 2 "flamegraph --at mark:NAME of no mark" -- "$GMPROF" flamegraph --at mark:saved -o "$TMPDIR/n.svg" "$S"
expect_stderr_line "has no NVTX mark 'saved' (gmprof report lists its marks)" "  ... one sentence"
[ ! -e "$TMPDIR/n.svg" ] && ok "  ... and no file" || notok "  ... wrote $TMPDIR/n.svg"

# gmprof diff by NVTX mark: the worse run, without its "loaded" mark and with a new one.
grep -v '"name":"loaded"\|"op":"end"' "$TMPDIR/worse.jsonl" >"$TMPDIR/after.jsonl"
printf '{"op":"mark","name":"saved"}\n' >>"$TMPDIR/after.jsonl"
expect_exit 0 "diff of two runs with marks" -- "$GMPROF" diff "$S" "$TMPDIR/after.jsonl"
printf '%s\n' "    by NVTX mark (the largest changes first):" \
	"      -4.0 KiB    loaded: only before: most 4.0 KiB over 1 mark" \
	"      +2.0 KiB    done: most 3.0 KiB -> 5.0 KiB" \
	"      +2.0 KiB    epoch: most 7.0 KiB -> 9.0 KiB, its last mark 2.0 KiB -> 4.0 KiB above its first" \
	"                  live at its last mark, allocated since its first: 4.0 KiB in 2 objects, from train.cu:42 (4.0 KiB in 2)" \
	"      +0 B        saved: new: most 0 B over 1 mark" >"$TMPDIR/want"
sed -n '/^    by NVTX mark/,/^  live on average/p' "$TMPDIR/out" | sed '$d' | diff -u "$TMPDIR/want" - >"$TMPDIR/diff" &&
	ok "  ... each name that changed, the largest change first; what epoch kept after" || { notok "  ... diff"; cat "$TMPDIR/diff"; }
expect_exit 0 "diff --format json" -- "$GMPROF" diff --format json "$S" "$TMPDIR/after.jsonl"
grep -q '"marks":\[{"mark":"loaded","max_before":4096,"grew_before":0,"times_before":1,"max_after":null,"grew_after":null,"times_after":null},' "$TMPDIR/out" &&
	grep -q '{"mark":"start","max_before":0,"grew_before":0,"times_before":1,"max_after":0,"grew_after":0,"times_after":1}\]' "$TMPDIR/out" &&
	grep -q '"kept_after":{"bytes":4096,"objects":2,"sites":\[{"site":"train.cu:42","bytes":4096,"objects":2}\]}' "$TMPDIR/out" &&
	ok "  ... marks: every name, unchanged ones too" || notok "  ... $(grep -o '"marks":.*' "$TMPDIR/out" | head -c 600)"
expect_exit 0 "diff --format markdown" -- "$GMPROF" diff --format markdown "$S" "$TMPDIR/after.jsonl"
grep -qx '| +2.0 KiB | `epoch` | 7.0 KiB | 9.0 KiB | 2.0 KiB | 4.0 KiB |' "$TMPDIR/out" &&
	grep -qx '`epoch` after: live at its last mark, allocated since its first: 4.0 KiB in 2 objects, from train.cu:42 (4.0 KiB in 2)' "$TMPDIR/out" &&
	ok "  ... a table, and what epoch kept under it" || notok "  ... $(sed -n '/by NVTX mark/,/^###/p' "$TMPDIR/out")"
expect_exit 0 "diff of a run with itself" -- "$GMPROF" diff "$S" "$S"
! grep -q "by NVTX mark" "$TMPDIR/out" && ok "  ... no marks changed: no such lines" || notok "  ... $(grep -A3 'by NVTX mark' "$TMPDIR/out")"

# gmprof run's summary, through the collector (NVTX's tool) and the test double.
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExt.h" ]; then
	use_double "$B"
	export GMPROF_CUDA_DRIVER=$B/double/libcuda-fake.so
	expect_exit 0 "gmprof run of a loop that marks each epoch" -- "$GMPROF" run --top 1 --force -o "$TMPDIR/run.gmprof" -- "$B/double/fake_app" "$S"
	grep -qx "  marks    epoch on device 0: live bytes grew from 5.0 KiB (the first of its 3 marks) to 7.0 KiB (the last), 1.0 KiB more each time" \
		"$TMPDIR/out" && grep -A1 "^  marks    epoch" "$TMPDIR/out" | grep -q "^             live at its last mark, allocated since its first: 2.0 KiB in 2 objects, from " &&
		ok "  ... the summary names the mark that grew, and where what it kept came from" || notok "  ... summary: $(cat "$TMPDIR/out")"
	# Five names that grow, m1 by 1 KiB .. m5 by 5 KiB: the three that grew most, and one line for the rest.
	awk 'BEGIN { a = 65536; for (r = 1; r <= 5; r++) for (t = 0; t < 2; t++) {
		printf "{\"op\":\"mark\",\"name\":\"m%d\"}\n", r
		printf "{\"op\":\"alloc\",\"addr\":%d,\"size\":%d}\n", a, r * 1024; a += 65536 } }' >"$TMPDIR/five.jsonl"
	expect_exit 0 "gmprof run of five names that grow" -- "$GMPROF" run --top 1 --force -o "$TMPDIR/run.gmprof" -- "$B/double/fake_app" "$TMPDIR/five.jsonl"
	grep -E '^  (marks   |        ) m[0-9]|^           \.\.\. and' "$TMPDIR/out" | sed 's/: live bytes grew.*//' >"$TMPDIR/m5"
	printf '%s\n' "  marks    m5 on device 0" "           m4 on device 0" "           m3 on device 0" \
		"           ... and 2 more marks grew (gmprof report shows them)" | diff -u - "$TMPDIR/m5" >"$TMPDIR/diff" &&
		ok "  ... the three that grew most, the rest counted" || { notok "  ... summary"; cat "$TMPDIR/diff"; }
	expect_exit 0 "  ... a run without marks" -- "$GMPROF" run --top 1 --force -o "$TMPDIR/run.gmprof" -- "$B/double/fake_app" tests/scripts/nvtx_loop.jsonl
	! grep -q "^  marks" "$TMPDIR/out" && ok "  ... has no such line" || notok "  ... $(grep -A1 '^  marks' "$TMPDIR/out")"
	# The collector's own exit summary (GMPROF_SUMMARY), from its online trace of the marks.
	expect_exit 0 "the collector's summary" -- env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/s.gmprof" "$B/double/fake_app" "$S"
	grep -qx "==gmprof== NVTX mark epoch on device 0: live bytes grew from 5.0 KiB (the first of its 3 marks) to 7.0 KiB (the last)" \
		"$TMPDIR/err" && [ "$(grep -c '==gmprof== NVTX mark' "$TMPDIR/err")" -eq 1 ] &&
		ok "  ... names the mark that grew, and only it" || notok "  ... stderr: $(cat "$TMPDIR/err")"
	awk 'BEGIN { print "{\"op\":\"alloc\",\"addr\":4096,\"size\":64}"; for (i = 0; i < 5; i++) print "{\"op\":\"mark\",\"name\":\"m\"}" }' \
		>"$TMPDIR/marks5.jsonl"
	expect_exit 0 "more marks than GMPROF_ONLINE_EVENTS" -- env GMPROF_ONLINE_EVENTS=3 GMPROF_SUMMARY=1 \
		GMPROF_OUTPUT="$TMPDIR/c.gmprof" "$B/double/fake_app" "$TMPDIR/marks5.jsonl"
	expect_stderr_line "^gmprof: more than 3 NVTX marks: the online analysis stops here (GMPROF_ONLINE_EVENTS); run 'gmprof report $TMPDIR/c.gmprof' after the program ends$" \
		"  ... the online analysis stops, in one sentence"
	[ "$("$GMPROF" dump "$TMPDIR/c.gmprof" | grep -c '"op":"mark"')" -eq 5 ] && ok "  ... the profile has every mark" ||
		notok "  ... $("$GMPROF" dump "$TMPDIR/c.gmprof" | grep -c '"op":"mark"') marks"
else
	notok "the toolkit's nvtx3 headers are missing: the double cannot mark"
fi
finish
