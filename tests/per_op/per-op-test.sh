#!/usr/bin/env bash
# `tinyaot bench --per-op` on an emulated core: every operation of the
# program appears once, in execution order, with the operator and kernel
# the program's report names, and the per-operation counts (plus the
# runtime's own instructions before the first and after the last
# operation) add up to the whole inference as the unprofiled firmware
# counts it, in a separate run.
#
#   per-op-test.sh --tinyaot CLI --shared DIR --core CORE --model NAME --work DIR
#
# Exits 77 (skipped) when ../shared, QEMU, the Arm toolchain or python3 is
# missing.
set -euo pipefail

tinyaot="" shared="" core="" model="" work=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --core) core="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "per-op-test: unknown argument $1" >&2; exit 2 ;;
  esac
done
skip() { echo "per-op-test: SKIPPED: $*" >&2; exit 77; }
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
command -v python3 >/dev/null || skip "python3 not installed"
tflite="$shared/models/$model.tflite"
[[ -f "$tflite" ]] || skip "no $tflite (../shared absent)"

mkdir -p "$work"
program="$work/$model-$core.tao"
"$tinyaot" compile "$tflite" --target "cortex-$core" -o "$program" -q
"$tinyaot" report "$program" --json >"$work/$model-$core.report.json"
"$tinyaot" bench "$program" --on "qemu:cortex-$core" --per-op --json >"$work/$model-$core.bench.json"
"$tinyaot" bench "$program" --on "qemu:cortex-$core" --per-op >"$work/$model-$core.bench.txt"

python3 - "$work/$model-$core.report.json" "$work/$model-$core.bench.json" \
  "$work/$model-$core.bench.txt" <<'PY'
import json, sys

report = json.load(open(sys.argv[1]))
bench = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)

expected = report["operations"]
per_op = bench["per_op"]
ops = per_op["operations"]
check(len(ops) == len(expected), f"{len(ops)} operations profiled, the program has {len(expected)}")
for want, got in zip(expected, ops):
    i = want["index"]
    check(got["index"] == i, f"row {i} has index {got['index']}")
    check(got["operator"] == want.get("type", ""), f"operation {i}: operator {got['operator']}")
    check(got["variant"] == want["kernel"], f"operation {i}: variant {got['variant']}")
    check(got["macs"] == want.get("macs"), f"operation {i}: MACs {got['macs']}")
    check(got["instructions"] > 0, f"operation {i}: no instructions")

rows = sum(op["instructions"] for op in ops)
runtime = per_op["runtime_before_first_operation"] + per_op["runtime_after_last_operation"]
whole = bench["instructions_per_inference"]
print(f"per-op-test: {len(ops)} operations, {rows} + runtime {runtime} = {rows + runtime}; "
      f"unprofiled inference {whole}")
check(rows + runtime == per_op["total_instructions"], "total is not the sum of its rows")
check(rows + runtime == whole,
      f"operations + runtime = {rows + runtime}, the unprofiled inference counts {whole}")
check(per_op["all_inferences_profiled"] == per_op["all_inferences_unprofiled"], "sums over the inferences differ")
check(runtime < 100, f"{runtime} instructions outside every operation")
shares = sum(op["share"] for op in ops)
check(abs(shares * per_op["total_instructions"] - rows) <= 1e-6 * rows, f"shares add up to {shares}")
for op in ops:
    if op["macs"]:
        check(abs(op["instructions_per_mac"] * op["macs"] - op["instructions"]) < 1e-6 * op["instructions"],
              f"operation {op['index']}: instructions per MAC")

# The table: one row per operation, then the total with the same figure.
table_rows = [l.split() for l in text.splitlines() if l.split() and l.split()[0].isdigit()]
check([int(r[0]) for r in table_rows] == list(range(len(expected))), "table rows out of order")
total_line = [l for l in text.splitlines() if l.split()[:1] == ["total"]]
check(len(total_line) == 1 and f"{rows + runtime:,}" in total_line[0], "table total line")

for p in problems:
    print("per-op-test: FAIL:", p)
sys.exit(1 if problems else 0)
PY
