"""trace_mlir: train a PyTorch module with a step trace-mlir compiled.

    import trace_mlir
    step = trace_mlir.compile(model, (x, y))        # a torch.nn.Module
    opt = torch.optim.AdamW(step.parameters())      # model's parameters
    loss = step(x, y); loss.backward(); opt.step()

or, through torch.compile (the backend is registered on import):

    step = torch.compile(model, backend="trace_mlir")

compile() exports the module with torch.export (trace_mlir.export, which
keeps each torch.utils.checkpoint call as a checkpoint region), runs
trace-compile on the .pt2 archive (import, autodiff, rematerialization,
fusion, lowering, a shared library) and returns a module whose forward
calls the library's `forward_fwd` and whose backward, through a
torch.autograd.Function, calls `forward_bwd` with the values the forward
saved. frontend="torchscript" traces with torch.jit.trace instead.

The package's modules:

    compiler.py   CompiledModule, compile(), load(): the compile driver
    frontends.py  torch.export or torch.jit.trace, the file trace-compile reads
    exporter.py   trace_mlir.export: torch.export with checkpoint regions
    library.py    the compiled library through ctypes; finding trace-compile
    autograd.py   the torch.autograd.Function that calls fwd and bwd
    errors.py     TraceMLIRError
    dynamo.py     the torch.compile backend

See compiler.py for how the returned module holds the model's parameters,
buffers and modes, and library.py for who owns the library's memory.
"""

from . import dynamo as _dynamo
from .compiler import CompiledModule, compile, load
from .errors import TraceMLIRError
from .exporter import export

__all__ = ["compile", "export", "load", "CompiledModule", "TraceMLIRError"]


# torch.compile(model, backend="trace_mlir") once trace_mlir is imported
# (an installed package also registers it through the torch_dynamo_backends
# entry point).
_dynamo.register()
