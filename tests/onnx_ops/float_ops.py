"""Float64 numpy implementations of the ONNX operators the single-operator cases use.

They give the ideal result of a QDQ graph (dequantize, operator in exact arithmetic,
quantize) and choose each case's output scale. Layout is ONNX's: NCHW, weights OIHW.
"""

import numpy as np


def _pad_nchw(x, pads, value=0.0):
    """pads = [top, left, bottom, right] (ONNX order for 2-D: begins then ends)."""
    top, left, bottom, right = pads
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=value)


def conv2d(x, w, b, strides, pads, group):
    x = _pad_nchw(x, pads)
    n, c, _, _ = x.shape
    m, cg, kh, kw = w.shape
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, :: strides[0], :: strides[1]]
    out = np.zeros((n, m) + windows.shape[2:4], dtype=np.result_type(x, w))
    per_group = m // group
    for g in range(group):
        xs = windows[:, g * cg : (g + 1) * cg]  # n, cg, oh, ow, kh, kw
        ws = w[g * per_group : (g + 1) * per_group]  # per_group, cg, kh, kw
        out[:, g * per_group : (g + 1) * per_group] = np.einsum("ncyxij,mcij->nmyx", xs, ws)
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out


def conv_transpose2d(x, w, b, strides, pads):
    """group 1; w is [C_in, C_out, kh, kw]; output_padding 0."""
    n, c, h, wd = x.shape
    _, m, kh, kw = w.shape
    full_h, full_w = (h - 1) * strides[0] + kh, (wd - 1) * strides[1] + kw
    out = np.zeros((n, m, full_h, full_w), dtype=np.result_type(x, w))
    for i in range(h):
        for j in range(wd):
            contribution = np.einsum("nc,cmij->nmij", x[:, :, i, j], w)
            out[:, :, i * strides[0] : i * strides[0] + kh, j * strides[1] : j * strides[1] + kw] += contribution
    top, left, bottom, right = pads
    out = out[:, :, top : full_h - bottom, left : full_w - right]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out


def max_pool(x, kernel, strides, pads):
    x = _pad_nchw(x, pads, -np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(x, kernel, axis=(2, 3))[:, :, :: strides[0], :: strides[1]]
    return windows.max(axis=(4, 5))


def average_pool(x, kernel, strides, pads, count_include_pad):
    counts = _pad_nchw(np.ones_like(x), pads)
    x = _pad_nchw(x, pads)
    view = lambda t: np.lib.stride_tricks.sliding_window_view(t, kernel, axis=(2, 3))[:, :, :: strides[0], :: strides[1]]
    sums = view(x).sum(axis=(4, 5))
    if count_include_pad:
        return sums / (kernel[0] * kernel[1])
    return sums / view(counts).sum(axis=(4, 5))


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def hard_sigmoid(x, alpha, beta):
    return np.clip(alpha * x + beta, 0.0, 1.0)


def hard_swish(x):
    return x * hard_sigmoid(x, 1.0 / 6.0, 0.5)


def leaky_relu(x, alpha):
    return np.where(x >= 0, x, alpha * x)


def slice_(x, starts, ends, axes, steps):
    index = [slice(None)] * x.ndim
    for start, end, axis, step in zip(starts, ends, axes, steps):
        index[axis] = slice(start, end, step)
    return x[tuple(index)]


def resize_nearest(x, scale):
    """Integer upscaling, coordinate_transformation_mode 'asymmetric', nearest_mode 'floor'."""
    return x.repeat(scale, axis=2).repeat(scale, axis=3)


def pad_constant(x, pads):
    """ONNX pads for NCHW: [n0, c0, h0, w0, n1, c1, h1, w1]; value 0."""
    rank = x.ndim
    return np.pad(x, [(pads[i], pads[i + rank]) for i in range(rank)])
