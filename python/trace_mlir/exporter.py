"""torch.export with the checkpoint calls kept: what trace-import reads.

    ep = trace_mlir.export(model, (x, y))       # a decomposed ExportedProgram
    torch.export.save(ep, "model.pt2")          # trace-compile model.pt2 ...

PyTorch's torch.export (non-strict, the default) runs
`torch.utils.checkpoint.checkpoint(fn, ...)` as a plain call of `fn` and
keeps nothing of it in the program, so a file saved by torch.export alone
has lost the regions the user checkpointed. export() marks them: every op
a checkpoint call runs is traced under `torch.fx.traceback.annotate`, which
torch.export and run_decompositions keep in each node's
`meta["custom"]` and torch.export.save writes into the archive. The entry
`"trace_mlir.checkpoint"` lists the calls an op ran under, outermost
first, each as `{"id": N, "name": "file.py:LINE"}` (the call site);
trace-import makes each call a `trace.checkpoint` region.

A call made by `checkpoint_wrapper` is left unmarked: the wrapper module
is in every op's `nn_module_stack`, and trace-import makes that module its
region (as it does for a file exported without this function).
"""

import contextlib
import itertools
import os
import sys
import warnings

import torch
import torch.fx.traceback as fx_traceback
import torch.utils.checkpoint as torch_checkpoint

__all__ = ["export", "MARKER"]

#: The key of node.meta["custom"] that lists an op's checkpoint calls.
MARKER = "trace_mlir.checkpoint"

_TORCH_DIR = os.path.normcase(os.path.dirname(torch.__file__)) + os.sep
_WRAPPER_MODULE = "torch.distributed.algorithms._checkpoint.checkpoint_wrapper"


def _call_site():
    """(file, line) of the code that called torch.utils.checkpoint, and
    whether that code is checkpoint_wrapper's: the first frame out of
    torch's own files (checkpoint.py, dynamo's disable wrappers)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__") == _WRAPPER_MODULE:
            return "", 0, True
        path = frame.f_code.co_filename
        if not os.path.normcase(path).startswith(_TORCH_DIR):
            relative = os.path.relpath(path)
            return (path if relative.startswith("..") else relative,
                    frame.f_lineno, False)
        frame = frame.f_back
    return "<unknown>", 0, False


class _Calls:
    """The checkpoint calls being traced, outermost first."""

    def __init__(self):
        self.stack = []
        self.ids = itertools.count()

    @contextlib.contextmanager
    def region(self, name):
        """Traces what runs inside as one more checkpoint call, `name`."""
        self.stack.append({"id": next(self.ids), "name": name})
        try:
            with fx_traceback.annotate({MARKER: list(self.stack)}):
                yield
        finally:
            self.stack.pop()


_active = None


def checkpoint_region(name):
    """A context in which the ops traced form one checkpoint region named
    `name`, inside marking_checkpoint_calls (used for the regions dynamo
    hands a torch.compile backend)."""
    if _active is None:
        raise RuntimeError("checkpoint_region outside "
                           "marking_checkpoint_calls")
    return _active.region(name)


@contextlib.contextmanager
def marking_checkpoint_calls():
    """While active, torch.utils.checkpoint calls run their function
    directly, its ops annotated with the calls they ran under. Only for
    tracing: nothing is recomputed and nothing is saved differently."""
    global _active
    original = torch_checkpoint._checkpoint_impl
    outer, _active = _active, _Calls()

    # checkpoint() looks _checkpoint_impl up at each call, so replacing it
    # reaches every caller: those that imported checkpoint by name, its
    # decorator form, checkpoint_sequential and the reentrant variant.
    def marked(function, args, kwargs, *, context_fn=None, **_):
        path, line, from_wrapper = _call_site()
        if from_wrapper:
            return function(*args, **kwargs)
        if context_fn is not None and \
                context_fn is not torch_checkpoint.noop_context_fn:
            warnings.warn(
                f"trace_mlir.export: the checkpoint call at {path}:{line} has"
                " a context_fn (a selective checkpoint policy), which is not "
                "carried over; give trace_mlir a checkpoint_policy instead",
                stacklevel=4)
        with _active.region(f"{path}:{line}"):
            return function(*args, **kwargs)

    torch_checkpoint._checkpoint_impl = marked
    try:
        yield
    finally:
        torch_checkpoint._checkpoint_impl = original
        _active = outer


def export(module, args, kwargs=None, *, dynamic_shapes=None):
    """torch.export.export(module, args, kwargs) (non-strict), with each
    torch.utils.checkpoint call marked for trace-import, decomposed to the
    Core ATen opset (run_decompositions). Buffers the forward updates are
    left as they were: exporting is not a training step."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError("trace_mlir.export: expected a torch.nn.Module")
    if isinstance(args, torch.Tensor):
        args = (args,)
    saved = [(b, b.detach().clone()) for b in module.buffers()]
    try:
        # Under no_grad: exported with grad on, PyTorch records the ops
        # after a CheckpointWrapper block as inside it in nn_module_stack.
        with fx_traceback.preserve_node_meta(), marking_checkpoint_calls(), \
                torch.no_grad():
            program = torch.export.export(module, tuple(args), kwargs,
                                          dynamic_shapes=dynamic_shapes,
                                          strict=False)
            return program.run_decompositions()
    finally:
        with torch.no_grad():
            for buffer, before in saved:
                buffer.copy_(before)
