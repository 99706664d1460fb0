#!/usr/bin/env python3
"""Checks that no library of lib/ links a dialect it does not use.

    check_link_deps.py SOURCE_ROOT

For every add_mlir_library / add_mlir_dialect_library /
add_mlir_conversion_library in lib/**/CMakeLists.txt, each dialect library
it links (MLIR<X>Dialect in trace_link_mlir, TraceDialect or
TraceGPUDialect in target_link_libraries) must be the dialect of a header
that one of the library's own files includes: its sources in that
directory, or its public headers (the include/trace/ directory of the
same path). Prints one line per library; exits 1 naming every dialect
linked without a use. (A use without the link is the linker's error.)
"""

import os
import re
import sys

# The dialect library -> the include prefix of its headers.
MLIR_DIALECTS = {
    'MLIRAffineDialect': 'mlir/Dialect/Affine/',
    'MLIRArithDialect': 'mlir/Dialect/Arith/',
    'MLIRBufferizationDialect': 'mlir/Dialect/Bufferization/',
    'MLIRFuncDialect': 'mlir/Dialect/Func/',
    'MLIRGPUDialect': 'mlir/Dialect/GPU/',
    'MLIRLinalgDialect': 'mlir/Dialect/Linalg/',
    'MLIRLLVMDialect': 'mlir/Dialect/LLVMIR/',
    'MLIRMathDialect': 'mlir/Dialect/Math/',
    'MLIRMemRefDialect': 'mlir/Dialect/MemRef/',
    'MLIRSCFDialect': 'mlir/Dialect/SCF/',
    'MLIRTensorDialect': 'mlir/Dialect/Tensor/',
    'MLIRVectorDialect': 'mlir/Dialect/Vector/',
}
TRACE_DIALECTS = {
    'TraceDialect': 'trace/Dialect/Trace/IR/',
    'TraceGPUDialect': 'trace/Dialect/TraceGPU/IR/',
}
LIBRARY = re.compile(r'add_(?:mlir(?:_dialect|_conversion)?_)?library\((\w+)')
LINK = re.compile(r'(?:trace_link_mlir|target_link_libraries)\((\w+)([^)]*)\)',
                  re.S)
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def includes_of(paths):
    found = set()
    for path in paths:
        with open(path) as f:
            found.update(INCLUDE.findall(f.read()))
    return found


def main():
    root = sys.argv[1]
    bad = []
    checked = 0
    for dirpath, _, files in sorted(os.walk(os.path.join(root, 'lib'))):
        if 'CMakeLists.txt' not in files:
            continue
        text = open(os.path.join(dirpath, 'CMakeLists.txt')).read()
        names = LIBRARY.findall(text)
        if not names:
            continue
        rel = os.path.relpath(dirpath, os.path.join(root, 'lib'))
        own = [os.path.join(dirpath, f) for f in files
               if f.endswith(('.cpp', '.h'))]
        public = os.path.join(root, 'include', 'trace', rel)
        if os.path.isdir(public):
            own += [os.path.join(public, f) for f in os.listdir(public)
                    if f.endswith('.h')]
        used = includes_of(own)
        for name in names:
            linked = set()
            for target, items in LINK.findall(text):
                if target == name:
                    linked.update(items.split())
            dialects = {**MLIR_DIALECTS, **TRACE_DIALECTS}
            unused = sorted(
                lib for lib in linked if lib in dialects and
                not any(inc.startswith(dialects[lib]) for inc in used))
            checked += 1
            if unused:
                bad.append(f'{name} ({rel}) links {", ".join(unused)} '
                           f'but includes none of its headers')
            print(f'{name}: {len([l for l in linked if l in dialects])} '
                  f'dialects linked, all used' if not unused else
                  f'{name}: UNUSED {", ".join(unused)}')
    for line in bad:
        print('FAIL:', line)
    print(f'{checked} libraries checked, {len(bad)} link a dialect they do '
          f'not use')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
