#!/usr/bin/env python3
"""Writes the .npy inputs of test/BadInput/trace-run.test (numpy; the
references are torch 1.13's results on the same inputs):

  .venv/bin/python test/BadInput/Inputs/npy/make_npy.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, array):
    np.save(os.path.join(HERE, name + ".npy"), array)


def main():
    nonfinite = np.array([[np.nan, np.inf, -np.inf], [0, 1, -1]], np.float32)
    save("nonfinite-2x3", nonfinite)
    save("wrong-shape-3x2", np.zeros((3, 2), np.float32))
    save("wrong-dtype-f64", np.zeros((2, 3), np.float64))
    save("uint8", np.zeros((2, 3), np.uint8))
    save("fortran", np.asfortranarray(np.arange(6, dtype=np.float32)
                                      .reshape(2, 3)))
    raw = open(os.path.join(HERE, "nonfinite-2x3.npy"), "rb").read()
    open(os.path.join(HERE, "truncated-data.npy"), "wb").write(raw[:-5])
    open(os.path.join(HERE, "truncated-header.npy"), "wb").write(raw[:40])
    open(os.path.join(HERE, "garbage.npy"), "wb").write(b"not an array\n")
    # NaN and infinities through the transcendental ops, against torch.
    x = np.array([np.nan, np.inf, -np.inf, 0, -0.0, 1, -1, 100], np.float32)
    save("x8", x)
    try:
        import torch
    except ImportError:
        return
    t = torch.from_numpy(x)
    for name, fn in [("exp", torch.exp), ("tanh", torch.tanh),
                     ("log", torch.log), ("erf", torch.erf),
                     ("logistic", torch.sigmoid), ("sqrt", torch.sqrt),
                     ("rsqrt", torch.rsqrt), ("sin", torch.sin)]:
        save("ref-" + name, fn(t).numpy())
    # Integer division by zero and INT_MIN / -1: -1 and INT_MIN, as XLA.
    save("int-num", np.array([7, -7, -2**31, 9], np.int32))
    save("int-den", np.array([0, 0, -1, 2], np.int32))
    save("int-quot", np.array([-1, -1, -2**31, 4], np.int32))


if __name__ == "__main__":
    main()
