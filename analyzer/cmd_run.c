// SPDX-License-Identifier: MIT
/*
 * `gmprof run [options] -- PROGRAM ARGS...`: checks that this machine can
 * profile (a CUDA driver, a GPU, the Compute Sanitizer library), runs the
 * program with the collector injected (CUDA_INJECTION64_PATH), forwards
 * signals to it, passes its exit status through, and then prints the
 * findings of the profile it wrote.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "demangle.h"
#include "kernels_from.h"
#include "options.h"
#include "marks.h"
#include "nvtx_domains.h"
#include "nvtx_fold.h"
#include "rangemem.h"
#include "run_env.h"
#include "san.h"
#include "session.h"
#include "source.h"
#include "util.h"

static const char usage[] =
	"Usage: gmprof run [options] -- PROGRAM [ARGS...]\n"
	"\n"
	"Run a CUDA program under the collector and print what it found.  The\n"
	"program's exit status passes through; signals sent to gmprof reach it.\n"
	"Every profile the program's processes write is reported (the ranks of an\n"
	"MPI job, the children of a script), and --fail-on looks at all of them.\n"
	"\n"
	"Options:\n"
	"  -o, --output PATTERN     profile path: %p pid, %h host, %q{VAR}, %r rank, %% (gmprof.%p.gmprof)\n"
	"      --force              replace an existing profile\n"
	"      --mode MODE          object: every kernel's reads and writes (default);\n"
	"                           intra: also intra-object maps; alloc: no device\n"
	"                           patches, so about native speed: peaks, what was live\n"
	"                           there, leaks and failed allocations, not the patterns\n"
	"                           that need kernel accesses (a CI gate on memory)\n"
	"      --kernel-sample N    intra mode: monitor every Nth launch of each kernel (1)\n"
	"      --kernels REGEX      intra mode: only kernels whose name (demangled, or as\n"
	"                           mangled) matches\n"
	"      --kernels-from PROFILE  intra mode (implied): only the kernels that touched the\n"
	"                           most of what was live at PROFILE's peaks (an earlier\n"
	"                           run, object mode is enough)\n"
	"      --kernels-top N      how many kernels --kernels-from chooses (5)\n"
	"      --capture RANGE      monitor only the launches in a range: profiler-api (between\n"
	"                           the program's cudaProfilerStart and cudaProfilerStop),\n"
	"                           nvtx:NAME (made inside an NVTX range NAME, a glob:\n"
	"                           'nvtx:epoch *') or\n"
	"                           launches:FIRST-LAST (the program's, from 1); the others run\n"
	"                           unpatched until their module's first monitored launch\n"
	"                           (GMPROF_PATCH_AT=launch, the default here; =load patches at\n"
	"                           load), then at the cost of an empty callback, and count as\n"
	"                           using every object live then; allocations are recorded\n"
	"                           throughout\n"
	"      --depth N            call-path frames kept (32)\n"
	"      --harvest deferred|launch  collect hit flags at the program's syncs (default),\n"
	"                           or after every launch as DrGPUM does\n"
	"      --sanitizer-lib PATH the Compute Sanitizer library to use\n"
	"      --no-caching         ask PyTorch, TensorFlow and JAX not to pool GPU memory,\n"
	"                           so that each tensor is an allocation gmprof sees (slower):\n"
	"                           PYTORCH_NO_CUDA_MEMORY_CACHING=1,\n"
	"                           TF_GPU_ALLOCATOR=cuda_malloc_async,\n"
	"                           XLA_PYTHON_CLIENT_ALLOCATOR=platform\n"
	"      --fail-on PATTERNS   exit 1 when one of these patterns is found (comma list or all)\n"
	"      --top N              findings printed (10); 0 prints none (and, without\n"
	"                           --fail-on, leaves the profile unanalyzed)\n"
	"      --suppressions FILE  leave findings FILE's rules match out of the report\n"
	"                           and --fail-on (README: Suppressions)\n"
	"      --alloc-fn GLOB      a function that wraps cudaMalloc: its callers are the\n"
	"                           allocation sites in the report (repeatable)\n"
	"      --nvtx-numbers       NVTX range and mark names that carry a counter read as\n"
	"                           one in the summary (\"epoch 3\" is \"epoch N\")\n"
	"      --nvtx-strip REGEX   remove what REGEX matches from NVTX names in the summary\n"
	"      --nvtx-domain-include LIST  record the NVTX ranges and marks of these domains\n"
	"                           only (a comma list; \"default\" names the default domain)\n"
	"      --nvtx-domain-exclude LIST  record those of every domain but these (NCCL)\n"
	"      --nvtx-domain-names  record a named domain's ranges and marks as DOMAIN:NAME\n"
	"                           (\"NCCL:ncclAllReduce\": report --ranges '*NCCL:*' selects them)\n"
	"  -h, --help               show this help\n"
	"\n"
	"Exit status: the program's own when it fails; else 1 when --fail-on matched;\n"
	"2 when this machine cannot profile (no driver, no GPU, no Sanitizer library).\n"
	"\n"
	"EXAMPLES\n"
	"  gmprof run -- ./my_app --size 4096\n"
	"  gmprof run --mode intra --kernels 'gemm' -o 'prof.%r.gmprof' -- mpirun -n 2 ./app\n"
	"  gmprof run -o obj.gmprof -- ./app && gmprof run --kernels-from obj.gmprof -o intra.gmprof -- ./app\n"
	"  gmprof run --fail-on memory_leak,unused_allocation -- ./unit_tests\n"
	"  gmprof run --no-caching -o train.gmprof -- python train.py\n";

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* The collector lives beside gmprof (a build tree) or in ../lib/gmprof (an install). */
static int find_collector(char *out, size_t n)
{
	const char *env = getenv("GMPROF_COLLECTOR");
	if (env && *env) {
		snprintf(out, n, "%s", env);
		return access(out, R_OK) == 0;
	}
	char self[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0)
		return 0;
	self[k] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	if (snprintf(out, n, "%s/libgmprof.so", self) < (int)n && access(out, R_OK) == 0)
		return 1;
	return snprintf(out, n, "%s/../lib/gmprof/libgmprof.so", self) < (int)n &&
	       access(out, R_OK) == 0;
}

/*
 * The profile's directory must exist and be writable before the program
 * runs: otherwise it would run unprofiled.  A directory part that holds
 * pattern tokens is expanded by the collector; it is not checked here.
 */
static int preflight_output(const char *pattern)
{
	char dir[PATH_MAX];
	gmp_run__output_dir(pattern, dir, sizeof(dir));
	if (strchr(dir, '%'))
		return 0;
	if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "gmprof: cannot write the profile into '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *env_value(const char *name)
{
	return getenv(name);
}

/*
 * With the program's environment set: what the collector will read of it
 * must be valid, and the profile it names (a pattern without tokens) must
 * not exist unless it may be replaced (--force, GMPROF_FORCE), or the
 * collector would say so at the program's start and let it run unprofiled.
 */
static int preflight_env(void)
{
	static struct gmp_opts co; /* a few KiB: not on the stack */
	char err[1200];
	if (gmp_opts__parse(&co, env_value, err, sizeof(err))) {
		fprintf(stderr, "gmprof: %s\n", err);
		return -1;
	}
	struct stat st;
	if (!co.force && !strchr(co.output, '%') && lstat(co.output, &st) == 0) {
		fprintf(stderr, "gmprof: the profile '%s' exists: --force replaces it\n", co.output);
		return -1;
	}
	return 0;
}

/*
 * The kernel driver lists the GPUs it drives (GMPROF_NVIDIA_PROC: another
 * directory, for the tests).  CUDA_VISIBLE_DEVICES may still hide them all.
 */
static int gpus_listed(void)
{
	const char *dir = getenv("GMPROF_NVIDIA_PROC");
	DIR *d = opendir(dir && *dir ? dir : "/proc/driver/nvidia/gpus");
	if (!d)
		return 0;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	int hidden = v && (!*v || !strcmp(v, "-1") || !strcmp(v, "NoDevFiles"));
	return n > 0 && !hidden;
}

/* A CUDA driver that sees a GPU.  GMPROF_CUDA_DRIVER names another driver library. */
static int preflight_gpu(void)
{
	/*
	 * Initializing CUDA here would cost every run up to a few hundred ms
	 * before the program starts: when the kernel driver lists GPUs, the
	 * program's own cuInit will tell.  Otherwise ask the CUDA driver, for
	 * the precise sentence.
	 */
	if (gpus_listed() && !getenv("GMPROF_CUDA_DRIVER"))
		return 0;
	const char *lib = getenv("GMPROF_CUDA_DRIVER");
	if (!lib || !*lib)
		lib = "libcuda.so.1";
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "gmprof: no CUDA driver on this machine (%s cannot be loaded)\n", lib);
		return -1;
	}
	int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
	int (*count)(int *) = (int (*)(int *))dlsym(h, "cuDeviceGetCount");
	int n = 0;
	int rc = init && count ? init(0) : -1;
	if (rc == 0)
		rc = count(&n);
	dlclose(h);
	if (rc != 0 || n == 0) {
		fprintf(stderr, "gmprof: no GPU: the CUDA driver sees no device%s\n",
			rc == 100 ? "" : rc == 0 ? "" : " (cuInit failed)");
		return -1;
	}
	return 0;
}

static int launch(char **argv, int *status)
{
	/* The child reports a failed exec through a close-on-exec pipe. */
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		fprintf(stderr, "gmprof: cannot start '%s': %s\n", argv[0], strerror(errno));
		return -1;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "gmprof: cannot start '%s': %s\n", argv[0], strerror(errno));
		return -1;
	}
	if (child == 0) {
		close(fds[0]);
		execvp(argv[0], argv);
		int e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	int e = 0;
	ssize_t got;
	while ((got = read(fds[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (got == (ssize_t)sizeof(e)) {
		waitpid(child, status, 0);
		fprintf(stderr, "gmprof: cannot run '%s': %s\n", argv[0], strerror(e));
		return -1;
	}
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = forward };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	while (waitpid(child, status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "gmprof: lost the program: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Reports one profile the program wrote; returns 1 when --fail-on matched. */
static int report(const struct run_opts *o, const char *path)
{
	struct gmp_detect_opts dopts;
	gmp_detect_opts__defaults(&dopts);
	dopts.demangle = gmp_demangle;
	/* The program's binaries are where it ran: findings get their source lines. */
	struct gmp_session s;
	struct gmp_symnotes notes = { .wrappers = 1 }; /* a binary without -g, a wrapper: said after the summary */
	struct gmp_session_opts so = { .detect = &dopts, .suppress = o->suppress, .alloc_fns = o->alloc_fns,
				       .nalloc_fns = o->nalloc_fns, .notes = &notes, .nvtx_strip = o->nvtx_strip,
				       .nvtx_numbers = o->nvtx_numbers };
	if (gmp_session__open(&s, path, &so))
		return -1;
	const struct gmp_result *r = s.r;
	const struct gmp_clock *clock;
	struct gmp_source *src = NULL; /* the sources under the working directory, where it ran */
	const char *bad;
	int rc = o->top && (gmp_session__clock(&s, &clock) || gmp_source__new(NULL, 0, &src, &bad)) ? -1 : 0;
	if (!rc && o->top) {
		gmp_text__findings(stdout, r, path, o->top, &s.sites, clock, src);
		putchar('\n');
		rc = gmp_rmem__summary(stdout, r, &s.sites, 3); /* a loop that keeps memory from one step to the next */
		rc = rc || gmp_mmem__summary(stdout, r, &s.sites, 3) ? -1 : 0; /* the same, marked each time round */
		int said = 0;
		for (int k = 1; k >= 0 && !rc; k--) { /* NVTX names with counters: each seen once */
			char note[1024];
			rc = gmp_nvtx_fold__note(r->trace, k, note, sizeof(note)) ? -1 : 0;
			if (!rc && *note)
				printf("  %-8s %s\n", said++ ? "" : "names", note);
		}
		char domains[1024]; /* which libraries' ranges and marks, and which were left out */
		if (!rc && *gmp_nvtx_domains__note(r->trace, domains, sizeof(domains)))
			printf("  %-8s %s\n", said++ ? "" : "names", domains);
		gmp_report__self_time(stdout, s.in.trace); /* what gmprof cost the run on the host */
		gmp_report__capture(stdout, s.in.trace);
		gmp_report__graphs(stdout, r);
		rc = rc || gmp_source__error(src) ? -1 : 0; /* a source line left out for want of memory */
	}
	gmp_source__free(src);
	if (rc)
		fprintf(stderr, "gmprof: out of memory analyzing '%s'\n", path);
	for (size_t i = 0; i < r->nfindings && !rc; i++)
		if (o->fail_on & (1u << r->findings[i].pattern))
			rc = 1;
	uint64_t untouched, lost = o->fail_on && !rc ? gmp_input__unmonitored(s.in.trace, o->fail_on, &untouched) : 0;
	if (o->fail_on && !rc && (lost || untouched)) {
		/* A gate that saw no accesses there: as gmprof check's monitored. */
		fprintf(stderr, "gmprof: %" PRIu64 " kernel launches in '%s' have no recorded %s: --fail-on cannot pass "
			"it (gmprof check --allow-incomplete can)\n", lost ? lost : untouched, path,
			lost ? "accesses" : "touches");
		rc = 1;
	}
	gmp_session__close(&s);
	if (rc >= 0 && o->top)
		gmp_symnotes__print(&notes, stdout, "");
	return rc;
}

/* Reports every profile of the run; 1 when --fail-on matched one, -1 on a bad one or none. */
static int report_all(const struct run_opts *o, const char *manifest)
{
	size_t n;
	char **paths = gmp_run__listed(manifest, &n);
	if (!n) {
		fprintf(stderr, "gmprof: the program wrote no profile (did it use CUDA? a collector that "
			"could not start said why above)\n");
		free(paths);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (o->top || o->fail_on) { /* else nothing to print or decide: the profiles are the result */
			if (i && o->top)
				putchar('\n');
			int r = report(o, paths[i]);
			rc = r < 0 || rc < 0 ? -1 : r > rc ? r : rc;
		}
		free(paths[i]);
	}
	free(paths);
	return rc;
}

/* Everything after the options: the checks, the program's run, the reports. */
static int run_program(const struct run_opts *o, char **argv)
{
	char collector[PATH_MAX], err[PATH_MAX + 256];
	if (!find_collector(collector, sizeof(collector))) {
		fprintf(stderr, "gmprof: the collector libgmprof.so is not beside gmprof nor in ../lib/gmprof (build it with make, or set GMPROF_COLLECTOR)\n");
		return GMP_EXIT_USAGE;
	}
	if (preflight_output(o->output) || preflight_gpu())
		return GMP_EXIT_USAGE;
	struct gmp_san san;
	/* The option, else the variable the collector itself reads (and the message below names). */
	const char *sanlib = o->sanlib ? o->sanlib : getenv("GMPROF_SANITIZER_LIB");
	if (gmp_san__load(&san, sanlib, err, sizeof(err))) {
		fprintf(stderr, "gmprof: %s%s\n", err, sanlib && *sanlib ? "" : ", or give --sanitizer-lib PATH");
		return GMP_EXIT_USAGE;
	}
	char manifest[PATH_MAX];
	if (gmp_run__make_manifest(o->output, manifest, sizeof(manifest)))
		return GMP_EXIT_USAGE;
	if (gmp_run__set_env(o, collector) || setenv("GMPROF_RUN_MANIFEST", manifest, 1)) {
		fprintf(stderr, "gmprof: cannot set up the environment: %s\n", strerror(errno));
		gmp_run__drop_manifest(manifest);
		return GMP_EXIT_USAGE;
	}
	if (preflight_env()) {
		gmp_run__drop_manifest(manifest);
		return GMP_EXIT_USAGE;
	}
	int status;
	if (launch(argv, &status)) {
		gmp_run__drop_manifest(manifest);
		return GMP_EXIT_USAGE;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (WIFSIGNALED(status))
		fprintf(stderr, "gmprof: the program was killed by signal %d (%s)\n", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	int rep = report_all(o, manifest);
	if (code)
		return code;
	return rep == 1 ? GMP_EXIT_GATE : rep < 0 ? GMP_EXIT_USAGE : GMP_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
	enum { O_FORCE = OPT_CMD_BASE, O_MODE, O_SAMPLE, O_KERNELS, O_DEPTH, O_HARVEST, O_SANLIB,
	       O_FAILON, O_TOP, O_SUPPRESS, O_ALLOCFN, O_KFROM, O_KTOP, O_CAPTURE, O_NOCACHE,
	       O_NVTX_NUMBERS, O_NVTX_STRIP, O_DOMAINS_IN, O_DOMAINS_OUT, O_DOMAIN_NAMES };
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "force", no_argument, 0, O_FORCE },
		{ "mode", required_argument, 0, O_MODE }, { "kernel-sample", required_argument, 0, O_SAMPLE },
		{ "kernels", required_argument, 0, O_KERNELS }, { "depth", required_argument, 0, O_DEPTH },
		{ "kernels-from", required_argument, 0, O_KFROM }, { "kernels-top", required_argument, 0, O_KTOP },
		{ "harvest", required_argument, 0, O_HARVEST }, { "capture", required_argument, 0, O_CAPTURE },
		{ "sanitizer-lib", required_argument, 0, O_SANLIB }, { "no-caching", no_argument, 0, O_NOCACHE },
		{ "fail-on", required_argument, 0, O_FAILON }, { "top", required_argument, 0, O_TOP },
		{ "suppressions", required_argument, 0, O_SUPPRESS }, { "alloc-fn", required_argument, 0, O_ALLOCFN },
		{ "nvtx-numbers", no_argument, 0, O_NVTX_NUMBERS }, { "nvtx-strip", required_argument, 0, O_NVTX_STRIP },
		{ "nvtx-domain-include", required_argument, 0, O_DOMAINS_IN },
		{ "nvtx-domain-exclude", required_argument, 0, O_DOMAINS_OUT },
		{ "nvtx-domain-names", no_argument, 0, O_DOMAIN_NAMES },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	struct run_opts o = { .output = "gmprof.%p.gmprof", .top = 10, .kernels_top = 5 };
	int c;
	uint32_t u;
	gmp_cli__reset_getopt();
	/* '+': stop at the first non-option, the program. */
	while ((c = getopt_long(argc, argv, "+:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case O_FORCE: o.force = 1; break;
		case O_MODE:
			if (strcmp(optarg, "object") && strcmp(optarg, "intra") && strcmp(optarg, "alloc"))
				return gmp_cli__usage_error("run", "--mode must be object, intra or alloc, not '%s'", optarg);
			o.mode = optarg;
			break;
		case O_SAMPLE:
			if (gmp_cli__u32(optarg, &u) || !u)
				return gmp_cli__usage_error("run", "bad value '%s' for --kernel-sample", optarg);
			o.sample = optarg;
			break;
		case O_KERNELS: o.kernels = optarg; break;
		case O_KFROM: o.kernels_from = optarg; break;
		case O_KTOP:
			if (gmp_cli__u32(optarg, &o.kernels_top) || !o.kernels_top)
				return gmp_cli__usage_error("run", "bad value '%s' for --kernels-top", optarg);
			break;
		case O_DEPTH:
			if (gmp_cli__u32(optarg, &u) || !u || u > 256)
				return gmp_cli__usage_error("run", "bad value '%s' for --depth (1 to 256)", optarg);
			o.depth = optarg;
			break;
		case O_HARVEST:
			if (strcmp(optarg, "deferred") && strcmp(optarg, "launch"))
				return gmp_cli__usage_error("run", "--harvest must be deferred or launch, not '%s'", optarg);
			o.harvest = optarg;
			break;
		case O_SANLIB: o.sanlib = optarg; break;
		case O_NOCACHE: o.no_caching = 1; break;
		case O_CAPTURE:
			if (gmp_capture__parse(optarg, NULL, NULL) < 0)
				return gmp_cli__usage_error("run", "bad value '%s' for --capture: %s", optarg,
							    GMP_CAPTURE_EXPECTED);
			o.capture = optarg;
			break;
		case O_FAILON:
			if (gmp_pattern__parse_list(optarg, &o.fail_on))
				return gmp_cli__usage_error("run", "'--fail-on %s' names no known pattern list", optarg);
			break;
		case O_TOP:
			if (gmp_cli__u32(optarg, &o.top))
				return gmp_cli__usage_error("run", "bad value '%s' for --top", optarg);
			break;
		case O_ALLOCFN: {
			int ex = gmp_cli__alloc_fn("run", optarg, o.alloc_fns, &o.nalloc_fns);
			if (ex)
				return ex;
			break;
		}
		case O_SUPPRESS: {
			/* A bad file is said now, not after the program ran. */
			struct gmp_suppress sp;
			if (gmp_suppress__load(optarg, &sp))
				return GMP_EXIT_USAGE;
			gmp_suppress__release(&sp);
			o.suppress = optarg;
			break;
		}
		case O_NVTX_NUMBERS: o.nvtx_numbers = 1; break;
		case O_DOMAIN_NAMES: o.domain_names = 1; break;
		case O_NVTX_STRIP: {
			int ex = gmp_cli__nvtx_strip("run", optarg);
			if (ex)
				return ex;
			o.nvtx_strip = optarg;
			break;
		}
		case O_DOMAINS_IN:
		case O_DOMAINS_OUT:
			if (!*optarg || strlen(optarg) >= 1024) /* the collector's room for the list */
				return gmp_cli__usage_error("run", "bad value '%s' for --%s (a comma list of NVTX domains' "
							    "names, under 1024 bytes)", optarg,
							    c == O_DOMAINS_IN ? "nvtx-domain-include" : "nvtx-domain-exclude");
			*(c == O_DOMAINS_IN ? &o.domains_in : &o.domains_out) = optarg;
			break;
		case 'h': fputs(usage, stdout); return GMP_EXIT_OK;
		case ':': return gmp_cli__usage_error("run", "option '%s' needs a value", argv[optind - 1]);
		default: return gmp_cli__usage_error("run", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0 && argv[optind][0] == '-')
		return gmp_cli__usage_error("run", "unknown option '%s'", argv[optind]);
	if (optind >= argc)
		return gmp_cli__usage_error("run", "no program to run (put it after --)");
	uint32_t lost = gmp_patterns__need_accesses(o.fail_on);
	if (o.mode && !strcmp(o.mode, "alloc") && lost)
		return gmp_cli__usage_error("run", "--fail-on %s needs the kernels' accesses, which --mode alloc does not "
					    "record", gmp_pattern__name((unsigned)__builtin_ctz(lost)));
	if (o.mode && !strcmp(o.mode, "alloc") && o.capture && strcmp(o.capture, "all"))
		return gmp_cli__usage_error("run", "--capture chooses the launches to monitor, and --mode alloc monitors none");
	if (o.domains_in && o.domains_out)
		return gmp_cli__usage_error("run", "give --nvtx-domain-include or --nvtx-domain-exclude, not both");
	if (o.kernels_from) {
		if (o.kernels)
			return gmp_cli__usage_error("run", "give --kernels or --kernels-from, not both");
		if (o.mode && strcmp(o.mode, "intra"))
			return gmp_cli__usage_error("run", "--kernels-from chooses kernels for intra mode, not --mode %s",
						    o.mode);
		o.mode = "intra";
		if (gmp_kernels_from(o.kernels_from, o.kernels_top, &o.chosen))
			return GMP_EXIT_USAGE;
		o.kernels = o.chosen;
	}
	int rc = run_program(&o, argv + optind);
	free(o.chosen);
	return rc;
}
