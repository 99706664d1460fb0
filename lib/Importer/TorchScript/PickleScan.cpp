//===- PickleScan.cpp - pickle claims checked before LibTorch reads them --===//
//
// The opcode table is Python's (Lib/pickle.py, pickletools), which LibTorch's
// unpickler follows; only the argument sizes matter here. Python's own
// pickletools is not available in C++, and LibTorch has no validating pass.
//
//===----------------------------------------------------------------------===//

#include "PickleScan.h"

#include <cstdio>
#include <cstring>

using namespace mlir::trace;

namespace {

/// How an opcode's argument is laid out.
enum class Arg {
  None,    // no argument
  Fixed,   // `size` bytes
  Counted, // a `size`-byte little-endian length, then that many bytes
  Line,    // up to and including a newline
  Lines2,  // two newline-terminated lines (GLOBAL, INST)
  Unknown, // not a pickle opcode we know: stop scanning
};

struct Layout {
  Arg arg;
  unsigned size = 0;
};

Layout layoutOf(uint8_t op) {
  switch (op) {
  // No argument.
  case '(': case '.': case '0': case '1': case '2': case 'N': case 'Q':
  case 'R': case 'a': case 'b': case 'd': case '}': case 'e': case 'l':
  case ']': case 'o': case 's': case 't': case ')': case 'u':
  case 0x81: case 0x85: case 0x86: case 0x87: case 0x88: case 0x89:
  case 0x8f: case 0x90: case 0x91: case 0x92: case 0x93: case 0x94:
  case 0x97: case 0x98:
    return {Arg::None};
  // Fixed-size arguments.
  case 'K': case 'h': case 'q': case 0x80: case 0x82:
    return {Arg::Fixed, 1};
  case 'M': case 0x83:
    return {Arg::Fixed, 2};
  case 'J': case 'j': case 'r': case 0x84:
    return {Arg::Fixed, 4};
  case 'G': case 0x95: // BINFLOAT; FRAME (its length only announces)
    return {Arg::Fixed, 8};
  // Length-prefixed strings, bytes and longs.
  case 'U': case 'C': case 0x8a: case 0x8c:
    return {Arg::Counted, 1};
  case 'T': case 'X': case 'B': case 0x8b:
    return {Arg::Counted, 4};
  case 0x8d: case 0x8e: case 0x96:
    return {Arg::Counted, 8};
  // Text arguments.
  case 'F': case 'I': case 'L': case 'P': case 'S': case 'V': case 'g':
  case 'p':
    return {Arg::Line};
  case 'c': case 'i':
    return {Arg::Lines2};
  default:
    return {Arg::Unknown};
  }
}

uint64_t readLittleEndian(const uint8_t *bytes, unsigned count) {
  uint64_t value = 0;
  for (unsigned i = 0; i < count; ++i)
    value |= uint64_t(bytes[i]) << (8 * i);
  return value;
}

/// A memo index can be at most the number of opcodes before it, so at most
/// the pickle's size.
std::string memoMessage(uint8_t op, size_t at, uint64_t index, size_t size) {
  char message[160];
  std::snprintf(message, sizeof(message),
                "opcode 0x%02x at byte %zu stores memo entry %llu, more than "
                "a %zu-byte pickle can have",
                op, at, static_cast<unsigned long long>(index), size);
  return message;
}

} // namespace

std::optional<std::string>
mlir::trace::findImpossiblePickleClaim(const uint8_t *data, size_t size) {
  size_t pos = 0;
  auto skipLine = [&]() {
    const void *newline = std::memchr(data + pos, '\n', size - pos);
    if (!newline)
      return false;
    pos = static_cast<const uint8_t *>(newline) - data + 1;
    return true;
  };
  while (pos < size) {
    size_t at = pos;
    uint8_t op = data[pos++];
    if (op == '.') // STOP
      return std::nullopt;
    Layout layout = layoutOf(op);
    switch (layout.arg) {
    case Arg::None:
      break;
    case Arg::Fixed: {
      if (layout.size > size - pos)
        return std::nullopt;
      uint64_t value = readLittleEndian(data + pos, layout.size);
      pos += layout.size;
      // LONG_BINPUT: LibTorch grows its memo table to the index.
      if (op == 'r' && value > size)
        return memoMessage(op, at, value, size);
      break;
    }
    case Arg::Counted: {
      if (layout.size > size - pos)
        return std::nullopt;
      uint64_t length = readLittleEndian(data + pos, layout.size);
      pos += layout.size;
      if (length > size - pos) {
        char message[160];
        std::snprintf(message, sizeof(message),
                      "opcode 0x%02x at byte %zu claims %llu bytes, but only "
                      "%zu remain",
                      op, at, static_cast<unsigned long long>(length),
                      size - pos);
        return std::string(message);
      }
      pos += length;
      break;
    }
    case Arg::Line: {
      size_t start = pos;
      if (!skipLine())
        return std::nullopt;
      // PUT: a decimal memo index (LibTorch grows its memo table to it).
      if (op == 'p') {
        uint64_t value = 0;
        for (size_t i = start; i + 1 < pos && value <= size; ++i)
          if (data[i] >= '0' && data[i] <= '9')
            value = value * 10 + (data[i] - '0');
        if (value > size)
          return memoMessage(op, at, value, size);
      }
      break;
    }
    case Arg::Lines2:
      if (!skipLine() || !skipLine())
        return std::nullopt;
      break;
    case Arg::Unknown:
      return std::nullopt;
    }
  }
  return std::nullopt;
}
