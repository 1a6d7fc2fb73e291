# SPDX-License-Identifier: MIT
# gmprof: a GPU memory-inefficiency profiler.  GNU make.
#
#   make            build the analyzer, the collector and (with nvcc) the device patches
#   make run        set up, build and run the main job (see README.md)
#   make test       build with ASan/UBSan and run every test that needs no GPU
#   make gpu-check  tests that need a GPU (skipped with one line without one)
#   make bench      CPU benchmarks;  make bench-gpu: overhead on a GPU machine
#   make fuzz       longer libFuzzer runs;  make coverage: make test's line coverage
#   make install PREFIX=...;  make clean
#   V=1             show full commands

.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:

PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CC ?= cc
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2)
endif

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-missing-field-initializers
CSTD := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
OPT ?= -O2 -g
# Machines without network (GPU nodes often have none): `make deps-offline` on
# a networked Debian or Ubuntu machine unpacks the dependencies into .deps/root
# (no root needed); copy the tree over and the build uses them, with a run path.
LOCAL_DEPS := .deps/root
ifneq ($(wildcard $(LOCAL_DEPS)/usr/include),)
LOCAL_LIBDIRS := $(abspath $(wildcard $(LOCAL_DEPS)/usr/lib/*-linux-gnu $(LOCAL_DEPS)/lib/*-linux-gnu))
DEP_CFLAGS := $(foreach d,$(abspath $(wildcard $(LOCAL_DEPS)/usr/include/*-linux-gnu) \
	$(LOCAL_DEPS)/usr/include),-isystem $(d))
DEP_LDFLAGS := $(foreach d,$(LOCAL_LIBDIRS),-L$(d) -Wl,-rpath,$(d))
endif
BASE_CFLAGS := $(CSTD) $(WARN) -fPIC -Iinclude -Iformat -Idetector -Ianalyzer -Igpu_patch -Icollector \
	$(DEP_CFLAGS)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# glibc's checked string and file calls, in both flavours: what Ubuntu's gcc
# turns on by default, so that the tests fail where a user's build aborts
# (a realpath buffer under PATH_MAX aborted gmprof report on an H100 host).
FORTIFY := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3

# Two flavours share the sources: release (build/rel) and test (build/test, sanitized).
REL := $(BUILD)/rel
TST := $(BUILD)/test

FORMAT_SRC := $(wildcard format/*.c)
DETECT_SRC := $(wildcard detector/*.c)
# gmprof run shares the collector's library search, options and path patterns.
ANALYZER_SRC := $(filter-out analyzer/main.c,$(wildcard analyzer/*.c)) \
	collector/san.c collector/pathpat.c collector/options.c collector/demangle.c
CORE_SRC := $(FORMAT_SRC) $(DETECT_SRC)

LIBS_ANALYZER := $(DEP_LDFLAGS) -lcjson -ldwarf -lelf -lz -lm -lpthread -ldl
LIBS_COLLECTOR := $(DEP_LDFLAGS) -lunwind -lpthread -ldl -lm
COLLECTOR_SRC := $(wildcard collector/*.c)
# The toolkit's own Sanitizer headers, where they exist; else gmprof's declarations.
SAN_INC := $(CUDA_HOME)/compute-sanitizer/include
ifneq ($(wildcard $(SAN_INC)/sanitizer.h),)
COLLECTOR_CFLAGS := -fvisibility=hidden -Icollector -DGMP_HAVE_SANITIZER_HEADERS \
	-I$(CUDA_HOME)/include -I$(SAN_INC)
else
COLLECTOR_CFLAGS := -fvisibility=hidden -Icollector
endif
LIBS_TEST := $(LIBS_ANALYZER) -lcmocka

DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all run test gpu-check gpu-run gpu-record bench bench-gpu fuzz coverage install clean deps deps-offline patches

all: $(DEPS_STAMP) $(REL)/gmprof $(REL)/libgmprof.so patches

# ---- dependencies -----------------------------------------------------------
# Debian packages the build needs; installed when running as root, else the
# exact command is printed and make stops with status 2.
DEB_PKGS := libdwarf-dev libelf-dev libunwind-dev libcjson-dev libcmocka-dev zlib1g-dev
HEADERS := libdwarf/libdwarf.h:libdwarf-dev gelf.h:libelf-dev libunwind.h:libunwind-dev \
	cjson/cJSON.h:libcjson-dev cmocka.h:libcmocka-dev zlib.h:zlib1g-dev

deps: $(DEPS_STAMP)

# The packages above and their libraries, unpacked into .deps/root for a
# machine without network (see LOCAL_DEPS).
DEB_RUNTIME := libdwarf1 libelf1 libunwind8 libcjson1 libcmocka0 zlib1g
deps-offline:
	$(Q)command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || \
	  { echo "gmprof: deps-offline needs apt-get and dpkg-deb (a Debian or Ubuntu machine)" >&2; exit 2; }
	$(Q)rm -rf .deps && mkdir -p .deps/debs
	$(Q)cd .deps/debs && apt-get download $(DEB_PKGS) $(DEB_RUNTIME) >../download.log 2>&1 || \
	  { cat ../download.log >&2; echo "gmprof: apt-get could not download the packages (is this machine online?)" >&2; exit 2; }
	$(Q)for d in .deps/debs/*.deb; do dpkg-deb -x "$$d" $(LOCAL_DEPS) || exit 2; done
	$(Q)echo "gmprof: dependencies unpacked into $(LOCAL_DEPS); copy the tree to the offline machine and run make there"

$(DEPS_STAMP):
	$(Q)missing=""; for hp in $(HEADERS); do h=$${hp%%:*}; p=$${hp##*:}; \
	  printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <%s>\n' "$$h" | \
	    $(CC) $(DEP_CFLAGS) -E -x c - >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "gmprof: installing missing Debian packages:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	    { echo "gmprof: apt-get could not install:$$missing" >&2; exit 2; }; \
	  else \
	    echo "gmprof: missing build dependencies; run: sudo apt-get install -y$$missing" >&2; exit 2; \
	  fi; \
	fi
	$(Q)mkdir -p $(@D) && touch $@

# ---- compilation ------------------------------------------------------------
$(REL)/%.o: %.c $(DEPS_STAMP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(OPT) $(FORTIFY) -MMD -MP -c $< -o $@

$(TST)/%.o: %.c $(DEPS_STAMP)
	$(call msg,CC-SAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -Icollector -O1 -g $(FORTIFY) $(SAN_FLAGS) -MMD -MP -c $< -o $@

objs = $(patsubst %.c,$(1)/%.o,$(2))

$(REL)/libgmprof-core.a: $(call objs,$(REL),$(CORE_SRC))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(TST)/libgmprof-core.a: $(call objs,$(TST),$(CORE_SRC))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(REL)/gmprof: $(call objs,$(REL),analyzer/main.c $(ANALYZER_SRC)) $(REL)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS_ANALYZER)

$(TST)/gmprof: $(call objs,$(TST),analyzer/main.c $(ANALYZER_SRC)) $(TST)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(LIBS_ANALYZER)

# ---- the collector (libgmprof.so) ---------------------------------------------
$(REL)/collector/%.o: collector/%.c $(DEPS_STAMP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(COLLECTOR_CFLAGS) $(OPT) $(FORTIFY) -MMD -MP -c $< -o $@

$(TST)/collector/%.o: collector/%.c $(DEPS_STAMP)
	$(call msg,CC-SAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(COLLECTOR_CFLAGS) -O1 -g $(FORTIFY) $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(REL)/libgmprof.so: $(call objs,$(REL),$(COLLECTOR_SRC)) $(REL)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(OPT) -Wl,--exclude-libs,ALL -Wl,-z,defs -o $@ $^ $(LIBS_COLLECTOR)

$(TST)/libgmprof.so: $(call objs,$(TST),$(COLLECTOR_SRC)) $(TST)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(SAN_FLAGS) -Wl,--exclude-libs,ALL -o $@ $^ $(LIBS_COLLECTOR)

# The Sanitizer test double and the fake CUDA program that drives it (tests only).
DOUBLE_PARTS := sanitizer_double double_nvtx double_memory double_patch double_graph double_calls double_tmap double_ipc
$(TST)/tests/double/%.o: tests/double/%.c $(DEPS_STAMP)
	$(call msg,CC-SAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -Icollector -Itests/double -O1 -g $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(TST)/double/libsanitizer-public.so: $(DOUBLE_PARTS:%=$(TST)/tests/double/%.o) $(TST)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared $(SAN_FLAGS) -o $@ $^ -lcjson -lm -lpthread -ldl

$(TST)/double/fake_app: $(TST)/tests/double/fake_app.o $(TST)/tests/double/fake_nvtx.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN_FLAGS) -rdynamic -o $@ $^ -ldl -lpthread

# The same program with a driver from before CUDA 12.4: no cuFuncGetParamInfo.
$(TST)/tests/double/fake_app_old.o: tests/double/fake_app.c $(DEPS_STAMP)
	$(call msg,CC-SAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -Icollector -Itests/double -O1 -g $(SAN_FLAGS) -DFAKE_DRIVER_BEFORE_12_4 -c $< -o $@
$(TST)/double/fake_app_old: $(TST)/tests/double/fake_app_old.o $(TST)/tests/double/fake_nvtx.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN_FLAGS) -rdynamic -o $@ $^ -ldl -lpthread

$(TST)/double/libcuda-fake.so: $(TST)/tests/double/fake_cuda.o
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(SAN_FLAGS) -o $@ $^

$(TST)/double/patches.fatbin:
	$(Q)mkdir -p $(@D) && echo "stands in for gmprof_patch.fatbin: the test double loads no patches" > $@

# Uninstrumented copies, for failure injection (an LD_PRELOAD shim cannot
# replace malloc under AddressSanitizer).
$(REL)/tests/double/%.o: tests/double/%.c $(DEPS_STAMP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -Icollector -Itests/double $(OPT) -MMD -MP -c $< -o $@

$(REL)/double/libsanitizer-public.so: $(DOUBLE_PARTS:%=$(REL)/tests/double/%.o) $(REL)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -o $@ $^ -lcjson -lm -lpthread -ldl

$(REL)/double/fake_app: $(REL)/tests/double/fake_app.o $(REL)/tests/double/fake_nvtx.o
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -rdynamic -o $@ $^ -ldl -lpthread

$(REL)/tools/inject_errors.so: tests/tools/inject_errors.c $(DEPS_STAMP)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CSTD) $(WARN) -O1 -g -fPIC -shared -o $@ $< -ldl

INJECT := $(REL)/double/libsanitizer-public.so $(REL)/double/fake_app $(REL)/tools/inject_errors.so \
	$(REL)/gmprof $(REL)/libgmprof.so

# ThreadSanitizer copies of the collector, the double and the fake program,
# for the threads test, and of gmprof (which loads DWARF on two threads).
TSN := $(BUILD)/tsan
TSAN_FLAGS := -fsanitize=thread -O1 -g -DGMP_UNWIND_STEP
$(TSN)/collector/%.o: collector/%.c $(DEPS_STAMP)
	$(call msg,CC-TSAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(COLLECTOR_CFLAGS) $(TSAN_FLAGS) -MMD -MP -c $< -o $@
$(TSN)/%.o: %.c $(DEPS_STAMP)
	$(call msg,CC-TSAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -Icollector -Itests/double $(TSAN_FLAGS) -MMD -MP -c $< -o $@
$(TSN)/libgmprof-core.a: $(call objs,$(TSN),$(CORE_SRC))
	$(Q)rm -f $@ && ar rcs $@ $^
$(TSN)/libgmprof.so: $(call objs,$(TSN),$(COLLECTOR_SRC)) $(TSN)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -fsanitize=thread -Wl,--exclude-libs,ALL -o $@ $^ $(LIBS_COLLECTOR)
$(TSN)/double/libsanitizer-public.so: $(DOUBLE_PARTS:%=$(TSN)/tests/double/%.o) $(TSN)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -fsanitize=thread -o $@ $^ -lcjson -lm -lpthread -ldl
$(TSN)/double/fake_app: $(TSN)/tests/double/fake_app.o $(TSN)/tests/double/fake_nvtx.o
	$(call msg,LD,$@)
	$(Q)$(CC) -fsanitize=thread -rdynamic -o $@ $^ -ldl -lpthread
$(TSN)/gmprof: $(call objs,$(TSN),analyzer/main.c $(ANALYZER_SRC)) $(TSN)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) -fsanitize=thread -o $@ $^ $(LIBS_ANALYZER)
TSAN := $(TSN)/libgmprof.so $(TSN)/double/libsanitizer-public.so $(TSN)/double/fake_app $(TSN)/gmprof

DOUBLE := $(TST)/double/libsanitizer-public.so $(TST)/double/fake_app $(TST)/double/fake_app_old $(TST)/double/patches.fatbin \
	$(TST)/double/libcuda-fake.so $(TST)/libgmprof.so

# ---- device patches (optional) ----------------------------------------------
# Every architecture this nvcc can build, plus PTX of the newest for the future.
PATCH_ARCHS ?= $(shell $(NVCC) --list-gpu-code 2>/dev/null | sed -n 's/^sm_//p' | sort -n)
comma := ,
PATCH_LAST = $(lastword $(PATCH_ARCHS))
PATCH_GENCODE = $(foreach a,$(PATCH_ARCHS),-gencode arch=compute_$(a)$(comma)code=sm_$(a)) \
	-gencode arch=compute_$(PATCH_LAST)$(comma)code=compute_$(PATCH_LAST)
PATCH_FATBIN := $(REL)/gmprof_patch.fatbin

ifeq ($(NVCC),)
patches:
	@echo "gmprof: nvcc not found; skipping the device patches (gpu_patch/)"
else
patches: $(PATCH_FATBIN)

$(PATCH_FATBIN): gpu_patch/gmprof_patch.cu gpu_patch/patch_logic.h gpu_patch/patch_abi.h
	$(call msg,NVCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) --fatbin --compile-as-tools-patch -O3 -Igpu_patch $(PATCH_GENCODE) -o $@ $<
endif

# ---- benchmarks (CPU) -------------------------------------------------------
$(REL)/gmprof-gen: $(REL)/benchmarks/gen.o $(REL)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS_ANALYZER)

# The generator, sanitized, for the tests that need generated profiles.
$(TST)/gmprof-gen: $(TST)/benchmarks/gen.o $(TST)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(LIBS_ANALYZER)

$(REL)/gmprof-bench: $(REL)/benchmarks/harness.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(OPT) -o $@ $^ -lm

# NVTX ranges' cost through NVTX's loader, with and without the collector as its tool (the toolkit's nvtx3 headers).
$(REL)/tools/nvtx_cost: benchmarks/nvtx_cost.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(OPT) -isystem $(CUDA_HOME)/include -o $@ $< -ldl

# The GPU overhead harness: native vs gmprof object/intra vs compute-sanitizer
# memcheck, and native peaks of each program's unfixed and fixed builds.
bench-gpu: all $(REL)/gmprof-bench
	$(Q)BUILD=$(BUILD) NVCC=$(NVCC) RUNS=$(or $(RUNS),5) SCALE=$(or $(SCALE),1) sh benchmarks/overhead.sh

bench: all $(REL)/gmprof-gen $(REL)/gmprof-bench $(REL)/double/fake_app $(REL)/double/libsanitizer-public.so \
	$(if $(wildcard $(CUDA_HOME)/include/nvtx3/nvToolsExt.h),$(REL)/tools/nvtx_cost)
	$(Q)BUILD=$(BUILD) sh benchmarks/run-cpu.sh

# ---- the main job ------------------------------------------------------------
# On a GPU machine: profile a bundled benchmark.  Without one: analyze the
# bundled profile of the same program, recorded on an H100 (tests/data/gpu/).
RUN_INPUT ?= tests/data/gpu/simple_multi_copy.gmprof

run: all
	@if sh tests/gpu/have-gpu.sh >/dev/null 2>&1 && [ -x $(REL)/libgmprof.so ]; then \
	  $(MAKE) --no-print-directory gpu-run; \
	else \
	  echo "gmprof: no GPU here; analyzing the bundled $(RUN_INPUT)"; \
	  $(REL)/gmprof report --symbols tests/data/gpu/bin --alloc-fn 'bench_malloc*' $(RUN_INPUT) && \
	  mkdir -p $(BUILD)/run && $(REL)/gmprof html --force -o $(BUILD)/run/report.html --symbols tests/data/gpu/bin \
	    --alloc-fn 'bench_malloc*' $(RUN_INPUT) && \
	  $(REL)/gmprof flamegraph --force -o $(BUILD)/run/peak.svg --symbols tests/data/gpu/bin $(RUN_INPUT) && \
	  echo "gmprof: also written: $(BUILD)/run/report.html (the report as a page) and $(BUILD)/run/peak.svg (the peak by call path)"; \
	fi

# ---- tests -----------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(TST)/tests/%,$(UNIT_SRC))
TEST_SUPPORT := $(call objs,$(TST),$(wildcard tests/unit/support_*.c))
# Collector modules with no Sanitizer in them, for the unit tests.
COLLECTOR_PURE := $(call objs,$(TST),collector/touches.c collector/alloc_api.c collector/api_quiet.c)

# The NVTX layout check and the test double (pool regions, streams' names) read the toolkit's nvtx3 headers.
$(TST)/tests/double/double_nvtx.o $(REL)/tests/double/double_nvtx.o $(TSN)/tests/double/double_nvtx.o \
$(TST)/tests/double/sanitizer_double.o $(REL)/tests/double/sanitizer_double.o \
$(TSN)/tests/double/sanitizer_double.o $(TST)/tests/double/fake_nvtx.o $(REL)/tests/double/fake_nvtx.o \
$(TSN)/tests/double/fake_nvtx.o: BASE_CFLAGS += -isystem $(CUDA_HOME)/include
$(TST)/tests/unit/test_nvtx_abi.o $(TST)/tests/unit/test_alloc_abi.o: BASE_CFLAGS += -isystem $(CUDA_HOME)/include
$(TST)/tests/%: $(TST)/tests/unit/%.o $(TEST_SUPPORT) $(COLLECTOR_PURE) $(call objs,$(TST),$(ANALYZER_SRC)) $(TST)/libgmprof-core.a
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(LIBS_TEST)

# The device patches' warp code built for the CPU (a thread per lane) against
# the per-lane logic: C++, as the .cu file is.
CXX ?= g++
WARP_TEST := $(TST)/tests/test_warp
UNIT_BIN += $(WARP_TEST)
$(WARP_TEST): tests/unit/test_warp.cpp tests/unit/warp_emu.h gpu_patch/gmprof_patch.cu gpu_patch/patch_logic.h \
	      gpu_patch/patch_abi.h $(DEPS_STAMP)
	$(call msg,CXX-SAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -std=c++17 -Wall -Wextra -Werror -O1 -g $(SAN_FLAGS) -Igpu_patch $(DEP_CFLAGS) -o $@ $< \
		$(DEP_LDFLAGS) -lcmocka -lpthread

# Test tools: checkers of what the analyzer writes.
TEST_TOOLS := $(TST)/tools/trace_check $(TST)/tools/sarif_check $(TST)/tools/schema_check
$(TST)/tools/%: tests/tools/%.c $(DEPS_STAMP)
	$(call msg,CC-SAN,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -o $@ $< $(DEP_LDFLAGS) -lcjson -lm

# ---- fuzzing (libFuzzer; needs clang) ------------------------------------------
CLANG ?= $(shell command -v clang 2>/dev/null)
FUZZ := $(BUILD)/fuzz
FUZZ_TARGETS := profile script baseline dwarf
FUZZ_BINS := $(if $(CLANG),$(patsubst %,$(FUZZ)/fuzz_%,$(FUZZ_TARGETS)))
FUZZ_FLAGS := $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-Iinclude -Iformat -Idetector -Ianalyzer $(DEP_CFLAGS)
FUZZ_SRC := $(CORE_SRC) analyzer/baseline.c analyzer/baseline_json.c analyzer/baseline_marks.c analyzer/baseline_nvtx.c \
	analyzer/input.c
# Built in one command each, so without .d files: every header they may include.
FUZZ_HDR := $(wildcard include/gmprof/*.h format/*.h detector/*.h analyzer/*.h)
FUZZ_TIME ?= 300

$(FUZZ)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_detect.h $(FUZZ_SRC) $(FUZZ_HDR) $(DEPS_STAMP)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_SRC) $(DEP_LDFLAGS) -lcjson -lm

# gmprof's own DWARF reader and ELF symbol tables on an ELF file; seeds are built here (tests/fuzz/seeds.sh).
FUZZ_DWARF_SRC := $(filter analyzer/dwarf%.c,$(ANALYZER_SRC)) analyzer/symtab.c format/strtab.c format/safefile.c \
	detector/u64map.c
$(FUZZ)/fuzz_dwarf: tests/fuzz/fuzz_dwarf.c $(FUZZ_DWARF_SRC) $(FUZZ_HDR) $(DEPS_STAMP)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_DWARF_SRC) $(DEP_LDFLAGS) -ldwarf -lelf -lz -lpthread

# The long run: FUZZ_TIME seconds per target; prints the executions reached.
fuzz: $(DEPS_STAMP)
	@if [ -z "$(CLANG)" ]; then echo "gmprof: clang not found; install it (apt-get install clang) to fuzz" >&2; exit 2; fi
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS)
	$(Q)FUZZ=$(FUZZ) FUZZ_TIME=$(FUZZ_TIME) sh tests/fuzz/run.sh $(FUZZ_TARGETS)

test: $(DEPS_STAMP) $(UNIT_BIN) $(TST)/gmprof $(TST)/gmprof-gen $(DOUBLE) $(TEST_TOOLS) $(FUZZ_BINS) $(INJECT) $(TSAN) patches
	$(Q)python3 -c 'import jsonschema' 2>/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  echo "gmprof: installing python3 and python3-jsonschema for tests/cli/python.sh and json_schema.sh" && \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-jsonschema >/dev/null; } || \
	  echo "gmprof: python3 or its jsonschema is missing (apt-get install python3 python3-jsonschema): tests that need them skip" >&2
	$(Q)BUILD=$(BUILD) NVCC=$(NVCC) FUZZ=$(if $(CLANG),$(FUZZ)) sh tests/run.sh $(UNIT_BIN)

# Line coverage: the whole of make test, built with --coverage in place of
# the sanitizers (a build tree of its own), then the lines it ran per
# directory of the product (tests/coverage.py says what it cannot count).
coverage:
	$(Q)find $(BUILD)/cov -name '*.gcda' -delete 2>/dev/null || true
	$(Q)$(MAKE) --no-print-directory test BUILD=$(BUILD)/cov SAN_FLAGS=--coverage
	$(Q)python3 tests/coverage.py $(BUILD)/cov

gpu-check: all
	@if ! sh tests/gpu/have-gpu.sh; then exit 0; fi; \
	BUILD=$(BUILD) NVCC=$(NVCC) CUDA_HOME=$(CUDA_HOME) sh tests/gpu/run.sh

# The main job on a GPU machine: profile the bundled simpleMultiCopy-shaped benchmark.
gpu-run: all
	@mkdir -p $(BUILD)/gpu $(BUILD)/run
	$(Q)$(NVCC) -O2 -g -lineinfo -Xcompiler -rdynamic -o $(BUILD)/gpu/simple_multi_copy benchmarks/cuda/simple_multi_copy.cu
	$(REL)/gmprof run --force --top 0 -o $(BUILD)/gpu/simple_multi_copy.gmprof -- $(BUILD)/gpu/simple_multi_copy
	$(REL)/gmprof report --top 10 --alloc-fn 'bench_malloc*' $(BUILD)/gpu/simple_multi_copy.gmprof
	$(REL)/gmprof html --force -o $(BUILD)/run/report.html --alloc-fn 'bench_malloc*' $(BUILD)/gpu/simple_multi_copy.gmprof
	$(REL)/gmprof flamegraph --force -o $(BUILD)/run/peak.svg $(BUILD)/gpu/simple_multi_copy.gmprof
	@echo "gmprof: also written: $(BUILD)/run/report.html (the report as a page) and $(BUILD)/run/peak.svg (the peak by call path)"

# After gpu-check on a GPU machine: keep its profiles as test data, in
# tests/data/gpu/ (RECORD_MAX bytes at most each), with the binaries named in
# RECORD_BINS for their symbols.  tests/cli/recorded.sh checks them without a GPU,
# against their programs' .expect files: only the profiles of programs that
# have one are kept, not those of gpu-check's other settings (NAME.l1 ...).
RECORD_DIR ?= tests/data/gpu
RECORD_MAX ?= 1048576
RECORD_BINS ?= simple_multi_copy
gpu-record:
	@test -d $(BUILD)/gpu || { echo "gmprof: run make gpu-check on a GPU machine first" >&2; exit 2; }
	@mkdir -p $(RECORD_DIR)/bin
	@for p in $(BUILD)/gpu/*.gmprof; do n=$$(basename $$p .gmprof); \
	  [ -f tests/gpu/$$n.expect ] || [ -f benchmarks/cuda/$$n.expect ] || continue; \
	  if [ $$(wc -c <$$p) -gt $(RECORD_MAX) ]; then echo "skipped $$n (over $(RECORD_MAX) bytes)"; continue; fi; \
	  cp $$p $(RECORD_DIR)/$$n.gmprof && echo "recorded $$n"; done
	@for n in $(RECORD_BINS); do cp $(BUILD)/gpu/$$n $(RECORD_DIR)/bin/$$n || exit 2; done

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/gmprof
	install -m 0755 $(REL)/gmprof $(DESTDIR)$(PREFIX)/bin/gmprof
	install -m 0755 $(REL)/libgmprof.so $(DESTDIR)$(PREFIX)/lib/gmprof/libgmprof.so
	if [ -f $(PATCH_FATBIN) ]; then install -m 0644 $(PATCH_FATBIN) $(DESTDIR)$(PREFIX)/lib/gmprof/; fi
	install -d $(DESTDIR)$(PREFIX)/share/gmprof/schema
	install -m 0644 docs/schema/*.schema.json $(DESTDIR)$(PREFIX)/share/gmprof/schema/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
