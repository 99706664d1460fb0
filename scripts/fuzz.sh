#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time on its committed seed corpus:
#
#   scripts/fuzz.sh TARGET SECONDS     # TARGET: trace-parse, trace-opt, trace-import
#   scripts/fuzz.sh all SECONDS        # each target in turn, SECONDS each
#
# Builds the sanitizer build (build-asan: clang-22, ASan + UBSan, libFuzzer;
# scripts/common.sh) if needed. New inputs the fuzzer finds go to
# build-asan/fuzz/work/TARGET (not committed); a crash, leak, timeout or
# out-of-memory input to build-asan/fuzz/artifacts/TARGET/, and the script
# exits non-zero. Each run appends a line to fuzz/runs.log (committed): date,
# target, seconds, executions, result. Runs at nice 15, one fuzzer at a
# time, each input limited to 25 s (90 s for the importer) and 6 GB.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ $# -ne 2 ]; then
  echo "usage: scripts/fuzz.sh trace-parse|trace-opt|trace-import|all SECONDS" >&2
  exit 2
fi
target=$1
seconds=$2

if [ "$target" = all ]; then
  status=0
  for t in trace-parse trace-opt trace-import; do
    "$0" "$t" "$seconds" || status=1
  done
  exit $status
fi

# Seconds one input may take. LibTorch's unpickler allocates and clears
# whatever length a corrupted pickle claims (up to 4 GiB) before it finds the
# record too short: 4 s in a release build, over 30 s under ASan.
timeout=25
case "$target" in
  trace-parse|trace-opt) seeds="$TRACE_ROOT/fuzz/corpus/trace-parse" ;;
  trace-import) seeds="$TRACE_ROOT/fuzz/corpus/trace-import"; timeout=90 ;;
  *) echo "error: unknown fuzz target '$target'" >&2; exit 2 ;;
esac

trace_setup "${TRACE_SANITIZE_PACKAGES[@]}"
if [ ! -f "$TRACE_ASAN_BUILD_DIR/build.ninja" ]; then
  trace_build_sanitized
else
  log "Building $target-fuzzer"
  cmake --build "$TRACE_ASAN_BUILD_DIR" --target "$target-fuzzer"
fi

work="$TRACE_ASAN_BUILD_DIR/fuzz/work/$target"
artifacts="$TRACE_ASAN_BUILD_DIR/fuzz/artifacts/$target"
mkdir -p "$work" "$artifacts"
supp="$TRACE_ROOT/fuzz/sanitizer"
export ASAN_OPTIONS="suppressions=$supp/asan.supp:detect_leaks=1:allow_user_poisoning=0"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="suppressions=$supp/ubsan.supp:halt_on_error=1:print_stacktrace=1"

log "Fuzzing $target for $seconds s"
# One log per run, kept: a finding's report must survive the next run.
logfile="$work/../$target.$(date -u +%Y%m%dT%H%M%SZ).log"
status=0
start=$SECONDS
nice -n 15 "$TRACE_ASAN_BUILD_DIR/bin/$target-fuzzer" \
  -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=6144 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" \
  "$work" "$seeds" >"$logfile" 2>&1 || status=$?
elapsed=$((SECONDS - start))
tail -n 20 "$logfile"

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logfile" | tail -1)
result=clean
if [ "$status" -ne 0 ]; then
  result="FOUND $(ls -t "$artifacts" | head -1)"
fi
printf '%s %s %s s %s execs %s\n' "$(date -u +%FT%TZ)" "$target" "$elapsed" \
  "${execs:-?}" "$result" >>"$TRACE_ROOT/fuzz/runs.log"
log "$target: $result (log: $logfile)"
exit $status
