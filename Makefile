# moebench — the two commands of the README:
#   make run    install missing Debian packages, build, run the embedded quick sweep
#   make test   install missing Debian packages, build, run every test through CTest
# and beside them: make install [PREFIX=/usr/local], make package (a .deb)
# Packages (Debian 12): what the build uses today, nothing more.
#   cmake g++ make      build
#   nlohmann-json3-dev  config loading and JSON/JSONL output
#   libcli11-dev        the command line
#   libfmt-dev          {fmt}: formatted text (tables, messages, numbers with units)
#   catch2              tests (v2, header-only)
#   git                 records the commit in every result's conditions
#   pkg-config          finds hwloc and liburing
#   libhwloc-dev        topology, caches, thread pinning, block devices (probe)
#   liburing-dev        the io_uring O_DIRECT read path (probe; pread threads without it)
#   fio                 storage cross-check beside the built-in reads (probe)
#   sysbench            memory-bandwidth cross-check (probe)
#   libbenchmark-dev    Google Benchmark: the probe's kernel throughput and bench/
#   libsqlite3-dev      moebench history (results across commits)
#   libpq-dev           moebench history --db postgresql://… (one store for many machines)
#   dpkg-dev file       make package: the .deb's library dependencies (dpkg-shlibdeps, file)
# What the tests start, stopped by the tests themselves (never as services):
#   postgresql          a real server for the PostgreSQL history tests
#   slurm-wlm munge     a real single-node Slurm for the sharded-sweep test
# The aarch64 build on an x86-64 machine (`make cross-aarch64`, part of
# `make test` there; AARCH64=0 leaves it out): the cross compiler, qemu-user
# to run its unit tests, and the arm64 multiarch -dev packages of the
# libraries above (dpkg --add-architecture arm64) but libpq-dev, which Debian
# 12 installs for one architecture at a time: that build has no PostgreSQL
# history (it says so when asked).
PACKAGES := cmake g++ make nlohmann-json3-dev libcli11-dev libfmt-dev catch2 git pkg-config libhwloc-dev liburing-dev \
            fio sysbench libbenchmark-dev libsqlite3-dev libpq-dev postgresql slurm-wlm munge dpkg-dev file
CROSS_PACKAGES := g++-aarch64-linux-gnu qemu-user-static libhwloc-dev:arm64 liburing-dev:arm64 libfmt-dev:arm64 \
                  libbenchmark-dev:arm64 libsqlite3-dev:arm64
BUILD    ?= build
BUILD_A64 ?= build-aarch64
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The emulated aarch64 unit tests join `make test` on x86-64 hosts.
AARCH64  ?= $(shell [ "$$(uname -m)" = x86_64 ] && echo 1 || echo 0)

.PHONY: all deps configure build run test install package clean cross-deps cross-aarch64 test-aarch64

all: build

# $(call install_missing,PACKAGES): apt-get install those not installed.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(PACKAGES))

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: configure
	cmake --build $(BUILD) -j $(JOBS) --target moebench
	./$(BUILD)/moebench run --fresh
	./$(BUILD)/moebench report results/quick/results.json --html results/quick/report.html -q
	@echo "HTML report: $(CURDIR)/results/quick/report.html"

# Installs the binary, its manual pages and bash completion under PREFIX
# (default /usr/local); configs are embedded in the binary.
PREFIX ?= /usr/local
install: configure
	cmake --build $(BUILD) -j $(JOBS) --target moebench
	$(SUDO) cmake --install $(BUILD) --prefix $(PREFIX)

# The Debian package (build/moebench_<version>_<arch>.deb): `apt install ./build/moebench_*.deb`.
package: configure
	cmake --build $(BUILD) -j $(JOBS) --target moebench
	cd $(BUILD) && cpack -G DEB

# MOEBENCH_REQUIRE_SERVERS: the PostgreSQL and Slurm tests fail, not skip,
# when their servers are missing (deps installed them).
test: build
	cd $(BUILD) && MOEBENCH_REQUIRE_SERVERS=1 ctest --output-on-failure -j $(JOBS)
	@if [ "$(AARCH64)" = 1 ]; then $(MAKE) --no-print-directory test-aarch64; fi

cross-deps: deps
	@if ! dpkg --print-foreign-architectures | grep -qx arm64; then \
	  echo "Adding the arm64 architecture (dpkg --add-architecture arm64)"; \
	  $(SUDO) dpkg --add-architecture arm64 && $(SUDO) apt-get update -qq; \
	fi
	$(call install_missing,$(CROSS_PACKAGES))

$(BUILD_A64)/CMakeCache.txt: | cross-deps
	cmake -S . -B $(BUILD_A64) -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake \
	  -DMOEBENCH_POSTGRES=OFF

# moebench and its unit tests for aarch64 Linux, from the same sources.
cross-aarch64: cross-deps $(BUILD_A64)/CMakeCache.txt
	cmake --build $(BUILD_A64) -j $(JOBS) --target moebench unit_tests

# The aarch64 unit tests under qemu-user (-cpu max: every NEON level).
test-aarch64: cross-aarch64
	cd $(BUILD_A64) && ctest -L unit --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(BUILD_A64)
