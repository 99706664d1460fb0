"""trace_mlir.compile(..., target="cuda") (test/Python/cuda.test).

Each check prints one PASS or FAIL line; the script exits 1 if any failed.

    cuda_train.py                  # here: what runs without a GPU, and with one
    cuda_train.py --prepare DIR    # compile the GPT fixture for cuda into DIR
    cuda_train.py --run DIR        # on a GPU machine without the compiler

Without a GPU: target="cuda" compiles the GPT fixture, the cache entry
says cuda (its interface's memory and set_stream, step.module.json's
target), the values fwd saves are the library's and bwd takes them
donated (its interface's release, "saved" and "donated" slots), and
where the CUDA driver is missing, building the module raises
TraceMLIRError naming libcuda.so.1 rather than crashing.

With a GPU (torch.cuda.is_available(), or --run on a library --prepare
built): 20 SGD steps of the GPT fixture on cuda:0 against eager on cuda:0,
a new random batch per step: the loss at every step within rtol 1e-4 and
every parameter's gradient within rtol 1e-3, atol 1e-5 (cuBLAS's and
PyTorch's kernels sum in other orders; the worst difference is printed);
5 more steps inside a torch.cuda.Stream (the library queues its work on
PyTorch's current stream); the saved values are held in the driver's
default pool between forward and backward, and none is left after
backward or after a graph dropped before it; an input on the CPU raises
TypeError. Then FSDP over it (--run), one process on cuda:0 with NCCL:
wrapped at the root as FullyShardedDataParallel(step) and as
fully_shard(step), 5 SGD steps each with eager's losses; fully_shard on
a block inside raises TraceMLIRError.
"""

import argparse
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
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402

LOSS_RTOL, GRAD_RTOL, ATOL = 1e-4, 1e-3, 1e-5
STEPS, STREAM_STEPS, FSDP_STEPS = 20, 5, 5


def gpt_model():
    torch.manual_seed(0)
    return fixture_models.GPT(vocab=32, block_size=8, d_model=32, n_head=2,
                              n_layer=2, dropout=0.0, checkpoint=True)


def gpt_batch(gen, device="cpu"):
    idx = torch.randint(0, 32, (2, 8), generator=gen)
    targets = torch.randint(0, 32, (2, 8), generator=gen)
    return idx.to(device), targets.to(device)


def max_rel(a, b):
    return ((a - b).abs() / (b.abs() + ATOL / GRAD_RTOL)).max().item()


def driver_present():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7  # cuda.h's CUmemPool_attribute


def pool_used():
    """Bytes in use in device 0's default stream-ordered pool, where the
    library allocates its temporaries and the values fwd saves (PyTorch's
    caching allocator does not use it)."""
    cuda = ctypes.CDLL("libcuda.so.1")
    device, pool = ctypes.c_int(), ctypes.c_void_p()
    used = ctypes.c_uint64()
    if (cuda.cuDeviceGet(ctypes.byref(device), 0) or
            cuda.cuDeviceGetDefaultMemPool(ctypes.byref(pool), device) or
            cuda.cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
                                       ctypes.byref(used))):
        raise RuntimeError("cannot read the default memory pool's usage")
    return used.value


def check_saved_values_freed(compiled, gen, label):
    """The saved values are the library's device buffers: held between
    forward and backward, each freed by backward (donated) or, when the
    graph is dropped before backward, released."""
    torch.cuda.synchronize()
    before = pool_used()
    loss = compiled(*gpt_batch(gen, "cuda"))
    torch.cuda.synchronize()
    held = pool_used() - before
    loss.backward()
    torch.cuda.synchronize()
    after_backward = pool_used() - before
    loss = compiled(*gpt_batch(gen, "cuda"))
    del loss  # the graph dies before backward: NAME_release
    torch.cuda.synchronize()
    after_release = pool_used() - before
    check(f"{label}: the saved values live in the library's pool until "
          "backward frees them, or the graph's end releases them",
          held > 0 and after_backward == 0 and after_release == 0,
          f"held {held} B between forward and backward, {after_backward} B "
          f"after backward, {after_release} B after a dropped graph")


def train_on_gpu(model, compiled, label):
    """SGD steps of `compiled` (over `model`, on cuda:0) against eager on
    a copy, STEPS on the default stream, then STREAM_STEPS on another."""
    reference = copy.deepcopy(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(1)
    worst_loss = worst_grad = 0.0
    ok = True
    side = torch.cuda.Stream()
    for step in range(STEPS + STREAM_STEPS):
        batch = gpt_batch(gen, "cuda")
        stream = side if step >= STEPS else torch.cuda.current_stream()
        if step == STEPS:
            side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            opt.zero_grad()
            ref_opt.zero_grad()
            loss = compiled(*batch)
            loss.backward()
            ref = reference(*batch)
            ref.backward()
            worst_loss = max(worst_loss, max_rel(loss.detach(), ref.detach()))
            ok &= torch.allclose(loss, ref, rtol=LOSS_RTOL, atol=ATOL)
            for p, q in zip(model.parameters(), reference.parameters()):
                worst_grad = max(worst_grad, max_rel(p.grad, q.grad))
                ok &= torch.allclose(p.grad, q.grad, rtol=GRAD_RTOL,
                                     atol=ATOL)
            opt.step()
            ref_opt.step()
    torch.cuda.synchronize()
    check(f"{label}: {STEPS} SGD steps on cuda:0 and {STREAM_STEPS} on a "
          "side stream, losses and gradients equal eager's", ok,
          f"max rel. loss {worst_loss:.1e}, gradient {worst_grad:.1e}")
    check_saved_values_freed(compiled, gen, label)
    try:
        compiled(*gpt_batch(gen))
        check(f"{label}: an input on the CPU raises TypeError", False)
    except TypeError as e:
        check(f"{label}: an input on the CPU raises TypeError",
              "cuda:0" in str(e), str(e))


def fsdp_on_gpu(entry):
    """FSDP over the cuda step, one process on cuda:0 (NCCL): wrapped at
    the root, as FullyShardedDataParallel(step) and as fully_shard(step),
    it trains FSDP_STEPS SGD steps with eager's losses (rtol 1e-4); a
    block wrapped by fully_shard raises TraceMLIRError (its hooks never
    run in the compiled step)."""
    import torch.distributed as dist
    try:
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0,
                                world_size=1)
    except Exception as e:  # noqa: BLE001 - the check reports it
        check("FSDP: a one-process NCCL group", False,
              f"{type(e).__name__}: {e}")
        return
    try:
        fsdp_wrappers(entry)
    finally:
        dist.destroy_process_group()


def fsdp_wrappers(entry):
    def fsdp1(step):
        from torch.distributed.fsdp import FullyShardedDataParallel
        return FullyShardedDataParallel(step, device_id=0)

    def fsdp2(step):
        from torch.distributed.fsdp import fully_shard
        return fully_shard(step)

    for label, wrap in (("FullyShardedDataParallel(step)", fsdp1),
                        ("fully_shard(step)", fsdp2)):
        model = gpt_model().to("cuda")
        reference = copy.deepcopy(model)
        gen = torch.Generator().manual_seed(1)
        try:
            wrapped = wrap(trace_mlir.load(model, entry))
            opt = torch.optim.SGD(wrapped.parameters(), lr=0.05)
            ref_opt = torch.optim.SGD(reference.parameters(), lr=0.05)
            ok, worst = True, 0.0
            for _ in range(FSDP_STEPS):
                batch = gpt_batch(gen, "cuda")
                opt.zero_grad()
                ref_opt.zero_grad()
                loss = wrapped(*batch)
                loss.backward()
                ref = reference(*batch)
                ref.backward()
                opt.step()
                ref_opt.step()
                worst = max(worst, max_rel(loss.detach(), ref.detach()))
                ok &= torch.allclose(loss, ref, rtol=LOSS_RTOL, atol=ATOL)
            check(f"{label}: {FSDP_STEPS} SGD steps, losses equal eager's",
                  ok, f"max rel. loss {worst:.1e}")
        except Exception as e:  # noqa: BLE001 - the check reports it
            check(f"{label}: {FSDP_STEPS} SGD steps, losses equal eager's",
                  False, f"{type(e).__name__}: {e}")
    model = gpt_model().to("cuda")
    step = trace_mlir.load(model, entry)
    try:
        from torch.distributed.fsdp import fully_shard
        fully_shard(model.blocks[0])
        step(*gpt_batch(torch.Generator().manual_seed(1), "cuda"))
        check("a block wrapped by fully_shard raises TraceMLIRError", False)
    except trace_mlir.TraceMLIRError as e:
        check("a block wrapped by fully_shard raises TraceMLIRError",
              "'blocks.0'" in str(e), str(e))
    except Exception as e:  # noqa: BLE001 - the check reports it
        check("a block wrapped by fully_shard raises TraceMLIRError", False,
              f"{type(e).__name__}: {e}")


def prepare(directory):
    """Compiles the GPT fixture for cuda into DIRECTORY/cache, with its
    initial state, for --run on a machine without the compiler."""
    model = gpt_model()
    batch = gpt_batch(torch.Generator().manual_seed(1))
    cache = os.path.join(directory, "cache")
    try:
        trace_mlir.compile(model, batch, target="cuda", cache_dir=cache)
    except trace_mlir.TraceMLIRError as e:
        if "libcuda.so.1" not in str(e):  # no driver here: expected
            raise
    entries = [d for d in os.listdir(cache)
               if os.path.exists(os.path.join(cache, d, "step.module.json"))]
    if len(entries) != 1:
        sys.exit(f"cuda_train.py --prepare: expected one compiled step in {cache}")
    torch.save(model.state_dict(), os.path.join(directory, "state.pt"))
    with open(os.path.join(directory, "step.txt"), "w") as f:
        f.write(entries[0])
    print(f"prepared {os.path.join(cache, entries[0])}")


def run(directory):
    """--run: trace_mlir.load of what --prepare built, trained on cuda:0."""
    if not torch.cuda.is_available():
        sys.exit("cuda_train.py --run: no GPU")
    with open(os.path.join(directory, "step.txt")) as f:
        entry = os.path.join(directory, "cache", f.read().strip())
    model = gpt_model()
    model.load_state_dict(torch.load(os.path.join(directory, "state.pt")))
    model.to("cuda")
    compiled = trace_mlir.load(model, entry)
    train_on_gpu(model, compiled, "load() of a cuda step")
    fsdp_on_gpu(entry)
    return summary()


def here():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-cuda-") as cache:
        model = gpt_model()
        batch = gpt_batch(torch.Generator().manual_seed(1))
        gpu = torch.cuda.is_available()
        if gpu:
            model.to("cuda")
            batch = tuple(t.to("cuda") for t in batch)
        try:
            compiled = trace_mlir.compile(model, batch, target="cuda",
                                          cache_dir=cache)
            error = None
        except trace_mlir.TraceMLIRError as e:
            compiled, error = None, str(e)
        entries = [os.path.join(cache, d) for d in os.listdir(cache)
                   if os.path.exists(os.path.join(cache, d,
                                                  "step.module.json"))]
        ok = len(entries) == 1
        if ok:
            with open(os.path.join(entries[0], "step.json")) as f:
                interface = json.load(f)
            with open(os.path.join(entries[0], "step.module.json")) as f:
                meta = json.load(f)
            ok = (interface["memory"] == "cuda" and
                  interface.get("set_stream") == "step_set_stream" and
                  meta["target"] == "cuda" and meta["training"])
            # The values fwd saves are the library's device buffers, which
            # bwd frees on its stream after its last read (donated), as on
            # the CPU.
            slots = {f["function"]: [s["direction"] for s in f["slots"]]
                     for f in interface["functions"]}
            donated = (interface.get("release") == "step_release" and
                       "saved" in slots["forward_fwd"] and
                       slots["forward_fwd"].count("saved") ==
                       slots["forward_bwd"].count("donated"))
        check("target='cuda' compiles: a cuda library on the caller's "
              "stream", ok)
        check("its saved values are the library's, donated to backward",
              ok and donated)
        if not driver_present():
            check("without the CUDA driver, the module raises "
                  "TraceMLIRError naming libcuda.so.1",
                  error is not None and "libcuda.so.1" in error, error or "")
        elif gpu:
            check("target='cuda' builds a module", compiled is not None,
                  error or "")
            if compiled is not None:
                train_on_gpu(model, compiled, "compile(target='cuda')")
    return summary()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", metavar="DIR")
    parser.add_argument("--run", metavar="DIR")
    args = parser.parse_args()
    if args.prepare:
        os.makedirs(args.prepare, exist_ok=True)
        prepare(args.prepare)
        return 0
    if args.run:
        return run(args.run)
    return here()


if __name__ == "__main__":
    sys.exit(main())
