#!/usr/bin/env python3
"""Builds a GPU check runner: every public function of some trace IR,
compiled by trace-gpu-pipeline (ahead of time, host code to an object file)
and by trace-cpu-pipeline (the reference), called from one C++ program on
the same deterministic inputs, results compared element by element. Both
pipelines make each result a trailing out-parameter, so the runner owns
every buffer: it allocates the results (device memory for the GPU side,
host memory for the CPU side) and passes their descriptors after the
arguments.

    make_runner.py --out DIR --name NAME [tool options] INPUT.mlir

Writes into DIR: NAME.gpu.ll / NAME.cpu.ll (host LLVM IR), NAME.gpu.o /
NAME.cpu.o, NAME.runner.cpp (generated), and the executable NAME. The
executable links the CUDA runtime statically and the driver through the
toolkit's stub, so it needs libcuda.so.1 and the system's C and C++
libraries at run time (glibc 2.34, libstdc++ of GCC 4.8 or later) and
nothing else; it builds nothing and reads no file. Run it on a GPU
machine: it prints the device, then for every function and result the
largest difference between GPU and CPU and the tolerance, the time per
call of each, and the bytes of arguments and results per second of GPU
time (with the share of the device's peak memory bandwidth); it exits with
0 only if every result is within tolerance.

The CPU reference is trace-cpu-pipeline (blas=false: no OpenBLAS;
approximate-math=false: libm's functions, not polynomials; threads=false:
no OpenMP runtime, which the GPU machine lacks), whose numerics
the CPU tests hold to PyTorch's; its functions are renamed FUNCTION_cpu.
"""

import argparse
import os
import re
import subprocess
import sys

ELEMENT = {
    # MLIR type: (C++ storage type, kind, tolerance atol, rtol). f32's atol
    # allows for block reductions, which add in a tree where the CPU adds
    # in order: a sum of 1000 values in [-1, 1) differs by up to 4e-5
    # (trace-run --gpu-kernels against trace-run, reduction.mlir).
    'f32': ('float', 'float', 1e-4, 1e-4),
    'f64': ('double', 'float', 1e-12, 1e-9),
    'f16': ('uint16_t', 'half', 1e-3, 1e-2),
    'bf16': ('uint16_t', 'bfloat', 1e-2, 2e-2),
    'i64': ('int64_t', 'int', 0, 0),
    'i32': ('int32_t', 'int', 0, 0),
    'i8': ('int8_t', 'int', 0, 0),
    'i1': ('uint8_t', 'bool', 0, 0),
}

FUNCTION = re.compile(
    r'"func\.func"\(\) <\{(.*?)\}>', re.S)
FUNCTION_TYPE = re.compile(r'function_type = \(([^()]*)\) -> (\([^()]*\)|tensor<[^>]*>|\(\))')
SYM_NAME = re.compile(r'sym_name = "([\w$.]+)"')
TENSOR = re.compile(r'tensor<([^>]*)>')


def parse_tensor(text):
    parts = text.split('x')
    element = parts[-1]
    if element not in ELEMENT:
        raise ValueError(f'unsupported element type {element}')
    shape = [int(p) for p in parts[:-1]]
    return shape, element


def signatures(trace_opt, path):
    """(name, [arg (shape, elem)], [result (shape, elem)]) of each public
    function, read from the generic form after trace-to-linalg."""
    text = subprocess.run(
        [trace_opt, path, '--trace-to-linalg', '--mlir-print-op-generic'],
        check=True, stdout=subprocess.PIPE, text=True).stdout
    functions = []
    for match in FUNCTION.finditer(text):
        props = match.group(1)
        if 'sym_visibility' in props:
            continue
        ftype = FUNCTION_TYPE.search(props)
        name = SYM_NAME.search(props).group(1)
        args = [parse_tensor(t) for t in TENSOR.findall(ftype.group(1))]
        results = [parse_tensor(t) for t in TENSOR.findall(ftype.group(2))]
        functions.append((name, args, results))
    return functions


def run(command, **kwargs):
    print('+', ' '.join(command), file=sys.stderr)
    subprocess.run(command, check=True, **kwargs)


def lower(args, source, pipeline, stem, wrappers):
    """trace IR -> host LLVM IR -> object file, whose only global
    definitions are the C wrappers named in `wrappers`."""
    mlir = subprocess.run(
        [args.trace_opt, source, '--llvm-request-c-wrappers', pipeline],
        check=True, stdout=subprocess.PIPE).stdout
    ll = os.path.join(args.out, stem + '.ll')
    run([args.mlir_translate, '--mlir-to-llvmir', '-o', ll], input=mlir)
    obj = os.path.join(args.out, stem + '.o')
    run([args.llc, '-O2', '-filetype=obj', '-relocation-model=pic', ll,
         '-o', obj])
    # Only the public functions' C wrappers are the runner's: the rest (the
    # CPU pipeline's loop nests as functions named by a hash of their body,
    # private functions and their wrappers) may be defined on both sides,
    # so each object keeps its own.
    run([args.objcopy] + [f'--keep-global-symbol={w}' for w in wrappers] +
        [obj])
    return obj


def descriptor(shape, element):
    return f'MemRef<{ELEMENT[element][0]}, {len(shape)}>'


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def type_name(shape, element):
    return f'{element}[{"x".join(map(str, shape))}]'


def generate(functions, name):
    out = [f'// Generated by make_runner.py for {name}: GPU against CPU.',
           '#include "runner_support.h"', '']
    for fn, fargs, results in functions:
        # MLIR's C interface after buffer-results-to-out-params: the
        # arguments, then a buffer per result, all as descriptors.
        params = ', '.join(f'{descriptor(*a)} *' for a in fargs + results)
        for suffix in ('', '_cpu'):
            out.append(f'extern "C" void _mlir_ciface_{fn}{suffix}({params});')
        out.append('')

    out.append('int main() {')
    out.append('  printDevice();')
    out.append('  int failures = 0;')
    for fn, fargs, results in functions:
        out.append(f'  {{ // {fn}')
        out.append(f'    std::printf("%s\\n", "{fn}");')
        call_gpu = []
        call_cpu = []
        for i, (shape, element) in enumerate(fargs):
            ctype = ELEMENT[element][0]
            dims = ', '.join(map(str, shape))
            out.append(f'    Input<{ctype}, {len(shape)}> a{i}({{{{{dims}}}}}, Kind::{ELEMENT[element][1].capitalize()});')
            call_gpu.append(f'&a{i}.gpu')
            call_cpu.append(f'&a{i}.cpu')
        for i, (shape, element) in enumerate(results):
            ctype = ELEMENT[element][0]
            dims = ', '.join(map(str, shape))
            out.append(f'    Output<{ctype}, {len(shape)}> r{i}('
                       f'std::array<int64_t, {len(shape)}>{{{{{dims}}}}});')
            call_gpu.append(f'&r{i}.gpu')
            call_cpu.append(f'&r{i}.cpu')
        gpu_call = f'_mlir_ciface_{fn}({", ".join(call_gpu)})'
        cpu_call = f'_mlir_ciface_{fn}_cpu({", ".join(call_cpu)})'
        out.append(f'    {gpu_call};')
        out.append(f'    {cpu_call};')
        for i, (shape, element) in enumerate(results):
            _, kind, atol, rtol = ELEMENT[element]
            out.append(
                f'    failures += !compare("{fn}", {i}, "{type_name(shape, element)}", '
                f'r{i}.gpu, r{i}.cpu, {count(shape)}, Kind::{kind.capitalize()}, '
                f'{atol!r}, {rtol!r});')
        # Further calls write the same buffers: the timing has no
        # allocation of results in it, as a training loop has none.
        out.append(f'    double gpuMs = timeCalls([&] {{ {gpu_call}; }});')
        out.append(f'    double cpuMs = timeCalls([&] {{ {cpu_call}; }});')
        moved = ' + '.join(f'{count(shape)} * sizeof({ELEMENT[element][0]})'
                           for shape, element in list(fargs) + list(results))
        out.append('    std::printf("  time per call: gpu %.3f ms, cpu %.3f ms\\n", gpuMs, cpuMs);')
        # Bytes of arguments read and results written, over the whole call
        # (launches and synchronization included): a lower bound of the
        # kernels' bandwidth, near it when one large kernel dominates.
        out.append(f'    printBandwidth(double({moved or 0}), gpuMs);')
        out.append('  }')
    out.append('  std::printf("%s: %d of %d functions failed\\n", failures ? "FAIL" : "PASS",')
    out.append(f'              failures, {len(functions)});')
    out.append('  return failures ? 1 : 0;')
    out.append('}')
    return '\n'.join(out) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', required=True)
    parser.add_argument('--name', required=True)
    parser.add_argument('--trace-opt', required=True)
    parser.add_argument('--mlir-translate', required=True)
    parser.add_argument('--llc', required=True)
    parser.add_argument('--objcopy',
                        help='llvm-objcopy (default: the one next to --llc)')
    parser.add_argument('--clangxx', required=True)
    parser.add_argument('--include', required=True,
                        help='the project include directory')
    parser.add_argument('--cuda', default='/usr/local/cuda')
    parser.add_argument('--runtime-lib', required=True,
                        help='libTraceCUDARuntimeStatic.a')
    parser.add_argument('--cpu-runtime-lib',
                        help='libTraceCPURuntimeStatic.a (default: next to '
                        '--runtime-lib): the page calls of the CPU '
                        "pipeline's code")
    parser.add_argument('--gpu-pipeline', default='chip=sm_90',
                        help='trace-gpu-pipeline options')
    parser.add_argument('--gpu-input',
                        help='compile this file as the GPU side instead of '
                        'INPUT (a mutant, to see the comparison fail)')
    parser.add_argument('--self-test', action='store_true',
                        help='compile the GPU side with trace-cpu-pipeline '
                        'too, for a run on the fake driver without a GPU')
    parser.add_argument('input')
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not args.cpu_runtime_lib:
        args.cpu_runtime_lib = os.path.join(
            os.path.dirname(args.runtime_lib), 'libTraceCPURuntimeStatic.a')
    if not args.objcopy:
        args.objcopy = os.path.join(os.path.dirname(args.llc), 'llvm-objcopy')

    functions = signatures(args.trace_opt, args.input)
    if not functions:
        sys.exit(f'{args.input}: no public function')
    stem = os.path.join(args.out, args.name)

    reference = ('--trace-cpu-pipeline=blas=false approximate-math=false '
                 'threads=false')
    gpu_pipeline = (reference if args.self_test else
                    f'--trace-gpu-pipeline={args.gpu_pipeline}')
    gpu_obj = lower(args, args.gpu_input or args.input, gpu_pipeline,
                    args.name + '.gpu',
                    [f'_mlir_ciface_{fn}' for fn, _, _ in functions])
    # The reference: the same functions, renamed NAME_cpu.
    source = open(args.input).read()
    for fn, _, _ in functions:
        source = re.sub(rf'@{re.escape(fn)}\b', f'@{fn}_cpu', source)
    renamed = stem + '.cpu.mlir'
    with open(renamed, 'w') as f:
        f.write(source)
    cpu_obj = lower(args, renamed, reference, args.name + '.cpu',
                    [f'_mlir_ciface_{fn}_cpu' for fn, _, _ in functions])

    runner = stem + '.runner.cpp'
    with open(runner, 'w') as f:
        f.write(generate(functions, args.name))
    here = os.path.dirname(os.path.abspath(__file__))
    run([args.clangxx, '-O2', '-std=c++17', f'-I{args.include}', f'-I{here}',
         f'-I{args.cuda}/include', runner, gpu_obj, cpu_obj, args.runtime_lib, args.cpu_runtime_lib,
         f'-L{args.cuda}/lib64/stubs', '-lcuda', '-lm', '-o', stem])
    print(stem)


if __name__ == '__main__':
    main()
