#!/usr/bin/env bash
# Builds the libFuzzer targets (in build-tests/, the clang ASan+UBSan tree setup.sh configures), replays the
# committed regression inputs, then fuzzes each target for SECONDS seconds.
# Exits non-zero when a regression input fails or a fuzzer finds a crash;
# a new crashing input is copied into tests/fuzz/regressions/<target>/.
#
#   tests/fuzz/run_fuzzers.sh 60
#   TINYAOT_FUZZ_TARGETS=loader tests/fuzz/run_fuzzers.sh 1800   # one target (soaks in parallel)
set -euo pipefail

seconds=${1:?usage: run_fuzzers.sh SECONDS}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${TINYAOT_FUZZ_BUILD:-$root/build-tests}
shared=${TINYAOT_SHARED:-$root/../shared}
regressions=$root/tests/fuzz/regressions
work=$build/fuzz
# Seeds above this size (the big MLPerf models) take seconds per execution
# under the sanitizers; the small ones cover every operator.
seed_max_bytes=${TINYAOT_FUZZ_SEED_MAX_BYTES:-65536}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# ---- build (re-running cmake on a configured tree only refreshes it) ----
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DTINYAOT_FUZZ=ON >/dev/null
ninja -C "$build" fuzz_importer fuzz_loader tinyaot tinyaot_onnx_seed_models

# ---- seeds: the shared models, and programs compiled from them now ----
mkdir -p "$work/seeds/importer" "$work/seeds/loader"
if [ -d "$shared" ]; then
  while IFS= read -r model; do
    name=$(basename "$(dirname "$model")")-$(basename "$model")
    cp -f "$model" "$work/seeds/importer/$name"
  done < <(find "$shared/models" "$shared/golden-ops" -name '*.tflite' -size -"$((seed_max_bytes + 1))"c | sort)
else
  echo "run_fuzzers: $shared not found; fuzzing from the regression inputs only" >&2
fi
# ONNX: one small model per pattern the ONNX importer recognizes, and the
# committed PyTorch / quantize_static models small enough to fuzz quickly.
"$build/tinyaot_onnx_seed_models" "$work/seeds/importer"
while IFS= read -r model; do
  cp -f "$model" "$work/seeds/importer/$(basename "$model")"
done < <(find "$root/tests/data/onnx" -name '*.onnx' -size -"$((seed_max_bytes + 1))"c | sort)
for model in "$work"/seeds/importer/*.tflite "$work"/seeds/importer/*.onnx; do
  [ -e "$model" ] || continue
  stem=$(basename "$model"); stem=${stem%.*}
  for variant in "cortex-m4" "cortex-m0 --strip" "cortex-m55 --rounding single"; do
    read -r core flags <<<"$variant"
    seed="$work/seeds/loader/$stem-$core${flags//[ -]/_}.tao"
    [ "$seed" -nt "$build/tinyaot" ] && continue
    # shellcheck disable=SC2086
    "$build/tinyaot" compile "$model" -q --target "$core" $flags -o "$seed" 2>/dev/null ||
      echo "run_fuzzers: note: $(basename "$model") does not compile for $variant" >&2
  done
done

status=0
for target in ${TINYAOT_FUZZ_TARGETS:-importer loader}; do
  fuzzer=$build/fuzz_$target
  mkdir -p "$regressions/$target" "$work/corpus/$target"
  rm -rf "$work/artifacts/$target"
  mkdir -p "$work/artifacts/$target"

  # ---- committed crash inputs first, and for the importer the ones found
  # outside this suite (../shared/regressions): each must now pass ----
  mapfile -t cases < <(find "$regressions/$target" -type f ! -name '.*' | sort)
  if [ "$target" = importer ] && [ -d "$shared/regressions" ]; then
    mapfile -t -O "${#cases[@]}" cases < <(find "$shared/regressions" -name '*.tflite' | sort)
  fi
  if [ ${#cases[@]} -gt 0 ]; then
    echo "== $target: ${#cases[@]} regression input(s)"
    if ! "$fuzzer" -runs=1 "${cases[@]}" >"$work/$target-regressions.log" 2>&1; then
      echo "run_fuzzers: $target: a regression input fails again; see $work/$target-regressions.log" >&2
      grep -E "^(==|SUMMARY|Running:|tinyaot fuzz)" "$work/$target-regressions.log" | tail -20 >&2 || true
      status=1
      continue
    fi
  fi

  # ---- fuzz ----
  echo "== $target: fuzzing for $seconds s"
  log=$work/$target.log
  set +e
  "$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$target/" \
    "$work/corpus/$target" "$work/seeds/$target" "$regressions/$target" >"$log" 2>&1
  result=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
  echo "   $target: ${execs:-?} executions, ${rate:-?} exec/s, ${cov:-cov: ?}, exit $result"
  if [ $result -ne 0 ]; then
    status=1
    found=0
    for artifact in "$work/artifacts/$target"/*; do
      [ -e "$artifact" ] || continue
      cp -f "$artifact" "$regressions/$target/"
      echo "run_fuzzers: $target: saved $(basename "$artifact") to tests/fuzz/regressions/$target/" >&2
      found=1
    done
    [ $found -eq 1 ] || echo "run_fuzzers: $target: fuzzer failed without an artifact; see $log" >&2
    grep -E "^(==[0-9]+==ERROR|SUMMARY|tinyaot fuzz|.*runtime error)" "$log" | head -5 >&2 || true
  fi
done
exit $status
