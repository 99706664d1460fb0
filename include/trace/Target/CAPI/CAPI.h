//===- CAPI.h - the C interface of a compiled training step -----*- C++ -*-===//
//
// trace-compile exports, for each function @f that trace-autodiff
// differentiated, three C functions on plain pointers: NAME_f_fwd,
// NAME_f_bwd and NAME_f_grad. Everything here is read off the IR:
//
//  1. collectCInterface, on the module before lowering (tensors): the
//     exported functions (from each @f's #trace.derivatives), their C names
//     and the shapes, element types and names of their arguments and
//     results;
//  2. addCWrappers, on the module lowered to the LLVM dialect: one exported
//     llvm.func per C function, which wraps the caller's pointers in memref
//     descriptors and calls the lowered function, which writes its results
//     into the caller's buffers (both pipelines lower results to
//     out-parameters);
//  3. printCHeader: the declarations and their documentation;
//  4. compileObjects and linkSharedLibrary: the objects (a kernel each, in
//     parallel, cached) and the shared library exporting only the C
//     functions.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_TARGET_CAPI_CAPI_H
#define TRACE_TARGET_CAPI_CAPI_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include "llvm/Support/MemoryBuffer.h"

namespace llvm {
class Module;
namespace cl {
class OptionCategory;
} // namespace cl
} // namespace llvm

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir::trace::capi {

/// Where the exported functions' pointers point.
enum class Memory { Host, CUDADevice };

/// Who owns a slot's buffer. The values @f_fwd saves for @f_bwd are the
/// library's: @f_fwd allocates each (malloc, or on the device the CUDA
/// runtime's trace_rt_cuda_alloc) and hands the caller its pointer
/// (`Saved`, a `T **` parameter), and @f_bwd takes each back and frees it
/// after its last read (`Donated`, a `T *` the caller must not use again;
/// on the device a stream-ordered free), as JAX donates buffers. Every
/// other slot is the caller's, only read (arguments) or written
/// (results).
enum class Ownership { Caller, Saved, Donated };

/// One tensor argument or result of an exported function.
struct Slot {
  std::string name;  ///< trace.name, else argN / resultN
  std::string cname; ///< its C parameter name, unique in the function
  RankedTensorType type;
  /// A value @f_fwd saves for @f_bwd (a result of the one, an argument of
  /// the other), whoever owns it.
  bool saved = false;
  /// A result that is the new value of a module buffer (trace.role =
  /// "buffer_update", batch_norm's running statistics): the caller writes
  /// it back.
  bool bufferUpdate = false;
  Ownership ownership = Ownership::Caller;
};

/// One exported C function and the function of the module it calls.
struct Function {
  std::string symbol; ///< the module's function, e.g. forward_grad
  std::string cname;  ///< the C function, e.g. gpt_forward_grad
  std::string role;   ///< what it computes, for the header
  std::vector<Slot> args, results;
};

struct Interface {
  std::string name; ///< the library's name, the prefix of every C function
  Memory memory = Memory::Host;
  std::vector<Function> functions;
  /// `void NAME_release(void *)`: frees a saved value that never reaches
  /// @f_bwd. Empty when no slot is Saved.
  std::string releaseCName;
  /// `void NAME_set_stream(void *stream)` (CUDA only): the CUstream this
  /// thread's later calls queue their work on (trace_rt_cuda_use_stream).
  std::string streamCName;

  /// The C functions, then the release and stream functions if any: what
  /// the library exports, and what compileObjects keeps the signatures of.
  std::vector<std::string> exportedNames() const {
    std::vector<std::string> names;
    for (const Function &fn : functions)
      names.push_back(fn.cname);
    for (const std::string &name : {releaseCName, streamCName})
      if (!name.empty())
        names.push_back(name);
    return names;
  }
};

/// `name` with every character a C identifier cannot hold replaced by '_'
/// (and a leading '_' before a digit or for an empty name).
std::string cIdentifier(StringRef name);

/// The C interface of `module` (on tensors, after trace-autodiff): for each
/// function with #trace.derivatives, the functions it names, exported in
/// the order fwd, bwd, grad. Fails, with an error at
/// the function, on an argument or result the C API cannot take (not a
/// statically shaped tensor of f32, f64, f16, bf16, i1, i32 or i64), and
/// at the module when no function was differentiated. With `donate`, the
/// saved values are Saved and Donated (see Ownership).
FailureOr<Interface> collectCInterface(ModuleOp module, StringRef name,
                                       Memory memory, bool donate = true);

/// Marks each Donated argument of `api`'s functions in `module` (before
/// lowering) with TraceDialect::kDonatedAttrName.
void markDonatedArguments(ModuleOp module, const Interface &api);

/// Adds the exported wrapper of every function of `api` to `module`,
/// lowered to the LLVM dialect (each wrapped function an llvm.func taking
/// expanded memref descriptors). Fails, with an error at the function, if
/// a wrapped function is missing or its lowered signature is not the one
/// its tensors give.
LogicalResult addCWrappers(ModuleOp module, const Interface &api);

/// The C header of `api`: one documented declaration per function.
/// `source` names the model in the header's first comment.
void printCHeader(raw_ostream &os, const Interface &api, StringRef source);

/// The same description as the header, for programs rather than people
/// (python/trace_mlir reads it): a JSON object with the library's name, its
/// memory ("host" or "cuda"), and per function its role, C symbol, module
/// function and, in call order, every argument and result's direction
/// ("in", "out", "saved": the library allocates it and writes its pointer,
/// "donated": the call frees it), name, shape and element type ("f32",
/// "i64", ...), and `"saved": true` on the values fwd saves for bwd.
void printJSONInterface(raw_ostream &os, const Interface &api);

/// How compileObjects builds the objects.
struct ObjectOptions {
  std::string hostCPU = "generic"; ///< "generic", "native" or a CPU name
  unsigned jobs = 0;               ///< threads; 0: one per core
  std::string cacheDir; ///< objects by content hash; empty: no cache
  /// The kernels run elsewhere (PTX in the module): the host code has no
  /// loops even though the module has no kernel functions.
  bool deviceKernels = false;
  /// Called on the whole LLVM module before the split (trace-run adds its
  /// packed entry point there, which goes with the host code).
  std::function<void(llvm::Module &)> prepare;
  /// The functions called from outside the objects: the library's C
  /// functions, trace-run's entry point. Every other function becomes
  /// internal to the objects, so LLVM's dead argument elimination drops
  /// the parameters it never reads. Empty: no signature changes.
  std::vector<std::string> entryPoints;
};

/// The command-line options of compileObjects that trace-compile and
/// trace-run share (`-j`, `--cache-dir`), in the tool's `category`, as
/// mlir-opt registers the pass manager's options. Register before
/// parsing the command line; apply after.
void registerObjectCLOptions(llvm::cl::OptionCategory &category);
void applyObjectCLOptions(unsigned &jobs, std::string &cacheDir);

/// One compiled unit: a kernel (trace-outline-kernels) or the host code.
struct ObjectFile {
  std::string name; ///< the kernel's symbol, or "host"
  std::unique_ptr<llvm::MemoryBuffer> object;
  bool cached = false; ///< read from the cache, not compiled
};

/// Translates `module` (LLVM dialect) to LLVM IR and splits it: each
/// kernel function into a module of its own, everything else into the
/// host module (symbols that were internal become hidden, so the objects
/// link). The units are optimized at -O2 (the host code, when the kernels
/// are functions of their own or on a device, without the vectorizers and
/// with the fast register allocator: it has no loops then, and both grow
/// faster than the length of its straight-line code) and compiled to
/// position-independent objects for this machine's triple and `hostCPU`,
/// in parallel. With a cache directory, a unit whose bitcode, target and
/// compiler were compiled before is read back instead. Fails with a
/// message.
LogicalResult compileObjects(ModuleOp module, const ObjectOptions &options,
                             std::vector<ObjectFile> &objects,
                             std::string &error);

/// Drops the parameters and results that no function outside `entryPoints`
/// needs, with LLVM's DeadArgumentElimination (compileObjects runs it with
/// ObjectOptions::entryPoints). The pass only changes internal functions,
/// so every defined function but the entry points becomes internal first;
/// compileObjects makes them external (hidden) again for the split.
void dropDeadArguments(llvm::Module &module,
                       ArrayRef<std::string> entryPoints);

/// What linkSharedLibrary links besides the object.
struct LinkOptions {
  std::string compilerDriver; ///< clang++, c++, ...: runs the linker
  std::vector<std::string> libraries; ///< more inputs and flags, in order
  std::string logPath; ///< the driver's output goes here
};

/// Links `objects` into the shared library `output`, exporting only the C
/// functions of `api` (a version script, exports.map, written next to the
/// first object).
/// Fails with a message that holds the command and its output.
LogicalResult linkSharedLibrary(const Interface &api,
                                ArrayRef<std::string> objects,
                                StringRef output, const LinkOptions &options,
                                std::string &error);

} // namespace mlir::trace::capi

#endif // TRACE_TARGET_CAPI_CAPI_H
