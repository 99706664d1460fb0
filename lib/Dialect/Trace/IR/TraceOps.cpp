//===- TraceOps.cpp - trace primitive ops ---------------------------------===//
//
// Verifiers, result-type inference, custom assembly and costs of the
// primitive ops. Folds live in TraceFolds.cpp, region ops in
// TraceRegionOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

using namespace mlir;
using namespace mlir::trace;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Prints a shape as `2x3x4` (`scalar` for rank 0) for diagnostics.
static std::string shapeString(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(shape, os, "x");
  return out;
}

/// Checks that `dims` are unique and in [0, rank); `what` names them in
/// the message.
static LogicalResult verifyDimList(std::optional<Location> loc,
                                   ArrayRef<int64_t> dims, int64_t rank,
                                   StringRef what) {
  llvm::SmallBitVector seen(std::max<int64_t>(rank, 0));
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= rank)
      return emitOptionalError(loc, what, " ", dim,
                               " is out of range for a tensor of rank ", rank);
    if (seen.test(dim))
      return emitOptionalError(loc, what, " ", dim, " appears twice");
    seen.set(dim);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CompareOp
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhs = tensorType(adaptor.getLhs());
  inferredReturnTypes.push_back(
      RankedTensorType::get(lhs.getShape(), IntegerType::get(context, 1)));
  return success();
}

/// The direction as a bare keyword: `trace.compare lt, %a, %b`.
static ParseResult
parseComparisonDirection(OpAsmParser &parser,
                         ComparisonDirectionAttr &direction) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ComparisonDirection> value =
      symbolizeComparisonDirection(keyword);
  if (!value)
    return parser.emitError(loc, "unknown comparison direction '")
           << keyword << "' (expected eq, ne, lt, le, gt or ge)";
  direction = ComparisonDirectionAttr::get(parser.getContext(), *value);
  return success();
}

static void printComparisonDirection(OpAsmPrinter &p, Operation *,
                                     ComparisonDirectionAttr direction) {
  p << stringifyComparisonDirection(direction.getValue());
}

//===----------------------------------------------------------------------===//
// FullOp
//===----------------------------------------------------------------------===//

LogicalResult FullOp::verify() {
  Type elementType = getType().getElementType();
  Attribute value = getValue();
  if (!isa<FloatAttr, IntegerAttr>(value))
    return emitOpError("value must be a float or integer scalar, got ")
           << value;
  if (cast<TypedAttr>(value).getType() != elementType)
    return emitOpError("value type ")
           << cast<TypedAttr>(value).getType()
           << " does not match the result element type " << elementType;
  return success();
}

/// `trace.full <scalar> : tensor<...>`. The scalar is written without its
/// type (the result's element type) so it reads like `torch.full`. Its token
/// is consumed first and then re-read from the source text in the element
/// type's own semantics once the type is known, so no value is rounded twice.
/// Hex bit patterns (`0x7FC00000`, MLIR's spelling of NaN and infinities) are
/// accepted for floats.
ParseResult FullOp::parse(OpAsmParser &parser, OperationState &result) {
  SMLoc valueLoc = parser.getCurrentLocation();
  StringRef keyword;
  bool isBoolLiteral =
      succeeded(parser.parseOptionalKeyword(&keyword, {"true", "false"}));
  if (!isBoolLiteral) {
    // MLIR lexes `1` and `0x7F80` as integers and `1.5` as a float, and
    // parseFloat rejects decimal integers: an integer token first, else a
    // float. The source is not read past the tokens parsed: a buffer need
    // not end in a NUL (parseSourceString's does not; reading the text up to
    // one overflowed the heap, found by fuzz/trace-parse-fuzzer).
    (void)parser.parseOptionalMinus();
    APInt ignoredInt;
    double ignoredFloat;
    StringRef word;
    OptionalParseResult parsed = parser.parseOptionalInteger(ignoredInt);
    if (parsed.has_value()) {
      if (failed(*parsed))
        return failure();
    } else if (succeeded(parser.parseOptionalKeyword(&word))) {
      return parser.emitError(valueLoc, "expected a scalar fill value");
    } else if (parser.parseFloat(ignoredFloat)) {
      return failure();
    }
  }
  SMLoc endLoc = parser.getCurrentLocation();
  StringRef text = StringRef(valueLoc.getPointer(),
                             endLoc.getPointer() - valueLoc.getPointer())
                       .trim();
  RankedTensorType type;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  Type elementType = type.getElementType();

  TypedAttr value;
  bool negative = text.consume_front("-");
  bool isHex = text.starts_with("0x") || text.starts_with("0X");
  if (isBoolLiteral) {
    if (!elementType.isInteger(1))
      return parser.emitError(valueLoc, "'true'/'false' needs an i1 tensor, "
                                        "got ")
             << type;
    value = BoolAttr::get(parser.getContext(), keyword == "true");
  } else if (auto floatType = dyn_cast<FloatType>(elementType)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat parsed(semantics);
    if (isHex) {
      APInt bits;
      if (text.drop_front(2).getAsInteger(16, bits) ||
          bits.getActiveBits() > floatType.getWidth())
        return parser.emitError(valueLoc, "hexadecimal value ")
               << text << " does not fit in " << elementType;
      parsed = APFloat(semantics, bits.zextOrTrunc(floatType.getWidth()));
    } else if (llvm::Expected<APFloat::opStatus> status =
                   parsed.convertFromString(text,
                                            APFloat::rmNearestTiesToEven);
               !status) {
      llvm::consumeError(status.takeError());
      return parser.emitError(valueLoc, "invalid float literal ") << text;
    }
    if (negative)
      parsed.changeSign();
    value = FloatAttr::get(elementType, parsed);
  } else {
    unsigned width = elementType.getIntOrFloatBitWidth();
    APInt parsed;
    if (text.getAsInteger(/*Radix=*/0, parsed))
      return parser.emitError(valueLoc, "expected an integer fill value for ")
             << type << ", got " << text;
    // Room for the sign bit, then the range check.
    parsed = parsed.zext(parsed.getBitWidth() + 1);
    if (negative)
      parsed.negate();
    bool fits = width == 1 ? (parsed.isZero() || parsed.isOne())
                           : parsed.isSignedIntN(width);
    if (!fits)
      return parser.emitError(valueLoc, "fill value ")
             << (negative ? "-" : "") << text << " does not fit in "
             << elementType;
    value = IntegerAttr::get(elementType, parsed.sextOrTrunc(width));
  }
  result.addAttribute(getValueAttrName(result.name), value);
  result.addTypes(type);
  return success();
}

void FullOp::print(OpAsmPrinter &p) {
  p << ' ';
  auto floatValue = dyn_cast<FloatAttr>(getValue());
  if (floatValue && !floatValue.getValue().isFinite()) {
    // MLIR's own spelling of NaN and infinities: the bit pattern in hex.
    APInt bits = floatValue.getValue().bitcastToAPInt();
    SmallString<32> hex;
    bits.toStringUnsigned(hex, 16);
    p << "0x" << hex;
  } else if (auto boolValue = dyn_cast<BoolAttr>(getValue())) {
    p << (boolValue.getValue() ? "true" : "false");
  } else {
    p.printAttributeWithoutType(getValue());
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {getValueAttrName()});
  p << " : " << getType();
}

int64_t FullOp::getFlops() { return 0; }
int64_t ConstantOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// IotaOp, RandomUniformOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  int64_t rank = getType().getRank();
  if (rank == 0)
    return emitOpError("result must have rank >= 1");
  if (getDimension() < 0 || getDimension() >= rank)
    return emitOpError("dim ") << getDimension()
                               << " is out of range for a result of rank "
                               << rank;
  return success();
}

int64_t RandomUniformOp::getNumCounters() {
  return llvm::divideCeil(getType().getNumElements(), 4);
}

//===----------------------------------------------------------------------===//
// BroadcastInDimOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType resultType = getType();
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (static_cast<int64_t>(dims.size()) != operandType.getRank())
    return emitOpError("needs one entry in dims per operand dim: got ")
           << dims.size() << " for an operand of rank "
           << operandType.getRank();
  for (auto [index, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= resultType.getRank())
      return emitOpError("dims[") << index << "] = " << dim
                                  << " is out of range for a result of rank "
                                  << resultType.getRank();
    if (index > 0 && dim <= dims[index - 1])
      return emitOpError("dims must be strictly increasing, got [")
             << llvm::make_range(dims.begin(), dims.end())
             << "] (reorder dims with trace.transpose)";
    int64_t operandSize = operandType.getDimSize(index);
    int64_t resultSize = resultType.getDimSize(dim);
    if (operandSize != 1 && operandSize != resultSize)
      return emitOpError("operand dim ")
             << index << " (size " << operandSize
             << ") can't broadcast to result dim " << dim << " (size "
             << resultSize << ")";
  }
  return success();
}

int64_t BroadcastInDimOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  if (operandType.getNumElements() != getType().getNumElements())
    return emitOpError("can't reshape ")
           << shapeString(operandType.getShape()) << " ("
           << operandType.getNumElements() << " elements) to "
           << shapeString(getType().getShape()) << " ("
           << getType().getNumElements() << " elements)";
  return success();
}

// A row-major reshape only relabels the buffer: no work, no traffic.
int64_t ReshapeOp::getFlops() { return 0; }
int64_t ReshapeOp::getBytesRead() { return 0; }
int64_t ReshapeOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto operandType = tensorType(adaptor.getOperand());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (static_cast<int64_t>(perm.size()) != operandType.getRank())
    return emitOptionalError(loc, "'trace.transpose' op permutation has ",
                             perm.size(), " entries for an operand of rank ",
                             operandType.getRank());
  if (failed(verifyDimList(loc, perm, operandType.getRank(),
                           "'trace.transpose' op permutation entry")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(operandType.getDimSize(dim));
  inferredReturnTypes.push_back(operandType.clone(shape));
  return success();
}

int64_t TransposeOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult
SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                          Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  auto operandType = tensorType(adaptor.getOperand());
  ArrayRef<int64_t> starts = adaptor.getStartIndices();
  ArrayRef<int64_t> limits = adaptor.getLimitIndices();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  int64_t rank = operandType.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(limits.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return emitOptionalError(loc, "'trace.slice' op needs one range per dim: "
                                  "got ",
                             starts.size(), " for an operand of rank ", rank);
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t size = operandType.getDimSize(dim);
    if (starts[dim] < 0 || starts[dim] > limits[dim] || limits[dim] > size)
      return emitOptionalError(
          loc, "'trace.slice' op range ", starts[dim], ":", limits[dim],
          " of dim ", dim, " is outside 0:", size,
          " (needs 0 <= start <= limit <= size)");
    if (strides[dim] < 1)
      return emitOptionalError(loc, "'trace.slice' op stride of dim ", dim,
                               " must be >= 1, got ", strides[dim]);
    shape.push_back(llvm::divideCeil(limits[dim] - starts[dim], strides[dim]));
  }
  inferredReturnTypes.push_back(operandType.clone(shape));
  return success();
}

int64_t SliceOp::getFlops() { return 0; }
// Only the selected elements are read.
int64_t SliceOp::getBytesRead() { return getTensorBytes(getType()); }

/// `[start:limit(:stride)?, ...]`, the stride omitted when it is 1.
static ParseResult parseSliceRanges(OpAsmParser &parser,
                                    DenseI64ArrayAttr &starts,
                                    DenseI64ArrayAttr &limits,
                                    DenseI64ArrayAttr &strides) {
  SmallVector<int64_t> startList, limitList, strideList;
  auto parseRange = [&]() -> ParseResult {
    int64_t start, limit, stride = 1;
    if (parser.parseInteger(start) || parser.parseColon() ||
        parser.parseInteger(limit))
      return failure();
    if (succeeded(parser.parseOptionalColon()) && parser.parseInteger(stride))
      return failure();
    startList.push_back(start);
    limitList.push_back(limit);
    strideList.push_back(stride);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parseRange, " in slice ranges"))
    return failure();
  MLIRContext *ctx = parser.getContext();
  starts = DenseI64ArrayAttr::get(ctx, startList);
  limits = DenseI64ArrayAttr::get(ctx, limitList);
  strides = DenseI64ArrayAttr::get(ctx, strideList);
  return success();
}

static void printSliceRanges(OpAsmPrinter &p, Operation *,
                             DenseI64ArrayAttr starts,
                             DenseI64ArrayAttr limits,
                             DenseI64ArrayAttr strides) {
  p << '[';
  for (int64_t i = 0, e = starts.size(); i < e; ++i) {
    if (i)
      p << ", ";
    p << starts[i] << ':' << limits[i];
    if (strides[i] != 1)
      p << ':' << strides[i];
  }
  p << ']';
}

//===----------------------------------------------------------------------===//
// ConcatenateOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatenateOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "'trace.concatenate' op needs at least one "
                                  "input");
  auto first = tensorType(adaptor.getInputs().front());
  int64_t rank = first.getRank();
  int64_t dim = adaptor.getDimension();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "'trace.concatenate' op dim ", dim,
                             " is out of range for inputs of rank ", rank);
  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, input] : llvm::enumerate(adaptor.getInputs().drop_front())) {
    auto type = tensorType(input);
    if (type.getRank() != rank)
      return emitOptionalError(loc, "'trace.concatenate' op input ", index + 1,
                               " has rank ", type.getRank(), ", input 0 has ",
                               rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim && type.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(
            loc, "'trace.concatenate' op input ", index + 1, " (",
            shapeString(type.getShape()), ") differs from input 0 (",
            shapeString(first.getShape()), ") in dim ", d,
            ", which is not the concatenated dim");
    }
    shape[dim] += type.getDimSize(dim);
  }
  inferredReturnTypes.push_back(first.clone(shape));
  return success();
}

int64_t ConcatenateOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// ReduceSumOp, ReduceMaxOp
//===----------------------------------------------------------------------===//

static LogicalResult inferReduceType(std::optional<Location> loc,
                                     StringRef opName, Value operand,
                                     ArrayRef<int64_t> dims, bool keepdim,
                                     SmallVectorImpl<Type> &inferred) {
  auto operandType = tensorType(operand);
  if (failed(verifyDimList(loc, dims, operandType.getRank(),
                           ("'" + opName + "' op reduced dim").str())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0, e = operandType.getRank(); d < e; ++d) {
    if (!llvm::is_contained(dims, d))
      shape.push_back(operandType.getDimSize(d));
    else if (keepdim)
      shape.push_back(1);
  }
  inferred.push_back(operandType.clone(shape));
  return success();
}

template <typename ReduceOp>
static int64_t reductionSize(ReduceOp op) {
  int64_t size = 1;
  for (int64_t dim : op.getDimensions())
    size *= op.getOperand().getType().getDimSize(dim);
  return size;
}

LogicalResult ReduceSumOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  return inferReduceType(loc, getOperationName(), adaptor.getOperand(),
                         adaptor.getDimensions(), adaptor.getKeepdim(),
                         inferredReturnTypes);
}

LogicalResult ReduceMaxOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  return inferReduceType(loc, getOperationName(), adaptor.getOperand(),
                         adaptor.getDimensions(), adaptor.getKeepdim(),
                         inferredReturnTypes);
}

int64_t ReduceSumOp::getReductionSize() { return reductionSize(*this); }
int64_t ReduceMaxOp::getReductionSize() { return reductionSize(*this); }
// One add (or max) per input element.
int64_t ReduceSumOp::getFlops() { return getOperand().getType().getNumElements(); }
int64_t ReduceMaxOp::getFlops() { return getOperand().getType().getNumElements(); }

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult
MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhs = tensorType(adaptor.getLhs());
  auto rhs = tensorType(adaptor.getRhs());
  int64_t rank = lhs.getRank();
  if (rank < 2 || rhs.getRank() != rank)
    return emitOptionalError(
        loc, "'trace.matmul' op operands must have one rank >= 2, got ",
        shapeString(lhs.getShape()), " and ", shapeString(rhs.getShape()));
  if (lhs.getShape().drop_back(2) != rhs.getShape().drop_back(2))
    return emitOptionalError(
        loc, "'trace.matmul' op batch dims differ: ",
        shapeString(lhs.getShape()), " vs ", shapeString(rhs.getShape()),
        " (broadcast explicitly with trace.broadcast_in_dim)");
  if (lhs.getDimSize(rank - 1) != rhs.getDimSize(rank - 2))
    return emitOptionalError(
        loc, "'trace.matmul' op contracting dims differ: lhs ",
        shapeString(lhs.getShape()), " has K = ", lhs.getDimSize(rank - 1),
        ", rhs ", shapeString(rhs.getShape()), " has K = ",
        rhs.getDimSize(rank - 2));
  SmallVector<int64_t> shape(lhs.getShape().drop_back(1));
  shape.push_back(rhs.getDimSize(rank - 1));
  inferredReturnTypes.push_back(lhs.clone(shape));
  return success();
}

// A multiply and an add per (batch, m, n, k).
int64_t MatmulOp::getFlops() {
  int64_t k = getLhs().getType().getShape().back();
  return 2 * getType().getNumElements() * k;
}

//===----------------------------------------------------------------------===//
// ConvolutionOp
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  constexpr StringLiteral op = "'trace.convolution' op ";
  auto lhs = tensorType(adaptor.getLhs());
  auto rhs = tensorType(adaptor.getRhs());
  int64_t rank = lhs.getRank();
  if (rank < 3 || rhs.getRank() != rank)
    return emitOptionalError(
        loc, op, "input and kernel must have one rank >= 3 ([N, C, spatial...] "
        "and [O, C / groups, kernel...]), got ", shapeString(lhs.getShape()),
        " and ", shapeString(rhs.getShape()));
  int64_t spatial = rank - 2;
  ArrayRef<int64_t> strides = adaptor.getStrides();
  ArrayRef<int64_t> padding = adaptor.getPadding();
  ArrayRef<int64_t> lhsDilation = adaptor.getLhsDilation();
  ArrayRef<int64_t> rhsDilation = adaptor.getRhsDilation();
  auto checkCount = [&](ArrayRef<int64_t> list, int64_t want,
                        StringRef name) -> LogicalResult {
    if (static_cast<int64_t>(list.size()) == want)
      return success();
    return emitOptionalError(loc, op, name, " needs ", want, " entries for ",
                             spatial, " spatial dims, got ", list.size());
  };
  if (failed(checkCount(strides, spatial, "strides")) ||
      failed(checkCount(padding, 2 * spatial, "padding")) ||
      failed(checkCount(lhsDilation, spatial, "lhs_dilation")) ||
      failed(checkCount(rhsDilation, spatial, "rhs_dilation")))
    return failure();
  int64_t groups = adaptor.getGroups();
  int64_t channels = lhs.getDimSize(1), features = rhs.getDimSize(0);
  if (features < 1)
    return emitOptionalError(loc, op, "the kernel ",
                             shapeString(rhs.getShape()),
                             " has no output features");
  if (groups < 1 || channels % groups != 0 || features % groups != 0)
    return emitOptionalError(loc, op, "groups = ", groups, " must be >= 1 and "
                             "divide the input's ", channels, " channels and "
                             "the kernel's ", features, " output features");
  if (rhs.getDimSize(1) * groups != channels)
    return emitOptionalError(
        loc, op, "kernel ", shapeString(rhs.getShape()), " has ",
        rhs.getDimSize(1), " input channels per group; the input ",
        shapeString(lhs.getShape()), " has ", channels, " in ", groups,
        " group(s)");
  SmallVector<int64_t> shape = {lhs.getDimSize(0), features};
  for (int64_t d = 0; d < spatial; ++d) {
    if (strides[d] < 1 || lhsDilation[d] < 1 || rhsDilation[d] < 1)
      return emitOptionalError(loc, op, "strides and dilations must be >= 1, "
                               "got stride ", strides[d], ", lhs_dilation ",
                               lhsDilation[d], ", rhs_dilation ",
                               rhsDilation[d], " in spatial dim ", d);
    int64_t in = lhs.getDimSize(d + 2), kernel = rhs.getDimSize(d + 2);
    if (in < 1)
      return emitOptionalError(loc, op, "spatial dim ", d, " of the input ",
                               shapeString(lhs.getShape()), " is empty");
    int64_t dilated = (in - 1) * lhsDilation[d] + 1;
    int64_t padded = dilated + padding[2 * d] + padding[2 * d + 1];
    int64_t window = kernel == 0 ? 0 : (kernel - 1) * rhsDilation[d] + 1;
    if (kernel < 1 || padded < window)
      return emitOptionalError(
          loc, op, "spatial dim ", d, ": the window of ", window,
          " (kernel ", kernel, ", dilation ", rhsDilation[d],
          ") does not fit the padded input of ", padded, " (size ", in,
          ", lhs_dilation ", lhsDilation[d], ", padding ", padding[2 * d],
          ", ", padding[2 * d + 1], ")");
    shape.push_back((padded - window) / strides[d] + 1);
  }
  inferredReturnTypes.push_back(lhs.clone(shape));
  return success();
}

// A multiply and an add per (output element, input channel of its group,
// kernel element). With lhs_dilation the lowering multiplies the inserted
// zeros too, so they are counted.
int64_t ConvolutionOp::getFlops() {
  RankedTensorType kernel = getRhs().getType();
  int64_t perOutput = kernel.getNumElements() / kernel.getDimSize(0);
  return 2 * getType().getNumElements() * perOutput;
}

Value ConvolutionOp::buildTransposedKernel(OpBuilder &builder, Location loc,
                                           Value kernel, int64_t groups) {
  auto type = tensorType(kernel);
  SmallVector<int64_t> shape(type.getShape());
  int64_t rank = shape.size();
  Value regrouped;
  if (groups == 1) {
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[0], perm[1]);
    regrouped = TransposeOp::create(builder, loc, kernel, perm);
  } else {
    // [G*A, B, k] -> [G, A, B, k] -> [G, B, A, k] -> [G*B, A, k].
    int64_t a = shape[0] / groups, b = shape[1];
    SmallVector<int64_t> split = {groups, a, b};
    split.append(shape.begin() + 2, shape.end());
    Value grouped = ReshapeOp::create(builder, loc, type.clone(split), kernel);
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank + 1));
    std::swap(perm[1], perm[2]);
    Value moved = TransposeOp::create(builder, loc, grouped, perm);
    SmallVector<int64_t> merged = {groups * b, a};
    merged.append(shape.begin() + 2, shape.end());
    regrouped = ReshapeOp::create(builder, loc, type.clone(merged), moved);
  }
  auto window = llvm::to_vector(llvm::seq<int64_t>(2, rank));
  return ReverseOp::create(builder, loc, regrouped, window);
}

//===----------------------------------------------------------------------===//
// ReverseOp
//===----------------------------------------------------------------------===//

LogicalResult ReverseOp::verify() {
  return verifyDimList(getLoc(), getDimensions(), getType().getRank(),
                       "'trace.reverse' op reversed dim");
}

int64_t ReverseOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// GatherOp, ScatterAddOp, StopGradientOp
//===----------------------------------------------------------------------===//

/// Checks the indices of a gather or scatter `what` along `dim` of a tensor
/// of type `operand`: the operand's rank, at most its size off `dim`, and a
/// non-empty `dim` to index when there are indices.
static LogicalResult verifyIndexing(std::optional<Location> loc,
                                    StringRef what, RankedTensorType operand,
                                    RankedTensorType indices, int64_t dim) {
  int64_t rank = operand.getRank();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "'trace.", what, "' op dim ", dim,
                             " is out of range for an operand of rank ",
                             rank);
  if (indices.getRank() != rank)
    return emitOptionalError(loc, "'trace.", what, "' op indices of shape ",
                             shapeString(indices.getShape()),
                             " do not have the operand's rank ", rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && indices.getDimSize(d) > operand.getDimSize(d))
      return emitOptionalError(
          loc, "'trace.", what, "' op indices of shape ",
          shapeString(indices.getShape()), " exceed the operand's shape ",
          shapeString(operand.getShape()), " in dim ", d);
  if (operand.getDimSize(dim) == 0 && indices.getNumElements() > 0)
    return emitOptionalError(loc, "'trace.", what, "' op indexes dim ", dim,
                             ", which is empty");
  return success();
}

LogicalResult
GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto operand = tensorType(adaptor.getOperand());
  auto indices = tensorType(adaptor.getIndices());
  if (failed(verifyIndexing(loc, "gather", operand, indices,
                            adaptor.getDimension())))
    return failure();
  inferredReturnTypes.push_back(operand.clone(indices.getShape()));
  return success();
}

// One read of the operand, one of the indices per result element.
int64_t GatherOp::getFlops() { return 0; }
int64_t GatherOp::getBytesRead() {
  return getTensorBytes(getType()) + getTensorBytes(getIndices().getType());
}

LogicalResult
ScatterAddOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                               Adaptor adaptor,
                               SmallVectorImpl<Type> &inferredReturnTypes) {
  auto operand = tensorType(adaptor.getOperand());
  auto indices = tensorType(adaptor.getIndices());
  auto updates = tensorType(adaptor.getUpdates());
  if (updates.getElementType() != operand.getElementType())
    return emitOptionalError(loc, "'trace.scatter_add' op updates of ",
                             updates.getElementType(), " into an operand of ",
                             operand.getElementType());
  if (failed(verifyIndexing(loc, "scatter_add", operand, indices,
                            adaptor.getDimension())))
    return failure();
  inferredReturnTypes.push_back(operand);
  return success();
}

int64_t StopGradientOp::getFlops() { return 0; }
int64_t StopGradientOp::getBytesRead() { return 0; }
int64_t StopGradientOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// TableGen'd op method definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "trace/Dialect/Trace/IR/TraceOps.cpp.inc"
