#!/usr/bin/env bash
# The whole test suite, from a fresh machine: setup (packages, oracle, the
# release CLI in build/ and the test tree in build-tests/), the README's
# first command (the example), the libFuzzer targets for a bounded time,
# then every CTest test of build-tests/ (unit, golden, differential against
# tfjs-tflite, bad input, under AddressSanitizer and UndefinedBehaviorSanitizer;
# the emulated cores; the toolchain matrix).
#
# With CI=true a skipped test fails the run: on CI every tool the tests need
# is installed, so a skip means a test that did not run.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# Where the suite's time goes, printed at the end (CI's budget: keep the
# whole run under 20 minutes on 2 cores).
phases=""
phase_start=$start
phase_done() {
  local now
  now=$(date +%s)
  phases+="$1 $((now - phase_start)) s; "
  phase_start=$now
}

bash scripts/setup.sh
phase_done setup

# Warnings in our own code are errors in every build the suite makes
# (the firmware builds read this too).
export TINYAOT_WERROR=ON

# The README's first command, as a user runs it after setup.
example_status=0
bash scripts/example.sh >build-tests/example.log 2>&1 || example_status=$?
if [ "$example_status" -eq 0 ] && grep -q '^top class: ' build-tests/example.log; then
  echo "test: the example ran: $(grep '^top class: ' build-tests/example.log)"
else
  cat build-tests/example.log >&2
  echo "test: FAIL: scripts/example.sh (exit $example_status)" >&2
  example_status=1
fi
phase_done example

# A fuzzer finding fails the suite, but the tests still run, so that one
# run reports everything that is wrong.
fuzz_status=0
bash tests/fuzz/run_fuzzers.sh "${TINYAOT_FUZZ_SECONDS:-30}" || fuzz_status=$?
phase_done fuzzers

test_status=0
ctest --test-dir build-tests --output-on-failure -j2 --timeout 900 2>&1 |
  tee build-tests/ctest.log || test_status=$?
phase_done ctest
skip_status=0
if [ "${CI:-}" = true ] && grep -q '(Skipped)$' build-tests/ctest.log; then
  echo "test: FAIL: CI=true and these tests were skipped:" >&2
  grep '(Skipped)$' build-tests/ctest.log >&2
  skip_status=1
fi
echo "test suite took $(( $(date +%s) - start )) s ($phases)" >&2
if [ "$fuzz_status" -ne 0 ]; then
  echo "test: the fuzzers failed (see above); new crash inputs are in tests/fuzz/regressions/" >&2
fi
[ "$example_status" -eq 0 ] && [ "$fuzz_status" -eq 0 ] && [ "$test_status" -eq 0 ] &&
  [ "$skip_status" -eq 0 ]
