#include "compiler/import/onnx_constant.h"

#include <cmath>
#include <cstring>

#include "compiler/lower/lowering.h"

namespace tinyaot::onnx_import {
namespace {

[[noreturn]] void fail(const std::string& message) { throw CompileError(message); }

size_t element_bytes(int32_t type) {
  switch (type) {
    case kUint8:
    case kInt8:
    case kBool:
      return 1;
    case kFloat:
    case kInt32:
      return 4;
    case kInt64:
    case kDouble:
      return 8;
    default:
      return 0;
  }
}

// A value in the domain of an integer `type`, wrapped as a cast wraps.
int64_t wrap_to(int32_t type, int64_t v) {
  switch (type) {
    case kUint8:
      return static_cast<uint8_t>(v);
    case kInt8:
      return static_cast<int8_t>(static_cast<uint8_t>(v));
    case kInt32:
      return static_cast<int32_t>(static_cast<uint32_t>(v));
    case kBool:
      return v != 0;
    default:
      return v;
  }
}

template <typename T>
T load(const uint8_t* raw) {
  T value;
  std::memcpy(&value, raw, sizeof(T));
  return value;
}

// Raw little-endian bytes, as ONNX stores them.
void read_raw(const std::string& raw, Constant& c, int64_t elements, const std::string& where) {
  const size_t bytes = element_bytes(c.type);
  if (raw.size() != static_cast<size_t>(elements) * bytes)
    fail(where + ": holds " + std::to_string(raw.size()) + " bytes of raw data, its dims need " +
         std::to_string(static_cast<size_t>(elements) * bytes));
  const auto* p = reinterpret_cast<const uint8_t*>(raw.data());
  for (int64_t i = 0; i < elements; ++i, p += bytes) {
    switch (c.type) {
      case kFloat:
        c.reals.push_back(load<float>(p));
        break;
      case kDouble:
        c.reals.push_back(load<double>(p));
        break;
      case kUint8:
        c.ints.push_back(*p);
        break;
      case kInt8:
        c.ints.push_back(static_cast<int8_t>(*p));
        break;
      case kBool:
        c.ints.push_back(*p != 0);
        break;
      case kInt32:
        c.ints.push_back(load<int32_t>(p));
        break;
      case kInt64:
        c.ints.push_back(load<int64_t>(p));
        break;
      default:
        break;
    }
  }
}

}  // namespace

const char* element_type_name(int32_t type) {
  if (onnx::TensorProto_DataType_IsValid(type))
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(type)).c_str();
  return "an unknown element type";
}

bool is_integer_type(int32_t type) {
  return type == kUint8 || type == kInt8 || type == kInt32 || type == kInt64 || type == kBool;
}

bool is_real_type(int32_t type) { return type == kFloat || type == kDouble; }

int64_t Constant::elements() const {
  return static_cast<int64_t>(is_real_type(type) ? reals.size() : ints.size());
}

int64_t Constant::integer(size_t i) const {
  if (!is_real_type(type)) return ints[i];
  const double r = reals[i];
  return std::isfinite(r) && std::fabs(r) < 9.0e18 ? static_cast<int64_t>(r) : 0;
}

double Constant::real(size_t i) const {
  return is_real_type(type) ? reals[i] : static_cast<double>(ints[i]);
}

std::vector<int64_t> Constant::integers() const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < static_cast<size_t>(elements()); ++i) out.push_back(integer(i));
  return out;
}

int64_t checked_elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && n > kMaxConstantElements / d) return -1;
    n *= d;
  }
  return n;
}

Constant read_constant(const onnx::TensorProto& proto, const std::string& where) {
  Constant c;
  c.type = proto.data_type();
  if (element_bytes(c.type) == 0)
    fail(where + " has element type " + element_type_name(c.type) +
         "; tinyaot reads float, double, int8, uint8, int32, int64 and bool constants");
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    fail(where + " keeps its data in an external file; save the model with its data inside");
  if (proto.has_segment()) fail(where + " is a segmented tensor, which tinyaot does not read");
  c.dims.assign(proto.dims().begin(), proto.dims().end());
  const int64_t elements = checked_elements(c.dims);
  if (elements < 0)
    fail(where + " has negative dims or more than " + std::to_string(kMaxConstantElements) +
         " elements");
  if (proto.has_raw_data()) {
    read_raw(proto.raw_data(), c, elements, where);
    return c;
  }
  // Typed fields: int8, uint8, int32 and bool live in int32_data.
  auto count_must_be = [&](int64_t found) {
    if (found != elements)
      fail(where + ": holds " + std::to_string(found) + " values, its dims need " +
           std::to_string(elements));
  };
  switch (c.type) {
    case kFloat:
      count_must_be(proto.float_data_size());
      c.reals.assign(proto.float_data().begin(), proto.float_data().end());
      break;
    case kDouble:
      count_must_be(proto.double_data_size());
      c.reals.assign(proto.double_data().begin(), proto.double_data().end());
      break;
    case kInt64:
      count_must_be(proto.int64_data_size());
      c.ints.assign(proto.int64_data().begin(), proto.int64_data().end());
      break;
    default:
      count_must_be(proto.int32_data_size());
      for (int32_t v : proto.int32_data()) c.ints.push_back(wrap_to(c.type, v));
      break;
  }
  return c;
}

Constant make_integer_constant(int32_t type, std::vector<int64_t> dims,
                               std::vector<int64_t> values) {
  Constant c;
  c.type = type;
  c.dims = std::move(dims);
  for (int64_t v : values) c.ints.push_back(wrap_to(type, v));
  return c;
}

Constant make_real_constant(std::vector<int64_t> dims, std::vector<double> values) {
  Constant c;
  c.type = kFloat;
  c.dims = std::move(dims);
  for (double v : values) c.reals.push_back(static_cast<float>(v));
  return c;
}

Constant cast_constant(const Constant& c, int32_t type, const std::string& where) {
  if (element_bytes(type) == 0)
    fail(where + ": Cast to " + element_type_name(type) + " is not supported");
  Constant out;
  out.type = type;
  out.dims = c.dims;
  for (size_t i = 0; i < static_cast<size_t>(c.elements()); ++i) {
    if (is_real_type(type)) {
      const double v = c.real(i);
      out.reals.push_back(type == kFloat ? static_cast<double>(static_cast<float>(v)) : v);
    } else if (is_real_type(c.type)) {
      const double v = std::trunc(c.reals[i]);
      if (!std::isfinite(v) || std::fabs(v) >= 9.0e18)
        fail(where + ": Cast of a non-finite or huge real to " +
             std::string(element_type_name(type)));
      out.ints.push_back(type == kBool ? c.reals[i] != 0.0
                                       : wrap_to(type, static_cast<int64_t>(v)));
    } else {
      out.ints.push_back(wrap_to(type, c.ints[i]));
    }
  }
  return out;
}

Constant transpose_constant(const Constant& c, const std::vector<int32_t>& perm) {
  Constant out;
  out.type = c.type;
  for (int32_t p : perm) out.dims.push_back(c.dims[static_cast<size_t>(p)]);
  std::vector<int64_t> strides(c.dims.size(), 1);
  for (size_t d = c.dims.size(); d-- > 1;) strides[d - 1] = strides[d] * c.dims[d];
  const int64_t n = c.elements();
  std::vector<int64_t> index(perm.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t from = 0;
    for (size_t k = 0; k < perm.size(); ++k)
      from += index[k] * strides[static_cast<size_t>(perm[k])];
    if (is_real_type(c.type))
      out.reals.push_back(c.reals[static_cast<size_t>(from)]);
    else
      out.ints.push_back(c.ints[static_cast<size_t>(from)]);
    for (size_t k = perm.size(); k-- > 0;) {
      if (++index[k] < out.dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace tinyaot::onnx_import
