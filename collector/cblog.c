// SPDX-License-Identifier: MIT
/* GMPROF_LOG_CALLBACKS=1: a line on stderr for each callback the Sanitizer delivers (cb_log). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>

#include "collector.h"

/* What a graph's callback says of its streams and memory (cb_log). */
static void log_graph(Sanitizer_CallbackId cbid, const void *cbdata, char *more, size_t n)
{
	if (cbid == SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN || cbid == SANITIZER_CBID_GRAPHS_LAUNCH_END) {
		const Sanitizer_GraphLaunchData *gl = cbdata;
		snprintf(more, n, " graph stream %p upload %u", (void *)gl->stream, gl->isGraphUpload);
		return;
	}
	if (cbid != SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN && cbid != SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END)
		return;
	const Sanitizer_GraphNodeLaunchData *gd = cbdata;
	int k = snprintf(more, n, " node type %d upload %u", (int)gd->nodeType, gd->isGraphUpload);
	if (k < 0 || (size_t)k >= n)
		return;
	switch ((int)gd->nodeType) {
	case NODE_KERNEL:
		snprintf(more + k, n - (size_t)k, " stream %p api stream %p launch %p function %p",
			 (void *)gd->launchData.stream, (void *)gd->launchData.apiStream,
			 (void *)gd->launchData.hLaunch, (void *)gd->launchData.function);
		break;
	case NODE_MEMCPY:
		snprintf(more + k, n - (size_t)k, " address 0x%" PRIx64 " from 0x%" PRIx64 " size %" PRIu64 " api stream %p",
			 gd->memcpyData.dstAddress, gd->memcpyData.srcAddress, gd->memcpyData.size,
			 (void *)gd->memcpyData.apiStream);
		break;
	case NODE_MEMSET:
		snprintf(more + k, n - (size_t)k, " address 0x%" PRIx64 " stream %p", gd->memsetData.address,
			 (void *)gd->memsetData.stream);
		break;
	case NODE_MEM_ALLOC:
		snprintf(more + k, n - (size_t)k, " address 0x%" PRIx64 " size %" PRIu64 " stream %p",
			 gd->memAllocData.address, gd->memAllocData.size, (void *)gd->memAllocData.stream);
		break;
	case NODE_MEM_FREE:
		snprintf(more + k, n - (size_t)k, " address 0x%" PRIx64, gd->memFreeAddress);
		break;
	default:
		break;
	}
}

/*
 * GMPROF_LOG_CALLBACKS=1: what the Sanitizer delivers, for finding out on a
 * GPU how an API reaches the collector (which callbacks, which addresses).
 * One line each: domain and callback id as numbers (sanitizer_api.h names
 * them), the API in progress, and the memory data where there is some.
 */
void cb_log(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void *cbdata, const char *api)
{
	char more[160] = "";
	if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
		switch (cbid) {
		case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
		case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
		case SANITIZER_CBID_RESOURCE_HOST_MEMORY_ALLOC:
		case SANITIZER_CBID_RESOURCE_HOST_MEMORY_FREE:
		case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
		case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC: {
			const Sanitizer_ResourceMemoryData *md = cbdata;
			snprintf(more, sizeof(more), " address 0x%" PRIx64 " size %" PRIu64 " flags 0x%x",
				 md->address, md->size, md->flags);
			break;
		}
		case SANITIZER_CBID_RESOURCE_VIRTUAL_RESERVE:
		case SANITIZER_CBID_RESOURCE_VIRTUAL_RELEASE: {
			const Sanitizer_ResourceVirtualRange *vr = cbdata;
			snprintf(more, sizeof(more), " address 0x%" PRIx64 " size %" PRIu64, vr->address,
				 vr->size);
			break;
		}
		default:
			break;
		}
	} else if (domain == SANITIZER_CB_DOMAIN_GRAPHS) {
		log_graph(cbid, cbdata, more, sizeof(more));
	} else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
		const Sanitizer_LaunchData *ld = cbdata;
		snprintf(more, sizeof(more), " stream %p", (void *)ld->stream);
	}
	fprintf(stderr, "gmprof: callback %d/%d in %s%s\n", (int)domain, (int)cbid,
		api ? api : "(no API)", more);
}

