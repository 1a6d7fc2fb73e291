# SPDX-License-Identifier: MIT
# NVTX ranges: the phase each GPU call was made in.  A script pushes and
# pops them per host thread; the collector gets them from the program's
# NVTX library (the test double pushes a script's ranges through NVTX's own
# loader, which loads the collector as its tool, or begins and ends them by
# id: GMP_DOUBLE_NVTX_RANGES); the reports say, for each call they name,
# the ranges it was made in.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
S=tests/scripts/nvtx_ranges.jsonl

expect_exit 0 "report" -- "$GMPROF" report "$S"
grep -q '^  device 0: 1.2 GiB at ALLOC (stream 0, #6) at model.cu:30 in step > backward$' "$TMPDIR/out" &&
	ok "report: the peak's ranges" || notok "report: the peak's ranges: $(grep -A1 '^Peaks' "$TMPDIR/out")"
grep -q '^    adam_m  *256.0 MiB at train.cu:11 in setup$' "$TMPDIR/out" &&
	ok "report: each live object's allocation ranges" || notok "report: each live object's allocation ranges"
grep -q '^    allocated in NVTX ranges: setup 768.0 MiB, step > backward 256.0 MiB, step > forward 256.0 MiB$' "$TMPDIR/out" &&
	ok "report: the peak's bytes by allocation ranges, the largest first" || notok "report: the peak's bytes by ranges"
grep -q '^     to   KERNEL adam (stream 0, #5) at optim.cu:40 in step > optimizer$' "$TMPDIR/out" &&
	ok "report: a finding's bounds in their ranges" || notok "report: a finding's bounds in their ranges"
grep -q '^  7 findings on 3 objects     768.0 MiB  saves up to 256.0 MiB  in setup$' "$TMPDIR/out" &&
	grep -q '^  1 finding on 1 object       256.0 MiB  in step > backward$' "$TMPDIR/out" &&
	ok "report: findings by the ranges that allocated their objects" || notok "report: findings by range: $(grep -A4 '^Findings by the NVTX' "$TMPDIR/out")"
grep -q '^     to   FREE (stream 0, #6) at train.cu:52$' "$TMPDIR/out" &&
	ok "report: a call outside every range names none" || notok "report: a call outside every range names none"

# Memory by range: each phase's peak, what it allocated, and what outlived it.
sed -n '/^Memory by NVTX range on device 0$/,/^$/p' "$TMPDIR/out" >"$TMPDIR/phases"
cat >"$TMPDIR/phases.want" <<'T'
Memory by NVTX range on device 0
  peak: the most live bytes right after a call made inside ('#': the device's peak);
  outlived it: allocated inside, freed outside the range or never
  range                                    peak     calls  times  allocated          outlived it
  setup                               768.0 MiB         4      1  768.0 MiB in 3     768.0 MiB in 3
  step                                  1.2 GiB#       11      1  512.0 MiB in 3     -
    forward                             1.0 GiB         4      1  256.0 MiB in 2     256.0 MiB in 2
    backward                            1.2 GiB#        5      1  256.0 MiB in 1     256.0 MiB in 1
    optimizer                           1.0 GiB         2      1  -                  -

T
diff -u "$TMPDIR/phases.want" "$TMPDIR/phases" >"$TMPDIR/diff" && ok "report: memory by NVTX range" ||
	{ notok "report: memory by NVTX range"; cat "$TMPDIR/diff"; }
expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown "$S"
grep -q '^| `step > backward` | \*\*1.2 GiB\*\* | 5 | 1 | 256.0 MiB in 1 | 256.0 MiB in 1 |$' "$TMPDIR/out" &&
	grep -q '^| `step > optimizer` | 1.0 GiB | 2 | 1 | - | - |$' "$TMPDIR/out" &&
	ok "markdown: memory by NVTX range" || notok "markdown: $(grep -A9 '^### Memory by' "$TMPDIR/out")"
# A loop whose steps keep a buffer each until the end: the step range says
# what outlived it, how many times it was entered, and that each time began
# with 4 KiB more live than the one before.
cp tests/scripts/nvtx_loop.jsonl "$TMPDIR/loop.jsonl"
expect_exit 0 "report of a loop" -- "$GMPROF" report "$TMPDIR/loop.jsonl"
grep -q '^  step  *13.0 KiB#  *12  *3  15.0 KiB in 6  *12.0 KiB in 3$' "$TMPDIR/out" &&
	ok "report: a loop's steps kept 12 KiB past their end, in 3 times" || notok "report: loop: $(grep -A5 '^Memory by NVTX' "$TMPDIR/out")"
grep -q '^  step: live bytes as it began grew from 0 B (the first of its 3 times) to 8.0 KiB (the last), 4.0 KiB more each time$' "$TMPDIR/out" &&
	ok "report: ... and began each time with 4 KiB more" || notok "report: loop's growth: $(grep -A6 '^Memory by NVTX' "$TMPDIR/out")"
grep -A1 '^  step: live bytes' "$TMPDIR/out" | grep -qx '    live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from kept1 (4.0 KiB in 1), kept2 (4.0 KiB in 1)' &&
	ok "report: ... what it kept, by the objects' names where they have no site" || notok "report: kept: $(grep -A7 '^Memory by NVTX' "$TMPDIR/out")"
# Objects with neither a site nor a label are counted together, as the reports' "no site".
sed 's/,"label":"kept[0-9]"//' "$TMPDIR/loop.jsonl" >"$TMPDIR/loop_anon.jsonl"
expect_exit 0 "report of the loop without names or sites" -- "$GMPROF" report "$TMPDIR/loop_anon.jsonl"
grep -qx '    live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from objects with no source line (8.0 KiB in 2)' \
	"$TMPDIR/out" && ok "  ... one entry for them" || notok "  ... $(grep -A7 '^Memory by NVTX' "$TMPDIR/out")"
"$GMPROF" report --format json "$TMPDIR/loop_anon.jsonl" | grep -q '"kept":{"bytes":8192,"objects":2,"sites":\[{"site":"no site","bytes":8192,"objects":2}\]}' &&
	ok "  ... JSON: site \"no site\"" || notok "  ... JSON: $("$GMPROF" report --format json "$TMPDIR/loop_anon.jsonl" | grep -o '"kept":[^]]*')"
# Where the objects have allocation sites, what a step kept is counted by site.
kept_at "$TMPDIR/loop.jsonl" "$TMPDIR/loop_at.jsonl"
expect_exit 0 "report of the loop with sites" -- "$GMPROF" report "$TMPDIR/loop_at.jsonl"
grep -qx '    live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from train.cu:42 (8.0 KiB in 2)' "$TMPDIR/out" &&
	ok "  ... by site" || notok "  ... $(grep -A7 '^Memory by NVTX' "$TMPDIR/out")"
expect_exit 0 "  ... markdown" -- "$GMPROF" report --format markdown "$TMPDIR/loop_at.jsonl"
grep -qx 'live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from train.cu:42 (8.0 KiB in 2)' "$TMPDIR/out" &&
	ok "  ... the same line" || notok "  ... $(grep -A8 '^### Memory by' "$TMPDIR/out")"
expect_exit 0 "  ... html" -- "$GMPROF" html --force -o "$TMPDIR/loop_at.html" "$TMPDIR/loop_at.jsonl"
grep -qF '<tr><td colspan="9">&nbsp;&nbsp;live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from train.cu:42 (8.0 KiB in 2)</td></tr>' "$TMPDIR/loop_at.html" &&
	ok "  ... a row under the range's growth" || notok "  ... $(grep -o '<tr><td colspan.\{0,200\}' "$TMPDIR/loop_at.html")"
grep -q "<title>NVTX range &#39;step&#39; on device 0 began its last time with 8.0 KiB more live than its first: what its times kept, by allocation call path</title>" "$TMPDIR/loop_at.html" &&
	grep -q '<g><title>train.cu:42: 8.0 KiB (8192 bytes), 100.0%</title>' "$TMPDIR/loop_at.html" &&
	ok "  ... and a flame graph of what the step kept" || notok "  ... $(grep -o '<title>NVTX range[^<]*' "$TMPDIR/loop_at.html")"
"$GMPROF" html --force -o "$TMPDIR/ranges.html" "$S" && ! grep -q "what its times kept" "$TMPDIR/ranges.html" &&
	ok "  ... none where no range grew" || notok "  ... a kept flame graph where no range grew"
expect_exit 0 "  ... json" -- "$GMPROF" report --format json "$TMPDIR/loop_at.jsonl"
grep -q '"kept":{"bytes":8192,"objects":2,"sites":\[{"site":"train.cu:42","bytes":8192,"objects":2}\]}' "$TMPDIR/out" &&
	ok "  ... kept, by site" || notok "  ... $(grep -o '"kept":[^]]*' "$TMPDIR/out")"
expect_exit 0 "report --format markdown of a loop" -- "$GMPROF" report --format markdown "$TMPDIR/loop.jsonl"
grep -qF '| `step` | **13.0 KiB** | 12 | 3 | 15.0 KiB in 6 | 12.0 KiB in 3 |' "$TMPDIR/out" &&
	grep -qxF '`step`: live bytes as it began grew from 0 B (the first of its 3 times) to 8.0 KiB (the last), 4.0 KiB more each time' "$TMPDIR/out" &&
	ok "markdown: the loop's times, and what each left behind" || notok "markdown: loop: $(grep -A8 '^### Memory by' "$TMPDIR/out")"
expect_exit 0 "html of a loop" -- "$GMPROF" html -o "$TMPDIR/loop.html" "$TMPDIR/loop.jsonl"
grep -qF '<tr><td colspan="9">step: live bytes as it began grew from 0 B (the first of its 3 times) to 8.0 KiB (the last), 4.0 KiB more each time</td></tr>' "$TMPDIR/loop.html" &&
	ok "html: the same, under the table's rows" || notok "html: loop: $(grep -o '<tr><td colspan.\{0,200\}' "$TMPDIR/loop.html")"
# Recorded, the loop's steps come back as three times (the collector writes
# a pop and a push of the same range between two calls), pushed or begun by id.
for how in push startend; do
	rm -f "$TMPDIR/loop-$how.gmprof"
	expect_exit 0 "collect the loop ($how)" -- env GMP_DOUBLE_NVTX_RANGES=$how GMPROF_OUTPUT="$TMPDIR/loop-$how.gmprof" "$FAKE" "$TMPDIR/loop.jsonl"
	"$GMPROF" report "$TMPDIR/loop-$how.gmprof" >"$TMPDIR/rep" 2>/dev/null
	grep -q '^  step  *13.0 KiB#  *12  *3  15.0 KiB in 6  *12.0 KiB in 3$' "$TMPDIR/rep" &&
		grep -q '^  step: live bytes as it began grew from 0 B (the first of its 3 times) to 8.0 KiB (the last), 4.0 KiB more each time$' "$TMPDIR/rep" &&
		ok "  ... three times, as in the script" || notok "  ... $(grep -A6 '^Memory by NVTX' "$TMPDIR/rep")"
done
# The collector's own summary at exit (GMPROF_SUMMARY=1, as without gmprof run) names it too.
rm -f "$TMPDIR/loop-sum.gmprof"
expect_exit 0 "collect the loop, the collector's summary on" -- env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/loop-sum.gmprof" "$FAKE" "$TMPDIR/loop.jsonl"
grep -qx "==gmprof== NVTX range step on device 0: live bytes as it began grew from 0 B (the first of its 3 times) to 8.0 KiB (the last), 4.0 KiB more each time" \
	"$TMPDIR/err" && ok "  ... the summary says the step range grew" || notok "  ... summary: $(cat "$TMPDIR/err")"
expect_exit 0 "  ... and not for ranges that did not grow" -- env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/ranges-sum.gmprof" "$FAKE" "$S"
grep -q "NVTX range" "$TMPDIR/err" && notok "  ... $(grep "NVTX range" "$TMPDIR/err")" || ok "  ... no line"
expect_exit 0 "report --format json of a loop" -- "$GMPROF" report --format json "$TMPDIR/loop.jsonl"
grep -q '"memory_by_range":\[{"ranges":\["step"\],"path":"step","device":0,"calls":12,"peak_bytes":13312,"peak_at":{"api":"ALLOC","stream":0,"ordinal":6,"level":[0-9]*,"event":9,"ranges":\["step"\]},"allocated_bytes":15360,"allocated_objects":6,"outlived_bytes":12288,"outlived_objects":3,"times":3,"time_peak_min_bytes":5120,"entry_first_bytes":0,"entry_last_bytes":8192,"kept":{"bytes":8192,"objects":2,"sites":\[{"object":"kept1","bytes":4096,"objects":1},{"object":"kept2","bytes":4096,"objects":1}\]}}\]' "$TMPDIR/out" &&
	ok "JSON report: memory_by_range" || notok "JSON report: $(grep -o '"memory_by_range":.*' "$TMPDIR/out")"

expect_exit 0 "replay --format json" -- "$GMPROF" replay --format json "$S"
grep -q '"at":{"api":"ALLOC","stream":0,"ordinal":6,"level":[0-9]*,"event":[0-9]*,"ranges":\["step","backward"\],"at":"model.cu:30"}' "$TMPDIR/out" &&
	ok "JSON: an API's ranges, outermost first" || notok "JSON: an API's ranges"
expect_exit 0 "report --format json" -- "$GMPROF" report --format json "$S"
grep -q '"by_range":\[{"ranges":\["setup"\],"findings":7,"objects":3,"bytes":805306368,"max_saving_bytes":268435456},' "$TMPDIR/out" &&
	ok "JSON report: by_range" || notok "JSON report: $(grep -o '"by_range":[^]]*]' "$TMPDIR/out")"
"$GMPROF" report tests/scripts/figure2.jsonl | grep -q 'NVTX ranges' && notok "no ranges, no section" || ok "no ranges, no section"
expect_exit 0 "perfetto" -- "$GMPROF" perfetto -o "$TMPDIR/t.json" "$S"
[ "$(grep -c '"ranges":"step > backward"' "$TMPDIR/t.json")" -eq 5 ] && ok "perfetto: each API slice's ranges" || notok "perfetto: each API slice's ranges"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/t.html" "$S"
grep -q '<code>train.cu:11</code> in setup</td>' "$TMPDIR/t.html" && ok "html: the allocation's ranges" || notok "html: the allocation's ranges"
grep -q '<tr><td>step &gt; forward</td><td class="n">5</td><td class="n">2</td><td class="n">256.0 MiB</td><td class="n">-</td></tr>' "$TMPDIR/t.html" &&
	grep -q '<li>device 0: with all 13 of its findings that free memory fixed, the peak is 1.0 GiB (now 1.2 GiB)</li>' "$TMPDIR/t.html" &&
	ok "html: findings by range, and the fixes combined" || notok "html: findings by range, and the fixes combined"
grep -q '<tr><td>step &gt; backward</td><td class="n"><b>1.2 GiB</b></td><td class="n">5</td><td class="n">1</td><td class="n">256.0 MiB</td><td class="n">1</td><td class="n">256.0 MiB</td><td class="n">1</td></tr>' "$TMPDIR/t.html" &&
	grep -q '<tr><td>setup</td><td class="n">768.0 MiB</td><td class="n">4</td>' "$TMPDIR/t.html" &&
	ok "html: memory by NVTX range, the peak's ranges in bold" || notok "html: memory by NVTX range"

# Recorded: the program's NVTX calls reach the collector; only ranges around GPU calls are written.
expect_exit 0 "collect a program's NVTX ranges" -- env GMPROF_OUTPUT="$TMPDIR/r.gmprof" "$FAKE" "$S"
"$GMPROF" report "$TMPDIR/r.gmprof" >"$TMPDIR/rep" 2>/dev/null
grep -q '^  device 0: 1.2 GiB at ALLOC (stream 0, #6) at .* in step > backward$' "$TMPDIR/rep" &&
	grep -q '^    allocated in NVTX ranges: setup 768.0 MiB, step > backward 256.0 MiB, step > forward 256.0 MiB$' "$TMPDIR/rep" &&
	ok "recorded: the same ranges as the script's" || notok "recorded: $(grep -A9 '^Peaks' "$TMPDIR/rep")"
# ... and one line more: the test double pushes every fourth range in its own NVTX domain.
sed '$d' "$TMPDIR/phases.want" >"$TMPDIR/phases.rec"
printf '  NVTX domains besides the default: gmprof-double (1 range)\n\n' >>"$TMPDIR/phases.rec"
sed -n '/^Memory by NVTX range on device 0$/,/^$/p' "$TMPDIR/rep" | diff -u "$TMPDIR/phases.rec" - >"$TMPDIR/diff" &&
	ok "recorded: the same memory by range as the script's, and the domains named" ||
	{ notok "recorded: memory by range"; cat "$TMPDIR/diff"; }
expect_exit 0 "the exit summary" -- env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/r2.gmprof" "$FAKE" "$S"
grep -q '^==gmprof== device 0 peak: 1.2 GiB (in step > backward)$' "$TMPDIR/err" &&
	ok "the exit summary: the ranges the peak was reached in" || notok "the exit summary: $(grep peak: "$TMPDIR/err")"
"$GMPROF" dump "$TMPDIR/r.gmprof" 2>/dev/null | grep -c '"op":"range_push"' >"$TMPDIR/n"
[ "$(cat "$TMPDIR/n")" -eq 5 ] && ok "recorded: a push per range with calls in it" || notok "recorded: $(cat "$TMPDIR/n") pushes, want 5"
# Perfetto on the host clock: a slice per range, nested, on the thread's track.
expect_exit 0 "perfetto --time host of the recorded profile" -- "$GMPROF" perfetto --time host -o "$TMPDIR/h.json" "$TMPDIR/r.gmprof"
grep '"cat":"nvtx"' "$TMPDIR/h.json" | sed -E 's/.*"name":"([a-z]*)".*"ts":([0-9.]*),"dur":([0-9.]*).*/\1 \2 \3/' >"$TMPDIR/sl"
awk '{ s[$1] = $2; e[$1] = $2 + $3; n++ }
     END { d = 0.0005 # microseconds with three decimals: sums are not exact
	   ok = n == 5 && s["step"] <= s["forward"] + d && e["step"] + d >= e["optimizer"] &&
	       e["forward"] <= s["backward"] + d && e["setup"] <= s["step"] + d; exit !ok }' "$TMPDIR/sl" &&
	ok "perfetto: five range slices, step around its three phases" || notok "perfetto: $(cat "$TMPDIR/sl")"
"$B/tools/trace_check" "$TMPDIR/h.json" >/dev/null && ok "perfetto: the trace checks" || notok "perfetto: the trace checks"
# Each thread's track is named as the OS names the thread (the double's workers call
# themselves replay-N, as a runtime names its threads): META thread.TID.name.
rm -f "$TMPDIR/r3.gmprof"
expect_exit 0 "collect ranges on two named threads" -- env GMPROF_OUTPUT="$TMPDIR/r3.gmprof" "$FAKE" --threads 2 "$S"
"$GMPROF" dump "$TMPDIR/r3.gmprof" 2>/dev/null | grep -o '"key":"thread\.[0-9]*\.name","value":"[^"]*"' | sed 's/.*"value"://' |
	sort | tr '\n' ' ' >"$TMPDIR/tn"
[ "$(cat "$TMPDIR/tn")" = '"replay-1" "replay-2" ' ] && ok "  ... each thread's name in the profile" || notok "  ... names: $(cat "$TMPDIR/tn")"
expect_exit 0 "  ... perfetto --time host" -- "$GMPROF" perfetto --time host -o "$TMPDIR/h3.json" "$TMPDIR/r3.gmprof"
[ "$(grep -o '"name":"thread_name","pid":[0-9]*,"tid":[0-9]*,"args":{"name":"replay-[12] (thread [0-9]*)"}' "$TMPDIR/h3.json" | wc -l)" -eq 2 ] &&
	ok "  ... their range tracks named by them" || notok "  ... $(grep -o '"name":"thread_name"[^}]*}' "$TMPDIR/h3.json")"
# Names given through NVTX (nvtxNameOsThreadA/W) win over the OS's: the workers name themselves
# before they record anything, the main thread after it has (the later name is recorded then).
thread_names() { # PROFILE: its threads' names, sorted, on one line
	"$GMPROF" dump "$1" 2>/dev/null | grep -o '"key":"thread\.[0-9]*\.name","value":"[^"]*"' | sed 's/.*"value"://' |
		sort | tr '\n' ' '
}
rm -f "$TMPDIR/r4.gmprof" "$TMPDIR/r5.gmprof"
expect_exit 0 "threads named through NVTX" -- env GMP_DOUBLE_NVTX_THREAD_NAMES=1 GMPROF_OUTPUT="$TMPDIR/r4.gmprof" "$FAKE" --threads 2 "$S"
[ "$(thread_names "$TMPDIR/r4.gmprof")" = '"nvtx-worker-1" "nvtx-worker-2" ' ] && ok "  ... their names, not the OS's" ||
	notok "  ... names: $(thread_names "$TMPDIR/r4.gmprof")"
expect_exit 0 "  ... the main thread named after its events" -- env GMP_DOUBLE_NVTX_THREAD_NAMES=1 GMPROF_OUTPUT="$TMPDIR/r5.gmprof" "$FAKE" "$S"
[ "$(thread_names "$TMPDIR/r5.gmprof")" = '"nvtx-main" ' ] && ok "  ... its NVTX name" || notok "  ... names: $(thread_names "$TMPDIR/r5.gmprof")"
"$GMPROF" perfetto -o "$TMPDIR/topo.json" "$TMPDIR/r.gmprof" 2>/dev/null
! grep -q '"cat":"nvtx"' "$TMPDIR/topo.json" && ok "perfetto: no range slices on the topological axis" || notok "perfetto: topo axis"

# A range with no GPU call in it, and nesting deeper than the collector keeps.
{
	echo '{"op":"alloc","addr":4096,"size":64}'
	echo '{"op":"range_push","name":"idle"}'
	echo '{"op":"range_pop"}'
	i=0; while [ $i -lt 40 ]; do echo "{\"op\":\"range_push\",\"name\":\"r$i\"}"; i=$((i + 1)); done
	echo '{"op":"kernel","name":"k","write":[4096]}'
	echo '{"op":"free","addr":4096}'
} >"$TMPDIR/deep.jsonl"
expect_exit 0 "deep ranges" -- env GMPROF_OUTPUT="$TMPDIR/deep.gmprof" "$FAKE" "$TMPDIR/deep.jsonl"
expect_stderr_line "NVTX ranges nest deeper than 32: the deeper ones are not recorded" "  ... said once"
"$GMPROF" dump "$TMPDIR/deep.gmprof" 2>/dev/null >"$TMPDIR/deep.dump"
! grep -q '"name":"idle"' "$TMPDIR/deep.dump" && ok "a range around no GPU call is not written" || notok "a range around no GPU call is not written"
[ "$(grep -c '"op":"range_push"' "$TMPDIR/deep.dump")" -eq 32 ] && grep -q '"name":"r31"' "$TMPDIR/deep.dump" &&
	ok "the outermost 32 are" || notok "the outermost 32 are: $(grep -c range_push "$TMPDIR/deep.dump")"

# The four ways the double pushes, in turn (nvtxRangePushA, W, Ex, then a
# library's domain: nvtxDomainRangePushEx), nested four deep and popped
# each its own way (the domain's by nvtxDomainRangePop): the profile's
# ranges are the script's.
ways_script "$TMPDIR/ways.jsonl"
expect_exit 0 "ranges pushed four ways, a domain's the innermost" -- env GMPROF_OUTPUT="$TMPDIR/ways.gmprof" "$FAKE" "$TMPDIR/ways.jsonl"
"$GMPROF" dump "$TMPDIR/ways.gmprof" 2>/dev/null | grep -E '"op":"(alloc|range_push|range_pop)"' | sed -E 's/,"thread".*/}/' >"$TMPDIR/ways.got"
diff -u "$TMPDIR/ways.jsonl" "$TMPDIR/ways.got" >"$TMPDIR/diff" && ok "  ... each popped where the script pops it" ||
	{ notok "  ... the profile's ranges differ from the script's"; cat "$TMPDIR/diff"; }

# Names given as registered string handles (NVTX3_FUNC_RANGE, nvtx3::registered_string:
# every range of a RAPIDS library): the collector is the tool, so the handles are its own.
rm -f "$TMPDIR/ways-reg.gmprof"
expect_exit 0 "ranges named by registered strings" -- \
	env GMP_DOUBLE_NVTX_RANGES=registered GMPROF_OUTPUT="$TMPDIR/ways-reg.gmprof" "$FAKE" "$TMPDIR/ways.jsonl"
"$GMPROF" dump "$TMPDIR/ways-reg.gmprof" 2>/dev/null | grep -E '"op":"(alloc|range_push|range_pop)"' |
	sed -E 's/,"thread".*/}/' >"$TMPDIR/ways.got"
diff -u "$TMPDIR/ways.jsonl" "$TMPDIR/ways.got" >"$TMPDIR/diff" && ok "  ... the profile's ranges are the script's, by name" ||
	{ notok "  ... registered names"; cat "$TMPDIR/diff"; }
[ ! -s "$TMPDIR/err" ] && ok "  ... nothing said" || notok "  ... said: $(cat "$TMPDIR/err")"
rm -f "$TMPDIR/loop-reg.gmprof"
expect_exit 0 "the loop, by registered names (each registered again at every push)" -- \
	env GMP_DOUBLE_NVTX_RANGES=registered GMPROF_OUTPUT="$TMPDIR/loop-reg.gmprof" "$FAKE" "$TMPDIR/loop.jsonl"
"$GMPROF" report "$TMPDIR/loop-reg.gmprof" 2>/dev/null | grep -q '^  step  *13.0 KiB#  *12  *3  15.0 KiB in 6  *12.0 KiB in 3$' &&
	ok "  ... one range, three times" || notok "  ... $("$GMPROF" report "$TMPDIR/loop-reg.gmprof" 2>&1 | grep -A5 '^Memory by NVTX')"

# The table of registered names holds 65536: one more name is "(unnamed)", said once.
for fill in 65535 65536; do
	rm -f "$TMPDIR/fill.gmprof"
	expect_exit 0 "$fill other names registered first" -- env GMP_DOUBLE_NVTX_RANGES=registered GMP_DOUBLE_NVTX_STRINGS=$fill \
		GMPROF_OUTPUT="$TMPDIR/fill.gmprof" "$FAKE" "$TMPDIR/loop.jsonl"
	"$GMPROF" report "$TMPDIR/fill.gmprof" 2>/dev/null | grep -A4 '^Memory by NVTX' | grep '  3  ' | awk '{ print $1 }' >"$TMPDIR/fill.name"
	case $fill in
	65535) [ "$(cat "$TMPDIR/fill.name")" = step ] && [ ! -s "$TMPDIR/err" ] && ok "  ... step still named" ||
		notok "  ... $(cat "$TMPDIR/fill.name") $(cat "$TMPDIR/err")" ;;
	*) [ "$(cat "$TMPDIR/fill.name")" = "(unnamed)" ] &&
		expect_stderr_line '^gmprof: more than 65536 distinct NVTX strings registered: later ones name "(unnamed)"$' "  ... the next one unnamed, said once" ||
		notok "  ... $(cat "$TMPDIR/fill.name") $(cat "$TMPDIR/err")" ;;
	esac
done

# nvtxRangeStart/End: ranges of the process, begun and ended by id, on
# any thread.  The same script with every range begun and ended by id
# (startend: the four ways to begin one in turn, a domain's among them),
# each begin and end made on a thread of its own (elsewhere: the calls
# between are still inside them), and the ranges at even depths begun by
# id around ranges pushed at odd depths (mixed: a thread's ranges and the
# process's, in the order they began).
for how in startend elsewhere mixed; do
	rm -f "$TMPDIR/ways-$how.gmprof"
	expect_exit 0 "ranges begun and ended by id ($how)" -- \
		env GMP_DOUBLE_NVTX_RANGES=$how GMPROF_OUTPUT="$TMPDIR/ways-$how.gmprof" "$FAKE" "$TMPDIR/ways.jsonl"
	"$GMPROF" dump "$TMPDIR/ways-$how.gmprof" 2>/dev/null | grep -E '"op":"(alloc|range_push|range_pop)"' |
		sed -E 's/,"thread".*/}/' >"$TMPDIR/ways.got"
	diff -u "$TMPDIR/ways.jsonl" "$TMPDIR/ways.got" >"$TMPDIR/diff" && ok "  ... the profile's ranges are the script's" ||
		{ notok "  ... the profile's ranges differ from the script's ($how)"; cat "$TMPDIR/diff"; }
done
rm -f "$TMPDIR/deep-se.gmprof"
expect_exit 0 "deep ranges begun by id on other threads" -- \
	env GMP_DOUBLE_NVTX_RANGES=elsewhere GMPROF_OUTPUT="$TMPDIR/deep-se.gmprof" "$FAKE" "$TMPDIR/deep.jsonl"
expect_stderr_line "NVTX ranges nest deeper than 32: the deeper ones are not recorded" "  ... said once"
"$GMPROF" dump "$TMPDIR/deep-se.gmprof" 2>/dev/null | grep -E '"op":"range_(push|pop)"' | sed 's/,"thread".*//' >"$TMPDIR/deep-se.got"
grep -E '"op":"range_(push|pop)"' "$TMPDIR/deep.dump" | sed 's/,"thread".*//' | cmp -s - "$TMPDIR/deep-se.got" &&
	ok "  ... the outermost 32, as when pushed" || notok "  ... $(grep -c range_push "$TMPDIR/deep-se.got") ranges"

# Two threads each begin 40 ranges by id and end none: past the 64 the
# collector keeps open, the later ones are left out, said once.
rm -f "$TMPDIR/open.gmprof"
expect_exit 0 "80 ranges begun by id, none ended" -- \
	env GMP_DOUBLE_NVTX_RANGES=startend GMPROF_OUTPUT="$TMPDIR/open.gmprof" "$FAKE" --threads 2 "$TMPDIR/deep.jsonl"
[ "$(grep -c '^gmprof: more than 64 NVTX ranges started with nvtxRangeStart are open at once: the later ones are not recorded$' "$TMPDIR/err")" -eq 1 ] &&
	ok "  ... past 64 open, said once" || notok "  ... past 64 open: $(cat "$TMPDIR/err")"

# Suppressions match the NVTX ranges an object was allocated in.
printf '*:setup\nlate_deallocation:step > *\n' >"$TMPDIR/sup"
expect_exit 0 "report --suppressions by range" -- "$GMPROF" report --suppressions "$TMPDIR/sup" "$S"
grep -q '^Findings: 4 (9 more suppressed by ' "$TMPDIR/out" && ! grep -Eq '^ +[0-9]+\. [a-z_]+: (weights|adam_m|adam_v) ' "$TMPDIR/out" &&
	ok "suppressions by the ranges of the allocation" || notok "suppressions by range: $(grep '^Findings' "$TMPDIR/out")"
expect_exit 0 "  ... in Markdown" -- "$GMPROF" report --format markdown --suppressions "$TMPDIR/sup" "$S"
grep -q "^### Findings: 4, ranked" "$TMPDIR/out" && grep -qx "(9 more suppressed by \`$TMPDIR/sup\`)" "$TMPDIR/out" &&
	ok "  ... the suppressed counted under the heading" || notok "  ... $(grep -A2 '^### Findings' "$TMPDIR/out")"

# --ranges: only the findings whose objects were allocated in matching ranges.
expect_exit 0 "report --ranges" -- "$GMPROF" report --ranges 'step >*' "$S"
grep -q "^Findings: 6 (of the objects allocated in NVTX ranges matching 'step >\*'), ranked" "$TMPDIR/out" &&
	! grep -Eq '^ +[0-9]+\. [a-z_]+: (weights|adam_m|adam_v) ' "$TMPDIR/out" &&
	ok "--ranges keeps the findings of the matching ranges" || notok "--ranges: $(grep '^Findings' "$TMPDIR/out")"
expect_exit 0 "replay --ranges" -- "$GMPROF" replay --format json --ranges setup "$S"
[ "$(grep -o '"pattern":' "$TMPDIR/out" | wc -l)" -eq 7 ] && ok "replay --ranges: the setup range's 7" || notok "replay --ranges"
expect_exit 1 "check --ranges" -- "$GMPROF" check --fail-on early_allocation --ranges 'step*' "$S"
grep -q '^FAIL pattern:early_allocation: 2 findings$' "$TMPDIR/out" && ok "check --ranges gates on those only" || notok "check --ranges: $(cat "$TMPDIR/out")"

# The CI gate: a peak over budget says where it was reached.
expect_exit 1 "check --max-peak over budget" -- "$GMPROF" check --max-peak 1GiB "$S"
grep -q '^  reached on device 0 at ALLOC (stream 0, #6) at model.cu:30 in step > backward$' "$TMPDIR/out" &&
	ok "check: where the peak over budget was reached" || notok "check: $(cat "$TMPDIR/out")"
expect_exit 0 "check --max-peak within budget" -- "$GMPROF" check --max-peak 2GiB "$S"
! grep -q 'reached on' "$TMPDIR/out" && ok "check: nothing more within budget" || notok "check: within budget"

# Bad lines: one sentence each.
printf '{"op":"range_pop"}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a pop with nothing open" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:1: a range_pop with no range open on its thread" "  ... said in one line"
printf '{"op":"range_push","name":"a","thread":1}\n{"op":"range_pop","thread":2}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a pop on another thread" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
printf '{"op":"range_push"}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a push without a name" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "missing required field 'name'" "  ... said in one line"
# A pool with NVTX regions inside a range: the range tables add its peak in use (t2's 8 KiB, after t1's 4 KiB).
cat >"$TMPDIR/regions.jsonl" <<'J'
{"op":"range_push","name":"step"}
{"op":"alloc","addr":"0x100000","size":1048576,"label":"pool"}
{"op":"alloc","addr":"0x100000","size":4096,"kind":"pool_region","label":"t1"}
{"op":"kernel","name":"k","write":["0x100000"]}
{"op":"free","addr":"0x100000"}
{"op":"alloc","addr":"0x101000","size":8192,"kind":"pool_region","label":"t2"}
{"op":"kernel","name":"k","read":["0x101000"]}
{"op":"range_pop"}
J
expect_exit 0 "report: a range around a pool's regions" -- "$GMPROF" report "$TMPDIR/regions.jsonl"
grep -q '^  range                                    peak      in use    calls  times  allocated          outlived it$' "$TMPDIR/out" &&
	grep -q '^  step                                  1.0 MiB#    8.0 KiB        6      1  1.0 MiB in 1       1.0 MiB in 1$' "$TMPDIR/out" &&
	ok "  ... an in-use column: the range's peak of its regions" || notok "  ... $(grep -A2 '^  range ' "$TMPDIR/out")"
expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown "$TMPDIR/regions.jsonl"
grep -qF '| `step` | **1.0 MiB** | 8.0 KiB | 6 | 1 | 1.0 MiB in 1 | 1.0 MiB in 1 |' "$TMPDIR/out" &&
	grep -qF '| range | peak | in use | calls | times | allocated | outlived it |' "$TMPDIR/out" &&
	ok "  ... the same column" || notok "  ... $(grep -F '| ' "$TMPDIR/out" | head -5)"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/regions.html" "$TMPDIR/regions.jsonl"
grep -qF '<tr><td>step</td><td class="n"><b>1.0 MiB</b></td><td class="n">8.0 KiB</td><td class="n">6</td>' "$TMPDIR/regions.html" &&
	ok "  ... the same column" || notok "  ... $(grep -o '<tr><td>step.\{0,200\}' "$TMPDIR/regions.html")"
i=0; : >"$TMPDIR/bad.jsonl"; while [ $i -lt 65 ]; do echo '{"op":"range_push","name":"x"}' >>"$TMPDIR/bad.jsonl"; i=$((i + 1)); done
expect_exit 2 "ranges nested deeper than 64" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:65: ranges nest deeper than 64" "  ... said in one line"
finish
