#!/usr/bin/env bash
# The Windows build (x86_64-pc-windows-gnu, C++ compiled by mingw), run
# under Debian's wine (scripts/wine.sh):
#   1. smolv-build's `build_script_workers` test: a build script's workers
#      serve before its `main`, from the C runtime's table of initializers
#      (`compile/worker/enter.rs`), so its prelude runs once per build;
#   2. cargo-smolv.exe compiles a shader tree (example-game's GLSL with
#      includes, and WGSL; Slang needs slangc, which wine lacks) to the same
#      SPIR-V and the same embedded set and bundle as the Linux
#      cargo-smolv, byte for byte (with --strip-debug: debug info names
#      the files, and paths differ).
# Expects the Linux cargo-smolv in target/debug (`cargo test --workspace`
# builds it) and cargo-smolv.exe in target/x86_64-pc-windows-gnu/debug.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
windows=x86_64-pc-windows-gnu
test_exe="$(cargo test -p smolv-build --test build_script_workers --locked --target "$windows" --no-run \
  --message-format=json 2>/dev/null | sed -n 's/.*"executable":"\([^"]*build_script_workers[^"]*\.exe\)".*/\1/p' | tail -n 1)"
[ -n "$test_exe" ] || { echo "windows-under-wine: cargo did not name the build_script_workers test's .exe" >&2; exit 1; }
scripts/wine.sh "$test_exe"

work="$root/target/wine/tree-check"
rm -rf "$work"
mkdir -p "$work/tree"
cp -r example-game/shaders/. "$work/tree/"
find "$work/tree" -name '*.slang' -delete
build=(smolv build "$work/tree" -I "$work/tree/include" --strip-debug)
scripts/wine.sh "target/$windows/debug/cargo-smolv.exe" "${build[@]}" -o "$work/windows" --cache-dir "$work/windows-cache" \
  >"$work/windows.log" 2>&1 || { cat "$work/windows.log" >&2; echo "windows-under-wine: cargo-smolv.exe failed" >&2; exit 1; }
target/debug/cargo-smolv "${build[@]}" -o "$work/linux" --cache-dir "$work/linux-cache" >"$work/linux.log" 2>&1 ||
  { cat "$work/linux.log" >&2; echo "windows-under-wine: the Linux cargo-smolv failed" >&2; exit 1; }
modules=$(find "$work/linux/smolv/spirv" -name '*.spv' | wc -l)
[ "$modules" -ge 8 ] || { echo "windows-under-wine: only $modules modules built" >&2; exit 1; }
for part in spirv modules embedded shaders.smvb; do
  diff -r "$work/windows/smolv/$part" "$work/linux/smolv/$part" >/dev/null ||
    { echo "windows-under-wine: cargo-smolv.exe's $part differs from the Linux build's" >&2; exit 1; }
done
echo "windows-under-wine: build_script_workers passed; cargo-smolv.exe built $modules modules, byte-identical to Linux"
