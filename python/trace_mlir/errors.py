"""The error trace_mlir raises where trace-compile rejects a model or a
compiled step cannot run: TraceMLIRError."""


class TraceMLIRError(RuntimeError):
    """trace-compile rejected the model; the message is its diagnostic
    (file, line, op and module path where it has them)."""
