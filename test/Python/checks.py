"""PASS/FAIL lines for the Python tests (train.py, donation.py, ...): each
check prints one line; `summary` prints the closing count and returns the
exit status. Also the AdamW loop that donation.py and outline_repeats.py
run on two builds of one GPT and compare bit for bit."""

import torch

counts = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}: {name}{': ' + detail if detail else ''}")
    counts["passed" if ok else "failed"] += 1


def summary():
    print(f"{counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


def batch(gen):
    """A batch of the small GPT fixture (vocab 64, B2 T16): ids, targets."""
    return (torch.randint(0, 64, (2, 16), generator=gen),
            torch.randint(0, 64, (2, 16), generator=gen))


def train_adamw(model, options, cache, steps=5):
    """`steps` AdamW steps (lr 1e-2) of `model` compiled by
    trace_mlir.compile with `options`, or eager when `options` is None,
    from fixed seeds (batches, dropout): the losses, each step's
    gradients, the weights after, and the module that ran."""
    import trace_mlir
    step = (trace_mlir.compile(model, batch(torch.Generator().manual_seed(1)),
                               cache_dir=cache, options=options)
            if options is not None else model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(2)
    torch.manual_seed(3)  # dropout seeds
    losses, grads = [], []
    for _ in range(steps):
        opt.zero_grad()
        loss = step(*batch(gen))
        loss.backward()
        losses.append(loss.detach().clone())
        grads.append({n: p.grad.clone() for n, p in model.named_parameters()})
        opt.step()
    return losses, grads, {n: p.detach().clone()
                           for n, p in model.named_parameters()}, step
