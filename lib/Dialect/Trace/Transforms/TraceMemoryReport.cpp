//===- TraceMemoryReport.cpp - memory and FLOPs of a training split -------===//
//
// A static walk of @f_fwd and @f_bwd: the schedule is the op order, sizes are
// the static shapes (the memory model of LiveBytes.h, which trace-schedule
// optimizes), FLOPs come from each op's CostOpInterface.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceInterfaces.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/IR/TraceTraits.h"
#include "trace/Dialect/Trace/Transforms/Autodiff.h"
#include "trace/Dialect/Trace/Analysis/LiveBytes.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "trace-memory-report"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEMEMORYREPORTPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {


/// What one function's schedule costs.
struct Schedule {
  int64_t ops = 0;
  int64_t flops = 0;
  int64_t recomputedOps = 0;
  int64_t recomputeFlops = 0;
  int64_t argumentBytes = 0;
  int64_t peakBytes = 0;
  /// The peak without the caller's weights and inputs (every argument of
  /// @f_fwd, the trace.forward_argument ones of @f_bwd): what a call
  /// allocates above what was there, the figure a measured step peak is
  /// compared with. Saved values count in @f_fwd as results and in
  /// @f_bwd as arguments that die after their last read (donated).
  int64_t allocatedPeakBytes = 0;
  /// The results' bytes (the gradients, for @f_bwd) and the largest value
  /// that is neither an argument nor a result.
  int64_t resultBytes = 0;
  int64_t largestTransientBytes = 0;
  /// Live bytes after each op (after its results are allocated, before
  /// values it last used are freed).
  std::vector<int64_t> timeline;
  /// What is allocated at the allocated peak, largest first.
  struct Held {
    std::string name;
    int64_t bytes, begin, end;
  };
  std::vector<Held> atPeak;
};

/// A readable name for a storage root: its trace.name (the producer's or
/// the argument's), else the producer's op name.
std::string nameOf(func::FuncOp func, Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    if (auto name = func.getArgAttrOfType<StringAttr>(
            arg.getArgNumber(), TraceDialect::kNameAttrName))
      return name.str();
    return "arg" + std::to_string(arg.getArgNumber());
  }
  Operation *op = root.getDefiningOp();
  if (auto name = op->getAttrOfType<StringAttr>(TraceDialect::kNameAttrName))
    return name.str();
  return op->getName().getStringRef().str();
}

int64_t bytesOf(Value v) { return getTensorBytes(v.getType()); }

Schedule walkSchedule(func::FuncOp func, bool isBackward) {
  Schedule s;
  LiveBytes live(func.getBody().front());
  for (Operation *op : live.getOps()) {
    ++s.ops;
    int64_t flops = 0;
    if (auto cost = dyn_cast<CostOpInterface>(op))
      flops = cost.getFlops();
    s.flops += flops;
    if (op->hasAttr(kRecomputedAttrName)) {
      ++s.recomputedOps;
      s.recomputeFlops += flops;
    }
  }
  s.argumentBytes = live.getArgumentBytes();
  s.peakBytes = live.getPeak();
  // The timeline again, without the caller's own buffers.
  Block &block = func.getBody().front();
  int64_t numOps = live.getOps().size();
  std::vector<int64_t> delta(numOps + 2, 0);
  llvm::DenseSet<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.insert(live.rootOf(v));
  for (const StorageRange &range : live.getRanges()) {
    auto arg = dyn_cast<BlockArgument>(range.root);
    bool callers = arg && (!isBackward || func.getArgAttr(
                                              arg.getArgNumber(),
                                              kForwardArgumentAttrName));
    if (results.contains(range.root))
      s.resultBytes += range.bytes;
    else if (!arg)
      s.largestTransientBytes =
          std::max(s.largestTransientBytes, range.bytes);
    if (callers || range.end < 0)
      continue;
    delta[std::max<int64_t>(range.begin, 0)] += range.bytes;
    delta[std::min(range.freedAt(), numOps + 1)] -= range.bytes;
  }
  int64_t allocated = 0, peakAt = -1;
  for (int64_t i = 0; i <= numOps; ++i) {
    allocated += delta[i];
    if (allocated > s.allocatedPeakBytes) {
      s.allocatedPeakBytes = allocated;
      peakAt = i;
    }
  }
  for (const StorageRange &range : live.getRanges()) {
    auto arg = dyn_cast<BlockArgument>(range.root);
    bool callers = arg && (!isBackward || func.getArgAttr(
                                              arg.getArgNumber(),
                                              kForwardArgumentAttrName));
    if (callers || range.end < 0 || peakAt < 0 ||
        std::max<int64_t>(range.begin, 0) > peakAt ||
        range.freedAt() <= peakAt)
      continue;
    s.atPeak.push_back({nameOf(func, range.root), range.bytes, range.begin,
                        range.end});
  }
  llvm::stable_sort(s.atPeak, [](const Schedule::Held &a,
                                 const Schedule::Held &b) {
    return a.bytes > b.bytes;
  });
  s.timeline.assign(live.getTimeline().begin(), live.getTimeline().end());
  return s;
}

struct Report {
  std::string name, fwdName, bwdName;
  int64_t savedValues = 0, savedActivationBytes = 0, savedArgumentBytes = 0;
  Schedule forward, backward;
  /// trace-autodiff's own split of @f_grad (checkpoint regions recomputed,
  /// everything else the backward reads saved), rebuilt for comparison when
  /// @f_grad is present: the schedule before trace-remat and trace-schedule.
  std::unique_ptr<Report> beforeRemat;
  /// Whether that @f_grad was fused, and its forward's ops put back before
  /// the trace.forward_end (unfuse): forward ops trace-fuse moved into a
  /// backward group then count as recomputed.
  bool fromFused = false;
};

Report analyze(func::FuncOp f, func::FuncOp fwd, func::FuncOp bwd) {
  unsigned numResults = f.getNumResults();
  Report r;
  r.name = f.getSymName().str();
  r.fwdName = fwd.getSymName().str();
  r.bwdName = bwd.getSymName().str();
  auto ret = cast<func::ReturnOp>(fwd.getBody().front().getTerminator());
  for (Value v : ret.getOperands().drop_front(numResults)) {
    ++r.savedValues;
    (isa<BlockArgument>(v) ? r.savedArgumentBytes : r.savedActivationBytes) +=
        bytesOf(v);
  }
  // Arguments of f the backward reads are its own arguments, not results
  // of the forward.
  for (BlockArgument arg : bwd.getArguments())
    if (bwd.getArgAttr(arg.getArgNumber(), kForwardArgumentAttrName)) {
      ++r.savedValues;
      r.savedArgumentBytes += bytesOf(arg);
    }
  r.forward = walkSchedule(fwd, /*isBackward=*/false);
  r.backward = walkSchedule(bwd, /*isBackward=*/true);
  return r;
}

/// trace-autodiff's split of `grad` (built from `f`), rebuilt in a scratch
/// module and measured; null if it cannot be rebuilt.
/// Undoes what trace-fuse did to a fused @f_grad, so trace-autodiff's split
/// can be rebuilt from it: the fusions are flattened, and the producers of
/// f's results, which trace-fuse may have put in a group after the
/// trace.forward_end (a group holding forward and backward ops sits where
/// its last op was), go back before it in their order. Fails if one of
/// them reads a cotangent.
LogicalResult unfuse(func::FuncOp grad, unsigned numArgs,
                     unsigned numResults) {
  inlineRegions(grad);
  Block &block = grad.getBody().front();
  Operation *end = *block.getOps<ForwardEndOp>().begin();
  BackwardSliceOptions options;
  options.inclusive = true;
  options.filter = [&](Operation *op) { return end->isBeforeInBlock(op); };
  SetVector<Operation *> slice;
  for (Value result :
       block.getTerminator()->getOperands().take_front(numResults))
    if (Operation *def = result.getDefiningOp();
        def && end->isBeforeInBlock(def) &&
        failed(getBackwardSlice(def, &slice, options)))
      return failure();
  SmallVector<Operation *> moved(slice.begin(), slice.end());
  llvm::sort(moved, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  for (Operation *op : moved) {
    if (llvm::any_of(op->getOperands(), [&](Value v) {
          auto arg = dyn_cast<BlockArgument>(v);
          return arg && arg.getArgNumber() >= numArgs;
        }))
      return failure();
    op->moveBefore(end);
  }
  return success();
}

std::unique_ptr<Report> analyzeBeforeRemat(func::FuncOp f, func::FuncOp grad) {
  OpBuilder builder(f.getContext());
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(builder, f.getLoc());
  builder.setInsertionPointToEnd(scratch->getBody());
  auto fCopy = cast<func::FuncOp>(builder.clone(*f));
  auto gradCopy = cast<func::FuncOp>(builder.clone(*grad));
  bool fused = false;
  gradCopy.walk([&](FusionOp) {
    fused = true;
    return WalkResult::interrupt();
  });
  if (fused && failed(unfuse(gradCopy, f.getNumArguments(),
                             f.getNumResults())))
    return nullptr;
  SymbolTable symbols(*scratch);
  FailureOr<SplitSummary> split = splitForwardBackward(
      fCopy, gradCopy,
      [](Operation *op) { return op->hasAttr(kCheckpointedAttrName); },
      symbols, /*printSaved=*/false);
  if (failed(split))
    return nullptr;
  FailureOr<Derivatives> derivatives = lookupDerivatives(fCopy, symbols);
  if (failed(derivatives))
    return nullptr;
  auto report = std::make_unique<Report>(
      analyze(fCopy, derivatives->fwd, derivatives->bwd));
  report->fromFused = fused;
  return report;
}

std::string withCommas(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

void printTable(llvm::raw_ostream &os, ArrayRef<Report> reports,
                int64_t peakValues) {
  for (const Report &r : reports) {
    os << "trace-memory-report: @" << r.fwdName << " / @" << r.bwdName
       << "\n";
    os << llvm::format("  %-34s %18s %18s\n", "", "forward", "backward");
    auto row = [&](const char *label, int64_t f, int64_t b) {
      os << llvm::format("  %-34s %18s %18s\n", label, withCommas(f).c_str(),
                         withCommas(b).c_str());
    };
    row("ops", r.forward.ops, r.backward.ops);
    row("FLOPs", r.forward.flops, r.backward.flops);
    row("  of which recomputation", r.forward.recomputeFlops,
        r.backward.recomputeFlops);
    row("ops recomputed", r.forward.recomputedOps, r.backward.recomputedOps);
    row("argument bytes", r.forward.argumentBytes, r.backward.argumentBytes);
    row("peak live bytes (with arguments)", r.forward.peakBytes,
        r.backward.peakBytes);
    row("peak allocated (without weights)", r.forward.allocatedPeakBytes,
        r.backward.allocatedPeakBytes);
    os << "  the step: peak "
       << withCommas(std::max(r.forward.allocatedPeakBytes,
                              r.backward.allocatedPeakBytes))
       << " bytes above weights and inputs; floor "
       << withCommas(r.backward.resultBytes + r.backward.largestTransientBytes)
       << " (gradients " << withCommas(r.backward.resultBytes)
       << " + largest transient "
       << withCommas(r.backward.largestTransientBytes) << ")\n";
    os << "  saved for backward: " << r.savedValues << " values, "
       << withCommas(r.savedActivationBytes + r.savedArgumentBytes)
       << " bytes (" << withCommas(r.savedActivationBytes)
       << " of activations, " << withCommas(r.savedArgumentBytes)
       << " of arguments)\n";
    if (const Report *before = r.beforeRemat.get())
      os << "  before trace-remat (trace-autodiff's split"
         << (before->fromFused ? ", rebuilt from the fused @f_grad" : "")
         << "): "
         << withCommas(before->savedActivationBytes)
         << " bytes of activations saved, peak live bytes "
         << withCommas(before->forward.peakBytes) << " / "
         << withCommas(before->backward.peakBytes) << ", recompute FLOPs "
         << withCommas(before->backward.recomputeFlops) << "\n";
    auto held = [&](const char *label, const Schedule &sched) {
      if (peakValues <= 0 || sched.atPeak.empty())
        return;
      os << "  allocated at the " << label << "'s peak (op, from, to):\n";
      for (const Schedule::Held &h :
           ArrayRef(sched.atPeak)
               .take_front(static_cast<size_t>(peakValues)))
        os << llvm::format("    %14s  %-30s %6lld %6lld\n",
                           withCommas(h.bytes).c_str(), h.name.c_str(),
                           static_cast<long long>(h.begin),
                           static_cast<long long>(h.end));
      if (sched.atPeak.size() > static_cast<size_t>(peakValues))
        os << "    ... " << sched.atPeak.size() - peakValues << " more\n";
    };
    held("forward", r.forward);
    held("backward", r.backward);
  }
}

llvm::json::Object scheduleJson(const Schedule &s) {
  return llvm::json::Object{{"ops", s.ops},
                            {"flops", s.flops},
                            {"recomputed_ops", s.recomputedOps},
                            {"recompute_flops", s.recomputeFlops},
                            {"argument_bytes", s.argumentBytes},
                            {"peak_live_bytes", s.peakBytes},
                            {"allocated_peak_bytes", s.allocatedPeakBytes},
                            {"result_bytes", s.resultBytes},
                            {"largest_transient_bytes",
                             s.largestTransientBytes}};
}

void printJson(llvm::raw_ostream &os, ArrayRef<Report> reports) {
  llvm::json::Array functions;
  auto reportJson = [](const Report &r) {
    return llvm::json::Object{
        {"name", r.name},
        {"saved",
         llvm::json::Object{{"values", r.savedValues},
                            {"activation_bytes", r.savedActivationBytes},
                            {"argument_bytes", r.savedArgumentBytes}}},
        {"forward", scheduleJson(r.forward)},
        {"backward", scheduleJson(r.backward)}};
  };
  for (const Report &r : reports) {
    llvm::json::Object object = reportJson(r);
    if (r.beforeRemat) {
      llvm::json::Object before = reportJson(*r.beforeRemat);
      before.erase("name");
      before["from_fused_grad"] = r.beforeRemat->fromFused;
      object["before_remat"] = std::move(before);
    }
    functions.push_back(std::move(object));
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"functions", std::move(functions)}}))
     << "\n";
}

/// One chart per function: live bytes over the forward then the backward
/// schedule, the boundary marked, the peaks labelled.
void printSvg(llvm::raw_ostream &os, ArrayRef<Report> reports) {
  const int width = 900, height = 260, left = 90, right = 20, top = 40,
            bottom = 40;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
     << "\" height=\"" << height * reports.size()
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  auto timeline = [](const Report &r) {
    std::vector<int64_t> points(r.forward.timeline);
    points.insert(points.end(), r.backward.timeline.begin(),
                  r.backward.timeline.end());
    return points;
  };
  for (auto [k, r] : llvm::enumerate(reports)) {
    int y0 = k * height;
    std::vector<int64_t> points = timeline(r);
    std::vector<int64_t> before;
    if (r.beforeRemat)
      before = timeline(*r.beforeRemat);
    int64_t peak = 1;
    for (int64_t p : points)
      peak = std::max(peak, p);
    for (int64_t p : before)
      peak = std::max(peak, p);
    double plotW = width - left - right, plotH = height - top - bottom;
    // Each schedule spans the width (they have different op counts).
    auto xOf = [&](size_t i, size_t count) {
      return left + plotW * i / (std::max<size_t>(count, 2) - 1);
    };
    size_t n = points.size();
    auto x = [&](size_t i) { return xOf(i, n); };
    auto y = [&](int64_t v) {
      return y0 + top + plotH * (1.0 - double(v) / double(peak));
    };
    if (!before.empty()) {
      os << "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1\" "
            "stroke-dasharray=\"3 2\" points=\"";
      for (auto [i, v] : llvm::enumerate(before))
        os << llvm::format("%.1f,%.1f ", xOf(i, before.size()), y(v));
      os << "\"/>\n";
      os << "<text x=\"" << left + plotW << "\" y=\"" << y0 + 20
         << "\" text-anchor=\"end\" fill=\"#d62728\">dashed: before "
            "trace-remat, backward peak "
         << withCommas(r.beforeRemat->backward.peakBytes) << " B</text>\n";
    }
    os << "<text x=\"" << left << "\" y=\"" << y0 + 20
       << "\" font-weight=\"bold\">@" << r.name
       << ": live bytes over the schedule (forward | backward)</text>\n";
    os << "<line x1=\"" << left << "\" y1=\"" << y0 + top + plotH << "\" x2=\""
       << left + plotW << "\" y2=\"" << y0 + top + plotH
       << "\" stroke=\"#444\"/>\n";
    os << "<line x1=\"" << left << "\" y1=\"" << y0 + top << "\" x2=\"" << left
       << "\" y2=\"" << y0 + top + plotH << "\" stroke=\"#444\"/>\n";
    os << "<text x=\"" << left - 6 << "\" y=\"" << y0 + top + 4
       << "\" text-anchor=\"end\">" << withCommas(peak) << "</text>\n";
    os << "<text x=\"" << left - 6 << "\" y=\"" << y0 + top + plotH
       << "\" text-anchor=\"end\">0</text>\n";
    size_t boundary = r.forward.timeline.size();
    if (boundary > 0 && boundary < points.size())
      os << "<line x1=\"" << x(boundary) << "\" y1=\"" << y0 + top
         << "\" x2=\"" << x(boundary) << "\" y2=\"" << y0 + top + plotH
         << "\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n";
    os << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" "
          "points=\"";
    for (auto [i, v] : llvm::enumerate(points))
      os << llvm::format("%.1f,%.1f ", x(i), y(v));
    os << "\"/>\n";
    os << "<text x=\"" << left + plotW / 2 << "\" y=\""
       << y0 + height - 12 << "\" text-anchor=\"middle\">forward peak "
       << withCommas(r.forward.peakBytes) << " B, backward peak "
       << withCommas(r.backward.peakBytes) << " B, saved "
       << withCommas(r.savedActivationBytes) << " B of activations</text>\n";
  }
  os << "</svg>\n";
}

struct TraceMemoryReportPass final
    : trace::impl::TraceMemoryReportPassBase<TraceMemoryReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    std::vector<Report> reports;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (!f->hasAttr(TraceDialect::kDerivativesAttrName))
        continue;
      FailureOr<Derivatives> split = lookupDerivatives(f, symbols);
      if (failed(split))
        return signalPassFailure();
      reports.push_back(analyze(f, split->fwd, split->bwd));
      func::FuncOp grad = split->grad;
      if (!grad.getBody().hasOneBlock() ||
          grad.getBody().front().getOps<ForwardEndOp>().empty())
        continue;
      reports.back().beforeRemat = analyzeBeforeRemat(f, grad);
    }
    if (reports.empty()) {
      module.emitWarning() << "trace-memory-report: no training split "
                              "(@f_fwd/@f_bwd) found; run trace-autodiff first";
      return;
    }
    auto write = [&](StringRef path, auto print) -> LogicalResult {
      if (path.empty()) {
        print(llvm::errs());
        return success();
      }
      if (llvm::Error err = llvm::writeToOutput(
              path, [&](llvm::raw_ostream &os) -> llvm::Error {
                print(os);
                return llvm::Error::success();
              })) {
        module.emitError() << "trace-memory-report: cannot write '" << path
                           << "': " << llvm::toString(std::move(err));
        return failure();
      }
      return success();
    };
    if (failed(write(output, [&](llvm::raw_ostream &os) {
          json ? printJson(os, reports) : printTable(os, reports, peakValues);
        })))
      return signalPassFailure();
    if (!svg.empty() &&
        failed(write(svg, [&](llvm::raw_ostream &os) {
          printSvg(os, reports);
        })))
      return signalPassFailure();
  }
};

} // namespace
