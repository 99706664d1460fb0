#!/usr/bin/env python3
"""Generates the TorchScript fixtures trace-import is tested on.

    .venv/bin/python scripts/gen-fixtures.py [--out-root DIR] [--print-graphs [NAME...]]

The project's python (.venv, with the torch that python/requirements.txt
pins). Writes, under the repository root (or DIR):

    examples/models/NAME.pt                            models ending in a loss
    test/Importer/TorchScript/Inputs/ops/NAME.pt       one aten op (or family) each
    test/Importer/TorchScript/Inputs/errors/NAME.pt    what the importer must refuse

each with NAME.shapes beside it: one line per forward input, in argument order,
`NAME=D0xD1x...xDTYPE` (`x=2x16x32xf32`; dtypes f32 f64 f16 bf16 i64 i32 i1).
Also the manifests `ops/ops.txt` (`linear.pt: aten::linear`, the aten node
kinds of each fixture's inlined graph) and a README.md per folder.

The modules come from scripts/fixture_models.py (`build(name)`), under a fixed
seed. Each .pt is traced (torch.jit.trace, check_trace=False; the control-flow
errors with torch.jit.script) in a process of its own, so that TorchScript's
per-process type-name mangling (`___torch_mangle_N`) does not depend on what
else was generated, and on a fresh thread with fixture_models imported under
its relative path, since the debug info records the Python stack at each
traced op: the output is the same byte for byte on every run, in any
checkout, from any working directory. Every
file is loaded back, its inlined graph checked (input names equal the forward
arguments), its state_dict loaded into a freshly built eager module, and its
output compared with the eager module's. Fails if an aten op of a model has no
per-op fixture.
"""

import argparse
import collections
import concurrent.futures
import multiprocessing
import os
import sys
import types
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(REPO)
sys.dont_write_bytecode = True

import torch  # noqa: E402


def import_relative(name, path):
    """Imports `path` with its code objects named by the relative path, so
    that the Python stacks TorchScript records as debug info read
    `scripts/fixture_models.py(LINE)` in any checkout (a plain import, even
    through a relative sys.path entry, makes the name absolute)."""
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), module.__dict__)
    return module


fm = import_relative("fixture_models", "scripts/fixture_models.py")

MODELS_DIR = "examples/models"
OPS_DIR = "test/Importer/TorchScript/Inputs/ops"
ERRORS_DIR = "test/Importer/TorchScript/Inputs/errors"

DTYPES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
          torch.bfloat16: "bf16", torch.int64: "i64", torch.int32: "i32",
          torch.bool: "i1"}

# Node kinds left out of the "other nodes" column: present in every graph.
COMMON_KINDS = {"prim::Constant", "prim::GetAttr"}

def shape_line(name, t):
    return name + "=" + "".join(f"{d}x" for d in t.shape) + DTYPES[t.dtype]


def node_kinds(block):
    kinds = set()
    for node in block.nodes():
        kinds.add(node.kind())
        for sub in node.blocks():
            kinds |= node_kinds(sub)
    return kinds


def inlined_graph(module):
    g = module.graph.copy()
    torch._C._jit_pass_inline(g)
    return g


def wrapper_paths(module):
    """(path, TorchScript type) of each CheckpointWrapper submodule."""
    out = []
    for path, sub in module.named_modules():
        qualname = sub._c._type().qualified_name()
        if qualname.endswith(".CheckpointWrapper"):
            out.append((path, qualname))
    return out


def same(a, b):
    if isinstance(a, torch.Tensor):
        return a.dtype == b.dtype and a.shape == b.shape and torch.allclose(
            a, b, rtol=1e-6, atol=1e-6, equal_nan=True)
    return all(same(x, y) for x, y in zip(a, b))


def make(task):
    """Child process: trace/script, save, load back, check. Returns a summary."""
    folder, name, out_root = task
    torch.set_num_threads(1)
    path = os.path.join(out_root, folder, name + ".pt")
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        inputs = thread.submit(fm.save, name, path).result()
    args = tuple(inputs.values())
    shapes = [shape_line(k, v) for k, v in inputs.items()]
    with open(os.path.join(out_root, folder, name + ".shapes"), "w") as f:
        f.write("\n".join(shapes) + "\n")

    loaded = torch.jit.load(path)
    graph = inlined_graph(loaded)
    # The schema keeps the forward argument names; the graph inputs of a
    # loaded module carry them with a uniquing suffix (`x.1`).
    arg_names = [a.name for a in loaded.forward.schema.arguments[1:]]
    assert arg_names == list(inputs), (name, arg_names, list(inputs))
    debug_names = [v.debugName() for v in list(graph.inputs())[1:]]
    assert [n.split(".")[0] for n in debug_names] == arg_names, debug_names

    # The saved weights load into a freshly built eager module (strict keys)
    # and both compute the same thing (dropout: same seed, same mask).
    eager = fm.build(name)[0]
    assert list(eager.state_dict()) == list(loaded.state_dict()), name
    eager.load_state_dict(loaded.state_dict())
    torch.manual_seed(1)
    want = eager(*args)
    torch.manual_seed(1)
    got = loaded(*args)
    assert same(want, got), f"{name}: loaded module differs from eager"

    kinds = node_kinds(graph)
    return {
        "folder": folder, "name": name, "shapes": shapes,
        "aten": sorted(k for k in kinds if k.startswith("aten::")),
        "other": sorted(k for k in kinds
                        if not k.startswith("aten::") and k not in COMMON_KINDS),
        "wrappers": wrapper_paths(loaded),
        "graph": str(graph),
        "bytes": os.path.getsize(path),
    }


def write_error_files(out_root):
    """The load-failure fixtures, derived from ops/linear."""
    src = os.path.join(out_root, OPS_DIR, "linear")
    dst = os.path.join(out_root, ERRORS_DIR)
    with open(src + ".pt", "rb") as f:
        data = f.read()
    with open(src + ".shapes") as f:
        shapes = f.read()
    with open(os.path.join(dst, "truncated.pt"), "wb") as f:
        f.write(data[:len(data) // 2])
    # A zip, but a pickled state_dict rather than TorchScript.
    torch.save(fm.build("linear")[0].state_dict(),
               os.path.join(dst, "not_torchscript.pt"))
    with open(os.path.join(dst, "garbage.pt"), "w") as f:
        f.write("This is not a TorchScript archive.\n")
    for name in ("truncated", "not_torchscript", "garbage"):
        with open(os.path.join(dst, name + ".shapes"), "w") as f:
            f.write(shapes)
    # examples/models/ckpt_seed.pt (a torch.utils.checkpoint call) without
    # its debug info (the code/**.debug_pkl records that hold each op's
    # Python stack), and with that record cut short.
    seed = os.path.join(out_root, MODELS_DIR, "ckpt_seed")
    with zipfile.ZipFile(seed + ".pt") as archive:
        records = [(i.filename, archive.read(i.filename))
                   for i in archive.infolist()]
    for name, keep in (("no_debug_info", lambda n, d: None),
                       ("corrupt_debug_info", lambda n, d: d[:len(d) // 2]),
                       ("garbled_debug_info",
                        lambda n, d: d[:opcode_at_half(d)] +
                        b"\x00garbage" * 4)):
        with zipfile.ZipFile(os.path.join(dst, name + ".pt"), "w") as out:
            for record, data in records:
                if record.endswith("fixture_models.py.debug_pkl"):
                    data = keep(record, data)
                if data is not None:
                    info = zipfile.ZipInfo(record, date_time=(1980, 1, 1, 0, 0, 0))
                    out.writestr(info, data)
        with open(seed + ".shapes") as f, \
                open(os.path.join(dst, name + ".shapes"), "w") as g:
            g.write(f.read())


def opcode_at_half(pickle):
    """The offset of the first pickle opcode in the second half of
    `pickle`: garbage from there is an opcode the unpickler does not know,
    not a string cut short."""
    import pickletools
    return next(pos for _, _, pos in pickletools.genops(pickle)
                if pos >= len(pickle) // 2)


def table(rows, header):
    out = ["| " + " | ".join(header) + " |",
           "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def code(items):
    return " ".join(f"`{i}`" for i in items) or "-"


GENERATED = ("Generated by `.venv/bin/python scripts/gen-fixtures.py` from "
             "`scripts/fixture_models.py`; do not edit.\n\n"
             "Each `NAME.shapes` holds one line per forward input, in "
             "argument order: `NAME=D0xD1x...xDTYPE` (`x=2x16x32xf32`). The "
             "names are the forward argument names, as in the method's "
             "schema (`forward(self, Tensor x)`); the inputs of the graph "
             "of a loaded module carry them with a uniquing suffix "
             "(`%x.1`).\n\n")


def write_manifests(out_root, results):
    by_folder = collections.defaultdict(list)
    for r in results:
        by_folder[r["folder"]].append(r)

    ops = by_folder[OPS_DIR]
    with open(os.path.join(out_root, OPS_DIR, "ops.txt"), "w") as f:
        for r in ops:
            f.write(f"{r['name']}.pt: {' '.join(r['aten'])}\n")
    with open(os.path.join(out_root, OPS_DIR, "README.md"), "w") as f:
        f.write("# Per-op TorchScript fixtures\n\n" + GENERATED)
        f.write("One traced module per aten op or small family (training mode "
                "unless the name says otherwise). The columns list the node "
                "kinds of each file's inlined graph once loaded back with "
                "`torch.jit.load`; `prim::Constant` and `prim::GetAttr` are "
                "left out. `ops.txt` holds the aten column in "
                "`file.pt: aten::op ...` form.\n\n")
        f.write(table([(f"`{r['name']}.pt`", code(r["shapes"]),
                        code(r["aten"]), code(r["other"])) for r in ops],
                      ["file", "inputs (`.shapes`)", "aten ops",
                       "other nodes"]))

    models = by_folder[MODELS_DIR]
    with open(os.path.join(out_root, MODELS_DIR, "README.md"), "w") as f:
        f.write("# TorchScript model fixtures\n\n" + GENERATED)
        f.write("Traced in training mode under a fixed seed; each returns a "
                "scalar loss. `gpt_nockpt.pt` holds the same weights as "
                "`gpt.pt` without the checkpoint wrappers. Rebuild the eager "
                "module with `fixture_models.build(name)`; "
                "`module.load_state_dict(torch.jit.load(pt).state_dict())` "
                "loads the saved weights.\n\n")
        f.write(table([(f"`{r['name']}.pt`", f"{r['bytes']}",
                        code(r["shapes"]),
                        code(p for p, _ in r["wrappers"])) for r in models],
                      ["file", "bytes", "inputs (`.shapes`)",
                       "CheckpointWrapper submodules"]))
        f.write("\nNode kinds of the inlined graphs (`prim::Constant` and "
                "`prim::GetAttr` left out):\n\n")
        f.write(table([(f"`{r['name']}.pt`", code(r["aten"]),
                        code(r["other"])) for r in models],
                      ["file", "aten ops", "other nodes"]))
        f.write("\nTorchScript type of each wrapper (the type name is "
                "mangled when a file holds more than one type of that name, "
                "so match the name after the last `.`):\n\n")
        f.write(table([(f"`{r['name']}.pt`", f"`{p}`", f"`{t}`")
                       for r in models for p, t in r["wrappers"]],
                      ["file", "submodule", "type"]))

    errors = by_folder[ERRORS_DIR]
    with open(os.path.join(out_root, ERRORS_DIR, "README.md"), "w") as f:
        f.write("# TorchScript inputs the importer must refuse\n\n" + GENERATED)
        rows = [(f"`{r['name']}.pt`", code(r["shapes"]),
                 {"control_flow": "scripted; `if x.sum() > 0:` on a tensor",
                  "loop": "scripted; `for _ in range(int(x.abs().sum()))`",
                  "unsupported_op": "traced; an op outside the op set",
                  "unsupported_mutation": "traced; `aten::copy_`, a "
                                          "mutation with no out-of-place op",
                  "sparse_embedding": "traced; `nn.Embedding(sparse=True)`, "
                                      "a sparse gradient"}[
                      r["name"]],
                 code(r["aten"] + r["other"])) for r in errors]
        rows += [("`truncated.pt`", "as `ops/linear`",
                  "the first half of `ops/linear.pt`", "-"),
                 ("`not_torchscript.pt`", "as `ops/linear`",
                  "`torch.save` of `ops/linear`'s state_dict: a zip, not "
                  "TorchScript", "-"),
                 ("`garbage.pt`", "as `ops/linear`", "one line of text", "-"),
                 ("`no_debug_info.pt`", "as `models/ckpt_seed`",
                  "`ckpt_seed.pt` without its `fixture_models.py.debug_pkl` "
                  "(imports, with a warning that checkpoint calls cannot be "
                  "recognised)", "-"),
                 ("`corrupt_debug_info.pt`", "as `models/ckpt_seed`",
                  "`ckpt_seed.pt` with that record cut in half (an error "
                  "that names the record)", "-"),
                 ("`garbled_debug_info.pt`", "as `models/ckpt_seed`",
                  "that record's second half replaced by bytes LibTorch's "
                  "unpickler rejects when it reads an op's stack (imports, "
                  "with a warning)", "-")]
        f.write(table(rows, ["file", "inputs (`.shapes`)", "what",
                             "node kinds"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-root", default=REPO,
                        help="write under this folder instead of the "
                        "repository (to compare a regeneration)")
    parser.add_argument("--print-graphs", nargs="*", metavar="NAME",
                        help="print the inlined graphs (of NAMEs, or all)")
    opts = parser.parse_args()
    out_root = os.path.abspath(opts.out_root)
    for folder in (MODELS_DIR, OPS_DIR, ERRORS_DIR):
        os.makedirs(os.path.join(out_root, folder), exist_ok=True)

    tasks = ([(MODELS_DIR, n, out_root) for n in fm.MODELS] +
             [(OPS_DIR, n, out_root) for n in fm.OPS] +
             [(ERRORS_DIR, n, out_root) for n in fm.ERRORS])
    # A fresh forked process per fixture: see the module docstring.
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(os.cpu_count(), maxtasksperchild=1) as pool:
        results = pool.map(make, tasks, chunksize=1)
    write_error_files(out_root)
    write_manifests(out_root, results)

    # gpt_nockpt holds gpt's weights under the keys without the wrapper.
    ckpt, nockpt = (torch.jit.load(os.path.join(out_root, MODELS_DIR, n))
                    for n in ("gpt.pt", "gpt_nockpt.pt"))
    a = fm.strip_wrapper_prefix(ckpt.state_dict())
    b = nockpt.state_dict()
    assert list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)

    covered = set()
    for r in results:
        if r["folder"] == OPS_DIR:
            covered |= set(r["aten"])
    missing = False
    for r in results:
        if r["folder"] == MODELS_DIR:
            for kind in sorted(set(r["aten"]) - covered):
                print(f"error: {r['name']}.pt uses {kind}, which no per-op "
                      "fixture covers", file=sys.stderr)
                missing = True

    for r in results:
        print(f"{r['folder']}/{r['name']}.pt: {' '.join(r['aten'])}")
        if opts.print_graphs is not None and (
                not opts.print_graphs or r["name"] in opts.print_graphs):
            print(f"== {r['folder']}/{r['name']}.pt\n{r['graph']}")
    total = sum(r["bytes"] for r in results)
    for folder in (MODELS_DIR, OPS_DIR, ERRORS_DIR):
        rs = [r for r in results if r["folder"] == folder]
        print(f"{folder}: {len(rs)} traced fixtures, "
              f"{sum(r['bytes'] for r in rs)} bytes")
    print(f"total {total} bytes of traced .pt files")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
