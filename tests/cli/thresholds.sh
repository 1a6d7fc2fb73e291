# SPDX-License-Identifier: MIT
# The analyzer re-runs detection with any thresholds: each option moves its
# own pattern (off at an extreme, at its boundary one way or the other) and
# leaves the others' findings as they were; --peaks sets how many peaks are
# listed; a bad value is refused in one sentence.
. tests/cli/lib.sh
S=tests/scripts
# "PATTERN COUNT ..." of a replay's findings, sorted by pattern.
counts() { "$GMPROF" replay --format json "$@" 2>"$TMPDIR/err" | grep -o '"pattern":"[a-z_]*"' | sort | uniq -c |
	awk '{ sub(/"pattern":/, "", $2); gsub(/"/, "", $2); printf "%s%s %s", (NR > 1 ? " " : ""), $2, $1 }'; }
# Takes PATTERN out of a counts line.
without() { echo "$1" | tr ' ' '\n' | paste - - -d ' ' | grep -v "^$2 " | tr '\n' ' ' | sed 's/ $//'; }
moves() { # NAME SCRIPT PATTERN WANT-COUNT OPTION VALUE: the pattern's count becomes WANT, the others stay
	base=$(counts "$S/$2")
	got=$(counts "$5" "$6" "$S/$2")
	n=$(echo "$got" | tr ' ' '\n' | paste - - -d ' ' | awk -v p="$3" '$1 == p { print $2 }')
	if [ "${n:-0}" -eq "$4" ] && [ "$(without "$got" "$3")" = "$(without "$base" "$3")" ]; then
		ok "$1: $5 $6 leaves $4 $3 and the other findings as they were"
	else
		notok "$1: $5 $6: $got (default: $base)"
	fi
}
moves "figure 3" figure3.jsonl early_allocation 0 --early-apis 100
moves "figure 3" figure3.jsonl late_deallocation 0 --late-apis 100
moves "figure 3" figure3.jsonl late_deallocation 1 --late-apis 3
moves "figure 3" figure3.jsonl temporary_idleness 0 --idle-apis 100
moves "intra patterns" intra_patterns.jsonl overallocation 0 --overalloc-pct 1
moves "intra patterns" intra_patterns.jsonl overallocation 0 --frag-pct 0
moves "intra patterns" intra_patterns.jsonl non_uniform_access_frequency 0 --cv-pct 1000
# Redundant allocation: B (1050 bytes) could have been A (1000 bytes): 5% apart.
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":1000,"label":"A"}' '{"op":"kernel","name":"k1","write":["0x1000"]}' \
	'{"op":"kernel","name":"k2","read":["0x1000"]}' '{"op":"alloc","addr":"0x10000","size":1050,"label":"B"}' \
	'{"op":"kernel","name":"k3","write":["0x10000"]}' '{"op":"kernel","name":"k4","read":["0x10000"]}' \
	'{"op":"free","addr":"0x1000"}' '{"op":"free","addr":"0x10000"}' >"$TMPDIR/redundant.jsonl"
S=$TMPDIR
moves "sizes 5% apart" redundant.jsonl redundant_allocation 1 --redundant-pct 5
moves "sizes 5% apart" redundant.jsonl redundant_allocation 0 --redundant-pct 4
S=tests/scripts
[ "$(counts "$S/figure3.jsonl")" = "$(counts --early-apis 1 --late-apis 1 --idle-apis 2 --redundant-pct 10 "$S/figure3.jsonl")" ] &&
	ok "the documented defaults given explicitly change nothing" || notok "explicit defaults: $(counts --early-apis 1 --late-apis 1 --idle-apis 2 --redundant-pct 10 "$S/figure3.jsonl")"
# --peaks N: figure2_fixed has three peaks; two are listed by default.
peaks() { "$GMPROF" replay --format json "$@" | grep -o '"live_objects"' | wc -l | tr -d ' '; }
[ "$(peaks "$S/figure2_fixed.jsonl")" = 2 ] && [ "$(peaks --peaks 1 "$S/figure2_fixed.jsonl")" = 1 ] &&
	[ "$(peaks --peaks 5 "$S/figure2_fixed.jsonl")" = 3 ] && ok "--peaks: 2 by default, 1, and all 3 of 5 asked" ||
	notok "--peaks: $(peaks "$S/figure2_fixed.jsonl") $(peaks --peaks 1 "$S/figure2_fixed.jsonl") $(peaks --peaks 5 "$S/figure2_fixed.jsonl")"
# The same options in report and check.
"$GMPROF" report --late-apis 100 "$S/figure3.jsonl" | grep -q late_deallocation && notok "report --late-apis" ||
	ok "report takes the thresholds too"
expect_exit 0 "check takes them too: no late deallocation to fail on" -- "$GMPROF" check --late-apis 100 --fail-on late_deallocation "$S/figure3.jsonl"
for bad in "--early-apis x" "--late-apis -1" "--idle-apis 1.5" "--peaks x" "--redundant-pct -1" "--overalloc-pct x" \
	"--frag-pct 100001" "--cv-pct 5%%"; do
	# shellcheck disable=SC2086
	expect_exit 2 "replay $bad: refused" -- "$GMPROF" replay $bad "$S/figure3.jsonl"
	case $bad in *-pct*) what="a percentage from 0 to 100000" ;; *) what="a whole number" ;; esac
	expect_stderr_line "^gmprof replay: bad value '${bad#* }' for ${bad%% *} ($what)" "  ... in one sentence naming the option and what it takes"
done
expect_exit 2 "replay --min-size 3Q: refused" -- "$GMPROF" replay --min-size 3Q "$S/figure3.jsonl"
expect_stderr_line "bad value '3Q' for --min-size (a size such as 4096, 64KiB or 1MB)" "  ... naming the option and what it takes"
finish
