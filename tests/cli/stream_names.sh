# SPDX-License-Identifier: MIT
# Streams named through NVTX (nvtxNameCudaStreamA/W, nvtxNameCuStreamA/W):
# the collector records each name as META stream.N.name for the stream's
# number; the Perfetto trace names the stream's track by it, and the reports
# each call's stream.  The test double names each stream a script's thread
# makes "nvtx-stream-K" (K the stream's number in the double: 100 per
# thread), the legacy default stream "nvtx-legacy" or, built per-thread,
# each thread's default stream "nvtx-default-BASE", by the four calls in
# turn, and (GMP_DOUBLE_NVTX_STREAM_NAMES=bogus) a handle that is no stream,
# which the collector says it did not record; or (=early), before the
# program's first CUDA call, the default streams.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
S=tests/scripts/simple_multi_copy.jsonl
if [ ! -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExtCudaRt.h" ]; then
	notok "the toolkit's nvtx3 headers are missing: the double cannot name streams"
	finish
fi
names() { # PROFILE: its streams' names as "N=NAME", sorted, on one line
	"$GMPROF" dump "$1" 2>/dev/null | sed -n 's/.*"key":"stream\.\([0-9]*\)\.name","value":"\([^"]*\)".*/\1=\2/p' | sort | tr '\n' ' '
}

rm -f "$TMPDIR/a.gmprof"
expect_exit 0 "streams named through NVTX" -- env GMP_DOUBLE_NVTX_STREAM_NAMES=bogus GMPROF_OUTPUT="$TMPDIR/a.gmprof" "$FAKE" "$S"
[ "$(names "$TMPDIR/a.gmprof")" = "0=nvtx-legacy 1=nvtx-stream-1 2=nvtx-stream-2 " ] &&
	ok "  ... each name under its stream's number, the legacy default stream's under 0" ||
	notok "  ... names: $(names "$TMPDIR/a.gmprof")"
expect_stderr_line "gmprof: NVTX named stream 0x7e570000, which is no stream the program made: the name is not recorded" \
	"  ... a handle that is no stream: said, not recorded"
expect_exit 0 "perfetto" -- "$GMPROF" perfetto -o "$TMPDIR/a.json" "$TMPDIR/a.gmprof"
for t in '"tid":2,"args":{"name":"nvtx-legacy (stream 0, legacy default)"}' '"tid":3,"args":{"name":"nvtx-stream-1 (stream 1)"}' \
	'"tid":4,"args":{"name":"nvtx-stream-2 (stream 2)"}'; do
	grep -qF "$t" "$TMPDIR/a.json" && ok "  ... track $t" || notok "  ... no track $t: $(grep -o '"thread_name"[^}]*' "$TMPDIR/a.json")"
done
# The reports name each call's stream as the program did.
expect_exit 0 "report" -- "$GMPROF" report "$TMPDIR/a.gmprof"
grep -q "^  device 0: [0-9.]* MiB at ALLOC (stream 0 'nvtx-legacy', #[0-9]*)" "$TMPDIR/out" &&
	grep -q "KERNEL incKernel (stream 1 'nvtx-stream-1', #[0-9]*)" "$TMPDIR/out" &&
	ok "  ... each call's stream by its name" || notok "  ... $(grep -m3 'stream [0-9]' "$TMPDIR/out")"
expect_exit 0 "report --format json" -- "$GMPROF" report --format json "$TMPDIR/a.gmprof"
grep -q '"stream":1,"stream_name":"nvtx-stream-1","ordinal"' "$TMPDIR/out" && ok "  ... a call's stream_name" ||
	notok "  ... $(grep -o '"stream":[0-9]*,[^,]*' "$TMPDIR/out" | sort -u | head -5)"
# Through an event script: the names are metadata, kept by dump and convert.
"$GMPROF" dump "$TMPDIR/a.gmprof" >"$TMPDIR/a.jsonl" 2>/dev/null
expect_exit 0 "convert back" -- "$GMPROF" convert -o "$TMPDIR/b.gmprof" "$TMPDIR/a.jsonl"
[ "$(names "$TMPDIR/b.gmprof")" = "$(names "$TMPDIR/a.gmprof")" ] && ok "  ... the names kept" || notok "  ... names: $(names "$TMPDIR/b.gmprof")"
"$GMPROF" perfetto -o "$TMPDIR/b.json" "$TMPDIR/a.jsonl" 2>/dev/null
grep -qF '"name":"nvtx-stream-2 (stream 2)"' "$TMPDIR/b.json" && ok "  ... and the script's trace names its tracks" ||
	notok "  ... the script's trace: $(grep -o '"thread_name"[^}]*' "$TMPDIR/b.json")"
# A name with a line break is written on one line (as \n); the unnamed streams keep their names.
printf '{"op":"meta","key":"stream.1.name","value":"copies\\n\\"h2d\\""}\n' >"$TMPDIR/c.jsonl"
grep -v '"key":"stream\.' "$TMPDIR/a.jsonl" >>"$TMPDIR/c.jsonl"
"$GMPROF" perfetto -o "$TMPDIR/c.json" "$TMPDIR/c.jsonl" 2>"$TMPDIR/err"
grep -qF '"tid":3,"args":{"name":"copies\\n\"h2d\" (stream 1)"}' "$TMPDIR/c.json" &&
	grep -qF '"tid":2,"args":{"name":"stream 0 (legacy default)"}' "$TMPDIR/c.json" &&
	grep -qF '"tid":4,"args":{"name":"stream 2"}' "$TMPDIR/c.json" && ok "a name made one line; unnamed streams as before" ||
	notok "a name made one line: $(cat "$TMPDIR/err") $(grep -o '"thread_name"[^}]*' "$TMPDIR/c.json")"
"$GMPROF" report "$TMPDIR/c.jsonl" >"$TMPDIR/c.rep" 2>"$TMPDIR/err"
grep -qF "(stream 1 'copies\\n\"h2d\"', #" "$TMPDIR/c.rep" && grep -q "(stream 2, #" "$TMPDIR/c.rep" &&
	grep -q "(stream 0, #" "$TMPDIR/c.rep" && ok "  ... in the report too" || notok "  ... $(grep -m3 '(stream' "$TMPDIR/c.rep")"
"$GMPROF" report --format json "$TMPDIR/c.jsonl" >"$TMPDIR/c.rep.json" 2>"$TMPDIR/err"
grep -q '"stream":2,"ordinal"' "$TMPDIR/c.rep.json" && ! grep -q '"stream":2,"stream_name"' "$TMPDIR/c.rep.json" &&
	ok "  ... and no stream_name for a stream named by none" || notok "  ... $(grep -o '"stream":2,[^,]*' "$TMPDIR/c.rep.json" | sort -u)"

# Two threads built per-thread: each names its own default stream (CU_STREAM_PER_THREAD)
# and its streams; each name is on a stream whose events are its thread's alone.
rm -f "$TMPDIR/p.gmprof"
expect_exit 0 "two threads, per-thread default streams" -- env GMP_DOUBLE_PER_THREAD=1 GMP_DOUBLE_NVTX_STREAM_NAMES=1 \
	GMPROF_OUTPUT="$TMPDIR/p.gmprof" "$FAKE" --threads 2 "$S"
n=$(names "$TMPDIR/p.gmprof" | tr ' ' '\n' | grep -c '=nvtx-\(default-[12]00\|stream-[12]0[12]\)$')
[ "$n" -eq 6 ] && ok "  ... 6 streams named" || notok "  ... names: $(names "$TMPDIR/p.gmprof")"
"$GMPROF" dump "$TMPDIR/p.gmprof" 2>/dev/null | awk '
	/"key":"stream\.[0-9]+\.name"/ { match($0, /stream\.[0-9]+/); s = substr($0, RSTART + 7, RLENGTH - 7)
		match($0, /-[0-9]+"}$/); base[s] = int(substr($0, RSTART + 1, RLENGTH - 3) / 100); next }
	/"stream":[0-9]+/ && /"thread":[0-9]+/ { match($0, /"stream":[0-9]+/); s = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"thread":[0-9]+/); th[s] = th[s] " " substr($0, RSTART + 9, RLENGTH - 9) }
	END { for (s in base) { split(th[s], a, " "); if (!(1 in a)) { bad = bad " stream " s " has no events"; continue }
			for (i in a) if (a[i] != a[1]) bad = bad " stream " s " used by two threads"
			if ((base[s] in owner) && owner[base[s]] != a[1]) bad = bad " base " base[s] " on two threads"
			owner[base[s]] = a[1] }
		n = 0; for (b in owner) n++
		if (n != 2) bad = bad " " n " threads, not 2"
		print bad }' >"$TMPDIR/bad"
[ ! -s "$TMPDIR/bad" ] || [ "$(cat "$TMPDIR/bad")" = "" ] && ok "  ... each thread's names on its own streams" ||
	notok "  ... $(cat "$TMPDIR/bad")"

# Named before the program's first CUDA call (NVTX loads the collector as its tool,
# which starts it): the legacy default stream and, built per-thread, the main thread's
# default stream, which its no-stream work then runs on (the script's stream 0 work).
rm -f "$TMPDIR/e.gmprof"
expect_exit 0 "default streams named before the first CUDA call" -- env GMP_DOUBLE_PER_THREAD=1 \
	GMP_DOUBLE_NVTX_STREAM_NAMES=early GMPROF_OUTPUT="$TMPDIR/e.gmprof" "$FAKE" "$S"
[ "$(names "$TMPDIR/e.gmprof")" = "0=early-legacy 1=early-default " ] && ok "  ... both names recorded" ||
	notok "  ... names: $(names "$TMPDIR/e.gmprof")"
on_default() { # PROFILE: the events on its thread's default stream (the one blocking stream: the script declares none)
	"$GMPROF" dump "$1" 2>/dev/null | awk '/"op":"stream".*"blocking":true/ { match($0, /"stream":[0-9]+/); d = substr($0, RSTART, RLENGTH) }
		d && index($0, d ",") && !/"op":"stream"/ { n++ } END { print n + 0 }'
}
rm -f "$TMPDIR/pt.gmprof"
env GMP_DOUBLE_PER_THREAD=1 GMPROF_OUTPUT="$TMPDIR/pt.gmprof" "$FAKE" "$S" 2>/dev/null
w=$(on_default "$TMPDIR/pt.gmprof")
n=$("$GMPROF" dump "$TMPDIR/e.gmprof" 2>/dev/null | grep -v '"op":"stream"' | grep -c '"stream":1,') # the one named
[ "$n" -gt 0 ] && [ "$n" -eq "$w" ] && ok "  ... the thread's default stream is the one its work ran on ($n events, as unnamed)" ||
	notok "  ... $n events on the named default stream, $w unnamed"

# Not NVTX's tool: no names, nothing said.
rm -f "$TMPDIR/n.gmprof"
expect_exit 0 "without NVTX's tool" -- env -u NVTX_INJECTION64_PATH GMP_DOUBLE_NVTX_STREAM_NAMES=1 \
	GMPROF_OUTPUT="$TMPDIR/n.gmprof" "$FAKE" "$S"
[ -z "$(names "$TMPDIR/n.gmprof")" ] && ! grep -q "NVTX named" "$TMPDIR/err" && ok "  ... no names" ||
	notok "  ... names: $(names "$TMPDIR/n.gmprof")"
finish
