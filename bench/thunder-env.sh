#!/usr/bin/env bash
# Makes Lightning Thunder's environment (bench/thunder-requirements.txt)
# once per machine, as scripts/common.sh makes the project's, and links it
# as .venv-thunder, where bench/step_time.py looks for it (or set
# TRACE_THUNDER_PYTHON). Only the thunder.jit row of the bench needs it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
trace_venv "$TRACE_ROOT/bench/thunder-requirements.txt" \
  "$TRACE_ROOT/.venv-thunder" thunder
