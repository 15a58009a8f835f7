"""What onnxruntime 1.31 (WebAssembly build, CPU provider, default optimizations)
computes for each single-operator case, written out in numpy float32/int64 so that it
can be compared with onnxruntime's output element by element.

Each function states the formula and where it is in onnxruntime's source. Where the
kernel's result depends on a float32 summation order or on a transcendental function
the emulation is approximate and says so (`exact=False`).
"""

import numpy as np

import float_ops as F

f32 = np.float32


def _range(dtype):
    return (-128, 127) if dtype == "int8" else (0, 255)


def _rint(values):
    return np.rint(values)  # IEEE round half to even, as nearbyintf / cvtps2dq / the MLAS magic-number trick


def quantize_linear(real, scale, zero_point, dtype):
    """MlasQuantizeLinear (QuantizeLinear; lookup tables): q = clamp(rint(f32(x / scale)) + zp)."""
    low, high = _range(dtype)
    value = (np.asarray(real, f32) / f32(scale)).astype(f32)
    return np.clip(_rint(value) + np.asarray(zero_point, np.int64), low, high).astype(np.int64)


def dequantize_linear(q):
    """DequantizeLinear: f32(int32(x - zp)) * f32(scale), one float32 multiply."""
    return q.dequantized(f32)


def requantize(accumulator, multiplier, zero_point, dtype):
    """MlasRequantizeOutput: v = f32(acc) * multiplier (float32), clamp to [qmin - zp, qmax - zp],
    round half to even, + zp."""
    low, high = _range(dtype)
    value = (accumulator.astype(f32) * np.asarray(multiplier, f32)).astype(f32)
    value = np.clip(value, f32(low - int(zero_point)), f32(high - int(zero_point)))
    return (_rint(value) + int(zero_point)).astype(np.int64)


def _centered(q):
    shape = [1] * q.values.ndim
    if q.axis is not None:
        shape[q.axis] = -1
    return q.values.astype(np.int64) - np.asarray(q.zero_point, np.int64).reshape(shape if np.ndim(q.zero_point) else [])


def integer_product(case):
    """QLinearConv / QLinearMatMul / QGemm: exact int32 accumulation of (x - zx)(w - zw) + bias,
    multiplier = f32(f32(sx * sw[c]) / sy) (qlinearconv.cc ComputeOutputScale: X_scale * W_scale / Y_scale),
    then MlasRequantizeOutput."""
    p, out = case.parts, case.out
    x, w, bias = p["x"], p["w"], p["bias"]
    cx, cw = _centered(x), _centered(w)
    scale_w = np.asarray(w.scale, f32)
    if p["kind"] == "conv":
        attrs = p["attrs"]
        acc = F.conv2d(cx, cw, None, attrs["strides"], attrs["pads"], attrs["group"])
        channel_shape = (1, -1, 1, 1)
    elif p["kind"] == "gemm":
        acc = cx @ cw.T
        channel_shape = (1, -1)
    else:  # matmul, constant or activation right-hand side
        acc = cx @ cw
        channel_shape = (-1,)
    if bias is not None:
        acc = acc + bias.values.astype(np.int64).reshape(channel_shape)
    multiplier = ((f32(x.scale) * scale_w).astype(f32) / f32(out.scale)).astype(f32)
    if multiplier.ndim:
        multiplier = multiplier.reshape(channel_shape)
    return requantize(acc, multiplier, out.zero_point, case.dtype), True


def _kernel_zero_point(case, zero_point, unsigned_kernel):
    """The output zero point and integer range the kernel itself uses: where onnxruntime's
    QDQS8ToU8Transformer turned int8 QuantizeLinear/DequantizeLinear pairs into uint8 ones,
    the kernel runs on uint8 with every zero point + 128. Kernels that add the zero point in
    float32 before rounding (below) round differently near ties then."""
    if case.dtype == "int8" and unsigned_kernel:
        return int(zero_point) + 128, (0, 255), 128
    return int(zero_point), _range(case.dtype), 0


def _round_with_zero_point(real, zero_point, case, unsigned_kernel):
    """clamp(real, qmin - zp, qmax - zp), then rint(f32(real + zp)), in the kernel's own type."""
    zp, (low, high), shift = _kernel_zero_point(case, zero_point, unsigned_kernel)
    real = np.clip(real, f32(low - zp), f32(high - zp))
    return (_rint((real + f32(zp)).astype(f32)) - shift).astype(np.int64)


def qlinear_add(case, unsigned_kernel):
    """MlasQLinearAddKernelRawHelper (qladd.cpp; the WebAssembly build has no NEON/SSE path):
    a = f32(sa * f32(qa - za)), b likewise, c = f32(f32(a + b) / sc), clamp to
    [qmin - zc, qmax - zc], q = rint(f32(c + zc))."""
    p, out = case.parts, case.out
    a = (f32(p["x"].scale) * _centered(p["x"]).astype(f32)).astype(f32)
    b = (f32(p["w"].scale) * _centered(p["w"]).astype(f32)).astype(f32)
    c = ((a + b).astype(f32) / f32(out.scale)).astype(f32)
    return _round_with_zero_point(c, out.zero_point, case, unsigned_kernel), True


def qlinear_mul(case, unsigned_kernel):
    """MlasQLinearMulKernel (qlmul.cpp, the pure C++ path the WebAssembly build takes):
    a = f32(sa * f32(qa - za)), b likewise, c = f32(f32(a * b) / sc), clamp to
    [qmin - zc, qmax - zc], q = rint(f32(c + zc))."""
    p, out = case.parts, case.out
    a = (f32(p["x"].scale) * _centered(p["x"]).astype(f32)).astype(f32)
    b = (f32(p["w"].scale) * _centered(p["w"]).astype(f32)).astype(f32)
    c = ((a * b).astype(f32) / f32(out.scale)).astype(f32)
    return _round_with_zero_point(c, out.zero_point, case, unsigned_kernel), True


def lookup_table(case, function, exact):
    """QlinearBuildLookupTable (QLinearSigmoid, QLinearLeakyRelu): for each of the 256 inputs,
    x = f32(sx * f32(q - zx)), y = f(x) in float32, table = MlasQuantizeLinear(y)."""
    p, out = case.parts, case.out
    x = p["x"]
    low, high = _range(case.dtype)
    codes = np.arange(low, high + 1)
    real = (f32(x.scale) * (codes - int(x.zero_point)).astype(f32)).astype(f32)
    table = quantize_linear(function(real).astype(f32), out.scale, out.zero_point, case.dtype)
    return table[x.values.astype(np.int64) - low], exact


def average_pool(case, unsigned_kernel):
    """QLinearAveragePool (contrib qlinear_pool.cc): dequantize each input x_scale * (q - zx)
    in float32, sum the window in float32 row by row, divide by the count of valid
    elements, q = clamp(rint(f32(f32(avg / sy) + zy)))."""
    p, out = case.parts, case.out
    x = p["x"]
    k, s = p["attrs"]["kernel_shape"], p["attrs"]["strides"]
    real = (f32(x.scale) * _centered(x).astype(f32)).astype(f32)
    windows = np.lib.stride_tricks.sliding_window_view(real, k, axis=(2, 3))[:, :, :: s[0], :: s[1]]
    total = np.zeros(windows.shape[:4], f32)
    for i in range(k[0]):
        for j in range(k[1]):
            total = (total + windows[..., i, j]).astype(f32)
    average = (total / f32(k[0] * k[1])).astype(f32)
    zp, (low, high), shift = _kernel_zero_point(case, out.zero_point, unsigned_kernel)
    value = ((average / f32(out.scale)).astype(f32) + f32(zp)).astype(f32)
    return (np.clip(_rint(value), low, high) - shift).astype(np.int64), True


def global_average_pool(case):
    """MlasQLinearGlobalAveragePoolNchw/Nhwc (qlgavgpool.cpp): exact int32 sum - zx * N,
    multiplier = f32(sx / f32(sy * f32(N))), then MlasRequantizeOutput."""
    p, out = case.parts, case.out
    x = p["x"]
    size = x.values.shape[2] * x.values.shape[3]
    acc = x.values.astype(np.int64).sum(axis=(2, 3), keepdims=True) - int(x.zero_point) * size
    multiplier = f32(f32(x.scale) / f32(f32(out.scale) * f32(size)))
    return requantize(acc, multiplier, out.zero_point, case.dtype), True


def qlinear_softmax(case):
    """QLinearSoftmax (contrib qlinear_softmax.cc), not the ideal softmax:
    table[i] = f32(exp((i - 255 + shift) * sx)) in double, shift = max(0, ln(FLT_MAX / D) - 5) / sx;
    per row: e = table[q - max(q) + 255], s = float32 sum in order,
    q = min(rint(f32(f32(e * floor(1 / sy)) / s)) + zy, qmax): the output scale enters as
    floor(1 / y_scale), and e * floor(1 / sy) overflows float32 to infinity (so saturates to
    qmax) when floor(1 / sy) exceeds about 148 x D (the table keeps exp(255 + shift) near
    FLT_MAX / (D e^5))."""
    p, out = case.parts, case.out
    x = p["x"]
    values = x.values.astype(np.int64)
    depth = values.shape[-1]
    shift = max(0.0, np.log(np.finfo(np.float32).max / depth) - 5.0) / float(f32(x.scale))
    table = np.exp((np.arange(256) - 255 + shift) * float(f32(x.scale))).astype(f32)
    flat = values.reshape(-1, depth)
    y_scale = f32(np.floor(f32(1.0) / f32(out.scale)))
    result = np.zeros_like(flat)
    for row in range(flat.shape[0]):
        e = table[flat[row] - flat[row].max() + 255]
        total = f32(0.0)
        for value in e:
            total = f32(total + value)
        with np.errstate(over="ignore"):
            value = ((e * y_scale).astype(f32) / total).astype(f32)
        value = np.where(np.isfinite(value), _rint(value) + int(out.zero_point), np.inf)
        result[row] = np.minimum(value, _range(case.dtype)[1])
    return result.reshape(values.shape), True


def qlinear_concat(case):
    """QLinearConcat (contrib): an input whose scale and zero point equal the output's is copied;
    any other goes through a 256-entry table of MlasQuantizeLinear(f32(sx * f32(q - zx)))."""
    out = case.out
    pieces = []
    for part in case.parts["parts"]:
        if f32(part.scale) == f32(out.scale) and int(part.zero_point) == int(out.zero_point):
            pieces.append(part.values.astype(np.int64))
        else:
            real = (f32(part.scale) * _centered(part).astype(f32)).astype(f32)
            pieces.append(quantize_linear(real, out.scale, out.zero_point, case.dtype))
    return np.concatenate(pieces, axis=1), True


# Unfused operators: DequantizeLinear, the float32 operator, QuantizeLinear.
FLOAT32_ELEMENTWISE = {
    "sub": lambda a, b: (a - b).astype(f32),
    "relu": lambda x: np.maximum(x, f32(0)),
    "hardsigmoid": lambda x: np.clip((f32(0.2) * x).astype(f32) + f32(0.5), f32(0), f32(1)).astype(f32),
    "hardswish": lambda x: (x * np.clip((f32(1.0 / 6.0) * x).astype(f32) + f32(0.5), f32(0), f32(1))).astype(f32),
}


def float_path(case):
    """DequantizeLinear in float32, the operator in float32, MlasQuantizeLinear. Exact for data
    movement, Relu, Clip and the float32 elementwise operators written out above; approximate
    (float64 operator rounded once to float32, where onnxruntime sums in its own order and
    uses its own exp/tanh) for the others."""
    p, out = case.parts, case.out
    kind = p["kind"]
    operands = {k: dequantize_linear(p[k]) for k in ("x", "w", "bias") if p.get(k) is not None}
    exact = kind in FLOAT32_ELEMENTWISE or kind in ("move", "relu", "clip")
    if kind in FLOAT32_ELEMENTWISE:
        real = FLOAT32_ELEMENTWISE[kind](*[operands[k] for k in ("x", "w") if k in operands])
    else:
        real = p["function"]({k: v.astype(np.float64) for k, v in operands.items()}).astype(f32)
    return quantize_linear(real, out.scale, out.zero_point, case.dtype), exact
