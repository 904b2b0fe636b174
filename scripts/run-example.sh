#!/usr/bin/env bash
# Sets up the machine, then builds and runs the example game (release).
# Arguments go to the game (`scripts/run-example.sh --help` lists them);
# relative paths, like --screenshot's, are taken from where you run it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cargo run --release --locked --manifest-path "$SMOLV_ROOT/Cargo.toml" -p example-game -- "$@"
