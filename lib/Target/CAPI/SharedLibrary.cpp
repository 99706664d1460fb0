//===- SharedLibrary.cpp - the library's link -----------------------------===//
//
// The system's compiler driver links the objects (Objects.cpp) into a
// shared library whose version script exports the C functions and nothing
// else.
//
//===----------------------------------------------------------------------===//

#include "trace/Target/CAPI/CAPI.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::trace;

LogicalResult capi::linkSharedLibrary(const Interface &api,
                                      ArrayRef<std::string> objects,
                                      StringRef output,
                                      const LinkOptions &options,
                                      std::string &error) {
  SmallString<256> script(llvm::sys::path::parent_path(objects.front()));
  llvm::sys::path::append(script, "exports.map");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(script, ec);
    if (ec) {
      error = ("cannot write '" + script + "': " + ec.message()).str();
      return failure();
    }
    os << "{\n  global:\n";
    for (const std::string &name : api.exportedNames())
      os << "    " << name << ";\n";
    os << "  local: *;\n};\n";
    os.close();
    if (os.has_error()) {
      error = ("cannot write '" + script + "': " + os.error().message()).str();
      os.clear_error();
      return failure();
    }
  }
  std::vector<std::string> args = {options.compilerDriver, "-shared", "-fPIC"};
  llvm::append_range(args, objects);
  llvm::append_range(
      args, std::vector<std::string>{"-o", output.str(),
                                     ("-Wl,--version-script=" + script).str(),
                                     "-Wl,--no-undefined", "-Wl,--as-needed"});
  llvm::append_range(args, options.libraries);
  SmallVector<StringRef> argv(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, options.logPath,
                                          options.logPath};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(options.compilerDriver, argv,
                                     std::nullopt, redirects, 0, 0, &message);
  if (rc == 0)
    return success();
  error = "'" + llvm::join(args, " ") + "' failed";
  if (!message.empty())
    error += ": " + message;
  if (auto log = llvm::MemoryBuffer::getFile(options.logPath))
    error += "\n" + (*log)->getBuffer().rtrim().str();
  return failure();
}
