# deltalite — build, test and lint.
#
#   make test         the full suite: installs the test peers (scripts/setup-test-env.sh),
#                     then runs every test with the peers required
#   make test-short   go test without the peers (tests that need them skip)
#   Both end with a table of the skipped tests and why (testkit/testsummary);
#   make test fails when a test skips for a missing peer or test server.
#   Both also test each module of INTEGRATIONS (own go.mod, cgo allowed there),
#   after the core: make test PKG=./scan INTEGRATIONS= tests ./scan alone.
#   make lint         gofmt, go vet, staticcheck (the core and INTEGRATIONS)
#   make build        static binary bin/deltalite
#   make bench        the benchmark against delta-rs (bench/run.sh, BENCH_ARGS=...)
#   make bench-go     Go micro-benchmarks (BENCH=regexp, PKG=packages)

# bash with pipefail: go test's exit status must survive the pipe into the summary.
SHELL         := bash
.SHELLFLAGS   := -o pipefail -c

GO            ?= go
PKG           ?= ./...
TEST_TIMEOUT  ?= 25m
TEST_FLAGS    ?=
BENCH         ?= .
BENCH_ARGS    ?=
BENCH_FLAGS   ?= -benchmem
STATICCHECK_VERSION := v0.8.2
CACHE_BIN     := $(CURDIR)/.cache/bin
STATICCHECK   := $(CACHE_BIN)/staticcheck
TESTSUMMARY   := $(CACHE_BIN)/testsummary
# The skip messages of testkit/peers and testkit/testservers (SkipPrefix):
# with the peers installed by setup, such a skip means a broken environment.
REQUIRED_SKIPS := -fail-on-skip-prefix 'missing peer: ' -fail-on-skip-prefix 'missing test server: '

# Modules of their own under integrations/, so the core binary stays cgo-free
# and free of their dependencies (duckdb-go, spark-connect-go).
# TAGS_<dir> are the build tags a module needs (duckdb-go's Arrow interface is
# behind duckdb_arrow).
INTEGRATIONS  ?= integrations/duckdb integrations/spark
TAGS_integrations/duckdb := duckdb_arrow
# in-integrations runs $(1) in each integration module's directory, with
# $(TAGS) its build tags; the first failure stops the recipe.
in-integrations = $(foreach m,$(INTEGRATIONS),(cd $(CURDIR)/$(m) && TAGS='$(TAGS_$(m))' && $(1)) &&) true
# all-integrations runs $(1) in every integration module even when one
# fails, and fails after the last if any did.
all-integrations = rc=0; $(foreach m,$(INTEGRATIONS),(cd $(CURDIR)/$(m) && TAGS='$(TAGS_$(m))' && $(1)) || rc=1;) exit $$rc

.PHONY: all test test-short testsummary setup lint fmt-check vet staticcheck build bench bench-go clean

all: build

setup:
	scripts/setup-test-env.sh

# The core's failure does not stop the integration modules: every module
# runs, and the target fails after the last if any failed.
test: setup testsummary
	rc=0; DELTALITE_REQUIRE_PEERS=1 DELTALITE_REQUIRE_CLOUD_SERVERS=1 $(GO) test -json -timeout $(TEST_TIMEOUT) $(TEST_FLAGS) $(PKG) \
		| $(TESTSUMMARY) $(REQUIRED_SKIPS) || rc=1; \
	($(call all-integrations,DELTALITE_REQUIRE_PEERS=1 $(GO) test -json -tags "$$TAGS" -timeout $(TEST_TIMEOUT) $(TEST_FLAGS) ./... \
		| $(TESTSUMMARY) $(REQUIRED_SKIPS))) || rc=1; \
	exit $$rc

test-short: testsummary
	rc=0; DELTALITE_REQUIRE_PEERS=0 $(GO) test -json -short -timeout 15m $(TEST_FLAGS) $(PKG) | $(TESTSUMMARY) || rc=1; \
	($(call all-integrations,DELTALITE_REQUIRE_PEERS=0 $(GO) test -json -short -tags "$$TAGS" -timeout 15m $(TEST_FLAGS) ./... | $(TESTSUMMARY))) || rc=1; \
	exit $$rc

# Always rebuilt: go build's cache makes that a fraction of a second.
testsummary:
	$(GO) build -o $(TESTSUMMARY) ./testkit/testsummary

lint: fmt-check vet staticcheck

fmt-check:
	@out="$$(find . -name '*.go' -not -path './.venv/*' -not -path './.cache/*' -not -path './bench/out/*' -print0 | xargs -0 gofmt -l)"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKG)
	$(call in-integrations,$(GO) vet -tags "$$TAGS" ./...)

$(STATICCHECK):
	GOBIN=$(CACHE_BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	@$(STATICCHECK) -version | grep -q '($(STATICCHECK_VERSION:v%=%))' || GOBIN=$(CACHE_BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) $(PKG)
	$(call in-integrations,$(STATICCHECK) -tags "$$TAGS" ./...)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o bin/deltalite ./cmd/deltalite

bench: setup
	bench/run.sh $(BENCH_ARGS)

bench-go:
	$(GO) test -run '^$$' -bench '$(BENCH)' $(BENCH_FLAGS) -timeout 60m $(PKG)

clean:
	rm -rf bin
