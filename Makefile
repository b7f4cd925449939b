# The two commands a newcomer needs: `make demo` and `make test`.
# Both install what is missing first (scripts/ensure-deps.sh).

GO       ?= go
RACE     ?= -race
# Packages run one at a time: several of them start local Cassandra JVMs on the
# same loopback addresses, and two at once would fight over the ports.
TESTFLAGS ?= -p 1 -count=1 -timeout 75m
DEMOFLAGS ?=
BENCHFLAGS ?=

.PHONY: test test-short demo lint build bench bench-cluster fuzz

test:
	scripts/ensure-deps.sh prometheus
	$(GO) test $(RACE) $(TESTFLAGS) ./...

test-short:
	$(GO) test -short -count=1 ./...

demo:
	scripts/ensure-deps.sh
	$(GO) run ./cmd/tsbucket demo $(DEMOFLAGS)

build:
	$(GO) build -o bin/tsbucket ./cmd/tsbucket

lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./bucket ./repo ./metrics ./schema

# tsbucket against hand-written gocql on a live node (BENCHMARKS.md): writes
# docs/bench/results.json, docs/bench/latency.png and BENCHMARKS.md's tables.
bench-cluster:
	scripts/ensure-deps.sh
	$(GO) run ./bench/cmd/tsbucket-bench $(BENCHFLAGS)

fuzz:
	$(GO) test -run '^$$' -fuzz . -fuzztime 30s ./bucket

# TestModel (integration/model_test.go), the randomized model test of the
# repository's rules, over many seeds: `make model SEEDS=200`, one seed with
# `make model SEED=17`. Seeds run MODEL_PARALLEL at a time, each on keys of
# its own; a failure prints its seed and the steps that led there.
SEEDS ?= 50
SEED ?=
MODEL_PARALLEL ?= 4
.PHONY: model
model:
	scripts/ensure-deps.sh
	$(GO) test -count=1 -timeout 180m -parallel $(MODEL_PARALLEL) -run '^TestModel$$' ./integration \
		-model.seeds=$(SEEDS) $(if $(SEED),-model.seed=$(SEED))
