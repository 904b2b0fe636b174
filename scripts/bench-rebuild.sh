#!/usr/bin/env bash
# How long a Rust-only edit of a user's crate takes to rebuild: a crate over
# smolv (`include_shaders!`, the defaults) against the same crate over a
# table of `include_bytes!`, each edit and `cargo build` alternated between
# the two, in one run (issue 28, item 5; goal: within 50 ms).
#
#   scripts/bench-rebuild.sh [rounds] [modules]
#   SMOLV_BENCH_TREE=path/to/glsl scripts/bench-rebuild.sh
#
# The shaders: the first `modules` (default 44) GLSL modules, in path order,
# of SMOLV_BENCH_TREE (default /tmp/trees/sascha/shaders/glsl: Sascha
# Willems' Vulkan samples' shaders/glsl, public, not in the repository;
# fetch it yourself) that have their SPIR-V beside them (`x.frag.spv`) and
# no `#include`. The smolv crate compiles the GLSL; the other embeds those
# `.spv` files. Both programs read every shader's name and words, as the
# size test's do, and print a checksum that changes with each edit.
#
# Each round writes a new constant into each crate's `main.rs` and runs
# `cargo build` (the dev profile, Cargo's defaults: incremental, full debug
# info) in it. The two crates keep separate target directories, built once
# before timing. Prints each crate's median and the difference, then the
# same for builds with nothing to do (Cargo's bookkeeping alone).
#
# SMOLV_BENCH_REGISTRY=1 (any non-empty value) makes the smolv crate
# depend on smolv by version, from a stand-in for crates.io
# (`write_smolv_crate` in bench-crate.sh), as a user's crate does; by
# default it has path dependencies on this checkout.
#
# Extra arguments for both builds: SMOLV_BENCH_CARGO_ARGS (for example
# `--config profile.dev.debug="line-tables-only"`). For the passes:
# SMOLV_BENCH_TIME_PASSES=1 rebuilds each crate once more with
# `-Z time-passes` (through RUSTC_BOOTSTRAP) and prints the slowest passes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/bench-crate.sh"
rounds=${1:-7}
modules=${2:-44}
tree=${SMOLV_BENCH_TREE:-/tmp/trees/sascha/shaders/glsl}
work=${SMOLV_BENCH_DIR:-$root/target/bench-rebuild}
[ -d "$tree" ] || { echo "no shader tree at $tree: set SMOLV_BENCH_TREE" >&2; exit 1; }
# The crates' builds run in their own directories: absolute paths only.
mkdir -p "$work"
work=$(cd "$work" && pwd)
tree=$(cd "$tree" && pwd)
# What the user's shell would not set.
unset CARGO_PROFILE_DEV_DEBUG CARGO_INCREMENTAL CARGO_TARGET_DIR RUSTFLAGS CARGO_ENCODED_RUSTFLAGS RUSTC_BOOTSTRAP
# `-Z time-passes` needs RUSTC_BOOTSTRAP, and a change of it rebuilds every
# dependency: set it for every build, the timed ones too (it changes no code).
[ -n "${SMOLV_BENCH_TIME_PASSES:-}" ] && export RUSTC_BOOTSTRAP=1

mkdir -p "$work/smolv/src" "$work/raw/src"
rm -rf "$work/shaders"
mkdir -p "$work/shaders"
pick_modules "$tree" "$modules" > "$work/modules.txt"
while IFS= read -r relative; do
  mkdir -p "$work/shaders/$(dirname "$relative")"
  cp "$tree/$relative" "$work/shaders/$relative"
done < "$work/modules.txt"

# The smolv crate.
write_smolv_crate "$work/smolv" rebuild-smolv "$root" "$work/shaders" \
  "${SMOLV_BENCH_REGISTRY:+$work/registry}"

# The include_bytes! crate, over the same modules' SPIR-V.
{
  cat <<EOF
[package]
name = "rebuild-raw"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]
EOF
} > "$work/raw/Cargo.toml"

main_of() { # $1: crate (smolv or raw), $2: the edit's constant
  if [ "$1" = smolv ]; then
    cat <<EOF
smolv_runtime::include_shaders!(static SHADERS);

const EDIT: u64 = $2;

fn main() {
    let mut sum = EDIT;
    for shader in SHADERS.iter() {
        for byte in shader.name().bytes() {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(byte));
        }
        let words = shader.decode().expect("decode");
        for word in words {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(word));
        }
    }
    println!("{} {sum}", SHADERS.shaders().len());
}
EOF
  else
    echo "static SHADERS: &[(&str, &[u8])] = &["
    while IFS= read -r relative; do
      echo "    (\"$relative\", include_bytes!(\"$tree/$relative.spv\")),"
    done < "$work/modules.txt"
    cat <<EOF
];

const EDIT: u64 = $2;

fn main() {
    let mut sum = EDIT;
    for (name, bytes) in SHADERS {
        for byte in name.bytes() {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(byte));
        }
        let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for word in words {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(word));
        }
    }
    println!("{} {sum}", SHADERS.len());
}
EOF
  fi
}

# shellcheck disable=SC2086 # the extra arguments are words
build() { # $1: crate; prints the wall time of `cargo build` in ms
  local start end
  start=$(date +%s%N)
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/target-$1" SMOLV_CACHE_DIR="$work/cache" \
    cargo build --quiet ${SMOLV_BENCH_CARGO_ARGS:-})
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

for crate in smolv raw; do
  main_of "$crate" 0 > "$work/$crate/src/main.rs"
  build "$crate" > /dev/null
  "$work/target-$crate/debug/rebuild-$crate" > /dev/null
done
echo "$modules modules of $tree; $rounds rounds, alternated"

declare -A times=([smolv]="" [raw]="")
for round in $(seq 1 "$rounds"); do
  for crate in smolv raw; do
    main_of "$crate" "$round" > "$work/$crate/src/main.rs"
    ms=$(build "$crate")
    times[$crate]+="$ms "
    # The edit must reach the binary.
    "$work/target-$crate/debug/rebuild-$crate" > /dev/null
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
smolv=$(echo "${times[smolv]}" | median)
raw=$(echo "${times[raw]}" | median)
echo "smolv:          ${times[smolv]}ms"
echo "include_bytes!: ${times[raw]}ms"
echo "median: smolv $smolv ms, include_bytes! $raw ms, difference $((smolv - raw)) ms"

# Cargo's own share: builds with nothing to do, alternated as well.
declare -A noops=([smolv]="" [raw]="")
for round in $(seq 1 "$rounds"); do
  for crate in smolv raw; do
    noops[$crate]+="$(build "$crate") "
  done
done
smolv=$(echo "${noops[smolv]}" | median)
raw=$(echo "${noops[raw]}" | median)
echo "no-op cargo build, median: smolv $smolv ms, include_bytes! $raw ms, difference $((smolv - raw)) ms"

if [ -n "${SMOLV_BENCH_TIME_PASSES:-}" ]; then
  for crate in smolv raw; do
    main_of "$crate" $((rounds + 1)) > "$work/$crate/src/main.rs"
    echo "-Z time-passes, $crate (slowest):"
    # shellcheck disable=SC2086
    (cd "$work/$crate" && CARGO_TARGET_DIR="$work/target-$crate" SMOLV_CACHE_DIR="$work/cache" \
      cargo rustc --quiet ${SMOLV_BENCH_CARGO_ARGS:-} -- -Z time-passes 2>&1) \
      | grep -E '^time:' | sort -k2 -rn | head -8 | sed 's/^/  /'
  done
fi
