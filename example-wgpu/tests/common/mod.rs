//! Running the example binary on wgpu's Vulkan backend, and reading what
//! it wrote.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../../example-game/tests/common/image.rs"]
mod image;
#[allow(unused_imports, reason = "each test uses a part of it")]
pub use image::*;

/// Runs the example with `args` on wgpu's Vulkan backend (lavapipe in
/// CI), showing its output on failure.
pub fn run(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_example-wgpu"))
        .args(args)
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("the example binary runs");
    eprintln!("--- stdout\n{}", String::from_utf8_lossy(&output.stdout));
    eprintln!("--- stderr\n{}", String::from_utf8_lossy(&output.stderr));
    output
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("example-wgpu").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}
