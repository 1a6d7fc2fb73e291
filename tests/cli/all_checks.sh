# SPDX-License-Identifier: MIT
# gmprof check with every check at once: one input that gets each of the 34
# (complete, monitored, out_of_memory, suppressions, graphs, tensor_maps,
# pools, shared, the ten patterns, the seven budgets and the nine baseline
# comparisons), written to every output.  Until 2026-11-28 the gate had room
# for 23 and a run asking for them all wrote past it (a crash); until
# 2026-11-29 it had room for 25, one fewer than there were with tensor_maps
# (gmprof stopped, saying so); the marks' four checks came on 2026-11-29, and
# baseline:nvtx_domains (a baseline whose run left out other NVTX domains) in
# the forty-eighth session, shared (memory shared between processes) in the
# forty-ninth.
. tests/cli/lib.sh
cat >"$TMPDIR/all.jsonl" <<'J'
{"op":"meta","key":"tensor_maps","value":"encoded=1 launches=0 graph_nodes=2"}
{"op":"meta","key":"nvtx.domain.0.name","value":"NCCL"}
{"op":"meta","key":"nvtx.domain.0.ranges","value":"3"}
{"op":"meta","key":"nvtx.domain.0.left_out","value":"1"}
{"op":"mark","name":"m"}
{"op":"range_push","name":"step"}
{"op":"alloc","addr":"0x100000","size":1048576,"kind":"async","label":"pool"}
{"op":"pools","reserved":2097152,"used":1048576}
{"op":"alloc","addr":"0x100000","size":4096,"kind":"pool_region","label":"r"}
{"op":"alloc","addr":"0x900000","size":4096,"label":"x"}
{"op":"alloc","addr":"0x10000000","size":4096,"kind":"imported"}
{"op":"kernel","name":"g1","graph":1,"write":["0x100000"]}
{"op":"kernel","name":"g2","graph":1}
{"op":"kernel","name":"k","monitored":false}
{"op":"alloc_failed","size":1099511627776}
{"op":"free","addr":"0x100000"}
{"op":"range_pop"}
{"op":"range_push","name":"step"}
{"op":"kernel","name":"k2","read":["0x900000"]}
{"op":"range_pop"}
{"op":"mark","name":"m"}
J
echo 'unused_allocation:*nothing*' >"$TMPDIR/sup.txt"
# The baseline's run left no NVTX domain out (baseline:nvtx_domains says this one left out NCCL).
mkdir -p "$TMPDIR/b"
grep -v '"nvtx\.domain' "$TMPDIR/all.jsonl" >"$TMPDIR/b/all.jsonl"
"$GMPROF" baseline -o "$TMPDIR/base.json" "$TMPDIR/b/all.jsonl" || notok "baseline of the script"
NAMES="complete monitored out_of_memory suppressions graphs tensor_maps pools shared pattern:early_allocation pattern:late_deallocation
pattern:redundant_allocation pattern:unused_allocation pattern:memory_leak pattern:temporary_idleness pattern:dead_write
pattern:overallocation pattern:non_uniform_access_frequency pattern:structured_access max_peak max_in_use max_range_peak
max_range_growth max_mark max_mark_growth max_leak baseline:new_findings baseline:peak baseline:in_use baseline:pools baseline:range_peak
baseline:range_growth baseline:mark_peak baseline:mark_growth baseline:nvtx_domains"
every() { # OUT: each check named once, 34 in all
	_n=0
	for c in $NAMES; do
		[ "$(grep -c "^\(PASS\|FAIL\) \(.*: \)\?$c: " "$1")" = "${2:-1}" ] || { echo "# $c: $(grep -c "^\(PASS\|FAIL\) \(.*: \)\?$c: " "$1") lines"; _n=$((_n + 1)); }
	done
	return $_n
}
ALL="--fail-on all --suppressions $TMPDIR/sup.txt --max-peak 1GiB --max-in-use 1GiB --max-range-peak step=1GiB
--max-range-growth step=0 --max-mark m=1GiB --max-mark-growth m=1GiB --max-leak 1GiB --baseline $TMPDIR/base.json"
# shellcheck disable=SC2086
expect_exit 1 "every check at once: the gate runs to its end" -- "$GMPROF" check $ALL \
	--sarif "$TMPDIR/g.sarif" --junit "$TMPDIR/g.xml" --markdown "$TMPDIR/g.md" --codequality "$TMPDIR/g.cq.json" \
	"$TMPDIR/all.jsonl"
every "$TMPDIR/out" && ok "  ... each of the 34 checks once" || notok "  ... checks: $(cat "$TMPDIR/out")"
grep -q "^gmprof check: 34 checks, 5 failed$" "$TMPDIR/out" && ok "  ... 34 counted, 5 failed" || notok "  ... total: $(tail -1 "$TMPDIR/out")"
[ "$(grep -c '<testcase ' "$TMPDIR/g.xml")" = 34 ] && grep -q 'tests="34" failures="5"' "$TMPDIR/g.xml" &&
	ok "  ... JUnit: 34 test cases, 5 failures" || notok "  ... JUnit: $(head -5 "$TMPDIR/g.xml")"
[ "$(grep -c '^| \*\*FAIL\*\* \|^| PASS ' "$TMPDIR/g.md")" = 34 ] && ok "  ... Markdown: 34 rows" ||
	notok "  ... Markdown: $(grep -c '^| ' "$TMPDIR/g.md") rows"
[ -s "$TMPDIR/g.sarif" ] && [ -s "$TMPDIR/g.cq.json" ] && ok "  ... SARIF and Code Quality written" || notok "  ... SARIF, Code Quality"
# Two inputs (ranks), their baseline of both: each gets its own 34.
cp "$TMPDIR/all.jsonl" "$TMPDIR/again.jsonl"
cp "$TMPDIR/b/all.jsonl" "$TMPDIR/b/again.jsonl"
"$GMPROF" baseline -o "$TMPDIR/base2.json" "$TMPDIR/b/all.jsonl" "$TMPDIR/b/again.jsonl" || notok "baseline of two inputs"
# shellcheck disable=SC2086
expect_exit 1 "two inputs, every check" -- "$GMPROF" check $(echo "$ALL" | sed "s|base.json|base2.json|") \
	"$TMPDIR/all.jsonl" "$TMPDIR/again.jsonl"
every "$TMPDIR/out" 2 && grep -q "^gmprof check: 2 inputs, 68 checks, 10 failed$" "$TMPDIR/out" &&
	ok "  ... each check twice, once an input" || notok "  ... checks: $(cat "$TMPDIR/out")"
finish
