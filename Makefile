# hados — a newcomer needs two commands: `make demo` and `make test`.
GO        ?= go
BIN       := bin/hados
BUILD     := build
GOFLAGS   ?=
# the fuzz targets `make fuzz` runs, package:Target
FUZZ      := ./device:FuzzParseSpecs ./hados:FuzzParseConfig ./race/plan:FuzzImportSpark ./race/plan:FuzzDecodeJSON \
             ./race/qualify:FuzzReadEventLog ./operators/expr:FuzzEval ./operators/write:FuzzEscapePathName \
             ./device/soft/internal/codectest:FuzzLZ4Decompress ./device/soft/internal/codectest:FuzzSnappyDecompress
FUZZTIME  ?= 10s

.PHONY: all build test test-race bench lint demo cshared fuzz deps prometheus clean

all: build

## build: the hados CLI into bin/hados
build:
	$(GO) build $(GOFLAGS) -o $(BIN) ./cmd/hados

## test: every test (the command CI runs)
test:
	$(GO) test $(GOFLAGS) -count=1 ./...

## test-race: every test under the race detector
test-race:
	$(GO) test $(GOFLAGS) -race -count=1 ./...

## bench: benchmarks with ratios against their peers (results go to docs/PERFORMANCE.md)
bench: build
	$(GO) test $(GOFLAGS) -run '^$$' -bench . -benchtime 20x ./dma/
	HADOS_DEVICES='soft:memory=1GiB,cores=2,mode=discrete' ./$(BIN) diag

## lint: gofmt and go vet
lint:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## demo: device discovery, the full diagnostic on the software DPU, and RACE on TPC-H plans
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
	@echo "== TPC-H lineitem at SF 0.1 as Parquet, then Q6 executed on the software DPU =="
	@test -f $(BUILD)/demo/lineitem/.done || (./$(BIN) gen tpch --sf 0.1 --tables lineitem --out $(BUILD)/demo --quiet && touch $(BUILD)/demo/lineitem/.done)
	HADOS_DEVICES='soft:memory=1GiB,mode=discrete' ./$(BIN) run race/planbuilder/testdata/tpch/q6.json --warehouse $(BUILD)/demo --metrics
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

## fuzz: each fuzz target for FUZZTIME
fuzz:
	@for t in $(FUZZ); do pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$pkg $$name"; $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; done

## prometheus: Debian's Prometheus server, for the real scrape test
prometheus:
	command -v prometheus >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus)

## deps: download Go modules (the C toolchain comes with the Go image: gcc)
deps:
	$(GO) mod download

clean:
	rm -rf bin $(BUILD)
