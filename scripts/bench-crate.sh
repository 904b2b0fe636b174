# Sourced by the bench scripts: the shaders they measure
# (`pick_modules`), a throwaway crate over smolv, outside the workspace,
# whose build script compiles a shader directory, and SHADERC_LIB_DIR
# exported (below).

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

# write_smolv_crate DIR NAME CHECKOUT SHADERS: DIR/Cargo.toml (package NAME,
# path dependencies on the smolv checkout CHECKOUT, a workspace of its
# own), DIR/build.rs (compiles SHADERS with smolv's defaults) and
# CHECKOUT's lock file, so that both crates build with the same versions.
write_smolv_crate() {
  local dir=$1 name=$2 checkout=$3 shaders=$4
  mkdir -p "$dir/src"
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
}

# The merged static shaderc that `scripts/setup.sh` makes, unless the shell
# already names one. The checkout's .cargo/config.toml sets it for crates
# below the checkout (the default SMOLV_BENCH_DIR); a SMOLV_BENCH_DIR
# elsewhere needs it here. shaderc-sys reads it only when first built, so
# a crate built without it keeps failing to link.
if [ -z "${SHADERC_LIB_DIR:-}" ] && [ -f "$root/target/shaderc/libshaderc_combined.a" ]; then
  export SHADERC_LIB_DIR="$root/target/shaderc"
fi
