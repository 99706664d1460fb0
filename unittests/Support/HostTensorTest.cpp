//===- HostTensorTest.cpp - .npy reading and writing ----------------------===//

#include "trace/Support/HostTensor.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir::trace;

namespace {

class HostTensorTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("trace-npy", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  llvm::SmallString<128> dir;
};

TEST_F(HostTensorTest, RoundTripsEveryDType) {
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::I1,
                      DType::I32, DType::I64}) {
    HostTensor t(dtype, {2, 3});
    for (int64_t i = 0; i < t.numel(); ++i)
      t.setFromDouble(i, dtype == DType::I1 ? i % 2 : i - 2.5 * (i % 2));
    std::string file = path(dtypeName(dtype).str() + ".npy");
    ASSERT_FALSE(writeNpy(file, t)) << dtypeName(dtype).str();
    llvm::Expected<HostTensor> back = readNpy(file);
    ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(back->dtype, dtype);
    EXPECT_EQ(back->shape, t.shape);
    EXPECT_EQ(back->data, t.data) << dtypeName(dtype).str();
  }
}

TEST_F(HostTensorTest, ScalarAndVectorShapes) {
  HostTensor scalar(DType::I64, {});
  scalar.setFromDouble(0, 42);
  ASSERT_FALSE(writeNpy(path("s.npy"), scalar));
  auto back = readNpy(path("s.npy"));
  ASSERT_TRUE(bool(back));
  EXPECT_TRUE(back->shape.empty());
  EXPECT_EQ(back->getAsDouble(0), 42.0);

  HostTensor vec(DType::F32, {5});
  ASSERT_FALSE(writeNpy(path("v.npy"), vec));
  back = readNpy(path("v.npy"));
  ASSERT_TRUE(bool(back));
  EXPECT_EQ(back->shape, std::vector<int64_t>{5});
}

TEST_F(HostTensorTest, BF16GoesThroughFloat32) {
  HostTensor t(DType::BF16, {3});
  t.setFromDouble(0, 1.0);
  t.setFromDouble(1, 1.00390625); // halfway between bf16 1.0 and 1.0078125
  t.setFromDouble(2, -3.5);
  EXPECT_EQ(t.getAsDouble(1), 1.0); // ties to even
  ASSERT_FALSE(writeNpy(path("b.npy"), t));
  auto asF32 = readNpy(path("b.npy"));
  ASSERT_TRUE(bool(asF32));
  EXPECT_EQ(asF32->dtype, DType::F32);
  auto asBF16 = readNpy(path("b.npy"), /*wantBF16=*/true);
  ASSERT_TRUE(bool(asBF16));
  EXPECT_EQ(asBF16->data, t.data);
}

TEST_F(HostTensorTest, HeaderIsAligned) {
  HostTensor t(DType::F32, {7, 9});
  ASSERT_FALSE(writeNpy(path("a.npy"), t));
  uint64_t size;
  ASSERT_FALSE(llvm::sys::fs::file_size(path("a.npy"), size));
  EXPECT_EQ((size - 7 * 9 * 4) % 64, 0u);
}

TEST_F(HostTensorTest, RejectsBadFiles) {
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path("junk.npy"), ec);
    os << "junk";
  }
  auto junk = readNpy(path("junk.npy"));
  ASSERT_FALSE(bool(junk));
  EXPECT_NE(llvm::toString(junk.takeError()).find("bad magic"),
            std::string::npos);

  auto missing = readNpy(path("missing.npy"));
  ASSERT_FALSE(bool(missing));
  llvm::consumeError(missing.takeError());

  HostTensor f64(DType::F64, {2});
  ASSERT_FALSE(writeNpy(path("f64.npy"), f64));
  auto notF32 = readNpy(path("f64.npy"), /*wantBF16=*/true);
  ASSERT_FALSE(bool(notF32));
  EXPECT_NE(llvm::toString(notF32.takeError()).find("float32"),
            std::string::npos);
}

TEST_F(HostTensorTest, FailedWriteLeavesNoFile) {
  HostTensor t(DType::F32, {2});
  std::string target = path("no-such-dir/x.npy");
  llvm::Error error = writeNpy(target, t);
  ASSERT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
  EXPECT_FALSE(llvm::sys::fs::exists(target));
}

} // namespace
