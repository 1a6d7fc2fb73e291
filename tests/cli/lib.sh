# SPDX-License-Identifier: MIT
# Helpers for the command-line tests: each check prints "ok - NAME" or
# "not ok - NAME" and the script exits non-zero at the end if any failed.
: "${GMPROF:?GMPROF must name the gmprof binary}"
: "${TMPDIR:=/tmp}"
failed=0
# LeakSanitizer's exit-time tracer (GCC 12's runtime) can crash reading a
# dynamic-TLS block it recorded with a bogus address (a library the program
# dlopen'ed: the collector, the Sanitizer double), "Tracer caught signal 11"
# after the program ran to its end; valgrind finds nothing wrong in the
# same run.  Without its __tls_get_addr interception it records none.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0
export ASAN_OPTIONS
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; failed=1; }
# expect_exit CODE NAME -- CMD...: runs CMD, checks its status, keeps stderr in $err.
expect_exit() {
	_want=$1; _name=$2; shift 3
	"$@" >"$TMPDIR/out" 2>"$TMPDIR/err"
	_got=$?
	err=$(cat "$TMPDIR/err")
	if [ "$_got" -eq "$_want" ]; then ok "$_name"; else notok "$_name (exit $_got, want $_want): $err"; fi
}
# expect_stderr_line PATTERN NAME: stderr is exactly one line matching PATTERN.
expect_stderr_line() {
	_n=$(wc -l <"$TMPDIR/err")
	if [ "$_n" -eq 1 ] && grep -q -- "$1" "$TMPDIR/err"; then ok "$2"; else notok "$2: $(cat "$TMPDIR/err")"; fi
}
finish() { exit "$failed"; }
# ways_script OUT: four NVTX ranges nested, then popped one by one, an
# allocation in each state (ranges.sh, nvtx_domains.sh: the double pushes
# each of the four a way of its own).
ways_script() {
	{
		for _r in a b c d; do
			echo "{\"op\":\"range_push\",\"name\":\"$_r\"}"
			echo "{\"op\":\"alloc\",\"addr\":\"0x${_r}0000\",\"size\":4096}"
		done
		echo '{"op":"range_pop"}'
		echo '{"op":"alloc","addr":"0xe0000","size":4096}'
		echo '{"op":"range_pop"}'
		echo '{"op":"alloc","addr":"0xf0000","size":4096}'
		echo '{"op":"range_pop"}'
		echo '{"op":"range_pop"}'
		echo '{"op":"alloc","addr":"0x100000","size":4096}'
	} >"$1"
}
# kept_at IN OUT: a training-loop script (nvtx_loop*.jsonl) with its kept buffers allocated at train.cu:42.
kept_at() { sed 's/"label":"kept\([0-9]\)"/"label":"kept\1","at":"train.cu:42"/' "$1" >"$2"; }
# use_double DIR [PATCH]: the collector in DIR drives the Sanitizer test double
# there (and is NVTX's tool); PATCH stands in for the device patches.
use_double() {
	GMPROF_COLLECTOR=$1/libgmprof.so GMPROF_SANITIZER_LIB=$1/double/libsanitizer-public.so
	GMPROF_DOUBLE=$GMPROF_SANITIZER_LIB GMPROF_PATCH=${2:-$1/double/patches.fatbin} GMPROF_SUMMARY=0
	NVTX_INJECTION64_PATH=$GMPROF_COLLECTOR
	export GMPROF_COLLECTOR GMPROF_SANITIZER_LIB GMPROF_DOUBLE GMPROF_PATCH GMPROF_SUMMARY NVTX_INJECTION64_PATH
}
# A profile's kernel events as a script writes them (no thread, no time, no
# graph launch number); with "touches", the touches alone (reads and writes
# left out).
kernels_of() {
	"$GMPROF" dump "$1" 2>/dev/null | grep '"kernel"' | sed -E 's/,"thread":[0-9]+,"time_ns":[0-9]+//; s/,"graph":[0-9]+//' |
		if [ "${2:-}" = touches ]; then sed -E 's/"(read|write)":\[[^]]*\],//g'; else cat; fi
}
# same_findings PROFILE SCRIPT: replay finds the script's findings in the
# profile of a collector run through the test double (names aside: the
# double gives its objects no labels); leaves them in $TMPDIR/want and got.
same_findings() {
	"$GMPROF" replay "$2" 2>/dev/null | grep '^ *[0-9]*\. ' | sed -E 's/: [^ ]+ \(/: (/' >"$TMPDIR/want"
	"$GMPROF" replay "$1" 2>/dev/null | grep '^ *[0-9]*\. ' | sed -E 's/: [^ ]+ \(/: (/' >"$TMPDIR/got"
	[ -s "$TMPDIR/want" ] && cmp -s "$TMPDIR/want" "$TMPDIR/got"
}
# same_kernels NAME PROFILE SCRIPT COUNT [touches]: the profile's COUNT kernel
# events are the script's (a collector run through the test double).
same_kernels() {
	kernels_of "$2" "${5:-}" >"$TMPDIR/kernels.got"
	grep '"kernel"' "$3" >"$TMPDIR/kernels.want"
	[ "$(wc -l <"$TMPDIR/kernels.want")" -eq "$4" ] && cmp -s "$TMPDIR/kernels.got" "$TMPDIR/kernels.want" &&
		ok "$1" || { notok "$1"; diff "$TMPDIR/kernels.want" "$TMPDIR/kernels.got" | head -10; }
}
# maps_rounds ROUNDS FILE: a script of ROUNDS rounds of four 1 MiB buffers
# (96 KiB of intra maps each: read through the pinned staging buffer),
# each touched by a launch on stream 1 or 2, a sync of stream 1, the frees
# (the test double's GMP_DOUBLE_FREE_SYNCS collects at each); a launch's
# touch is 64 KiB, which touched_launches counts.
maps_rounds() {
	awk -v rounds="$1" 'BEGIN { for (r = 0; r < rounds; r++) {
		for (i = 0; i < 4; i++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":1048576}\n", 16777216 + 1048576 * i
		for (i = 0; i < 4; i++) printf "{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":\"0x%x\",\"size\":65536,\"rw\":\"rw\"}],\"stream\":%d}\n", 16777216 + 1048576 * i, 1 + i % 2
		print "{\"op\":\"sync\",\"stream\":1}"
		for (i = 0; i < 4; i++) printf "{\"op\":\"free\",\"addr\":\"0x%x\"}\n", 16777216 + 1048576 * i } }' >"$2"
}
# touched_launches PROFILE: its launches that kept maps_rounds' 64 KiB touch.
touched_launches() {
	"$GMPROF" dump "$1" 2>/dev/null | grep '"op":"kernel"' | grep -c '"touch":\[{"addr":"0x[0-9a-f]*","size":65536,"rw":"rw"}\]'
}
# unseen_read_script FILE: objects A (0x10000) and B (0x20000); A uploaded,
# then read by kernel k in a way no device patch sees (through a texture or
# a tensor map: the script leaves that read out); B written by k and
# downloaded; k2 after A's free.
unseen_read_script() {
	cat >"$1" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"alloc","addr":"0x20000","size":4096}
{"op":"memcpy","dst":"0x10000","size":4096}
{"op":"kernel","name":"k","write":["0x20000"]}
{"op":"memcpy","src":"0x20000","size":4096}
{"op":"sync"}
{"op":"free","addr":"0x10000"}
{"op":"kernel","name":"k2","write":["0x20000"]}
{"op":"sync"}
{"op":"free","addr":"0x20000"}
J
}
