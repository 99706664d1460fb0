//===- PickleScan.h - length checks on pickles before LibTorch --*- C++ -*-===//
//
// LibTorch 1.13's unpickler (torch::jit::Unpickler::readBytes) allocates
// and clears whatever length a string, bytes or frame opcode claims, up to
// 4 GiB, before it finds the record too short: a corrupted length in a .pt
// costs seconds and gigabytes (a fuzzer input: 18 s and 1.5 GB in a release
// build, over 90 s under ASan) before the error. The importer scans every
// pickle record first and rejects such a length with its own diagnostic.
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
/// more bytes than the pickle has left. Returns nothing for a pickle whose
/// lengths fit, and also when it meets an opcode it does not know or a
/// pickle that ends early: LibTorch reports those cheaply.
std::optional<std::string> findOversizedPickleLength(const uint8_t *data,
                                                     size_t size);

} // namespace mlir::trace

#endif // TRACE_LIB_IMPORTER_TORCHSCRIPT_PICKLESCAN_H
