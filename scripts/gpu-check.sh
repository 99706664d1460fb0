#!/usr/bin/env bash
# Runs, on a GPU machine, the runners scripts/build-gpu-check.sh built on the
# CPU machine, and prints what they print: the device, then for every trace
# function each result's largest GPU-CPU difference against its tolerance,
# and the time per call on the GPU and on the CPU, with the bytes of its
# arguments and results per second (the bandwidth runners: one 768 MB
# elementwise kernel, with and without vector loads). Builds nothing; needs the
# CUDA driver (libcuda.so.1) and, for the matmuls, cuBLAS (libcublas.so.13
# or .12, loaded by the runtime at the first matmul: from the loader's path,
# or else the toolkit's or PyTorch's copy found here). Exits with 0 when
# every runner passed. Then, when DIR/step exists, the training-step
# benchmark (bench/step_time.py --run; needs PyTorch with CUDA), and when
# DIR/python exists, trace_mlir's cuda module trained against eager.
#
#   scripts/gpu-check.sh [DIR]     # default: build/gpu-check
set -uo pipefail

DIR="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/gpu-check}"
[ -d "$DIR" ] || { echo "error: no runner directory $DIR" >&2; exit 2; }
if [ -z "${TRACE_CUBLAS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[23] '; then
  for candidate in /usr/local/cuda/lib64/libcublas.so.1[23] \
      /usr/local/cuda/targets/*/lib/libcublas.so.1[23] \
      $(python3 -c 'import nvidia.cublas as c; print(list(c.__path__)[0])' 2>/dev/null)/lib/libcublas.so.1[23]; do
    if [ -f "$candidate" ]; then
      export TRACE_CUBLAS="$candidate"
      export LD_LIBRARY_PATH="$(dirname "$candidate")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      break
    fi
  done
fi
echo "cuBLAS: ${TRACE_CUBLAS:-found by the loader}"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
fi

passed=0
failed=()
for runner in elementwise reduction softmax layernorm ops gpt bandwidth bandwidth_scalar; do
  if [ ! -x "$DIR/$runner" ]; then
    echo "== $runner: missing from $DIR"
    failed+=("$runner")
    continue
  fi
  echo "== $runner"
  start=$(date +%s%N)
  "$DIR/$runner"
  status=$?
  echo "== $runner: exit $status after $(( ($(date +%s%N) - start) / 1000000 )) ms"
  if [ "$status" -eq 0 ]; then passed=$((passed + 1)); else failed+=("$runner"); fi
done

# The training-step table (bench/step_time.py), when OUT has its libraries.
if [ -d "$DIR/step" ]; then
  echo "== step: trace-compile's library against PyTorch"
  if python3 "$(dirname "${BASH_SOURCE[0]}")/../bench/step_time.py" --run "$DIR/step"; then
    passed=$((passed + 1))
  else
    failed+=("step")
  fi
fi

# trace_mlir's module on cuda (test/Python/cuda_train.py --run): 20 SGD steps of
# the GPT fixture against eager, 5 more on a side stream.
if [ -d "$DIR/python" ]; then
  echo "== python: trace_mlir.load of a cuda step against eager"
  if python3 "$(dirname "${BASH_SOURCE[0]}")/../test/Python/cuda_train.py" --run "$DIR/python"; then
    passed=$((passed + 1))
  else
    failed+=("python")
  fi
fi

echo "gpu-check: $passed passed, ${#failed[@]} failed${failed:+ (${failed[*]})}"
[ "${#failed[@]}" -eq 0 ]
