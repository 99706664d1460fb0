//===- TorchScript.h - TorchScript (.pt) to the trace dialect ---*- C++ -*-===//
//
// The interface of the LibTorch importer. It includes no LibTorch header:
// the importer library is built with exceptions and RTTI (LibTorch needs
// them) while everything else builds with MLIR's flags, and no exception
// crosses this interface.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_IMPORTER_TORCHSCRIPT_H
#define TRACE_IMPORTER_TORCHSCRIPT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace mlir::trace {

/// The shape and dtype of one forward input: `x=2x128x256xf32`. TorchScript
/// files carry no shapes, so the importer is told them.
struct InputSpec {
  std::string name; ///< forward argument name; empty: by position
  llvm::SmallVector<int64_t> shape;
  std::string dtype; ///< f32, f64, f16, bf16, i64, i32, i1 (or bool)
};

/// Parses `NAME=D0xD1x...xDTYPE` (or without `NAME=`, or a rank-0
/// `NAME=DTYPE`). Returns false and sets `error` on bad text.
bool parseInputSpec(llvm::StringRef text, InputSpec &spec, std::string &error);

/// Appends the specs of an input-shapes file (one per line; blank lines and
/// `#` comments skipped) to `specs`. Returns false and sets `error` if the
/// file cannot be read.
bool readInputSpecsFile(llvm::StringRef path, std::vector<std::string> &specs,
                        std::string &error);

struct TorchScriptImportOptions {
  std::vector<InputSpec> inputs;
  /// Submodules whose path (`blocks.0`) or class name (`Block`, or the
  /// qualified `__torch__.Block`) fully matches become `trace.checkpoint`
  /// regions, as a `CheckpointWrapper` does. Empty: wrappers only.
  std::string checkpointModules;
  /// Import dropout as in eval mode (identity), as after `model.eval()`.
  bool dropoutAsIdentity = false;
  /// Turn the ops each `torch.utils.checkpoint.checkpoint` call ran into a
  /// `trace.checkpoint` region, found from the Python stacks the file
  /// records for every op.
  bool checkpointCalls = true;
  /// Emit a remark per region made from a call: its call site, what it
  /// calls, its input bytes.
  bool reportCheckpointCalls = false;
};

/// Imports `forward` of the TorchScript file at `path` as `func.func
/// @forward`: its inputs, then every parameter and buffer (named by module
/// path), then `seed` (tensor<i64>) when the model uses dropout. Errors go
/// to the context's diagnostic handler with a location; returns null then.
OwningOpRef<ModuleOp> importTorchScript(MLIRContext *context,
                                        llvm::StringRef path,
                                        const TorchScriptImportOptions &options);

} // namespace mlir::trace

#endif // TRACE_IMPORTER_TORCHSCRIPT_H
