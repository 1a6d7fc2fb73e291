# SPDX-License-Identifier: MIT
# The analyzer's outputs: report, Perfetto trace, SARIF, JUnit, baseline and
# HTML.  A checked-in profile (tests/golden/outputs/smc.gmprof, the
# simpleMultiCopy script as a profile) is rendered and compared with
# expected files; GMPROF_UPDATE_GOLDEN=1 rewrites them.  Every trace made
# here goes through the trace checker, every SARIF file through the
# SARIF checker.
. tests/cli/lib.sh
T=$(dirname "$GMPROF")/tools
G=tests/golden/outputs
IN=$G/smc.gmprof

golden() { # NAME FILE: FILE equals $G/NAME
	if [ -n "${GMPROF_UPDATE_GOLDEN:-}" ]; then cp "$2" "$G/$1"; fi
	if diff -u "$G/$1" "$2" >"$TMPDIR/diff"; then ok "golden $1"; else notok "golden $1"; head -40 "$TMPDIR/diff"; fi
}
trace_ok() { # FILE NAME
	if "$T/trace_check" "$1" --expect-flows >"$TMPDIR/tc" 2>&1; then ok "trace checker: $2"; else notok "trace checker: $2: $(cat "$TMPDIR/tc")"; fi
}
sarif_ok() { # FILE MIN NAME
	if "$T/sarif_check" "$1" "$2" >"$TMPDIR/sc" 2>&1; then ok "SARIF checker: $3"; else notok "SARIF checker: $3: $(cat "$TMPDIR/sc")"; fi
}

# ---- goldens of a checked-in profile ------------------------------------------
expect_exit 0 "report" -- "$GMPROF" report "$IN"
golden smc.report.txt "$TMPDIR/out"
expect_exit 0 "report --format json" -- "$GMPROF" report --format json --pretty "$IN"
golden smc.report.json "$TMPDIR/out"
expect_exit 0 "perfetto" -- "$GMPROF" perfetto -o "$TMPDIR/smc.trace.json" "$IN"
golden smc.trace.json "$TMPDIR/smc.trace.json"
trace_ok "$TMPDIR/smc.trace.json" "smc topo"
expect_exit 1 "check fails on early allocations" -- "$GMPROF" check --fail-on early_allocation \
	--max-peak 16MiB --sarif "$TMPDIR/smc.sarif" --junit "$TMPDIR/smc.junit.xml" --source-root /src "$IN"
golden smc.check.txt "$TMPDIR/out"
golden smc.sarif "$TMPDIR/smc.sarif"
golden smc.junit.xml "$TMPDIR/smc.junit.xml"
sarif_ok "$TMPDIR/smc.sarif" 11 "smc"
expect_exit 0 "baseline" -- "$GMPROF" baseline -o "$TMPDIR/smc.baseline.json" "$IN"
golden smc.baseline.json "$TMPDIR/smc.baseline.json"

# ---- fingerprints are stable: the script and its profile agree ------------------
"$GMPROF" report --format json tests/scripts/simple_multi_copy.jsonl | grep -o '"fingerprint":"[0-9a-f]*"' >"$TMPDIR/fp1"
"$GMPROF" report --format json "$IN" | grep -o '"fingerprint":"[0-9a-f]*"' >"$TMPDIR/fp2"
[ -s "$TMPDIR/fp1" ] && cmp -s "$TMPDIR/fp1" "$TMPDIR/fp2" && ok "fingerprints agree between script and profile" || notok "fingerprints agree between script and profile"

# ---- traces of every script, and gzip ---------------------------------------------
for s in tests/scripts/*.jsonl; do
	n=$(basename "$s" .jsonl)
	expect_exit 0 "perfetto $n" -- "$GMPROF" perfetto -o "$TMPDIR/$n.json" "$s"
	trace_ok "$TMPDIR/$n.json" "$n"
done
expect_exit 0 "perfetto .json.gz" -- "$GMPROF" perfetto -o "$TMPDIR/smc.json.gz" "$IN"
gzip -dc "$TMPDIR/smc.json.gz" >"$TMPDIR/smc.unz.json" 2>/dev/null && cmp -s "$TMPDIR/smc.unz.json" "$TMPDIR/smc.trace.json" \
	&& ok ".json.gz holds the same trace" || notok ".json.gz holds the same trace"
expect_exit 2 "--time host on a script: no host times" -- "$GMPROF" perfetto --time host tests/scripts/figure2.jsonl
expect_stderr_line "no host times" "  ... said in one line"
expect_exit 2 "bad --time" -- "$GMPROF" perfetto --time wall "$IN"
expect_exit 2 "perfetto refuses to overwrite" -- "$GMPROF" perfetto -o "$TMPDIR/smc.trace.json" "$IN"
expect_stderr_line "refusing to overwrite" "  ... said in one line"
expect_exit 2 "perfetto into a missing directory" -- "$GMPROF" perfetto -o "$TMPDIR/no/such/dir/t.json" "$IN"
expect_stderr_line "cannot create" "  ... said in one line"
for f in "" --force; do
	expect_exit 2 "perfetto into a directory $f" -- "$GMPROF" perfetto $f -o "$TMPDIR" "$IN"
	expect_stderr_line "cannot create '$TMPDIR': Is a directory" "  ... said in one line, as a directory"
done

# ---- the trace checker catches what Perfetto would reject ---------------------------
bad_trace() { # NAME JSON-EVENTS
	printf '{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}},%s]}\n' "$2" >"$TMPDIR/bad.json"
	if "$T/trace_check" "$TMPDIR/bad.json" >/dev/null 2>&1; then notok "trace checker rejects $1"; else ok "trace checker rejects $1"; fi
}
bad_trace "overlapping slices" '{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":2},{"ph":"X","name":"b","pid":1,"tid":1,"ts":1,"dur":2}'
bad_trace "a flow that never closes" '{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"bind_id":7,"flow_out":true}'
bad_trace "a flow_in with no flow" '{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"bind_id":7,"flow_in":true}'
bad_trace "a string counter" '{"ph":"C","name":"c","pid":1,"ts":0,"args":{"bytes":"many"}}'
bad_trace "an async begin with no end" '{"ph":"b","name":"o","cat":"object","id":"0x1","pid":1,"ts":0}'
bad_trace "an unnamed thread" '{"ph":"X","name":"a","pid":1,"tid":9,"ts":0,"dur":1}'
bad_trace "a negative timestamp" '{"ph":"X","name":"a","pid":1,"tid":1,"ts":-1,"dur":1}'

# ---- check: exit status, budgets, baselines --------------------------------------
expect_exit 0 "check passes with no findings of the failing patterns" -- "$GMPROF" check --fail-on memory_leak "$IN"
expect_exit 1 "check --max-peak below the peak" -- "$GMPROF" check --max-peak 15MiB "$IN"
expect_exit 0 "check --max-peak at the peak" -- "$GMPROF" check --max-peak 16MiB "$IN"
expect_exit 1 "check --max-peak a few KiB under a 1.0 MiB peak" -- "$GMPROF" check --max-peak 1MiB tests/scripts/figure2.jsonl
grep -q '^FAIL max_peak: 1.0 MiB (1060864 bytes) > 1.0 MiB (1048576 bytes)$' "$TMPDIR/out" &&
	ok "  ... the bytes say what the rounding hides" || notok "  ... $(grep max_peak "$TMPDIR/out")"
# --max-in-use: pools with NVTX regions count by their regions (132 KiB of a 1 MiB pool).
expect_exit 1 "check --max-in-use under the bytes in use" -- "$GMPROF" check --max-in-use 128KiB tests/scripts/pool_regions.jsonl
grep -q '^FAIL max_in_use: 132.0 KiB > 128.0 KiB$' "$TMPDIR/out" && ok "  ... one line" || notok "  ... $(grep max_in "$TMPDIR/out")"
expect_exit 0 "check --max-in-use at the bytes in use, --max-peak at the pool" -- "$GMPROF" check --max-in-use 132KiB \
	--max-peak 1MiB tests/scripts/pool_regions.jsonl
expect_exit 1 "check --max-in-use without regions is the peak" -- "$GMPROF" check --max-in-use 1MiB tests/scripts/figure2.jsonl
expect_exit 2 "check --max-in-use with a bad size" -- "$GMPROF" check --max-in-use lots tests/scripts/figure2.jsonl
expect_exit 1 "check --max-leak 0 on a leaking script" -- "$GMPROF" check --max-leak 0 tests/scripts/figure2.jsonl
expect_exit 0 "check --max-leak 8KiB on it" -- "$GMPROF" check --max-leak 8KiB tests/scripts/figure2.jsonl
# A leaked pool's leaked regions are inside its bytes: the device leaked 1 MiB, not 1 MiB + 96 KiB.
expect_exit 0 "check --max-leak 1MiB: a leaked pool counts once, not with its regions" -- \
	"$GMPROF" check --max-leak 1MiB tests/scripts/pool_leaked.jsonl
expect_exit 1 "check --max-leak 1023KiB fails on that pool" -- "$GMPROF" check --max-leak 1023KiB tests/scripts/pool_leaked.jsonl
grep -q '^FAIL max_leak: 1.0 MiB > 1023.0 KiB$' "$TMPDIR/out" && ok "  ... at 1.0 MiB" || notok "  ... $(grep max_leak "$TMPDIR/out")"
"$GMPROF" baseline tests/scripts/pool_leaked.jsonl 2>/dev/null | grep -q '"leaked_bytes": 1048576,' &&
	ok "baseline: leaked_bytes of a leaked pool with regions" || notok "baseline: leaked_bytes of a leaked pool with regions"
"$GMPROF" baseline -o "$TMPDIR/f3.base.json" tests/scripts/figure3.jsonl 2>/dev/null
expect_exit 0 "check against its own baseline" -- "$GMPROF" check --baseline "$TMPDIR/f3.base.json" tests/scripts/figure3.jsonl
expect_exit 1 "check: new findings against another run's baseline" -- "$GMPROF" check --baseline "$TMPDIR/f3.base.json" tests/scripts/figure2.jsonl
grep -q "FAIL baseline:new_findings: 4 findings" "$TMPDIR/out" && ok "  ... naming how many are new" || notok "  ... naming how many are new: $(cat "$TMPDIR/out")"
# A peak grown by 1 MiB on 4 MiB (25%): fails at 5%, passes at 5%,1MiB and at 30%.
sed 's/"peak_bytes": 4194304/"peak_bytes": 3145728/' "$TMPDIR/f3.base.json" >"$TMPDIR/f3.small.json"
expect_exit 1 "peak grown past --tolerance 5%" -- "$GMPROF" check --baseline "$TMPDIR/f3.small.json" --tolerance 5% tests/scripts/figure3.jsonl
expect_exit 0 "peak within --tolerance 5%,1MiB" -- "$GMPROF" check --baseline "$TMPDIR/f3.small.json" --tolerance 5%,1MiB tests/scripts/figure3.jsonl
expect_exit 0 "peak within --tolerance 34%" -- "$GMPROF" check --baseline "$TMPDIR/f3.small.json" --tolerance 34% tests/scripts/figure3.jsonl
expect_exit 2 "bad --tolerance" -- "$GMPROF" check --tolerance five tests/scripts/figure3.jsonl
# A grown peak names where it grew: the baseline holds each device's peak's
# bytes by allocation site (version 3; version 2 had the largest peak's);
# a version-1 baseline, without them, still works.
awk 'BEGIN { for (i = 0; i < 12; i++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":4096,\"at\":\"%s\"}\n", 65536 + i * 65536, i < 8 ? "a.cu:1" : "b.cu:2"
	print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x10000\"]}"
	for (i = 0; i < 12; i++) printf "{\"op\":\"free\",\"addr\":\"0x%x\"}\n", 65536 + i * 65536 }' >"$TMPDIR/grow-after.jsonl"
grep -v '"b.cu:2"' "$TMPDIR/grow-after.jsonl" | grep -v '"0x[9ab]0000"\|"0xc0000"' >"$TMPDIR/grow-before.jsonl"
"$GMPROF" baseline -o "$TMPDIR/grow.base.json" "$TMPDIR/grow-before.jsonl"
grep -q '"gmprof_baseline": 3' "$TMPDIR/grow.base.json" && grep -q '"input": "grow-before.jsonl",' "$TMPDIR/grow.base.json" &&
	grep -q '"site": "a.cu:1"' "$TMPDIR/grow.base.json" &&
	ok "baseline: version 3, each device's peak by allocation site" || notok "baseline: peak sites: $(head -12 "$TMPDIR/grow.base.json")"
expect_exit 1 "check: a peak grown past the baseline" -- "$GMPROF" check --baseline "$TMPDIR/grow.base.json" "$TMPDIR/grow-after.jsonl"
grep -q '^  grew at b.cu:2: +16.0 KiB (0 B in the baseline, 16.0 KiB now)$' "$TMPDIR/out" &&
	! grep -q "grew at a.cu:1" "$TMPDIR/out" && grep -q "^  reached on device 0 at ALLOC (stream 0, #12) at b.cu:2$" "$TMPDIR/out" &&
	ok "  ... naming where it was reached and the site that grew (not the one that did not)" || notok "  ... grew: $(cat "$TMPDIR/out")"
# In SARIF, a peak_growth result (an error) where the grown site allocates, for code review.
expect_exit 1 "check --sarif: a peak grown past the baseline" -- "$GMPROF" check --baseline "$TMPDIR/grow.base.json" \
	--sarif "$TMPDIR/grow.sarif" "$TMPDIR/grow-after.jsonl"
sarif_ok "$TMPDIR/grow.sarif" 1 "with a peak_growth result"
[ "$(grep -c '"ruleId": "peak_growth"' "$TMPDIR/grow.sarif")" -eq 1 ] &&
	grep -A14 '"ruleId": "peak_growth"' "$TMPDIR/grow.sarif" | tr -d ' \n' |
	grep -q '"level":"error","message":{"text":"TheGPUmemorypeakondevice0grewto48.0KiB,pastthebaseline.s32.0KiB(allowedupto32.0KiB);objectsallocatedherehold16.0KiBofit,16.0KiBmorethaninthebaseline(0B)."},"locations":\[{"physicalLocation":{"artifactLocation":{"uri":"b.cu","uriBaseId":"%SRCROOT%"},"region":{"startLine":2' &&
	ok "  ... one, at b.cu:2, saying how much grew there" || notok "  ... peak_growth: $(grep -A16 peak_growth "$TMPDIR/grow.sarif" | tail -16)"
expect_exit 0 "check --sarif: a peak within its baseline" -- "$GMPROF" check --baseline "$TMPDIR/grow.base.json" \
	--sarif "$TMPDIR/nogrow.sarif" "$TMPDIR/grow-before.jsonl"
grep -q '"ruleId": "peak_growth"' "$TMPDIR/nogrow.sarif" && notok "  ... no peak_growth result" || ok "  ... no peak_growth result"
# Baselines of versions 2 (the largest peak and its sites) and 1 (no sites), as older gmprof wrote them.
{ printf '{"gmprof_baseline": 2, "input": "grow-before.jsonl", "peak_bytes": 32768, "leaked_bytes": 0,\n'
  printf '"peak_sites": [{"site": "a.cu:1", "bytes": 32768}],\n'; sed -n '/"findings"/,$p' "$TMPDIR/grow.base.json"; } >"$TMPDIR/grow.v2.json"
expect_exit 1 "check against a version-2 baseline" -- "$GMPROF" check --baseline "$TMPDIR/grow.v2.json" \
	--sarif "$TMPDIR/grow.v2.sarif" "$TMPDIR/grow-after.jsonl"
grep -q '^FAIL baseline:peak: 48.0 KiB against 32.0 KiB in the baseline (allowed up to 32.0 KiB)$' "$TMPDIR/out" &&
	grep -q '^  grew at b.cu:2: +16.0 KiB (0 B in the baseline, 16.0 KiB now)$' "$TMPDIR/out" &&
	grep -A14 '"ruleId": "peak_growth"' "$TMPDIR/grow.v2.sarif" | tr -d ' \n' | grep -q '"text":"TheGPUmemorypeakgrewto48.0KiB,' &&
	ok "  ... the largest peak against it, and the site that grew" || notok "  ... v2: $(cat "$TMPDIR/out")"
{ printf '{"gmprof_baseline": 1, "peak_bytes": 32768, "leaked_bytes": 0,\n'; sed -n '/"findings"/,$p' "$TMPDIR/grow.base.json"; } >"$TMPDIR/grow.v1.json"
expect_exit 1 "check against a version-1 baseline" -- "$GMPROF" check --baseline "$TMPDIR/grow.v1.json" "$TMPDIR/grow-after.jsonl"
grep -q "FAIL baseline:peak" "$TMPDIR/out" && ! grep -q "grew at" "$TMPDIR/out" && ok "  ... the peak fails, no sites to name" ||
	notok "  ... v1: $(cat "$TMPDIR/out")"
printf '{"gmprof_baseline":2,"peak_bytes":1,"leaked_bytes":0,"peak_sites":[{"site":"a.cu:1","bytes":-4}],"findings":[]}' >"$TMPDIR/badsites.json"
expect_exit 2 "a baseline with a bad peak site" -- "$GMPROF" check --baseline "$TMPDIR/badsites.json" tests/scripts/figure3.jsonl
expect_stderr_line "bad baseline.*a peak site needs" "  ... said in one line"
expect_exit 2 "bad --fail-on" -- "$GMPROF" check --fail-on leaks tests/scripts/figure3.jsonl
expect_stderr_line "names no known pattern" "  ... said in one line"
printf '{"gmprof_baseline":1,"peak_bytes":1,"leaked_bytes":0,"findings":[{"fingerprint":"xyz"}]}' >"$TMPDIR/badbase.json"
expect_exit 2 "a corrupt baseline" -- "$GMPROF" check --baseline "$TMPDIR/badbase.json" tests/scripts/figure3.jsonl
expect_stderr_line "bad baseline.*fingerprint" "  ... said in one line"
expect_exit 2 "a missing baseline" -- "$GMPROF" check --baseline "$TMPDIR/none.json" tests/scripts/figure3.jsonl
expect_stderr_line "cannot open baseline" "  ... said in one line"
expect_exit 2 "SARIF into a missing directory" -- "$GMPROF" check --sarif "$TMPDIR/no/dir/x.sarif" tests/scripts/figure3.jsonl
expect_stderr_line "cannot create" "  ... said in one line"
for s in tests/scripts/*.jsonl; do
	n=$(basename "$s" .jsonl)
	"$GMPROF" check --fail-on all --sarif "$TMPDIR/$n.sarif" "$s" >/dev/null 2>&1
	sarif_ok "$TMPDIR/$n.sarif" 1 "$n"
done
# Several inputs (an MPI job's ranks): every check on each, lines naming the
# input, one total; a SARIF run and a JUnit test suite per input.
F2=tests/scripts/figure2.jsonl F3=tests/scripts/figure3.jsonl
n2=$("$GMPROF" replay --format json "$F2" | grep -o '"pattern":' | wc -l)
n3=$("$GMPROF" replay --format json "$F3" | grep -o '"pattern":' | wc -l)
expect_exit 1 "check over two inputs: one fails" -- "$GMPROF" check --max-peak 2MiB --sarif "$TMPDIR/two.sarif" \
	--junit "$TMPDIR/two.xml" "$F2" "$F3"
grep -q "^PASS $F2: max_peak: " "$TMPDIR/out" && grep -q "^FAIL $F3: max_peak: " "$TMPDIR/out" &&
	grep -q '^gmprof check: 2 inputs, 6 checks, 1 failed$' "$TMPDIR/out" &&
	ok "  ... each line names its input; one total" || notok "  ... lines: $(cat "$TMPDIR/out")"
sarif_ok "$TMPDIR/two.sarif" 1 "two inputs"
# One run (code scanning takes one per tool and category): every result names its input.
[ "$(grep -c '"driver": ' "$TMPDIR/two.sarif")" = 1 ] && [ "$(grep -c '"ruleId": ' "$TMPDIR/two.sarif")" = $((n2 + n3)) ] &&
	[ "$(grep -c "\"input\": \"$F2\"" "$TMPDIR/two.sarif")" = $((n2 + 1)) ] &&
	[ "$(grep -c "\"input\": \"$F3\"" "$TMPDIR/two.sarif")" = $((n3 + 1)) ] &&
	ok "  ... one SARIF run with every input's results, each naming its input" ||
	notok "  ... SARIF: $(grep -c '"driver": ' "$TMPDIR/two.sarif") runs, $(grep -c '"ruleId": ' "$TMPDIR/two.sarif") results, want $((n2 + n3))"
[ "$(grep -c '<testsuite ' "$TMPDIR/two.xml")" = 2 ] &&
	grep -q '<testsuites name="gmprof check" tests="6" failures="1" errors="0">' "$TMPDIR/two.xml" &&
	ok "  ... a JUnit test suite per input, totals over both" || notok "  ... JUnit: $(head -3 "$TMPDIR/two.xml")"
expect_exit 0 "check over two inputs: both pass" -- "$GMPROF" check --max-peak 4MiB "$F2" "$F3"
# A baseline of both: the larger peak, every fingerprint once; each passes against it, and
# one input's baseline fails the other.
cp "$F3" "$TMPDIR/f3-again.jsonl"
expect_exit 0 "baseline of two inputs" -- "$GMPROF" baseline -o "$TMPDIR/two.base.json" "$F2" "$F3" "$TMPDIR/f3-again.jsonl"
grep -q "\"input\": \"$F2 $F3 $TMPDIR/f3-again.jsonl\"" "$TMPDIR/two.base.json" && grep -q '^  "peak_bytes": 4194304' "$TMPDIR/two.base.json" &&
	[ "$(grep -c '"fingerprint"' "$TMPDIR/two.base.json")" = $((n2 + n3)) ] &&
	ok "  ... the larger peak, each fingerprint once" || notok "  ... baseline: $(head -6 "$TMPDIR/two.base.json")"
expect_exit 0 "check of both against their baseline" -- "$GMPROF" check --baseline "$TMPDIR/two.base.json" "$F2" "$F3"
"$GMPROF" baseline -o "$TMPDIR/f2.base.json" "$F2" >/dev/null 2>&1
expect_exit 1 "check of both against one's baseline" -- "$GMPROF" check --baseline "$TMPDIR/f2.base.json" "$F2" "$F3"
grep -q "^PASS $F2: baseline:new_findings" "$TMPDIR/out" && grep -q "^FAIL $F3: baseline:new_findings" "$TMPDIR/out" &&
	ok "  ... the other's findings are new" || notok "  ... $(grep baseline "$TMPDIR/out")"
rm -f "$TMPDIR/bad2.sarif"
printf '{"op":"alloc","addr":"0x10"}\n' >"$TMPDIR/bad2.jsonl"
expect_exit 0 "report of two inputs" -- "$GMPROF" report --top 1 "$F2" "$F3"
[ "$(grep -c '^gmprof report: ' "$TMPDIR/out")" = 2 ] && grep -q "^gmprof report: $F3$" "$TMPDIR/out" &&
	ok "  ... one after the other" || notok "  ... $(grep '^gmprof report' "$TMPDIR/out")"
grep -q '^Inputs: 2$' "$TMPDIR/out" && grep -Eq "^  $F2 +1\.0 MiB +4 +4\.0 KiB +8\.0 KiB$" "$TMPDIR/out" &&
	grep -Eq "^  $F3 +4\.0 MiB +10 +1\.0 MiB +0 B$" "$TMPDIR/out" &&
	ok "  ... and a line per input at the end: peak, findings, top saving, leaked" || notok "  ... $(tail -4 "$TMPDIR/out")"
! grep -q 'range that grew most' "$TMPDIR/out" && ok "  ... no range column where no range grew" ||
	notok "  ... $(grep -A3 '^Inputs' "$TMPDIR/out")"
# Where an input has a range that grew (a loop that keeps memory): the range that grew most, each input.
expect_exit 0 "report --summary of a loop and a run without one" -- "$GMPROF" report --summary tests/scripts/nvtx_loop.jsonl "$F2"
grep -Eq '^  input +peak +findings +top saving +leaked  range that grew most$' "$TMPDIR/out" &&
	grep -Eq '^  tests/scripts/nvtx_loop.jsonl +13\.0 KiB +10 +4\.0 KiB +0 B  8\.0 KiB in step$' "$TMPDIR/out" &&
	grep -Eq "^  $F2 +1\.0 MiB +4 +4\.0 KiB +8\.0 KiB  -$" "$TMPDIR/out" &&
	ok "  ... its growth and range, '-' for the other" || notok "  ... $(grep -A3 '^Inputs' "$TMPDIR/out")"
expect_exit 0 "  ... markdown" -- "$GMPROF" report --summary --format markdown tests/scripts/nvtx_loop.jsonl "$F2"
grep -q '^| input | peak | findings | top saving | leaked | range that grew most |$' "$TMPDIR/out" &&
	grep -q '^| `tests/scripts/nvtx_loop.jsonl` | 13.0 KiB | 10 | 4.0 KiB | 0 B | 8.0 KiB in step |$' "$TMPDIR/out" &&
	ok "  ... a column" || notok "  ... $(grep -A4 '^## Inputs' "$TMPDIR/out")"
expect_exit 0 "report --format json of two inputs" -- "$GMPROF" report --format json "$F2" "$F3"
head -c 2 "$TMPDIR/out" | grep -q '^\[{' && [ "$(grep -o '"findings":\[' "$TMPDIR/out" | wc -l)" = 2 ] &&
	tail -c 3 "$TMPDIR/out" | grep -q '}]' && ok "  ... an array of the two documents" || notok "  ... json: $(head -c 80 "$TMPDIR/out")"
# --lean: no child slices or flows, the objects in each API's args; a valid trace, smaller.
expect_exit 0 "perfetto --lean" -- "$GMPROF" perfetto --lean -o "$TMPDIR/lean.json" "$IN"
"$T/trace_check" "$TMPDIR/lean.json" >"$TMPDIR/tc" 2>&1 && grep -q ' 0 flows' "$TMPDIR/tc" &&
	grep -q '"objects":\["read ' "$TMPDIR/lean.json" && [ "$(wc -c <"$TMPDIR/lean.json")" -lt "$(wc -c <"$TMPDIR/smc.trace.json")" ] &&
	ok "  ... valid, no flows, the objects in the args, smaller" || notok "  ... lean: $(cat "$TMPDIR/tc")"
# One Perfetto trace of both: each input's GPU a process of its own, named by the input,
# object ids and flows apart, all checked as one trace.
expect_exit 0 "perfetto of two inputs" -- "$GMPROF" perfetto -o "$TMPDIR/two.json" "$F2" "$F3"
trace_ok "$TMPDIR/two.json" "two inputs in one trace"
grep -q '"name":"process_name".*"pid":1,.*"name":"figure2: GPU 0"' "$TMPDIR/two.json" &&
	grep -q '"name":"process_name".*"pid":1001,.*"name":"figure3: GPU 0"' "$TMPDIR/two.json" &&
	grep -q '"inputs":\["tests/scripts/figure2.jsonl","tests/scripts/figure3.jsonl"\]' "$TMPDIR/two.json" &&
	ok "  ... a process per input's GPU, named by the input" || notok "  ... $(grep process_name "$TMPDIR/two.json")"
expect_exit 0 "html of two inputs" -- "$GMPROF" html -o "$TMPDIR/two.html" "$F2" "$F3"
grep -q '<h1>gmprof report: 2 inputs</h1>' "$TMPDIR/two.html" && grep -q '<a href="#input2">tests/scripts/figure3.jsonl</a>' "$TMPDIR/two.html" &&
	grep -q '<h1 id="input1">gmprof report: tests/scripts/figure2.jsonl</h1>' "$TMPDIR/two.html" &&
	[ "$(grep -c '<svg' "$TMPDIR/two.html")" -ge 4 ] && ! grep -Eqi '<script|src=|href="http|url\(|@import' "$TMPDIR/two.html" &&
	ok "  ... one page: a table of the inputs, then each one's report" || notok "  ... $(grep -o '<h1[^<]*' "$TMPDIR/two.html")"
expect_exit 2 "report of two inputs, the second bad" -- "$GMPROF" report -o "$TMPDIR/two.txt" "$F2" "$TMPDIR/bad2.jsonl"
[ ! -e "$TMPDIR/two.txt" ] && ok "  ... nothing written" || notok "  ... a report was written"
expect_exit 2 "check over two inputs, the second bad" -- "$GMPROF" check --max-peak 2MiB --sarif "$TMPDIR/bad2.sarif" \
	"$F2" "$TMPDIR/bad2.jsonl"
expect_stderr_line "bad2.jsonl" "  ... said in one line, naming it"
[ ! -e "$TMPDIR/bad2.sarif" ] && ok "  ... and no SARIF written" || notok "  ... a SARIF was written"
# A script without `at`: SARIF points at the script line of the allocation.
grep -q '"uri": "tests/scripts/figure3.jsonl"' "$TMPDIR/figure3.sarif" && ok "SARIF falls back to the script line" || notok "SARIF falls back to the script line"

# ---- HTML: self-contained -----------------------------------------------------------
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/r.html" tests/scripts/intra_patterns.jsonl
if grep -Eqi '<script|src=|href=|url\(|@import' "$TMPDIR/r.html"; then notok "html loads nothing"; else ok "html loads nothing"; fi
[ "$(grep -c '<svg' "$TMPDIR/r.html")" -ge 3 ] && ok "html has the plot, the lifetimes and a histogram" || notok "html has the plot, the lifetimes and a histogram"
grep -q '<td>non_uniform_access_frequency</td>' "$TMPDIR/r.html" && ok "html lists the findings" || notok "html lists the findings"
# Findings grouped by allocation site: a loop's buffers share one place to fix.
{
	for i in 1 2 3 4 5; do
		printf '{"op":"alloc","addr":"0x%x00000","size":%d,"at":"loop.cu:7"}\n' "$i" $((i * 4096))
		printf '{"op":"kernel","name":"warmup","at":"loop.cu:8"}\n'
		printf '{"op":"kernel","name":"step","write":["0x%x00000"],"at":"loop.cu:9"}\n' "$i"
		printf '{"op":"free","addr":"0x%x00000","at":"loop.cu:10"}\n' "$i"
	done
	printf '{"op":"alloc","addr":"0x9000000","size":64,"at":"other.cu:3"}\n'
} >"$TMPDIR/loop.jsonl"
expect_exit 0 "report of a loop" -- "$GMPROF" report "$TMPDIR/loop.jsonl"
sed -n '/^Findings by allocation site$/,/^$/p' "$TMPDIR/out" >"$TMPDIR/bysite"
grep -q '^  early_allocation  *5 findings   60.0 KiB  at loop.cu:7$' "$TMPDIR/bysite" && ok "by site: the loop's five early allocations in one line" ||
	notok "by site: $(cat "$TMPDIR/bysite")"
grep -q 'other.cu:3' "$TMPDIR/bysite" && ok "by site: single findings are listed too" || notok "by site: other.cu:3 missing"
expect_exit 0 "report of one finding per site" -- "$GMPROF" report tests/scripts/figure2.jsonl
grep -q '^Findings by allocation site' "$TMPDIR/out" && notok "no by-site section when no site repeats" || ok "no by-site section when no site repeats"
# Pools with regions: the peak in use beside the device's, in every format.
expect_exit 0 "report of pool regions" -- "$GMPROF" report tests/scripts/pool_regions.jsonl
grep -q '^  device 0: at most 132.0 KiB in use (pools counted by their regions)$' "$TMPDIR/out" &&
	grep -q 'saves 4.0 KiB at the peak in use (132.0 KiB -> 128.0 KiB)' "$TMPDIR/out" &&
	ok "report: the peak in use and a region's saving against it" || notok "report: $(grep -i 'in use' "$TMPDIR/out")"
expect_exit 0 "replay of pool regions" -- "$GMPROF" replay tests/scripts/pool_regions.jsonl
grep -q '^device 0: peak 1.0 MiB (1048576 bytes); in use at most 132.0 KiB$' "$TMPDIR/out" && ok "replay: the peak in use" ||
	notok "replay: $(head -2 "$TMPDIR/out")"
expect_exit 0 "html of pool regions" -- "$GMPROF" html -o - tests/scripts/pool_regions.jsonl
grep -q '<dt>in use</dt><dd>device 0: at most 132.0 KiB' "$TMPDIR/out" && ok "html: the peak in use" || notok "html: no peak in use"
grep -q 'aria-label="bytes in use on device 0"' "$TMPDIR/out" && ok "html: a plot of the bytes in use" || notok "html: no plot of the bytes in use"
grep -q 'aria-label="bytes in use by allocation site on device 0"' "$TMPDIR/out" &&
	grep -q '<code>model.cu:20</code>: 64.0 KiB at the peak</li><li><svg width="10" height="10"><rect class="l1" width="10" height="10"/></svg><code>model.cu:21</code>: 64.0 KiB at the peak</li>' "$TMPDIR/out" &&
	ok "html: the bytes in use by the sites that registered the regions" || notok "html: no bytes in use by allocation site"
"$GMPROF" report tests/scripts/pool_regions.jsonl | grep -q '^Bytes in use on device 0 (pools counted by their regions)' &&
	ok "report: a plot of the bytes in use" || notok "report: no plot of the bytes in use"
"$GMPROF" report tests/scripts/figure2.jsonl | grep -q '^Bytes in use' && notok "report: no such plot without regions" ||
	ok "report: no such plot without regions"
expect_exit 0 "perfetto of pool regions" -- "$GMPROF" perfetto -o "$TMPDIR/pr.json" tests/scripts/pool_regions.jsonl
trace_ok "$TMPDIR/pr.json" "pool regions"
max=$(grep '"name":"bytes in use"' "$TMPDIR/pr.json" | sed 's/.*"bytes":\([0-9]*\).*/\1/' | sort -n | tail -1)
[ "$max" = 135168 ] && ok "perfetto: a bytes-in-use counter, at most 132 KiB" || notok "perfetto: bytes in use at most '$max'"
grep -q '"name":"bytes in use"' "$TMPDIR/smc.trace.json" && notok "perfetto: no bytes-in-use counter without regions" ||
	ok "perfetto: no bytes-in-use counter without regions"
# A peak of more than 8 objects: after the 8 listed, its bytes by allocation site, the most first.
awk 'BEGIN { for (i = 0; i < 30; i++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":%d,\"at\":\"%s\"}\n", 65536 + i * 65536,
		i % 3 == 0 ? 8192 : 4096, i % 3 == 0 ? "net.cu:40" : i % 3 == 1 ? "net.cu:52" : "util.cu:9"
	print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x10000\"]}"
	for (i = 0; i < 30; i++) printf "{\"op\":\"free\",\"addr\":\"0x%x\"}\n", 65536 + i * 65536 }' >"$TMPDIR/sites.jsonl"
"$GMPROF" report --top 0 "$TMPDIR/sites.jsonl" | sed -n '/^    by allocation site:$/,/^$/p' >"$TMPDIR/sites.got"
printf '%s\n' "    by allocation site:" "        80.0 KiB  50%  10 objects at net.cu:40" "        40.0 KiB  25%  10 objects at net.cu:52" \
	"        40.0 KiB  25%  10 objects at util.cu:9" "" >"$TMPDIR/sites.want"
cmp -s "$TMPDIR/sites.got" "$TMPDIR/sites.want" && ok "report: a peak of 30 objects by allocation site, the most bytes first" ||
	notok "report: peak by site: $(cat "$TMPDIR/sites.got")"
"$GMPROF" report --format json --top 0 "$TMPDIR/sites.jsonl" | tr -d ' \n' |
	grep -q '"peak_sites":\[{"device":0,"bytes":163840,"sites":\[{"site":"net.cu:40","objects":10,"bytes":81920},{"site":"net.cu:52","objects":10,"bytes":40960},{"site":"util.cu:9","objects":10,"bytes":40960}\]}\]' &&
	ok "report JSON: peak_sites, each peak by allocation site" || notok "report JSON: peak_sites"
"$GMPROF" report --top 0 tests/scripts/simple_multi_copy.jsonl | grep -q "by allocation site:" &&
	notok "report: no such table for a peak of 8 objects or fewer" || ok "report: no such table for a peak of 8 objects or fewer"
"$GMPROF" html -o "$TMPDIR/sites.html" "$TMPDIR/sites.jsonl" &&
	grep -q '^<tr><td><code>net.cu:40</code></td><td class="n">10</td><td class="n">80.0 KiB</td><td class="n">50%</td></tr>$' "$TMPDIR/sites.html" &&
	grep -q '^<p>Device 0: 160.0 KiB at ALLOC (stream 0, #30) at <code>util.cu:9</code>, 30 live objects.</p>$' "$TMPDIR/sites.html" &&
	ok "html: each peak, where it was reached, and its bytes by allocation site" || notok "html: peaks by allocation site"
# Live bytes by allocation site over the run: a layer per site at the peak (8 at most, then the rest).
grep -q 'aria-label="live bytes by allocation site on device 0"' "$TMPDIR/sites.html" &&
	[ "$(grep -c '^<path class="l[0-9]" d="M70 ' "$TMPDIR/sites.html")" = 3 ] &&
	grep -q '<li><svg width="10" height="10"><rect class="l0" width="10" height="10"/></svg><code>net.cu:40</code>: 80.0 KiB at the peak</li><li><svg width="10" height="10"><rect class="l1" width="10" height="10"/></svg><code>net.cu:52</code>: 40.0 KiB at the peak</li>' "$TMPDIR/sites.html" &&
	ok "html: live bytes by allocation site, a layer and a legend line each" || notok "html: live bytes by site: $(grep -c '<path class="l' "$TMPDIR/sites.html")"
awk 'BEGIN { for (i = 0; i < 12; i++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":%d,\"at\":\"s%02d.cu:1\"}\n", 1048576 + i * 1048576, 4096 * (20 - i), i
	print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x100000\"]}" }' >"$TMPDIR/many.jsonl"
"$GMPROF" html -o "$TMPDIR/many.html" "$TMPDIR/many.jsonl" &&
	[ "$(grep -c '^<path class="l[0-8]" ' "$TMPDIR/many.html")" = 8 ] && grep -q '^<path class="l9" .*<title>other sites: 168.0 KiB at the peak</title>' "$TMPDIR/many.html" &&
	grep -q '<code>s07.cu:1</code>: 52.0 KiB at the peak</li><li><svg width="10" height="10"><rect class="l9" width="10" height="10"/></svg>other sites: 168.0 KiB at the peak</li></ul>' "$TMPDIR/many.html" &&
	ok "html: twelve sites, eight drawn and the rest as one" || notok "html: twelve sites: $(grep -o 'other sites[^<]*' "$TMPDIR/many.html")"
"$GMPROF" html -o "$TMPDIR/one.html" tests/scripts/figure4.jsonl && ! grep -q 'by allocation site on device' "$TMPDIR/one.html" &&
	ok "html: no such plot where one site holds every byte" || notok "html: a plot by site for one site"
# The same in Perfetto: a counter track per site ("live bytes by site SITE"), whose values add
# up to the device's live bytes at every change.
sites_add_up() { # TRACE: prints the changes where they do not, and how many site counter events there were
	awk '/"ph":"C","name":"live bytes","pid":/ { match($0, /"pid":[0-9]+/); pid = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, /"bytes":[0-9]+/); live[pid] = substr($0, RSTART + 8, RLENGTH - 8) + 0 }
	/"ph":"C","name":"live bytes by site","pid":/ { match($0, /"pid":[0-9]+/); pid = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, /"args":\{"[^"]*":[0-9]+/); kv = substr($0, RSTART + 9, RLENGTH - 9); k = kv; sub(/":[0-9]+$/, "", k)
		v = kv; sub(/^.*":/, "", v); total[pid] += v - site[pid, k]; site[pid, k] = v; n++
		if (total[pid] != live[pid]) print "at " $0 ": " total[pid] " by site, " live[pid] " live" }
	END { print n + 0 " site counter events" }' "$1"
}
"$GMPROF" perfetto -o "$TMPDIR/many.trace.json" "$TMPDIR/many.jsonl" && sites_add_up "$TMPDIR/many.trace.json" >"$TMPDIR/sa" &&
	[ "$(cat "$TMPDIR/sa")" = "12 site counter events" ] &&
	[ "$(grep -o '"name":"live bytes by site","pid":1,"ts":[0-9.]*,"args":{"[^"]*"' "$TMPDIR/many.trace.json" | sed 's/.*"args":{//' | sort -u | tr '\n' ' ')" = \
	  '"other sites" "s00.cu:1" "s01.cu:1" "s02.cu:1" "s03.cu:1" "s04.cu:1" "s05.cu:1" "s06.cu:1" "s07.cu:1" ' ] &&
	ok "perfetto: live bytes by site, eight sites and the rest, adding up" || notok "perfetto: by site: $(cat "$TMPDIR/sa")"
"$GMPROF" perfetto -o "$TMPDIR/one.trace.json" tests/scripts/figure4.jsonl && ! grep -q '"live bytes by site"' "$TMPDIR/one.trace.json" &&
	ok "perfetto: no counter by site where one site holds every byte" || notok "perfetto: a counter by site for one site"
bad="" nsite=0
for sc in tests/scripts/*.jsonl tests/data/gpu/*.gmprof; do
	"$GMPROF" perfetto -o "$TMPDIR/sa.json" --force "$sc" 2>/dev/null && sites_add_up "$TMPDIR/sa.json" >"$TMPDIR/sa"
	grep -q '^at ' "$TMPDIR/sa" && bad="$bad $sc"
	nsite=$((nsite + $(tail -1 "$TMPDIR/sa" | cut -d' ' -f1)))
done
[ -z "$bad" ] && [ "$nsite" -gt 50 ] && ok "perfetto: every script's and recorded profile's sites add up ($nsite site counter events)" ||
	notok "perfetto: the sites do not add up in$bad ($nsite events)"
bad=""
for sc in tests/scripts/*.jsonl tests/data/gpu/*.gmprof; do
	"$GMPROF" html -o - "$sc" 2>/dev/null | grep -q "do not add up" && bad="$bad $sc"
done
[ -z "$bad" ] && ok "html: every script's and recorded profile's sites add up to its live bytes" || notok "html: the sites do not add up in$bad"
finish
