#!/usr/bin/env bash
# The loader fuzzer on an emulated core, where the DSP and MVE kernels run
# as they ship (firmware: targets/fuzz/; its host twin: fuzz_loader.cpp).
#
#   tests/fuzz/soak-on-core.sh --core m4|m55 [--programs N] [--seed S]
#       [--jobs J] [--batch B] [--budget P] [--out DIR] [--build-root DIR]
#       [--tinyaot CLI] [--shared DIR] [--corpus-tool TOOL] [--per-op K]
#       [--no-sanitize]
#
# Builds the fuzzing firmware (-O2, as the QEMU matrix, or -Os with
# -fsanitize=undefined in trap mode unless --no-sanitize, so undefined
# behaviour in a kernel, an int32 overflow in its index arithmetic say, is
# reported as a trap even when no access faults), compiles the corpus,
# checks that the sandbox catches what it must (--self-test), then runs N
# programs (default 10,000) in QEMU launches of B (N / J, at most 5,000),
# J (1) side by side, and sums what the firmware reports.
#
# Corpus, compiled for the core by CLI: K (8) random single-operator models
# per operator from TOOL (build-tests/tinyaot_fuzz_corpus: the differential
# test's generator, shapes that reach variants the shared models do not),
# every shared model (models/, golden-ops/) up to 64 KiB, and the inputs of
# tests/fuzz/regressions/loader/ as they are. Programs 0 to corpus size - 1
# are the corpus itself; the others are mutations drawn from (S, index).
# QEMU runs with -icount shift=0: a program's budget (P periods of 2^18
# SysTick clocks, about 10 million instructions each; 20 on M4, 10 on M55)
# counts instructions, and any program replays exactly.
#
# Prints programs run, accepted by the loader, run to completion, refused
# at run time, faults, guard-zone breaches, timeouts (counted apart: a
# mutated program may legitimately run long) and operations run per kernel
# variant. Each fault, breach and timeout is printed with its operation,
# variant, fault address (function, file:line) and mutations, the firmware
# arguments that replay it alone ("--corpus OUT/corpus.list --seed S --first
# I --count 1"), and its program is kept in OUT/failures/ (fault-sS-I.tao,
# guard-..., timeout-...): a regression input as it is, to replay under
# the host's sanitizers too (build-tests/fuzz_loader FILE) and commit to
# tests/fuzz/regressions/loader/ with its fix. QEMU logs: OUT/logs/.
#
# Exit status: 0 when no program faulted or wrote outside its arena, 1
# otherwise or when a launch died, 77 (CTest's SKIP_RETURN_CODE) when QEMU
# or the Arm toolchain is missing, or there is no corpus to compile.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
core="" programs=10000 seed=1 jobs=1 batch="" budget=""
out="" build_root="$repo/build-arm" tinyaot="$repo/build/tinyaot"
corpus_tool="$repo/build-tests/tinyaot_fuzz_corpus" per_op=8 sanitize=1
shared=$(realpath -m "$repo/../shared")
# Seeds above this size (the big models) cost seconds per program in the
# loader's checksum alone; the small ones cover every operator.
seed_max_bytes=65536

while [[ $# -gt 0 ]]; do
  case "$1" in
    --core) core="${2#cortex-}"; shift 2 ;;
    --programs) programs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build-root) build_root="$2"; shift 2 ;;
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --corpus-tool) corpus_tool="$2"; shift 2 ;;
    --per-op) per_op="$2"; shift 2 ;;
    --no-sanitize) sanitize=0; shift ;;
    -h|--help) sed -n '2,41p' "$0"; exit 0 ;;
    *) echo "soak-on-core: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$core" in
  m3|m4|m7|m33|m55) ;;
  *) echo "soak-on-core: --core m3|m4|m7|m33|m55 (cores with an MPU)" >&2; exit 2 ;;
esac
# MVE code emulates 10 to 20 times slower: a smaller budget keeps a timeout
# in seconds while leaving the corpus' longest run (kws) 80 times its need.
[[ -n "$budget" ]] || { [[ "$core" == m55 ]] && budget=10 || budget=20; }
[[ -n "$batch" ]] || batch=$(((programs + jobs - 1) / jobs < 5000 ? (programs + jobs - 1) / jobs : 5000))
skip() { echo "soak-on-core: SKIPPED: $*" >&2; exit 77; }
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
[[ -x "$tinyaot" ]] || { echo "soak-on-core: no CLI at $tinyaot (--tinyaot)" >&2; exit 2; }
[[ -x "$corpus_tool" || -d "$shared/models" ]] ||
  skip "neither $corpus_tool (--corpus-tool) nor $shared/models: no corpus"

out=$(realpath -m "${out:-$build_root/fuzz-$core}")
build_root=$(realpath -m "$build_root")
rm -rf "$out/logs" "$out/failures"
mkdir -p "$out/corpus" "$out/logs" "$out/failures"

# ---- firmware (the build directory layout of tools/qemu) ----
# With the undefined-behaviour sanitizer in trap mode (no run-time
# library: each check is a UDF the sandbox reports as a trap), so an int32
# overflow in a kernel's index arithmetic is caught where it happens, not
# only once it makes an access fault; without merging the traps, so each
# one's address names its check. That build is at -Os: with every kernel
# and a trap per check it no longer fits the M55 board's 512 KiB ITCM at
# -O2 (about 580 KiB; 387 KiB at -Os).
opt=2
flags=""
if ((sanitize)); then
  opt=s
  flags="-fsanitize=undefined -fsanitize-undefined-trap-on-error -fno-crossjumping"
  flags+=" -fno-tree-tail-merge"
fi
build="$build_root/$core-O$opt"
((sanitize)) && build="$build-ubsan"
mkdir -p "$build"
(
  flock 9
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$repo/targets" -B "$build" -G Ninja -DTINYAOT_CORE="cortex-$core" -DTINYAOT_OPT="$opt" \
      -DTINYAOT_EXTRA_FLAGS="$flags" -DTINYAOT_RUNTIME_CHECKS=ON \
      -DTINYAOT_WERROR="${TINYAOT_WERROR:-OFF}" >"$build/configure.log" 2>&1 ||
      { cat "$build/configure.log" >&2; exit 1; }
  fi
  ninja -C "$build" tinyaot-fuzz.elf >"$build/build-fuzz.log" 2>&1 ||
    { cat "$build/build-fuzz.log" >&2; exit 1; }
) 9>"$build/.lock"
. "$build/board.env"
read -r -a board_args <<<"$TINYAOT_QEMU_ARGS"
firmware="$build/tinyaot-fuzz.elf"
qemu() {  # seconds, then the firmware's arguments
  local seconds=$1
  shift
  timeout "$seconds" qemu-system-arm -machine "$TINYAOT_QEMU_MACHINE" "${board_args[@]}" -icount shift=0 \
    -nographic -monitor none -serial none -semihosting-config enable=on,target=native \
    -kernel "$firmware" -append "$*"
}

# ---- corpus: generated and shared models compiled for this core (each
# kept while newer than the CLI), then the committed regression inputs ----
models="$out/models-$per_op"
if [[ -x "$corpus_tool" ]]; then
  if [[ ! "$models/.done" -nt "$corpus_tool" ]]; then
    rm -rf "$models"
    mkdir -p "$models"
    "$corpus_tool" "$models" --per-op "$per_op"
    touch "$models/.done"
  fi
else
  echo "soak-on-core: note: no $corpus_tool (--corpus-tool); the shared models only" >&2
fi
[[ -d "$shared/models" ]] || echo "soak-on-core: note: no $shared/models; generated models only" >&2
list="$out/corpus.list"
: >"$list"
while IFS= read -r model; do
  name=$(basename "$(dirname "$model")")-$(basename "$model" .tflite)
  program="$out/corpus/$name.tao"
  if [[ ! "$program" -nt "$tinyaot" ]]; then
    "$tinyaot" compile "$model" -q --target "cortex-$core" -o "$program" 2>/dev/null || {
      echo "soak-on-core: note: $(basename "$model") does not compile for cortex-$core" >&2
      continue
    }
  fi
  echo "$program" >>"$list"
done < <(find "$models" "$shared/models" "$shared/golden-ops" -name '*.tflite' \
           -size -"$((seed_max_bytes + 1))"c 2>/dev/null | sort)
find "$repo/tests/fuzz/regressions/loader" -type f ! -name '.*' | sort >>"$list"
corpus_size=$(wc -l <"$list")

# ---- the net first: a sandbox that missed a fault would pass anything ----
if ! qemu 120 --self-test >"$out/logs/self-test.log" 2>&1; then
  cat "$out/logs/self-test.log" >&2
  echo "soak-on-core: $core: the sandbox self-test failed; not fuzzing" >&2
  exit 1
fi

# ---- the round: batches of programs, JOBS launches at a time ----
t0=$(date +%s.%N)
run_batch() {  # first count
  local log="$out/logs/batch-$1.log" status=0
  qemu 3600 --corpus "$list" --seed "$seed" --first "$1" --count "$2" --budget "$budget" \
    --save "$out/failures/" >"$log" 2>&1 || status=$?
  echo "$status" >"$out/logs/batch-$1.status"
}
running=0
for ((first = 0; first < programs; first += batch)); do
  count=$((programs - first < batch ? programs - first : batch))
  run_batch "$first" "$count" &
  if ((++running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
t1=$(date +%s.%N)

# ---- the report ----
status=0
for rc in "$out"/logs/batch-*.status; do
  code=$(cat "$rc")
  log=${rc%.status}.log
  if [[ "$code" != 0 && "$code" != 1 ]] || ! grep -q '^tinyaot-fuzz-summary:' "$log"; then
    echo "soak-on-core: $core: the launch of $(basename "$log" .log) died (exit $code); see $log" >&2
    tail -5 "$log" >&2
    status=1
  fi
done
# Each failure's story, its fault address named (function, file:line,
# with the functions inlined there).
while IFS= read -r line; do
  echo "$line"
  if [[ "$line" =~ \ pc=(0x[0-9a-f]+) ]]; then
    arm-none-eabi-addr2line -f -i -e "$firmware" "${BASH_REMATCH[1]}" | arm-none-eabi-c++filt -p |
      paste - - | sed 's/(anonymous namespace):://g; s/\t/  /; s/^/    at /'
  fi
done < <(cat "$out"/logs/batch-*.log | grep -E '^(tinyaot-fuzz-(fault|guard|timeout)|  )' || true)
cat "$out"/logs/batch-*.log | awk -v core="$core" -v corpus="$corpus_size" -v seed="$seed" \
  -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')" '
  /^tinyaot-fuzz-summary:/ { for (i = 2; i < NF; i += 2) total[$i] += $(i + 1) }
  /^tinyaot-fuzz-refused-at-load:/ { load[$2] += $3 }
  /^tinyaot-fuzz-refused-at-run:/ { run[$2] += $3 }
  /^tinyaot-fuzz-variant:/ { variant[$2] += $3 }
  END {
    printf "soak-on-core %s: seed %s, corpus of %d, %d programs in %s s of QEMU wall time\n",
      core, seed, corpus, total["programs"], wall
    printf "  accepted by the loader %d, run to completion %d, refused at run time %d\n",
      total["accepted"], total["completed"], total["refused_at_run"]
    printf "  faults %d, guard-zone breaches %d, timeouts %d, arena too big to run %d\n",
      total["faults"], total["guard_breaches"], total["timeouts"], total["arena_too_big"]
    print "  refused at load (status, programs):"; fflush()
    for (s in load) print "    " s " " load[s] | "sort -k2,2nr"
    close("sort -k2,2nr")
    print "  refused at run time (status, programs):"; fflush()
    for (s in run) print "    " s " " run[s] | "sort -k2,2nr"
    close("sort -k2,2nr")
    print "  operations run to completion per kernel variant:"; fflush()
    for (v in variant) print "    " v " " variant[v] | "sort"
    close("sort")
    if (total["faults"] + total["guard_breaches"] > 0) exit 1
  }' || status=1
failures=$(find "$out/failures" -name '*.tao' | wc -l)
[[ "$failures" == 0 ]] || echo "soak-on-core: $core: $failures failing input(s) kept in $out/failures/"
exit "$status"
