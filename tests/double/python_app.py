# SPDX-License-Identifier: MIT
"""A stand-in for a CUDA program written in Python, for the collector's
Python frames (tests/cli/python.sh).  It loads the collector and the
Sanitizer test double as tests/double/fake_app.c does, then replays event
scripts from Python functions: the first while holding the GIL
(ctypes.PyDLL), as a framework's C++ code holds it when it allocates, the
second without it (ctypes.CDLL releases it around the call).  With
PYTHON_APP_VIA naming a directory that holds via.py, the first replay's
foreign call is made by via.call (a library's code between the program and
CUDA, when the directory looks like site-packages).

    python3 python_app.py HELD_SCRIPT RELEASED_SCRIPT
"""
import ctypes
import os
import sys


def load():
    col = ctypes.CDLL(os.environ["GMPROF_COLLECTOR"], mode=os.RTLD_NOW | os.RTLD_LOCAL)
    col.InitializeInjection()
    lib = os.environ["GMPROF_DOUBLE"]
    apis = ctypes.PyDLL(lib), ctypes.CDLL(lib)
    for api in apis:
        api.gmp_double_replay.argtypes = [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint64]
        api.gmp_double_replay.restype = ctypes.c_int
    return apis


def replay(api, script, streams, offset):
    if api.gmp_double_replay(script.encode(), streams, offset) != 0:
        sys.exit("python_app: the replay of %s failed" % script)


class Model:
    def build(self, held, script):
        if os.environ.get("PYTHON_APP_VIA"):
            sys.path.insert(0, os.environ["PYTHON_APP_VIA"])
            import via
            via.call(held.gmp_double_replay, script.encode(), 0, 0)  # through a library
            return
        replay(held, script, 0, 0)  # the site of the first script's allocations


def released_call(released, script):
    replay(released, script, 100, 1 << 40)  # no Python frames: the GIL is released


def main():
    held, released = load()
    held.gmp_double_start()
    Model().build(held, sys.argv[1])
    released_call(released, sys.argv[2])
    held.gmp_double_teardown()


main()
