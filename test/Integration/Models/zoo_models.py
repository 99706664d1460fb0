"""The model zoo (test/Integration/Models): torchvision 0.14's ResNet-18,
MobileNetV3-small and a small VisionTransformer, PyTorch's
nn.TransformerEncoder and nn.TransformerDecoder, and a Llama-style LM
written here (RMSNorm, rotary embeddings, a SiLU-gated MLP, causal
attention, cross-entropy). Each `build(name, dtype)` returns (module,
example inputs), the module in training mode ending in its loss, dropout
off (its random numbers are not PyTorch's), under a fixed seed."""

import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class Classifier(nn.Module):
    """cross_entropy(model(x), target)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, target):
        return F.cross_entropy(self.model(x), target)


class Seq2Seq(nn.Module):
    """A head over nn.TransformerEncoder or nn.TransformerDecoder."""

    def __init__(self, decoder):
        super().__init__()
        d = 32
        if decoder:
            layer = nn.TransformerDecoderLayer(d, 4, 64, dropout=0.0, batch_first=True)
            self.body = nn.TransformerDecoder(layer, 2)
        else:
            layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True)
            self.body = nn.TransformerEncoder(layer, 2)
        self.decoder = decoder
        self.head = nn.Linear(d, 7)

    def forward(self, x, memory, target):
        h = self.body(x, memory) if self.decoder else self.body(x + memory)
        return F.cross_entropy(self.head(h).flatten(0, 1), target.flatten())


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, hidden, seq):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.attn_norm, self.mlp_norm = RMSNorm(d), RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        angles = torch.outer(torch.arange(seq).float(), inv)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)) == 0, persistent=False)

    def forward(self, x):
        b, t, d = x.shape
        h = self.attn_norm(x)
        q, k, v = (w(h).view(b, t, self.heads, self.head_dim).transpose(1, 2)
                   for w in (self.wq, self.wk, self.wv))
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(self.mask, float("-inf"))
        a = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.wo(a)
        h = self.mlp_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class LlamaLM(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, hidden=64, layers=2, seq=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(LlamaBlock(d, heads, hidden, seq) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens, targets):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def _no_dropout(module):
    for m in module.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
    return module


def _vit():
    vit = torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
        mlp_dim=64, num_classes=10)
    # torchvision zero-initializes the head, which would leave every other
    # gradient zero: a random head makes the check see them.
    nn.init.normal_(vit.heads.head.weight, std=0.1)
    return vit


MODELS = {
    "resnet18": lambda: (Classifier(torchvision.models.resnet18(num_classes=10)), "image", 64),
    "mobilenet_v3_small": lambda: (Classifier(torchvision.models.mobilenet_v3_small(num_classes=10)), "image", 64),
    "vit": lambda: (Classifier(_vit()), "image", 32),
    "transformer_encoder": lambda: (Seq2Seq(decoder=False), "sequence", 0),
    "transformer_decoder": lambda: (Seq2Seq(decoder=True), "sequence", 0),
    "llama": lambda: (LlamaLM(), "tokens", 0),
}


# A checkpoint region per block (--checkpoint-modules): the CNNs' residual
# and inverted-residual blocks (their batch_norms update the running
# statistics once per step, with a warning), the transformers' layers.
BLOCKS = {
    "resnet18": r"model\.layer[1-4]\.[0-9]+",
    "mobilenet_v3_small": r"model\.features\.([1-9]|1[01])",
    "vit": r"model\.encoder\.layers\.encoder_layer_[0-9]+",
    "transformer_encoder": r"body\.layers\.[0-9]+",
    "transformer_decoder": r"body\.layers\.[0-9]+",
    "llama": r"blocks\.[0-9]+",
}

_DTYPES = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64"}


def export(name, path, dtype=torch.float32):
    """Exports the model to the .pt2 `path` (trace_mlir.export, as
    trace_mlir.compile does); returns trace-import's --input-shape."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    sys.path.insert(0, os.path.join(root, "python"))
    import trace_mlir
    net, inputs = build(name, dtype)
    program = trace_mlir.export(net, inputs)
    torch.export.save(program, path)
    names = program.graph_signature.user_inputs
    return ",".join(f"{n}={'x'.join(map(str, t.shape))}x{_DTYPES[t.dtype]}"
                    for n, t in zip(names, inputs))


def build(name, dtype=torch.float32):
    torch.manual_seed(0)
    module, kind, size = MODELS[name]()
    module = _no_dropout(module).train().to(dtype)
    if kind == "image":
        inputs = (torch.randn(4, 3, size, size).to(dtype), torch.tensor([0, 3, 1, 7]))
    elif kind == "sequence":
        inputs = (torch.randn(2, 6, 32).to(dtype), torch.randn(2, 6, 32).to(dtype),
                  torch.randint(0, 7, (2, 6)))
    else:
        inputs = (torch.randint(0, 64, (2, 16)), torch.randint(0, 64, (2, 16)))
    return module, inputs
