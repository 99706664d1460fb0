"""Models built on the idioms that used to stop at the importer train
through trace_mlir.compile as in eager (test/Python/idiom_models.test).

Each model runs 3 SGD steps in float64 from the same weights and batches,
compiled and eager; a check passes when every step's loss and every
parameter's gradient agree to rtol 1e-7 (atol 1e-10). The models:
  * unbind attention: q, k and v from one projection, split by unbind;
  * nn.TransformerEncoderLayer with a key padding mask;
  * an LSTM language model (embedding, 2-layer LSTM, tied-free head);
  * a bidirectional GRU classifier;
  * T5-style attention with a relative position bias from bucketed
    distances;
  * a top-2 mixture of experts (topk routing, one_hot dispatch);
  * a small UNet with a per-pixel cross-entropy over [N, C, H, W];
  * a Swin block: shifted windows (roll), a relative position bias table
    read through an index buffer, the shifted-window attention mask.
Prints one PASS or FAIL line per model and exits 1 if any failed.
"""

import copy
import math
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402

RTOL, ATOL = 1e-7, 1e-10


class UnbindAttention(nn.Module):
    def __init__(self, d=16, heads=2, vocab=20):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(vocab, d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, vocab)

    def forward(self, ids, targets):
        x = self.emb(ids)
        b, t, d = x.shape
        qkv = self.qkv(x).view(b, t, 3, self.heads, d // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        y = att.softmax(-1) @ v
        y = y.transpose(1, 2).reshape(b, t, d)
        return F.cross_entropy(self.out(y).flatten(0, 1), targets.flatten())


class MaskedEncoder(nn.Module):
    def __init__(self, d=16, vocab=20):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0,
                                                batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids, mask, targets):
        y = self.layer(self.emb(ids), src_key_padding_mask=mask)
        logits = self.head(y)
        keep = (~mask).to(logits.dtype)
        per_token = F.cross_entropy(logits.transpose(1, 2), targets,
                                    reduction="none")
        return (per_token * keep).sum() / keep.sum()


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab=20, d=12):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, d, num_layers=2, batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids, targets):
        y, _ = self.lstm(self.emb(ids))
        return F.cross_entropy(self.head(y).flatten(0, 1), targets.flatten())


class GRUClassifier(nn.Module):
    def __init__(self, vocab=20, d=12, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.gru = nn.GRU(d, d, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * d, classes)

    def forward(self, ids, labels):
        _, h = self.gru(self.emb(ids))
        features = torch.cat([h[0], h[1]], dim=-1)
        return F.cross_entropy(self.head(features), labels)


class T5Attention(nn.Module):
    """Attention with T5's bucketed relative position bias."""

    def __init__(self, d=16, heads=2, buckets=8, max_distance=16, vocab=20):
        super().__init__()
        self.heads, self.buckets, self.max_distance = heads, buckets, max_distance
        self.emb = nn.Embedding(vocab, d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.bias = nn.Embedding(buckets, heads)
        self.head = nn.Linear(d, vocab)

    def bucket(self, relative):
        # T5's bidirectional bucketing (transformers' T5Attention).
        n = self.buckets // 2
        out = (relative > 0).long() * n
        relative = relative.abs()
        exact = n // 2
        small = relative < exact
        large = exact + (torch.log(relative.double() / exact) /
                         math.log(self.max_distance / exact) *
                         (n - exact)).long()
        large = torch.min(large, torch.full_like(large, n - 1))
        return out + torch.where(small, relative, large)

    def forward(self, ids, targets):
        x = self.emb(ids)
        b, t, d = x.shape
        pos = torch.arange(t)
        buckets = self.bucket(pos[None, :] - pos[:, None])
        bias = self.bias(buckets).permute(2, 0, 1)  # [H, T, T]
        q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2)
                   for z in self.qkv(x).chunk(3, dim=-1))
        att = (q @ k.transpose(-2, -1) + bias).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return F.cross_entropy(self.head(y).flatten(0, 1), targets.flatten())


class Top2MoE(nn.Module):
    def __init__(self, d=12, experts=4, hidden=16, classes=5):
        super().__init__()
        self.experts = experts
        self.router = nn.Linear(d, experts)
        self.w1 = nn.Parameter(torch.randn(experts, d, hidden) * 0.2)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, d) * 0.2)
        self.head = nn.Linear(d, classes)

    def forward(self, x, labels):
        probs = self.router(x).softmax(-1)               # [N, E]
        weights, chosen = probs.topk(2, dim=-1)          # [N, 2]
        weights = weights / weights.sum(-1, keepdim=True)
        dispatch = F.one_hot(chosen, self.experts).to(x.dtype)  # [N, 2, E]
        gate = (dispatch * weights.unsqueeze(-1)).sum(1)        # [N, E]
        h = torch.einsum("nd,edh->neh", x, self.w1).relu()
        y = torch.einsum("neh,ehd->ned", h, self.w2)
        mixed = (gate.unsqueeze(-1) * y).sum(1)
        return F.cross_entropy(self.head(mixed + x), labels)


class UNet(nn.Module):
    def __init__(self, c=4, classes=3):
        super().__init__()
        self.down1 = nn.Conv2d(3, c, 3, padding=1)
        self.down2 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.fuse = nn.Conv2d(2 * c, c, 3, padding=1)
        self.out = nn.Conv2d(c, classes, 1)

    def forward(self, x, target):
        s1 = F.relu(self.down1(x))
        s2 = F.relu(self.down2(F.max_pool2d(s1, 2)))
        u = torch.cat([self.up(s2), s1], dim=1)
        logits = self.out(F.relu(self.fuse(u)))
        return F.cross_entropy(logits, target)  # over [N, C, H, W]


class SwinBlock(nn.Module):
    """One shifted-window block of Swin (torchvision's layout)."""

    def __init__(self, d=8, heads=2, window=2, shift=1, size=4, classes=3):
        super().__init__()
        self.d, self.heads, self.window, self.shift = d, heads, window, shift
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(),
                                 nn.Linear(2 * d, d))
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window),
                                            torch.arange(window),
                                            indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
        rel = rel + (window - 1)
        self.register_buffer("index", rel[..., 0] * (2 * window - 1) +
                             rel[..., 1], persistent=False)
        # The mask of the shifted windows: tokens from different regions of
        # the rolled image do not attend to each other.
        region = torch.zeros(size, size)
        cuts = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
        label = 0
        for h in cuts:
            for w in cuts:
                region[h, w] = label
                label += 1
        windows = self.partition(region[None, :, :, None]).squeeze(-1)
        diff = windows[:, None, :] - windows[:, :, None]
        self.register_buffer("mask", (diff != 0).double() * -100.0,
                             persistent=False)
        self.head = nn.Linear(d, classes)

    def partition(self, x):
        b, h, w, c = x.shape
        s = self.window
        x = x.view(b, h // s, s, w // s, s, c).permute(0, 1, 3, 2, 4, 5)
        return x.reshape(-1, s * s, c)

    def forward(self, x, labels):
        b, h, w, c = x.shape
        s = self.window
        shifted = torch.roll(self.norm1(x), (-self.shift, -self.shift), (1, 2))
        win = self.partition(shifted)                       # [B*nW, s*s, C]
        n = win.shape[1]
        qkv = self.qkv(win).view(-1, n, 3, self.heads, c // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        att = q @ k.transpose(-2, -1) / math.sqrt(c // self.heads)
        bias = self.table[self.index.flatten()].view(n, n, -1).permute(2, 0, 1)
        att = att + bias
        nw = self.mask.shape[0]
        att = att.view(b, nw, self.heads, n, n) + self.mask[None, :, None]
        y = (att.view(-1, self.heads, n, n).softmax(-1) @ v)
        y = self.proj(y.transpose(1, 2).reshape(-1, n, c))
        y = y.view(b, h // s, w // s, s, s, c).permute(0, 1, 3, 2, 4, 5)
        y = torch.roll(y.reshape(b, h, w, c), (self.shift, self.shift), (1, 2))
        x = x + y
        x = x + self.mlp(self.norm2(x))
        return F.cross_entropy(self.head(x.mean((1, 2))), labels)


def batches(name, gen):
    """Three batches of the model's inputs."""
    out = []
    for _ in range(3):
        if name == "masked encoder":
            ids = torch.randint(0, 20, (2, 6), generator=gen)
            mask = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
            out.append((ids, mask, torch.randint(0, 20, (2, 6),
                                                 generator=gen)))
        elif name in ("unbind attention", "LSTM language model",
                      "T5 relative position bias"):
            out.append((torch.randint(0, 20, (2, 6), generator=gen),
                        torch.randint(0, 20, (2, 6), generator=gen)))
        elif name == "bidirectional GRU classifier":
            out.append((torch.randint(0, 20, (3, 5), generator=gen),
                        torch.randint(0, 3, (3,), generator=gen)))
        elif name == "top-2 mixture of experts":
            out.append((torch.randn(6, 12, generator=gen, dtype=torch.float64),
                        torch.randint(0, 5, (6,), generator=gen)))
        elif name == "UNet, per-pixel loss":
            out.append((torch.randn(2, 3, 8, 8, generator=gen,
                                    dtype=torch.float64),
                        torch.randint(0, 3, (2, 8, 8), generator=gen)))
        else:  # Swin
            out.append((torch.randn(2, 4, 4, 8, generator=gen,
                                    dtype=torch.float64),
                        torch.randint(0, 3, (2,), generator=gen)))
    return out


MODELS = {
    "unbind attention": UnbindAttention,
    "masked encoder": MaskedEncoder,
    "LSTM language model": LSTMLanguageModel,
    "bidirectional GRU classifier": GRUClassifier,
    "T5 relative position bias": T5Attention,
    "top-2 mixture of experts": Top2MoE,
    "UNet, per-pixel loss": UNet,
    "Swin block": SwinBlock,
}


def run(name, cache):
    torch.manual_seed(0)
    model = MODELS[name]().double()
    reference = copy.deepcopy(model)
    data = batches(name, torch.Generator().manual_seed(1))
    try:
        compiled = trace_mlir.compile(model, data[0], cache_dir=cache)
    except trace_mlir.TraceMLIRError as e:
        return check(name, False, str(e).splitlines()[0])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    worst = 0.0
    for step, batch in enumerate(data):
        opt.zero_grad()
        ref_opt.zero_grad()
        loss = compiled(*batch)
        loss.backward()
        ref = reference(*batch)
        ref.backward()
        pairs = [(loss.detach(), ref.detach(), "loss")]
        for (pname, p), q in zip(model.named_parameters(),
                                 reference.parameters()):
            if q.grad is None:
                continue
            if p.grad is None:
                return check(name, False, f"step {step}: {pname} has no "
                             "gradient")
            pairs.append((p.grad, q.grad, pname))
        for got, want, what in pairs:
            if not torch.allclose(got, want, rtol=RTOL, atol=ATOL):
                err = (got - want).abs().max().item()
                return check(name, False, f"step {step}: {what} differs "
                             f"(max abs error {err:.3g})")
            worst = max(worst, ((got - want).abs() /
                                (want.abs() + ATOL / RTOL)).max().item())
        opt.step()
        ref_opt.step()
    return check(name, True, f"3 SGD steps in float64, losses and gradients "
                 f"equal eager's (largest relative difference {worst:.1e})")


def main():
    names = sys.argv[1:] or list(MODELS)
    with tempfile.TemporaryDirectory() as cache:
        for name in names:
            run(name, cache)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
