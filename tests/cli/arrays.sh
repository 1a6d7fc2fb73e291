# SPDX-License-Identifier: MIT
# CUDA arrays (cudaMallocArray, cuArray3DCreate): the collector records
# each one the Sanitizer reports (ARRAY_CREATED, ARRAY_DESTROYED) as an
# object of kind cuda_array, its bytes from the format the driver gives
# (cuArray3DGetDescriptor: the test double's arrays are one-dimensional,
# of floats, or of bytes when their size is no multiple of 4), at an
# address range of its own far above any real one.  They count towards
# the peak and are reported when leaked, and nothing else is told of them.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
S=tests/scripts/cuda_arrays.jsonl

# The allocations of a profile, as dump writes them (no thread or time).
allocs() {
	"$GMPROF" dump "$1" 2>/dev/null | grep '"op":"\(alloc\|free\)"' | sed -E 's/,"(thread|time_ns)":[0-9]+//g'
}

expect_exit 0 "a program with CUDA arrays runs under the collector" -- \
	env GMPROF_OUTPUT="$TMPDIR/a.gmprof" GMPROF_SUMMARY=1 "$FAKE" "$S"
grep -q 'memory_leak: obj#2 (4.0 MiB): cudaFreeArray (cuArrayDestroy) it once no kernel reads it' "$TMPDIR/err" &&
	ok "the exit summary tells the leaked array and how to free it" || notok "exit summary: $(cat "$TMPDIR/err")"
allocs "$TMPDIR/a.gmprof" >"$TMPDIR/allocs"
cat >"$TMPDIR/want" <<'EOF'
{"op":"alloc","addr":"0xa000000000000000","size":16777216,"kind":"cuda_array"}
{"op":"alloc","addr":"0xa000000001200000","size":4194304,"kind":"cuda_array"}
{"op":"alloc","addr":"0x10000000","size":8388608}
{"op":"alloc","addr":"0x20000000","size":1048576}
{"op":"free","addr":"0x20000000"}
{"op":"free","addr":"0xa000000000000000"}
{"op":"free","addr":"0x10000000"}
EOF
diff -u "$TMPDIR/want" "$TMPDIR/allocs" >"$TMPDIR/diff" &&
	ok "each array is an object of its own range, of its format's bytes; cudaFreeArray frees it" ||
	notok "arrays in the profile: $(cat "$TMPDIR/diff")"
expect_exit 0 "report of the profile" -- "$GMPROF" report "$TMPDIR/a.gmprof"
grep -q '^  device 0: 29.0 MiB at ' "$TMPDIR/out" && grep -q '^    obj#1 (CUDA array) *16.0 MiB' "$TMPDIR/out" &&
	grep -q '^    obj#2 (CUDA array) *4.0 MiB' "$TMPDIR/out" && ! grep -q '^    obj#3 (CUDA' "$TMPDIR/out" &&
	ok "the arrays count in the peak, and the peak names them as arrays" || notok "peak: $(cat "$TMPDIR/out")"
expect_exit 0 "Markdown report of the profile" -- "$GMPROF" report --format markdown "$TMPDIR/a.gmprof"
grep -q '^| `obj#1` | 16.0 MiB (CUDA array) |' "$TMPDIR/out" && grep -q '^| `obj#3` | 8.0 MiB |' "$TMPDIR/out" &&
	ok "  ... Markdown: the arrays live at the peak marked as such" || notok "Markdown: $(grep '^| `obj' "$TMPDIR/out")"
expect_exit 0 "HTML report of the profile" -- "$GMPROF" html --force -o "$TMPDIR/a.html" "$TMPDIR/a.gmprof"
grep -q 'obj#2 (4.0 MiB, CUDA array)</text>' "$TMPDIR/a.html" && grep -q 'obj#3 (8.0 MiB)</text>' "$TMPDIR/a.html" &&
	ok "  ... HTML: the arrays' lifetimes marked as such" || notok "HTML: $(grep -o 'obj#[0-9] ([^)]*)' "$TMPDIR/a.html")"
expect_exit 0 "findings of the profile" -- "$GMPROF" replay --format json "$TMPDIR/a.gmprof"
grep -q '"pattern":"memory_leak","object":"obj#2","object_id":2,"size":4194304,"addr":"0xa000000001200000","kind":"cuda_array"' "$TMPDIR/out" &&
	[ "$(grep -o '"pattern":"[a-z_]*"' "$TMPDIR/out" | sort | tr '\n' ' ')" = \
		'"pattern":"early_allocation" "pattern":"late_deallocation" "pattern":"memory_leak" ' ] &&
	ok "the leaked array is told, with kind cuda_array" || notok "findings: $(cat "$TMPDIR/out")"

# Copies and sets into an array are no use of it (its kernels' texture reads are not seen):
# no dead write of the one copied twice, no unused allocation of the one never copied to,
# whatever the kernels name of them; a leak has no known last use.
cat >"$TMPDIR/use.jsonl" <<'EOF'
{"op":"alloc","addr":"0x20000000","size":16777216,"kind":"cuda_array"}
{"op":"alloc","addr":"0x30000000","size":4096,"kind":"cuda_array"}
{"op":"alloc","addr":"0x10000000","size":4096}
{"op":"memcpy","dst":"0x20000000","size":16777216}
{"op":"memcpy","dst":"0x20000000","size":16777216}
{"op":"memset","addr":"0x20000000","size":4096}
{"op":"memcpy","dst":"0x10000000","src":"0x20000000","size":4096}
{"op":"kernel","name":"k","read":["0x20000000","0x10000000"],"write":["0x30000000"]}
{"op":"memcpy","src":"0x10000000","size":4096}
{"op":"free","addr":"0x30000000"}
{"op":"free","addr":"0x10000000"}
EOF
expect_exit 0 "copies into arrays" -- "$GMPROF" replay --format json "$TMPDIR/use.jsonl"
! grep -q '"pattern":"\(dead_write\|unused_allocation\)"' "$TMPDIR/out" &&
	[ "$(grep -o '"kind":"cuda_array"' "$TMPDIR/out" | wc -l)" = 1 ] &&
	grep -q '"pattern":"memory_leak","object":"obj#1","object_id":1,"size":16777216,"addr":"0x20000000","kind":"cuda_array","peak_bytes"' "$TMPDIR/out" &&
	ok "copies, sets and kernels' accesses of arrays are no use: of them the leak alone, no last use" ||
	notok "copies into arrays: $(cat "$TMPDIR/out")"

# An array of bytes: 1000 of them, no multiple of 4.
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":1000,"kind":"cuda_array"}' >"$TMPDIR/bytes.jsonl"
expect_exit 0 "an array of bytes" -- env GMPROF_OUTPUT="$TMPDIR/b.gmprof" "$FAKE" "$TMPDIR/bytes.jsonl"
allocs "$TMPDIR/b.gmprof" | grep -qx '{"op":"alloc","addr":"0xa000000000000000","size":1000,"kind":"cuda_array"}' &&
	ok "an array of unsigned bytes has as many bytes as elements" || notok "bytes: $(allocs "$TMPDIR/b.gmprof")"

# A format whose element size gmprof does not know (YUY2), and a driver that does not answer:
# the array is left out, and the collector says so once.
expect_exit 0 "an array of an unknown format" -- \
	env GMP_DOUBLE_ARRAY_FORMAT=0xa5 GMPROF_OUTPUT="$TMPDIR/u.gmprof" "$FAKE" "$S"
[ "$(grep -c 'a CUDA array of format 0xa5, whose element size gmprof does not know: it is left out' "$TMPDIR/err")" = 1 ] &&
	! allocs "$TMPDIR/u.gmprof" | grep -q cuda_array && allocs "$TMPDIR/u.gmprof" | grep -q '"addr":"0x10000000"' &&
	ok "an array of an unknown format is left out, said once" || notok "unknown format: $(cat "$TMPDIR/err")"
expect_exit 0 "an array the driver does not describe" -- \
	env GMP_DOUBLE_ARRAY_UNDESCRIBED=1 GMPROF_OUTPUT="$TMPDIR/n.gmprof" "$FAKE" "$S"
[ "$(grep -c 'the driver did not describe a CUDA array (4194304 x 0 x 0): it is left out' "$TMPDIR/err")" = 1 ] &&
	! allocs "$TMPDIR/n.gmprof" | grep -q cuda_array &&
	ok "an array the driver does not describe is left out, said once" || notok "undescribed: $(cat "$TMPDIR/err")"

# Alloc mode records them as well (no kernel patched, the same callbacks).
expect_exit 0 "alloc mode" -- env GMPROF_MODE=alloc GMPROF_OUTPUT="$TMPDIR/m.gmprof" "$FAKE" "$S"
[ "$(allocs "$TMPDIR/m.gmprof" | grep -c cuda_array)" = 2 ] && ok "alloc mode records the arrays" ||
	notok "alloc mode: $(allocs "$TMPDIR/m.gmprof")"

# An array call that runs out of memory: its size from the descriptor its parameters point to,
# each of the four calls (the double passes floats, or bytes for a size no multiple of 4).
cat >"$TMPDIR/failed.jsonl" <<'EOF'
{"op":"alloc","addr":"0x10000000","size":4096}
{"op":"alloc_failed","size":1073741824,"kind":"cuda_array","api":"cudaMallocArray"}
{"op":"alloc_failed","size":1000001,"kind":"cuda_array","api":"cudaMalloc3DArray"}
{"op":"alloc_failed","size":2147483648,"kind":"cuda_array","api":"cuArrayCreate_v2"}
{"op":"alloc_failed","size":64,"kind":"cuda_array","api":"cuArray3DCreate_v2"}
{"op":"free","addr":"0x10000000"}
EOF
expect_exit 0 "the script of failed array calls" -- "$GMPROF" replay "$TMPDIR/failed.jsonl"
expect_exit 0 "failed array calls under the collector" -- env GMPROF_OUTPUT="$TMPDIR/f.gmprof" "$FAKE" "$TMPDIR/failed.jsonl"
"$GMPROF" dump "$TMPDIR/f.gmprof" 2>/dev/null | grep '"op":"alloc_failed"' | sed -E 's/.*"size":([0-9]+),"kind":"([a-z_]+)","api":"([A-Za-z0-9_]+)".*/\3 \2 \1/' >"$TMPDIR/fails"
printf '%s\n' 'cudaMallocArray cuda_array 1073741824' 'cudaMalloc3DArray cuda_array 1000001' \
	'cuArrayCreate cuda_array 2147483648' 'cuArray3DCreate cuda_array 64' | diff -u - "$TMPDIR/fails" >"$TMPDIR/diff" &&
	ok "each failed array call is recorded with the size its descriptor gives" || notok "failed arrays: $(cat "$TMPDIR/diff")"
expect_exit 0 "report of the failures" -- "$GMPROF" report "$TMPDIR/f.gmprof"
grep -q 'cudaMallocArray of 1.0 GiB' "$TMPDIR/out" && ok "the report names the array call and its size" ||
	notok "failure report: $(grep -i -A3 'out of memory' "$TMPDIR/out")"
printf '%s\n' '{"op":"alloc_failed","size":64,"kind":"device_heap"}' >"$TMPDIR/heapfail.jsonl"
expect_exit 2 "a failed allocation on the device heap" -- "$GMPROF" replay "$TMPDIR/heapfail.jsonl"
expect_stderr_line 'a failed allocation is of kind "device", "managed", "async" or "cuda_array"' "refused in one line"
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":64,"kind":"array"}' >"$TMPDIR/kind.jsonl"
expect_exit 2 "an unknown kind" -- "$GMPROF" replay "$TMPDIR/kind.jsonl"
expect_stderr_line '"device_heap", "cuda_array"' "the refusal lists cuda_array"
finish
