//===- runner_support.h - what make_runner.py's runners share ---*- C++ -*-===//
//
// Memref descriptors of MLIR's C interface, deterministic inputs copied to
// the device, the caller's result buffers on both sides, GPU-against-CPU
// comparison of results, timing. Included by
// the generated NAME.runner.cpp only.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_TEST_GPU_RUNNER_SUPPORT_H
#define TRACE_TEST_GPU_RUNNER_SUPPORT_H

#include "trace/Runtime/CUDARuntime.h"

#include <cuda.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

/// A ranked memref descriptor as MLIR's C interface passes it.
template <typename T, int N> struct MemRef {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};
template <typename T> struct MemRef<T, 0> {
  T *allocated;
  T *aligned;
  int64_t offset;
};

/// How an element's bits read as a number.
enum class Kind { Float, Half, Bfloat, Int, Bool };

inline double halfToDouble(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double value;
  if (exponent == 0)
    value = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -value : value;
}

inline double bfloatToDouble(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// float -> half bits, round to nearest even, with subnormals, infinities
/// and NaN.
inline uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  uint16_t sign = (bits >> 16) & 0x8000;
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude >= 0x7f800000) // infinity or NaN
    return sign | (magnitude > 0x7f800000 ? 0x7e00 : 0x7c00);
  if (magnitude >= 0x477ff000) // >= 65520 rounds to infinity
    return sign | 0x7c00;
  if (magnitude < 0x38800000) { // below 2^-14: a multiple of 2^-24
    float a;
    std::memcpy(&a, &magnitude, sizeof(a));
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  uint32_t half = ((((magnitude >> 23) - 112) << 10) | ((magnitude >> 13) & 0x3ff));
  uint32_t rest = magnitude & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // a carry into the exponent is right, up to infinity
  return sign | static_cast<uint16_t>(half);
}

inline uint16_t doubleToHalf(double x) {
  return floatToHalf(static_cast<float>(x));
}

inline uint16_t doubleToBfloat(double x) {
  float f = static_cast<float>(x);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

/// xorshift64*: the same inputs on every machine.
inline uint64_t nextRandom() {
  static uint64_t state = 0x2545F4914F6CDD1Dull;
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1Dull;
}

/// Uniform in [-1, 1).
inline double nextUniform() {
  return static_cast<double>(nextRandom() >> 11) * 0x1.0p-52 - 1.0;
}

inline void checkDriver(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
  std::exit(2);
}

/// An argument: deterministic host data (floats uniform in [-1, 1),
/// integers in [0, 16), booleans fair), a device copy, and a descriptor of
/// each, row-major.
template <typename T, int N> struct Input {
  std::vector<T> host;
  void *device = nullptr;
  MemRef<T, N> cpu{};
  MemRef<T, N> gpu{};

  Input(std::array<int64_t, N> shape, Kind kind) {
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    host.resize(count);
    for (T &x : host) {
      switch (kind) {
      case Kind::Float:
        x = static_cast<T>(nextUniform());
        break;
      case Kind::Half:
        x = static_cast<T>(doubleToHalf(nextUniform()));
        break;
      case Kind::Bfloat:
        x = static_cast<T>(doubleToBfloat(nextUniform()));
        break;
      case Kind::Int:
        x = static_cast<T>(nextRandom() % 16);
        break;
      case Kind::Bool:
        x = static_cast<T>(nextRandom() & 1);
        break;
      }
    }
    uint64_t bytes = count * sizeof(T);
    device = mgpuMemAlloc(bytes, nullptr, 0);
    if (bytes)
      mgpuMemcpy(device, host.data(), bytes, nullptr);
    mgpuStreamSynchronize(nullptr);
    describe(cpu, host.data(), shape);
    describe(gpu, static_cast<T *>(device), shape);
  }
  ~Input() { mgpuMemFree(device, nullptr); }

  static void describe(MemRef<T, N> &ref, T *data,
                       const std::array<int64_t, N> &shape) {
    ref.allocated = ref.aligned = data;
    ref.offset = 0;
    if constexpr (N > 0) {
      int64_t stride = 1;
      for (int i = N - 1; i >= 0; --i) {
        ref.sizes[i] = shape[i];
        ref.strides[i] = stride;
        stride *= shape[i];
      }
    }
  }
};

template <typename T> double asDouble(T x, Kind kind) {
  if constexpr (sizeof(T) == 2 && !std::is_signed_v<T>) {
    if (kind == Kind::Half)
      return halfToDouble(x);
    if (kind == Kind::Bfloat)
      return bfloatToDouble(x);
  }
  return static_cast<double>(x);
}

/// Compares a GPU result (device memory) with the CPU's, prints one line
/// and returns whether every element is within atol + rtol |cpu| (NaN
/// matches NaN, infinities match themselves).
template <typename T, int N>
bool compare(const char *function, int index, const char *type,
             const MemRef<T, N> &gpu, const MemRef<T, N> &cpu, int64_t count,
             Kind kind, double atol, double rtol) {
  std::vector<T> fromGpu(count);
  if (count) {
    mgpuMemcpy(fromGpu.data(), gpu.aligned + gpu.offset, count * sizeof(T),
               nullptr);
    mgpuStreamSynchronize(nullptr);
  }
  const T *expected = cpu.aligned + cpu.offset;
  double worst = 0;
  int64_t outside = 0;
  for (int64_t i = 0; i < count; ++i) {
    double g = asDouble(fromGpu[i], kind), c = asDouble(expected[i], kind);
    if ((std::isnan(g) && std::isnan(c)) || g == c)
      continue;
    double diff = std::fabs(g - c);
    if (std::isnan(diff))
      diff = INFINITY;
    worst = std::max(worst, diff);
    if (!(diff <= atol + rtol * std::fabs(c)))
      ++outside;
  }
  std::printf("  %s result %d %s: max |gpu - cpu| %.3g, %lld of %lld "
              "outside %.0e + %.0e |cpu|;",
              outside ? "FAIL" : "ok", index, type, worst,
              static_cast<long long>(outside), static_cast<long long>(count),
              atol, rtol);
  for (int64_t i = 0; i < count && i < 3; ++i)
    std::printf(" %.6g/%.6g", asDouble(fromGpu[i], kind),
                asDouble(expected[i], kind));
  std::printf("%s\n", count > 3 ? " ..." : "");
  (void)function;
  return outside == 0;
}

/// A result's buffers, which the caller owns: every public function writes
/// its results into trailing out-parameters, on the GPU (trace-gpu-pipeline)
/// as on the CPU. The device buffer starts as 0xff bytes and the host one as
/// zeros, so a result that neither side writes cannot compare equal.
template <typename T, int N> struct Output {
  std::vector<T> host;
  void *device = nullptr;
  MemRef<T, N> cpu{};
  MemRef<T, N> gpu{};

  explicit Output(std::array<int64_t, N> shape) {
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    host.assign(count, T{});
    uint64_t bytes = count * sizeof(T);
    device = mgpuMemAlloc(bytes, nullptr, 0);
    if (bytes) {
      std::vector<unsigned char> poison(bytes, 0xff);
      mgpuMemcpy(device, poison.data(), bytes, nullptr);
    }
    mgpuStreamSynchronize(nullptr);
    Input<T, N>::describe(cpu, host.data(), shape);
    Input<T, N>::describe(gpu, static_cast<T *>(device), shape);
  }
  ~Output() { mgpuMemFree(device, nullptr); }
  Output(const Output &) = delete;
  Output &operator=(const Output &) = delete;
};

/// Mean wall time of further calls (each synchronizes before returning),
/// at least 5 and until 0.2 s have passed or 200 calls were made.
template <typename F> double timeCalls(F call) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  int calls = 0;
  double seconds = 0;
  do {
    call();
    ++calls;
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } while (calls < 5 || (seconds < 0.2 && calls < 200));
  return 1e3 * seconds / calls;
}

/// An attribute of device 0 (cuInit must have run: printDevice does it).
inline int deviceAttribute(CUdevice_attribute attribute) {
  CUdevice device;
  int value = 0;
  checkDriver(cuDeviceGet(&device, 0), "cuDeviceGet");
  checkDriver(cuDeviceGetAttribute(&value, attribute, device),
              "cuDeviceGetAttribute");
  return value;
}

/// The device's peak memory bandwidth in GB/s from its memory clock (kHz)
/// and bus width (bits), double data rate; 0 if the driver does not say.
inline double peakBandwidthGBs() {
  double clockKHz = deviceAttribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  double busBits = deviceAttribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  return 2.0 * clockKHz * 1e3 * (busBits / 8.0) / 1e9;
}

/// `bytes` moved per call in `ms`: GB/s and the share of the peak.
inline void printBandwidth(double bytes, double ms) {
  double rate = bytes / (ms * 1e-3) / 1e9;
  double peak = peakBandwidthGBs();
  std::printf("  %.1f MB of arguments and results: %.1f GB/s on the GPU",
              bytes / 1e6, rate);
  if (peak > 0)
    std::printf(" (%.0f%% of the %.0f GB/s peak)", 100.0 * rate / peak, peak);
  std::printf("\n");
}

inline void printDevice() {
  int driver = 0;
  char name[256] = {0};
  CUdevice device;
  checkDriver(cuInit(0), "cuInit");
  checkDriver(cuDriverGetVersion(&driver), "cuDriverGetVersion");
  checkDriver(cuDeviceGet(&device, 0), "cuDeviceGet");
  checkDriver(cuDeviceGetName(name, sizeof(name), device), "cuDeviceGetName");
  int major = deviceAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  int minor = deviceAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  std::printf("device 0: %s, sm_%d%d, CUDA driver %d.%d\n", name, major, minor,
              driver / 1000, (driver % 1000) / 10);
}

// What code from trace-cpu-pipeline (the reference) calls besides libc and
// libm, defined here (not inline: the compiled code calls them) so that the
// runner needs no other library, nor a recent libgcc_s. Include this header
// in one file only.
extern "C" {

/// MLIR's strided copy (libmlir_c_runner_utils' memrefCopy): `src` and
/// `dst` point to {rank, ranked descriptor} pairs; a ranked descriptor is
/// {allocated, aligned, offset, sizes[rank], strides[rank]} in 64-bit words.
struct UnrankedDescriptor {
  int64_t rank;
  int64_t *descriptor;
};
void memrefCopy(int64_t elementBytes, UnrankedDescriptor *src,
                       UnrankedDescriptor *dst) {
  int64_t rank = src->rank;
  const int64_t *s = src->descriptor, *d = dst->descriptor;
  char *from = reinterpret_cast<char *>(s[1]) + s[2] * elementBytes;
  char *to = reinterpret_cast<char *>(d[1]) + d[2] * elementBytes;
  const int64_t *sizes = s + 3, *fromStrides = s + 3 + rank,
                *toStrides = d + 3 + rank;
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t fromOffset = 0, toOffset = 0;
    for (int64_t i = 0; i < rank; ++i) {
      fromOffset += index[i] * fromStrides[i];
      toOffset += index[i] * toStrides[i];
    }
    std::memcpy(to + toOffset * elementBytes, from + fromOffset * elementBytes,
                elementBytes);
    int64_t dim = rank - 1;
    while (dim >= 0 && ++index[dim] == sizes[dim])
      index[dim--] = 0;
    if (dim < 0)
      return;
  }
}

/// f32 <-> f16 (libgcc's builtins since GCC 12: defined here so that the
/// runner does not need GCC 12's libgcc_s). A half travels in the low 16
/// bits of xmm0; these are declared with float so that no half type is
/// involved (a conversion of one would call these very functions).
float __truncsfhf2(float x) {
  uint32_t bits = floatToHalf(x);
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}
float __extendhfsf2(float h) {
  uint32_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return static_cast<float>(halfToDouble(bits & 0xffff));
}

/// f32 -> bf16, round to nearest even (compiler-rt's builtin; GCC 12's
/// libgcc has none). Declared with float like the two above.
float __truncsfbf2(float x) {
  uint32_t bits = std::isnan(x) ? 0x7fc0 : doubleToBfloat(x);
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}
}

#endif // TRACE_TEST_GPU_RUNNER_SUPPORT_H
