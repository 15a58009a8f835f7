#!/usr/bin/env bash
# `tinyaot bench`'s "runtime + kernels code" figure on an emulated core: it
# counts the runtime library linked into the firmware and nothing of the
# program, so two programs of very different sizes run by the same runner
# firmware give the same figure; it is positive, below the firmware's code
# plus constants, and at most what the runtime library's members hold
# before the linker drops unused sections (arm-none-eabi-size of the
# archive, text counting code and constants).
#
#   runtime-code-test.sh --tinyaot CLI --shared DIR --core CORE --work DIR
#
# Exits 77 (skipped) when ../shared, QEMU, the Arm toolchain or python3 is
# missing.
set -euo pipefail

tinyaot="" shared="" core="" work=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --core) core="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "runtime-code-test: unknown argument $1" >&2; exit 2 ;;
  esac
done
skip() { echo "runtime-code-test: SKIPPED: $*" >&2; exit 77; }
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not installed"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not installed"
command -v python3 >/dev/null || skip "python3 not installed"
[[ -d "$shared/models" ]] || skip "no $shared/models (../shared absent)"

mkdir -p "$work"
for model in hello_world_int8 kws_ref_model; do
  "$tinyaot" compile "$shared/models/$model.tflite" --target "cortex-$core" -q -o "$work/$model.tao"
  "$tinyaot" bench "$work/$model.tao" --on "qemu:cortex-$core" --json >"$work/$model.json"
done
archive=$(dirname "$tinyaot")/arm/$core-O2/libtinyaot_runtime.a
[[ -f "$archive" ]] || { echo "runtime-code-test: FAIL: no $archive" >&2; exit 1; }
library=$(arm-none-eabi-size "$archive" | awk 'NR > 1 { s += $1 } END { print s }')

python3 - "$work/hello_world_int8.json" "$work/kws_ref_model.json" "$library" <<'PY'
import json, sys
small, large = (json.load(open(p)) for p in sys.argv[1:3])
library = int(sys.argv[3])
problems = []
figure = [b["runtime_kernels_code_bytes"] for b in (small, large)]
print(f"runtime-code-test: runtime + kernels code {figure[0]:,} / {figure[1]:,} bytes; "
      f"programs {small['flash']['total_with_program'] - small['flash']['total']:,} / "
      f"{large['flash']['total_with_program'] - large['flash']['total']:,}; library holds {library:,}")
if figure[0] != figure[1]:
    problems.append("the figure changes with the program")
for b in (small, large):
    f = b["flash"]
    rk = f["runtime_kernels"]
    if not 0 < rk["total"] == rk["text"] + rk["rodata"] == b["runtime_kernels_code_bytes"]:
        problems.append(f"{b['program']}: parts {rk} do not add up")
    if rk["text"] >= f["text"] or rk["rodata"] > f["rodata"]:
        problems.append(f"{b['program']}: more than the firmware's code or constants")
    if rk["total"] > library:
        problems.append(f"{b['program']}: more than the runtime library holds ({library})")
for p in problems:
    print("runtime-code-test: FAIL:", p)
sys.exit(1 if problems else 0)
PY
