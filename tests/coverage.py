#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Line coverage of gmprof's own code by `make test` (make coverage).

    python3 tests/coverage.py BUILD_DIR [--files N]

Reads the .gcda files that a `make test` built with --coverage left under
BUILD_DIR (gcov's JSON, one call per object directory) and prints, per
directory of the product (collector/, analyzer/, detector/, format/), the
lines run at least once, then the N files with the smallest share.  A
lower bound: the failure-injection tests run the uninstrumented release
build, and a process that dies by a signal (tests/cli/crash.sh) writes no
counts, so the error paths those reach count as not run.
"""
import collections
import glob
import json
import os
import subprocess
import sys

DIRS = ('collector', 'analyzer', 'detector', 'format')


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith('-'):
        sys.exit('usage: tests/coverage.py BUILD_DIR [--files N]')
    build, top = args[0], 15
    if len(args) == 3 and args[1] == '--files':
        top = int(args[2])
    root = os.getcwd()
    dirs = sorted({os.path.dirname(p) for p in glob.glob(os.path.join(build, '**', '*.gcda'), recursive=True)})
    if not dirs:
        sys.exit(f'coverage: no .gcda files under {build}: run make coverage (a test build with --coverage) first')
    runs = collections.defaultdict(dict)  # file -> line -> times run
    for d in dirs:
        r = subprocess.run(['gcov', '--json-format', '--stdout', '-o', d] + glob.glob(os.path.join(d, '*.gcda')),
                           capture_output=True, text=True, cwd=root)
        if r.returncode:
            sys.exit(f'coverage: gcov failed on {d}: {r.stderr.strip()}')
        for doc in r.stdout.splitlines():
            if not doc.strip():
                continue
            for f in json.loads(doc).get('files', []):
                name = os.path.relpath(f['file'], root) if os.path.isabs(f['file']) else f['file']
                if name.split('/')[0] not in DIRS:
                    continue
                for line in f['lines']:
                    n = line['line_number']
                    runs[name][n] = runs[name].get(n, 0) + line['count']
    print('gmprof line coverage by make test (a lower bound: see tests/coverage.py)')
    print()
    print('| directory | lines run | lines | share |')
    print('|---|---|---|---|')
    for d in DIRS + ('all',):
        files = [f for f in runs if d == 'all' or f.startswith(d + '/')]
        total = sum(len(runs[f]) for f in files)
        run = sum(1 for f in files for c in runs[f].values() if c)
        print(f'| {d} | {run} | {total} | {100.0 * run / max(total, 1):.1f}% |')
    print()
    print(f'The {top} files with the smallest share:')
    print()
    share = sorted(runs, key=lambda f: sum(1 for c in runs[f].values() if c) / max(len(runs[f]), 1))
    for f in share[:top]:
        lines = runs[f]
        missed = sorted(n for n, c in lines.items() if not c)
        print(f'  {f}: {len(lines) - len(missed)} of {len(lines)} lines; not run: {spans(missed)}')


def spans(ns):
    """Line numbers as ranges: 3-5, 9."""
    out, i = [], 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        out.append(str(ns[i]) if i == j else f'{ns[i]}-{ns[j]}')
        i = j + 1
    return ', '.join(out[:12]) + (' ...' if len(out) > 12 else '')


if __name__ == '__main__':
    main()
