#!/usr/bin/env bash
# Every generated section of docs/benchmarks.md is what its script renders
# from the committed results (bench/results/*.json), so the two cannot
# drift: `bench/<script> --check` for each. Then the check is shown to
# fail: in a copy of bench/ and docs/, one figure changed in a section must
# make that script's check fail. Host only: no measurement runs.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Script and the marker name of its section.
sections=("qemu qemu-bench" "memory memory-bench" "size size-bench" "per-op per-op-bench" "qemu-clang qemu-clang" "onnx-twins onnx-twins")
status=0
for entry in "${sections[@]}"; do
  read -r script marker <<<"$entry"
  if "$repo/bench/$script" --check; then
    echo "generated-docs: ok: the $marker section is bench/$script's rendering"
  else
    status=1
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/bench" "$repo/docs" "$work/"
for entry in "${sections[@]}"; do
  read -r script marker <<<"$entry"
  cp "$repo/docs/benchmarks.md" "$work/docs/benchmarks.md"
  # The last digit of the section's first table row, changed.
  python3 - "$work/docs/benchmarks.md" "$marker" <<'PY'
import re, sys
path, marker = sys.argv[1], sys.argv[2]
text = open(path).read()
begin = text.index(f"<!-- {marker}:begin -->")
end = text.index(f"<!-- {marker}:end -->")
row = re.compile(r"^\|[^\n]*\d[^\n]*\|$", re.M)
rows = [m for m in row.finditer(text, begin, end) if not set(m.group()) <= set("|-: ")]
m = rows[1] if len(rows) > 1 else rows[0]  # past the header
digit = max(i for i in range(m.start(), m.end()) if text[i].isdigit())
text = text[:digit] + str((int(text[digit]) + 1) % 10) + text[digit + 1:]
open(path, "w").write(text)
PY
  if "$work/bench/$script" --check >/dev/null; then
    echo "generated-docs: FAIL: bench/$script --check accepts a changed figure in the $marker section" >&2
    status=1
  else
    echo "generated-docs: ok: bench/$script --check refuses a changed figure"
  fi
done
exit $status
