//===- Pages.cpp - CPU runtime: arena page releases and populates ---------===//
//
// The calls trace-plan-buffers emits: hand back an arena's dead pages
// (madvise MADV_DONTNEED) and make pages resident in one call
// (MADV_POPULATE_WRITE) instead of a fault per page. No BLAS here: the
// GPU check runners link this object from the static runtime alone.
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CPURuntime.h"

#include <algorithm>
#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

extern "C" {

void _mlir_ciface_trace_rt_release_pages(StridedMemRefType<int8_t, 1> *arena,
                                         int64_t offset, int64_t bytes) {
  // Only whole pages inside the range: a page shared with a live buffer
  // keeps its bytes. madvise of an allocated block's pages is what glibc
  // itself does when it trims; the block stays allocated, and a page read
  // again would read zeros (trace-plan-buffers releases only dead pages).
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto base = reinterpret_cast<uintptr_t>(arena->data + arena->offset);
  int64_t last = std::min(offset + bytes, arena->sizes[0]);
  if (offset < 0 || last <= offset)
    return;
  uintptr_t begin = base + static_cast<uintptr_t>(offset);
  uintptr_t end = base + static_cast<uintptr_t>(last);
  begin = (begin + page - 1) / page * page;
  end = end / page * page;
  if (end > begin)
    (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

// Linux 5.14's value, for C libraries whose headers predate it.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {
const uintptr_t kPageBytes = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));

/// Makes pages [begin, end) (page-aligned) resident. A hint: where the
/// kernel refuses (EINVAL before 5.14), the pages fault in as written.
void populate(uintptr_t begin, uintptr_t end) {
  if (end > begin)
    (void)madvise(reinterpret_cast<void *>(begin), end - begin,
                  MADV_POPULATE_WRITE);
}
} // namespace

void trace_rt_populate_buffer(int64_t address, int64_t bytes) {
  // Every page the buffer touches: its first op touches all of it (as
  // trace-resident-report counts), and making a page resident changes no
  // byte of it, so a page shared with a neighbour is as safe as one of
  // ours.
  if (bytes <= 0)
    return;
  auto first = static_cast<uintptr_t>(address);
  populate(first / kPageBytes * kPageBytes,
           (first + static_cast<uintptr_t>(bytes) + kPageBytes - 1) /
               kPageBytes * kPageBytes);
}

void _mlir_ciface_trace_rt_populate_pages(StridedMemRefType<int8_t, 1> *arena,
                                          int64_t offset, int64_t bytes) {
  // Only the whole pages inside the range and the arena: the arena need
  // not start on a page, and a page the range shares with its neighbours
  // may be first touched later (it faults in then).
  int64_t last = std::min(offset + bytes, arena->sizes[0]);
  if (offset < 0 || last <= offset)
    return;
  auto base = reinterpret_cast<uintptr_t>(arena->data + arena->offset);
  uintptr_t begin = base + static_cast<uintptr_t>(offset);
  uintptr_t end = base + static_cast<uintptr_t>(last);
  populate((begin + kPageBytes - 1) / kPageBytes * kPageBytes,
           end / kPageBytes * kPageBytes);
}
}
