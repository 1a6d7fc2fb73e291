# SPDX-License-Identifier: MIT
# Alloc mode (GMPROF_MODE=alloc, gmprof run --mode alloc): no device
# patches, so no kernel's accesses.  Through the Sanitizer test double,
# every script collected in alloc mode gives the peaks (and what was live
# there) and the leaks that object mode gives, while gmprof loads no patch
# and holds no device memory; the analyzer reports leaks only, each with
# its last use unknown, refuses in one sentence the patterns it cannot
# find, and gates on peaks and leaks.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"
S=tests/scripts
G=$GMPROF
. tests/gpu/expect.sh # peaks_of: the devices' peaks and what was live there
# "memory_leak OBJECT" per leak, sorted; and every pattern's name found.
leaks_of() { "$GMPROF" replay --format json --pretty "$1" | awk '/"pattern": "memory_leak"/ { l = 1 }
	l && /"object": / { gsub(/[",]/, "", $2); print $2; l = 0 }' | sort; }
patterns_of() { "$GMPROF" replay --format json --pretty "$1" | grep -o '"pattern": "[a-z_]*"' | sort -u; }

for s in $S/*.jsonl; do
	name=$(basename "$s" .jsonl)
	case $name in device_heap) continue ;; esac # in-kernel malloc() needs the patches
	rm -f "$TMPDIR/$name.gmprof"
	# No device patches are needed: a path that does not exist is never read.
	expect_exit 0 "collect $name in alloc mode" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=alloc \
		GMPROF_PATCH="$TMPDIR/no-such.fatbin" GMPROF_OUTPUT="$TMPDIR/$name.gmprof" "$FAKE" "$s"
	grep -q '^double: 0 stream syncs, 0 host-to-device copies of 0 bytes, 0 device-to-host copies of 0 bytes, 0 allocations, .* 0 bytes held at most, 0 at exit$' "$TMPDIR/err" &&
		ok "  ... gmprof held no device memory and copied nothing" || notok "  ... $(grep '^double' "$TMPDIR/err")"
	"$GMPROF" dump "$TMPDIR/$name.gmprof" | grep -q '^{"op":"meta","key":"mode","value":"alloc"}$' &&
		ok "  ... the profile says alloc mode" || notok "  ... the profile says alloc mode"
	# Against the same script collected in object mode (labels do not travel through callbacks).
	rm -f "$TMPDIR/$name.obj.gmprof"
	env GMPROF_OUTPUT="$TMPDIR/$name.obj.gmprof" "$FAKE" "$s" >/dev/null 2>&1
	peaks_of "$TMPDIR/$name.obj.gmprof" >"$TMPDIR/want.peaks"
	peaks_of "$TMPDIR/$name.gmprof" >"$TMPDIR/got.peaks"
	[ -s "$TMPDIR/want.peaks" ] && cmp -s "$TMPDIR/want.peaks" "$TMPDIR/got.peaks" &&
		ok "  ... the peaks and what was live there, as in object mode" ||
		{ notok "  ... the peaks as in object mode"; diff "$TMPDIR/want.peaks" "$TMPDIR/got.peaks" | head -5; }
	leaks_of "$TMPDIR/$name.obj.gmprof" >"$TMPDIR/want.leaks"
	leaks_of "$TMPDIR/$name.gmprof" >"$TMPDIR/got.leaks"
	cmp -s "$TMPDIR/want.leaks" "$TMPDIR/got.leaks" && ok "  ... the same $(wc -l <"$TMPDIR/want.leaks") leaks" ||
		notok "  ... leaks $(tr '\n' ' ' <"$TMPDIR/got.leaks"), object mode's $(tr '\n' ' ' <"$TMPDIR/want.leaks")"
	p=$(patterns_of "$TMPDIR/$name.gmprof" | grep -vc memory_leak)
	[ "$p" -eq 0 ] && ok "  ... and no other pattern" || notok "  ... $(patterns_of "$TMPDIR/$name.gmprof" | tr '\n' ' ')"
done

# Launches stay cheap: no call path is taken for them (allocations keep theirs).
expect_exit 0 "perfetto of an alloc-mode profile" -- "$GMPROF" perfetto -o - "$TMPDIR/figure2.gmprof"
# (a slice per line: its name, category, flows, then its args)
[ "$(grep -c '"cat":"KERNEL"' "$TMPDIR/out")" -eq 8 ] && ! grep '"cat":"KERNEL"' "$TMPDIR/out" | grep -q '"at":' &&
	ok "  ... its 8 launches have no call path" || notok "  ... launches have no call path"
[ "$(grep '"cat":"ALLOC"' "$TMPDIR/out" | grep -c '"at":"[^"]*fake_app.c:[0-9]*"')" -eq 3 ] &&
	ok "  ... its three allocations have theirs" || notok "  ... allocations' call paths"

# The Markdown report says what alloc mode leaves out.
expect_exit 0 "markdown of an alloc-mode profile" -- "$GMPROF" report --format markdown "$TMPDIR/figure2.gmprof"
grep -qx '| note | alloc mode: peaks and leaks only, no kernel accesses |' "$TMPDIR/out" &&
	! "$GMPROF" report --format markdown "$TMPDIR/figure2.obj.gmprof" 2>/dev/null | grep -q 'alloc mode' &&
	ok "  ... in a note (none in object mode)" || notok "  ... $(grep '^| ' "$TMPDIR/out" | head -8)"

# The collector's own summary at exit (GMPROF_ONLINE): the leak alone.
rm -f "$TMPDIR/online.gmprof"
expect_exit 0 "the summary at exit" -- env GMPROF_MODE=alloc GMPROF_SUMMARY=1 GMPROF_OUTPUT="$TMPDIR/online.gmprof" "$FAKE" $S/figure2.jsonl
grep -q '^==gmprof== FINDINGS: 1 (memory_leak 1)$' "$TMPDIR/err" && ok "  ... names the leak alone" || notok "  ... $(grep FINDINGS "$TMPDIR/err")"

# The analyzer: a leak's last use is unknown, so are where to free it and what that saves.
P=$TMPDIR/figure2.gmprof
expect_exit 0 "report of an alloc-mode profile" -- "$GMPROF" report "$P"
grep -q '^  mode     alloc$' "$TMPDIR/out" && grep -q '^  note     alloc mode records no kernel accesses: ' "$TMPDIR/out" &&
	ok "  ... says what alloc mode reports" || notok "  ... says what alloc mode reports"
grep -q 'launches have no recorded access sets' "$TMPDIR/out" "$TMPDIR/err" && notok "  ... no warning of missing access sets" ||
	ok "  ... no warning of missing access sets (none are recorded in alloc mode)"
grep -q "^     never freed; what freeing it saves at the peak is not known (nor is its last use)$" "$TMPDIR/out" &&
	grep -q "^     fix: free it once no kernel uses it any more (its last use is not known: the kernels' accesses were not recorded)$" "$TMPDIR/out" &&
	grep -q '^  device 0: none of its findings has a fix known to free memory$' "$TMPDIR/out" &&
	ok "  ... the leak: no last use, no saving, no plan" || notok "  ... the leak: $(grep -A3 'memory_leak' "$TMPDIR/out")"
# Patterns that need the kernels' accesses: one sentence, status 2.
expect_exit 2 "--patterns early_allocation" -- "$GMPROF" replay --patterns early_allocation "$P"
expect_stderr_line "was recorded in alloc mode, without the kernels' accesses: --patterns early_allocation cannot be found in it (record it in object mode)" "  ... says why"
expect_exit 0 "--patterns memory_leak" -- "$GMPROF" replay --patterns memory_leak "$P"
expect_exit 2 "check --fail-on unused_allocation" -- "$GMPROF" check --fail-on memory_leak,unused_allocation "$P"
expect_stderr_line "\-\-fail-on unused_allocation cannot be found in it" "  ... says why"
expect_exit 1 "check --fail-on all: the leak" -- "$GMPROF" check --fail-on all "$P"
[ "$(grep -c '^[A-Z]* pattern:' "$TMPDIR/out")" -eq 1 ] && grep -q '^FAIL pattern:memory_leak: 1 finding$' "$TMPDIR/out" &&
	ok "  ... checks memory_leak alone" || notok "  ... $(grep pattern: "$TMPDIR/out")"
expect_exit 1 "check --max-peak and --max-leak gate as ever" -- "$GMPROF" check --max-peak 1MiB --max-leak 4KiB "$P"
grep -q '^FAIL max_peak: 1.0 MiB (1060864 bytes) > 1.0 MiB (1048576 bytes)$' "$TMPDIR/out" &&
	grep -q '^FAIL max_leak: 8.0 KiB > 4.0 KiB$' "$TMPDIR/out" && ok "  ... both fail" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "flamegraph of an alloc-mode profile" -- "$GMPROF" flamegraph "$P"
[ "$(awk '{ s += $NF } END { print s }' "$TMPDIR/out")" = 1060864 ] && ok "  ... its peak" || notok "  ... $(cat "$TMPDIR/out")"
# A dump keeps the mode: replayed, the same findings.
"$GMPROF" dump "$P" >"$TMPDIR/f2.jsonl"
"$GMPROF" replay --format json "$P" >"$TMPDIR/a.json"
"$GMPROF" replay --format json "$TMPDIR/f2.jsonl" >"$TMPDIR/b.json"
cmp -s "$TMPDIR/a.json" "$TMPDIR/b.json" && ok "its dump replays to the same findings" || notok "its dump replays to the same findings"

# gmprof run --mode alloc
export GMPROF_CUDA_DRIVER=$PWD/$B/double/libcuda-fake.so
R="$GMPROF run --sanitizer-lib $GMPROF_SANITIZER_LIB -o $TMPDIR/run.%p.gmprof"
expect_exit 2 "run --mode alloc --fail-on early_allocation" -- $R --mode alloc --fail-on early_allocation -- "$FAKE" $S/figure2.jsonl
expect_stderr_line "\-\-fail-on early_allocation needs the kernels' accesses, which --mode alloc does not record" "  ... one sentence, before the program runs"
expect_exit 1 "run --mode alloc --fail-on memory_leak" -- $R --mode alloc --fail-on memory_leak -- "$FAKE" $S/figure2.jsonl
grep -q '1 finding' "$TMPDIR/out" && ok "  ... the leak" || notok "  ... $(head -5 "$TMPDIR/out")"
# Object mode patches every kernel as its module loads (eager loading); alloc mode patches none.
for m in object alloc; do
	env -u CUDA_MODULE_LOADING $R --mode $m -- sh -c 'echo "loading=${CUDA_MODULE_LOADING:-default}" >"$0"' "$TMPDIR/loading.$m" \
		>/dev/null 2>&1
done
[ "$(cat "$TMPDIR/loading.object")" = loading=EAGER ] && [ "$(cat "$TMPDIR/loading.alloc")" = loading=default ] &&
	ok "module loading: eager in object mode, the program's own in alloc mode" ||
	notok "module loading: $(cat "$TMPDIR/loading.object" "$TMPDIR/loading.alloc" 2>&1)"
finish
