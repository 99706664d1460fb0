"""The torch.autograd.Function a compiled step runs through: _Step calls
the library's `forward_fwd` in forward and `forward_bwd` in backward, with
the values the forward saved."""

import torch
from torch.autograd.function import once_differentiable

from .errors import TraceMLIRError
from .library import _results


class _Step(torch.autograd.Function):
    """forward_fwd in forward, forward_bwd in backward. The tensors after
    the first three arguments are those autograd differentiates for:
    `grad_names` names them as the library's arguments."""

    @staticmethod
    def forward(ctx, library, values, buffers, grad_names, *grad_tensors):
        outs, saved = library.call("fwd", values)
        ctx.library = library
        ctx.grad_names = grad_names
        ctx.saved = saved
        # A buffer the step updates and its backward reads: the backward
        # reads the value the forward read, so that one is kept.
        values = dict(values)
        for name in library.buffer_updates:
            if name in library.forward_arguments:
                values[name] = values[name].clone()
        results = _results(library, outs, buffers)
        # forward_bwd reads the weights and inputs it needs from the
        # tensors forward_fwd read (not copies): they must not change in
        # between, as autograd's saved tensors must not (the buffers this
        # step updated have just changed, by the step itself).
        ctx.values = values
        ctx.versions = {name: t._version for name, t in values.items()}
        return results

    @staticmethod
    @once_differentiable
    def backward(ctx, *cotangents):
        if ctx.saved is None:
            raise TraceMLIRError(
                "trace_mlir: backward ran twice through one compiled step; "
                "its saved values are freed after the first "
                "(retain_graph is not supported)")
        values = dict(ctx.values)
        for name in ctx.library.forward_arguments:
            if values[name]._version != ctx.versions[name]:
                raise RuntimeError(
                    f"trace_mlir: '{name}', which the compiled step's "
                    "backward reads, was modified in place after its "
                    "forward ran (as autograd refuses for the tensors it "
                    "saves); call backward before changing it")
        values.update((f"cot.{name}", cot)
                      for name, cot in zip(ctx.library.results, cotangents))
        grads = dict(ctx.library.call("bwd", values, ctx.saved)[0])
        ctx.saved = ctx.values = None  # the saved values die with the step
        return (None, None, None, None) + tuple(
            grads.get(f"grad.{name}") for name in ctx.grad_names)
