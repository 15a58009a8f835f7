#!/usr/bin/env bash
# An exported Arduino library (issue 9) built by the real Arduino build
# tool: kws compiled for the Cortex-M4 (shared/models), `tinyaot export
# --format arduino` into a sketchbook's libraries/ folder, and arduino-builder
# (the Arduino IDE 1.8's sketch builder) compiles sketches that only say
# `#include <kws.h>` for our emulated MPS2-AN386 board (hardware/, a minimal
# platform over targets/boards). arduino-builder must find the library by
# that include and compile its src/ recursively, which is what proves
# library.properties and the layout. Then, under QEMU:
#  - the export's own example (examples/kws_basic) must initialise the
#    model and print one output line of KWS_OUTPUT0_BYTES bytes and a time;
#    built as C++11 (as by a core that asks for it), it must stop on the
#    library's own error saying it needs C++17, and build and run again
#    with -std=gnu++17 added in a platform.local.txt (deploying.md);
#  - kws_golden/ (our sketch) must print the golden outputs of every golden
#    input of shared/golden/kws_ref_model, bit-exact.
#
#   tests/export/arduino/export-arduino.sh --tinyaot PATH --out DIR [--shared DIR]
#     [--builder-hardware DIR]   (the folder holding arduino-builder's own
#                                 platform.txt, for ctags; Debian's by default)
#
# Exit 0 when all holds; 77 (CTest's SKIP_RETURN_CODE) when the shared
# golden data, arduino-builder, QEMU or the Arm toolchain is absent.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
tinyaot="" out="" shared=$(realpath -m "$repo/../shared")
builder_hardware=/usr/share/arduino-builder
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --builder-hardware) builder_hardware="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "export-arduino: unknown option $1" >&2; exit 2 ;;
  esac
done
skip() { echo "export-arduino: SKIPPED: $*" >&2; exit 77; }
golden="$shared/golden/kws_ref_model"
[[ -f "$golden/manifest.json" ]] || skip "no golden kws at $golden"
command -v arduino-builder >/dev/null || skip "arduino-builder not installed (scripts/setup.sh)"
[[ -f "$builder_hardware/platform.txt" ]] || skip "no arduino-builder platform.txt in $builder_hardware"
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
[[ -x "$tinyaot" && -n "$out" ]] || { echo "usage: see --help" >&2; exit 2; }

# The board: boards.txt names its targets/boards folder, whose board.cmake
# gives the CPU part number the startup checks and QEMU's machine.
hardware="$here/hardware"
board_id=mps2_an386
fqbn="tinyaot:qemu:$board_id"
board=$(sed -n "s/^$board_id\.build\.tinyaot_board=//p" "$hardware/tinyaot/qemu/boards.txt")
board_cmake="$repo/targets/boards/$board/board.cmake"
partno=$(sed -n 's/^set(TINYAOT_BOARD_CPU_PARTNO \([^)]*\)).*/\1/p' "$board_cmake")
machine=$(sed -n 's/^set(TINYAOT_QEMU_MACHINE \([^)]*\)).*/\1/p' "$board_cmake")
qemu_args=$(sed -n 's/^set(TINYAOT_QEMU_ARGS "\([^"]*\)").*/\1/p' "$board_cmake")
[[ -n "$board" && -n "$partno" && -n "$machine" ]] || { echo "export-arduino: cannot read board $board" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out/sketchbook/libraries"
library="$out/sketchbook/libraries/kws"
tflite=$(sed -n 's/.*"model_file": *"\([^"]*\)".*/\1/p' "$golden/manifest.json")
"$tinyaot" compile "$golden/$tflite" --target cortex-m4 -q -o "$out/kws.tao"
"$tinyaot" export "$out/kws.tao" -o "$library" --format arduino --name kws

# arduino_builder BUILD_DIR SKETCH.ino [OPTION...]: as the IDE runs it,
# warnings all, verbose, with our platform from $platform_hardware.
platform_hardware="$hardware"
arduino_builder() {
  local build_dir="$1" sketch="$2"
  shift 2
  mkdir -p "$build_dir"
  arduino-builder -compile -hardware "$builder_hardware" -hardware "$platform_hardware" \
    -tools "$builder_hardware" -libraries "$out/sketchbook/libraries" -fqbn "$fqbn" \
    -prefs="tinyaot.boards=$repo/targets/boards" -prefs="tinyaot.cpu_partno=$partno" \
    -build-path "$build_dir" -warnings all -verbose "$@" "$sketch"
}

# build SKETCH.ino: any warning fails (the IDE shows them to the user).
# Prints the ELF's path.
build() {
  local sketch="$1" name
  name=$(basename "$sketch" .ino)
  if ! arduino_builder "$out/build-$name" "$sketch" >"$out/build-$name.log" 2>&1; then
    cat "$out/build-$name.log" >&2
    echo "export-arduino: FAIL: arduino-builder could not build $name" >&2
    exit 1
  fi
  # Compiler warnings and arduino-builder's own (a library whose
  # architectures exclude the board's, say).
  if grep -qi 'warning' "$out/build-$name.log"; then
    grep -i -B2 -A4 'warning' "$out/build-$name.log" >&2
    echo "export-arduino: FAIL: warnings building $name" >&2
    exit 1
  fi
  # The library came from the sketchbook, found through its header.
  grep -q "Using library kws .*in folder: $library" "$out/build-$name.log" ||
    { echo "export-arduino: FAIL: $name was not built with $library" >&2; exit 1; }
  echo "$out/build-$name/$name.ino.elf"
}

# run ELF LOG: under QEMU, which must exit 0.
run() {
  local status=0
  timeout 120 qemu-system-arm -machine "$machine" $qemu_args -nographic -monitor none \
    -serial none -semihosting-config enable=on,target=native -kernel "$1" >"$2" 2>&1 || status=$?
  if [[ $status != 0 ]]; then
    cat "$2" >&2
    echo "export-arduino: FAIL: $(basename "$1") exited with status $status" >&2
    exit 1
  fi
}

# The export's example: init succeeds, one output line of the model's
# output size, a time.
elf=$(build "$library/examples/kws_basic/kws_basic.ino")
arm-none-eabi-size "$elf"
run "$elf" "$out/run-basic.log"
output_bytes=$(sed -n 's/^#define KWS_OUTPUT0_BYTES \([0-9]*\).*/\1/p' "$library/src/kws.h")
if grep -q '^kws_init: \|^kws_invoke: \|^FAIL ' "$out/run-basic.log" ||
   [[ $(grep -c '^output 0:' "$out/run-basic.log") != 1 ]] ||
   [[ $(grep '^output 0:' "$out/run-basic.log" | wc -w) != $((output_bytes + 2)) ]] ||
   ! grep -q '^microseconds: [0-9][0-9]*$' "$out/run-basic.log"; then
  cat "$out/run-basic.log" >&2
  echo "export-arduino: FAIL: kws_basic did not print one output of $output_bytes bytes and a time" >&2
  exit 1
fi
echo "export-arduino: ok: examples/kws_basic builds with arduino-builder and runs: $(grep '^output 0:' "$out/run-basic.log")"

# A core that compiles C++ as C++11 (Arduino's AVR and SAMD cores ask for
# it): the library must stop the build with its own words before any
# runtime source fails in others ...
if arduino_builder "$out/build-cxx11" "$library/examples/kws_basic/kws_basic.ino" \
     -prefs=compiler.cpp.std=gnu++11 >"$out/build-cxx11.log" 2>&1 ||
   ! grep -m1 'error' "$out/build-cxx11.log" | grep -qF 'kws: the tinyaot runtime needs C++17'; then
  cat "$out/build-cxx11.log" >&2
  echo "export-arduino: FAIL: a C++11 build of kws_basic did not stop first on the library's C++17 error" >&2
  exit 1
fi
echo "export-arduino: ok: a C++11 core is told first: $(grep -m1 -o 'kws: the tinyaot runtime[^"]*' "$out/build-cxx11.log")"
# ... and the remedy deploying.md gives must work: a platform.local.txt
# beside the core's platform.txt that adds -std=gnu++17 (the last -std wins).
mkdir -p "$out/hardware-local"
cp -r "$hardware/tinyaot" "$out/hardware-local/"
echo "compiler.cpp.extra_flags=-std=gnu++17" >"$out/hardware-local/tinyaot/qemu/platform.local.txt"
platform_hardware="$out/hardware-local"
if ! arduino_builder "$out/build-local" "$library/examples/kws_basic/kws_basic.ino" \
     -prefs=compiler.cpp.std=gnu++11 >"$out/build-local.log" 2>&1; then
  cat "$out/build-local.log" >&2
  echo "export-arduino: FAIL: a C++11 core with -std=gnu++17 in platform.local.txt does not build kws_basic" >&2
  exit 1
fi
platform_hardware="$hardware"
run "$out/build-local/kws_basic.ino.elf" "$out/run-local.log"
grep -qxF "$(grep '^output 0:' "$out/run-basic.log")" "$out/run-local.log" ||
  { cat "$out/run-local.log" >&2; echo "export-arduino: FAIL: the platform.local.txt build prints another output" >&2; exit 1; }
echo "export-arduino: ok: with compiler.cpp.extra_flags=-std=gnu++17 in platform.local.txt it builds and runs"

# Our sketch on the golden inputs, bit-exact with the golden outputs.
mkdir -p "$out/kws_golden"
cp "$here/kws_golden/kws_golden.ino" "$out/kws_golden/"
inputs=() expected=()
for f in $(ls "$golden" | sed -n 's/^vec\([0-9]*\)_input0\.bin$/\1/p' | sort -n); do
  inputs+=("$golden/vec${f}_input0.bin")
  expected+=("output 0: $(od -An -v -tx1 "$golden/vec${f}_output0.bin" | tr -d ' \n')")
done
{
  echo "// Written by export-arduino.sh from $golden."
  echo "static const int kGoldenCount = ${#inputs[@]};"
  echo "static const uint8_t kGoldenInputs[${#inputs[@]}][KWS_INPUT0_BYTES] = {"
  for input in "${inputs[@]}"; do
    echo "  {$(od -An -v -tu1 "$input" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')},"
  done
  echo "};"
} >"$out/kws_golden/golden_vectors.h"
elf=$(build "$out/kws_golden/kws_golden.ino")
run "$elf" "$out/run-golden.log"
mapfile -t got < <(grep '^output 0: ' "$out/run-golden.log" | tr 'A-F' 'a-f')
failures=0
for i in "${!expected[@]}"; do
  if [[ "${got[$i]:-}" != "${expected[$i]}" ]]; then
    echo "export-arduino: FAIL: vector $i: got '${got[$i]:-nothing}', want '${expected[$i]}'" >&2
    failures=$((failures + 1))
  fi
done
((${#got[@]} == ${#expected[@]})) ||
  { echo "export-arduino: FAIL: ${#got[@]} outputs for ${#expected[@]} vectors" >&2; failures=$((failures + 1)); }
((failures == 0)) || { cat "$out/run-golden.log" >&2; exit 1; }
echo "export-arduino: ok: kws_golden builds with arduino-builder, ${#expected[@]} golden vectors bit-exact"
