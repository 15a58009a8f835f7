#!/usr/bin/env bash
# The committed ONNX models (tests/data/onnx) on one emulated core: each
# compiled once (--prefer speed) with --rounding ROUNDING, all in the core's
# one runner firmware (tools/qemu/test-matrix.sh, the firmware the TFLite
# golden matrix builds), then every output compared with onnxruntime's in
# output steps by golden.py. Exit 77 (skip) without QEMU or the Arm
# toolchain, as test-matrix.sh.
#
#   tests/onnx_ops/golden-on-core.sh --core m4 --tinyaot build/tinyaot
#       [--rounding tflm] [--opt 2] [--build-root DIR] [--out DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
core="" tinyaot="" rounding=tflm opt=2 build_root="$repo/build-arm" out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --core) core="${2#cortex-}"; shift 2 ;;
    --tinyaot) tinyaot="$2"; shift 2 ;;
    --rounding) rounding="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    --build-root) build_root="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "golden-on-core: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -n "$core" && -n "$tinyaot" ]] || { echo "golden-on-core: --core and --tinyaot are required" >&2; exit 2; }
out=$(realpath -m "${out:-$build_root/onnx-golden-$core}")

status=0
"$repo/tools/qemu/test-matrix.sh" --core "$core" --opt "$opt" --jobs 1 --prefer speed \
  --shared "$repo/tests/data" --sets onnx --compare none --compile-flags "--rounding $rounding" \
  --tinyaot "$tinyaot" --build-root "$build_root" --out "$out" || status=$?
((status == 77)) && exit 77
# Compared even when a run failed, so the printout shows every model.
/usr/bin/python3 "$here/golden.py" --outputs "$out/$core/onnx" --rounding "$rounding" \
  --label "cortex-$core" || status=1
exit "$status"
