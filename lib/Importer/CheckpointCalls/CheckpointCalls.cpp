//===- CheckpointCalls.cpp - torch.utils.checkpoint calls as regions ------===//
//
// See CheckpointCalls.h. Regions are formed top-down over the imported
// function: in a block whose enclosing call regions account for the first
// `depth` calls of its ops' stacks, runs of consecutive ops under the same
// call at position `depth` are moved into a trace.checkpoint region, whose
// body is then processed at `depth + 1`. The regions the importer made from
// modules (CheckpointWrapper, --checkpoint-modules) stay where they are; a
// call encloses one when the call site is outside the module.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/CheckpointCalls.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceInterfaces.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::trace;

//===----------------------------------------------------------------------===//
// Stacks
//===----------------------------------------------------------------------===//

std::vector<StackFrame> mlir::trace::parseStack(StringRef text) {
  std::vector<StackFrame> frames;
  SmallVector<StringRef> lines;
  text.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    line = line.trim();
    StackFrame frame;
    // `file(line): function`; a file name may itself hold parentheses.
    size_t colon = line.rfind("): ");
    size_t open = colon == StringRef::npos ? StringRef::npos
                                           : line.rfind('(', colon);
    if (open == StringRef::npos ||
        line.substr(open + 1, colon - open - 1).getAsInteger(10, frame.line)) {
      frame.function = line.str();
      frame.line = 0;
    } else {
      frame.file = line.take_front(open).str();
      frame.function = line.drop_front(colon + 3).str();
    }
    frames.push_back(std::move(frame));
  }
  return frames;
}

static bool inTorchFile(const StackFrame &frame, StringRef suffix) {
  StringRef file = frame.file;
  return file.ends_with(suffix) &&
         (file.size() == suffix.size() ||
          file[file.size() - suffix.size() - 1] == '/');
}

static bool isCheckpointMachinery(const StackFrame &frame) {
  return inTorchFile(frame, "torch/utils/checkpoint.py");
}

static bool isModuleCall(const StackFrame &frame) {
  return inTorchFile(frame, "torch/nn/modules/module.py") &&
         frame.function == "_call_impl";
}

static std::string joinFrames(ArrayRef<StackFrame> frames) {
  std::string text;
  for (const StackFrame &f : frames)
    text += f.file + "(" + std::to_string(f.line) + "): " + f.function + "\n";
  return text;
}

SmallVector<CheckpointCallFrame>
mlir::trace::findCheckpointCalls(ArrayRef<StackFrame> frames) {
  SmallVector<CheckpointCallFrame> found;
  // Outermost first: walk from the end of the (innermost-first) stack.
  for (size_t i = frames.size(); i-- > 0;) {
    const StackFrame &frame = frames[i];
    if (!isCheckpointMachinery(frame) || frame.function != "checkpoint")
      continue;
    // The caller is the frame outside; the callee's frames start inside the
    // checkpoint machinery (_checkpoint_without_reentrant).
    if (i + 1 >= frames.size())
      continue;
    size_t inner = i;
    while (inner > 0 && isCheckpointMachinery(frames[inner - 1]))
      --inner;
    if (inner == 0)
      continue; // nothing ran inside: not an op of this call
    CheckpointCallFrame call;
    // PyTorch 2's checkpoint is wrapped by dynamo's disable decorator
    // (torch/_dynamo/, or torch/_compile.py's `inner` in newer releases):
    // its frames sit between the caller and checkpoint.py.
    size_t caller = i + 1;
    while (caller + 1 < frames.size() &&
           (StringRef(frames[caller].file).contains("torch/_dynamo/") ||
            inTorchFile(frames[caller], "torch/_compile.py")))
      ++caller;
    ArrayRef<StackFrame> outside = frames.drop_front(caller);
    ArrayRef<StackFrame> inside = frames.take_front(inner);
    call.site = joinFrames(outside);
    call.siteFile = outside.front().file;
    call.siteLine = outside.front().line;
    call.callee = joinFrames(inside);
    // The function called: none when it is a module (its _call_impl, or in
    // PyTorch 2 the _wrapped_call_impl that calls it, is outermost inside).
    const StackFrame &entry = inside.back();
    bool moduleEntry =
        isModuleCall(entry) ||
        (inTorchFile(entry, "torch/nn/modules/module.py") &&
         entry.function == "_wrapped_call_impl");
    if (!moduleEntry)
      call.function = entry.function;
    call.moduleCallsInside = llvm::count_if(inside, isModuleCall);
    call.fromWrapper = inTorchFile(
        outside.front(),
        "torch/distributed/algorithms/_checkpoint/checkpoint_wrapper.py");
    found.push_back(std::move(call));
    i = inner; // frames inside belong to nested calls, found next
  }
  return found;
}

//===----------------------------------------------------------------------===//
// What the importer saw
//===----------------------------------------------------------------------===//

void CheckpointCallRegions::noteMethodCall(uint64_t visit, std::string path,
                                           std::string className) {
  visits[visit] = Visit{std::move(path), std::move(className)};
}

unsigned CheckpointCallRegions::internCall(const CheckpointCallFrame &frame) {
  auto [it, inserted] =
      callIndex.try_emplace(frame.site + "\x1f" + frame.callee, calls.size());
  if (inserted) {
    calls.push_back(frame);
    auto site = siteIndex.try_emplace(frame.site, siteIndex.size()).first;
    siteOfCall.push_back(site->second);
  }
  return it->second;
}

void CheckpointCallRegions::annotate(Operation *op,
                                     SmallVector<CallInstance> chain) {
  // Empty chains too: a module region is inside a call only if every op in
  // it is.
  annotations[op] = std::move(chain);
}

void CheckpointCallRegions::noteModuleRegion(Operation *region,
                                             unsigned bodyDepth) {
  moduleRegions[region] = bodyDepth;
}

std::string CheckpointCallRegions::sitePath(const CallInstance &c) const {
  auto it = visits.find(c.siteVisit);
  return it == visits.end() ? "" : it->second.path;
}

std::string CheckpointCallRegions::enteredPath(const CallInstance &c) const {
  auto it = visits.find(c.entered);
  return it == visits.end() ? "" : it->second.path;
}

//===----------------------------------------------------------------------===//
// Forming regions
//===----------------------------------------------------------------------===//

/// The call an op of a block belongs to at the block's depth.
struct CheckpointCallRegions::Key {
  CallInstance instance; ///< of the op (or of the first op inside a region)
  bool moduleForm;
};

/// The container element (`blocks.0`) of the module `entered` calls below
/// the call site `site`: its path up to the first numeric component after
/// the site's own path; empty when there is none.
static std::string containerOf(StringRef site, StringRef entered) {
  if (entered.empty())
    return "";
  StringRef rel = entered;
  std::string prefix;
  if (!site.empty() && entered.starts_with(site) &&
      entered.size() > site.size() && entered[site.size()] == '.') {
    rel = entered.drop_front(site.size() + 1);
    prefix = site.str() + ".";
  }
  SmallVector<StringRef> parts;
  rel.split(parts, '.');
  for (size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].empty() && llvm::all_of(parts[k], llvm::isDigit))
      return prefix + llvm::join(ArrayRef<StringRef>(parts).take_front(k + 1), ".");
  }
  return "";
}

std::optional<CheckpointCallRegions::Key>
CheckpointCallRegions::keyOf(Operation *op, unsigned depth) {
  auto keyFor = [&](const CallInstance &c) {
    return Key{c, calls[c.call].function.empty()};
  };
  auto it = annotations.find(op);
  if (it != annotations.end()) {
    if (it->second.size() <= depth)
      return std::nullopt;
    return keyFor(it->second[depth]);
  }
  auto region = moduleRegions.find(op);
  if (region == moduleRegions.end())
    return std::nullopt;
  // A module's region belongs to the call that all its ops ran under, if
  // that call's site is outside the module.
  std::optional<CallInstance> common;
  bool all = true;
  op->walk([&](Operation *inner) {
    if (inner == op || !all)
      return;
    auto found = annotations.find(inner);
    if (found == annotations.end())
      return;
    if (found->second.size() <= depth) {
      all = false;
      return;
    }
    const CallInstance &c = found->second[depth];
    if (!common)
      common = c;
    else if (!sameCall(*common, c))
      all = false;
  });
  if (!all || !common || common->siteDepth >= region->second)
    return std::nullopt;
  return keyFor(*common);
}

bool CheckpointCallRegions::sameCall(const CallInstance &a,
                                     const CallInstance &b) const {
  // One site in one method call; a module call is also one entry into it.
  bool moduleForm = calls[a.call].function.empty();
  return siteOfCall[a.call] == siteOfCall[b.call] &&
         a.siteVisit == b.siteVisit &&
         moduleForm == calls[b.call].function.empty() &&
         (!moduleForm || a.entered == b.entered);
}

Operation *CheckpointCallRegions::outline(ArrayRef<Operation *> ops,
                                          const Key &key, StringRef container) {
  const CheckpointCallFrame &call = calls[key.instance.call];
  MLIRContext *ctx = ops.front()->getContext();

  // Named after what it calls: the module, else the call site.
  std::string name;
  if (key.moduleForm && !enteredPath(key.instance).empty()) {
    name = enteredPath(key.instance);
  } else {
    name = call.siteFile + ":" + std::to_string(call.siteLine);
    std::string where = container.empty() ? sitePath(key.instance) : container.str();
    if (!where.empty())
      name += "[" + where + "]";
  }
  unsigned &uses = namesUsed[name];
  if (uses++ > 0)
    name += "#" + std::to_string(uses);
  Location loc = NameLoc::get(
      StringAttr::get(ctx, name),
      FileLineColLoc::get(ctx, call.siteFile, call.siteLine, 0));

  llvm::SmallPtrSet<Operation *, 16> inRange(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  SmallVector<Value> results;
  for (Operation *op : ops) {
    // Every region op of the dialect is isolated from above, so a range's
    // inputs are its ops' operands.
    assert((op->getNumRegions() == 0 ||
            op->hasTrait<OpTrait::IsIsolatedFromAbove>()) &&
           "a region op that uses values from above");
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || !inRange.contains(def))
        inputs.insert(operand);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inRange.contains(user);
          }))
        results.push_back(result);
  }

  OpBuilder builder(ops.front());
  SmallVector<Type> types;
  for (Value v : results)
    types.push_back(v.getType());
  auto region =
      CheckpointOp::create(builder, loc, types, inputs.getArrayRef(),
                           builder.getStringAttr(name), CheckpointPolicyAttr());
  // A module's region reads as the module's value (%blocks.0), as a
  // wrapper's does; a call site makes no readable SSA name.
  if (key.moduleForm)
    region->setAttr(TraceDialect::kNameAttrName, builder.getStringAttr(name));
  Block *body = new Block();
  region.getBody().push_back(body);
  for (Value v : inputs)
    body->addArgument(v.getType(), v.getLoc());
  for (Operation *op : ops)
    op->moveBefore(body, body->end());
  for (auto [k, arg] : llvm::enumerate(body->getArguments()))
    Value(inputs[k]).replaceUsesWithIf(arg, [&](OpOperand &use) {
      return region->isProperAncestor(use.getOwner());
    });
  builder.setInsertionPointToEnd(body);
  YieldOp::create(builder, loc, results);
  for (auto [inner, outer] : llvm::zip(results, region.getResults()))
    inner.replaceUsesWithIf(outer, [&](OpOperand &use) {
      return !region->isAncestor(use.getOwner());
    });

  if (report) {
    int64_t bytes = 0;
    for (Value v : inputs)
      bytes += getTensorBytes(v.getType());
    InFlightDiagnostic remark = emitRemark(loc);
    remark << "checkpoint call '" << name << "': call site " << call.siteFile
           << ":" << call.siteLine << ", calls ";
    if (key.moduleForm) {
      auto v = visits.find(key.instance.entered);
      remark << "module '" << enteredPath(key.instance) << "'";
      if (v != visits.end() && !v->second.className.empty())
        remark << " (" << v->second.className << ")";
    } else {
      remark << "function '" << call.function << "'";
    }
    remark << "; " << inputs.size() << (inputs.size() == 1 ? " input, " : " inputs, ")
           << bytes << " bytes in";
    if (!container.empty())
      remark << "; told apart from the other calls at that line by module '"
             << container << "'";
  }
  return region;
}

void CheckpointCallRegions::formIn(Block &block, unsigned depth) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  SmallVector<std::optional<Key>> keys;
  for (Operation *op : ops)
    keys.push_back(keyOf(op, depth));

  auto descend = [&](Operation *op) {
    if (moduleRegions.count(op))
      formIn(op->getRegion(0).front(), depth);
  };
  for (size_t i = 0; i < ops.size();) {
    if (!keys[i]) {
      descend(ops[i]);
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < ops.size() && keys[end] &&
           sameCall(keys[i]->instance, keys[end]->instance))
      ++end;

    // Back-to-back calls of a function from one line: a new call starts
    // where the container element of the modules called inside changes,
    // less the ops the first call ran before its first such module (when
    // they repeat just before the change).
    SmallVector<std::pair<size_t, std::string>> starts; // (index, container)
    starts.push_back({i, ""});
    if (!keys[i]->moduleForm) {
      std::string site = sitePath(keys[i]->instance);
      std::vector<std::string> container;
      for (size_t k = i; k < end; ++k)
        container.push_back(containerOf(site, enteredPath(keys[k]->instance)));
      std::string current;
      size_t prefix = 0;
      for (size_t k = i; k < end; ++k) {
        const std::string &c = container[k - i];
        if (c.empty() || c == current)
          continue;
        if (current.empty()) {
          current = c;
          starts.back().second = c;
          prefix = k - i;
          continue;
        }
        size_t at = k;
        if (k - prefix > starts.back().first) {
          bool repeats = true;
          for (size_t q = 0; q < prefix && repeats; ++q) {
            size_t first = i + q, here = k - prefix + q;
            repeats = keys[first]->instance.call == keys[here]->instance.call &&
                      ops[first]->getName() == ops[here]->getName() &&
                      container[here - i].empty();
          }
          if (repeats)
            at = k - prefix;
        }
        starts.push_back({at, c});
        current = c;
      }
    }
    bool split = starts.size() > 1;
    for (size_t s = 0; s < starts.size(); ++s) {
      size_t from = starts[s].first;
      size_t to = s + 1 < starts.size() ? starts[s + 1].first : end;
      ArrayRef<Operation *> group = ArrayRef<Operation *>(ops).slice(from, to - from);
      Operation *region = outline(group, *keys[from],
                                  split ? StringRef(starts[s].second) : "");
      if (!split && !keys[from]->moduleForm) {
        // The same code, with the same stack, N times in a row: what N
        // back-to-back calls from the line would look like.
        SmallVector<std::pair<StringRef, unsigned>> signature;
        for (size_t k = from; k < to; ++k)
          signature.push_back({ops[k]->getName().getStringRef(),
                               keys[k]->instance.call});
        size_t n = signature.size();
        for (size_t period = 1; period <= n / 2; ++period) {
          if (n % period)
            continue;
          bool repeats = true;
          for (size_t k = period; k < n && repeats; ++k)
            repeats = signature[k] == signature[k - period];
          if (!repeats)
            continue;
          const CheckpointCallFrame &call = calls[keys[from]->instance.call];
          emitRemark(region->getLoc())
              << "checkpoint call at " << call.siteFile << ":" << call.siteLine
              << " may be " << n / period
              << " back-to-back calls: its ops repeat " << n / period
              << " times with the same stack, and the file records nothing "
                 "that tells the calls apart (no module of a container is "
                 "called inside); imported as one region '"
              << cast<CheckpointOp>(region).getName().value_or("") << "'";
          break;
        }
      }
      formIn(region->getRegion(0).front(), depth + 1);
    }
    i = end;
  }
}

void CheckpointCallRegions::form(func::FuncOp func, bool reportRegions) {
  report = reportRegions;
  if (func.getBody().empty())
    return;
  formIn(func.getBody().front(), 0);
}
