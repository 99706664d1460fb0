#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is
# missing, builds, runs lit (FileCheck tests + the GoogleTest unit tests),
# and ends with "N passed, N failed, N skipped".
#
#   scripts/test.sh            # everything
#   scripts/test.sh -v         # extra arguments go to lit
#   scripts/test.sh --sanitize # the same suite built with clang-22, ASan and
#                              # UBSan, in build-asan (TRACE_ASAN_BUILD_DIR)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ "${1:-}" = "--sanitize" ]; then
  shift
  trace_setup "${TRACE_SANITIZE_PACKAGES[@]}"
  trace_build_sanitized
  TRACE_BUILD_DIR="$TRACE_ASAN_BUILD_DIR"
else
  trace_setup
  trace_build
fi

log "Running the test suite"
results="$TRACE_BUILD_DIR/test-results.xml"
rm -f "$results"
status=0
"$LLVM_PREFIX/bin/lit" -sv --xunit-xml-output="$results" "$@" \
  "$TRACE_BUILD_DIR/test" || status=$?

# lit's own summary is above; this line is the one CI reads.
python3 - "$results" <<'PY'
import sys
import xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
passed = failed = skipped = 0
for case in cases:
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif case.find("skipped") is not None:
        skipped += 1
    else:
        passed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit "$status"
