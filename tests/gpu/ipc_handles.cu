// SPDX-License-Identifier: MIT
// Memory shared between processes through handles (ipc.cu shares through
// cudaIpcGetMemHandle): a stream-ordered pool's allocation, p (obj#1),
// exported with cudaMemPoolExportPointer from a pool shared as a file
// descriptor, and a mapping of the driver's virtual memory API, v (obj#2),
// whose allocation is shared as a file descriptor
// (cuMemExportToShareableHandle); t (obj#3) is allocated early.  The
// child (this program again, the descriptors inherited, its profile
// P.child.gmprof beside P.gmprof) imports both (cudaMemPoolImportPointer;
// cuMemImportFromShareableHandle, then cuMemMap), adds them into out, its
// own buffer, checks out and lets them go.  The parent's findings: t's
// early allocation alone (p and v may be used by the child unseen: left
// out).  The child's: none (what it imported is the parent's); its report's
// "shared" line names the two.  The event models are ipc_handles.jsonl and
// ipc_handles.child.jsonl.  Not yet run on a GPU: whether the Sanitizer
// reports the imports as allocations (a pool's pointer, a mapping of an
// imported handle), which the child's report line tells.
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

static const size_t n = 1 << 20; /* 4 MiB of floats each */

/* The driver's functions that share an allocation as a file descriptor. */
static struct {
	decltype(&::cuMemExportToShareableHandle) export_handle;
	decltype(&::cuMemImportFromShareableHandle) import_handle;
} share;

static void load_driver(void)
{
	load_vmm();
	entry(&share.export_handle, "cuMemExportToShareableHandle");
	entry(&share.import_handle, "cuMemImportFromShareableHandle");
}

static CUmemAllocationProp prop_of(void)
{
	CUmemAllocationProp prop = {};
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	return prop;
}

/* The mapping's size: n floats, rounded up to the driver's granularity. */
static size_t mapping_bytes(void)
{
	CUmemAllocationProp prop = prop_of();
	size_t gran = 0;
	DRV(drv.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	return (n * sizeof(float) + gran - 1) / gran * gran;
}

/* Maps h at a range of its own, read and write for device 0; the range in *at. */
static float *map(CUmemGenericAllocationHandle h, size_t bytes, CUdeviceptr *at)
{
	DRV(drv.reserve(at, bytes, 0, 0, 0));
	DRV(drv.map(*at, bytes, 0, h, 0));
	CUmemAccessDesc acc = {};
	acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	acc.location.id = 0;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	DRV(drv.access(*at, bytes, &acc, 1));
	return reinterpret_cast<float *>(*at);
}

static void unmap(CUdeviceptr at, size_t bytes, CUmemGenericAllocationHandle h)
{
	DRV(drv.unmap(at, bytes));
	DRV(drv.release(h));
	DRV(drv.unreserve(at, bytes));
}

static std::string hex(const void *p, size_t n)
{
	std::string s;
	char b[3];
	for (size_t i = 0; i < n; i++) {
		std::snprintf(b, sizeof(b), "%02x", ((const unsigned char *)p)[i]);
		s += b;
	}
	return s;
}

static void unhex(const char *s, void *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (std::sscanf(s + 2 * i, "%2x", &v) != 1) {
			std::fprintf(stderr, "ipc_handles: a malformed argument\n");
			std::exit(1);
		}
		((unsigned char *)p)[i] = (unsigned char)v;
	}
}

static int child(int pool_fd, const char *exported, int mem_fd)
{
	cudaMemPool_t pool;
	CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)pool_fd,
						   cudaMemHandleTypePosixFileDescriptor, 0));
	cudaMemPoolPtrExportData data;
	unhex(exported, &data, sizeof(data));
	float *p, *out;
	CHECK(cudaMemPoolImportPointer((void **)&p, pool, &data));
	const size_t bytes = mapping_bytes();
	CUmemGenericAllocationHandle h;
	DRV(share.import_handle(&h, (void *)(uintptr_t)mem_fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	CUdeviceptr at;
	float *v = map(h, bytes, &at);
	CHECK(cudaMalloc(&out, n * sizeof(float)));
	add<<<blocks(n), 256>>>(out, p, v, n);
	float got = 0;
	CHECK(cudaMemcpy(&got, out + n - 1, sizeof(got), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(out));
	CHECK(cudaFree(p)); /* before the parent frees it */
	unmap(at, bytes, h);
	CHECK(cudaMemPoolDestroy(pool));
	if (got != 3.0f) { /* p's 1 and v's 2 */
		std::fprintf(stderr, "ipc_handles: the child read %g, not 3\n", got);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	load_driver();
	if (argc == 5 && !std::strcmp(argv[1], "child"))
		return child(std::atoi(argv[2]), argv[3], std::atoi(argv[4]));
	cudaMemPoolProps props = {};
	props.allocType = cudaMemAllocationTypePinned;
	props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = 0;
	cudaMemPool_t pool;
	CHECK(cudaMemPoolCreate(&pool, &props));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	float *p, *t;
	CHECK(cudaMallocFromPoolAsync((void **)&p, n * sizeof(float), pool, s)); /* obj#1 */
	const size_t bytes = mapping_bytes();
	CUmemAllocationProp prop = prop_of();
	CUmemGenericAllocationHandle h;
	DRV(drv.create(&h, bytes, &prop, 0));
	CUdeviceptr at;
	float *v = map(h, bytes, &at);                                        /* obj#2 */
	CHECK(cudaMalloc(&t, n * sizeof(float)));                             /* obj#3, allocated early */
	fill<<<blocks(n), 256, 0, s>>>(p, n, 1.0f);
	fill<<<blocks(n), 256, 0, s>>>(v, n, 2.0f);
	CHECK(cudaDeviceSynchronize());
	int pool_fd = -1, mem_fd = -1;
	CHECK(cudaMemPoolExportToShareableHandle(&pool_fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
	cudaMemPoolPtrExportData data;
	CHECK(cudaMemPoolExportPointer(&data, p));
	DRV(share.export_handle(&mem_fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	/* dup: a descriptor the child inherits across exec (the driver's may close on exec). */
	const int pool_dup = dup(pool_fd), mem_dup = dup(mem_fd);
	if (pool_dup < 0 || mem_dup < 0) {
		std::perror("ipc_handles: dup");
		return 1;
	}
	const char *out = std::getenv("GMPROF_OUTPUT"); /* the child's profile beside the parent's: */
	std::string child_out = out ? out : "";          /* P.gmprof's is P.child.gmprof */
	size_t dot = child_out.rfind(".gmprof");
	child_out.insert(dot != std::string::npos && dot + 7 == child_out.size() ? dot : child_out.size(), ".child");
	std::string a = std::to_string(pool_dup), d = hex(&data, sizeof(data)), m = std::to_string(mem_dup);
	pid_t pid = fork();
	if (pid == 0) {
		if (out)
			setenv("GMPROF_OUTPUT", child_out.c_str(), 1);
		execl("/proc/self/exe", argv[0], "child", a.c_str(), d.c_str(), m.c_str(), (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		std::fprintf(stderr, "ipc_handles: the child failed\n");
		return 1;
	}
	close(pool_dup);
	close(mem_dup);
	close(pool_fd);
	close(mem_fd);
	fill<<<blocks(n), 256>>>(t, n, 2.0f); /* t's first use */
	scale<<<blocks(n), 256>>>(t, n, 2.0f);
	CHECK(cudaFree(t));
	CHECK(cudaFreeAsync(p, s));
	CHECK(cudaStreamSynchronize(s));
	unmap(at, bytes, h);
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaMemPoolDestroy(pool));
	std::printf("ok\n");
	return 0;
}
