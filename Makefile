# moebench — the two commands of the README:
#   make run    install missing Debian packages, build, run the embedded quick sweep
#   make test   install missing Debian packages, build, run every test through CTest
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
# What the tests start, stopped by the tests themselves (never as services):
#   postgresql          a real server for the PostgreSQL history tests
#   slurm-wlm munge     a real single-node Slurm for the sharded-sweep test
PACKAGES := cmake g++ make nlohmann-json3-dev libcli11-dev libfmt-dev catch2 git pkg-config libhwloc-dev liburing-dev \
            fio sysbench libbenchmark-dev libsqlite3-dev libpq-dev postgresql slurm-wlm munge
BUILD    ?= build
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps configure build run test clean

all: build

deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

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

# MOEBENCH_REQUIRE_SERVERS: the PostgreSQL and Slurm tests fail, not skip,
# when their servers are missing (deps installed them).
test: build
	cd $(BUILD) && MOEBENCH_REQUIRE_SERVERS=1 ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
