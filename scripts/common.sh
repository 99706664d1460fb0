# Shared by scripts/test.sh and scripts/demo.sh: installs the Debian packages
# the project needs (skipping what is there), then configures and builds.
# Source it; it defines trace_setup and trace_build.

set -euo pipefail

TRACE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRACE_BUILD_DIR="${TRACE_BUILD_DIR:-$TRACE_ROOT/build}"
LLVM_PREFIX=/usr/lib/llvm-22

# Debian 12 packages. LLVM/MLIR 22.1 come from bookworm's security suite.
TRACE_PACKAGES=(
  cmake ninja-build g++ python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev libopenblas-dev libtorch-dev
  python3-numpy python3-torch
)

log() { printf '==> %s\n' "$*"; }

# Installs the packages that are missing; a machine that has them all is not
# touched (no apt-get update, no network).
trace_setup() {
  local missing=()
  for pkg in "${TRACE_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "Debian packages: all present"
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
}

# Configures (once) and builds everything: tools, libraries, unit tests.
trace_build() {
  if [ ! -f "$TRACE_BUILD_DIR/build.ninja" ]; then
    log "Configuring in $TRACE_BUILD_DIR"
    cmake -G Ninja -S "$TRACE_ROOT" -B "$TRACE_BUILD_DIR" \
      -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
      -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
      "$@" >/dev/null
  fi
  log "Building"
  cmake --build "$TRACE_BUILD_DIR"
}
