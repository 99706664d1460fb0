//===- Importer.h - the TorchScript importer's state ------------*- C++ -*-===//
//
// Private to lib/Importer/TorchScript: the importer class, shared by the
// entry points and the function's driver (TorchScriptImporter.cpp), the
// --input-shape specs (InputSpecs.cpp), the graph walk and node dispatch
// (GraphWalk.cpp), module calls and checkpoint regions
// (CheckpointRegions.cpp), a node's arguments (Arguments.cpp), values and
// buffer updates (Values.cpp), locations (Locations.cpp) and the aten
// operator handlers (Aten*.cpp, one file per family, each with a table of
// the names it handles).
// Built with LibTorch's flags (exceptions, RTTI); no exception leaves the
// library.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_LIB_IMPORTER_TORCHSCRIPT_IMPORTER_H
#define TRACE_LIB_IMPORTER_TORCHSCRIPT_IMPORTER_H

#include "trace/Importer/CheckpointCalls.h"
#include "trace/Importer/TensorBuilder.h"
#include "trace/Importer/TorchScript.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Regex.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/script.h>

#include <optional>
#include <string>
#include <vector>

namespace mlir::trace::ts {

namespace jit = torch::jit;


//===----------------------------------------------------------------------===//
// Values of the TorchScript graph
//===----------------------------------------------------------------------===//

/// What a TorchScript value is at import time: a tensor computed by trace
/// ops, a compile-time constant (numbers, lists of numbers, constant
/// tensors, dtypes), a list or tuple of values, or a module object.
struct TSValue {
  enum class Kind { Tensor, Const, List, Module };
  Kind kind = Kind::Const;
  Value tensor;
  c10::IValue constant;
  std::vector<TSValue> elements;
  c10::intrusive_ptr<c10::ivalue::Object> object; ///< a module
  std::string path;
  jit::Module module() const { return jit::Module(object); }

  static TSValue ofTensor(Value v) {
    TSValue t;
    t.kind = Kind::Tensor;
    t.tensor = v;
    return t;
  }
  static TSValue ofConst(c10::IValue v) {
    TSValue t;
    t.constant = std::move(v);
    return t;
  }
  static TSValue ofList(std::vector<TSValue> elems) {
    TSValue t;
    t.kind = Kind::List;
    t.elements = std::move(elems);
    return t;
  }
  static TSValue ofModule(const jit::Module &m, std::string path) {
    TSValue t;
    t.kind = Kind::Module;
    t.object = m._ivalue();
    t.path = std::move(path);
    return t;
  }
};

/// Thrown (inside the importer only) after a diagnostic was emitted, to
/// unwind out of the graph walk.
struct ImportError {};

/// A region being filled: values from enclosing blocks are passed in as
/// block arguments on first use (trace.checkpoint is isolated from above).
struct Scope {
  Block *block;
  Scope *parent;
  std::string path; ///< module path of the region (empty: the function)
  // Direct-initialized: DenseMap's default constructor is explicit, which
  // clang (not g++) rejects in the aggregate initializations below.
  llvm::DenseMap<Value, Value> captured{};
  SmallVector<Value> outerValues{}; ///< operands of the region op, in order
  /// Buffers updated in the region, in order: their last values leave it
  /// as results after the module's own.
  SmallVector<Value> updatedBuffers{};
};

/// An --input-shape dtype (f32, f64, f16, bf16, i64, i32, i1/bool) as a
/// type; null for any other name (InputSpecs.cpp).
Type parseDType(MLIRContext *ctx, StringRef dtype);

/// A list of constants as the IValue an operator unboxes: int[], float[],
/// bool[] or Tensor[]; none when an element is not a constant
/// (Arguments.cpp).
std::optional<c10::IValue> typedList(const TSValue &v);

class Importer {
public:
  Importer(MLIRContext *ctx, const TorchScriptImportOptions &options)
      : ctx(ctx), options(options), builder(ctx),
        tb(builder, [this] { return use(getSeed()); }), annotator(*this) {
    builder.setListener(&annotator);
  }

  /// Imports `root` (loaded from `path`, which locates the function).
  OwningOpRef<ModuleOp> run(jit::Module &root, StringRef path);

private:
  // Locations and errors ------------------------------------------------------
  Location locationOf(const c10::optional<jit::SourceRange> &range,
                      const std::string &path);
  /// The Python stack a traced node was recorded under (`stack` set), else
  /// its range in the archive's code; none when its debug info is corrupt.
  c10::optional<jit::SourceRange> recordedRange(const jit::Node *node,
                                                bool *stack = nullptr);
  [[noreturn]] void fail(const Twine &message) {
    InFlightDiagnostic diag = emitError(tb.getLoc()) << message;
    if (!currentPath.empty())
      diag << " [module '" << currentPath << "']";
    diag.report();
    throw ImportError();
  }
  std::string describe(const jit::Node *node);

  // Values --------------------------------------------------------------------
  Value use(Value v);
  Value capture(Scope *s, Value v);
  Value getSeed();
  TSValue &lookup(const jit::Value *v);
  Value asTensor(const TSValue &v, const jit::Value *origin);
  Value constantTensor(const at::Tensor &t);
  Type elementTypeOf(c10::ScalarType st);

  // Arguments of a node, by schema name --------------------------------------
  const jit::Value *input(const jit::Node *n, const char *name);
  bool hasInput(const jit::Node *n, const char *name);
  Value tensorArg(const jit::Node *n, const char *name);
  Value optTensorArg(const jit::Node *n, const char *name);
  Operand operandArg(const jit::Node *n, const char *name);
  /// None (absent or None) or the operand.
  std::optional<Operand> optOperandArg(const jit::Node *n, const char *name);
  c10::IValue constArg(const jit::Node *n, const char *name);
  int64_t intArg(const jit::Node *n, const char *name);
  double floatArg(const jit::Node *n, const char *name);
  bool boolArg(const jit::Node *n, const char *name);
  std::optional<int64_t> optIntArg(const jit::Node *n, const char *name);
  std::vector<int64_t> intListArg(const jit::Node *n, const char *name);
  std::optional<Type> dtypeArg(const jit::Node *n, const char *name);
  Scalar scalarOf(const c10::IValue &v);
  Value check(Value v) {
    if (!v)
      throw ImportError();
    return v;
  }

  // Graph walk ----------------------------------------------------------------
  std::vector<TSValue> importGraph(jit::Graph &graph, jit::Module self,
                                   const std::string &path,
                                   std::vector<TSValue> args);
  void importNode(jit::Node *node, const std::string &path);
  std::vector<TSValue> callMethod(jit::Node *node, const std::string &path);
  bool tryFold(jit::Node *node);
  void importAten(jit::Node *node);

  // aten operators ------------------------------------------------------------
  // One handler per operator or group of operators that share their code,
  // in a file per family (AtenElementwise.cpp, AtenNN.cpp,
  // AtenReductions.cpp, AtenShape.cpp, AtenCreation.cpp, AtenConv.cpp),
  // each with a table of the names it handles: `name` (`add`) or
  // `name.overload` (`add.Tensor`), the overload's entry preferred. A handler gets the
  // operator's name without the in-place `_` and sets the node's outputs.
  // Adding an operator is a handler and a line in its family's table.
  using AtenHandler = void (Importer::*)(jit::Node *node, StringRef name);
  struct AtenEntry {
    const char *name;
    AtenHandler handler;
  };
  /// Every family's table, merged; two handlers for one name are a
  /// programming error, reported when the first op is imported.
  static llvm::StringMap<AtenHandler> atenTable();
  static ArrayRef<AtenEntry> elementwiseAtenOps();
  static ArrayRef<AtenEntry> nnAtenOps();
  static ArrayRef<AtenEntry> shapeAtenOps();
  static ArrayRef<AtenEntry> creationAtenOps();
  static ArrayRef<AtenEntry> reductionsAtenOps();
  static ArrayRef<AtenEntry> convAtenOps();
  /// Makes `v` the node's output.
  void setResult(jit::Node *node, Value v) {
    env[node->output()] = TSValue::ofTensor(check(v));
  }
  /// The node's `self` argument, a tensor.
  Value self(jit::Node *node) { return tensorArg(node, "self"); }
  std::pair<int64_t, int64_t> dimArg(jit::Node *node, Value v);
  void atenUnary(jit::Node *node, StringRef name);
  void atenComposite(jit::Node *node, StringRef name);
  void atenCompare(jit::Node *node, StringRef name);
  void atenAdd(jit::Node *node, StringRef name);
  void atenMul(jit::Node *node, StringRef name);
  void atenPow(jit::Node *node, StringRef name);
  void atenMaskedFill(jit::Node *node, StringRef name);
  void atenWhere(jit::Node *node, StringRef name);
  void atenTril(jit::Node *node, StringRef name);
  void atenTo(jit::Node *node, StringRef name);
  void atenClamp(jit::Node *node, StringRef name);
  void atenGelu(jit::Node *node, StringRef name);
  void atenDropout(jit::Node *node, StringRef name);
  void atenSoftmax(jit::Node *node, StringRef name);
  void atenLayerNorm(jit::Node *node, StringRef name);
  void atenLinear(jit::Node *node, StringRef name);
  void atenMatmul(jit::Node *node, StringRef name);
  void atenAddmm(jit::Node *node, StringRef name);
  void atenEmbedding(jit::Node *node, StringRef name);
  void atenNllLoss(jit::Node *node, StringRef name);
  void atenHardtanh(jit::Node *node, StringRef name);
  void atenHardActivation(jit::Node *node, StringRef name);
  void atenLeakyRelu(jit::Node *node, StringRef name);
  void atenElu(jit::Node *node, StringRef name);
  void atenSoftplus(jit::Node *node, StringRef name);
  void atenView(jit::Node *node, StringRef name);
  void atenViewAs(jit::Node *node, StringRef name);
  void atenFlatten(jit::Node *node, StringRef name);
  void atenUnflatten(jit::Node *node, StringRef name);
  void atenTranspose(jit::Node *node, StringRef name);
  void atenT(jit::Node *node, StringRef name);
  void atenPermute(jit::Node *node, StringRef name);
  void atenContiguous(jit::Node *node, StringRef name);
  void atenDetach(jit::Node *node, StringRef name);
  void atenUnsqueeze(jit::Node *node, StringRef name);
  void atenSqueeze(jit::Node *node, StringRef name);
  void atenExpand(jit::Node *node, StringRef name);
  void atenSlice(jit::Node *node, StringRef name);
  void atenSelect(jit::Node *node, StringRef name);
  void atenNarrow(jit::Node *node, StringRef name);
  SmallVector<Value> tensorListArg(jit::Node *node, StringRef name);
  void atenCat(jit::Node *node, StringRef name);
  void atenStack(jit::Node *node, StringRef name);
  void atenGather(jit::Node *node, StringRef name);
  void atenSplit(jit::Node *node, StringRef name);
  void atenOnes(jit::Node *node, StringRef name);
  void atenArange(jit::Node *node, StringRef name);
  void atenSum(jit::Node *node, StringRef name);
  void atenStatistic(jit::Node *node, StringRef name);
  void atenFlip(jit::Node *node, StringRef name);
  std::vector<int64_t> spatialListArg(jit::Node *node, const char *name,
                                      int64_t spatial);
  /// A pooling's kernel_size, stride (empty: the kernel) and padding.
  struct PoolWindow {
    std::vector<int64_t> kernel, stride, padding;
  };
  PoolWindow poolWindowArgs(jit::Node *node, int64_t spatial);
  void atenConvolution(jit::Node *node, StringRef name);
  void atenBatchNorm(jit::Node *node, StringRef name);
  void atenGroupNorm(jit::Node *node, StringRef name);
  void atenInstanceNorm(jit::Node *node, StringRef name);
  void atenMaxPool(jit::Node *node, StringRef name);
  void atenAvgPool(jit::Node *node, StringRef name);
  void atenAdaptiveAvgPool(jit::Node *node, StringRef name);
  void atenUpsample(jit::Node *node, StringRef name);
  bool isCheckpointModule(const jit::Module &m, const std::string &path);

  // Buffer mutations ----------------------------------------------------------
  /// The buffer argument the node's input `name` is (or the value of its
  /// last update), else null.
  Value bufferArg(const jit::Node *node, const char *name);
  /// The buffer's value now: its last update, else the argument.
  Value currentBuffer(Value buffer) {
    Value updated = bufferUpdates.lookup(buffer);
    return updated ? updated : buffer;
  }
  /// Records `updated` as `buffer`'s new value (a result of the function,
  /// role buffer_update). Inside a checkpoint region, with a warning: the
  /// step updates it once, where PyTorch's recomputation updates it again.
  void updateBuffer(const jit::Node *node, Value buffer, Value updated);

  // torch.utils.checkpoint calls (CheckpointCalls.h) -------------------------
  /// The checkpoint calls `node` ran under, from its recorded stack.
  /// `range` and `stack`: recordedRange's.
  SmallVector<CallInstance>
  checkpointCallsOf(const jit::Node *node,
                    const c10::optional<jit::SourceRange> &range, bool stack);
  /// Gives every op the builder inserts the calls of the node being imported.
  struct Annotator final : OpBuilder::Listener {
    explicit Annotator(Importer &importer) : importer(importer) {}
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      if (!isa<CheckpointOp, YieldOp>(op))
        importer.callRegions.annotate(op, importer.currentCalls);
    }
    Importer &importer;
  };

  MLIRContext *ctx;
  const TorchScriptImportOptions &options;
  OpBuilder builder;
  TensorBuilder tb;
  std::optional<llvm::Regex> checkpointRegex;

  Block *entry = nullptr;
  SmallVector<DictionaryAttr> argAttrs;
  Scope *scope = nullptr;
  Value seed;
  llvm::DenseMap<const c10::TensorImpl *, Value> parameterArgs;
  llvm::DenseMap<Value, std::string> bufferNames; // buffer argument -> name
  llvm::MapVector<Value, Value> bufferUpdates;    // buffer argument -> value
  llvm::DenseMap<Value, Value> bufferOfUpdate;    // an update -> its buffer
  llvm::DenseSet<Value> regionBufferUpdates; // updated in a region
  struct RegionUpdate {
    Location loc;
    std::string buffer, region;
  };
  std::optional<RegionUpdate> firstRegionUpdate; // for the one warning
  llvm::DenseMap<const jit::Value *, TSValue> env;
  std::vector<std::string> callStack; // for recursion checks
  std::string currentPath;            // module of the node being imported

  Annotator annotator;
  CheckpointCallRegions callRegions;
  SmallVector<CallInstance> currentCalls; // of the node being imported
  std::vector<uint64_t> visitStack;       // a number per method call followed
  uint64_t nextVisit = 1;
  llvm::StringMap<SmallVector<CheckpointCallFrame>> callsOfStack;
  unsigned atenOps = 0, atenOpsWithoutDebugInfo = 0;
  std::string debugInfoError; // the first corrupt debug-info record's error
};

} // namespace mlir::trace::ts

#endif // TRACE_LIB_IMPORTER_TORCHSCRIPT_IMPORTER_H
