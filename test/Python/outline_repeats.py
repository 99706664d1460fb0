"""A layer's function changes no number (test/Python/outline_repeats.test).

A 6-layer GPT (checkpointed blocks, dropout 0, so every block is the same
computation on its own weights) is compiled twice by trace_mlir.compile:
as by default, where trace-outline-repeats makes each kind of layer one
function that every layer calls and trace-plan-buffers gives its arena to
the caller's plan, and with --pipeline=outline-repeats=0, every layer's
code inline. The first library must have layer functions (in its
06-cpu.mlir), called more often than they are defined; the second none.
Five AdamW steps from the same weights: every loss, every gradient and the
final weights are bitwise equal (torch.equal), and the losses equal eager's
(rtol 1e-5). Prints PASS/FAIL lines; exits 1 if any failed.
"""

import copy
import os
import re
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402
from checks import check, summary, train_adamw  # noqa: E402


def layer_functions(directory):
    """Per library directory under `directory`: (layer functions defined,
    calls of them) in its lowered module."""
    found = {}
    for root, _, files in os.walk(directory):
        if "06-cpu.mlir" not in files:
            continue
        with open(os.path.join(root, "06-cpu.mlir")) as f:
            text = f.read()
        # A layer's function is named after its step function and layer
        # (forward_bwd_blocks_3); the step functions are forward_fwd,
        # forward_bwd and forward_grad.
        defined = set(re.findall(
            r"llvm\.func @(forward_(?:fwd|bwd|grad)_\w+)\(", text))
        calls = sum(len(re.findall(r"llvm\.call @" + re.escape(name) + r"\(",
                                   text)) for name in defined)
        found[root] = (len(defined), calls)
    return found


def main():
    torch.manual_seed(0)
    base = fixture_models.GPT(vocab=64, block_size=16, d_model=32, n_head=4,
                              n_layer=6, dropout=0.0, checkpoint=True)
    base.train()
    with tempfile.TemporaryDirectory() as outlined_cache, \
            tempfile.TemporaryDirectory() as inline_cache:
        outlined = train_adamw(copy.deepcopy(base), (), outlined_cache)
        inline = train_adamw(copy.deepcopy(base),
                       ("--pipeline=outline-repeats=0",), inline_cache)
        eager = train_adamw(copy.deepcopy(base), None, None)
        (defined, calls), = layer_functions(outlined_cache).values()
        check("the default library calls layer functions",
              defined >= 1 and calls > defined,
              f"{defined} defined, {calls} calls")
        (defined, calls), = layer_functions(inline_cache).values()
        check("outline-repeats=0 leaves every layer inline", defined == 0,
              f"{defined} defined")
        check("5 losses bitwise equal",
              all(torch.equal(a, b) for a, b in zip(outlined[0], inline[0])),
              f"{[float(x) for x in outlined[0]]} vs "
              f"{[float(x) for x in inline[0]]}")
        count = sum(len(g) for g in outlined[1])
        check(f"{count} gradients (5 steps) bitwise equal",
              all(torch.equal(a[n], b[n])
                  for a, b in zip(outlined[1], inline[1]) for n in a))
        check("weights after 5 AdamW steps bitwise equal",
              all(torch.equal(outlined[2][n], inline[2][n])
                  for n in outlined[2]))
        worst = max(float(((a - b).abs() / b.abs()).max())
                    for a, b in zip(outlined[0], eager[0]))
        check("losses equal eager's (rtol 1e-5)", worst <= 1e-5,
              f"worst relative difference {worst:.1e}")
    sys.exit(summary())


if __name__ == "__main__":
    main()
