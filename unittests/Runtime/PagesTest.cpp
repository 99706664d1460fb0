//===- PagesTest.cpp - the CPU runtime's page calls -----------------------===//
//
// trace_rt_populate_pages / trace_rt_populate_buffer make pages resident
// without changing a byte; trace_rt_release_pages hands back only whole
// pages inside the range and the arena (never the allocator's bytes past
// its end). Residency is read with mincore.
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CPURuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

const int64_t kPage = sysconf(_SC_PAGESIZE);

/// A mapping of `pages` pages, none resident, and its arena descriptor.
struct Mapping {
  explicit Mapping(int64_t pages) : bytes(pages * kPage) {
    void *mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
      std::abort();
    data = static_cast<int8_t *>(mapped);
    // 4 KiB pages even where transparent huge pages are always on.
    madvise(data, bytes, MADV_NOHUGEPAGE);
    arena.basePtr = arena.data = data;
    arena.offset = 0;
    arena.sizes[0] = bytes;
    arena.strides[0] = 1;
  }
  ~Mapping() { munmap(data, bytes); }
  /// Which pages are resident.
  std::vector<bool> resident() const {
    std::vector<unsigned char> vec(bytes / kPage);
    EXPECT_EQ(mincore(data, bytes, vec.data()), 0);
    std::vector<bool> out;
    for (unsigned char v : vec)
      out.push_back(v & 1);
    return out;
  }
  int64_t bytes;
  int8_t *data;
  StridedMemRefType<int8_t, 1> arena;
};

/// Whether this kernel populates (MADV_POPULATE_WRITE, Linux 5.14); the
/// runtime's calls are hints that do nothing where it does not.
bool kernelPopulates() {
  Mapping probe(1);
  return madvise(probe.data, probe.bytes, 23 /*MADV_POPULATE_WRITE*/) == 0;
}

TEST(PagesTest, PopulatePagesMakesTheWholePagesInsideResident) {
  if (!kernelPopulates())
    GTEST_SKIP() << "no MADV_POPULATE_WRITE";
  Mapping m(8);
  // Bytes 0.5 .. 4.5 pages: whole pages 1, 2 and 3 (pages 0 and 4, which
  // the range shares with its neighbours, fault in when touched).
  _mlir_ciface_trace_rt_populate_pages(&m.arena, kPage / 2, 4 * kPage);
  std::vector<bool> expected = {false, true,  true,  true,
                                false, false, false, false};
  EXPECT_EQ(m.resident(), expected);
}

TEST(PagesTest, PopulateBufferMakesEveryPageItTouchesResident) {
  if (!kernelPopulates())
    GTEST_SKIP() << "no MADV_POPULATE_WRITE";
  Mapping m(8);
  // Bytes 1.5 .. 3.5 pages touch pages 1, 2 and 3.
  trace_rt_populate_buffer(
      reinterpret_cast<int64_t>(m.data + kPage + kPage / 2), 2 * kPage);
  std::vector<bool> expected = {false, true,  true,  true,
                                false, false, false, false};
  EXPECT_EQ(m.resident(), expected);
}

TEST(PagesTest, PopulateKeepsEveryByte) {
  Mapping m(6);
  // Pages 0, 2 and 4 written, the others never touched; the ranges start
  // inside page 0 and end inside page 5.
  for (int64_t page : {0, 2, 4})
    for (int64_t i = page * kPage; i < (page + 1) * kPage; ++i)
      m.data[i] = static_cast<int8_t>(i * 7 + 3);
  trace_rt_populate_buffer(reinterpret_cast<int64_t>(m.data + 100), 5 * kPage);
  _mlir_ciface_trace_rt_populate_pages(&m.arena, 100, 5 * kPage);
  for (int64_t i = 0; i < m.bytes; ++i) {
    int64_t page = i / kPage;
    auto expected = static_cast<int8_t>(page % 2 == 0 ? i * 7 + 3 : 0);
    ASSERT_EQ(m.data[i], expected) << "byte " << i;
  }
}

TEST(PagesTest, PopulateIsClippedToTheArena) {
  if (!kernelPopulates())
    GTEST_SKIP() << "no MADV_POPULATE_WRITE";
  Mapping m(8);
  // The descriptor covers 2 pages; a range to the mapping's end stops at
  // the arena's.
  m.arena.sizes[0] = 2 * kPage;
  _mlir_ciface_trace_rt_populate_pages(&m.arena, kPage, 6 * kPage);
  std::vector<bool> expected = {false, true,  false, false,
                                false, false, false, false};
  EXPECT_EQ(m.resident(), expected);
}

TEST(PagesTest, ReleaseHandsBackWholePagesInsideTheArenaOnly) {
  Mapping m(6);
  std::memset(m.data, 1, m.bytes);
  // The arena ends half-way into page 4; the release asks for pages 1
  // onwards, past the arena's end. Pages 1-3 go; page 4 holds the
  // allocator's bytes after the arena and keeps them.
  m.arena.sizes[0] = 4 * kPage + kPage / 2;
  _mlir_ciface_trace_rt_release_pages(&m.arena, kPage, 5 * kPage);
  std::vector<bool> expected = {true, false, false, false, true, true};
  EXPECT_EQ(m.resident(), expected);
  EXPECT_EQ(m.data[4 * kPage + kPage / 2 + 1], 1);
  // A released page reads zeros.
  EXPECT_EQ(m.data[2 * kPage], 0);
}

} // namespace
