# SPDX-License-Identifier: MIT
# Large reads of device memory go through a pinned host buffer (lbuf.c):
# intra maps of a 128 MiB object (12 MiB: a 4 MiB bitmap, 8 MiB of
# counters) come back in 8 MiB copies into pinned memory, each copied on,
# with every touch and count as the script has them; the second launch's
# touch at the object's end lies in the second copy.  Under
# GMPROF_FALLBACK=pinned-reads, or where sanitizerAllocHost refuses (said
# once), the maps are read straight into the collector's memory, with the
# same touches.
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
# VAR COPIES BYTES PINNED_COPIES PINNED_BLOCKS SAID: what each way reads (each launch's whole maps
# block; with no pinned memory at all the hit lists too, from the device).
for v in "GMPROF_FALLBACK= 6 25166944 4 3 0" "GMPROF_FALLBACK=pinned-reads 4 25166944 0 2 0" \
	"GMP_DOUBLE_NO_ALLOC_HOST=1 4 25167456 0 0 1"; do
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
finish
