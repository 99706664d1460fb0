//===- TraceBase.td - trace dialect, types and traits ------*- tablegen -*-===//
//
// The dialect definition, the tensor type constraints every op uses, and the
// op-classification traits (elementwise / reduction / view / non-differentiable)
// that later passes query instead of switching over op names.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_DIALECT_TRACE_IR_TRACEBASE_TD
#define TRACE_DIALECT_TRACE_IR_TRACEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Trace_Dialect : Dialect {
  let name = "trace";
  let cppNamespace = "::mlir::trace";
  let summary = "Traced tensor programs for training-step compilation";
  let description = [{
    The `trace` dialect holds a PyTorch model's computation as a program on
    statically shaped tensors, in the spirit of Lightning Thunder's primitives:
    a small set of elementwise, shape, reduction, matmul and random ops that
    autodiff, rematerialization and fusion reason about.

    Two region ops structure the program: `trace.checkpoint` marks a block of
    the model whose activations are recomputed in backward instead of saved
    (PyTorch's `checkpoint_wrapper`), and `trace.fusion` holds the ops of one
    generated kernel.

    Values are builtin ranked tensors with static shapes; element types are
    f32, f16, bf16, f64, i1, i32 and i64. Binary ops do not broadcast
    implicitly: operands are brought to one shape with
    `trace.broadcast_in_dim`, which keeps every op's derivative local.

    An op may carry a `trace.name` string attribute (a module path such as
    `blocks.0.attn.scores`); its results are then printed under that SSA name,
    and checkpoint policies can refer to the value by it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the discardable attribute naming an op's results.
    static constexpr ::llvm::StringLiteral kNameAttrName = "trace.name";
    /// Name of the #trace.derivatives attribute on a differentiated
    /// function.
    static constexpr ::llvm::StringLiteral kDerivativesAttrName =
        "trace.derivatives";
    /// Unit attribute on a function argument whose buffer the caller gives
    /// up (the C API's saved values into @f_bwd): the function may
    /// overwrite it and frees it (trace-free-donated). trace-to-linalg
    /// keeps it.
    static constexpr ::llvm::StringLiteral kDonatedAttrName =
        "trace.donated";
    /// On a public function on buffers: how many of its leading arguments
    /// are the caller's inputs; those after them are the out-parameters
    /// buffer-results-to-out-params appended (set by
    /// trace-distinct-results; trace-resident-report reads, then removes,
    /// it).
    static constexpr ::llvm::StringLiteral kInputsAttrName = "trace.inputs";
    /// What an imported function's argument or result is (the import
    /// contract): arguments "parameter" or "buffer" (after the inputs);
    /// a result "buffer_update" is the new value of the buffer its
    /// trace.name names (batch_norm's running statistics, a counter's
    /// add_), which a training step writes back. Such results get no
    /// cotangent, and buffers get no gradient (torch's buffers do not
    /// require grad).
    static constexpr ::llvm::StringLiteral kRoleAttrName = "trace.role";
    static constexpr ::llvm::StringLiteral kBufferRole = "buffer";
    static constexpr ::llvm::StringLiteral kBufferUpdateRole =
        "buffer_update";
    /// Whether result `i` of `func` is a buffer's update (kRoleAttrName).
    static bool isBufferUpdate(::mlir::FunctionOpInterface func, unsigned i);
    /// Whether argument `i` of `func` is a buffer (kRoleAttrName).
    static bool isBuffer(::mlir::FunctionOpInterface func, unsigned i);

  private:
    /// Defined in TraceAttrs.cpp, where the attribute storage classes are.
    void registerAttributes();
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

defvar Trace_FloatTypes = [F32, F16, BF16, F64];
defvar Trace_IntTypes = [I32, I64];

def Trace_FloatElement : AnyTypeOf<Trace_FloatTypes>;
def Trace_ElementType : AnyTypeOf<!listconcat(Trace_FloatTypes, Trace_IntTypes, [I1])>;

def Trace_Tensor
    : StaticShapeTensorOf<!listconcat(Trace_FloatTypes, Trace_IntTypes, [I1])>;
def Trace_NumericTensor
    : StaticShapeTensorOf<!listconcat(Trace_FloatTypes, Trace_IntTypes)>;
def Trace_FloatTensor : StaticShapeTensorOf<Trace_FloatTypes>;
def Trace_BoolTensor : StaticShapeTensorOf<[I1]>;
def Trace_IndexTensor : StaticShapeTensorOf<Trace_IntTypes>;

// The seed of the counter-based random op: a rank-0 i64 tensor, usually a
// function argument so that every training step draws new numbers.
def Trace_SeedTensor
    : Type<And<[TensorOf<[I64]>.predicate, HasAnyRankOfPred<[0]>]>,
           "rank-0 tensor of i64 (a random seed)", "::mlir::RankedTensorType">,
      BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI64Type())">;

//===----------------------------------------------------------------------===//
// Classification traits (C++ in TraceTraits.h)
//===----------------------------------------------------------------------===//

class Trace_NativeTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::trace::OpTrait";
}

// Sums or maxes over a set of dims.
def Trace_ReductionTrait : Trace_NativeTrait<"ReductionOp">;
// Moves or repeats data without arithmetic (reshape, transpose, broadcast,
// slice): free to recompute, and fusible as an index map.
def Trace_ViewTrait : Trace_NativeTrait<"ViewOp">;
// No gradient flows through the results (comparisons, iota, random numbers).
def Trace_NonDifferentiableTrait : Trace_NativeTrait<"NonDifferentiable">;

// Result-type inference that doubles as the op's shape verifier. The
// VerifyInference trait runs the op's inferReturnTypes (which emits a precise
// message on bad attributes) before InferTypeOpInterface's own check, so a
// user sees "permutation entry 2 is out of range" and not also a generic
// "failed to infer returned types".
def Trace_VerifyInferenceTrait : Trace_NativeTrait<"VerifyInference">;
// Every op: tensors of at most 2^40 bytes, so that sizes, costs and the
// planners' sums stay within int64.
def Trace_BoundedTensorsTrait : Trace_NativeTrait<"BoundedTensors">;
def Trace_InferShapes : TraitList<[Trace_VerifyInferenceTrait, InferTypeOpAdaptor]>;

#endif // TRACE_DIALECT_TRACE_IR_TRACEBASE_TD
