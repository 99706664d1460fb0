//===- HostTensor.cpp - tensors in host memory, .npy files ----------------===//
//
// The .npy format is small and fixed (NEP 1); reading it here keeps the
// tools free of a NumPy or cnpy dependency.
//
//===----------------------------------------------------------------------===//

#include "trace/Support/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::trace;
using llvm::APFloat;

int64_t mlir::trace::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
    return 1;
  }
  llvm_unreachable("unknown dtype");
}

llvm::StringRef mlir::trace::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::I1: return "i1";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<DType> mlir::trace::dtypeFromType(Type type) {
  if (type.isF32()) return DType::F32;
  if (type.isF64()) return DType::F64;
  if (type.isF16()) return DType::F16;
  if (type.isBF16()) return DType::BF16;
  if (type.isInteger(1)) return DType::I1;
  if (type.isInteger(32)) return DType::I32;
  if (type.isInteger(64)) return DType::I64;
  return std::nullopt;
}

HostTensor::HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape)
    : dtype(dtype), shape(shape.begin(), shape.end()),
      data(numel() * dtypeSize(dtype), 0) {}

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string HostTensor::typeString() const {
  std::string out;
  for (int64_t d : shape)
    out += std::to_string(d) + "x";
  return out + dtypeName(dtype).str();
}

static const llvm::fltSemantics &halfSemantics(DType dtype) {
  return dtype == DType::F16 ? APFloat::IEEEhalf() : APFloat::BFloat();
}

double HostTensor::getAsDouble(int64_t i) const {
  const uint8_t *p = data.data() + i * dtypeSize(dtype);
  switch (dtype) {
  case DType::F32: { float v; std::memcpy(&v, p, 4); return v; }
  case DType::F64: { double v; std::memcpy(&v, p, 8); return v; }
  case DType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
  case DType::I64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
  case DType::I1: return *p ? 1.0 : 0.0;
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    APFloat v(halfSemantics(dtype), llvm::APInt(16, bits));
    bool losesInfo;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
    return v.convertToDouble();
  }
  }
  llvm_unreachable("unknown dtype");
}

void HostTensor::setFromDouble(int64_t i, double value) {
  uint8_t *p = data.data() + i * dtypeSize(dtype);
  switch (dtype) {
  case DType::F32: { float v = static_cast<float>(value); std::memcpy(p, &v, 4); return; }
  case DType::F64: std::memcpy(p, &value, 8); return;
  case DType::I32: { int32_t v = static_cast<int32_t>(value); std::memcpy(p, &v, 4); return; }
  case DType::I64: { int64_t v = static_cast<int64_t>(value); std::memcpy(p, &v, 8); return; }
  case DType::I1: *p = value != 0.0; return;
  case DType::F16:
  case DType::BF16: {
    APFloat v(value);
    bool losesInfo;
    v.convert(halfSemantics(dtype), APFloat::rmNearestTiesToEven, &losesInfo);
    uint16_t bits = static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
    std::memcpy(p, &bits, 2);
    return;
  }
  }
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

static llvm::Error npyError(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + message);
}

/// The value of `'key': <value>` in a .npy header dict, up to the next
/// top-level comma or the closing brace.
static std::optional<llvm::StringRef> headerValue(llvm::StringRef header,
                                                  llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  int depth = 0;
  size_t end = 0;
  for (; end < rest.size(); ++end) {
    char c = rest[end];
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  return rest.take_front(end).trim();
}

llvm::Expected<HostTensor> mlir::trace::readNpy(llvm::StringRef path,
                                                bool wantBF16) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError(path, "cannot read: " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return npyError(path, "not a .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<uint8_t>(bytes[8]) |
                (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError(path, "truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                   << (8 * i);
    headerStart = 12;
  } else {
    return npyError(path, "unsupported .npy format version " +
                              llvm::Twine(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return npyError(path, "truncated header");
  llvm::StringRef header = bytes.substr(headerStart, headerLen);

  std::optional<llvm::StringRef> descr = headerValue(header, "descr");
  std::optional<llvm::StringRef> fortran = headerValue(header, "fortran_order");
  std::optional<llvm::StringRef> shapeText = headerValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return npyError(path, "header lacks descr, fortran_order or shape");
  if (*fortran != "False")
    return npyError(path, "Fortran-order arrays are not supported; save with "
                          "numpy.ascontiguousarray");

  llvm::StringRef d = descr->trim("'\"");
  DType dtype;
  if (d == "<f4") dtype = DType::F32;
  else if (d == "<f8") dtype = DType::F64;
  else if (d == "<f2") dtype = DType::F16;
  else if (d == "|b1" || d == "?") dtype = DType::I1;
  else if (d == "<i4") dtype = DType::I32;
  else if (d == "<i8") dtype = DType::I64;
  else
    return npyError(path, "unsupported dtype '" + d +
                              "' (expected <f4, <f8, <f2, |b1, <i4 or <i8)");

  std::vector<int64_t> shape;
  llvm::StringRef dims = shapeText->trim("() ");
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    int64_t dim;
    if (part.trim().getAsInteger(10, dim) || dim < 0)
      return npyError(path, "bad shape " + *shapeText);
    shape.push_back(dim);
  }

  HostTensor tensor(dtype, shape);
  size_t payload = headerStart + headerLen;
  if (bytes.size() - payload != tensor.data.size())
    return npyError(path, "holds " + llvm::Twine(bytes.size() - payload) +
                              " data bytes, expected " +
                              llvm::Twine(tensor.data.size()) + " for " +
                              tensor.typeString() + " (truncated?)");
  std::memcpy(tensor.data.data(), bytes.data() + payload, tensor.data.size());

  if (wantBF16) {
    if (dtype != DType::F32)
      return npyError(path, "a bf16 input must be given as float32 (<f4) "
                            "data, got " + d);
    HostTensor bf16(DType::BF16, shape);
    for (int64_t i = 0, e = tensor.numel(); i < e; ++i)
      bf16.setFromDouble(i, tensor.getAsDouble(i));
    return bf16;
  }
  return tensor;
}

llvm::Error mlir::trace::writeNpy(llvm::StringRef path,
                                  const HostTensor &tensor) {
  // bf16 goes out as float32 (exact).
  const HostTensor *out = &tensor;
  HostTensor widened;
  if (tensor.dtype == DType::BF16) {
    widened = HostTensor(DType::F32, tensor.shape);
    for (int64_t i = 0, e = tensor.numel(); i < e; ++i)
      widened.setFromDouble(i, tensor.getAsDouble(i));
    out = &widened;
  }
  llvm::StringRef descr;
  switch (out->dtype) {
  case DType::F32: descr = "<f4"; break;
  case DType::F64: descr = "<f8"; break;
  case DType::F16: descr = "<f2"; break;
  case DType::I1: descr = "|b1"; break;
  case DType::I32: descr = "<i4"; break;
  case DType::I64: descr = "<i8"; break;
  case DType::BF16: llvm_unreachable("widened above");
  }
  std::string shape = "(";
  for (int64_t d : out->shape)
    shape += std::to_string(d) + ", ";
  if (out->shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (out->shape.size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + descr.str() +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so magic + length + header + newline is a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  llvm::SmallString<128> tmp;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%", fd, tmp))
    return npyError(path, "cannot create: " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << "\x93NUMPY" << '\x01' << '\x00';
    os << static_cast<char>(header.size() & 0xff)
       << static_cast<char>((header.size() >> 8) & 0xff);
    os << header;
    os.write(reinterpret_cast<const char *>(out->data.data()),
             out->data.size());
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return npyError(path, "write failed: " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return npyError(path, "cannot write: " + ec.message());
  }
  return llvm::Error::success();
}
