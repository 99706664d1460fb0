#!/usr/bin/env bash
# Builds, on the CPU machine, the GPU check runners that scripts/gpu-check.sh
# runs on a GPU machine (which has the CUDA driver but no MLIR, and builds
# nothing). Each runner is one executable that needs only libcuda.so.1 and
# the system's C and C++ libraries (glibc 2.34 or later) at run time: a set
# of trace functions compiled ahead of time by trace-gpu-pipeline (PTX
# JIT-compiled by the driver at start-up) and by trace-cpu-pipeline (the
# reference), called on the same deterministic inputs, every result compared
# (test/Integration/GPU/make_runner.py).
#
#   scripts/build-gpu-check.sh [OUT]     # default: $TRACE_BUILD_DIR/gpu-check
#
# Then carry OUT and scripts/gpu-check.sh to the GPU machine and run
#   scripts/gpu-check.sh OUT
# (the step benchmark in OUT/step and the Python step in OUT/python also
# need bench/, python/, scripts/ and test/Python of the checkout, and
# PyTorch with CUDA there).
# Extra trace-gpu-pipeline options: TRACE_GPU_PIPELINE="chip=sm_90 ..."
# (default chip=sm_90, the H200).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

OUT="${1:-$TRACE_BUILD_DIR/gpu-check}"
PIPELINE="${TRACE_GPU_PIPELINE:-chip=sm_90}"
CUDA=/usr/local/cuda
[ -f "$CUDA/include/cuda.h" ] || { echo "error: no CUDA toolkit in $CUDA" >&2; exit 1; }
[ -f "$TRACE_BUILD_DIR/build.ninja" ] || { echo "error: configure $TRACE_BUILD_DIR first (scripts/test.sh)" >&2; exit 1; }

log "Building trace-opt and the CUDA runtime in $TRACE_BUILD_DIR"
cmake --build "$TRACE_BUILD_DIR" --target trace-opt TraceCUDARuntimeStatic \
  TraceCPURuntimeStatic
# clang-22 where installed (scripts/test.sh --sanitize installs it), else the
# system's C++ compiler: the runners are plain C++17.
CXX_DRIVER="$LLVM_PREFIX/bin/clang++"
[ -x "$CXX_DRIVER" ] || CXX_DRIVER="$(command -v c++)"

rm -rf "$OUT"
mkdir -p "$OUT/build"
TRACE_OPT="$TRACE_BUILD_DIR/bin/trace-opt"
INPUTS="$TRACE_ROOT/test/Integration"

# The GPT fixture: its forward and the joint forward + backward (loss and
# every parameter's gradient) from trace-autodiff.
"$TRACE_OPT" "$INPUTS/PTX/Inputs/gpt_forward.mlir" --trace-autodiff \
  --symbol-privatize="exclude=forward,forward_grad" --symbol-dce \
  -o "$OUT/build/gpt.mlir"

build() { # NAME INPUT [EXTRA PIPELINE OPTIONS]
  log "Runner $1"
  "$TRACE_PYTHON" "$INPUTS/GPU/make_runner.py" --out "$OUT/build" --name "$1" \
    --trace-opt "$TRACE_OPT" --mlir-translate "$LLVM_PREFIX/bin/mlir-translate" \
    --llc "$LLVM_PREFIX/bin/llc" --clangxx "$CXX_DRIVER" \
    --include "$TRACE_ROOT/include" --cuda "$CUDA" \
    --runtime-lib "$TRACE_BUILD_DIR/lib/libTraceCUDARuntimeStatic.a" \
    --gpu-pipeline "$PIPELINE${3:+ $3}" "$2" >/dev/null 2>"$OUT/build/$1.log" \
    || { cat "$OUT/build/$1.log" >&2; exit 1; }
  mv "$OUT/build/$1" "$OUT/$1"
}
build elementwise "$INPUTS/PTX/Inputs/elementwise.mlir"
build reduction "$INPUTS/PTX/Inputs/reduction.mlir"
build softmax "$INPUTS/PTX/Inputs/softmax.mlir"
build layernorm "$INPUTS/PTX/Inputs/layernorm.mlir"
build ops "$INPUTS/GPU/Inputs/ops.mlir"
build gpt "$OUT/build/gpt.mlir"
# Achieved bandwidth of one large elementwise kernel, with 16-byte vector
# loads and stores and without.
build bandwidth "$INPUTS/GPU/Inputs/bandwidth.mlir"
build bandwidth_scalar "$INPUTS/GPU/Inputs/bandwidth.mlir" "vectorize=0"

# The training-step benchmark: trace-compile's CUDA library for each remat
# plan and the model's parameters, run there by bench/step_time.py --run
# against PyTorch eager, checkpointing and torch.compile.
log "Step benchmark libraries (trace-compile --target=cuda) in $OUT/step"
cmake --build "$TRACE_BUILD_DIR" --target trace-compile
"$TRACE_PYTHON" "$TRACE_ROOT/bench/step_time.py" --build "$TRACE_BUILD_DIR" \
  --device cuda --prepare "$OUT/step"

# trace_mlir.compile(target="cuda")'s library for the GPT fixture, which
# test/Python/cuda_train.py --run trains there against eager (trace_mlir.load).
log "trace_mlir's cuda step in $OUT/python"
TRACE_COMPILE="$TRACE_BUILD_DIR/bin/trace-compile" "$TRACE_PYTHON" \
  "$TRACE_ROOT/test/Python/cuda_train.py" --prepare "$OUT/python"

# The intermediate files stay in OUT/build for reading; the GPU machine needs
# only the executables.
log "Runners in $OUT (carry this directory; build/ is not needed there):"
for runner in "$OUT"/*; do
  [ -f "$runner" ] || continue
  printf '  %-12s %6s KiB, needs: %s\n' "$(basename "$runner")" \
    "$(( $(stat -c %s "$runner") / 1024 ))" \
    "$("$LLVM_PREFIX/bin/llvm-readelf" -d "$runner" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
done
log "Newest symbol versions they need: $(for runner in "$OUT"/*; do [ -f "$runner" ] && "$LLVM_PREFIX/bin/llvm-objdump" -T "$runner"; done | grep -o 'GLIBC_[0-9.]*\|GLIBCXX_[0-9.]*' | sort -uV | awk -F_ '{v[$1]=$0} END {print v["GLIBC"], v["GLIBCXX"]}')"
