#!/usr/bin/env bash
# Runs a program of the suite's Windows build (x86_64-pc-windows-gnu) under
# Debian's wine: `scripts/wine.sh PROGRAM.exe ARGS...`. Unix paths in ARGS
# work (wine's drive Z: is /).
#
# The program runs from target/wine/bin, beside what wine 8 lacks for it:
# mingw's C++ runtime DLLs (glslang's and SPIRV-Tools' C++ link
# libstdc++-6.dll) and a stand-in bcryptprimitives.dll
# (scripts/wine/bcryptprimitives.c). The wine prefix is target/wine/prefix.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || { echo "wine.sh: $wine is missing: run scripts/setup.sh (it installs wine64)" >&2; exit 1; }
program="$1"
shift
bin="$root/target/wine/bin"
mkdir -p "$bin"
if [ ! -s "$bin/bcryptprimitives.dll" ] || [ "$root/scripts/wine/bcryptprimitives.c" -nt "$bin/bcryptprimitives.dll" ]; then
  x86_64-w64-mingw32-gcc -shared -O2 -o "$bin/bcryptprimitives.dll" "$root/scripts/wine/bcryptprimitives.c" -ladvapi32
fi
for dll in libstdc++-6.dll libgcc_s_seh-1.dll libwinpthread-1.dll; do
  [ -s "$bin/$dll" ] && continue
  found="$(find /usr/lib/gcc/x86_64-w64-mingw32 -path '*posix*' -name "$dll" 2>/dev/null | head -n 1)"
  [ -n "$found" ] || found="$(find /usr/x86_64-w64-mingw32/lib /usr/lib/gcc/x86_64-w64-mingw32 -name "$dll" 2>/dev/null | head -n 1)"
  [ -n "$found" ] || { echo "wine.sh: mingw's $dll not found: run scripts/setup.sh" >&2; exit 1; }
  cp "$found" "$bin/"
done
cp "$program" "$bin/"
export WINEPREFIX="$root/target/wine/prefix" WINEDEBUG=-all
exec "$wine" "$bin/$(basename "$program")" "$@"
