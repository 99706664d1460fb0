//===- ChildProcessTest.cpp - runInChildProcess ---------------------------===//
//
// Each way a child can end (returns, throws nothing but writes, dies of a
// signal, exits early as a sanitizer does, writes more than a pipe holds)
// and what the parent is told. The child's crashes here are real signals.
//
//===----------------------------------------------------------------------===//

#include "trace/Support/ChildProcess.h"

#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::trace;

namespace {

TEST(ChildProcessTest, ReturnsStatusAndOutput) {
  ChildOutcome outcome = runInChildProcess([](int fd) {
    writeToFd(fd, "hello from the child");
    return 3;
  });
  ASSERT_EQ(outcome.kind, ChildOutcome::Kind::Exited);
  EXPECT_FALSE(outcome.crashed());
  EXPECT_EQ(outcome.status, 3);
  EXPECT_EQ(outcome.output, "hello from the child");
}

TEST(ChildProcessTest, SeesParentState) {
  // The child is a copy: it reads what the parent computed before forking.
  std::string computed(1000, 'x');
  ChildOutcome outcome = runInChildProcess([&](int fd) {
    writeToFd(fd, std::to_string(computed.size()));
    return 0;
  });
  ASSERT_EQ(outcome.kind, ChildOutcome::Kind::Exited);
  EXPECT_EQ(outcome.output, "1000");
}

TEST(ChildProcessTest, SignalIsACrash) {
  ChildOutcome outcome = runInChildProcess([](int fd) {
    writeToFd(fd, "before the crash");
    std::raise(SIGSEGV);
    return 0;
  });
  ASSERT_EQ(outcome.kind, ChildOutcome::Kind::Killed);
  EXPECT_TRUE(outcome.crashed());
  EXPECT_TRUE(outcome.bySignal);
  EXPECT_EQ(outcome.status, SIGSEGV);
  // What was written before the crash still comes back.
  EXPECT_EQ(outcome.output, "before the crash");
  EXPECT_EQ(outcome.describeCrash(), "signal 11, Segmentation fault");
}

TEST(ChildProcessTest, AbortIsACrash) {
  ChildOutcome outcome = runInChildProcess([](int) -> int { std::abort(); });
  ASSERT_TRUE(outcome.crashed());
  EXPECT_TRUE(outcome.bySignal);
  EXPECT_EQ(outcome.status, SIGABRT);
}

TEST(ChildProcessTest, EarlyExitIsACrash) {
  // A sanitizer's report ends the process with exit status 1 from inside
  // the body; a body returning 1 is an ordinary result.
  ChildOutcome early = runInChildProcess([](int fd) -> int {
    writeToFd(fd, "report");
    ::_exit(1);
  });
  ASSERT_EQ(early.kind, ChildOutcome::Kind::Killed);
  EXPECT_FALSE(early.bySignal);
  EXPECT_EQ(early.status, 1);
  EXPECT_EQ(early.output, "report");
  EXPECT_EQ(early.describeCrash(), "exit status 1 before it finished");

  ChildOutcome returned = runInChildProcess([](int) { return 1; });
  ASSERT_EQ(returned.kind, ChildOutcome::Kind::Exited);
  EXPECT_EQ(returned.status, 1);
  EXPECT_EQ(returned.output, "");
}

TEST(ChildProcessTest, OutputLargerThanAPipe) {
  // 1 MiB: more than a pipe buffers (64 KiB on Linux), so the parent must
  // read while the child writes.
  std::string big(1 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>('a' + i % 26);
  ChildOutcome outcome = runInChildProcess([&](int fd) {
    writeToFd(fd, big);
    return 0;
  });
  ASSERT_EQ(outcome.kind, ChildOutcome::Kind::Exited);
  EXPECT_EQ(outcome.output, big);
}

TEST(ChildProcessTest, ChildOutputStreamsAreQuiet) {
  // In the child, stdout and stderr are /dev/null: what LibTorch or a
  // sanitizer prints there never mixes with the tool's diagnostics.
  ChildOutcome outcome = runInChildProcess([](int fd) {
    struct stat devNull, out, err;
    if (::stat("/dev/null", &devNull) != 0 || ::fstat(1, &out) != 0 ||
        ::fstat(2, &err) != 0)
      return 2;
    bool quiet = out.st_rdev == devNull.st_rdev &&
                 err.st_rdev == devNull.st_rdev && S_ISCHR(out.st_mode) &&
                 S_ISCHR(err.st_mode);
    writeToFd(fd, quiet ? "quiet" : "not quiet");
    return 0;
  });
  ASSERT_EQ(outcome.kind, ChildOutcome::Kind::Exited);
  EXPECT_EQ(outcome.output, "quiet");
}

} // namespace
