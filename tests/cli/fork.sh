# SPDX-License-Identifier: MIT
# A process that forks after its CUDA work (a data loader's workers) and
# whose child exits without exec: the child writes nothing of the parent's
# profile (without the collector's fork handler its exit wrote the parent's
# buffered records a second time and damaged the file).  FAKE_APP_FORK=1,
# and =ranges for workers forked during NVTX ranges.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
S=tests/scripts/figure2.jsonl
events() { "$GMPROF" dump "$1" 2>&1 | grep -v '"meta"' | sed -E 's/,"(thread|time_ns)":[0-9]+//g'; }
expect_exit 0 "a run whose child forks and exits" -- env FAKE_APP_FORK=1 GMPROF_OUTPUT="$TMPDIR/fork.gmprof" "$B/double/fake_app" "$S"
! grep -q gmprof "$TMPDIR/err" && ok "  ... not a word from gmprof" || notok "  ... stderr: $(cat "$TMPDIR/err")"
expect_exit 0 "the same run without the fork" -- env GMPROF_OUTPUT="$TMPDIR/plain.gmprof" "$B/double/fake_app" "$S"
events "$TMPDIR/fork.gmprof" >"$TMPDIR/fork.jsonl"
events "$TMPDIR/plain.gmprof" >"$TMPDIR/plain.jsonl"
tail -1 "$TMPDIR/fork.jsonl" | grep -q '^{"op":"end"}$' && cmp -s "$TMPDIR/fork.jsonl" "$TMPDIR/plain.jsonl" &&
	ok "  ... the parent's profile intact: the events of the run without it, and one end" ||
	{ notok "  ... the profile"; diff "$TMPDIR/plain.jsonl" "$TMPDIR/fork.jsonl" | head -5; }
# Workers forked while another thread begins and ends NVTX ranges by id
# (the collector's lock of the process's ranges held at the fork, often):
# each worker begins and ends one of its own and exits.  Without the
# collector's fork handler resetting that lock, workers hang (the double
# kills them after 10 s).
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExt.h" ]; then
	expect_exit 0 "50 workers forked during NVTX ranges begun by id, none hung" -- \
		env FAKE_APP_FORK=ranges GMPROF_OUTPUT="$TMPDIR/ranges.gmprof" "$B/double/fake_app" "$S"
else
	echo "ok - skipped: workers forked during NVTX ranges (no nvtx3 headers: the test double has no NVTX)"
fi
finish
