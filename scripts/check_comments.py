#!/usr/bin/env python3
"""Finds dates, commit hashes and one-off timings in comments and descriptions.

    check_comments.py ROOT [DIR...]

Comments and `.td` descriptions say what the code does and why; a date, a
commit hash or a measured figure ("3.4x faster", "took 41 s", "grew from 1.6
to 6.7 MB") belongs in a commit body or docs/Benchmarks.md (STYLE.md). Scans
the C++ comments of *.cpp/*.h, the whole of *.td (its descriptions and
option help are the generated docs), and the comments and docstrings of
*.py under each DIR (default: lib include python tools). Prints one line
per finding, `path:line: kind: text`, then a summary; exits 1 on a finding.
"""

import ast
import io
import os
import re
import sys
import tokenize

MONTHS = (r'(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|Jun(?:e)?|'
          r'Jul(?:y)?|Aug(?:ust)?|Sep(?:tember)?|Oct(?:ober)?|Nov(?:ember)?|'
          r'Dec(?:ember)?)')
CHECKS = [
    ('date', re.compile(r'\b(?:19|20)\d\d-[01]\d(?:-[0-3]\d)?\b')),
    ('date', re.compile(r'\b(?:19|20)\d\d/[01]\d/[0-3]\d\b')),
    ('date', re.compile(MONTHS + r'\.? (?:[0-3]?\d,? )?(?:19|20)\d\d\b')),
    ('date', re.compile(r'\b[0-3]?\d ' + MONTHS + r'\.? (?:19|20)\d\d\b')),
    ('commit hash', re.compile(
        r'(?<![0-9A-Za-z_.])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])'
        r'[0-9a-f]{7,40}(?![0-9A-Za-z_])')),
    ('timing', re.compile(
        r'\b\d+(?:\.\d+)?\s?(?:x|times) (?:faster|slower|quicker|the speed)\b')),
    ('timing', re.compile(
        r'\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds?|minutes?|min)'
        r'(?![\w/])')),
    ('timing', re.compile(
        r'\bfrom \d+(?:\.\d+)?\s?(?:[KMG]i?B|%|s|ms)? to \d+(?:\.\d+)?\s?'
        r'(?:[KMG]i?B|%|s|ms)\b')),
]


def cxx_comments(text):
    """Yields (line, comment text) for the // and /* */ comments of C++."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            i += 1
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            yield line, text[i + 2:j]
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split('\n')):
                yield line + k, part
            line += text.count('\n', i, j)
            i = j + 2
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = ')' + (m.group(1) if m else '') + '"'
            j = text.find(end, i)
            j = n if j < 0 else j + len(end)
            line += text.count('\n', i, j)
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        else:
            i += 1


def py_comments(text):
    """Yields (line, text) for a Python file's comments and docstrings."""
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and \
                    isinstance(body[0].value, ast.Constant) and \
                    isinstance(body[0].value.value, str):
                first = body[0].lineno
                for k, part in enumerate(body[0].value.value.split('\n')):
                    yield first + k, part


def td_text(text):
    for k, part in enumerate(text.split('\n')):
        yield k + 1, part


READERS = {'.cpp': cxx_comments, '.h': cxx_comments, '.td': td_text,
           '.py': py_comments}


def main():
    args = sys.argv[1:]
    if args and args[0] in ('-h', '--help'):
        print('usage: check_comments.py [ROOT [DIR...]]\n'
              'Lists dates, commit hashes and timings in the comments of '
              'ROOT/DIR (default: the checkout; lib include python tools).')
        return 0
    root = args[0] if args else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    dirs = args[1:] or ['lib', 'include', 'python', 'tools']
    findings = files = 0
    for d in dirs:
        for base, subdirs, names in os.walk(os.path.join(root, d)):
            subdirs[:] = sorted(s for s in subdirs
                                if not s.startswith('.') and
                                not s.endswith('.egg-info') and
                                s != '__pycache__')
            for name in sorted(names):
                reader = READERS.get(os.path.splitext(name)[1])
                if not reader:
                    continue
                path = os.path.join(base, name)
                files += 1
                with open(path, encoding='utf-8') as f:
                    text = f.read()
                for line, comment in sorted(reader(text)):
                    for kind, pattern in CHECKS:
                        m = pattern.search(comment)
                        if m:
                            findings += 1
                            print(f'{os.path.relpath(path, root)}:{line}: '
                                  f'{kind}: {comment.strip()}')
                            break
    print(f'{files} files, {findings} dates, commit hashes or timings '
          'in comments')
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
