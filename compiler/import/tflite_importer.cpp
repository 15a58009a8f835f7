#include "compiler/import/tflite_importer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "compiler/lower/lowering.h"
#include "tflite_schema_generated.h"

namespace tinyaot {
namespace {

constexpr int64_t kMaxTensorBytes = int64_t{1} << 30;

[[noreturn]] void fail(const std::string& message) { throw CompileError(message); }

std::string tensor_label(int32_t index, const tflite::Tensor* t) {
  std::string label = "tensor " + std::to_string(index);
  if (t && t->name()) label += " '" + t->name()->str() + "'";
  return label;
}

const std::map<tflite::BuiltinOperator, OpType>& op_map() {
  using B = tflite::BuiltinOperator;
  static const std::map<B, OpType> map = {
      {B::CONV_2D, OpType::kConv2d},
      {B::DEPTHWISE_CONV_2D, OpType::kDepthwiseConv2d},
      {B::FULLY_CONNECTED, OpType::kFullyConnected},
      {B::AVERAGE_POOL_2D, OpType::kAveragePool2d},
      {B::MAX_POOL_2D, OpType::kMaxPool2d},
      {B::ADD, OpType::kAdd},
      {B::SUB, OpType::kSub},
      {B::MUL, OpType::kMul},
      {B::SOFTMAX, OpType::kSoftmax},
      {B::RESHAPE, OpType::kReshape},
      {B::SQUEEZE, OpType::kSqueeze},
      {B::EXPAND_DIMS, OpType::kExpandDims},
      {B::PAD, OpType::kPad},
      {B::PADV2, OpType::kPadV2},
      {B::MEAN, OpType::kMean},
      {B::CONCATENATION, OpType::kConcatenation},
      {B::QUANTIZE, OpType::kQuantize},
      {B::DEQUANTIZE, OpType::kDequantize},
      {B::LOGISTIC, OpType::kLogistic},
      {B::TANH, OpType::kTanh},
      {B::RELU, OpType::kRelu},
      {B::RELU6, OpType::kRelu6},
      {B::HARD_SWISH, OpType::kHardSwish},
      {B::LEAKY_RELU, OpType::kLeakyRelu},
      {B::MAXIMUM, OpType::kMaximum},
      {B::MINIMUM, OpType::kMinimum},
      {B::TRANSPOSE, OpType::kTranspose},
      {B::STRIDED_SLICE, OpType::kStridedSlice},
      {B::TRANSPOSE_CONV, OpType::kTransposeConv},
      {B::BATCH_MATMUL, OpType::kBatchMatMul},
      {B::UNIDIRECTIONAL_SEQUENCE_LSTM, OpType::kUnidirectionalSequenceLstm},
      {B::SVDF, OpType::kSvdf},
  };
  return map;
}

// Inputs every operator of the type needs (optional ones such as a bias
// come after these), so passes and lowerings may rely on them.
size_t required_inputs(OpType type) {
  switch (type) {
    case OpType::kStridedSlice:
      return 4;
    case OpType::kTransposeConv:
      return 3;
    case OpType::kConv2d:
    case OpType::kDepthwiseConv2d:
    case OpType::kFullyConnected:
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kPad:
    case OpType::kPadV2:
    case OpType::kMean:
    case OpType::kMaximum:
    case OpType::kMinimum:
    case OpType::kTranspose:
    case OpType::kBatchMatMul:
      return 2;
    default:
      return 1;
  }
}

Padding to_padding(tflite::Padding p) {
  return p == tflite::Padding::SAME ? Padding::kSame : Padding::kValid;
}

Activation to_activation(tflite::ActivationFunctionType a, const std::string& where) {
  switch (a) {
    case tflite::ActivationFunctionType::NONE:
      return Activation::kNone;
    case tflite::ActivationFunctionType::RELU:
      return Activation::kRelu;
    case tflite::ActivationFunctionType::RELU_N1_TO_1:
      return Activation::kReluN1To1;
    case tflite::ActivationFunctionType::RELU6:
      return Activation::kRelu6;
    default:
      fail(where + ": fused activation " + std::string(tflite::EnumNameActivationFunctionType(a)) +
           " is not supported (supported: NONE, RELU, RELU_N1_TO_1, RELU6)");
  }
}

void positive(int32_t value, const std::string& where, const char* what) {
  if (value < 1) fail(where + ": " + what + " must be at least 1, got " + std::to_string(value));
}

// UNIDIRECTIONAL_SEQUENCE_LSTM's options. TFLite Micro's kernel applies
// the fused activation to the cell gate and takes only tanh there (or
// sigmoid, which a flatbuffer cannot name); it ignores proj_clip, as it
// refuses projections.
void read_lstm_options(const tflite::Operator* op, const std::string& where, Attributes& a) {
  const auto* o = op->builtin_options_as_UnidirectionalSequenceLSTMOptions();
  if (!o) fail(where + ": missing UnidirectionalSequenceLSTMOptions");
  if (o->fused_activation_function() != tflite::ActivationFunctionType::TANH)
    fail(where + ": fused activation " +
         std::string(tflite::EnumNameActivationFunctionType(o->fused_activation_function())) +
         " is not supported (TFLite Micro's LSTM takes TANH for its cell gate)");
  if (o->asymmetric_quantize_inputs())
    fail(where + ": asymmetric_quantize_inputs (a hybrid float LSTM) is not supported");
  if (o->diagonal_recurrent_tensors())
    fail(where +
         ": diagonal_recurrent_tensors is not supported (TFLite Micro's kernel takes "
         "full recurrent weight matrices)");
  if (!(o->cell_clip() >= 0.0f))
    fail(where + ": cell_clip " + std::to_string(o->cell_clip()) + " must not be negative");
  a.cell_clip = o->cell_clip();
  a.time_major = o->time_major();
}

// Reads the options of one operator into the IR's flat attribute struct.
Attributes read_attributes(const tflite::Operator* op, OpType type, const std::string& where) {
  Attributes a;
  switch (type) {
    case OpType::kConv2d:
      if (auto* o = op->builtin_options_as_Conv2DOptions()) {
        a.padding = to_padding(o->padding());
        a.stride_w = o->stride_w();
        a.stride_h = o->stride_h();
        a.dilation_w = o->dilation_w_factor();
        a.dilation_h = o->dilation_h_factor();
        a.activation = to_activation(o->fused_activation_function(), where);
      } else {
        fail(where + ": missing Conv2DOptions");
      }
      break;
    case OpType::kDepthwiseConv2d:
      if (auto* o = op->builtin_options_as_DepthwiseConv2DOptions()) {
        a.padding = to_padding(o->padding());
        a.stride_w = o->stride_w();
        a.stride_h = o->stride_h();
        a.dilation_w = o->dilation_w_factor();
        a.dilation_h = o->dilation_h_factor();
        a.depth_multiplier = o->depth_multiplier();
        a.activation = to_activation(o->fused_activation_function(), where);
      } else {
        fail(where + ": missing DepthwiseConv2DOptions");
      }
      break;
    case OpType::kAveragePool2d:
    case OpType::kMaxPool2d:
      if (auto* o = op->builtin_options_as_Pool2DOptions()) {
        a.padding = to_padding(o->padding());
        a.stride_w = o->stride_w();
        a.stride_h = o->stride_h();
        a.filter_w = o->filter_width();
        a.filter_h = o->filter_height();
        a.activation = to_activation(o->fused_activation_function(), where);
        positive(a.filter_w, where, "filter width");
        positive(a.filter_h, where, "filter height");
      } else {
        fail(where + ": missing Pool2DOptions");
      }
      break;
    case OpType::kFullyConnected:
      if (auto* o = op->builtin_options_as_FullyConnectedOptions()) {
        if (o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT)
          fail(where + ": shuffled fully-connected weights are not supported");
        a.keep_num_dims = o->keep_num_dims();
        a.activation = to_activation(o->fused_activation_function(), where);
      }
      break;
    case OpType::kSoftmax:
      // TFLite Micro zero-fills absent options, and its Prepare refuses beta 0.
      if (auto* o = op->builtin_options_as_SoftmaxOptions())
        a.beta = o->beta();
      else
        fail(where + ": missing SoftmaxOptions (TFLite Micro would take beta 0)");
      break;
    case OpType::kConcatenation:
      if (auto* o = op->builtin_options_as_ConcatenationOptions()) {
        a.axis = o->axis();
        a.activation = to_activation(o->fused_activation_function(), where);
      }
      break;
    case OpType::kAdd:
      if (auto* o = op->builtin_options_as_AddOptions())
        a.activation = to_activation(o->fused_activation_function(), where);
      break;
    case OpType::kSub:
      if (auto* o = op->builtin_options_as_SubOptions())
        a.activation = to_activation(o->fused_activation_function(), where);
      break;
    case OpType::kMul:
      if (auto* o = op->builtin_options_as_MulOptions())
        a.activation = to_activation(o->fused_activation_function(), where);
      break;
    case OpType::kMean:
      if (auto* o = op->builtin_options_as_ReducerOptions()) a.keep_dims = o->keep_dims();
      break;
    case OpType::kSqueeze:
      if (auto* o = op->builtin_options_as_SqueezeOptions(); o && o->squeeze_dims())
        a.squeeze_dims.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
      break;
    case OpType::kStridedSlice:
      if (auto* o = op->builtin_options_as_StridedSliceOptions()) {
        a.begin_mask = o->begin_mask();
        a.end_mask = o->end_mask();
        a.ellipsis_mask = o->ellipsis_mask();
        a.new_axis_mask = o->new_axis_mask();
        a.shrink_axis_mask = o->shrink_axis_mask();
        a.offset = o->offset();
      }
      break;
    case OpType::kLeakyRelu:
      if (auto* o = op->builtin_options_as_LeakyReluOptions()) a.alpha = o->alpha();
      break;
    case OpType::kTransposeConv:
      if (auto* o = op->builtin_options_as_TransposeConvOptions()) {
        a.padding = to_padding(o->padding());
        a.stride_w = o->stride_w();
        a.stride_h = o->stride_h();
        a.activation = to_activation(o->fused_activation_function(), where);
      } else {
        fail(where + ": missing TransposeConvOptions");
      }
      break;
    case OpType::kSvdf:
      // The fused activation is not read: TFLite Micro's integer SVDF
      // applies none (only the int8 clamp). An absent rank would divide by 0.
      if (auto* o = op->builtin_options_as_SVDFOptions())
        a.rank = o->rank();
      else
        fail(where + ": missing SVDFOptions (the rank)");
      positive(a.rank, where, "SVDF rank");
      break;
    case OpType::kBatchMatMul:
      if (auto* o = op->builtin_options_as_BatchMatMulOptions()) {
        a.adj_x = o->adj_x();
        a.adj_y = o->adj_y();
      }
      break;
    case OpType::kUnidirectionalSequenceLstm:
      read_lstm_options(op, where, a);
      break;
    default:
      break;
  }
  positive(a.stride_w, where, "stride");
  positive(a.stride_h, where, "stride");
  positive(a.dilation_w, where, "dilation");
  positive(a.dilation_h, where, "dilation");
  if (type == OpType::kDepthwiseConv2d) positive(a.depth_multiplier, where, "depth multiplier");
  return a;
}

Tensor read_tensor(const tflite::Model* model, int32_t index, const tflite::Tensor* t) {
  const std::string label = tensor_label(index, t);
  Tensor tensor;
  if (t->name()) tensor.name = t->name()->str();
  switch (t->type()) {
    case tflite::TensorType::INT8:
      tensor.dtype = DType::kInt8;
      break;
    case tflite::TensorType::INT16:
      tensor.dtype = DType::kInt16;
      break;
    case tflite::TensorType::INT32:
      tensor.dtype = DType::kInt32;
      break;
    case tflite::TensorType::INT64:
      tensor.dtype = DType::kInt64;
      break;
    case tflite::TensorType::FLOAT32:
      tensor.dtype = DType::kFloat32;
      break;
    default:
      fail(label + " has type " + tflite::EnumNameTensorType(t->type()) +
           "; tinyaot compiles int8 and int16x8 models (int8 or int16 activations, int8 "
           "weights, int32 or int64 bias, float32 only at inputs/outputs through "
           "QUANTIZE/DEQUANTIZE)");
  }
  tensor.is_variable = t->is_variable();
  int64_t elements = 1;
  if (t->shape()) {
    if (t->shape()->size() > kMaxRank)
      fail(label + " has rank " + std::to_string(t->shape()->size()) + "; at most " +
           std::to_string(kMaxRank) + " is supported");
    for (int32_t d : *t->shape()) {
      if (d < 1)
        fail(label + " has a dimension of " + std::to_string(d) +
             " (dynamic or empty shapes are not supported)");
      tensor.shape.push_back(d);
      elements *= d;
      if (elements * 4 > kMaxTensorBytes) fail(label + " is too large (its size overflows)");
    }
  }
  if (auto* q = t->quantization()) {
    if (q->scale()) tensor.quant.scales.assign(q->scale()->begin(), q->scale()->end());
    if (const auto* zero_points = q->zero_point()) {
      // The verifier checks a vector's length field for 4-byte alignment,
      // not its int64 elements: a crafted file can misalign them, so they
      // are copied out bytewise rather than read in place.
      const uint8_t* raw = zero_points->Data();
      for (flatbuffers::uoffset_t i = 0; i < zero_points->size(); ++i) {
        int64_t value;
        std::memcpy(&value, raw + i * sizeof(int64_t), sizeof(value));
        tensor.quant.zero_points.push_back(flatbuffers::EndianScalar(value));
      }
    }
    // Recorded, never checked here: TFLite Micro reads no tensor's
    // quantized dimension (a bias often carries its weights' one, as in
    // person_detect); each operator sizes per-channel scales against its own
    // channel dimension when it lowers.
    tensor.quant.axis = q->quantized_dimension();
    for (float s : tensor.quant.scales) {
      if (!(s > 0.0f) || !std::isfinite(s)) fail(label + " has a non-positive or non-finite scale");
      // 1 / scale, and every bound divided by it, overflows float.
      if (!std::isnormal(s)) {
        char text[32];
        std::snprintf(text, sizeof(text), "%g", static_cast<double>(s));
        fail(label + " has the subnormal scale " + text +
             "; scales must be normal floats (at least 1.2e-38)");
      }
    }
    // Per-channel scales may share one zero point, as TFLite allows.
    if (!tensor.quant.zero_points.empty() && tensor.quant.zero_points.size() != 1 &&
        tensor.quant.zero_points.size() != tensor.quant.scales.size())
      fail(label + " has " + std::to_string(tensor.quant.scales.size()) + " scales but " +
           std::to_string(tensor.quant.zero_points.size()) + " zero points");
    for (int64_t zp : tensor.quant.zero_points) {
      if (tensor.dtype == DType::kInt8 && (zp < -128 || zp > 127))
        fail(label + " has zero point " + std::to_string(zp) + " outside int8");
      if (tensor.dtype == DType::kInt16 && (zp < -32768 || zp > 32767))
        fail(label + " has zero point " + std::to_string(zp) + " outside int16");
    }
  }
  const auto* buffers = model->buffers();
  if (!buffers || t->buffer() >= buffers->size())
    fail(label + " refers to buffer " + std::to_string(t->buffer()) + ", which does not exist");
  const auto* buffer = buffers->Get(t->buffer());
  if (buffer->offset() > 1 || buffer->size() > 0)
    fail(label + " keeps its data outside the flatbuffer (models over 2 GB are not supported)");
  // A variable tensor's buffer is not its value: TFLite Micro sets it by
  // its reset alone, so its data (converters write zeros) is dropped.
  if (buffer->data() && buffer->data()->size() > 0 && !tensor.is_variable) {
    if (static_cast<int64_t>(buffer->data()->size()) != tensor.bytes())
      fail(label + " has " + std::to_string(buffer->data()->size()) +
           " bytes of data, its shape needs " + std::to_string(tensor.bytes()));
    tensor.data.emplace(buffer->data()->begin(), buffer->data()->end());
  }
  if ((tensor.dtype == DType::kInt8 || tensor.dtype == DType::kInt16) && tensor.quant.empty() &&
      !(tensor.dtype == DType::kInt16 && tensor.is_constant()))
    fail(label + " is " + (tensor.dtype == DType::kInt8 ? "int8" : "int16") +
         " without quantization parameters");
  return tensor;
}

// TFLite quantizes int16 activations symmetrically (zero point 0). The
// one exception is the int16 output of a SOFTMAX of int8 (zero point
// -32768, TFLite's [0, 1) in int16's full range), which its readers take
// as they take any zero point.
void refuse_asymmetric_int16(const Graph& graph, const Operation& operation,
                             const std::string& where, const tflite::SubGraph* subgraph) {
  auto check = [&](int32_t t, bool softmax_output) {
    const Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
    if (tensor.dtype != DType::kInt16 || tensor.is_constant() || tensor.quant.zero_point() == 0)
      return;
    const int32_t producer = graph.producer(t);
    if (softmax_output ||
        (producer >= 0 && graph.operations[static_cast<size_t>(producer)].type == OpType::kSoftmax))
      return;
    fail(where + ": " + tensor_label(t, subgraph->tensors()->Get(t)) +
         " is int16 with zero point " + std::to_string(tensor.quant.zero_point()) +
         "; TFLite's int16 activations are symmetric (zero point 0), except a SOFTMAX's "
         "int16 output");
  };
  for (int32_t t : operation.inputs)
    if (t >= 0) check(t, false);
  for (int32_t t : operation.outputs) check(t, operation.type == OpType::kSoftmax);
}

}  // namespace

std::string supported_tflite_op_names() {
  std::vector<std::string> names;
  for (const auto& entry : op_map()) names.push_back(op_type_name(entry.second));
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

Graph import_tflite(const uint8_t* data, size_t bytes) {
  if (data == nullptr || bytes < 8)
    fail("model: file is empty or truncated (" + std::to_string(bytes) + " bytes)");
  if (!flatbuffers::BufferHasIdentifier(data, tflite::ModelIdentifier()))
    fail("model: missing the TFL3 file identifier: not a TensorFlow Lite model");
  flatbuffers::Verifier verifier(data, bytes);
  if (!tflite::VerifyModelBuffer(verifier))
    fail("model: the flatbuffer is corrupt or truncated (verification failed)");
  const tflite::Model* model = tflite::GetModel(data);
  if (model->version() != 3)
    fail("model: schema version " + std::to_string(model->version()) +
         " (only version 3 is supported)");
  if (!model->subgraphs() || model->subgraphs()->size() != 1)
    fail("model: has " + std::to_string(model->subgraphs() ? model->subgraphs()->size() : 0) +
         " subgraphs; tinyaot compiles models with exactly one");
  const tflite::SubGraph* subgraph = model->subgraphs()->Get(0);
  if (!subgraph->tensors() || !subgraph->operators() || !subgraph->inputs() || !subgraph->outputs())
    fail("model: subgraph is missing tensors, operators, inputs or outputs");

  Graph graph;
  const int32_t num_tensors = static_cast<int32_t>(subgraph->tensors()->size());
  // Tensors no operator reads or writes (an LSTM's `intermediates`, shape
  // [0] and no type, which TFLite Micro's kernel does not read) are kept
  // by name only.
  std::set<int32_t> referenced(subgraph->inputs()->begin(), subgraph->inputs()->end());
  referenced.insert(subgraph->outputs()->begin(), subgraph->outputs()->end());
  for (const tflite::Operator* op : *subgraph->operators()) {
    if (op->inputs()) referenced.insert(op->inputs()->begin(), op->inputs()->end());
    if (op->outputs()) referenced.insert(op->outputs()->begin(), op->outputs()->end());
  }
  for (int32_t i = 0; i < num_tensors; ++i) {
    const tflite::Tensor* t = subgraph->tensors()->Get(static_cast<uint32_t>(i));
    if (referenced.count(i)) {
      graph.tensors.push_back(read_tensor(model, i, t));
    } else {
      Tensor unused;
      if (t->name()) unused.name = t->name()->str();
      graph.tensors.push_back(std::move(unused));
    }
  }

  auto check_tensor_index = [&](int32_t index, const std::string& where, bool optional) {
    if (optional && index == -1) return;
    if (index < 0 || index >= num_tensors)
      fail(where + " refers to tensor " + std::to_string(index) + ", which does not exist");
  };

  std::set<int32_t> available;  // tensors that hold values at this point
  for (int32_t index : *subgraph->inputs()) {
    check_tensor_index(index, "model input", false);
    if (graph.tensors[static_cast<size_t>(index)].is_constant())
      fail("model input " + tensor_label(index, subgraph->tensors()->Get(index)) +
           " is a constant");
    graph.inputs.push_back(index);
    available.insert(index);
  }
  for (int32_t i = 0; i < num_tensors; ++i) {
    const Tensor& tensor = graph.tensors[static_cast<size_t>(i)];
    if (tensor.is_variable && std::count(graph.inputs.begin(), graph.inputs.end(), i))
      fail("model input " + tensor_label(i, subgraph->tensors()->Get(i)) +
           " is a variable tensor (state); state is the runtime's, set by its reset");
    // State holds a value before the first operator: the last inference's.
    if (tensor.is_constant() || tensor.is_variable) available.insert(i);
  }

  const auto* codes = model->operator_codes();
  int32_t op_index = 0;
  for (const tflite::Operator* op : *subgraph->operators()) {
    std::string where = "operator " + std::to_string(op_index);
    if (!codes || op->opcode_index() >= codes->size())
      fail(where + ": operator code index " + std::to_string(op->opcode_index()) +
           " does not exist");
    const tflite::OperatorCode* code = codes->Get(op->opcode_index());
    const int32_t builtin =
        std::max<int32_t>(static_cast<int32_t>(code->builtin_code()),
                          static_cast<int32_t>(code->deprecated_builtin_code()));
    const auto builtin_op = static_cast<tflite::BuiltinOperator>(builtin);
    if (builtin_op == tflite::BuiltinOperator::CUSTOM) {
      fail(
          where + " is the custom operator '" +
          (code->custom_code() ? code->custom_code()->str() : "?") +
          "', which tinyaot does not support; supported operators: " + supported_tflite_op_names());
    }
    const auto found = op_map().find(builtin_op);
    if (found == op_map().end()) {
      const char* name = tflite::EnumNameBuiltinOperator(builtin_op);
      fail(where + " is " +
           (name && *name ? std::string(name) : "builtin " + std::to_string(builtin)) +
           ", which tinyaot does not support; supported operators: " + supported_tflite_op_names());
    }
    Operation operation;
    operation.type = found->second;
    operation.source_index = op_index;
    where += " (" + std::string(op_type_name(operation.type)) + ")";
    if (!op->inputs() || !op->outputs() || op->outputs()->size() == 0)
      fail(where + ": has no inputs or outputs");
    for (int32_t index : *op->inputs()) {
      check_tensor_index(index, where, true);
      if (index >= 0 && !available.count(index))
        fail(where + ": reads " + tensor_label(index, subgraph->tensors()->Get(index)) +
             " before any operator produces it");
      operation.inputs.push_back(index);
    }
    for (int32_t index : *op->outputs()) {
      check_tensor_index(index, where, false);
      if (available.count(index))
        fail(where + ": writes " + tensor_label(index, subgraph->tensors()->Get(index)) +
             ", which already holds a value");
      operation.outputs.push_back(index);
      available.insert(index);
    }
    const size_t required = required_inputs(operation.type);
    for (size_t k = 0; k < required; ++k)
      if (k >= operation.inputs.size() || operation.inputs[k] < 0)
        fail(where + ": needs at least " + std::to_string(required) + " inputs, input " +
             std::to_string(k) + " is missing");
    operation.attrs = read_attributes(op, operation.type, where);
    // Float is allowed only at the model's edges: into QUANTIZE, out of DEQUANTIZE.
    for (size_t k = 0; k < operation.inputs.size(); ++k) {
      const int32_t t = operation.inputs[k];
      if (t >= 0 && graph.tensors[static_cast<size_t>(t)].dtype == DType::kFloat32 &&
          operation.type != OpType::kQuantize)
        fail(where + ": input " + tensor_label(t, subgraph->tensors()->Get(t)) +
             " is float32; tinyaot takes float only as the input of QUANTIZE");
    }
    for (int32_t t : operation.outputs) {
      const DType dtype = graph.tensors[static_cast<size_t>(t)].dtype;
      const bool allowed = dtype == DType::kInt8 || dtype == DType::kInt16 ||
                           (operation.type == OpType::kDequantize && dtype == DType::kFloat32) ||
                           (operation.type == OpType::kQuantize && dtype == DType::kInt32);
      if (!allowed)
        fail(where + ": output " + tensor_label(t, subgraph->tensors()->Get(t)) + " has type " +
             tflite::EnumNameTensorType(subgraph->tensors()->Get(t)->type()) +
             "; operators must produce int8 or int16 (float32 only from DEQUANTIZE, int32 "
             "only from QUANTIZE)");
    }
    refuse_asymmetric_int16(graph, operation, where, subgraph);
    graph.operations.push_back(std::move(operation));
    ++op_index;
  }
  for (int32_t index : *subgraph->outputs()) {
    check_tensor_index(index, "model output", false);
    if (!available.count(index) || graph.tensors[static_cast<size_t>(index)].is_constant())
      fail("model output " + tensor_label(index, subgraph->tensors()->Get(index)) +
           " is not produced by any operator");
    graph.outputs.push_back(index);
  }
  for (int32_t index : graph.inputs) {
    const DType dtype = graph.tensors[static_cast<size_t>(index)].dtype;
    if (dtype != DType::kInt8 && dtype != DType::kInt16 && dtype != DType::kFloat32)
      fail("model input " + tensor_label(index, subgraph->tensors()->Get(index)) +
           " must be int8, int16 or float32");
  }
  if (graph.operations.empty()) fail("model: has no operators");
  return graph;
}

}  // namespace tinyaot
