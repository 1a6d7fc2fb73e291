# SPDX-License-Identifier: MIT
# The HTML report in headless Chromium: it renders (a screenshot is taken
# and kept in the build directory), its console stays empty, and it makes
# no network request (Chromium's net log holds no request from a file://
# page).  A page that logs an error and loads an image proves that both
# checks can fail.  Chromium is installed when missing and we are root;
# where it cannot be, the test is skipped with one line.
. tests/cli/lib.sh
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
	{ DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }
	CHROMIUM=$(command -v chromium || true)
fi
if [ -z "$CHROMIUM" ]; then
	echo "ok - skipped: Chromium is not installed and cannot be installed here"
	exit 0
fi
OUTDIR=$(dirname "$GMPROF")
# Quiet flags: no update checks, sync or other traffic of the browser's own.
render() { # HTML PNG NETLOG -> stderr of chromium in $TMPDIR/console
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --disable-default-apps --disable-extensions --no-pings \
		--user-data-dir="$TMPDIR/profile" --enable-logging=stderr --v=0 \
		--log-net-log="$3" --window-size=1280,1600 --screenshot="$2" "file://$1" \
		>/dev/null 2>"$TMPDIR/console"
}
page_requests() { # NETLOG: requests made by a file:// page
	grep -o '"network_isolation_key":"file://' "$1" | wc -l
}
console_lines() { grep -c 'CONSOLE' "$TMPDIR/console"; }

expect_exit 0 "html of an event script" -- "$GMPROF" html -o "$TMPDIR/report.html" tests/scripts/intra_patterns.jsonl
expect_exit 0 "html of a profile" -- "$GMPROF" html -o "$TMPDIR/smc.html" tests/golden/outputs/smc.gmprof
for page in report smc; do
	rm -f "$TMPDIR/$page.png"
	if render "$TMPDIR/$page.html" "$TMPDIR/$page.png" "$TMPDIR/$page.net.json"; then ok "$page.html renders"; else notok "$page.html renders: $(tail -3 "$TMPDIR/console")"; fi
	size=$(wc -c <"$TMPDIR/$page.png" 2>/dev/null || echo 0)
	[ "$size" -gt 20000 ] && ok "  ... screenshot taken ($size bytes)" || notok "  ... screenshot taken ($size bytes)"
	cp "$TMPDIR/$page.png" "$OUTDIR/html-$page.png" 2>/dev/null
	n=$(console_lines); [ "$n" -eq 0 ] && ok "  ... no console messages" || notok "  ... no console messages: $(grep CONSOLE "$TMPDIR/console")"
	n=$(page_requests "$TMPDIR/$page.net.json"); [ "$n" -eq 0 ] && ok "  ... no network requests" || notok "  ... no network requests ($n)"
done

# The negative control: both checks see what they look for.
printf '<!DOCTYPE html><html><body><img src="http://example.invalid/x.png"><script>console.error("boom")</script></body></html>\n' >"$TMPDIR/bad.html"
render "$TMPDIR/bad.html" "$TMPDIR/bad.png" "$TMPDIR/bad.net.json"
[ "$(console_lines)" -gt 0 ] && ok "a console error is seen" || notok "a console error is seen"
[ "$(page_requests "$TMPDIR/bad.net.json")" -gt 0 ] && ok "a network request is seen" || notok "a network request is seen"
finish
