# SPDX-License-Identifier: MIT
# gmprof flamegraph: a run's bytes by allocation call path.  The folded
# stacks of every script and recorded profile add up to what the other
# outputs say (each device's largest peak, the leaked bytes a check counts,
# every allocated byte); recorded call paths read as source lines, cut at
# --alloc-fn wrappers; several inputs and devices get frames of their own;
# the SVG is well-formed XML; bad uses get one sentence and status 2.
. tests/cli/lib.sh
S=tests/scripts
D=tests/data/gpu
P=$D/simple_multi_copy.gmprof
sum() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }
# The sum of each device's "peak_bytes" in the pretty JSON of `replay` (indented under "devices").
json_peaks() {
	"$GMPROF" replay --format json --pretty "$1" | awk '/^  "devices": \[/ { in_dev = 1 } /^  \]/ { in_dev = 0 }
		in_dev && /^      "peak_bytes": / { gsub(/,/, ""); s += $2 } END { printf "%.0f\n", s }'
}

# Likewise each device's peak of bytes in use, where pools have regions, else its peak.
json_in_use() {
	"$GMPROF" replay --format json --pretty "$1" | awk '/^  "devices": \[/ { in_dev = 1 } /^  \]/ { in_dev = 0 }
		in_dev && /^      "peak_bytes": / { gsub(/,/, ""); p = $2; s += p }
		in_dev && /^      "inuse_peak_bytes": / { gsub(/,/, ""); s += $2 - p } END { printf "%.0f\n", s }'
}

# Every script and recorded profile: the folded bytes are the peaks' and the leaks'.
for s in $S/*.jsonl $D/*.gmprof; do
	name=$(basename "$s")
	"$GMPROF" flamegraph "$s" >"$TMPDIR/peak.folded" 2>"$TMPDIR/err" || notok "flamegraph $name: $(cat "$TMPDIR/err")"
	got=$(sum "$TMPDIR/peak.folded") want=$(json_peaks "$s")
	[ "$got" = "$want" ] && ok "$name: the peak's folded bytes are its peak ($want)" ||
		notok "$name: the peak's folded bytes $got, its peak $want"
	# Every line: frames, a space, a positive count; no empty frame.
	bad=$(grep -cvE '^[^;]+(;[^;]+)* [1-9][0-9]*$' "$TMPDIR/peak.folded")
	[ "$bad" -eq 0 ] && ok "  ... each line is frames and bytes" || notok "  ... $bad lines are not frames and bytes"
	"$GMPROF" flamegraph --at in-use "$s" >"$TMPDIR/inuse.folded"
	[ "$(sum "$TMPDIR/inuse.folded")" = "$(json_in_use "$s")" ] && ok "  ... --at in-use: its peak of bytes in use" ||
		notok "  ... --at in-use: $(sum "$TMPDIR/inuse.folded"), its peak in use $(json_in_use "$s")"
	"$GMPROF" flamegraph --at leaked "$s" >"$TMPDIR/leak.folded"
	leaked=$("$GMPROF" baseline "$s" | sed -n 's/.*"leaked_bytes": \([0-9]*\).*/\1/p')
	[ "$(sum "$TMPDIR/leak.folded")" = "$leaked" ] && ok "  ... its leaked folded bytes are the baseline's ($leaked)" ||
		notok "  ... leaked folded bytes $(sum "$TMPDIR/leak.folded"), the baseline's $leaked"
done

# Which objects: a leaked pool counts once (its regions are inside it); all allocated bytes.
expect_exit 0 "--at leaked of a leaked pool with regions" -- "$GMPROF" flamegraph --at leaked --objects $S/pool_leaked.jsonl
[ "$(cat "$TMPDIR/out")" = "alloc.cu:10;pool 1048576" ] && ok "  ... the pool alone" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "--at allocated: pools whole, not their regions" -- "$GMPROF" flamegraph --at allocated $S/pool_leaked.jsonl
printf 'alloc.cu:10 1048576\nalloc.cu:11 262144\n' | cmp -s - "$TMPDIR/out" && ok "  ... both pools" || notok "  ... $(cat "$TMPDIR/out")"

# In use: a pool with regions counts by its live regions at the peak of bytes in use.
expect_exit 0 "--at in-use --objects of a pool with regions" -- "$GMPROF" flamegraph --at in-use --objects $S/pool_regions.jsonl
printf 'model.cu:20;x 65536\nmodel.cu:21;w 65536\nmodel.cu:22;scratch 4096\n' | cmp -s - "$TMPDIR/out" &&
	ok "  ... its three regions, 132 KiB, not the 1 MiB pool" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "  ... its HTML report draws both" -- "$GMPROF" html $S/pool_regions.jsonl
grep -q '<title>Device 0: 1.0 MiB live at its largest peak, by allocation call path</title>' "$TMPDIR/out" &&
	grep -q '<title>Device 0: 132.0 KiB in use at its peak of bytes in use, by allocation call path</title>' "$TMPDIR/out" &&
	ok "  ... the peak and the peak in use" || notok "  ... the peak and the peak in use"

# NVTX ranges as frames above the call path, objects below it; --ranges keeps some.
expect_exit 0 "--nvtx --objects" -- "$GMPROF" flamegraph --nvtx --objects $S/nvtx_ranges.jsonl
cat >"$TMPDIR/want" <<'F'
setup;train.cu:10;weights 268435456
setup;train.cu:11;adam_m 268435456
setup;train.cu:12;adam_v 268435456
step;backward;model.cu:30;grads 268435456
step;forward;model.cu:20;act1 134217728
step;forward;model.cu:21;act2 134217728
F
diff -u "$TMPDIR/want" "$TMPDIR/out" >"$TMPDIR/diff" && ok "  ... ranges, sites and objects, in order" || { notok "  ... as expected"; cat "$TMPDIR/diff"; }
expect_exit 0 "--ranges 'step > *'" -- "$GMPROF" flamegraph --ranges 'step > *' $S/nvtx_ranges.jsonl
printf 'model.cu:20 134217728\nmodel.cu:21 134217728\nmodel.cu:30 268435456\n' | cmp -s - "$TMPDIR/out" &&
	ok "  ... only what the step allocated" || notok "  ... $(cat "$TMPDIR/out")"

# The same tree as text, for a terminal or a CI log; --threshold counts the small frames.
expect_exit 0 "--format tree --nvtx --threshold 15" -- "$GMPROF" flamegraph --format tree --nvtx --threshold 15 $S/nvtx_ranges.jsonl
cat >"$TMPDIR/want" <<'F'
1.2 GiB live at device 0's largest peak, by allocation call path
  share       bytes  call path
 100.0%     1.2 GiB  all
  60.0%   768.0 MiB    setup
  20.0%   256.0 MiB      train.cu:10
  20.0%   256.0 MiB      train.cu:11
  20.0%   256.0 MiB      train.cu:12
  40.0%   512.0 MiB    step
  20.0%   256.0 MiB      backward
  20.0%   256.0 MiB        model.cu:30
  20.0%   256.0 MiB      forward
  20.0%   256.0 MiB        (2 more, each under the threshold)
F
diff -u "$TMPDIR/want" "$TMPDIR/out" >"$TMPDIR/diff" && ok "  ... the widest first, the small ones counted" || { notok "  ... as expected"; cat "$TMPDIR/diff"; }
expect_exit 2 "--threshold 120" -- "$GMPROF" flamegraph --format tree --threshold 120 $S/nvtx_ranges.jsonl
expect_stderr_line "bad threshold '120'" "  ... says so"

# A recorded profile's call paths, from its binary's DWARF; --alloc-fn cuts the wrapper off.
# (The binary was built in the GPU machine's checkout: its source paths are cut to the tree's.)
in_tree() { sed 's|([^ ()]*/benchmarks/cuda/|(benchmarks/cuda/|g' "$TMPDIR/out"; }
expect_exit 0 "a recorded profile with its binary" -- "$GMPROF" flamegraph --symbols $D/bin $P
cat >"$TMPDIR/want" <<'F'
main (benchmarks/cuda/simple_multi_copy.cu:40);bench_malloc<int> (benchmarks/cuda/bench.h:55) [inlined];cudaMalloc 134217728
main (benchmarks/cuda/simple_multi_copy.cu:42);bench_malloc<int> (benchmarks/cuda/bench.h:55) [inlined];cudaMalloc 134217728
F
in_tree | diff -u "$TMPDIR/want" - >"$TMPDIR/diff" && ok "  ... main's two lines, the wrapper, the API" || { notok "  ... as expected"; cat "$TMPDIR/diff"; }
expect_exit 0 "--alloc-fn 'bench_malloc*' --objects" -- "$GMPROF" flamegraph --symbols $D/bin --alloc-fn 'bench_malloc*' --objects $P
cat >"$TMPDIR/want" <<'F'
main (benchmarks/cuda/simple_multi_copy.cu:40);obj#1 67108864
main (benchmarks/cuda/simple_multi_copy.cu:40);obj#3 67108864
main (benchmarks/cuda/simple_multi_copy.cu:42);obj#2 67108864
main (benchmarks/cuda/simple_multi_copy.cu:42);obj#4 67108864
F
in_tree | diff -u "$TMPDIR/want" - >"$TMPDIR/diff" && ok "  ... the callers end the paths" || { notok "  ... as expected"; cat "$TMPDIR/diff"; }

# Several inputs: a frame per input; several devices: a frame per device, each at its own peak.
expect_exit 0 "two inputs" -- "$GMPROF" flamegraph $S/figure2.jsonl $S/nvtx_ranges.jsonl
[ "$(grep -c "^$S/figure2.jsonl;" "$TMPDIR/out")" -ge 1 ] && [ "$(grep -c "^$S/nvtx_ranges.jsonl;" "$TMPDIR/out")" -ge 1 ] &&
	[ "$(grep -vc "^$S/" "$TMPDIR/out")" -eq 0 ] && ok "  ... each path under its input" || notok "  ... $(cat "$TMPDIR/out")"
cat >"$TMPDIR/two.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096,"label":"a","at":"a.cu:1"}
{"op":"alloc","addr":"0x20000","size":8192,"label":"b","at":"a.cu:2","device":1}
{"op":"free","addr":"0x10000","at":"a.cu:3"}
{"op":"alloc","addr":"0x30000","size":1024,"label":"c","at":"a.cu:4","device":1}
{"op":"end"}
J
expect_exit 0 "two devices" -- "$GMPROF" flamegraph $TMPDIR/two.jsonl
printf 'device 0;a.cu:1 4096\ndevice 1;a.cu:2 8192\ndevice 1;a.cu:4 1024\n' | cmp -s - "$TMPDIR/out" &&
	ok "  ... a frame per device" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "--device 1" -- "$GMPROF" flamegraph --device 1 $TMPDIR/two.jsonl
printf 'a.cu:2 8192\na.cu:4 1024\n' | cmp -s - "$TMPDIR/out" && ok "  ... its objects alone" || notok "  ... $(cat "$TMPDIR/out")"

# --diff BEFORE AFTER: both runs' bytes per path, as difffolded.pl writes them;
# each column adds up to its run's peak.  Figure 2 with B twice the size.
sed 's/"size":1048576/"size":2097152/' $S/figure2.jsonl >"$TMPDIR/fig2big.jsonl"
expect_exit 0 "--diff" -- "$GMPROF" flamegraph --diff $S/figure2.jsonl "$TMPDIR/fig2big.jsonl"
printf 'fig2.cu:10 8192 8192\nfig2.cu:12 1048576 2097152\nfig2.cu:13 4096 4096\n' | cmp -s - "$TMPDIR/out" &&
	ok "  ... a line per path with both counts" || notok "  ... $(cat "$TMPDIR/out")"
for pair in "$S/figure2.jsonl $S/figure3.jsonl" "$D/three_mm.gmprof $D/darknet_layer.gmprof" "$P $D/laghos_state.gmprof"; do
	set -- $pair
	"$GMPROF" flamegraph --diff "$1" "$2" >"$TMPDIR/diff.folded"
	a=$(awk '{ s += $(NF - 1) } END { printf "%.0f\n", s }' "$TMPDIR/diff.folded")
	b=$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$TMPDIR/diff.folded")
	[ "$a" = "$(json_peaks "$1")" ] && [ "$b" = "$(json_peaks "$2")" ] &&
		ok "--diff $(basename "$1") $(basename "$2"): the columns are the two peaks ($a, $b)" ||
		notok "--diff $(basename "$1") $(basename "$2"): columns $a $b, peaks $(json_peaks "$1") $(json_peaks "$2")"
	bad=$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+ [0-9]+$' "$TMPDIR/diff.folded")
	[ "$bad" -eq 0 ] && ok "  ... each line is frames and two counts" || notok "  ... $bad lines are not"
done
expect_exit 0 "--diff as SVG" -- "$GMPROF" flamegraph --diff --format svg $S/figure2.jsonl "$TMPDIR/fig2big.jsonl"
grep -q "<title>Bytes live at device 0&#39;s largest peak, by allocation call path: 1.0 MiB before, 2.0 MiB after (+1.0 MiB); red grew, blue shrank</title>" "$TMPDIR/out" &&
	grep -q '<title>fig2.cu:12: 1.0 MiB before, 2.0 MiB after (+1.0 MiB, +100.0%)</title><rect [^>]*fill="rgb(255,133,133)"' "$TMPDIR/out" &&
	ok "  ... titled; the grown path red, with both sizes" || notok "  ... $(grep -c '<title>' "$TMPDIR/out") titles"
cp "$TMPDIR/out" "$TMPDIR/diff.svg"
expect_exit 2 "--diff of one input" -- "$GMPROF" flamegraph --diff $S/figure2.jsonl
expect_stderr_line "\-\-diff compares two inputs, BEFORE and AFTER (1 given)" "  ... says it takes two"
expect_exit 2 "--diff of three inputs" -- "$GMPROF" flamegraph --diff $S/figure2.jsonl $S/figure2.jsonl $S/figure2.jsonl
expect_stderr_line "(3 given)" "  ... says how many it got"

# SVG: by the file's name or --format; well-formed; the title says what and how much.
expect_exit 0 "-o peak.svg" -- "$GMPROF" flamegraph --symbols $D/bin -o "$TMPDIR/peak.svg" $P
head -1 "$TMPDIR/peak.svg" | grep -q '^<?xml ' && grep -q "<title>256.0 MiB live at device 0&#39;s largest peak, by allocation call path</title>" \
	"$TMPDIR/peak.svg" && ok "  ... an SVG file with its title" || notok "  ... an SVG file with its title"
[ "$(grep -c '<rect ' "$TMPDIR/peak.svg")" -eq 7 ] && ok "  ... the root and six frames" || notok "  ... $(grep -c '<rect ' "$TMPDIR/peak.svg") rects"
expect_exit 0 "--format svg to standard output, --at leaked --nvtx, two inputs" -- "$GMPROF" flamegraph --format svg --at leaked \
	--nvtx --width 640 $S/pool_leaked.jsonl $S/nvtx_ranges.jsonl
grep -q '<title>1.0 MiB leaked on device 0 of 2 inputs, by allocation call path</title>' "$TMPDIR/out" && grep -q 'width="640"' "$TMPDIR/out" &&
	ok "  ... titled, 640 pixels wide" || notok "  ... $(head -3 "$TMPDIR/out")"
cp "$TMPDIR/out" "$TMPDIR/leaks.svg"
XMLLINT=$(command -v xmllint || true)
if [ -z "$XMLLINT" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libxml2-utils >/dev/null 2>&1 ||
	{ DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libxml2-utils >/dev/null 2>&1; }
	XMLLINT=$(command -v xmllint || true)
fi
if [ -n "$XMLLINT" ]; then
	for f in peak leaks diff; do
		"$XMLLINT" --noout "$TMPDIR/$f.svg" 2>"$TMPDIR/err" && ok "  ... $f.svg is well-formed XML" || notok "  ... $f.svg: $(head -3 "$TMPDIR/err")"
	done
	printf '<svg><title>a < b</title></svg>\n' >"$TMPDIR/bad.svg"
	"$XMLLINT" --noout "$TMPDIR/bad.svg" 2>/dev/null && notok "xmllint rejects an unescaped '<'" || ok "xmllint rejects an unescaped '<'"
else
	echo "ok - skipped: xmllint is not installed and cannot be installed here"
fi
# A run that allocated nothing: nothing folded; an SVG that says 0 B.
printf '{"op":"end"}\n' >"$TMPDIR/empty.jsonl"
expect_exit 0 "a run that allocated nothing" -- "$GMPROF" flamegraph "$TMPDIR/empty.jsonl"
[ ! -s "$TMPDIR/out" ] && ok "  ... no stacks" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "  ... as SVG" -- "$GMPROF" flamegraph --format svg "$TMPDIR/empty.jsonl"
grep -q "<title>0 B live at each device&#39;s largest peak, by allocation call path</title>" "$TMPDIR/out" &&
	[ "$(grep -c '<rect ' "$TMPDIR/out")" -eq 0 ] && ok "  ... titled 0 B, no frame" || notok "  ... $(head -3 "$TMPDIR/out")"
# The HTML report draws each device's largest peak by call path.
expect_exit 0 "html with the peak's flame graph" -- "$GMPROF" html --symbols $D/bin $P
grep -q '<title>Device 0: 256.0 MiB live at its largest peak, by allocation call path</title>' "$TMPDIR/out" &&
	grep -q 'bench_malloc&lt;int&gt; ([^)]*/benchmarks/cuda/bench.h:55)' "$TMPDIR/out" && ok "  ... titled, with the wrapper's frame" || notok "  ... no flame graph"

# Bad uses: one sentence, status 2, nothing written.
expect_exit 2 "--at sometime" -- "$GMPROF" flamegraph --at sometime $P
expect_stderr_line "'--at sometime': expected peak, in-use, leaked, allocated, range:PATH, kept:PATH, mark:NAME or mark-kept:NAME" \
	"  ... says what --at takes"
expect_exit 2 "--format png" -- "$GMPROF" flamegraph --format png $P
expect_stderr_line "unknown format 'png' (folded, svg or tree)" "  ... names the format and the ones there are"
expect_exit 2 "--width 20" -- "$GMPROF" flamegraph --width 20 $P
expect_stderr_line "bad width '20'" "  ... names the width"
expect_exit 2 "--device 3 of a run on device 0" -- "$GMPROF" flamegraph -o "$TMPDIR/none.folded" --device 3 $P
expect_stderr_line "no input allocated memory on device 3" "  ... says so"
[ ! -e "$TMPDIR/none.folded" ] && ok "  ... and writes nothing" || notok "  ... and writes nothing"
expect_exit 2 "an input that is not there" -- "$GMPROF" flamegraph -o "$TMPDIR/none.folded" "$TMPDIR/nope.gmprof"
expect_stderr_line "nope.gmprof" "  ... names it"
[ ! -e "$TMPDIR/none.folded" ] && ok "  ... and writes nothing" || notok "  ... and writes nothing"
expect_exit 2 "an unwritable output" -- "$GMPROF" flamegraph -o "$TMPDIR/no/such/dir/x.folded" $P
expect_stderr_line "x.folded" "  ... names it"
echo old >"$TMPDIR/exists.folded"
expect_exit 2 "an existing output without --force" -- "$GMPROF" flamegraph -o "$TMPDIR/exists.folded" $P
[ "$(cat "$TMPDIR/exists.folded")" = old ] && ok "  ... left as it was" || notok "  ... left as it was"
# --at range:PATH: what was live at an NVTX range's peak (the first call inside it to reach it).
expect_exit 0 "--at 'range:step > forward' --format tree --objects" -- "$GMPROF" flamegraph --at 'range:step > forward' \
	--format tree --objects $S/nvtx_ranges.jsonl
printf '%s\n' "1.0 GiB live at the peak of NVTX range 'step > forward' on device 0, by allocation call path" \
	"  share       bytes  call path" \
	" 100.0%     1.0 GiB  all" \
	"  25.0%   256.0 MiB    train.cu:10" "  25.0%   256.0 MiB      weights" \
	"  25.0%   256.0 MiB    train.cu:11" "  25.0%   256.0 MiB      adam_m" \
	"  25.0%   256.0 MiB    train.cu:12" "  25.0%   256.0 MiB      adam_v" \
	"  12.5%   128.0 MiB    model.cu:20" "  12.5%   128.0 MiB      act1" \
	"  12.5%   128.0 MiB    model.cu:21" "  12.5%   128.0 MiB      act2" >"$TMPDIR/fw.want"
diff -u "$TMPDIR/fw.want" "$TMPDIR/out" >"$TMPDIR/diff" && ok "  ... setup's three and forward's two activations" ||
	{ notok "  ... the forward peak"; cat "$TMPDIR/diff"; }
expect_exit 0 "--at 'range:step > optimizer'" -- "$GMPROF" flamegraph --at 'range:step > optimizer' $S/nvtx_ranges.jsonl
[ "$(sort "$TMPDIR/out" | tr '\n' ' ')" = "model.cu:30 268435456 train.cu:10 268435456 train.cu:11 268435456 train.cu:12 268435456 " ] &&
	ok "  ... the activations freed, the gradients live" || notok "  ... $(cat "$TMPDIR/out")"
# Two devices: each device's objects at the range's peak on that device.
cat >"$TMPDIR/two.jsonl" <<'J'
{"op":"alloc","addr":65536,"size":1024,"at":"w.cu:1"}
{"op":"range_push","name":"step"}
{"op":"alloc","addr":131072,"size":4096,"at":"t.cu:2"}
{"op":"free","addr":131072}
{"op":"alloc","addr":196608,"size":8192,"device":1,"at":"d.cu:3"}
{"op":"kernel","name":"k","write":[196608],"device":1}
{"op":"free","addr":196608,"device":1}
{"op":"range_pop"}
{"op":"free","addr":65536}
J
expect_exit 0 "--at range:step on two devices" -- "$GMPROF" flamegraph --at range:step "$TMPDIR/two.jsonl"
[ "$(sort "$TMPDIR/out" | tr '\n' ' ')" = "device 0;t.cu:2 4096 device 0;w.cu:1 1024 device 1;d.cu:3 8192 " ] &&
	ok "  ... each device at its own peak inside the range" || notok "  ... $(cat "$TMPDIR/out")"
# A pool with regions: the pool counts whole at the range's peak, as peaks count it, not its regions too.
cat >"$TMPDIR/poolr.jsonl" <<'J'
{"op":"range_push","name":"run"}
{"op":"alloc","addr":"0x100000","size":1048576,"label":"pool","at":"pool.cu:1"}
{"op":"alloc","addr":"0x100000","size":65536,"kind":"pool_region","label":"x","at":"model.cu:2"}
{"op":"alloc","addr":"0x300000","size":4096,"label":"tmp","at":"tmp.cu:3"}
{"op":"kernel","name":"k","write":["0x100000","0x300000"]}
{"op":"free","addr":"0x300000"}
{"op":"free","addr":"0x100000"}
{"op":"range_pop"}
{"op":"free","addr":"0x100000"}
J
expect_exit 0 "--at range:run with a pool's regions" -- "$GMPROF" flamegraph --at range:run "$TMPDIR/poolr.jsonl"
[ "$(sort "$TMPDIR/out" | tr '\n' ' ')" = "pool.cu:1 1048576 tmp.cu:3 4096 " ] && ok "  ... the pool and the buffer, not the region" ||
	notok "  ... $(cat "$TMPDIR/out")"
expect_exit 2 "--at range:nope" -- "$GMPROF" flamegraph -o "$TMPDIR/nope.folded" --at range:nope $S/nvtx_ranges.jsonl
expect_stderr_line "'tests/scripts/nvtx_ranges.jsonl' has no NVTX range 'nope' (gmprof report lists its ranges)" "  ... one sentence"
[ ! -e "$TMPDIR/nope.folded" ] && ok "  ... and writes nothing" || notok "  ... and writes nothing"
expect_exit 2 "--at range:" -- "$GMPROF" flamegraph --at range: $S/nvtx_ranges.jsonl
sed 's/"size":268435456,"label":"grads"/"size":536870912,"label":"grads"/' $S/nvtx_ranges.jsonl >"$TMPDIR/grads.jsonl"
expect_exit 0 "--diff --at 'range:step > backward'" -- "$GMPROF" flamegraph --diff --at 'range:step > backward' \
	$S/nvtx_ranges.jsonl "$TMPDIR/grads.jsonl"
grep -qx 'model.cu:30 268435456 536870912' "$TMPDIR/out" && ok "  ... the gradients doubled at backward's peak" ||
	notok "  ... $(cat "$TMPDIR/out")"
# --at kept:PATH: what a range's times kept (allocated since its first began, live as its
# last began), by call path: the loop's kept1 and kept2 (kept3, allocated in the last, is not).
expect_exit 0 "--at kept:step --format tree --objects" -- "$GMPROF" flamegraph --at kept:step --format tree --objects \
	$S/nvtx_loop.jsonl
printf '%s\n' "8.0 KiB kept from one time to the next by NVTX range 'step' on device 0, by allocation call path" \
	"  share       bytes  call path" \
	" 100.0%     8.0 KiB  all" \
	" 100.0%     8.0 KiB    no site" \
	"  50.0%     4.0 KiB      kept1" \
	"  50.0%     4.0 KiB      kept2" >"$TMPDIR/kept.want"
diff -u "$TMPDIR/kept.want" "$TMPDIR/out" >"$TMPDIR/diff" && ok "  ... the first two steps' buffers" ||
	{ notok "  ... kept"; cat "$TMPDIR/diff"; }
# Two loops on two devices, one a buffer kept across them freed before the last time: each device's own.
cat >"$TMPDIR/kept2.jsonl" <<'J'
{"op":"alloc","addr":65536,"size":1024,"at":"w.cu:1"}
{"op":"range_push","name":"step"}
{"op":"alloc","addr":131072,"size":4096,"at":"keep.cu:2"}
{"op":"alloc","addr":196608,"size":8192,"device":1,"at":"dev1.cu:3"}
{"op":"alloc","addr":262144,"size":2048,"at":"brief.cu:4"}
{"op":"range_pop"}
{"op":"free","addr":262144}
{"op":"range_push","name":"step"}
{"op":"alloc","addr":327680,"size":512,"at":"last.cu:5"}
{"op":"kernel","name":"k","write":[196608],"device":1}
{"op":"range_pop"}
J
expect_exit 0 "--at kept:step on two devices" -- "$GMPROF" flamegraph --at kept:step "$TMPDIR/kept2.jsonl"
[ "$(sort "$TMPDIR/out" | tr '\n' ' ')" = "device 0;keep.cu:2 4096 device 1;dev1.cu:3 8192 " ] &&
	ok "  ... each device's, not what was freed before the last time, nor allocated in it" || notok "  ... $(cat "$TMPDIR/out")"
# --diff --at kept:step: what a change made the step keep (the loop against its fix, each step freeing its buffer).
expect_exit 0 "--diff --at kept:step" -- "$GMPROF" flamegraph --diff --at kept:step --objects $S/nvtx_loop_fixed.jsonl $S/nvtx_loop.jsonl
[ "$(sort "$TMPDIR/out" | tr '\n' ' ')" = "no site;kept1 0 4096 no site;kept2 0 4096 " ] && ok "  ... the two buffers, kept only after" ||
	notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "--at kept: a range entered once" -- "$GMPROF" flamegraph --at kept:setup --format tree $S/nvtx_ranges.jsonl
grep -q "^0 B kept from one time to the next by NVTX range 'setup'" "$TMPDIR/out" && ok "  ... kept nothing" ||
	notok "  ... $(head -3 "$TMPDIR/out")"
expect_exit 2 "--at kept:nope" -- "$GMPROF" flamegraph --at kept:nope $S/nvtx_loop.jsonl
expect_stderr_line "has no NVTX range 'nope' (gmprof report lists its ranges)" "  ... one sentence"
expect_exit 2 "--at kept:" -- "$GMPROF" flamegraph --at kept: $S/nvtx_loop.jsonl
expect_stderr_line "'--at kept:': expected peak, in-use, leaked, allocated, range:PATH, kept:PATH, mark:NAME or mark-kept:NAME" \
	"  ... one sentence"
for at in mark: mark-kept:; do
	expect_exit 2 "--at $at" -- "$GMPROF" flamegraph --at $at $S/nvtx_loop.jsonl
	expect_stderr_line "'--at $at': expected peak, in-use" "  ... one sentence: a mark needs its name"
done
expect_exit 0 "--help" -- "$GMPROF" flamegraph --help
grep -q '^EXAMPLES' "$TMPDIR/out" && ok "  ... with examples" || notok "  ... with examples"
finish
