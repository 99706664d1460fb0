//===- ChildProcess.cpp - run a function in a forked copy -----------------===//

#include "trace/Support/ChildProcess.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir::trace;

/// Written after `body` returns, so that an exit from inside it (a
/// sanitizer's) is told apart from a return of the same status.
static const char kDoneBytes[] = "\0trace-child-done";
static const llvm::StringRef kDone(kDoneBytes, sizeof(kDoneBytes) - 1);

void mlir::trace::writeToFd(int fd, llvm::StringRef text) {
  // Unbuffered: what the child wrote is out even if it dies right after.
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/false, /*unbuffered=*/true);
  os << text;
}

static std::string readAll(int fd) {
  llvm::SmallString<4096> text;
  // A read error ends the text where it came; the wait status still says
  // how the child ended.
  llvm::consumeError(llvm::sys::fs::readNativeFileToEOF(fd, text));
  return std::string(text);
}

/// In the child: quiet, no core file, default action on fatal signals.
static void prepareChild() {
  int devNull = ::open("/dev/null", O_WRONLY);
  if (devNull >= 0) {
    ::dup2(devNull, STDOUT_FILENO);
    ::dup2(devNull, STDERR_FILENO);
    ::close(devNull);
  }
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP, SIGSYS})
    std::signal(sig, SIG_DFL);
}

static ChildOutcome notStarted(const char *what) {
  ChildOutcome outcome;
  outcome.output = std::string(what) + ": " + std::strerror(errno);
  return outcome;
}

ChildOutcome
mlir::trace::runInChildProcess(llvm::function_ref<int(int)> body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return notStarted("pipe");
  // Buffered output would be written twice if the child flushed it.
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ChildOutcome outcome = notStarted("fork");
    ::close(fds[0]);
    ::close(fds[1]);
    return outcome;
  }
  if (pid == 0) {
    ::close(fds[0]);
    prepareChild();
    int status = body(fds[1]);
    writeToFd(fds[1], kDone);
    // _exit: none of the parent's atexit handlers or static destructors.
    ::_exit(status);
  }
  ::close(fds[1]);
  ChildOutcome outcome;
  outcome.output = readAll(fds[0]);
  ::close(fds[0]);
  int waitStatus = 0;
  while (::waitpid(pid, &waitStatus, 0) < 0) {
    if (errno != EINTR)
      return notStarted("waitpid");
  }
  bool finished = llvm::StringRef(outcome.output).ends_with(kDone);
  if (finished)
    outcome.output.resize(outcome.output.size() - kDone.size());
  if (WIFEXITED(waitStatus) && finished) {
    outcome.kind = ChildOutcome::Kind::Exited;
    outcome.status = WEXITSTATUS(waitStatus);
    return outcome;
  }
  outcome.kind = ChildOutcome::Kind::Killed;
  outcome.bySignal = WIFSIGNALED(waitStatus);
  outcome.status =
      outcome.bySignal ? WTERMSIG(waitStatus) : WEXITSTATUS(waitStatus);
  return outcome;
}

std::string ChildOutcome::describeCrash() const {
  if (bySignal)
    return "signal " + std::to_string(status) + ", " + ::strsignal(status);
  return "exit status " + std::to_string(status) + " before it finished";
}
