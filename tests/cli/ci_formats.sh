# SPDX-License-Identifier: MIT
# gmprof check's results for CI systems that do not read SARIF: GitHub
# Actions annotations (--annotations github) and a GitLab Code Quality
# report (--codequality).  Both are made from the SARIF log: goldens of the
# checked-in profile, as many items as SARIF results, the SARIF log the
# same with or without them, baselines, several inputs, bad options,
# outputs that cannot be written, and bad inputs (nothing written).
. tests/cli/lib.sh
G=tests/golden/outputs
IN=$G/smc.gmprof

golden() { # NAME FILE: FILE equals $G/NAME
	if [ -n "${GMPROF_UPDATE_GOLDEN:-}" ]; then cp "$2" "$G/$1"; fi
	if diff -u "$G/$1" "$2" >"$TMPDIR/diff"; then ok "golden $1"; else notok "golden $1"; head -40 "$TMPDIR/diff"; fi
}
json_ok() { # FILE NAME: a JSON array (where python3 is here to say)
	if ! command -v python3 >/dev/null; then ok "$2 (no python3: not parsed)"; return; fi
	if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert isinstance(d, list)' "$1" 2>"$TMPDIR/js"; then
		ok "$2"; else notok "$2: $(cat "$TMPDIR/js")"; fi
}

# ---- the checked-in profile, as outputs.sh checks its SARIF log --------------------
expect_exit 1 "check with annotations and Code Quality fails as without" -- "$GMPROF" check --fail-on early_allocation \
	--max-peak 16MiB --sarif "$TMPDIR/smc.sarif" --source-root /src --annotations github \
	--codequality "$TMPDIR/smc.cq.json" "$IN"
golden smc.annotations.txt "$TMPDIR/out"
golden smc.codequality.json "$TMPDIR/smc.cq.json"
cmp -s "$TMPDIR/smc.sarif" "$G/smc.sarif" && ok "  ... the SARIF log is the one written without them" ||
	notok "  ... the SARIF log differs from $G/smc.sarif"
json_ok "$TMPDIR/smc.cq.json" "  ... the Code Quality report is a JSON array"
nres=$(grep -c '"ruleId": ' "$TMPDIR/smc.sarif")
ncq=$(grep -c '"check_name": ' "$TMPDIR/smc.cq.json")
nfp=$(grep -o '"fingerprint": "[0-9a-f]*"' "$TMPDIR/smc.cq.json" | sort -u | wc -l)
[ "$nres" -gt 5 ] && [ "$ncq" = "$nres" ] && [ "$nfp" = "$nres" ] &&
	ok "  ... an item per SARIF result ($nres), each its own fingerprint" ||
	notok "  ... $ncq items, $nfp fingerprints for $nres SARIF results"
nerr=$(grep -c '^::error ' "$TMPDIR/out")
nwarn=$(grep -c '^::warning ' "$TMPDIR/out")
[ "$nerr" = 2 ] && [ "$(grep -c '"severity": "critical"' "$TMPDIR/smc.cq.json")" = 2 ] &&
	[ "$(grep -m1 -n '^::warning ' "$TMPDIR/out" | cut -d: -f1)" -gt "$(grep -n '^::error ' "$TMPDIR/out" | tail -1 | cut -d: -f1)" ] &&
	ok "  ... the two failing findings are errors (critical), before the warnings" ||
	notok "  ... $nerr errors: $(cat "$TMPDIR/out")"
# GitHub shows 10 warnings a step: the 11th and later are counted in a notice.
[ "$nwarn" = 9 ] && ! grep -q '^::notice' "$TMPDIR/out" && ok "  ... nine warnings, no notice" ||
	notok "  ... $nwarn warnings: $(grep '^::' "$TMPDIR/out")"
expect_exit 1 "the same with the Code Quality report alone" -- "$GMPROF" check --fail-on early_allocation \
	--max-peak 16MiB --source-root /src --codequality "$TMPDIR/smc.cq2.json" "$IN"
cmp -s "$TMPDIR/smc.cq.json" "$TMPDIR/smc.cq2.json" && ! grep -q '^::' "$TMPDIR/out" &&
	ok "  ... the same report (stable), and no annotations" || notok "  ... a different report, or annotations"

# ---- every script: as many annotations as GitHub shows, a notice for the rest ---
for s in tests/scripts/*.jsonl; do
	n=$(basename "$s" .jsonl)
	"$GMPROF" check --fail-on all --sarif "$TMPDIR/$n.sarif" --annotations github --codequality "$TMPDIR/$n.cq.json" \
		"$s" >"$TMPDIR/$n.out" 2>"$TMPDIR/err"
	[ $? -le 1 ] || { notok "$n: $(cat "$TMPDIR/err")"; continue; }
	r=$(grep -c '"ruleId": ' "$TMPDIR/$n.sarif")
	e=$(grep -c '^::error ' "$TMPDIR/$n.out")
	w=$(grep -c '^::warning ' "$TMPDIR/$n.out")
	q=$(grep -c '"check_name": ' "$TMPDIR/$n.cq.json")
	left=$((r - e - w))
	if [ "$q" != "$r" ] || [ "$e" -gt 10 ] || [ "$w" -gt 10 ]; then
		notok "$n: $r results, $q Code Quality items, $e errors and $w warnings annotated"
	elif [ "$left" -gt 0 ] && [ "$(sed -n 's/^::notice title=gmprof::Not annotated: \([0-9]*\) more errors\{0,1\} and \([0-9]*\) more warnings\{0,1\} (GitHub shows 10 of each per step)\. .*/\1 \2/p' "$TMPDIR/$n.out" | awk '{ print $1 + $2 }')" != "$left" ]; then
		notok "$n: $left results not annotated, no notice counting them: $(grep '^::notice' "$TMPDIR/$n.out")"
	elif [ "$left" = 0 ] && grep -q '^::notice' "$TMPDIR/$n.out"; then
		notok "$n: a notice with every result annotated"
	else
		ok "$n: $r results, $e errors and $w warnings annotated"
	fi
done

# ---- paths: relative to the source root get a file and line; others say where ----
expect_exit 0 "a script under the source root" -- "$GMPROF" check --annotations github tests/scripts/figure3.jsonl
grep -q '^::warning file=tests/scripts/figure3.jsonl,line=7,title=gmprof late_deallocation::late_deallocation: O4 (1.0 MiB), ' "$TMPDIR/out" &&
	ok "  ... annotated at its line" || notok "  ... $(grep '^::' "$TMPDIR/out" | head -3)"
expect_exit 0 "a script outside the source root" -- "$GMPROF" check --annotations github --source-root "$TMPDIR" \
	--codequality "$TMPDIR/out.cq.json" "$PWD/tests/scripts/figure3.jsonl"
grep -q "^::warning title=gmprof late_deallocation::$PWD/tests/scripts/figure3.jsonl:7: late_deallocation: O4 " "$TMPDIR/out" &&
	! grep -q '^::warning file=' "$TMPDIR/out" && grep -q "\"path\": \"$PWD/tests/scripts/figure3.jsonl\"" "$TMPDIR/out.cq.json" &&
	ok "  ... no file for GitHub to misplace, the message names it; Code Quality its absolute path" ||
	notok "  ... $(grep '^::' "$TMPDIR/out" | head -3)"

# ---- a baseline: what it has is not annotated (the gate passes on it) -------------
"$GMPROF" baseline -o "$TMPDIR/f3.base.json" tests/scripts/figure3.jsonl
expect_exit 0 "check against its own baseline" -- "$GMPROF" check --baseline "$TMPDIR/f3.base.json" --annotations github \
	--codequality "$TMPDIR/f3.cq.json" tests/scripts/figure3.jsonl
n3=$(grep -c '"check_name": ' "$TMPDIR/f3.cq.json")
[ "$n3" -gt 0 ] && ! grep -q '^::\(error\|warning\)' "$TMPDIR/out" &&
	grep -q "^::notice title=gmprof::Not annotated: $n3 results the baseline has\. " "$TMPDIR/out" &&
	ok "  ... none annotated, a notice counting the $n3 the baseline has; all in Code Quality" ||
	notok "  ... $(grep '^::' "$TMPDIR/out")"
expect_exit 1 "check another run against it" -- "$GMPROF" check --baseline "$TMPDIR/f3.base.json" --annotations github \
	tests/scripts/figure2.jsonl
new=$(sed -n 's/^FAIL baseline:new_findings: \([0-9]*\) findings.*/\1/p' "$TMPDIR/out")
[ -n "$new" ] && [ "$(grep -c '^::\(error\|warning\) ' "$TMPDIR/out")" = "$new" ] &&
	ok "  ... the $new new findings annotated, and only them" || notok "  ... $new new: $(grep '^::' "$TMPDIR/out")"

# ---- several inputs: each item names its input ------------------------------------
expect_exit 1 "two inputs" -- "$GMPROF" check --max-peak 2MiB --annotations github --codequality "$TMPDIR/two.cq.json" \
	tests/scripts/figure2.jsonl tests/scripts/figure3.jsonl
n2=$(grep -c '"description": "tests/scripts/figure2.jsonl: ' "$TMPDIR/two.cq.json")
n3=$(grep -c '"description": "tests/scripts/figure3.jsonl: ' "$TMPDIR/two.cq.json")
[ "$n2" -gt 0 ] && [ "$n3" -gt 0 ] && [ "$((n2 + n3))" = "$(grep -c '"check_name": ' "$TMPDIR/two.cq.json")" ] &&
	grep -q '^::warning file=[^:]*title=gmprof [a-z_]*::tests/scripts/figure3.jsonl: ' "$TMPDIR/out" &&
	ok "  ... in Code Quality ($n2 and $n3) and in the annotations" || notok "  ... $n2 and $n3: $(grep '^::' "$TMPDIR/out" | head -3)"

# ---- bad options, outputs and inputs ------------------------------------------------
expect_exit 2 "--annotations gitlab" -- "$GMPROF" check --annotations gitlab tests/scripts/figure3.jsonl
expect_stderr_line "names no annotation format" "  ... said in one line"
expect_exit 2 "Code Quality into a missing directory" -- "$GMPROF" check --codequality "$TMPDIR/no/dir/cq.json" \
	tests/scripts/figure3.jsonl
expect_stderr_line "cq.json" "  ... said in one line"
expect_exit 2 "Code Quality refuses to overwrite" -- "$GMPROF" check --codequality "$TMPDIR/smc.cq.json" "$IN"
expect_stderr_line "refusing to overwrite" "  ... said in one line"
cmp -s "$TMPDIR/smc.cq.json" "$G/smc.codequality.json" && ok "  ... and left it as it was" || notok "  ... it changed"
expect_exit 1 "  ... but with --force replaces it" -- "$GMPROF" check --force --max-peak 1MiB --codequality "$TMPDIR/smc.cq.json" "$IN"
cmp -s "$TMPDIR/smc.cq.json" "$G/smc.codequality.json" && notok "  ... unchanged" || ok "  ... replaced"
if [ -w /dev/full ]; then
	expect_exit 2 "annotations into a full standard output" -- sh -c "\"\$0\" check --annotations github tests/scripts/figure3.jsonl >/dev/full" "$GMPROF"
	expect_stderr_line "cannot write the annotations to standard output" "  ... said in one line"
fi
printf '{"op":"alloc","addr":"0x1000","size":64}\n{"op":"bogus"}\n' >"$TMPDIR/bad.jsonl"
rm -f "$TMPDIR/bad.cq.json"
expect_exit 2 "the second of two inputs bad" -- "$GMPROF" check --annotations github --codequality "$TMPDIR/bad.cq.json" \
	tests/scripts/figure3.jsonl "$TMPDIR/bad.jsonl"
[ ! -e "$TMPDIR/bad.cq.json" ] && ! grep -q '^::' "$TMPDIR/out" && [ "$(wc -l <"$TMPDIR/err")" = 1 ] &&
	ok "  ... one line, no report, no annotations" || notok "  ... $(cat "$TMPDIR/err"; grep -c '^::' "$TMPDIR/out")"
finish
