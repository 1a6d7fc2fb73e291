# SPDX-License-Identifier: MIT
# Golden findings for the paper's examples, and the profile round trip
# through the command line: convert -> replay equals replay of the script,
# and dump -> replay too.
. tests/cli/lib.sh
for s in tests/scripts/*.jsonl; do
	name=$(basename "$s" .jsonl)
	expect_exit 0 "replay $name" -- "$GMPROF" replay --format json --pretty "$s"
	if diff -u "tests/golden/$name.json" "$TMPDIR/out" >"$TMPDIR/diff"; then
		ok "$name matches its golden findings"
	else
		notok "$name matches its golden findings"; cat "$TMPDIR/diff"
	fi
	cp "$TMPDIR/out" "$TMPDIR/script.json"
	expect_exit 0 "convert $name" -- "$GMPROF" convert -o "$TMPDIR/$name.gmprof" "$s"
	expect_exit 0 "replay $name profile" -- "$GMPROF" replay --format json --pretty "$TMPDIR/$name.gmprof"
	cmp -s "$TMPDIR/out" "$TMPDIR/script.json" && ok "$name: profile gives the same findings" || notok "$name: profile gives the same findings"
	"$GMPROF" dump "$TMPDIR/$name.gmprof" >"$TMPDIR/$name.dump.jsonl" 2>"$TMPDIR/err"
	expect_exit 0 "replay $name dump" -- "$GMPROF" replay --format json --pretty "$TMPDIR/$name.dump.jsonl"
	cmp -s "$TMPDIR/out" "$TMPDIR/script.json" && ok "$name: dump gives the same findings" || notok "$name: dump gives the same findings"
	# Standard input works too, and format detection is by content.
	cp "$TMPDIR/$name.gmprof" "$TMPDIR/$name.jsonl.misnamed"
	expect_exit 0 "profile named like a script" -- "$GMPROF" replay --format json --pretty "$TMPDIR/$name.jsonl.misnamed"
	"$GMPROF" replay --format json --pretty - <"$TMPDIR/$name.gmprof" >"$TMPDIR/stdin.json" 2>/dev/null
	cmp -s "$TMPDIR/stdin.json" "$TMPDIR/script.json" && ok "$name: profile on stdin" || notok "$name: profile on stdin"
done
# --stats: one line on stderr with the load and every pass; stdout unchanged.
"$GMPROF" replay tests/scripts/figure2.jsonl >"$TMPDIR/plain" 2>/dev/null
"$GMPROF" replay --stats tests/scripts/figure2.jsonl >"$TMPDIR/withstats" 2>"$TMPDIR/stats"
cmp -s "$TMPDIR/plain" "$TMPDIR/withstats" && [ "$(wc -l <"$TMPDIR/stats")" -eq 1 ] &&
	grep -Eq '^gmprof replay: [0-9]+ events: load [0-9.]+ s, resolve [0-9.]+, graph [0-9.]+, .*rank [0-9.]+, failures [0-9.]+; total [0-9.]+ s, [0-9]+ events/s$' "$TMPDIR/stats" &&
	ok "replay --stats: one line of times on stderr, the same findings" ||
	notok "replay --stats: $(cat "$TMPDIR/stats")"
finish
