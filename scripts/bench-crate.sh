# Sourced by the bench scripts: the shaders they measure
# (`pick_modules`), a throwaway crate over smolv, outside the workspace,
# whose build script compiles a shader directory.

# pick_modules TREE COUNT: prints the first COUNT GLSL modules (`.vert`,
# `.frag`, `.comp`), in path order and relative to TREE, that have their
# SPIR-V beside them (`x.frag.spv`) and no `#include`; fails if TREE has
# fewer.
pick_modules() {
  local tree=$1 wanted=$2 count=0 source
  while IFS= read -r source; do
    [ "$count" -ge "$wanted" ] && break
    [ -f "$source.spv" ] || continue
    grep -q '#include' "$source" && continue
    echo "${source#"$tree"/}"
    count=$((count + 1))
  done < <(find "$tree" -type f \( -name '*.vert' -o -name '*.frag' -o -name '*.comp' \) | LC_ALL=C sort)
  [ "$count" -eq "$wanted" ] || { echo "only $count modules in $tree" >&2; return 1; }
}

# write_smolv_crate DIR NAME CHECKOUT SHADERS [REGISTRY]: DIR/Cargo.toml
# (package NAME, a workspace of its own, over the smolv checkout CHECKOUT),
# DIR/build.rs (compiles SHADERS with smolv's defaults) and CHECKOUT's lock
# file, so that both crates build with the same versions.
#
# With REGISTRY (a directory), the crate depends on smolv by version, as a
# crates.io user's does, from a directory source made there that stands in
# for crates.io: smolv's crates as `cargo package` makes them, and every
# other package the crate needs, copied from Cargo's cache (`cargo
# vendor`, offline). Cargo then builds smolv as it builds a registry
# package (not incremental, fingerprinted by version), not as a path
# dependency. The lock file is resolved anew, offline, from that source.
# Packaging smolv's crates, which depend on each other and are not
# published, needs Cargo 1.90 or newer.
write_smolv_crate() {
  local dir=$1 name=$2 checkout=$3 shaders=$4 registry=${5:-}
  mkdir -p "$dir/src"
  # An earlier run's stand-in for crates.io, if any.
  rm -rf "$dir/.cargo"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$name"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
smolv-runtime = { path = "$checkout/smolv-runtime" }

[build-dependencies]
smolv-build = { path = "$checkout/smolv-build" }

[workspace]
TOML
  cat > "$dir/build.rs" <<RUST
fn main() {
    smolv_build::Config::new().shader_dir("$shaders").compile();
}
RUST
  cp "$checkout/Cargo.lock" "$dir/Cargo.lock"
  [ -n "$registry" ] || return 0

  local crate file version packaged
  registry=$(realpath -m "$registry")
  version=$(cd "$checkout" && cargo pkgid --offline -p smolv-build)
  version=${version##*[#@]}
  rm -rf "$registry"
  # First the other packages, while the manifest still has the path
  # dependencies that `cargo vendor` follows.
  (cd "$dir" && cargo vendor --offline --quiet "$registry" > /dev/null)
  # Beside the registry, so that a failed run leaves nothing elsewhere.
  packaged="$registry.packaged"
  rm -rf "$packaged"
  (cd "$checkout" && cargo package --quiet --no-verify --allow-dirty --locked --target-dir "$packaged" \
    -p smolv-format -p smolv-codec -p smolv-macros -p smolv-runtime -p smolv-build)
  for crate in smolv-format smolv-codec smolv-macros smolv-runtime smolv-build; do
    file="$packaged/package/$crate-$version.crate"
    tar -xzf "$file" -C "$registry"
    mv "$registry/$crate-$version" "$registry/$crate"
    printf '{"files":{},"package":"%s"}\n' "$(sha256sum "$file" | cut -d' ' -f1)" \
      > "$registry/$crate/.cargo-checksum.json"
  done
  rm -rf "$packaged"
  sed -i "s|^smolv-runtime = .*|smolv-runtime = \"$version\"|; s|^smolv-build = .*|smolv-build = \"$version\"|" \
    "$dir/Cargo.toml"
  mkdir -p "$dir/.cargo"
  printf '[source.crates-io]\nreplace-with = "smolv-bench"\n\n[source.smolv-bench]\ndirectory = "%s"\n' \
    "$registry" > "$dir/.cargo/config.toml"
  rm "$dir/Cargo.lock"
  (cd "$dir" && cargo generate-lockfile --offline --quiet)
}

