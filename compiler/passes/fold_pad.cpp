// Folds an explicit PAD / PADV2 into the CONV_2D or DEPTHWISE_CONV_2D that
// reads it. The convolution kernels skip taps outside the input, which is
// the same as reading the input zero point; so a PAD that fills H and W
// with exactly that zero point can become padding of the convolution, and
// its copy (and its arena bytes) disappear.
//
// Not folded into pooling: MAX_POOL would take the maximum over the skipped
// cells differently, and AVERAGE_POOL divides by the number of cells inside
// the input.
#include <algorithm>
#include <optional>

#include "compiler/passes/passes.h"
#include "kernels/common/padding.h"

namespace tinyaot {
namespace {

struct HwPad {
  int32_t top = 0, bottom = 0, left = 0, right = 0;
};

bool is_conv(OpType type) { return type == OpType::kConv2d || type == OpType::kDepthwiseConv2d; }

const Tensor* tensor_at(const Graph& graph, const Operation& op, size_t input) {
  if (input >= op.inputs.size() || op.inputs[input] < 0) return nullptr;
  const auto id = static_cast<size_t>(op.inputs[input]);
  return id < graph.tensors.size() ? &graph.tensors[id] : nullptr;
}

// The value PAD writes, in its output's int8 domain: TFLite's PAD uses the
// output zero point, PADV2 its int8 constant (the zero point when absent).
std::optional<int32_t> pad_value(const Graph& graph, const Operation& pad, const Tensor& output) {
  if (pad.type == OpType::kPad) return output.quant.zero_point();
  const Tensor* constant = tensor_at(graph, pad, 2);
  if (constant == nullptr) return output.quant.zero_point();
  if (!constant->is_constant() || constant->dtype != DType::kInt8 ||
      constant->num_elements() != 1 || constant->data->size() != 1)
    return std::nullopt;
  return static_cast<int32_t>(static_cast<int8_t>((*constant->data)[0]));
}

// The H and W amounts of a PAD the convolution can absorb: int8, rank 4,
// constant paddings that leave N and C alone, a fill value equal to the
// zero point, and the same quantization in and out (the convolution will
// read the PAD's input as if it were the PAD's output).
std::optional<HwPad> foldable_amounts(const Graph& graph, const Operation& pad) {
  if (pad.type != OpType::kPad && pad.type != OpType::kPadV2) return std::nullopt;
  if (pad.outputs.size() != 1 || pad.outputs[0] < 0) return std::nullopt;
  const Tensor* input = tensor_at(graph, pad, 0);
  const Tensor* paddings = tensor_at(graph, pad, 1);
  const Tensor& output = graph.tensors[static_cast<size_t>(pad.outputs[0])];
  if (input == nullptr || paddings == nullptr) return std::nullopt;
  if (input->dtype != DType::kInt8 || output.dtype != DType::kInt8) return std::nullopt;
  if (input->shape.size() != 4 || output.shape.size() != 4) return std::nullopt;
  if (input->quant.scales != output.quant.scales ||
      input->quant.zero_points != output.quant.zero_points)
    return std::nullopt;
  if (!paddings->is_constant() || paddings->dtype != DType::kInt32 ||
      paddings->shape != std::vector<int32_t>{4, 2} || paddings->data->size() != 8 * 4)
    return std::nullopt;
  int32_t amounts[8];
  std::copy_n(paddings->data->data(), sizeof(amounts), reinterpret_cast<uint8_t*>(amounts));
  if (amounts[0] != 0 || amounts[1] != 0 || amounts[6] != 0 || amounts[7] != 0) return std::nullopt;
  if (*std::min_element(amounts, amounts + 8) < 0) return std::nullopt;
  const std::optional<int32_t> value = pad_value(graph, pad, output);
  if (!value || *value != output.quant.zero_point()) return std::nullopt;
  const HwPad hw{amounts[2], amounts[3], amounts[4], amounts[5]};
  // A model whose PAD output shape disagrees with its paddings is left for
  // the PAD lowering to report.
  if (int64_t{input->shape[1]} + hw.top + hw.bottom != output.shape[1] ||
      int64_t{input->shape[2]} + hw.left + hw.right != output.shape[2])
    return std::nullopt;
  return hw;
}

// The padding the convolution applies now to its (padded) input.
std::optional<HwPad> own_padding(const Graph& graph, const Operation& conv, const Tensor& input) {
  if (conv.attrs.explicit_padding)
    return HwPad{conv.attrs.pad_top, conv.attrs.pad_bottom, conv.attrs.pad_left,
                 conv.attrs.pad_right};
  const Tensor* filter = tensor_at(graph, conv, 1);
  if (filter == nullptr || filter->shape.size() != 4) return std::nullopt;
  Window2d window;
  window.filter_h = filter->shape[1];
  window.filter_w = filter->shape[2];
  window.stride_h = conv.attrs.stride_h;
  window.stride_w = conv.attrs.stride_w;
  window.dilation_h = conv.attrs.dilation_h;
  window.dilation_w = conv.attrs.dilation_w;
  const Padding2d padding =
      compute_padding(conv.attrs.padding, input.shape[1], input.shape[2], window);
  if (padding.out_h < 1 || padding.out_w < 1) return std::nullopt;
  return HwPad{padding.top, padding.bottom, padding.left, padding.right};
}

bool is_graph_output(const Graph& graph, int32_t id) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
}

bool has_views(const Graph& graph, int32_t id) {
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    if (static_cast<int32_t>(t) != id && graph.storage_of(static_cast<int32_t>(t)) == id)
      return true;
  }
  return false;
}

bool sum_fits(int32_t a, int32_t b, int32_t* out) {
  const int64_t sum = int64_t{a} + b;
  if (sum > INT32_MAX) return false;
  *out = static_cast<int32_t>(sum);
  return true;
}

// Rewrites `conv` to read the PAD's input; false (graph untouched) when the
// PAD cannot be folded.
bool fold(const Graph& graph, const Operation& pad, Operation& conv) {
  const int32_t padded = pad.outputs.empty() ? -1 : pad.outputs[0];
  if (conv.inputs.empty() || conv.inputs[0] != padded) return false;
  if (std::count(conv.inputs.begin(), conv.inputs.end(), padded) != 1) return false;
  // Anyone else reading the padded tensor still needs its bytes.
  if (graph.consumers(padded).size() != 1 || is_graph_output(graph, padded) ||
      has_views(graph, padded))
    return false;
  const std::optional<HwPad> amounts = foldable_amounts(graph, pad);
  if (!amounts) return false;
  const std::optional<HwPad> own =
      own_padding(graph, conv, graph.tensors[static_cast<size_t>(padded)]);
  if (!own) return false;
  HwPad total;
  if (!sum_fits(amounts->top, own->top, &total.top) ||
      !sum_fits(amounts->bottom, own->bottom, &total.bottom) ||
      !sum_fits(amounts->left, own->left, &total.left) ||
      !sum_fits(amounts->right, own->right, &total.right))
    return false;
  conv.inputs[0] = pad.inputs[0];
  conv.attrs.explicit_padding = true;
  conv.attrs.pad_top = total.top;
  conv.attrs.pad_bottom = total.bottom;
  conv.attrs.pad_left = total.left;
  conv.attrs.pad_right = total.right;
  return true;
}

}  // namespace

void fold_pad_into_conv(Graph& graph) {
  // One fold at a time: erasing the PAD shifts the operation indices, and a
  // chain PAD -> PAD -> conv folds in two rounds.
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 0; i < graph.operations.size() && !changed; ++i) {
      if (!is_conv(graph.operations[i].type) || graph.operations[i].inputs.empty()) continue;
      const int32_t producer = graph.producer(graph.operations[i].inputs[0]);
      if (producer < 0) continue;
      const Operation pad = graph.operations[static_cast<size_t>(producer)];
      if (!fold(graph, pad, graph.operations[i])) continue;
      graph.operations.erase(graph.operations.begin() + producer);
      changed = true;
    }
  }
}

}  // namespace tinyaot
