# SPDX-License-Identifier: MIT
# Crash safety: a program under the collector (test double) dies at random
# points -- SIGKILL, SIGSEGV, abort(), exit() without CUDA teardown -- and
# its profile must read back every time:
#   - intact (truncation at a record boundary at worst, never damage), its
#     events a prefix of a full run's events;
#   - catchable deaths (SIGSEGV, abort, exit) flush everything: as many
#     events as an exit() at the same point;
#   - SIGKILL loses at most one flush interval (GMPROF_FLUSH_MS): killed
#     after lingering three intervals, nothing is lost; killed with flushing
#     effectively off, the tail is lost (the control);
#   - `gmprof report` says the profile is incomplete and still reports.
# 200 random kill points by default (CRASH_POINTS); the seed is printed.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
# Let the program's own signal disposition (and the collector's handler) act, not ASan's.
export ASAN_OPTIONS="detect_leaks=0:handle_segv=0:handle_abort=0:allow_user_segv_handler=1"
export GMPROF_FLUSH_MS=50
S=tests/scripts/simple_multi_copy.jsonl
POINTS=${CRASH_POINTS:-200}
SEED=${CRASH_SEED:-$(date +%s)}
echo "# crash points: $POINTS, seed $SEED (CRASH_SEED=$SEED reproduces)"

events() { # PROFILE -> its events as script lines without host thread and time, on stdout
	"$GMPROF" dump "$1" 2>/dev/null | grep '"op"' | grep -v '"op":"end"\|"op":"meta"' | sed -e 's/,"thread":[0-9]*//' -e 's/,"time_ns":[0-9]*//' -e 's/,"returned_ns":[0-9]*//'
}
# Kernels launched just before a death may lack access sets: compare without them.
ops() { sed -e 's/,"read":\[[^]]*\]//' -e 's/,"write":\[[^]]*\]//' -e 's/,"monitored":false//' "$@"; }

env GMPROF_OUTPUT="$TMPDIR/full.gmprof" "$FAKE" "$S" >/dev/null 2>&1
events "$TMPDIR/full.gmprof" >"$TMPDIR/full.ev"
full=$(wc -l <"$TMPDIR/full.ev")
total=$full
[ "$full" -gt 0 ] && ok "a full run records $full events" || notok "a full run records events"

# exit() at point N is the reference: exit handlers flush everything.
ref() { # N -> event count
	if [ ! -f "$TMPDIR/ref.$1" ]; then
		rm -f "$TMPDIR/ref.gmprof"
		env GMPROF_OUTPUT="$TMPDIR/ref.gmprof" "$FAKE" --die-after "$1" exit "$S" >/dev/null 2>&1
		events "$TMPDIR/ref.gmprof" | wc -l >"$TMPDIR/ref.$1"
	fi
	cat "$TMPDIR/ref.$1"
}

bad=0
awk -v n="$POINTS" -v seed="$SEED" -v total="$total" 'BEGIN { srand(seed)
	split("kill kill-late segv abort exit", m, " ")
	for (i = 0; i < n; i++) printf "%d %s\n", int(rand() * total) + 1, m[int(rand() * 5) + 1] }' >"$TMPDIR/points"
while read -r n mode; do
	rm -f "$TMPDIR/c.gmprof"
	how=$mode; pause=
	[ "$mode" = kill-late ] && { how=kill; pause=$((GMPROF_FLUSH_MS * 3)); }
	env GMP_DOUBLE_DIE_PAUSE_MS="$pause" GMPROF_OUTPUT="$TMPDIR/c.gmprof" "$FAKE" --die-after "$n" "$how" "$S" >/dev/null 2>&1
	rc=$?
	case $mode in
	kill*) want=137 ;; segv) want=139 ;; abort) want=134 ;; exit) want=3 ;;
	esac
	[ "$n" -eq "$total" ] && [ "$mode" = exit ] && want=3
	if [ "$rc" -ne "$want" ]; then echo "# point $n $mode: exit $rc, want $want"; bad=$((bad + 1)); continue; fi
	if ! "$GMPROF" dump "$TMPDIR/c.gmprof" >/dev/null 2>"$TMPDIR/err" || grep -q damaged "$TMPDIR/err"; then
		echo "# point $n $mode: unreadable: $(cat "$TMPDIR/err")"; bad=$((bad + 1)); continue
	fi
	events "$TMPDIR/c.gmprof" >"$TMPDIR/c.ev"
	got=$(wc -l <"$TMPDIR/c.ev")
	head -n "$got" "$TMPDIR/full.ev" | ops >"$TMPDIR/want.ev"
	if ! ops "$TMPDIR/c.ev" | cmp -s - "$TMPDIR/want.ev"; then
		echo "# point $n $mode: its $got events are not a prefix of the full run's"; bad=$((bad + 1)); continue
	fi
	if [ "$mode" != kill ]; then
		r=$(ref "$n")
		if [ "$got" -ne "$r" ]; then echo "# point $n $mode: $got events, exit() there keeps $r"; bad=$((bad + 1)); fi
	fi
	echo "$mode" >>"$TMPDIR/modes"
done <"$TMPDIR/points"
[ "$bad" -eq 0 ] && ok "$POINTS random kill points: every profile intact, a prefix, and complete where it must be" \
	|| notok "$POINTS random kill points: $bad bad"
for m in kill kill-late segv abort exit; do
	c=$(grep -cx "$m" "$TMPDIR/modes" 2>/dev/null)
	echo "# $m: $c points"
done

# The control: with flushing effectively off, a SIGKILL loses the tail.
n=$((total - 2))
rm -f "$TMPDIR/c.gmprof"
env GMPROF_FLUSH_MS=600000 GMP_DOUBLE_DIE_PAUSE_MS=200 GMPROF_OUTPUT="$TMPDIR/c.gmprof" "$FAKE" --die-after "$n" kill "$S" >/dev/null 2>&1
got=$(events "$TMPDIR/c.gmprof" | wc -l)
r=$(ref "$n")
[ "$got" -lt "$r" ] && ok "control: without flushes a SIGKILL loses events ($got of $r kept)" || notok "control: without flushes a SIGKILL loses events ($got of $r kept)"

# The report of a crashed run: incomplete, and its leaks are there.
rm -f "$TMPDIR/c.gmprof"
env GMPROF_OUTPUT="$TMPDIR/c.gmprof" "$FAKE" --die-after 30 segv "$S" >/dev/null 2>&1
"$GMPROF" report "$TMPDIR/c.gmprof" >"$TMPDIR/report" 2>"$TMPDIR/err"
grep -q "status   INCOMPLETE" "$TMPDIR/report" && ok "report says the profile is incomplete" || notok "report says the profile is incomplete"
grep -q "memory_leak: obj#1" "$TMPDIR/report" && ok "report still lists what was live (leaks)" || notok "report still lists what was live (leaks)"
expect_exit 1 "check fails an incomplete profile" -- "$GMPROF" check "$TMPDIR/c.gmprof"
expect_exit 0 "check --allow-incomplete passes it" -- "$GMPROF" check --allow-incomplete "$TMPDIR/c.gmprof"
finish
