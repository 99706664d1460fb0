#!/usr/bin/env bash
# Regenerates docs/Dialect.md and docs/Passes.md from the ODS (after a change
# to an op, an interface or a pass). test/Docs/up-to-date.test fails until
# this has been run and the result committed.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
trace_build
cp "$TRACE_BUILD_DIR/docs/Dialect.md" "$TRACE_ROOT/docs/Dialect.md"
cp "$TRACE_BUILD_DIR/docs/Passes.md" "$TRACE_ROOT/docs/Passes.md"
log "docs/Dialect.md and docs/Passes.md regenerated"
