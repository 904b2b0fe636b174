#!/usr/bin/env bash
# Sets up the machine, then builds and runs the example game.
# Arguments go to the game; see `scripts/run-example.sh --help`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$SMOLV_ROOT"
cargo run --release --locked -p example-game -- "$@"
