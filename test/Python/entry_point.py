"""Run by entry-point.test with only the installed package on the path."""

import sys

import torch._dynamo
from torch._dynamo.backends.registry import lookup_backend

print("listed:", "trace_mlir" in torch._dynamo.list_backends())
print("imported before lookup:", "trace_mlir" in sys.modules)
fn = lookup_backend("trace_mlir")
print(f"backend: {fn.__module__}.{fn.__name__}")
