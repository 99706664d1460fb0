//===- InputSpecs.cpp - --input-shape specs -------------------------------===//
//
// TorchScript files carry no shapes: the forward inputs' shapes and dtypes
// come from --input-shape (`x=2x128xf32`) or an input-shapes file, parsed
// here; Importer::run (TorchScriptImporter.cpp) binds them to the inputs.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::ts;

//===----------------------------------------------------------------------===//
// Input specs
//===----------------------------------------------------------------------===//

Type mlir::trace::ts::parseDType(MLIRContext *ctx, StringRef dtype) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(dtype)
      .Case("f32", b.getF32Type())
      .Case("f64", b.getF64Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("i64", b.getI64Type())
      .Case("i32", b.getI32Type())
      .Cases({"i1", "bool"}, b.getI1Type())
      .Default(Type());
}

bool mlir::trace::readInputSpecsFile(StringRef path,
                                     std::vector<std::string> &specs,
                                     std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return false;
  }
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (StringRef line : lines)
    if (!line.trim().empty() && !line.trim().starts_with("#"))
      specs.push_back(line.trim().str());
  return true;
}

bool mlir::trace::parseInputSpec(StringRef text, InputSpec &spec,
                                 std::string &error) {
  spec = InputSpec();
  StringRef body = text;
  if (auto [name, rest] = text.split('='); !rest.empty() || text.contains('=')) {
    spec.name = name.trim().str();
    body = rest;
    if (spec.name.empty()) {
      error = "missing input name before '=' in '" + text.str() + "'";
      return false;
    }
  }
  SmallVector<StringRef> parts;
  body.trim().split(parts, 'x');
  if (parts.empty() || parts.back().empty()) {
    error = "expected NAME=D0xD1x...xDTYPE (e.g. x=2x128xf32), got '" +
            text.str() + "'";
    return false;
  }
  spec.dtype = parts.back().str();
  MLIRContext probe;
  if (!parseDType(&probe, spec.dtype)) {
    error = "unknown dtype '" + spec.dtype + "' in '" + text.str() +
            "' (expected f32, f64, f16, bf16, i64, i32 or bool)";
    return false;
  }
  for (StringRef p : ArrayRef<StringRef>(parts).drop_back()) {
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0) {
      error = "bad dimension '" + p.str() + "' in '" + text.str() + "'";
      return false;
    }
    spec.shape.push_back(d);
  }
  // Sizes, strides and costs are int64 byte counts everywhere downstream.
  Type element = parseDType(&probe, spec.dtype);
  int64_t bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  for (int64_t d : spec.shape) {
    if (__builtin_mul_overflow(bytes, d, &bytes)) {
      error = "shape of '" + text.str() +
              "' is too large: its size in bytes does not fit in 64 bits";
      return false;
    }
  }
  return true;
}
