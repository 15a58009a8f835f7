#!/usr/bin/env bash
# The built-in example, end to end (run scripts/setup.sh first): generate a
# small int8 DS-CNN keyword spotter, compile it for a Cortex-M4, show the
# compiler's report, run the program on the host runtime and print the 12
# class scores and the top class.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${TINYAOT_BUILD:-build}
OUT=out/example
for tool in "$BUILD/tinyaot" "$BUILD/tinyaot_example_model"; do
  [ -x "$tool" ] || { echo "example: $tool is missing; run scripts/setup.sh first" >&2; exit 1; }
done
mkdir -p "$OUT"

echo "== 1. generate the model"
"$BUILD/tinyaot_example_model" "$OUT"

echo
echo "== 2. compile for cortex-m4"
"$BUILD/tinyaot" compile "$OUT/kws_dscnn.tflite" --target cortex-m4 -o "$OUT/kws_dscnn.tao" --quiet
echo "wrote $OUT/kws_dscnn.tao ($(stat -c %s "$OUT/kws_dscnn.tao") bytes)"

echo
echo "== 3. report"
"$BUILD/tinyaot" report "$OUT/kws_dscnn.tao"

echo
echo "== 4. run on $OUT/input.bin (49 frames x 10 MFCC features)"
"$BUILD/tinyaot" run "$OUT/kws_dscnn.tao" --input "$OUT/input.bin" --output "$OUT/scores.bin"

# The output is int8 with scale 1/256 and zero point -128: p = (q + 128) / 256.
od -An -v -td1 -w1 "$OUT/scores.bin" | tr -d ' ' |
  paste - "$OUT/labels.txt" "$OUT/float_scores.txt" |
  awk -F'\t' '
    BEGIN { printf "  %-2s  %-8s  %5s  %6s  %s\n", "#", "label", "int8", "score", "(float model)" }
    {
      p = ($1 + 128) / 256
      printf "  %-2d  %-8s  %5d  %6.4f  (%.4f)\n", NR - 1, $2, $1, p, $3
      if (NR == 1 || $1 > best) { best = $1; top = NR - 1; label = $2; score = p }
    }
    END { printf "top class: %d (%s), score %.4f\n", top, label, score }'
