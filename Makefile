# hados — a newcomer needs two commands: `make demo` and `make test`.
GO        ?= go
BIN       := bin/hados
BUILD     := build
GOFLAGS   ?=
# the fuzz targets `make fuzz` runs, package:Target (./bench/… are in the bench module); each has its
# seed corpus in the package's testdata/fuzz/<Target> (internal/reliability checks both)
FUZZ      := ./device:FuzzParseSpecs ./hados:FuzzParseConfig ./race/plan:FuzzImportSpark ./race/plan:FuzzDecodeJSON \
             ./race/plan:FuzzParseExpr ./race/planbuilder:FuzzBuilderInputs ./race/planbuilder:FuzzExpressionTrees \
             ./race/qualify:FuzzReadEventLog ./operators/expr:FuzzEval ./operators/expr:FuzzCastFromString \
             ./operators/expr:FuzzFormatDouble ./operators/expr:FuzzLike ./operators/expr:FuzzSubstring \
             ./operators/types:FuzzParse ./operators/types:FuzzParseStruct \
             ./operators/write:FuzzEscapePathName ./operators/write:FuzzUnescapePathName \
             ./operators/exchange:FuzzDecodeBlock ./operators/exchange:FuzzParseIndex ./operators/exchange:FuzzDecodeIPC \
             ./operators/scan:FuzzScan ./operators/scan:FuzzPageHeader ./operators/scan:FuzzDictPages ./operators/spill:FuzzRunReader ./operators:FuzzCastStringInt \
             ./device/soft:FuzzPipelineDescriptor ./device/soft:FuzzAggUpdate ./device/soft:FuzzJoinDescriptor \
             ./device/soft:FuzzSortGatherDescriptors ./device:FuzzJoinEncode ./device/soft:FuzzJoinCondDescriptor \
             ./device/soft/internal/codectest:FuzzLZ4Decompress ./device/soft/internal/codectest:FuzzSnappyDecompress \
             ./device/soft/internal/codectest:FuzzLZ4RoundTrip ./device/soft/internal/codectest:FuzzSnappyRoundTrip \
             ./internal/csnappy:FuzzDecode \
             ./metrics:FuzzCollect ./metrics:FuzzPromHistogram \
             ./internal/tpchgen:FuzzParseSchema ./internal/tpchgen:FuzzOptions ./internal/tpchgen:FuzzSplitIndependence \
             ./internal/safepath:FuzzResolve ./internal/reliability:FuzzShuffleReader \
             ./cgo:FuzzPlan ./bench/tpchdata:FuzzDecodeMarker ./bench/duckdb:FuzzFormatDecimal ./bench/duckdb:FuzzParseQueryList \
             ./bench/conformance:FuzzParseDecimal
FUZZTIME  ?= 10s
# fuzz-ci: every target briefly (an execution count, not a duration: Go 1.26's fuzz coordinator can
# fail a target with a spurious "context deadline exceeded" when a duration ends, go.dev/issue/75804),
# minimising new inputs only a little
FUZZCITIME ?= 300x
FUZZFLAGS ?=

.PHONY: all build test test-race bench bench-tpch conformance lint demo cshared cabi-check fuzz fuzz-ci stress deps prometheus clean

all: build

## build: the hados CLI into bin/hados
build:
	$(GO) build $(GOFLAGS) -o $(BIN) ./cmd/hados

## test: every test (the command CI runs), the C codecs under AddressSanitizer (an over-read of a
## few bytes passes every other test), the TPC-H conformance suites against DuckDB, and each fuzz
## target for a few seconds
test:
	$(GO) test $(GOFLAGS) -count=1 ./...
	$(GO) test $(GOFLAGS) -asan -count=1 ./device/soft/internal/codectest/
	$(MAKE) conformance
	$(MAKE) fuzz-ci

## conformance: TPC-H at SF 0.01 through hados equals DuckDB, Parquet interop with DuckDB (the bench module; Spark's plans need ../shared)
conformance:
	cd bench && $(GO) test $(GOFLAGS) -count=1 ./conformance/ ./interop/ ./duckdb/ ./cmd/duckbench/

## test-race: every test under the race detector
test-race:
	$(GO) test $(GOFLAGS) -race -count=1 ./...

## bench: benchmarks with ratios against their peers (results go to docs/PERFORMANCE.md)
bench: build
	$(GO) test $(GOFLAGS) -run '^$$' -bench . -benchtime 20x ./dma/
	HADOS_DEVICES='soft:memory=1GiB,cores=2,mode=discrete' ./$(BIN) diag

## bench-tpch: TPC-H SF 1, hados vs DuckDB at 1 and 2 threads (table, docs/tpch-sf1.svg; see docs/PERFORMANCE.md)
bench-tpch: build
	./$(BIN) bench tpch --sf 1 --threads 1,2 --rounds 3 --chart docs/tpch-sf1.svg

## lint: gofmt and go vet
lint:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## demo: device discovery, the diagnostic on the software DPU, RACE on TPC-H plans, Q6 and Q3 executed on the DPUs
demo: build
	@echo "== devices (a host-visible and a discrete software DPU) =="
	HADOS_DEVICES='soft:memory=512MiB;soft:memory=512MiB,mode=discrete' ./$(BIN) devices
	@echo
	@echo "== Spark resource discovery =="
	HADOS_DEVICES='soft:memory=512MiB;soft:memory=512MiB,mode=discrete' ./$(BIN) devices --spark-discovery
	@echo
	@echo "== diagnostic =="
	HADOS_DEVICES='soft:memory=512MiB;soft:memory=512MiB,mode=discrete' ./$(BIN) diag
	@echo
	@echo "== RACE: TPC-H Q6 (a Spark-shaped plan shipped with hados) converted for the DPU =="
	./$(BIN) explain race/planbuilder/testdata/tpch/q6.json
	@echo
	@echo "== TPC-H at SF 0.1 as Parquet =="
	@test -f $(BUILD)/demo/.done || (./$(BIN) gen tpch --sf 0.1 --out $(BUILD)/demo --quiet && touch $(BUILD)/demo/.done)
	@echo
	@echo "== Q6 (scan, fused filter, aggregate) on the software DPU =="
	HADOS_DEVICES='soft:memory=1GiB,mode=discrete' ./$(BIN) run race/planbuilder/testdata/tpch/q6.json --warehouse $(BUILD)/demo
	@echo
	@echo "== Q3 (broadcast hash joins, shuffle, aggregate, TopN) on two software DPUs, with metrics =="
	HADOS_DEVICES='soft:count=2,memory=1GiB' ./$(BIN) run race/planbuilder/testdata/tpch/q3.json --warehouse $(BUILD)/demo --metrics
	@if [ -d ../shared/spark-plans/tpch ]; then \
	  echo; echo "== RACE: which of Spark's own TPC-H plans would offload =="; \
	  ./$(BIN) qualify ../shared/spark-plans/tpch; fi

## cshared: libhados.so with hados.h and hados.pc (build/), and the software DPU as a driver plugin
cshared:
	@mkdir -p $(BUILD)/lib $(BUILD)/include $(BUILD)/lib/pkgconfig
	$(GO) build $(GOFLAGS) -buildmode=c-shared -o $(BUILD)/lib/libhados.so ./cgo
	rm -f $(BUILD)/lib/libhados.h
	cp cgo/include/hados.h $(BUILD)/include/hados.h
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: hados\nDescription: hados DPU offload runtime (C ABI)\nVersion: 1.0.0\nLibs: -L$${libdir} -lhados\nCflags: -I$${includedir}\n' "$(CURDIR)/$(BUILD)" > $(BUILD)/lib/pkgconfig/hados.pc
	$${CC:-gcc} -shared -fPIC -O3 -fvisibility=hidden -DHADOS_SOFT_PLUGIN -Idevice/include \
	  -o $(BUILD)/lib/libhados_soft.so device/soft/soft_*.c -lpthread
	@echo "built $(BUILD)/lib/libhados.so (header $(BUILD)/include/hados.h, pkg-config $(BUILD)/lib/pkgconfig/hados.pc)"
	@echo "built $(BUILD)/lib/libhados_soft.so: HADOS_DEVICES=plugin:$(CURDIR)/$(BUILD)/lib/libhados_soft.so"

## cabi-check: libhados.so, then the C executor example (examples/executor) and the C ABI misuse test under
## valgrind (installed if missing; Go runtime noise suppressed by examples/executor/go-runtime.supp, which says what)
CABI_TPCH  := $(BUILD)/cabi-tpch
CABI_SPARK := $(BUILD)/cabi-spark-tpch
CABI_ARGS  := $(CABI_TPCH) race/planbuilder/testdata/tpch/q6.json examples/executor/q6-host-rows.json
CABI_EXEC  := $(CABI_SPARK) examples/executor/tpch-q3.explain.txt examples/executor/tpch-q3.expected examples/executor/q6-host-rows.json
CABI_CC   = $${CC:-gcc} -Wall -Werror -g -I$(BUILD)/include -Iexamples/executor -L$(BUILD)/lib -Wl,-rpath,$(CURDIR)/$(BUILD)/lib
VALGRIND  := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
             --suppressions=examples/executor/go-runtime.supp
cabi-check: cshared build
	command -v valgrind >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind)
	test -d $(CABI_TPCH)/lineitem || ./$(BIN) gen tpch --sf 0.01 --tables lineitem --out $(CABI_TPCH) --quiet
	test -d $(CABI_SPARK)/lineitem || ./$(BIN) gen tpch --sf 0.01 --schema spark-test --row-group-rows 16384 \
	  --tables customer,orders,lineitem --out $(CABI_SPARK) --quiet
	$(CABI_CC) -o $(BUILD)/executor examples/executor/executor.c -lhados -lpthread
	$(CABI_CC) -o $(BUILD)/abi_misuse cgo/testdata/abi_misuse.c -lhados -lpthread
	$(VALGRIND) $(BUILD)/executor $(CABI_EXEC)
	$(VALGRIND) $(BUILD)/abi_misuse $(CABI_ARGS)
	@echo "cabi-check: the executor example and the misuse test pass under valgrind with no leaks"

## fuzz: each fuzz target for FUZZTIME
fuzz:
	@for t in $(FUZZ); do pkg=$${t%%:*}; name=$${t##*:}; dir=.; \
	  case $$pkg in ./bench/*) dir=bench; pkg=./$${pkg#./bench/};; esac; \
	  echo "fuzz $$t"; (cd $$dir && $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg) || exit 1; done

## fuzz-ci: each fuzz target for FUZZCITIME (the last part of `make test`)
fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZCITIME) FUZZFLAGS='-fuzzminimizetime=20x $(FUZZFLAGS)'

## stress: a minute of 16 concurrent TPC-H queries with DMA and allocation faults and random cancellations,
## then the fault matrix at SF 0.1 (figures in docs/RELIABILITY.md); fails on a wrong answer or a leak
STRESSTIME ?= 60s
STRESSFAULTS ?= dma_error_rate=0.01,alloc_fail_rate=0.001
stress: build
	./$(BIN) stress --duration $(STRESSTIME) --tasks 16 --faults $(STRESSFAULTS)
	HADOS_RELIABILITY_LARGE=1 $(GO) test $(GOFLAGS) -count=1 -run 'TestFaultMatrix' -v ./internal/reliability/ | grep -v '^=== '

## prometheus: Debian's Prometheus server, for the real scrape test
prometheus:
	command -v prometheus >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus)

## deps: download Go modules (the C toolchain comes with the Go image: gcc)
deps:
	$(GO) mod download

clean:
	rm -rf bin $(BUILD)
