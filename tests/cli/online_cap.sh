# SPDX-License-Identifier: MIT
# GMPROF_ONLINE_EVENTS: past that many events the collector stops its own
# analysis at the program's exit (its memory stays bounded) and says so
# once; the profile still records every event, complete, and analyzes.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
S=tests/scripts/figure2.jsonl
expect_exit 0 "a run past GMPROF_ONLINE_EVENTS=3, with the exit summary asked for" -- \
	env GMPROF_ONLINE_EVENTS=3 GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/cap.gmprof" "$B/double/fake_app" "$S"
[ "$(wc -l <"$TMPDIR/err")" -eq 1 ] &&
	expect_stderr_line "^gmprof: more than 3 events: the online analysis stops here (GMPROF_ONLINE_EVENTS); run 'gmprof report $TMPDIR/cap.gmprof' after the program ends$" \
		"  ... one sentence, and no summary it cannot give" || notok "  ... stderr: $(cat "$TMPDIR/err")"
"$GMPROF" dump "$TMPDIR/cap.gmprof" >"$TMPDIR/cap.jsonl" 2>"$TMPDIR/dump.err"
[ ! -s "$TMPDIR/dump.err" ] && [ "$(grep -c '"op":"kernel"' "$TMPDIR/cap.jsonl")" = "$(grep -c '"op":"kernel"' "$S")" ] &&
	tail -1 "$TMPDIR/cap.jsonl" | grep -q '^{"op":"end"}$' &&
	ok "  ... the profile complete: every launch, and its end" || notok "  ... dump: $(cat "$TMPDIR/dump.err")"
same_findings "$TMPDIR/cap.gmprof" "$S" && ok "  ... and it has the script's findings" ||
	{ notok "  ... findings"; diff "$TMPDIR/want" "$TMPDIR/got" | head -5; }
expect_exit 0 "the same run under the default cap" -- \
	env GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/all.gmprof" "$B/double/fake_app" "$S"
grep -q '^==gmprof== FINDINGS: 4 ' "$TMPDIR/err" && ok "  ... summarizes its findings at exit" ||
	notok "  ... stderr: $(cat "$TMPDIR/err")"
finish
