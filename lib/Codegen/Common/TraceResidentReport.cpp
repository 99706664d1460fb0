//===- TraceResidentReport.cpp - the planned step's resident bytes --------===//
//
// Prints ResidentSimulation's figures for each public function, as remarks
// or JSON. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ResidentSimulation.h"

#include "trace/Codegen/Common/Passes.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#define DEBUG_TYPE "trace-resident-report"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACERESIDENTREPORTPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

std::string locationString(Operation *op) {
  if (!op)
    return "entry";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " at ";
  op->getLoc().print(os);
  return text;
}

struct TraceResidentReportPass final
    : trace::impl::TraceResidentReportPassBase<TraceResidentReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // trace.inputs has done its work here: it must not reach LLVM.
    llvm::scope_exit strip([&] {
      for (auto function : module.getOps<func::FuncOp>())
        function->removeAttr(trace::TraceDialect::kInputsAttrName);
    });
    if (!print && output.empty())
      return;
    trace::ResidentSimulator simulator;
    llvm::json::Array functions;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || !function.isPublic())
        continue;
      const trace::ResidentProfile &p =
          simulator.simulate(function, /*topLevel=*/true);
      if (print) {
        InFlightDiagnostic remark = function.emitRemark();
        remark << "trace-resident-report: peak " << p.peak
               << " bytes above the entry, holds " << p.held
               << " at the return; arena " << p.arenaBytes << " ("
               << p.arenaPeak << " resident at most, " << p.releasedBytes
               << " released), donated " << p.donatedBytes << " ("
               << p.freedDonatedBytes << " freed, "
               << p.freedDonatedBeforePeak << " before the peak); live peak "
               << p.livePeak;
        if (!p.modelled)
          remark << "; not modelled: " << p.why;
      }
      functions.push_back(
          llvm::json::Object{{"name", p.name},
                             {"modelled", p.modelled},
                             {"why", p.why},
                             {"peak_bytes", p.peak},
                             {"peak_at", locationString(p.peakAt)},
                             {"held_bytes", p.held},
                             {"out_bytes", p.outBytes},
                             {"returned_bytes", p.returnedBytes},
                             {"donated_bytes", p.donatedBytes},
                             {"freed_donated_bytes", p.freedDonatedBytes},
                             {"freed_donated_before_peak_bytes",
                              p.freedDonatedBeforePeak},
                             {"live_peak_bytes", p.livePeak},
                             {"arena_bytes", p.arenaBytes},
                             {"arena_resident_peak_bytes", p.arenaPeak},
                             {"released_bytes", p.releasedBytes}});
    }
    if (output.empty())
      return;
    std::string message;
    auto file = openOutputFile(output, &message);
    if (!file) {
      module.emitError() << "trace-resident-report: cannot write '" << output
                         << "': " << message;
      return signalPassFailure();
    }
    file->os() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{
                       {"page_bytes", trace::kResidentPage},
                       {"mapped_from_bytes", trace::kResidentMapped},
                       {"functions", std::move(functions)}}));
    if (file->os().has_error()) {
      module.emitError() << "trace-resident-report: cannot write '" << output
                         << "': " << file->os().error().message();
      file->os().clear_error();
      return signalPassFailure();
    }
    file->keep();
  }
};

} // namespace
