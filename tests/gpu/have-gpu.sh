#!/bin/sh
# SPDX-License-Identifier: MIT
# Exits 0 when this machine has a usable NVIDIA GPU; otherwise prints one
# line saying why the GPU tests are skipped and exits 1.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "gmprof: no GPU found (nvidia-smi lists none); skipping the GPU tests"
	exit 1
fi
exit 0
