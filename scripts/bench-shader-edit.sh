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
# a specialization constant (so its SPIR-V, and the set, change), and runs
# `cargo build` (the dev profile, Cargo's defaults) in that crate. The
# crates share one target directory (their third-party dependencies are
# built once) and keep separate build caches. Prints each crate's times
# and median. Extra arguments for every build: SMOLV_BENCH_CARGO_ARGS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
modules=${2:-48}
tree=${SMOLV_BENCH_TREE:-/tmp/trees/sascha/shaders/glsl}
work=${SMOLV_BENCH_DIR:-$root/target/bench-shader-edit}
base=${SMOLV_BENCH_BASE:-}
[ -d "$tree" ] || { echo "no shader tree at $tree: set SMOLV_BENCH_TREE" >&2; exit 1; }
# What the user's shell would not set.
unset CARGO_PROFILE_DEV_DEBUG CARGO_INCREMENTAL CARGO_TARGET_DIR RUSTFLAGS CARGO_ENCODED_RUSTFLAGS RUSTC_BOOTSTRAP

crates=(new)
declare -A checkout=([new]="$root")
if [ -n "$base" ]; then
  crates+=(base)
  checkout[base]=$(cd "$base" && pwd)
fi

mkdir -p "$work"
rm -f "$work/modules.txt"
count=0
while IFS= read -r source; do
  [ "$count" -ge "$modules" ] && break
  [ -f "$source.spv" ] || continue
  grep -q '#include' "$source" && continue
  echo "${source#"$tree"/}" >> "$work/modules.txt"
  count=$((count + 1))
done < <(find "$tree" -type f \( -name '*.vert' -o -name '*.frag' -o -name '*.comp' \) | LC_ALL=C sort)
[ "$count" -eq "$modules" ] || { echo "only $count modules in $tree" >&2; exit 1; }
edited=$(grep -m1 '\.frag$' "$work/modules.txt")

for crate in "${crates[@]}"; do
  dir="$work/$crate"
  rm -rf "$dir/shaders"
  mkdir -p "$dir/src" "$dir/shaders"
  while IFS= read -r relative; do
    mkdir -p "$dir/shaders/$(dirname "$relative")"
    cp "$tree/$relative" "$dir/shaders/$relative"
  done < "$work/modules.txt"
  cat > "$dir/Cargo.toml" <<EOF
[package]
name = "shader-edit-$crate"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
smolv-runtime = { path = "${checkout[$crate]}/smolv-runtime" }

[build-dependencies]
smolv-build = { path = "${checkout[$crate]}/smolv-build" }

[workspace]
EOF
  cat > "$dir/build.rs" <<EOF
fn main() {
    smolv_build::Config::new().shader_dir("$dir/shaders").compile();
}
EOF
  cat > "$dir/src/main.rs" <<EOF
smolv_runtime::include_shaders!(static SHADERS);

fn main() {
    let words: usize = SHADERS.iter().map(|s| s.decode().expect("decode").len()).sum();
    println!("{} {words}", SHADERS.shaders().len());
}
EOF
  cp "${checkout[$crate]}/Cargo.lock" "$dir/Cargo.lock"
done

edit() { # $1: crate, $2: the constant's value
  local file="$work/$1/shaders/$edited"
  cp "$tree/$edited" "$file"
  printf '\nlayout(constant_id = 900) const int smolvBenchEdit = %s;\n' "$2" >> "$file"
}

# shellcheck disable=SC2086 # the extra arguments are words
build() { # $1: crate; prints the wall time of `cargo build` in ms
  local start end
  start=$(date +%s%N)
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/target" SMOLV_CACHE_DIR="$work/cache-$1" \
    cargo build --quiet ${SMOLV_BENCH_CARGO_ARGS:-})
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

for crate in "${crates[@]}"; do
  edit "$crate" 0
  build "$crate" > /dev/null
  "$work/target/debug/shader-edit-$crate" > /dev/null
done
echo "$modules modules of $tree, editing $edited; $rounds rounds, alternated"

declare -A times
for round in $(seq 1 "$rounds"); do
  for crate in "${crates[@]}"; do
    edit "$crate" "$round"
    times[$crate]+="$(build "$crate") "
    "$work/target/debug/shader-edit-$crate" > /dev/null
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
for crate in "${crates[@]}"; do
  echo "$crate (${checkout[$crate]}): ${times[$crate]}ms; median $(echo "${times[$crate]}" | median) ms"
done

# With a base: both crates now hold the same shaders (the last round's
# edit), so what their builds ship must be the same bytes. The manifest
# and the generated types name each crate's own paths, so they differ.
if [ -n "$base" ]; then
  out() { dirname "$(ls -d "$work"/target/debug/build/shader-edit-"$1"-*/out/smolv/shaders.smvb)"; }
  if diff -r --exclude manifest.json --exclude types.rs "$(out new)" "$(out base)" > /dev/null; then
    echo "outputs: identical (bundle, containers, dictionary, embedded set)"
  else
    echo "outputs: DIFFERENT"
    exit 1
  fi
fi
