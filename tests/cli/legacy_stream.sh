# SPDX-License-Identifier: MIT
# Blocking streams and the legacy default stream wait for each other: the
# collector learns which streams are blocking from the calls that make
# them (the test double makes a script's declared streams with
# cudaStreamCreateWithFlags, cudaStreamCreate or cuStreamCreate), writes
# it in the profile, and the detector orders the streams so.  A program
# built with --default-stream per-thread (GMP_DOUBLE_PER_THREAD=1: its
# runtime calls end in _ptsz) issues its no-stream work on the thread's
# default stream, not on the legacy one.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
# The solver of tests/scripts/legacy_stream.jsonl without its labels, which the collector does not see:
# x is obj#1, residual obj#2.
S=$TMPDIR/solver.jsonl
sed 's/,"label":"[a-z]*"//' tests/scripts/legacy_stream.jsonl >"$S"
run() { # NAME PROFILE SCRIPT ENV...: the collector's run of the script
	_n=$1 _p=$2 _s=$3
	shift 3
	expect_exit 0 "$_n" -- env GMPROF_OUTPUT="$_p" GMP_DOUBLE_SYNC_COPIES=1 "$@" "$B/double/fake_app" "$_s"
}
findings() { "$GMPROF" replay --format json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted("%s:%s:%d" % (f["pattern"], f["object"], f.get("apis_between", -1)) for f in d["findings"])))'; }
want=$(findings "$S")
echo "$want" | grep -q 'early_allocation:obj#2:5' && echo "$want" | grep -q 'temporary_idleness:obj#1' &&
	ok "the script: residual early by 5 APIs, x idle during the check" || notok "the script: $want"
for api in flags plain driver; do
	run "the solver, its stream made by $api" "$TMPDIR/$api.gmprof" "$S" GMP_DOUBLE_STREAM_API=$api
	[ ! -s "$TMPDIR/err" ] && ok "  ... not a word" || notok "  ... stderr: $(cat "$TMPDIR/err")"
	"$GMPROF" dump "$TMPDIR/$api.gmprof" | grep '"op":"stream"' >"$TMPDIR/streams"
	[ "$(cat "$TMPDIR/streams")" = '{"op":"stream","stream":1,"blocking":true}' ] &&
		ok "  ... stream 1 is recorded blocking" || notok "  ... stream lines: $(cat "$TMPDIR/streams")"
	got=$(findings "$TMPDIR/$api.gmprof")
	[ "$got" = "$want" ] && ok "  ... the script's findings" || notok "  ... findings: $got (want $want)"
done
# Non-blocking: declared so, the stream orders nothing with stream 0.
sed 's/"blocking":true/"blocking":false/' "$S" >"$TMPDIR/nonblocking.jsonl"
run "the solver on a non-blocking stream" "$TMPDIR/nb.gmprof" "$TMPDIR/nonblocking.jsonl"
"$GMPROF" dump "$TMPDIR/nb.gmprof" | grep -q '{"op":"stream","stream":1,"blocking":false}' &&
	ok "  ... stream 1 is recorded non-blocking" || notok "  ... $("$GMPROF" dump "$TMPDIR/nb.gmprof" | grep stream)"
got=$(findings "$TMPDIR/nb.gmprof")
echo "$got" | grep -q 'early_allocation:obj#2:1' && ! echo "$got" | grep -q temporary_idleness &&
	ok "  ... residual early by 1 API, no idleness" || notok "  ... findings: $got"
# A stream made by a call the collector does not read: its flags stay unknown, no stream line.
grep -v '"op":"stream"' "$S" >"$TMPDIR/undeclared.jsonl"
run "the solver, its stream made unseen" "$TMPDIR/un.gmprof" "$TMPDIR/undeclared.jsonl"
"$GMPROF" dump "$TMPDIR/un.gmprof" | grep -q '"op":"stream"' &&
	notok "  ... a stream line: $("$GMPROF" dump "$TMPDIR/un.gmprof" | grep '"op":"stream"')" || ok "  ... no stream line"
[ "$(findings "$TMPDIR/un.gmprof")" = "$(findings "$TMPDIR/nonblocking.jsonl")" ] &&
	ok "  ... ordered as a non-blocking stream" || notok "  ... findings: $(findings "$TMPDIR/un.gmprof")"
# --default-stream per-thread: the no-stream work goes to the thread's default stream (blocking), not 0.
run "the solver built with per-thread default streams" "$TMPDIR/pt.gmprof" "$S" GMP_DOUBLE_PER_THREAD=1
"$GMPROF" dump "$TMPDIR/pt.gmprof" >"$TMPDIR/pt.jsonl"
grep -c '"op":"stream","stream":[0-9]*,"blocking":true' "$TMPDIR/pt.jsonl" | grep -qx 2 &&
	ok "  ... two blocking streams: stream 1 and the thread's default stream" || notok "  ... $(grep '"op":"stream"' "$TMPDIR/pt.jsonl")"
grep '"op":"kernel","name":"residual_norm"' "$TMPDIR/pt.jsonl" | grep -q '"stream":2' &&
	ok "  ... the check runs on it (stream 2)" || notok "  ... $(grep residual_norm "$TMPDIR/pt.jsonl")"
# cudaMalloc and cudaFree are on no stream: still 0.
[ "$(grep -c '"op":"alloc".*"stream"' "$TMPDIR/pt.jsonl")" = 0 ] && ok "  ... allocations stay on stream 0" ||
	notok "  ... $(grep '"op":"alloc"' "$TMPDIR/pt.jsonl")"
# A handle made again is another stream, with the flags of the call that made it this time.
cat >"$TMPDIR/reuse.jsonl" <<'J'
{"op":"stream","stream":1,"blocking":false}
{"op":"stream","stream":2,"blocking":true}
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"kernel","name":"k","write":["0x10000"],"stream":2}
J
run "two streams made with one handle" "$TMPDIR/reuse.gmprof" "$TMPDIR/reuse.jsonl" GMP_DOUBLE_STREAM_REUSE=1
"$GMPROF" dump "$TMPDIR/reuse.gmprof" | grep '"op":"stream"\|"op":"kernel"' | sed 's/,"thread".*//' >"$TMPDIR/reuse.out"
printf '%s\n' '{"op":"stream","stream":1,"blocking":false}' '{"op":"stream","stream":2,"blocking":true}' \
	'{"op":"kernel","name":"k","write":["0x10000"],"stream":2' | cmp -s - "$TMPDIR/reuse.out" &&
	ok "  ... two streams; the launch on the second, blocking one" || notok "  ... $(cat "$TMPDIR/reuse.out")"
# The collector collects a blocking stream's launches at a sync of the legacy stream, which waited
# for them: 40 launches on stream 1, 8 between syncs of stream 0, 10 launch buffers (GMPROF_POOL).
# With stream 1 non-blocking they wait until the buffers run out, the collector waits for the
# oldest (a stall on a GPU) and allocates more: it holds more device memory at most.
held() { sed -n 's/^double: .* \([0-9]*\) bytes held at most.*/\1/p' "$TMPDIR/pool_$1.err"; }
for how in true false; do
	{
		echo "{\"op\":\"stream\",\"stream\":1,\"blocking\":$how}"
		echo '{"op":"alloc","addr":"0x10000","size":4096}'
		for i in 1 2 3 4 5; do
			for j in 1 2 3 4 5 6 7 8; do echo '{"op":"kernel","name":"k","write":["0x10000"],"stream":1}'; done
			echo '{"op":"sync","stream":0}'
		done
		echo '{"op":"sync"}'
		echo '{"op":"free","addr":"0x10000"}'
	} >"$TMPDIR/pool_$how.jsonl"
	expect_exit 0 "40 launches on a stream made blocking=$how, a sync of stream 0 after every 8" -- \
		env GMP_DOUBLE_STATS=1 GMPROF_POOL=10 GMPROF_OUTPUT="$TMPDIR/pool_$how.gmprof" "$B/double/fake_app" "$TMPDIR/pool_$how.jsonl"
	cp "$TMPDIR/err" "$TMPDIR/pool_$how.err"
	[ "$("$GMPROF" dump "$TMPDIR/pool_$how.gmprof" | grep -c '"op":"kernel","name":"k","write":\["0x10000"\]')" = 40 ] &&
		ok "  ... every launch's access recorded" || notok "  ... $("$GMPROF" dump "$TMPDIR/pool_$how.gmprof" | grep -c '"op":"kernel"') kernels"
done
[ -n "$(held true)" ] && [ "$(held true)" -lt "$(held false)" ] &&
	ok "blocking: collected at the legacy stream's syncs, $(held true) bytes held at most ($(held false) non-blocking)" ||
	notok "held at most: $(cat "$TMPDIR/pool_true.err") / $(cat "$TMPDIR/pool_false.err")"
# The CPU benchmark's workload with blocking streams (gmprof-gen --legacy): as a profile and as a
# script, the same findings; the streams declared blocking, and the download on stream 0 after them.
"$B/gmprof-gen" --pool --legacy -n 20000 -o "$TMPDIR/gen.gmprof" && "$B/gmprof-gen" --pool --legacy -n 20000 --script -o "$TMPDIR/gen.jsonl" &&
	"$GMPROF" replay --format json "$TMPDIR/gen.gmprof" >"$TMPDIR/gen1.json" && "$GMPROF" replay --format json "$TMPDIR/gen.jsonl" >"$TMPDIR/gen2.json" &&
	cmp -s "$TMPDIR/gen1.json" "$TMPDIR/gen2.json" && [ "$("$GMPROF" dump "$TMPDIR/gen.gmprof" | grep -c '"op":"stream","stream":[1-4],"blocking":true')" = 4 ] &&
	ok "gmprof-gen --legacy: four blocking streams, the same findings from the profile and the script" ||
	notok "gmprof-gen --legacy"
finish
