// SPDX-License-Identifier: MIT
/*
 * The test double's module patching: the patches "loaded" into its
 * context, the callbacks the collector asks each instruction kind to call,
 * and the module patched and unpatched (GMP_DOUBLE_STATS=3 counts both;
 * GMP_DOUBLE_PATCHES=1 prints each instruction kind's device function).
 * On a GPU a kernel runs from its start until a context synchronization
 * whose call began after it was launched; unpatching its module meanwhile
 * is what the collector must never do (GMPROF_PATCH_AT=range), so the
 * double aborts on it with a sentence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "double_memory.h"
#include "double_patch.h"

static const char *patched_cb[16]; /* callback name per instruction id (atomic: patched while kernels run) */
static int module_patched;
static unsigned long kernels_started, kernels_launched, kernels_covered;
static int unpatching; /* inside sanitizerUnpatchModule: no kernel may start (atomic) */

int double_module_patched(void)
{
	return __atomic_load_n(&module_patched, __ATOMIC_RELAXED);
}

const char *double_patched_cb(Sanitizer_InstructionId id)
{
	return id > 0 && id < 16 ? __atomic_load_n(&patched_cb[id], __ATOMIC_RELAXED) : NULL;
}

void double_kernel_started(void)
{
	__atomic_add_fetch(&kernels_started, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&unpatching, __ATOMIC_SEQ_CST)) {
		fprintf(stderr, "sanitizer double: a kernel started while its module was being unpatched\n");
		abort();
	}
}

void double_kernel_launched(void)
{
	__atomic_add_fetch(&kernels_launched, 1, __ATOMIC_ACQ_REL);
}

void double_context_sync_begins(void)
{
	unsigned long launched = __atomic_load_n(&kernels_launched, __ATOMIC_ACQUIRE),
		      covered = __atomic_load_n(&kernels_covered, __ATOMIC_RELAXED);
	while (launched > covered && !__atomic_compare_exchange_n(&kernels_covered, &covered, launched, 1,
								    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
	}
}

SanitizerResult sanitizerAddPatchesFromFile(const char *filename, CUcontext ctx)
{
	(void)ctx;
	return access(filename, R_OK) == 0 ? SANITIZER_SUCCESS : SANITIZER_ERROR_INVALID_PARAMETER;
}

SanitizerResult sanitizerPatchInstructions(const Sanitizer_InstructionId id, CUmodule module,
					   const char *name)
{
	static const char *const known[] = { "gmp_patch_global_access", "gmp_patch_global_access_object",
					     "gmp_patch_global_access_records",
					     "gmp_patch_memcpy_async", "gmp_patch_memcpy_async_object", "gmp_patch_device_malloc",
					     "gmp_patch_device_free" };
	if (module != MODULE || id <= 0 || id >= 16)
		return SANITIZER_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(name, known[i]) == 0) {
			__atomic_store_n(&patched_cb[id], known[i], __ATOMIC_RELAXED);
			if (getenv("GMP_DOUBLE_PATCHES")) /* which device function each instruction kind calls */
				fprintf(stderr, "double: instruction %d patched to %s\n", (int)id, known[i]);
			return SANITIZER_SUCCESS;
		}
	return SANITIZER_ERROR_INVALID_PARAMETER; /* no such device function in the patches */
}

SanitizerResult sanitizerPatchModule(CUmodule module)
{
	if (module != MODULE)
		return SANITIZER_ERROR_INVALID_PARAMETER;
	__atomic_store_n(&module_patched, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&double_stats.module_patches, 1, __ATOMIC_RELAXED);
	double_delay("GMP_DOUBLE_PATCH_MS");
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerUnpatchModule(CUmodule module)
{
	if (module != MODULE || !double_module_patched())
		return SANITIZER_ERROR_INVALID_PARAMETER;
	/* From here to the end no kernel may start; none that started may be left uncovered. */
	__atomic_store_n(&unpatching, 1, __ATOMIC_SEQ_CST);
	unsigned long started = __atomic_load_n(&kernels_started, __ATOMIC_SEQ_CST),
		      covered = __atomic_load_n(&kernels_covered, __ATOMIC_SEQ_CST);
	if (started > covered) {
		fprintf(stderr, "sanitizer double: sanitizerUnpatchModule while %lu kernels of the module may "
			"still run (started, and no context synchronization covered them)\n", started - covered);
		abort();
	}
	double_delay("GMP_DOUBLE_PATCH_MS"); /* as long as patching: kernels starting meanwhile are caught */
	/* Patching it again takes sanitizerPatchInstructions again. */
	for (size_t i = 0; i < sizeof(patched_cb) / sizeof(patched_cb[0]); i++)
		__atomic_store_n(&patched_cb[i], NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&module_patched, 0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&double_stats.module_unpatches, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&unpatching, 0, __ATOMIC_SEQ_CST);
	return SANITIZER_SUCCESS;
}

