#!/usr/bin/env bash
# Builds the variant-sweep firmware for one emulated core (targets/, with
# TINYAOT_RUNTIME_CHECKS on) and runs it under QEMU with semihosting.
#
#   run-variant-sweep.sh --core m0|m3|m4|m7|m33|m55 [--build-root DIR]
#                        [--opt 0|g|1|2|3|s|z] [--compiler gcc|clang]
#                        [--flags "FLAGS"] [--timeout SEC] [FIRMWARE-ARGS...]
#
# --flags adds code generation flags (-fno-omit-frame-pointer, -ffixed-r9);
# each compiler, level and flag set builds in a directory of its own.
# FIRMWARE-ARGS: [--seed N] [--cases N] [--variant NAME [--case I]]
# (defaults in variant_sweep.h); a failing case prints the arguments that
# replay it alone.
#
# Prints the firmware's report (seed, cases run and passed per variant,
# each failing case with its shape) and the wall time. Exit status: the
# firmware's (0 all passed, 1 a case failed), 124 on timeout, 77 (CTest's
# SKIP_RETURN_CODE) when QEMU or the Arm toolchain is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
core="" build_root="$repo/build-arm" opt=2 compiler=gcc flags="" timeout_s=240
firmware_args=()

while [[ $# -gt 0 ]]; do
  case "$1" in
    --core) core="${2#cortex-}"; shift 2 ;;
    --build-root) build_root="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    --compiler) compiler="$2"; shift 2 ;;
    --flags) flags="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --seed|--cases|--variant|--case) firmware_args+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "run-variant-sweep: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$core" in m0|m3|m4|m7|m33|m55) ;; *) echo "run-variant-sweep: --core m0|m3|m4|m7|m33|m55" >&2; exit 2 ;; esac
skip() { echo "run-variant-sweep: SKIPPED: $*" >&2; exit 77; }
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
case "$compiler" in
  gcc) ;;
  clang) command -v clang >/dev/null || skip "clang not installed" ;;
  *) echo "run-variant-sweep: --compiler gcc|clang" >&2; exit 2 ;;
esac

# The layout of tools/qemu (one build directory per core and -O level), so
# a build root shared with the QEMU matrix builds the runtime once.
build="$build_root/$core"
[[ "$opt" == s ]] || build="$build-O$opt"
[[ "$compiler" == gcc ]] || build="$build-$compiler"
[[ -z "$flags" ]] || build="$build-$(echo "$flags" | tr -c 'A-Za-z0-9\n' _ | sed 's/^_*//; s/_*$//')"
mkdir -p "$build"
(
  flock 9
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$repo/targets" -B "$build" -G Ninja -DTINYAOT_CORE="cortex-$core" \
      -DTINYAOT_OPT="$opt" -DTINYAOT_COMPILER="$compiler" -DTINYAOT_EXTRA_FLAGS="$flags" \
      -DTINYAOT_RUNTIME_CHECKS=ON -DTINYAOT_WERROR="${TINYAOT_WERROR:-OFF}" >"$build/configure.log" 2>&1 ||
      { cat "$build/configure.log" >&2; exit 1; }
  fi
  ninja -C "$build" tinyaot-variant-sweep.elf >"$build/build.log" 2>&1 ||
    { cat "$build/build.log" >&2; exit 1; }
) 9>"$build/.lock"
. "$build/board.env"

read -r -a board_args <<<"$TINYAOT_QEMU_ARGS"
t0=$(date +%s.%N)
status=0
timeout "$timeout_s" qemu-system-arm -machine "$TINYAOT_QEMU_MACHINE" "${board_args[@]}" \
  -nographic -monitor none -serial none -semihosting-config enable=on,target=native \
  -kernel "$build/tinyaot-variant-sweep.elf" \
  -append "${firmware_args[*]}" || status=$?
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$core" -v s="$status" \
  'BEGIN { printf "variant-sweep %s: exit %d, QEMU wall time %.1f s\n", c, s, b - a }'
exit "$status"
