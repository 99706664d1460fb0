# Shared by scripts/test.sh and scripts/demo.sh: installs the Debian packages
# and the Python environment the project needs (skipping what is there), then
# configures and builds. Source it; it defines trace_setup and trace_build.

set -euo pipefail

TRACE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRACE_BUILD_DIR="${TRACE_BUILD_DIR:-$TRACE_ROOT/build}"
LLVM_PREFIX=/usr/lib/llvm-22

# Debian 12 packages. LLVM/MLIR 22.1 come from bookworm's security suite.
TRACE_PACKAGES=(
  cmake ninja-build g++ python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev libopenblas-dev libomp-22-dev python3-venv nlohmann-json3-dev
  valgrind
)

# The project's Python: a virtual environment with python/requirements.txt
# (PyTorch from PyPI), made once per machine outside the checkout under a
# name keyed by that file's hash, so that clean clones (CI's) reuse it, and
# linked as .venv in the checkout. .venv/bin/python runs every test, and the
# importer links the LibTorch its torch wheel ships.
if [ "$(id -u)" -eq 0 ]; then
  TRACE_VENV_HOME="${TRACE_VENV_HOME:-/var/cache/trace-mlir}"
else
  TRACE_VENV_HOME="${TRACE_VENV_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/trace-mlir}"
fi
TRACE_PYTHON="$TRACE_ROOT/.venv/bin/python"

# Only for the sanitizer and fuzzing builds (scripts/test.sh --sanitize,
# scripts/fuzz.sh): clang-22 and its sanitizer and libFuzzer runtimes. The
# plain build and CI's normal path never install them.
TRACE_SANITIZE_PACKAGES=(clang-22 libclang-rt-22-dev)

log() { printf '==> %s\n' "$*"; }

# Installs the packages that are missing; a machine that has them all is not
# touched (no apt-get update, no network). Arguments: more packages to want
# on top of TRACE_PACKAGES (e.g. "${TRACE_SANITIZE_PACKAGES[@]}").
trace_setup() {
  local missing=()
  for pkg in "${TRACE_PACKAGES[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "Debian packages: all present"
    trace_venv
    return
  fi
  log "Installing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  trace_venv
}

# Makes the virtual environment if this machine has none for the pinned
# requirements (a few GB from PyPI: torch's CUDA wheel and its nvidia-*
# libraries), then links it as .venv. A half-made one (no .complete) is made
# again; a lock keeps two set-ups from making it at once. Arguments, for
# another environment (bench/thunder-env.sh): its requirements file, its
# link in the checkout and its name's prefix.
trace_venv() {
  local req="${1:-$TRACE_ROOT/python/requirements.txt}"
  local link="${2:-$TRACE_ROOT/.venv}"
  local key venv
  key="$(sha256sum "$req" | cut -c1-12)"
  venv="$TRACE_VENV_HOME/${3:-venv}-$key"
  mkdir -p "$TRACE_VENV_HOME"
  (
    flock 9
    if [ ! -f "$venv/.complete" ]; then
      log "Making the Python environment $venv (once per machine)"
      local start=$SECONDS
      rm -rf "$venv"
      /usr/bin/python3 -m venv "$venv"
      "$venv/bin/pip" install --no-cache-dir --disable-pip-version-check -q \
        -r "$req"
      touch "$venv/.complete"
      log "Python environment made in $((SECONDS - start)) s"
    else
      log "Python environment: $venv"
    fi
  ) 9>"$TRACE_VENV_HOME/.lock"
  ln -sfn "$venv" "$link"
}

# Configures (once) and builds everything: tools, libraries, unit tests.
trace_build() {
  if [ ! -f "$TRACE_BUILD_DIR/build.ninja" ]; then
    log "Configuring in $TRACE_BUILD_DIR"
    cmake -G Ninja -S "$TRACE_ROOT" -B "$TRACE_BUILD_DIR" \
      -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
      -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
      -DTRACE_PYTHON="$TRACE_PYTHON" \
      "$@" >/dev/null
  fi
  log "Building"
  cmake --build "$TRACE_BUILD_DIR"
}

# The sanitizer build: clang-22 with ASan + UBSan (LLVM's HandleLLVMOptions
# turns LLVM_USE_SANITIZER into the flags) and the libFuzzer targets of fuzz/
# (coverage instrumentation everywhere, -fsanitize=fuzzer on the targets), in
# its own build directory. One build serves scripts/test.sh --sanitize and
# scripts/fuzz.sh. LibTorch is not instrumented; what that needs is in
# fuzz/sanitizer/*.supp (test/lit.cfg.py, scripts/fuzz.sh).
TRACE_ASAN_BUILD_DIR="${TRACE_ASAN_BUILD_DIR:-$TRACE_ROOT/build-asan}"
trace_build_sanitized() {
  TRACE_BUILD_DIR="$TRACE_ASAN_BUILD_DIR" trace_build \
    -DCMAKE_C_COMPILER="$LLVM_PREFIX/bin/clang" \
    -DCMAKE_CXX_COMPILER="$LLVM_PREFIX/bin/clang++" \
    -DLLVM_USE_SANITIZER="Address;Undefined" \
    -DTRACE_ENABLE_FUZZERS=ON
}
