#!/usr/bin/env bash
# `pip install .` as on a machine that never built: the wheel built from
# scratch in pip's temporary build tree (test/Install/pip.test reuses
# build/ instead, to fit CI), installed into a fresh virtual environment,
# then trained with trace_mlir.compile and torch.compile(backend=
# "trace_mlir") against eager. Run by scripts/nightly.sh; takes a full
# build's time. The build uses the project's environment (.venv, which
# holds scikit-build-core and the pinned torch) without build isolation,
# so nothing is fetched.
#
#   scripts/check-wheel.sh [WORKDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
rm -rf "$work/wheels" "$work/venv" "$work/cache"
"$root/.venv/bin/python" -m pip wheel --no-build-isolation --no-deps \
  --disable-pip-version-check -w "$work/wheels" "$root"
"$root/.venv/bin/python" "$root/test/Install/Inputs/fresh_venv.py" \
  "$work/venv" "$work/wheels"
env -u TRACE_COMPILE -u PYTHONPATH "$work/venv/bin/python" \
  "$root/test/Install/Inputs/train_installed.py" "$work/cache" \
  "$work/venv" --dynamo
echo "check-wheel: passed ($work)"
