# SPDX-License-Identifier: MIT
# gmprof run: preflight failures in one sentence, the program's exit status
# and signals passing through, --fail-on, and the report -- with a stand-in
# driver, the Sanitizer test double and the fake CUDA program.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$PWD/$B/double/fake_app
DOUBLE=$PWD/$B/double/libsanitizer-public.so
export GMPROF_COLLECTOR=$PWD/$B/libgmprof.so GMPROF_PATCH=$PWD/$B/double/patches.fatbin
export GMPROF_DOUBLE=$DOUBLE

expect_exit 0 "run --help" -- "$GMPROF" run --help
expect_exit 2 "run without a program" -- "$GMPROF" run
expect_exit 2 "no CUDA driver" -- env GMPROF_CUDA_DRIVER=/nonexistent/libcuda.so.1 "$GMPROF" run -- true
expect_stderr_line "no CUDA driver on this machine" "no CUDA driver: one sentence"
export GMPROF_CUDA_DRIVER=$PWD/$B/double/libcuda-fake.so
expect_exit 2 "no GPU" -- env FAKE_CUDA_DEVICES=0 "$GMPROF" run -- true
expect_stderr_line "no GPU: the CUDA driver sees no device" "no GPU: one sentence"
expect_exit 2 "no Sanitizer library" -- "$GMPROF" run --sanitizer-lib /nonexistent/libsanitizer-public.so -- true
expect_stderr_line "the Compute Sanitizer library '/nonexistent/libsanitizer-public.so' does not exist" "no Sanitizer library: one sentence"
expect_exit 2 "bad --mode" -- "$GMPROF" run --mode fast -- true
expect_exit 2 "an output directory that does not exist" -- "$GMPROF" run -o "$TMPDIR/no/such/dir/p.gmprof" -- true
expect_stderr_line "cannot write the profile into '$TMPDIR/no/such/dir': No such file or directory" "  ... one sentence, before the program runs"

# Options refused before the program runs, each in one sentence naming the value.
bad_option() { # SENTENCE OPTION...
	_s=$1; shift
	expect_exit 2 "run $*: refused" -- "$GMPROF" run "$@" -- true
	expect_stderr_line "$_s" "  ... in one sentence"
}
bad_option "bad value '0' for --kernel-sample" --kernel-sample 0
bad_option "bad value 'x' for --kernel-sample" --kernel-sample x
bad_option "bad value '0' for --depth (1 to 256)" --depth 0
bad_option "bad value '257' for --depth (1 to 256)" --depth 257
bad_option "--harvest must be deferred or launch, not 'now'" --harvest now
bad_option "bad value '-1' for --top" --top -1
bad_option "'--fail-on leaks' names no known pattern list" --fail-on leaks
bad_option "bad value '0' for --kernels-top" --kernels-top 0
bad_option "unknown option '--fast'" --fast
expect_exit 2 "run --depth (no value): refused" -- "$GMPROF" run --depth
expect_stderr_line "option '--depth' needs a value" "  ... in one sentence"
bad_option "--fail-on dead_write needs the kernels' accesses, which --mode alloc does not record" --mode alloc --fail-on dead_write
bad_option "give --kernels or --kernels-from, not both" --kernels k --kernels-from "$TMPDIR/x.gmprof"
# What the collector would refuse at the program's start, refused before it
# runs (it would run unprofiled): a bad GMPROF_* value, a profile that exists.
expect_exit 2 "a bad GMPROF_FLUSH_MS" -- env GMPROF_FLUSH_MS=abc "$GMPROF" run --sanitizer-lib "$DOUBLE" \
	-o "$TMPDIR/bad.gmprof" -- sh -c "touch '$TMPDIR/ran'"
expect_stderr_line "^gmprof: GMPROF_FLUSH_MS='abc' is not valid: expected a whole number from 1 to 3600000$" "  ... in one sentence"
[ ! -e "$TMPDIR/ran" ] && ok "  ... before the program runs" || notok "  ... the program ran"
expect_exit 0 "a profile written" -- "$GMPROF" run --sanitizer-lib "$DOUBLE" --top 0 -o "$TMPDIR/once.gmprof" -- "$FAKE" tests/scripts/figure2.jsonl
expect_exit 2 "  ... and again to the same name" -- "$GMPROF" run --sanitizer-lib "$DOUBLE" -o "$TMPDIR/once.gmprof" \
	-- sh -c "touch '$TMPDIR/ran'"
expect_stderr_line "^gmprof: the profile '$TMPDIR/once.gmprof' exists: --force replaces it$" "  ... in one sentence"
[ ! -e "$TMPDIR/ran" ] && ok "  ... before the program runs" || notok "  ... the program ran"
for force in --force GMPROF_FORCE=1; do
	case $force in --force) set -- "$GMPROF" run --force ;; *) set -- env "$force" "$GMPROF" run ;; esac
	expect_exit 0 "  ... replaced with $force" -- "$@" --sanitizer-lib "$DOUBLE" --top 0 -o "$TMPDIR/once.gmprof" \
		-- "$FAKE" tests/scripts/figure4.jsonl
	"$GMPROF" dump "$TMPDIR/once.gmprof" 2>/dev/null | grep -q 'figure4.jsonl' && ok "  ... the new run's profile" ||
		notok "  ... $(head -c 300 "$TMPDIR/once.gmprof" | tr -cd '[:print:]')"
	expect_exit 0 "  ... (figure2 again)" -- env GMPROF_FORCE=1 "$GMPROF" run --sanitizer-lib "$DOUBLE" --top 0 \
		-o "$TMPDIR/once.gmprof" -- "$FAKE" tests/scripts/figure2.jsonl
done
# What the options say reaches the collector, in the program's environment.
probe='echo "[$GMPROF_MODE][$GMPROF_KERNEL_SAMPLE][$GMPROF_KERNELS][$GMPROF_DEPTH][$GMPROF_HARVEST][$GMPROF_CAPTURE][$CUDA_MODULE_LOADING]"'
"$GMPROF" run --sanitizer-lib "$DOUBLE" -o "$TMPDIR/env.gmprof" --mode intra --kernel-sample 7 --kernels 'mm|init' --depth 12 \
	--harvest launch --capture profiler-api -- sh -c "$probe" >"$TMPDIR/env.out" 2>/dev/null
grep -qxF '[intra][7][mm|init][12][launch][profiler-api][EAGER]' "$TMPDIR/env.out" &&
	ok "run's options reach the collector as its environment (and eager module loading)" ||
	notok "run's options: the program saw $(cat "$TMPDIR/env.out")"
env -u CUDA_MODULE_LOADING "$GMPROF" run --sanitizer-lib "$DOUBLE" -o "$TMPDIR/env.gmprof" --mode alloc -- sh -c "$probe" \
	>"$TMPDIR/env.out" 2>/dev/null
grep -qxF '[alloc][][][][][][]' "$TMPDIR/env.out" && ok "  ... alloc mode: module loading left lazy" ||
	notok "  ... alloc mode: the program saw $(cat "$TMPDIR/env.out")"
# --no-caching: the frameworks' switches that turn their pools off reach the program.
probe='echo "[$PYTORCH_NO_CUDA_MEMORY_CACHING][$TF_GPU_ALLOCATOR][$XLA_PYTHON_CLIENT_ALLOCATOR]"'
"$GMPROF" run --sanitizer-lib "$DOUBLE" --no-caching -o "$TMPDIR/nc.gmprof" -- sh -c "$probe" >"$TMPDIR/nc.out" 2>/dev/null
grep -qx '\[1\]\[cuda_malloc_async\]\[platform\]' "$TMPDIR/nc.out" && ok "--no-caching: PyTorch's, TensorFlow's and XLA's switches set for the program" ||
	notok "--no-caching: the program saw $(cat "$TMPDIR/nc.out")"
env -u PYTORCH_NO_CUDA_MEMORY_CACHING -u TF_GPU_ALLOCATOR -u XLA_PYTHON_CLIENT_ALLOCATOR "$GMPROF" run --sanitizer-lib "$DOUBLE" \
	-o "$TMPDIR/nc.gmprof" -- sh -c "$probe" >"$TMPDIR/nc.out" 2>/dev/null
grep -qx '\[\]\[\]\[\]' "$TMPDIR/nc.out" && ok "  ... and not without it" || notok "  ... without it the program saw $(cat "$TMPDIR/nc.out")"
R="$GMPROF run --sanitizer-lib $DOUBLE -o $TMPDIR/p.%p.gmprof"
expect_exit 0 "a run" -- $R -- "$FAKE" tests/scripts/figure2.jsonl
grep -q "4 findings" "$TMPDIR/out" && ok "the run reports its findings" || notok "the run reports its findings: $(cat "$TMPDIR/out")"
[ "$(grep -c '^     allocated at .*/tests/double/fake_app.c:[0-9]*$' "$TMPDIR/out")" -eq 4 ] &&
	ok "each finding says where its object was allocated (the program's source line)" ||
	notok "allocation sites: $(grep -c 'allocated at' "$TMPDIR/out") of 4"
n=$(sed -n 's/^     allocated at .*\/tests\/double\/fake_app\.c:\([0-9]*\)$/\1/p' "$TMPDIR/out" | head -1)
want=$(sed -n "${n:-0}p" tests/double/fake_app.c | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
[ -n "$want" ] && [ "$(grep -A1 '^     allocated at .*/tests/double/fake_app.c:' "$TMPDIR/out" | grep -cxF "       | $want")" -eq 4 ] &&
	ok "  ... and under each, that line of the source (read under the working directory)" ||
	notok "  ... source lines: want '$want': $(grep -A1 '^     allocated at' "$TMPDIR/out" | head -4)"
grep -q '^  time     gmprof on the host: .* ms of the .* ms it was loaded (starting .*, in [0-9]* callbacks .*, at exit .*)$' "$TMPDIR/out" &&
	grep -q '^           of which patching .* (1 module), ' "$TMPDIR/out" &&
	ok "the run says what gmprof cost it on the host" || notok "the run's time lines: $(tail -3 "$TMPDIR/out")"
ls "$TMPDIR"/p.*.gmprof >/dev/null 2>&1 && ok "the profile is named by the pattern" || notok "the profile is named by the pattern"
grep -q 'no source lines' "$TMPDIR/out" && notok "a program built with -g gets no note on source lines" || ok "a program built with -g gets no note on source lines"
if command -v strip >/dev/null && strip --strip-debug -o "$TMPDIR/fake_nolines" "$FAKE"; then
	expect_exit 0 "a run of a program without debug information" -- $R -- "$TMPDIR/fake_nolines" tests/scripts/figure2.jsonl
	grep -q "^note: no source lines for frames in $TMPDIR/fake_nolines (it has no line information: build it with -g)" "$TMPDIR/out" &&
		ok "  ... the summary says to build it with -g" || notok "  ... the summary says to build it with -g: $(tail -3 "$TMPDIR/out")"
fi
expect_exit 1 "--fail-on a found pattern" -- $R --fail-on memory_leak -- "$FAKE" tests/scripts/figure2.jsonl
expect_exit 0 "--fail-on a pattern not found" -- $R --fail-on memory_leak -- "$FAKE" tests/scripts/figure4.jsonl
# Not found because the patches did not load: no kernel's accesses were seen, so the gate cannot pass.
expect_exit 1 "--fail-on, the device patches not loaded: not a pass" -- env GMP_DOUBLE_FAIL=patches:1 \
	$R --fail-on dead_write -- "$FAKE" tests/scripts/figure4.jsonl
grep -q "^gmprof: [0-9]* kernel launches in '.*' have no recorded accesses: --fail-on cannot pass it (gmprof check --allow-incomplete can)$" \
	"$TMPDIR/err" && ok "  ... saying why" || notok "  ... stderr: $(cat "$TMPDIR/err")"
expect_exit 0 "  ... a pattern that needs no accesses still passes" -- env GMP_DOUBLE_FAIL=patches:1 \
	$R --fail-on memory_leak -- "$FAKE" tests/scripts/figure4.jsonl
expect_exit 3 "the program's exit status passes through" -- $R -- "$FAKE" --die-after 5 exit tests/scripts/figure2.jsonl
expect_exit 137 "a program killed by SIGKILL" -- $R -- "$FAKE" --die-after 5 kill tests/scripts/figure2.jsonl
grep -q "killed by signal 9" "$TMPDIR/err" && ok "the signal is named" || notok "the signal is named: $err"
expect_exit 2 "a program that cannot start" -- $R -- "$TMPDIR/no-such-program"
expect_exit 0 "--top 0" -- $R --top 0 -- "$FAKE" tests/scripts/figure2.jsonl
[ ! -s "$TMPDIR/out" ] && ok "  ... prints nothing" || notok "  ... prints: $(head -2 "$TMPDIR/out")"
# A loop that keeps memory each step: the summary names the range that grew
# (nvtx_loop: each of 3 steps keeps 4 KiB); at most 3 such lines, the most
# first, each with where what it kept was allocated, and one counting the
# rest (phaseN, run twice, keeps N KiB a time).  A run without ranges has no such line.
expect_exit 0 "a loop's run" -- $R --top 1 -- "$FAKE" tests/scripts/nvtx_loop.jsonl
grep -qx "  ranges   step on device 0: live bytes as it began grew from 0 B (the first of its 3 times) to 8.0 KiB (the last), 4.0 KiB more each time" \
	"$TMPDIR/out" && ok "  ... the summary says the step range grew, 4 KiB each time" || notok "  ... summary: $(cat "$TMPDIR/out")"
awk 'BEGIN { a = 65536
	for (r = 1; r <= 5; r++) for (t = 0; t < 2; t++) {
		printf "{\"op\":\"range_push\",\"name\":\"phase%d\"}\n", r
		printf "{\"op\":\"alloc\",\"addr\":%d,\"size\":%d}\n", a, r * 1024; a += 65536
		print "{\"op\":\"range_pop\"}" } }' >"$TMPDIR/phases.jsonl"
expect_exit 0 "five phases that keep memory" -- $R --top 1 -- "$FAKE" "$TMPDIR/phases.jsonl"
F="from $PWD/tests/double/fake_app.c:N"
printf '%s\n' "  ranges   phase5 on device 0: live bytes as it began grew from 20.0 KiB (the first of its 2 times) to 25.0 KiB (the last), 5.0 KiB more each time" \
	"             live as its last time began, allocated since its first: 5.0 KiB in 1 object, $F (5.0 KiB in 1)" \
	"           phase4 on device 0: live bytes as it began grew from 12.0 KiB (the first of its 2 times) to 16.0 KiB (the last), 4.0 KiB more each time" \
	"             live as its last time began, allocated since its first: 4.0 KiB in 1 object, $F (4.0 KiB in 1)" \
	"           phase3 on device 0: live bytes as it began grew from 6.0 KiB (the first of its 2 times) to 9.0 KiB (the last), 3.0 KiB more each time" \
	"             live as its last time began, allocated since its first: 3.0 KiB in 1 object, $F (3.0 KiB in 1)" \
	"           ... and 2 more ranges grew (gmprof report shows them)" >"$TMPDIR/ph.want"
grep -A6 '^  ranges' "$TMPDIR/out" | sed 's/fake_app\.c:[0-9]*/fake_app.c:N/' | diff -u "$TMPDIR/ph.want" - >"$TMPDIR/diff" &&
	ok "  ... three, each with the site of what it kept, then the rest counted" || { notok "  ... summary"; cat "$TMPDIR/diff"; }
expect_exit 0 "a run without ranges" -- $R --top 1 -- "$FAKE" tests/scripts/figure2.jsonl
grep -q "^  ranges " "$TMPDIR/out" && notok "  ... a ranges line: $(grep ranges "$TMPDIR/out")" || ok "  ... no ranges line"
# --kernels-from: an object-mode profile chooses the kernels intra mode
# monitors: those that touched the most of what was live at its peaks.
# big touches 20 MiB of the first peak, small 1 MiB, late 64 KiB of the
# second; a.b only an object freed before either ("a.b" must not match
# "aXb" as a regex would: names are escaped).
cat >"$TMPDIR/kf.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"kernel","name":"aXb","touch":[{"addr":"0x10000","size":4096,"rw":"w"}]}
{"op":"free","addr":"0x10000"}
{"op":"alloc","addr":"0x100000","size":1048576}
{"op":"alloc","addr":"0x1000000","size":4194304}
{"op":"alloc","addr":"0x2000000","size":16777216}
{"op":"kernel","name":"_Z5smallPf","touch":[{"addr":"0x100000","size":4096,"rw":"w"}]}
{"op":"kernel","name":"_Z3bigPfS_","touch":[{"addr":"0x1000000","size":4194304,"rw":"r"},{"addr":"0x2000000","size":16777216,"rw":"w"}]}
{"op":"kernel","name":"a.b","touch":[{"addr":"0x2000000","size":4096,"rw":"r"}]}
{"op":"free","addr":"0x2000000"}
{"op":"alloc","addr":"0x3000000","size":65536}
{"op":"kernel","name":"late","touch":[{"addr":"0x3000000","size":65536,"rw":"w"}]}
{"op":"sync"}
{"op":"free","addr":"0x3000000"}
{"op":"free","addr":"0x1000000"}
{"op":"free","addr":"0x100000"}
J
expect_exit 0 "--kernels-from: an object-mode run first" -- $R --top 0 -o "$TMPDIR/kf-obj.gmprof" -- "$FAKE" "$TMPDIR/kf.jsonl"
# Which kernels a profile's launches monitored in intra mode (those with touches), sorted.
intra_kernels() { "$GMPROF" dump "$1" | grep '"op":"kernel".*"touch"' | sed 's/.*"name":"\([^"]*\)".*/\1/' | sort -u | tr '\n' ' '; }
expect_exit 0 "--kernels-from: the intra run" -- $R --top 0 --kernels-from "$TMPDIR/kf-obj.gmprof" -o "$TMPDIR/kf-all.gmprof" -- "$FAKE" "$TMPDIR/kf.jsonl"
grep -q "^gmprof: intra mode monitors the 4 kernels of '$TMPDIR/kf-obj.gmprof' that touched the most of what was live at its peaks:$" "$TMPDIR/err" &&
	ok "--kernels-from: a line says how many kernels and why" || notok "--kernels-from: a line says how many kernels and why: $(cat "$TMPDIR/err")"
grep -A4 "intra mode monitors" "$TMPDIR/err" | sed -n 2,5p >"$TMPDIR/kf.said"
printf '  big(float*, float*) (20.0 MiB of it)\n  small(float*) (1.0 MiB of it)\n  late (64.0 KiB of it)\n  a.b (16.0 MiB of it)\n' >"$TMPDIR/kf.want"
sort "$TMPDIR/kf.want" >"$TMPDIR/kf.want.sorted"; sort "$TMPDIR/kf.said" >"$TMPDIR/kf.said.sorted"
cmp -s "$TMPDIR/kf.want.sorted" "$TMPDIR/kf.said.sorted" && [ "$(head -1 "$TMPDIR/kf.said")" = "  big(float*, float*) (20.0 MiB of it)" ] &&
	ok "--kernels-from: the kernels that touched peak objects, the most bytes first" ||
	notok "--kernels-from: chosen kernels: $(cat "$TMPDIR/kf.said")"
[ "$(intra_kernels "$TMPDIR/kf-all.gmprof")" = "_Z3bigPfS_ _Z5smallPf a.b late " ] &&
	ok "--kernels-from: exactly those launches have intra touches (not aXb: names are escaped)" ||
	notok "--kernels-from: intra kernels: $(intra_kernels "$TMPDIR/kf-all.gmprof")"
expect_exit 0 "--kernels-top 1" -- $R --top 0 --kernels-from "$TMPDIR/kf-obj.gmprof" --kernels-top 1 -o "$TMPDIR/kf-1.gmprof" -- "$FAKE" "$TMPDIR/kf.jsonl"
[ "$(intra_kernels "$TMPDIR/kf-1.gmprof")" = "_Z3bigPfS_ " ] && ok "--kernels-top 1: only the kernel that touched the most" ||
	notok "--kernels-top 1: $(intra_kernels "$TMPDIR/kf-1.gmprof")"
expect_exit 2 "--kernels-from with --kernels" -- $R --kernels-from "$TMPDIR/kf-obj.gmprof" --kernels x -- "$FAKE" "$TMPDIR/kf.jsonl"
expect_stderr_line "give --kernels or --kernels-from, not both" "  ... one sentence"
expect_exit 2 "--kernels-from with --mode object" -- $R --mode object --kernels-from "$TMPDIR/kf-obj.gmprof" -- "$FAKE" "$TMPDIR/kf.jsonl"
expect_exit 2 "--kernels-from a profile that does not exist" -- $R --kernels-from "$TMPDIR/none.gmprof" -- "$FAKE" "$TMPDIR/kf.jsonl"
expect_stderr_line "cannot open '$TMPDIR/none.gmprof'" "  ... one sentence, before the program runs"
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":64}' '{"op":"free","addr":"0x1000"}' >"$TMPDIR/nokern.jsonl"
expect_exit 2 "--kernels-from a profile whose peaks no kernel touched" -- $R --kernels-from "$TMPDIR/nokern.jsonl" -- "$FAKE" "$TMPDIR/kf.jsonl"
expect_stderr_line "no kernel in '$TMPDIR/nokern.jsonl' touched what was live at its peaks" "  ... one sentence"
expect_exit 2 "--kernels-top 0" -- $R --kernels-from "$TMPDIR/kf-obj.gmprof" --kernels-top 0 -- "$FAKE" "$TMPDIR/kf.jsonl"
# Names longer than the collector takes (GMPROF_KERNELS holds 16383 bytes):
# three kernels of 6000-byte names, the third left out and said so; one of
# 20000 bytes alone cannot be chosen at all.
awk 'function k(c, n,   s) { s = ""; while (length(s) < n) s = s c; return s }
	BEGIN { print "{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":4096}"
		for (i = 1; i <= 3; i++) print "{\"op\":\"kernel\",\"name\":\"" k(sprintf("%c", 96 + i), 6000) "\",\"touch\":[{\"addr\":\"0x100000\",\"size\":" 4096 - i * 8 ",\"rw\":\"r\"}]}"
		print "{\"op\":\"free\",\"addr\":\"0x100000\"}" }' >"$TMPDIR/long.jsonl"
expect_exit 0 "--kernels-from kernels with long names" -- $R --top 0 --kernels-from "$TMPDIR/long.jsonl" -o "$TMPDIR/kf-long.gmprof" -- "$FAKE" "$TMPDIR/long.jsonl"
grep -q "^gmprof: 1 of the 3 kernels chosen are left out: their names do not fit the collector's 16383 bytes of GMPROF_KERNELS$" "$TMPDIR/err" &&
	[ "$("$GMPROF" dump "$TMPDIR/kf-long.gmprof" | grep -c '"op":"kernel".*"touch"')" -eq 2 ] &&
	ok "  ... two of them monitored, the third left out and said so" || notok "  ... long names: $(head -c 300 "$TMPDIR/err")"
awk 'BEGIN { s = ""; while (length(s) < 20000) s = s "x"
	print "{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":4096}"
	print "{\"op\":\"kernel\",\"name\":\"" s "\",\"read\":[\"0x100000\"]}"
	print "{\"op\":\"free\",\"addr\":\"0x100000\"}" }' >"$TMPDIR/longer.jsonl"
expect_exit 2 "--kernels-from a kernel whose name the collector cannot take" -- $R --kernels-from "$TMPDIR/longer.jsonl" -- "$FAKE" "$TMPDIR/kf.jsonl"
expect_stderr_line "is longer than the collector takes (16383 bytes)" "  ... one sentence"
# GPUs the kernel driver lists: no cuInit in gmprof before the program runs.
mkdir -p "$TMPDIR/gpus/0000:17:00.0" "$TMPDIR/nogpus"
expect_exit 0 "GPUs listed by the kernel driver: no CUDA driver call" -- env -u GMPROF_CUDA_DRIVER \
	GMPROF_NVIDIA_PROC="$TMPDIR/gpus" $R -- "$FAKE" tests/scripts/figure2.jsonl
expect_exit 2 "  ... none listed: the CUDA driver is asked" -- env GMPROF_NVIDIA_PROC="$TMPDIR/nogpus" \
	GMPROF_CUDA_DRIVER=/nonexistent/libcuda.so.1 $R -- "$FAKE" tests/scripts/figure2.jsonl
expect_stderr_line "no CUDA driver on this machine" "  ... one sentence"
expect_exit 2 "  ... all hidden by CUDA_VISIBLE_DEVICES: the CUDA driver is asked" -- env GMPROF_NVIDIA_PROC="$TMPDIR/gpus" \
	CUDA_VISIBLE_DEVICES= FAKE_CUDA_DEVICES=0 $R -- "$FAKE" tests/scripts/figure2.jsonl
expect_stderr_line "no GPU: the CUDA driver sees no device" "  ... one sentence"
# gmprof run analyzes the profile itself: the collector's online analysis is off unless asked for.
$R -- sh -c 'printf %s "$GMPROF_ONLINE" >"$0"' "$TMPDIR/online" >/dev/null 2>&1
[ "$(cat "$TMPDIR/online")" = 0 ] && ok "run: GMPROF_ONLINE=0 for the program" || notok "run: GMPROF_ONLINE='$(cat "$TMPDIR/online")'"
GMPROF_ONLINE=1 $R -- sh -c 'printf %s "$GMPROF_ONLINE" >"$0"' "$TMPDIR/online" >/dev/null 2>&1
[ "$(cat "$TMPDIR/online")" = 1 ] && ok "run: a GMPROF_ONLINE of the user's is kept" || notok "run: GMPROF_ONLINE='$(cat "$TMPDIR/online")'"
# Suppressions: checked before the program runs; --fail-on ignores what they leave out.
printf 'memory_leak:*fake_app*\n' >"$TMPDIR/leak.sup"
expect_exit 0 "--fail-on with the leak suppressed" -- $R --suppressions "$TMPDIR/leak.sup" --fail-on memory_leak -- "$FAKE" tests/scripts/figure2.jsonl
grep -q "3 findings" "$TMPDIR/out" && ok "  ... the report leaves it out" || notok "  ... report: $(grep findings "$TMPDIR/out")"
printf 'nonsense\n' >"$TMPDIR/bad.sup"
rm -f "$TMPDIR"/p.*.gmprof
expect_exit 2 "a bad suppressions file" -- $R --suppressions "$TMPDIR/bad.sup" -- "$FAKE" tests/scripts/figure2.jsonl
ls "$TMPDIR"/p.*.gmprof >/dev/null 2>&1 && notok "  ... refused before the program runs" || ok "  ... refused before the program runs"
# A program that starts others (mpirun, a script): every profile they write is
# reported, and --fail-on looks at all (rank 1 leaks, rank 0 does not).
mkdir -p "$TMPDIR/ranks"
expect_exit 1 "two ranks: --fail-on sees the second" -- $GMPROF run --sanitizer-lib $DOUBLE --top 1 --fail-on memory_leak \
	-o "$TMPDIR/ranks/prof.%r.gmprof" -- sh -c 'RANK=0 "$0" "$1" & RANK=1 "$0" "$2"; wait' \
	"$FAKE" tests/scripts/figure3.jsonl tests/scripts/figure2.jsonl
grep -q "^gmprof: $TMPDIR/ranks/prof.0.gmprof: " "$TMPDIR/out" && grep -q "^gmprof: $TMPDIR/ranks/prof.1.gmprof: " "$TMPDIR/out" &&
	ok "  ... both profiles reported" || notok "  ... reported: $(grep '^gmprof: ' "$TMPDIR/out")"
[ "$(ls -A "$TMPDIR/ranks")" = "$(printf 'prof.0.gmprof\nprof.1.gmprof')" ] &&
	ok "  ... and the run's list of profiles removed" || notok "  ... left: $(ls -A "$TMPDIR/ranks")"
expect_exit 2 "a program that writes no profile" -- $GMPROF run --sanitizer-lib $DOUBLE -o "$TMPDIR/ranks/none.%p.gmprof" -- true
expect_stderr_line "the program wrote no profile" "  ... one sentence"
# Pools' regions announced with NVTX reach the collector (gmprof run names it to NVTX).
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExtMem.h" ]; then
	expect_exit 0 "a run with NVTX regions" -- env -u NVTX_INJECTION64_PATH $R -- "$FAKE" tests/scripts/pool_regions.jsonl
	grep -q "unused_allocation: scratch (4.0 KiB)" "$TMPDIR/out" && ok "run: regions are objects of their own, with their NVTX names" ||
		notok "run: regions: $(grep -c 'unused' "$TMPDIR/out")"
	expect_exit 0 "NVTX_INJECTION64_PATH set to another tool" -- env NVTX_INJECTION64_PATH=/opt/other/libtool.so \
		$R -- "$FAKE" tests/scripts/figure2.jsonl
	expect_stderr_line "NVTX_INJECTION64_PATH names another tool ('/opt/other/libtool.so')" "  ... one line says regions are not seen"
fi

# Signals sent to gmprof reach the program.
$R -- sleep 30 >/dev/null 2>"$TMPDIR/err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] && ok "SIGTERM forwarded (exit 143)" || notok "SIGTERM forwarded (exit $rc)"
finish
