# SPDX-License-Identifier: MIT
# The collector against the detector on random workloads: gmprof-gen's
# training loops (several streams, events, syncs, stream-ordered
# temporaries, pools, NVTX ranges, blocking streams; a new seed each run,
# printed: COLLECTOR_SEED reproduces) replayed through the test double into
# the collector, as plain launches, as graph launches, harvested after each
# launch, with every GMPROF_FALLBACK and with per-thread default streams.
# Each profile's findings must equal those of the script itself, field by
# field (source locations aside, which do not travel through callbacks, and
# the memory pools' high-water marks, which the double's pool model adds).
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"
SEED=${COLLECTOR_SEED:-$(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') + 1))}
RUNS=${COLLECTOR_RUNS:-16}
echo "# seed $SEED, $RUNS runs (COLLECTOR_SEED=$SEED reproduces)"

# findings FILE: its replay as JSON, without the lines that name source
# locations and without the memory_pools objects.
findings() {
	"$GMPROF" replay --format json --pretty "$1" 2>"$TMPDIR/replay.err" | grep -v '"at": ' |
		awk '/"memory_pools": \{/ { skip = 1; match($0, /^ */); ind = RLENGTH; next }
		     skip { match($0, /^ */); if (RLENGTH == ind && $0 ~ /^ *\},?$/) skip = 0; next } { print }'
}

# gmprof-gen's options ; the collector's or the double's setting
set -- "|" "--legacy|" "--pool --ranges|" "--streams 6 --objects 200|GMP_DOUBLE_GRAPH=1" \
	"--legacy --times|GMP_DOUBLE_GRAPH=1" "--ranges|GMPROF_HARVEST=launch" "--streams 1|GMPROF_FALLBACK=all" \
	"--pool|GMP_DOUBLE_PER_THREAD=1"
nconf=$#
bad=0 i=0
while [ "$i" -lt "$RUNS" ]; do
	s=$((SEED + i))
	k=$((i % nconf + 1))
	eval "conf=\${$k}"
	opts=${conf%%|*} setting=${conf#*|}
	n=$((3000 + s % 4 * 1000))
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$B/gmprof-gen" -n "$n" -s "$s" $opts --script -o "$TMPDIR/g.jsonl" >/dev/null ||
		{ notok "gmprof-gen -s $s $opts"; continue; }
	sed -E 's/,"label":"[^"]*"//; s/,"at":"[^"]*"//' "$TMPDIR/g.jsonl" >"$TMPDIR/p.jsonl"
	rm -f "$TMPDIR/p.gmprof"
	# shellcheck disable=SC2086
	env $setting GMPROF_OUTPUT="$TMPDIR/p.gmprof" "$FAKE" "$TMPDIR/p.jsonl" >/dev/null 2>"$TMPDIR/err"
	rc=$?
	findings "$TMPDIR/p.jsonl" >"$TMPDIR/want"
	findings "$TMPDIR/p.gmprof" >"$TMPDIR/got"
	if [ "$rc" -ne 0 ] || [ -s "$TMPDIR/replay.err" ] || [ ! -s "$TMPDIR/want" ] ||
		! diff -u "$TMPDIR/want" "$TMPDIR/got" >"$TMPDIR/diff"; then
		bad=$((bad + 1))
		notok "seed $s, gmprof-gen -n $n $opts, ${setting:-plain launches}: exit $rc $(cat "$TMPDIR/err" "$TMPDIR/replay.err" | head -3)"
		head -30 "$TMPDIR/diff"
		cp "$TMPDIR/p.jsonl" "$TMPDIR/failed-$s.jsonl"
	fi
done
[ "$bad" -eq 0 ] && ok "$RUNS random workloads through the collector: each profile's findings equal its script's" ||
	notok "$bad of $RUNS random workloads differ (seeds from $SEED; scripts kept as failed-SEED.jsonl)"
finish
