#!/usr/bin/env bash
# Cold builds of the repository's real shaders, compiled in-process
# (SMOLV_WORKERS=0) and in worker processes (the default), alternated, in
# one run: the cost of workers (issue 30, item 1; goal <= 1.15x).
#
#   scripts/bench-workers.sh [path/to/cargo-smolv] [copies] [rounds]
#   SMOLV_BENCH_TREE=path/to/glsl scripts/bench-workers.sh [cargo-smolv] 0 [rounds]
#
# The tree: example-game/shaders, tests/shaders and the pipelines
# example's shaders, copied `copies` times (default 18, about 340 modules),
# or, with SMOLV_BENCH_TREE, that directory as it is (for example the
# public GLSL tree: Sascha Willems' Vulkan samples' shaders/glsl, 348 files;
# fetch it yourself, it is not in the repository). Every build starts with
# an empty cache directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${1:-$root/target/release/cargo-smolv}
copies=${2:-18}
rounds=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${SMOLV_BENCH_TREE:-}" ]; then
  cp -r "$SMOLV_BENCH_TREE" "$work/tree"
  copies=0
fi
includes=()
[ "$copies" -gt 0 ] && includes=(-I "$work/tree/1/game/include" -I "$work/tree/1/tests/include")
for i in $(seq 1 "$copies"); do
  mkdir -p "$work/tree/$i"
  cp -r "$root/example-game/shaders" "$work/tree/$i/game"
  cp -r "$root/tests/shaders" "$work/tree/$i/tests"
  mkdir -p "$work/tree/$i/pipelines"
  cp "$root"/smolv-runtime/examples/pipelines/shaders/*.{vert,frag,comp} "$work/tree/$i/pipelines/"
done
build() { # $1: SMOLV_WORKERS value ("" for the default); prints "wall cpu"
  rm -rf "$work/out" "$work/cache"
  # Wall time, and the CPU time of the build and every process it waited
  # for (workers, spirv-opt, slangc): on a loaded machine the CPU time is
  # the steadier figure.
  SMOLV_WORKERS=$1 /usr/bin/time -f '%e %U %S' -o "$work/time" "$cli" build "$work/tree" -o "$work/out" \
    --cache-dir "$work/cache" "${includes[@]}" \
    >"$work/log" 2>&1 || true
  grep -o '[0-9]* compiled, [0-9]* from cache' "$work/log" >&2 || tail -3 "$work/log" >&2
  # The last line: time(1) puts "Command exited with non-zero status" first
  # when some shader fails (40 of the public tree's at Vulkan 1.0, the
  # default target: 38 need a later SPIR-V version, 2 a newer glslang).
  tail -n 1 "$work/time" | awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }'
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
build 0 >/dev/null # warm the page cache and the tools' identity
iw=(); ic=(); ww=(); wc=()
for r in $(seq 1 "$rounds"); do
  read -r w c < <(build 0); iw+=("$w"); ic+=("$c")
  read -r w c < <(build ''); ww+=("$w"); wc+=("$c")
done
echo "in-process wall: ${iw[*]} s (median $(median "${iw[@]}")); cpu: ${ic[*]} s (median $(median "${ic[@]}"))"
echo "workers    wall: ${ww[*]} s (median $(median "${ww[@]}")); cpu: ${wc[*]} s (median $(median "${wc[@]}"))"
awk -v iw="$(median "${iw[@]}")" -v ww="$(median "${ww[@]}")" -v ic="$(median "${ic[@]}")" -v wc="$(median "${wc[@]}")" \
  'BEGIN { printf "ratio (workers / in-process): wall %.3f, cpu %.3f\n", ww / iw, wc / ic }'
