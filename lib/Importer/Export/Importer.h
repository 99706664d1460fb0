//===- Importer.h - the torch.export importer's state -----------*- C++ -*-===//
//
// Private to lib/Importer/Export: the importer class, shared by the archive
// and graph walk (ExportImporter.cpp), a node's arguments (Arguments.cpp),
// symbolic sizes (Shapes.cpp), the checkpoint regions
// (CheckpointRegions.cpp) and the Core ATen operator handlers (Aten*.cpp,
// one file per family, each with a table of the targets it handles). Built
// with LibTorch's flags (exceptions, RTTI); no exception leaves the library.
//
// The program is LibTorch's own deserialized form,
// torch::_export::ExportedProgram (generated_serialization_types.h): nodes
// name their values, so the importer keeps a map from a value's name to the
// trace value (or, for a symbolic integer, its number) it became.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_LIB_IMPORTER_EXPORT_IMPORTER_H
#define TRACE_LIB_IMPORTER_EXPORT_IMPORTER_H

#include "trace/Importer/Export.h"
#include "trace/Importer/TensorBuilder.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Regex.h"

#include <torch/csrc/utils/generated_serialization_types.h>

#include <optional>
#include <string>
#include <vector>

namespace caffe2::serialize {
class PyTorchStreamReader;
} // namespace caffe2::serialize

namespace mlir::trace::pt2 {

namespace ex = torch::_export;

/// Thrown (inside the importer only) after a diagnostic was emitted, to
/// unwind out of the graph walk.
struct ImportError {};

/// One module call on a node's `nn_module_stack`.
struct ModuleFrame {
  std::string key;       ///< the call's key (`L__self__blocks.0`)
  std::string path;      ///< module path, `_checkpoint_wrapped_module` left out
  std::string className; ///< qualified (`fixture_models.Block`)
};

/// What the graph walk records of a node for the passes after it.
struct NodeInfo {
  std::vector<ModuleFrame> modules; ///< outermost first, the root left out
  /// `trace_mlir.checkpoint` markers (id, name), outermost first.
  std::vector<std::pair<int64_t, std::string>> calls;
  Location loc;
  bool emittedOps = false;
  /// Whether the node records its module stack at all (one that does not
  /// is in no module's way: it does not split a module's region).
  bool hasModuleStack = false;
};

class Importer {
public:
  Importer(MLIRContext *ctx, const TorchScriptImportOptions &options,
           StringRef path, caffe2::serialize::PyTorchStreamReader &archive,
           std::string modelName)
      : ctx(ctx), options(options), path(path.str()), archive(archive),
        modelName(std::move(modelName)), builder(ctx),
        tb(builder, [this] { return getSeed(); }), tagger(*this) {
    builder.setListener(&tagger);
  }

  OwningOpRef<ModuleOp> run(const ex::ExportedProgram &program);

private:
  // Errors --------------------------------------------------------------------
  /// Emits `message` at the current node's location, with its module path.
  [[noreturn]] void fail(const Twine &message);
  Value check(Value v) {
    if (!v)
      throw ImportError();
    return v;
  }

  // Signature and values ------------------------------------------------------
  Type elementTypeOf(ex::ScalarType type);
  /// The static shape of a tensor value; symbolic dims are those of the
  /// user inputs (`symbols`).
  SmallVector<int64_t> shapeOf(const std::string &name,
                               const ex::TensorMeta &meta);
  /// The number a symbolic expression stands for, once the user inputs
  /// bound its symbols.
  std::optional<int64_t> evaluate(const std::string &expr);
  /// Binds the symbols of user inputs from --input-shape; emits errors.
  LogicalResult bindSymbols(const ex::Graph &graph,
                            ArrayRef<std::string> userInputs);
  Value tensorConstant(const std::string &name, const std::string &target);
  Value getSeed();

  // Node metadata -------------------------------------------------------------
  void readMetadata(const ex::Node &node, NodeInfo &info);
  Location locationOf(const ex::Node &node, const std::string &modulePath);

  // Arguments of a node, by schema name --------------------------------------
  const ex::Argument *findArg(const ex::Node &node, StringRef name);
  const ex::Argument &arg(const ex::Node &node, StringRef name);
  [[noreturn]] void badArg(const ex::Node &node, StringRef name,
                           const ex::Argument &a, StringRef expected);
  Value valueNamed(const std::string &name);
  Value tensorArg(const ex::Node &node, StringRef name);
  /// Null when absent or None.
  Value optTensorArg(const ex::Node &node, StringRef name);
  /// A tensor or a number.
  Operand operandArg(const ex::Node &node, StringRef name);
  Scalar scalarArg(const ex::Node &node, StringRef name,
                   std::optional<Scalar> byDefault = std::nullopt);
  int64_t symInt(const ex::Node &node, StringRef name,
                 const ex::SymIntArgument &s);
  int64_t intArg(const ex::Node &node, StringRef name,
                 std::optional<int64_t> byDefault = std::nullopt);
  std::optional<int64_t> optIntArg(const ex::Node &node, StringRef name);
  double floatArg(const ex::Node &node, StringRef name,
                  std::optional<double> byDefault = std::nullopt);
  bool boolArg(const ex::Node &node, StringRef name,
               std::optional<bool> byDefault = std::nullopt);
  /// None and absent read as `byDefault` (empty when not given).
  SmallVector<int64_t> intsArg(const ex::Node &node, StringRef name,
                               std::optional<SmallVector<int64_t>> byDefault =
                                   std::nullopt);
  std::optional<Type> dtypeArg(const ex::Node &node, StringRef name);
  std::optional<std::string> stringArg(const ex::Node &node, StringRef name);

  // Outputs of a node ---------------------------------------------------------
  /// The name of output `index` when a later node or the program reads it.
  std::optional<std::string> usedOutput(const ex::Node &node, unsigned index);
  void setResult(const ex::Node &node, unsigned index, Value v);
  void setResult(const ex::Node &node, Value v) { setResult(node, 0, v); }

  // Graph walk ----------------------------------------------------------------
  void importNode(const ex::Node &node);
  /// sym_size and Python integer arithmetic on sizes: evaluated here.
  bool importSymbolic(const ex::Node &node, StringRef target);

  // Core ATen operators ---------------------------------------------------------
  // One handler per operator or group of operators sharing their code, in a
  // file per family, each with a table of the targets it handles
  // (`torch.ops.aten.add.Tensor`). A handler gets the operator's name
  // without namespace and overload (`add`) and sets the node's outputs.
  // Adding an operator is a handler and a line in its family's table.
  using Handler = void (Importer::*)(const ex::Node &node, StringRef op);
  struct Entry {
    const char *target;
    Handler handler;
  };
  static llvm::StringMap<Handler> opTable();
  static ArrayRef<Entry> elementwiseOps();
  static ArrayRef<Entry> nnOps();
  static ArrayRef<Entry> shapeOps();
  static ArrayRef<Entry> reductionOps();
  static ArrayRef<Entry> creationOps();
  static ArrayRef<Entry> convOps();

  Value self(const ex::Node &node) { return tensorArg(node, "self"); }
  void atenUnary(const ex::Node &node, StringRef op);
  void atenAdd(const ex::Node &node, StringRef op);
  void atenMul(const ex::Node &node, StringRef op);
  void atenPow(const ex::Node &node, StringRef op);
  void atenCompare(const ex::Node &node, StringRef op);
  void atenWhere(const ex::Node &node, StringRef op);
  void atenClamp(const ex::Node &node, StringRef op);
  void atenCopy(const ex::Node &node, StringRef op);
  void atenToCopy(const ex::Node &node, StringRef op);
  void atenGelu(const ex::Node &node, StringRef op);
  void atenDropout(const ex::Node &node, StringRef op);
  void atenSoftmax(const ex::Node &node, StringRef op);
  void atenLayerNorm(const ex::Node &node, StringRef op);
  void atenBatchNorm(const ex::Node &node, StringRef op);
  void atenAddmm(const ex::Node &node, StringRef op);
  void atenMatmul(const ex::Node &node, StringRef op);
  void atenEmbedding(const ex::Node &node, StringRef op);
  void atenView(const ex::Node &node, StringRef op);
  void atenPermute(const ex::Node &node, StringRef op);
  void atenTranspose(const ex::Node &node, StringRef op);
  void atenExpand(const ex::Node &node, StringRef op);
  void atenSqueeze(const ex::Node &node, StringRef op);
  void atenUnsqueeze(const ex::Node &node, StringRef op);
  void atenSplit(const ex::Node &node, StringRef op);
  void atenSlice(const ex::Node &node, StringRef op);
  void atenSelect(const ex::Node &node, StringRef op);
  void atenCat(const ex::Node &node, StringRef op);
  void atenGather(const ex::Node &node, StringRef op);
  void atenIndexSelect(const ex::Node &node, StringRef op);
  void atenSum(const ex::Node &node, StringRef op);
  void atenAmax(const ex::Node &node, StringRef op);
  void atenAny(const ex::Node &node, StringRef op);
  void atenArange(const ex::Node &node, StringRef op);
  void atenScalarTensor(const ex::Node &node, StringRef op);
  void atenFull(const ex::Node &node, StringRef op);
  void atenConvolution(const ex::Node &node, StringRef op);
  struct PoolWindow {
    SmallVector<int64_t> kernel, stride, padding, dilation;
  };
  PoolWindow poolWindowArgs(const ex::Node &node, int64_t spatial);
  void atenMaxPool(const ex::Node &node, StringRef op);
  void atenAvgPool(const ex::Node &node, StringRef op);
  void atenAdaptiveAvgPool(const ex::Node &node, StringRef op);
  void atenHardtanh(const ex::Node &node, StringRef op);
  void atenBatchNormNoStats(const ex::Node &node, StringRef op);
  void atenGroupNorm(const ex::Node &node, StringRef op);
  void atenLogical(const ex::Node &node, StringRef op);
  void atenConstantPad(const ex::Node &node, StringRef op);
  void atenScatterAdd(const ex::Node &node, StringRef op);
  void atenRemainder(const ex::Node &node, StringRef op);
  void atenAtan2(const ex::Node &node, StringRef op);
  Value floorDivide(const Operand &a, const Operand &b, Value quotient);
  void setStatistics(const ex::Node &node, Value input,
                     ArrayRef<int64_t> dims, bool keepdim, double eps);
  void atenActivation(const ex::Node &node, StringRef op);
  void atenIsSpecial(const ex::Node &node, StringRef op);
  void atenBitwise(const ex::Node &node, StringRef op);
  void atenFill(const ex::Node &node, StringRef op);
  void atenCopyFrom(const ex::Node &node, StringRef op);
  void atenEmpty(const ex::Node &node, StringRef op);
  void atenAmin(const ex::Node &node, StringRef op);
  void atenExtremeAll(const ex::Node &node, StringRef op);
  void atenVar(const ex::Node &node, StringRef op);
  void atenProd(const ex::Node &node, StringRef op);
  void atenCumsum(const ex::Node &node, StringRef op);
  void atenExtremum(const ex::Node &node, StringRef op);
  void atenSort(const ex::Node &node, StringRef op);
  void atenFlip(const ex::Node &node, StringRef op);
  void atenRepeat(const ex::Node &node, StringRef op);
  void atenDiagonal(const ex::Node &node, StringRef op);
  void atenSliceScatter(const ex::Node &node, StringRef op);
  SmallVector<Value> optionalTensorsArg(const ex::Node &node, StringRef name);
  void atenIndex(const ex::Node &node, StringRef op);
  void atenPadIndexed(const ex::Node &node, StringRef op);
  void atenUpsample(const ex::Node &node, StringRef op);
  void atenScatter(const ex::Node &node, StringRef op);
  void atenEmbeddingBag(const ex::Node &node, StringRef op);

  // Checkpoint regions and names (CheckpointRegions.cpp) -----------------------
  bool isCheckpointModule(const ModuleFrame &frame);
  /// trace.name on the op computing each value a module returns.
  void nameModuleOutputs(const ex::Graph &graph);
  /// Wraps the ops of each region into a trace.checkpoint; emits an error
  /// and fails for a region whose nodes are not contiguous, or two that
  /// overlap without nesting.
  LogicalResult formRegions(func::FuncOp func);

  /// Tags every op the builder inserts with the node being imported.
  struct Tagger final : OpBuilder::Listener {
    explicit Tagger(Importer &importer) : importer(importer) {}
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      importer.nodeOfOp[op] = importer.currentNode;
      if (importer.currentNode < importer.nodes.size())
        importer.nodes[importer.currentNode].emittedOps = true;
    }
    Importer &importer;
  };

  MLIRContext *ctx;
  const TorchScriptImportOptions &options;
  std::string path;
  caffe2::serialize::PyTorchStreamReader &archive;
  std::string modelName;
  OpBuilder builder;
  TensorBuilder tb;
  Tagger tagger;
  std::optional<llvm::Regex> checkpointRegex;

  const ex::ExportedProgram *program = nullptr;
  const ex::Graph *graph = nullptr;
  Block *entry = nullptr;
  SmallVector<DictionaryAttr> argAttrs;
  Value seed;
  llvm::StringMap<Value> values;      ///< tensor values by graph name
  llvm::StringMap<int64_t> symInts;   ///< symbolic integers, evaluated
  llvm::StringMap<int64_t> symbols;   ///< symbols of the input shapes
  /// The nodes reading each tensor value, or the program as a result
  /// (kProgramOutput) or as a buffer's new value (kBufferOutput).
  llvm::StringMap<SmallVector<unsigned, 2>> usersOf;
  static constexpr unsigned kProgramOutput = ~0u, kBufferOutput = ~1u;
  std::vector<NodeInfo> nodes;
  /// The values each node's outputs became, for the names pass.
  std::vector<SmallVector<Value>> nodeResults;
  llvm::DenseMap<Operation *, unsigned> nodeOfOp;
  unsigned currentNode = ~0u;
  /// Nodes whose innermost frame is code PyTorch generated.
  unsigned generatedNodes = 0;
  std::string currentPath; ///< module path of the node being imported
};

/// `_checkpoint_wrapped_module` segments left out of a dotted path, as the
/// TorchScript importer names the same modules and parameters.
std::string stripWrapperSegments(StringRef dotted);

} // namespace mlir::trace::pt2

#endif // TRACE_LIB_IMPORTER_EXPORT_IMPORTER_H
