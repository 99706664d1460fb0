"""Donated saved values give the same step, bit for bit
(test/Python/donation.test).

The GPT fixture (checkpointed blocks, dropout 0.1) is compiled twice by
trace_mlir.compile: as by default, where forward_fwd allocates the values
it saves and forward_bwd frees each after its last read (the library's
JSON says "saved" and "donated"), and with --donate-saved=false, where
they are tensors the caller allocates and keeps. Five AdamW steps from the
same weights and seeds: every loss, every gradient and the final weights
are bitwise equal (torch.equal). A forward under no_grad and a graph
dropped before backward free their saved values through the library's
NAME_release (no leak: the process's heap does not grow over 50 such
steps). Prints PASS/FAIL lines; exits 1 if any failed.
"""

import copy
import ctypes
import json
import os
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402
from checks import batch, check, summary, train_adamw  # noqa: E402

def library_json(cache):
    found = {}
    for root, _, files in os.walk(cache):
        for f in files:
            if f.endswith(".json"):
                with open(os.path.join(root, f)) as handle:
                    d = json.load(handle)
                if "memory" in d and "functions" in d:
                    found[root] = d
    return found


def heap_bytes():
    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
            "fsmblks", "uordblks", "fordblks", "keepcost")]
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


def main():
    torch.manual_seed(0)
    base = fixture_models.GPT(vocab=64, block_size=16, d_model=32, n_head=4,
                              n_layer=2, dropout=0.1, checkpoint=True)
    with tempfile.TemporaryDirectory() as cache:
        donated = train_adamw(copy.deepcopy(base), (), cache)
        kept = train_adamw(copy.deepcopy(base), ("--donate-saved=false",),
                           cache)
        directions = sorted({s["direction"] for d in library_json(cache).values()
                             for f in d["functions"] for s in f["slots"]})
        check("one library donates, one keeps its saved values",
              directions == ["donated", "in", "out", "saved"],
              f"slot directions {directions}")
        same_loss = all(torch.equal(a, b) for a, b in zip(donated[0], kept[0]))
        check("5 losses bitwise equal", same_loss,
              f"{[float(x) for x in donated[0]]} vs {[float(x) for x in kept[0]]}")
        count = sum(len(g) for g in donated[1])
        same_grads = all(torch.equal(a[n], b[n])
                         for a, b in zip(donated[1], kept[1]) for n in a)
        check(f"{count} gradients (5 steps) bitwise equal", same_grads)
        same_weights = all(torch.equal(donated[2][n], kept[2][n])
                           for n in donated[2])
        check("weights after 5 AdamW steps bitwise equal", same_weights)

        # Saved values that never reach backward are released.
        step = donated[3]
        inputs = batch(torch.Generator().manual_seed(4))

        def dropped():
            step(*inputs)            # a graph nobody differentiates

        def no_grad():
            with torch.no_grad():
                step(*inputs)
        for name, fn in (("a graph dropped before backward", dropped),
                         ("a forward under no_grad", no_grad)):
            for _ in range(5):
                fn()
            before = heap_bytes()
            for _ in range(50):
                fn()
            grown = heap_bytes() - before
            check(f"{name} frees its saved values", grown < 256 * 1024,
                  f"heap grew {grown} bytes over 50 calls")
    sys.exit(summary())


if __name__ == "__main__":
    main()
