#!/usr/bin/env bash
# Writes what the toolchain matrix proved into docs/deploying.md, between
# <!-- toolchains:begin --> and <!-- toolchains:end -->: per compiler
# (with the version that ran) and flag set, the cores on which the
# exported library built without a warning and ran bit-exact. Reads the
# folders toolchain-matrix.sh wrote (summary.txt, compilers.txt), one per
# core; a configuration that failed anywhere is left out of the table.
#
#   tests/toolchains/document.sh [--doc FILE] RESULT_DIR...
#   e.g. tests/toolchains/document.sh build-tests/toolchains/{m0,m4,m33,m55}
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
doc="$repo/docs/deploying.md"
if [[ "${1:-}" == --doc ]]; then doc="$2"; shift 2; fi
[[ $# -gt 0 ]] || { sed -n '2,11p' "$0"; exit 2; }
for dir in "$@"; do
  [[ -f "$dir/summary.txt" && -f "$dir/compilers.txt" ]] ||
    { echo "document: $dir holds no toolchain-matrix result" >&2; exit 1; }
done
python3 - "$doc" "$@" <<'PY'
import re, sys
doc, dirs = sys.argv[1], sys.argv[2:]
versions, cores, verdicts = {}, [], {}
for d in dirs:
    for line in open(f"{d}/compilers.txt"):
        cc, version = line.rstrip("\n").split("\t")
        if versions.setdefault(cc, version) != version:
            sys.exit(f"document: {d} ran {cc} {version}, another folder {versions[cc]}")
    for line in open(f"{d}/summary.txt"):
        m = re.match(r"(m\d+)\s+(gcc|clang)\s+(.*?)\s+(\d+|-)\s\s(.*)$", line.rstrip("\n"))
        if not m:
            continue
        core, cc, flags, _, verdict = m.groups()
        if core not in cores:
            cores.append(core)
        verdicts[(cc, flags, core)] = verdict.startswith("ok:")
configs = []
for cc, flags, _ in verdicts:
    if (cc, flags) not in configs:
        configs.append((cc, flags))
names = {"gcc": "arm-none-eabi-gcc", "clang": "clang --target=arm-none-eabi"}
rows = ["| Compiler | Version | Flags | " + " | ".join(f"Cortex-{c.upper()}" for c in cores) + " |",
        "|---|---|---|" + "---|" * len(cores)]
left_out = []
for cc, flags in configs:
    if all(verdicts.get((cc, flags, c)) for c in cores):
        rows.append(f"| {names[cc]} | {versions[cc]} | `{flags}` | " +
                    " | ".join("bit-exact" for _ in cores) + " |")
    else:
        left_out.append(f"{cc} {flags}")
block = "\n".join(rows) + "\n"
if left_out:
    print("document: left out (failed on some core): " + "; ".join(left_out), file=sys.stderr)
text = open(doc).read()
begin, end = "<!-- toolchains:begin -->\n", "<!-- toolchains:end -->"
if begin not in text or end not in text:
    sys.exit(f"document: {doc} has no {begin.strip()} ... {end} block")
head, rest = text.split(begin, 1)
open(doc, "w").write(head + begin + block + end + rest.split(end, 1)[1])
print(f"document: {len(rows) - 2} configurations on {len(cores)} cores written to {doc}")
PY
