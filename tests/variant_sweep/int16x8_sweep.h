// The variant sweeps of the int16x8 weighted families (FULLY_CONNECTED,
// CONV_2D, DEPTHWISE_CONV_2D with int16 activations and int8 weights;
// freestanding, header-only, no heap): each variant against its family's
// reference on random cases, as variant_sweep.h does for the int8
// families, whose shapes they draw, with int16 data, offsets 0 and an
// int16 activation range. Half the cases take an int64 bias (the int64
// accumulator), half the int32 bias in ChannelQuant (the int32 one). One
// case in kInt16x8EdgeOdds puts every input and weight at an extreme and
// the bias at its edge: the int32 sums wrap, the int64 ones reach the
// bias bound validate allows (kWideBiasBound). Both rounding modes of
// TFLite Micro run on each case (int16 has no mode onnx).
//
// Included by variant_sweep.h (after its case and workspace types), which
// sends these variants here.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/common/int16x8.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/fully_connected/fully_connected.h"

namespace tinyaot::sweep {

constexpr uint32_t kInt16x8EdgeOdds = 8;

// The family's reference of an int16x8 weighted variant (the reference
// itself included), or nullptr for any other kernel.
inline const KernelDescriptor* int16x8_reference(const KernelDescriptor& kernel) {
  const KernelDescriptor* const references[] = {
      &kernel_fully_connected_s16_ref, &kernel_conv2d_s16_ref, &kernel_depthwise_conv2d_s16_ref};
  for (const KernelDescriptor* reference : references)
    if (strcmp(kernel.op, reference->op) == 0) return reference;
  return nullptr;
}

// A drawn int16x8 case: the int8 family's shape (Case::p and its sizes,
// in elements), the operands' byte sizes as int16 data makes them.
struct Int16x8Case {
  Case shape;
  uint32_t input_bytes = 0, filter_bytes = 0, channels = 0, output_bytes = 0;
  bool wide = false;  // an int64 bias operand
};

// The shape's params with the int16x8 setup: offsets 0, an int16 range,
// now and then the whole range or a narrow one.
template <typename Params>
inline void set_int16x8_activation(Random& r, Params* p) {
  p->input_offset = 0;
  p->output_offset = 0;
  const int32_t kind = r.uniform(0, 3);
  p->act_min = kind == 0 ? r.uniform(-32768, 0) : -32768;
  p->act_max = kind == 1 ? r.uniform(p->act_min, 32767) : 32767;
}

// Now and then a grouped convolution (TFLite's, which the int16x8
// convolutions take): two to four groups of the drawn depth.
inline void draw_conv2d_groups(Random& r, Conv2dParams* p) {
  if (!r.one_in(5)) return;
  const int32_t groups = r.uniform(2, 4);
  p->input_depth *= groups;
  p->output_depth = (p->output_depth + groups - 1) / groups * groups;
}

// Now and then a depthwise window of 400 to 576 taps, past the 2^9
// extreme products (2^22 each) an int32 sum holds: the int64 sums of the
// MVE variant, whose lanes are int32, must be added up before then.
inline void draw_depthwise_wide_window(DepthwiseConv2dParams* p, Random& r) {
  p->batches = 1;
  p->depth_multiplier = 1;
  p->input_depth = r.pick({1, 2, 3, 4, 5, 7, 8, 12, 13});
  p->filter_h = r.uniform(20, 24);
  p->filter_w = r.uniform(20, 24);
  p->input_h = p->filter_h + r.uniform(0, 2);
  p->input_w = p->filter_w + r.uniform(0, 2);
  p->stride_h = p->stride_w = p->dilation_h = p->dilation_w = 1;
  p->pad_top = p->pad_left = 0;
  p->output_h = p->input_h - p->filter_h + 1;
  p->output_w = p->input_w - p->filter_w + 1;
}

inline bool draw_int16x8_shape(const KernelDescriptor& reference, Random& r, Int16x8Case* c) {
  Case& s = c->shape;
  if (&reference == &kernel_fully_connected_s16_ref) {
    if (!draw_shape(Family::kFullyConnected, r, &s)) return false;
    set_int16x8_activation(r, &s.p.fc);
  } else if (&reference == &kernel_conv2d_s16_ref) {
    if (!draw_shape(Family::kConv2d, r, &s)) return false;
    draw_conv2d_groups(r, &s.p.conv);
    const Conv2dParams& p = s.p.conv;
    s.input_bytes = uint32_t(p.batches * p.input_h * p.input_w * p.input_depth);
    s.filter_bytes = uint32_t(p.output_depth * p.filter_h * p.filter_w * p.filter_depth);
    s.channels = uint32_t(p.output_depth);
    s.output_bytes = uint32_t(p.batches * p.output_h * p.output_w * p.output_depth);
    set_int16x8_activation(r, &s.p.conv);
  } else {
    if (!draw_shape(Family::kDepthwiseConv2d, r, &s)) return false;
    if (r.one_in(12)) draw_depthwise_wide_window(&s.p.depthwise, r);
    size_depthwise(&s);
    set_int16x8_activation(r, &s.p.depthwise);
  }
  c->input_bytes = 2 * s.input_bytes;
  c->filter_bytes = s.filter_bytes;
  c->channels = s.channels;
  c->output_bytes = 2 * s.output_bytes;
  return c->input_bytes <= kMaxInputBytes && c->filter_bytes <= kMaxFilterBytes &&
         c->channels <= kMaxChannels && c->output_bytes <= kMaxOutputBytes;
}

// The operands of a case in the workspace: the input, the weights and the
// ChannelQuant constants where the placement puts them, the int64 bias on
// the column terms' buffer (8-byte aligned, as validate checks).
inline int16_t* int16x8_input(Workspace& ws, const Int16x8Case& c) {
  return reinterpret_cast<int16_t*>(input_of(ws, c.shape));
}
inline int64_t* int16x8_wide_bias(Workspace& ws, const Int16x8Case& c) {
  return reinterpret_cast<int64_t*>(ws.column_terms) + c.shape.at.extra / 8;
}

// A random int64 bias: mostly what models have, now and then at the bound.
inline int64_t draw_wide_bias(Random& r) {
  if (r.one_in(8)) return r.one_in(2) ? kWideBiasBound : -kWideBiasBound;
  const int64_t high = r.uniform(-(1 << 14), 1 << 14);
  return high * (int64_t{1} << 16) + r.uniform(0, 0xFFFF);
}

// Draws the data of the shape in `c`: random, or (one in kInt16x8EdgeOdds)
// every value at one extreme and the bias at its edge.
inline void fill_int16x8_case(Random& r, Workspace& ws, Int16x8Case* c) {
  int16_t* input = int16x8_input(ws, *c);
  const uint32_t inputs = c->input_bytes / 2;
  ChannelQuant* quant = placed_quant(ws.quant, c->shape);
  int64_t* wide_bias = int16x8_wide_bias(ws, *c);
  c->wide = r.one_in(2);
  if (r.one_in(kInt16x8EdgeOdds)) {
    const bool up = r.one_in(2);
    for (uint32_t i = 0; i < inputs; ++i) input[i] = up ? 32767 : -32768;
    memset(filter_of(ws, c->shape), r.one_in(2) ? 127 : -128, c->filter_bytes);
    for (uint32_t o = 0; o < c->channels; ++o) {
      quant[o] = draw_channel_quant(r);
      quant[o].bias = up ? INT32_MAX - r.uniform(0, 1000) : INT32_MIN + r.uniform(0, 1000);
      wide_bias[o] = up ? kWideBiasBound : -kWideBiasBound;
    }
  } else {
    const bool extremes = r.one_in(10);
    for (uint32_t i = 0; i < inputs; ++i)
      input[i] =
          static_cast<int16_t>(extremes ? r.pick({-32768, 32767}) : r.uniform(-32768, 32767));
    draw_bytes(r, filter_of(ws, c->shape), c->filter_bytes);
    for (uint32_t o = 0; o < c->channels; ++o) {
      quant[o] = draw_channel_quant(r);
      wide_bias[o] = draw_wide_bias(r);
    }
  }
  if (c->wide)
    for (uint32_t o = 0; o < c->channels; ++o) quant[o].bias = 0;  // as the lowering writes
}

// The operands of `c` for a run into `output` (ws.expected or ws.actual).
inline Operands int16x8_operands(Workspace& ws, const Int16x8Case& c, uint8_t* output) {
  Operands o;
  o.inputs[0] = {int16x8_input(ws, c), c.input_bytes};
  o.inputs[1] = {filter_of(ws, c.shape), c.filter_bytes};
  o.inputs[2] = {placed_quant(ws.quant, c.shape), uint32_t(c.channels * sizeof(ChannelQuant))};
  o.inputs[3] = {int16x8_wide_bias(ws, c), uint32_t(c.channels * sizeof(int64_t))};
  o.num_inputs = c.wide ? 4 : 3;
  o.outputs[0] = {output_at(output, c.shape), c.output_bytes};
  return o;
}

inline uint32_t int16x8_inputs_checksum(Workspace& ws, const Int16x8Case& c) {
  return checksum(int16x8_input(ws, c), c.input_bytes) ^
         checksum(filter_of(ws, c.shape), c.filter_bytes) ^
         checksum(placed_quant(ws.quant, c.shape), c.channels * sizeof(ChannelQuant)) ^
         checksum(int16x8_wide_bias(ws, c), c.channels * sizeof(int64_t));
}

// Runs `kernel` on the case into `output`, its bytes prefilled with `fill`
// between guards; the problem, or nullptr.
inline const char* run_int16x8(const KernelDescriptor& kernel, Workspace& ws, const Int16x8Case& c,
                               uint8_t* output, uint8_t fill, Rounding rounding) {
  uint8_t* first = output_at(output, c.shape);
  memset(first - kGuardBytes, kGuardPattern, kGuardBytes + c.output_bytes + kGuardBytes);
  memset(first, fill, c.output_bytes);
  Operands o = int16x8_operands(ws, c, output);
  const uint32_t before = int16x8_inputs_checksum(ws, c);
  KernelArgs args;
  args.params = &c.shape.p;
  args.inputs = o.inputs;
  args.num_inputs = o.num_inputs;
  args.outputs = o.outputs;
  args.num_outputs = 1;
  args.scratch = {nullptr, 0};
  args.rounding = rounding;
  if (ws.fence != nullptr) {
    ws.fence(first - kGuardBytes, kGuardBytes, true);
    ws.fence(first + c.output_bytes, kGuardBytes, true);
  }
  const Status status = kernel.run(args);
  if (ws.fence != nullptr) {
    ws.fence(first - kGuardBytes, kGuardBytes, false);
    ws.fence(first + c.output_bytes, kGuardBytes, false);
  }
  if (status != Status::kOk) return "run failed";
  if (!all_bytes(first - kGuardBytes, kGuardBytes, kGuardPattern) ||
      !all_bytes(first + c.output_bytes, kGuardBytes, kGuardPattern))
    return "wrote outside its output";
  if (int16x8_inputs_checksum(ws, c) != before) return "changed an input";
  return nullptr;
}

// Case `index` of `variant`'s sweep: drawn until the variant's validate
// takes a shape (the reference must take every one), run by both in each
// rounding mode and compared.
inline CaseOutcome check_int16x8_case(const KernelDescriptor& variant, uint64_t seed,
                                      uint32_t index, Workspace& ws, Text* shape) {
  CaseOutcome out;
  shape->clear();
  const KernelDescriptor& reference = *int16x8_reference(variant);
  Random r(case_seed(seed, variant.name, index));
  Int16x8Case c;
  bool ready = false;
  for (uint32_t attempt = 0; attempt < kDrawAttempts && !ready; ++attempt) {
    if (!draw_int16x8_shape(reference, r, &c)) continue;
    c.shape.at = place_operands(index, false, variant.signature);
    c.shape.at.extra -= c.shape.at.extra % 8;
    fill_int16x8_case(r, ws, &c);
    const Operands o = int16x8_operands(ws, c, ws.expected);
    if (validate_operation(reference, &c.shape.p, o.inputs, o.num_inputs, o.outputs) !=
        Status::kOk) {
      out.passed = false;
      out.problem = "the reference refuses a drawn case";
      return out;
    }
    ready =
        validate_operation(variant, &c.shape.p, o.inputs, o.num_inputs, o.outputs) == Status::kOk;
  }
  describe_shape(c.shape, shape);
  describe_placement(c.shape.at, shape);
  shape->field("wide_bias", c.wide);
  if (!ready) {
    out.passed = false;
    out.problem = "no drawn shape passes the variant's validate";
    return out;
  }
  const Rounding roundings[] = {Rounding::kDouble, Rounding::kSingle};
  for (Rounding rounding : roundings) {
    ++out.runs;
    out.detail.clear();
    out.detail.text(" rounding ").text(rounding_name(rounding));
    if (const char* problem = run_int16x8(reference, ws, c, ws.expected, kExpectedFill, rounding)) {
      out.passed = false;
      out.problem = "reference kernel failed";
      out.detail.text(": ").text(problem);
      return out;
    }
    if (const char* problem = run_int16x8(variant, ws, c, ws.actual, kActualFill, rounding)) {
      out.passed = false;
      out.problem = problem;
      return out;
    }
    int16_t expected, actual;
    for (uint32_t i = 0; i < c.output_bytes / 2; ++i) {
      memcpy(&expected, output_at(ws.expected, c.shape) + 2 * i, 2);
      memcpy(&actual, output_at(ws.actual, c.shape) + 2 * i, 2);
      if (expected == actual) continue;
      const uint32_t channel = i % c.channels;
      const ChannelQuant& q = placed_quant(ws.quant, c.shape)[channel];
      out.passed = false;
      out.problem = "output differs from the reference";
      out.detail.field("first_at", i).field("channel", channel);
      out.detail.field("expected", expected).field("got", actual);
      out.detail.field("bias", c.wide ? int16x8_wide_bias(ws, c)[channel] : q.bias);
      out.detail.field("multiplier", q.multiplier).field("shift", q.shift);
      return out;
    }
  }
  return out;
}

}  // namespace tinyaot::sweep
