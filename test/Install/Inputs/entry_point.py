"""Run by pip.test in the fresh environment the wheel is installed into,
with no PYTHONPATH: dynamo lists the backend by name, without trace_mlir
imported, through the torch_dynamo_backends entry point."""

import sys

import torch._dynamo
from torch._dynamo.backends.registry import lookup_backend

print("listed:", "trace_mlir" in torch._dynamo.list_backends())
print("imported before lookup:", "trace_mlir" in sys.modules)
fn = lookup_backend("trace_mlir")
print(f"backend: {fn.__module__}.{fn.__name__}")
