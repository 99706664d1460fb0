#!/usr/bin/env python3
"""trace-fuse changes no number: fused functions equal the unfused ones.

Runs trace-autodiff (and trace-remat with `--remat B`) on a module, then
trace-fuse, and with trace-run on inputs drawn from a seed compares, for
each function named by `--entry`:

* unfused: the function as trace-autodiff / trace-remat left it, through
  trace-run's CPU pipeline (the reference);
* fused: the same function after trace-fuse, through the same pipeline
  (trace-to-linalg inlines the fusion regions);
* kernels: the fused function lowered as the GPU pipeline lowers it,
  `trace-to-linalg{keep-fusions}` then `trace-lower-fusions` (each fusion
  made one linalg.generic: multi-output ops, reshapes moved, fills folded
  into reductions), then trace-run's CPU pipeline on that linalg. The
  linalg carries no value names, so arguments and results go by position.
  A reduction fused into a generic is summed in order, where the CPU
  pipeline sums a plain linalg.reduce in vector registers
  (trace-vectorize-reductions), so this form and its reference both run
  with `--ordered-reductions`;
* with `--gpu-kernels`: the fused function through `trace-run
  --gpu-kernels`, the kernels trace-gpu-pipeline forms, each run as loops
  over its blocks and threads. Block reductions add in another order, so
  this one is compared within `--gpu-rtol`/`--gpu-atol` (the GPU check
  runners' f32 tolerance by default).

An entry that reads another's results (`forward_bwd` reads what
`forward_fwd` saved) takes them from the reference run of that entry, so
list producers first. Every result must be equal bit for bit (rtol 0,
atol 0) unless `--rtol`/`--atol` say otherwise. Prints, per entry, the
number of fusions (loop / input) and the comparison.

    fuse_numerics.py --input model.mlir --trace-opt BIN --trace-run BIN \\
        --workdir DIR --entry forward_grad [--entry ...] [--remat B]
        [--gpu-kernels]
"""

import argparse
import os
import re
import sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_compare import run, worst_ratio  # noqa: E402


def only(trace_opt, module, entry, path):
    """A copy of `module` holding only `entry`: trace-run compiles every
    function of its input."""
    run([trace_opt, module, f"--symbol-privatize=exclude={entry}",
         "--symbol-dce", "-o", path])
    return path


def signature_names(module, entry):
    """The trace-run names of `entry`'s arguments and results, in order:
    trace.name, else argN / resultN (what trace-run uses)."""
    text = open(module).read()
    match = re.search(r"func\.func @%s\((.*?)\) -> (.*?) (?:attributes )?\{\n"
                      % re.escape(entry), text)
    if not match:
        sys.exit(f"{module}: no signature for @{entry}")
    args = re.findall(r"%[\w.]+: [^,{]+(?:\{([^}]*)\})?", match.group(1))
    results_text = match.group(2)
    if results_text.startswith("("):
        results_text = results_text[1:-1]
    results = re.findall(r"tensor<[^>]*>(?: \{([^}]*)\})?", results_text)

    def name(attrs, default):
        found = re.search(r'trace\.name = "([^"]*)"', attrs or "")
        return found.group(1) if found else default

    return ([name(a, f"arg{i}") for i, a in enumerate(args)],
            [name(r, f"result{i}") for i, r in enumerate(results)])


def count_fusions(module, entry):
    text = open(module).read()
    body = text[text.index(f"func.func @{entry}("):]
    end = re.search(r"\n  func\.func ", body[1:])
    body = body[: end.start() + 1] if end else body
    return (len(re.findall(r'trace\.fusion "loop_', body)),
            len(re.findall(r'trace\.fusion "input_', body)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--trace-opt", required=True)
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--entry", action="append", required=True)
    parser.add_argument("--remat", help="run trace-remat with this budget")
    parser.add_argument("--seed", default="3")
    parser.add_argument("--rtol", type=float, default=0.0)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--gpu-kernels", action="store_true")
    parser.add_argument("--gpu-rtol", type=float, default=1e-4)
    parser.add_argument("--gpu-atol", type=float, default=1e-4)
    args = parser.parse_args()
    d = args.workdir
    os.makedirs(d, exist_ok=True)

    unfused = os.path.join(d, "unfused.mlir")
    passes = ["--trace-autodiff"]
    if args.remat:
        passes.append(f"--trace-remat=budget={args.remat}")
    run([args.trace_opt, args.input, *passes, "-o", unfused])
    fused = os.path.join(d, "fused.mlir")
    run([args.trace_opt, unfused, "--trace-fuse", "-o", fused])

    def compare(label, ours, ref):
        return worst_ratio(label, ours, ref, args.rtol, args.atol,
                           "the unfused result")

    produced = {}  # name -> .npy of the reference runs so far
    for entry in args.entry:
        e = os.path.join(d, entry)
        os.makedirs(e, exist_ok=True)
        arg_names, result_names = signature_names(
            only(args.trace_opt, unfused, entry, os.path.join(e, "unfused.mlir")), entry)
        given = [f"--arg={n}={produced[n]}" for n in arg_names if n in produced]
        ref = os.path.join(e, "ref")
        run([args.trace_run, os.path.join(e, "unfused.mlir"), f"--entry={entry}",
             "--quiet", f"--random-inputs={args.seed}", f"--out-dir={ref}", *given])
        inputs = {n: os.path.join(ref, "inputs", n + ".npy") for n in arg_names}
        outputs = {n: os.path.join(ref, n + ".npy") for n in result_names}
        for n in arg_names:
            if not os.path.exists(inputs[n]):
                inputs[n] = produced[n]

        fused_entry = only(args.trace_opt, fused, entry, os.path.join(e, "fused.mlir"))
        loops, reductions = count_fusions(fused_entry, entry)
        if loops + reductions == 0:
            sys.exit(f"@{entry}: trace-fuse formed no fusion")
        out = os.path.join(e, "fused")
        run([args.trace_run, fused_entry, f"--entry={entry}", "--quiet",
             f"--out-dir={out}", *[f"--arg={n}={p}" for n, p in inputs.items()]])
        worst = compare(f"@{entry} fused", {n: os.path.join(out, n + ".npy")
                                            for n in result_names}, outputs)

        ordered = os.path.join(e, "ref-ordered")
        run([args.trace_run, os.path.join(e, "unfused.mlir"), f"--entry={entry}",
             "--quiet", "--ordered-reductions", f"--out-dir={ordered}",
             *[f"--arg={n}={p}" for n, p in inputs.items()]])
        kernels = os.path.join(e, "kernels.mlir")
        run([args.trace_opt, fused_entry, "--trace-to-linalg=keep-fusions",
             "--trace-lower-fusions", "-o", kernels])
        out = os.path.join(e, "kernels")
        run([args.trace_run, kernels, f"--entry={entry}", "--quiet",
             "--ordered-reductions", f"--out-dir={out}",
             *[f"--arg=arg{i}={inputs[n]}" for i, n in enumerate(arg_names)]])
        worst = max(worst, compare(
            f"@{entry} kernels",
            {n: os.path.join(out, f"result{i}.npy") for i, n in enumerate(result_names)},
            {n: os.path.join(ordered, n + ".npy") for n in result_names}))

        how = "exactly" if worst == 0 else f"within tolerance (worst {worst:.2g} of it)"
        print(f"@{entry}: {loops} loop and {reductions} input fusions; "
              f"{len(result_names)} results, fused and as kernels, equal the "
              f"unfused ones {how}")
        if args.gpu_kernels:
            out = os.path.join(e, "gpu-kernels")
            run([args.trace_run, fused_entry, f"--entry={entry}", "--quiet",
                 "--gpu-kernels", f"--out-dir={out}",
                 *[f"--arg={n}={p}" for n, p in inputs.items()]])
            worst = worst_ratio(
                f"@{entry} GPU kernels",
                {n: os.path.join(out, n + ".npy") for n in result_names},
                outputs, args.gpu_rtol, args.gpu_atol, "the unfused result")
            how = ("exactly" if worst == 0 else
                   f"within {args.gpu_atol:g} + {args.gpu_rtol:g} |ref| "
                   f"(worst {worst:.2g} of it)")
            print(f"@{entry}: as GPU kernels run on the CPU, equal the "
                  f"unfused ones {how}")
        produced.update(outputs)


if __name__ == "__main__":
    main()
