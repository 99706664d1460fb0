"""trace_mlir.compile under DistributedDataParallel (test/Python/ddp.test).

Two CPU processes (gloo, localhost) train the GPT fixture, each compiled
with trace_mlir.compile and wrapped in torch.nn.parallel
.DistributedDataParallel, for 5 SGD steps, each rank on its half of the
batch. Their parameters must then equal those of eager training in one
process on the whole batch (rtol 1e-5, atol 1e-7): DDP averages the
ranks' gradients, and the loss is a mean over equal halves. Prints one
PASS or FAIL line per rank and exits 1 on a failure.
"""

import copy
import os
import socket
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402
import trace_mlir  # noqa: E402

STEPS, BATCH, WORLD = 5, 4, 2


def model():
    torch.manual_seed(0)
    return fixture_models.GPT(vocab=32, block_size=8, d_model=32, n_head=2,
                              n_layer=2, dropout=0.0, checkpoint=True)


def batches():
    gen = torch.Generator().manual_seed(1)
    return [(torch.randint(0, 32, (BATCH, 8), generator=gen),
             torch.randint(0, 32, (BATCH, 8), generator=gen))
            for _ in range(STEPS)]


def rank_main(rank, port, cache, results):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=WORLD)
    half = BATCH // WORLD
    shard = [(i[rank * half:(rank + 1) * half], t[rank * half:(rank + 1) * half])
             for i, t in batches()]
    m = model()
    compiled = trace_mlir.compile(m, shard[0], cache_dir=cache)
    ddp = torch.nn.parallel.DistributedDataParallel(compiled)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for idx, targets in shard:
        opt.zero_grad()
        ddp(idx, targets).backward()
        opt.step()
    results[rank] = {n: p.detach().clone() for n, p in m.named_parameters()}
    dist.destroy_process_group()


def main():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-ddp-") as cache:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        # The library is compiled once here, so the ranks read it back.
        trace_mlir.compile(model(), tuple(x[:BATCH // WORLD] for x in
                                          batches()[0]), cache_dir=cache)
        manager = mp.Manager()
        results = manager.dict()
        mp.spawn(rank_main, args=(port, cache, results), nprocs=WORLD)

        reference = model()
        opt = torch.optim.SGD(reference.parameters(), lr=0.1)
        for idx, targets in batches():
            opt.zero_grad()
            reference(idx, targets).backward()
            opt.step()
        failed = 0
        for rank in range(WORLD):
            worst, ok = 0.0, True
            for n, p in reference.named_parameters():
                q = results[rank][n]
                ok &= torch.allclose(q, p, rtol=1e-5, atol=1e-7)
                worst = max(worst, ((q - p).abs() / (p.abs() + 1e-2)).max().item())
            print(f"{'PASS' if ok else 'FAIL'}: rank {rank}: {STEPS} DDP steps "
                  f"equal one process on the whole batch (max rel. {worst:.1e})")
            failed += not ok
        print(f"{WORLD - failed} passed, {failed} failed")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
