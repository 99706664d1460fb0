"""The frontends compile() traces a module with, by the `frontend` option
(_FRONTENDS): torch.export (_ExportedProgram, saved as a .pt2 archive) or
torch.jit.trace (_TorchScript, saved as a TorchScript file). Each names
the traced inputs, adds the traced graph to the cache key and saves the
file trace-compile reads."""

import torch
import torch.utils._pytree as pytree

from . import exporter as _export


class _ExportedProgram:
    """The module as torch.export sees it (trace_mlir.export: checkpoint
    calls marked, decomposed to Core ATen), saved as a .pt2 archive."""

    suffix = ".pt2"

    def __init__(self, module, inputs):
        self.program = _export.export(module, inputs)
        signature = self.program.graph_signature
        self.input_names = list(signature.user_inputs)
        self.output_spec = _spec_text(self.program.call_spec.out_spec,
                                      len(signature.user_outputs))

    def digest(self, digest):
        # The graph with the metadata trace-import reads (checkpoint
        # markers, module paths), and the values of tensor constants.
        for node in self.program.graph.nodes:
            digest.update(repr((node.op, node.name, str(node.target),
                                node.args, node.kwargs,
                                node.meta.get("custom"),
                                node.meta.get("nn_module_stack"))).encode())
        digest.update(str(self.program.graph_signature).encode())
        digest.update(repr(self.output_spec).encode())
        # The parameters' and buffers' shapes and dtypes, which the graph's
        # nodes do not name: two widths of one model are two libraries.
        _digest_state(digest, self.program.state_dict)
        for name, value in sorted(self.program.constants.items()):
            if isinstance(value, torch.Tensor):
                digest.update(repr((name, value.dtype, list(value.shape),
                                    value.tolist())).encode())

    def save(self, path):
        torch.export.save(self.program, path)


class _TorchScript:
    """The module traced by torch.jit.trace, saved as a TorchScript file
    (frontend="torchscript", for what torch.export cannot take)."""

    suffix = ".pt"

    def __init__(self, module, inputs):
        # Tracing runs the module once; a hook notes its output structure,
        # which the traced graph returns flattened to tensors.
        specs = []
        hook = module.register_forward_hook(
            lambda m, args, out: specs.append(pytree.tree_structure(out)))
        try:
            with torch.no_grad():
                self.traced = torch.jit.trace(module, inputs,
                                              check_trace=False)
        finally:
            hook.remove()
        inputs = list(self.traced.graph.inputs())[1:]  # the first is self
        self.input_names = [v.debugName().split(".")[0] for v in inputs]
        self.output_spec = _spec_text(specs[0], None) if specs else None

    def digest(self, digest):
        # The graph and the values of its tensor constants (the graph's
        # text elides large ones).
        graph = self.traced.inlined_graph
        digest.update(str(graph).encode())
        digest.update(repr(self.output_spec).encode())
        _digest_state(digest, self.traced.state_dict())
        for n in graph.nodes():
            if n.kind() == "prim::Constant" and n.hasAttribute("value") \
                    and n.kindOf("value") == "t":
                t = n.t("value")
                digest.update(repr((t.dtype, list(t.shape),
                                    t.tolist())).encode())

    def save(self, path):
        self.traced.save(path)


def _spec_text(spec, leaves):
    """An output structure as module.json keeps it: None where the step
    cannot rebuild it (outputs that are not all tensors)."""
    if leaves is not None and spec.num_leaves != leaves:
        return None
    try:
        return pytree.treespec_dumps(spec)
    except NotImplementedError:
        # A namedtuple or a custom node pytree cannot serialize: its
        # results come as a tuple.
        return None


def _digest_state(digest, state):
    """Adds the name, dtype and shape of each tensor of `state` (a
    state_dict) to `digest`."""
    for name, value in sorted(state.items()):
        if isinstance(value, torch.Tensor):
            digest.update(repr((name, value.dtype,
                                list(value.shape))).encode())


_FRONTENDS = {"export": _ExportedProgram, "torchscript": _TorchScript}
