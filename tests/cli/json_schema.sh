# SPDX-License-Identifier: MIT
# The JSON that gmprof writes for programs to read (replay, report, diff,
# baseline) against its published schemas (docs/schema/): every document of
# a corpus that reaches every field must be valid, and every field a schema
# declares must occur in some document (so a field gmprof no longer writes
# cannot stay documented).  The checker itself must reject what it should.
# Where python3's jsonschema is installed, it checks the schemas and the
# documents too, as any 2020-12 validator a user runs would.
. tests/cli/lib.sh
B=${BUILD:-build}/test
CHECK=$B/tools/schema_check
GEN=$B/gmprof-gen
D=$TMPDIR/docs
mkdir -p "$D"
S=docs/schema

# Devices with names and memory, a stream named, NVTX ranges and marks (and a domain left out), a pool with regions, host
# times, a failed allocation the driver described (and what stream-ordered
# pools held then) and a retry, work on two
# devices (the fields only such runs have).
cat >"$TMPDIR/extras.jsonl" <<'EOF'
{"op":"meta","key":"device.0.name","value":"Test GPU"}
{"op":"meta","key":"device.0.memory","value":"67108864"}
{"op":"meta","key":"device.1.name","value":"Test GPU"}
{"op":"meta","key":"device.1.memory","value":"67108864"}
{"op":"meta","key":"stream.0.name","value":"main"}
{"op":"meta","key":"nvtx.domain.0.name","value":"NCCL"}
{"op":"meta","key":"nvtx.domain.0.ranges","value":"12"}
{"op":"meta","key":"nvtx.domain.0.marks","value":"0"}
{"op":"meta","key":"nvtx.domain.0.left_out","value":"1"}
{"op":"range_push","name":"setup","time_ns":100}
{"op":"alloc","addr":"0x100000","size":1048576,"label":"pool","time_ns":200,"at":"alloc.cu:10"}
{"op":"alloc","addr":"0x100000","size":65536,"kind":"pool_region","label":"x","time_ns":300,"at":"model.cu:20"}
{"op":"alloc","addr":"0x110000","size":65536,"kind":"pool_region","label":"w","time_ns":310,"at":"model.cu:21"}
{"op":"alloc","addr":"0x4000000","size":262144,"label":"d1","device":1,"time_ns":400,"at":"model.cu:30"}
{"op":"mark","name":"epoch","time_ns":410}
{"op":"alloc_failed","size":8388608,"api":"cudaMalloc","device_free":1000,"device_total":67108864,"time_ns":450,"at":"model.cu:31"}
{"op":"pools","reserved":4194304,"used":0,"reserved_high":6291456,"used_high":2097152,"release_threshold":8388608}
{"op":"alloc","addr":"0x8000000","size":8388608,"label":"big","time_ns":460,"at":"model.cu:31"}
{"op":"mark","name":"epoch","time_ns":465}
{"op":"range_pop","time_ns":470}
{"op":"range_push","name":"step","time_ns":500}
{"op":"kernel","name":"k","write":["0x100000","0x8000000"],"time_ns":600,"at":"model.cu:40"}
{"op":"kernel","name":"k1","device":1,"write":["0x4000000"],"time_ns":700,"at":"model.cu:41"}
{"op":"kernel","name":"k2","write":["0x110000"],"time_ns":800,"at":"model.cu:42"}
{"op":"kernel","name":"k3","read":["0x110000","0x8000000"],"time_ns":900,"at":"model.cu:43"}
{"op":"kernel","name":"k4","device":1,"read":["0x4000000"],"time_ns":950,"at":"model.cu:44"}
{"op":"sync","time_ns":1000}
{"op":"range_pop","time_ns":1100}
{"op":"free","addr":"0x110000","time_ns":1200,"at":"model.cu:50"}
{"op":"free","addr":"0x100000","time_ns":1300,"at":"model.cu:51"}
{"op":"free","addr":"0x100000","time_ns":1400,"at":"alloc.cu:60"}
{"op":"free","addr":"0x4000000","device":1,"time_ns":1500,"at":"model.cu:52"}
{"op":"end","time_ns":1600}
EOF
# More failed allocations than the documents list one by one, and some the collector counted past its 4096.
{
	echo '{"op":"meta","key":"failed_allocations_unrecorded","value":"3"}'
	echo '{"op":"alloc","addr":"0x100000","size":4096}'
	i=0
	while [ $i -lt 70 ]; do echo '{"op":"alloc_failed","size":1073741824}'; i=$((i + 1)); done
	echo '{"op":"kernel","name":"k","write":["0x100000"]}'
	echo '{"op":"free","addr":"0x100000"}'
} >"$TMPDIR/failures.jsonl"
"$GEN" -n 20000 -s 1 --objects 400 -o "$TMPDIR/many.gmprof" >/dev/null &&
	"$GEN" -n 600 -s 2 --pool --ranges --times --streams 3 -o "$TMPDIR/pool.gmprof" >/dev/null ||
	notok "gmprof-gen"
# A profile from the collector (through the test double): its own time and
# memory, and an intra-mode launch whose touches were lost.
use_double "$PWD/$B"
printf '%s\n' '{"op":"alloc","addr":"0x100000","size":65536}' \
	'{"op":"kernel","name":"k","touch":[{"addr":"0x100000","size":256,"count":3,"rw":"r"}]}' \
	'{"op":"kernel","name":"k","touch":[{"addr":"0x100100","size":256,"count":1,"rw":"w"}]}' \
	'{"op":"sync"}' '{"op":"free","addr":"0x100000"}' '{"op":"end"}' >"$TMPDIR/lost.jsonl"
env GMPROF_MODE=intra GMPROF_RECORDS=2 GMPROF_HEAP_RECORDS=0 GMPROF_OUTPUT="$TMPDIR/collected.gmprof" \
	"$B/double/fake_app" --oom-above 4096 "$TMPDIR/lost.jsonl" 2>/dev/null || notok "the collector's run"
# A captured graph's launches (two kernel nodes each), as the double delivers graphs,
# with a tensor map encoded (what the kernel nodes read through it is not seen) and
# more maps than the collector keeps (one dropped); and again with the nodes'
# accesses mixed, as an H100 did (the detector merges them).
env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_TENSORMAP=0x10000000 GMP_DOUBLE_TENSORMAP_OTHERS=4096 \
	GMPROF_OUTPUT="$TMPDIR/graphs.gmprof" "$B/double/fake_app" \
	tests/gpu/graph_capture.jsonl 2>/dev/null || notok "the collector's run of graphs"
env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_MIX=1 GMPROF_GRAPH_NODE_DATA=launch GMPROF_OUTPUT="$TMPDIR/mixed.gmprof" "$B/double/fake_app" \
	tests/gpu/graph_capture.jsonl 2>/dev/null || notok "the collector's run of mixed graphs"
# Two threads: a launch begun while the other's graph node held its kernel's data (graph_threads.sh).
printf '%s\n' '{"op":"alloc","addr":"0x100000","size":4096}' \
	'{"op":"kernel","name":"step","write":["0x100000"],"stream":1}' '{"op":"sync"}' >"$TMPDIR/step.jsonl"
env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_CROSS=plain GMPROF_CAPTURE=launches:1-1 GMPROF_PATCH_AT=load GMPROF_OUTPUT="$TMPDIR/crossed.gmprof" \
	"$B/double/fake_app" --threads 2 "$TMPDIR/step.jsonl" 2>/dev/null || notok "the collector's run of crossed graphs"

# The corpus: every script and recorded profile the tests have, and the above.
n=0
for f in tests/scripts/*.jsonl tests/fuzz/corpus/script/* tests/data/gpu/*.gmprof "$TMPDIR/extras.jsonl" \
	"$TMPDIR/failures.jsonl" "$TMPDIR/pool.gmprof" "$TMPDIR/collected.gmprof" "$TMPDIR/graphs.gmprof" \
	"$TMPDIR/mixed.gmprof" "$TMPDIR/crossed.gmprof"; do
	"$GMPROF" replay --format json "$f" >"$D/replay.$n.json" 2>/dev/null || { rm -f "$D/replay.$n.json"; continue; }
	sym=
	case $f in tests/data/gpu/*) sym="--symbols tests/data/gpu/bin" ;; esac
	# shellcheck disable=SC2086
	"$GMPROF" report --format json $sym "$f" >"$D/report.$n.json" 2>"$TMPDIR/err" || notok "report $f: $(cat "$TMPDIR/err")"
	n=$((n + 1))
done
[ "$n" -ge 30 ] && ok "a corpus of $n inputs" || notok "only $n inputs replayed"
"$GMPROF" report --format json --fit 1058000 tests/scripts/figure2.jsonl >"$D/report.fit.json" &&
	"$GMPROF" report --format json --fit 1B tests/scripts/figure2.jsonl >"$D/report.nofit.json" &&
	"$GMPROF" report --format json --top 3 --fit 8388609 "$TMPDIR/many.gmprof" >"$D/report.many.json" &&
	"$GMPROF" report --format json tests/scripts/figure2.jsonl "$TMPDIR/extras.jsonl" >"$D/report.several.json" &&
	kept_at tests/scripts/nvtx_loop.jsonl "$TMPDIR/loop_at.jsonl" &&
	"$GMPROF" report --format json "$TMPDIR/loop_at.jsonl" >"$D/report.loop_at.json" &&
	"$GMPROF" report --format json --nvtx-numbers --nvtx-strip ' ?done' tests/scripts/nvtx_marks.jsonl \
		>"$D/report.folded.json" ||
	notok "report --fit, several inputs"
sed 's/"d1"/"d1b"/; s/"size":262144/"size":524288/' "$TMPDIR/extras.jsonl" >"$TMPDIR/extras2.jsonl"
# The loop fixed (each step frees its buffer), with and without sites: diffs to the loop keep memory.
kept_at tests/scripts/nvtx_loop_fixed.jsonl "$TMPDIR/loop_fix_at.jsonl"
# The marks' loop keeping 2 KiB an epoch instead of 1, without its "loaded" mark: a diff of marks changed and gone.
sed 's/"size":1024,"label":"kept\([23]\)"/"size":2048,"label":"kept\1"/; /"name":"loaded"/d' tests/scripts/nvtx_marks.jsonl \
	>"$TMPDIR/marks_worse.jsonl"
k=0
while read -r a b; do
	"$GMPROF" diff --format json "$a" "$b" >"$D/diff.$k.json" || notok "diff $a $b"
	k=$((k + 1))
done <<EOF
tests/scripts/figure2.jsonl tests/scripts/figure2_fixed.jsonl
tests/data/gpu/three_mm.gmprof tests/data/gpu/leak.gmprof
tests/scripts/nvtx_ranges.jsonl tests/scripts/figure2_timed.jsonl
$TMPDIR/extras.jsonl $TMPDIR/extras2.jsonl
tests/scripts/pool_regions.jsonl tests/scripts/oom.jsonl
tests/scripts/nvtx_loop_fixed.jsonl tests/scripts/nvtx_loop.jsonl
$TMPDIR/loop_fix_at.jsonl $TMPDIR/loop_at.jsonl
tests/scripts/nvtx_marks.jsonl $TMPDIR/marks_worse.jsonl
$TMPDIR/extras.jsonl tests/scripts/nvtx_ranges.jsonl
EOF
"$GMPROF" baseline -o "$D/baseline.0.json" tests/scripts/nvtx_ranges.jsonl &&
	"$GMPROF" baseline -o "$D/baseline.1.json" tests/data/gpu/simple_multi_copy.gmprof tests/scripts/oom.jsonl &&
	"$GMPROF" baseline -o "$D/baseline.2.json" tests/scripts/pool_regions.jsonl &&
	"$GMPROF" baseline -o "$D/baseline.3.json" tests/scripts/pool_cache.jsonl &&
	"$GMPROF" baseline -o "$D/baseline.4.json" tests/scripts/nvtx_loop.jsonl &&
	kept_at tests/scripts/nvtx_loop.jsonl "$TMPDIR/loop_at.jsonl" && "$GMPROF" baseline -o "$D/baseline.5.json" "$TMPDIR/loop_at.jsonl" &&
	"$GMPROF" baseline -o "$D/baseline.6.json" tests/scripts/nvtx_marks.jsonl &&
	"$GMPROF" baseline --nvtx-numbers --nvtx-strip '^ep' -o "$D/baseline.7.json" tests/scripts/nvtx_marks.jsonl &&
	"$GMPROF" baseline -o "$D/baseline.8.json" "$TMPDIR/extras.jsonl" ||
	notok "baseline"

for kind in findings diff baseline; do
	case $kind in
	findings) set -- "$D"/replay.*.json "$D"/report.*.json ;;
	*) set -- "$D/$kind".*.json ;;
	esac
	"$CHECK" --all-seen "$S/$kind.schema.json" "$@" >"$TMPDIR/out" 2>"$TMPDIR/err" &&
		ok "$kind: $# documents valid, every declared field seen" ||
		notok "$kind: $(cat "$TMPDIR/err" "$TMPDIR/out" | head -20)"
done

# The checker rejects what the schema does not allow.
doc=$D/report.fit.json
reject() { # NAME FILE: the checker must say FILE is invalid (exit 1)
	"$CHECK" "$S/findings.schema.json" "$2" >/dev/null 2>"$TMPDIR/err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -q "schema_check: $2" "$TMPDIR/err" && ok "rejected: $1" || notok "not rejected ($rc): $1"
}
sed 's/"complete":true,/"complete":true,"surprise":1,/' "$doc" >"$TMPDIR/m1.json" && reject "an undeclared field" "$TMPDIR/m1.json"
sed 's/"events":[0-9]*,//' "$doc" >"$TMPDIR/m2.json" && reject "a required field missing" "$TMPDIR/m2.json"
sed 's/"events":\([0-9]*\),/"events":"\1",/' "$doc" >"$TMPDIR/m3.json" && reject "a number as a string" "$TMPDIR/m3.json"
sed '0,/"pattern":"[a-z_]*"/s//"pattern":"leaky"/' "$doc" >"$TMPDIR/m4.json" && reject "a pattern not in the enum" "$TMPDIR/m4.json"
sed 's/"gmprof_findings":1/"gmprof_findings":2/' "$doc" >"$TMPDIR/m5.json" && reject "another version" "$TMPDIR/m5.json"
sed 's/"addr":"0x/"addr":"x/' "$doc" >"$TMPDIR/m6.json" && reject "an address not matching its pattern" "$TMPDIR/m6.json"
sed 's/"peak_bytes":[0-9]*/"peak_bytes":-1/' "$doc" >"$TMPDIR/m7.json" && reject "a negative byte count" "$TMPDIR/m7.json"
# A baseline's domains left out: none, or one twice (minItems, uniqueItems).
for bad in '[]' '["NCCL","NCCL"]'; do
	tr -d '\n' <"$D/baseline.8.json" | sed "s/\"nvtx_domains_left_out\": *\[[^]]*\]/\"nvtx_domains_left_out\":$bad/" >"$TMPDIR/m9.json"
	"$CHECK" "$S/baseline.schema.json" "$TMPDIR/m9.json" >/dev/null 2>"$TMPDIR/err"
	[ $? -eq 1 ] && grep -q "nvtx_domains_left_out" "$TMPDIR/err" && ok "rejected: nvtx_domains_left_out $bad" ||
		notok "not rejected: nvtx_domains_left_out $bad ($(cat "$TMPDIR/err"))"
done
# figure2's one early allocation, without its first use: only the rule for
# that pattern (an if/then in the schema) makes it invalid.
"$GMPROF" replay --format json tests/scripts/figure2.jsonl >"$TMPDIR/fig2.json"
"$CHECK" "$S/findings.schema.json" "$TMPDIR/fig2.json" >/dev/null 2>&1 && ok "figure2's findings are valid" ||
	notok "figure2's findings are invalid"
sed 's/"first_use":{[^}]*},//' "$TMPDIR/fig2.json" >"$TMPDIR/m8.json"
[ "$(grep -c '"first_use"' "$TMPDIR/fig2.json")" -eq 1 ] && ! grep -q '"first_use"' "$TMPDIR/m8.json" &&
	reject "an early allocation without its first use (the pattern's own fields)" "$TMPDIR/m8.json" ||
	notok "figure2 has not one first_use: $(grep -o '"first_use"' "$TMPDIR/fig2.json" | head -3)"
"$CHECK" --all-seen "$S/findings.schema.json" "$doc" >/dev/null 2>"$TMPDIR/err"
[ $? -eq 1 ] && grep -q 'no document had #/\$defs/document/properties/memory_by_range' "$TMPDIR/err" &&
	ok "--all-seen names a declared field no document had" || notok "--all-seen: $(head -3 "$TMPDIR/err")"
printf '{"type":"object","propertyNames":{"pattern":"^a"}}\n' >"$TMPDIR/s.json"
expect_exit 2 "a schema keyword the checker does not know" -- "$CHECK" "$TMPDIR/s.json" "$doc"
expect_stderr_line 'unsupported keyword "propertyNames"' "  ... named"

# Any 2020-12 validator agrees (where python3 has jsonschema).
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$S" "$D" <<'EOF' >"$TMPDIR/py" 2>&1 && ok "python3 jsonschema: the schemas are valid 2020-12 and accept every document" || notok "python3 jsonschema: $(tail -5 "$TMPDIR/py")"
import glob, json, sys
import jsonschema
s, d = sys.argv[1], sys.argv[2]
for kind, pats in (("findings", ("replay", "report")), ("diff", ("diff",)), ("baseline", ("baseline",))):
    schema = json.load(open(f"{s}/{kind}.schema.json"))
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    for p in pats:
        for f in sorted(glob.glob(f"{d}/{p}.*.json")):
            v.validate(json.load(open(f)))
    if kind == "findings":
        bad = json.load(open(f"{d}/report.fit.json"))
        bad["surprise"] = 1
        if v.is_valid(bad):
            sys.exit("accepted an undeclared field")
EOF
else
	echo "skip - python3 jsonschema not installed: the schemas are checked by schema_check alone"
fi
finish
