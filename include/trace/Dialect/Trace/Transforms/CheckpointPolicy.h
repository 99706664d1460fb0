//===- CheckpointPolicy.h - selective policies by region name ---*- C++ -*-===//
//
// `POLICY[@REGEX]` entries (see trace-checkpoint-policy in Passes.td) set on
// the trace.checkpoint regions of a module. trace-import and trace-compile
// take them as --checkpoint-policy; trace-opt as the pass.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_DIALECT_TRACE_TRANSFORMS_CHECKPOINTPOLICY_H
#define TRACE_DIALECT_TRACE_TRANSFORMS_CHECKPOINTPOLICY_H

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::trace {

/// One parsed entry: the regions it applies to (a regex over region names,
/// fully matched; empty: every region) and the policy they get (null: save
/// nothing).
struct CheckpointPolicySpec {
  std::string text;
  std::string regions;
  CheckpointPolicyAttr policy;
};

/// Parses `POLICY[@REGEX]`. Returns failure and sets `error` on bad text, an
/// op the trace dialect does not have, or a bad regex.
FailureOr<CheckpointPolicySpec>
parseCheckpointPolicySpec(MLIRContext *context, llvm::StringRef text,
                          std::string &error);

/// Sets the policy of every trace.checkpoint region of `module` from the
/// last of `specs` that applies to it. Emits an error at the module and
/// fails if an entry does not parse or its regex matches no region.
LogicalResult applyCheckpointPolicies(ModuleOp module,
                                      llvm::ArrayRef<std::string> specs);

} // namespace mlir::trace

#endif // TRACE_DIALECT_TRACE_TRANSFORMS_CHECKPOINTPOLICY_H
