#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Static counts of the device patches' machine code, without a GPU or a disassembler.

    python3 benchmarks/patch_sass.py [ARCH...]      (default: sm_75 sm_80 sm_90)

For each architecture it builds gpu_patch/gmprof_patch.cu as a tools patch
(nvcc --cubin --compile-as-tools-patch -O3, as the fatbin is built), and
prints for each global-access callback: its instructions, its local-memory
stores and loads (STL, LDL: the registers a patch must save for the
patched kernel, and spills), and how many of those stores come before its
first branch and of those loads after its last one, before its return,
which every call pays, even one that returns at once (a launch outside a
capture range).

The toolkit here has no disassembler, so instructions are told apart by
the opcode field of their 128-bit words (bits 0 to 11).  That encoding is
not documented: each architecture is first checked against a kernel
compiled here whose local stores are known (256 of them, by a loop over a
dynamically indexed array); where the counts do not match, the
architecture is reported as unreadable, not guessed at.
"""
import os
import struct
import subprocess
import sys
import tempfile

STL, LDL = 0x387, 0x983
CONTROL = {0x944: 'CALL', 0x947: 'BRA', 0x949: 'BRX', 0x94D: 'EXIT', 0x950: 'RET'}
FUNCTIONS = ['gmp_patch_global_access', 'gmp_patch_global_access_object', 'gmp_patch_global_access_records',
             'gmp_patch_global_access_empty']
CALIBRATION = r'''
extern "C" __global__ void known_stores(float *a, const float *b, int k)
{
	float t[256];
	for (int j = 0; j < 256; j++)
		t[(j * k) & 255] = b[j];
	a[threadIdx.x] = t[k & 255];
}
'''


def sections(path):
    """An ELF file's sections by name."""
    with open(path, 'rb') as f:
        d = f.read()
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for name, _typ, _flags, _addr, off, size in hdrs:
        end = d.index(b'\0', stroff + name)
        out[d[stroff + name:end].decode()] = d[off:off + size]
    return out


def opcodes(code):
    return [struct.unpack_from('<Q', code, i)[0] & 0xfff for i in range(0, len(code), 16)]


def counts(ops):
    first = next((i for i, o in enumerate(ops) if o in CONTROL), len(ops))
    ret = max((i for i, o in enumerate(ops) if o == 0x950), default=None)
    exit_ldl = 0
    if ret is not None:
        last = max((i for i, o in enumerate(ops[:ret]) if o in CONTROL), default=-1)
        exit_ldl = ops[last + 1:ret].count(LDL)
    live = len(ops)
    while live and ops[live - 1] == 0x918:  # the NOPs that pad a function
        live -= 1
    return live, ops.count(STL), ops.count(LDL), ops[:first].count(STL), exit_ldl


def nvcc(args):
    cuda = os.environ.get('CUDA_HOME', '/usr/local/cuda')
    exe = os.environ.get('NVCC', os.path.join(cuda, 'bin', 'nvcc'))
    r = subprocess.run([exe] + args, capture_output=True, text=True)
    if r.returncode:
        sys.exit('patch_sass: %s failed: %s' % (exe, (r.stderr or r.stdout).strip().splitlines()[-1:]))


def main():
    archs = sys.argv[1:] or ['sm_75', 'sm_80', 'sm_90']
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print('| arch | function | instructions | STL | LDL | STL before the first branch | LDL before the return |')
    print('|---|---|---|---|---|---|---|')
    unreadable = []
    with tempfile.TemporaryDirectory() as tmp:
        cal_src = os.path.join(tmp, 'calibration.cu')
        with open(cal_src, 'w') as f:
            f.write(CALIBRATION)
        for arch in archs:
            cal = os.path.join(tmp, 'cal-%s.cubin' % arch)
            nvcc(['--cubin', '-arch=' + arch, '-O3', '-o', cal, cal_src])
            ops = opcodes(sections(cal)['.text.known_stores'])
            if ops.count(STL) != 256 or LDL not in ops:
                unreadable.append(arch)
                continue
            patch = os.path.join(tmp, 'patch-%s.cubin' % arch)
            nvcc(['--cubin', '-arch=' + arch, '--compile-as-tools-patch', '-O3', '-I' + os.path.join(root, 'gpu_patch'),
                  '-o', patch, os.path.join(root, 'gpu_patch', 'gmprof_patch.cu')])
            text = sections(patch)
            for fn in FUNCTIONS:
                print('| %s | %s | %d | %d | %d | %d | %d |' % ((arch, fn) + counts(opcodes(text['.text.' + fn]))))
    if unreadable:
        print('patch_sass: the opcodes of %s do not read as this script expects (its known local stores '
              'were not found): no counts for it' % ', '.join(unreadable), file=sys.stderr)
        sys.exit(2)


if __name__ == '__main__':
    main()
