#!/usr/bin/env python3
"""Checks the CUDA runtime against the calls lowered host code makes.

    check_abi.py --runtime RUNTIME.ll [--exports NM.txt] HOST.ll...

HOST.ll are LLVM IR files made by `mlir-translate --mlir-to-llvmir` from
host code (trace-gpu-pipeline's, or gpu-to-llvm's); their
`declare RET @mgpuX(TYPES)` lines (and `@trace_cuda_X`, what trace_gpu.gemm
lowers to) are what the lowering calls. RUNTIME.ll is
the runtime compiled to LLVM IR (`clang++ -S -emit-llvm`), whose
`define ... RET @mgpuX(TYPE attrs %n, ...)` lines are what it implements.
NM.txt is `nm -D --defined-only` of the shared runtime library.

Prints `ok NAME RET(TYPES)` for each declared function the runtime defines
with the same LLVM types (and exports), sorted, and a line starting with
MISSING, MISMATCH or NOT-EXPORTED for each one it does not; exits with 1 if
there is any such line or no mgpu function was declared at all.
"""

import argparse
import re
import sys

RUNTIME_NAME = r'(?:mgpu\w+|trace_cuda_\w+)'
FUNCTION = re.compile(r'^(declare|define)\s+([^@]*?)\s*@(' + RUNTIME_NAME +
                      r')\(([^)]*)\)', re.M)
# LLVM types that can start a parameter or a return type here.
TYPE = re.compile(r'^(void|ptr|i\d+|half|bfloat|float|double)\b')


def first_type(text):
    """The type in a parameter (`i8 noundef zeroext %2` -> `i8`) or return
    (`dso_local noundef ptr` -> `ptr`) declaration."""
    for word in text.split():
        if TYPE.match(word):
            return TYPE.match(word).group(1)
    raise ValueError(f'no type in {text!r}')


def signatures(text, kind):
    found = {}
    for match in FUNCTION.finditer(text):
        if match.group(1) != kind:
            continue
        params = [p for p in match.group(4).split(',') if p.strip()]
        words = match.group(2).split()
        # The return type is the last type word before the name.
        ret = next(w for w in reversed(words) if TYPE.match(w))
        found[match.group(3)] = (ret, tuple(first_type(p) for p in params))
    return found


def show(sig):
    return f'{sig[0]}({", ".join(sig[1])})'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--runtime', required=True)
    parser.add_argument('--exports')
    parser.add_argument('host', nargs='+')
    args = parser.parse_args()

    declared = {}
    for path in args.host:
        for name, sig in signatures(open(path).read(), 'declare').items():
            if declared.setdefault(name, sig) != sig:
                print(f'MISMATCH {name}: declared both {show(declared[name])} '
                      f'and {show(sig)}')
                return 1
    defined = signatures(open(args.runtime).read(), 'define')
    exported = None
    if args.exports:
        exported = set(re.findall(r'\s[TW]\s+(' + RUNTIME_NAME + r')$',
                                  open(args.exports).read(), re.M))

    problems = 0
    for name in sorted(declared):
        sig = declared[name]
        if name not in defined:
            print(f'MISSING {name} {show(sig)}')
            problems += 1
        elif defined[name] != sig:
            print(f'MISMATCH {name}: lowering calls {show(sig)}, runtime '
                  f'defines {show(defined[name])}')
            problems += 1
        elif exported is not None and name not in exported:
            print(f'NOT-EXPORTED {name}')
            problems += 1
        else:
            print(f'ok {name} {show(sig)}')
    if not declared:
        print('no runtime function declared in the host code')
        return 1
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
