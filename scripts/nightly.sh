#!/usr/bin/env bash
# The nightly checks that do not fit CI's 90 minutes on 2 cores: the whole
# suite under ASan + UBSan (scripts/test.sh --sanitize, build-asan), then
# each libFuzzer target for FUZZ_SECONDS (default 1800) on its seed corpus,
# the IR of a g++ build against a clang++ build
# (scripts/compare-compilers.sh), and the op-coverage sweep over every
# OpInfo sample (bench/op_coverage.py; CI runs a fixed subset, and
# docs/OpCoverage.md is made from the first 24 samples of each entry), and
# `pip install .` from scratch into a fresh environment
# (scripts/check-wheel.sh).
# Exits non-zero if the sanitized suite fails or a fuzzer finds an input
# that crashes; the fuzzers' results are appended to fuzz/runs.log, the
# sweep's table to build/op-coverage-nightly.txt.
#
#   scripts/nightly.sh
#   FUZZ_SECONDS=600 scripts/nightly.sh
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
bash scripts/test.sh --sanitize || status=1
bash scripts/fuzz.sh all "${FUZZ_SECONDS:-1800}" || status=1
bash scripts/compare-compilers.sh || status=1
bash scripts/check-wheel.sh build/check-wheel || status=1
.venv/bin/python bench/op_coverage.py --jobs "$(nproc)" \
    --results build/op-coverage-nightly.json \
    > build/op-coverage-nightly.txt || status=1
exit $status
