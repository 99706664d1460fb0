//===- PickleScan.h - pickle claims checked before LibTorch -----*- C++ -*-===//
//
// LibTorch 1.13's unpickler allocates what a corrupted pickle claims before
// finding it wrong: readBytes allocates and clears a string of the claimed
// length (up to 4 GiB, so a small corrupted file costs the time and memory
// of a huge one), setInput grows the memo table to the claimed index (where
// a large enough claim makes LLVM's allocation-failure handler abort). The
// importer scans every pickle record first and rejects such a claim with
// its own diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_LIB_IMPORTER_TORCHSCRIPT_PICKLESCAN_H
#define TRACE_LIB_IMPORTER_TORCHSCRIPT_PICKLESCAN_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace mlir::trace {

/// Walks the opcodes of a pickle (protocol 2 and later, as torch.jit.save
/// writes them) and returns a message if a length-prefixed argument claims
/// more bytes than the pickle has left, or a memo index (PUT, LONG_BINPUT)
/// exceeds the pickle's size: LibTorch grows its memo table to the index
/// (16 bytes an entry; a fuzzer input asked for 30 GB, and LLVM's
/// allocation-failure handler aborts). Returns nothing for a pickle whose
/// lengths fit, and also when it meets an opcode it does not know or a
/// pickle that ends early: LibTorch reports those cheaply.
std::optional<std::string> findImpossiblePickleClaim(const uint8_t *data,
                                                     size_t size);

} // namespace mlir::trace

#endif // TRACE_LIB_IMPORTER_TORCHSCRIPT_PICKLESCAN_H
