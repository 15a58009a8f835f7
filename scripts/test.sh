#!/usr/bin/env bash
# The whole test suite, from a fresh machine: setup (packages, oracle,
# build), the libFuzzer targets for a bounded time, then every CTest test
# (unit, golden, differential against tfjs-tflite, bad input) under
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

bash scripts/setup.sh

if [ -d tests/fuzz ]; then
  bash tests/fuzz/run_fuzzers.sh "${TINYAOT_FUZZ_SECONDS:-30}"
fi

ctest --test-dir build --output-on-failure -j2 --timeout 900
echo "test suite took $(( $(date +%s) - start )) s" >&2
