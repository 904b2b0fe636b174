#!/usr/bin/env bash
# The whole test suite, from a fresh machine: set-up, formatting, lints, tests.
# Extra arguments go to `cargo test` (for example a test name filter).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$SMOLV_ROOT"

# Disk: the suite builds the workspace, the release game and, each in its
# own workspace and target directory, the crates the tests generate. No
# debug info and no incremental cache keep that within what CI has free
# (CONTRIBUTING.md, "Time and disk", has the measured sizes). The nested
# workspaces do not see the profile in our Cargo.toml; these variables
# reach them.
export CARGO_PROFILE_DEV_DEBUG=false
export CARGO_INCREMENTAL=0
# A warning only: if `df` fails or prints something else, the suite goes on.
free_gb=$(df -P -BG "$SMOLV_ROOT" 2>/dev/null | awk 'NR == 2 { sub("G", "", $4); print $4 }' || true)
if [[ "$free_gb" =~ ^[0-9]+$ ]] && [ "$free_gb" -lt 20 ]; then
  echo "warning: ${free_gb} GB free under $SMOLV_ROOT, and the suite's target directory grows to" \
    "about 16 GB; if the build fails with \"No space left on device\", free some space and run again" >&2
fi

# Each step says when it began (minutes into the suite), for CI's log.
step() { printf '==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check
step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo doc: no broken links (the workspace, smolv-runtime alone and as docs.rs builds it, WESL)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p smolv-runtime --no-deps --locked --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p smolv-runtime --no-deps --locked --quiet --features vulkan,wgpu,hot-reload,serde
RUSTDOCFLAGS="-D warnings" cargo doc -p smolv-build -p cargo-smolv -p smolv-reload --no-deps --locked --quiet \
    --features smolv-build/wesl,cargo-smolv/wesl,smolv-reload/wesl
step "Windows (x86_64-pc-windows-gnu): the product's crates build, and mingw builds the C++"
# What a Windows user builds: cargo-smolv.exe links smolv-build,
# smolv-runtime and glslang's and SPIRV-Tools' C++ as mingw compiles it,
# and the runtime's optional layers, WESL and hot reload are checked
# beside it.
# It runs under wine after `cargo test`, which builds the Linux cargo-smolv
# it is compared with. The tests, examples and benches are not checked for
# Windows (they run on Linux; the wine step builds the one test that runs
# there): with the whole workspace's targets checked for Windows too, this
# step took 21 of the suite's minutes on 2 shared cores, and CI has 90.
cargo build -p cargo-smolv --locked --target x86_64-pc-windows-gnu
test -s target/x86_64-pc-windows-gnu/debug/cargo-smolv.exe
cargo check -p smolv-runtime -p smolv-build -p smolv-reload --lib --locked --target x86_64-pc-windows-gnu \
    --features smolv-runtime/vulkan,smolv-runtime/wgpu,smolv-runtime/hot-reload,smolv-runtime/serde,smolv-build/wesl,smolv-reload/wesl
step "smolv-runtime and smolv-codec without default features (no_std + alloc)"
cargo build -p smolv-runtime -p smolv-codec --no-default-features --locked
step "cargo test --workspace"
cargo test --workspace --locked "$@"
step "Windows under wine: a build script's workers skip its main; cargo-smolv.exe builds what Linux builds"
scripts/windows-under-wine.sh
# Nothing after this builds for Windows: its target directory (1.1 GB,
# the C++ compiled by mingw among it) goes before the release build.
rm -rf target/x86_64-pc-windows-gnu target/wine
# WESL is behind the `wesl` feature, off by default (docs/features.md):
# lint and test it with the feature on.
step "WESL: clippy and tests with the wesl feature"
cargo clippy --locked -p smolv-build -p cargo-smolv -p smolv-reload --all-targets \
    --features smolv-build/wesl,cargo-smolv/wesl,smolv-reload/wesl -- -D warnings
cargo test --locked -p smolv-build --features wesl --lib --test wesl "$@"
cargo test --locked -p cargo-smolv --features wesl --test cli --test crash --test remote_cache -- wesl
cargo test --locked -p smolv-reload --features wesl --test reload_wesl "$@"
step "the Vulkan layer's example program, on lavapipe under validation"
cargo run --locked -p smolv-runtime --features vulkan --example pipelines
step "the wgpu example with its shaders shipped as SPIR-V: passthrough and hot reload"
# cargo test --workspace ran it with WGSL shipped; these features change its build.
cargo test --locked -p example-wgpu --features hot-reload,spirv
step "the example game's hot reload: clippy and its test (need the hot-reload feature)"
cargo clippy --locked -p example-game --features hot-reload --all-targets -- -D warnings
cargo test --locked -p example-game --features hot-reload --test hot_reload
step "the README's first command: the example game headless, release build"
cargo run --release --locked -p example-game -- --headless --frames 120 --validation --screenshot target/shot.png
step "cargo install --path cargo-smolv"
# A debug build in the workspace's target directory: what the tests built
# already, so this checks that the install works without a release build.
CARGO_TARGET_DIR="$SMOLV_ROOT/target" cargo install --path cargo-smolv --debug --locked --quiet \
  --root "$SMOLV_ROOT/target/install"
"$SMOLV_ROOT/target/install/bin/cargo-smolv" smolv --help >/dev/null
step "cargo package (publishable crates)"
# Cargo unpacks the workspace's own packages from a temporary local registry
# and caches that unpacked source by version under CARGO_HOME (in folders
# named "-<hash>"); a stale copy from an earlier run would be verified
# instead of the current one, so drop those caches first.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-* "$SMOLV_ROOT/target/package"
# Cargo never rebuilds a registry crate of the same version, and the
# packages it verifies against are ours at 0.1.0 from that temporary
# registry: drop what an earlier run built of them, or it verifies against
# the old code.
rm -rf "$SMOLV_ROOT"/target/debug/.fingerprint/{smolv-format,smolv-codec,smolv-runtime,smolv-macros,smolv-build,smolv-reload,cargo-smolv}-*
cargo package --workspace --exclude example-game --exclude example-wgpu --exclude smolv-tests --locked --allow-dirty --quiet
step "done"
