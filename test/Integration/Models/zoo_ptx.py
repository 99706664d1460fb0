"""The model zoo's PTX (test/Integration/Models/zoo-ptx.test): each model of
zoo_models.py, exported in training mode (f32, trace_mlir.export), compiled by `trace-compile
--target=cuda` for sm_90 and for sm_80 (`--pipeline=chip=sm_80`); every
kernel's PTX (kernels/*.ptx) must assemble with ptxas for its chip.

    zoo_ptx.py --trace-compile BIN --ptxas BIN --workdir DIR [NAME ...]

Prints one line per model and chip, and exits 1 if a kernel fails.
"""

import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_models  # noqa: E402

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace-compile", required=True)
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    failed = 0
    for name in args.names or list(zoo_models.MODELS):
        model = os.path.join(args.workdir, f"{name}.pt2")
        shapes = zoo_models.export(name, model)
        for chip in ("sm_90", "sm_80"):
            out = os.path.join(args.workdir, f"{name}-{chip}")
            cmd = [args.trace_compile, model, f"--input-shape={shapes}",
                   "--target=cuda", f"--pipeline=chip={chip}", "-o", out]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"FAILED {name} {chip}: trace-compile: {proc.stderr.strip()}")
                failed += 1
                continue
            kernels = sorted(glob.glob(os.path.join(out, "kernels", "*.ptx")))

            def assemble(ptx):
                run = subprocess.run([args.ptxas, f"-arch={chip}", ptx, "-o", os.devnull],
                                     capture_output=True, text=True)
                return None if run.returncode == 0 else \
                    f"{os.path.basename(ptx)}: {run.stderr.strip()[:300]}"

            # One ptxas per kernel, as many at once as there are cores.
            with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
                bad = [b for b in pool.map(assemble, kernels) if b]
            if bad:
                print(f"FAILED {name} {chip}: " + "; ".join(bad[:3]))
                failed += 1
            print(f"{name} {chip}: assembled {len(kernels) - len(bad)} of {len(kernels)} kernels")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
