// SPDX-License-Identifier: MIT
// Memory shared between processes (CUDA IPC) on one GPU.  The parent
// allocates shared (obj#1), spare (obj#2) and t (obj#3, early), fills
// shared and spare, and shares both with cudaIpcGetMemHandle; its child
// (this program again, started with the handles, its profile beside the
// parent's: P.child.gmprof for P.gmprof) maps them with
// cudaIpcOpenMemHandle, adds them into out, its own buffer, checks out and
// closes them.  The parent then uses t and frees everything late.
// The parent's findings: t's early allocation alone (shared and spare are
// freed late, but the child used them unseen: left out).  The
// child's: none (what it mapped is the parent's: not in its peak, no
// finding on it); its report's "shared" line names the two, 8.0 MiB.
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static const size_t n = 1 << 20; /* 4 MiB of floats each */

static std::string hex(const cudaIpcMemHandle_t &h)
{
	std::string s;
	char b[3];
	for (size_t i = 0; i < sizeof(h.reserved); i++) {
		std::snprintf(b, sizeof(b), "%02x", (unsigned char)h.reserved[i]);
		s += b;
	}
	return s;
}

static cudaIpcMemHandle_t unhex(const char *s)
{
	cudaIpcMemHandle_t h;
	for (size_t i = 0; i < sizeof(h.reserved); i++) {
		unsigned v;
		if (std::sscanf(s + 2 * i, "%2x", &v) != 1) {
			std::fprintf(stderr, "ipc: a malformed handle\n");
			std::exit(1);
		}
		h.reserved[i] = (char)v;
	}
	return h;
}

static int child(const char *h1, const char *h2)
{
	float *shared, *spare, *out;
	CHECK(cudaIpcOpenMemHandle((void **)&shared, unhex(h1), cudaIpcMemLazyEnablePeerAccess));
	CHECK(cudaIpcOpenMemHandle((void **)&spare, unhex(h2), cudaIpcMemLazyEnablePeerAccess));
	CHECK(cudaMalloc(&out, n * sizeof(float)));
	add<<<blocks(n), 256>>>(out, shared, spare, n);
	float v = 0;
	CHECK(cudaMemcpy(&v, out + n - 1, sizeof(v), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(out));
	CHECK(cudaIpcCloseMemHandle(shared));
	CHECK(cudaIpcCloseMemHandle(spare));
	if (v != 3.0f) { /* shared's 1 and spare's 2 */
		std::fprintf(stderr, "ipc: the child read %g, not 3\n", v);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !std::strcmp(argv[1], "child"))
		return child(argv[2], argv[3]);
	float *shared, *spare, *t;
	CHECK(cudaMalloc(&shared, n * sizeof(float)));   /* obj#1 */
	CHECK(cudaMalloc(&spare, n * sizeof(float)));    /* obj#2: only the child uses it */
	CHECK(cudaMalloc(&t, n * sizeof(float)));        /* obj#3, allocated early */
	fill<<<blocks(n), 256>>>(shared, n, 1.0f);
	fill<<<blocks(n), 256>>>(spare, n, 2.0f);
	CHECK(cudaDeviceSynchronize());
	cudaIpcMemHandle_t h1, h2;
	CHECK(cudaIpcGetMemHandle(&h1, shared));
	CHECK(cudaIpcGetMemHandle(&h2, spare));
	std::string a = hex(h1), b = hex(h2);
	const char *out = std::getenv("GMPROF_OUTPUT"); /* the child's profile beside the parent's: */
	std::string child_out = out ? out : "";          /* P.gmprof's is P.child.gmprof */
	size_t dot = child_out.rfind(".gmprof");
	child_out.insert(dot != std::string::npos && dot + 7 == child_out.size() ? dot : child_out.size(), ".child");
	pid_t pid = fork();
	if (pid == 0) {
		if (out)
			setenv("GMPROF_OUTPUT", child_out.c_str(), 1);
		execl("/proc/self/exe", argv[0], "child", a.c_str(), b.c_str(), (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		std::fprintf(stderr, "ipc: the child failed\n");
		return 1;
	}
	fill<<<blocks(n), 256>>>(t, n, 2.0f);              /* t's first use */
	scale<<<blocks(n), 256>>>(t, n, 2.0f);
	CHECK(cudaFree(t));
	CHECK(cudaFree(shared));
	CHECK(cudaFree(spare));
	std::printf("ok\n");
	return 0;
}
