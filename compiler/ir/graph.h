// The compiler's IR: tensors and operations of one subgraph, with their
// quantization. The importer builds it, passes rewrite it, lowerings turn
// each operation into a kernel call.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tinyaot/program_format.h"

namespace tinyaot {

// The operators tinyaot imports. The names are TFLite's builtin names,
// except LOOKUP_TABLE (tinyaot's own: an ONNX unary operator defined on
// reals, evaluated once per int8 input at compile time).
#define TINYAOT_OP_LIST(X)                                       \
  X(kConv2d, "CONV_2D")                                          \
  X(kDepthwiseConv2d, "DEPTHWISE_CONV_2D")                       \
  X(kFullyConnected, "FULLY_CONNECTED")                          \
  X(kAveragePool2d, "AVERAGE_POOL_2D")                           \
  X(kMaxPool2d, "MAX_POOL_2D")                                   \
  X(kAdd, "ADD")                                                 \
  X(kSub, "SUB")                                                 \
  X(kMul, "MUL")                                                 \
  X(kSoftmax, "SOFTMAX")                                         \
  X(kReshape, "RESHAPE")                                         \
  X(kSqueeze, "SQUEEZE")                                         \
  X(kExpandDims, "EXPAND_DIMS")                                  \
  X(kPad, "PAD")                                                 \
  X(kPadV2, "PADV2")                                             \
  X(kMean, "MEAN")                                               \
  X(kConcatenation, "CONCATENATION")                             \
  X(kQuantize, "QUANTIZE")                                       \
  X(kDequantize, "DEQUANTIZE")                                   \
  X(kLogistic, "LOGISTIC")                                       \
  X(kTanh, "TANH")                                               \
  X(kRelu, "RELU")                                               \
  X(kRelu6, "RELU6")                                             \
  X(kHardSwish, "HARD_SWISH")                                    \
  X(kLeakyRelu, "LEAKY_RELU")                                    \
  X(kMaximum, "MAXIMUM")                                         \
  X(kMinimum, "MINIMUM")                                         \
  X(kTranspose, "TRANSPOSE")                                     \
  X(kStridedSlice, "STRIDED_SLICE")                              \
  X(kTransposeConv, "TRANSPOSE_CONV")                            \
  X(kBatchMatMul, "BATCH_MATMUL")                                \
  X(kResizeNearestNeighbor, "RESIZE_NEAREST_NEIGHBOR")           \
  X(kLookupTable, "LOOKUP_TABLE")                                \
  X(kUnidirectionalSequenceLstm, "UNIDIRECTIONAL_SEQUENCE_LSTM") \
  X(kSvdf, "SVDF")

enum class OpType : uint8_t {
#define TINYAOT_OP_ENUM(id, name) id,
  TINYAOT_OP_LIST(TINYAOT_OP_ENUM)
#undef TINYAOT_OP_ENUM
};

const char* op_type_name(OpType type);

enum class Padding : uint8_t { kSame, kValid };
// kClip: ONNX's Clip, between Attributes::clip_min and clip_max (reals).
enum class Activation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6, kClip };

// The real function a LOOKUP_TABLE applies to each dequantized input.
enum class UnaryFunction : uint8_t {
  kIdentity,     // a requantization
  kRelu,         // max(x, 0)
  kClip,         // min(max(x, clip_min), clip_max)
  kLeakyRelu,    // x < 0 ? alpha * x : x
  kSigmoid,      // 1 / (1 + exp(-x))
  kHardSigmoid,  // max(0, min(1, alpha * x + beta))
  kHardSwish,    // x * max(0, min(1, x / 6 + 1 / 2))
  kTanh,
};

struct Quantization {
  std::vector<float> scales;  // one (per tensor) or one per channel
  std::vector<int64_t> zero_points;
  int32_t axis = 0;  // quantized dimension for per-channel scales

  bool empty() const { return scales.empty(); }
  float scale() const { return scales.empty() ? 0.0f : scales[0]; }
  int32_t zero_point() const {
    return zero_points.empty() ? 0 : static_cast<int32_t>(zero_points[0]);
  }
};

struct Tensor {
  std::string name;
  DType dtype = DType::kInt8;
  std::vector<int32_t> shape;
  Quantization quant;
  // Constant data (weights, bias, shape operands); empty for activations.
  std::optional<std::vector<uint8_t>> data;
  // A reshape-like operation made this tensor a view of another: it has no
  // bytes of its own and shares its source's arena offset.
  int32_t alias_of = -1;
  // State that lives from one inference to the next (TFLite's is_variable:
  // an LSTM's hidden and cell state, an SVDF's memory). It has no producer;
  // the operator that updates it reads it as an input. Planned for the
  // whole program, never shared, set by a reset (to its zero point when
  // int8, else to 0, as TFLite Micro's ResetVariableTensors does).
  bool is_variable = false;

  bool is_constant() const { return data.has_value(); }
  int64_t num_elements() const;
  int64_t bytes() const;
};

// Operator options: one flat struct, each operator reads its own fields.
struct Attributes {
  Padding padding = Padding::kValid;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  int32_t filter_h = 1, filter_w = 1;  // pooling window
  // Set by the pad-folding pass: explicit padding replaces `padding`.
  bool explicit_padding = false;
  int32_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int32_t depth_multiplier = 1;
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;                      // FULLY_CONNECTED
  bool keep_dims = false;                          // MEAN
  int32_t axis = 0;                                // CONCATENATION
  float beta = 1.0f;                               // SOFTMAX
  float alpha = 0.0f;                              // LEAKY_RELU, LOOKUP_TABLE
  UnaryFunction unary = UnaryFunction::kIdentity;  // LOOKUP_TABLE
  // Activation::kClip and UnaryFunction::kClip bounds, reals; an infinite
  // bound does not clamp. HardSigmoid's beta is `beta` above.
  float clip_min = -INFINITY, clip_max = INFINITY;
  bool adj_x = false, adj_y = false;  // BATCH_MATMUL
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;       // STRIDED_SLICE
  bool offset = false;                // STRIDED_SLICE
  int32_t rank = 0;                   // SVDF
  std::vector<int32_t> squeeze_dims;  // SQUEEZE
  // UNIDIRECTIONAL_SEQUENCE_LSTM (its cell gate's activation is TANH, the
  // only one the importer takes): the cell state's clip as a real, 0 for
  // none, and the input's layout ([time, batch, depth] when time-major,
  // else [batch, time, depth]).
  float cell_clip = 0.0f;
  bool time_major = false;
};

struct Operation {
  OpType type;
  int32_t source_index = 0;     // operator index in the imported model
  std::string source_name;      // the imported node's name, when the format has one (ONNX)
  std::vector<int32_t> inputs;  // tensor ids; -1 for an omitted optional input
  std::vector<int32_t> outputs;
  Attributes attrs;
  // Output clamp in the output's quantized domain, from the fused activation
  // (and, after folding, from a following RELU/RELU6).
  int32_t act_min = -128, act_max = 127;
};

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Operation> operations;  // in execution order
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;

  // The tensor whose bytes back `id` (follows alias chains).
  int32_t storage_of(int32_t id) const;
  // Operations reading tensor `id` (directly, not through aliases).
  std::vector<int32_t> consumers(int32_t id) const;
  int32_t producer(int32_t id) const;  // -1 when none
};

}  // namespace tinyaot
