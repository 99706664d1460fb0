"""Writes the .npy files the trace-run tests read, with a fixed seed, and the
reference result (numpy's tanh(x @ w)) in float64 then float32."""
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(7)
x = rng.uniform(-1, 1, (4, 8)).astype(np.float32)
w = rng.uniform(-1, 1, (8, 3)).astype(np.float32)
np.save(f"{out}/x.npy", x)
np.save(f"{out}/w.npy", w)
np.save(f"{out}/out.npy", np.tanh(x.astype(np.float64) @ w).astype(np.float32))
wrong = np.tanh(x.astype(np.float64) @ w).astype(np.float32)
wrong[2, 1] += 0.5
np.save(f"{out}/wrong.npy", wrong)
np.save(f"{out}/w_shape.npy", w.T.copy())
np.save(f"{out}/w_f64.npy", w.astype(np.float64))
np.save(f"{out}/w_fortran.npy", np.asfortranarray(w))
np.save(f"{out}/bf16_in.npy", np.array([0.0, 1.0], dtype=np.float32))
with open(f"{out}/truncated.npy", "wb") as f:
    f.write(open(f"{out}/w.npy", "rb").read()[:150])
with open(f"{out}/garbage.npy", "wb") as f:
    f.write(b"not a numpy file at all")
