#!/usr/bin/python3
"""Runs every model of tests/data/onnx/ on its committed input vectors through the
onnxruntime-web oracle and checks that the outputs are the committed ones, byte for
byte: the committed references and the pinned oracle agree. Also checks each manifest's
sha256 and sizes. Needs only python3 and the oracle; exit 77 (skip) without the oracle.

  /usr/bin/python3 tests/onnx_ops/check_model_outputs.py
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "tests", "data", "onnx")
ORACLE = os.path.join(REPO, "tests", "oracle", "ort_oracle.js")


def main():
    if not os.path.isdir(os.path.join(REPO, "tests", "oracle", "node_modules", "onnxruntime-web")):
        print("check_model_outputs: SKIP: onnxruntime-web is not installed (npm ci --prefix tests/oracle)")
        return 77
    failures, jobs, expected = [], [], []
    work = tempfile.mkdtemp(prefix="onnx_model_outputs_")
    for name in sorted(os.listdir(DATA)):
        manifest_path = os.path.join(DATA, name, "manifest.json")
        if not os.path.isfile(manifest_path):
            continue
        with open(manifest_path) as handle:
            manifest = json.load(handle)
        model = os.path.join(DATA, name, manifest["model_file"])
        with open(model, "rb") as handle:
            if hashlib.sha256(handle.read()).hexdigest() != manifest["model_sha256"]:
                failures.append(f"{name}: {manifest['model_file']} does not match the manifest's sha256")
        for vector in manifest["vectors"]:
            inputs = [os.path.join(DATA, name, f) for f in vector["inputs"]]
            for path, tensor in zip(inputs, manifest["inputs"]):
                if os.path.getsize(path) != tensor["bytes"]:
                    failures.append(f"{name}: {path} has {os.path.getsize(path)} bytes, manifest says {tensor['bytes']}")
            outputs = [os.path.join(work, f"{name}_{f}") for f in vector["outputs"]]
            jobs.append({"model": model, "inputs": inputs, "outputs": outputs})
            expected.append([(os.path.join(DATA, name, f), o) for f, o in zip(vector["outputs"], outputs)])
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        handle.write("".join(json.dumps(job) + "\n" for job in jobs))
    done = subprocess.run(["node", ORACLE, handle.name], capture_output=True, text=True, check=False)
    os.unlink(handle.name)
    if done.returncode != 0:
        print(f"check_model_outputs: FAIL: the oracle exited {done.returncode}: {done.stderr.strip()}")
        return 1
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    checked = 0
    for job, result, pairs in zip(jobs, results, expected):
        if not result["ok"]:
            failures.append(f"{job['model']}: {result['error']}")
            continue
        for committed, produced in pairs:
            with open(committed, "rb") as a, open(produced, "rb") as b:
                if a.read() != b.read():
                    failures.append(f"{committed}: onnxruntime-web now gives other bytes")
            checked += 1
    subprocess.run(["rm", "-rf", work], check=False)
    for failure in failures:
        print("FAIL", failure)
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
