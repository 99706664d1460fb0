#!/usr/bin/env python3
"""Writes the corrupted TorchScript files of test/BadInput/trace-import.test
from test/Importer/TorchScript/Inputs/ops/linear.pt (no torch needed):

  python3 test/BadInput/Inputs/pt/make_bad_pt.py
"""
import os
import pickletools
import struct
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "..", "Importer", "TorchScript", "Inputs",
                   "ops", "linear.pt")


def rewrite(name, change):
    """Copies the archive entry by entry; change(entry_name, bytes) returns
    the new bytes, or None to drop the entry."""
    with zipfile.ZipFile(SRC) as src, zipfile.ZipFile(
            os.path.join(HERE, name), "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = change(info.filename, src.read(info))
            if data is not None:
                dst.writestr(info.filename, data)


def claim_huge_string(pickle):
    """The pickle with its first BINUNICODE string claiming 0xFFFFFFF0
    bytes: LibTorch 1.13 would allocate and clear 4 GiB before failing."""
    for op, _, pos in pickletools.genops(pickle):
        if op.name == "BINUNICODE":
            return (pickle[:pos + 1] + struct.pack("<I", 0xFFFFFFF0)
                    + pickle[pos + 5:])
    raise ValueError("no BINUNICODE opcode in the pickle")


def claim_huge_memo(pickle):
    """The pickle with its first BINPUT made a LONG_BINPUT of memo entry
    0x70000000: LibTorch 1.13 would grow its memo table to 30 GB."""
    for op, _, pos in pickletools.genops(pickle):
        if op.name == "BINPUT":
            return (pickle[:pos] + b"r" + struct.pack("<I", 0x70000000)
                    + pickle[pos + 2:])
    raise ValueError("no BINPUT opcode in the pickle")


def nest_deeply(name, code):
    """The forward's return value wrapped in 100,000 parentheses, debug info
    dropped: LibTorch's recursive-descent parser overflows an 8 MiB stack
    (SIGSEGV at about 20,000)."""
    if name.endswith("fixture_models.py.debug_pkl"):
        return None
    if not name.endswith("fixture_models.py"):
        return code
    depth = 100000
    old = b"return (lin).forward(x, )"
    if old not in code:
        raise ValueError("forward's return statement not found")
    return code.replace(old, b"return " + b"(" * depth + b"x" + b")" * depth)


def main():
    raw = open(SRC, "rb").read()
    open(os.path.join(HERE, "empty.pt"), "wb").write(b"")
    # Zip magic, then junk.
    open(os.path.join(HERE, "pk-junk.pt"), "wb").write(
        b"PK\x03\x04" + bytes(range(256)) * 2)
    # The archive cut inside its central directory.
    open(os.path.join(HERE, "cut-directory.pt"), "wb").write(raw[:-40])
    # A stored entry's bytes changed in place: the CRC no longer matches.
    at = raw.find(b"linear/data.pklPK")
    flipped = bytearray(raw)
    body = raw.find(b"\x80\x02", raw.find(b"linear/data.pkl"))
    flipped[body + 8] ^= 0xFF
    open(os.path.join(HERE, "bad-crc.pt"), "wb").write(bytes(flipped))
    del at
    # Valid zips with broken contents.
    rewrite("pickle-garbage.pt",
            lambda n, d: b"\x80\x02garbage" if n.endswith("data.pkl") else d)
    rewrite("pickle-truncated.pt",
            lambda n, d: d[: len(d) // 2] if n.endswith("data.pkl") else d)
    rewrite("pickle-huge-length.pt",
            lambda n, d: claim_huge_string(d) if n.endswith("data.pkl") else d)
    rewrite("pickle-huge-memo.pt",
            lambda n, d: claim_huge_memo(d) if n.endswith("data.pkl") else d)
    rewrite("no-code.pt", lambda n, d: None if "/code/" in n else d)
    rewrite("code-garbage.pt",
            lambda n, d: b"def forward(self x):\n  return ((\n"
            if n.endswith("fixture_models.py") else d)
    rewrite("code-nested-deeply.pt", nest_deeply)
    rewrite("bad-version.pt",
            lambda n, d: b"999\n" if n.endswith("/version") else d)
    rewrite("no-tensor-data.pt",
            lambda n, d: None if "/data/" in n else d)


if __name__ == "__main__":
    main()
