#!/usr/bin/env python3
"""Writes the PTX of every kernel in trace-gpu-pipeline's output to files and,
with --ptxas, assembles each one.

Reads MLIR text (a file or stdin) holding `gpu.binary` ops whose objects were
made with format=isa and writes one file per object into OUTDIR, named
`<binary>.<chip>.ptx`, printing `<binary> <chip> <.entry names>` for each.
With `--ptxas PTXAS --arch sm_XX` each file is also assembled, non-relocatable
(`ptxas -arch=sm_XX FILE -o FILE.cubin`), so a call that no linked library
defines (an unresolved libdevice `__nv_*` function) is an error; ptxas's
messages are printed after `FAILED <binary>`.

Exit status: 0 when every object was written (and assembled); 1 when one
failed to assemble or no PTX object was found at all (a pipeline that emits
no kernel must not pass vacuously); 2 on malformed input.

    extract_ptx.py [--ptxas PTXAS --arch sm_XX] OUTDIR [INPUT.mlir]
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

# `gpu.binary @name [#gpu.object<#nvvm.target<... chip = "sm_90" ...>,
# properties = {...}, assembly = "...">, ...]`; the string is MLIR's escaped
# form: `\\` is a backslash and `\XX` any other escaped byte (`\22` is `"`).
BINARY = re.compile(r'gpu\.binary\s+@([\w$.-]+)')
OBJECT = re.compile(
    r'#gpu\.object<#nvvm\.target<([^>]*)>.*?\bassembly\s*=\s*"((?:[^"\\]|\\.)*)"',
    re.S)
CHIP = re.compile(r'chip\s*=\s*"([^"]+)"')
ESCAPE = re.compile(r'\\(\\|[0-9A-Fa-f]{2})')
ENTRY = re.compile(r'^\s*(?:\.visible\s+)?\.entry\s+([\w$]+)', re.M)


def unescape(text):
    return ESCAPE.sub(
        lambda m: '\\' if m.group(1) == '\\' else chr(int(m.group(1), 16)),
        text)


def objects(text):
    """Yields (binary name, chip, PTX) for every PTX object in `text`."""
    starts = list(BINARY.finditer(text))
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        for obj in OBJECT.finditer(text, match.end(), end):
            chip = CHIP.search(obj.group(1))
            if not chip:
                raise ValueError(f'{match.group(1)}: no chip in its target')
            yield match.group(1), chip.group(1), unescape(obj.group(2))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0])
    parser.add_argument('--ptxas', help='ptxas to assemble each kernel with')
    parser.add_argument('--arch', help='-arch for ptxas, e.g. sm_90')
    parser.add_argument('outdir')
    parser.add_argument('input', nargs='?')
    args = parser.parse_args()
    if bool(args.ptxas) != bool(args.arch):
        parser.error('--ptxas and --arch go together')

    text = open(args.input).read() if args.input else sys.stdin.read()
    os.makedirs(args.outdir, exist_ok=True)
    kernels = []
    try:
        for name, chip, ptx in objects(text):
            entries = ENTRY.findall(ptx)
            if not entries:
                raise ValueError(f'{name}: PTX without an .entry')
            path = os.path.join(args.outdir, f'{name}.{chip}.ptx')
            with open(path, 'w') as f:
                f.write(ptx)
            kernels.append((name, chip, entries, path))
    except ValueError as error:
        sys.stderr.write(f'extract_ptx.py: {error}\n')
        return 2
    written = len(kernels)

    def assemble(path):
        return subprocess.run(
            [args.ptxas, f'-arch={args.arch}', path, '-o', path + '.cubin'],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    # ptxas takes one file per run; a training step has hundreds of kernels.
    runs = [None] * written
    if args.ptxas:
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
            runs = list(pool.map(assemble, [k[3] for k in kernels]))
    failed = 0
    for (name, chip, entries, path), run in zip(kernels, runs):
        print(name, chip, ' '.join(entries))
        if run is not None and run.returncode != 0:
            failed += 1
            print(f'FAILED {name}')
            print(run.stdout, end='')
    if written == 0:
        sys.stderr.write('extract_ptx.py: no PTX object found (format=isa?)\n')
        return 1
    if args.ptxas:
        print(f'assembled {written - failed} of {written} kernels '
              f'for {args.arch}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
