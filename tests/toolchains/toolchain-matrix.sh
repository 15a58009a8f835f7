#!/usr/bin/env bash
# The toolchain matrix on one emulated core: kws, vww and resnet compiled for
# the core and exported as one library (tinyaot export ... --name models),
# built into a firmware of a user's own (tests/toolchains/, like
# examples/cmake-firmware) with each compiler and flag set a firmware project
# may use, each build run under QEMU on every golden vector of the three
# models and compared byte for byte with shared/golden. A build that prints
# a warning (from our sources: -Wall -Wextra are on; or from the linker)
# fails its configuration.
#
#   tests/toolchains/toolchain-matrix.sh --core m0|m4|m33|m55 --tinyaot PATH --out DIR
#                                        [--shared DIR] [--jobs N] [--configs LIST]
#
# LIST: configurations separated by ';', each "gcc FLAGS" or "clang FLAGS";
# the default is every configuration issue 17 names (below). Prints one line
# per configuration and writes DIR/summary.txt. Exit 0 only if every
# configuration built without a warning and ran bit-exact; 77 (CTest's
# SKIP_RETURN_CODE) when the shared golden data, QEMU, clang or the Arm
# toolchain is absent.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
core="" tinyaot="" out="" jobs=2 shared=$(realpath -m "$repo/../shared")
configs="gcc -O0;gcc -Og;gcc -O1;gcc -O2;gcc -O3;gcc -Os;gcc -O2 -fno-omit-frame-pointer;"
configs+="gcc -O2 -ffixed-r9;clang -O0;clang -O2;clang -Os;clang -Oz"
# Golden model folder and the program's name in the library.
models=("kws_ref_model kws" "vww_96_int8 vww" "pretrainedResnet_quant resnet")

while [[ $# -gt 0 ]]; do
  case "$1" in
    --core) core="${2#cortex-}"; shift 2 ;;
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --configs) configs="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "toolchain-matrix: unknown option $1" >&2; exit 2 ;;
  esac
done
skip() { echo "toolchain-matrix: SKIPPED: $*" >&2; exit 77; }
for m in "${models[@]}"; do
  [[ -f "$shared/golden/${m%% *}/manifest.json" ]] || skip "no golden ${m%% *} in $shared/golden"
done
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
command -v clang >/dev/null || skip "clang not installed"
[[ -x "$tinyaot" && -n "$out" && -n "$core" ]] || { echo "usage: see --help" >&2; exit 2; }
case "$core" in
  m0) board=microbit ;;
  m4) board=mps2-an386 ;;
  m33) board=mps2-an505 ;;
  m55) board=mps3-an547 ;;
  *) echo "toolchain-matrix: no board for core $core (m0, m4, m33, m55)" >&2; exit 2 ;;
esac
board_cmake="$repo/targets/boards/$board/board.cmake"
machine=$(sed -n 's/^set(TINYAOT_QEMU_MACHINE \([^)]*\)).*/\1/p' "$board_cmake")
qemu_args=$(sed -n 's/^set(TINYAOT_QEMU_ARGS "\([^"]*\)").*/\1/p' "$board_cmake")
out=$(realpath -m "$out")
rm -rf "$out" && mkdir -p "$out"
t0=$(date +%s)
# Which compilers these are, for tests/toolchains/document.sh.
{
  printf 'gcc\t%s\n' "$(arm-none-eabi-gcc -dumpfullversion)"
  printf 'clang\t%s\n' "$(clang -dumpversion)"
} >"$out/compilers.txt"

# ---- the programs, one export, and every vector's arguments and output ----
programs=() list="" run_args="" expected="$out/expected.txt"
: >"$expected"
for m in "${models[@]}"; do
  read -r golden name <<<"$m"
  gdir="$shared/golden/$golden"
  tflite=$(sed -n 's/.*"model_file": *"\([^"]*\)".*/\1/p' "$gdir/manifest.json")
  "$tinyaot" compile "$gdir/$tflite" --target "cortex-$core" -q -o "$out/$name.tao"
  programs+=("$out/$name.tao")
  list+="X($name, ${name^^}) "
  for v in $(ls "$gdir" | sed -n 's/^vec\([0-9]*\)_input0\.bin$/\1/p' | sort -n); do
    run_args+="$name $gdir/vec${v}_input0.bin "
    echo "output $name: $(od -An -v -tx1 "$gdir/vec${v}_output0.bin" | tr -d ' \n')" >>"$expected"
  done
done
"$tinyaot" export "${programs[@]}" -o "$out/models" --name models >"$out/export.log" 2>&1 ||
  { cat "$out/export.log" >&2; exit 1; }

# ---- one configuration: build, check the log, run, compare ----
run_config() {  # index, "compiler flags"
  local index=$1 compiler=${2%% *} flags=${2#* } dir status=0 verdict
  dir="$out/config$index"
  mkdir -p "$dir"
  echo "$compiler $flags" >"$dir/config.txt"
  if ! cmake -S "$here" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Matrix \
         -DCMAKE_TOOLCHAIN_FILE="$repo/targets/cmake/arm-none-eabi-cortex-$core.cmake" \
         -DTINYAOT_COMPILER="$compiler" \
         -DCMAKE_C_FLAGS_MATRIX="$flags -Wall -Wextra" -DCMAKE_CXX_FLAGS_MATRIX="$flags -Wall -Wextra" \
         -DCMAKE_ASM_FLAGS_MATRIX="$flags" -DMODELS_DIR="$out/models" -DMODELS="$list" \
         -DBOARD="$board" >"$dir/configure.log" 2>&1; then
    verdict="CONFIGURE-FAILED (see $dir/configure.log)"
  elif ! ninja -C "$dir/build" -j1 >"$dir/build.log" 2>&1; then
    verdict="BUILD-FAILED: $(grep -m1 -E 'error' "$dir/build.log" | cut -c1-160)"
  elif grep -qi 'warning' "$dir/build.log"; then
    verdict="WARNING: $(grep -m1 -i 'warning' "$dir/build.log" | cut -c1-160)"
  else
    timeout 600 qemu-system-arm -machine "$machine" $qemu_args -nographic -monitor none \
      -serial none -semihosting-config enable=on,target=native -kernel "$dir/build/firmware.elf" \
      -append "$run_args" >"$dir/run.log" 2>&1 || status=$?
    local want got
    want=$(wc -l <"$expected")
    got=$(grep -c -x -F -f "$expected" "$dir/run.log" || true)
    if [[ $status != 0 ]]; then
      verdict="RUN-FAILED: exit $status (see $dir/run.log)"
    elif ! grep '^output ' "$dir/run.log" | diff -q - "$expected" >/dev/null; then
      verdict="FAIL: $got of $want vectors bit-exact (see $dir/run.log)"
    else
      verdict="ok: $want vectors bit-exact"
    fi
  fi
  local text
  text=$(arm-none-eabi-size "$dir/build/firmware.elf" 2>/dev/null | awk 'NR == 2 { print $1 }')
  printf '%-4s %-6s %-32s %8s  %s\n' "$core" "$compiler" "$flags" "${text:--}" "$verdict" >"$dir/verdict.txt"
  cat "$dir/verdict.txt"
}
export -f run_config
export out here repo core board machine qemu_args list run_args expected

printf '%-4s %-6s %-32s %8s  %s\n' core cc flags text verdict | tee "$out/summary.txt"
IFS=';' read -r -a config_list <<<"$configs"
for i in "${!config_list[@]}"; do printf '%s\t%s\n' "$i" "${config_list[$i]}"; done |
  xargs -P "$jobs" -d '\n' -n 1 bash -c 'IFS=$'"'"'\t'"'"' read -r i c <<<"$0"; run_config "$i" "$c"' >/dev/null
for i in "${!config_list[@]}"; do cat "$out/config$i/verdict.txt"; done | tee -a "$out/summary.txt"
echo "toolchain-matrix $core: ${#config_list[@]} configurations in $(( $(date +%s) - t0 )) s" |
  tee -a "$out/summary.txt"
! grep -qvE '^core|  ok: |configurations in' "$out/summary.txt"
