# SPDX-License-Identifier: MIT
# Fingerprints survive what a CI gate sees between a baseline and a pull
# request: lines added above the sites (everywhere, or from some line on),
# a checkout in another directory.  A new site is still new, two sites of
# one file stay apart, a renamed file is new, and a baseline of the earlier
# scheme (sites by path and line number) is refused in one sentence.
. tests/cli/lib.sh
# figure2 without its labels (a label alone would tell objects apart), in
# src/app.cu, plus two leaks at lines 30 and 32 alike but for that line
# (the same size class, the same kernel their last use).
base=$TMPDIR/base.jsonl
{ sed -e 's/"label":"[A-Z]",//; s/fig2\.cu/src\/app.cu/' tests/scripts/figure2.jsonl | grep -v '^#' | grep -v '"end"'
  echo '{"op":"alloc","addr":"0x300000","size":65536,"at":"src/app.cu:30"}'
  echo '{"op":"alloc","addr":"0x500000","size":65536,"at":"src/app.cu:32"}'
  echo '{"op":"kernel","name":"k8","write":["0x300000","0x500000"],"at":"src/app.cu:33"}'
  echo '{"op":"end"}'; } >"$base"
# variant NAME AWK-PROGRAM: base with each "at" line number n rewritten by the program (prints the new `at`).
variant() {
	awk -v prog="$2" 'match($0, /"at":"[^"]*:[0-9]+"/) {
		at = substr($0, RSTART + 6, RLENGTH - 7); n = at; sub(/.*:/, "", n); f = at; sub(/:[0-9]+$/, "", f)
		if (prog == "shift") n += 3
		else if (prog == "insert") { if (n >= 15) n += 5 }
		else if (prog == "move") f = "/ci/builds/77/0/group/app/" f
		else if (prog == "rename") sub(/app\.cu$/, "main.cu", f)
		$0 = substr($0, 1, RSTART + 5) f ":" n "\"" substr($0, RSTART + RLENGTH) } { print }' "$base" >"$TMPDIR/$1.jsonl"
}
"$GMPROF" baseline -o "$TMPDIR/base.json" "$base" 2>/dev/null
grep -q '"fingerprints": 2' "$TMPDIR/base.json" && ok "a baseline says its fingerprints' scheme" || notok "a baseline says its fingerprints' scheme"
"$GMPROF" report --format json "$base" >"$TMPDIR/base.report.json"
n_fp=$(grep -o '"fingerprint":"[0-9a-f]*"' "$TMPDIR/base.report.json" | sort -u | wc -l)
n_f=$(grep -o '"fingerprint":"[0-9a-f]*"' "$TMPDIR/base.report.json" | wc -l)
[ "$n_fp" -eq "$n_f" ] && [ "$n_f" -ge 6 ] && ok "$n_f findings, $n_fp fingerprints (the leaks at lines 30 and 32 apart)" ||
	notok "$n_f findings, $n_fp fingerprints"
for v in shift:"every line 3 lower" insert:"lines from 15 on 5 lower" move:"a checkout in another directory"; do
	variant "${v%%:*}" "${v%%:*}"
	expect_exit 0 "the baseline holds after ${v#*:}" -- "$GMPROF" check --baseline "$TMPDIR/base.json" "$TMPDIR/${v%%:*}.jsonl"
	grep -q '^PASS baseline:new_findings: 0 findings not in the baseline$' "$TMPDIR/out" && ok "  ... no finding reads as new" ||
		notok "  ... new findings: $(grep -A3 new_findings "$TMPDIR/out")"
done
# gmprof diff matches findings, and the peak's sites, the same way.
expect_exit 0 "diff against lines from 15 on 5 lower" -- "$GMPROF" diff "$base" "$TMPDIR/insert.jsonl"
grep -q "^  findings: $n_f -> $n_f (0 fixed, 0 new, $n_f in both)\$" "$TMPDIR/out" && ok "  ... no finding fixed or new" ||
	notok "  ... $(grep findings: "$TMPDIR/out")"
grep -q 'by allocation site' "$TMPDIR/out" && notok "  ... no site's bytes changed: $(cat "$TMPDIR/out")" ||
	ok "  ... no site's bytes changed at the peak (a moved line is the same site)"
# A peak grown where lines moved: the check names the one site that grew, at its new line.
sed 's/"size":1048576/"size":2097152/' "$TMPDIR/shift.jsonl" >"$TMPDIR/bigger.jsonl"
expect_exit 1 "a peak grown where lines moved fails the baseline" -- "$GMPROF" check --baseline "$TMPDIR/base.json" "$TMPDIR/bigger.jsonl"
[ "$(grep -c '^  grew at ' "$TMPDIR/out")" = 1 ] &&
	grep -q '^  grew at src/app.cu:15: +1.0 MiB (1.0 MiB in the baseline, 2.0 MiB now)$' "$TMPDIR/out" &&
	ok "  ... naming the one site that grew" || notok "  ... $(grep -A6 'baseline:peak' "$TMPDIR/out")"
# SARIF results about a peak's sites keep their fingerprints where lines moved.
sed 's/"size":1048576/"size":2097152/' "$base" >"$TMPDIR/bigger0.jsonl"
sarif_fps() { # KEY INPUT CHECK-OPTIONS...: the KEY fingerprints of the check's SARIF log, sorted
	k=$1 in=$2
	shift 2
	"$GMPROF" check "$@" --sarif "$TMPDIR/fp.sarif" --force "$in" >/dev/null 2>&1
	grep -o "\"$k\": \"[0-9a-f]*\"" "$TMPDIR/fp.sarif" | sort | tr '\n' ' '
}
a=$(sarif_fps gmprofPeakGrowth/v2 "$TMPDIR/bigger0.jsonl" --baseline "$TMPDIR/base.json")
b=$(sarif_fps gmprofPeakGrowth/v2 "$TMPDIR/bigger.jsonl" --baseline "$TMPDIR/base.json")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "SARIF: a peak's growth at a site keeps its fingerprint where lines moved" ||
	notok "SARIF peak growth: '$a' against '$b'"
a=$(sarif_fps gmprofPeakOverBudget/v2 "$base" --max-peak 1KiB)
b=$(sarif_fps gmprofPeakOverBudget/v2 "$TMPDIR/move.jsonl" --max-peak 1KiB)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "SARIF: a peak over budget at its sites keeps their fingerprints in another checkout" ||
	notok "SARIF peak over budget: '$a' against '$b'"
# A new leak at a line below the others: exactly that one is new.
grep -v '"end"' "$base" >"$TMPDIR/grown.jsonl"
printf '%s\n' '{"op":"alloc","addr":"0x400000","size":12288,"at":"src/app.cu:40"}' \
	'{"op":"kernel","name":"k9","write":["0x400000"],"at":"src/app.cu:41"}' '{"op":"end"}' >>"$TMPDIR/grown.jsonl"
expect_exit 1 "a new leak fails the baseline" -- "$GMPROF" check --baseline "$TMPDIR/base.json" "$TMPDIR/grown.jsonl"
grep -q '^FAIL baseline:new_findings: 1 finding not in the baseline$' "$TMPDIR/out" &&
	grep -q '^  memory_leak: obj#6 (12.0 KiB) allocated at src/app.cu:40 \[' "$TMPDIR/out" && ok "  ... it alone, at its line" ||
	notok "  ... $(grep -A3 new_findings "$TMPDIR/out")"
variant rename rename
expect_exit 1 "a renamed file's findings are new" -- "$GMPROF" check --baseline "$TMPDIR/base.json" "$TMPDIR/rename.jsonl"
grep -q "^FAIL baseline:new_findings: $n_f findings not in the baseline\$" "$TMPDIR/out" && ok "  ... all of them" ||
	notok "  ... $(grep new_findings "$TMPDIR/out")"
# A baseline of the earlier scheme: refused, not a false alarm on every finding.
awk '/"fingerprints"/ { next } { lines[n++] = $0 } END { for (i = 0; i < n; i++) { l = lines[i]; if (i == n - 2) sub(/,$/, "", l); print l } }' \
	"$TMPDIR/base.json" >"$TMPDIR/old.json"
expect_exit 2 "a baseline of the earlier fingerprints" -- "$GMPROF" check --baseline "$TMPDIR/old.json" "$base"
expect_stderr_line "its findings' fingerprints were made by an earlier gmprof, which this one makes otherwise: write it again with gmprof baseline" "  ... refused in one sentence"
finish
