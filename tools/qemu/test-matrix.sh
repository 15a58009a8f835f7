#!/usr/bin/env bash
# Golden-model matrix on the emulated cores: compiles every model in
# shared/golden for every core with the host CLI, runs all its vectors in
# one QEMU launch per (model, core), compares each output byte for byte,
# and records instruction counts, sizes and run times.
#
#   tools/qemu/test-matrix.sh [--cores "m0 m3 m4 m7 m33 m55" | --core m4]
#                             [--models "a b"] [--opt s|2] [--jobs N]
#                             [--tinyaot PATH] [--golden DIR] [--out DIR]
#                             [--build-root DIR]
#
# Prints one line per (core, model) and writes <out>/results.jsonl (one
# tinyaot-qemu --measure object per line, plus "model" and "bitexact").
# Exit status 0 only if every output of every run matched; 77 (CTest's
# SKIP_RETURN_CODE) when the golden models, QEMU or the Arm toolchain are
# absent, so a machine without them skips instead of failing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cores="m0 m3 m4 m7 m33 m55"
models=""
opt=s
jobs=2
tinyaot="$repo/build-qemu/tinyaot"
golden=$(realpath -m "$repo/../shared/golden")
out=""
build_root="$repo/build-arm"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --cores) cores="$2"; shift 2 ;;
    --core) cores="${2#cortex-}"; shift 2 ;;
    --build-root) build_root="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --golden) golden="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "test-matrix: unknown option $1" >&2; exit 2 ;;
  esac
done
skip() { echo "test-matrix: SKIPPED: $*" >&2; exit 77; }
[[ -d "$golden" ]] || skip "no golden models at $golden"
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
[[ -x "$tinyaot" ]] || { echo "test-matrix: no host CLI at $tinyaot (--tinyaot)" >&2; exit 2; }
[[ -n "$models" ]] || models=$(cd "$golden" && ls -d */ | tr -d / | tr '\n' ' ')
out=${out:-$build_root/matrix-O$opt}
mkdir -p "$out"

# Firmware first, one core at a time, so the parallel runs below do not
# wait on each other's builds (embedded images still build on demand).
for core in $cores; do
  build="$build_root/$core"
  [[ "$opt" == s ]] || build="$build-O$opt"
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$repo/targets" -B "$build" -G Ninja -DTINYAOT_CORE="cortex-$core" \
      -DTINYAOT_OPT="$opt" >/dev/null
  fi
  ninja -C "$build" >"$build/build.log" 2>&1 || { cat "$build/build.log" >&2; exit 1; }
done

# One (core, model) job: compile, run all vectors, compare.
run_one() {
  local core=$1 model=$2
  local dir="$out/$core/$model" gdir="$golden/$model"
  rm -rf "$dir" && mkdir -p "$dir"
  local tao="$dir/$model.tao"
  local tflite
  tflite=$(sed -n 's/.*"model_file": *"\([^"]*\)".*/\1/p' "$gdir/manifest.json")
  if ! "$tinyaot" compile "$gdir/$tflite" --target "cortex-$core" -o "$tao" >"$dir/compile.log" 2>&1; then
    printf '%-4s %-24s COMPILE-FAILED %s\n' "$core" "$model" \
      "$(grep -m1 -iE "error|fail|unsupported" "$dir/compile.log" | cut -c1-100)"
    return 0
  fi
  local args=() expected=() v k
  for v in $(ls "$gdir" | sed -n 's/^vec\([0-9]*\)_input0\.bin$/\1/p' | sort -n); do
    for k in $(ls "$gdir" | sed -n "s/^vec${v}_input\([0-9]*\)\.bin$/\1/p" | sort -n); do
      args+=(--input "$gdir/vec${v}_input$k.bin")
    done
    for k in $(ls "$gdir" | sed -n "s/^vec${v}_output\([0-9]*\)\.bin$/\1/p" | sort -n); do
      args+=(--output "$dir/vec${v}_output$k.bin")
      expected+=("vec${v}_output$k.bin")
    done
  done
  local status=0 json
  json=$("$here/tinyaot-qemu" --core "$core" --opt "$opt" --build-root "$build_root" --measure "$tao" "${args[@]}" \
    2>"$dir/qemu.log") || status=$?
  local matched=0 f
  for f in "${expected[@]}"; do
    cmp -s "$gdir/$f" "$dir/$f" && matched=$((matched + 1))
  done
  local verdict="ok"
  ((status == 0 && matched == ${#expected[@]})) || verdict="FAIL(exit=$status)"
  echo "${json%\}},\"model\":\"$model\",\"bitexact\":\"$matched/${#expected[@]}\"}" \
    >"$dir/result.json"
  local mean seconds cpu form
  mean=$(sed -n 's/.*"instructions_mean":\([0-9a-z]*\).*/\1/p' <<<"$json")
  seconds=$(sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' <<<"$json")
  cpu=$(sed -n 's/.*"cpu_seconds":\([0-9.]*\).*/\1/p' <<<"$json")
  form=$(sed -n 's/.*"form":"\([a-z]*\)".*/\1/p' <<<"$json")
  printf '%-4s %-24s %-16s bitexact %s  instr/inference %12s  %-8s %6ss wall %6ss cpu\n' "$core" "$model" \
    "$verdict" "$matched/${#expected[@]}" "${mean:-?}" "${form:-?}" "${seconds:-?}" "${cpu:-?}"
}
export -f run_one
export opt out tinyaot golden here build_root

t0=$(date +%s.%N)
for core in $cores; do for model in $models; do echo "$core $model"; done; done |
  xargs -P "$jobs" -n 2 bash -c 'run_one "$0" "$1"' | tee "$out/summary.txt"
t1=$(date +%s.%N)
cat "$out"/*/*/result.json >"$out/results.jsonl" 2>/dev/null || true
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "matrix wall time: %.1f s\n", b - a }' |
  tee -a "$out/summary.txt"
! grep -qE 'FAIL|COMPILE-FAILED' "$out/summary.txt"
