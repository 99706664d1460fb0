#!/usr/bin/env python3
"""The model zoo through torch-mlir and through trace-mlir, to linalg.

    bench/torch_mlir_zoo.py [--models a,b] [--write-docs]

For each model of the zoo (test/Integration/Models/zoo_models.py) and of
the idiom models (test/Python/idiom_models.py), in float32 with the first
batch:
  * torch-mlir (PyPI's torch-mlir, python/requirements.txt): its FX
    importer, torch_mlir.fx.export_and_import, to the torch dialect and
    to linalg-on-tensors. It imports the forward: torch-mlir builds no
    backward of its own;
  * trace-mlir: trace_mlir.export, trace-import, then trace-opt
    --trace-autodiff --trace-to-linalg: the training step (forward and
    backward) as linalg on tensors.
A cell is `ok` with the size of the linalg text and the time taken, or
the first line of the error. --write-docs writes docs/TorchMLIR.md.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Models"))
sys.path.insert(0, os.path.join(ROOT, "test", "Python"))
BIN = os.path.join(ROOT, "build", "bin")

import torch  # noqa: E402


def models():
    """name -> (module in float32, first batch)."""
    import idiom_models
    import zoo_models
    out = {}
    for name in zoo_models.MODELS:
        out[name] = lambda name=name: zoo_models.build(name)

    def idiom(name):
        torch.manual_seed(0)
        batch = idiom_models.batches(name, torch.Generator().manual_seed(1))[0]
        batch = tuple(t.float() if t.is_floating_point() else t
                      for t in batch)
        return idiom_models.MODELS[name]().float(), batch
    for name in idiom_models.MODELS:
        out[name] = lambda name=name: idiom(name)
    return out


def first_line(error):
    text = str(error).strip() or type(error).__name__
    line = next((l for l in text.splitlines() if l.strip()), text)
    return f"{type(error).__name__}: {line.strip()}"[:160]


def torch_mlir_row(module, inputs):
    from torch_mlir import fx
    cells = []
    for output in ("torch", "linalg-on-tensors"):
        start = time.time()
        try:
            text = str(fx.export_and_import(module, *inputs,
                                            output_type=output))
            cells.append(f"ok, {len(text) / 1e6:.1f} MB, "
                         f"{time.time() - start:.1f} s")
        except Exception as e:  # noqa: BLE001: any failure is the cell
            cells.append(first_line(e))
    return cells


def trace_mlir_row(module, inputs, work):
    import trace_mlir
    start = time.time()
    try:
        program = trace_mlir.export(module, inputs)
    except Exception as e:  # noqa: BLE001
        return first_line(e)
    pt2 = os.path.join(work, "model.pt2")
    torch.export.save(program, pt2)
    linalg = os.path.join(work, "step.linalg.mlir")
    steps = [[os.path.join(BIN, "trace-import"), pt2, "-o",
              os.path.join(work, "model.mlir")],
             [os.path.join(BIN, "trace-opt"), os.path.join(work, "model.mlir"),
              "--trace-autodiff", "--trace-to-linalg", "-o", linalg]]
    for command in steps:
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            error = next((l for l in proc.stderr.splitlines()
                          if "error" in l), proc.stderr.strip())
            return error.split("error: ", 1)[-1][:160]
    return (f"ok, {os.path.getsize(linalg) / 1e6:.1f} MB, "
            f"{time.time() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", help="comma separated (default: all)")
    parser.add_argument("--write-docs", action="store_true",
                        help="write docs/TorchMLIR.md")
    args = parser.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    import torch_mlir  # noqa: F401: fail early when it is missing
    from importlib.metadata import version
    table = models()
    names = args.models.split(",") if args.models else list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        sys.exit(f"torch_mlir_zoo: unknown models {unknown}; one of "
                 f"{sorted(table)}")
    lines = ["| model | torch-mlir: torch dialect (forward) | torch-mlir: "
             "linalg (forward) | trace-mlir: linalg (training step) |",
             "|---|---|---|---|"]
    counts = [0, 0, 0]
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            module, inputs = table[name]()
            cells = torch_mlir_row(module, inputs)
            cells.append(trace_mlir_row(module, inputs, work))
            for i, c in enumerate(cells):
                counts[i] += c.startswith("ok")
            lines.append(f"| {name} | " + " | ".join(
                c.replace("|", "\\|") for c in cells) + " |")
            print(lines[-1], flush=True)
    summary = (f"{len(names)} models: torch-mlir imports {counts[0]} and "
               f"lowers {counts[1]} to linalg (forward); trace-mlir lowers "
               f"{counts[2]} training steps to linalg")
    print()
    print(summary)
    if args.write_docs:
        head = [
            "# torch-mlir beside trace-mlir",
            "",
            "<!-- Generated by bench/torch_mlir_zoo.py; do not edit. -->",
            "",
            "Generated by `.venv/bin/python bench/torch_mlir_zoo.py "
            "--write-docs` (torch-mlir "
            f"{version('torch-mlir')}, PyTorch {torch.__version__}). The "
            "models are the zoo of `test/Integration/Models` and the idiom "
            "models of `test/Python/idiom_models.py`, in float32. "
            "torch-mlir's FX importer (`torch_mlir.fx.export_and_import`) "
            "imports a forward; trace-mlir's column is the training step "
            "(forward and backward) that `trace-opt --trace-autodiff "
            "--trace-to-linalg` exports. Each cell gives the size of the "
            "module's text and the time, or the first line of the error.",
            "",
        ]
        with open(os.path.join(ROOT, "docs", "TorchMLIR.md"), "w") as f:
            f.write("\n".join(head + lines + ["", summary, ""]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
