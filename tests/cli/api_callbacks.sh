# SPDX-License-Identifier: MIT
# GMPROF_API_CALLBACKS=needed: the callbacks of runtime and driver calls
# that make no GPU work (cudaGetDevice, cudaGetLastError, cuCtxGetCurrent,
# ...) are turned off, id by id, as each id is first seen; the rest are
# taken as before.  The test double gives each function an id of its own
# and makes such calls around every event (GMP_DOUBLE_QUERIES: cudaGetDevice
# with cuCtxGetCurrent and cuCtxGetDevice inside it, cudaGetLastError, and
# cudaStreamQuery, which is not such a call); with GMP_DOUBLE_QUERIES_WAIT=1
# it waits after the first round until the collector has turned them off,
# so at most that round's callbacks of them come (an exit may not, when the
# flusher turned its id off after the enter).  The profile must hold the
# same events and findings either way.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
ROUNDS=5

# The double's count of API callbacks: "D N" (delivered, not delivered).
api_stats() {
	sed -n 's/^sanitizer double: api callbacks \([0-9]*\) delivered, \([0-9]*\) not .*/\1 \2/p' "$TMPDIR/err"
}
meta() {
	"$GMPROF" dump "$1" 2>/dev/null | sed -n "s/^{\"op\":\"meta\",\"key\":\"$2\",\"value\":\"\(.*\)\"}$/\1/p"
}
# A profile's events and findings without host times: its Perfetto trace on the topological axis.
trace() {
	"$GMPROF" perfetto --force --time topo -o "$TMPDIR/$2.json" "$1" 2>/dev/null &&
		grep -v '"metadata":' "$TMPDIR/$2.json" >"$TMPDIR/$2.trace"
}

for s in figure2 oom simple_multi_copy; do
	S=tests/scripts/$s.jsonl
	rm -f "$TMPDIR/base.gmprof" "$TMPDIR/all.gmprof" "$TMPDIR/needed.gmprof"
	expect_exit 0 "$s: runs without the calls" -- env GMP_DOUBLE_STATS=api GMPROF_OUTPUT="$TMPDIR/base.gmprof" "$FAKE" "$S"
	base=$(api_stats)
	expect_exit 0 "$s: runs with them, every callback taken" -- env GMP_DOUBLE_STATS=api GMP_DOUBLE_QUERIES=$ROUNDS \
		GMPROF_OUTPUT="$TMPDIR/all.gmprof" "$FAKE" "$S"
	all=$(api_stats)
	expect_exit 0 "$s: runs with them, GMPROF_API_CALLBACKS=needed" -- env GMP_DOUBLE_STATS=api GMP_DOUBLE_QUERIES=$ROUNDS \
		GMP_DOUBLE_QUERIES_WAIT=1 GMPROF_API_CALLBACKS=needed GMPROF_OUTPUT="$TMPDIR/needed.gmprof" "$FAKE" "$S"
	needed=$(api_stats)
	grep -q '^sanitizer double: api callbacks' "$TMPDIR/err" && ! grep -q 'API callback\|EnableCallback' "$TMPDIR/err" &&
		ok "$s: nothing said of API callbacks" || notok "$s: said $(cat "$TMPDIR/err")"
	# Each round is 10 callbacks, 8 of them of calls that make no GPU work: after the first round, none of those.
	# In the first round each of the four functions' enter comes (its id is learnt from it); its exit may not,
	# when the flusher turned the id off in between: 0 to 4 of those 8 callbacks are not delivered either.
	rounds=$(( (${all% *} - ${base% *}) / 10 ))
	lost=$(( ${needed#* } - 8 * (rounds - 1) ))
	[ "${all#* }" = 0 ] && [ "$rounds" -gt 1 ] && [ "$lost" -ge 0 ] && [ "$lost" -le 4 ] &&
		[ $((${needed% *} + ${needed#* })) = "${all% *}" ] &&
		ok "$s: the query calls' callbacks stop after the first round ($needed of $all, $rounds rounds)" ||
		notok "$s: callbacks delivered/not: base '$base', all '$all', needed '$needed'"
	[ "$(meta "$TMPDIR/needed.gmprof" api_callbacks)" = "${needed% *}" ] &&
		[ "$(meta "$TMPDIR/all.gmprof" api_callbacks)" = "${all% *}" ] &&
		ok "$s: META api_callbacks counts the callbacks taken" ||
		notok "$s: api_callbacks $(meta "$TMPDIR/needed.gmprof" api_callbacks) and $(meta "$TMPDIR/all.gmprof" api_callbacks)"
	[ "$(meta "$TMPDIR/needed.gmprof" api_callbacks_off)" = "cudaGetDevice,cuCtxGetCurrent,cuCtxGetDevice,cudaGetLastError" ] &&
		[ "$(meta "$TMPDIR/needed.gmprof" api_callbacks_late)" = 0 ] && [ -z "$(meta "$TMPDIR/all.gmprof" api_callbacks_off)" ] &&
		ok "$s: META api_callbacks_off names the four functions, none called after" ||
		notok "$s: api_callbacks_off '$(meta "$TMPDIR/needed.gmprof" api_callbacks_off)', late '$(meta "$TMPDIR/needed.gmprof" api_callbacks_late)'"
	trace "$TMPDIR/base.gmprof" base && trace "$TMPDIR/needed.gmprof" needed && trace "$TMPDIR/all.gmprof" all &&
		cmp -s "$TMPDIR/base.trace" "$TMPDIR/needed.trace" && cmp -s "$TMPDIR/base.trace" "$TMPDIR/all.trace" &&
		grep -q '"cat":"finding' "$TMPDIR/base.trace" &&
		ok "$s: the same events and findings, with or without the calls and their callbacks" ||
		notok "$s: the traces differ: $(diff "$TMPDIR/base.trace" "$TMPDIR/needed.trace" | head -4)"
done

# A Sanitizer whose API ids are not per function (every call id 1): the
# collector says so once, turns nothing off, and takes every callback.
rm -f "$TMPDIR/one.gmprof"
expect_exit 0 "ids not per function: the program runs" -- env GMP_DOUBLE_API_IDS=one GMP_DOUBLE_STATS=api \
	GMP_DOUBLE_QUERIES=$ROUNDS GMPROF_API_CALLBACKS=needed GMPROF_OUTPUT="$TMPDIR/one.gmprof" "$FAKE" tests/scripts/figure2.jsonl
one=$(api_stats)
[ "$(grep -c 'its ids are not per function, so GMPROF_API_CALLBACKS=needed takes every API callback' "$TMPDIR/err")" = 1 ] &&
	ok "ids not per function: said once" || notok "ids not per function: $(cat "$TMPDIR/err")"
[ "${one#* }" = 0 ] && [ "$(meta "$TMPDIR/one.gmprof" api_callbacks_off)" = none ] &&
	ok "ids not per function: every callback taken ($one)" || notok "ids not per function: '$one', off '$(meta "$TMPDIR/one.gmprof" api_callbacks_off)'"
trace "$TMPDIR/one.gmprof" one
rm -f "$TMPDIR/f2b.gmprof"
env GMPROF_OUTPUT="$TMPDIR/f2b.gmprof" "$FAKE" tests/scripts/figure2.jsonl 2>/dev/null && trace "$TMPDIR/f2b.gmprof" f2b &&
	cmp -s "$TMPDIR/one.trace" "$TMPDIR/f2b.trace" && ok "ids not per function: the same events and findings" ||
	notok "ids not per function: $(diff "$TMPDIR/one.trace" "$TMPDIR/f2b.trace" | head -4)"
finish
