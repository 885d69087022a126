# The project's commands. `make test` is what CI runs (.ci/run); it installs what it needs itself.
#
#   make demo         the main job on the bundled sample service (leaves the store in demo/)
#   make test         every suite: Swift (also under the thread sanitizer), C/C++ (ctest), the tool, Python, the test backends
#   make bench        the benchmarks, each against a baseline measured in the same run
#   make bench-compare BASE=<rev> [ROUNDS=3] [BENCHES="json read ..."] [BASE_BUILD=<checkout of BASE, built>]
#                     the benchmarks of the working tree's build against BASE's, in alternating rounds
#   make bench-10m    reads and store load at 1,000,000 and 10,000,000 entities (slow: not in make bench or make test)
#   make conformance  the OASIS ABNF test cases through the URL parser (fails below the recorded floor)
#   make fuzz [FUZZ_TARGET=url|metadata|metadata-threads|page|http-answer|encrypted-file] [FUZZ_SECONDS=600]   libFuzzer on a parser, from its corpus
#   make install PREFIX=...   build and install the library, headers, tool, pkg-config and CMake files (stripped; no venv, no tests)
#   make wheel        the Python binding's wheel (py3-none-<platform>, the library stripped inside) in .build-release/wheels
#   make dist         a release's archives in dist/: source, binary (library, headers, CMake, pkg-config, tool), the wheel, SHA256SUMS
#   make dist-check   make dist, then each archive installed with no Swift on PATH and the quickstarts run from it (in make test)
#   make layers       the layering check (docs/layers.txt) and its tests; first in make test
#   make kill-encrypted   kill -9 campaigns of downloads and uploads over an encrypted store, 30 kills each (bounded in make test)
#   make kill-conflicts   kill -9 during conflict resolution, 30 kills per policy (bounded in make test)
#   make kill-alternate-keys  kill -9 during keyless creates read back by an alternate key, 30 kills per configuration (bounded in make test)
#   make kill-media       kill -9 campaigns of stream downloads and media uploads, 30 kills each (bounded in make test)
#   make kill-hand-over   kill -9 during a shared device's upload-first hand-over, 30 kills (bounded in make test)

SHELL := /bin/bash
BUILD_DIR ?= build
PREFIX ?= /usr/local
# The release build of the library and tool (CMake drives it; pip reuses it).
SWIFT_SCRATCH := $(CURDIR)/.build-release
VENV := $(CURDIR)/.venv
PYTHON := $(VENV)/bin/python
LIBRARY := $(SWIFT_SCRATCH)/release/libofflineodata.so

.PHONY: all deps deps-build venv backends-venv swift-test tsan conformance fuzz-replay fuzz cmake-build ctest pytest pytest-backends pytest-sync test bench bench-compare bench-10m resume-campaign \
        install demo clean mypy wheel dist dist-check

all: cmake-build

deps:
	@scripts/install-deps.sh

# Only what building the library and the tool needs (make install).
deps-build:
	@scripts/install-deps.sh build

# A virtual environment with the Python test tools.
# pip says what it fetches and installs (no --quiet): on a fresh clone this is make demo's first minute.
$(PYTHON):
	scripts/heartbeat.sh "python3 -m venv" python3 -m venv $(VENV)
	$(PYTHON) -m pip install --progress-bar off --upgrade pip
	$(PYTHON) -m pip install --progress-bar off "pytest>=7"
	$(PYTHON) -m pip install --progress-bar off -r Tests/backends/requirements.txt
	touch $(BACKENDS_STAMP)

venv: $(PYTHON)

# The real OData services the integration tests start (odatapy for V4, mock-sap for V2), pinned in
# Tests/backends/requirements.txt; reinstalled into the venv whenever that file changes.
BACKENDS_STAMP := $(VENV)/.backends-requirements
$(BACKENDS_STAMP): Tests/backends/requirements.txt | $(PYTHON)
	$(PYTHON) -m pip install --progress-bar off -r Tests/backends/requirements.txt
	touch $@

backends-venv: $(BACKENDS_STAMP)

# Python's `cryptography`, for the independent reader of encrypted stores (Tests/encryption).
CRYPTOGRAPHY_STAMP := $(VENV)/.cryptography
$(CRYPTOGRAPHY_STAMP): | $(PYTHON)
	$(PYTHON) -m pip install --quiet "cryptography>=41"
	touch $@

# mypy, for the Python binding's typing check.
MYPY_STAMP := $(VENV)/.mypy
$(MYPY_STAMP): | $(PYTHON)
	$(PYTHON) -m pip install --quiet "mypy>=1.8"
	touch $@

# The Python binding and its typed example pass `mypy --strict` (no library needed: a few seconds).
mypy: $(MYPY_STAMP)
	cd bindings/python && $(PYTHON) -m mypy --strict --cache-dir $(SWIFT_SCRATCH)/mypy-cache offline_odata examples/typed_example.py

# The binding's wheel, built from the library of cmake-build (no Swift toolchain needed to install it).
WHEEL_DIR := $(SWIFT_SCRATCH)/wheels
wheel: cmake-build
	rm -rf $(WHEEL_DIR)
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) $(PYTHON) -m pip wheel --quiet --no-deps --wheel-dir $(WHEEL_DIR) ./bindings/python

# No file of the engine uses a type of a higher layer (docs/layers.txt, docs/ARCHITECTURE.md).
.PHONY: layers
layers: $(PYTHON)
	$(PYTHON) scripts/check_layers.py
	$(PYTHON) -m pytest -q Tests/scripts

swift-test: deps backends-venv $(CRYPTOGRAPHY_STAMP)
	swift build --build-tests
	swift test

# The OASIS OData ABNF test cases and the 4.0 corpus; fails below Tests/Conformance/floor.txt.
conformance: deps
	swift run offline-odata-conformance

$(BUILD_DIR)/CMakeCache.txt: | deps $(PYTHON)
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	      -DOOD_SWIFT_SCRATCH=$(SWIFT_SCRATCH) -DOOD_PYTHON=$(PYTHON)

cmake-build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR)

# C, C++, header self-test, export check, install check (ctest). The Python suites are registered
# with ctest too, for CMake users; here they run through pytest directly, so their counts show.
ctest: cmake-build
	cd $(BUILD_DIR) && ctest --output-on-failure -E '^(python|tool)$$'

pytest: cmake-build backends-venv wheel $(MYPY_STAMP)
	OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q Tests/tool Tests/demo
	OOD_LIBRARY=$(LIBRARY) $(PYTHON) -m pytest -q Tests/readme
	OOD_SWIFT_MODULES=$(SWIFT_SCRATCH)/release/Modules $(PYTHON) -m pytest -q Tests/packaging
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) OFFLINE_ODATA_SWIFT_SCRATCH=$(SWIFT_SCRATCH) OOD_WHEEL_DIR=$(WHEEL_DIR) \
	    PYTHONPATH=bindings/python $(PYTHON) -m pytest -q bindings/python/tests

# The backends, their probes, the flight sample's generator and $metadata (Tests/backends/README.md).
pytest-backends: backends-venv
	$(PYTHON) -m pytest -q Tests/backends

# Every fuzz corpus replayed through its harness (a plain build: no sanitizer, no fuzzing).
fuzz-replay: deps
	swift build --product offline-odata-fuzz
	OOD_FUZZ_TARGET=metadata .build/debug/offline-odata-fuzz Tests/Fuzz/metadata-corpus
	OOD_FUZZ_TARGET=metadata-threads .build/debug/offline-odata-fuzz Tests/Fuzz/metadata-corpus
	OOD_FUZZ_TARGET=url .build/debug/offline-odata-fuzz Tests/Fuzz/url-corpus
	OOD_FUZZ_TARGET=page .build/debug/offline-odata-fuzz Tests/Fuzz/page-corpus
	OOD_FUZZ_TARGET=http-answer .build/debug/offline-odata-fuzz Tests/Fuzz/http-answer-corpus
	OOD_FUZZ_TARGET=encrypted-file .build/debug/offline-odata-fuzz Tests/Fuzz/encrypted-file-corpus

# Fuzzing for real (BUILD-RECIPE §7), into a scratch copy of the corpus: generated inputs stay out
# of the repository; a crashing input is written as crash-* and belongs in the corpus once fixed.
FUZZ_TARGET ?= url
FUZZ_SECONDS ?= 600
# metadata-threads (one thread against two on every input) starts from the metadata corpus.
FUZZ_CORPUS ?= $(subst -threads,,$(FUZZ_TARGET))
fuzz: deps
	swift build -c debug --product offline-odata-fuzz -Xswiftc -sanitize=fuzzer,address \
	    -Xswiftc -use-ld=lld --scratch-path $(CURDIR)/.build-fuzz
	rm -rf .build-fuzz/corpus-$(FUZZ_TARGET) && cp -r Tests/Fuzz/$(FUZZ_CORPUS)-corpus .build-fuzz/corpus-$(FUZZ_TARGET)
	SWIFT_BACKTRACE=enable=no OOD_FUZZ_TARGET=$(FUZZ_TARGET) .build-fuzz/debug/offline-odata-fuzz \
	    .build-fuzz/corpus-$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=65536

# Sync against the real test backends, through the tool.
pytest-sync: cmake-build backends-venv $(CRYPTOGRAPHY_STAMP)
	OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q Tests/sync

# The store API's concurrency suites (stress beside downloads and uploads, open/close, callbacks,
# the seed behaviours) and the download's page fetcher (pages fetched and read on their own
# thread) and the metadata reader parsing ahead (libxml2 on a thread of its own) built and run with
# the thread sanitizer: any report fails the run.
TSAN_SUITES := StoreStressTests|StoreLifecycleTests|EventStreamTests|StoreSeedBehaviourTests|GroupCommitTests|DownloaderTests|ParseAheadTests|DetachedCheckOrderTests|WorkerPoolBorrowTests|LiveQueryTests|LiveQuerySyncTests|LiveQueryRandomTests|TableChangeTrackerTests
tsan: deps backends-venv
	swift build --build-tests --sanitize=thread --scratch-path $(CURDIR)/.build-tsan
	swift test --skip-build --sanitize=thread --scratch-path $(CURDIR)/.build-tsan --filter '$(TSAN_SUITES)'

# The Swift suites again over encrypted store files (docs/ENCRYPTION.md), in WAL and in DELETE
# journal mode: in a debug build,
# OOD_TEST_STORE_KEY makes every new store file encrypted with that key. ENCRYPTED_SUITES bounds
# the run (make test runs the store, sync, storage and rekey suites; empty runs every suite).
TEST_STORE_KEY := 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
ENCRYPTED_SUITES ?= Store|Sync|Upload|Download|Queue|Rekey|Tamper|Encrypted|Crash|Recovery
# Left out: the encryption suites (they give keys, and plain stores, themselves), a test that
# edits its store file with plain SQL, and the staged first download's suite (an encrypted store
# keeps its pages instead: its sorts stay in memory, see Sync/Download/StagingTable.swift).
ENCRYPTED_SKIP := EncryptedStoreTests|RekeyTests|TamperTests|IndependentReaderTests|refusesAStoreOfANewerFormat|StagedRowDownloadTests
# Then again in SQLite's rollback-journal mode (OOD_TEST_JOURNAL_MODE=delete), so the encrypted
# journal carries the suites' writes; left out there, the tests of the WAL itself (its file, the
# crash detection by a leftover WAL) and one that expects SQLite's wording for a damaged page.
WAL_ONLY_TESTS := createsANewStoreInWALModeWithAFormatVersion|aNewStoreFileAndItsWriteAheadLogAreTheOwnersAlone|aStoreLeftOpenIsQuickCheckedWhenItOpensAgain|aStoreLeftOpenIsReportedByAnEventWithTheQuickChecksFindings|aDamagedStoreLeftOpenDoesNotOpen
.PHONY: test-encrypted
test-encrypted: deps backends-venv $(CRYPTOGRAPHY_STAMP)
	swift build --build-tests
	OOD_TEST_STORE_KEY=$(TEST_STORE_KEY) swift test --skip-build $(if $(ENCRYPTED_SUITES),--filter '$(ENCRYPTED_SUITES)') \
	    --skip '$(ENCRYPTED_SKIP)'
	OOD_TEST_STORE_KEY=$(TEST_STORE_KEY) OOD_TEST_JOURNAL_MODE=delete swift test --skip-build \
	    $(if $(ENCRYPTED_SUITES),--filter '$(ENCRYPTED_SUITES)') --skip '$(ENCRYPTED_SKIP)|$(WAL_ONLY_TESTS)' 
	$(MAKE) ctest-encrypted

# The C and C++ suites over encrypted store files: with OOD_TEST_STORE_KEY, Tests/c/under_key.h opens
# every store the C and C++ tests (and the quickstarts built as quickstart_*_keyed) open with that
# key (ood_options_set_key, ood_store_open_keyed); the quickstarts' store must then start with the
# encrypted header. c_encryption, and the two key tests of cpp_wrapper, give keys themselves. The
# stress test under ASan runs bounded here (800 operations a thread, OOD_STRESS_OPERATIONS) and in
# full (10,000 a thread, about 7 minutes with a key) in ctest-encrypted-full.
ENCRYPTED_CTESTS := ^(c_(store|store_asan|null_arguments|null_arguments_asan|store_api|answer_headers_v4|answer_headers_v2|download_outcome|stress_asan)|cpp_(store|download_outcome|wrapper|wrapper_asan)|quickstart_(c|cpp)_keyed)$$
.PHONY: ctest-encrypted ctest-encrypted-full
ctest-encrypted: cmake-build
	cd $(BUILD_DIR) && OOD_TEST_STORE_KEY=$(TEST_STORE_KEY) OOD_STRESS_OPERATIONS=800 \
	    ctest --output-on-failure -R '$(ENCRYPTED_CTESTS)'

ctest-encrypted-full: cmake-build
	cd $(BUILD_DIR) && OOD_TEST_STORE_KEY=$(TEST_STORE_KEY) ctest --output-on-failure -R '$(ENCRYPTED_CTESTS)'

# kill -9 campaigns of downloads and uploads over an encrypted store (Tests/sync/test_encrypted_kill.py)
# in full: 30 kills each of downloads and of uploads (one at a time and in $batch). make test runs
# them bounded (4 kills each) in pytest-sync.
.PHONY: kill-encrypted
kill-encrypted: cmake-build backends-venv $(CRYPTOGRAPHY_STAMP)
	OOD_ENCRYPTED_KILLS=30 OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q -s Tests/sync/test_encrypted_kill.py

# kill -9 during conflict resolution (Tests/sync/test_conflict_kill.py, issue 37): 30 kills per
# policy (client-wins, server-wins, merge). make test runs it bounded (4 kills each) in pytest-sync.
.PHONY: kill-conflicts
kill-conflicts: cmake-build backends-venv
	OOD_CONFLICT_KILLS=30 OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q -s Tests/sync/test_conflict_kill.py

# kill -9 during uploads of keyless creates on a set with an alternate key (issue 37, point 4,
# Tests/sync/test_alternate_key_kill.py): 30 kills per configuration; `make test` runs 4.
.PHONY: kill-alternate-keys
kill-alternate-keys: cmake-build backends-venv
	OOD_ALTERNATE_KEY_KILLS=30 OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q -s Tests/sync/test_alternate_key_kill.py

# kill -9 during the upload-first hand-over of a shared device (issue 37, point 5,
# Tests/tool/test_store_users.py): 30 kills; `make test` runs 2.
.PHONY: kill-hand-over
kill-hand-over: cmake-build backends-venv
	OOD_HANDOVER_KILLS=30 OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q -s Tests/tool/test_store_users.py -k kill

# kill -9 campaigns of media streams (issue 35, Tests/sync/test_media_kill.py): 30 kills of a 48 MB
# stream's download, each resumed with Range, and 30 uploads of a media entity created offline killed
# while sending its stream or after the service created it, each settled by reading back (never two
# entities, none lost, none archived); make test runs them bounded (3 kills each) in pytest-sync.
.PHONY: kill-media
kill-media: cmake-build backends-venv
	OOD_MEDIA_KILLS=30 OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q -s Tests/sync/test_media_kill.py

# The third-party test material (README, Requirements); without it those suites skip, each saying so.
FIXTURES := $(or $(OOD_FIXTURES),$(CURDIR)/../shared/fixtures)

test: layers mypy swift-test tsan conformance fuzz-replay ctest pytest pytest-backends pytest-sync test-encrypted dist-check
	@[ -d "$(FIXTURES)" ] || echo "note: $(FIXTURES) is not there, so the Swift suites marked 'needs the shared test material' and the ABNF conformance run were skipped; put shared/fixtures beside the checkout or set OOD_FIXTURES to run them"

# odatapy snapshots its whole in-memory store for every change set (its atomicity), so the server
# takes 70-95 ms per change set and more as the data grows: the benchmark queues its changes in
# transactions of 100 and sends each as one change set (see Benchmarks/python/batch_upload.py).
BATCH_CHANGES ?= 10000
# Queue compaction (issue 25): a queue of this many generated changes, uploaded with and without
# it in each of COMPACTION_ROUNDS rounds (the median is reported).
COMPACTION_CHANGES ?= 10000
COMPACTION_ROUNDS ?= 3

bench: cmake-build backends-venv
	@echo "== C ABI call overhead"
	$(BUILD_DIR)/Benchmarks/ood_bench_call_overhead
	@echo "== Encryption at rest: writes, reads, a download and opening, with and without a key"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/encryption.py
	@echo "== Media streams: a 100 MB stream down and up, peak memory growth and SHA-256 (issue 35)"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/media_stream.py
	@echo "== Python ctypes call"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/ctypes_call.py
	@echo "== Swift engine benchmarks (release)"
	swift build -c release --scratch-path $(CURDIR)/.build-bench --product offline-odata-benchmarks
	$(CURDIR)/.build-bench/release/offline-odata-benchmarks filter-parse filter-bind json metadata ingest write live
	@echo "== A local read through the C API against the same read through the store API from Swift"
	$(CURDIR)/.build-bench/release/offline-odata-benchmarks read-api /tmp/ood-read-api-bench.store | tee /tmp/ood-read-api-swift.txt
	$(BUILD_DIR)/Benchmarks/ood_bench_read_api /tmp/ood-read-api-bench.store \
	    $$(sed -n 's/^read-api swift median-ns: //p' /tmp/ood-read-api-swift.txt)
	rm -f /tmp/ood-read-api-bench.store* /tmp/ood-read-api-swift.txt
	@echo "== One-entity reads and pages through the C API against plain SQLite, 1,000,000 entities (issue 38)"
	$(CURDIR)/.build-bench/release/offline-odata-benchmarks read-scale-stores 1000000 /tmp/ood-read-c-bench.store /tmp/ood-read-c-plain.sqlite
	$(BUILD_DIR)/Benchmarks/ood_bench_read_vs_sqlite /tmp/ood-read-c-bench.store /tmp/ood-read-c-plain.sqlite 1000000
	rm -f /tmp/ood-read-c-bench.store* /tmp/ood-read-c-plain.sqlite*
	@echo "== Local reads, and against Python's sqlite3"
	$(PYTHON) Benchmarks/python/read_vs_sqlite3.py $(CURDIR)/.build-bench/release/offline-odata-benchmarks
	@echo "== Peak memory of store load, 100,000 against 1,000,000 entities"
	$(PYTHON) Benchmarks/python/load_memory.py $(SWIFT_SCRATCH)/release/offline-odata 100000 1000000
	@echo "== 50,000 entities read through the Python binding into dicts, against sqlite3 + json"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/binding_read.py
	@echo "== Key read, \$$top=20 and 20 filters through the Python binding, against odatapy's translator + sqlite3"
	@echo "   (odatapy installed in its own venv, .build-bench/odatapy-venv, reading the same store file)"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/binding_vs_odatapy.py \
		$(SWIFT_SCRATCH)/release/offline-odata
	@echo "== The Python binding's cost per call: the same reads through the C API and through Store.get (issue 38)"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/binding_call_cost.py \
		$(SWIFT_SCRATCH)/release/offline-odata $(BUILD_DIR)/Benchmarks/ood_bench_read_urls
	@echo "== Download from a local page server, and against Python's urllib + json + sqlite3"
	@echo "   (the tool as built for users: release, Swift runtime linked in, by cmake-build)"
	$(PYTHON) Benchmarks/python/download_vs_python.py $(SWIFT_SCRATCH)/release/offline-odata
	@echo "== Peak memory of a download against its page size (200,000 entities)"
	$(PYTHON) Benchmarks/python/download_memory.py $(SWIFT_SCRATCH)/release/offline-odata
	@echo "== Peak memory of a download on hostile pages: one huge value, a gzip bomb, a huge error (issue 39)"
	$(PYTHON) Benchmarks/python/hostile_memory.py $(SWIFT_SCRATCH)/release/offline-odata
	@echo "== Upload of $(BATCH_CHANGES) queued changes with \$$batch to the V4 backend: engine apart from server"
	$(PYTHON) Benchmarks/python/batch_upload.py $(SWIFT_SCRATCH)/release/offline-odata \
		$(CURDIR)/.build-bench/release/offline-odata-benchmarks $(BATCH_CHANGES)
	@echo "== Upload of $(COMPACTION_CHANGES) generated changes with and without queue compaction (V4 backend)"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/compaction_upload.py \
		$(COMPACTION_CHANGES) $(COMPACTION_ROUNDS)
	@echo "== Service-model check on an unchanged service, against the one request it sends (issue 34)"
	$(PYTHON) Benchmarks/python/service_check.py $(CURDIR)/.build-bench/release/offline-odata-benchmarks
	$(MAKE) --no-print-directory bench-slow-link

# An upload of SLOW_LINK_CHANGES changes, one request each, over HTTPS through a local link that adds
# SLOW_LINK_MS to every round trip (a connection's setup included), against a Python client that
# sends the same requests on one kept-alive connection (issue 38, target 6). SLOW_LINK_BASE=<a tool
# of an earlier build> adds its upload of the same queue, for a before and after in the same run.
# Needs Python's `cryptography` for the self-signed certificate made at start.
SLOW_LINK_CHANGES ?= 1000
SLOW_LINK_MS ?= 50
bench-slow-link: cmake-build backends-venv $(CRYPTOGRAPHY_STAMP)
	@echo "== Upload of $(SLOW_LINK_CHANGES) changes over https with $(SLOW_LINK_MS) ms per round trip, against a kept-alive client"
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) PYTHONPATH=bindings/python $(PYTHON) Benchmarks/python/slow_link_upload.py \
		$(SWIFT_SCRATCH)/release/offline-odata $(SLOW_LINK_CHANGES) $(SLOW_LINK_MS) $(SLOW_LINK_BASE)

# The working tree's build against BASE's (built once from its own source in .build-bench-base/<sha>,
# or BASE_BUILD: a checkout of BASE where make cmake-build ran), ROUNDS alternating rounds, medians
# and ratios, figures more than 5% worse flagged (scripts/bench_compare.py). The uploads and the
# download run shorter than in make bench (BENCH_COMPARE_BATCH_CHANGES, BENCH_COMPARE_COMPACTION_CHANGES,
# BENCH_COMPARE_DOWNLOAD_SIZES: 100000,1000000 is make bench's).
ROUNDS ?= 3
BENCHES ?=
BASE_BUILD ?=
BENCH_COMPARE_BATCH_CHANGES ?= 1000
BENCH_COMPARE_COMPACTION_CHANGES ?= 2000
BENCH_COMPARE_DOWNLOAD_SIZES ?= 100000
bench-compare: cmake-build backends-venv
	@[ -n "$(BASE)" ] || { echo "make bench-compare needs BASE=<commit>, e.g. BASE=HEAD~1"; exit 2; }
	$(PYTHON) scripts/bench_compare.py --base '$(BASE)' --rounds $(ROUNDS) --benches '$(BENCHES)' \
	    --scratch $(SWIFT_SCRATCH) --build-dir $(abspath $(BUILD_DIR)) --fixtures $(FIXTURES) \
	    --batch-changes $(BENCH_COMPARE_BATCH_CHANGES) --compaction-changes $(BENCH_COMPARE_COMPACTION_CHANGES) \
	    --download-sizes $(BENCH_COMPARE_DOWNLOAD_SIZES) \
	    $(if $(BASE_BUILD),--base-build $(BASE_BUILD))

# Issue 23's scale: key range, declared-index filter and order with $top=20, and a filter on a
# property the engine indexed itself after the read repeated, and navigation filters (a path, any,
# a page of a path filter, all), through the store API against plain SQLite with the indexes, on
# stores the engine made of 1,000,000 and 10,000,000 entities (each generated here, about 8 minutes
# for 10M), and store load's peak memory at both sizes.
bench-10m: cmake-build backends-venv
	swift build -c release --scratch-path $(CURDIR)/.build-bench --product offline-odata-benchmarks
	$(CURDIR)/.build-bench/release/offline-odata-benchmarks read-scale 1000000
	$(CURDIR)/.build-bench/release/offline-odata-benchmarks read-scale 10000000
	$(PYTHON) Benchmarks/python/load_memory.py $(SWIFT_SCRATCH)/release/offline-odata 1000000 10000000

# Issue 25's campaign: downloads of 100,000 bookings from odatapy in pages of 1,000, killed (kill -9)
# and cut (connection resets) at random pages, full refresh and delta, each compared with an
# uninterrupted one; prints the pages asked for against the pages needed. Long (the service's time).
resume-campaign: cmake-build backends-venv
	OOD_RESUME_CAMPAIGN=1 OOD_TOOL=$(SWIFT_SCRATCH)/release/offline-odata $(PYTHON) -m pytest -q -s \
	    Tests/sync/test_resumable_download.py -k campaign

# A CMake build folder of its own, without tests and benchmarks (so no Python and no test build);
# it shares the Swift scratch folder, so a library built for the tests is not compiled again.
INSTALL_BUILD_DIR ?= build-install
$(INSTALL_BUILD_DIR)/CMakeCache.txt: | deps-build
	cmake -S . -B $(INSTALL_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DOOD_SWIFT_SCRATCH=$(SWIFT_SCRATCH) \
	      -DOOD_BUILD_TESTS=OFF -DOOD_BUILD_BENCHMARKS=OFF

install: deps-build $(INSTALL_BUILD_DIR)/CMakeCache.txt
	cmake --build $(INSTALL_BUILD_DIR)
	cmake --install $(INSTALL_BUILD_DIR) --prefix $(PREFIX) --strip

# A release (docs/RELEASING.md): the version is the CMake project's (tag vX.Y.Z); the source
# archive is `git archive` of HEAD, the binary archive a stripped install (built as make install
# builds: no test, no benchmark) under offline-odata-X.Y.Z/, the wheel built from that library.
VERSION := $(shell grep -m1 -o 'VERSION [0-9]*\.[0-9]*\.[0-9]*' CMakeLists.txt | cut -d' ' -f2)
ARCH := $(shell uname -m)
DIST_DIR ?= $(CURDIR)/dist
dist: deps-build $(INSTALL_BUILD_DIR)/CMakeCache.txt | $(PYTHON)
	rm -rf $(DIST_DIR) && mkdir -p $(DIST_DIR)/stage
	git archive --format=tar.gz --prefix=offline-odata-$(VERSION)/ -o $(DIST_DIR)/offline-odata-$(VERSION).tar.gz HEAD
	cmake --build $(INSTALL_BUILD_DIR)
	cmake --install $(INSTALL_BUILD_DIR) --prefix $(DIST_DIR)/stage/offline-odata-$(VERSION) --strip
	tar -C $(DIST_DIR)/stage -czf $(DIST_DIR)/offline-odata-$(VERSION)-linux-$(ARCH).tar.gz offline-odata-$(VERSION)
	rm -rf $(DIST_DIR)/stage
	OFFLINE_ODATA_LIBRARY=$(LIBRARY) $(PYTHON) -m pip wheel --quiet --no-deps --wheel-dir $(DIST_DIR) ./bindings/python
	cd $(DIST_DIR) && sha256sum *.tar.gz *.whl > SHA256SUMS && cat SHA256SUMS

# The archives of make dist installed without Swift, the quickstarts run from them (Tests/scripts/check_dist.sh).
dist-check: dist backends-venv
	Tests/scripts/check_dist.sh $(CURDIR) $(DIST_DIR) $(PYTHON)

# The main job on the bundled flight sample service, with the tool (Examples/FlightSample/README.md).
# Built as make install builds (the library and the tool only: no test, ASan or benchmark target),
# with a line at least every 10 s while Swift compiles (scripts/heartbeat.sh).
demo: deps-build backends-venv $(INSTALL_BUILD_DIR)/CMakeCache.txt
	cmake --build $(INSTALL_BUILD_DIR)
	$(PYTHON) Examples/FlightSample/demo.py --tool $(SWIFT_SCRATCH)/release/offline-odata

clean:
	rm -rf $(BUILD_DIR) $(INSTALL_BUILD_DIR) dist .build .build-release .build-bench .build-bench-base .build-fuzz .build-tsan .build-quickstart
