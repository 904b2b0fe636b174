//! Running the game binary and comparing its screenshots.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod image;
#[allow(unused_imports, reason = "each test uses a part of it")]
pub use image::*;

/// The game binary Cargo built for these tests.
pub fn game() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-game"));
    // Pipelines must come from the library path unless a test asks otherwise.
    command.env_remove("SMOLV_FORCE_MONOLITHIC");
    // The default pipeline cache goes under the test's target directory,
    // not the user's ~/.cache.
    command.env("XDG_CACHE_HOME", Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-cache"));
    command
}

/// Runs `command`, returning its output, with stdout and stderr shown on failure.
pub fn run(command: &mut Command) -> Output {
    let output = command.output().expect("the game binary runs");
    eprintln!("--- stdout\n{}", String::from_utf8_lossy(&output.stdout));
    eprintln!("--- stderr\n{}", String::from_utf8_lossy(&output.stderr));
    output
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("example-game").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}
