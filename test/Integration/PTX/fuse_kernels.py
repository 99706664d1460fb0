#!/usr/bin/env python3
"""Counts the GPU kernels of each trace.fusion region of a fused module.

Reads the output of trace-fuse, makes one function per fusion region
(`@fusion_<i>`: the region's inputs as arguments, the region itself as its
body, its results returned, except results that are reshapes or slices of
an input or of another result: views in place, copies when returned), runs `trace-opt --trace-gpu-pipeline` on them all and
counts the `gpu.launch_func` ops of each. Prints one line per count seen
(`N fusions of kind K -> M kernels each`) and a summary line; exits 1 if a
fusion does not become exactly one kernel.

    fuse_kernels.py --trace-opt BIN FUSED.mlir
"""

import argparse
import collections
import re
import subprocess
import sys

HEADER = re.compile(
    r'^(\s*)(%[\w.#:]+)? ?=? ?trace\.fusion "(\w+)_(\d+)" ins\((.*?)\)'
    r'(?: -> (.*?))? \{$')


def regions(text):
    """Yields (kind, inputs 'name: type' list, result types, body lines)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = HEADER.match(lines[i])
        if not match:
            i += 1
            continue
        indent, _, kind, _, ins, results = match.groups()
        inputs = []
        for entry in re.finditer(r"(%[\w.]+) = %[\w.#]+ : ([^,]+(?:<[^>]*>)?)", ins):
            inputs.append((entry.group(1), entry.group(2)))
        results = results or ""
        if results.startswith("("):
            results = results[1:-1]
        result_types = re.findall(r"tensor<[^>]*>", results)
        body = []
        i += 1
        while not lines[i].startswith(indent + "}"):
            body.append(lines[i])
            i += 1
        yield kind, inputs, result_types, body
        i += 1


VIEW = re.compile(r"^\s*(%[\w.]+) = trace\.(?:reshape|slice) (%[\w.]+)")


def drop_view_results(inputs, result_types, body):
    """Drops the results that are reshapes or slices of an input or of
    another result. Inside a function they are views, no kernel; returned
    from a function of their own, bufferization would copy them (a kernel
    the fusion does not have)."""
    source = {}
    for line in body:
        match = VIEW.match(line)
        if match:
            source[match.group(1)] = match.group(2)

    def root(value):
        while value in source:
            value = source[value]
        return value

    yielded = body[-1].strip()[len("trace.yield "):].split(" : ")[0].split(", ")
    args = {name for name, _ in inputs}
    claimed = {root(v) for v in yielded if v not in source}
    kept = []
    for k, value in enumerate(yielded):
        if value in source:
            r = root(value)
            if r in args or r in claimed:
                continue
            claimed.add(r)
        kept.append(k)
    types = [result_types[k] for k in kept]
    values = [yielded[k] for k in kept]
    new_yield = (f"    trace.yield {', '.join(values)} : {', '.join(types)}"
                 if values else "    trace.yield")
    return body[:-1] + [new_yield], types


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace-opt", required=True)
    parser.add_argument("fused")
    args = parser.parse_args()

    functions, kinds = [], []
    for index, (kind, inputs, result_types, body) in enumerate(
            regions(open(args.fused).read())):
        body, result_types = drop_view_results(inputs, result_types, body)
        if not result_types:
            # Only views: no kernel, and no reason for a fusion.
            functions.append("")
            kinds.append(kind + " (views only)")
            continue
        arguments = ", ".join(f"%in{k}: {type_}" for k, (_, type_) in enumerate(inputs))
        ins = ", ".join(f"{name} = %in{k} : {type_}"
                        for k, (name, type_) in enumerate(inputs))
        types = ", ".join(result_types)
        count = len(result_types)
        results = ", ".join(f"%r#{k}" for k in range(count)) if count > 1 else "%r"
        functions.append(
            f"func.func @fusion_{index}({arguments}) -> ({types}) {{\n"
            f"  %r{':' + str(count) if count > 1 else ''} = trace.fusion \"{kind}_{index}\" "
            f"ins({ins}) -> ({types}) {{\n" + "\n".join(body) + "\n  }\n"
            f"  return {results} : {types}\n}}\n")
        kinds.append(kind)
    if not functions:
        sys.exit(f"{args.fused}: no trace.fusion regions")

    lowered = subprocess.run([args.trace_opt, "--trace-gpu-pipeline", "-"],
                             input="\n".join(functions), capture_output=True,
                             text=True)
    if lowered.returncode != 0:
        sys.exit(lowered.stderr)

    launches = collections.Counter()
    current = None
    for line in lowered.stdout.split("\n"):
        header = re.match(r"\s*llvm\.func @fusion_(\d+)\(", line)
        if header:
            current = int(header.group(1))
        elif "gpu.launch_func" in line and current is not None:
            launches[current] += 1

    histogram = collections.Counter(
        (kinds[i], launches[i]) for i in range(len(functions)))
    for (kind, count), n in sorted(histogram.items()):
        print(f"{n} {kind} fusions -> {count} kernel{'s' if count != 1 else ''} each")
    bad = sum(n for (kind, count), n in histogram.items() if count != 1)
    print(f"{len(functions) - bad} of {len(functions)} fusions are one kernel")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
