#!/usr/bin/env bash
# How long `cargo build` takes after one shader of a crate over smolv is
# edited (issue 28, item 7: "a one-shader edit rebuilds in 0.45 s"), and,
# with SMOLV_BENCH_BASE, the same for another smolv checkout, alternated
# in one run, so the two can be compared on a loaded machine.
#
#   scripts/bench-shader-edit.sh [rounds] [modules]
#   SMOLV_BENCH_BASE=/path/to/other/smolv scripts/bench-shader-edit.sh
#
# The shaders: the first `modules` (default 48) GLSL modules, in path order,
# of SMOLV_BENCH_TREE (default /tmp/trees/sascha/shaders/glsl: Sascha
# Willems' Vulkan samples' shaders/glsl, public, not in the repository;
# fetch it yourself) that have their SPIR-V beside them and no `#include`.
# Each crate is `include_shaders!` over them with a one-line `build.rs`
# (`Config::new().shader_dir(..).compile()`, the defaults).
#
# Each round gives the first fragment shader of each crate a new value of
# a specialization constant (so its SPIR-V, and the set, change; the
# values are new in each run, so no run finds its sets in the cache of
# an earlier one), and runs
# `cargo build` (the dev profile, Cargo's defaults) in that crate. The
# crates share one target directory (their third-party dependencies are
# built once) and keep separate build caches. Prints each crate's times
# and median. Extra arguments for every build: SMOLV_BENCH_CARGO_ARGS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/bench-crate.sh"
rounds=${1:-5}
modules=${2:-48}
tree=${SMOLV_BENCH_TREE:-/tmp/trees/sascha/shaders/glsl}
work=${SMOLV_BENCH_DIR:-$root/target/bench-shader-edit}
base=${SMOLV_BENCH_BASE:-}
[ -d "$tree" ] || { echo "no shader tree at $tree: set SMOLV_BENCH_TREE" >&2; exit 1; }
# The crates' builds run in their own directories: absolute paths only.
mkdir -p "$work"
work=$(cd "$work" && pwd)
tree=$(cd "$tree" && pwd)
# What the user's shell would not set.
unset CARGO_PROFILE_DEV_DEBUG CARGO_INCREMENTAL CARGO_TARGET_DIR RUSTFLAGS CARGO_ENCODED_RUSTFLAGS RUSTC_BOOTSTRAP

crates=(new)
declare -A checkout=([new]="$root")
if [ -n "$base" ]; then
  crates+=(base)
  checkout[base]=$(cd "$base" && pwd)
fi

mkdir -p "$work"
pick_modules "$tree" "$modules" > "$work/modules.txt"
edited=$(grep -m1 '\.frag$' "$work/modules.txt")

make_crate() { # $1: directory, $2: package name, $3: the smolv checkout
  local dir=$1
  rm -rf "$dir/shaders"
  mkdir -p "$dir/src" "$dir/shaders"
  while IFS= read -r relative; do
    mkdir -p "$dir/shaders/$(dirname "$relative")"
    cp "$tree/$relative" "$dir/shaders/$relative"
  done < "$work/modules.txt"
  write_smolv_crate "$dir" "$2" "$3" "$dir/shaders"
  cat > "$dir/src/main.rs" <<EOF
smolv_runtime::include_shaders!(static SHADERS);

fn main() {
    let words: usize = SHADERS.iter().map(|s| s.decode().expect("decode").len()).sum();
    println!("{} {words}", SHADERS.shaders().len());
}
EOF
}

for crate in "${crates[@]}"; do
  make_crate "$work/$crate" "shader-edit-$crate" "${checkout[$crate]}"
done

edit() { # $1: crate directory under $work, $2: the constant's value
  local file="$work/$1/shaders/$edited"
  cp "$tree/$edited" "$file"
  printf '\nlayout(constant_id = 900) const int smolvBenchEdit = %s;\n' "$2" >> "$file"
}

# shellcheck disable=SC2086 # the extra arguments are words
build() { # $1: crate directory under $work, $2: its cache; prints the wall time of `cargo build` in ms
  local start end
  start=$(date +%s%N)
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/target" SMOLV_CACHE_DIR="$work/cache-$2" \
    cargo build --quiet ${SMOLV_BENCH_CARGO_ARGS:-})
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

for crate in "${crates[@]}"; do
  edit "$crate" 0
  build "$crate" "$crate" > /dev/null
  "$work/target/debug/shader-edit-$crate" > /dev/null
done
echo "$modules modules of $tree, editing $edited; $rounds rounds, alternated"

declare -A times
run=$(( $(date +%s) % 1000000 * 100 ))
for round in $(seq 1 "$rounds"); do
  for crate in "${crates[@]}"; do
    edit "$crate" $((run + round))
    times[$crate]+="$(build "$crate" "$crate") "
    "$work/target/debug/shader-edit-$crate" > /dev/null
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
for crate in "${crates[@]}"; do
  echo "$crate (${checkout[$crate]}): ${times[$crate]}ms; median $(echo "${times[$crate]}" | median) ms"
done

# With a base: what both checkouts ship for the same shaders must be the
# same bytes. The shaders' paths are in their SPIR-V (debug info), so each
# checkout builds one more edit of one crate at one path, in turn.
if [ -n "$base" ]; then
  for crate in "${crates[@]}"; do
    make_crate "$work/same" shader-edit-same "${checkout[$crate]}"
    edit same $((run + rounds + 1))
    build same "$crate" > /dev/null
    rm -rf "$work/out-$crate"
    # The build script's run just rewrote its `output`.
    ran=$(dirname "$(ls -t "$work"/target/debug/build/shader-edit-same-*/output | head -1)")
    cp -r "$ran/out/smolv" "$work/out-$crate"
  done
  if diff -r "$work/out-new" "$work/out-base" > /dev/null; then
    echo "outputs: identical (every file of the artifact directory)"
  else
    echo "outputs: DIFFERENT (diff -r $work/out-new $work/out-base)"
    exit 1
  fi
fi
