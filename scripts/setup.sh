#!/usr/bin/env bash
# Idempotent, non-interactive setup for a fresh Debian 12 machine: installs
# every package tinyaot needs (Debian and pinned npm), then builds.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build clang clang-format libclang-rt-dev
  libgtest-dev libgmock-dev flatbuffers-compiler libflatbuffers-dev
  libcli11-dev nlohmann-json3-dev python3
  libonnx-dev libprotobuf-dev  # the ONNX importer: ONNX's protobuf messages, checker, shape inference
  libonnx-testdata             # ONNX's own node tests (tests/onnx_node_test.cpp)
  python3-onnx python3-numpy  # tests/onnx_ops builds single-operator ONNX graphs (not torch)
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
  arduino-builder  # the Arduino IDE 1.8 sketch builder: tests/export/arduino builds an export with it
)

missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# Node.js may come from NodeSource (which bundles npm and conflicts with
# Debian's npm package): take Debian's only when no node/npm is present.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The independent oracles (tfjs-tflite, onnxruntime-web), pinned by
# tests/oracle/package-lock.json.
if [ ! -f tests/oracle/node_modules/.package-lock.json ] ||
   ! cmp -s tests/oracle/package-lock.json tests/oracle/node_modules/.package-lock-copy.json; then
  echo "setup: installing the tfjs-tflite and onnxruntime-web oracles (npm ci)"
  npm ci --prefix tests/oracle --no-audit --no-fund --loglevel=error
  cp tests/oracle/package-lock.json tests/oracle/node_modules/.package-lock-copy.json
fi

# Two trees, each built by one of the two compilers the project supports, so
# that every run of the suite builds the tree with both:
# - build/ holds what you use (build/tinyaot, and build/tinyaot_example_model
#   for scripts/example.sh): a release build (optimized, no sanitizers) by
#   Debian's default C++ compiler (g++), as a plain `cmake -S . -B DIR` gives;
# - build-tests/ is the test suite's tree, by clang: AddressSanitizer and
#   UndefinedBehaviorSanitizer asked for explicitly, warnings as errors, the
#   tests and the libFuzzer targets (scripts/test.sh runs it). clang, because
#   the fuzzers need it and under the sanitizers it compiles this tree about
#   four times faster than g++.
# A tree configured by another compiler is started afresh (CMake cannot
# switch compilers in place).
fresh_unless_compiler() {  # tree, compiler path suffix
  if [ -f "$1/CMakeCache.txt" ] && ! grep -q "^CMAKE_CXX_COMPILER:.*$2\$" "$1/CMakeCache.txt"; then
    rm -rf "$1"
  fi
}
fresh_unless_compiler build g++
fresh_unless_compiler build-tests clang++
echo "setup: building the CLI and the example's model writer (build/, release, g++)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
  -DCMAKE_CXX_COMPILER=g++ -DTINYAOT_BUILD_TESTS=OFF >/dev/null
cmake --build build -j2 --target tinyaot tinyaot_example_model
echo "setup: build/ took $SECONDS s since setup began"
# Line tables are all the sanitizers' reports need (file:line of every
# frame); full debug info (-g) only makes this tree slower to compile and link.
TEST_TREE_FLAGS="-O2 -gline-tables-only -DNDEBUG"
echo "setup: building the test tree (build-tests/, clang, with ASan and UBSan)"
cmake -S . -B build-tests -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DTINYAOT_SANITIZE=ON -DTINYAOT_FUZZ=ON -DTINYAOT_WERROR=ON \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$TEST_TREE_FLAGS" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$TEST_TREE_FLAGS" >/dev/null
cmake --build build-tests -j2
echo "setup: build-tests/ done, $SECONDS s since setup began"
