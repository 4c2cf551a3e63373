# cordon: the two commands of the README are `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
# DIST-1: `make install` puts cordon under PREFIX, inside DESTDIR when set (staging).
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps build test unit integration asan demo bench fuzz clean install package check-package requirements

all: build

# What building needs; `make demo` and `make test` add their own (scripts/deps.sh).
deps:
	@./scripts/deps.sh build

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Everything: the main tree's tests while the sanitizer and macOS trees build, then theirs;
# prints the phase times.
# The test packages come first: ccache is one of them, so the main tree's build is cached too.
# scripts/test.sh builds the main tree (make build) as its first timed phase.
test:
	@./scripts/deps.sh test
	@./scripts/test.sh

# Parts of it, for a quicker loop.
unit: build
	@$(BUILD)/tests/unit_tests --gtest_brief=1

integration: build
	@./scripts/deps.sh test
	@./scripts/run_gtests.sh $(BUILD)/tests/integration_tests
	@./scripts/run_gtests.sh $(BUILD)/tests/library_tests

# The sanitizer tree (scripts/build_sanitizer_tree.sh): its unit and library tests, and the
# integration tests against its cordon.
asan: build
	@./scripts/deps.sh test
	@./scripts/build_sanitizer_tree.sh
	@build-san/tests/unit_tests --gtest_brief=1
	@CORDON_TEST_BINARY=$(CURDIR)/build-san/cordon ./scripts/run_gtests.sh build-san/tests/library_tests
	@CORDON_TEST_BINARY=$(CURDIR)/build-san/cordon ./scripts/run_gtests.sh $(BUILD)/tests/integration_tests

demo: build
	@./scripts/deps.sh demo
	@./scripts/demo.sh

bench: build
	@./scripts/bench.sh

# docs/requirements.md: every requirement id, its line and where it lives (checked by make test).
requirements:
	@./scripts/requirements.py

fuzz:
	@./scripts/deps.sh test
	@./scripts/fuzz.sh

# The binary stripped (the debug information stays in $(BUILD)/cordon), the man page, the
# completions and the docs.
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)" --strip

# DIST-2: $(BUILD)/cordon_<version>_<arch>.deb, the files of `make install PREFIX=/usr`.
package: build
	@cd $(BUILD) && cpack -G DEB

# DIST-2: builds the package, checks its contents and dependencies, runs the unpacked binary.
check-package: build
	@./scripts/check_package.sh

clean:
	rm -rf $(BUILD) build-san build-macos
