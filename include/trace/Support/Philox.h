//===- Philox.h - reference Philox4x32-10 ------------------------*- C++ -*-===//
//
// The reference definition of `trace.random_uniform`'s numbers: Philox4x32
// with 10 rounds (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC'11; the Random123 library). Every backend's lowering
// of the op must produce these exact bits; tests compare against this code,
// which is itself checked against Random123's published known-answer vectors.
//
// Written here rather than taken from a library because it is twenty lines
// and has to match the lowering bit for bit, not just be "a Philox".
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_SUPPORT_PHILOX_H
#define TRACE_SUPPORT_PHILOX_H

#include <array>
#include <cstdint>

namespace mlir::trace::philox {

inline constexpr uint32_t kMul0 = 0xD2511F53u;
inline constexpr uint32_t kMul1 = 0xCD9E8D57u;
inline constexpr uint32_t kWeyl0 = 0x9E3779B9u;
inline constexpr uint32_t kWeyl1 = 0xBB67AE85u;
inline constexpr int kRounds = 10;

using Counter = std::array<uint32_t, 4>;
using Key = std::array<uint32_t, 2>;

/// Philox4x32-10: four 32-bit random words from a 128-bit counter and a
/// 64-bit key.
inline Counter philox4x32(Counter ctr, Key key) {
  for (int round = 0; round < kRounds; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kMul0) * ctr[0];
    uint64_t p1 = static_cast<uint64_t>(kMul1) * ctr[2];
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key = {key[0] + kWeyl0, key[1] + kWeyl1};
  }
  return ctr;
}

/// The 32-bit word that `trace.random_uniform` with `seed` and `offset`
/// assigns to the element at row-major `index`.
inline uint32_t randomWord(uint64_t seed, uint64_t offset, uint64_t index) {
  uint64_t block = offset + index / 4;
  Counter ctr = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                 0u, 0u};
  Key key = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  return philox4x32(ctr, key)[index % 4];
}

/// Turns a word into a uniform number in [0, 1) carrying `precisionBits`
/// random bits (24 for f32, 11 for f16, 8 for bf16, 32 for f64): exactly
/// representable in the target type, and strictly below 1.
inline double wordToUniform(uint32_t word, int precisionBits) {
  uint32_t bits = precisionBits >= 32 ? word : word >> (32 - precisionBits);
  double scale = 1.0 / static_cast<double>(uint64_t{1} << precisionBits);
  return static_cast<double>(bits) * scale;
}

} // namespace mlir::trace::philox

#endif // TRACE_SUPPORT_PHILOX_H
