# SPDX-License-Identifier: MIT
# Lazy module loading (CUDA_MODULE_LOADING=LAZY, the CUDA default outside
# gmprof run), through the Sanitizer test double (GMP_DOUBLE_LAZY=1): each
# kernel's function is loaded at its first launch, and the Sanitizer itself
# patches functions loaded into a patched module.  On an H100 (2026-11-27)
# a module patched a second time from the FUNCTIONS_LAZY_LOADED callback
# left its lazily loaded kernels reporting no access at all (make
# gpu-check step 4); the double does the same, so every script must give
# the findings of eager loading, with modules patched at load, at their
# first monitored launch and per capture range, in object and intra mode.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"
findings() { "$GMPROF" replay --format json --pretty "$1" | grep -v '"at": '; }

for s in tests/scripts/figure2.jsonl tests/scripts/figure4.jsonl tests/scripts/intra_patterns.jsonl \
	tests/scripts/simple_multi_copy.jsonl tests/scripts/device_heap.jsonl; do
	name=$(basename "$s" .jsonl)
	mode=object
	grep -q '"touch"' "$s" && mode=intra
	rm -f "$TMPDIR/$name.eager.gmprof"
	env GMPROF_MODE=$mode GMPROF_OUTPUT="$TMPDIR/$name.eager.gmprof" "$FAKE" "$s" 2>/dev/null
	findings "$TMPDIR/$name.eager.gmprof" >"$TMPDIR/want.json"
	grep -q '"pattern"' "$TMPDIR/want.json" || notok "$name: eager loading gives findings to compare"
	for at in load launch range; do
		rm -f "$TMPDIR/$name.$at.gmprof"
		expect_exit 0 "$name, lazily loaded, patched at $at ($mode mode)" -- env GMP_DOUBLE_LAZY=1 \
			GMPROF_PATCH_AT=$at GMPROF_MODE=$mode GMPROF_OUTPUT="$TMPDIR/$name.$at.gmprof" "$FAKE" "$s"
		findings "$TMPDIR/$name.$at.gmprof" >"$TMPDIR/got.json"
		diff -u "$TMPDIR/want.json" "$TMPDIR/got.json" >"$TMPDIR/diff" &&
			ok "  ... eager loading's findings" || { notok "  ... eager loading's findings"; head -20 "$TMPDIR/diff"; }
	done
done
# The double's model bites: its kernels fall silent when the module is patched again.
rm -f "$TMPDIR/twice.gmprof"
env GMP_DOUBLE_LAZY=1 GMP_DOUBLE_STATS=3 GMPROF_OUTPUT="$TMPDIR/twice.gmprof" "$FAKE" tests/scripts/figure2.jsonl \
	>"$TMPDIR/stats" 2>&1
grep -q ", 1 module patches," "$TMPDIR/stats" && ok "lazily loaded kernels cost no second patching" ||
	{ notok "lazily loaded kernels cost no second patching"; cat "$TMPDIR/stats"; }
finish
