"""The torch.compile backend: `torch.compile(model, backend="trace_mlir")`.

Dynamo hands a backend each graph it captured (a GraphModule of torch
calls whose inputs are the parameters and the tensors the graph reads) and
runs what it could not capture eagerly, between the graphs. For each graph
this backend returns a callable that compiles the graph's training step
with trace-mlir, forward and backward: the backward is trace-mlir's, not
AOTAutograd's, so trace-mlir decides what to save and what to recompute.

A `torch.utils.checkpoint` call reaches the graph as a
`torch.ops.higher_order.tag_activation_checkpoint` node with its body as a
submodule. Each becomes a trace-mlir checkpoint region: the node is
replaced by a call of its body traced under the region marker
(trace_mlir.exporter), so that export inlines the body and trace-import
makes it a `trace.checkpoint` region.

Shapes: trace-mlir compiles static shapes. When dynamo recompiles a graph
for new shapes it may hand over a graph with symbolic sizes (SymInt
inputs); the callable then compiles one step per distinct shape it is
called on, as trace_mlir.compile does, warning on each new one.

Options (`torch.compile(..., options={...})`): those of
trace_mlir.compile: remat, checkpoint_policy, cache_dir, target.
"""

import re
import warnings

import torch

from . import exporter as _export

__all__ = ["backend"]

_HOP = torch.ops.higher_order.tag_activation_checkpoint
_OPTIONS = ("remat", "checkpoint_policy", "cache_dir", "target", "options")


def _call_site(node):
    """`file:line` of the innermost frame of a node's stack trace."""
    sites = re.findall(r'File "([^"]+)", line (\d+)',
                       node.meta.get("stack_trace") or "")
    if not sites:
        return node.name
    path, line = sites[-1]
    return f"{path}:{line}"


def _run_region(body, name, *args):
    with _export.checkpoint_region(name):
        return body(*args)


def _mark_checkpoint_regions(gm):
    """Replaces each tag_activation_checkpoint node (in the graph and in
    the bodies, for nested calls) by a call of its body in a region."""
    for module in gm.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        changed = False
        for node in list(module.graph.nodes):
            if node.op != "call_function" or node.target is not _HOP:
                continue
            body, *args = node.args
            with module.graph.inserting_before(node):
                call = module.graph.call_function(
                    _run_region, (body, _call_site(node), *args))
            call.meta = dict(node.meta)
            node.replace_all_uses_with(call)
            module.graph.erase_node(node)
            changed = True
        if changed:
            module.recompile()
    return gm


class _Bound(torch.nn.Module):
    """The graph with its integer inputs fixed: a module of its tensors
    only, for one set of sizes."""

    def __init__(self, gm, ints):
        super().__init__()
        self.gm = gm
        self.ints = ints  # position -> value

    def forward(self, *tensors):
        args, it = [], iter(tensors)
        for i in range(len(tensors) + len(self.ints)):
            args.append(self.ints[i] if i in self.ints else next(it))
        return tuple(self.gm(*args))


class _GraphStep:
    """What the backend returns for one graph: compiles on first use of a
    set of sizes, then calls the compiled step."""

    def __init__(self, gm, example_inputs, options):
        from .compiler import compile as _compile
        self.compile = _compile
        self.gm = _mark_checkpoint_regions(gm)
        self.options = options
        self.steps = {}
        self.count = len(example_inputs)

    def __call__(self, *args):
        if len(args) != self.count:
            raise TypeError(f"trace_mlir: the graph takes {self.count} "
                            f"inputs, got {len(args)}")
        ints = {i: int(a) for i, a in enumerate(args)
                if not isinstance(a, torch.Tensor)}
        tensors = tuple(a for a in args if isinstance(a, torch.Tensor))
        key = (tuple(sorted(ints.items())),
               tuple((tuple(t.shape), t.dtype) for t in tensors))
        step = self.steps.get(key)
        if step is None:
            if self.steps:
                warnings.warn("trace_mlir: compiling the graph again for new"
                              " sizes", stacklevel=2)
            step = self.compile(_Bound(self.gm, ints), tensors,
                                **self.options)
            self.steps[key] = step
        out = step(*tensors)
        return out if isinstance(out, tuple) else (out,)


def backend(gm, example_inputs, options=None, mode=None):
    """The torch.compile backend (registered as "trace_mlir"); `options`
    are torch.compile's, `mode` is not used."""
    options = dict(options or {})
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise ValueError(f"trace_mlir backend: unknown options "
                         f"{sorted(unknown)}; expected {list(_OPTIONS)}")
    return _GraphStep(gm, example_inputs, options)


def register():
    """Registers the backend under "trace_mlir" (trace_mlir's import does).
    Where the installed package's entry point is already known to dynamo,
    dynamo registers what the entry point names when it loads it, and
    registering here too would be a duplicate."""
    from torch._dynamo.backends.registry import (_BACKENDS, _COMPILER_FNS,
                                                 register_backend)
    if "trace_mlir" in _COMPILER_FNS or _BACKENDS.get("trace_mlir"):
        return
    register_backend(name="trace_mlir")(backend)
