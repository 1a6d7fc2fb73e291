# SPDX-License-Identifier: MIT
# Markdown for CI pages: gmprof check --markdown FILE, gmprof diff
# --format markdown and gmprof report --format markdown.  Every table row must have its header's cells, and text
# from the profile (labels with '|', backticks, '<i>', '*') must read as
# itself.  The structure is checked here by counting cells; where cmark-gfm
# (GitHub's Markdown reader) is installed, or can be, the page it renders is
# checked too: its cells, and each label back verbatim in a <code>.
. tests/cli/lib.sh
S=tests/scripts
# Cells per table row: unescaped '|' between the outer ones.  Prints "rows
# bad": rows whose count differs from their table's header.
cells() {
	awk '/^\|/ { line = $0; gsub(/\\\|/, "", line); n = gsub(/\|/, "", line)
		if (!intable) { want = n; intable = 1 } rows++; if (n != want) bad++; next }
		{ intable = 0 } END { print rows + 0, bad + 0 }' "$1"
}
CMARK=$(command -v cmark-gfm || true)
if [ -z "$CMARK" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cmark-gfm >/dev/null 2>&1 ||
	{ DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cmark-gfm >/dev/null 2>&1; }
	CMARK=$(command -v cmark-gfm || true)
fi
render() { "$CMARK" --extension table --unsafe "$1"; }

# A failing gate: five of thirteen checks fail; the file is written anyway.
expect_exit 1 "check --markdown: a failing gate exits 1" -- "$GMPROF" check --fail-on all --max-peak 1MiB \
	--markdown "$TMPDIR/c.md" $S/simple_multi_copy.jsonl
M=$TMPDIR/c.md
head -1 "$M" | grep -qx '## gmprof check: FAIL, 5 of 13 checks failed' && ok "  ... the verdict heading" ||
	notok "  ... heading: $(head -1 "$M")"
grep -qx 'Input: `tests/scripts/simple_multi_copy.jsonl`' "$M" && ok "  ... the input named" || notok "  ... input: $(sed -n 3p "$M")"
[ "$(grep -c '^| \*\*FAIL\*\* | `' "$M")" -eq 5 ] && [ "$(grep -c '^| PASS | `' "$M")" -eq 8 ] &&
	ok "  ... a row per check, 5 FAIL and 8 PASS" || notok "  ... rows: $(grep '^|' "$M")"
grep -qx '| \*\*FAIL\*\* | `max_peak` | 16.0 MiB > 1.0 MiB |' "$M" && ok "  ... the budget's row" || notok "  ... max_peak: $(grep max_peak "$M")"
set -- $(cells "$M")
[ "$1" -eq 15 ] && [ "$2" -eq 0 ] && ok "  ... every row has three cells" || notok "  ... $1 rows, $2 with the wrong cells"
[ "$(grep -c '^<details open><summary>FAIL ' "$M")" -eq 5 ] && ok "  ... the failing checks' lines, folded open" ||
	notok "  ... details: $(grep -c '<details' "$M")"
grep -q '^  late_deallocation: d_data_out2 (4.0 MiB) allocated at simpleMultiCopy.cu:107 \[' "$M" &&
	ok "  ... the findings as check prints them" || notok "  ... findings missing"
grep -q '<summary>FAIL max_peak: 16.0 MiB &gt; 1.0 MiB</summary>' "$M" && ok "  ... summaries escaped as HTML" ||
	notok "  ... $(grep 'max_peak:' "$M")"
grep -q '^FAIL max_peak: 16.0 MiB > 1.0 MiB$' "$TMPDIR/out" && ok "  ... and the lines on standard output as before" ||
	notok "  ... stdout: $(head -3 "$TMPDIR/out")"

# A passing gate: nothing folded.
expect_exit 0 "check --markdown: a passing gate" -- "$GMPROF" check --max-peak 1GiB --markdown "$TMPDIR/p.md" $S/figure2.jsonl
head -1 "$TMPDIR/p.md" | grep -qx '## gmprof check: PASS, 3 checks' && ! grep -q '<details' "$TMPDIR/p.md" &&
	ok "  ... PASS, no folds" || notok "  ... $(cat "$TMPDIR/p.md")"

# Several inputs: a section each.
expect_exit 1 "check --markdown: two inputs" -- "$GMPROF" check --fail-on memory_leak --markdown "$TMPDIR/two.md" \
	$S/figure2.jsonl $S/simple_multi_copy.jsonl
head -1 "$TMPDIR/two.md" | grep -qx '## gmprof check: FAIL, 1 of 6 checks failed in 2 inputs' &&
	grep -qx '### `tests/scripts/figure2.jsonl`: FAIL, 1 of 3 checks failed' "$TMPDIR/two.md" &&
	grep -qx '### `tests/scripts/simple_multi_copy.jsonl`: PASS, 3 checks' "$TMPDIR/two.md" &&
	ok "  ... a heading per input with its verdict" || notok "  ... $(grep '^#' "$TMPDIR/two.md")"

# Labels that are markup: each must come back as itself.
cat >"$TMPDIR/odd.jsonl" <<'J'
{"op":"alloc","addr":"0x1000","size":4096,"label":"a|b`c<i>*d*","at":"odd.cu:5"}
{"op":"alloc","addr":"0x3000","size":4096,"label":"`tick","at":"odd.cu:6"}
{"op":"alloc","addr":"0x5000","size":4096,"label":"x_y_z & [w](u)","at":"odd.cu:7"}
{"op":"end"}
J
expect_exit 1 "check --markdown: labels with '|', backticks and HTML" -- "$GMPROF" check --fail-on memory_leak \
	--markdown "$TMPDIR/odd.md" "$TMPDIR/odd.jsonl"
printf '{"op":"end"}\n' >"$TMPDIR/none.jsonl"
expect_exit 0 "diff --format markdown: the same labels, new" -- "$GMPROF" diff --format markdown -o "$TMPDIR/odd-diff.md" \
	"$TMPDIR/none.jsonl" "$TMPDIR/odd.jsonl"
set -- $(cells "$TMPDIR/odd-diff.md")
[ "$2" -eq 0 ] && ok "  ... every row of the diff has its header's cells ($1 rows)" || notok "  ... $2 of $1 rows with the wrong cells"
grep -qF '| unused_allocation | ``a\|b`c<i>*d*`` | 4.0 KiB |' "$TMPDIR/odd-diff.md" && ok "  ... a label with a backtick in a double fence" ||
	notok "  ... $(grep 'a\\|' "$TMPDIR/odd-diff.md" | head -1)"
grep -qF '`` `tick ``' "$TMPDIR/odd-diff.md" && ok "  ... a label starting with a backtick padded" || notok "  ... tick: $(grep tick "$TMPDIR/odd-diff.md" | head -1)"

# The diff: peaks, site changes, fixed and new.
expect_exit 0 "diff --format markdown" -- "$GMPROF" diff --format markdown $S/figure2.jsonl $S/figure2_fixed.jsonl
D=$TMPDIR/d.md
cp "$TMPDIR/out" "$D"
grep -qx '| peak, device 0 | 1.0 MiB | 1.0 MiB | -4.0 KiB, -0.4% |' "$D" && grep -qx '| leaked | 8.0 KiB | 10.0 KiB | +2.0 KiB, +25.0% |' "$D" &&
	grep -qx '| findings | 4 | 4 | 2 fixed, 2 new, 2 in both |' "$D" && ok "  ... peak, leaks and findings, before and after" ||
	notok "  ... $(sed -n '/^| |/,/^$/p' "$D")"
grep -qx '| -4.0 KiB | `fig2.cu:13` | 4.0 KiB in 1 object | 0 B in 0 objects |' "$D" && ok "  ... what changed at the peak, by site" ||
	notok "  ... sites: $(grep 'fig2.cu:13' "$D")"
[ "$(sed -n '/^### Fixed/,/^###/p' "$D" | grep -c '^| [a-z_]* | `B` |')" -eq 2 ] && ok "  ... B's two findings fixed" ||
	notok "  ... fixed: $(sed -n '/^### Fixed/,/^###/p' "$D")"
sed -n '/^### New/,$p' "$D" | grep -q '^| unused_allocation | `D` | 2.0 KiB | - | `fig2.cu:30` | `[0-9a-f]\{16\}` |$' &&
	ok "  ... D's unused allocation new, with its fingerprint" || notok "  ... new: $(sed -n '/^### New/,$p' "$D")"
set -- $(cells "$D")
[ "$1" -eq 16 ] && [ "$2" -eq 0 ] && ok "  ... every row has its header's cells" || notok "  ... $1 rows, $2 with the wrong cells"
expect_exit 2 "diff: an unknown format" -- "$GMPROF" diff --format md $S/figure2.jsonl $S/figure2_fixed.jsonl
expect_stderr_line "unknown format 'md' (text, json or markdown)" "  ... one sentence naming the formats"

# Long lists stop at 50 rows and say how many more.
awk 'BEGIN { for (i = 0; i < 60; i++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":64,\"at\":\"leak.cu:%d\"}\n", 4096 * (i + 1), i + 1
	print "{\"op\":\"end\"}" }' >"$TMPDIR/leaks.jsonl"
expect_exit 0 "diff --format markdown: 60 new leaks" -- "$GMPROF" diff --format markdown --patterns memory_leak \
	"$TMPDIR/none.jsonl" "$TMPDIR/leaks.jsonl"
[ "$(grep -c '^| memory_leak |' "$TMPDIR/out")" -eq 50 ] && grep -q '^\.\.\. and 10 more' "$TMPDIR/out" &&
	ok "  ... 50 rows, and 10 more said" || notok "  ... $(grep -c '^| memory_leak' "$TMPDIR/out") rows"

# The report: the run, each peak and what was live there, failed allocations, the findings with their fixes.
expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown $S/oom.jsonl
R=$TMPDIR/r.md
cp "$TMPDIR/out" "$R"
head -1 "$R" | grep -qx '## gmprof report: `tests/scripts/oom.jsonl`' && grep -qx '| status | complete |' "$R" &&
	ok "  ... the input and the run" || notok "  ... $(head -12 "$R")"
grep -q '^| 0 | 1.4 GiB | ALLOC (stream 0, #[0-9]*) | `train.cu:[0-9]*` | 5 |$' "$R" && ok "  ... the peak, where, how many live" ||
	notok "  ... peaks: $(sed -n '/^### Peaks/,/^$/p' "$R")"
grep -q '^### Allocations that ran out of memory: 3$' "$R" && grep -q '^cudaMalloc of 1.0 GiB on device 0 at train.cu:19 ran out of memory$' "$R" &&
	ok "  ... the failed allocations, as the text report says them" || notok "  ... failures missing"
n=$("$GMPROF" replay --format json $S/oom.jsonl | grep -o '"pattern":' | wc -l)
grep -q "^### Findings: $n, ranked" "$R" && [ "$(grep -c '^| [0-9]* | [a-z_]* | `' "$R")" -eq "$n" ] &&
	grep -Eq '^\| 1 \| [a-z_]+ \| `[a-z_]+` \| [0-9.]+ [KMG]?i?B \| (-|[0-9.]+ [KMG]?i?B) \| `train.cu:[0-9]+` \| [a-z]' "$R" &&
	ok "  ... a row per finding with its saving, site and fix" || notok "  ... findings: $(sed -n '/^### Findings/,$p' "$R" | head -5)"
set -- $(cells "$R")
[ "$2" -eq 0 ] && ok "  ... every row has its header's cells ($1 rows)" || notok "  ... $2 of $1 rows with the wrong cells"
cp "$R" "$TMPDIR/oom-report.md"
expect_exit 0 "report --format markdown --top 2, two inputs" -- "$GMPROF" report --format markdown --top 2 $S/oom.jsonl $S/figure2.jsonl
[ "$(grep -c '^## gmprof report: ' "$TMPDIR/out")" -eq 2 ] && [ "$(grep -c '^| [12] | [a-z_]* | `' "$TMPDIR/out")" -eq 4 ] &&
	grep -q "^\.\.\. and $((n - 2)) more" "$TMPDIR/out" && grep -q '^## Inputs: 2$' "$TMPDIR/out" &&
	grep -q '^| `tests/scripts/figure2.jsonl` | 1.0 MiB | 4 | ' "$TMPDIR/out" &&
	grep -q '^| 1 | early_allocation | `B` | 1.0 MiB | 4.0 KiB | `fig2.cu:12` | allocate it just before ' "$TMPDIR/out" &&
	ok "  ... two findings each, the rest counted, a table of the inputs" || notok "  ... $(grep '^##\|^\.\.\.' "$TMPDIR/out")"
expect_exit 0 "report --format markdown: 60 leaks, no --top" -- "$GMPROF" report --format markdown --patterns memory_leak \
	"$TMPDIR/leaks.jsonl"
[ "$(grep -c '^| [0-9]* | memory_leak |' "$TMPDIR/out")" -eq 50 ] && grep -q '^\.\.\. and 10 more' "$TMPDIR/out" &&
	ok "  ... 50 rows, the rest counted" || notok "  ... $(grep -c '^| [0-9]* | memory_leak' "$TMPDIR/out") rows; $(grep '^\.\.\.' "$TMPDIR/out")"
expect_exit 2 "report: an unknown format" -- "$GMPROF" report --format md $S/figure2.jsonl
expect_stderr_line "unknown format 'md' (text, json or markdown)" "  ... one sentence naming the formats"

# Outputs: never replaced without --force, an unwritable path is one sentence.
echo keep >"$TMPDIR/exists.md"
expect_exit 2 "check --markdown: an existing file" -- "$GMPROF" check --markdown "$TMPDIR/exists.md" $S/figure2.jsonl
expect_stderr_line "exists" "  ... one sentence"
grep -qx keep "$TMPDIR/exists.md" && ok "  ... the file kept" || notok "  ... the file replaced"
expect_exit 0 "check --markdown --force replaces it" -- "$GMPROF" check --force --markdown "$TMPDIR/exists.md" $S/figure2.jsonl
head -1 "$TMPDIR/exists.md" | grep -q '^## gmprof check: PASS' && ok "  ... replaced" || notok "  ... $(head -1 "$TMPDIR/exists.md")"
expect_exit 2 "check --markdown: an unwritable directory" -- "$GMPROF" check --markdown /nonexistent/dir/c.md $S/figure2.jsonl
expect_stderr_line "/nonexistent/dir/c.md" "  ... one sentence naming the path"
printf '{"op":"alloc","addr":"0x1000"\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "check --markdown: a bad input" -- "$GMPROF" check --markdown "$TMPDIR/bad-input.md" $S/figure2.jsonl "$TMPDIR/bad.jsonl"
[ ! -e "$TMPDIR/bad-input.md" ] && ok "  ... no Markdown written" || notok "  ... a Markdown file written"

if [ -z "$CMARK" ]; then
	echo "ok - skipped: cmark-gfm is not installed and cannot be installed here"
	finish
fi
# GitHub's reader: the tables' cells, and the odd labels verbatim.
render "$M" >"$TMPDIR/c.html"
[ "$(grep -c '^<tr>' "$TMPDIR/c.html")" -eq 14 ] && [ "$(grep -c '^<td>' "$TMPDIR/c.html")" -eq 39 ] &&
	ok "cmark-gfm: check's table, 13 rows of 3 cells" || notok "cmark-gfm: $(grep -c '^<tr>' "$TMPDIR/c.html") rows"
grep -q '^<details open><summary>FAIL max_peak' "$TMPDIR/c.html" && grep -q '<pre><code class="language-text">  reached on device 0' "$TMPDIR/c.html" &&
	ok "cmark-gfm: the folds and their code blocks" || notok "cmark-gfm: folds missing"
render "$TMPDIR/odd.md" >"$TMPDIR/odd.html"
grep -qF '  memory_leak: a|b`c&lt;i&gt;*d* (4.0 KiB) allocated at odd.cu:5 [' "$TMPDIR/odd.html" &&
	grep -qF '  memory_leak: `tick (4.0 KiB)' "$TMPDIR/odd.html" && ! grep -q '<i>\|<em>\|<a href' "$TMPDIR/odd.html" &&
	ok "cmark-gfm: check's findings give the labels back as themselves" ||
	notok "cmark-gfm: odd.md: $(grep 'memory_leak: ' "$TMPDIR/odd.html" | head -3)"
render "$TMPDIR/odd-diff.md" >"$TMPDIR/odd-diff.html"
grep -qF '<code>a|b`c&lt;i&gt;*d*</code>' "$TMPDIR/odd-diff.html" && grep -qF '<code>`tick</code>' "$TMPDIR/odd-diff.html" &&
	! grep -q '<i>\|<em>\|<a href' "$TMPDIR/odd-diff.html" && ok "cmark-gfm: the diff gives the labels back as themselves" ||
	notok "cmark-gfm: odd-diff.md: $(grep -o '<code>[^<]*</code>' "$TMPDIR/odd-diff.html" | head -5)"
grep -qF '<code>x_y_z &amp; [w](u)</code>' "$TMPDIR/odd-diff.html" && ok "cmark-gfm: no link, no emphasis from a label" ||
	notok "cmark-gfm: $(grep -o 'x_y_z[^<]*' "$TMPDIR/odd-diff.html" | head -2)"
render "$TMPDIR/oom-report.md" >"$TMPDIR/r.html"
[ "$(grep -c '^<table>' "$TMPDIR/r.html")" -eq 4 ] && grep -q '<pre><code class="language-text">cudaMalloc of 1.0 GiB' "$TMPDIR/r.html" &&
	! grep -q '<em>\|<strong>[^F]' "$TMPDIR/r.html" && ok "cmark-gfm: the report's four tables and its code block, no stray emphasis" ||
	notok "cmark-gfm: $(grep -c '^<table>' "$TMPDIR/r.html") tables"
render "$D" >"$TMPDIR/d.html"
[ "$(grep -c '^<table>' "$TMPDIR/d.html")" -eq 4 ] && [ "$(grep -c '^<td>' "$TMPDIR/d.html")" -eq 40 ] &&
	ok "cmark-gfm: the diff's four tables" || notok "cmark-gfm: $(grep -c '^<table>' "$TMPDIR/d.html") tables, $(grep -c '^<td>' "$TMPDIR/d.html") cells"
# The checks above can fail: a '|' left unescaped splits a cell.
printf '| a | b |\n|---|---|\n| `x|y` | z |\n' >"$TMPDIR/bad.md"
render "$TMPDIR/bad.md" | grep -q '<code>x|y</code>' && notok "cmark-gfm keeps an unescaped '|' in a cell" ||
	ok "cmark-gfm splits a cell at an unescaped '|'"
finish
