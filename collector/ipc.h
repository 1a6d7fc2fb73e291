/* SPDX-License-Identifier: MIT */
/*
 * Memory shared between processes (ipc.c): what the collector's callbacks
 * ask of it.
 */
#ifndef GMPROF_IPC_H
#define GMPROF_IPC_H

#include "san.h"

/*
 * No lock held: the beginning of the program's outermost call fn (a
 * cuMemMap of an imported or exported handle is noted), and its end (ok:
 * it succeeded): handles imported and exported, mappings made and ended,
 * pointers exported; and an import (or its close) the Sanitizer reported
 * no allocation (no free) for, recorded from the driver's address range.
 */
void ipc_call_begins(const char *fn, const void *params);
void ipc_call_ended(const char *fn, const void *params, CUcontext ctx, int ok);
/*
 * The kind an allocation the Sanitizer reports now is recorded as: kind,
 * or GMP_MEM_IMPORTED inside a call that maps another process's memory
 * (counted for the call: an open with none is recorded at its end);
 * *exported set where it maps a handle the program shared.  Once per
 * allocation recorded.
 */
int ipc_kind(int kind, int *exported);
/*
 * 1 inside a call that unmaps another process's memory (cudaIpcCloseMemHandle):
 * its free is no sync of the device, as cudaFree's is.
 */
int ipc_closing(void);

#endif
