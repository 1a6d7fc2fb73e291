# SPDX-License-Identifier: MIT
# A program that polls (cudaEventQuery, cudaStreamQuery) instead of syncing
# learns the same when the query says the work finished: the collector
# records a successful query as the sync it stands for, so the findings are
# those of the program that synced.  The test double turns a script's event
# and stream syncs into polling loops (GMP_DOUBLE_POLL=N: not ready twice,
# then done N times).
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
# B (obj#2) waits on stream 2 until the host knows stream 1's k1b finished: early by two APIs.
cat >"$TMPDIR/poll.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096,"stream":1}
{"op":"alloc","addr":"0x20000","size":4096,"stream":2}
{"op":"kernel","name":"k1","write":["0x10000"],"stream":1}
{"op":"kernel","name":"k1b","write":["0x10000"],"stream":1}
{"op":"event_record","event":9,"stream":1}
{"op":"sync","event":9}
{"op":"kernel","name":"k2","write":["0x20000"],"stream":2}
{"op":"kernel","name":"k3","read":["0x10000"],"stream":1}
{"op":"kernel","name":"k3b","read":["0x10000"],"stream":1}
{"op":"sync","stream":1}
{"op":"kernel","name":"k4","read":["0x20000"],"stream":2}
{"op":"sync"}
{"op":"free","addr":"0x10000"}
{"op":"sync"}
{"op":"free","addr":"0x20000"}
J
findings() { "$GMPROF" replay "$1" 2>/dev/null | grep '^  [0-9]'; }
syncs() { "$GMPROF" dump "$1" | grep -n '"op":"sync"' | sed -E 's/,"event":[0-9]+/,"event":E/; s/,"thread".*//'; }
want=$(findings "$TMPDIR/poll.jsonl")
echo "$want" | grep -q 'early_allocation: obj#2' && ok "the script: obj#2 early (the syncs order stream 2 after stream 1)" ||
	notok "the script: $want"
expect_exit 0 "syncing" -- env GMPROF_OUTPUT="$TMPDIR/sync.gmprof" "$B/double/fake_app" "$TMPDIR/poll.jsonl"
syncs "$TMPDIR/sync.gmprof" >"$TMPDIR/sync.syncs"
for how in "1 runtime" "3 runtime" "1 driver"; do
	set -- $how
	expect_exit 0 "polling, done $1 time(s), $2 API" -- env GMPROF_OUTPUT="$TMPDIR/poll$1$2.gmprof" GMP_DOUBLE_POLL=$1 \
		GMP_DOUBLE_POLL_API=$2 "$B/double/fake_app" "$TMPDIR/poll.jsonl"
	[ ! -s "$TMPDIR/err" ] && ok "  ... not a word" || notok "  ... stderr: $(cat "$TMPDIR/err")"
	syncs "$TMPDIR/poll$1$2.gmprof" >"$TMPDIR/poll.syncs"
	cmp -s "$TMPDIR/sync.syncs" "$TMPDIR/poll.syncs" && ok "  ... the syncs the syncing run recorded, where it recorded them" ||
		notok "  ... syncs: $(diff "$TMPDIR/sync.syncs" "$TMPDIR/poll.syncs" | tr '\n' ' ')"
	got=$(findings "$TMPDIR/poll$1$2.gmprof")
	[ "$got" = "$want" ] && ok "  ... the script's findings" || notok "  ... findings: $got"
done
# Per-thread default streams: a NULL stream in cudaStreamQuery_ptsz is the thread's default stream.
sed 's/"stream":1}$/"stream":0}/; s/"stream":1,/"stream":0,/' "$TMPDIR/poll.jsonl" | grep -v '"event"' >"$TMPDIR/pt.jsonl"
expect_exit 0 "polling the default stream, built per-thread" -- env GMPROF_OUTPUT="$TMPDIR/pt.gmprof" GMP_DOUBLE_POLL=1 \
	GMP_DOUBLE_PER_THREAD=1 "$B/double/fake_app" "$TMPDIR/pt.jsonl"
k1=$("$GMPROF" dump "$TMPDIR/pt.gmprof" | sed -n 's/.*"name":"k1".*"stream":\([0-9]*\).*/\1/p')
"$GMPROF" dump "$TMPDIR/pt.gmprof" | grep -q "\"op\":\"sync\",\"stream\":$k1," && [ "${k1:-0}" != 0 ] &&
	ok "  ... the query's sync is of the thread's default stream ($k1), k1's" ||
	notok "  ... k1 on stream '$k1'; syncs: $(syncs "$TMPDIR/pt.gmprof" | tr '\n' ' ')"
# A program that only polls: 40 launches on stream 1, an event recorded and polled after every 8,
# 10 launch buffers (GMPROF_POOL).  A successful query collects the launches before the event's
# record, so the buffers never run out and the collector waits for no stream.
{
	echo '{"op":"alloc","addr":"0x10000","size":4096}'
	for i in 1 2 3 4 5; do
		for j in 1 2 3 4 5 6 7 8; do echo '{"op":"kernel","name":"k","write":["0x10000"],"stream":1}'; done
		echo "{\"op\":\"event_record\",\"event\":$i,\"stream\":1}"
		echo "{\"op\":\"sync\",\"event\":$i}"
	done
	echo '{"op":"sync"}'
	echo '{"op":"free","addr":"0x10000"}'
} >"$TMPDIR/only_polls.jsonl"
expect_exit 0 "40 launches, an event polled after every 8, 10 launch buffers" -- env GMP_DOUBLE_STATS=1 GMPROF_POOL=10 \
	GMP_DOUBLE_POLL=1 GMPROF_OUTPUT="$TMPDIR/only_polls.gmprof" "$B/double/fake_app" "$TMPDIR/only_polls.jsonl"
waits=$(sed -n 's/^double: \([0-9]*\) stream syncs.*/\1/p' "$TMPDIR/err")
[ "$waits" = 0 ] && ok "  ... collected at the successful queries: the collector waited for no stream" ||
	notok "  ... $(cat "$TMPDIR/err")"
[ "$("$GMPROF" dump "$TMPDIR/only_polls.gmprof" | grep -c '"op":"kernel","name":"k","write":\["0x10000"\]')" = 40 ] &&
	ok "  ... every launch's access recorded" || notok "  ... $("$GMPROF" dump "$TMPDIR/only_polls.gmprof" | grep -c '"op":"kernel"') kernels"
finish
