#!/usr/bin/env python3
"""Checks that every pass is found from its name in one step.

    check_layout.py SOURCE_ROOT

For every `Pass<"trace-x-y">` declared in include/trace/**/Passes.td, the
pass is implemented in lib/<the same directory>/TraceXY.cpp (its CamelCase
name; "blas" is written BLAS) and tested by test/<that directory>/
trace-x-y*.mlir. Conversions live one directory deeper
(lib/Conversion/<Name>/): any subdirectory of the Passes.td's directory
counts, and then so do the lit files of test/Conversion/<Name>/. Prints
one line per pass; exits 1 naming what is missing.
"""

import glob
import os
import re
import sys

PASS = re.compile(r'def \w+\s*:\s*Pass<"(trace-[a-z0-9-]+)"')
WORDS = {'blas': 'BLAS', 'gpu': 'GPU', 'cpu': 'CPU'}


def camel(name):
    return ''.join(WORDS.get(w, w.capitalize()) for w in name.split('-'))


def main():
    root = sys.argv[1]
    missing = []
    count = 0
    for td in sorted(glob.glob(os.path.join(root, 'include/trace/**/Passes.td'),
                               recursive=True)):
        rel = os.path.relpath(os.path.dirname(td),
                              os.path.join(root, 'include/trace'))
        for name in PASS.findall(open(td).read()):
            count += 1
            source = camel(name) + '.cpp'
            sources = glob.glob(os.path.join(root, 'lib', rel, source)) + \
                glob.glob(os.path.join(root, 'lib', rel, '*', source))
            tests = glob.glob(os.path.join(root, 'test', rel, name + '*.mlir')) + \
                glob.glob(os.path.join(root, 'test', rel, '*', name + '*.mlir'))
            # A pass with a directory of its own (lib/Conversion/<Name>/)
            # may have a test directory of its own too.
            for src in sources:
                own = os.path.relpath(os.path.dirname(src),
                                      os.path.join(root, 'lib'))
                if own != rel:
                    tests += glob.glob(os.path.join(root, 'test', own, '*.mlir'))
            problems = []
            if not sources:
                problems.append(f'no lib/{rel}/[*/]{source}')
            if not tests:
                problems.append(f'no test/{rel}/[*/]{name}*.mlir')
            if problems:
                missing.append(f'{name}: ' + ', '.join(problems))
                print(f'FAIL: {name}: ' + ', '.join(problems))
            else:
                print(f'{name}: {os.path.relpath(sources[0], root)}, '
                      f'{len(tests)} test file(s)')
    print(f'{count} passes, {len(missing)} not found from their name')
    sys.exit(1 if missing else 0)


if __name__ == '__main__':
    main()
