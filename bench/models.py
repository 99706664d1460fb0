"""Reference models written twice: as trace IR (what the TorchScript importer
will emit) and as a PyTorch module, for numerics tests and CPU benchmarks.

    gpt_block(B, T, C, H, layers)  pre-norm GPT-2 blocks: layer_norm, causal
                                   self-attention with softmax, tanh-GELU MLP,
                                   residuals (dropout off: eval numerics)
    mlp(B, widths)                 Linear + tanh-GELU stack
    elementwise_chain(N, depth)    a long chain of elementwise ops

Each returns (mlir_text, torch_module, input_shapes); the function's
arguments are the input followed by the parameters, in the order of
`module.named_parameters()`, and carry their names in `trace.name`.
"""

import math

import torch
import torch.nn.functional as F


class Emitter:
    """Writes trace ops with fresh SSA names."""

    def __init__(self):
        self.lines = []
        self.count = 0

    def op(self, text, indent="  "):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"{indent}{name} = {text}")
        return name


def flt(value):
    """A float literal MLIR's lexer accepts (it needs the '.')."""
    return f"{value:.9e}"


def ty(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def layer_norm(e, x, shape, gamma, beta, eps=1e-5):
    """Over the last dim, as F.layer_norm."""
    rank = len(shape)
    last = rank - 1
    red = shape[:-1] + [1]
    n = shape[-1]
    s = e.op(f"trace.reduce_sum {x} dims = [{last}] keepdim : {ty(shape)} -> {ty(red)}")
    inv = e.op(f"trace.full {flt(1.0 / n)} : {ty(red)}")
    mean = e.op(f"trace.mul {s}, {inv} : {ty(red)}")
    alldims = ", ".join(str(i) for i in range(rank))
    mb = e.op(f"trace.broadcast_in_dim {mean}, dims = [{alldims}] : {ty(red)} -> {ty(shape)}")
    xc = e.op(f"trace.sub {x}, {mb} : {ty(shape)}")
    sq = e.op(f"trace.mul {xc}, {xc} : {ty(shape)}")
    ss = e.op(f"trace.reduce_sum {sq} dims = [{last}] keepdim : {ty(shape)} -> {ty(red)}")
    var = e.op(f"trace.mul {ss}, {inv} : {ty(red)}")
    epsv = e.op(f"trace.full {flt(eps)} : {ty(red)}")
    ve = e.op(f"trace.add {var}, {epsv} : {ty(red)}")
    rs = e.op(f"trace.rsqrt {ve} : {ty(red)}")
    rb = e.op(f"trace.broadcast_in_dim {rs}, dims = [{alldims}] : {ty(red)} -> {ty(shape)}")
    xn = e.op(f"trace.mul {xc}, {rb} : {ty(shape)}")
    gb = e.op(f"trace.broadcast_in_dim {gamma}, dims = [{last}] : {ty([n])} -> {ty(shape)}")
    bb = e.op(f"trace.broadcast_in_dim {beta}, dims = [{last}] : {ty([n])} -> {ty(shape)}")
    y = e.op(f"trace.mul {xn}, {gb} : {ty(shape)}")
    return e.op(f"trace.add {y}, {bb} : {ty(shape)}")


def linear(e, x, rows, fin, fout, weight, bias):
    """x [rows, fin] @ W^T + b with W [fout, fin] as nn.Linear stores it."""
    wt = e.op(f"trace.transpose {weight}, perm = [1, 0] : {ty([fout, fin])} -> {ty([fin, fout])}")
    m = e.op(f"trace.matmul {x}, {wt} : {ty([rows, fin])}, {ty([fin, fout])} -> {ty([rows, fout])}")
    bb = e.op(f"trace.broadcast_in_dim {bias}, dims = [1] : {ty([fout])} -> {ty([rows, fout])}")
    return e.op(f"trace.add {m}, {bb} : {ty([rows, fout])}")


def gelu_tanh(e, x, shape):
    t = ty(shape)
    x2 = e.op(f"trace.mul {x}, {x} : {t}")
    x3 = e.op(f"trace.mul {x2}, {x} : {t}")
    c0 = e.op(f"trace.full 0.044715 : {t}")
    a = e.op(f"trace.mul {x3}, {c0} : {t}")
    b = e.op(f"trace.add {x}, {a} : {t}")
    c1 = e.op(f"trace.full {flt(math.sqrt(2.0 / math.pi))} : {t}")
    c = e.op(f"trace.mul {b}, {c1} : {t}")
    th = e.op(f"trace.tanh {c} : {t}")
    one = e.op(f"trace.full 1.0 : {t}")
    d = e.op(f"trace.add {th}, {one} : {t}")
    half = e.op(f"trace.full 0.5 : {t}")
    hx = e.op(f"trace.mul {x}, {half} : {t}")
    return e.op(f"trace.mul {hx}, {d} : {t}")


def softmax_last(e, x, shape):
    rank = len(shape)
    red = shape[:-1] + [1]
    alldims = ", ".join(str(i) for i in range(rank))
    m = e.op(f"trace.reduce_max {x} dims = [{rank - 1}] keepdim : {ty(shape)} -> {ty(red)}")
    mb = e.op(f"trace.broadcast_in_dim {m}, dims = [{alldims}] : {ty(red)} -> {ty(shape)}")
    z = e.op(f"trace.sub {x}, {mb} : {ty(shape)}")
    ex = e.op(f"trace.exp {z} : {ty(shape)}")
    s = e.op(f"trace.reduce_sum {ex} dims = [{rank - 1}] keepdim : {ty(shape)} -> {ty(red)}")
    sb = e.op(f"trace.broadcast_in_dim {s}, dims = [{alldims}] : {ty(red)} -> {ty(shape)}")
    return e.op(f"trace.div {ex}, {sb} : {ty(shape)}")


def forward_function(params, body, result, result_shape):
    """`func.func @forward(params) -> result_shape` with `body`, returning
    `result` under the name "out"."""
    t = ty(result_shape)
    return (f"func.func @forward(\n    {params})\n    -> ({t} {{trace.name = \"out\"}}) {{\n"
            f"{body}\n  return {result} : {t}\n}}\n")


class Block(torch.nn.Module):
    def __init__(self, C, H):
        super().__init__()
        self.H = H
        self.ln_1 = torch.nn.LayerNorm(C)
        self.attn_qkv = torch.nn.Linear(C, 3 * C)
        self.attn_proj = torch.nn.Linear(C, C)
        self.ln_2 = torch.nn.LayerNorm(C)
        self.fc = torch.nn.Linear(C, 4 * C)
        self.proj = torch.nn.Linear(4 * C, C)

    def forward(self, x):
        B, T, C = x.shape
        H, hd = self.H, C // self.H
        q, k, v = self.attn_qkv(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, H, hd).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.attn_proj(y)
        return x + self.proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class GPT(torch.nn.Module):
    def __init__(self, C, H, layers):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(C, H) for _ in range(layers))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def _signature(module, input_shape):
    args = [(f"%x", input_shape, "x")]
    for i, (name, p) in enumerate(module.named_parameters()):
        args.append((f"%p{i}", list(p.shape), name))
    params = ",\n    ".join(f"{a}: {ty(s)} {{trace.name = \"{n}\"}}" for a, s, n in args)
    return args, params


def gpt_block(B=2, T=16, C=64, H=4, layers=1, seed=0):
    torch.manual_seed(seed)
    module = GPT(C, H, layers).eval()
    args, params = _signature(module, [B, T, C])
    p = {n: a for a, _, n in args}
    e = Emitter()
    hd = C // H
    x = "%x"
    BT, BH = B * T, B * H
    for l in range(layers):
        pre = f"blocks.{l}."
        h = layer_norm(e, x, [B, T, C], p[pre + "ln_1.weight"], p[pre + "ln_1.bias"])
        h2 = e.op(f"trace.reshape {h} : {ty([B, T, C])} -> {ty([BT, C])}")
        qkv = linear(e, h2, BT, C, 3 * C, p[pre + "attn_qkv.weight"], p[pre + "attn_qkv.bias"])
        heads = []
        for i in range(3):
            s = e.op(f"trace.slice {qkv} [0:{BT}, {i * C}:{(i + 1) * C}] : {ty([BT, 3 * C])} -> {ty([BT, C])}")
            r = e.op(f"trace.reshape {s} : {ty([BT, C])} -> {ty([B, T, H, hd])}")
            t = e.op(f"trace.transpose {r}, perm = [0, 2, 1, 3] : {ty([B, T, H, hd])} -> {ty([B, H, T, hd])}")
            heads.append(e.op(f"trace.reshape {t} : {ty([B, H, T, hd])} -> {ty([BH, T, hd])}"))
        q, k, v = heads
        kt = e.op(f"trace.transpose {k}, perm = [0, 2, 1] : {ty([BH, T, hd])} -> {ty([BH, hd, T])}")
        sc = e.op(f"trace.matmul {q}, {kt} : {ty([BH, T, hd])}, {ty([BH, hd, T])} -> {ty([BH, T, T])}")
        scale = e.op(f"trace.full {flt(1.0 / math.sqrt(hd))} : {ty([BH, T, T])}")
        sc = e.op(f"trace.mul {sc}, {scale} : {ty([BH, T, T])}")
        row = e.op(f"trace.iota dim = 0 : tensor<{T}x{T}xi64>")
        col = e.op(f"trace.iota dim = 1 : tensor<{T}x{T}xi64>")
        keep = e.op(f"trace.compare le, {col}, {row} : tensor<{T}x{T}xi64>")
        keepb = e.op(f"trace.broadcast_in_dim {keep}, dims = [1, 2] : tensor<{T}x{T}xi1> -> tensor<{BH}x{T}x{T}xi1>")
        ninf = e.op(f"trace.full 0xFF800000 : {ty([BH, T, T])}")
        sc = e.op(f"trace.select {keepb}, {sc}, {ninf} : tensor<{BH}x{T}x{T}xi1>, {ty([BH, T, T])}")
        pr = softmax_last(e, sc, [BH, T, T])
        y = e.op(f"trace.matmul {pr}, {v} : {ty([BH, T, T])}, {ty([BH, T, hd])} -> {ty([BH, T, hd])}")
        y = e.op(f"trace.reshape {y} : {ty([BH, T, hd])} -> {ty([B, H, T, hd])}")
        y = e.op(f"trace.transpose {y}, perm = [0, 2, 1, 3] : {ty([B, H, T, hd])} -> {ty([B, T, H, hd])}")
        y = e.op(f"trace.reshape {y} : {ty([B, T, H, hd])} -> {ty([BT, C])}")
        a = linear(e, y, BT, C, C, p[pre + "attn_proj.weight"], p[pre + "attn_proj.bias"])
        a = e.op(f"trace.reshape {a} : {ty([BT, C])} -> {ty([B, T, C])}")
        x = e.op(f"trace.add {x}, {a} : {ty([B, T, C])}")
        h = layer_norm(e, x, [B, T, C], p[pre + "ln_2.weight"], p[pre + "ln_2.bias"])
        h = e.op(f"trace.reshape {h} : {ty([B, T, C])} -> {ty([BT, C])}")
        h = linear(e, h, BT, C, 4 * C, p[pre + "fc.weight"], p[pre + "fc.bias"])
        h = gelu_tanh(e, h, [BT, 4 * C])
        h = linear(e, h, BT, 4 * C, C, p[pre + "proj.weight"], p[pre + "proj.bias"])
        h = e.op(f"trace.reshape {h} : {ty([BT, C])} -> {ty([B, T, C])}")
        x = e.op(f"trace.add {x}, {h} : {ty([B, T, C])}")
    return forward_function(params, "\n".join(e.lines), x, [B, T, C]), module, [B, T, C]


class MLP(torch.nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(widths, widths[1:]))

    def forward(self, x):
        for layer in self.layers:
            x = F.gelu(layer(x), approximate="tanh")
        return x


def mlp(B=64, widths=(256, 1024, 1024, 256), seed=0):
    torch.manual_seed(seed)
    module = MLP(list(widths)).eval()
    args, params = _signature(module, [B, widths[0]])
    p = {n: a for a, _, n in args}
    e = Emitter()
    x = "%x"
    for i, (a, b) in enumerate(zip(widths, widths[1:])):
        x = linear(e, x, B, a, b, p[f"layers.{i}.weight"], p[f"layers.{i}.bias"])
        x = gelu_tanh(e, x, [B, b])
    text = forward_function(params, "\n".join(e.lines), x, [B, widths[-1]])
    return text, module, [B, widths[0]]


class Chain(torch.nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.depth = depth

    def forward(self, x):
        for _ in range(self.depth):
            x = torch.tanh(x * 1.5 + 0.25) * torch.sigmoid(x)
        return x


def elementwise_chain(N=1 << 20, depth=8):
    module = Chain(depth)
    e = Emitter()
    t = ty([N])
    x = "%x"
    for _ in range(depth):
        a = e.op(f"trace.full 1.5 : {t}")
        b = e.op(f"trace.full 0.25 : {t}")
        m = e.op(f"trace.mul {x}, {a} : {t}")
        s = e.op(f"trace.add {m}, {b} : {t}")
        th = e.op(f"trace.tanh {s} : {t}")
        lg = e.op(f"trace.logistic {x} : {t}")
        x = e.op(f"trace.mul {th}, {lg} : {t}")
    text = forward_function(f"%x: {t} {{trace.name = \"x\"}}", "\n".join(e.lines), x, [N])
    return text, module, [N]
