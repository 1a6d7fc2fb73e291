# SPDX-License-Identifier: MIT
# The collector's start when the Compute Sanitizer refuses it, through the
# test double (GMP_DOUBLE_FAIL=subscribe:1, as when another tool such as
# compute-sanitizer subscribed first; domain:N, the Nth domain it enables):
# one sentence naming what failed (the domain, by name: without the events'
# or graphs' callbacks the order of streams' work would be wrong, so none
# is optional), the program runs on unprofiled (exit 2 under
# GMPROF_ON_ERROR=fail), and no profile is left behind that would read as
# a run that died at its start; gmprof run says the program wrote none.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
S=tests/scripts/figure2.jsonl
use_double "$PWD/$B"

expect_exit 0 "subscription refused: the program runs on" -- env GMP_DOUBLE_FAIL=subscribe:1 \
	GMPROF_OUTPUT="$TMPDIR/s.gmprof" "$FAKE" "$S"
expect_stderr_line "^gmprof: cannot subscribe to the Compute Sanitizer (limit reached): another tool (compute-sanitizer, a profiler) already did; the program runs unprofiled$" \
	"  ... one sentence: another tool holds the Sanitizer"
[ ! -e "$TMPDIR/s.gmprof" ] && ok "  ... no profile" || notok "  ... a profile was left: $(ls -l "$TMPDIR/s.gmprof")"
expect_exit 2 "subscription refused, GMPROF_ON_ERROR=fail: exit 2" -- env GMP_DOUBLE_FAIL=subscribe:1 GMPROF_ON_ERROR=fail \
	GMPROF_OUTPUT="$TMPDIR/s.gmprof" "$FAKE" "$S"
expect_stderr_line "another tool .* already did; stopping (GMPROF_ON_ERROR=fail)$" "  ... one sentence"
[ ! -e "$TMPDIR/s.gmprof" ] && ok "  ... no profile" || notok "  ... a profile was left"

# Each domain the collector enables, in its order: every one is needed.
n=0
for d in resource launch memcpy memset synchronize events graphs "runtime API" "driver API"; do
	n=$((n + 1))
	rm -f "$TMPDIR/d.gmprof"
	expect_exit 0 "the $d domain refused: the program runs on" -- env GMP_DOUBLE_FAIL=domain:$n \
		GMPROF_OUTPUT="$TMPDIR/d.gmprof" "$FAKE" "$S"
	expect_stderr_line "^gmprof: cannot enable the Compute Sanitizer's $d callbacks (.*); the program runs unprofiled$" \
		"  ... one sentence naming the $d domain"
	[ ! -e "$TMPDIR/d.gmprof" ] && ok "  ... no profile" || notok "  ... a profile was left"
done
# Past the collector's domains (the double counts its own later enables): a whole profile.
expect_exit 0 "domain:$((n + 1)) (not one the collector enables at its start)" -- env GMP_DOUBLE_FAIL=domain:$((n + 1)) \
	GMPROF_OUTPUT="$TMPDIR/d.gmprof" "$FAKE" "$S"
[ ! -s "$TMPDIR/err" ] && same_findings "$TMPDIR/d.gmprof" "$S" && ok "  ... nothing said, the script's findings" ||
	notok "  ... $(cat "$TMPDIR/err")"

# A profile that was there before stays as it was when the Sanitizer refuses.
printf 'an older file\n' >"$TMPDIR/old.gmprof"
GMP_DOUBLE_FAIL=subscribe:1 GMPROF_OUTPUT="$TMPDIR/old.gmprof" "$FAKE" "$S" >/dev/null 2>"$TMPDIR/err"
[ "$(cat "$TMPDIR/old.gmprof")" = "an older file" ] && ok "a file already at the output: untouched" ||
	notok "a file already at the output: $(cat "$TMPDIR/err")"
# GMPROF_FORCE=1 on a device: the profile cannot be written, and the device is not removed.
if [ -c /dev/full ]; then
	expect_exit 0 "GMPROF_FORCE=1 GMPROF_OUTPUT=/dev/full: the program runs on" -- env GMPROF_FORCE=1 \
		GMPROF_OUTPUT=/dev/full "$FAKE" "$S"
	expect_stderr_line "^gmprof: cannot create the profile '/dev/full': .*; the program runs unprofiled$" "  ... one sentence"
	[ -c /dev/full ] && ok "  ... /dev/full is still there" || notok "  ... /dev/full was removed"
fi

# gmprof run: the collector's sentence, then that no profile was written; exit 2.
expect_exit 2 "gmprof run, subscription refused: exit 2" -- env GMP_DOUBLE_FAIL=subscribe:1 \
	GMPROF_CUDA_DRIVER="$PWD/$B/double/libcuda-fake.so" "$GMPROF" run -o "$TMPDIR/r.gmprof" -- "$FAKE" "$S"
[ "$(wc -l <"$TMPDIR/err")" -eq 2 ] && grep -q "^gmprof: cannot subscribe to the Compute Sanitizer" "$TMPDIR/err" &&
	grep -q "^gmprof: the program wrote no profile (did it use CUDA? a collector that could not start said why above)$" "$TMPDIR/err" &&
	ok "  ... the collector's sentence, then that the program wrote no profile" || notok "  ... $(cat "$TMPDIR/err")"
[ ! -e "$TMPDIR/r.gmprof" ] && ok "  ... no profile" || notok "  ... a profile was left"
finish
