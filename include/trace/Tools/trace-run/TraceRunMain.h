//===- TraceRunMain.h - run a trace function on the CPU ---------*- C++ -*-===//
//
// What trace-run does, as a library: parse a module (optionally run the
// training-step pipeline), lower it with trace-cpu-pipeline, JIT-compile
// it, call one function on .npy or random inputs, and print, write or
// compare its results. tools/trace-run is its command line.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_TOOLS_TRACE_RUN_TRACERUNMAIN_H
#define TRACE_TOOLS_TRACE_RUN_TRACERUNMAIN_H

#include "trace/Conversion/TraceToLinalg/TraceToLinalg.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::trace {

struct TraceRunOptions {
  /// The module (.mlir).
  std::string inputFile;
  /// The function to run (default: the only public one, or @forward).
  std::string entry;
  /// NAME=FILE.npy inputs, and NAME=FILE.npy expected results.
  std::vector<std::string> args, expects;
  /// Draws the inputs no --arg gives from this seed.
  std::optional<uint64_t> randomSeed;
  /// Writes results to DIR/NAME.npy and inputs to DIR/inputs/NAME.npy.
  std::string outDir;
  /// Tolerances of the comparison with `expects`.
  double relTol = 1e-5, absTol = 1e-6;
  /// Runs this many more times and prints the median time.
  unsigned repeat = 0;
  /// trace-cpu-pipeline's options.
  bool blas = true, approximateMath = true, vectorizeReductions = true,
       gpuKernels = false;
  int64_t gpuMaxBlocks = 4096;
  ConvolutionLowering convolutions = ConvolutionLowering::Auto;
  /// trace-training-step's options when the training step runs first.
  std::optional<std::string> trainingStep;
  /// Prints no result summary.
  bool quiet = false;
  /// Threads that compile the objects (0: one per core), and the object
  /// cache (empty: none), as trace-compile's -j and --cache-dir.
  unsigned jobs = 0;
  std::string cacheDir;
};

/// Runs as `options` say; returns the exit status: 0, or 1 after printing
/// the error (or the worst mismatch).
int runTraceFunction(const TraceRunOptions &options);

} // namespace mlir::trace

#endif // TRACE_TOOLS_TRACE_RUN_TRACERUNMAIN_H
