#!/usr/bin/env bash
# Self-test of the emulation set-up, per core: the instruction counter is
# exact (a 2-instruction loop run N times counts 2N + 5 for every N), and
# faults and stack overflows end the run with their exit codes instead of
# hanging; the M0 image refuses to run on netduino2. About a second per
# core.
#
#   tools/qemu/check-boards.sh [--cores "m0 m3 m4 m7 m33 m55"] [--opt s|2]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cores="m0 m3 m4 m7 m33 m55"
opt=s
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cores) cores="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    *) echo "check-boards: unknown option $1" >&2; exit 2 ;;
  esac
done

plugin="$repo/build-arm/host-tools/libicount.so"
cmake -S "$here" -B "$repo/build-arm/host-tools" -G Ninja >/dev/null
ninja -C "$repo/build-arm/host-tools" >/dev/null

failures=0
check() {  # name, expected, actual
  if [[ "$2" == "$3" ]]; then echo "  ok   $1"; else
    echo "  FAIL $1: expected $2, got $3"; failures=$((failures + 1)); fi
}

for core in $cores; do
  build="$repo/build-arm/$core"
  [[ "$opt" == s ]] || build="$build-O$opt"
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$repo/targets" -B "$build" -G Ninja -DTINYAOT_CORE="cortex-$core" \
      -DTINYAOT_OPT="$opt" >/dev/null
  fi
  ninja -C "$build" tinyaot-icount-loop.elf tinyaot-board-selftest.elf >/dev/null
  # shellcheck disable=SC1091
  . "$build/board.env"
  read -r -a board_args <<<"$TINYAOT_QEMU_ARGS"
  qemu=(timeout 60 qemu-system-arm -machine "$TINYAOT_QEMU_MACHINE" "${board_args[@]}"
    -nographic -monitor none -serial none -semihosting-config enable=on,target=native)
  echo "cortex-$core ($TINYAOT_QEMU_MACHINE)"
  loop="$build/tinyaot-icount-loop.elf"
  start=$(arm-none-eabi-nm "$loop" | awk '$3 == "tinyaot_mark_start" { print $1 }')
  stop=$(arm-none-eabi-nm "$loop" | awk '$3 == "tinyaot_mark_stop" { print $1 }')
  for n in 1 1000 25000000; do
    span=$("${qemu[@]}" -plugin "$plugin,start=0x$start,stop=0x$stop" -kernel "$loop" \
      -append "$n" 2>&1 | awk '$1 == "tinyaot-icount-span:" { print $2 }')
    check "icount loop N=$n" "$((2 * n + 5))" "$span"
  done
  for mode in ok:0 fault:250 overflow:251; do
    status=0
    "${qemu[@]}" -kernel "$build/tinyaot-board-selftest.elf" -append "${mode%%:*}" \
      >/dev/null 2>&1 || status=$?
    check "selftest ${mode%%:*} exit status" "${mode##*:}" "$status"
  done
  if [[ "$core" == m0 ]]; then
    # netduino2 accepts -cpu cortex-m0 but runs an M3: the CPUID check refuses.
    status=0
    timeout 60 qemu-system-arm -machine netduino2 -cpu cortex-m0 -nographic -monitor none \
      -serial none -semihosting-config enable=on,target=native \
      -kernel "$build/tinyaot-board-selftest.elf" -append ok >/dev/null 2>&1 || status=$?
    check "refused on netduino2 (an M3 in disguise)" 252 "$status"
  fi
done
((failures == 0))
