# SPDX-License-Identifier: MIT
# Peer access: the Sanitizer reports a peer device's mapping of an
# allocation as an allocation of that device, at the same address, with
# FLAG_PEER and the allocation's own device as sourceDevice (the test
# double's GMP_DOUBLE_PEER=1: each allocation mapped into the next device,
# the mapping released before the free).  A mapping is no object of the
# program's: counted, it ended the real object where it overlapped it, and
# its release freed it early.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
S=tests/scripts/figure2.jsonl
expect_exit 0 "figure2 with every allocation mapped into a peer device" -- \
	env GMP_DOUBLE_PEER=1 GMPROF_OUTPUT="$TMPDIR/peer.gmprof" "$B/double/fake_app" "$S"
[ ! -s "$TMPDIR/err" ] && ok "  ... not a word" || notok "  ... stderr: $(head -c 600 "$TMPDIR/err")"
same_findings "$TMPDIR/peer.gmprof" "$S" && ok "  ... the script's findings" ||
	{ notok "  ... findings differ"; diff "$TMPDIR/want" "$TMPDIR/got" | head -10; }
count() { "$GMPROF" dump "$1" | grep -c "\"op\":\"$2\""; }
[ "$(count "$TMPDIR/peer.gmprof" alloc)" = "$(grep -c '"op":"alloc"' "$S")" ] &&
	[ "$(count "$TMPDIR/peer.gmprof" free)" = "$(grep -c '"op":"free"' "$S")" ] &&
	ok "  ... the script's allocations and frees, no more" ||
	notok "  ... allocs $(count "$TMPDIR/peer.gmprof" alloc), frees $(count "$TMPDIR/peer.gmprof" free)"
"$GMPROF" dump "$TMPDIR/peer.gmprof" | grep '"op":"alloc"' | grep -q '"device":1' &&
	notok "  ... an object on the peer device" || ok "  ... no object on the peer device"
finish
