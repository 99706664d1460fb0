//===- CheckpointCalls.h - torch.utils.checkpoint calls as regions -*- C++ -*-===//
//
// A traced TorchScript file keeps, for every node, the Python stack it was
// recorded under (`file(line): function`, innermost frame first). Every op
// run inside `torch.utils.checkpoint.checkpoint(fn, ...)` has that call's
// `checkpoint.py(N): checkpoint` frame on its stack, with the caller's frame
// just outside it: the call site. This file reads those stacks and, once the
// importer has emitted a function's ops, wraps the ops of each call into a
// `trace.checkpoint` region (nested calls nest).
//
// A stack names a call site, not a call: the calls a loop makes from one
// line have the same stacks. They are told apart by what else the file
// records:
//   * `checkpoint(module, ...)`: each call enters the module through a call
//     of its own (a prim::CallMethod), so every call is one region;
//   * a function that calls modules of a container (`lambda t: block(t)`
//     over `self.blocks`): a call ends where the container index of the
//     module called inside changes (`blocks.0` -> `blocks.1`), at the op
//     where the function's code starts again;
//   * anything else (`lambda t: t * 2` in a loop) cannot be told apart: the
//     calls become one region and a remark says so, naming the call site,
//     when the region's ops repeat as back-to-back calls would.
//
// No LibTorch here: the importer passes stacks as text and its own call
// stack as numbers.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_IMPORTER_CHECKPOINTCALLS_H
#define TRACE_IMPORTER_CHECKPOINTCALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::trace {

/// One line of a recorded Python stack: `file(line): function`.
struct StackFrame {
  std::string file;
  int64_t line = 0;
  std::string function;
};

/// The frames of a recorded stack, innermost first. Lines that do not read
/// as `file(line): function` are kept with only `function` set to the text.
std::vector<StackFrame> parseStack(llvm::StringRef text);

/// One `torch.utils.checkpoint.checkpoint` call on a stack.
struct CheckpointCallFrame {
  /// The frames from the call site outward, as text: equal for every op of
  /// one call (and for every call from that line in that context).
  std::string site;
  std::string siteFile;
  int64_t siteLine = 0;
  /// The frames inside the call, innermost first, as text.
  std::string callee;
  /// The function the call runs (`<lambda>`, `forward`, `outer`), or empty
  /// when it runs a module (`checkpoint(self.block, x)`).
  std::string function;
  /// Module calls (`Module._call_impl` frames) between the call site and
  /// the op: how many TorchScript method calls down the op is.
  unsigned moduleCallsInside = 0;
  /// The call CheckpointWrapper makes: its region is the wrapper's own.
  bool fromWrapper = false;
};

/// The checkpoint calls on a stack, outermost first.
llvm::SmallVector<CheckpointCallFrame>
findCheckpointCalls(llvm::ArrayRef<StackFrame> frames);

/// Where an op was, for one checkpoint call on its stack.
struct CallInstance {
  unsigned call = 0;      ///< index into CheckpointCallRegions' calls
  uint64_t siteVisit = 0; ///< the method call the call site runs in (0: forward)
  uint64_t entered = 0;   ///< the method call below the site holding the op (0: none)
  unsigned siteDepth = 0; ///< method-call depth of the call site (0: forward)
};

/// Collects what the importer saw while it emitted a function, then forms
/// the regions.
class CheckpointCallRegions {
public:
  /// A method call the importer followed: a unique number per call, the
  /// callee's module path and class name.
  void noteMethodCall(uint64_t visit, std::string path, std::string className);
  /// Interns a call frame; returns its index for CallInstance::call.
  unsigned internCall(const CheckpointCallFrame &frame);
  /// The checkpoint calls `op` ran under, outermost first.
  void annotate(Operation *op, llvm::SmallVector<CallInstance> chain);
  /// A region the importer made from a module (CheckpointWrapper or
  /// --checkpoint-modules) whose body is at method-call depth `bodyDepth`.
  void noteModuleRegion(Operation *region, unsigned bodyDepth);
  bool empty() const { return annotations.empty(); }

  /// Wraps the ops of each call in `func` into a trace.checkpoint region.
  /// With `report`, emits a remark per region: its call site, what it
  /// calls, its input bytes.
  void form(func::FuncOp func, bool report);

private:
  struct Visit {
    std::string path, className;
  };
  struct Key;
  std::optional<Key> keyOf(Operation *op, unsigned depth);
  void formIn(Block &block, unsigned depth);
  bool sameCall(const CallInstance &a, const CallInstance &b) const;
  Operation *outline(llvm::ArrayRef<Operation *> ops, const Key &key,
                     llvm::StringRef container);
  std::string sitePath(const CallInstance &c) const;
  std::string enteredPath(const CallInstance &c) const;

  std::vector<CheckpointCallFrame> calls;
  llvm::StringMap<unsigned> callIndex;
  llvm::StringMap<unsigned> siteIndex;
  std::vector<unsigned> siteOfCall;
  llvm::DenseMap<uint64_t, Visit> visits;
  llvm::DenseMap<Operation *, llvm::SmallVector<CallInstance>> annotations;
  llvm::DenseMap<Operation *, unsigned> moduleRegions;
  llvm::StringMap<unsigned> namesUsed;
  bool report = false;
};

} // namespace mlir::trace

#endif // TRACE_IMPORTER_CHECKPOINTCALLS_H
