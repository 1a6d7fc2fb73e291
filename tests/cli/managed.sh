# SPDX-License-Identifier: MIT
# Managed memory: the host reads and writes it with no callback, so the
# patterns that the host's use could make wrong (early, late, unused,
# redundant, idle, dead write, overallocation) are not reported on managed
# objects unless --managed-gpu-only says the host never touches them; a
# managed leak's last use is not known.  Each output says how many findings
# were left out so.
. tests/cli/lib.sh
S=tests/scripts/managed.jsonl
findings() { grep '^ *[0-9]*\. ' "$TMPDIR/out" | sed -E 's/^ *[0-9]+\. ([a-z_]+): ([a-z]+) .*/\1 \2/' | sort | tr '\n' ' '; }
expect_exit 0 "replay a program's managed memory" -- "$GMPROF" replay "$S"
[ "$(findings)" = "early_allocation t late_deallocation t memory_leak z " ] &&
	ok "  ... the device object's findings and the managed leak, no more" || notok "  ... findings: $(findings)"
grep -qx "5 findings on managed objects left out: the host's use of managed memory is not seen (--managed-gpu-only)" \
	"$TMPDIR/out" && ok "  ... and says how many it left out, and why" || notok "  ... out: $(cat "$TMPDIR/out")"
grep -q "suggestion: free it once neither the GPU nor the host uses it any more (the host's use of managed memory is not seen; the GPU's last is KERNEL k (stream 0, #1))" \
	"$TMPDIR/out" && ok "  ... the leak's last use is not known" || notok "  ... out: $(cat "$TMPDIR/out")"
expect_exit 0 "replay --managed-gpu-only" -- "$GMPROF" replay --managed-gpu-only "$S"
[ "$(findings)" = "early_allocation t early_allocation x early_allocation y late_deallocation t late_deallocation x late_deallocation y memory_leak z redundant_allocation w " ] &&
	ok "  ... every pattern on managed objects too" || notok "  ... findings: $(findings)"
grep -q "left out" "$TMPDIR/out" && notok "  ... out: $(cat "$TMPDIR/out")" || ok "  ... none left out"
grep -q "suggestion: free it just after KERNEL k (stream 0, #1), its last use" "$TMPDIR/out" &&
	ok "  ... the leak's last use is the GPU's" || notok "  ... out: $(cat "$TMPDIR/out")"
# A device object that could reuse a managed one's memory: the pair is left out too.
sed 's/"label":"w","kind":"managed"/"label":"w"/' "$S" >"$TMPDIR/pair.jsonl"
expect_exit 0 "a device object that could reuse a managed object's memory" -- "$GMPROF" replay "$TMPDIR/pair.jsonl"
grep -q "redundant_allocation" "$TMPDIR/out" && notok "  ... out: $(cat "$TMPDIR/out")" || ok "  ... no redundant pair"
expect_exit 0 "  ... with --managed-gpu-only" -- "$GMPROF" replay --managed-gpu-only "$TMPDIR/pair.jsonl"
grep -q "redundant_allocation: w (1.0 MiB)" "$TMPDIR/out" && ok "  ... the pair" || notok "  ... out: $(cat "$TMPDIR/out")"

expect_exit 0 "replay --format json" -- "$GMPROF" replay --format json --min-size 5000 "$S"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["findings_left_out"] == {"min_size": 1, "managed": 5} and len(d["findings"]) == 2 else 1)' \
	"$TMPDIR/out" 2>/dev/null && ok "  ... findings_left_out counts both" || notok "  ... $(head -c 600 "$TMPDIR/out")"
expect_exit 0 "replay --format json, nothing left out" -- "$GMPROF" replay --format json tests/scripts/figure2.jsonl
grep -q findings_left_out "$TMPDIR/out" && notok "  ... written" || ok "  ... not written"
expect_exit 0 "report" -- "$GMPROF" report "$S"
grep -q "^Findings: 3 (5 more on managed objects, whose use by the host is not seen: --managed-gpu-only)" "$TMPDIR/out" &&
	ok "  ... says how many it left out" || notok "  ... $(grep Findings "$TMPDIR/out")"
expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown "$S"
grep -q "^(5 more on managed objects, whose use by the host is not seen: \`--managed-gpu-only\`)" "$TMPDIR/out" &&
	ok "  ... says how many it left out" || notok "  ... $(head -c 800 "$TMPDIR/out")"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/m.html" "$S"
grep -q "(5 more on managed objects, whose use by the host is not seen: <code>--managed-gpu-only</code>)" "$TMPDIR/m.html" &&
	ok "  ... says how many it left out" || notok "  ... $(grep -o '<dt>findings.\{0,200\}' "$TMPDIR/m.html")"

# The CI gate: a managed buffer initialized and read on the host fails no gate by default.
grep -v '"t"\|0x300000' "$S" >"$TMPDIR/host.jsonl"
expect_exit 0 "check --fail-on early_allocation,late_deallocation,redundant_allocation on managed memory" -- \
	"$GMPROF" check --fail-on early_allocation,late_deallocation,redundant_allocation "$TMPDIR/host.jsonl"
expect_exit 1 "  ... fails with --managed-gpu-only" -- \
	"$GMPROF" check --managed-gpu-only --fail-on early_allocation,late_deallocation,redundant_allocation \
	"$TMPDIR/host.jsonl"

# The collector's summary at exit (through the test double) says so too.
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
expect_exit 0 "the collector's run of it" -- env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/m.gmprof" \
	"$B/double/fake_app" "$S"
grep -qx "==gmprof== 5 more on managed objects, whose use by the host is not seen (gmprof report --managed-gpu-only $TMPDIR/m.gmprof)" \
	"$TMPDIR/err" && ok "  ... its summary says how many it left out" || notok "  ... stderr: $(cat "$TMPDIR/err")"
grep -q '^==gmprof== FINDINGS: 3 (early_allocation 1, late_deallocation 1, memory_leak 1)$' "$TMPDIR/err" &&
	ok "  ... and counts the others" || notok "  ... $(grep FINDINGS "$TMPDIR/err")"
finish
