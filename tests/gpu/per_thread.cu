// SPDX-License-Identifier: MIT
// legacy_stream.cu built with --default-stream per-thread (per_thread.nvcc):
// its no-stream work (the copies, the set, the residual check) runs on the
// thread's default stream, which does not wait for stream 1, so x is not
// idle while the check runs.  per_thread.jsonl is the event model: the
// thread's default stream is stream 2, a blocking stream (it would wait
// for the legacy stream, which has no work here but allocations).
#include "legacy_stream.cu"
