//===- Export.h - torch.export archives (.pt2) to the trace dialect -*- C++ -*-===//
//
// The interface of the importer of the archives `torch.export.save` writes
// (a program in Core ATen ops, after `ExportedProgram.run_decompositions()`).
// Like TorchScript.h it includes no LibTorch header: the importer library is
// built with exceptions and RTTI, and no exception crosses this interface.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_IMPORTER_EXPORT_H
#define TRACE_IMPORTER_EXPORT_H

#include "trace/Importer/TorchScript.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::trace {

/// Imports the program of the `.pt2` archive at `path` as `func.func
/// @forward`, in the form importTorchScript gives a `.pt`: the user inputs,
/// then every parameter and buffer (named by module path, CheckpointWrapper's
/// `_checkpoint_wrapped_module.` left out), then `seed` when the program
/// uses dropout; results are the user outputs, then the buffers the program
/// writes (`trace.role = "buffer_update"`).
///
/// The options are the TorchScript importer's: `inputs` specialise the
/// symbolic dims of user inputs (they must agree with the static ones),
/// `checkpointModules` makes regions of matching modules, `checkpointCalls`
/// makes regions of the `trace_mlir.checkpoint` markers trace_mlir's export
/// writes into the nodes' custom metadata, `reportCheckpointCalls` remarks on
/// each of those. Errors go to the context's diagnostic handler with a
/// location; returns null then.
OwningOpRef<ModuleOp>
importExportedProgram(MLIRContext *context, llvm::StringRef path,
                      const TorchScriptImportOptions &options);

} // namespace mlir::trace

#endif // TRACE_IMPORTER_EXPORT_H
