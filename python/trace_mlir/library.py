"""The ctypes binding of a library trace-compile built, and where to find
trace-compile.

_Library loads one library and calls its `forward_fwd` and `forward_bwd`,
as the NAME.json trace-compile writes next to the library's header
describes them (argument order, shapes, dtypes; _DTYPES maps its dtype
names to torch's). The library reads the parameters and buffers in place
and writes its results into tensors allocated here; its temporaries are
its own, and so are the values the forward saves: `forward_bwd` frees each
after its last read (host memory, or on cuda the driver's stream-ordered
pool, freed on the step's stream), and those of a graph dropped before
backward are released (_Saved). _results picks the module's results out of
`forward_fwd`'s and writes the buffer updates back into the module.
"""

import ctypes
import json
import os
import shutil

import torch

from .errors import TraceMLIRError

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_PACKAGE))

_DTYPES = {"f32": torch.float32, "f64": torch.float64,
           "f16": torch.float16, "bf16": torch.bfloat16,
           "i64": torch.int64, "i32": torch.int32, "i1": torch.bool}
_MLIR_DTYPES = {v: k for k, v in _DTYPES.items()}


def _trace_compile_binary():
    """$TRACE_COMPILE; else the tools installed with this package (a wheel
    holds them in trace_mlir/bin; a `cmake --install` prefix holds
    PREFIX/python/trace_mlir and PREFIX/bin); else the repository's
    build/bin; else PATH."""
    explicit = os.environ.get("TRACE_COMPILE")
    if explicit:
        return explicit
    for candidate in (os.path.join(_PACKAGE, "bin", "trace-compile"),
                      os.path.join(_ROOT, "bin", "trace-compile"),
                      os.path.join(_ROOT, "build", "bin", "trace-compile")):
        if os.path.exists(candidate):
            return candidate
    found = shutil.which("trace-compile")
    if not found:
        raise TraceMLIRError(
            "trace-compile not found: build the repository (scripts/demo.sh)"
            ", install it (pip install . or cmake --install) or set "
            "TRACE_COMPILE")
    return found


class _Library:
    """One compiled library: its functions, called through ctypes."""

    def __init__(self, directory, name):
        with open(os.path.join(directory, f"{name}.json")) as f:
            interface = json.load(f)
        # A cuda library works on device 0's primary context (the one
        # PyTorch's cuda:0 tensors live in), on the stream set_stream names.
        if interface["memory"] not in ("host", "cuda"):
            raise TraceMLIRError(f"a library for memory "
                                 f"'{interface['memory']}'")
        self.device = torch.device("cpu" if interface["memory"] == "host"
                                   else "cuda:0")
        try:
            self.dll = ctypes.CDLL(os.path.join(directory, f"lib{name}.so"))
        except OSError as e:
            needs = (" (a cuda library needs the CUDA driver, libcuda.so.1)"
                     if self.device.type == "cuda" else "")
            raise TraceMLIRError(f"trace_mlir: cannot load the compiled "
                                 f"step{needs}: {e}") from None
        self.directory = directory
        # A host library's kernels and matmuls run on an OpenMP team of
        # torch.get_num_threads() threads, as PyTorch's own ops do: set
        # before every call, since the count is the calling thread's. The
        # runtime beside the library sets it (the library links the
        # runtime only when it calls it).
        self.set_threads = None
        runtime = os.path.join(directory, "libTraceCPURuntime.so")
        if self.device.type == "cpu" and os.path.exists(runtime):
            # A runtime from before the team has no such entry point.
            self.set_threads = getattr(ctypes.CDLL(runtime),
                                       "trace_rt_set_num_threads", None)
        if self.set_threads is not None:
            self.set_threads.restype = None
            self.set_threads.argtypes = [ctypes.c_int]
        self.set_stream = None
        if "set_stream" in interface:
            self.set_stream = getattr(self.dll, interface["set_stream"])
            self.set_stream.restype = None
            self.set_stream.argtypes = [ctypes.c_void_p]
        self.functions = {}
        for fn in interface["functions"]:
            symbol = getattr(self.dll, fn["symbol"])
            symbol.restype = None
            # A saved value the caller keeps (--donate-saved=false) is an
            # "out" of fwd and an "in" of bwd; a donated one is "saved"
            # and "donated".
            slots = [("saved" if s.get("saved") and s["direction"] == "out"
                      else "donated" if s.get("saved") and
                      s["direction"] == "in" else s["direction"],
                      s["name"], tuple(s["shape"]), _DTYPES[s["dtype"]],
                      s["direction"] in ("saved", "donated"))
                     for s in fn["slots"]]
            self.functions[fn["function"].rsplit("_", 1)[-1]] = (symbol,
                                                                 slots)
        fwd = self.functions["fwd"][1]
        # The buffers fwd updates (batch_norm's running statistics): their
        # new values are results, written back into the module's buffers.
        fwd_slots = next(fn["slots"] for fn in interface["functions"]
                         if fn["function"].endswith("_fwd"))
        self.buffer_updates = [s["name"] for s in fwd_slots
                               if s.get("buffer_update")]
        self.results = [n for d, n, _, _, _ in fwd
                        if d == "out" and n not in self.buffer_updates]
        # The saved values go from fwd's results to bwd's arguments in one
        # order, by position: two ops of one submodule may save values of
        # one name. The library allocates them (fwd writes their pointers)
        # and bwd frees them: they are donated to it.
        saved_out = [n for d, n, _, _, _ in fwd if d == "saved"]
        saved_in = [n for d, n, _, _, _ in self.functions["bwd"][1]
                    if d == "donated"]
        if saved_out != saved_in:
            raise TraceMLIRError("the library's forward_bwd does not take "
                                 "the values forward_fwd saves, in order")
        self.release = getattr(self.dll, interface["release"]) \
            if "release" in interface else None
        if self.release is not None:
            self.release.restype = None
            self.release.argtypes = [ctypes.c_void_p]
        # The rest of bwd's inputs are fwd's own inputs (weights, the
        # batch), by name, and the cotangents.
        fwd_in = {n for d, n, _, _, _ in fwd if d == "in"}
        self.forward_arguments = [
            n for d, n, _, _, _ in self.functions["bwd"][1]
            if d == "in" and n in fwd_in]

    def call(self, function, values, donated=None):
        """Calls `function` ("fwd", "bwd") on `values` (name -> tensor)
        and, for its donated arguments, on the pointers of `donated` (a
        _Saved, used up by the call); returns its results, a list of
        (name, tensor) in order, and the values it saved (a _Saved)."""
        symbol, slots = self.functions[function]
        if self.set_threads is not None:
            self.set_threads(torch.get_num_threads())
        pointers, keep, outs = [], [], []
        saved = _Saved(self)
        # The donated pointers are taken from `donated` only when the call
        # is made: a check that raises first leaves them to be released.
        given = list(donated.items) if donated is not None else []
        for direction, name, shape, dtype, owned in slots:
            if direction == "saved" and owned:
                pointer = ctypes.c_void_p()
                saved.items.append(pointer)
                pointers.append(ctypes.byref(pointer))
                continue
            if direction == "saved":
                t = torch.empty(shape, dtype=dtype, device=self.device)
                saved.items.append(t)
                pointers.append(ctypes.c_void_p(t.data_ptr()))
                continue
            if direction == "donated":
                if not given:
                    raise TraceMLIRError(f"no saved value for the library's "
                                         f"input '{name}'")
                t = given.pop(0)
                keep.append(t)
                pointers.append(t if owned else ctypes.c_void_p(t.data_ptr()))
                continue
            if direction == "in":
                if name not in values:
                    raise TraceMLIRError(f"no value for the library's input "
                                         f"'{name}'")
                else:
                    t = values[name]
                if t.dtype != dtype or tuple(t.shape) != shape:
                    raise TypeError(
                        f"trace_mlir: '{name}' is {t.dtype} "
                        f"{list(t.shape)}; the compiled step takes {dtype} "
                        f"{list(shape)}")
                if t.device != self.device:
                    raise TypeError(f"trace_mlir: '{name}' is on {t.device};"
                                    f" the compiled step runs on "
                                    f"{self.device}")
                t = t.detach().contiguous()
            else:
                t = torch.empty(shape, dtype=dtype, device=self.device)
                outs.append((name, t))
            keep.append(t)
            pointers.append(ctypes.c_void_p(t.data_ptr()))
        if donated is not None:
            donated.take()  # the call frees them
        if self.set_stream is not None:
            # PyTorch's current stream: the library's work queues there,
            # after the work that made its inputs; the call returns when it
            # is done (the library synchronizes).
            self.set_stream(torch.cuda.current_stream(self.device).cuda_stream)
        symbol(*pointers)
        return outs, saved


class _Saved:
    """The values a forward_fwd call saved: pointers to buffers the library
    allocated (or, from a library built with --donate-saved=false,
    tensors). forward_bwd takes them (and frees the buffers); a buffer that
    never reaches it is freed with the library's NAME_release when this
    object dies (a forward under no_grad, a graph dropped before
    backward)."""

    def __init__(self, library):
        self.library = library
        self.items = []

    def take(self):
        items, self.items = self.items, []
        return items

    def __del__(self):
        for item in self.take():
            if isinstance(item, ctypes.c_void_p) and item.value:
                self.library.release(item)


def _results(library, outs, buffers):
    """The module's results among fwd's `outs`, as a tuple in the order of
    its flattened outputs; the buffer updates among them are copied into
    `buffers` (name -> the module's tensor)."""
    results = []
    for name, t in outs:
        if name in library.buffer_updates:
            with torch.no_grad():
                buffers[name].copy_(t)
        else:
            results.append(t)
    return tuple(results)
