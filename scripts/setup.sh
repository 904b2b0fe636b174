#!/usr/bin/env bash
# One-time machine set-up for building and testing smolv on Debian/Ubuntu.
#
# Sourced by scripts/test.sh and scripts/run-example.sh; safe to run again
# (it only does what is missing). It:
#   1. installs the system packages the workspace needs (shaderc, glslang and
#      SPIRV-Tools static archives and tools, lavapipe and the Vulkan
#      validation layers, the X11 libraries the example game's window loads,
#      Xvfb + xdotool for its window tests, xz + nm for the binary-size
#      test, and nginx + openssl for the remote-cache tests, which start
#      their own nginx on a free port of 127.0.0.1, never the package's
#      service), with apt-get, as root or through sudo;
#   2. makes sure rustfmt and clippy are installed;
#   3. merges Debian's static shaderc/glslang/SPIRV-Tools archives into one
#      target/shaderc/libshaderc_combined.a (Debian's libshaderc.so cannot be
#      linked from Rust) and exports SHADERC_LIB_DIR pointing at it.
set -euo pipefail

SMOLV_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

smolv_packages=(
  libshaderc-dev glslang-dev spirv-tools glslang-tools
  mesa-vulkan-drivers vulkan-validationlayers libvulkan-dev vulkan-tools
  pkg-config
  libx11-6 libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon-x11-0
  xvfb xauth xdotool
  xz-utils binutils
  nginx openssl
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
    smolv_log "cargo is not installed: install Rust 1.87 or newer with rustup (https://rustup.rs)"
    return 1
  }
  if command -v rustup >/dev/null; then
    local have
    have="$(rustup component list --installed 2>/dev/null || true)"
    grep -q '^rustfmt' <<<"$have" || rustup component add rustfmt
    grep -q '^clippy' <<<"$have" || rustup component add clippy
  fi
}

# Debian ships shaderc, glslang and SPIRV-Tools as separate static archives;
# shaderc-sys wants one self-contained libshaderc_combined.a.
smolv_build_shaderc_archive() {
  local libdir out="$SMOLV_ROOT/target/shaderc"
  libdir="/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)"
  local parts=(shaderc_combined glslang MachineIndependent GenericCodeGen OSDependent OGLCompiler
               HLSL SPIRV glslang-default-resource-limits SPIRV-Tools-opt SPIRV-Tools)
  local archive="$out/libshaderc_combined.a" part script
  if [ -f "$archive" ] && [ "$archive" -nt "$libdir/libshaderc_combined.a" ]; then
    export SHADERC_LIB_DIR="$out"
    return 0
  fi
  mkdir -p "$out"
  script="CREATE $archive.tmp"$'\n'
  for part in "${parts[@]}"; do
    [ -f "$libdir/lib$part.a" ] || { smolv_log "missing $libdir/lib$part.a"; return 1; }
    script+="ADDLIB $libdir/lib$part.a"$'\n'
  done
  script+=$'SAVE\nEND\n'
  ar -M <<<"$script"
  mv "$archive.tmp" "$archive"
  smolv_log "merged static shaderc into $archive"
  export SHADERC_LIB_DIR="$out"
}

smolv_install_packages
smolv_check_rust
smolv_build_shaderc_archive
