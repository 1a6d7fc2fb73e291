# SPDX-License-Identifier: MIT
# Hit lists in pinned host memory (patch ABI 7): a launch collected at a
# sync is read from host memory with no copy (tests/cli/collector.sh counts
# the copies of its hit-list script).
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"

# cudaFree waits for the device, and the Sanitizer's free callback is the
# only sign of it (GMP_DOUBLE_FREE_SYNCS: every free a cudaFree): launches
# it collects whose lists are in host memory have their streams waited for
# first, once each (streams 1 and 2 at the first free, 2 at the second),
# as the copies that read lists on the device waited in stream order.
cat >"$TMPDIR/frees.jsonl" <<'EOF'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"alloc","addr":"0x20000","size":4096}
{"op":"alloc","addr":"0x30000","size":4096}
{"op":"kernel","name":"k1","write":["0x10000"],"stream":1}
{"op":"kernel","name":"k2","read":["0x20000"],"write":["0x30000"],"stream":2}
{"op":"kernel","name":"k3","read":["0x10000"],"stream":1}
{"op":"free","addr":"0x30000"}
{"op":"kernel","name":"k4","read":["0x20000"],"stream":2}
{"op":"free","addr":"0x10000"}
{"op":"free","addr":"0x20000"}
EOF
for v in "3 0 GMPROF_FALLBACK=" "0 4 GMPROF_FALLBACK=device-lists"; do
	waits=${v%% *} v=${v#* } copies=${v%% *} v=${v#* }
	rm -f "$TMPDIR/frees.gmprof"
	expect_exit 0 "cudaFree, $v: the program runs" -- env GMP_DOUBLE_STATS=1 GMP_DOUBLE_FREE_SYNCS=1 "$v" \
		GMPROF_OUTPUT="$TMPDIR/frees.gmprof" "$FAKE" "$TMPDIR/frees.jsonl"
	grep -q "^double: $waits stream syncs, [0-9]* host-to-device copies of [0-9]* bytes, $copies device-to-host copies" "$TMPDIR/err" &&
		ok "cudaFree, $v: $waits stream waits, $copies read-backs" || notok "cudaFree, $v: $(cat "$TMPDIR/err")"
	same_kernels "cudaFree, $v: every launch's reads and writes as the script has them" "$TMPDIR/frees.gmprof" \
		"$TMPDIR/frees.jsonl" 4
done
# Hit lists are pieces of 256 KiB slabs of pinned host memory: 100
# launches before the program's first sync take 100 launch buffers, and
# their lists one slab (where they took 100 pinned allocations); after the
# sync the buffers, with their pieces, serve the next 100 launches.
awk 'BEGIN { print "{\"op\":\"alloc\",\"addr\":\"0x10000\",\"size\":4096}"
	for (r = 0; r < 2; r++) { for (i = 0; i < 100; i++) print "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"0x10000\"]}"
		print "{\"op\":\"sync\"}" }
	print "{\"op\":\"free\",\"addr\":\"0x10000\"}" }' >"$TMPDIR/slab.jsonl"
rm -f "$TMPDIR/slab.gmprof"
expect_exit 0 "200 launches, 100 before each sync: the program runs" -- env GMP_DOUBLE_STATS=4 \
	GMPROF_OUTPUT="$TMPDIR/slab.gmprof" "$FAKE" "$TMPDIR/slab.jsonl"
expect_stderr_line "^double: 0 stream syncs, .*, 10[0-9] allocations, .*, 0 at exit, 1 pinned host blocks, 1 freed$" \
	"  ... 100 launch buffers, their hit lists in one pinned slab, freed at the end"
same_kernels "  ... every launch's reads and writes as the script has them" "$TMPDIR/slab.gmprof" "$TMPDIR/slab.jsonl" 200
finish
