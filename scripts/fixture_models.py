"""The PyTorch modules behind the TorchScript fixtures that trace-import is
tested on; scripts/gen-fixtures.py traces and saves them, numerics tests
rebuild them here.

    build(name) -> (module, inputs)

`name` is a model (`mlp`, `gpt`, `gpt_nockpt`, `nested`), a per-op fixture
(`linear`, `gelu_tanh`, ... : the keys of OPS) or an error fixture
(`control_flow`, `loop`, `unsupported_op`). `module` is built under
torch.manual_seed(SEED), so its weights equal those in the saved .pt, and is
in the mode it was traced in (training, except `dropout_eval`); `inputs` is
an ordered dict of example inputs in forward-argument order (the tracing
inputs; the .pt files record only their shapes, in NAME.shapes).

Loading a saved fixture's weights back into the eager module works with the
keys as TorchScript records them:

    m, inputs = build("gpt")
    m.load_state_dict(torch.jit.load("examples/models/gpt.pt").state_dict())

PyTorch's CheckpointWrapper drops its `_checkpoint_wrapped_module.` prefix
from state_dict() keys through a hook and adds it back on load, so a traced
model's state_dict (which keeps the prefix) would not load into an eager
wrapped one; `wrap` removes those two hooks, making the eager keys equal the
TorchScript ones. (named_parameters() of the whole model keeps the prefix
too; only a CheckpointWrapper's own named_parameters(), an overridden
method, strips it.)
`strip_wrapper_prefix` maps the keys of `gpt` onto those of `gpt_nockpt`.
"""

import collections
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    CheckpointImpl, checkpoint_wrapper)

SEED = 0
WRAPPER_PREFIX = "_checkpoint_wrapped_module."


def wrap(module):
    """checkpoint_wrapper with the non-reentrant implementation (the
    reentrant default fails under torch.jit.trace in 1.13), without the
    state_dict hooks that rename keys (see the module docstring)."""
    w = checkpoint_wrapper(module, checkpoint_impl=CheckpointImpl.NO_REENTRANT)
    w._state_dict_hooks.clear()
    w._load_state_dict_pre_hooks.clear()
    return w


def strip_wrapper_prefix(state_dict):
    return collections.OrderedDict(
        (k.replace(WRAPPER_PREFIX, ""), v) for k, v in state_dict.items())


# --------------------------------------------------------------------------
# Models (examples/models/)

class MLP(nn.Module):
    """Linear+GELU, Linear+ReLU, Linear+tanh-GELU, LayerNorm, Linear; mean
    squared error against `target`, written out (sub, pow, mean)."""

    def __init__(self, d_in=32, hidden=64, d_out=16):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, d_in)
        self.ln = nn.LayerNorm(d_in)
        self.head = nn.Linear(d_in, d_out)

    def forward(self, x, target):
        h = F.gelu(self.fc1(x))
        h = F.relu(self.fc2(h))
        h = F.gelu(self.fc3(h), approximate="tanh")
        y = self.head(self.ln(h))
        return ((y - target) ** 2).mean()


class CausalSelfAttention(nn.Module):
    """nanoGPT's attention written out: qkv projection, split, heads,
    q @ k^T * scale, causal mask from a tril buffer, softmax, dropout, @ v."""

    def __init__(self, d_model, n_head, block_size, dropout):
        super().__init__()
        self.n_head = n_head
        self.scale = 1.0 / math.sqrt(d_model // n_head)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.attn_drop = nn.Dropout(dropout)
        self.resid_drop = nn.Dropout(dropout)
        self.register_buffer("mask", torch.tril(
            torch.ones(block_size, block_size)).view(1, 1, block_size,
                                                     block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * self.scale
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_drop(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_drop(self.proj(y))


class FeedForward(nn.Module):
    def __init__(self, d_model, dropout, approximate):
        super().__init__()
        self.approximate = approximate
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.proj = nn.Linear(4 * d_model, d_model)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        h = F.gelu(self.fc(x), approximate=self.approximate)
        return self.drop(self.proj(h))


class Block(nn.Module):
    """Pre-norm GPT-2 block."""

    def __init__(self, d_model, n_head, block_size, dropout, approximate):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head, block_size, dropout)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = FeedForward(d_model, dropout, approximate)

    def forward(self, x):
        h = x + self.attn(self.ln1(x))
        return h + self.mlp(self.ln2(h))


class GPT(nn.Module):
    """Token and position embeddings, blocks (the first with tanh-GELU, the
    second with exact GELU), final LayerNorm, bias-free LM head,
    cross-entropy against `targets`. With `checkpoint`, every block is
    wrapped in PyTorch's CheckpointWrapper."""

    def __init__(self, vocab=64, block_size=16, d_model=32, n_head=4,
                 n_layer=2, dropout=0.1, checkpoint=True):
        super().__init__()
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(block_size, d_model)
        self.drop = nn.Dropout(dropout)
        blocks = [Block(d_model, n_head, block_size, dropout,
                        "tanh" if i % 2 == 0 else "none")
                  for i in range(n_layer)]
        self.blocks = nn.ModuleList(
            [wrap(b) for b in blocks] if checkpoint else blocks)
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx, targets):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long)
        h = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.blocks:
            h = block(h)
        logits = self.lm_head(self.ln_f(h))
        return F.cross_entropy(logits.view(-1, logits.size(-1)),
                               targets.view(-1))


class InnerMLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class Outer(nn.Module):
    """A block whose two MLPs are checkpointed inside its own checkpoint."""

    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.mlp1 = wrap(InnerMLP(d))
        self.mlp2 = wrap(InnerMLP(d))

    def forward(self, x):
        h = self.ln(x)
        h = h + self.mlp1(h)
        h = h + self.mlp2(h)
        return torch.tanh(h)


class Nested(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.outer = wrap(Outer(d))
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        return self.head(self.outer(self.inp(x))).mean()


def _gpt_inputs():
    return {"idx": torch.randint(0, 64, (2, 16)),
            "targets": torch.randint(0, 64, (2, 16))}


MODELS = {
    "mlp": (MLP, lambda: {"x": torch.randn(8, 32),
                          "target": torch.randn(8, 16)}),
    "gpt": (lambda: GPT(checkpoint=True), _gpt_inputs),
    "gpt_nockpt": (lambda: GPT(checkpoint=False), _gpt_inputs),
    "nested": (Nested, lambda: {"x": torch.randn(4, 16)}),
}


# --------------------------------------------------------------------------
# Per-op fixtures (test/Importer/TorchScript/Inputs/ops/)
#
# Each is a module whose forward applies `fn(self, *inputs)`; the forward
# signature is chosen by the input names, since TorchScript names the graph
# inputs after the forward arguments.

class _X(nn.Module):
    def forward(self, x):
        return self.fn(self, x)


class _XY(nn.Module):
    def forward(self, x, y):
        return self.fn(self, x, y)


class _XYZ(nn.Module):
    def forward(self, x, y, z):
        return self.fn(self, x, y, z)


class _XTarget(nn.Module):
    def forward(self, x, target):
        return self.fn(self, x, target)


class _Idx(nn.Module):
    def forward(self, idx):
        return self.fn(self, idx)


class _XIdx(nn.Module):
    def forward(self, x, idx):
        return self.fn(self, x, idx)


class _XIdxY(nn.Module):
    def forward(self, x, idx, y):
        return self.fn(self, x, idx, y)


_SIGNATURES = {("x",): _X, ("x", "y"): _XY, ("x", "y", "z"): _XYZ,
               ("x", "target"): _XTarget, ("idx",): _Idx,
               ("x", "idx"): _XIdx, ("x", "idx", "y"): _XIdxY}


def randn(*shape):
    return lambda: torch.randn(*shape)


def positive(*shape):
    """Inputs for log, sqrt, rsqrt, pow: in [0.5, 1.5)."""
    return lambda: torch.rand(*shape) + 0.5


def f64(*shape):
    return lambda: torch.randn(*shape, dtype=torch.float64)


def ints(high, *shape):
    return lambda: torch.randint(0, high, shape)


class OpSpec:
    def __init__(self, fn, inputs, modules, buffers, train):
        self.fn, self.inputs, self.modules = fn, inputs, modules
        self.buffers, self.train = buffers, train

    def build(self):
        m = _SIGNATURES[tuple(self.inputs)]()
        m.fn = self.fn
        for name, make in self.modules.items():
            setattr(m, name, make())
        for name, make in self.buffers.items():
            m.register_buffer(name, make())
        m.train(self.train)
        return m, {k: make() for k, make in self.inputs.items()}


OPS = {}


def op(name, fn, modules=None, buffers=None, train=True, **inputs):
    OPS[name] = OpSpec(fn, inputs, modules or {}, buffers or {}, train)


def _causal_mask():
    return torch.tril(torch.ones(4, 4))


# Matrix products.
op("linear", lambda m, x: m.lin(x), {"lin": lambda: nn.Linear(16, 8)},
   x=randn(4, 16))
op("linear_nobias", lambda m, x: m.lin(x),
   {"lin": lambda: nn.Linear(16, 8, bias=False)}, x=randn(4, 16))
op("linear_3d", lambda m, x: m.lin(x), {"lin": lambda: nn.Linear(16, 8)},
   x=randn(2, 4, 16))
op("matmul", lambda m, x, y: x @ y, x=randn(4, 8), y=randn(8, 5))
op("matmul_3d_2d", lambda m, x, y: torch.matmul(x, y), x=randn(2, 4, 8),
   y=randn(8, 5))
op("matmul_4d", lambda m, x, y: x @ y, x=randn(2, 3, 4, 8),
   y=randn(2, 3, 8, 5))
op("mm", lambda m, x, y: torch.mm(x, y), x=randn(4, 8), y=randn(8, 5))
op("bmm", lambda m, x, y: torch.bmm(x, y), x=randn(2, 4, 8),
   y=randn(2, 8, 5))
op("addmm", lambda m, x, y, z: torch.addmm(x, y, z, beta=0.5, alpha=2.0),
   x=randn(5), y=randn(4, 8), z=randn(8, 5))

# Binary elementwise.
op("add", lambda m, x, y: x + y, x=randn(2, 3, 4), y=randn(4))
op("add_scalar", lambda m, x: x + 2.5, x=randn(2, 3))
op("add_alpha", lambda m, x, y: torch.add(x, y, alpha=2.0), x=randn(2, 3),
   y=randn(2, 3))
op("sub", lambda m, x, y: x - y, x=randn(2, 3, 4), y=randn(3, 1))
op("sub_scalar", lambda m, x: x - 1.5, x=randn(2, 3))
op("sub_alpha", lambda m, x, y: torch.sub(x, y, alpha=3), x=randn(2, 3),
   y=randn(2, 3))
op("rsub", lambda m, x: 1.0 - x, x=randn(2, 3))
op("rsub_tensor", lambda m, x, y: torch.rsub(x, y, alpha=2.0),
   x=randn(2, 3), y=randn(2, 3))
op("mul", lambda m, x, y: x * y, x=randn(2, 3), y=randn(2, 3))
op("mul_scalar", lambda m, x: 0.5 * x, x=randn(2, 3))
op("div", lambda m, x, y: x / y, x=randn(2, 3), y=positive(2, 3))
op("div_scalar", lambda m, x: x / 4.0, x=randn(2, 3))
op("pow_scalar", lambda m, x: x ** 2.0, x=randn(2, 3))
op("pow_int", lambda m, x: x ** 3, x=randn(2, 3))
op("pow_tensor", lambda m, x, y: x ** y, x=positive(2, 3), y=randn(2, 3))
op("eq_scalar", lambda m, x: x == 0, x=randn(2, 3))

# Unary elementwise.
op("neg", lambda m, x: -x, x=randn(2, 3))
op("exp", lambda m, x: torch.exp(x), x=randn(2, 3))
op("log", lambda m, x: torch.log(x), x=positive(2, 3))
op("tanh", lambda m, x: torch.tanh(x), x=randn(2, 3))
op("sigmoid", lambda m, x: torch.sigmoid(x), x=randn(2, 3))
op("relu", lambda m, x: F.relu(x), x=randn(2, 3))
op("gelu", lambda m, x: F.gelu(x), x=randn(2, 3))
op("gelu_tanh", lambda m, x: F.gelu(x, approximate="tanh"), x=randn(2, 3))
op("silu", lambda m, x: F.silu(x), x=randn(2, 3))
op("sin", lambda m, x: torch.sin(x), x=randn(2, 3))
op("cos", lambda m, x: torch.cos(x), x=randn(2, 3))
op("sqrt", lambda m, x: torch.sqrt(x), x=positive(2, 3))
op("rsqrt", lambda m, x: torch.rsqrt(x), x=positive(2, 3))

# Normalizations, softmax, dropout, embedding.
op("softmax", lambda m, x: F.softmax(x, dim=-1), x=randn(2, 3, 8))
op("log_softmax", lambda m, x: F.log_softmax(x, dim=1), x=randn(4, 10))
op("layer_norm", lambda m, x: m.ln(x), {"ln": lambda: nn.LayerNorm(16)},
   x=randn(2, 4, 16))
op("layer_norm_noaffine", lambda m, x: F.layer_norm(x, (16,)),
   x=randn(2, 4, 16))
op("batch_norm_train", lambda m, x: m.bn(x), {"bn": lambda: nn.BatchNorm2d(3)},
   x=randn(2, 3, 2, 2))
op("batch_norm_eval", lambda m, x: m.bn(x), {"bn": lambda: nn.BatchNorm1d(3)},
   train=False, x=randn(4, 3))
op("group_norm", lambda m, x: m.gn(x), {"gn": lambda: nn.GroupNorm(2, 4)},
   x=randn(2, 4, 3))
op("instance_norm", lambda m, x: F.instance_norm(x), x=randn(2, 3, 4))
op("dropout_train", lambda m, x: m.drop(x), {"drop": lambda: nn.Dropout(0.1)},
   x=randn(4, 8))
op("dropout_eval", lambda m, x: m.drop(x), {"drop": lambda: nn.Dropout(0.1)},
   train=False, x=randn(4, 8))
op("embedding", lambda m, idx: m.emb(idx), {"emb": lambda: nn.Embedding(16, 8)},
   idx=ints(16, 2, 5))

# Shapes and views.
op("view", lambda m, x: x.view(4, 2, 8), x=randn(8, 8))
op("view_infer", lambda m, x: x.view(-1, 16), x=randn(2, 4, 8))
op("view_size", lambda m, x: x.view(x.size(0), -1), x=randn(2, 4, 8))


def _split_heads(m, x):
    B, T, C = x.size()
    return x.view(B, T, 4, C // 4)


op("view_size_floordiv", _split_heads, x=randn(2, 3, 16))
op("reshape", lambda m, x: x.reshape(2, 32), x=randn(4, 4, 4))
op("flatten", lambda m, x: x.flatten(1), x=randn(2, 3, 4))
op("transpose", lambda m, x: x.transpose(0, 2), x=randn(2, 3, 4))
op("transpose_neg", lambda m, x: x.transpose(-2, -1), x=randn(2, 3, 4))
op("permute", lambda m, x: x.permute(2, 0, 1), x=randn(2, 3, 4))
op("t", lambda m, x: x.t(), x=randn(3, 5))
op("contiguous", lambda m, x: x.transpose(0, 1).contiguous(),
   x=randn(2, 3, 4))
op("split", lambda m, x: _combine(x.split(4, dim=-1)), x=randn(2, 12))
op("split_sizes", lambda m, x: _combine(x.split([2, 6], dim=1)),
   x=randn(3, 8))
op("chunk", lambda m, x: _combine(x.chunk(3, dim=0)), x=randn(6, 4))
op("slice", lambda m, x: x[:, 1:3], x=randn(4, 5))
op("slice_step", lambda m, x: x[1:, ::2], x=randn(4, 6))
op("select", lambda m, x: x[0], x=randn(3, 4))
op("select_neg", lambda m, x: x[:, -1], x=randn(3, 4))
op("narrow", lambda m, x: x.narrow(1, 1, 2), x=randn(3, 5))
op("unsqueeze", lambda m, x: x.unsqueeze(1), x=randn(3, 4))
op("squeeze_dim", lambda m, x: x.squeeze(1), x=randn(3, 1, 4))
op("squeeze", lambda m, x: x.squeeze(), x=randn(3, 1, 4, 1))
op("expand", lambda m, x: x.expand(3, 4, 5), x=randn(4, 1))
op("expand_as", lambda m, x, y: x.expand_as(y), x=randn(1, 5), y=randn(3, 5))
op("cat", lambda m, x, y: torch.cat([x, y], dim=1), x=randn(2, 3),
   y=randn(2, 4))


def _combine(parts):
    """Uses every piece of a split so none is dead code."""
    out = parts[0]
    for p in parts[1:]:
        out = out.sum() + p
    return out


# Masks and factories.
op("masked_fill", lambda m, x: x.masked_fill(m.mask == 0, float("-inf")),
   buffers={"mask": _causal_mask}, x=randn(2, 4, 4))
op("tril", lambda m, x: torch.tril(x), x=randn(4, 4))
op("triu", lambda m, x: torch.triu(x, diagonal=1), x=randn(4, 4))
op("ones", lambda m, x: x + torch.ones(3, 4), x=randn(3, 4))
op("zeros", lambda m, x: x * torch.zeros(3, 4), x=randn(3, 4))
op("full", lambda m, x: x + torch.full((3, 4), 2.5), x=randn(3, 4))
op("ones_like", lambda m, x: torch.ones_like(x) - x, x=randn(3, 4))
op("zeros_like", lambda m, x: torch.zeros_like(x) + x, x=randn(3, 4))
op("arange", lambda m, x: x + torch.arange(4, dtype=torch.float32),
   x=randn(3, 4))
op("arange_start_step", lambda m, x: x + torch.arange(1.0, 9.0, 2.0),
   x=randn(3, 4))
op("arange_size", lambda m, idx: torch.arange(0, idx.size(1),
                                              dtype=torch.long),
   idx=ints(16, 2, 5))

# Reductions and losses.
op("sum", lambda m, x: x.sum(), x=randn(2, 3, 4))
op("sum_dim", lambda m, x: x.sum(dim=1), x=randn(2, 3, 4))
op("sum_dims_keepdim", lambda m, x: x.sum(dim=(0, 2), keepdim=True),
   x=randn(2, 3, 4))
op("mean", lambda m, x: x.mean(), x=randn(2, 3, 4))
op("mean_dim", lambda m, x: x.mean(dim=-1), x=randn(2, 3, 4))
op("mean_dims_keepdim", lambda m, x: x.mean(dim=(1, 2), keepdim=True),
   x=randn(2, 3, 4))
op("amax", lambda m, x: torch.amax(x), x=randn(2, 3, 4))
op("amax_dim", lambda m, x: torch.amax(x, dim=1), x=randn(2, 3, 4))
op("amax_keepdim", lambda m, x: torch.amax(x, dim=-1, keepdim=True),
   x=randn(2, 3, 4))
op("var", lambda m, x: torch.var(x, dim=1), x=randn(2, 3, 4))
op("logsumexp", lambda m, x: torch.logsumexp(x, dim=-1), x=randn(2, 3, 4))
op("nll_loss", lambda m, x, target: F.nll_loss(F.log_softmax(x, -1), target),
   x=randn(4, 10), target=ints(10, 4))
op("cross_entropy", lambda m, x, target: F.cross_entropy(x, target),
   x=randn(4, 10), target=ints(10, 4))

# Type conversions.
op("to_f64", lambda m, x: x.to(torch.float64), x=randn(2, 3))
op("type_as", lambda m, x, y: x.type_as(y), x=randn(2, 3), y=f64(2, 3))
op("float", lambda m, idx: idx.float(), idx=ints(16, 2, 3))
# In-place variants: the schema's alias annotation (Tensor(a!) self) makes
# them the operator they are a variant of.
op("relu_inplace", lambda m, x: (x * 2.0).relu_(), x=randn(2, 3))
op("add_inplace", lambda m, x, y: (x * 2.0).add_(y, alpha=3.0),
   x=randn(2, 3), y=randn(2, 3))
# Elementwise ops and activations composed of the primitives (their VJPs,
# costs and lowerings are the primitives').
op("square", lambda m, x: x.square(), x=randn(2, 3))
op("reciprocal", lambda m, x: torch.reciprocal(x), x=randn(2, 3))
op("clamp", lambda m, x: torch.clamp(x, -0.5, 0.7), x=randn(2, 3))
op("clamp_min_only", lambda m, x: torch.clamp(x, min=-0.2), x=randn(2, 3))
op("clamp_tensor", lambda m, x, y: torch.clamp(x, min=y), x=randn(2, 3),
   y=randn(3))
op("clamp_min", lambda m, x: torch.clamp_min(x, 0.1), x=randn(2, 3))
op("clamp_max", lambda m, x: torch.clamp_max(x, 0.1), x=randn(2, 3))
op("hardtanh", lambda m, x: F.hardtanh(x, -0.5, 0.25), x=randn(2, 3))
op("relu6", lambda m, x: F.relu6(x * 4.0), x=randn(2, 3))
op("hardsigmoid", lambda m, x: F.hardsigmoid(x * 4.0), x=randn(2, 3))
op("hardswish", lambda m, x: F.hardswish(x * 4.0), x=randn(2, 3))
op("hardswish_inplace", lambda m, x: F.hardswish(x * 4.0, inplace=True),
   x=randn(2, 3))
op("leaky_relu", lambda m, x: F.leaky_relu(x, 0.2), x=randn(2, 3))
op("elu", lambda m, x: F.elu(x, alpha=1.5), x=randn(2, 3))
op("selu", lambda m, x: F.selu(x), x=randn(2, 3))
op("softplus", lambda m, x: F.softplus(x * 8.0, beta=2.0, threshold=5.0),
   x=randn(2, 3))
op("mish", lambda m, x: F.mish(x), x=randn(2, 3))
op("log_sigmoid", lambda m, x: F.logsigmoid(x), x=randn(2, 3))
op("xlogy", lambda m, x, y: torch.xlogy(x, y), x=randn(2, 3), y=positive(2, 3))

# Convolutions (aten::_convolution, _convolution_mode) and flip.
op("conv2d", lambda m, x: m.conv(x),
   {"conv": lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1)}, x=randn(2, 3, 7, 7))
op("conv2d_groups_nobias", lambda m, x: m.conv(x),
   {"conv": lambda: nn.Conv2d(4, 6, 3, dilation=2, groups=2, bias=False)},
   x=randn(1, 4, 8, 8))
op("conv2d_same", lambda m, x: m.conv(x),
   {"conv": lambda: nn.Conv2d(3, 4, 4, padding="same")}, x=randn(1, 3, 6, 6))
op("conv1d", lambda m, x: m.conv(x),
   {"conv": lambda: nn.Conv1d(3, 4, 5, padding=2)}, x=randn(2, 3, 9))
op("conv_transpose2d", lambda m, x: m.conv(x),
   {"conv": lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1,
                                       output_padding=1)},
   x=randn(1, 4, 4, 4))
op("flip", lambda m, x: torch.flip(x, [0, -1]), x=randn(2, 3, 4))

# Pooling.
op("max_pool2d", lambda m, x: F.max_pool2d(x, 3, 2, 1), x=randn(1, 2, 5, 5))
op("avg_pool2d", lambda m, x: F.avg_pool2d(x, 2, count_include_pad=False,
                                           padding=1), x=randn(1, 2, 3, 3))
op("adaptive_avg_pool2d", lambda m, x: F.adaptive_avg_pool2d(x, (1, 1)),
   x=randn(2, 3, 4, 4))


# Indexing, stacking and resizing.
op("gather", lambda m, x, idx: torch.gather(x, 1, idx), x=randn(3, 5),
   idx=ints(5, 3, 4))
op("index_select", lambda m, x, idx: torch.index_select(x, 0, idx),
   x=randn(6, 4), idx=ints(6, 3))
op("scatter_add", lambda m, x, idx, y: x.scatter_add(0, idx, y),
   x=randn(5, 3), idx=ints(5, 4, 3), y=randn(4, 3))
op("embedding_padding_idx", lambda m, idx: m.emb(idx),
   {"emb": lambda: nn.Embedding(16, 8, padding_idx=0)}, idx=ints(16, 2, 5))
op("stack", lambda m, x, y: torch.stack([x, y], dim=1), x=randn(2, 3),
   y=randn(2, 3))
op("detach", lambda m, x: x * x.detach(), x=randn(2, 3))
op("upsample_nearest2d", lambda m, x: F.interpolate(x, scale_factor=2),
   x=randn(1, 2, 3, 3))
op("upsample_nearest2d_size", lambda m, x: F.interpolate(x, size=(5, 2)),
   x=randn(1, 2, 3, 3))
op("upsample_bilinear2d", lambda m, x: F.interpolate(
    x, size=(4, 6), mode="bilinear", align_corners=False), x=randn(1, 2, 3, 3))

# --------------------------------------------------------------------------
# Error fixtures (test/Importer/TorchScript/Inputs/errors/): what the
# importer must refuse with a diagnostic.

class ControlFlow(nn.Module):
    """Scripted: a branch on a tensor's value (prim::If)."""

    def forward(self, x):
        if x.sum() > 0:
            return x * 2.0
        return -x


class Loop(nn.Module):
    """Scripted: a loop whose trip count is a tensor's value (prim::Loop)."""

    def forward(self, x):
        y = x
        for _ in range(int(x.abs().sum())):
            y = y * 0.5
        return y


class Cumsum(nn.Module):
    """Traced: aten::cumsum, outside the importer's op set."""

    def forward(self, x):
        return torch.cumsum(torch.exp(x), dim=1)


class CopyInto(nn.Module):
    """Traced: aten::copy_, a mutation with no out-of-place operator."""

    def forward(self, x):
        h = torch.zeros(2, 3)
        h.copy_(x)
        return h * 2.0


class SparseEmbedding(nn.Module):
    """Traced: nn.Embedding(sparse=True), whose sparse gradient the
    compiled step cannot return."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(8, 4, sparse=True)

    def forward(self, idx):
        return self.emb(idx).sum()


ERRORS = {
    "control_flow": (ControlFlow, lambda: {"x": torch.randn(2, 3)}),
    "sparse_embedding": (SparseEmbedding,
                         lambda: {"idx": torch.randint(0, 8, (2, 3))}),
    "loop": (Loop, lambda: {"x": torch.randn(2, 3)}),
    "unsupported_op": (Cumsum, lambda: {"x": torch.randn(2, 3)}),
    "unsupported_mutation": (CopyInto, lambda: {"x": torch.randn(2, 3)}),
}
SCRIPTED = {"control_flow", "loop"}


def build(name):
    """(module, ordered dict of example inputs), built under the fixed seed."""
    torch.manual_seed(SEED)
    if name in MODELS or name in ERRORS:
        make, inputs = MODELS.get(name) or ERRORS[name]
        m = make()
        m.train()
        return m, collections.OrderedDict(inputs())
    m, inputs = OPS[name].build()
    return m, collections.OrderedDict(inputs)


def save(name, path):
    """Traces fixture `name` (torch.jit.trace, check_trace=False; scripts the
    SCRIPTED ones) and saves it to `path`. Returns the example inputs.

    TorchScript's debug info records, for each traced op, the Python stack
    at the time; gen-fixtures.py calls this on a fresh thread so that stack
    holds only this file, torch and the standard library, not the
    generator's own frames."""
    module, inputs = build(name)
    if name in SCRIPTED:
        saved = torch.jit.script(module)
    else:
        saved = torch.jit.trace(module, tuple(inputs.values()),
                                check_trace=False)
    saved.save(path)
    return inputs


# --------------------------------------------------------------------------
# Models that checkpoint with torch.utils.checkpoint calls (examples/models/)
#
# Appended here, below everything else, because the debug info of every
# fixture records the line numbers of this file: code added above would
# change every .pt. The models call `checkpoint` through this module's
# global name, so that the numerics tests can run them with plain calls and
# the saved-bytes bench with the reentrant implementation.

from torch.utils.checkpoint import checkpoint  # noqa: E402


def custom_forward(module):
    def run(*inputs):
        return module(*inputs)
    return run


class CallingGPT(GPT):
    """GPT whose blocks are checkpointed by calls (no wrappers): with
    `calls="module"` each block runs as `checkpoint(block, h)`, with
    `calls="lambda"` as `checkpoint(lambda t: block(t), h)`, the form of a
    loop that checkpoints a function per layer, and with `calls="closure"`
    as `checkpoint(custom_forward(block), h)`, Hugging Face's form."""

    def __init__(self, calls, **kwargs):
        super().__init__(checkpoint=False, **kwargs)
        self.calls = calls

    def forward(self, idx, targets):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long)
        h = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.blocks:
            if self.calls == "module":
                h = checkpoint(block, h, use_reentrant=False)
            elif self.calls == "closure":
                # Hugging Face's form (create_custom_forward).
                h = checkpoint(custom_forward(block), h, use_reentrant=False)
            else:
                # block=block: the backward calls the lambda again, after
                # the loop has moved on.
                h = checkpoint(lambda t, block=block: block(t), h,
                               use_reentrant=False)
        logits = self.lm_head(self.ln_f(h))
        return F.cross_entropy(logits.view(-1, logits.size(-1)),
                               targets.view(-1))


class SeedStyle(nn.Module):
    """The seed's example: a function checkpointed with a call."""

    def __init__(self, d=16):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        h = self.fc(x)
        y = checkpoint(lambda t: t.sin().cos().exp(), h, use_reentrant=False)
        return y.mean()


class RepeatedCalls(nn.Module):
    """Back-to-back calls of one function from one line that nothing in the
    file tells apart: the same lambda, no module inside, three times."""

    def __init__(self, d=16):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        h = self.fc(x)
        for _ in range(3):
            h = checkpoint(lambda t: torch.tanh(t) * 0.5 + t, h,
                           use_reentrant=False)
        return h.mean()


class PrefixedCalls(nn.Module):
    """A lambda per layer that computes before it calls the layer: a call
    starts at its first op, not at the layer's."""

    def __init__(self, d=16):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(3)])

    def forward(self, x):
        h = x
        for layer in self.layers:
            h = checkpoint(lambda t, layer=layer: layer(t.tanh() * 2.0), h,
                           use_reentrant=False)
        return h.mean()


class NestedCalls(nn.Module):
    """Calls in calls: a checkpointed method that checkpoints a module and
    a lambda over a module inside it."""

    def __init__(self, d=16):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)
        self.mlp1 = InnerMLP(d)
        self.mlp2 = InnerMLP(d)
        self.head = nn.Linear(d, 1)

    def block(self, x):
        h = self.ln(x)
        h = h + checkpoint(self.mlp1, h, use_reentrant=False)
        h = h + checkpoint(lambda t: self.mlp2(t).tanh(), h,
                           use_reentrant=False)
        return h

    def forward(self, x):
        h = checkpoint(self.block, self.inp(x), use_reentrant=False)
        return self.head(h).mean()


class CallingBlock(nn.Module):
    """Checkpoints its MLP with a call (inside a CheckpointWrapper below)."""

    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.mlp = InnerMLP(d)

    def forward(self, x):
        return x + checkpoint(self.mlp, self.ln(x), use_reentrant=False)


class MixedCalls(nn.Module):
    """Calls mixed with checkpoint_wrapper: a wrapped module that makes a
    call inside, and a call whose function runs a wrapped module."""

    def __init__(self, d=16):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.wrapped = wrap(CallingBlock(d))
        self.inner = wrap(InnerMLP(d))
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        h = self.wrapped(self.inp(x))
        h = checkpoint(lambda t: F.gelu(self.inner(t)) + t, h,
                       use_reentrant=False)
        return self.head(h).mean()


MODELS.update({
    "ckpt_seed": (SeedStyle, lambda: {"x": torch.randn(4, 16)}),
    "gpt_ckpt_calls": (lambda: CallingGPT("module"), _gpt_inputs),
    "gpt_ckpt_lambdas": (lambda: CallingGPT("lambda"), _gpt_inputs),
    "gpt_ckpt_closures": (lambda: CallingGPT("closure"), _gpt_inputs),
    "ckpt_repeated": (RepeatedCalls, lambda: {"x": torch.randn(4, 16)}),
    "ckpt_prefixed": (PrefixedCalls, lambda: {"x": torch.randn(4, 16)}),
    "nested_calls": (NestedCalls, lambda: {"x": torch.randn(4, 16)}),
    "mixed_calls": (MixedCalls, lambda: {"x": torch.randn(4, 16)}),
})
