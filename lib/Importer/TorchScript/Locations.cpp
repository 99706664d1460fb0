//===- Locations.cpp - source locations and debug info --------------------===//
//
// Every op gets the location of the node it comes from: the Python source
// the node's debug info records (for a traced node, the stack it was
// recorded under), named by the module path of the call it is in. LibTorch
// reads the debug info lazily and throws on a corrupt record; the import
// then goes on without it, and Importer::run warns once at the end.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <sstream>

using namespace mlir;
using namespace mlir::trace;

namespace mlir::trace::ts {

//===----------------------------------------------------------------------===//
// Locations and errors
//===----------------------------------------------------------------------===//

c10::optional<jit::SourceRange>
Importer::recordedRange(const jit::Node *node, bool *stack) {
  // LibTorch reads a node's debug info when it is first asked for it, and
  // throws on a corrupt record: the import goes on without it, with one
  // warning at the end.
  try {
    jit::SourceRange range = node->sourceRange();
    c10::optional<jit::SourceRange> generated =
        range.findSourceRangeThatGenerated();
    if (stack)
      *stack = generated.has_value();
    return generated ? generated : range;
  } catch (const std::exception &e) {
    if (debugInfoError.empty())
      debugInfoError = StringRef(e.what()).split('\n').first.str();
    return c10::nullopt;
  }
}

Location Importer::locationOf(const c10::optional<jit::SourceRange> &range,
                               const std::string &path) {
  Location loc = UnknownLoc::get(ctx);
  if (auto flc = range ? range->file_line_col() : c10::nullopt) {
    auto [file, line, col] = *flc;
    loc = FileLineColLoc::get(ctx, file, line, col + 1);
  }
  return NameLoc::get(StringAttr::get(ctx, path.empty() ? "<model>" : path),
                      loc);
}

std::string Importer::describe(const jit::Node *node) {
  std::string s = node->kind().toQualString();
  if (const c10::FunctionSchema *schema = node->maybeSchema()) {
    std::ostringstream os;
    os << *schema;
    s += " (schema: " + os.str() + ")";
  }
  return s;
}

} // namespace mlir::trace::ts
