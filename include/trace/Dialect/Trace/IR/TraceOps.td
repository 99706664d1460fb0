//===- TraceOps.td - trace dialect ops ---------------------*- tablegen -*-===//
//
// The primitive ops of traced programs and the two region ops
// (`trace.checkpoint`, `trace.fusion`).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_DIALECT_TRACE_IR_TRACEOPS_TD
#define TRACE_DIALECT_TRACE_IR_TRACEOPS_TD

include "trace/Dialect/Trace/IR/TraceBase.td"
include "trace/Dialect/Trace/IR/TraceInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Attributes and enums
//===----------------------------------------------------------------------===//

def Trace_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "elementwise comparison", [
      I32EnumAttrCase<"EQ", 0, "eq">, I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">, I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">, I32EnumAttrCase<"GE", 5, "ge">]> {
  let cppNamespace = "::mlir::trace";
  let genSpecializedAttr = 0;
}
def Trace_ComparisonDirectionAttr
    : EnumAttr<Trace_Dialect, Trace_ComparisonDirection, "cmp"> {
  let assemblyFormat = "$value";
}

def Trace_CheckpointPolicyAttr : AttrDef<Trace_Dialect, "CheckpointPolicy"> {
  let mnemonic = "policy";
  let summary = "What a checkpoint region may still save for backward";
  let description = [{
    By default nothing computed inside a `trace.checkpoint` region is saved
    for backward: the region is recomputed from its inputs. A policy names the
    exceptions, like PyTorch's selective checkpointing policies and JAX's
    `checkpoint_policies`:

    * `save_ops`: results of these ops are saved (e.g. `["trace.matmul"]`,
      the analogue of `jax.checkpoint_policies.dots_saveable`);
    * `save_names`: results of ops whose `trace.name` is listed are saved.

    ```mlir
    #trace.policy<save_ops = ["trace.matmul"], save_names = ["attn.scores"]>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::ArrayAttr", "op names whose results are saved">:$save_ops,
    OptionalParameter<"::mlir::ArrayAttr", "value names that are saved">:$save_names);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True if the policy lets `op`'s results be saved.
    bool allowsSaving(::mlir::Operation *op) const;
  }];
}

def Trace_DerivativesAttr : AttrDef<Trace_Dialect, "Derivatives"> {
  let mnemonic = "derivatives";
  let summary = "The functions trace-autodiff derived from a function";
  let description = [{
    On a function `@f` that `trace-autodiff` differentiated, under the name
    `trace.derivatives`: its joint forward + backward, and the split of it
    into what runs in the forward and what runs in the backward.

    ```mlir
    func.func @forward(...) attributes {trace.derivatives =
        #trace.derivatives<grad = @forward_grad, fwd = @forward_fwd,
                           bwd = @forward_bwd>}
    ```

    * `grad`: `(f's arguments, a cotangent per float result) -> (f's
      results, a gradient per float argument)`; a `trace.forward_end` op
      marks where its forward ends;
    * `fwd`: `(f's arguments) -> (f's results, the values saved for
      backward)`;
    * `bwd`: `(the saved values, the cotangents) -> (the gradients)`.

    Later passes find the functions through these references (symbol uses,
    so `symbol-dce` and renaming see them), never through their names.
    `trace-remat` replaces `fwd` and `bwd` and updates the attribute.
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$grad,
    "::mlir::FlatSymbolRefAttr":$fwd,
    "::mlir::FlatSymbolRefAttr":$bwd);
  let assemblyFormat = "`<` struct(params) `>`";
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Trace_Op<string mnemonic, list<Trait> traits = []>
    : Op<Trace_Dialect, mnemonic,
         !listconcat([Trace_BoundedTensorsTrait], traits)>;

// Ops with a reverse-mode derivative rule (`buildVJP`, in TraceVJP.cpp).
// Every compute op carries it or `Trace_NonDifferentiableTrait`, except the
// constants (`constant`, `full`), which have no operands.
defvar Trace_Differentiable = DeclareOpInterfaceMethods<Trace_VJPOpInterface>;

// Compute ops: pure, with a cost. `costMethods` lists the cost-interface
// methods the op overrides (the rest use the interface defaults).
class Trace_ComputeOp<string mnemonic, list<Trait> traits = [],
                      list<string> costMethods = []>
    : Trace_Op<mnemonic, !listconcat([Pure,
        DeclareOpInterfaceMethods<Trace_CostOpInterface, costMethods>], traits)>;

class Trace_UnaryOp<string mnemonic, Type type, list<Trait> traits = []>
    : Trace_ComputeOp<mnemonic, !listconcat([Elementwise,
        SameOperandsAndResultType, InferTypeOpInterface, Trace_Differentiable],
        traits)> {
  let arguments = (ins type:$operand);
  let results = (outs type:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

class Trace_BinaryOp<string mnemonic, Type type, list<Trait> traits = []>
    : Trace_ComputeOp<mnemonic, !listconcat([Elementwise,
        SameOperandsAndResultType, InferTypeOpInterface, Trace_Differentiable],
        traits)> {
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

def Trace_NegOp : Trace_UnaryOp<"neg", Trace_NumericTensor> {
  let summary = "Elementwise negation";
}
def Trace_AbsOp : Trace_UnaryOp<"abs", Trace_NumericTensor> {
  let summary = "Elementwise absolute value";
}
def Trace_ExpOp : Trace_UnaryOp<"exp", Trace_FloatTensor> {
  let summary = "Elementwise e^x";
}
def Trace_LogOp : Trace_UnaryOp<"log", Trace_FloatTensor> {
  let summary = "Elementwise natural logarithm";
}
def Trace_SinOp : Trace_UnaryOp<"sin", Trace_FloatTensor> {
  let summary = "Elementwise sine";
}
def Trace_CosOp : Trace_UnaryOp<"cos", Trace_FloatTensor> {
  let summary = "Elementwise cosine";
}
def Trace_TanhOp : Trace_UnaryOp<"tanh", Trace_FloatTensor> {
  let summary = "Elementwise hyperbolic tangent";
}
def Trace_SqrtOp : Trace_UnaryOp<"sqrt", Trace_FloatTensor> {
  let summary = "Elementwise square root";
}
def Trace_RsqrtOp : Trace_UnaryOp<"rsqrt", Trace_FloatTensor> {
  let summary = "Elementwise reciprocal square root, 1 / sqrt(x)";
}
def Trace_ErfOp : Trace_UnaryOp<"erf", Trace_FloatTensor> {
  let summary = "Elementwise Gauss error function";
}
def Trace_LogisticOp : Trace_UnaryOp<"logistic", Trace_FloatTensor> {
  let summary = "Elementwise logistic sigmoid, 1 / (1 + e^-x)";
}
def Trace_Log1pOp : Trace_UnaryOp<"log1p", Trace_FloatTensor> {
  let summary = "Elementwise log(1 + x), accurate for small x";
}
def Trace_Expm1Op : Trace_UnaryOp<"expm1", Trace_FloatTensor> {
  let summary = "Elementwise e^x - 1, accurate for small x";
}

// Rounding to an integral value: piecewise constant, so no gradient flows
// (PyTorch's derivative of floor, ceil and round is zero).
class Trace_RoundingOp<string mnemonic>
    : Trace_ComputeOp<mnemonic, [Elementwise, SameOperandsAndResultType,
        InferTypeOpInterface, Trace_NonDifferentiableTrait]> {
  let arguments = (ins Trace_FloatTensor:$operand);
  let results = (outs Trace_FloatTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}
def Trace_FloorOp : Trace_RoundingOp<"floor"> {
  let summary = "Elementwise round toward -inf";
}
def Trace_CeilOp : Trace_RoundingOp<"ceil"> {
  let summary = "Elementwise round toward +inf";
}
def Trace_RoundOp : Trace_RoundingOp<"round"> {
  let summary = "Elementwise round to nearest, ties to even (torch.round)";
}

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

def Trace_AddOp : Trace_BinaryOp<"add", Trace_NumericTensor, [Commutative]> {
  let summary = "Elementwise addition";
  let description = [{
    Operands and result have one type; broadcasting is explicit
    (`trace.broadcast_in_dim`). Folds `x + 0` to `x`.
  }];
}
def Trace_SubOp : Trace_BinaryOp<"sub", Trace_NumericTensor> {
  let summary = "Elementwise subtraction";
}
def Trace_MulOp : Trace_BinaryOp<"mul", Trace_NumericTensor, [Commutative]> {
  let summary = "Elementwise multiplication";
}
def Trace_DivOp : Trace_BinaryOp<"div", Trace_NumericTensor> {
  let summary = "Elementwise division (integer division truncates toward zero)";
}
def Trace_PowOp : Trace_BinaryOp<"pow", Trace_FloatTensor> {
  let summary = "Elementwise power, lhs ^ rhs";
}
def Trace_Atan2Op : Trace_BinaryOp<"atan2", Trace_FloatTensor> {
  let summary = "Elementwise atan2(lhs, rhs): the angle of the point (rhs, lhs)";
  let description = [{
    In (-pi, pi], as C's and torch's atan2. The inverse trigonometric and
    hyperbolic functions the importers need (asin, acos, atan and their
    hyperbolic kin) are formulas of it and of the other primitives.
  }];
}
def Trace_RemOp : Trace_BinaryOp<"rem", Trace_FloatTensor> {
  let summary = "Elementwise fmod: lhs - n rhs, n = trunc(lhs / rhs) exactly";
  let description = [{
    C's fmod and torch.fmod: the result is exact, takes the sign of lhs
    and is NaN where rhs is 0. A formula of div and trunc is not: its
    quotient rounds, so fmod(5.0, 0.1) would give 0 where this gives
    0.09999999999999973. torch.remainder and floor division are formulas
    of it.
  }];
}
def Trace_MaximumOp : Trace_BinaryOp<"maximum", Trace_NumericTensor, [Commutative]> {
  let summary = "Elementwise maximum (NaN-propagating, like torch.maximum)";
}
def Trace_MinimumOp : Trace_BinaryOp<"minimum", Trace_NumericTensor, [Commutative]> {
  let summary = "Elementwise minimum (NaN-propagating, like torch.minimum)";
}

//===----------------------------------------------------------------------===//
// Comparison, select, convert
//===----------------------------------------------------------------------===//

def Trace_CompareOp : Trace_ComputeOp<"compare", [Elementwise,
    SameTypeOperands, SameOperandsAndResultShape, Trace_NonDifferentiableTrait,
    Trace_InferShapes]> {
  let summary = "Elementwise comparison producing an i1 tensor";
  let description = [{
    ```mlir
    %m = trace.compare lt, %a, %b : tensor<4x8xf32>
    ```
    Directions: `eq`, `ne`, `lt`, `le`, `gt`, `ge`. Float comparisons are
    ordered (false when either side is NaN) except `ne`, which is true for
    NaN, as in PyTorch.
  }];
  let arguments = (ins Trace_ComparisonDirectionAttr:$direction,
                       Trace_Tensor:$lhs, Trace_Tensor:$rhs);
  let results = (outs Trace_BoolTensor:$result);
  let assemblyFormat = [{
    custom<ComparisonDirection>($direction) `,` $lhs `,` $rhs attr-dict `:` type($lhs)
  }];
  let hasFolder = 1;
}

def Trace_SelectOp : Trace_ComputeOp<"select", [Elementwise, Trace_Differentiable,
    AllTypesMatch<["on_true", "on_false", "result"]>,
    AllShapesMatch<["cond", "result"]>]> {
  let summary = "Elementwise choice: cond ? on_true : on_false";
  let arguments = (ins Trace_BoolTensor:$cond, Trace_Tensor:$on_true,
                       Trace_Tensor:$on_false);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,` type($result)
  }];
  let hasFolder = 1;
}

def Trace_ConvertOp : Trace_ComputeOp<"convert", [Elementwise,
    SameOperandsAndResultShape, Trace_Differentiable]> {
  let summary = "Elementwise element-type conversion (dtype cast)";
  let description = [{
    Float to float rounds to nearest even; float to integer truncates toward
    zero; anything to i1 is `x != 0`; i1 to a number is 0 or 1.
  }];
  let arguments = (ins Trace_Tensor:$operand);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Sources: constant, full, iota, random
//===----------------------------------------------------------------------===//

def Trace_ConstantOp : Trace_ComputeOp<"constant", [ConstantLike,
    AllTypesMatch<["value", "result"]>], ["getFlops"]> {
  let summary = "A tensor constant";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
    build($_builder, $_state, value.getType(), value);
  }]>];
}

def Trace_FullOp : Trace_ComputeOp<"full", [ConstantLike], ["getFlops"]> {
  let summary = "A tensor filled with one scalar";
  let description = [{
    ```mlir
    %z = trace.full 0.0 : tensor<4x8xf32>
    %t = trace.full true : tensor<4x4xi1>
    ```
    The scalar's type is the result's element type.
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Trace_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Trace_IotaOp : Trace_ComputeOp<"iota", [Trace_NonDifferentiableTrait]> {
  let summary = "Indices along one dimension: result[i0, ..., in] = i_dim";
  let arguments = (ins I64Attr:$dimension);
  let results = (outs Trace_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dimension attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Trace_RandomUniformOp : Trace_ComputeOp<"random_uniform", [
    Trace_NonDifferentiableTrait]> {
  let summary = "Counter-based uniform random numbers in [0, 1) (Philox4x32-10)";
  let description = [{
    ```mlir
    %u = trace.random_uniform %seed, offset = 0 : tensor<4x8xf32>
    ```
    Deterministic in (`seed`, `offset`): the same pair gives bit-identical
    numbers on every backend, which is what makes a recomputed dropout mask
    equal to the forward one.

    Element `i` (row-major linear index) takes 32-bit word `i mod 4` of
    Philox4x32-10 (Salmon et al., Random123) applied to counter
    `(lo(n), hi(n), 0, 0)` with `n = offset + i / 4` and key
    `(lo(seed), hi(seed))`. The word `w` becomes `(w >> (32 - p)) * 2^-p`
    with `p` = 24 (f32), 11 (f16), 8 (bf16), 32 (f64): exact in the result
    type and strictly below 1. An op draws `ceil(numel / 4)` counters, so
    ops whose offsets are that far apart use disjoint streams.
  }];
  let arguments = (ins Trace_SeedTensor:$seed,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset);
  let results = (outs Trace_FloatTensor:$result);
  let assemblyFormat = "$seed `,` `offset` `=` $offset attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// Number of Philox counters this op consumes: ceil(numel / 4).
    int64_t getNumCounters();
  }];
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Trace_BroadcastInDimOp : Trace_ComputeOp<"broadcast_in_dim", [
    Trace_ViewTrait, SameOperandsAndResultElementType, Trace_Differentiable],
    ["getFlops"]> {
  let summary = "Broadcast to a larger shape, mapping operand dims to result dims";
  let description = [{
    ```mlir
    %b = trace.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
    ```
    Operand dim `k` becomes result dim `dims[k]`; `dims` is strictly
    increasing (reorder with `trace.transpose`); each operand dim is 1 or
    equal to its result dim. Result dims not in `dims` are new.
  }];
  let arguments = (ins Trace_Tensor:$operand,
                       DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $broadcast_dimensions attr-dict `:`
      type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Trace_ReshapeOp : Trace_ComputeOp<"reshape", [Trace_ViewTrait,
    SameOperandsAndResultElementType, Trace_Differentiable],
    ["getFlops", "getBytesRead", "getBytesWritten"]> {
  let summary = "Reshape (row-major) to a shape with the same element count";
  let arguments = (ins Trace_Tensor:$operand);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Trace_TransposeOp : Trace_ComputeOp<"transpose", [Trace_ViewTrait,
    Trace_Differentiable, Trace_InferShapes], ["getFlops"]> {
  let summary = "Permute dimensions: result dim i is operand dim perm[i]";
  let arguments = (ins Trace_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `perm` `=` $permutation attr-dict `:`
      type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Trace_SliceOp : Trace_ComputeOp<"slice", [Trace_ViewTrait,
    Trace_Differentiable, Trace_InferShapes], ["getFlops", "getBytesRead"]> {
  let summary = "Strided static slice";
  let description = [{
    ```mlir
    %s = trace.slice %x [0:4, 2:8:2] : tensor<8x8xf32> -> tensor<4x3xf32>
    ```
    One `start:limit[:stride]` per dim, `0 <= start <= limit <= size`,
    `stride >= 1`; the result dim is `ceil((limit - start) / stride)`.
  }];
  let arguments = (ins Trace_Tensor:$operand, DenseI64ArrayAttr:$start_indices,
                       DenseI64ArrayAttr:$limit_indices,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = [{
    $operand custom<SliceRanges>($start_indices, $limit_indices, $strides)
      attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Trace_ConcatenateOp : Trace_ComputeOp<"concatenate", [
    SameOperandsAndResultElementType, Trace_Differentiable, Trace_InferShapes],
    ["getFlops"]> {
  let summary = "Concatenate tensors along one dimension";
  let arguments = (ins Variadic<Trace_Tensor>:$inputs, I64Attr:$dimension);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dimension attr-dict `:` `(` type($inputs) `)` `->` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and matmul
//===----------------------------------------------------------------------===//

class Trace_ReduceOp<string mnemonic> : Trace_ComputeOp<mnemonic, [
    Trace_ReductionTrait, SameOperandsAndResultElementType,
    Trace_Differentiable, Trace_InferShapes], ["getFlops"]> {
  let arguments = (ins Trace_NumericTensor:$operand,
                       DenseI64ArrayAttr:$dimensions, UnitAttr:$keepdim);
  let results = (outs Trace_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `dims` `=` $dimensions (`keepdim` $keepdim^)? attr-dict `:`
      type($operand) `->` type($result)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Number of input elements folded into each output element.
    int64_t getReductionSize();
  }];
}

def Trace_ReduceSumOp : Trace_ReduceOp<"reduce_sum"> {
  let summary = "Sum over a set of dims (kept as size 1 with `keepdim`)";
  let description = [{
    ```mlir
    %s = trace.reduce_sum %x dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
    %k = trace.reduce_sum %x dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
    ```
    Dims are unique and in range, in any order.
  }];
}

def Trace_ReduceMaxOp : Trace_ReduceOp<"reduce_max"> {
  let summary = "Maximum over a set of dims (kept as size 1 with `keepdim`)";
}

def Trace_MatmulOp : Trace_ComputeOp<"matmul", [SameOperandsElementType,
    SameOperandsAndResultElementType, Trace_Differentiable, Trace_InferShapes],
    ["getFlops"]> {
  let summary = "Batched matrix product: [..., M, K] x [..., K, N] -> [..., M, N]";
  let description = [{
    Both operands have the same rank (at least 2) and the same leading batch
    dims; broadcasting a weight over a batch is an explicit
    `trace.broadcast_in_dim` (which lowering folds away).
  }];
  let arguments = (ins Trace_NumericTensor:$lhs, Trace_NumericTensor:$rhs);
  let results = (outs Trace_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Trace_ConvolutionOp : Trace_ComputeOp<"convolution", [
    SameOperandsElementType, SameOperandsAndResultElementType,
    Trace_Differentiable, Trace_InferShapes], ["getFlops"]> {
  let summary = "N-d grouped convolution (cross-correlation), XLA's general form";
  let description = [{
    ```mlir
    %y = trace.convolution %x, %w strides = [2, 2] padding = [1, 1, 1, 1]
           lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 1
         : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x16x16xf32>
    ```
    PyTorch's layouts: the input is `[N, C, spatial...]`, the kernel
    `[O, C / groups, kernel...]`, the result `[N, O, out...]`, with at least
    one spatial dim. Per spatial dim `d`, the input is dilated by
    `lhs_dilation[d]` (that many - 1 zeros between elements), padded with
    `padding[2d]` zeros before and `padding[2d + 1]` after (a negative pad
    crops), and the kernel, dilated by `rhs_dilation[d]`, slides over it
    in steps of `strides[d]`:

    `y[n, g*O/G + o, i] = sum_{c, k} x'[n, g*C/G + c, i*s + k*r] * w[g*O/G + o, c, k]`

    so `out = floor((in' - ((kernel - 1) * r + 1)) / s) + 1`, with `in'` the
    dilated and padded size. Bias is a separate `trace.add`.

    `lhs_dilation` is what makes the op closed under differentiation: the
    gradient of the input is a convolution of the cotangent dilated by the
    strides with the regrouped, reversed kernel (a transposed convolution),
    and the kernel's gradient is a convolution of the input with the
    cotangent (a correlation). `torch.nn.ConvTranspose2d` imports to it too.
  }];
  let arguments = (ins Trace_FloatTensor:$lhs, Trace_FloatTensor:$rhs,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$lhs_dilation,
                       DenseI64ArrayAttr:$rhs_dilation, I64Attr:$groups);
  let results = (outs Trace_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `strides` `=` $strides `padding` `=` $padding
      `lhs_dilation` `=` $lhs_dilation `rhs_dilation` `=` $rhs_dilation
      `groups` `=` $groups attr-dict `:` type($lhs) `,` type($rhs) `->`
      type($result)
  }];
  let extraClassDeclaration = [{
    /// The number of spatial dims (the rank less the batch and channels).
    int64_t getNumSpatialDims() { return getType().getRank() - 2; }
    /// The kernel that undoes `kernel`'s channel mapping: [G*A, B, k...]
    /// regrouped into [G*B, A, k...] (`out[g*B + b, a] = w[g*A + a, b]`)
    /// and its window reversed. The input gradient's kernel, and that of a
    /// transposed convolution (torch's ConvTranspose) as a convolution.
    static ::mlir::Value buildTransposedKernel(::mlir::OpBuilder &builder,
        ::mlir::Location loc, ::mlir::Value kernel, int64_t groups);
  }];
}

def Trace_ReverseOp : Trace_ComputeOp<"reverse", [
    SameOperandsAndResultType, InferTypeOpInterface, Trace_Differentiable],
    ["getFlops"]> {
  let summary = "Reverse the order of elements along a set of dims (torch.flip)";
  let description = [{
    ```mlir
    %r = trace.reverse %x dims = [2, 3] : tensor<4x3x5x5xf32>
    ```
    Dims are unique and in range.
  }];
  let arguments = (ins Trace_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = "$operand `dims` `=` $dimensions attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

def Trace_GatherOp : Trace_ComputeOp<"gather", [Trace_Differentiable,
    Trace_InferShapes], ["getFlops", "getBytesRead"]> {
  let summary = "Pick elements along one dim by index (torch.gather)";
  let description = [{
    ```mlir
    %r = trace.gather %x[%idx] dim = 0
         : tensor<1000x64xf32>, tensor<32x64xi64> -> tensor<32x64xf32>
    ```
    `result[i] = operand[i with i[dim] replaced by indices[i]]`: the result
    has the indices' shape. The indices have the operand's rank and, in
    every dim but `dim`, at most the operand's size. `index_select` and an
    embedding are a gather of broadcast indices.

    An index outside `[0, size)` is clamped into it, as XLA's gather does
    (torch raises; a compiled step cannot).
  }];
  let arguments = (ins Trace_Tensor:$operand, Trace_IndexTensor:$indices,
                       I64Attr:$dimension);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `dim` `=` $dimension attr-dict `:`
      type($operand) `,` type($indices) `->` type($result)
  }];
}

def Trace_ScatterAddOp : Trace_ComputeOp<"scatter_add", [Trace_Differentiable,
    Trace_InferShapes, AllShapesMatch<["indices", "updates"]>]> {
  let summary = "Add elements into a tensor along one dim by index "
                "(torch.scatter_add)";
  let description = [{
    ```mlir
    %r = trace.scatter_add %updates into %base[%idx] dim = 0
         : tensor<32x64xf32>, tensor<32x64xi64> -> tensor<1000x64xf32>
    ```
    `result = operand`, then for every position `i` of the indices,
    `result[i with i[dim] replaced by indices[i]] += updates[i]`, repeated
    indices summing. The indices and updates have one shape, of the
    operand's rank, at most the operand's size in every dim but `dim`. The
    gradient of `trace.gather`.

    An update whose index lies outside `[0, size)` is dropped, as XLA's
    scatter does. The order in which repeated indices add is unspecified
    (the CPU adds in index order).
  }];
  let arguments = (ins Trace_NumericTensor:$operand,
                       Trace_IndexTensor:$indices,
                       Trace_NumericTensor:$updates, I64Attr:$dimension);
  let results = (outs Trace_NumericTensor:$result);
  let assemblyFormat = [{
    $updates `into` $operand `[` $indices `]` `dim` `=` $dimension attr-dict
      `:` type($updates) `,` type($indices) `->` type($operand)
  }];
}

def Trace_StopGradientOp : Trace_ComputeOp<"stop_gradient", [
    SameOperandsAndResultType, InferTypeOpInterface,
    Trace_NonDifferentiableTrait], ["getFlops", "getBytesRead",
    "getBytesWritten"]> {
  let summary = "The operand's value, through which no gradient flows "
                "(torch's detach)";
  let description = [{
    ```mlir
    %d = trace.stop_gradient %x : tensor<4x8xf32>
    ```
    Autodiff gives the operand no cotangent from this use. Lowering replaces
    it by its operand; nothing folds it before.
  }];
  let arguments = (ins Trace_Tensor:$operand);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Trace_OptimizationBarrierOp : Trace_Op<"optimization_barrier", [Pure,
    SameOperandsAndResultType, Trace_ViewTrait]> {
  let summary = "The operand's value, which common-subexpression elimination "
                "cannot see through";
  let description = [{
    ```mlir
    %b = trace.optimization_barrier %x : tensor<4x8xf32>
    ```
    `trace-schedule` reads the values a recomputation starts from through
    one, as JAX's remat does with XLA's `opt-barrier`: the recomputed ops
    then have other operands than the originals, and the CSE after
    `trace-to-linalg` cannot merge the copies again (which would undo the
    split). It is a view: it computes and allocates nothing.
    `trace-to-linalg` replaces it by its operand (the export format holds
    no trace ops); with `keep-barriers` it stays, and the CPU and GPU
    pipelines erase it after their CSE (`trace-erase-barriers`).
  }];
  let arguments = (ins Trace_Tensor:$operand);
  let results = (outs Trace_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Region ops
//===----------------------------------------------------------------------===//

class Trace_IsolatedRegionOp<string mnemonic, list<Trait> traits = []>
    : Trace_Op<mnemonic, !listconcat([IsolatedFromAbove, SingleBlock,
        RecursiveMemoryEffects], traits)> {
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  code commonDeclarations = [{
    /// The yield ending the body.
    YieldOp getYield();
  }];
}

def Trace_CheckpointOp : Trace_IsolatedRegionOp<"checkpoint"> {
  let summary = "A region recomputed in backward instead of saved";
  let description = [{
    The ops of a model block whose activations are not kept for backward:
    autodiff saves only the region's inputs (plus what `policy` allows) and
    recomputes the body just before the region's backward. This is PyTorch's
    `checkpoint_wrapper` / `torch.utils.checkpoint` and JAX's
    `jax.checkpoint` as IR.

    ```mlir
    %y = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
        ins(%x = %a : tensor<4x8xf32>, %w = %b : tensor<8x8xf32>) -> tensor<4x8xf32> {
      %m = trace.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
      %r = trace.tanh %m : tensor<4x8xf32>
      trace.yield %r : tensor<4x8xf32>
    }
    ```
    The region is isolated from above: every value it uses comes in through
    `ins`, whose block arguments have the operands' types; the results are
    the values `trace.yield` returns. Regions nest. The optional string is
    the module path the region came from.
  }];
  let arguments = (ins Variadic<Trace_Tensor>:$inputs,
                       OptionalAttr<StrAttr>:$name,
                       OptionalAttr<Trace_CheckpointPolicyAttr>:$policy);
  let results = (outs Variadic<Trace_Tensor>:$results);
  let extraClassDeclaration = commonDeclarations;
}

def Trace_FusionOp : Trace_IsolatedRegionOp<"fusion"> {
  let summary = "The ops of one generated kernel";
  let description = [{
    Formed by `trace-fuse`; has the form of `trace.checkpoint` without a
    policy. Each fusion region becomes exactly one GPU kernel.

    ```mlir
    %y = trace.fusion "fused_gelu" ins(%x = %a : tensor<4x8xf32>) -> tensor<4x8xf32> {
      %t = trace.tanh %x : tensor<4x8xf32>
      trace.yield %t : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Trace_Tensor>:$inputs,
                       OptionalAttr<StrAttr>:$name);
  let results = (outs Variadic<Trace_Tensor>:$results);
  let extraClassDeclaration = commonDeclarations;
}

def Trace_ForwardEndOp : Trace_Op<"forward_end", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Where the forward ends in a joint forward + backward function";
  let description = [{
    `trace-autodiff` puts one in each `@f_grad` it builds: the ops before it
    are `@f`'s forward, the ops after it the backward. `trace-remat` and the
    memory report split the function there, so a pass that adds, folds or
    moves ops of `@f_grad` keeps the split true as long as it does not move
    ops across the marker (constants a folder hoists to the top become
    forward ops, which the split rebuilds in the backward).

    It computes nothing. It reports a write to a resource of its own, so
    dead-code elimination keeps it; pure ops may still be moved across it
    by a pass that reorders, and `trace-schedule` leaves functions holding
    one alone. `trace-to-linalg` erases it. At most one may be in a block,
    and only in a function's body.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Trace_YieldOp : Trace_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["CheckpointOp", "FusionOp"]>]> {
  let summary = "Ends a checkpoint or fusion region with its results";
  let arguments = (ins Variadic<Trace_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
}

#endif // TRACE_DIALECT_TRACE_IR_TRACEOPS_TD
