//===- ChildProcess.h - run a function in a forked copy ---------*- C++ -*-===//
//
// Upstream code the tools call on untrusted input has crashes we cannot fix
// in place: LibTorch 1.13's loader (a corrupted class, code nested past its
// recursive-descent parser's stack) and MLIR 22's custom op parsers
// (linalg.transpose stores a null attribute for a malformed permutation).
// The tools run such a step first in a forked copy of themselves, where a
// crash becomes a diagnostic instead of taking the tool down. Crashes in
// our own code are fixed, not contained.
//
// POSIX fork rather than llvm::sys::ExecuteAndWait: that starts another
// program, and this runs a function of this one on a copy of its state
// (libraries loaded, the input already read).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_SUPPORT_CHILDPROCESS_H
#define TRACE_SUPPORT_CHILDPROCESS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::trace {

/// How a function run by runInChildProcess ended.
struct ChildOutcome {
  enum class Kind {
    Exited,     ///< returned; `status` is its result
    Killed,     ///< died of signal `status`, or exited with `status`
                ///< before `body` returned (a sanitizer's report)
    NotStarted, ///< fork or pipe failed; `output` says why
  };
  Kind kind = Kind::NotStarted;
  /// Exited: `body`'s result. Killed: the signal, or the exit status.
  int status = 0;
  /// Killed: whether by a signal (else by an early exit).
  bool bySignal = false;
  /// What the child wrote to its pipe (all of it, up to its death).
  std::string output;

  bool crashed() const { return kind == Kind::Killed; }
  /// "signal 11, Segmentation fault", or "exit status 1 before it finished".
  std::string describeCrash() const;
};

/// Runs `body` in a forked child and waits for it. `body` gets the write end
/// of a pipe, whose bytes come back in `output`, and returns the child's
/// exit status. A child that exits without returning from `body` (a
/// sanitizer's report ends the process with its own status) counts as
/// killed. In the child, stdout and
/// stderr go to /dev/null, no core is dumped, and fatal signals take their
/// default action: this process's handlers (LLVM's prints a stack dump and
/// deletes the tool's pending output files) do not run there.
///
/// Call it before this process starts threads of its own: a child of a
/// threaded process may find a lock held by a thread it does not have.
/// (OpenBLAS, which LibTorch loads, starts idle workers at load time and
/// resets them in its pthread_atfork handlers.)
ChildOutcome runInChildProcess(llvm::function_ref<int(int outputFd)> body);

/// Writes all of `text` to `fd`, retrying on EINTR; for `body`.
void writeToFd(int fd, llvm::StringRef text);

} // namespace mlir::trace

#endif // TRACE_SUPPORT_CHILDPROCESS_H
