#!/usr/bin/env python3
"""Checks what trace-compile wrote into OUTDIR.

    check_library.py OUTDIR --name NAME [--trace-opt T] [--nm NM]
        [--run --trace-run R --cc CC --ir STAGE.mlir --rtol R --atol A
         [--valgrind VALGRIND]]
        [--ptxas PTXAS --arch sm_XX]

* every NN-*.mlir stage file parses and verifies (trace-opt);
* the functions the header NAME.h declares are exactly the symbols
  libNAME.so exports (llvm-nm -D --defined-only), both ways;
* with --run: a C program compiled against NAME.h and linked to libNAME.so
  calls every declared function on trace-run's random inputs (seed 0) of the
  same function in STAGE.mlir, and each result must equal trace-run's
  (numpy allclose with the given tolerances); the element type the header
  declares must be the .npy's;
* with --ptxas: every kernels/*.ptx assembles (non-relocatable, so an
  unresolved libdevice call fails) for --arch.

Prints one line per check; exits with 1 at the first failure.
"""

import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

import numpy as np

C_TYPES = {'float': np.float32, 'double': np.float64, 'uint16_t': np.uint16,
           'int64_t': np.int64, 'int32_t': np.int32, 'uint8_t': np.uint8}
DECL = re.compile(r'^void (\w+)\(([^)]*)\);$', re.M)
# " *   in  blocks_0_fc1_weight: 32x128xf32  (blocks.0.fc1.weight)"
DOC = re.compile(r'^ \*   (in|out|saved|donated) +(\w+): ([0-9x]*\w+)  \((.*)\)$', re.M)
RELEASE = re.compile(r'^void (\w+_release)\(void \*saved\);$', re.M)
# --target=cuda: the stream this thread's later calls run on.
SET_STREAM = re.compile(r'^void (\w+_set_stream)\(void \*stream\);$', re.M)
COMMENT = re.compile(r'/\* @(\w+): [^\n]*\n((?: \*   [^\n]*\n)*) \*/\nvoid (\w+)\(')


def fail(message):
    print('FAIL:', message)
    sys.exit(1)


def parse_header(path):
    """[(c name, mlir name, [(dir, c type, c name, shape, name)])]."""
    text = open(path).read()
    functions = []
    decls = {m.group(1): m.group(2) for m in DECL.finditer(text)}
    release = RELEASE.search(text)
    if release:
        decls.pop(release.group(1))
    set_stream = SET_STREAM.search(text)
    if set_stream:
        decls.pop(set_stream.group(1))
    for m in COMMENT.finditer(text):
        mlir_name, doc, cname = m.group(1), m.group(2), m.group(3)
        if cname not in decls:
            fail(f'{cname} documented but not declared')
        params = [p.strip() for p in decls[cname].split(',') if p.strip() != 'void']
        docs = DOC.findall(doc)
        if len(docs) != len(params):
            fail(f'{cname}: {len(params)} parameters, {len(docs)} documented')
        slots = []
        for param, (direction, dname, shape, name) in zip(params, docs):
            pm = re.match(r'(const )?(\w+) (\*\*?)(\w+)$', param)
            if not pm or pm.group(4) != dname:
                fail(f'{cname}: parameter {param!r} does not match its doc {dname}')
            if (pm.group(1) is not None) != (direction == 'in'):
                fail(f'{cname}: {dname}: inputs are const, nothing else is')
            if (pm.group(3) == '**') != (direction == 'saved'):
                fail(f'{cname}: {dname}: saved values, and only they, are T **')
            dims = shape.split('x')
            slots.append((direction, pm.group(2), dname,
                          [int(d) for d in dims[:-1]], name))
        functions.append((cname, mlir_name, slots))
    if len(functions) != len(decls):
        fail(f'{len(decls)} declarations, {len(functions)} documented')
    return (functions, release.group(1) if release else None,
            set_stream.group(1) if set_stream else None)


def driver_source(header, functions, data, release):
    """A C program: for each function, read inputs, call, write outputs. A
    saved value comes back as a pointer the library allocated, freed with
    NAME_release; a donated input is freed by the call."""
    out = ['#include <stdio.h>', '#include <stdlib.h>', f'#include "{header}"', '',
           'static void *load(const char *path, size_t bytes) {',
           '  void *p = malloc(bytes ? bytes : 1); FILE *f = fopen(path, "rb");',
           '  if (!f || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot read %s\\n", path); exit(2); }',
           '  fclose(f); return p;', '}',
           'static void save(const char *path, const void *p, size_t bytes) {',
           '  FILE *f = fopen(path, "wb");',
           '  if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot write %s\\n", path); exit(2); }',
           '  fclose(f);', '}', '', 'int main(void) {']
    for cname, _, slots in functions:
        out.append('  {')
        names = []
        for i, (direction, ctype, dname, shape, _) in enumerate(slots):
            n = int(np.prod(shape)) if shape else 1
            size = f'{n} * sizeof({ctype})'
            path = os.path.join(data, cname, f'{dname}.bin')
            if direction in ('in', 'donated'):
                out.append(f'    {ctype} *p{i} = ({ctype} *)load("{path}", {size});')
                names.append(f'p{i}')
            elif direction == 'saved':
                out.append(f'    {ctype} *p{i} = NULL;')
                names.append(f'&p{i}')
            else:
                out.append(f'    {ctype} *p{i} = ({ctype} *)calloc({n}, sizeof({ctype}));')
                names.append(f'p{i}')
        out.append(f'    {cname}({", ".join(names)});')
        for i, (direction, ctype, dname, shape, _) in enumerate(slots):
            if direction in ('out', 'saved'):
                n = int(np.prod(shape)) if shape else 1
                path = os.path.join(data, cname, f'{dname}.bin')
                out.append(f'    save("{path}", p{i}, {n} * sizeof({ctype}));')
        for i, (direction, _, _, _, _) in enumerate(slots):
            if direction == 'saved':
                out.append(f'    {release}(p{i});')
            elif direction != 'donated':
                out.append(f'    free(p{i});')
        out.append('  }')
    out += ['  return 0;', '}']
    return '\n'.join(out) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('outdir')
    parser.add_argument('--name', required=True)
    parser.add_argument('--trace-opt', default='trace-opt')
    parser.add_argument('--nm', default='llvm-nm')
    parser.add_argument('--stages', type=int, required=True,
                        help='how many NN-*.mlir stage files there must be')
    parser.add_argument('--run', action='store_true')
    parser.add_argument('--trace-run', default='trace-run')
    parser.add_argument('--cc', default='cc')
    parser.add_argument('--ir', help='the trace IR trace-run executes')
    parser.add_argument('--rtol', type=float, default=1e-5)
    parser.add_argument('--atol', type=float, default=1e-6)
    parser.add_argument('--valgrind', help='run the C program under this '
                        'valgrind: any invalid read, write or free (a '
                        'donated buffer used after the library freed it), '
                        'or a buffer definitely lost, fails')
    parser.add_argument('--ptxas')
    parser.add_argument('--arch')
    parser.add_argument('--work', help='scratch directory (default OUTDIR/../work)')
    args = parser.parse_args()
    out = args.outdir

    stages = sorted(glob.glob(os.path.join(out, '[0-9][0-9]-*.mlir')))
    if len(stages) != args.stages:
        fail(f'{len(stages)} stage files, expected {args.stages}: {stages}')
    for stage in stages:
        r = subprocess.run([args.trace_opt, stage, '-o', os.devnull],
                           stderr=subprocess.PIPE, text=True)
        if r.returncode:
            fail(f'{stage} does not parse: {r.stderr[:2000]}')
    print(f'stages: {" ".join(os.path.basename(s) for s in stages)} parse')

    header = os.path.join(out, args.name + '.h')
    library = os.path.join(out, f'lib{args.name}.so')
    functions, release, set_stream = parse_header(header)
    declared = {f[0] for f in functions} | {n for n in (release, set_stream)
                                            if n}
    nm = subprocess.run([args.nm, '-D', '--defined-only', library],
                        check=True, stdout=subprocess.PIPE, text=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines()
                if len(line.split()) == 3 and line.split()[1] in 'TW'}
    if declared != exported:
        fail(f'header declares {sorted(declared - exported)} not exported; '
             f'library exports {sorted(exported - declared)} not declared')
    print(f'symbols: {len(exported)} exported = {len(declared)} declared: '
          + ' '.join(sorted(declared)))

    if args.ptxas:
        kernels = sorted(glob.glob(os.path.join(out, 'kernels', '*.ptx')))
        if not kernels:
            fail('no kernels/*.ptx')
        work = args.work or os.path.join(os.path.dirname(os.path.abspath(out)), 'ptx-' + args.arch)
        os.makedirs(work, exist_ok=True)
        bad = 0

        def assemble(ptx):
            return subprocess.run(
                [args.ptxas, f'-arch={args.arch}', ptx, '-o',
                 os.path.join(work, os.path.basename(ptx) + '.cubin')],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # One ptxas per file; a training step has hundreds of kernels.
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
            runs = list(pool.map(assemble, kernels))
        for ptx, r in zip(kernels, runs):
            if r.returncode:
                bad += 1
                print(f'FAILED {os.path.basename(ptx)}\n{r.stdout}')
        if bad:
            fail(f'{bad} of {len(kernels)} kernels do not assemble for {args.arch}')
        print(f'ptxas: {len(kernels)} of {len(kernels)} kernels assemble for {args.arch}')

    if not args.run:
        return
    work = args.work or os.path.join(os.path.dirname(os.path.abspath(out)), 'work')
    os.makedirs(work, exist_ok=True)
    dtype_of = {}
    for cname, mlir_name, slots in functions:
        ref = os.path.join(work, 'ref', cname)
        subprocess.run([args.trace_run, args.ir, f'--entry={mlir_name}',
                        '--random-inputs=0', f'--out-dir={ref}', '--quiet'],
                       check=True)
        data = os.path.join(work, 'data', cname)
        os.makedirs(data, exist_ok=True)
        for direction, ctype, dname, shape, name in slots:
            if direction not in ('in', 'donated'):
                continue
            a = np.load(os.path.join(ref, 'inputs', name + '.npy'))
            if list(a.shape) != shape:
                fail(f'{cname}: {dname}: header says {shape}, trace-run {list(a.shape)}')
            expected = C_TYPES[ctype]
            a = a.view(np.uint16) if a.dtype.itemsize == 2 and expected == np.uint16 else a
            a = a.astype(np.uint8) if a.dtype == np.bool_ and expected == np.uint8 else a
            if a.dtype != expected:
                fail(f'{cname}: {dname}: header says {ctype}, trace-run {a.dtype}')
            a.tofile(os.path.join(data, dname + '.bin'))
    source = os.path.join(work, 'driver.c')
    with open(source, 'w') as f:
        f.write(driver_source(os.path.abspath(header), functions,
                              os.path.join(work, 'data'), release))
    driver = os.path.join(work, 'driver')
    subprocess.run([args.cc, '-std=c99', '-Wall', '-Werror', source,
                    f'-L{os.path.abspath(out)}', f'-l{args.name}',
                    f'-Wl,-rpath,{os.path.abspath(out)}', '-o', driver], check=True)
    if args.valgrind:
        r = subprocess.run([args.valgrind, '--error-exitcode=99', '--leak-check=full',
                            '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite',
                            driver], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        summary = [l for l in r.stdout.splitlines() if 'ERROR SUMMARY' in l]
        if r.returncode:
            fail(f'valgrind: exit {r.returncode}\n{r.stdout[-4000:]}')
        print('valgrind: ' + (summary[-1].split('== ', 1)[-1] if summary else 'no summary'))
    else:
        subprocess.run([driver], check=True)
    for cname, mlir_name, slots in functions:
        worst = 0.0
        largest = 0.0
        count = 0
        for direction, ctype, dname, shape, name in slots:
            if direction not in ('out', 'saved'):
                continue
            want = np.load(os.path.join(work, 'ref', cname, name + '.npy'))
            got = np.fromfile(os.path.join(work, 'data', cname, dname + '.bin'),
                              dtype=C_TYPES[ctype]).reshape(shape)
            if want.dtype == np.bool_:
                want = want.astype(np.uint8)
            if not np.allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=args.rtol, atol=args.atol):
                diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
                fail(f'{cname}: {dname} differs from trace-run: max |diff| {diff.max():.3g}')
            if got.size:
                largest = max(largest, float(np.max(np.abs(want.astype(np.float64)))))
                worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))))
            count += 1
        print(f'{cname}: {count} results equal trace-run @{mlir_name} '
              f'(rtol {args.rtol:g}, atol {args.atol:g}; max |diff| {worst:.3g}, '
              f'max |value| {largest:.3g})')
        if largest == 0:
            fail(f'{cname}: every result is zero: nothing was compared')


if __name__ == '__main__':
    main()
