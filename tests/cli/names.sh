# SPDX-License-Identifier: MIT
# Names and paths from the program hold any bytes (an NVTX label with a line
# break, a command line, a file name that is not UTF-8): every output stays
# what it claims to be.  The CI gate keeps a line per check and per finding,
# and the XML, SVG, HTML and JSON outputs stay valid UTF-8 that strict
# readers accept.
. tests/cli/lib.sh
S=$TMPDIR/names.jsonl
# A label with a backslash, a line break that forges a gate line, a tab and a control character;
# a kernel named likewise; an object whose label is not UTF-8 (0xff 0xfe), under a range of 40 'é'.
python3 - "$S" <<'PY'
import json, sys
bad = 'a\\\nPASS forged: yes\t\x01'
e = 'é' * 40 + '\nPASS forged: range'
lines = [json.dumps(l) for l in (
    {"op": "range_push", "name": e},
    {"op": "alloc", "addr": 4096, "size": 1 << 20, "label": bad, "at": bad + ".cu:12"},
    {"op": "alloc", "addr": 1 << 30, "size": 1 << 20, "label": "XLABELX"},
    {"op": "kernel", "name": bad, "write": [4096], "at": "x.cu:3"},
    {"op": "range_pop"},
    {"op": "memcpy", "src": 4096, "size": 1 << 20})]
data = "\n".join(lines).encode().replace(b"XLABELX", b"bad\xff\xfeutf") + b"\n"
open(sys.argv[1], "wb").write(data)
PY
expect_exit 1 "check: a label with a line break" -- "$GMPROF" check --fail-on all "$S"
# Every line is gmprof's own: a check, a finding under one, or the total; none forged.
bad_lines=$(grep -v -e '^PASS [a-z_:]*: ' -e '^FAIL [a-z_:]*: ' -e '^  [a-z_]*: ' -e '^gmprof check: ' "$TMPDIR/out")
[ -z "$bad_lines" ] && ! grep -q '^PASS forged' "$TMPDIR/out" && ok "  ... a line per check and per finding" ||
	notok "  ... lines not gmprof's: $bad_lines"
grep -qF '  early_allocation: a\\\nPASS forged: yes\t\x01 (1.0 MiB) allocated at a\\\nPASS forged: yes\t\x01.cu:12 [' "$TMPDIR/out" &&
	ok "  ... the name and site with C escapes, the backslash doubled" || notok "  ... escapes: $(grep early_alloc "$TMPDIR/out")"
expect_exit 1 "check --max-range-peak, a range's name with a line break" -- "$GMPROF" check --max-range-peak '*=1' "$S"
grep -qF '  éééééééééééééééééééééééééééééééééééééééé\nPASS forged: range on device 0: ' "$TMPDIR/out" && ! grep -q '^PASS forged' "$TMPDIR/out" &&
	ok "  ... the range on its line" || notok "  ... check: $(cat "$TMPDIR/out")"
expect_exit 0 "baseline" -- "$GMPROF" baseline -o "$TMPDIR/base" "$S"
sed 's/"size": 1048576/"size": 2097152/' "$S" >"$TMPDIR/grown.jsonl"
grep -q 2097152 "$TMPDIR/grown.jsonl" || notok "  ... the test's own edit of the sizes"
expect_exit 1 "check --baseline, the range grown" -- "$GMPROF" check --baseline "$TMPDIR/base" "$TMPDIR/grown.jsonl"
grep -qF '  éééééééééééééééééééééééééééééééééééééééé\nPASS forged: range on device 0: 4.0 MiB, the baseline' "$TMPDIR/out" &&
	! grep -q '^PASS forged' "$TMPDIR/out" && ok "  ... the range on its line" || notok "  ... check: $(cat "$TMPDIR/out")"
expect_exit 0 "report" -- "$GMPROF" report "$S"
# The table of NVTX ranges: a name cut between characters, to the column's 34 characters (not bytes).
python3 -c 'import sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
row = lines[lines.index("  range                                    peak     calls  times  allocated          outlived it") + 1]
sys.exit(0 if row.startswith("  " + "\u00e9" * 34 + "    2.0 MiB#") else 1)' "$TMPDIR/out" 2>/dev/null &&
	ok "  ... the range table: its name cut to the column by characters" ||
	notok "  ... range table: $(grep -a -A1 '^  range  ' "$TMPDIR/out")"
# Its findings, ranked: each line a finding's heading or under one (the sections above them quote names as given).
sed -n '/^Findings: /,$p' "$TMPDIR/out" >"$TMPDIR/findings"
grep -qF '  1. ' "$TMPDIR/findings" && ! grep -q '^PASS forged' "$TMPDIR/findings" &&
	grep -qF '     fix: allocate it just before KERNEL a\\\nPASS forged: yes\t\x01 (stream 0, #1)' "$TMPDIR/out" &&
	ok "  ... findings, call lines and fixes on their lines" || notok "  ... report: $(grep -n forged "$TMPDIR/findings")"
expect_exit 0 "replay" -- "$GMPROF" replay "$S"
! grep -q '^PASS forged' "$TMPDIR/out" && ok "  ... findings on their lines" || notok "  ... replay: $(grep -n forged "$TMPDIR/out")"
expect_exit 0 "diff" -- "$GMPROF" diff tests/scripts/figure2.jsonl "$S"
grep -q 'forged: range' "$TMPDIR/out" && ! grep -q '^PASS forged' "$TMPDIR/out" &&
	ok "  ... sites, ranges and findings on their lines" || notok "  ... diff: $(grep -n forged "$TMPDIR/out")"
expect_exit 0 "report --summary" -- "$GMPROF" report --summary "$S" tests/scripts/figure2.jsonl
grep -q 'forged: yes' "$TMPDIR/out" && ! grep -q '^PASS forged' "$TMPDIR/out" &&
	ok "  ... the allocation sites on their lines" || notok "  ... summary: $(grep -n forged "$TMPDIR/out")"
xml_ok() { # FILE: well-formed XML, as CI servers parse JUnit and browsers SVG
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$1" 2>/dev/null
}
utf8_ok() {
	python3 -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$1" 2>/dev/null
}
expect_exit 1 "check --junit --sarif --codequality --markdown" -- "$GMPROF" check --fail-on all --junit "$TMPDIR/j.xml" \
	--sarif "$TMPDIR/s.json" --codequality "$TMPDIR/cq.json" --markdown "$TMPDIR/m.md" "$S"
xml_ok "$TMPDIR/j.xml" && grep -q "bad$(printf '\357\277\275\357\277\275')utf" "$TMPDIR/j.xml" &&
	ok "  ... JUnit: well-formed XML, the bytes that are not UTF-8 as U+FFFD" || notok "  ... JUnit: $(python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMPDIR/j.xml" 2>&1 | tail -1)"
for f in s.json cq.json; do
	python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$TMPDIR/$f" 2>/dev/null &&
		ok "  ... $f: valid JSON in UTF-8" || notok "  ... $f is not"
done
expect_exit 0 "flamegraph --objects --nvtx (SVG)" -- "$GMPROF" flamegraph --objects --nvtx -o "$TMPDIR/f.svg" "$S"
xml_ok "$TMPDIR/f.svg" && ok "  ... well-formed XML" || notok "  ... SVG: $(python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMPDIR/f.svg" 2>&1 | tail -1)"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/h.html" "$S"
utf8_ok "$TMPDIR/h.html" && ok "  ... valid UTF-8" || notok "  ... the HTML report is not UTF-8"
expect_exit 0 "perfetto" -- "$GMPROF" perfetto -o "$TMPDIR/p.json" "$S"
python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$TMPDIR/p.json" 2>/dev/null &&
	ok "  ... valid JSON in UTF-8" || notok "  ... the trace is not"
expect_exit 0 "report --format json" -- "$GMPROF" report --format json "$S"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = sorted(f["object"] for f in d["findings"])
sys.exit(0 if "a\\\nPASS forged: yes\t\x01" in names and "bad\ufffd\ufffdutf" in names else 1)' "$TMPDIR/out" 2>/dev/null &&
	ok "  ... the names exact, as JSON escapes them (U+FFFD for bytes not UTF-8)" || notok "  ... json: $(head -c 300 "$TMPDIR/out")"
finish
