# SPDX-License-Identifier: MIT
# Large reads of device memory go through a pinned host buffer (lbuf.c):
# intra maps of a 128 MiB object (12 MiB: a 4 MiB bitmap, 8 MiB of
# counters) come back in 8 MiB copies into pinned memory, each copied on,
# with every touch and count as the script has them; the second launch's
# touch at the object's end lies in the second copy.  Under
# GMPROF_FALLBACK=pinned-reads, or where sanitizerAllocHost refuses (said
# once), the maps are read straight into the collector's memory, with the
# same touches.  And few objects' maps come back in few copies.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"

cat >"$TMPDIR/big.jsonl" <<'J'
{"op":"alloc","addr":"0x10000000","size":134217728}
{"op":"alloc","addr":"0x20000000","size":4096}
{"op":"kernel","name":"k","touch":[{"addr":"0x10000000","size":1048576,"rw":"w"},{"addr":"0x20000000","size":4096,"rw":"w"}]}
{"op":"kernel","name":"k","touch":[{"addr":"0x17f00000","size":1048576,"count":3,"rw":"r"}]}
{"op":"sync"}
{"op":"free","addr":"0x10000000"}
{"op":"free","addr":"0x20000000"}
J
# VAR COPIES BYTES PINNED_COPIES PINNED_BLOCKS SAID: what each way reads (the maps of the objects
# each launch hit, 12 MiB and 384 bytes, then 12 MiB; with no pinned memory at all the hit lists
# too, from the device), and the pinned blocks (a slab of hit lists; the buffer reads go through).
for v in "GMPROF_FALLBACK= 4 25166208 4 2 0" "GMPROF_FALLBACK=pinned-reads 2 25166208 0 1 0" \
	"GMP_DOUBLE_NO_ALLOC_HOST=1 4 25166944 0 0 1"; do
	set -- $v
	rm -f "$TMPDIR/big.gmprof"
	expect_exit 0 "$1: the program runs" -- env GMP_DOUBLE_STATS=5 GMPROF_MODE=intra "$1" \
		GMPROF_OUTPUT="$TMPDIR/big.gmprof" "$FAKE" "$TMPDIR/big.jsonl"
	grep -q "^double: 0 stream syncs, [0-9]* host-to-device copies of [0-9]* bytes, $2 device-to-host copies of $3 bytes, .*, 0 at exit, $5 pinned host blocks, $5 freed, $4 device-to-host copies into them of [0-9]* bytes$" "$TMPDIR/err" &&
		ok "  ... $2 read-backs of $3 bytes, $4 of them into pinned memory; every pinned block freed" ||
		notok "  ... read-backs: $(cat "$TMPDIR/err")"
	n=$(grep -c '^gmprof: cannot allocate pinned host memory for reading intra maps (out of memory): they are read straight into pageable memory, more slowly$' "$TMPDIR/err")
	[ "$n" = "$6" ] && ok "  ... said $6 times that pinned memory was refused" || notok "  ... said $n times: $(cat "$TMPDIR/err")"
	same_kernels "  ... every launch's touches and counts as the script has them" "$TMPDIR/big.gmprof" "$TMPDIR/big.jsonl" 2 touches
done

# Only the maps of the objects a launch hit are read: one copy for each
# run of them whose maps lie within 256 KiB of each other (runs in
# harvest.c), and no header copy (intra maps on the GPU need none).  Ten
# buffers of 1 MiB (96 KiB of maps each); the kernel touches the 4th to
# 6th (one run) and the 10th (three buffers' maps past the run: a copy of
# its own): 2 read-backs of their 384 KiB of maps, not the block's 960 KiB.
awk 'BEGIN { for (i = 0; i < 10; i++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":1048576}\n", 16777216 + 1048576 * i
	print "{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":\"0x1300000\",\"size\":4096,\"rw\":\"w\"},{\"addr\":\"0x1400000\",\"size\":8,\"count\":2,\"rw\":\"r\"},{\"addr\":\"0x15ffff0\",\"size\":16,\"rw\":\"rw\"},{\"addr\":\"0x1900000\",\"size\":65536,\"rw\":\"r\"}]}"
	print "{\"op\":\"sync\"}"
	for (i = 0; i < 10; i++) printf "{\"op\":\"free\",\"addr\":\"0x%x\"}\n", 16777216 + 1048576 * i }' >"$TMPDIR/runs.jsonl"
rm -f "$TMPDIR/runs.gmprof"
expect_exit 0 "few objects hit: the program runs" -- env GMP_DOUBLE_STATS=1 GMPROF_MODE=intra \
	GMPROF_OUTPUT="$TMPDIR/runs.gmprof" "$FAKE" "$TMPDIR/runs.jsonl"
expect_stderr_line "^double: 0 stream syncs, [0-9]* host-to-device copies of [0-9]* bytes, 2 device-to-host copies of 393216 bytes, " \
	"  ... 2 read-backs of the 4 objects' 384 KiB of maps: one for the run of three, one for the 10th"
same_kernels "  ... the launch's touches and counts as the script has them" "$TMPDIR/runs.gmprof" "$TMPDIR/runs.jsonl" 1 touches

# Eight threads at once, each freeing 1 MiB buffers (96 KiB of maps: read
# through the pinned buffer) after launches on two streams: a thread that
# collects launches at a cudaFree does so inside the free callback, which
# holds the driver's lock, while another thread's copy through the buffer
# waits for that lock.  Waiting for the buffer there deadlocked (the double
# aborts after 10 s); a read finding it busy goes straight to its memory.
maps_rounds 6 "$TMPDIR/threads.jsonl"
rm -f "$TMPDIR/threads.gmprof"
expect_exit 0 "8 threads reading maps while others free: no deadlock" -- env GMPROF_MODE=intra GMP_DOUBLE_FREE_SYNCS=1 \
	GMPROF_OUTPUT="$TMPDIR/threads.gmprof" "$FAKE" --threads 8 "$TMPDIR/threads.jsonl"
n=$(touched_launches "$TMPDIR/threads.gmprof")
[ "$n" = 192 ] && ok "  ... every launch of the 8 threads with its touch (192)" || notok "  ... $n launches with their touch, not 192"
finish
