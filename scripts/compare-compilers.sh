#!/usr/bin/env bash
# The IR is the same from GCC and Clang builds: builds the project with g++
# (build/) and with clang-22 (build-clang/, or TRACE_CLANG_BUILD_DIR), runs
# each build's trace-import and trace-opt on the bundled examples and model
# fixtures through import, trace-autodiff, trace-training-step and the
# CPU and GPU pipelines, and compares the outputs byte for byte. Prints
# one line per output and a summary; exits 1 if any differs.
#
#   scripts/compare-compilers.sh
#
# C++ leaves the order of a call's arguments unspecified, so code that
# creates two ops in one call's arguments emits them in an order that
# depends on the compiler; this is the check that none does. Not in CI
# (a second build does not fit its budget): scripts/nightly.sh runs it.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
trace_setup "${TRACE_SANITIZE_PACKAGES[@]}"
trace_build
CLANG_BUILD="${TRACE_CLANG_BUILD_DIR:-$TRACE_ROOT/build-clang}"
log "The clang++ build, in $CLANG_BUILD"
TRACE_BUILD_DIR="$CLANG_BUILD" trace_build \
  -DCMAKE_C_COMPILER="$LLVM_PREFIX/bin/clang" \
  -DCMAKE_CXX_COMPILER="$LLVM_PREFIX/bin/clang++"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
inputs=("$TRACE_ROOT"/examples/*.mlir "$TRACE_ROOT"/test/Integration/PTX/Inputs/gpt_forward.mlir)
# The model fixtures, imported by each build (the importer's IR too).
for pt in "$TRACE_ROOT"/examples/models/*.pt; do
  stem="$(basename "$pt" .pt)"
  for b in gcc clang; do
    dir="$TRACE_BUILD_DIR"; [ $b = clang ] && dir="$CLANG_BUILD"
    "$dir/bin/trace-import" "$pt" --input-shapes-file "${pt%.pt}.shapes" \
      -o "$work/$stem.$b.mlir"
  done
  inputs+=("$work/$stem.gcc.mlir")
done

pipelines=(
  ""
  "--trace-autodiff"
  "--trace-training-step"
  "--trace-training-step --trace-cpu-pipeline"
  "--trace-training-step --trace-gpu-pipeline"
)
same=0 differ=0
for input in "${inputs[@]}"; do
  name="$(basename "$input" .mlir)"
  for pipeline in "${pipelines[@]}"; do
    for b in gcc clang; do
      dir="$TRACE_BUILD_DIR"; [ $b = clang ] && dir="$CLANG_BUILD"
      in="$input"
      # Each build reads the fixture its own importer wrote.
      [[ "$input" == "$work/"*.gcc.mlir ]] && in="${input%.gcc.mlir}.$b.mlir"
      # shellcheck disable=SC2086
      "$dir/bin/trace-opt" "$in" $pipeline -o "$work/out.$b.raw.mlir"
      # gpu-module-to-binary records how long LLVM took per kernel
      # (LLVMIRToISATimeInMs): a timing, different between any two runs.
      sed -E 's/LLVMIRToISATimeInMs = [0-9]+ : i64/LLVMIRToISATimeInMs = _/g' \
        "$work/out.$b.raw.mlir" > "$work/out.$b.mlir"
    done
    if cmp -s "$work/out.gcc.mlir" "$work/out.clang.mlir"; then
      same=$((same + 1)); verdict=same
    else
      differ=$((differ + 1)); verdict=DIFFERS
    fi
    printf '%-8s %-24s %s\n' "$verdict" "${name%.gcc}" "${pipeline:-(parse and print)}"
  done
done
echo "$same outputs the same from g++ and clang++, $differ differ"
[ "$differ" -eq 0 ]
