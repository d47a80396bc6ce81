# fdyno: a DynamoDB-model library on FoundationDB.
#
#   make demo                          build fdblite if needed, run examples/demo
#   make test                          build fdblite and run every test
#   make bench                         run the benchmarks (BENCHPKGS=./fdblite/bench for fdblite's)
#   make server                        build build/fdyno-server (DynamoDB wire endpoint)
#   make run-server SERVERFLAGS=...    run fdyno-server on 127.0.0.1:8000
#   make bench-server                  fdyno-server vs dynalite (installed by npm into build/dynalite)
#                                      and a floor server (fixed answers): the ceiling
#   make crash-soak SOAK_ROUNDS=1000   kill -9 durable writers SOAK_ROUNDS times (fdblite, then through fdyno;
#                                      FDBLITE_CRASH_SEED / FDYNO_CRASH_SEED replay a logged seed)
#   make install-fdblite PREFIX=/usr/local [DESTDIR=...]
#                                      install fdblite's libfdb_c.so and headers
#                                      in PREFIX/lib/fdblite/ (its own directory:
#                                      never in place of FoundationDB's client)
#                                      with PREFIX/lib/pkgconfig/fdblite.pc, and
#                                      print the cgo flags; refuses to overwrite
#                                      a libfdb_c that is not fdblite's
#   make uninstall-fdblite PREFIX=/usr/local
#
# Every Go command here links the official FoundationDB Go bindings against
# fdblite (fdblite/build/lib/libfdb_c.so), found through the cgo flags below;
# nothing has to be set by hand. With the real FoundationDB client package
# installed, plain `go test ./...` works too; after `make install-fdblite`,
# with the cgo flags it prints.

GO     ?= go
PREFIX ?= /usr/local

FDBLITE_LIB := $(CURDIR)/fdblite/build/lib
FDBLITE_INC := $(CURDIR)/fdblite/include

# cgo does not track headers outside the module's packages, so after fdb_c.h
# changes the Go build cache would reuse bindings compiled against the old
# header. A checksum of the headers in CGO_CFLAGS is part of the cache key.
FDBLITE_HDR_SUM := $(shell cat $(FDBLITE_INC)/foundationdb/*.h 2>/dev/null | cksum | cut -d' ' -f1)

export CGO_ENABLED := 1
export CGO_CFLAGS  := -I$(FDBLITE_INC) -DFDBLITE_HEADERS=$(FDBLITE_HDR_SUM)
export CGO_LDFLAGS := -L$(FDBLITE_LIB) -Wl,-rpath,$(FDBLITE_LIB)

# The bindings' own test packages. Their tenant tests are skipped: tenants have
# no in-process meaning and fdblite answers them with tenants_disabled (2136).
BINDINGS := github.com/apple/foundationdb/bindings/go/src/fdb
BINDINGS_TESTS := $(BINDINGS) $(BINDINGS)/tuple $(BINDINGS)/subspace

# -count=1: test results must not be cached, because the test binaries load
# libfdb_c.so at run time and Go's cache does not see it change.
TESTFLAGS ?= -count=1 -timeout 10m

.PHONY: crash-soak durable-conformance durable-bindings-test durable-fdyno-test private-dir-test test-boto3 boto3
.PHONY: all demo server run-server bench-server test fmt-check vet go-test bindings-test fdblite-test bench fdblite install-fdblite uninstall-fdblite clean

all: test

# fdblite compiles one object per source file, as many at once as there are
# cores.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

fdblite:
	$(MAKE) -C fdblite -j$(JOBS) lib

demo: fdblite
	$(GO) run ./examples/demo

server: fdblite
	$(GO) build -o build/fdyno-server ./cmd/fdyno-server

run-server: fdblite
	$(GO) run ./cmd/fdyno-server $(SERVERFLAGS)

# The same AWS SDK workload against fdyno-server and dynalite, side by side.
# dynalite (an npm package) is installed into build/dynalite on first use.
BENCHSERVERFLAGS ?= --ops 2000 --clients 16
bench-server: fdblite
	@mkdir -p build/dynalite
	@cd build/dynalite && { [ -f node_modules/dynalite/cli.js ] || npm install --no-audit --no-fund --silent dynalite@3; }
	$(GO) build -o build/fdyno-server ./cmd/fdyno-server
	$(GO) run ./cmd/fdyno-bench --fdyno-server build/fdyno-server --dynalite build/dynalite/node_modules/dynalite/cli.js $(BENCHSERVERFLAGS)

test: boto3 fdblite fmt-check vet go-test bindings-test fdblite-test durable-conformance durable-bindings-test durable-fdyno-test private-dir-test

# `make test` runs the boto3-over-TLS test (server/tls_boto3_test.go) and
# requires it: it installs Debian's python3-boto3 when /usr/bin/python3
# cannot import boto3, and fails rather than skip when it still cannot.
test: export FDYNO_REQUIRE_BOTO3 = 1
boto3:
	@/usr/bin/python3 -c 'import boto3' 2>/dev/null || { \
	echo "installing Debian's python3-boto3 for the boto3-over-TLS test"; \
	export DEBIAN_FRONTEND=noninteractive; sudo=; [ "$$(id -u)" = 0 ] || sudo="sudo -E"; \
	$$sudo apt-get install -y -qq python3-boto3 || { $$sudo apt-get update -qq && $$sudo apt-get install -y -qq python3-boto3; }; }

# The tests that run a child as another user (fdblite's permission tests,
# as root), once more with libfdb_c.so reachable only through a directory
# of mode 0700, as in a checkout under /root or a private home: the child
# cannot follow the binary's run path and must get the library another way.
private-dir-test: fdblite
	@d=$$(mktemp -d) && chmod 700 $$d && mkdir $$d/lib && cp $(FDBLITE_LIB)/libfdb_c.so $$d/lib/ && \
	CGO_LDFLAGS="-L$$d/lib -Wl,-rpath,$$d/lib" $(GO) test -c -o $$d/crashtest.test ./fdblite/crashtest && \
	cd fdblite/crashtest && $$d/crashtest.test -test.count=1 -test.run '^TestOpen'; s=$$?; rm -rf $$d; exit $$s

# fdblite's conformance tests once more on a durable default database
# (FDBLITE_DATA_DIR): durable mode keeps every behaviour of the in-memory one.
# Its cache is 64 KiB, and its MVCC window one second, so what a test reads
# a second after writing it comes from SQLite through a cache that evicts
# all the time (issue 36); a shorter window would fail the transactions of a
# loaded machine that take longer than that (transaction_too_old).
durable-conformance: fdblite
	@d=$$(mktemp -d) && FDBLITE_DATA_DIR=$$d FDBLITE_CACHE_BYTES=65536 FDBLITE_DURABLE_WINDOW_US=1000000 \
	  $(GO) test $(TESTFLAGS) ./fdblite/conformance; s=$$?; rm -rf $$d; exit $$s

# The bindings' tests once more on a durable default database with the same
# 64 KiB cache and a 20 ms window, so the apply step copies their writes
# into SQLite while they run (issue 36). They take well under a second:
# they read back little and soon, so the window serves most of their reads;
# the conformance suite above and fdblite's disk tests are what read through
# SQLite in depth.
durable-bindings-test: fdblite
	@d=$$(mktemp -d) && FDBLITE_DATA_DIR=$$d FDBLITE_CACHE_BYTES=65536 FDBLITE_DURABLE_WINDOW_US=20000 \
	  $(GO) test $(TESTFLAGS) -skip 'Tenant' $(BINDINGS_TESTS); s=$$?; rm -rf $$d; exit $$s

# fdyno's own tests once more on a durable default database, with the
# conformance run's 64 KiB cache and one-second window: the library on a
# database that reads from SQLite (issue 36). A variant, not a second full
# run (time): the data API's model, fault and concurrency tests (items,
# batches, indexes, counts, streams, backups, PITR, exports; the rest of
# the root package passes too, 1m48s for all three packages), and the
# event store's and the hierarchy's whole packages. The server's tests
# open in-memory databases of their own (fdblitetest.OpenIsolated). A
# directory per package: a data directory is open in one process at a time.
DURABLE_FDYNO_RUN := Model|Fault|Crash|Concurrent|Race|While
durable-fdyno-test: fdblite
	@for p in . ./dcb ./tree; do run=.; [ $$p = . ] && run='$(DURABLE_FDYNO_RUN)'; d=$$(mktemp -d) && \
	  FDBLITE_DATA_DIR=$$d FDBLITE_CACHE_BYTES=65536 FDBLITE_DURABLE_WINDOW_US=1000000 \
	  $(GO) test $(TESTFLAGS) -run "$$run" $$p; s=$$?; rm -rf $$d; [ $$s = 0 ] || exit $$s; done

fmt-check:
	@out="$$(gofmt -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet: fdblite
	$(GO) vet ./...

go-test: fdblite
	$(GO) test -race $(TESTFLAGS) ./...

bindings-test: fdblite
	$(GO) test $(TESTFLAGS) -skip 'Tenant' $(BINDINGS_TESTS)

fdblite-test:
	$(MAKE) -C fdblite -j$(JOBS) -O check sanitize

# Benchmark figures for the README. -run '^$$' skips the tests.
BENCHFLAGS ?= -benchmem -count=1
BENCHPKGS  ?= ./...
bench: fdblite
	$(GO) test -run '^$$' -bench . $(BENCHFLAGS) -timeout 30m $(BENCHPKGS)

# The crash tests of durable mode, longer than `make test` runs them.
SOAK_ROUNDS ?= 1000
crash-soak: fdblite
	FDBLITE_CRASH_ROUNDS=$(SOAK_ROUNDS) $(GO) test -count=1 -timeout 4h -v -run '^TestCrashRecovery$$' ./fdblite/crashtest
	FDYNO_CRASH_ROUNDS=$(SOAK_ROUNDS) $(GO) test -count=1 -timeout 4h -v -run '^TestDurableCrash$$' .

install-fdblite:
	$(MAKE) -C fdblite install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

uninstall-fdblite:
	$(MAKE) -C fdblite uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	$(MAKE) -C fdblite clean

# boto3 (Python's AWS SDK) against the server over TLS alone, boto3
# installed first as for `test`.
test-boto3: boto3 fdblite
	FDYNO_REQUIRE_BOTO3=1 $(GO) test -count=1 -run 'TestTLSWithBoto3' ./server
