//===- TraceCompileMain.h - the trace-compile driver ------------*- C++ -*-===//
//
// A model (torch.export .pt2, TorchScript .pt, or trace IR) to an ahead-of-time
// training-step library, in one process: import, the training-step pipeline
// stage by stage (each stage's IR written out), the memory report, lowering for
// the target, the C wrappers and header (trace/Target/CAPI), the host object
// and the shared library. tools/trace-compile is its command line; the work is
// here so that other front ends (bench/, a Python package) drive the same code.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_TOOLS_TRACE_COMPILE_TRACECOMPILEMAIN_H
#define TRACE_TOOLS_TRACE_COMPILE_TRACECOMPILEMAIN_H

#include "trace/Pipelines/Pipelines.h"

#include <string>
#include <vector>

namespace mlir::trace {

struct TraceCompileOptions {
  /// model.pt2 (torch.export), model.pt (TorchScript) or model.mlir (trace IR).
  std::string inputFile;
  /// Written whole or not at all: built next to it, renamed into place.
  std::string outputDir;
  /// "cpu" or "cuda".
  std::string target;
  /// The library's name, the header's and the C functions' prefix
  /// (default: the input's stem).
  std::string name;

  /// TorchScript only: NAME=D0x...xDTYPE specs, a file of them (default:
  /// the .shapes file next to the model), and the importer's options.
  std::vector<std::string> inputShapes;
  std::string inputShapesFile;
  std::string checkpointModules;
  bool dropoutAsIdentity = false;
  bool checkpointCalls = true;
  bool reportCheckpointCalls = false;
  /// `POLICY[@REGEX]` entries for the checkpoint regions (.pt or .mlir).
  std::vector<std::string> checkpointPolicies;

  /// The training-step stages and their pass options.
  TrainingStepOptions step;
  /// Options of trace-cpu-pipeline or trace-gpu-pipeline ("chip=sm_80").
  std::string pipelineOptions;
  /// cpu: the values @f_fwd saves are the library's and @f_bwd frees them
  /// (capi::Ownership); false: caller-owned buffers, as the results.
  bool donateSaved = true;

  /// "generic" (any x86-64) or "native": the CPU the host code targets.
  std::string hostCPU = "generic";
  /// Threads that compile the objects (0: one per core).
  unsigned jobs = 0;
  /// A directory of compiled objects by content hash, shared between runs
  /// and models (empty: none).
  std::string cacheDir;
  /// The compiler driver that links the library (default: LLVM 22's
  /// clang++, else c++).
  std::string compilerDriver;
  /// Print each stage and its time to stderr.
  bool verbose = false;
};

/// Compiles as `options` say; returns the exit status: 0, or 1 after the
/// error was printed (with its location where there is one) and nothing
/// was left behind.
int compileTrainingStep(const TraceCompileOptions &options);

} // namespace mlir::trace

#endif // TRACE_TOOLS_TRACE_COMPILE_TRACECOMPILEMAIN_H
