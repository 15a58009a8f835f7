#!/usr/bin/python3
"""Runs the single-operator ONNX cases through the onnxruntime-web oracle and reports,
per operator, form (qdq: float boundary as PyTorch exports; qdq_int: integer boundary;
qop: QOperator), integer type and weight granularity:

  kernels  what onnxruntime ran after its graph rewrites (Q/DQ/Transpose left out):
           an integer kernel (fused) or the float32 operator;
  model    share of elements where ort_arithmetic.py's formula for that kernel gives
           onnxruntime's output exactly ('=' marks a formula claimed exact);
  ideal    share equal to the ideal result (dequantize, exact operator, round half to
           even, clamp), and the largest difference from it in output steps;
  unfused  share equal to onnxruntime itself with graph optimizations disabled (the QDQ
           graph as written, every operator in float32).

Exit status 1 when a formula claimed exact disagrees with onnxruntime or a case fails;
77 (skip) without python3-onnx and python3-numpy (Debian packages; Debian's python3 is
/usr/bin/python3) or without the oracle (npm ci --prefix tests/oracle).

  /usr/bin/python3 tests/onnx_ops/characterize.py [--count 4] [--seed 1] [--only Conv Add]
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(os.path.dirname(HERE), "oracle", "ort_oracle.js")
SKIP = 77

try:
    import numpy as np
    import onnx  # noqa: F401  (cases.py builds the graphs with it)
except ImportError as missing:
    print(f"characterize: SKIP: {missing} (apt-get install python3-onnx python3-numpy; run /usr/bin/python3)")
    sys.exit(SKIP)
if not os.path.isdir(os.path.join(os.path.dirname(HERE), "oracle", "node_modules", "onnxruntime-web")):
    print("characterize: SKIP: onnxruntime-web is not installed (npm ci --prefix tests/oracle)")
    sys.exit(SKIP)

sys.path.insert(0, HERE)
import cases as C  # noqa: E402
import float_ops as F  # noqa: E402
import ort_arithmetic as A  # noqa: E402
BOOKKEEPING = {"QuantizeLinear", "DequantizeLinear", "Transpose"}


def run_oracle(jobs):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        handle.write("".join(json.dumps(job) + "\n" for job in jobs))
        name = handle.name
    try:
        done = subprocess.run(["node", ORACLE, name], capture_output=True, text=True, check=False)
    finally:
        os.unlink(name)
    if done.returncode != 0:
        sys.exit(f"characterize: the oracle failed (exit {done.returncode}): {done.stderr.strip()}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def read_output(case, path, result):
    """onnxruntime's output as integers (or float32 for DequantizeLinear cases)."""
    described = result["outputs"][0]
    raw = np.fromfile(path, dtype={"float32": np.float32, "int8": np.int8, "uint8": np.uint8}[described["type"]])
    raw = raw.reshape(described["dims"])
    if case.parts["kind"] == "dequantize" or described["type"] != "float32":
        return raw if raw.dtype == np.float32 else raw.astype(np.int64)
    # qdq form: the graph output is DequantizeLinear of the integers; invert it exactly.
    return (np.rint(raw.astype(np.float64) / float(np.float32(case.out.scale))) + int(case.out.zero_point)).astype(np.int64)


def ideal_integers(case):
    low, high = A._range(case.dtype)
    if case.parts["kind"] == "quantize":
        p = case.parts
        shape = (1, -1, 1, 1) if "axis" in p["attrs"] else ()
        scale = np.asarray(p["scale"], np.float64).reshape(shape)
        zero_point = np.asarray(p["zero_point"], np.int64).reshape(shape)
    else:
        scale, zero_point = float(np.float32(case.out.scale)), int(case.out.zero_point)
    return np.clip(np.rint(case.ideal / scale) + zero_point, low, high).astype(np.int64)


def model(case, kernel_list):
    """(name, integers, exact?) of the formula for the kernel onnxruntime ran."""
    kernels = [k["op"] for k in kernel_list]
    # int8 pairs that onnxruntime turned into uint8 ones: the kernel's first input is uint8.
    unsigned = {k["op"]: k["inputs"][0].startswith("uint8") for k in kernel_list if k["inputs"]}
    kind = case.parts["kind"]
    if kind == "quantize":
        p = case.parts
        scale = p["scale"].reshape(1, -1, 1, 1) if np.ndim(p["scale"]) else p["scale"]
        zero_point = p["zero_point"].reshape(1, -1, 1, 1) if np.ndim(p["zero_point"]) else p["zero_point"]
        return "QuantizeLinear", A.quantize_linear(case.feeds[0], scale, zero_point, case.dtype), True
    if kind == "dequantize":
        return "DequantizeLinear", A.dequantize_linear(case.parts["x"]), True
    fused = set(kernels) - BOOKKEEPING
    if case.op == "Transpose":
        fused.add("Transpose")
    tables = {
        "QLinearSigmoid": (lambda v: F.sigmoid(v.astype(np.float64)), False),
        "QLinearLeakyRelu": (lambda v: np.where(v >= 0, v, (np.float32(case.parts["attrs"].get("alpha", 0.01)) * v)
                                                .astype(np.float32)), True),
    }
    for name in ("QLinearConv", "QLinearMatMul", "QGemm"):
        if name in fused:
            return name, *A.integer_product(case)
    for name, function in (("QLinearAdd", A.qlinear_add), ("QLinearMul", A.qlinear_mul),
                           ("QLinearAveragePool", A.average_pool)):
        if name in fused:
            return name, *function(case, unsigned[name])
    for name, function in (("QLinearGlobalAveragePool", A.global_average_pool), ("QLinearSoftmax", A.qlinear_softmax),
                           ("QLinearConcat", A.qlinear_concat)):
        if name in fused:
            return name, *function(case)
    for name, (function, exact) in tables.items():
        if name in fused:
            return name, *A.lookup_table(case, function, exact)
    return "float32 " + "+".join(sorted(fused)) if fused else "DQ->Q", *A.float_path(case)


def main():
    parser = argparse.ArgumentParser(description="onnxruntime's arithmetic per operator")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=4, help="cases per variant")
    parser.add_argument("--only", nargs="+", choices=list(C.OPERATORS), help="these operators only")
    parser.add_argument("--keep", help="write the cases and outputs into this folder and keep them")
    parser.add_argument("--json", help="also write the per-variant figures to this file")
    args = parser.parse_args()

    root = args.keep or tempfile.mkdtemp(prefix="onnx_ops_")
    generated = list(C.generate(args.seed, args.count, args.only))
    jobs, paths = [], []
    for case in generated:
        directory, inputs = C.write_case(case, root)
        outputs = {level: os.path.join(directory, f"output_{level}.bin") for level in ("all", "disabled")}
        paths.append(outputs)
        for level, path in outputs.items():
            jobs.append({"model": os.path.join(directory, "model.onnx"), "inputs": inputs, "outputs": [path],
                         "graph_optimization": level, "report_kernels": level == "all"})
    results = run_oracle(jobs)

    rows = collections.OrderedDict()
    failures = []
    for index, case in enumerate(generated):
        default, unfused = results[2 * index], results[2 * index + 1]
        key = (case.op, case.form, case.dtype, case.weights or "-", case.scales)
        row = rows.setdefault(key, dict(cases=0, elements=0, kernels=set(), models=set(), exact_claim=True,
                                        model_equal=0, ideal_equal=0, ideal_max=0, unfused_equal=0, errors=[]))
        if not default["ok"] or not unfused["ok"]:
            row["errors"].append((default if not default["ok"] else unfused)["error"])
            failures.append(f"{case.name}: {row['errors'][-1]}")
            continue
        got = read_output(case, paths[index]["all"], default)
        as_written = read_output(case, paths[index]["disabled"], unfused)
        kernels = [k["op"] for k in default["kernels"]]
        name, predicted, exact = model(case, default["kernels"])
        row["cases"] += 1
        row["elements"] += got.size
        shown = [k for k in kernels if k not in BOOKKEEPING or k == case.op]
        row["kernels"].add(" ".join(shown) or "Q/DQ only")
        row["models"].add(name)
        row["exact_claim"] &= exact
        if got.dtype == np.float32:  # DequantizeLinear: compare the float32 bits
            equal = got.view(np.uint32) == predicted.astype(np.float32).view(np.uint32)
            row["model_equal"] += int(equal.sum())
            row["ideal_equal"] += int((got == case.ideal.astype(np.float32)).sum())  # correctly rounded
            row["unfused_equal"] += int((got.view(np.uint32) == as_written.view(np.uint32)).sum())
        else:
            equal = got == predicted
            ideal = ideal_integers(case)
            row["model_equal"] += int(equal.sum())
            row["ideal_equal"] += int((got == ideal).sum())
            row["ideal_max"] = max(row["ideal_max"], int(np.abs(got - ideal).max()))
            row["unfused_equal"] += int((got == as_written).sum())
        if exact and not equal.all():
            failures.append(f"{case.name}: {name} formula differs from onnxruntime in {int((~equal).sum())} of "
                            f"{equal.size} elements ({os.path.join(root, case.name)})")

    print(f"{'operator':18} {'form':7} {'type':5} {'weights':11} {'scales':6} {'cases':>5} {'elems':>6}  {'model':>8} "
          f"{'ideal':>7} {'max':>3} {'unfused':>7}  kernels onnxruntime ran")
    summary = []
    for (op, form, dtype, weights, scales), row in rows.items():
        n = max(row["elements"], 1)
        mark = "=" if row["exact_claim"] else "~"
        print(f"{op:18} {form:7} {dtype:5} {weights:11} {scales:6} {row['cases']:5d} {row['elements']:6d}  "
              f"{mark}{100.0 * row['model_equal'] / n:6.2f}% {100.0 * row['ideal_equal'] / n:6.2f}% {row['ideal_max']:3d} "
              f"{100.0 * row['unfused_equal'] / n:6.2f}%  {' | '.join(sorted(row['kernels']))}"
              + (f"  ERRORS: {row['errors'][0][:80]}" if row["errors"] else ""))
        summary.append(dict(op=op, form=form, dtype=dtype, weights=weights, scales=scales, cases=row["cases"],
                            elements=row["elements"], kernels=sorted(row["kernels"]), formulas=sorted(row["models"]),
                            formula_claimed_exact=row["exact_claim"], formula_equal=row["model_equal"],
                            ideal_equal=row["ideal_equal"], ideal_max_steps=row["ideal_max"],
                            unfused_equal=row["unfused_equal"], errors=row["errors"]))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(summary, handle, indent=1)
    total_cases = sum(r["cases"] for r in rows.values())
    print(f"{total_cases} cases, {len(failures)} failures" + ("" if args.keep else f" (cases in {root})"))
    for failure in failures[:20]:
        print("FAIL", failure)
    if not args.keep:
        subprocess.run(["rm", "-rf", root], check=False)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
