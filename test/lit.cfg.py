# -*- Python -*-
# lit configuration of trace-mlir: lit + FileCheck tests under test/, and the
# GoogleTest unit tests under unittests/ run as one more lit suite.

import os
import sys

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TRACE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
# test/Install/lit.local.cfg: its tests run the build tree's CMake.
lit_config.parallelism_groups["install"] = 1
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.trace_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%trace_src_root", config.trace_src_root))
config.substitutions.append(("%trace_obj_root", config.trace_obj_root))
# The build's own settings, which test/Install/pip.test hands to the
# wheel's configure of this build tree so that it changes nothing.
config.substitutions.append(("%trace_build_type", config.trace_build_type
                             or "Release"))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
# IREE's compiler and runtime (python/requirements.txt), beside the
# project's Python: they compile and run our linalg export.
iree_bin = os.path.dirname(config.trace_python)
if os.path.exists(os.path.join(iree_bin, "iree-compile")):
    config.available_features.add("iree")
    config.substitutions.append(("%iree_compile",
                                 os.path.join(iree_bin, "iree-compile")))
    config.substitutions.append(("%iree_run_module",
                                 os.path.join(iree_bin, "iree-run-module")))
# TracePlugin.so, for stock mlir-opt (built when MLIR is linked as
# libMLIR.so, as mlir-opt-22 is).
trace_plugin = os.path.join(config.trace_obj_root, "lib", "TracePlugin.so")
if os.path.exists(trace_plugin):
    config.available_features.add("trace-plugin")
    config.substitutions.append(("%trace_plugin", trace_plugin))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.trace_tools_dir, config.llvm_tools_dir]
tools = ["trace-opt", "trace-run", "trace-compile", ToolSubst("mlir-opt-stock", os.path.join(
    config.llvm_tools_dir, "mlir-opt"))]
# trace-import is built when LibTorch is found (Debian's libtorch-dev).
if config.trace_enable_torchscript:
    config.available_features.add("trace-import")
    tools.append("trace-import")
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Numerics are checked against the project's PyTorch: the .venv python
# (TRACE_PYTHON) scripts/common.sh makes, with torch and torchvision pinned
# in python/requirements.txt.
# llvm_config's defaults define %python as lit's own interpreter: replaced.
python = config.trace_python or "python3"
config.substitutions = [(k, v) for k, v in config.substitutions
                        if k != "%python"]
config.substitutions.append(("%python", python))
if os.system(f"'{python}' -c 'import torch, numpy' > /dev/null 2>&1") == 0:
    config.available_features.add("torch")
# The model zoo's CNNs and ViT come from torchvision.
if os.system(f"'{python}' -c 'import torchvision' > /dev/null 2>&1") == 0:
    config.available_features.add("torchvision")
# torch-mlir's FX importer, for the table beside it (bench/torch_mlir_zoo.py).
if os.system(f"'{python}' -c 'import torch_mlir.fx' > /dev/null 2>&1") == 0:
    config.available_features.add("torch-mlir")

# Features detected at configure time: ptxas (the CUDA toolkit) assembles the
# emitted PTX; a visible GPU gates the tests that execute on it.
if config.trace_ptxas and os.path.exists(config.trace_ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.trace_ptxas))
if config.trace_nvidia_smi and os.path.exists(config.trace_nvidia_smi):
    if lit.util.which("nvidia-smi") and os.system(
            "nvidia-smi -L > /dev/null 2>&1") == 0:
        config.available_features.add("gpu")

# The CUDA runtime (lib/Runtime/CUDA) is built when the CUDA toolkit is
# found; its ABI test compiles it to LLVM IR with clang++ from LLVM's tools.
cuda_runtime_so = os.path.join(config.trace_obj_root, "lib",
                               "libTraceCUDARuntime.so")
cuda_include = "/usr/local/cuda/include"
if os.path.exists(cuda_runtime_so) and os.path.exists(
        os.path.join(cuda_include, "cuda.h")):
    config.available_features.add("cuda-runtime")
    config.substitutions.append(("%cuda_runtime_so", cuda_runtime_so))
    config.substitutions.append(("%cuda_include", cuda_include))
    # The runtime's matmul entry points take MLIR's memref descriptors
    # (mlir/ExecutionEngine/CRunnerUtils.h).
    config.substitutions.append(
        ("%mlir_include", config.mlir_include_dir.split(";")[0]))
# valgrind (scripts/common.sh installs it): a compiled step's memory
# errors, e.g. a donated buffer read after the library freed it.
valgrind = lit.util.which("valgrind")
if valgrind:
    config.available_features.add("valgrind")
    config.substitutions.append(("%valgrind", valgrind))
clangxx = os.path.join(config.llvm_tools_dir, "clang++")
if os.path.exists(clangxx):
    config.available_features.add("clang")
    config.substitutions.append(("%clangxx", clangxx))
# A C++ compiler for tests that only build and link a program (the GPU
# runners' self-test, the cuBLAS gemm check): clang-22 where installed,
# else the system's c++, so that they run wherever the CUDA toolkit is.
cxx = clangxx if os.path.exists(clangxx) else lit.util.which("c++")
if cxx:
    config.available_features.add("cxx")
    config.substitutions.append(("%cxx", cxx))

# A sanitizer build (scripts/test.sh --sanitize): sanitizer_options.py says
# what the runtime options are and why.
if config.trace_sanitizer:
    config.available_features.add("sanitizer")
    sys.path.insert(0, os.path.dirname(__file__))
    from sanitizer_options import sanitizer_environment
    config.environment.update(sanitizer_environment(config.trace_src_root))
    # The libFuzzer targets (built with TRACE_ENABLE_FUZZERS): the inputs they
    # found crashing are run again by test/BadInput/fuzz-regressions.test.
    fuzzers = [f for f in ["trace-parse-fuzzer", "trace-opt-fuzzer",
                           "trace-import-fuzzer"]
               if os.path.exists(os.path.join(config.trace_tools_dir, f))]
    if fuzzers:
        config.available_features.add("fuzzers")
        llvm_config.add_tool_substitutions(fuzzers, [config.trace_tools_dir])
