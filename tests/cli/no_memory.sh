# SPDX-License-Identifier: MIT
# A run that allocated no device memory (a program that launched kernels on
# nothing of its own, or whose allocations all happened outside the capture):
# every command answers for it, and says so, instead of failing.
. tests/cli/lib.sh
S=$TMPDIR/none.jsonl
printf '{"op":"kernel","name":"k","stream":1}\n{"op":"sync"}\n' >"$S"
expect_exit 0 "report" -- "$GMPROF" report "$S"
grep -q '^  no device memory was allocated$' "$TMPDIR/out" && grep -q '^Findings: 0,' "$TMPDIR/out" &&
	ok "  ... says no device memory was allocated, and no findings" || notok "  ... report: $(cat "$TMPDIR/out")"
expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown "$S"
grep -q '^No device memory was allocated\.$' "$TMPDIR/out" && ok "  ... says so" || notok "  ... markdown: $(cat "$TMPDIR/out")"
expect_exit 0 "report --format json" -- "$GMPROF" report --format json "$S"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["findings"] == [] else 1)' "$TMPDIR/out" 2>/dev/null &&
	ok "  ... valid JSON with no findings" || notok "  ... json: $(head -c 300 "$TMPDIR/out")"
expect_exit 0 "check" -- "$GMPROF" check --max-peak 1MiB --max-leak 0 "$S"
grep -q '^gmprof check: .* 0 failed$' "$TMPDIR/out" && ok "  ... every gate passes" || notok "  ... check: $(cat "$TMPDIR/out")"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/none.html" "$S"
grep -q '<p>No device memory was allocated.</p>' "$TMPDIR/none.html" && ok "  ... says so" || notok "  ... html says nothing of it"
# The trace has the kernel's slice on its stream (the trace once failed: "cannot write ...: Invalid argument").
expect_exit 0 "perfetto" -- "$GMPROF" perfetto -o "$TMPDIR/none.json" "$S"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if [e["name"] for e in d["traceEvents"] if e.get("ph") == "X"] == ["k", "SYNC"] else 1)' "$TMPDIR/none.json" 2>/dev/null &&
	ok "  ... valid JSON: the kernel's and the sync's slices, nothing else" || notok "  ... trace: $(head -c 400 "$TMPDIR/none.json")"
expect_exit 0 "flamegraph" -- "$GMPROF" flamegraph -o "$TMPDIR/none.svg" "$S"
expect_exit 0 "diff" -- "$GMPROF" diff "$S" "$S"
grep -q 'findings: 0 -> 0' "$TMPDIR/out" && ok "  ... no findings either side" || notok "  ... diff: $(cat "$TMPDIR/out")"
expect_exit 0 "baseline" -- "$GMPROF" baseline -o "$TMPDIR/none.base" "$S"
expect_exit 0 "check --baseline" -- "$GMPROF" check --baseline "$TMPDIR/none.base" "$S"
grep -q '^PASS baseline:peak: 0 devices, none past the baseline$' "$TMPDIR/out" && ok "  ... no device past the baseline" ||
	notok "  ... check --baseline: $(cat "$TMPDIR/out")"
finish
