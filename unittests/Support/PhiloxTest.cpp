//===- PhiloxTest.cpp - Philox4x32-10 known answers -----------------------===//
//
// The expected words are Random123's published known-answer vectors
// (kat_vectors, "philox4x32 10"), not output of this code.
//
//===----------------------------------------------------------------------===//

#include "trace/Support/Philox.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir::trace::philox;

TEST(Philox, KnownAnswerZero) {
  Counter out = philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(out, (Counter{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(Philox, KnownAnswerAllOnes) {
  Counter out = philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                           {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(out, (Counter{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
}

TEST(Philox, KnownAnswerPi) {
  Counter out = philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                           {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(out, (Counter{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, ElementLayout) {
  // Elements 0..3 share counter block `offset`; element 4 starts the next.
  Counter block0 = philox4x32({7, 0, 0, 0}, {42, 0});
  Counter block1 = philox4x32({8, 0, 0, 0}, {42, 0});
  for (uint64_t i = 0; i < 4; ++i)
    EXPECT_EQ(randomWord(42, 7, i), block0[i]);
  EXPECT_EQ(randomWord(42, 7, 4), block1[0]);
  // The high half of the seed is the second key word.
  Counter highSeed = philox4x32({0, 0, 0, 0}, {1, 2});
  EXPECT_EQ(randomWord((uint64_t{2} << 32) | 1, 0, 0), highSeed[0]);
}

TEST(Philox, UniformRangeAndResolution) {
  EXPECT_EQ(wordToUniform(0, 24), 0.0);
  EXPECT_LT(wordToUniform(0xffffffffu, 24), 1.0);
  EXPECT_EQ(wordToUniform(0xffffffffu, 8), 255.0 / 256.0);
  EXPECT_EQ(wordToUniform(0x80000000u, 11), 0.5);
  // 4096 draws of an f32 stream: all in [0, 1), mean near 1/2, few repeats.
  std::set<double> seen;
  double sum = 0;
  for (uint64_t i = 0; i < 4096; ++i) {
    double u = wordToUniform(randomWord(1234, 0, i), 24);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    seen.insert(u);
  }
  EXPECT_NEAR(sum / 4096, 0.5, 0.02);
  EXPECT_GT(seen.size(), 4000u);
}
