#!/usr/bin/env bash
# One-time machine set-up for building and testing smolv on Debian/Ubuntu.
#
# Sourced by scripts/test.sh and scripts/run-example.sh; safe to run again
# (it only does what is missing). It:
#   1. installs the system packages the tests need. The product needs none
#      of them: glslang and SPIRV-Tools are compiled from their crates. The
#      tests compare against spirv-tools (spirv-val, an independent
#      validator; spirv-opt, the reference recipe) and glslc (`glslc -Os`,
#      the size to beat); they also need lavapipe and the Vulkan
#      validation layers, the X11 libraries the example game's window
#      loads, Xvfb + xdotool for its window tests, xz + nm for the
#      binary-size test, nginx + openssl for the remote-cache tests, which
#      start their own nginx on a free port of 127.0.0.1, never the
#      package's service, and ccache (below); with apt-get, as root or
#      through sudo;
#   2. makes sure rustfmt, clippy and the x86_64-pc-windows-gnu standard
#      library are installed (with g++-mingw-w64 above, for the Windows
#      build: glslang's, SPIRV-Tools' and zstd's C++ and C compile with it;
#      wine64 runs that build, through scripts/wine.sh);
#   3. puts ccache in front of the C and C++ compilers (CC, CXX), so that
#      the C++ of glslang and SPIRV-Tools compiles once for all the
#      suite's target directories;
#   4. when no slangc is set (SMOLV_SLANGC) or on PATH, unpacks the official
#      slangc (with libslang-compiler.so) from the slangtorch wheel on PyPI
#      into target/slang and exports SMOLV_SLANGC pointing at it, for the
#      Slang tests (Debian ships no slangc; the Vulkan SDK does).
set -euo pipefail

SMOLV_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

smolv_packages=(
  spirv-tools glslc ccache
  mesa-vulkan-drivers vulkan-validationlayers libvulkan-dev vulkan-tools
  pkg-config
  libx11-6 libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon-x11-0
  xvfb xauth xdotool
  xz-utils binutils
  nginx openssl
  g++-mingw-w64-x86-64 wine64
)

smolv_log() { printf 'setup: %s\n' "$*" >&2; }

smolv_install_packages() {
  local missing=() pkg
  for pkg in "${smolv_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { smolv_log "need root (or sudo) to install: ${missing[*]}"; return 1; }
    sudo=(sudo)
  fi
  smolv_log "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

smolv_check_rust() {
  command -v cargo >/dev/null || {
    smolv_log "cargo is not installed: install Rust 1.88 or newer with rustup (https://rustup.rs)"
    return 1
  }
  if command -v rustup >/dev/null; then
    local have
    have="$(rustup component list --installed 2>/dev/null || true)"
    grep -q '^rustfmt' <<<"$have" || rustup component add rustfmt
    grep -q '^clippy' <<<"$have" || rustup component add clippy
    rustup target list --installed 2>/dev/null | grep -q '^x86_64-pc-windows-gnu$' ||
      rustup target add x86_64-pc-windows-gnu
  fi
}

# The C++ of glslang and SPIRV-Tools (the `glsl` and `optimizer` features)
# is compiled by their crates' build scripts, once per target directory and
# profile; the suite builds several (the workspace, the nested crates'
# shared one, the release game, the size test's). ccache makes every
# compile after the first a lookup. cc-rs takes `ccache g++` in CXX as a
# wrapper. A user's machine needs none of this.
smolv_use_ccache() {
  command -v ccache >/dev/null || return 0
  export CCACHE_DIR="${CCACHE_DIR:-$SMOLV_ROOT/target/ccache}" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-3G}"
  export CC="${CC:-ccache gcc}" CXX="${CXX:-ccache g++}"
  export CC_x86_64_pc_windows_gnu="${CC_x86_64_pc_windows_gnu:-ccache x86_64-w64-mingw32-gcc-posix}"
  export CXX_x86_64_pc_windows_gnu="${CXX_x86_64_pc_windows_gnu:-ccache x86_64-w64-mingw32-g++-posix}"
}

# Debian's default mingw-w64 (the `-win32` thread model) has no std::mutex,
# which glslang needs; the `-posix` one has, as MSYS2's mingw-w64 (what a
# Windows user of the GNU target has) does. Its C++ runtime needs the
# matching linker.
smolv_use_posix_mingw() {
  export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="${CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER:-x86_64-w64-mingw32-gcc-posix}"
  if [ -z "${CXX_x86_64_pc_windows_gnu:-}" ]; then
    export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
  fi
}

# The slangtorch wheel whose slangtorch/bin/ holds slangc 2026.14.1.
SMOLV_SLANGTORCH_VERSION=1.3.22

smolv_install_slangc() {
  if [ -n "${SMOLV_SLANGC:-}" ] && [ -x "$SMOLV_SLANGC" ]; then return 0; fi
  command -v slangc >/dev/null && return 0
  local dir="$SMOLV_ROOT/target/slang"
  local slangc="$dir/slangtorch/bin/slangc"
  if [ ! -x "$slangc" ]; then
    python3 -m pip --version >/dev/null 2>&1 || {
      smolv_log "no slangc and no pip to fetch it: install the Vulkan SDK's slangc or python3-pip; Slang tests will fail"
      return 0
    }
    smolv_log "fetching slangc from the slangtorch $SMOLV_SLANGTORCH_VERSION wheel into $dir"
    rm -rf "$dir" && mkdir -p "$dir/wheel"
    if ! python3 -m pip download --quiet --no-deps "slangtorch==$SMOLV_SLANGTORCH_VERSION" -d "$dir/wheel" >&2; then
      smolv_log "could not download slangtorch (offline?); Slang tests will fail until slangc is installed"
      return 0
    fi
    # Only slangc and the libraries beside it (it finds them through $ORIGIN).
    python3 - "$dir" <<'PY'
import glob, os, sys, zipfile
root = sys.argv[1]
with zipfile.ZipFile(glob.glob(os.path.join(root, "wheel", "slangtorch-*.whl"))[0]) as wheel:
    for name in wheel.namelist():
        if name.startswith("slangtorch/bin/"):
            wheel.extract(name, root)
PY
    chmod +x "$slangc"
    rm -rf "$dir/wheel"
  fi
  export SMOLV_SLANGC="$slangc"
}

smolv_install_packages
smolv_check_rust
smolv_use_ccache
smolv_use_posix_mingw
smolv_install_slangc
