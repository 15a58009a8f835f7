#!/usr/bin/env bash
# Idempotent, non-interactive setup for a fresh Debian 12 machine: installs
# every package tinyaot needs (Debian and pinned npm), then builds.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build clang clang-format libclang-rt-dev
  libgtest-dev libgmock-dev flatbuffers-compiler libflatbuffers-dev
  libcli11-dev nlohmann-json3-dev python3
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

# The independent oracle (tfjs-tflite), pinned by tests/oracle/package-lock.json.
if [ ! -f tests/oracle/node_modules/.package-lock.json ] ||
   ! cmp -s tests/oracle/package-lock.json tests/oracle/node_modules/.package-lock-copy.json; then
  echo "setup: installing the tfjs-tflite oracle (npm ci)"
  npm ci --prefix tests/oracle --no-audit --no-fund --loglevel=error
  cp tests/oracle/package-lock.json tests/oracle/node_modules/.package-lock-copy.json
fi

# build/ is the test suite's tree: AddressSanitizer and UndefinedBehaviorSanitizer
# on, asked for here (a plain `cmake -S . -B DIR` build is a release build
# without them), and the libFuzzer targets.
echo "setup: building (build/, with ASan and UBSan for the tests)"
# A tree configured by another compiler is started afresh (CMake cannot
# switch compilers in place).
if [ -f build/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang++$' build/CMakeCache.txt; then
  rm -rf build
fi
# clang, not g++: under the sanitizers it compiles this tree about four
# times faster, and one build then serves the tests and the fuzzers.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DTINYAOT_SANITIZE=ON -DTINYAOT_FUZZ=ON >/dev/null
cmake --build build -j2
