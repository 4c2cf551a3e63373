# cordon: the two commands of the README are `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build test unit integration asan demo bench fuzz clean

all: build

deps:
	@./scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@./scripts/test.sh

demo: build
	@./scripts/demo.sh

bench: build
	@./scripts/bench.sh

fuzz:
	@./scripts/fuzz.sh

clean:
	rm -rf $(BUILD) build-asan build-fuzz
