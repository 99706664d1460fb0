#!/usr/bin/env bash
# The main job on the bundled examples, on a fresh Debian 12 machine:
# installs what is missing and builds; imports examples/models/gpt.pt (a
# GPT-2-style stack, checkpoint_wrapper on every block) with trace-import,
# builds its backward with trace-autodiff (report of what is saved) and runs
# the training step on the CPU; then takes examples/mlp_blocks.mlir through
# trace-opt (canonicalize, generic-form round trip), exports it as upstream
# linalg, and runs it with trace-run. Outputs go to build/demo/.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

trace_setup
trace_build

example="$TRACE_ROOT/examples/mlp_blocks.mlir"
out="$TRACE_BUILD_DIR/demo"
opt="$TRACE_BUILD_DIR/bin/trace-opt"
mkdir -p "$out"

model="$TRACE_ROOT/examples/models/gpt.pt"
log "trace-import $(basename "$model") --input-shapes-file gpt.shapes -> $out/gpt.mlir"
"$TRACE_BUILD_DIR/bin/trace-import" "$model" \
  --input-shapes-file "${model%.pt}.shapes" -o "$out/gpt.mlir"
printf '    %s trace ops, %s checkpoint regions, %s dropout masks, %s parameters\n' \
  "$(grep -c -E '= trace\.' "$out/gpt.mlir")" \
  "$(grep -c 'trace.checkpoint' "$out/gpt.mlir")" \
  "$(grep -c 'trace.random_uniform' "$out/gpt.mlir")" \
  "$(grep -o 'trace.role = "parameter"' "$out/gpt.mlir" | wc -l)"
log "trace-opt --trace-autodiff=print-saved (what @forward_fwd keeps for backward):"
# The report goes to a file first: `| head` would end the pipe early and,
# under pipefail, the script with SIGPIPE (exit 141).
"$opt" "$out/gpt.mlir" --trace-autodiff=print-saved -o "$out/gpt.grad.mlir" \
  2> "$out/gpt.saved.txt"
head -n 4 "$out/gpt.saved.txt"
log "trace-run @forward_grad (loss and every parameter's gradient, seed 0):"
"$TRACE_BUILD_DIR/bin/trace-run" "$out/gpt.grad.mlir" --entry=forward_grad \
  --random-inputs=0 --out-dir "$out/gpt-run" --quiet --repeat=5
printf '    %s gradients written to %s\n' \
  "$(ls "$out/gpt-run" | grep -c '^grad\.')" "$out/gpt-run"

log "trace-opt --trace-canonicalize $(basename "$example")"
"$opt" "$example" --trace-canonicalize -o "$out/mlp_blocks.canonical.mlir"

# Generic form and back must give the same IR.
"$opt" "$out/mlp_blocks.canonical.mlir" --mlir-print-op-generic \
  | "$opt" -o "$out/mlp_blocks.roundtrip.mlir"
cmp -s "$out/mlp_blocks.canonical.mlir" "$out/mlp_blocks.roundtrip.mlir" \
  || { echo "error: generic-form round trip changed the IR" >&2; exit 1; }

count() { grep -c -E "$1" "$2" || true; }
# One table row: the label, then how often PATTERN occurs in input and output.
row() {
  printf '%-34s %8s %8s\n' "$1" "$(count "$2" "$example")" \
    "$(count "$2" "$out/mlp_blocks.canonical.mlir")"
}
printf '\n%-34s %8s %8s\n' "" "input" "output"
row "trace ops" '= trace\.|trace\.yield'
row "checkpoint regions" 'trace\.checkpoint'
row "matmuls (saved by the policy)" '= trace\.matmul'
row "random ops (dropout masks)" '= trace\.random_uniform'

echo
log "First checkpoint region after trace-canonicalize ($out/mlp_blocks.canonical.mlir):"
sed -n '/trace.checkpoint "blocks.0"/,/^    }/p' "$out/mlp_blocks.canonical.mlir" \
  > "$out/mlp_blocks.region.mlir"
head -n 30 "$out/mlp_blocks.region.mlir"
echo "    ..."
log "Round trip through the generic form: identical"

log "Export: trace-opt --trace-to-linalg -> $out/mlp_blocks.linalg.mlir"
"$opt" "$example" --trace-to-linalg -o "$out/mlp_blocks.linalg.mlir"
printf '    %s linalg ops, %s trace ops\n' \
  "$(count 'linalg\.' "$out/mlp_blocks.linalg.mlir")" \
  "$(count 'trace\.' "$out/mlp_blocks.linalg.mlir")"

log "trace-run on the CPU (inputs from seed 0, results in $out/run):"
"$TRACE_BUILD_DIR/bin/trace-run" "$example" --random-inputs=0 \
  --out-dir "$out/run" --repeat=20

# The whole pipeline in one command: the GPT fixture to an ahead-of-time
# library with a C header, every stage's IR and the memory report.
compile() { # TARGET
  local dir="$out/gpt-$1"
  log "trace-compile $(basename "$model") --target=$1 -o $dir"
  local start=$SECONDS
  "$TRACE_BUILD_DIR/bin/trace-compile" "$model" --target="$1" -o "$dir"
  printf '    %s s; wrote:\n' "$((SECONDS - start))"
  (cd "$dir" && find . -maxdepth 1 -type f -printf '      %-28f %9s bytes\n' | sort)
  [ -d "$dir/kernels" ] && printf '      kernels/%-20s %9s files\n' "*.ptx" \
    "$(ls "$dir/kernels" | wc -l)"
  grep -E '^void ' "$dir/gpt.h" | cut -c1-100 | sed 's/^/    /; s/$/ .../'
}
compile cpu
if [ -f /usr/local/cuda/include/cuda.h ]; then
  compile cuda
fi
