#!/usr/bin/env bash
# The user's path into a firmware, end to end on one emulated core: compile
# kws (shared/models) for the core, `tinyaot export` it, configure and build
# examples/cmake-firmware (a project of the user's own that add_subdirectory's
# the exported folder) with arm-none-eabi-gcc and the core's toolchain file,
# run it under QEMU on every golden vector of shared/golden/kws_ref_model and
# compare each printed output with the golden bytes. Prints the firmware's
# size (arm-none-eabi-size) and the library's code without its program. Then
# puts programs the library must refuse into the same project (the other
# rounding mode, a newer kernel ABI, the other core's ISA class): kws_init
# refuses each in the words of `tinyaot verify --runtime`, through the log hook.
#
#   tests/export/export-firmware.sh --core m4|m55 --tinyaot PATH --out DIR [--shared DIR]
#
# Exit 0 when every output matches; 77 (CTest's SKIP_RETURN_CODE) when the
# shared golden data, QEMU or the Arm toolchain is absent.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
core="" tinyaot="" out="" shared=$(realpath -m "$repo/../shared")
while [[ $# -gt 0 ]]; do
  case "$1" in
    --core) core="${2#cortex-}"; shift 2 ;;
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "export-firmware: unknown option $1" >&2; exit 2 ;;
  esac
done
skip() { echo "export-firmware: SKIPPED: $*" >&2; exit 77; }
golden="$shared/golden/kws_ref_model"
[[ -f "$golden/manifest.json" ]] || skip "no golden kws at $golden"
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
[[ -x "$tinyaot" && -n "$out" && -n "$core" ]] || { echo "usage: see --help" >&2; exit 2; }
case "$core" in
  m4) board=mps2-an386 ;;
  m55) board=mps3-an547 ;;
  *) echo "export-firmware: no board for core $core" >&2; exit 2 ;;
esac
board_cmake="$repo/targets/boards/$board/board.cmake"
machine=$(sed -n 's/^set(TINYAOT_QEMU_MACHINE \([^)]*\)).*/\1/p' "$board_cmake")
qemu_args=$(sed -n 's/^set(TINYAOT_QEMU_ARGS "\([^"]*\)").*/\1/p' "$board_cmake")

rm -rf "$out" && mkdir -p "$out"
tflite=$(sed -n 's/.*"model_file": *"\([^"]*\)".*/\1/p' "$golden/manifest.json")
"$tinyaot" compile "$golden/$tflite" --target "cortex-$core" -q -o "$out/kws.tao"
"$tinyaot" export "$out/kws.tao" -o "$out/kws" --name kws
cmake -S "$repo/examples/cmake-firmware" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DCMAKE_TOOLCHAIN_FILE="$repo/targets/cmake/arm-none-eabi-cortex-$core.cmake" \
  -DKWS_DIR="$out/kws" -DBOARD="$board" >"$out/configure.log" 2>&1 ||
  { cat "$out/configure.log" >&2; exit 1; }
ninja -C "$out/build" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
elf="$out/build/kws-firmware.elf"
arm-none-eabi-size "$elf"
# Flash of the library without its program (runtime + kernels + C API:
# .text and .rodata of libkws.a's members but kws_programs.c, as linked:
# from the map's memory map only, not the discarded and garbage-collected
# input sections listed before it).
awk '
  function hex(s,  v, i) { v = 0; for (i = 3; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
  /^Linker script and memory map/ { in_map = 1; next }
  !in_map { next }
  /^ \.(text|rodata)/ { section = $1; if (NF == 1) next; $0 = substr($0, length(section) + 2) }
  section != "" && $1 ~ /^0x/ && $2 ~ /^0x/ {
    if ($3 ~ /libkws\.a/ && $3 !~ /_programs\.c/) code += hex($2)
    section = ""
  }
  END { print "library code (runtime + kernels + C API, program excluded): " code " bytes" }
' "$out/build/kws-firmware.map"

inputs=() expected=()
for f in $(ls "$golden" | sed -n 's/^vec\([0-9]*\)_input0\.bin$/\1/p' | sort -n); do
  inputs+=("$golden/vec${f}_input0.bin")
  expected+=("output 0: $(od -An -v -tx1 "$golden/vec${f}_output0.bin" | tr -d ' \n')")
done
status=0
timeout 120 qemu-system-arm -machine "$machine" $qemu_args -nographic -monitor none -serial none \
  -semihosting-config enable=on,target=native -kernel "$elf" -append "${inputs[*]}" \
  >"$out/run.log" 2>&1 || status=$?
if [[ $status != 0 ]]; then
  cat "$out/run.log" >&2
  echo "export-firmware: FAIL: the firmware exited with status $status on $core" >&2
  exit 1
fi
mapfile -t got < <(grep '^output 0: ' "$out/run.log")
failures=0
for i in "${!expected[@]}"; do
  if [[ "${got[$i]:-}" != "${expected[$i]}" ]]; then
    echo "export-firmware: FAIL: vector $i on $core: got '${got[$i]:-nothing}', want '${expected[$i]}'" >&2
    failures=$((failures + 1))
  fi
done
((${#got[@]} == ${#expected[@]})) || { echo "export-firmware: FAIL: ${#got[@]} outputs for ${#expected[@]} vectors" >&2; failures=$((failures + 1)); }
((failures == 0)) || exit 1
echo "export-firmware: ok: kws exported for $core, ${#expected[@]} golden vectors bit-exact"

# A user's Debug build (the firmware and the exported library at -O0: no
# folding of the helpers that compare kernel descriptors, every inline asm
# allocated without optimisation) must build and link too.
cmake -S "$repo/examples/cmake-firmware" -B "$out/build-debug" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_TOOLCHAIN_FILE="$repo/targets/cmake/arm-none-eabi-cortex-$core.cmake" \
  -DKWS_DIR="$out/kws" -DBOARD="$board" >"$out/configure-debug.log" 2>&1 ||
  { cat "$out/configure-debug.log" >&2; exit 1; }
ninja -C "$out/build-debug" >"$out/build-debug.log" 2>&1 ||
  { cat "$out/build-debug.log" >&2; echo "export-firmware: FAIL: the Debug build does not link" >&2; exit 1; }
echo "export-firmware: ok: a Debug build of the firmware links"

# Refusals run the firmware once on the first vector and expect a non-zero
# exit with both lines in its output.
expect_refusal() {  # what, log line, status line
  local status=0
  ninja -C "$out/build" >"$out/build-refusal.log" 2>&1 || { cat "$out/build-refusal.log" >&2; exit 1; }
  timeout 60 qemu-system-arm -machine "$machine" $qemu_args -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$elf" -append "${inputs[0]}" \
    >"$out/run-refusal.log" 2>&1 || status=$?
  if [[ $status == 0 ]] || ! grep -qF "$2" "$out/run-refusal.log" ||
     ! grep -qF "$3" "$out/run-refusal.log"; then
    cat "$out/run-refusal.log" >&2
    echo "export-firmware: FAIL: $1 ran or was refused unclearly (exit $status)" >&2
    exit 1
  fi
  echo "export-firmware: ok: $1 is refused by kws_init, by name"
}

# The library compiles its kernels for the one rounding mode of its
# program; a program in the other mode put in its place (as when a program
# is rebuilt and the library is not) must be refused.
"$tinyaot" compile "$golden/$tflite" --target "cortex-$core" --rounding single -q -o "$out/single.tao"
"$tinyaot" export "$out/single.tao" -o "$out/single" --name kws 2>/dev/null
cp "$out/single/src/kws_programs.c" "$out/kws/src/kws_programs.c"
expect_refusal "a program with single rounding" \
  "FAIL kws_ref_model: program uses rounding mode single, runtime accepts tflm" \
  "kws_init: rounding mode unknown or not built into this runtime"

# A program from a compiler in which op 1's variant has new parameters (one
# version up, four bytes more) against this library, exported before the
# change: kws_init must refuse it in the words of `tinyaot verify --runtime`,
# naming the operation, the variant and both counts.
"$tinyaot" export "$out/kws.tao" -o "$out/newer" --name kws 2>/dev/null
read -r variant version params < <(python3 "$here/newer_kernel_abi.py" "$out/newer/src/kws_programs.c" 1)
cp "$out/newer/src/kws_programs.c" "$out/kws/src/kws_programs.c"
where="FAIL kws_ref_model op 1 $variant"
expect_refusal "a program built against a newer $variant" \
  "$where: program supplies $params parameter bytes, runtime expects $((params - 4))" \
  "$where: program built for version $version, runtime has version $((version - 1))"
grep -qF "kws_init: operator ABI differs from the runtime's" "$out/run-refusal.log" ||
  { cat "$out/run-refusal.log" >&2; echo "export-firmware: FAIL: no ABI status line" >&2; exit 1; }

# The same firmware around a program planned for another ISA class: kws_init
# must refuse it (kIsaMismatch; the firmware exits with that status) and say
# through the log hook which class the program wants and which it has.
case "$core" in m4) other=m55 other_isa=mve own_isa=dsp ;; m55) other=m4 other_isa=dsp own_isa=mve ;; esac
"$tinyaot" compile "$golden/$tflite" --target "cortex-$other" -q -o "$out/other.tao"
"$tinyaot" export "$out/other.tao" -o "$out/kws" --name kws 2>/dev/null
expect_refusal "a program planned for $other" \
  "FAIL kws_ref_model: program planned for cortex-$other (ISA class $other_isa), runtime built for $own_isa" \
  "kws_init: program was planned for another ISA class"
