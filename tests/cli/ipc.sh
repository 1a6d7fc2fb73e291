# SPDX-License-Identifier: MIT
# Memory shared between processes (CUDA IPC).  Another process's memory
# mapped into the program (kind imported) allocates none of the program's:
# not in the peaks, no finding told on it, its uses still order the calls.
# The program's memory shared with others (exported) may be used there
# unseen: only leaks and access patterns are told on it, and a leak's last
# use is not known.  Every output says how many findings were left out so.
# The collector tells both from the calls the program makes, through every
# way the test double knows (GMP_DOUBLE_IPC).
. tests/cli/lib.sh
S=tests/scripts/ipc.jsonl
findings() { grep '^ *[0-9]*\. ' "$TMPDIR/out" | sed -E 's/^ *[0-9]+\. ([a-z_]+): ([a-z]+) .*/\1 \2/' | sort | tr '\n' ' '; }
expect_exit 0 "replay a program that imports and exports memory" -- "$GMPROF" replay "$S"
[ "$(findings)" = "early_allocation a late_deallocation a memory_leak log " ] &&
	ok "  ... the program's own findings and the exported leak, no more" || notok "  ... findings: $(findings)"
grep -qx "device 0: peak 7.1 MiB (7405568 bytes)" "$TMPDIR/out" &&
	ok "  ... the imported bytes are not in the peak" || notok "  ... out: $(cat "$TMPDIR/out")"
grep -qx "6 findings on memory shared between processes left out: the other process's use of it is not seen" \
	"$TMPDIR/out" && ok "  ... and says how many it left out, and why" || notok "  ... out: $(cat "$TMPDIR/out")"
grep -q "suggestion: free it once the processes it was shared with no longer use it (their use is not seen; this process's last is MEMSET (stream 0, #1))" \
	"$TMPDIR/out" && ok "  ... the exported leak's last use is not known" || notok "  ... out: $(cat "$TMPDIR/out")"
# The same program with nothing shared: what was left out, and the pair the imported memory made.
sed 's/,"kind":"imported"//; s/,"exported":true//' "$S" >"$TMPDIR/own.jsonl"
expect_exit 0 "the same program, its memory all its own" -- "$GMPROF" replay "$TMPDIR/own.jsonl"
[ "$(findings)" = "early_allocation a early_allocation in early_allocation out late_deallocation a late_deallocation in late_deallocation out memory_leak log memory_leak spare redundant_allocation b unused_allocation spare " ] &&
	ok "  ... the findings shared memory hid" || notok "  ... findings: $(findings)"
grep -qx "device 0: peak 19.1 MiB (19988480 bytes)" "$TMPDIR/out" && ok "  ... and the larger peak" ||
	notok "  ... out: $(head -3 "$TMPDIR/out")"
# Bytes in use (a pool counted by its NVTX regions) leave imported memory out too.
{
	echo '{"op":"alloc","addr":"0x100000","size":1048576,"label":"pool"}'
	echo '{"op":"alloc","addr":"0x100000","size":65536,"kind":"pool_region","label":"x"}'
	echo '{"op":"alloc","addr":"0x10000000","size":4194304,"kind":"imported"}'
	echo '{"op":"kernel","name":"k","read":["0x10000000"],"write":["0x100000"]}'
	echo '{"op":"sync"}'
	echo '{"op":"free","addr":"0x100000"}'
	echo '{"op":"free","addr":"0x100000"}'
	echo '{"op":"free","addr":"0x10000000"}'
} >"$TMPDIR/inuse.jsonl"
expect_exit 0 "a pool with a region beside imported memory" -- "$GMPROF" replay "$TMPDIR/inuse.jsonl"
grep -qx "device 0: peak 1.0 MiB (1048576 bytes); in use at most 64.0 KiB" "$TMPDIR/out" &&
	ok "  ... in use: the region alone" || notok "  ... $(head -3 "$TMPDIR/out")"
# Uses of imported memory order the calls: k2 reads what k wrote there on another stream, so k3
# after k2 waits for k too, and x, allocated beside k, waits 1 API for its first use (k3): an
# early allocation (with the imported memory left out, none).
{
	echo '{"op":"alloc","addr":"0x10000000","size":4096,"kind":"imported"}'
	echo '{"op":"alloc","addr":"0x100000","size":4096,"label":"x"}'
	echo '{"op":"kernel","name":"k","stream":1,"write":["0x10000000"]}'
	echo '{"op":"kernel","name":"k2","stream":2,"read":["0x10000000"]}'
	echo '{"op":"kernel","name":"k3","stream":2,"write":["0x100000"]}'
	echo '{"op":"sync"}'
	echo '{"op":"free","addr":"0x100000"}'
} >"$TMPDIR/order.jsonl"
expect_exit 0 "a kernel that reads what another wrote into imported memory" -- "$GMPROF" replay --format json "$TMPDIR/order.jsonl"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if [f["pattern"] for f in d["findings"]] == ["early_allocation"] and d["findings"][0]["distance"] == 2 else 1)' \
	"$TMPDIR/out" 2>/dev/null && ok "  ... x waits for the read-after-write on it: distance 2" || notok "  ... $(head -c 900 "$TMPDIR/out")"

expect_exit 0 "replay --format json" -- "$GMPROF" replay --format json "$S"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["findings_left_out"] == {"min_size": 0, "managed": 0, "shared": 6} else 1)' \
	"$TMPDIR/out" 2>/dev/null && ok "  ... findings_left_out counts them" || notok "  ... $(tail -c 300 "$TMPDIR/out")"
expect_exit 0 "report --format json" -- "$GMPROF" report --format json "$S"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["shared_objects"] == {"imported": 2, "imported_bytes": 12582912, "exported": 2} else 1)' \
	"$TMPDIR/out" 2>/dev/null && ok "  ... shared_objects counts the objects" || notok "  ... $(head -c 600 "$TMPDIR/out")"
expect_exit 0 "report" -- "$GMPROF" report "$S"
grep -qx "  shared   2 objects (12.0 MiB) mapped from another process (CUDA IPC): their bytes are the exporter's, so not in the peaks; their uses order the calls, and no finding is told on them; 2 objects shared with other processes (CUDA IPC): their use of them is not seen, so only leaks and access patterns are told on them" \
	"$TMPDIR/out" && ok "  ... says what was shared" || notok "  ... $(grep -n shared "$TMPDIR/out")"
grep -q "^Findings: 3 (6 more on memory shared between processes, whose use by the other process is not seen)" \
	"$TMPDIR/out" && ok "  ... and how many findings it left out" || notok "  ... $(grep Findings "$TMPDIR/out")"
grep -q "^    in \|^    spare " "$TMPDIR/out" && notok "  ... an imported object at a peak" || ok "  ... no imported object at the peak"
expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown "$S"
grep -q "^| shared | 2 objects (12.0 MiB) mapped from another process" "$TMPDIR/out" &&
	grep -q "^(6 more on memory shared between processes, whose use by the other process is not seen)" "$TMPDIR/out" &&
	ok "  ... the row and the count" || notok "  ... $(head -c 1500 "$TMPDIR/out")"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/s.html" "$S"
grep -q "<dt>shared</dt><dd>2 objects (12.0 MiB) mapped from another process" "$TMPDIR/s.html" &&
	grep -q "(6 more on memory shared between processes, whose use by the other process is not seen)" "$TMPDIR/s.html" &&
	grep -q ">in (4.0 MiB, another process's)</text>" "$TMPDIR/s.html" &&
	grep -q ">out (2.0 MiB, shared with other processes)</text>" "$TMPDIR/s.html" &&
	ok "  ... the row, the count, and the lifetimes say whose memory" || notok "  ... $(grep -o '<dt>findings.\{0,300\}' "$TMPDIR/s.html")"
# The CI gate: the program's own findings fail it, and a line says what was left out and why.
expect_exit 1 "check --fail-on all" -- "$GMPROF" check --fail-on all "$S"
grep -q "^PASS shared: 2 objects (12.0 MiB) mapped from another process (CUDA IPC)" "$TMPDIR/out" &&
	grep -qx "  6 findings on them left out" "$TMPDIR/out" && grep -q "^PASS pattern:unused_allocation: 0 findings" "$TMPDIR/out" &&
	grep -q "^FAIL pattern:memory_leak: 1 finding" "$TMPDIR/out" && ok "  ... shared never fails, and says so" ||
	notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "check --max-peak 8MiB: the imported bytes are not the program's" -- "$GMPROF" check --max-peak 8MiB "$S"
expect_exit 0 "flamegraph --at allocated" -- "$GMPROF" flamegraph --at allocated "$S"
grep -q "spare\|;in " "$TMPDIR/out" && notok "  ... $(cat "$TMPDIR/out")" || ok "  ... no imported bytes"
expect_exit 0 "perfetto" -- "$GMPROF" perfetto -o "$TMPDIR/s.json" "$S"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
live = [e["args"]["bytes"] for e in d["traceEvents"] if e.get("ph") == "C" and e.get("name") == "live bytes"]
shared = {e["args"]["object"]: e["args"].get("shared") for e in d["traceEvents"] if e.get("cat") == "object" and e.get("ph") == "b"}
sys.exit(0 if live and max(live) == 7405568 and shared["in"] == "another process'"'"'s" and shared["out"] == "with other processes"
	 and shared["a"] is None else 1)' "$TMPDIR/s.json" 2>/dev/null &&
	ok "  ... its live bytes leave the imported out; its object slices say whose" || notok "  ... live bytes or slices wrong"

# Event scripts: the kind and the flag round-trip; a wrong flag is one sentence and exit 2.
expect_exit 0 "dump of the convert of it" -- sh -c "'$GMPROF' convert -o '$TMPDIR/s.gmprof' '$S' && '$GMPROF' dump '$TMPDIR/s.gmprof'"
[ "$(grep -c '"kind":"imported"' "$TMPDIR/out")" = 2 ] && [ "$(grep -c '"exported":true' "$TMPDIR/out")" = 2 ] &&
	ok "  ... keeps both kinds of sharing" || notok "  ... $(grep alloc "$TMPDIR/out")"
printf '{"op":"alloc","addr":"0x1000","size":16,"exported":1}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "an exported flag that is no boolean" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:1: field 'exported' must be true or false" "  ... one sentence"
printf '{"op":"alloc","addr":"0x1000","size":16,"kind":"imported","exported":true}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "imported memory flagged exported" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:1: an allocation of kind \"imported\" cannot be exported: it is not this process's own memory" \
	"  ... one sentence"
printf '{"op":"alloc_failed","size":16,"kind":"imported"}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a failed import" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"

# The collector, through each way a program shares memory.
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
for way in open pool vmm vmm-late vmm-reshare vmm-retain; do
	expect_exit 0 "the collector's run of it, shared through $way" -- env GMP_DOUBLE_IPC=$way GMPROF_SUMMARY=1 \
		GMPROF_OUTPUT="$TMPDIR/$way.gmprof" "$B/double/fake_app" "$S"
	"$GMPROF" dump "$TMPDIR/$way.gmprof" >"$TMPDIR/dump" 2>&1
	imp=$(grep -c '"kind":"imported"' "$TMPDIR/dump")
	exp=$(grep -c '"exported":true' "$TMPDIR/dump")
	frees=$(grep -c '"op":"free"' "$TMPDIR/dump")
	[ "$imp" = 2 ] && [ "$exp" = 2 ] && [ "$frees" = 4 ] && ok "  ... 2 imported, 2 exported, 4 frees" ||
		notok "  ... $imp imported, $exp exported, $frees frees: $(grep alloc "$TMPDIR/dump")"
	grep -qx "==gmprof== 6 more on memory shared between processes, whose use by the other process is not seen" \
		"$TMPDIR/err" && ok "  ... its summary says how many it left out" || notok "  ... stderr: $(cat "$TMPDIR/err")"
done
# An import that brings no allocation callback (not yet known of the Sanitizer): the collector asks
# the driver what the pointer it returned falls in, records that, and the close's free; said once.
for way in open pool; do
	expect_exit 0 "an import through $way that reports no allocation" -- env GMP_DOUBLE_IPC=$way GMP_DOUBLE_IPC_UNSEEN=1 \
		GMPROF_OUTPUT="$TMPDIR/unseen.$way.gmprof" "$B/double/fake_app" "$S"
	"$GMPROF" dump "$TMPDIR/unseen.$way.gmprof" >"$TMPDIR/dump" 2>&1
	[ "$(grep -c '"kind":"imported"' "$TMPDIR/dump")" = 2 ] && [ "$(grep -c '"op":"free"' "$TMPDIR/dump")" = 4 ] &&
		grep -q '"addr":"0x20000000","size":8388608,"kind":"imported"' "$TMPDIR/dump" &&
		ok "  ... both recorded as imported, at the driver's sizes, and the close's free" ||
		notok "  ... $(grep '"alloc"\|"free"' "$TMPDIR/dump")"
	[ "$(grep -c "the Sanitizer reported no allocation for cuda" "$TMPDIR/err")" = 1 ] && ok "  ... said once" ||
		notok "  ... stderr: $(cat "$TMPDIR/err")"
	"$GMPROF" replay "$TMPDIR/unseen.$way.gmprof" >"$TMPDIR/out" 2>&1
	grep -q "^device 0: peak 7.1 MiB" "$TMPDIR/out" && ok "  ... not in the peak" || notok "  ... $(head -3 "$TMPDIR/out")"
done
# The driver counts the opens of a handle: the memory stays mapped until the last close.
expect_exit 0 "an import opened twice, one open closed at once" -- env GMP_DOUBLE_IPC=open GMP_DOUBLE_IPC_UNSEEN=2 \
	GMPROF_OUTPUT="$TMPDIR/twice.gmprof" "$B/double/fake_app" "$S"
"$GMPROF" dump "$TMPDIR/twice.gmprof" 2>&1 | sed -n 's/^{"op":"\(alloc\|free\)","addr":"0x10000000".*/\1/p; s/^{"op":"kernel","name":"k",.*/k/p' |
	tr '\n' ' ' >"$TMPDIR/order"
[ "$(cat "$TMPDIR/order")" = "alloc k free " ] && ok "  ... in's free comes after k read it: at its second close" ||
	notok "  ... in's alloc, k and in's free, in order: $(cat "$TMPDIR/order")"
# An imported pool is the exporter's: what it holds is not the program's (POOLS records: the device's pool alone).
"$GMPROF" dump "$TMPDIR/pool.gmprof" 2>/dev/null | grep '"op":"pools"' >"$TMPDIR/pools"
[ -s "$TMPDIR/pools" ] && ! grep -q '"pools":' "$TMPDIR/pools" && ok "the imported pool's bytes are not recorded" ||
	notok "the pools recorded: $(cat "$TMPDIR/pools")"
finish
