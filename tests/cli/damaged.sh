# SPDX-License-Identifier: MIT
# Profiles that are not whole: damaged (a record's checksum fails), cut off
# inside a record, inside the header or its magic, of another major
# version, or without an END record (the program died).  Every command
# says so in one line naming the profile; a damaged one is refused (status
# 2, nothing written) unless --salvage, which analyzes the intact part
# with a warning; a cut-off one is analyzed with a warning; check fails
# both unless --allow-incomplete.  The same from standard input.  Also
# launches whose accesses were not recorded (the collector's device work
# failed): check fails a pattern gate on them unless --allow-incomplete.
. tests/cli/lib.sh
S=tests/scripts/figure2.jsonl
"$GMPROF" convert -o "$TMPDIR/p.gmprof" "$S" || notok "convert $S"
# The profile gmprof convert writes of figure2 is 741 bytes, its record at
# byte 368 the ALLOC of the script's 7th event (6 events before it), its
# END record the last 7 bytes.
[ "$(wc -c <"$TMPDIR/p.gmprof")" -eq 741 ] && [ "$(od -An -tu1 -j368 -N1 "$TMPDIR/p.gmprof" | tr -d ' ')" = 6 ] &&
	ok "the profile of $S: 741 bytes, an EVENT record at byte 368" ||
	notok "the profile of $S is not laid out as this test expects (tests/cli/damaged.sh)"
flip() { # FILE OFFSET: one byte changed
	printf '\001' | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
cp "$TMPDIR/p.gmprof" "$TMPDIR/dmg.gmprof"
flip "$TMPDIR/dmg.gmprof" 371
D="is damaged at byte 368 (record checksum mismatch)"

for cmd in report check html perfetto flamegraph dump replay baseline; do
	rm -f "$TMPDIR/written"
	case $cmd in
	report | check | replay | dump) out= ;;
	*) out="-o $TMPDIR/written" ;;
	esac
	# shellcheck disable=SC2086
	expect_exit 2 "$cmd refuses a damaged profile" -- "$GMPROF" $cmd $out "$TMPDIR/dmg.gmprof"
	expect_stderr_line "^gmprof: profile '.*dmg.gmprof' $D; 6 events before it are intact: use --salvage to analyze them$" \
		"  ... one line: where, why, how much is intact, and --salvage"
	[ ! -e "$TMPDIR/written" ] && ok "  ... and writes nothing" || notok "  ... wrote $TMPDIR/written"
done
expect_exit 2 "diff refuses a damaged profile" -- "$GMPROF" diff "$TMPDIR/p.gmprof" "$TMPDIR/dmg.gmprof"
expect_exit 2 "a damaged profile on standard input" -- sh -c '"$1" report - <"$2"' sh "$GMPROF" "$TMPDIR/dmg.gmprof"
expect_stderr_line "^gmprof: profile '<stdin>' $D; 6 events" "  ... said the same"

expect_exit 0 "report --salvage analyzes the intact part" -- "$GMPROF" report --salvage "$TMPDIR/dmg.gmprof"
expect_stderr_line "^gmprof: warning: profile '.*dmg.gmprof' $D; analyzing the 6 events before it$" "  ... with one warning"
grep -q "^  events   6 (6 GPU APIs)" "$TMPDIR/out" && grep -q "status   INCOMPLETE: damaged at byte 368" "$TMPDIR/out" &&
	ok "  ... its 6 events, the report's status saying where it was damaged" || notok "  ... report: $(head -8 "$TMPDIR/out")"
expect_exit 0 "dump --salvage writes the intact events" -- "$GMPROF" dump --salvage "$TMPDIR/dmg.gmprof"
grep '^{' "$S" | head -6 >"$TMPDIR/six"
grep '^{' "$TMPDIR/out" | cmp -s - "$TMPDIR/six" && grep -q "^# the profile is incomplete: record checksum mismatch" "$TMPDIR/out" &&
	ok "  ... the script's first 6, under a comment saying it is incomplete" || notok "  ... dump: $(cat "$TMPDIR/out")"
expect_exit 0 "convert --salvage keeps the intact events" -- "$GMPROF" convert --salvage -o "$TMPDIR/salvaged.gmprof" "$TMPDIR/dmg.gmprof"
"$GMPROF" dump "$TMPDIR/salvaged.gmprof" 2>/dev/null | grep '^{' | cmp -s - "$TMPDIR/six" &&
	ok "  ... a profile of the script's first 6, read without --salvage" || notok "  ... $("$GMPROF" dump "$TMPDIR/salvaged.gmprof" 2>&1 | head -3)"
expect_exit 1 "check --salvage fails the gate" -- "$GMPROF" check --salvage --max-peak 1GiB "$TMPDIR/dmg.gmprof"
grep -q "^FAIL complete: the profile is cut off or damaged" "$TMPDIR/out" && ok "  ... on its completeness" || notok "  ... check: $(cat "$TMPDIR/out")"
expect_exit 0 "check --salvage --allow-incomplete passes it" -- "$GMPROF" check --salvage --allow-incomplete --max-peak 1GiB "$TMPDIR/dmg.gmprof"

# Cut off inside a record (a full disk, a copy cut short): a warning, then the events before it.
head -c 500 "$TMPDIR/p.gmprof" >"$TMPDIR/cut.gmprof"
expect_exit 0 "a profile cut inside a record is analyzed" -- "$GMPROF" replay "$TMPDIR/cut.gmprof"
grep -q "^gmprof: warning: profile '.*cut.gmprof' is incomplete: it ends inside a record after 498 of 500 bytes; analyzing the 9 events before it$" \
	"$TMPDIR/err" && ok "  ... with a warning saying where it ends" || notok "  ... stderr: $(cat "$TMPDIR/err")"
expect_exit 1 "  ... check fails it" -- "$GMPROF" check --max-peak 1GiB "$TMPDIR/cut.gmprof"
expect_exit 0 "  ... unless --allow-incomplete" -- "$GMPROF" check --allow-incomplete --max-peak 1GiB "$TMPDIR/cut.gmprof"

# Without its END record: the program did not reach its end.
head -c 734 "$TMPDIR/p.gmprof" >"$TMPDIR/noend.gmprof"
expect_exit 0 "a profile without its END record is analyzed" -- "$GMPROF" replay "$TMPDIR/noend.gmprof"
expect_stderr_line "^gmprof: warning: profile '.*noend.gmprof' is incomplete: the program did not reach its end (it crashed or was killed); analyzing its 13 events$" \
	"  ... with a warning that the program did not reach its end"
expect_exit 1 "  ... check fails it" -- "$GMPROF" check --max-peak 1GiB "$TMPDIR/noend.gmprof"
# The HTML report says so at its top, for each way of being incomplete.
for p in cut noend p; do
	expect_exit 0 "  ... html of the $p profile" -- "$GMPROF" html -o "$TMPDIR/$p.html" "$TMPDIR/$p.gmprof"
done
grep -q '<p class="incomplete">This profile is incomplete (cut off or damaged); what it holds is reported.</p>' "$TMPDIR/cut.html" &&
	grep -q '<p class="incomplete">This profile is incomplete (the program did not reach its end); what it holds is reported.</p>' \
		"$TMPDIR/noend.html" && ! grep -q 'This profile is incomplete' "$TMPDIR/p.html" &&
	ok "  ... the HTML report says how each is incomplete" ||
	notok "  ... html: $(grep -h 'incomplete' "$TMPDIR/cut.html" "$TMPDIR/noend.html" | head -3)"

# Cut inside the header, or inside the magic: a profile with no data, not a script.
for n in 12 9 5 1; do
	head -c $n "$TMPDIR/p.gmprof" >"$TMPDIR/h$n.gmprof"
	expect_exit 2 "a profile cut after $n bytes is refused" -- "$GMPROF" report "$TMPDIR/h$n.gmprof"
	expect_stderr_line "^gmprof: profile '.*h$n.gmprof' is cut off inside its header: it holds no data$" "  ... as a profile with no data"
	expect_exit 2 "  ... also on standard input" -- sh -c '"$1" check --max-peak 1GiB - <"$2"' sh "$GMPROF" "$TMPDIR/h$n.gmprof"
	expect_stderr_line "^gmprof: profile '<stdin>' is cut off inside its header" "  ... said the same"
done

cp "$TMPDIR/p.gmprof" "$TMPDIR/v2.gmprof"
printf '\002' | dd of="$TMPDIR/v2.gmprof" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_exit 2 "a profile of major version 2 is refused" -- "$GMPROF" report "$TMPDIR/v2.gmprof"
expect_stderr_line "^gmprof: profile '.*v2.gmprof' has an unsupported format version (this gmprof reads version 1)$" \
	"  ... naming the version this gmprof reads"

# Launches without recorded accesses, where a pattern gate rests on them.
sed 's/"name":"k3","write":\["0x100000"\]/"name":"k3","monitored":false/' "$S" >"$TMPDIR/unmon.jsonl"
grep -q '"monitored":false' "$TMPDIR/unmon.jsonl" || notok "no launch made unmonitored in $S"
expect_exit 1 "a launch without recorded accesses fails a pattern gate" -- \
	"$GMPROF" check --fail-on dead_write "$TMPDIR/unmon.jsonl"
grep -q "^FAIL monitored: 1 of 8 kernel launches have no recorded accesses (the collector said why as the program ran): a pattern check may miss findings there$" \
	"$TMPDIR/out" && ok "  ... on a check saying how many launches and why it matters" || notok "  ... check: $(cat "$TMPDIR/out")"
expect_exit 0 "  ... --allow-incomplete passes it" -- "$GMPROF" check --allow-incomplete --fail-on dead_write "$TMPDIR/unmon.jsonl"
grep -q "^PASS monitored: 1 of 8" "$TMPDIR/out" && ok "  ... still saying so" || notok "  ... check: $(cat "$TMPDIR/out")"
expect_exit 0 "  ... a gate on the peak alone does not rest on accesses" -- "$GMPROF" check --max-peak 1GiB "$TMPDIR/unmon.jsonl"
! grep -q monitored "$TMPDIR/out" && ok "  ... (no monitored line)" || notok "  ... check: $(cat "$TMPDIR/out")"
"$GMPROF" baseline -o "$TMPDIR/base.json" "$S" 2>/dev/null
expect_exit 1 "  ... a baseline gate compares findings: it fails too" -- "$GMPROF" check --baseline "$TMPDIR/base.json" "$TMPDIR/unmon.jsonl"
grep -q "^FAIL monitored: 1 of 8" "$TMPDIR/out" && ok "  ... on the monitored check" || notok "  ... check: $(cat "$TMPDIR/out")"
{ echo '{"op":"meta","key":"capture","value":"launches:1-7"}'; cat "$TMPDIR/unmon.jsonl"; } >"$TMPDIR/cap.jsonl"
expect_exit 0 "  ... a launch outside a capture range is unmonitored by design: no failure" -- \
	"$GMPROF" check --fail-on dead_write "$TMPDIR/cap.jsonl"
{ echo '{"op":"meta","key":"mode","value":"alloc"}'; cat "$TMPDIR/unmon.jsonl"; } >"$TMPDIR/alloc.jsonl"
"$GMPROF" baseline -o "$TMPDIR/base-alloc.json" "$TMPDIR/alloc.jsonl" 2>/dev/null
expect_exit 0 "  ... nor in alloc mode, which records none" -- "$GMPROF" check --baseline "$TMPDIR/base-alloc.json" "$TMPDIR/alloc.jsonl"
! grep -q monitored "$TMPDIR/out" && ok "  ... (no monitored line)" || notok "  ... check: $(cat "$TMPDIR/out")"

# A binary file that starts as a PNG does (0x89, as the profile's magic): not a profile cut short.
printf '\211PNG\r\n\032\n\000\000\000\015IHDR' >"$TMPDIR/img.png"
expect_exit 2 "a PNG image is refused" -- "$GMPROF" report "$TMPDIR/img.png"
expect_stderr_line "^gmprof: '.*img.png' is neither a gmprof profile nor an event script$" "  ... as neither a profile nor a script"
finish
