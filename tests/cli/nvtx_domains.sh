# SPDX-License-Identifier: MIT
# NVTX domains: a library's ranges and marks in a domain of its own
# (nvtxDomainCreateA, the domain versions of push, pop, start, end and
# mark).  Each domain has its own stack of pushed ranges, so a pop ends its
# domain's innermost range, not the thread's; a domain can be left out of
# the profile (GMPROF_NVTX_DOMAIN_INCLUDE / _EXCLUDE, gmprof run's
# --nvtx-domain-include / --nvtx-domain-exclude); and the reports say which
# domains the ranges and marks came from.  Through NVTX's own loader and the
# test double, which pushes every fourth range of a script in its domain
# "gmprof-double" and with GMP_DOUBLE_NVTX_CROSS ranges of a second one,
# "gmprof-cross" (tests/double/double_nvtx.c).
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"

ways_script "$TMPDIR/ways.jsonl"

# The profile's ranges and allocations as the script writes them.
ranges_of() {
	"$GMPROF" dump "$1" 2>/dev/null | grep -E '"op":"(alloc|range_push|range_pop)"' | sed -E 's/,"thread".*/}/'
}
# collect NAME PROFILE SCRIPT [VAR=VALUE...]: the double runs SCRIPT under the collector.
collect() {
	_name=$1 _p=$2 _s=$3
	shift 3
	rm -f "$_p"
	expect_exit 0 "$_name" -- env "$@" GMPROF_OUTPUT="$_p" "$FAKE" "$_s"
}

# A range of another domain pushed before the script's are popped, and
# popped after the new ones are pushed, at every change: each pop ends its
# own domain's innermost range.  The double checks each level NVTX returns
# (0 for the other domain's range however deep the thread's are, -1 for a
# pop of that domain with none of its ranges open).
collect "ranges of another domain pushed and popped across the script's" "$TMPDIR/cross.gmprof" "$TMPDIR/ways.jsonl" \
	GMP_DOUBLE_NVTX_CROSS=1
ranges_of "$TMPDIR/cross.gmprof" | diff -u "$TMPDIR/ways.jsonl" - >"$TMPDIR/diff" &&
	ok "  ... each pop ended its own domain's range: the profile's ranges are the script's" ||
	{ notok "  ... the profile's ranges differ from the script's"; cat "$TMPDIR/diff"; }
# Three threads at once (each replays the script at its own addresses): each thread's stacks are its own.
rm -f "$TMPDIR/cross3.gmprof"
expect_exit 0 "  ... on three threads" -- env GMP_DOUBLE_NVTX_CROSS=1 GMPROF_OUTPUT="$TMPDIR/cross3.gmprof" \
	"$FAKE" --threads 3 "$TMPDIR/ways.jsonl"
[ "$("$GMPROF" dump "$TMPDIR/cross3.gmprof" 2>/dev/null | grep -c '"op":"range_push"')" -eq 12 ] &&
	[ "$("$GMPROF" dump "$TMPDIR/cross3.gmprof" 2>/dev/null | grep -c '"op":"range_pop"')" -eq 12 ] &&
	ok "  ... each thread's four ranges pushed and popped" ||
	notok "  ... $("$GMPROF" dump "$TMPDIR/cross3.gmprof" 2>/dev/null | grep -c '"op":"range_')"
"$GMPROF" dump "$TMPDIR/cross.gmprof" 2>/dev/null | grep -c '"name":"crossing"' | grep -qx 0 &&
	ok "  ... and the other domain's ranges, around no GPU call, are not written" ||
	notok "  ... $("$GMPROF" dump "$TMPDIR/cross.gmprof" 2>/dev/null | grep -m3 crossing)"
# The deep script: ranges nested deeper than the 48 whose names the collector keeps (a profile's
# paths hold the outermost 32), crossed at every change: the crossing range, pushed past the 48th,
# comes into the names kept when the 48th is popped from under it.
{
	for i in $(seq 1 52); do
		echo "{\"op\":\"range_push\",\"name\":\"r$i\"}"
		echo "{\"op\":\"alloc\",\"addr\":\"$(printf '0x%x' $((i * 4096)))\",\"size\":64}"
	done
	for i in $(seq 1 52); do
		echo '{"op":"range_pop"}'
		echo "{\"op\":\"free\",\"addr\":\"$(printf '0x%x' $(((53 - i) * 4096)))\"}"
	done
} >"$TMPDIR/deep.jsonl"
collect "ranges nested 52 deep, crossed by another domain's" "$TMPDIR/deep-x.gmprof" "$TMPDIR/deep.jsonl" GMP_DOUBLE_NVTX_CROSS=1
collect "  ... and not crossed" "$TMPDIR/deep.gmprof" "$TMPDIR/deep.jsonl"
ranges_of "$TMPDIR/deep.gmprof" >"$TMPDIR/deep.want"
ranges_of "$TMPDIR/deep-x.gmprof" | diff -u "$TMPDIR/deep.want" - >"$TMPDIR/diff" &&
	ok "  ... the same profile's ranges: the outermost 32" || { notok "  ... they differ"; head -20 "$TMPDIR/diff"; }

# A range of another domain open around every call: it is in the profile,
# the outermost, and the reports name the domain with how many ranges it made.
collect "a library's range open throughout" "$TMPDIR/outer.gmprof" "$TMPDIR/ways.jsonl" GMP_DOUBLE_NVTX_CROSS=outer
ranges_of "$TMPDIR/outer.gmprof" | head -1 | grep -qx '{"op":"range_push","name":"library"}' &&
	ok "  ... recorded, the outermost range" || notok "  ... $(ranges_of "$TMPDIR/outer.gmprof" | head -3)"
expect_exit 0 "  ... report" -- "$GMPROF" report "$TMPDIR/outer.gmprof"
grep -qx '  NVTX domains besides the default: gmprof-double (1 range), gmprof-cross (1 range)' "$TMPDIR/out" &&
	ok "  ... the domains named under the range table" || notok "  ... $(grep -A12 '^Memory by NVTX' "$TMPDIR/out")"

# GMPROF_NVTX_DOMAIN_NAMES (gmprof run --nvtx-domain-names): a named domain's ranges and marks are
# recorded as DOMAIN:NAME (nsys's way), so a glob selects a library's; the default domain's as given.
collect "GMPROF_NVTX_DOMAIN_NAMES=1" "$TMPDIR/dn.gmprof" "$TMPDIR/ways.jsonl" GMP_DOUBLE_NVTX_CROSS=outer GMPROF_NVTX_DOMAIN_NAMES=1
ranges_of "$TMPDIR/dn.gmprof" | grep range_push | sed 's/.*"name":"\(.*\)"}/\1/' | tr '\n' ' ' |
	grep -qx 'gmprof-cross:library a b c gmprof-double:d ' && ok "  ... each named domain's ranges prefixed" ||
	notok "  ... $(ranges_of "$TMPDIR/dn.gmprof" | grep range_push)"
expect_exit 0 "  ... report --ranges '*gmprof-double:*'" -- "$GMPROF" report --ranges '*gmprof-double:*' "$TMPDIR/dn.gmprof"
grep -q "^Findings: 2 (of the objects allocated in NVTX ranges matching '\*gmprof-double:\*')" "$TMPDIR/out" &&
	grep -q '^     allocated by ALLOC (stream 0, #4) .* in gmprof-cross:library > a > b > c > gmprof-double:d$' "$TMPDIR/out" &&
	ok "  ... selects the findings of what the library's range allocated" || notok "  ... $(grep -A4 '^Findings' "$TMPDIR/out")"
collect "  ... marks" "$TMPDIR/dnm.gmprof" tests/scripts/nvtx_marks.jsonl GMPROF_NVTX_DOMAIN_NAMES=1
"$GMPROF" dump "$TMPDIR/dnm.gmprof" 2>/dev/null | grep '"op":"mark"' | sed 's/.*"name":"\([^"]*\)".*/\1/' | tr '\n' ' ' |
	grep -qx 'start loaded epoch gmprof-double:epoch gmprof-double:epoch done ' && ok "  ... the domain's marks prefixed" ||
	notok "  ... $("$GMPROF" dump "$TMPDIR/dnm.gmprof" 2>/dev/null | grep '"op":"mark"')"
# A domain's name longer than half a range's 95 bytes is cut at a character's start (45 a's, then an é).
long=$(printf 'a%.0s' $(seq 1 45))$(printf '\303\251')-and-more-of-the-name
collect "  ... a long domain name" "$TMPDIR/dnl.gmprof" "$TMPDIR/ways.jsonl" GMP_DOUBLE_NVTX_CROSS=outer \
	"GMP_DOUBLE_NVTX_CROSS_NAME=$long" GMPROF_NVTX_DOMAIN_NAMES=1
ranges_of "$TMPDIR/dnl.gmprof" | head -1 | grep -qx "{\"op\":\"range_push\",\"name\":\"$(printf 'a%.0s' $(seq 1 45)):library\"}" &&
	ok "  ... cut before the é, whole" || notok "  ... $(ranges_of "$TMPDIR/dnl.gmprof" | head -1)"

# Left out: the domain's ranges are not recorded, and the others are as they were.
collect "GMPROF_NVTX_DOMAIN_EXCLUDE=gmprof-cross" "$TMPDIR/ex.gmprof" "$TMPDIR/ways.jsonl" \
	GMP_DOUBLE_NVTX_CROSS=outer GMPROF_NVTX_DOMAIN_EXCLUDE=gmprof-cross
ranges_of "$TMPDIR/ex.gmprof" | diff -u "$TMPDIR/ways.jsonl" - >"$TMPDIR/diff" &&
	ok "  ... the profile's ranges are the script's" || { notok "  ... they differ"; cat "$TMPDIR/diff"; }
expect_exit 0 "  ... report" -- "$GMPROF" report "$TMPDIR/ex.gmprof"
grep -qx '  NVTX domains besides the default: gmprof-double (1 range); left out when recorded: gmprof-cross (1 range)' "$TMPDIR/out" &&
	ok "  ... says which domain was left out" || notok "  ... $(grep -A12 '^Memory by NVTX' "$TMPDIR/out")"
expect_exit 0 "  ... report --format json" -- "$GMPROF" report --format json "$TMPDIR/ex.gmprof"
grep -q '"nvtx_domains":{"default_left_out":false,"domains":\[{"name":"gmprof-double","ranges":1,"marks":0,"left_out":false},{"name":"gmprof-cross","ranges":1,"marks":0,"left_out":true}\]}' "$TMPDIR/out" &&
	ok "  ... JSON: nvtx_domains" || notok "  ... JSON: $(grep -o '"nvtx_domains":[^]]*' "$TMPDIR/out")"
"$GMPROF" report --format json "$TMPDIR/ways.jsonl" 2>/dev/null | grep -q '"nvtx_domains"' &&
	notok "  ... JSON: nvtx_domains in a run with none" || ok "  ... none in a run without domains"
collect "  ... crossed at every change, left out (NVTX's no-tracking level for its pushes and pops)" "$TMPDIR/ex2.gmprof" \
	"$TMPDIR/ways.jsonl" GMP_DOUBLE_NVTX_CROSS=1 GMPROF_NVTX_DOMAIN_EXCLUDE=gmprof-cross
ranges_of "$TMPDIR/ex2.gmprof" | diff -u "$TMPDIR/ways.jsonl" - >"$TMPDIR/diff" &&
	ok "  ... the profile's ranges are the script's" || { notok "  ... they differ"; cat "$TMPDIR/diff"; }
collect "GMPROF_NVTX_DOMAIN_INCLUDE=default,gmprof-double" "$TMPDIR/in2.gmprof" "$TMPDIR/ways.jsonl" \
	GMP_DOUBLE_NVTX_CROSS=outer GMPROF_NVTX_DOMAIN_INCLUDE=default,gmprof-double
ranges_of "$TMPDIR/in2.gmprof" | diff -u "$TMPDIR/ways.jsonl" - >"$TMPDIR/diff" &&
	ok "  ... the profile's ranges are the script's" || { notok "  ... they differ"; cat "$TMPDIR/diff"; }
# Spaces around the names are not theirs; a name no domain has is said at exit, with the domains made.
collect "GMPROF_NVTX_DOMAIN_INCLUDE=' default , gmprof-double '" "$TMPDIR/in3.gmprof" "$TMPDIR/ways.jsonl" \
	GMP_DOUBLE_NVTX_CROSS=outer "GMPROF_NVTX_DOMAIN_INCLUDE= default , gmprof-double "
ranges_of "$TMPDIR/in3.gmprof" | diff -u "$TMPDIR/ways.jsonl" - >"$TMPDIR/diff" &&
	ok "  ... the profile's ranges are the script's" || { notok "  ... they differ"; cat "$TMPDIR/diff"; }
collect "GMPROF_NVTX_DOMAIN_EXCLUDE=gmprof-crosss (a name mistyped)" "$TMPDIR/typo.gmprof" "$TMPDIR/ways.jsonl" \
	GMP_DOUBLE_NVTX_CROSS=outer GMPROF_NVTX_DOMAIN_EXCLUDE=default,gmprof-crosss
expect_stderr_line "^gmprof: GMPROF_NVTX_DOMAIN_EXCLUDE names 'gmprof-crosss', but the program made no NVTX domain of that name (it made gmprof-double, gmprof-cross)$" \
	"  ... said at exit, in one line"
collect "GMPROF_NVTX_DOMAIN_INCLUDE=NCCL in a program without NVTX" "$TMPDIR/none.gmprof" tests/scripts/figure2.jsonl \
	GMPROF_NVTX_DOMAIN_INCLUDE=NCCL
expect_stderr_line "^gmprof: GMPROF_NVTX_DOMAIN_INCLUDE names 'NCCL', but the program made no NVTX domain of that name (it made none)$" \
	"  ... said"
collect "GMPROF_NVTX_DOMAIN_INCLUDE=default" "$TMPDIR/in.gmprof" "$TMPDIR/ways.jsonl" \
	GMP_DOUBLE_NVTX_CROSS=outer GMPROF_NVTX_DOMAIN_INCLUDE=default
ranges_of "$TMPDIR/in.gmprof" | grep range_push | sed 's/.*"name":"\(.*\)"}/\1/' | tr '\n' ' ' | grep -qx 'a b c ' &&
	ok "  ... the default domain's ranges only (the double pushed d in its own)" ||
	notok "  ... $(ranges_of "$TMPDIR/in.gmprof" | grep range_push)"
"$GMPROF" report "$TMPDIR/in.gmprof" 2>/dev/null |
	grep -qx '  left out when recorded: gmprof-double (1 range), gmprof-cross (1 range)' &&
	ok "  ... both others said left out" || notok "  ... $("$GMPROF" report "$TMPDIR/in.gmprof" 2>&1 | grep -A12 '^Memory by NVTX')"
# gmprof diff of two runs that left out different domains says so: those ranges compare with none.
expect_exit 0 "diff of runs that left out different domains" -- "$GMPROF" diff "$TMPDIR/outer.gmprof" "$TMPDIR/in.gmprof"
sed -n 2p "$TMPDIR/out" | grep -qx '  note: NVTX domains were left out of one run only: gmprof-double (after), gmprof-cross (after); their ranges and marks compare with none' &&
	ok "  ... a note under its first line" || notok "  ... $(head -3 "$TMPDIR/out")"
expect_exit 0 "  ... JSON" -- "$GMPROF" diff --format json "$TMPDIR/outer.gmprof" "$TMPDIR/in.gmprof"
grep -q '"nvtx_domains_left_out":{"before":\[\],"after":\["gmprof-double","gmprof-cross"\]}' "$TMPDIR/out" &&
	ok "  ... each run's list" || notok "  ... $(grep -o '"nvtx_domains_left_out":[^}]*}' "$TMPDIR/out")"
expect_exit 0 "  ... Markdown" -- "$GMPROF" diff --format markdown "$TMPDIR/in.gmprof" "$TMPDIR/outer.gmprof"
grep -qx 'NVTX domains were left out of one run only: gmprof-double (before), gmprof-cross (before); their ranges and marks compare with none.' "$TMPDIR/out" &&
	ok "  ... a paragraph" || notok "  ... $(head -5 "$TMPDIR/out")"
"$GMPROF" diff "$TMPDIR/outer.gmprof" "$TMPDIR/cross.gmprof" 2>/dev/null | grep -q 'left out of one run' &&
	notok "  ... a note where neither left a domain out" || ok "  ... none where neither left a domain out"
# A range budget that matches nothing in a run that left domains out says which.
expect_exit 1 "check --max-range-peak on a range of a domain left out: no range matches" -- "$GMPROF" check --max-range-peak 'library=1KiB' "$TMPDIR/in.gmprof"
grep -qF "  no NVTX range matches 'library' (the run left out NVTX domains when it was recorded: gmprof-double (1 range), gmprof-cross (1 range); is it theirs?)" "$TMPDIR/out" &&
	ok "  ... says which domains were left out" || notok "  ... $(cat "$TMPDIR/out")"
# A baseline of a run that left a domain out says which (version 9); a check whose run left out others says so.
expect_exit 0 "baseline of a run that left a domain out" -- "$GMPROF" baseline -o "$TMPDIR/ex.base.json" "$TMPDIR/ex.gmprof"
tr -d ' \n' <"$TMPDIR/ex.base.json" | grep -q '^{"gmprof_baseline":9,.*"nvtx_domains_left_out":\["gmprof-cross"\],"peaks"' &&
	ok "  ... version 9, with the domain" || notok "  ... $(head -c 400 "$TMPDIR/ex.base.json")"
"$GMPROF" check --baseline "$TMPDIR/ex.base.json" "$TMPDIR/ex.gmprof" >"$TMPDIR/out" 2>&1
grep -q 'nvtx_domains' "$TMPDIR/out" && notok "  ... a check of the same run: $(grep nvtx_domains "$TMPDIR/out")" ||
	ok "  ... a check of a run that left out the same: no word of domains"
cp "$TMPDIR/in.gmprof" "$TMPDIR/ex2.gmprof" # another run: it left out both other domains
"$GMPROF" check --baseline "$TMPDIR/ex.base.json" "$TMPDIR/ex2.gmprof" >"$TMPDIR/out" 2>&1
grep -qx 'PASS baseline:nvtx_domains: NVTX domains left out when recorded differ: gmprof-double (this run only); their ranges and marks are not compared' "$TMPDIR/out" &&
	ok "  ... a check of a run that left out another: a line that does not fail" || notok "  ... $(cat "$TMPDIR/out")"
"$GMPROF" check --baseline "$TMPDIR/ex.gmprof" "$TMPDIR/outer.gmprof" >"$TMPDIR/out" 2>&1
grep -qx 'PASS baseline:nvtx_domains: NVTX domains left out when recorded differ: gmprof-cross (the baseline.s run only); their ranges and marks are not compared' "$TMPDIR/out" &&
	ok "  ... the baseline taken from the profile itself" || notok "  ... $(cat "$TMPDIR/out")"
collect "GMPROF_NVTX_DOMAIN_EXCLUDE=default" "$TMPDIR/exd.gmprof" "$TMPDIR/ways.jsonl" \
	GMP_DOUBLE_NVTX_CROSS=outer GMPROF_NVTX_DOMAIN_EXCLUDE=default
ranges_of "$TMPDIR/exd.gmprof" | grep range_push | sed 's/.*"name":"\(.*\)"}/\1/' | tr '\n' ' ' | grep -qx 'library d ' &&
	ok "  ... the named domains' ranges only" || notok "  ... $(ranges_of "$TMPDIR/exd.gmprof" | grep range_push)"
"$GMPROF" report "$TMPDIR/exd.gmprof" 2>/dev/null |
	grep -qx '  NVTX domains besides the default: gmprof-double (1 range), gmprof-cross (1 range); left out when recorded: the default domain' &&
	ok "  ... the default domain said left out" || notok "  ... $("$GMPROF" report "$TMPDIR/exd.gmprof" 2>&1 | grep -A12 '^Memory by NVTX')"
# Ranges begun by id (nvtxDomainRangeStartEx among the four ways) of a domain left out: none, and their ends do nothing.
rm -f "$TMPDIR/se.gmprof"
expect_exit 0 "ranges begun by id, the double's domain left out" -- env GMP_DOUBLE_NVTX_RANGES=startend \
	GMPROF_NVTX_DOMAIN_EXCLUDE=gmprof-double GMPROF_OUTPUT="$TMPDIR/se.gmprof" "$FAKE" "$TMPDIR/ways.jsonl"
ranges_of "$TMPDIR/se.gmprof" | grep range_push | sed 's/.*"name":"\(.*\)"}/\1/' | tr '\n' ' ' | grep -qx 'a b c ' &&
	ok "  ... the others' ranges only" || notok "  ... $(ranges_of "$TMPDIR/se.gmprof" | grep range_push)"

# Under ThreadSanitizer: eight threads make the domain at once (one handle for them all) and cross
# their ranges with its own at every change, one run with it recorded, one with it left out.
TS=$(cd "$B/../tsan" 2>/dev/null && pwd)
if [ -z "$TS" ] || [ ! -x "$TS/double/fake_app" ]; then
	notok "ThreadSanitizer build missing (make test builds it)"
else
	for ex in none gmprof-cross; do
		rm -f "$TMPDIR/ts.gmprof"
		env GMPROF_COLLECTOR="$TS/libgmprof.so" NVTX_INJECTION64_PATH="$TS/libgmprof.so" \
			GMPROF_SANITIZER_LIB="$TS/double/libsanitizer-public.so" GMPROF_DOUBLE="$TS/double/libsanitizer-public.so" \
			GMPROF_NVTX_DOMAIN_EXCLUDE=$ex GMP_DOUBLE_NVTX_CROSS=1 GMPROF_OUTPUT="$TMPDIR/ts.gmprof" \
			TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$TS/double/fake_app" --threads 8 "$TMPDIR/ways.jsonl" \
			>/dev/null 2>"$TMPDIR/tsan"
		rc=$?
		n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
		[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] &&
			[ "$("$GMPROF" dump "$TMPDIR/ts.gmprof" 2>/dev/null | grep -c '"op":"range_push"')" -eq 32 ] &&
			ok "8 threads crossing domains (left out: $ex): no ThreadSanitizer report, each thread's 4 ranges" ||
			{ notok "8 threads crossing domains (left out: $ex): exit $rc, $n TSan reports"; head -30 "$TMPDIR/tsan"; }
	done
fi

# Marks: the double makes every fifth and fifth-but-one in its domain (nvtxDomainMarkEx).
collect "marks, the double's domain left out" "$TMPDIR/marks.gmprof" tests/scripts/nvtx_marks.jsonl \
	GMPROF_NVTX_DOMAIN_EXCLUDE=gmprof-double
"$GMPROF" dump "$TMPDIR/marks.gmprof" 2>/dev/null | grep '"op":"mark"' | sed 's/.*"name":"\([^"]*\)".*/\1/' | tr '\n' ' ' |
	grep -qx 'start loaded epoch done ' && ok "  ... the default domain's marks only" ||
	notok "  ... $("$GMPROF" dump "$TMPDIR/marks.gmprof" 2>/dev/null | grep '"op":"mark"')"
expect_exit 0 "  ... report" -- "$GMPROF" report "$TMPDIR/marks.gmprof"
grep -qx '  left out when recorded: gmprof-double (2 marks)' "$TMPDIR/out" &&
	ok "  ... said under the mark table" || notok "  ... $(grep -A12 '^Memory at NVTX marks' "$TMPDIR/out")"
collect "  ... recorded" "$TMPDIR/marks-all.gmprof" tests/scripts/nvtx_marks.jsonl
"$GMPROF" report --format markdown "$TMPDIR/marks-all.gmprof" 2>/dev/null |
	grep -qx 'NVTX domains besides the default: gmprof-double (2 marks)' && ok "  ... Markdown names the domain" ||
	notok "  ... $("$GMPROF" report --format markdown "$TMPDIR/marks-all.gmprof" 2>&1 | grep -A14 'Memory at NVTX marks')"
"$GMPROF" html --force -o "$TMPDIR/marks.html" "$TMPDIR/marks-all.gmprof" 2>/dev/null
grep -q 'NVTX domains besides the default: gmprof-double (2 marks)' "$TMPDIR/marks.html" && ok "  ... and HTML" ||
	notok "  ... html: $(grep -c 'NVTX domains' "$TMPDIR/marks.html")"

# One list or the other: the collector says so in one line and records nothing.
rm -f "$TMPDIR/both.gmprof"
expect_exit 0 "both lists given" -- env GMPROF_NVTX_DOMAIN_INCLUDE=a GMPROF_NVTX_DOMAIN_EXCLUDE=b \
	GMPROF_OUTPUT="$TMPDIR/both.gmprof" "$FAKE" "$TMPDIR/ways.jsonl"
expect_stderr_line "^gmprof: GMPROF_NVTX_DOMAIN_EXCLUDE='b' is not valid: GMPROF_NVTX_DOMAIN_INCLUDE is set too: give one of them; the program runs unprofiled$" \
	"  ... said in one line"
[ ! -e "$TMPDIR/both.gmprof" ] && ok "  ... no profile" || notok "  ... a profile written"

# gmprof run passes its options on, and refuses both, or an empty list, before the program runs.
unset GMPROF_SUMMARY
export GMPROF_CUDA_DRIVER="$B/double/libcuda-fake.so"
expect_exit 0 "gmprof run --nvtx-domain-exclude" -- "$GMPROF" run --sanitizer-lib "$GMPROF_SANITIZER_LIB" --top 3 \
	--nvtx-domain-exclude gmprof-cross -o "$TMPDIR/run.gmprof" -- env GMP_DOUBLE_NVTX_CROSS=outer "$FAKE" "$TMPDIR/ways.jsonl"
ranges_of "$TMPDIR/run.gmprof" | diff -u "$TMPDIR/ways.jsonl" - >"$TMPDIR/diff" && ok "  ... the domain left out" ||
	{ notok "  ... they differ"; cat "$TMPDIR/diff"; }
grep -q '^  names    NVTX domains besides the default: gmprof-double (1 range); left out when recorded: gmprof-cross (1 range)$' "$TMPDIR/out" &&
	ok "  ... its summary says so" || notok "  ... $(cat "$TMPDIR/out")"
rm -f "$TMPDIR/run.gmprof"
expect_exit 0 "gmprof run --nvtx-domain-include, the environment's exclude list set aside" -- env GMPROF_NVTX_DOMAIN_EXCLUDE=x \
	"$GMPROF" run --sanitizer-lib "$GMPROF_SANITIZER_LIB" --top 0 --nvtx-domain-include default \
	-o "$TMPDIR/run.gmprof" -- env GMP_DOUBLE_NVTX_CROSS=outer "$FAKE" "$TMPDIR/ways.jsonl"
ranges_of "$TMPDIR/run.gmprof" | grep range_push | sed 's/.*"name":"\(.*\)"}/\1/' | tr '\n' ' ' | grep -qx 'a b c ' &&
	ok "  ... the default domain's ranges only" || notok "  ... $(ranges_of "$TMPDIR/run.gmprof" | grep range_push)"
rm -f "$TMPDIR/run.gmprof"
expect_exit 0 "gmprof run --nvtx-domain-names" -- "$GMPROF" run --sanitizer-lib "$GMPROF_SANITIZER_LIB" --top 0 \
	--nvtx-domain-names -o "$TMPDIR/run.gmprof" -- env GMP_DOUBLE_NVTX_CROSS=outer "$FAKE" "$TMPDIR/ways.jsonl"
ranges_of "$TMPDIR/run.gmprof" | head -1 | grep -qx '{"op":"range_push","name":"gmprof-cross:library"}' &&
	ok "  ... the names prefixed" || notok "  ... $(ranges_of "$TMPDIR/run.gmprof" | head -1)"
expect_exit 2 "gmprof run with both" -- "$GMPROF" run --nvtx-domain-include a --nvtx-domain-exclude b -- sh -c "touch '$TMPDIR/ran'"
expect_stderr_line "give --nvtx-domain-include or --nvtx-domain-exclude, not both" "  ... in one sentence"
expect_exit 2 "gmprof run with an empty list" -- "$GMPROF" run --nvtx-domain-exclude '' -- sh -c "touch '$TMPDIR/ran'"
expect_stderr_line "bad value '' for --nvtx-domain-exclude" "  ... in one sentence"
expect_exit 2 "gmprof run with both, one from the environment" -- env GMPROF_NVTX_DOMAIN_INCLUDE=a GMPROF_NVTX_DOMAIN_EXCLUDE=b \
	"$GMPROF" run --sanitizer-lib "$GMPROF_SANITIZER_LIB" -o "$TMPDIR/run2.gmprof" -- sh -c "touch '$TMPDIR/ran'"
expect_stderr_line "GMPROF_NVTX_DOMAIN_INCLUDE is set too: give one of them" "  ... in one sentence"
[ ! -e "$TMPDIR/ran" ] && ok "  ... before the program runs" || notok "  ... the program ran"
finish
