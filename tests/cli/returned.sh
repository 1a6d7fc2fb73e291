# SPDX-License-Identifier: MIT
# When a blocking call returned: the collector stamps each call as it
# begins, and a sync's return only at the end of the call (a RETURNED
# record; "returned_ns" in a dump).  What the sync waited for had finished
# by then, so memory over time bounds it there rather than at the thread's
# next call, which may come after long host work.  The test double paces
# the script (GMP_DOUBLE_PACE=1: each call no sooner than its time_ns):
# X's last use, k1, is waited for at 3 ms, then the host works until 200 ms
# before its next call; X is freed at 250 ms.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
cat >"$TMPDIR/s.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096,"label":"X","time_ns":1000000}
{"op":"alloc","addr":"0x20000","size":4096,"label":"Y","time_ns":1500000}
{"op":"kernel","name":"k1","write":["0x10000"],"stream":1,"time_ns":2000000}
{"op":"sync","stream":1,"time_ns":3000000}
{"op":"kernel","name":"k2","write":["0x20000"],"stream":1,"time_ns":200000000}
{"op":"kernel","name":"k3","read":["0x20000"],"stream":1,"time_ns":201000000}
{"op":"kernel","name":"k4","write":["0x20000"],"stream":1,"time_ns":202000000}
{"op":"sync","stream":1,"time_ns":203000000}
{"op":"free","addr":"0x10000","time_ns":250000000}
{"op":"free","addr":"0x20000","time_ns":260000000}
J
late_x() { # input -> "MIN MAX" ns that X (obj#1 in a profile) waited after its last use
	"$GMPROF" report --format json --pretty "$1" 2>/dev/null | awk '
		/"pattern": / { gsub(/[",]/, "", $2); p = $2 }
		/"object": / { gsub(/[",]/, "", $2); o = $2 }
		/"waited_min_ns": / { gsub(/,/, "", $2); lo = $2 }
		/"waited_max_ns": / { gsub(/,/, "", $2); if (p == "late_deallocation" && (o == "X" || o == "obj#1")) print lo, $2 }'
}
# The script says nothing of returns: k1 is known done only at the thread's next call, k2 (200 ms).
set -- $(late_x "$TMPDIR/s.jsonl")
[ "${1:-0}" -eq 50000000 ] && [ "${2:-0}" -eq 248000000 ] && ok "the script alone: X waited 50 ms to 248 ms" ||
	notok "the script alone: $*"
expect_exit 0 "a paced run" -- env GMP_DOUBLE_PACE=1 GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/p.gmprof" "$B/double/fake_app" "$TMPDIR/s.jsonl"
# The collector's summary at exit says how long each top finding's memory waited, as the report does.
# (one length, or a range both of whose ends are past 200 ms: a loaded machine may wait a few ms between
# the sync's return and the collector's stamp of it; without the returns the range starts at 50 ms)
grep -q '^==gmprof==   [0-9]\. late_deallocation: obj#1 (4.0 KiB), held 2[0-9][0-9]\.[0-9] ms \(to 2[0-9][0-9]\.[0-9] ms \)\?after its last use: free it just after' "$TMPDIR/err" &&
	ok "the exit summary: how long X was held after its last use" || notok "the exit summary: $(grep 'obj#1' "$TMPDIR/err")"
"$GMPROF" dump "$TMPDIR/p.gmprof" >"$TMPDIR/p.jsonl"
# Each sync's return: after it began, before the thread's next call.
awk -F'"time_ns":' '/"op":"meta"|^#/ { next }
	{ split($2, a, /[,}]/); t = a[1] + 0
	  if (ret && t < ret) bad = bad " a call at " t " before the return at " ret
	  ret = 0; n++
	  if (match($0, /"returned_ns":[0-9]+/)) { ret = substr($0, RSTART + 14, RLENGTH - 14) + 0; r++
		  if (ret < t) bad = bad " a return at " ret " before its call at " t
		  if ($0 !~ /"op":"sync"/) bad = bad " a return on " $0 } }
	END { if (r != 2) bad = bad " " r + 0 " returns, want 2"; if (bad != "") print bad }' "$TMPDIR/p.jsonl" >"$TMPDIR/bad"
[ ! -s "$TMPDIR/bad" ] && ok "both syncs' returns, each between its call and the next" ||
	notok "returns: $(cat "$TMPDIR/bad")"
set -- $(late_x "$TMPDIR/p.gmprof")
[ "${1:-0}" -ge 200000000 ] && [ "${1:-0}" -le "${2:-0}" ] && ok "recorded: X waited at least 200 ms ($1 to $2 ns)" ||
	notok "recorded: X waited $*"
expect_exit 0 "report the run" -- "$GMPROF" report "$TMPDIR/p.gmprof"
grep -q '^     distance 4, 3 APIs between, held 2[0-9][0-9]\.[0-9] ms \(to 2[0-9][0-9]\.[0-9] ms \)\?after its last use;' "$TMPDIR/out" &&
	ok "the report: one length (or a range of a few ms), not 50 ms to 248 ms" || notok "the report: $(grep -A1 'late_deallocation: obj#1' "$TMPDIR/out")"
# The dump keeps the returns: converted back, the same waits.
expect_exit 0 "convert the dump" -- "$GMPROF" convert -o "$TMPDIR/c.gmprof" "$TMPDIR/p.jsonl"
[ "$(late_x "$TMPDIR/p.jsonl")" = "$(late_x "$TMPDIR/p.gmprof")" ] && [ "$(late_x "$TMPDIR/c.gmprof")" = "$(late_x "$TMPDIR/p.gmprof")" ] &&
	ok "dump and converted dump: the same wait" || notok "waits: $(late_x "$TMPDIR/p.jsonl") / $(late_x "$TMPDIR/c.gmprof")"
# Perfetto, on the host axis: each sync's slice lasts until it returned; the topological axis has no such time.
T=$(dirname "$GMPROF")/tools
expect_exit 0 "perfetto --time host" -- "$GMPROF" perfetto --time host -o "$TMPDIR/h.json" --force "$TMPDIR/p.gmprof"
grep '"name":"SYNC"' "$TMPDIR/h.json" | sed -E 's/.*"dur":([0-9.]+),.*"returned_after_ns":([0-9]+).*/\1 \2/' >"$TMPDIR/syncs"
awk '{ n++; if ($1 * 1000 < $2 - 1 || $1 * 1000 > $2 + 1 || $1 < 1) bad = 1 } END { exit !(n == 2 && !bad) }' "$TMPDIR/syncs" &&
	"$T/trace_check" "$TMPDIR/h.json" >/dev/null && ok "perfetto: both syncs last until they returned" ||
	notok "perfetto: $(tr '\n' ' ' <"$TMPDIR/syncs")"
"$GMPROF" perfetto -o "$TMPDIR/t.json" --force "$TMPDIR/p.gmprof" && ! grep -q returned_after_ns "$TMPDIR/t.json" &&
	ok "perfetto, topological axis: no return times" || notok "perfetto, topological axis"
# A profile without them (a collector before 1.5): read as ever, the wider range.
grep -v '"op":"meta"' "$TMPDIR/p.jsonl" | sed -E 's/,"returned_ns":[0-9]+//' >"$TMPDIR/old.jsonl"
set -- $(late_x "$TMPDIR/old.jsonl")
[ "${1:-0}" -lt 100000000 ] && ok "without returns: the next call bounds k1 ($1 ns at least)" || notok "without returns: $*"

# Every call that waits: a device sync, an event sync, a blocking copy's, cudaFree's.
cat >"$TMPDIR/all.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"kernel","name":"k1","write":["0x10000"],"stream":1}
{"op":"event_record","event":1,"stream":1}
{"op":"sync","event":1}
{"op":"memcpy","src":"0x10000","size":64,"stream":1}
{"op":"sync"}
{"op":"kernel","name":"k2","write":["0x10000"],"stream":1}
{"op":"free","addr":"0x10000"}
J
expect_exit 0 "a run with every kind of wait" -- env GMP_DOUBLE_SYNC_COPIES=1 GMP_DOUBLE_FREE_SYNCS=1 \
	GMPROF_OUTPUT="$TMPDIR/all.gmprof" "$B/double/fake_app" "$TMPDIR/all.jsonl"
"$GMPROF" dump "$TMPDIR/all.gmprof" | grep '"returned_ns"' | sed -E 's/,"(thread|time_ns|returned_ns)":[0-9]+//g; s/"event":[0-9]+/"event":1/' >"$TMPDIR/got"
cat >"$TMPDIR/want" <<'J'
{"op":"sync","event":1}
{"op":"sync","stream":1}
{"op":"sync"}
{"op":"sync"}
J
cmp -s "$TMPDIR/got" "$TMPDIR/want" && ok "an event sync, a blocking copy's, a device sync and cudaFree's: each returned" ||
	notok "returns: $(diff "$TMPDIR/want" "$TMPDIR/got" | tr '\n' ' ')"

# A script's returned_ns: on an op of the run, above 0 and not before its time_ns.
printf '{"op":"alloc","addr":"0x1000","size":64,"time_ns":10}\n{"op":"sync","time_ns":20,"returned_ns":15}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a return before its call" -- "$GMPROF" report "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:2: field 'returned_ns' is before the op's 'time_ns'" "  ... one sentence naming the line"
printf '{"op":"alloc","addr":"0x1000","size":64,"returned_ns":0}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a return at 0" -- "$GMPROF" report "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:1: field 'returned_ns' must be above 0" "  ... one sentence naming the line"
finish
