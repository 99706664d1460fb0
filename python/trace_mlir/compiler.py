"""The compile driver: CompiledModule, compile() and load().

compile() traces the module (frontends.py), runs trace-compile on the
file (import, autodiff, rematerialization, fusion, lowering, a shared
library) and returns a CompiledModule, whose forward calls the library's
`forward_fwd` and whose backward, through a torch.autograd.Function
(autograd.py), calls `forward_bwd` with the values the forward saved.
Libraries are cached by a hash of the traced graph, the input shapes, the
flags and the trace-compile binary; a new input shape or mode compiles
another.

The returned module holds the original one as `.module`: the parameters
are the same tensors, so optimizers and DistributedDataParallel see them
unchanged (its state_dict is the model's under `module.`, as
torch.compile's is under `_orig_mod.`). Each call reads the parameters
where they are then, at their attribute paths in the module as compiled:
FSDP wrapping the returned module puts its flat parameter's views (or
gathered parameters) there before the forward. FSDP on a submodule is
refused, as its hooks never run.

Buffers the forward updates (batch_norm's running statistics and
num_batches_tracked, in training mode) come back as results of
`forward_fwd` marked `buffer_update` and are copied into the module's
buffers after each forward, as eager's in-place updates leave them.

target="cuda" compiles for cuda:0: the library reads and writes the
module's CUDA tensors in place, on PyTorch's current stream (not yet run
on a GPU: the CPU tests check its interface and errors only). load()
takes a library compile() built, for a machine without the compiler.

Limits of this version: the model's forward returns tensors (the first
is usually the loss). eval() switches
to a step compiled from the module in eval mode (dropout off),
differentiable like the training one; under torch.no_grad() only
forward_fwd runs and its saved values are dropped.
"""

import contextlib
import copy
import fcntl
import hashlib
import itertools
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import torch
import torch.utils._pytree as pytree

from .autograd import _Step
from .errors import TraceMLIRError
from .frontends import _FRONTENDS
from .library import (_DTYPES, _MLIR_DTYPES, _Library, _results,
                      _trace_compile_binary)

# Next to a library compile() built: its target, mode, inputs' names,
# shapes and dtypes (trace_mlir.load reads it).
_MODULE_FILE = "step.module.json"


@contextlib.contextmanager
def _exclusive(path, what):
    """Holds an exclusive lock on the file `path` (made if missing): two
    processes compiling one library into one cache_dir (DDP's ranks do)
    take turns, and the second finds the first's library. The kernel
    drops the lock of a process that dies, so a compile killed part-way
    leaves nothing to wait for."""
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            logger.info("trace_mlir: waiting for another process compiling "
                        "%s", what)
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _write_atomically(path, write):
    """Writes `path` through a temporary file renamed over it: a reader
    sees the old file or the whole new one, never a part."""
    base, extension = os.path.splitext(path)
    temporary = f"{base}.{os.getpid()}.tmp{extension}"
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


# trace-compile's remarks, warnings and stage times, as it prints them.
# A library's NullHandler: unconfigured, the warnings do not also reach
# logging's last-resort handler (warnings.warn reports them).
logger = logging.getLogger("trace_mlir")
logger.addHandler(logging.NullHandler())

# A compile that has run this long shows its stages on stderr when the
# application has not configured logging for trace_mlir.
PROGRESS_AFTER_S = 3.0


def _run_compiler(command, name):
    """Runs trace-compile with -v, logging each line as it comes: its stage
    times (`trace-compile: STAGE: SECONDS s`, cumulative) at INFO,
    warnings at WARNING, remarks and notes at INFO. Without a handler for
    trace_mlir, a compile past PROGRESS_AFTER_S prints its stages to
    stderr. Returns stderr's lines; raises TraceMLIRError when it fails."""
    start = time.monotonic()
    configured = logger.hasHandlers() and any(
        not isinstance(h, logging.NullHandler) for h in _handlers(logger))
    shown = False
    lines = []
    with subprocess.Popen(command, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as proc:
        for line in proc.stderr:
            line = line.rstrip("\n")
            lines.append(line)
            if "warning:" in line:
                logger.warning("%s", line)
            elif "error:" in line:
                continue
            else:
                logger.info("%s", line)
            if configured:
                continue
            if not shown and time.monotonic() - start > PROGRESS_AFTER_S:
                shown = True
                sys.stderr.write(f"trace_mlir: compiling {name}\n")
            if shown and line.startswith("trace-compile: "):
                sys.stderr.write(f"  {line[len('trace-compile: '):]}\n")
        proc.wait()
    logger.info("trace-compile: %s compiled in %.2f s", name,
                time.monotonic() - start)
    if proc.returncode != 0:
        errors = [line for line in lines if not _is_stage(line)]
        raise TraceMLIRError("\n".join(errors).strip() or
                             f"trace-compile exited {proc.returncode}")
    return lines


def _is_stage(line):
    """`trace-compile: STAGE: SECONDS s` and the like: -v's progress."""
    return line.startswith("trace-compile: ") and "error" not in line and (
        line.endswith(" s") or ": wrote " in line)


def _handlers(log):
    """The handlers a record of `log` reaches (its own and its parents')."""
    while log:
        yield from log.handlers
        if not log.propagate:
            break
        log = log.parent


def _remat_flags(remat):
    if remat in (None, "none"):
        return ["--no-remat"]
    if remat == "min-cut":
        return []
    if isinstance(remat, bool):
        raise ValueError(f"remat={remat!r}: expected 'min-cut', 'none', a "
                         "fraction or a byte count")
    if isinstance(remat, float) and 0 <= remat <= 1:
        return [f"--remat=budget={remat}"]
    if isinstance(remat, int) and remat >= 0:
        return [f"--remat=budget={remat}B"]
    raise ValueError(f"remat={remat!r}: expected 'min-cut', 'none', a "
                     "fraction between 0 and 1 or a byte count")


def _plain(value):
    """Whether `value` is a tensor whose data pointer holds all of it: a
    tensor or a Parameter, not another tensor subclass (a DTensor holds one
    rank's shard). issubclass, not isinstance: a Parameter made of a
    DTensor passes isinstance(_, Parameter)."""
    return type(value) is torch.Tensor or \
        issubclass(type(value), torch.nn.Parameter)


class CompiledModule(torch.nn.Module):
    """The module trace_mlir.compile returns; see the module docstring."""

    def __init__(self, module, example_inputs, remat, checkpoint_policy,
                 cache_dir, recompile, options, target="cpu", prebuilt=None,
                 frontend="export"):
        super().__init__()
        if frontend not in _FRONTENDS:
            raise ValueError(f"frontend={frontend!r}: one of "
                             f"{sorted(_FRONTENDS)}")
        self._frontend = frontend
        if recompile not in ("warn", "error"):
            raise ValueError(f"recompile={recompile!r}: 'warn' or 'error'")
        if target not in ("cpu", "cuda"):
            raise ValueError(f"target={target!r}: 'cpu' or 'cuda'")
        self.module = module
        self._target = target
        self._prebuilt = prebuilt
        self._flags = _remat_flags(remat)
        if checkpoint_policy:
            self._flags.append(f"--checkpoint-policy={checkpoint_policy}")
        self._flags += list(options)
        # Absolute: a pickle loaded from another directory finds it.
        self._cache_dir = None if cache_dir is None else os.path.abspath(
            cache_dir)
        self._scratch = None
        if cache_dir is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="trace_mlir-")
            self._cache_dir = self._scratch.name
        self._recompile = recompile
        self._libraries = {}
        self._record_paths()
        self._fsdp_types = {}
        self._shapes_seen = set()
        self.training = module.training
        if prebuilt is not None:
            self._load(prebuilt)
            return
        self._dtypes = tuple(t.dtype for t in example_inputs)
        self._library_for(tuple(example_inputs), module.training)

    def _load(self, directory):
        """Takes the library trace_mlir.compile built in `directory` (one
        entry of a cache_dir), as described by its step.module.json."""
        path = os.path.join(directory, _MODULE_FILE)
        try:
            with open(path) as f:
                meta = json.load(f)
        except OSError as e:
            raise TraceMLIRError(f"trace_mlir.load: cannot read {path}: "
                                 f"{e.strerror} (a directory of a "
                                 "compile() cache_dir holds one)")
        self._target = meta["target"]
        self._dtypes = tuple(_DTYPES[d] for _, d in meta["inputs"])
        signature = tuple((tuple(shape), _DTYPES[d])
                          for shape, d in meta["inputs"])
        library = _Library(directory, "step")
        library.input_names = meta["input_names"]
        library.output_spec = _output_spec(meta.get("output_spec"))
        self._shapes_seen.add(signature)
        self._libraries[(signature, meta["training"])] = library

    def _library_for(self, inputs, training):
        """The library for these input shapes and mode, compiled if new."""
        if self._dtypes is None:  # moved by .to(): compiles again
            self._dtypes = tuple(getattr(t, "dtype", None) for t in inputs)
        if len(inputs) != len(self._dtypes):
            raise TypeError(f"trace_mlir: {type(self.module).__name__} was "
                            f"compiled for {len(self._dtypes)} inputs, got "
                            f"{len(inputs)}")
        for i, (t, dtype) in enumerate(zip(inputs, self._dtypes)):
            if not isinstance(t, torch.Tensor) or t.dtype != dtype:
                got = t.dtype if isinstance(t, torch.Tensor) else type(t)
                raise TypeError(f"trace_mlir: input {i} is {got}; "
                                f"{type(self.module).__name__} was compiled "
                                f"for {dtype}")
        signature = tuple((tuple(t.shape), t.dtype) for t in inputs)
        key = (signature, training)
        if key in self._libraries:
            return self._libraries[key]
        if self._prebuilt is not None:
            def describe(sig, train):
                return (f"input shapes {[list(s) for s, _ in sig]} in "
                        f"{'training' if train else 'eval'} mode")
            (built, built_training), = self._libraries
            raise TraceMLIRError(
                f"trace_mlir: {type(self.module).__name__} was loaded from "
                f"{self._prebuilt}, compiled for "
                f"{describe(built, built_training)}; it cannot compile for "
                f"{describe(signature, training)}")
        if self._shapes_seen and signature not in self._shapes_seen:
            message = (f"trace_mlir: recompiling {type(self.module).__name__}"
                       f" for new input shapes "
                       f"{[list(s) for s, _ in signature]}")
            if self._recompile == "error":
                raise TraceMLIRError(message)
            warnings.warn(message, stacklevel=3)
        self._shapes_seen.add(signature)
        self._libraries[key] = self._compile(inputs, training)
        return self._libraries[key]

    def _compile(self, inputs, training):
        # A wrapper that took the parameters out of their modules (FSDP 1)
        # or sharded them in place (FSDP 2's DTensors) leaves nothing the
        # tracer can read as the model's weights.
        recorded = {".".join(path) for _, path in self._paths[0]}
        now = dict(self.module.named_parameters())
        if set(now) != recorded or not all(map(_plain, now.values())):
            raise TraceMLIRError(
                f"trace_mlir: cannot compile {type(self.module).__name__} "
                f"for {'training' if training else 'eval'} mode and input "
                f"shapes {[list(t.shape) for t in inputs]}: its parameters "
                "are no longer plain tensors in its modules (a wrapper such "
                "as FSDP took or sharded them); call the compiled module "
                "once in each mode and on each input shape before wrapping "
                "it")
        # The module is traced on the CPU, so the archive the compiler
        # reads holds CPU tensors: a module on the GPU is traced as a copy
        # on the CPU.
        tracee = self.module
        on_gpu = [t for t in itertools.chain(self.module.parameters(),
                                             self.module.buffers(), inputs)
                  if t.device.type != "cpu"]
        if on_gpu:
            tracee = copy.deepcopy(self.module).cpu()
            inputs = tuple(t.cpu() for t in inputs)
        was_training = tracee.training
        tracee.train(training)
        # Tracing runs the module once: its buffer updates (batch_norm's
        # running statistics) are undone, so that compiling is not a step.
        buffers = [(b, b.clone()) for b in tracee.buffers()]
        try:
            program = _FRONTENDS[self._frontend](tracee, inputs)
        finally:
            tracee.train(was_training)
            with torch.no_grad():
                for b, before in buffers:
                    b.copy_(before)
        names = program.input_names
        shapes = []
        for name, t in zip(names, inputs):
            if t.dtype not in _MLIR_DTYPES:
                raise TypeError(f"trace_mlir: input '{name}' has dtype "
                                f"{t.dtype}, which the compiler does not "
                                "take")
            dims = "x".join(str(d) for d in t.shape)
            shapes.append(f"--input-shape={name}="
                          f"{dims + 'x' if dims else ''}"
                          f"{_MLIR_DTYPES[t.dtype]}")
        flags = list(self._flags) + [f"--target={self._target}"]
        if not training:
            flags.append("--dropout-as-identity")
        # The key: the program, the shapes and flags, and the compiler that
        # builds the library.
        binary = _trace_compile_binary()
        digest = hashlib.sha256()
        program.digest(digest)
        digest.update(repr((shapes, flags)).encode())
        stat = os.stat(binary)
        digest.update(f"{binary}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        key = digest.hexdigest()[:24]
        directory = os.path.join(self._cache_dir, key)
        complete = os.path.join(directory, _MODULE_FILE)
        # A complete entry is read without the lock (a read-only cache
        # works); an incomplete one is built under it, checked again there.
        if not os.path.exists(complete):
            os.makedirs(self._cache_dir, exist_ok=True)
            with _exclusive(os.path.join(self._cache_dir, f"{key}.lock"),
                            type(self.module).__name__):
                if not os.path.exists(complete):
                    self._build(program, key, directory, names, inputs,
                                shapes, flags, training, binary)
        library = _Library(directory, "step")
        library.input_names = names
        with open(complete) as f:
            library.output_spec = _output_spec(json.load(f).get("output_spec"))
        return library

    def _build(self, program, key, directory, names, inputs, shapes, flags,
               training, binary):
        """Runs trace-compile into `directory`, under the key's lock."""
        model_path = os.path.join(self._cache_dir, f"{key}{program.suffix}")
        _write_atomically(model_path, program.save)
        command = [binary, model_path,
                   "-o", directory, "--name=step",
                   f"--cache-dir={os.path.join(self._cache_dir, 'objects')}"
                   ] + shapes + flags
        stderr = _run_compiler(command + ["-v"], type(self.module).__name__)
        # The importer's warnings (a buffer updated in a checkpoint region,
        # missing debug info) reach the user as Python's too.
        for line in stderr:
            if "warning:" in line:
                warnings.warn(f"trace-compile: {line.strip()}", stacklevel=5)

        # What trace_mlir.load needs to call the library on a machine
        # without the compiler; written last, it marks the entry complete.
        def write_module(path):
            with open(path, "w") as f:
                json.dump({"target": self._target, "training": training,
                           "input_names": names,
                           "output_spec": program.output_spec,
                           "inputs": [[list(t.shape), _MLIR_DTYPES[t.dtype]]
                                      for t in inputs]}, f)
        _write_atomically(os.path.join(directory, _MODULE_FILE), write_module)

    def _apply(self, fn, recurse=True):
        """.to(), .cuda(), .cpu(), .double(), ...: the module moves as any
        module does, and a change of the parameters' device or dtype drops
        the libraries, so the next call compiles for where they are now
        (target "cpu" or "cuda" for cuda:0). A module loaded with
        trace_mlir.load cannot compile: it moves only to the device and
        dtypes its library takes. Where the tensors would go is worked out
        first, on an empty tensor of each placement, so that a refused
        move raises TraceMLIRError before anything moves."""
        moves = {}
        for t in self._tensors():
            key = (t.device, t.dtype)
            if key not in moves:
                probe = fn(torch.empty(0, device=t.device, dtype=t.dtype))
                moves[key] = (probe.device, probe.dtype)
        if all(k == v for k, v in moves.items()):
            return super()._apply(fn, recurse)
        name = type(self.module).__name__
        if self._prebuilt is not None:
            library, = self._libraries.values()
            misfit = self._misfit(library, moves)
            if misfit is not None:
                raise TraceMLIRError(
                    f"trace_mlir: {name} was loaded from {self._prebuilt} "
                    f"and cannot compile again: {misfit}; the module stays "
                    f"{self._describe(self._placement())}")
            return super()._apply(fn, recurse)
        devices = {device for device, _ in moves.values()}
        if devices <= {torch.device("cpu")}:
            target = "cpu"
        elif devices == {torch.device("cuda", 0)}:
            target = "cuda"
        else:
            raise TraceMLIRError(
                f"trace_mlir: {name} cannot move to "
                f"{', '.join(sorted(map(str, devices)))}; a compiled step "
                "runs on the CPU or on cuda:0 (move it there, or call "
                "trace_mlir.compile on the module where it is)")
        result = super()._apply(fn, recurse)
        self._target = target
        self._libraries = {}
        self._shapes_seen = set()
        self._dtypes = None  # taken from the next call's inputs
        return result

    def _misfit(self, library, moves):
        """Why the module's tensors, moved as `moves` says ((device,
        dtype) -> (device, dtype)), would not fit a library's parameters
        and buffers (None when they would)."""
        slots = {n: dtype for d, n, _, dtype, _ in library.functions["fwd"][1]
                 if d == "in"}
        parameters, buffers = self._state()
        for n, t in list(parameters.items()) + list(buffers.items()):
            device, dtype = moves[(t.device, t.dtype)]
            if device != library.device:
                return (f"its library runs on {library.device}, and '{n}' "
                        f"would be on {device}")
            if n in slots and dtype != slots[n]:
                return (f"its library takes '{n}' as {slots[n]}, and it "
                        f"would be {dtype}")
        return None

    def _tensors(self):
        return list(self.module.parameters()) + list(self.module.buffers())

    def _placement(self):
        return tuple((t.device, t.dtype) for t in self._tensors())

    @staticmethod
    def _describe(placement):
        return ", ".join(sorted({f"{d} on {v}" for v, d in placement}))

    def __reduce__(self):
        """Pickling, torch.save and copy.deepcopy: a loaded library (a
        ctypes handle) cannot be copied, so the module is rebuilt from the
        model and the directories of the libraries compiled so far, which
        must still exist where it is loaded (give compile() a cache_dir
        that outlives the process; the default is a temporary one, which
        a copy copies into its own, since the original deletes it)."""
        settings = {"flags": self._flags, "target": self._target,
                    "cache_dir": None if self._scratch else self._cache_dir,
                    "scratch": self._scratch.name if self._scratch else None,
                    "recompile": self._recompile,
                    "frontend": self._frontend, "prebuilt": self._prebuilt,
                    "dtypes": self._dtypes, "training": self.training}
        return (_rebuild, (self.module, self.directories, settings))

    @property
    def directories(self):
        """The directories of the libraries compiled so far (one per input
        shape and mode): what trace_mlir.load takes on another machine."""
        return [library.directory for library in self._libraries.values()]

    def _state(self):
        """The parameters and buffers by the importer's names (which drop
        checkpoint_wrapper's `_checkpoint_wrapped_module.` level), read
        where they are now: their attribute paths are taken from the
        module as compiled, and each call reads the tensor at that path.
        A wrapper that swaps parameters in for the forward (FSDP gathers
        each into a view of its flat parameter, or an unsharded
        parameter) is then what the step reads and what autograd
        differentiates for."""
        def resolve(path):
            value = self.module
            for part in path:
                value = getattr(value, part, None)
                if value is None:
                    raise TraceMLIRError(
                        f"trace_mlir: {type(self.module).__name__} has no "
                        f"tensor '{'.'.join(path)}' any more, which the "
                        "compiled step reads")
            if not _plain(value):
                raise TraceMLIRError(
                    f"trace_mlir: '{'.'.join(path)}' is a "
                    f"{type(value).__name__}, not a plain tensor; a sharded "
                    "parameter must be gathered before the step runs (wrap "
                    "the compiled module itself with FSDP)")
            return value
        parameters, buffers = self._paths
        return ({n: resolve(path) for n, path in parameters},
                {n: resolve(path) for n, path in buffers})

    def _record_paths(self):
        """Where each parameter and buffer is, by the importer's name: from
        the module as given to compile(), before any wrapper (FSDP takes
        the parameters out of their modules when it wraps)."""
        def name(n):
            return n.replace("_checkpoint_wrapped_module.", "")
        self._paths = (
            [(name(n), n.split(".")) for n, _ in
             self.module.named_parameters()],
            [(name(n), n.split(".")) for n, _ in self.module.named_buffers()])

    def _check_wrapped_submodules(self):
        """FSDP gathers a wrapped module's parameters in hooks around that
        module's forward, which the compiled step never calls: a submodule
        wrapped by FSDP would be read sharded. Wrap the compiled module
        itself instead."""
        for path, m in self.module.named_modules():
            wrapped = self._fsdp_types.get(type(m))
            if wrapped is None:
                wrapped = self._fsdp_types[type(m)] = any(
                    c.__name__ in ("FullyShardedDataParallel", "FSDPModule")
                    for c in type(m).__mro__)
            if wrapped:
                raise TraceMLIRError(
                    f"trace_mlir: submodule '{path or '(root)'}' of "
                    f"{type(self.module).__name__} is wrapped by FSDP "
                    f"({type(m).__name__}), whose hooks the compiled step "
                    "does not run; wrap the module trace_mlir.compile "
                    "returned instead (FSDP(compiled), "
                    "fully_shard(compiled))")

    def forward(self, *inputs):
        self._check_wrapped_submodules()
        library = self._library_for(inputs, self.module.training)
        parameters, buffers = self._state()
        values = dict(parameters)
        values.update(buffers)
        values.update(zip(library.input_names, inputs))
        fwd_inputs = {n for d, n, _, _, _ in library.functions["fwd"][1]
                      if d == "in"}
        if "seed" in fwd_inputs:
            # Dropout's Philox seed, drawn from torch's generator, so
            # torch.manual_seed reproduces a run.
            values["seed"] = torch.randint(0, 2**62, (), dtype=torch.int64
                                           ).to(library.device)
        # What autograd differentiates for: parameters, and inputs, that
        # require grad.
        grad_names = [n for n, p in parameters.items()
                      if p.requires_grad and n in fwd_inputs]
        grad_names += [n for n, t in zip(library.input_names, inputs)
                       if t.requires_grad and n in fwd_inputs]
        if not torch.is_grad_enabled() or not grad_names:
            # The forward only: its saved values are freed at once.
            results = _results(library, library.call("fwd", values)[0],
                               buffers)
        else:
            grad_tensors = [values[n] for n in grad_names]
            results = _Step.apply(library, values, buffers, grad_names,
                                  *grad_tensors)
        if library.output_spec is None:
            return results if len(results) > 1 else results[0]
        return pytree.tree_unflatten(list(results), library.output_spec)


def _output_spec(text):
    """The module's output structure (a pytree spec, as module.json keeps
    it); None for a library that did not record one (its results come as
    one tensor, or a tuple of several)."""
    return None if text is None else pytree.treespec_loads(text)


def _rebuild(module, directories, settings):
    """A CompiledModule of `module` with the libraries in `directories`
    (CompiledModule.__reduce__); it compiles other shapes as the original
    did, unless the original was loaded with trace_mlir.load."""
    step = CompiledModule.__new__(CompiledModule)
    torch.nn.Module.__init__(step)
    step.module = module
    step._frontend = settings["frontend"]
    step._target = settings["target"]
    step._prebuilt = settings["prebuilt"]
    step._flags = list(settings["flags"])
    step._recompile = settings["recompile"]
    step._cache_dir = settings["cache_dir"]
    step._scratch = None
    if step._cache_dir is None:
        step._scratch = tempfile.TemporaryDirectory(prefix="trace_mlir-")
        step._cache_dir = step._scratch.name
    step._libraries = {}
    step._record_paths()
    step._fsdp_types = {}
    step._shapes_seen = set()
    step._dtypes = _maybe_tuple(settings["dtypes"])
    for directory in directories:
        scratch = settings.get("scratch")
        if scratch and os.path.dirname(directory) == scratch and \
                os.path.exists(os.path.join(directory, _MODULE_FILE)):
            # The original's temporary cache goes with it: the copy loads
            # copies of its libraries (not trace-compile's intermediates),
            # in its own.
            copied = os.path.join(step._cache_dir,
                                  os.path.basename(directory))
            shutil.copytree(directory, copied,
                            ignore=shutil.ignore_patterns("build"))
            directory = copied
        if not os.path.exists(os.path.join(directory, _MODULE_FILE)):
            raise TraceMLIRError(
                f"trace_mlir: cannot rebuild the compiled "
                f"{type(module).__name__}: its library directory "
                f"{directory} is gone (compile with a cache_dir that "
                "outlives the process to save or copy the module)")
        step._load(directory)
    step._dtypes = _maybe_tuple(settings["dtypes"])
    step.training = settings["training"]
    return step


def _maybe_tuple(dtypes):
    """The input dtypes, or None after a move (.to(), .double()) when the
    next call's inputs give them."""
    return None if dtypes is None else tuple(dtypes)


def compile(module, example_inputs, remat="min-cut", target="cpu",
            checkpoint_policy=None, cache_dir=None, recompile="warn",
            options=(), frontend="export"):
    """Compiles `module`'s training step for `example_inputs` (a tuple of
    tensors) and returns a CompiledModule.

    remat: "min-cut" (default), "none", a fraction of the plain cut's
      saved bytes (0..1) or a byte count.
    target: "cpu" or "cuda" (the library runs on cuda:0, on PyTorch's
      current stream, on the module's own CUDA tensors: move the module
      and the inputs there first).
    checkpoint_policy: trace-compile --checkpoint-policy, e.g.
      "dots_saveable".
    cache_dir: where libraries (by a hash of the traced graph, the shapes
      and the options) and compiled objects are kept; a temporary
      directory when None.
    recompile: "warn" (say once per new input shape) or "error".
    options: more trace-compile flags, e.g. ["--host-cpu=native"].
    frontend: "export" (torch.export, checkpoint calls kept as regions;
      trace_mlir.export) or "torchscript" (torch.jit.trace, deprecated by
      PyTorch).
    """
    if target not in ("cpu", "cuda"):
        raise ValueError(f"trace_mlir.compile: target={target!r}: 'cpu' or "
                         "'cuda'")
    if not isinstance(module, torch.nn.Module):
        raise TypeError("trace_mlir.compile: expected a torch.nn.Module")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    return CompiledModule(module, example_inputs, remat, checkpoint_policy,
                          cache_dir, recompile, options, target=target,
                          frontend=frontend)


def load(module, directory):
    """The CompiledModule of `module` with the step trace_mlir.compile built
    before into `directory` (an entry of its cache_dir: the library, its
    interface and step.module.json), on this machine or another one, for
    machines without the compiler (a GPU node). It runs in the mode and on
    the input shapes it was compiled for; any other raises
    TraceMLIRError."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError("trace_mlir.load: expected a torch.nn.Module")
    return CompiledModule(module, (), None, None, None, "error", (),
                          prebuilt=directory)
