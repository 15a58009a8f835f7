#!/usr/bin/python3
"""Golden test of the quantized ONNX models in tests/data/onnx/: tinyaot's outputs for
each model's five committed input vectors against onnxruntime's committed float32
outputs, counted in output steps (the scale of the DequantizeLinear that produces the
graph output, from the manifest). Prints per model the share of exact elements and the
worst step.

Two ways to get tinyaot's outputs:
  --tinyaot CLI     compile every model with this CLI and run it on the host runtime;
  --outputs DIR     read outputs produced elsewhere (tools/qemu/test-matrix.sh --sets
                    onnx: DIR/<model>/<prefer>/vec<k>_output0.bin; a program the core's
                    board cannot hold is skipped, with test-matrix.sh's reason).

The bound: one step with --rounding onnx (onnxruntime's own requantization). With
TFLite's rounding (tflm, until the onnx mode is merged) each layer may round a near-tie
the other way and deep models carry that drift to their outputs, so each model is held
to the worst drift measured for it (TFLM_DRIFT_STEPS) and classifiers to onnxruntime's
top class. Exit 1 when a bound is broken, a model fails to compile or run, or an
output is missing. Needs only python3.

  /usr/bin/python3 tests/onnx_ops/golden.py --tinyaot build/tinyaot [--rounding tflm]
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data", "onnx")

# Worst difference from onnxruntime, in output steps, over the five vectors with
# --rounding tflm (measured with this script, seed-free: the vectors are committed).
TFLM_DRIFT_STEPS = {
    "ds_cnn_kws": 2,
    "resnet8": 3,
    "mobilenet_v2_035_96": 66,
    "mlp_autoencoder": 3,
    "qdq_static_cnn": 0,
}
# Models whose output is a class score vector: tinyaot's top class must be onnxruntime's.
CLASSIFIERS = {"ds_cnn_kws", "resnet8", "mobilenet_v2_035_96", "qdq_static_cnn"}


def floats(path):
    with open(path, "rb") as handle:
        data = handle.read()
    return list(struct.unpack(f"<{len(data) // 4}f", data))


def models():
    for name in sorted(os.listdir(DATA)):
        path = os.path.join(DATA, name, "manifest.json")
        if os.path.isfile(path):
            with open(path) as handle:
                yield name, json.load(handle)


def run_on_host(tinyaot, rounding, work):
    """Compiles and runs every model; outputs go to work/<model>/host/. Returns failures."""
    failures = []
    for name, manifest in models():
        directory = os.path.join(work, name, "host")
        os.makedirs(directory, exist_ok=True)
        program = os.path.join(directory, f"{name}.tao")
        done = subprocess.run([tinyaot, "compile", os.path.join(DATA, name, manifest["model_file"]), "-q",
                               "--rounding", rounding, "-o", program], capture_output=True, text=True)
        if done.returncode != 0:
            failures.append(f"{name}: compile failed: {done.stderr.strip()}")
            continue
        for vector in manifest["vectors"]:
            inputs = [os.path.join(DATA, name, f) for f in vector["inputs"]]
            outputs = [os.path.join(directory, f) for f in vector["outputs"]]
            done = subprocess.run([tinyaot, "run", program, "--input", *inputs, "--output", *outputs],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                failures.append(f"{name} vector {vector['index']}: run failed: {done.stderr.strip()}")
    return failures


def compare(outputs, rounding, label):
    """Checks every model's outputs under `outputs`/<model>/<one folder>/; returns failures."""
    failures = []
    print(f"{label}: tinyaot --rounding {rounding} against onnxruntime-web")
    print(f"  {'model':28} {'vectors':>7} {'elements':>8} {'exact':>8} {'worst':>5} {'bound':>5}  top class")
    for name, manifest in models():
        runs = sorted(os.listdir(os.path.join(outputs, name))) if os.path.isdir(os.path.join(outputs, name)) else []
        if not runs:
            failures.append(f"{name}: no outputs under {os.path.join(outputs, name)}")
            continue
        bound = 0 if rounding == "onnx" else TFLM_DRIFT_STEPS[name]
        for run in runs:
            # test-matrix.sh's note that the core's board cannot hold the program.
            form = os.path.join(outputs, name, run, "form.txt")
            if os.path.isfile(form) and open(form).read().startswith("none"):
                print(f"  {name + '/' + run:28} skipped: {open(form).read().strip()[len('none: '):]}")
                continue
            elements = exact = worst = vectors = same_class = 0
            for vector in manifest["vectors"]:
                for k, file in enumerate(vector["outputs"]):
                    got_path = os.path.join(outputs, name, run, file)
                    if not os.path.isfile(got_path):
                        failures.append(f"{name}/{run}: {file} missing")
                        continue
                    want, got = floats(os.path.join(DATA, name, file)), floats(got_path)
                    if len(want) != len(got):
                        failures.append(f"{name}/{run}: {file} has {len(got)} values, want {len(want)}")
                        continue
                    scale = manifest["outputs"][k]["scale"]
                    steps = [round(abs(a - b) / scale) for a, b in zip(want, got)]
                    elements += len(steps)
                    exact += steps.count(0)
                    worst = max(worst, max(steps))
                    vectors += 1
                    same_class += want.index(max(want)) == got.index(max(got))
            share = 100.0 * exact / max(elements, 1)
            top = f"{same_class}/{vectors}" if name in CLASSIFIERS else "-"
            print(f"  {name + '/' + run:28} {vectors:7d} {elements:8d} {share:7.2f}% {worst:5d} {bound:5d}  {top}")
            if worst > bound:
                failures.append(f"{name}/{run}: {worst} steps from onnxruntime, bound {bound}")
            if name in CLASSIFIERS and same_class != vectors:
                failures.append(f"{name}/{run}: top class differs from onnxruntime's in "
                                f"{vectors - same_class} of {vectors} vectors")
    return failures


def main():
    parser = argparse.ArgumentParser(description="tinyaot against onnxruntime on the committed ONNX models")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--tinyaot", help="compile and run on the host with this CLI")
    source.add_argument("--outputs", help="compare the outputs in this folder (test-matrix.sh's <out>/<core>/onnx)")
    parser.add_argument("--rounding", default="tflm", help="the --rounding the programs were compiled with")
    parser.add_argument("--label", default="host", help="what ran them, for the printout")
    args = parser.parse_args()
    if args.tinyaot:
        work = tempfile.mkdtemp(prefix="onnx_golden_")
        failures = run_on_host(args.tinyaot, args.rounding, work)
        failures += compare(work, args.rounding, args.label)
        subprocess.run(["rm", "-rf", work], check=False)
    else:
        failures = compare(args.outputs, args.rounding, args.label)
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
