#!/usr/bin/env bash
# Golden matrix on the emulated cores: compiles every model of the shared
# golden sets (whole models in shared/golden, one operator each in
# shared/golden-ops) for every core with the host CLI, once per --prefer
# choice, runs all its vectors on the core and compares each output byte
# for byte.
#
#   tools/qemu/test-matrix.sh [--cores "m0 m3 m4 m7 m33 m55" | --core m4]
#                             [--sets "golden golden-ops"] [--prefer "memory speed"]
#                             [--models "a b"] [--opt s|2] [--jobs N]
#                             [--tinyaot PATH] [--shared DIR] [--out DIR]
#                             [--build-root DIR] [--compile-flags "--rounding onnx"]
#                             [--compare bytes|none]
#
# Programs that fit the runner's file form run many to a QEMU launch
# (tinyaot-qemu --batch), split into N lists run side by side; the others
# run one per launch in the embedded form; a program that fits neither is
# skipped for that core, and the reason printed. Prints one line per
# (core, set/model, prefer) and writes <out>/results.jsonl.
# Exit status 0 only if every output of every run matched; 77 (CTest's
# SKIP_RETURN_CODE) when the shared golden sets, QEMU or the Arm toolchain
# are absent, so a machine without them skips instead of failing.
# --compare none leaves the outputs' check to the caller (the ONNX models'
# outputs are compared in output steps by tests/onnx_ops/golden.py): a run
# passes when it wrote every output.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cores="m0 m3 m4 m7 m33 m55"
sets="golden golden-ops"
prefers="memory speed"
models=""
opt=s
jobs=2
tinyaot="$repo/build-qemu/tinyaot"
shared=$(realpath -m "$repo/../shared")
out=""
build_root="$repo/build-arm"
compile_flags=""
compare=bytes

while [[ $# -gt 0 ]]; do
  case "$1" in
    --cores) cores="$2"; shift 2 ;;
    --core) cores="${2#cortex-}"; shift 2 ;;
    --sets) sets="$2"; shift 2 ;;
    --prefer) prefers="$2"; shift 2 ;;
    --build-root) build_root="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --compile-flags) compile_flags="$2"; shift 2 ;;
    --compare) compare="$2"; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "test-matrix: unknown option $1" >&2; exit 2 ;;
  esac
done
skip() { echo "test-matrix: SKIPPED: $*" >&2; exit 77; }
for set in $sets; do [[ -d "$shared/$set" ]] || skip "no golden set at $shared/$set"; done
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
[[ -x "$tinyaot" ]] || { echo "test-matrix: no host CLI at $tinyaot (--tinyaot)" >&2; exit 2; }
out=$(realpath -m "${out:-$build_root/matrix-O$opt}")
build_root=$(realpath -m "$build_root")
rm -rf "$out" && mkdir -p "$out"
t0=$(date +%s.%N)

# Every run: "core set model prefer", in the order results are printed.
runs=()
for core in $cores; do
  for set in $sets; do
    for model in $(cd "$shared/$set" && ls -d */ | tr -d /); do
      [[ -f "$shared/$set/$model/manifest.json" ]] || continue
      [[ -z "$models" || " $models " == *" $model "* ]] || continue
      for prefer in $prefers; do runs+=("$core $set $model $prefer"); done
    done
  done
done

# Firmware first, one core at a time, so the runs below do not wait on each
# other's builds (embedded images still build on demand).
for core in $cores; do
  build="$build_root/$core"
  [[ "$opt" == s ]] || build="$build-O$opt"
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$repo/targets" -B "$build" -G Ninja -DTINYAOT_CORE="cortex-$core" \
      -DTINYAOT_OPT="$opt" -DTINYAOT_WERROR="${TINYAOT_WERROR:-OFF}" >/dev/null
  fi
  ninja -C "$build" tinyaot-runner.elf >"$build/build.log" 2>&1 ||
    { cat "$build/build.log" >&2; exit 1; }
done

# One run's directory, relative to its core's directory (QEMU's working
# directory in a batch: relative paths keep the batch lines short).
run_dir() { echo "$2/$3/$4"; }

# Compiles one run's program and writes the arguments of its vectors
# (inputs absolute, outputs relative to the core's directory) to args.txt.
compile_one() {
  local core=$1 set=$2 model=$3 prefer=$4
  local rel dir gdir tflite v k
  rel=$(run_dir "$@")
  dir="$out/$core/$rel" gdir="$shared/$set/$model"
  mkdir -p "$dir"
  tflite=$(sed -n 's/.*"model_file": *"\([^"]*\)".*/\1/p' "$gdir/manifest.json")
  # shellcheck disable=SC2086  # the flags are words
  "$tinyaot" compile "$gdir/$tflite" --target "cortex-$core" --prefer "$prefer" -q $compile_flags \
    -o "$dir/${model}_$prefer.tao" >"$dir/compile.log" 2>&1 || return 0
  local args="$rel/${model}_$prefer.tao"
  for v in $(ls "$gdir" | sed -n 's/^vec\([0-9]*\)_input0\.bin$/\1/p' | sort -n); do
    for k in $(ls "$gdir" | sed -n "s/^vec${v}_input\([0-9]*\)\.bin$/\1/p" | sort -n); do
      args+=" --input $gdir/vec${v}_input$k.bin"
    done
    for k in $(ls "$gdir" | sed -n "s/^vec${v}_output\([0-9]*\)\.bin$/\1/p" | sort -n); do
      args+=" --output $rel/vec${v}_output$k.bin"
    done
  done
  echo "$args" >"$dir/args.txt"
  # A stateful model's vectors as one stream (state carried between them):
  # a second run of the program, its outputs named as the golden seq_ files.
  if ls "$gdir" | grep -q '^seq_vec[0-9]*_output0\.bin$'; then
    args="$rel/${model}_$prefer.tao --stream"
    for v in $(ls "$gdir" | sed -n 's/^seq_vec\([0-9]*\)_output0\.bin$/\1/p' | sort -n); do
      for k in $(ls "$gdir" | sed -n "s/^vec${v}_input\([0-9]*\)\.bin$/\1/p" | sort -n); do
        args+=" --input $gdir/vec${v}_input$k.bin"
      done
      for k in $(ls "$gdir" | sed -n "s/^seq_vec${v}_output\([0-9]*\)\.bin$/\1/p" | sort -n); do
        args+=" --output $rel/seq_vec${v}_output$k.bin"
      done
    done
    echo "$args" >>"$dir/args.txt"
  fi
}
export -f compile_one run_dir
export out shared tinyaot compile_flags
printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -n 4 bash -c 'compile_one "$@"' _
t1=$(date +%s.%N)

# Where each compiled program runs, then the runs themselves.
for core in $cores; do
  cd "$out/$core"
  programs=()
  for run in "${runs[@]}"; do
    read -r c set model prefer <<<"$run"
    [[ "$c" == "$core" ]] || continue
    rel=$(run_dir $run)
    [[ -f "$rel/args.txt" ]] && programs+=("$rel/${model}_$prefer.tao")
  done
  ((${#programs[@]} > 0)) || continue
  "$here/tinyaot-qemu" --core "$core" --opt "$opt" --build-root "$build_root" \
    --fit "${programs[@]}" >fit.txt
  for ((j = 0; j < jobs; ++j)); do : >"batch$j.txt"; done
  : >embedded.txt
  n=0
  while read -r program form; do
    rel=$(dirname "${program#"$out/$core/"}")
    echo "$form" >"$rel/form.txt"
    case "$form" in
      file)
        j=$((n++ % jobs))
        cat "$rel/args.txt" >>"batch$j.txt"
        ;;
      embedded) echo "$rel" >>embedded.txt ;;
    esac
  done <fit.txt
  cd - >/dev/null
done
export here opt build_root
run_batch() {  # core, list index
  cd "$out/$1"
  [[ -s "batch$2.txt" ]] || return 0
  /usr/bin/time -o "batch$2.time" -f "%e %U %S" "$here/tinyaot-qemu" --core "$1" --opt "$opt" \
    --build-root "$build_root" --timeout 900 --batch "batch$2.txt" >"batch$2.log" 2>&1 || true
}
run_embedded() {  # core, run directory
  cd "$out/$1"
  local -a args
  : >"$2/qemu.log"
  while read -r -a args; do  # one launch per line (a stream is a second line)
    /usr/bin/time -o "$2/qemu.time" -f "%e %U %S" "$here/tinyaot-qemu" --core "$1" --opt "$opt" \
      --build-root "$build_root" --form embedded "${args[@]}" >>"$2/qemu.log" 2>&1 || true
  done <"$2/args.txt"
}
export -f run_batch run_embedded
{
  for core in $cores; do
    for ((j = 0; j < jobs; ++j)); do echo "run_batch $core $j"; done
    [[ ! -f "$out/$core/embedded.txt" ]] || sed "s|^|run_embedded $core |" "$out/$core/embedded.txt"
  done
} | xargs -P "$jobs" -L 1 bash -c '"$@"' _
t2=$(date +%s.%N)

# The words a model's refusal must contain while it awaits support
# (tests/support/awaiting_support.txt), or nothing.
awaiting_refusal() {
  awk -v m="$1" '$1 == m { $1 = ""; sub(/^ +/, ""); print; exit }' \
    "$repo/tests/support/awaiting_support.txt"
}

# Verdicts, in run order.
for run in "${runs[@]}"; do
  read -r core set model prefer <<<"$run"
  rel=$(run_dir $run)
  dir="$out/$core/$rel" gdir="$shared/$set/$model"
  label="$set/$model"
  tflite=$(sed -n 's/.*"model_file": *"\([^"]*\)".*/\1/p' "$gdir/manifest.json")
  refusal=$(awaiting_refusal "$(basename "$tflite" .tflite)")
  if [[ -n "$refusal" && ! -f "$dir/args.txt" ]] && grep -qF "$refusal" "$dir/compile.log"; then
    verdict="refused, awaiting support ($refusal)"
    bitexact="0/0"
  elif [[ -n "$refusal" ]]; then
    verdict="FAIL (compiles now or refused otherwise: see tests/support/awaiting_support.txt)"
    bitexact="0/0"
  elif [[ ! -f "$dir/args.txt" ]]; then
    verdict="COMPILE-FAILED $(grep -m1 -iE "error|fail|unsupported" "$dir/compile.log" | cut -c1-110)"
    bitexact="0/0"
  elif [[ "$(cat "$dir/form.txt")" == none* ]]; then
    verdict="SKIPPED ($(sed 's/^none: //' "$dir/form.txt"))"
    bitexact="0/0"
  else
    expected=0 matched=0
    for f in $(sed 's/ --/\n--/g' "$dir/args.txt" | sed -n 's|^--output .*/||p'); do
      expected=$((expected + 1))
      if [[ "$compare" == none ]]; then
        [[ -f "$dir/$f" ]] && matched=$((matched + 1))
      else
        cmp -s "$gdir/$f" "$dir/$f" && matched=$((matched + 1))
      fi
    done
    bitexact="$matched/$expected"
    verdict=ok
    if ((matched != expected)); then
      verdict="FAIL (see $dir/qemu.log)"
      # A batch run's share of the batch log.
      for log in "$out/$core"/batch*.log; do
        [[ -f "$log" ]] || continue
        awk -v p="$rel/${model}_$prefer.tao" '$1 == "tinyaot-batch-run:" { on = ($3 == p) } on' \
          "$log" >>"$dir/qemu.log"
      done
      [[ -s "$dir/qemu.log" ]] || echo "not run: its batch stopped before it" >"$dir/qemu.log"
    fi
  fi
  printf '%-4s %-40s %-7s %-9s %s\n' "$core" "$label" "$prefer" "$bitexact" "$verdict"
  printf '{"core":"cortex-%s","set":"%s","model":"%s","prefer":"%s","bitexact":"%s","verdict":"%s"}\n' \
    "$core" "$set" "$model" "$prefer" "$bitexact" "${verdict%% *}" >>"$out/results.jsonl"
done | tee "$out/summary.txt"
t3=$(date +%s.%N)

times=$(find "$out" -name '*.time' -exec cat {} +)
qemu_cpu=$(awk '$1 ~ /^[0-9.]+$/ { s += $2 + $3 } END { printf "%.1f", s }' <<<"$times")
launches=$(grep -c '^[0-9]' <<<"$times" || true)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v q="$qemu_cpu" -v l="$launches" -v n="${#runs[@]}" \
  'BEGIN { printf "matrix: %d runs, %d QEMU launches; wall %.1f s (compile %.1f, QEMU %.1f [%s s CPU], compare %.1f)\n",
           n, l, d - a, b - a, c - b, q, d - c }' | tee -a "$out/summary.txt"
! grep -qE ' (FAIL|COMPILE-FAILED)' "$out/summary.txt"
