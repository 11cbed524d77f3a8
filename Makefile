# gpuc: the README's commands. This file only wraps CMake and the test
# runners; the build itself is CMakeLists.txt.
#
#   make demo    set up, build, install the kernelspec for the user and run
#                notebooks/tour.ipynb through the kernel into out/
#   make test    set up, build, run ctest + the protocol and notebook tests
#   make asan    the same tests against an ASan+UBSan build in build-asan/
#   make fuzz    build the libFuzzer targets (clang) in build-fuzz/ and run
#                each for FUZZ_SECONDS (docs/reliability.md)
#   make bench   gpuc against ipykernel (startup, round trip, memory)
#   make bundle  a relocatable bundle for GPU nodes without packages (out/)
#   make clean   remove build/, build-asan/, build-fuzz/ and out/

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
# Seconds per fuzz target: `make fuzz`, and the short runs of `make test`.
FUZZ_SECONDS      ?= 60
FUZZ_TEST_SECONDS ?= 30
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
OUT        ?= out
# Upper bound on one pytest run, so that a hang fails instead of stalling CI.
PYTEST_TIMEOUT ?= 1800

VENV   := $(BUILD)/venv
PY     := $(VENV)/bin/python
GPUC   := $(BUILD)/gpuc
REPORTS = $(abspath $(1))/reports
PYTEST  = timeout -k 10 $(PYTEST_TIMEOUT) $(abspath $(PY)) -m pytest -c tests/pytest.ini

# The executor catches SIGSEGV/SIGFPE/SIGABRT itself and runs on its own
# signal stack, so ASan must leave those signals alone. Leak checking is off
# where the executor runs (it is killed or _exits with the session live).
ASAN_EXECUTOR_OPTIONS = handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:use_sigaltstack=0:detect_leaks=0
ASAN_UNIT_OPTIONS     = handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:use_sigaltstack=0
UBSAN_OPTIONS_ALL     = print_stacktrace=1:halt_on_error=1

.PHONY: all deps build venv demo test asan asan-build fuzz bench bundle clean

all: build

deps:
	@scripts/setup-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD) -j $(JOBS)

venv:
	@scripts/setup-venv.sh $(VENV)

demo: build venv
	$(GPUC) install --user
	@mkdir -p $(OUT)
	$(VENV)/bin/jupyter nbconvert --to notebook --execute \
	    --ExecutePreprocessor.kernel_name=gpuc --ExecutePreprocessor.timeout=300 \
	    notebooks/tour.ipynb --output-dir $(OUT) --output tour
	$(VENV)/bin/jupyter nbconvert --to html $(OUT)/tour.ipynb --output-dir $(OUT) --output tour
	@echo
	@echo "executed notebook: $(abspath $(OUT))/tour.ipynb"
	@echo "HTML copy:         $(abspath $(OUT))/tour.html"

test: build venv
	$(GPUC) install --prefix $(VENV)
	@rm -rf $(call REPORTS,$(BUILD)) && mkdir -p $(call REPORTS,$(BUILD))
	@rc_ctest=0; rc_pytest=0; rc_fuzz=0; \
	ctest --test-dir $(BUILD) --output-on-failure --timeout 300 \
	    --output-junit $(call REPORTS,$(BUILD))/ctest.xml || rc_ctest=$$?; \
	GPUC_BIN=$(abspath $(GPUC)) GPUC_EG_VENV=$(abspath $(BUILD))/eg-venv $(PYTEST) tests/protocol tests/notebooks tests/cells tests/array tests/sim tests/lab tests/cluster tests/hosting tests/gateway \
	    --junitxml=$(call REPORTS,$(BUILD))/pytest.xml || rc_pytest=$$?; \
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TEST_SECONDS) \
	    $(call REPORTS,$(BUILD))/fuzz.xml || rc_fuzz=$$?; \
	$(PY) scripts/summary.py \
	    ctest=$(call REPORTS,$(BUILD))/ctest.xml:$$rc_ctest \
	    pytest=$(call REPORTS,$(BUILD))/pytest.xml:$$rc_pytest \
	    fuzz=$(call REPORTS,$(BUILD))/fuzz.xml:$$rc_fuzz

asan-build: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGPUC_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)

asan: asan-build venv
	@rm -rf $(call REPORTS,$(ASAN_BUILD)) && mkdir -p $(call REPORTS,$(ASAN_BUILD))
	@rc_ctest=0; rc_pytest=0; \
	ASAN_OPTIONS=$(ASAN_UNIT_OPTIONS) UBSAN_OPTIONS=$(UBSAN_OPTIONS_ALL) \
	ctest --test-dir $(ASAN_BUILD) --output-on-failure --timeout 600 \
	    --output-junit $(call REPORTS,$(ASAN_BUILD))/ctest.xml || rc_ctest=$$?; \
	ASAN_OPTIONS=$(ASAN_EXECUTOR_OPTIONS):log_path=$(call REPORTS,$(ASAN_BUILD))/sanitizer \
	UBSAN_OPTIONS=$(UBSAN_OPTIONS_ALL):log_path=$(call REPORTS,$(ASAN_BUILD))/sanitizer \
	GPUC_BIN=$(abspath $(ASAN_BUILD))/gpuc GPUC_TIME_SCALE=3 GPUC_EG_VENV=$(abspath $(BUILD))/eg-venv \
	$(PYTEST) tests/protocol tests/gateway/test_launcher.py \
	    --junitxml=$(call REPORTS,$(ASAN_BUILD))/pytest.xml || rc_pytest=$$?; \
	for f in $(call REPORTS,$(ASAN_BUILD))/sanitizer.*; do \
	    [ -e "$$f" ] || continue; echo "== sanitizer report $$f"; cat "$$f"; rc_pytest=1; \
	done; \
	$(PY) scripts/summary.py \
	    ctest=$(call REPORTS,$(ASAN_BUILD))/ctest.xml:$$rc_ctest \
	    pytest=$(call REPORTS,$(ASAN_BUILD))/pytest.xml:$$rc_pytest

# Each target for FUZZ_SECONDS; the one summary line counts them.
fuzz: deps
	@rc_fuzz=0; \
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) \
	    $(call REPORTS,$(FUZZ_BUILD))/fuzz.xml || rc_fuzz=$$?; \
	python3 scripts/summary.py fuzz=$(call REPORTS,$(FUZZ_BUILD))/fuzz.xml:$$rc_fuzz

# The benchmarks import tests/gpuc_testing: PYTHONPATH=tests, from the root
# (by hand too: PYTHONPATH=tests python3 bench/bench_math.py BIN OUT).
bench: build venv
	PYTHONPATH=tests $(PY) bench/bench_kernel.py --gpuc $(GPUC) --json $(BUILD)/bench/kernel.json

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(OUT)

bundle: build
	scripts/make-bundle.sh $(BUILD) $(OUT)
