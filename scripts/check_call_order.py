#!/usr/bin/env python3
"""Finds calls that create IR in more than one argument.

    check_call_order.py SOURCE_ROOT

C++ leaves the order in which a call's arguments are evaluated
unspecified, so `f(create(a), create(b))` emits the two ops in an order
that differs between GCC and Clang, and with it the IR, the schedules and
the live bytes that follow op order. This reads the C++ of lib/ and
include/ (the runtimes create no IR and are skipped) and reports every call
with two or more arguments that call an op builder (`X::create(`,
`clone(`) or a function or lambda of this code base that may (one whose
name is defined here returning a Value, an Operation *, or as a lambda).
A heuristic, not a parser: it reads text. Exits 1 when it finds one.
"""

import glob
import os
import re
import sys

# Calls whose arguments are not IR, though they call helpers of that name.
NOT_IR = {'llvm::format'}


def sources(root):
    for pattern in ('lib/**/*.cpp', 'lib/**/*.h', 'include/**/*.h'):
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            if '/Runtime/' not in path:
                yield path


def main():
    root = sys.argv[1]
    files = sorted(sources(root))
    texts = {f: re.sub(r'//[^\n]*', '', open(f).read()) for f in files}
    helpers = set()
    for text in texts.values():
        helpers.update(re.findall(
            r'\b(?:Value|FailureOr<Value>|Operation \*|auto)\s+(\w+)\s*\(', text))
        helpers.update(re.findall(r'\bauto\s+(\w+)\s*=\s*\[', text))
    helpers -= {'get', 'lookup', 'lookupOrDefault', 'getOperand', 'getResult',
                'getValue', 'cast', 'dyn_cast', 'find'}
    creates = re.compile(r'::create\(|\bclone\(|\b(?:' +
                         '|'.join(sorted(helpers)) + r')\(')
    found = 0
    for path, src in texts.items():
        n = len(src)

        def arguments(open_paren):
            depth, start, args = 0, open_paren + 1, []
            for j in range(open_paren + 1, n):
                c = src[j]
                if c in '([{':
                    depth += 1
                elif c in ')]}':
                    if depth == 0:
                        args.append(src[start:j])
                        return args
                    depth -= 1
                elif c == ',' and depth == 0:
                    args.append(src[start:j])
                    start = j + 1
                elif c == ';' and depth == 0:
                    return None
            return None

        for m in re.finditer(r'\b(\w+(?:(?:::|\.|->)\w+)*)\s*\(', src):
            callee = m.group(1)
            if callee in ('if', 'for', 'while', 'switch', 'return', 'sizeof') \
                    or callee in NOT_IR:
                continue
            args = arguments(m.end() - 1)
            if not args:
                continue
            creating = [a for a in args
                        if creates.search(a) and not re.match(r'\s*\[', a)]
            if len(creating) >= 2:
                found += 1
                line = src[:m.start()].count('\n') + 1
                print(f'{os.path.relpath(path, root)}:{line}: {callee}(...) '
                      f'builds IR in {len(creating)} arguments: ' +
                      ' | '.join(' '.join(a.split())[:40] for a in creating))
    print(f'{len(files)} files read, {found} calls build IR in more than one '
          f'argument')
    sys.exit(1 if found else 0)


if __name__ == '__main__':
    main()
