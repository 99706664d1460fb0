#!/usr/bin/env python3
"""@f_fwd then @f_bwd give exactly @f_grad's results.

Runs trace-autodiff on a module, then with trace-run: @forward_grad on
inputs drawn from a seed (everything kept live), @forward_fwd on the same
inputs, and @forward_bwd on what @forward_fwd saved plus the same output
cotangent. The outputs of @forward_fwd and the gradients of @forward_bwd
must equal @forward_grad's bit for bit (rtol 0, atol 0): recomputing a
checkpoint region, dropout's Philox mask included, gives the same numbers.

With `--remat B` (repeatable) the same check runs on the @forward_fwd /
@forward_bwd that `--trace-remat="budget=B"` makes after trace-autodiff
(B = 1 is the plain min-cut), against the same @forward_grad run;
`--remat-schedule B` does the same with `--trace-schedule` after
trace-remat (values recomputed again, ops reordered).

`--rtol`/`--atol` (default 0: bit for bit) allow |a - b| <= atol + rtol |b|.
Elementwise code is the same in @forward_grad and the split, but a matmul
can reach OpenBLAS in another form (a transposed operand read through a
view in @forward_grad is a saved, materialized transpose in @forward_bwd),
and some OpenBLAS CPU kernels (the AVX-512 ones picked on this machine
unless OPENBLAS_CORETYPE says otherwise) then round differently. Exact on
the bundled example; the GPT fixture needs a tolerance.

    split_numerics.py --input model.mlir --trace-opt trace-opt \\
        --trace-run trace-run --workdir DIR [--remat 1 --remat 0.5 ...]
"""

import argparse
import os
import re
import sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_compare import run, worst_ratio  # noqa: E402


def only(trace_opt, module, entry, workdir):
    """A copy of `module` holding only `entry` (and what it calls): trace-run
    compiles every function of its input, and a training module holds four."""
    path = os.path.join(workdir, f"{entry}.{os.path.basename(module)}")
    run([trace_opt, module, f"--symbol-privatize=exclude={entry}", "--symbol-dce",
         "-o", path])
    return path


def forward_bwd_arguments(module):
    """The text of @forward_bwd's argument list in `module`."""
    text = open(module).read()
    start = text.index("func.func @forward_bwd(")
    return text[start:text.index(") ->", start)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--trace-opt", required=True)
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--seed", default="3")
    parser.add_argument("--rtol", type=float, default=0.0)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--remat", action="append", default=[],
                        help="also check trace-remat with this budget")
    parser.add_argument("--remat-schedule", action="append", default=[],
                        help="also check trace-remat with this budget, "
                             "then trace-schedule")
    args = parser.parse_args()
    d = args.workdir
    os.makedirs(d, exist_ok=True)
    grad_mlir = os.path.join(d, "grad.mlir")
    run([args.trace_opt, args.input, "--trace-autodiff", "-o", grad_mlir])

    joint = os.path.join(d, "joint")
    run([args.trace_run, only(args.trace_opt, grad_mlir, "forward_grad", d),
         "--entry=forward_grad", "--quiet",
         f"--random-inputs={args.seed}", f"--out-dir={joint}"])
    names = sorted(os.listdir(os.path.join(joint, "inputs")))
    inputs = {n[:-4]: os.path.join(joint, "inputs", n) for n in names}

    variants = [("trace-autodiff", grad_mlir)]
    for budget in args.remat:
        path = os.path.join(d, f"remat_{budget}.mlir")
        run([args.trace_opt, args.input, "--trace-autodiff",
             f"--trace-remat=budget={budget}", "-o", path])
        variants.append((f"trace-remat budget={budget}", path))
    for budget in args.remat_schedule:
        path = os.path.join(d, f"remat_schedule_{budget}.mlir")
        run([args.trace_opt, args.input, "--trace-autodiff",
             f"--trace-remat=budget={budget}", "--trace-schedule",
             "-o", path])
        variants.append((f"trace-remat budget={budget} + trace-schedule", path))

    def compare(label, what, ours, ref):
        """Largest |a - b| / (atol + rtol |b|) over the values; exits if > 1."""
        return worst_ratio(f"{label}: {what}", ours, ref, args.rtol, args.atol,
                           "@forward_grad's")

    grads = {n[:-4]: os.path.join(joint, n) for n in os.listdir(joint)
             if n.startswith("grad.")}
    outputs = {n[:-4]: os.path.join(joint, n) for n in os.listdir(joint)
               if n.endswith(".npy") and not n.startswith("grad.")}
    for index, (label, module) in enumerate(variants):
        fwd, bwd = os.path.join(d, f"fwd{index}"), os.path.join(d, f"bwd{index}")
        run([args.trace_run, only(args.trace_opt, module, "forward_fwd", d),
             "--entry=forward_fwd", "--quiet", f"--out-dir={fwd}"]
            + [f"--arg={n}={p}" for n, p in inputs.items() if not n.startswith("cot.")])
        saved = sorted(n[:-4] for n in os.listdir(fwd) if n.startswith("saved."))
        bwd_module = only(args.trace_opt, module, "forward_bwd", d)
        # Besides the saved values and the cotangents, @forward_bwd reads
        # the weights and inputs it needs as they are (not saved copies).
        bwd_args = set(re.findall(r'trace.name = "([^"]+)"', forward_bwd_arguments(bwd_module)))
        run([args.trace_run, bwd_module,
             "--entry=forward_bwd", "--quiet", f"--out-dir={bwd}"]
            + [f"--arg={n}={os.path.join(fwd, n + '.npy')}" for n in saved]
            + [f"--arg={n}={p}" for n, p in inputs.items()
               if n.startswith("cot.") or n in bwd_args])
        worst = max(
            compare(label, "@forward_fwd's", {n: os.path.join(fwd, n + ".npy") for n in outputs},
                    outputs),
            compare(label, "@forward_bwd's", {n: os.path.join(bwd, n + ".npy") for n in grads},
                    grads))
        how = "exactly" if worst == 0 else f"within tolerance (worst {worst:.2g} of it)"
        weights = sorted(n for n in bwd_args if n in inputs)
        print(f"{os.path.basename(args.input)}, {label}: {len(saved)} saved values "
              f"and {len(weights)} arguments read again; "
              f"@forward_fwd's {len(outputs)} outputs and @forward_bwd's {len(grads)} "
              f"gradients equal @forward_grad's {how}")

if __name__ == "__main__":
    main()
