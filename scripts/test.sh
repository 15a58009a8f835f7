#!/usr/bin/env bash
# The whole test suite, from a fresh machine: setup (packages, oracle, the
# release CLI in build/ and the test tree in build-tests/), the libFuzzer
# targets for a bounded time, then every CTest test of build-tests/ (unit,
# golden, differential against tfjs-tflite, bad input) under
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

bash scripts/setup.sh

# A fuzzer finding fails the suite, but the tests still run, so that one
# run reports everything that is wrong.
fuzz_status=0
bash tests/fuzz/run_fuzzers.sh "${TINYAOT_FUZZ_SECONDS:-30}" || fuzz_status=$?

test_status=0
ctest --test-dir build-tests --output-on-failure -j2 --timeout 900 || test_status=$?
echo "test suite took $(( $(date +%s) - start )) s" >&2
if [ "$fuzz_status" -ne 0 ]; then
  echo "test: the fuzzers failed (see above); new crash inputs are in tests/fuzz/regressions/" >&2
fi
[ "$fuzz_status" -eq 0 ] && [ "$test_status" -eq 0 ]
