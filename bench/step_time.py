#!/usr/bin/env python3
"""Training-step time, peak memory and compile time: trace-compile's
library against the peers a user would pick (PyTorch eager, eager with
checkpointed blocks, selective activation checkpointing, torch.compile
with and without AOTAutograd's activation memory budget, Lightning
Thunder, and trace-mlir as a torch.compile backend), on one GPT
(fixture_models.GPT, dropout 0 so every variant computes the same
numbers).

    bench/step_time.py [--build build] [--layers 4] [--d-model 256] ...
    bench/step_time.py --peers torch-compile,SAC-matmul-outputs-saved ...
    bench/step_time.py --device cuda --prepare DIR   # here: libraries
    bench/step_time.py --run DIR                     # on the GPU machine

A step is forward (loss), then backward (every parameter's gradient):
for trace-mlir, the library's NAME_forward_fwd then NAME_forward_bwd, the
values saved for backward (the library's buffers, which NAME_forward_bwd
frees) held by the caller in between, as a training loop holds them. trace-compile runs with each remat plan in PLANS. The
parameters are saved once (state.pt) and loaded by every variant, so the
GPU machine's PyTorch computes on the same numbers.

Each variant runs in a process of its own. Time is the median of
--repeat steps after two warm-up steps (torch.compile compiles in them);
with --rounds N, of N such processes per variant, the variants taking
turns.
Predicted MB is what trace-compile's memory report predicts for the
compiled step (trace-resident-report: the planned buffers of the code
that runs, counted as the peak is measured here); trace model MB is the
trace-level model of trace-memory-report, before bufferization and
fusion; live MB is the most bytes the compiled step's buffers hold live
at once (trace-resident-report: over the ops, what is resident less the
arena pages that hold no live buffer), the peak if each page were held
only while a buffer on it is live, one arena across forward and backward
included; floor
MB is what any plan must hold (the gradients plus the largest
transient).

Gradients are compared with eager's (rtol 1e-3, atol 1e-5 on the CPU;
rtol 1e-2, atol 1e-4 on the GPU, where TF32 and reduction orders differ),
so a fast wrong answer shows.

CPU: one thread unless --threads (torch.set_num_threads, and
OMP_NUM_THREADS for Inductor's kernels and the library's OpenMP team,
which runs its kernels and matmuls), so the ratios compare code, not core
counts. trace-compile builds the libraries
with --host-cpu=native: they run where they were built, as PyTorch's
kernels pick this CPU's vector units at run time. Time and peak come from
three processes. Step ms: time with glibc's allocator as users have it.
glibc then returns some freed blocks to the system and not others, step
by step, and a step that faults its memory in again is two to three
times slower (on this 2-core VM, eager's steps ranged 190-800 ms in one
process): kept-heap ms is the same steps with MALLOC_MMAP_THRESHOLD_ and
MALLOC_TRIM_THRESHOLD_ at 1 GiB, a heap that keeps what is freed, as a
caching allocator does, which times the code rather than the allocator. Peak with MALLOC_MMAP_THRESHOLD_=65536, so every tensor-sized
block is mapped on allocation and returned on free: how far the resident
set grew above its size before the step (the kernel's high-water mark,
reset through /proc/self/clear_refs), with parameters and inputs already
resident. (Timing under that setting measures page faults: it made eager
about 10x slower and trace-mlir 3x.)

GPU: peak is what the step allocated above what was allocated before it:
PyTorch's max_memory_allocated for the torch variants; for trace-mlir,
the caller's result buffers (PyTorch's allocator) plus the library's
temporaries and the values forward_fwd saves, which forward_bwd frees on
its stream after their last read (the driver's default memory pool,
which the runtime's cuMemAllocAsync uses: its USED_MEM_HIGH). The two peaks are added, so
trace-mlir's figure is an upper bound.

Compile s: for the libraries, trace-compile's seconds (and for the
package row, trace_mlir.compile's); for the jit rows, how much longer the
first step takes than a step, in the row's first process, with an empty
Inductor cache (each row keeps its own, TORCHINDUCTOR_CACHE_DIR) and an
empty trace-mlir cache. Cached s: the same in the row's other processes,
which find the caches the first one left.

Thunder runs in its own environment (THUNDER_NOTE); without one its row
says n/a.
"""


import argparse
import ctypes
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from xml.sax.saxutils import escape

import numpy as np
import torch

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402

# trace-compile's remat settings: (label, flags).
PLANS = [
    ("trace-mlir, no remat", ["--no-remat"]),
    ("trace-mlir, min-cut", []),
    ("trace-mlir, budget 0.5", ["--remat=budget=0.5"]),
    ("trace-mlir, budget 0.25", ["--remat=budget=0.25"]),
    # CPU only (a trace-cpu-pipeline option): every temporary its own
    # allocation, as before trace-plan-buffers.
    ("trace-mlir, min-cut, a malloc per buffer", ["--pipeline=plan-buffers=0"]),
    # CPU only: arena pages also go back between two of their lifetimes
    # where that lowers the peak (the peak at the live bytes; the pages
    # fault in again).
    ("trace-mlir, min-cut, pages released between lifetimes",
     ["--pipeline=release-between-lifetimes=1"]),
    # CPU only: every kernel and matmul on the calling thread, none on
    # the OpenMP team (the A/B of the kernels' threads).
    ("trace-mlir, min-cut, no thread team", ["--pipeline=threads=0"]),
    # Every layer's code inline, as before trace-outline-repeats made each
    # kind of layer one function (the A/B of issue 18; on the GPU, each
    # layer's call queues its work on the step's stream).
    ("trace-mlir, min-cut, layers inline", ["--pipeline=outline-repeats=0"]),
    # The same GPT traced with checkpoint(block, h, use_reentrant=False) per
    # block (fixture_models.CallingGPT): a region per call, from the import.
    ("trace-mlir, checkpoint calls, no remat", ["--no-remat"]),
    ("trace-mlir, checkpoint calls, min-cut", []),
    ("trace-mlir, checkpoint calls, min-cut, layers inline",
     ["--pipeline=outline-repeats=0"]),
    # CPU only: python/trace_mlir's module (torch.autograd.Function around
    # the same library), called as a training loop calls it, the Python
    # around the library included.
    ("trace_mlir.compile, min-cut", []),
]
PACKAGE = "trace_mlir.compile, min-cut"

# The peers a user would pick, beside trace-mlir's libraries: (label,
# how the worker builds the step). Every one runs the same weights.
TORCH_VARIANTS = [
    "eager",
    "eager, checkpointed blocks",
    # Selective activation checkpointing: each block checkpointed with a
    # policy that saves the matmuls' outputs and recomputes the rest.
    "SAC, matmul outputs saved",
    "torch.compile",
    # AOTAutograd's knapsack over recomputation at a fraction of the
    # activation memory.
    "torch.compile, budget 0.5",
    "torch.compile, budget 0.25",
    # Lightning Thunder on the GPT that checkpoints each block with a call;
    # it runs in its own environment (thunder_python; see THUNDER_NOTE).
    "thunder.jit, checkpointed blocks",
    # trace-mlir as a torch.compile backend: dynamo's graph, trace-mlir's
    # forward and backward.
    "trace-mlir, torch.compile backend, min-cut",
]
BACKEND = "trace-mlir, torch.compile backend, min-cut"
THUNDER = "thunder.jit, checkpointed blocks"
THUNDER_NOTE = ("Thunder 0.2.6, the newest release, does not import with "
                "torch 2.14 (it names Tensor.align_as), so it runs on torch "
                "2.8 in an environment of its own (bench/thunder-env.sh); "
                "its 'vs eager' compares with eager on the project's torch")
# What the SAC row saves.
MATMULS = (torch.ops.aten.mm.default, torch.ops.aten.addmm.default,
           torch.ops.aten.bmm.default, torch.ops.aten.baddbmm.default)
TOLERANCE = {"cpu": (1e-3, 1e-5), "cuda": (1e-2, 1e-4)}

DTYPES = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64,
          "i32": torch.int32, "i1": torch.bool}
CTYPES = {torch.float32: ctypes.c_float, torch.float64: ctypes.c_double,
          torch.int64: ctypes.c_int64, torch.int32: ctypes.c_int32,
          torch.bool: ctypes.c_uint8}
CU_MEMPOOL_ATTR_USED_MEM_HIGH = 8  # cuda.h's CUmemPool_attribute


def selected_plans(names, device):
    """PLANS whose directory name ends with one of the comma-separated
    `names` (no-remat, min-cut, budget-0-5, budget-0-25,
    a-malloc-per-buffer, pages-released-between-lifetimes,
    no-thread-team, layers-inline);
    all that apply to `device` when
    empty."""
    wanted = [n for n in names.split(",") if n]
    plans = [(label, flags) for label, flags in PLANS
             if (device == "cpu" or not (
                 label == PACKAGE or "--pipeline=plan-buffers=0" in flags
                 or "--pipeline=release-between-lifetimes=1" in flags
                 or "--pipeline=threads=0" in flags))
             and (not wanted or any(plan_dir(label).endswith(n) for n in wanted))]
    if not plans:
        sys.exit(f"error: no plan named {names}")
    return plans


def selected_peers(names):
    """TORCH_VARIANTS whose directory name is one of the comma-separated
    `names` (eager, SAC-matmul-outputs-saved, torch-compile-budget-0-5,
    ...); all when empty. Eager is always first: the ratios are to it."""
    wanted = [n for n in names.split(",") if n]
    unknown = set(wanted) - {plan_dir(v) for v in TORCH_VARIANTS}
    if unknown:
        sys.exit(f"error: no peer named {', '.join(sorted(unknown))}; "
                 f"one of {', '.join(plan_dir(v) for v in TORCH_VARIANTS)}")
    return ["eager"] + [v for v in TORCH_VARIANTS[1:]
                        if not wanted or plan_dir(v) in wanted]


def plan_dir(label):
    return re.sub(r"\W+", "-", label).strip("-")


class SelectiveGPT(fixture_models.GPT):
    """The GPT with each block checkpointed by PyTorch's selective
    activation checkpointing: the outputs of MATMULS are saved, the rest
    recomputed in the backward."""

    def __init__(self, **kwargs):
        super().__init__(checkpoint=False, **kwargs)

    def forward(self, idx, targets):
        from functools import partial
        from torch.utils.checkpoint import (
            CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts)

        def policy(ctx, op, *args, **kwargs):
            return (CheckpointPolicy.MUST_SAVE if op in MATMULS
                    else CheckpointPolicy.PREFER_RECOMPUTE)
        context = partial(create_selective_checkpoint_contexts, policy)
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        h = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=False, context_fn=context)
        logits = self.lm_head(self.ln_f(h))
        return torch.nn.functional.cross_entropy(
            logits.view(-1, logits.size(-1)), targets.view(-1))


def make_model(cfg, checkpoint, state=None, kind="gpt"):
    """The bench's GPT: `kind` "gpt" (CheckpointWrapper'd blocks with
    `checkpoint`), "selective" (SelectiveGPT) or "calls" (CallingGPT,
    each block checkpointed with a torch.utils.checkpoint call)."""
    torch.manual_seed(0)
    shape = dict(vocab=cfg["vocab"], block_size=cfg["T"], d_model=cfg["C"],
                 n_head=cfg["H"], n_layer=cfg["layers"], dropout=0.0)
    if kind == "selective":
        model = SelectiveGPT(**shape)
    elif kind == "calls":
        model = fixture_models.CallingGPT("module", **shape)
    else:
        model = fixture_models.GPT(checkpoint=checkpoint, **shape)
    if state is not None:
        # CheckpointWrapper's modules carry the wrapper's prefix.
        model.load_state_dict({
            k: state[k.replace("_checkpoint_wrapped_module.", "")]
            for k in model.state_dict()})
    model.train()
    return model


def make_inputs(cfg):
    gen = torch.Generator().manual_seed(1)
    shape = (cfg["B"], cfg["T"])
    return {"idx": torch.randint(0, cfg["vocab"], shape, generator=gen),
            "targets": torch.randint(0, cfg["vocab"], shape, generator=gen)}


def parse_header(path):
    """{function: [(direction, shape, dtype, path)]} from the comment block
    trace-compile writes above each function."""
    functions, current = {}, None
    entry = re.compile(r"^ \*   (in|out|saved|donated) +(\w+): (\S+)  \((.*)\)$")
    for line in open(path):
        m = re.match(r"^/\* @(\w+):", line)
        if m:
            current = functions.setdefault(m.group(1), [])
            continue
        m = entry.match(line.rstrip("\n"))
        if m and current is not None:
            direction, _, typ, where = m.groups()
            *dims, dtype = typ.split("x")
            current.append((direction.strip(), [int(d) for d in dims],
                            DTYPES[dtype], where))
    return functions


class Memory:
    """The peak a step allocates above what was there before it."""

    def __init__(self, device, library):
        self.device = device
        self.pool = None
        if device == "cuda" and library:
            self.cuda = ctypes.CDLL("libcuda.so.1")
            dev, pool = ctypes.c_int(), ctypes.c_void_p()
            self._check(self.cuda.cuDeviceGet(ctypes.byref(dev), 0))
            self._check(self.cuda.cuDeviceGetDefaultMemPool(ctypes.byref(pool), dev))
            self.pool = pool

    @staticmethod
    def _check(result):
        if result != 0:
            raise RuntimeError(f"CUDA driver call failed: CUresult {result}")

    def _pool_high(self, reset=False):
        value = ctypes.c_uint64(0)
        fn = self.cuda.cuMemPoolSetAttribute if reset else self.cuda.cuMemPoolGetAttribute
        self._check(fn(self.pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, ctypes.byref(value)))
        return value.value

    def peak_mb(self, step):
        if self.device == "cpu":
            before = self._status("VmRSS")
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # VmHWM back to the current RSS
            step()
            return (self._status("VmHWM") - before) / 1024.0
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        if self.pool is not None:
            self._pool_high(reset=True)
        step()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - before
        if self.pool is not None:
            peak += self._pool_high()
        return peak / 2**20

    @staticmethod
    def _status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        raise RuntimeError(f"no {key} in /proc/self/status")


def timed(step, repeat, device):
    def sync():
        if device == "cuda":
            torch.cuda.synchronize()
    sync()
    start = time.perf_counter()
    step()
    sync()
    first = (time.perf_counter() - start) * 1e3
    step()
    times = []
    for _ in range(repeat):
        sync()
        start = time.perf_counter()
        step()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    median = float(np.median(times))
    # The first step compiles for the jit rows: its time beyond a step's.
    return median, max(first - median, 0.0) / 1e3


class Library:
    """trace-compile's library for the model, called through ctypes on
    tensors the caller owns (device pointers for --target=cuda)."""

    def __init__(self, outdir, name, model, inputs, device):
        self.lib = ctypes.CDLL(os.path.join(outdir, f"lib{name}.so"))
        self.header = parse_header(os.path.join(outdir, f"{name}.h"))
        self.device = device
        self.known = dict(model.named_parameters())
        self.known.update(model.named_buffers())
        self.known.update(inputs)
        self.known["seed"] = torch.zeros((), dtype=torch.int64, device=device)
        self.fwd = self._bind(name, "forward_fwd")
        self.bwd = self._bind(name, "forward_bwd")

    def _bind(self, name, function):
        fn = getattr(self.lib, f"{name}_{function}")
        fn.restype = None
        return fn, self.header[function]

    def _call(self, bound, values, donated=()):
        """Calls the function on `values` by name, and on `donated` (saved
        pointers) in order; returns its results by name, and the pointers
        of the values it saved, in order."""
        fn, entries = bound
        outs, args, saved = {}, [], []
        donated = list(donated)
        for direction, shape, dtype, where in entries:
            if direction == "saved":
                # The library allocates it and writes its pointer here
                # (by position: two values of one submodule may share a
                # name).
                saved.append(ctypes.c_void_p())
                args.append(ctypes.byref(saved[-1]))
                continue
            if direction == "donated":
                # forward_bwd frees it after its last read.
                args.append(donated.pop(0))
                continue
            if direction == "in":
                t = values[where].detach()
            else:
                t = torch.empty(shape, dtype=dtype, device=self.device)
                outs[where] = t
            if not t.is_contiguous() or t.dtype != dtype or list(t.shape) != shape:
                raise RuntimeError(f"{where}: expected contiguous {dtype} {shape}")
            args.append(ctypes.c_void_p(t.data_ptr()))
        if self.device == "cuda":
            torch.cuda.synchronize()  # the library runs on its own stream
        fn(*args)
        return outs, saved

    def step(self):
        forward, donated = self._call(self.fwd, self.known)
        # forward_bwd reads what forward_fwd saved (the library's buffers,
        # host or device, which it frees; with --donate-saved=false, the
        # caller's), and the weights and inputs themselves (the same
        # buffers again).
        values = dict(self.known)
        values.update((k, v) for k, v in forward.items() if k.startswith("saved."))
        values["cot.result0"] = torch.ones((), dtype=torch.float32, device=self.device)
        grads, _ = self._call(self.bwd, values, donated)
        return {where[len("grad."):]: g for where, g in grads.items()}


def worker(args):
    with open(os.path.join(args.dir, "config.json")) as f:
        cfg = json.load(f)
    device = cfg["device"]
    if device == "cpu":
        torch.set_num_threads(cfg.get("threads", 1))
    state = torch.load(os.path.join(args.dir, "state.pt"))
    inputs = {k: v.to(device) for k, v in make_inputs(cfg).items()}
    result = {}
    grads = {}
    if args.worker in TORCH_VARIANTS:
        kind = {"SAC, matmul outputs saved": "selective",
                THUNDER: "calls"}.get(args.worker, "gpt")
        model = make_model(cfg, args.worker.startswith("eager, checkpointed"),
                           state, kind).to(device)
        run = model
        if args.worker.startswith("torch.compile"):
            budget = re.search(r"budget ([0-9.]+)", args.worker)
            if budget:
                import torch._functorch.config as functorch_config
                functorch_config.activation_memory_budget = float(
                    budget.group(1))
            run = torch.compile(model)
        elif args.worker == BACKEND:
            sys.path.insert(0, os.path.join(ROOT, "python"))
            import trace_mlir  # noqa: F401 (registers the backend)
            run = torch.compile(model, backend="trace_mlir", options={
                "cache_dir": os.path.join(args.dir, "backend"),
                "target": device,
                "options": ["--host-cpu=native"] if device == "cpu" else []})
        elif args.worker == THUNDER:
            import thunder
            run = thunder.jit(model)

        def step():
            for p in model.parameters():
                p.grad = None
            run(inputs["idx"], inputs["targets"]).backward()
            grads.clear()
            grads.update({n.replace("_checkpoint_wrapped_module.", ""): p.grad
                          for n, p in model.named_parameters()})

        def clear():
            grads.clear()
            for p in model.parameters():
                p.grad = None
        memory = Memory(device, library=False)
    elif args.worker == PACKAGE:
        model = make_model(cfg, False, state)
        start = time.perf_counter()
        compiled = compile_package(model, inputs, args.dir)  # from the cache
        loaded = time.perf_counter() - start

        def step():
            for p in model.parameters():
                p.grad = None
            compiled(inputs["idx"], inputs["targets"]).backward()
            grads.clear()
            grads.update(dict((n, p.grad) for n, p in model.named_parameters()))

        def clear():
            grads.clear()
            for p in model.parameters():
                p.grad = None
        memory = Memory(device, library=False)
    else:
        model = make_model(cfg, False, state).to(device)
        lib = Library(os.path.join(args.dir, plan_dir(args.worker)), "gpt", model,
                      inputs, device)

        def step():
            grads.clear()
            grads.update(lib.step())

        def clear():
            grads.clear()
        memory = Memory(device, library=True)
    if args.measure == "peak":
        step()  # warm-up, as timed() does before the step measured here
        step()
        # The last step's gradients go before the baseline is read, in
        # every variant: a step that dropped them while measured would be
        # credited with their bytes.
        clear()
        print(json.dumps({"peak_mb": memory.peak_mb(step)}))
        return
    result["ms"], result["first_s"] = timed(step, cfg["repeat"], device)
    if args.worker == PACKAGE:
        result["first_s"] += loaded
    if args.measure == "both":
        clear()
        result["peak_mb"] = memory.peak_mb(step)

    # Eager's gradients, on the same device.
    reference = make_model(cfg, False, state).to(device)
    reference(inputs["idx"], inputs["targets"]).backward()
    rtol, atol = TOLERANCE[device]
    for name, want in reference.named_parameters():
        got = grads[name]
        if not torch.allclose(got, want.grad, rtol=rtol, atol=atol):
            rel = ((got - want.grad).abs() / (want.grad.abs() + atol)).max()
            result["mismatch"] = f"{name}, rel {float(rel):.1e}"
    print(json.dumps(result))


def compile_package(model, inputs, directory):
    """trace_mlir.compile on the bench's GPT, its libraries in
    DIRECTORY/package (a second call reads them back)."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import trace_mlir
    return trace_mlir.compile(model, (inputs["idx"], inputs["targets"]),
                              cache_dir=os.path.join(directory, "package"),
                              options=["--host-cpu=native"])


KEPT_HEAP = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30),
             "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}


def thunder_python():
    """The Python of Thunder's environment (bench/thunder-env.sh), or
    None."""
    explicit = os.environ.get("TRACE_THUNDER_PYTHON")
    if explicit:
        return explicit
    link = os.path.join(ROOT, ".venv-thunder", "bin", "python")
    return link if os.path.exists(link) else None


def run_process(variant, directory, measure, extra_env):
    """One worker process for `variant`; its JSON line, or an error."""
    python = sys.executable
    if variant == THUNDER:
        python = thunder_python()
        if python is None:
            return {"na": "no Thunder environment (bench/thunder-env.sh)"}
    cmd = [python, os.path.abspath(__file__), "--worker", variant,
           "--dir", directory, "--measure", measure]
    with open(os.path.join(directory, "config.json")) as f:
        threads = str(json.load(f).get("threads", 1))
    # Each jit row keeps its own Inductor cache: the first process of a
    # row compiles cold, the next ones from the cache.
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads,
               OMP_NUM_THREADS=threads,
               TORCHINDUCTOR_CACHE_DIR=os.path.join(
                   directory, "inductor", plan_dir(variant)),
               **extra_env)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: "
                         f"{(proc.stderr.strip().splitlines() or [''])[-1]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_workers(variants, directory, device, rounds):
    """Each variant's time, peak and gradient check. On the CPU: time from
    `rounds` processes with the usual allocator and `rounds` with a heap
    that keeps what is freed, the variants taking turns so that a slow
    spell of this shared machine falls on all of them (each figure the
    median of its processes' medians); peak from one more process that
    returns every freed block to the system (see the module docstring)."""
    if device != "cpu":
        results = {v: run_process(v, directory, "both", {}) for v in variants}
        for r in results.values():
            if "first_s" in r:
                r["compile_s"] = r["first_s"]
        return results
    times = {v: [] for v in variants}
    kept = {v: [] for v in variants}
    firsts = {v: [] for v in variants}
    results = {}
    for _ in range(rounds):
        for v in variants:
            if "error" in results.get(v, {}) or "na" in results.get(v, {}):
                continue
            r = run_process(v, directory, "time", {})
            if "ms" not in r:
                results[v] = r
                continue
            results.setdefault(v, r)
            times[v].append(r["ms"])
            firsts[v].append(r["first_s"])
            # The same steps with a heap that keeps what is freed (neither
            # mapped nor trimmed, as a caching allocator keeps it): glibc's
            # own choices make a step bimodal, its freed blocks returned
            # and faulted in again on some steps and not others (eager: 0
            # or ~20000 faults a step).
            k = run_process(v, directory, "time", KEPT_HEAP)
            if "ms" in k:
                kept[v].append(k["ms"])
                firsts[v].append(k["first_s"])
    for v in variants:
        r = results[v]
        if "ms" not in r:
            continue
        r["ms"] = float(np.median(times[v]))
        # A jit row's compile, cold in its first process, and from the
        # caches its first process left in the others.
        r["compile_s"] = firsts[v][0]
        if len(firsts[v]) > 1:
            r["cached_s"] = float(np.median(firsts[v][1:]))
        if kept[v]:
            r["kept_ms"] = float(np.median(kept[v]))
        peak = run_process(v, directory, "peak", {"MALLOC_MMAP_THRESHOLD_": "65536"})
        r.update(peak if "peak_mb" in peak else {"error": peak.get("error")})
    return results


def prepare(args, directory):
    """The model's state, its TorchScript file and the libraries, into
    `directory`; returns trace-compile's seconds per plan."""
    cfg = {"layers": args.layers, "C": args.d_model, "H": args.heads,
           "T": args.seq, "B": args.batch, "vocab": args.vocab,
           "device": args.device, "repeat": args.repeat,
           "torch": torch.__version__, "plans": args.plans,
           "peers": args.peers, "threads": args.threads}
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(cfg, f)
    model, inputs = make_model(cfg, checkpoint=False), make_inputs(cfg)
    torch.save(model.state_dict(), os.path.join(directory, "state.pt"))
    # The plain GPT, and the same weights in the GPT that checkpoints each
    # block with a torch.utils.checkpoint call (same state_dict keys).
    calling = fixture_models.CallingGPT(
        "module", vocab=cfg["vocab"], block_size=cfg["T"], d_model=cfg["C"],
        n_head=cfg["H"], n_layer=cfg["layers"], dropout=0.0)
    calling.load_state_dict(model.state_dict())
    calling.train()
    for name, m in (("gpt", model), ("gpt_calls", calling)):
        torch.jit.trace(m, (inputs["idx"], inputs["targets"]),
                        check_trace=False).save(os.path.join(directory, name + ".pt"))
        with open(os.path.join(directory, name + ".shapes"), "w") as f:
            for n, t in inputs.items():
                f.write(f"{n}={'x'.join(map(str, t.shape))}xi64\n")
    seconds = {}
    # The CPU libraries run here; the CUDA ones on the GPU machine's CPU.
    host = ["--host-cpu=native"] if args.device == "cpu" else []
    for label, flags in selected_plans(args.plans, args.device):
        if label == PACKAGE:
            start = time.perf_counter()
            compile_package(make_model(cfg, checkpoint=False), inputs, directory)
            seconds[label] = time.perf_counter() - start
            continue
        out = os.path.join(directory, plan_dir(label))
        pt = os.path.join(directory,
                          "gpt_calls.pt" if "checkpoint calls" in label else "gpt.pt")
        start = time.perf_counter()
        subprocess.run([os.path.join(args.build, "bin", "trace-compile"), pt,
                        f"--target={args.device}", "-o", out, "--name=gpt"]
                       + host + flags,
                       check=True, stdout=subprocess.DEVNULL)
        seconds[label] = time.perf_counter() - start
        # Only the library and its header travel to the GPU machine.
        shutil.rmtree(os.path.join(out, "build"), ignore_errors=True)
    with open(os.path.join(directory, "compile-seconds.json"), "w") as f:
        json.dump(seconds, f)
    for name in ("gpt", "gpt_calls"):  # the libraries and state.pt are all --run needs
        os.remove(os.path.join(directory, name + ".pt"))
    return seconds


def predicted_mb(directory, label):
    """What trace-compile's memory report predicts the step makes resident
    above the weights and inputs: the compiled step's figure (from the
    planned buffers, trace-resident-report; the CPU only) and the trace
    model's (trace-memory-report before bufferization: the larger of
    forward's and backward's allocated peaks); the compiled step's live
    bytes (its peak were every page held only while live); and the floor
    any plan needs (the gradients plus the largest transient), in MB;
    empty for the torch variants."""
    path = os.path.join(directory, plan_dir(label), "memory-report.json")
    if not os.path.exists(path):
        return "", "", "", ""
    with open(path) as f:
        data = json.load(f)
    step = data["functions"][0]
    fwd, bwd = step["forward"], step["backward"]
    model = max(fwd["allocated_peak_bytes"], bwd["allocated_peak_bytes"])
    floor = bwd["result_bytes"] + bwd["largest_transient_bytes"]
    steps = data.get("compiled", {}).get("steps", [])
    compiled = f"{steps[0]['peak_bytes'] / 2**20:.1f}" if steps else ""
    live = (f"{steps[0]['live_peak_bytes'] / 2**20:.1f}"
            if steps and "live_peak_bytes" in steps[0]
            and steps[0].get("modelled", False) else "")
    # A step the simulation could not follow (trace-resident-report's
    # "modelled": false) says so rather than print a figure to trust.
    if steps and not steps[0].get("modelled", False):
        compiled += " (not modelled)"
    return compiled, f"{model / 2**20:.1f}", live, f"{floor / 2**20:.1f}"


def frontier_svg(path, title, points):
    """Writes peak memory against step time, one labelled dot per row
    (`points`: (label, ms, peak MB)), as an SVG: the frontier a user picks
    a plan from. trace-mlir's rows are blue, torch.compile's orange,
    the rest grey."""
    width, height, left, bottom, top, right = 760, 480, 70, 50, 40, 250
    xs = [ms for _, ms, _ in points]
    ys = [mb for _, _, mb in points]
    x_max = max(xs) * 1.1 or 1.0
    y_max = max(ys) * 1.1 or 1.0

    def x(v):
        return left + v / x_max * (width - left - right)

    def y(v):
        return height - bottom - v / y_max * (height - top - bottom)

    def colour(label):
        return ("#1f77b4" if label.startswith("trace") else "#ff7f0e"
                if label.startswith("torch.compile") else "#7f7f7f")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="13">{escape(title)}</text>',
           f'<line x1="{left}" y1="{y(0)}" x2="{x(x_max)}" y2="{y(0)}" '
           'stroke="black"/>',
           f'<line x1="{left}" y1="{y(0)}" x2="{left}" y2="{y(y_max)}" '
           'stroke="black"/>',
           f'<text x="{(left + x(x_max)) / 2}" y="{height - 12}" '
           'text-anchor="middle">step ms (lower is faster)</text>',
           f'<text x="16" y="{(top + y(0)) / 2}" text-anchor="middle" '
           f'transform="rotate(-90 16 {(top + y(0)) / 2})">peak MB</text>']
    for i in range(6):
        vx, vy = x_max * i / 5, y_max * i / 5
        out.append(f'<text x="{x(vx)}" y="{y(0) + 15}" '
                   f'text-anchor="middle">{vx:.0f}</text>')
        out.append(f'<text x="{left - 6}" y="{y(vy) + 4}" '
                   f'text-anchor="end">{vy:.0f}</text>')
    for n, (label, ms, mb) in enumerate(points, 1):
        out.append(f'<circle cx="{x(ms):.1f}" cy="{y(mb):.1f}" r="5" '
                   f'fill="{colour(label)}"><title>{escape(label)}: '
                   f'{ms:.1f} ms, {mb:.1f} MB</title></circle>')
        out.append(f'<text x="{x(ms) + 7:.1f}" y="{y(mb) - 6:.1f}">{n}</text>')
        out.append(f'<text x="{width - right + 15}" y="{top + 16 * n}" '
                   f'fill="{colour(label)}">{n}. {escape(label)}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def report(directory, rounds=1, svg=None):
    with open(os.path.join(directory, "config.json")) as f:
        cfg = json.load(f)
    if cfg["device"] == "cuda" and not torch.cuda.is_available():
        print(f"error: {directory} holds CUDA libraries, and this PyTorch "
              f"({torch.__version__}) sees no GPU", file=sys.stderr)
        return 2
    seconds = {}
    path = os.path.join(directory, "compile-seconds.json")
    if os.path.exists(path):
        with open(path) as f:
            seconds = json.load(f)
    variants = selected_peers(cfg.get("peers", "")) + [
        label for label, _ in selected_plans(cfg["plans"], cfg["device"])]
    # The jit rows' first process compiles cold: no caches from an earlier
    # --run of this directory.
    for cache in ("inductor", "backend"):
        shutil.rmtree(os.path.join(directory, cache), ignore_errors=True)
    results = run_workers(variants, directory, cfg["device"], rounds)
    rows = [(v, results[v]) for v in variants]
    threads = cfg.get("threads", 1)
    where = ((f"CPU, {threads} threads" if threads > 1 else "CPU, one thread")
             if cfg["device"] == "cpu" else torch.cuda.get_device_name(0))
    rtol, atol = TOLERANCE[cfg["device"]]
    print(f"# bench/step_time.py, {datetime.date.today()}, {where}; GPT "
          f"{cfg['layers']} layers, d_model {cfg['C']}, {cfg['H']} heads, "
          f"B{cfg['B']} T{cfg['T']}, vocab {cfg['vocab']}, dropout 0; torch "
          f"{torch.__version__}; median of {cfg['repeat']} steps"
          + (f", median of {rounds} processes taking turns"
             if rounds > 1 and cfg["device"] == "cpu" else ""))
    print(f"| variant | step ms | vs eager | kept-heap ms | vs eager | peak MB "
          f"| predicted MB | trace model MB | live MB | floor MB "
          f"| gradients vs eager (rtol {rtol:g}) | compile s | cached s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    eager_ms = rows[0][1].get("ms")
    eager_kept = rows[0][1].get("kept_ms")
    failed = False
    for label, r in rows:
        # trace-compile's seconds for the libraries (compiled ahead of the
        # run); the first step's extra seconds for the jit rows, cold in
        # the first process and from the caches in the others.
        if label in seconds:
            compile_s = f"{seconds[label]:.1f}"
            cached_s = (f"{r.get('cached_s', r.get('compile_s')):.1f}"
                        if label == PACKAGE and "compile_s" in r else "")
        elif label in TORCH_VARIANTS and not label.startswith("eager") \
                and not label.startswith("SAC") and "compile_s" in r:
            compile_s = f"{r['compile_s']:.1f}"
            cached_s = f"{r['cached_s']:.1f}" if "cached_s" in r else ""
        else:
            compile_s = cached_s = ""
        predicted, model, live, floor = predicted_mb(directory, label)
        if "na" in r or "error" in r:
            failed |= "error" in r
            print(f"| {label} | n/a | | | | | {predicted} | {model} | {live} "
                  f"| {floor} "
                  f"| {r.get('na') or r['error']} | {compile_s} | {cached_s} |")
            continue
        failed |= "mismatch" in r
        ok = f"DIFFER ({r['mismatch']})" if "mismatch" in r else "equal"
        ratio = f"{r['ms'] / eager_ms:.2f}" if eager_ms else ""
        kept = f"{r['kept_ms']:.1f}" if "kept_ms" in r else ""
        kept_ratio = (f"{r['kept_ms'] / eager_kept:.2f}"
                      if "kept_ms" in r and eager_kept else "")
        print(f"| {label} | {r['ms']:.1f} | {ratio} | {kept} | {kept_ratio} "
              f"| {r['peak_mb']:.1f} | {predicted} | {model} | {live} | {floor} "
              f"| {ok} "
              f"| {compile_s} | {cached_s} |")
    if THUNDER in variants:
        print(f"\n{THUNDER_NOTE}.")
    if svg:
        frontier_svg(svg, f"GPT {cfg['layers']} layers, d_model {cfg['C']}, "
                     f"B{cfg['B']} T{cfg['T']}: "
                     f"{where}",
                     [(label, r["ms"], r["peak_mb"]) for label, r in rows
                      if "ms" in r and "peak_mb" in r])
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--prepare", metavar="DIR",
                        help="only write the model and libraries to DIR")
    parser.add_argument("--run", metavar="DIR",
                        help="only run what --prepare wrote to DIR")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--d-model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=1,
                        help="CPU: timing processes per variant, the variants "
                             "taking turns (the figure is their median)")
    parser.add_argument("--plans", default="",
                        help="comma-separated: no-remat, min-cut, budget-0-5 "
                             "(default: all)")
    parser.add_argument("--threads", type=int, default=1,
                        help="CPU: threads for PyTorch, Inductor's kernels "
                             "and the library's OpenMP team (its kernels "
                             "and matmuls); default 1")
    parser.add_argument("--peers", default="",
                        help="comma-separated: eager-checkpointed-blocks, "
                             "SAC-matmul-outputs-saved, torch-compile, "
                             "torch-compile-budget-0-5, ... (default: all; "
                             "eager always runs)")
    parser.add_argument("--svg", metavar="FILE",
                        help="also write peak MB against step ms, a dot "
                             "per row, to FILE")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    parser.add_argument("--measure", choices=["time", "peak", "both"],
                        default="both", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds: at least 1")
    if args.threads < 1:
        parser.error("--threads: at least 1")
    # trace_mlir.compile (the package row) runs this build's trace-compile,
    # in the workers too.
    os.environ.setdefault("TRACE_COMPILE",
                          os.path.join(args.build, "bin", "trace-compile"))
    if args.worker:
        worker(args)
    elif args.prepare:
        prepare(args, args.prepare)
    elif args.run:
        sys.exit(report(args.run, args.rounds, args.svg))
    else:
        if args.device != "cpu":
            parser.error("--device cuda: --prepare here, then --run on the GPU machine")
        with tempfile.TemporaryDirectory(prefix="step-time-") as work:
            prepare(args, work)
            sys.exit(report(work, args.rounds, args.svg))


if __name__ == "__main__":
    main()
