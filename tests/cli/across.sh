# SPDX-License-Identifier: MIT
# A report of several inputs (an MPI job's ranks) closes with their findings
# grouped by fingerprint: how many inputs each fix helps, how many findings
# it covers, the largest saving and where; --summary prints only that and the
# inputs' lines.  Checked on ranks written by hand, and against the JSON
# documents' fingerprints on generated ones.
. tests/cli/lib.sh
# rank0 and rank1: an early allocation at train.cu:10 (moved after the free
# of the buffer before it, it saves 1 MiB at the peak; it could also share
# that buffer: a redundant allocation) and a leak at train.cu:20; rank2 the
# same, both buffers twice as large, without the leak.
rank() { # SIZE LEAK
	printf '%s\n' "{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":$1,\"at\":\"train.cu:9\"}" \
		"{\"op\":\"alloc\",\"addr\":\"0x10000000\",\"size\":$1,\"at\":\"train.cu:10\"}" \
		'{"op":"kernel","name":"a","write":["0x100000"],"at":"train.cu:11"}' \
		'{"op":"free","addr":"0x100000","at":"train.cu:12"}' \
		'{"op":"kernel","name":"b","write":["0x10000000"],"at":"train.cu:13"}' \
		'{"op":"free","addr":"0x10000000","at":"train.cu:14"}'
	[ "$2" = leak ] && printf '%s\n' '{"op":"alloc","addr":"0x20000000","size":4096,"at":"train.cu:20"}' \
		'{"op":"kernel","name":"c","write":["0x20000000"],"at":"train.cu:21"}'
	return 0
}
rank 1048576 leak >"$TMPDIR/rank0.jsonl"
rank 1048576 leak >"$TMPDIR/rank1.jsonl"
rank 2097152 none >"$TMPDIR/rank2.jsonl"
cd "$TMPDIR" || exit 1
expect_exit 0 "report of three ranks" -- "$GMPROF" report rank0.jsonl rank1.jsonl rank2.jsonl
grep -q '^gmprof report: rank2.jsonl' "$TMPDIR/out" && grep -q '^Inputs: 3$' "$TMPDIR/out" &&
	ok "  ... each report, then the inputs' lines" || notok "  ... $(grep '^gmprof report\|^Inputs' "$TMPDIR/out")"
row() { grep -E "^ +$1 +$2 +$3 +$4 +[0-9a-f]{16} +$5 +$6\$" "$TMPDIR/out" >/dev/null; }
row 3/3 3 '2\.0 MiB' rank2.jsonl early_allocation 'train\.cu:10' &&
	ok "  ... the early allocation: on 3 of 3 inputs, 3 findings, the largest saving on rank2" ||
	notok "  ... $(sed -n '/^Findings across/,$p' "$TMPDIR/out")"
row 2/3 2 - - memory_leak 'train\.cu:20' && ok "  ... the leak: on 2 of 3, saving unknown" ||
	notok "  ... leak row: $(sed -n '/^Findings across/,$p' "$TMPDIR/out")"
row 3/3 3 '2\.0 MiB' rank2.jsonl redundant_allocation 'train\.cu:10' && row 3/3 3 - - early_allocation 'train\.cu:9' &&
	[ "$(sed -n '/^Findings across/,$p' "$TMPDIR/out" | grep -cE '^ +[0-9]+/3 ')" -eq 4 ] &&
	ok "  ... one row per fingerprint: the buffer before it, early too, and the one it can share" ||
	notok "  ... rows: $(sed -n '/^Findings across/,$p' "$TMPDIR/out")"
expect_exit 0 "--summary" -- "$GMPROF" report --summary --top 1 rank0.jsonl rank1.jsonl rank2.jsonl
! grep -q '^gmprof report:' "$TMPDIR/out" && grep -q '^Inputs: 3$' "$TMPDIR/out" &&
	row 3/3 3 '2\.0 MiB' rank2.jsonl early_allocation 'train\.cu:10' &&
	grep -q '^  \.\.\. and 3 more (--top N shows N)$' "$TMPDIR/out" &&
	ok "  ... no report per input; --top 1 keeps one row" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "--summary as Markdown" -- "$GMPROF" report --summary --format markdown rank0.jsonl rank1.jsonl rank2.jsonl
grep -qE '^\| 3/3 \| 3 \| 2\.0 MiB \| `rank2\.jsonl` \| `[0-9a-f]{16}` \| early_allocation \| `train\.cu:10` \|$' "$TMPDIR/out" &&
	grep -qE '^\| 2/3 \| 2 \| - \| - \| `[0-9a-f]{16}` \| memory_leak \| `train\.cu:20` \|$' "$TMPDIR/out" &&
	grep -q '^## Inputs: 3$' "$TMPDIR/out" && ok "  ... the same tables" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 2 "--summary with JSON" -- "$GMPROF" report --summary --format json rank0.jsonl
expect_stderr_line "--summary is for text and markdown" "  ... one sentence"
cd "$OLDPWD" || exit 1

# Generated ranks: the rows are the documents' fingerprints, each with the
# count of inputs that have it and of findings, every finding counted once.
GEN=${BUILD:-build}/test/gmprof-gen
for s in 1 2 3; do "$GEN" -n 4000 -s $s --objects 60 -o "$TMPDIR/g$s.gmprof" >/dev/null || notok "gmprof-gen $s"; done
"$GMPROF" report --summary --top 100000 "$TMPDIR"/g1.gmprof "$TMPDIR"/g2.gmprof "$TMPDIR"/g3.gmprof >"$TMPDIR/sum" ||
	notok "summary of generated ranks"
sed -n '/^Findings across/,$p' "$TMPDIR/sum" |
	awk 'NR > 2 { for (i = 3; i <= NF; i++) if ($i ~ /^[0-9a-f]+$/ && length($i) == 16) fp = $i
		      split($1, io, "/"); print fp, io[1], $2 }' | sort >"$TMPDIR/got"
for s in 1 2 3; do
	"$GMPROF" report --format json "$TMPDIR/g$s.gmprof" | grep -o '"fingerprint":"[0-9a-f]*"' | sort | uniq -c |
		awk -v s=$s '{ gsub(/"fingerprint":|"/, "", $2); print $2, s, $1 }'
done | sort | awk '{ if ($1 != fp) { if (fp) print fp, n, c; fp = $1; n = 0; c = 0 } n++; c += $3 }
		  END { if (fp) print fp, n, c }' | sort >"$TMPDIR/want"
[ -s "$TMPDIR/want" ] && [ "$(wc -l <"$TMPDIR/want")" -gt 10 ] && cmp -s "$TMPDIR/got" "$TMPDIR/want" &&
	ok "generated ranks: $(wc -l <"$TMPDIR/want") fingerprints, each with its inputs and findings as the documents give them" ||
	notok "generated: $(diff "$TMPDIR/want" "$TMPDIR/got" | head -5)"
total=$(awk '{ c += $3 } END { print c }' "$TMPDIR/got")
fsum=$(sed -n '/^Inputs: 3/,/^$/p' "$TMPDIR/sum" | awk 'NR > 2 && NF { c += $(NF - 4) } END { print c }')
[ -n "$total" ] && [ "$total" = "$fsum" ] && ok "  ... and every input's findings counted once ($total)" ||
	notok "  ... findings: rows $total, inputs $fsum"
finish
